"""The PyTorch distributed tutorials in ../shared/tutorials run unchanged
under bin/ctorchrun and print what PyTorch 1.13 prints.

Each tutorial starts its ranks with torch.multiprocessing (spawn) and
hard-codes MASTER_PORT 29500, so every run gets a network namespace of its
own (unshare -n, as root) and runs beside other tests; without one, runs
take a file lock and go one at a time.  Lines of different ranks may come
in any order, so sorted lines are compared: with the output recorded from
PyTorch 1.13, and with a run under real PyTorch when it is installed.

The tutorials are copied below byte for byte (the tests run from any
checkout); where ../shared/tutorials exists the copies are checked against
it.  dist_sgd_snippets.py holds snippets, not a program: SGD_DRIVER runs
them unchanged, with a small synthetic stand-in for torchvision's MNIST.
"""
import fcntl
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

import test_cuda_fake

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "bin", "ctorchrun")
SHARED = os.path.join(ROOT, "..", "shared", "tutorials")

import ctorch
import helpers

pytestmark = pytest.mark.skipif(not ctorch.distributed.is_available(),
                                reason="ctorch._C has no c10d process group")

TUTORIALS = {}

TUTORIALS['p2p_blocking.py'] = '''"""run.py:"""
#!/usr/bin/env python
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

"""阻塞点对点通信。"""

def run(rank, size):
    tensor = torch.zeros(1)
    if rank == 0:
        tensor += 1
        # 将张量发送到进程1
        dist.send(tensor=tensor, dst=1)
    else:
        # 从进程0接收张量
        dist.recv(tensor=tensor, src=0)
    print('Rank ', rank, ' has data ', tensor[0])

def init_process(rank, size, fn, backend='gloo'):
    """ 初始化分布式环境。 """
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size)

if __name__ == "__main__":
    world_size = 2
    processes = []
    mp.set_start_method("spawn")
    for rank in range(world_size):
        p = mp.Process(target=init_process, args=(rank, world_size, run))
        p.start()
        processes.append(p)

    for p in processes:
        p.join()
'''

TUTORIALS['p2p_nonblocking.py'] = '''"""run.py:"""
#!/usr/bin/env python
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

"""非阻塞点对点通信。"""

def run(rank, size):
    tensor = torch.zeros(1)
    req = None
    if rank == 0:
        tensor += 1
        # 将张量发送到进程1
        req = dist.isend(tensor=tensor, dst=1)
        print('Rank 0 started sending')
    else:
        # 从进程0接收张量
        req = dist.irecv(tensor=tensor, src=0)
        print('Rank 1 started receiving')
    req.wait()
    print('Rank ', rank, ' has data ', tensor[0])

def init_process(rank, size, fn, backend='gloo'):
    """ 初始化分布式环境。 """
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size)

if __name__ == "__main__":
    world_size = 2
    processes = []
    mp.set_start_method("spawn")
    for rank in range(world_size):
        p = mp.Process(target=init_process, args=(rank, world_size, run))
        p.start()
        processes.append(p)

    for p in processes:
        p.join()
'''

TUTORIALS['allreduce_group.py'] = '''"""run.py:"""
#!/usr/bin/env python
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

""" All-Reduce 示例。"""
def run(rank, size):
    """ 简单的集合通信。 """
    group = dist.new_group([0, 1])
    tensor = torch.ones(1)
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM, group=group)
    print('Rank ', rank, ' has data ', tensor[0])

def init_process(rank, size, fn, backend='gloo'):
    """ 初始化分布式环境。 """
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size)

if __name__ == "__main__":
    world_size = 2
    processes = []
    mp.set_start_method("spawn")
    for rank in range(world_size):
        p = mp.Process(target=init_process, args=(rank, world_size, run))
        p.start()
        processes.append(p)

    for p in processes:
        p.join()
'''

TUTORIALS['ring_allreduce.py'] = '''"""run.py:"""
#!/usr/bin/env python
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

""" 使用加法的环形reduce实现。 """
def allreduce(send, recv):
   rank = dist.get_rank()
   size = dist.get_world_size()
   send_buff = send.clone()
   recv_buff = send.clone()
   accum = send.clone()

   left = ((rank - 1) + size) % size
   right = (rank + 1) % size

   for i in range(size - 1):
       if i % 2 == 0:
           # 发送send_buff
           send_req = dist.isend(send_buff, right)
           dist.recv(recv_buff, left)
           accum[:] += recv_buff[:]
       else:
           # 发送recv_buff
           send_req = dist.isend(recv_buff, right)
           dist.recv(send_buff, left)
           accum[:] += send_buff[:]
       send_req.wait()
   recv[:] = accum[:]


# driver (not part of the tutorial): every rank contributes rank+1
def run(rank, size):
    send = torch.ones(4) * (rank + 1)
    recv = torch.zeros(4)
    allreduce(send, recv)
    print('Rank ', rank, ' has data ', recv)

def init_process(rank, size, fn, backend='gloo'):
    """ 初始化分布式环境。 """
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size)

if __name__ == "__main__":
    world_size = 2
    processes = []
    mp.set_start_method("spawn")
    for rank in range(world_size):
        p = mp.Process(target=init_process, args=(rank, world_size, run))
        p.start()
        processes.append(p)

    for p in processes:
        p.join()
'''

TUTORIALS['spawn_tensor_slices.py'] = '''import torch, os
import torch.distributed as dist
import torch.multiprocessing as mp

def run(rank, size):
    """ Distributed function to be implemented later. """
    print(f'rank {rank} of {size}')

def init_process(rank, size, data, fn, backend='gloo'):
    """ Initialize the distributed environment. """
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size)

def processes(data):
    size = len(data)
    processes = []
    for rank in range(size):
        p = mp.Process(target=init_process, args=(rank, size, data, run))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()

if __name__ == "__main__":
    mp.set_start_method("spawn")
    size_vector = 133
    part = int(size_vector/8)
    indices = torch.arange(size_vector)
    split_data = torch.split(indices, part)
    print(split_data)
    processes(split_data)
'''

TUTORIALS['dist_sgd_snippets.py'] = '''""" 数据集划分助手 """
class Partition(object):

    def __init__(self, data, index):
        self.data = data
        self.index = index

    def __len__(self):
        return len(self.index)

    def __getitem__(self, index):
        data_idx = self.index[index]
        return self.data[data_idx]

class DataPartitioner(object):

    def __init__(self, data, sizes=[0.7, 0.2, 0.1], seed=1234):
        self.data = data
        self.partitions = []
        rng = Random()  # from random import Random
        rng.seed(seed)
        data_len = len(data)
        indexes = [x for x in range(0, data_len)]
        rng.shuffle(indexes)

        for frac in sizes:
            part_len = int(frac * data_len)
            self.partitions.append(indexes[0:part_len])
            indexes = indexes[part_len:]

    def use(self, partition):
        return Partition(self.data, self.partitions[partition])


""" 划分MNIST """
def partition_dataset():
    dataset = datasets.MNIST('./data', train=True, download=True,
                             transform=transforms.Compose([
                                 transforms.ToTensor(),
                                 transforms.Normalize((0.1307,), (0.3081,))
                             ]))
    size = dist.get_world_size()
    bsz = 128 // size
    partition_sizes = [1.0 / size for _ in range(size)]
    partition = DataPartitioner(dataset, partition_sizes)
    partition = partition.use(dist.get_rank())
    train_set = torch.utils.data.DataLoader(partition,
                                             batch_size=bsz,
                                             shuffle=True)
    return train_set, bsz


""" 分布式同步SGD示例 """
def run(rank, size):
    torch.manual_seed(1234)
    train_set, bsz = partition_dataset()
    model = Net()
    optimizer = optim.SGD(model.parameters(),
                          lr=0.01, momentum=0.5)

    num_batches = ceil(len(train_set.dataset) / float(bsz))
    for epoch in range(10):
        epoch_loss = 0.0
        for data, target in train_set:
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            epoch_loss += loss.item()
            loss.backward()
            average_gradients(model)
            optimizer.step()
        print('Rank ', dist.get_rank(), ', epoch ',
              epoch, ': ', epoch_loss / num_batches)


""" 梯度平均。 """
def average_gradients(model):
    size = float(dist.get_world_size())
    for param in model.parameters():
        dist.all_reduce(param.grad.data, op=dist.ReduceOp.SUM)
        param.grad.data /= size
'''

TUTORIALS['gpu_ddp_basic.py'] = '''import os
import sys
import tempfile
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
import torch.multiprocessing as mp

from torch.nn.parallel import DistributedDataParallel as DDP

def setup(rank, world_size):
    os.environ['MASTER_ADDR'] = 'localhost'
    os.environ['MASTER_PORT'] = '12355'

    # initialize the process group
    dist.init_process_group("gloo", rank=rank, world_size=world_size)

def cleanup():
    dist.destroy_process_group()

class ToyModel(nn.Module):
    def __init__(self):
        super(ToyModel, self).__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def demo_basic(rank, world_size):
    print(f"Running basic DDP example on rank {rank}.")
    setup(rank, world_size)

    # create model and move it to GPU with id rank
    model = ToyModel().to(rank)
    ddp_model = DDP(model, device_ids=[rank])

    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)

    optimizer.zero_grad()
    outputs = ddp_model(torch.randn(20, 10))
    labels = torch.randn(20, 5).to(rank)
    loss_fn(outputs, labels).backward()
    optimizer.step()

    cleanup()


def run_demo(demo_fn, world_size):
    mp.spawn(demo_fn,
             args=(world_size,),
             nprocs=world_size,
             join=True)


if __name__ == "__main__":  # driver (not part of the tutorial)
    run_demo(demo_basic, 2)
'''

SGD_DRIVER = '''"""Runs the unchanged snippets of dist_sgd_snippets.py: torchvision's MNIST
is replaced by a small synthetic set of the same shape (no download), Net by
a small MLP; everything else is the tutorial's."""
import os
from math import ceil
from random import Random

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class _MNIST(torch.utils.data.Dataset):
    def __init__(self, root, train=True, download=False, transform=None):
        rs = np.random.RandomState(0)
        self.x = torch.from_numpy(rs.rand(256, 1, 28, 28).astype(np.float32))
        self.y = torch.from_numpy(rs.randint(0, 10, 256).astype(np.int64))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], int(self.y[i])


class datasets:
    MNIST = _MNIST


class transforms:
    Compose = ToTensor = Normalize = staticmethod(lambda *a, **k: None)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x.flatten(1)))), dim=1)


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "dist_sgd_snippets.py"), encoding="utf-8") as _f:
    exec(_f.read())


def init_process(rank, size, fn, backend='gloo'):
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size)


if __name__ == "__main__":
    world_size = 2
    processes = []
    mp.set_start_method("spawn")
    for rank in range(world_size):
        p = mp.Process(target=init_process, args=(rank, world_size, run))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
'''

# sorted stdout lines of PyTorch 1.13 (spawn_tensor_slices: what it prints
# before it crashes in Process.start, plus the lines its ranks would print)
_SPLIT = (
    "(tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15]), "
    "tensor([16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]), "
    "tensor([32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47]), "
    "tensor([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]), "
    "tensor([64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79]), "
    "tensor([80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95]), "
    "tensor([ 96,  97,  98,  99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109,\n"
    "        110, 111]), tensor([112, 113, 114, 115, 116, 117, 118, 119, 120, 121, "
    "122, 123, 124, 125,\n"
    "        126, 127]), tensor([128, 129, 130, 131, 132]))")
EXPECTED = {
    "p2p_blocking.py": ["Rank  0  has data  tensor(1.)", "Rank  1  has data  tensor(1.)"],
    "p2p_nonblocking.py": ["Rank  0  has data  tensor(1.)",
                           "Rank  1  has data  tensor(1.)",
                           "Rank 0 started sending", "Rank 1 started receiving"],
    "allreduce_group.py": ["Rank  0  has data  tensor(2.)",
                           "Rank  1  has data  tensor(2.)"],
    "ring_allreduce.py": ["Rank  0  has data  tensor([3., 3., 3., 3.])",
                          "Rank  1  has data  tensor([3., 3., 3., 3.])"],
    "spawn_tensor_slices.py": sorted(_SPLIT.split("\n")
                                     + ["rank %d of 9" % i for i in range(9)]),
}
# the average loss of each epoch, per rank, under PyTorch 1.13
SGD_EXPECTED = {
    0: [2.307297468185425, 2.3048025369644165, 2.3002166748046875, 2.298507571220398,
        2.2956613302230835, 2.2928318977355957, 2.290810704231262, 2.2903106212615967,
        2.2890162467956543, 2.2860047817230225],
    1: [2.3171188831329346, 2.3118592500686646, 2.3060481548309326, 2.299057126045227,
        2.293860673904419, 2.2879375219345093, 2.283266067504883, 2.2786037921905518,
        2.275107264518738, 2.271142363548279],
}


def _netns_ok():
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"],
                           capture_output=True)
    return probe.returncode == 0


NETNS = _netns_ok()


@functools.lru_cache(maxsize=None)
def _torch_available():
    probe = subprocess.run([sys.executable, "-c", "import torch.distributed"],
                           cwd=tempfile.gettempdir(), env=_env("torch"),
                           capture_output=True)
    return probe.returncode == 0


def _env(impl):
    # unbuffered output would let the ranks' print() pieces interleave
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONUNBUFFERED", "RANK", "WORLD_SIZE", "MASTER_ADDR",
                        "MASTER_PORT", "CTORCH_TORCH_NAMES")}
    if impl == "torch":
        env.pop("PYTHONPATH", None)
    return env


def run_script(name, source, impl, extra_files=(), env=None):
    """Run `source` as the file `name` (ctorch: under bin/ctorchrun; torch:
    real PyTorch) in a fresh directory, `env` added to the environment;
    returns (returncode, stdout, stderr)."""
    tmp = tempfile.mkdtemp(prefix="ctorch_tutorial_")
    for fname, text in ((name, source),) + tuple(extra_files):
        with open(os.path.join(tmp, fname), "w", encoding="utf-8") as fh:
            fh.write(text)
    cmd = [RUN if impl == "ctorch" else sys.executable, name]
    if NETNS:
        cmd = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"'] + cmd
        proc = subprocess.run(cmd, cwd=tmp, env=dict(_env(impl), **(env or {})),
                              capture_output=True, text=True, timeout=300)
    else:
        with open(os.path.join(tempfile.gettempdir(), "ctorch_tutorials_29500.lock"),
                  "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            proc = subprocess.run(cmd, cwd=tmp, env=dict(_env(impl), **(env or {})),
                                  capture_output=True, text=True, timeout=300)
    shutil.rmtree(tmp, ignore_errors=True)
    return proc.returncode, proc.stdout, proc.stderr


def _lines(out):
    return sorted(line for line in out.split("\n") if line)


@pytest.mark.skipif(not os.path.isdir(SHARED), reason="no ../shared/tutorials")
def test_copies_are_the_tutorials():
    for name, text in TUTORIALS.items():
        with open(os.path.join(SHARED, name), encoding="utf-8") as fh:
            assert fh.read() == text, name


PROGRAMS = ["p2p_blocking.py", "p2p_nonblocking.py", "allreduce_group.py",
            "ring_allreduce.py", "spawn_tensor_slices.py"]


def _both(name, source, extra_files=()):
    """ctorch's run and, when PyTorch is installed, torch's (None otherwise),
    side by side (each in its own network namespace, or one after the
    other under the lock)."""
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        torch_run = pool.submit(run_script, name, source, "torch", extra_files) \
            if _torch_available() else None
        ctorch_run = pool.submit(run_script, name, source, "ctorch", extra_files)
        return ctorch_run.result(), torch_run.result() if torch_run else None


@pytest.mark.parametrize("name", PROGRAMS)
def test_tutorial(name):
    (rc, out, err), torch_run = _both(name, TUTORIALS[name])
    assert rc == 0, out + err
    assert _lines(out) == EXPECTED[name], out + err
    if torch_run is None:
        return
    trc, tout, terr = torch_run
    if name == "spawn_tensor_slices.py":
        # PyTorch 1.13 fails to start the ranks ("bad value(s) in
        # fds_to_keep") after printing the slices; ctorch runs to the end
        assert trc != 0 and "fds_to_keep" in terr
        assert _SPLIT in tout
        assert _lines(out) == _lines(tout + "\n".join("rank %d of 9" % i
                                                      for i in range(9)))
    else:
        assert trc == 0, tout + terr
        assert _lines(out) == _lines(tout)


def _losses(out):
    got = {}
    for line in out.split("\n"):
        m = re.match(r"Rank  (\d) , epoch  (\d) :  (\S+)$", line)
        if m:
            got.setdefault(int(m.group(1)), []).append(float(m.group(3)))
    return got


def _close(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert a[k] == pytest.approx(b[k], rel=1e-5), k


def _check_sgd(run):
    rc, out, err = run
    assert rc == 0, out + err
    assert len(out.strip().split("\n")) == 20, out + err
    return _losses(out)


def test_dist_sgd_snippets():
    """The synchronous SGD snippets: ten epochs on two ranks averaging
    gradients with all_reduce; each rank's losses as PyTorch's (recorded,
    and from a run under PyTorch when it is installed)."""
    ctorch_run, torch_run = _both("sgd_driver.py", SGD_DRIVER, (
        ("dist_sgd_snippets.py", TUTORIALS["dist_sgd_snippets.py"]),))
    losses = _check_sgd(ctorch_run)
    _close(losses, SGD_EXPECTED)
    if torch_run is not None:
        _close(losses, _check_sgd(torch_run))


# gpu_ddp_basic.py moves the model to device `rank`: a build of PyTorch
# without a GPU stops there in both ranks (CPU-only: "Torch not compiled with
# CUDA enabled"; CUDA: "Found no NVIDIA driver ..."), and mp.spawn reports
# the first failure
_NO_CUDA = "%s: %s" % helpers.NO_CUDA
_DDP_RANKS = ["Running basic DDP example on rank 0.", "Running basic DDP example on rank 1."]


def _failure(err):
    """The spawn failure's gist: the exception's type, the failed process's
    header and the last line, without paths and line numbers."""
    lines = err.strip().split("\n")
    return (lines[0], [ln for ln in lines if ln.startswith("-- Process ")], lines[-1])


def test_gpu_ddp_basic():
    helpers.no_gpu_here()
    (rc, out, err), torch_run = _both("gpu_ddp_basic.py", TUTORIALS["gpu_ddp_basic.py"])
    assert rc == 1, out + err
    assert _lines(out) == _DDP_RANKS, out + err
    first, header, last = _failure(err)
    assert first == "Traceback (most recent call last):" and last == _NO_CUDA, err
    assert len(header) == 1 and re.fullmatch(
        r"-- Process [01] terminated with the following error:", header[0]), err
    assert "torch.multiprocessing.spawn.ProcessRaisedException: " in err, err
    assert "model = ToyModel().to(rank)" in err, err
    if torch_run is not None:
        trc, tout, terr = torch_run
        assert (trc, _lines(tout)) == (rc, _lines(out)), tout + terr
        if not helpers.CUDA_BUILT:  # Debian's torch is a CPU-only build
            assert _failure(terr)[2] == last


def _ddp_seeded(source):
    """gpu_ddp_basic.py with each rank seeded differently and printing its
    weights after the step."""
    source = source.replace("    setup(rank, world_size)\n",
                            "    setup(rank, world_size)\n    torch.manual_seed(rank)\n")
    return source.replace("    cleanup()\n", "    print(f'rank {rank} stepped, weight sum "
                          "{sum(p.sum() for p in model.parameters()).item():.4f}')\n"
                          "    cleanup()\n")


def test_gpu_ddp_basic_on_pretend_gpus():
    """The tutorial unchanged, and seeded to print its weights, over the
    pretend CUDA part of tests/fake_cuda (two devices whose memory the host
    cannot read outside their kernels): ranks 0 and 1 train on cuda:0 and
    cuda:1, gloo carrying their device tensors; the seeded weights are
    those of the same flow on the CPU."""
    env = {"CTORCH_CUDA_PART": test_cuda_fake.fake_part()}
    rc, out, err = run_script("gpu_ddp_basic.py", TUTORIALS["gpu_ddp_basic.py"], "ctorch",
                              env=env)
    assert rc == 0, out + err
    assert _lines(out) == _DDP_RANKS, out + err
    source = _ddp_seeded(TUTORIALS["gpu_ddp_basic.py"])
    rc, out, err = run_script("ddp_gpu.py", source, "ctorch", env=env)
    assert rc == 0, out + err
    for gpu, cpu in ((".to(rank)", ""), ("DDP(model, device_ids=[rank])", "DDP(model)")):
        source = source.replace(gpu, cpu)
    crc, cout, cerr = run_script("ddp_cpu.py", source, "ctorch")
    assert crc == 0, cout + cerr
    assert _lines(out) == _lines(cout), out + cout


def test_gpu_ddp_basic_over_nccl_on_pretend_gpus():
    """The tutorial with its backend set to "nccl" (the only edit), over the
    pretend CUDA part and the pretend NCCL (tests/fake_nccl): two ranks,
    then one (the issue's world-size-1 run, editing only the size); seeded,
    the two ranks' weights are the CPU flow's."""
    import test_nccl_fake
    env = {k: v for k, v in test_nccl_fake.fake_env().items()
           if k.startswith("CTORCH_")}
    source = TUTORIALS["gpu_ddp_basic.py"]
    assert source.count('"gloo"') == 1
    source = source.replace('"gloo"', '"nccl"')
    rc, out, err = run_script("ddp_nccl.py", source, "ctorch", env=env)
    assert rc == 0, out + err
    assert _lines(out) == _DDP_RANKS, out + err
    one = source.replace("run_demo(demo_basic, 2)", "run_demo(demo_basic, 1)")
    assert one != source
    rc, out, err = run_script("ddp_nccl_1.py", one, "ctorch", env=env)
    assert rc == 0, out + err
    assert _lines(out) == _DDP_RANKS[:1], out + err
    seeded = _ddp_seeded(source)
    rc, out, err = run_script("ddp_nccl_seeded.py", seeded, "ctorch", env=env)
    assert rc == 0, out + err
    cpu = _ddp_seeded(TUTORIALS["gpu_ddp_basic.py"])
    for gpu, host in ((".to(rank)", ""), ("DDP(model, device_ids=[rank])", "DDP(model)")):
        cpu = cpu.replace(gpu, host)
    crc, cout, cerr = run_script("ddp_cpu.py", cpu, "ctorch")
    assert crc == 0, cout + cerr
    assert _lines(out) == _lines(cout), out + cout


def test_gpu_ddp_basic_on_cpu():
    """The same DDP flow with the device moves left out trains a step on
    both ranks (and, under PyTorch, gives the same printout)."""
    source = TUTORIALS["gpu_ddp_basic.py"]
    for gpu, cpu in ((".to(rank)", ""), ("DDP(model, device_ids=[rank])", "DDP(model)")):
        assert gpu in source
        source = source.replace(gpu, cpu)
    # ranks start from different weights and see different batches: DDP's
    # broadcast and gradient averaging make them agree
    source = _ddp_seeded(source)
    (rc, out, err), torch_run = _both("ddp_cpu.py", source)
    assert rc == 0, out + err
    lines = _lines(out)
    assert lines[:2] == _DDP_RANKS, out + err
    sums = [ln.split("weight sum ")[1] for ln in lines[2:]]
    assert len(sums) == 2 and sums[0] == sums[1], out   # the ranks agree after the step
    if torch_run is not None:
        trc, tout, terr = torch_run
        assert trc == 0, tout + terr
        assert _lines(tout) == lines     # same seeds: PyTorch's weights to 4 decimals
