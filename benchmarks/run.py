"""Foundation micro-benchmarks: ctorch beside PyTorch and NumPy, measured in
the same run.  Usage: PYTHONPATH=python /usr/bin/python3 benchmarks/run.py
[--quick].  torch and numpy columns appear when they are importable.

Each figure is the median of several repeats of a timed loop (timeit), so
one slow repeat on a noisy machine does not move it.  Ratios are ctorch's
time divided by the other library's (below 1: ctorch is faster).
"""
import os
import subprocess
import sys
import timeit

from _common import QUICK, load_libs, median_time, print_table






def import_time(module, env=None):
    """Best wall time of a fresh interpreter importing `module`, minus the
    interpreter's own start-up."""
    def run(code):
        best = float("inf")
        for _ in range(3 if QUICK else 7):
            t = timeit.default_timer()
            subprocess.run([sys.executable, "-c", code], check=True, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best = min(best, timeit.default_timer() - t)
        return best
    return run("import " + module) - run("pass")





def cases(libs):
    """(name, unit, {lib: seconds-or-None}, bytes or None)"""
    out = []
    np = libs.get("numpy")
    N = 1 << 24

    # 1-element a + b
    row = {}
    for name, m in libs.items():
        if name == "numpy":
            a = m.ones(1, dtype=m.float32)
        else:
            a = m.ones(1)
        row[name] = median_time("a + b", {"a": a, "b": a}, 100000)
    out.append(("a + b, 1 element", "us", row, None))

    # 16M float32 add into a preallocated output
    row = {}
    for name, m in libs.items():
        if name == "numpy":
            a = m.ones(N, dtype=m.float32)
            b = m.ones(N, dtype=m.float32)
            c = m.empty(N, dtype=m.float32)
            row[name] = median_time("np.add(a, b, out=c)", {"np": m, "a": a, "b": b, "c": c}, 5)
        else:
            a, b, c = m.ones(N), m.ones(N), m.empty(N)
            row[name] = median_time("m.add(a, b, out=c)", {"m": m, "a": a, "b": b, "c": c}, 5)
    out.append(("add(a, b, out=c), 16M float32", "GB/s", row, 12 * N))

    # 16M float32 a + b, allocating the result
    row = {}
    for name, m in libs.items():
        if name == "numpy":
            a = m.ones(N, dtype=m.float32)
        else:
            a = m.ones(N)
        row[name] = median_time("a + b", {"a": a, "b": a}, 5)
    out.append(("a + b, 16M float32 (allocates)", "GB/s", row, 12 * N))

    # printing a 1000 x 1000 tensor
    row = {}
    for name, m in libs.items():
        if name == "numpy":
            a = m.arange(1000000, dtype=m.float32).reshape(1000, 1000) * m.float32(0.37)
        else:
            a = (m.arange(1000000, dtype=m.float32) * 0.37).reshape(1000, 1000)
        row[name] = median_time("repr(a)", {"a": a}, 200)
    out.append(("repr of a 1000x1000 float32", "us", row, None))

    # torch.tensor(list of 100k Python floats)
    data = [i * 0.5 for i in range(100000)]
    row = {}
    for name, m in libs.items():
        fn = m.array if name == "numpy" else m.tensor
        row[name] = median_time("fn(data)", {"fn": fn, "data": data}, 20)
    out.append(("tensor(list of 100k floats)", "us", row, None))

    # zeros(1000, 1000)
    row = {}
    for name, m in libs.items():
        stmt = "m.zeros((1000, 1000), dtype=m.float32)"
        row[name] = median_time(stmt, {"m": m}, 200)
    out.append(("zeros(1000, 1000)", "us", row, None))

    # arange(1M) float32
    row = {}
    for name, m in libs.items():
        row[name] = median_time("m.arange(0.0, 1000000.0, 1.0, dtype=m.float32)", {"m": m}, 50)
    out.append(("arange(1M) float32", "us", row, None))

    # NumPy round trip: from_numpy(arr).numpy()
    if np is not None:
        arr = np.ones(1000, dtype=np.float32)
        row = {}
        for name, m in libs.items():
            if name == "numpy":
                row[name] = median_time("np.asarray(arr)", {"np": m, "arr": arr}, 100000)
            else:
                row[name] = median_time("m.from_numpy(arr).numpy()", {"m": m, "arr": arr}, 100000)
        out.append(("from_numpy(a).numpy() (numpy: asarray)", "us", row, None))
    return out


def fmt(value, unit, nbytes):
    if value is None:
        return "-"
    if unit == "GB/s":
        return "%.1f GB/s" % (nbytes / value / 1e9)
    if unit == "s":
        return "%.3f s" % value
    return "%.2f us" % (value * 1e6) if value < 1e-3 else "%.2f ms" % (value * 1e3)


def main():
    libs = load_libs()
    names = list(libs)
    rows = cases(libs)
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.path.join(here, "..", "python"))
    imp = {"ctorch": import_time("ctorch", env)}
    if "torch" in libs:
        imp["torch"] = import_time("torch")
    if "numpy" in libs:
        imp["numpy"] = import_time("numpy")
    rows.insert(0, ("import", "s", imp, None))

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
