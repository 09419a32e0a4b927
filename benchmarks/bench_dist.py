"""Process-group collectives: ctorch's gloo (_C.ProcessGroupGloo) beside
PyTorch's gloo (torch.distributed.ProcessGroupGloo), measured in the same
run.  Usage:
PYTHONPATH=python /usr/bin/python3 benchmarks/bench_dist.py [--quick] [--world 2,4]

For each world size every library starts its ranks as fresh interpreters
(one import of ctorch or of torch each), which meet through a FileStore;
the libraries take turns, several rounds, and each figure is the median
over the rounds of rank 0's time per operation (the ranks line up with a
barrier before each measured loop).  Operations are blocking calls as
torch.distributed's blocking functions make them (ctorch with
async_op=False, the fast path that runs on the calling thread).
Ratios are torch's time divided by ctorch's (above 1: ctorch is faster).
A last table sets each library's small-operation latency at the larger
world sizes beside the first (world 4 on a 2-core machine runs two ranks
per core); the load average is printed before and after.
"""
import os
import statistics
import sys
import time

import _common
from _common import QUICK, load_libs, print_table, worker_entry

HERE = os.path.dirname(os.path.abspath(__file__))
ROUNDS = 2 if QUICK else 3

# (name, iterations, (quick iterations))
CASES = [
    ("init", 1),
    ("allreduce 8 B", 2000),
    ("allreduce 1 MB", 200),
    ("allreduce 64 MB", 5),
    ("barrier", 2000),
    ("broadcast 8 B", 2000),
    ("broadcast 1 MB", 200),
    ("reduce 8 B", 1000),
    ("allgather 8 B", 1000),
    ("allgather 1 MB", 100),
    ("reduce_scatter 1 MB", 100),
    ("all_to_all 1 MB", 100),
    ("send/recv round trip 8 B", 2000),
    ("send/recv 1 MB one way", 200),
]


def _iters(n):
    return max(1, n // 10) if QUICK else n


# ---- a rank ------------------------------------------------------------------

def worker(lib, rank, world, path):
    out = {}
    if lib == "ctorch":
        import ctorch as T
        from ctorch import _C
        t0 = time.perf_counter()
        store = _C.FileStore(path, world)
        pg = _C.ProcessGroupGloo(store, rank, world, 120.0)
        out["init"] = time.perf_counter() - t0

        def allreduce(t):
            pg.allreduce([t], 0, async_op=False).wait()

        def barrier():
            pg.barrier(async_op=False).wait()

        def broadcast(t):
            pg.broadcast([t], 0, async_op=False).wait()

        def reduce(t):
            pg.reduce([t], 0, 0, async_op=False).wait()

        def allgather(outs, t):
            pg.allgather([outs], [t], async_op=False).wait()

        def reduce_scatter(o, ins):
            pg.reduce_scatter([o], [ins], 0, async_op=False).wait()

        def alltoall(o, i):
            pg.alltoall_base(o, i, [], [], async_op=False).wait()

        def send(t, dst):
            pg.send([t], dst, 0, async_op=False).wait()

        def recv(t, src):
            pg.recv([t], src, 0, async_op=False).wait()
    else:
        import datetime

        import torch as T
        import torch.distributed as dist
        t0 = time.perf_counter()
        store = dist.FileStore(path, world)
        pg = dist.ProcessGroupGloo(store, rank, world, datetime.timedelta(seconds=120))
        out["init"] = time.perf_counter() - t0

        def allreduce(t):
            pg.allreduce([t]).wait()

        def barrier():
            pg.barrier().wait()

        def broadcast(t):
            o = dist.BroadcastOptions()
            o.rootRank = 0
            pg.broadcast([t], o).wait()

        def reduce(t):
            o = dist.ReduceOptions()
            o.rootRank = 0
            pg.reduce([t], o).wait()

        def allgather(outs, t):
            pg.allgather([outs], [t]).wait()

        def reduce_scatter(o, ins):
            pg.reduce_scatter([o], [ins]).wait()

        def alltoall(o, i):
            pg.alltoall_base(o, i, [], []).wait()

        def send(t, dst):
            pg.send([t], dst, 0).wait()

        def recv(t, src):
            pg.recv([t], src, 0).wait()

    MB = 1 << 20
    small = T.ones(2)
    one = T.ones(MB // 4)
    big = T.ones(64 * MB // 4)
    outs = [T.zeros(MB // 4) for _ in range(world)]
    small_outs = [T.zeros(2) for _ in range(world)]
    rs_in = [T.ones(MB // 4) for _ in range(world)]
    a2a_in = T.ones(MB // 4 // world * world)
    a2a_out = T.zeros(MB // 4 // world * world)

    def rtt():
        if rank == 0:
            send(small, 1)
            recv(small, 1)
        elif rank == 1:
            recv(small, 0)
            send(small, 0)

    def oneway():
        if rank == 0:
            send(one, 1)
        elif rank == 1:
            recv(one, 0)

    bodies = {
        "allreduce 8 B": lambda: allreduce(small),
        "allreduce 1 MB": lambda: allreduce(one),
        "allreduce 64 MB": lambda: allreduce(big),
        "barrier": barrier,
        "broadcast 8 B": lambda: broadcast(small),
        "broadcast 1 MB": lambda: broadcast(one),
        "reduce 8 B": lambda: reduce(small),
        "allgather 8 B": lambda: allgather(small_outs, small),
        "allgather 1 MB": lambda: allgather(outs, one),
        "reduce_scatter 1 MB": lambda: reduce_scatter(one, rs_in),
        "all_to_all 1 MB": lambda: alltoall(a2a_out, a2a_in),
        "send/recv round trip 8 B": rtt,
        "send/recv 1 MB one way": oneway,
    }
    for name, n in CASES:
        if name == "init":
            continue
        body = bodies[name]
        n = _iters(n)
        try:
            body()                      # warm up (and a first touch of buffers)
            barrier()
            t0 = time.perf_counter()
            for _ in range(n):
                body()
            if name.startswith("send/recv"):
                barrier()               # the receiver's last receive is in
            out[name] = (time.perf_counter() - t0) / n
        except RuntimeError as e:       # torch 1.13's gloo lacks some operations
            out[name] = "n/a: " + str(e).splitlines()[0][:60]
            barrier()
    return out


# ---- the driver ------------------------------------------------------------------

def run_world(lib, world):
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    return _common.run_world(__file__, lib, world, env, ["--quick"] if QUICK else [])


def fmt(v):
    if isinstance(v, str):
        return "n/a"
    if v >= 1e-3:
        return "%.2f ms" % (v * 1e3)
    return "%.1f us" % (v * 1e6)


def main():
    worlds = [2, 4]
    args = sys.argv[1:]
    for i, a in enumerate(args):
        if a.startswith("--world"):
            spec = a.split("=", 1)[1] if "=" in a else args[i + 1]
            worlds = [int(x) for x in spec.split(",")]
    libs = ["ctorch"] + (["torch"] if "torch" in load_libs() else [])
    meds_by = {}
    print("load average before: %.2f %.2f %.2f\n" % os.getloadavg())
    for world in worlds:
        res = {lib: {} for lib in libs}
        for _ in range(ROUNDS):
            for lib in libs:
                for k, v in run_world(lib, world).items():
                    res[lib].setdefault(k, []).append(v)
        table = [["world %d" % world] + libs + (["torch/ctorch"] if len(libs) > 1 else [])]
        for name, _ in CASES:
            row = [name]
            meds = []
            for lib in libs:
                vals = [v for v in res[lib].get(name, []) if not isinstance(v, str)]
                med = statistics.median(vals) if vals else "n/a"
                meds.append(med)
                meds_by[lib, world, name] = med
                row.append(fmt(med))
            if len(libs) > 1:
                c, t = meds
                row.append("%.1fx" % (t / c) if not isinstance(c, str) and not isinstance(t, str)
                           else "")
            if name == "allreduce 64 MB":
                for i, m in enumerate(meds):
                    if not isinstance(m, str):
                        row[1 + i] += " (%.2f GB/s)" % (64 / 1024 / m)
            table.append(row)
        print_table(table)
        print()
    # small operations on more ranks than cores: each world against the
    # first one (the issue asks for 4 ranks within 3x of 2 on this machine)
    if len(worlds) > 1:
        w0 = worlds[0]
        head = ["small ops"] + ["%s w%d/w%d" % (lib, w, w0) for lib in libs for w in worlds[1:]]
        table = [head]
        for name in ("allreduce 8 B", "barrier", "broadcast 8 B", "reduce 8 B", "allgather 8 B"):
            row = [name]
            for lib in libs:
                for w in worlds[1:]:
                    a, b = meds_by.get((lib, w0, name)), meds_by.get((lib, w, name))
                    ok = isinstance(a, float) and isinstance(b, float)
                    row.append("%.1fx" % (b / a) if ok else "n/a")
            table.append(row)
        print_table(table)
        print()
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    worker_entry(worker)
    main()
