"""DataLoader throughput: ctorch beside PyTorch, measured in the same run.
Usage: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_data.py [--quick].
The torch column appears when it is importable.

A TensorDataset of 20000 samples (3x32x32 float32 images and int64 labels;
5000 with --quick) is read in shuffled batches of 64, one full epoch per
measurement:
  * num_workers=0: indexing, collation (stack) and the sampler in the main
    process;
  * num_workers=2: worker processes (the default start method, fork),
    started for each epoch as in a plain training loop, with the batches
    crossing back through each library's multiprocessing queues;
  * num_workers=2, persistent_workers=True: the same, the workers kept
    between epochs (steady state, start-up left out).
The libraries are timed in turns; each figure is the median over the
repeats, in samples per second.  Ratios are ctorch's throughput divided by
torch's (above 1: ctorch is faster).
"""
import statistics
import time

from _common import QUICK, load_libs, print_table

N = 5000 if QUICK else 20000
REPEATS = 3 if QUICK else 5
BATCH = 64

CASES = [
    ("num_workers=0", dict(num_workers=0)),
    ("num_workers=2", dict(num_workers=2)),
    ("num_workers=2 persistent", dict(num_workers=2, persistent_workers=True)),
]


def make_loader(m, kw):
    m.manual_seed(0)
    ds = m.utils.data.TensorDataset(m.randn(N, 3, 32, 32), m.randint(0, 10, (N,)))
    return m.utils.data.DataLoader(ds, batch_size=BATCH, shuffle=True, **kw)


def epoch(loader):
    """Seconds for one pass over loader (every batch touched)."""
    t = time.perf_counter()
    n = 0
    for x, y in loader:
        n += x.shape[0] + int(y[0]) * 0
    assert n == N
    return time.perf_counter() - t


def main():
    libs = {k: v for k, v in load_libs().items() if k in ("ctorch", "torch")}
    import ctorch.utils.data  # noqa: F401  (torch imports its own)
    names = list(libs)
    header = ["DataLoader, %d samples 3x32x32, batch %d (samples/s)" % (N, BATCH)] + \
        names + ["ctorch/" + n for n in names[1:]]
    table = [header]
    for title, kw in CASES:
        loaders = {name: make_loader(m, kw) for name, m in libs.items()}
        for name in names:
            epoch(loaders[name])        # warm up (and start persistent workers)
        times = {name: [] for name in names}
        for _ in range(REPEATS):
            for name in names:
                times[name].append(epoch(loaders[name]))
        rate = {name: N / statistics.median(t) for name, t in times.items()}
        table.append([title] + ["%.0f" % rate[n] for n in names] +
                     ["%.2fx" % (rate["ctorch"] / rate[n]) for n in names[1:]])
        del loaders
    print_table(table)
    print("\nratios are throughput(ctorch) / throughput(other): above 1.00x ctorch is faster")


if __name__ == "__main__":
    main()
