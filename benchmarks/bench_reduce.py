"""Reduction micro-benchmarks: ctorch beside PyTorch and NumPy, measured in
the same run.  Usage: PYTHONPATH=python /usr/bin/python3
benchmarks/bench_reduce.py [--quick].  torch and numpy columns appear when
they are importable.

Each figure is the median of several repeats of a timed loop (timeit), as
in benchmarks/run.py; GB/s counts the bytes read.  Ratios are ctorch's time
divided by the other library's (below 1: ctorch is faster).  The float32
sums are also checked to print the same as torch's.
"""
from _common import load_libs, median_time, print_table









def cases(libs):
    """(title, {lib: seconds}, bytes read)"""
    import numpy as np
    out = []
    n = 1 << 24
    x = np.random.RandomState(0).randn(n).astype(np.float32)
    m = np.random.RandomState(1).rand(4096, 4096).astype(np.float32)

    def wrap(name, arr):
        if name == "numpy":
            return arr
        return libs[name].from_numpy(arr)

    specs = [
        ("a.sum(), 16M float32", x, lambda a, lib: a.sum(), 20),
        ("a.mean(), 16M float32", x, lambda a, lib: a.mean(), 20),
        ("a.sum(dim=0), 4096x4096", m, lambda a, lib: a.sum(0), 5),
        ("a.sum(dim=-1), 4096x4096", m, lambda a, lib: a.sum(-1), 5),
        ("a.amax(dim=-1), 4096x4096", m,
         lambda a, lib: a.max(-1) if lib == "numpy" else a.amax(-1), 5),
        ("a.amax(dim=0), 4096x4096", m,
         lambda a, lib: a.max(0) if lib == "numpy" else a.amax(0), 3),
        ("a.argmax(), 16M float32", x, lambda a, lib: a.argmax(), 5),
        ("a.std(), 16M float32", x, lambda a, lib: a.std(), 3),
        ("a.cumsum(0), 16M float32", x, lambda a, lib: a.cumsum(0), 3),
    ]
    for title, arr, fn, number in specs:
        row = {}
        for name in libs:
            a = wrap(name, arr)
            call = lambda: fn(a, name)     # noqa: E731
            call()                         # warm up (first-touch of outputs)
            row[name] = median_time(call, number=number)
        out.append((title, row, arr.nbytes))
    return out, x


def main():
    libs = load_libs()
    names = list(libs)
    print("threads: ctorch %d%s" % (
        libs["ctorch"].get_num_threads(),
        ", torch %d" % libs["torch"].get_num_threads() if "torch" in libs else ""))
    rows, x = cases(libs)
    header = ["benchmark"] + names + ["ctorch/" + n for n in names[1:]]
    table = [header]
    for title, row, nbytes in rows:
        line = [title] + ["%.2f ms %5.1f GB/s" % (row[n] * 1e3, nbytes / row[n] / 1e9)
                          for n in names]
        line += ["%.2fx" % (row["ctorch"] / row[n]) for n in names[1:]]
        table.append(line)
    print_table(table)
    print("\nratios are time(ctorch) / time(other): below 1.00x ctorch is faster")
    if "torch" in libs:
        c = libs["ctorch"].from_numpy(x).sum()
        t = libs["torch"].from_numpy(x).sum()
        print("16M float32 sum: ctorch %r, torch %r, %s" % (
            float(c), float(t), "same" if float(c) == float(t) else "DIFFERENT"))


if __name__ == "__main__":
    main()
