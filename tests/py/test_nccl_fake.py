"""The nccl backend without a GPU: ProcessGroupNCCL (csrc/distributed/
pg_nccl.c) over the pretend CUDA part (tests/fake_cuda) and the pretend
NCCL (tests/fake_nccl, loaded through CTORCH_NCCL_LIB in place of
libnccl.so.2).  What runs for real: the argument checks, the unique-id
exchange through the store, communicators per device, the internal
stream ordering calls, the flat buffers of list collectives, the
dtype/op mapping, works and futures, object collectives and DDP.  The
cases live in nccl_fake_cases.py and run in spawned ranks."""
import json
import os
import subprocess
import sys

import pytest

import ctorch
import test_cuda_fake
from nccl_fake_cases import all_cases

HERE = os.path.dirname(os.path.abspath(__file__))


def fake_nccl():
    """build/tests/libnccl_fake.so beside the pretend CUDA part."""
    p = os.path.join(os.path.dirname(test_cuda_fake.fake_part()), "libnccl_fake.so")
    if not os.path.exists(p):
        pytest.fail("libnccl_fake.so is not built (make test-py builds it)")
    return p


def fake_env(devices=2):
    env = dict(os.environ, CTORCH_CUDA_PART=test_cuda_fake.fake_part(),
               CTORCH_NCCL_LIB=fake_nccl(), CTORCH_FAKE_CUDA_DEVICES=str(devices),
               CTORCH_FAKE_NCCL_TIMEOUT="60")
    env.pop("PYTHONUNBUFFERED", None)
    return env


@pytest.fixture(scope="module", params=[1, 2, 3])
def results(request):
    world = request.param
    p = subprocess.run([sys.executable, os.path.join(HERE, "nccl_fake_cases.py"),
                        str(world)], env=fake_env(max(world, 2)), capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, "the ranks failed (rc %d):\n%s%s" % (
        p.returncode, p.stdout[-3000:], p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", all_cases())
def test_case(results, name):
    assert results[name] == "ok", results[name]


def _script(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)


def test_without_nccl_the_backend_is_refused():
    """An NCCL library that cannot be loaded: is_nccl_available() is False
    and init_process_group("nccl") raises PyTorch's error."""
    env = fake_env()
    env["CTORCH_NCCL_LIB"] = os.path.join(HERE, "no-such-libnccl.so")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    p = _script("import ctorch.distributed as d\n"
                "print(d.is_nccl_available())\n"
                "try:\n"
                "    d.init_process_group('nccl', store=d.HashStore(), rank=0, world_size=1)\n"
                "except RuntimeError as e:\n"
                "    print(e)\n", env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["False", "Distributed package doesn't have NCCL built in"]


def test_nccl_group_without_devices_refuses_cpu_tensors():
    """The real libnccl.so.2 (when this machine has one) with no GPU: the
    group is made (communicators wait for the first collective, as in
    PyTorch) and CPU tensors get PyTorch's error."""
    if not ctorch._C._nccl_available():
        pytest.skip("no NCCL library to load here")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("CTORCH_CUDA_PART", None)
    env.pop("CTORCH_NCCL_LIB", None)
    p = _script("import ctorch, ctorch.distributed as d\n"
                "d.init_process_group('nccl', store=d.HashStore(), rank=0, world_size=1)\n"
                "print(d.get_backend())\n"
                "try:\n"
                "    d.all_reduce(ctorch.ones(2))\n"
                "except RuntimeError as e:\n"
                "    print(e)\n"
                "d.destroy_process_group()\n", env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["nccl", "Tensors must be CUDA and dense"]


def _gpu_demo(source):
    """examples/ddp_train.py moved to the GPUs: nccl, the model and each
    batch on the rank's device (pinned batches), the counters there too."""
    edits = [
        ('dist.init_process_group("gloo")',
         'dist.init_process_group("nccl")\n'
         '    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
         '    dev = torch.device("cuda", torch.cuda.current_device())'),
        ("model = DDP(Net())", "model = DDP(Net().to(dev), device_ids=[dev.index])"),
        ("sampler=sampler)", "sampler=sampler, pin_memory=True)"),
        ("            opt.zero_grad()\n",
         "            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)\n"
         "            opt.zero_grad()\n"),
        ("stats = torch.zeros(2, dtype=torch.float64)",
         "stats = torch.zeros(2, dtype=torch.float64, device=dev)"),
        ("len(y)], dtype=torch.float64)", "len(y)], dtype=torch.float64, device=dev)"),
        ("counts = torch.zeros(2, dtype=torch.int64)",
         "counts = torch.zeros(2, dtype=torch.int64, device=dev)"),
        ("            counts += torch.tensor([(model(x).argmax(1) == y).sum().item(), len(y)])",
         "            x, y = x.to(dev), y.to(dev)\n"
         "            counts += torch.tensor([(model(x).argmax(1) == y).sum().item(), len(y)],"
         " device=dev)"),
    ]
    for old, new in edits:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


def test_cnn_demo_on_pretend_gpus_over_nccl(tmp_path):
    """The main demo (a CNN: convolutions, max pooling, Adam, DDP) moved to
    two pretend GPUs over nccl: its epoch losses are the CPU run's over
    gloo, to the four decimals it prints."""
    root = os.path.dirname(os.path.dirname(HERE))
    with open(os.path.join(root, "examples", "ddp_train.py")) as f:
        cpu = f.read()
    (tmp_path / "gpu.py").write_text(_gpu_demo(cpu))
    args = ["--epochs", "2", "--train-size", "512", "--test-size", "128"]
    run = [os.path.join(root, "bin", "ctorchrun"), "-m", "torch.distributed.run",
           "--standalone", "--nproc_per_node=2"]
    outs = []
    for script, env in ((str(tmp_path / "gpu.py"), fake_env()),
                        (os.path.join(root, "examples", "ddp_train.py"),
                         {k: v for k, v in fake_env().items()
                          if k not in ("CTORCH_CUDA_PART", "CTORCH_NCCL_LIB")})):
        env = dict(env, PYTHONPATH=os.pathsep.join(sys.path))
        p = subprocess.run(run + [script] + args + ["--checkpoint", str(tmp_path / "ck.pt")],
                           env=env, capture_output=True, text=True, timeout=300,
                           cwd=str(tmp_path))
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
        outs.append([ln.split("  ")[:2] for ln in p.stdout.splitlines()
                     if ln.startswith("epoch ")])
    assert len(outs[0]) == 2 and outs[0] == outs[1], outs
