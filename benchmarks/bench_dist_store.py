"""c10d key-value stores: ctorch's beside torch.distributed's, measured in
the same run.  Usage:
PYTHONPATH=python /usr/bin/python3 benchmarks/bench_dist_store.py [--quick].

Each figure is the median over repeats of microseconds per operation:
  * TCPStore set+get, on the master (its own store: ctorch answers in the
    calling thread, torch goes through loopback TCP) and on a client;
  * TCPStore add, on a client;
  * TCPStore get woken by a set from a client in another process (the
    latency a rank waiting for a key sees);
  * FileStore and HashStore set+get.
Ratios are torch's time divided by ctorch's (above 1: ctorch is faster).
"""
import os
import statistics
import tempfile
import time
from datetime import timedelta

from _common import QUICK, load_libs, print_table

N = 300 if QUICK else 2000
REPEATS = 3 if QUICK else 7


def stores_module(name, lib):
    if name == "ctorch":
        return lib._C
    import torch.distributed
    return torch.distributed


def per_op(fn, n=N):
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn(n)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times) * 1e6


def set_get(s):
    def run(n):
        for _ in range(n):
            s.set("key", "value")
            s.get("key")
    return run


def add(s):
    def run(n):
        for _ in range(n):
            s.add("counter", 1)
    return run


def wakeup(d, master):
    """A client blocked in get, woken by a set from a client in another
    process (ranks are processes): ping-pong, one key per message."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    a = d.TCPStore("127.0.0.1", master.port, None, False, timedelta(seconds=30))
    counter = [0]

    def pong(base, n):
        b = d.TCPStore("127.0.0.1", master.port, None, False, timedelta(seconds=30))
        b.set("ready%d" % base, "1")
        for i in range(n):
            b.get("ping%d" % (base + i))
            b.set("pong%d" % (base + i), "1")
        os._exit(0)

    def run(n):
        base = counter[0]
        counter[0] += n
        p = ctx.Process(target=pong, args=(base, n))
        p.start()
        a.get("ready%d" % base)
        start = time.perf_counter()
        for i in range(n):
            a.set("ping%d" % (base + i), "1")
            a.get("pong%d" % (base + i))
        took = time.perf_counter() - start
        p.join()
        return took

    def per_wakeup(n):
        times = sorted(run(n) for _ in range(REPEATS))
        return times[len(times) // 2] / n / 2 * 1e6   # two wake-ups a round
    return per_wakeup


def measure(name, lib, path):
    d = stores_module(name, lib)
    res = {}
    master = d.TCPStore("127.0.0.1", 0, None, True, timedelta(seconds=30))
    client = d.TCPStore("127.0.0.1", master.port, None, False, timedelta(seconds=30))
    res["TCPStore set+get (master)"] = per_op(set_get(master))
    res["TCPStore set+get (client)"] = per_op(set_get(client))
    res["TCPStore add (client)"] = per_op(add(client))
    res["TCPStore get woken by set"] = wakeup(d, master)(max(N // 10, 50))
    fs = d.FileStore(path, 1)
    res["FileStore set+get"] = per_op(set_get(fs))
    res["HashStore set+get"] = per_op(set_get(d.HashStore()))
    return res


def main():
    libs = load_libs()
    names = [n for n in ("ctorch", "torch") if n in libs]
    results = {n: {} for n in names}
    with tempfile.TemporaryDirectory() as tmpdir:
        # interleave the libraries, so both see the same machine load
        for rnd in range(1 if QUICK else 2):
            for n in names:
                path = os.path.join(tmpdir, "%s_%d" % (n, rnd))
                for k, v in measure(n, libs[n], path).items():
                    results[n].setdefault(k, []).append(v)
    head = ["operation (us per op)"] + names
    if len(names) > 1:
        head.append("torch/ctorch")
    table = [head]
    for k in results["ctorch"]:
        row = [k]
        vals = [min(results[n][k]) for n in names]
        row += ["%.1f" % v for v in vals]
        if len(names) > 1:
            row.append("%.1fx" % (vals[1] / vals[0]))
        table.append(row)
    print_table(table)


if __name__ == "__main__":
    main()
