"""Pointwise families: ctorch beside PyTorch and NumPy in one run.

PYTHONPATH=python /usr/bin/python3 benchmarks/bench_pointwise.py [--quick]
Bandwidth counts the bytes each element reads and writes; the layout rows
are compared with the contiguous case of the same library (issue target:
broadcasting and non-contiguous inputs within 1.5x of contiguous).
"""
from _common import load_libs, median_time, print_table









def run():
    L = load_libs()
    N = 1 << 24
    S = 4096
    rows = []

    def case(title, nbytes, make, stmt, number=5):
        r = {}
        for name, m in L.items():
            g = make(name, m)
            if g is None:
                continue
            r[name] = median_time(stmt[name] if isinstance(stmt, dict) else stmt, g, number)
        rows.append((title, nbytes, r))

    def add_out(name, m):
        if name == "numpy":
            a = m.ones(N, dtype=m.float32)
            return {"a": a, "b": a.copy(), "c": m.empty(N, dtype=m.float32), "m": m}
        return {"a": m.ones(N), "b": m.ones(N), "c": m.empty(N), "m": m}
    case("add out=, contiguous 16M", 12 * N, add_out, "m.add(a, b, out=c)")

    def bcast(name, m):
        if name == "numpy":
            return {"a": m.ones((S, S), dtype=m.float32), "b": m.ones(S, dtype=m.float32),
                    "c": m.empty((S, S), dtype=m.float32), "m": m}
        return {"a": m.ones(S, S), "b": m.ones(S), "c": m.empty(S, S), "m": m}
    case("add out=, broadcast row 4096x4096", 8 * S * S, bcast, "m.add(a, b, out=c)")

    def transposed(name, m):
        if name == "numpy":
            a = m.ones((S, S), dtype=m.float32)
            return {"a": a, "b": a.copy().T, "c": m.empty((S, S), dtype=m.float32), "m": m}
        return {"a": m.ones(S, S), "b": m.ones(S, S).t(), "c": m.empty(S, S), "m": m}
    case("add out=, one operand transposed", 12 * S * S, transposed, "m.add(a, b, out=c)")

    def strided(name, m):
        if name == "numpy":
            a = m.ones((S, 2 * S), dtype=m.float32)
            return {"a": a[:, ::2], "b": a[:, 1::2], "c": m.empty((S, S), dtype=m.float32),
                    "m": m}
        a = m.ones(S, 2 * S)
        return {"a": a[:, ::2], "b": a[:, 1::2], "c": m.empty(S, S), "m": m}
    case("add out=, stride-2 slices", 12 * S * S, strided, "m.add(a, b, out=c)")

    def unary(name, m):
        if name == "numpy":
            return {"a": m.ones(N, dtype=m.float32), "c": m.empty(N, dtype=m.float32), "m": m}
        return {"a": m.ones(N), "c": m.empty(N), "m": m}
    case("exp out=, 16M float32", 8 * N, unary, "m.exp(a, out=c)")
    case("log out=, 16M float32", 8 * N, unary, "m.log(a, out=c)")
    case("abs out=, 16M float32", 8 * N, unary, "m.abs(a, out=c)")

    def cmp(name, m):
        if name == "numpy":
            return {"a": m.ones(N, dtype=m.float32), "m": m}
        return {"a": m.ones(N), "m": m}
    case("a < 0.5, 16M float32 -> bool", 5 * N, cmp, "a < 0.5")

    def small(name, m):
        if name == "numpy":
            return {"a": m.ones(1, dtype=m.float32), "m": m}
        return {"a": m.ones(1), "m": m}
    case("a * a + 1, 1 element", None, small, "a * a + 1", number=100000)

    names = list(L)
    hdr = ["benchmark"] + names + ["ctorch/" + n for n in names[1:]]
    table = [hdr]
    for title, nbytes, r in rows:
        line = [title]
        for n in names:
            v = r.get(n)
            if v is None:
                line.append("-")
            elif nbytes:
                line.append("%.1f GB/s" % (nbytes / v / 1e9))
            else:
                line.append("%.2f us" % (v * 1e6))
        for n in names[1:]:
            line.append("%.2fx" % (r["ctorch"] / r[n]) if r.get(n) else "-")
        table.append(line)
    print_table(table)
    contiguous = rows[0][2]["ctorch"] / rows[0][1]
    for title, nbytes, r in rows[1:4]:
        print("ctorch %s: %.2fx the contiguous time per byte" %
              (title, (r["ctorch"] / nbytes) / contiguous))


if __name__ == "__main__":
    run()
