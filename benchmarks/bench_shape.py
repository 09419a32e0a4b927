"""Shape-family benchmarks: ctorch beside PyTorch and NumPy, measured in the
same run.  Usage: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_shape.py
[--quick].  torch and numpy columns appear when they are importable.

Each figure is the median of several repeats of a timed loop; ratios are
ctorch's time divided by the other library's (below 1: ctorch is faster).
Bandwidth counts the bytes read plus the bytes written.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import load_libs, median_time, print_table  # noqa: E402
from run import fmt  # noqa: E402


def arange_f32(name, m, n):
    if name == "numpy":
        return m.arange(n, dtype=m.float32)
    return m.arange(n, dtype=m.float32)


def cases(libs):
    out = []
    M = 1 << 20

    # cat of 8 x 1M float32
    row = {}
    for name, m in libs.items():
        parts = [arange_f32(name, m, M) for _ in range(8)]
        fn = m.concatenate if name == "numpy" else m.cat
        row[name] = median_time("fn(parts)", {"fn": fn, "parts": parts}, 20)
    out.append(("cat 8 x 1M float32", "GB/s", row, 2 * 8 * 4 * M))

    # cat into a preallocated output (no page faults)
    row = {}
    for name, m in libs.items():
        parts = [arange_f32(name, m, M) for _ in range(8)]
        o = m.empty(8 * M, dtype=m.float32)
        stmt = "m.concatenate(parts, out=o)" if name == "numpy" else "m.cat(parts, out=o)"
        row[name] = median_time(stmt, {"m": m, "parts": parts, "o": o}, 20)
    out.append(("cat 8 x 1M float32, out=", "GB/s", row, 2 * 8 * 4 * M))

    # stack of 8 x 1M float32 along a new last dim (interleaving)
    row = {}
    for name, m in libs.items():
        parts = [arange_f32(name, m, M) for _ in range(8)]
        stmt = "m.stack(parts, axis=1)" if name == "numpy" else "m.stack(parts, 1)"
        row[name] = median_time(stmt, {"m": m, "parts": parts}, 10)
    out.append(("stack 8 x 1M float32, dim=1", "GB/s", row, 2 * 8 * 4 * M))

    # stack along dim 0 (a cat)
    row = {}
    for name, m in libs.items():
        parts = [arange_f32(name, m, M) for _ in range(8)]
        row[name] = median_time("m.stack(parts)", {"m": m, "parts": parts}, 20)
    out.append(("stack 8 x 1M float32, dim=0", "GB/s", row, 2 * 8 * 4 * M))

    N = 4096
    for dims, label in (((0,), "flip(0)"), ((1,), "flip(1)"), ((0, 1), "flip((0, 1))")):
        row = {}
        for name, m in libs.items():
            a = arange_f32(name, m, N * N).reshape(N, N)
            if name == "numpy":
                # np.flip is a view; copy to measure the same work
                stmt = "m.ascontiguousarray(m.flip(a, dims))"
            else:
                stmt = "a.flip(dims)"
            row[name] = median_time(stmt, {"m": m, "a": a, "dims": dims}, 5)
        out.append((label + " of 4096x4096 float32", "GB/s", row, 2 * 4 * N * N))

    # repeat / tile of a 1024x1024 float32 to 4096x2048
    row = {}
    for name, m in libs.items():
        a = arange_f32(name, m, 1024 * 1024).reshape(1024, 1024)
        stmt = "m.tile(a, (4, 2))" if name == "numpy" else "a.repeat(4, 2)"
        row[name] = median_time(stmt, {"m": m, "a": a}, 10)
    out.append(("repeat(4, 2) of 1024x1024 float32", "GB/s", row, 4 * 1024 * 1024 * 9))

    # repeat_interleave(4, dim=0) of 1024x1024 float32
    row = {}
    for name, m in libs.items():
        a = arange_f32(name, m, 1024 * 1024).reshape(1024, 1024)
        stmt = "m.repeat(a, 4, axis=0)" if name == "numpy" else "a.repeat_interleave(4, 0)"
        row[name] = median_time(stmt, {"m": m, "a": a}, 10)
    out.append(("repeat_interleave(4, 0) 1024x1024 f32", "GB/s", row, 4 * 1024 * 1024 * 5))

    # roll of a 4096x4096 along both dims
    row = {}
    for name, m in libs.items():
        a = arange_f32(name, m, N * N).reshape(N, N)
        if name == "numpy":
            stmt = "m.roll(a, (7, 9), axis=(0, 1))"
        else:
            stmt = "a.roll((7, 9), (0, 1))"
        row[name] = median_time(stmt, {"m": m, "a": a}, 5)
    out.append(("roll((7, 9), (0, 1)) of 4096x4096 f32", "GB/s", row, 2 * 4 * N * N))

    # small-tensor overhead: cat of two 4-element tensors, chunk into views
    row = {}
    for name, m in libs.items():
        a = arange_f32(name, m, 4)
        fn = m.concatenate if name == "numpy" else m.cat
        row[name] = median_time("fn((a, a))", {"fn": fn, "a": a}, 100000)
    out.append(("cat of two 4-element tensors", "us", row, None))
    row = {}
    for name, m in libs.items():
        a = arange_f32(name, m, 64).reshape(8, 8)
        stmt = "m.array_split(a, 4)" if name == "numpy" else "a.chunk(4)"
        row[name] = median_time(stmt, {"m": m, "a": a}, 100000)
    out.append(("chunk(4) of 8x8 (views)", "us", row, None))
    return out


def main():
    libs = load_libs()
    names = list(libs)
    rows = cases(libs)
    header = ["benchmark"] + names + ["ctorch/" + n for n in names[1:]]
    table = [header]
    for title, unit, row, nbytes in rows:
        line = [title] + [fmt(row.get(n), unit, nbytes) for n in names]
        for n in names[1:]:
            if row.get(n) and row.get("ctorch"):
                line.append("%.2fx" % (row["ctorch"] / row[n]))
            else:
                line.append("-")
        table.append(line)
    print_table(table)
    print("\nratios are time(ctorch) / time(other): below 1.00x ctorch is faster")


if __name__ == "__main__":
    main()
