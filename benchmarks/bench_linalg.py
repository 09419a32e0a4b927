"""Linear algebra benchmarks: ctorch beside PyTorch and NumPy, measured in
the same run.  Usage: PYTHONPATH=python /usr/bin/python3
benchmarks/bench_linalg.py [--quick].  torch and numpy columns appear when
they are importable.

Cases: a 1024x1024 float32 matmul, a bmm of 256 64x64 float32 matrices,
and a 4096x1024 float32 mv.  The libraries are timed in turns, one repeat
each, so that load from other processes falls on all of them alike; each
figure is the median over the repeats, in GFLOP/s.  Ratios are ctorch's
GFLOP/s divided by the other library's (above 1: ctorch is faster).
"""
import statistics
import timeit

from _common import QUICK, load_libs, print_table

REPEATS = 5 if QUICK else 15      # matmul timings vary more





def operands(name, m, shapes):
    """Operands of the given shapes, float32, values in [0, 1)."""
    out = []
    for i, shape in enumerate(shapes):
        n = 1
        for s in shape:
            n *= s
        if name == "numpy":
            a = ((m.arange(n, dtype=m.float32) * (0.37 + i)) % 1.0).reshape(shape)
        else:
            a = ((m.arange(n, dtype=m.float32) * (0.37 + i)) % 1.0).reshape(*shape)
        out.append(a)
    return out


# (title, shapes, flops, statement per library kind, calls per repeat)
CASES = [
    ("matmul 1024x1024 float32", [(1024, 1024), (1024, 1024)], 2 * 1024 ** 3,
     {"numpy": "a @ b", "torch": "a @ b"}, 10),
    ("bmm 256 x (64x64) float32", [(256, 64, 64), (256, 64, 64)], 2 * 256 * 64 ** 3,
     {"numpy": "np.matmul(a, b)", "torch": "m.bmm(a, b)"}, 20),
    ("mv 4096x1024 float32", [(4096, 1024), (1024,)], 2 * 4096 * 1024,
     {"numpy": "a @ b", "torch": "m.mv(a, b)"}, 100),
]


def run_case(libs, shapes, stmts, number):
    envs = {}
    for name, m in libs.items():
        a, b = operands(name, m, shapes)
        stmt = stmts["numpy" if name == "numpy" else "torch"]
        envs[name] = (stmt, {"m": m, "np": m, "a": a, "b": b})
        timeit.timeit(stmt, globals=envs[name][1], number=2)      # warm up
    times = {name: [] for name in libs}
    for _ in range(REPEATS):
        for name in libs:
            stmt, g = envs[name]
            times[name].append(timeit.timeit(stmt, globals=g, number=number) / number)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    libs = load_libs()
    names = list(libs)
    header = ["benchmark (GFLOP/s)"] + names + ["ctorch/" + n for n in names[1:]]
    table = [header]
    for title, shapes, flops, stmts, number in CASES:
        t = run_case(libs, shapes, stmts, number)
        rate = {n: flops / t[n] / 1e9 for n in names}
        line = [title] + ["%.1f" % rate[n] for n in names]
        line += ["%.2fx" % (rate["ctorch"] / rate[n]) for n in names[1:]]
        table.append(line)
    print_table(table)
    print("\nratios are GFLOP/s(ctorch) / GFLOP/s(other): above 1.00x ctorch is faster")


if __name__ == "__main__":
    main()
