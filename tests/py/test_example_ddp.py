"""examples/ddp_train.py, the main demo: a plain PyTorch script run on two
processes through the launcher (`bin/ctorchrun -m torch.distributed.run`),
DDP over gloo.  The loss falls, the test accuracy is far above chance, rank
0's checkpoint loads in ctorch and in PyTorch, and under PyTorch (started by
hand: torch 1.13's own launcher crashes under Python 3.11) the same file
prints the same first-epoch loss (same seeds, same data; the convolutions
then round differently and the runs drift apart)."""
import os
import re
import subprocess
import sys

import pytest

import ctorch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "examples", "ddp_train.py")
RUN = os.path.join(ROOT, "bin", "ctorchrun")
ARGS = ["--epochs", "2", "--train-size", "1024", "--test-size", "256", "--batch-size", "16"]

pytestmark = pytest.mark.skipif(not ctorch.distributed.is_available(),
                                reason="ctorch._C has no c10d process group")


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONUNBUFFERED", "PYTHONPATH", "CTORCH_TORCH_NAMES", "RANK",
                        "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK")}
    env.update(extra)
    return env


def _free_port():
    from helpers import free_port
    return free_port()


def _parse(out):
    epochs = [float(x) for x in re.findall(r"^epoch \d/2  loss (\S+)  \d+ samples/s$", out, re.M)]
    acc = re.search(r"^test accuracy (\S+)% \((\d+)/256\)$", out, re.M)
    return epochs, acc


@pytest.fixture(scope="module")
def ctorch_run(tmp_path_factory):
    ck = str(tmp_path_factory.mktemp("ddp") / "ck.pt")
    p = subprocess.run([RUN, "-m", "torch.distributed.run", "--standalone",
                        "--nproc_per_node=2", SCRIPT] + ARGS + ["--checkpoint", ck],
                       capture_output=True, text=True, env=_env(), timeout=300)
    return p, ck


def test_trains_through_the_launcher(ctorch_run):
    p, ck = ctorch_run
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("training on 2 processes, 1024 samples, batch 16 per process\n")
    epochs, acc = _parse(p.stdout)
    assert len(epochs) == 2 and epochs[1] < epochs[0] < 2.35, p.stdout
    assert acc and float(acc.group(1)) > 50, p.stdout      # chance is 10 %
    assert p.stdout.endswith("saved %s\n" % ck)
    # the launcher's OMP_NUM_THREADS notice, as torchrun gives it
    assert "Setting OMP_NUM_THREADS environment variable for each process to be 1" in p.stderr


def test_checkpoint_loads(ctorch_run, torch_ref):
    p, ck = ctorch_run
    assert p.returncode == 0, p.stderr
    mine = ctorch.load(ck)
    theirs = torch_ref.load(ck)
    assert mine["epochs"] == theirs["epochs"] == 2
    assert list(mine["model"]) == ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias",
                                   "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    for k, v in mine["model"].items():
        assert v.tolist() == theirs["model"][k].tolist(), k


def test_same_file_under_pytorch(ctorch_run, torch_ref, tmp_path):
    p, _ = ctorch_run
    assert p.returncode == 0, p.stderr
    port = str(_free_port())
    procs = [subprocess.Popen([sys.executable, SCRIPT] + ARGS +
                              ["--checkpoint", str(tmp_path / "ck.pt")],
                              cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=_env(RANK=str(r), WORLD_SIZE="2", OMP_NUM_THREADS="1",
                                                  MASTER_ADDR="127.0.0.1", MASTER_PORT=port))
             for r in range(2)]
    outs = [pr.communicate(timeout=300) for pr in procs]
    assert [pr.returncode for pr in procs] == [0, 0], outs
    t_epochs, t_acc = _parse(outs[0][0])
    epochs, _ = _parse(p.stdout)
    assert epochs[0] == pytest.approx(t_epochs[0], abs=2e-4)
    assert epochs[1] == pytest.approx(t_epochs[1], rel=0.05)
    assert t_acc is not None
