"""Random sampling: ctorch beside PyTorch and NumPy in one run.

PYTHONPATH=python /usr/bin/python3 benchmarks/bench_random.py [--quick]
Each figure is the median of several timed repeats; ratios are ctorch's
time over the other library's (below 1: ctorch is faster).  ctorch and
torch produce the same bits here; NumPy (a PCG64 Generator) is a
different stream, listed for scale.  The factory rows allocate their
result (PyTorch pays first-touch page faults on each new 64 MB tensor,
ctorch reuses cached blocks); the in-place rows fill one tensor again and
again.  Issue target: PyTorch's throughput or better on rand(16M),
randn(16M), randperm(1M) and randint(0, 100, (16M,)).
"""
from _common import load_libs, median_time, print_table

N = 1 << 24
P = 1 << 20


def run():
    L = load_libs()
    rows = []

    def case(title, stmts, setup=None, number=3):
        r = {}
        for name, m in L.items():
            if name not in stmts:
                continue
            g = {"m": m, "N": N, "P": P}
            if name == "numpy":
                g["rng"] = m.random.default_rng(0)
                g["x"] = m.empty(N, dtype=m.float32)
            else:
                m.manual_seed(0)
                g["x"] = m.empty(N)
                g["xi"] = m.empty(N, dtype=m.int64)
            r[name] = median_time(stmts[name], g, number)
        rows.append((title, r))

    case("rand(16M) float32",
         {"ctorch": "m.rand(N)", "torch": "m.rand(N)",
          "numpy": "rng.random(N, dtype=m.float32)"})
    case("randn(16M) float32",
         {"ctorch": "m.randn(N)", "torch": "m.randn(N)",
          "numpy": "rng.standard_normal(N, dtype=m.float32)"})
    case("randperm(1M)",
         {"ctorch": "m.randperm(P)", "torch": "m.randperm(P)",
          "numpy": "rng.permutation(P)"}, number=10)
    case("randint(0, 100, (16M,)) int64",
         {"ctorch": "m.randint(0, 100, (N,))", "torch": "m.randint(0, 100, (N,))",
          "numpy": "rng.integers(0, 100, N)"})
    case("x.uniform_() 16M float32 (in place)",
         {"ctorch": "x.uniform_()", "torch": "x.uniform_()",
          "numpy": "rng.random(dtype=m.float32, out=x)"})
    case("x.normal_() 16M float32 (in place)",
         {"ctorch": "x.normal_()", "torch": "x.normal_()",
          "numpy": "rng.standard_normal(dtype=m.float32, out=x)"})
    case("x.random_(0, 100) 16M int64 (in place)",
         {"ctorch": "xi.random_(0, 100)", "torch": "xi.random_(0, 100)"})
    case("x.bernoulli_(0.5) 16M float32 (in place)",
         {"ctorch": "x.bernoulli_(0.5)", "torch": "x.bernoulli_(0.5)"})

    names = list(L)
    hdr = ["benchmark"] + names + ["ctorch/" + n for n in names[1:]]
    table = [hdr]
    for title, r in rows:
        line = [title]
        for n in names:
            v = r.get(n)
            line.append("-" if v is None else "%.2f ms" % (v * 1e3))
        for n in names[1:]:
            line.append("%.2fx" % (r["ctorch"] / r[n]) if r.get(n) else "-")
        table.append(line)
    print_table(table)


if __name__ == "__main__":
    run()
