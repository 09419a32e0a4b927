"""Sending tensors between processes: ctorch.multiprocessing beside
torch.multiprocessing, measured in the same run.  Usage:
PYTHONPATH=python /usr/bin/python3 benchmarks/bench_mp.py [--quick].

A child process (fork) echoes what arrives on one Queue back on another;
each figure is the median over repeats of ms per round trip of a 64 MB
float32 tensor (16M elements):
  * "shared": the same tensor every time; it moved to shared memory on the
    first trip, so each trip sends a handle and the receiver maps the pages
    it already has (no copy);
  * "fresh": a new tensor every trip, so every trip also moves 64 MB into
    shared memory (the one copy PyTorch makes too).
The child writes one element per trip, and the parent checks that it sees
the write: the memory is shared, not copied.  Ratios are torch's time
divided by ctorch's (above 1: ctorch is faster).
"""
import statistics
import time

from _common import QUICK, load_libs, print_table

N = 16 * 1024 * 1024
TRIPS = 3 if QUICK else 8
REPEATS = 3 if QUICK else 5


def _echo(inq, outq):
    while True:
        t = inq.get()
        if t is None:
            return
        t[0] += 1
        outq.put(t)
        del t


def measure(m, mp, fresh):
    ctx = mp.get_context("fork")
    inq, outq = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_echo, args=(inq, outq))
    p.start()
    try:
        t = m.zeros(N)
        inq.put(t)
        assert outq.get()[0].item() == 1 and t[0].item() == 1   # warm, and shared
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            for _ in range(TRIPS):
                if fresh:
                    t = m.zeros(N)
                before = t[0].item()
                inq.put(t)
                back = outq.get()
                assert back[0].item() == before + 1 and t[0].item() == before + 1
                del back
            times.append((time.perf_counter() - start) / TRIPS)
        return statistics.median(times)
    finally:
        inq.put(None)
        p.join()


def main():
    libs = load_libs()
    mps = {}
    import ctorch.multiprocessing
    mps["ctorch"] = ctorch.multiprocessing
    if "torch" in libs:
        import torch.multiprocessing
        mps["torch"] = torch.multiprocessing
    cases = [("64 MB Queue round trip, shared", False),
             ("64 MB Queue round trip, fresh tensor", True)]
    header = ["benchmark (ms per trip)", "ctorch"] + (["torch", "torch/ctorch"]
                                                      if "torch" in mps else [])
    table = [header]
    for name, fresh in cases:
        ms = {lib: measure(libs[lib], mps[lib], fresh) * 1e3 for lib in mps}
        row = [name, "%.3f" % ms["ctorch"]]
        if "torch" in ms:
            row += ["%.3f" % ms["torch"], "%.2fx" % (ms["torch"] / ms["ctorch"])]
        table.append(row)
    print_table(table)
    print("\nratios are time(torch) / time(ctorch): above 1.00x ctorch is faster")


if __name__ == "__main__":
    main()
