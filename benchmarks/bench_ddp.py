"""DistributedDataParallel training steps: ctorch's DDP beside PyTorch's
DDP over gloo, 2 processes on this host, measured in the same run.  Usage:
PYTHONPATH=python /usr/bin/python3 benchmarks/bench_ddp.py [--quick]

The model is an MLP 784-1024-1024-10 (ReLU), cross-entropy loss, SGD
(lr 0.01), batch 64 per rank, fp32.  Every library starts its two ranks as
fresh interpreters (OMP_NUM_THREADS=1: one core per rank on a 2-core host)
meeting through a FileStore; libraries take turns (the order alternates
from round to round), and each figure is the median over rounds of rank
0's median over steps.

- steps/s: whole training steps (zero_grad, forward, loss, backward,
  optimizer step) per second: 1 / the median step time, after warm-up
  steps (a median, so steps slowed by other work on a shared machine do
  not move it).
- backward: the median time of loss.backward() with DDP's gradient
  synchronization (bucketed all-reduce overlapping backward).
- comm wait: how long backward() waits on communication, measured the same
  way for both libraries from outside: the median backward time with
  synchronization minus the median backward time of the same model inside
  ddp.no_sync() (the same hooks, no all-reduce).  Steps of the two kinds
  alternate, so both see the same load.
- CPU per step: the CPU time of rank 0's process (all its threads: the
  progress thread of ctorch's process group, gloo's and the TCP stack's
  for PyTorch) per training step: what other load on the host cannot
  inflate, unlike the wall-clock figures above.
- single-process step: the same step on one process without DDP (one core,
  the other idle): the compute part, to tell matmul cost from DDP cost.
Ratios are torch's time divided by ctorch's (steps/s: ctorch's divided
by torch's); above 1 ctorch is faster.
"""
import os
import statistics
import time

import _common
from _common import QUICK, load_libs, print_table, worker_entry

HERE = os.path.dirname(os.path.abspath(__file__))
ROUNDS = 2 if QUICK else 5
STEPS = 10 if QUICK else 40
WARMUP = 3


def _model(T):
    nn = T.nn
    T.manual_seed(0)
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                         nn.ReLU(), nn.Linear(1024, 10))


def worker(lib, rank, world, path):
    if lib == "ctorch":
        import ctorch as T
    else:
        import torch as T
    import contextlib
    dist = T.distributed
    nn = T.nn
    model = _model(T)
    g = T.Generator().manual_seed(rank)
    x = T.randn(64, 784, generator=g)
    y = T.randint(0, 10, (64,), generator=g)
    loss_fn = nn.CrossEntropyLoss()
    out = {}
    if world == 1:
        opt = T.optim.SGD(model.parameters(), lr=0.01)
        times = []
        for i in range(WARMUP + STEPS):
            t0 = time.perf_counter()
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
            times.append(time.perf_counter() - t0)
        out["single-process step"] = statistics.median(times[WARMUP:])
        return out
    dist.init_process_group("gloo", init_method="file://" + path, rank=rank,
                            world_size=world)
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = T.optim.SGD(ddp.parameters(), lr=0.01)

    def step(sync):
        """(whole step, backward) seconds."""
        ctx = contextlib.nullcontext() if sync else ddp.no_sync()
        t0 = time.perf_counter()
        opt.zero_grad()
        with ctx:
            loss = loss_fn(ddp(x), y)
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
        opt.step()
        return time.perf_counter() - t0, t2 - t1

    for _ in range(WARMUP):
        step(True)
        step(False)
    dist.barrier()
    c0 = time.process_time()
    steps = [step(True)[0] for _ in range(STEPS)]
    out["CPU per step"] = (time.process_time() - c0) / STEPS
    dist.barrier()
    bw_sync, bw_local = [], []
    for _ in range(STEPS):
        bw_sync.append(step(True)[1])
        bw_local.append(step(False)[1])
    out["steps/s"] = 1.0 / statistics.median(steps)
    out["backward"] = statistics.median(bw_sync)
    out["backward, no_sync"] = statistics.median(bw_local)
    out["comm wait"] = max(out["backward"] - out["backward, no_sync"], 0.0)
    dist.destroy_process_group()
    return out


def run_world(lib, world):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONUNBUFFERED", None)
    return _common.run_world(__file__, lib, world, env, timeout=600)


ROWS = ["steps/s", "backward", "backward, no_sync", "comm wait", "CPU per step",
        "single-process step"]


def fmt(name, v):
    if v is None:
        return "n/a"
    if name == "steps/s":
        return "%.1f" % v
    return "%.2f ms" % (v * 1e3)


def main():
    libs = ["ctorch"] + (["torch"] if "torch" in load_libs() else [])
    res = {lib: {} for lib in libs}
    for r in range(ROUNDS):
        for lib in (libs if r % 2 == 0 else libs[::-1]):
            for world in (2, 1):
                for k, v in run_world(lib, world).items():
                    res[lib].setdefault(k, []).append(v)
    table = [["MLP 784-1024-1024-10, b64/rank, 2 ranks"] + libs
             + (["ctorch vs torch"] if len(libs) > 1 else [])]
    for name in ROWS:
        meds = [statistics.median(res[lib][name]) if res[lib].get(name) else None
                for lib in libs]
        row = [name] + [fmt(name, m) for m in meds]
        if len(libs) > 1:
            c, t = meds
            if name == "steps/s":
                row.append("%.2fx" % (c / t))
            elif c and t:
                row.append("%.2fx" % (t / c))
            else:
                row.append("")
        table.append(row)
    print_table(table)


if __name__ == "__main__":
    worker_entry(worker)
    main()
