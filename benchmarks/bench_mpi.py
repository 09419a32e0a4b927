"""all_reduce over ctorch's "mpi" backend (OpenMPI under mpirun) beside
ctorch's gloo and PyTorch's gloo, measured in the same run.  Usage:
PYTHONPATH=python /usr/bin/python3 benchmarks/bench_mpi.py [--quick] [--world 2,4]

Sizes 8 B to 64 MB of float32.  The mpi ranks are started by mpirun
(--oversubscribe --bind-to none, as root --allow-run-as-root); the gloo
ranks as fresh interpreters meeting through a FileStore (bench_dist.py's
way).  Each figure is the median over the rounds of rank 0's time per
blocking all_reduce (ctorch with async_op=False; the ranks line up with a
barrier before each measured loop).  Ratios: torch gloo's time divided by
the other's (above 1: faster than PyTorch's gloo).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import _common
from _common import QUICK, load_libs, print_table, worker_entry

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ROUNDS = 2 if QUICK else 3
SIZES = [("8 B", 8, 2000), ("1 KB", 1 << 10, 1000), ("64 KB", 64 << 10, 300),
         ("1 MB", 1 << 20, 100), ("16 MB", 16 << 20, 10), ("64 MB", 64 << 20, 4)]


def measure(T, allreduce, barrier):
    out = {}
    for name, nbytes, n in SIZES:
        n = max(1, n // 10) if QUICK else n
        t = T.ones(nbytes // 4)
        allreduce(t)                    # warm up, first touch
        barrier()
        t0 = time.perf_counter()
        for _ in range(n):
            allreduce(t)
        out[name] = (time.perf_counter() - t0) / n
    return out


def worker(lib, rank, world, path):
    """A gloo rank (worker_entry starts it)."""
    if lib == "ctorch":
        import ctorch as T
        from ctorch import _C
        pg = _C.ProcessGroupGloo(_C.FileStore(path, world), rank, world, 120.0)
        return measure(T, lambda t: pg.allreduce([t], 0, async_op=False).wait(),
                       lambda: pg.barrier(async_op=False).wait())
    import datetime
    import torch as T
    import torch.distributed as dist
    pg = dist.ProcessGroupGloo(dist.FileStore(path, world), rank, world,
                               datetime.timedelta(seconds=120))
    return measure(T, lambda t: pg.allreduce([t]).wait(), lambda: pg.barrier().wait())


def mpi_worker():
    """An mpi rank (mpirun starts it); rank 0 prints the JSON.  Returns
    normally: MPI is finalized at exit, which mpirun waits for."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ctorch as T
    from ctorch import _C
    pg = _C.ProcessGroupMPI.create()
    res = measure(T, lambda t: pg.allreduce([t], 0, async_op=False).wait(),
                  lambda: pg.barrier(async_op=False).wait())
    if pg.rank() == 0:
        print(json.dumps(res), flush=True)
    pg._shutdown()


def run_gloo(lib, world):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return _common.run_world(__file__, lib, world, env, ["--quick"] if QUICK else [])


def run_mpi(world):
    cmd = ["mpirun", "-np", str(world), "--oversubscribe", "--bind-to", "none"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += [sys.executable, os.path.abspath(__file__), "--mpi-worker"]
    cmd += ["--quick"] if QUICK else []
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/tmp",
                         timeout=900, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def fmt(v):
    if v >= 1e-3:
        return "%.2f ms" % (v * 1e3)
    return "%.1f us" % (v * 1e6)


def main():
    if shutil.which("mpirun") is None:
        sys.exit("bench_mpi: no mpirun (apt-get install openmpi-bin libopenmpi-dev)")
    worlds = [2, 4]
    args = sys.argv[1:]
    for i, a in enumerate(args):
        if a.startswith("--world"):
            spec = a.split("=", 1)[1] if "=" in a else args[i + 1]
            worlds = [int(x) for x in spec.split(",")]
    has_torch = "torch" in load_libs()
    cols = ["ctorch mpi", "ctorch gloo"] + (["torch gloo"] if has_torch else [])
    print("load average before: %.2f %.2f %.2f\n" % os.getloadavg())
    for world in worlds:
        res = {c: {} for c in cols}
        for _ in range(ROUNDS):
            runs = {"ctorch mpi": lambda: run_mpi(world),
                    "ctorch gloo": lambda: run_gloo("ctorch", world),
                    "torch gloo": lambda: run_gloo("torch", world)}
            for c in cols:
                for k, v in runs[c]().items():
                    res[c].setdefault(k, []).append(v)
        head = ["all_reduce, world %d" % world] + cols
        if has_torch:
            head += ["torch gloo / mpi", "torch gloo / ctorch gloo"]
        table = [head]
        for name, nbytes, _ in SIZES:
            meds = [statistics.median(res[c][name]) for c in cols]
            row = [name] + [fmt(m) for m in meds]
            if nbytes >= 1 << 20:
                row[1:] = ["%s (%.2f GB/s)" % (r, nbytes / m / 1e9) for r, m in zip(row[1:], meds)]
            if has_torch:
                row += ["%.1fx" % (meds[2] / meds[0]), "%.1fx" % (meds[2] / meds[1])]
            table.append(row)
        print_table(table)
        print()
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    if "--mpi-worker" in sys.argv:
        mpi_worker()
        sys.exit(0)
    worker_entry(worker)
    main()
