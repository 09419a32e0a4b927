"""Sorting and selection: ctorch beside PyTorch and NumPy in one run.

PYTHONPATH=python /usr/bin/python3 benchmarks/bench_sort.py [--quick]
Each figure is the median of several timed repeats; ratios are ctorch's
time over the other library's (below 1: ctorch is faster).  torch.sort
returns values and indices, so NumPy's row runs argsort (stable) plus the
gather of the values; topk maps to argpartition + a sort of the k.
Issue target: sort of 1M float32 within PyTorch's time.
"""
from _common import load_libs, median_time, print_table

N = 1 << 20








def data():
    """The same inputs for every library (NumPy arrays)."""
    import numpy as np
    rng = np.random.default_rng(0)
    return {
        "f32": rng.random(N, dtype=np.float32),
        "ints": rng.integers(0, 1000, N).astype(np.int64),
        "wide": rng.integers(-(1 << 40), 1 << 40, N).astype(np.int64),
        "rows": rng.random((1000, 1000), dtype=np.float32),
    }


def run():
    L = load_libs()
    D = data()
    rows = []

    def conv(name, m, arr):
        if name == "numpy":
            return arr
        return m.tensor(arr.tolist(), dtype=getattr(m, str(arr.dtype)))

    def case(title, stmts, key, number=5):
        r = {}
        for name, m in L.items():
            if name not in stmts:
                continue
            g = {"m": m, "x": conv(name, m, D[key])}
            r[name] = median_time(stmts[name], g, number)
        rows.append((title, r))

    sort = {"ctorch": "m.sort(x)", "torch": "m.sort(x)",
            "numpy": "i = m.argsort(x, kind='stable'); x[i]"}
    case("sort 1M float32 (values+indices)", sort, "f32")
    case("sort 1000x1000 float32 along dim 0",
         {"ctorch": "m.sort(x, 0)", "torch": "m.sort(x, 0)",
          "numpy": "i = m.argsort(x, axis=0, kind='stable'); "
                   "m.take_along_axis(x, i, 0)"}, "rows")
    case("argsort 1M int64 wide range",
         {"ctorch": "m.argsort(x)", "torch": "m.argsort(x)",
          "numpy": "m.argsort(x, kind='stable')"}, "wide")
    case("topk(100) of 1M float32",
         {"ctorch": "m.topk(x, 100)", "torch": "m.topk(x, 100)",
          "numpy": "i = m.argpartition(x, -100)[-100:]; i = i[m.argsort(-x[i])]; x[i]"},
         "f32", number=20)
    case("kthvalue(500000) of 1M float32",
         {"ctorch": "m.kthvalue(x, 500000)", "torch": "m.kthvalue(x, 500000)",
          "numpy": "m.partition(x, 499999)[499999]"}, "f32")
    case("unique of 1M int64 in [0, 1000)",
         {"ctorch": "m.unique(x)", "torch": "m.unique(x)", "numpy": "m.unique(x)"},
         "ints", number=20)
    case("unique(return_inverse, return_counts) 1M int64 wide",
         {"ctorch": "m.unique(x, return_inverse=True, return_counts=True)",
          "torch": "m.unique(x, return_inverse=True, return_counts=True)",
          "numpy": "m.unique(x, return_inverse=True, return_counts=True)"}, "wide",
         number=2)

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
