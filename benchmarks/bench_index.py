"""Indexing family: ctorch beside PyTorch (and NumPy where it has the op)
in one run.  PYTHONPATH=python /usr/bin/python3 benchmarks/bench_index.py"""
from _common import load_libs, median_time





def main():
    mods = load_libs()
    rows = []
    for title, make in [
        ("x[idx], 333k of 1M float32", lambda m, x, i, k: (lambda: x[i])),
        ("x[mask], half of 1M", lambda m, x, i, k: (lambda: x[k])),
        ("x[idx] = 0", lambda m, x, i, k: (lambda: x.__setitem__(i, 0))),
        ("nonzero of 1M bools", lambda m, x, i, k: (lambda: m.nonzero(k))),
    ]:
        r = {}
        for name, m in mods.items():
            if name == "numpy":
                x = m.arange(1000000, dtype=m.float32)
                i = m.arange(0, 1000000, 3)
            else:
                x = m.arange(1000000, dtype=m.float32)
                i = m.arange(0, 1000000, 3)
            k = x > 500000
            r[name] = median_time(make(m, x, i, k), number=5, repeats=5)
        rows.append((title, r))
    names = list(mods)
    print("  ".join(["benchmark".ljust(28)] + [n.ljust(10) for n in names] +
                    ["ctorch/" + n for n in names[1:]]))
    for title, r in rows:
        cells = [title.ljust(28)] + [("%.3f ms" % (r[n] * 1e3)).ljust(10) for n in names]
        cells += ["%.2fx" % (r["ctorch"] / r[n]) for n in names[1:]]
        print("  ".join(cells))


if __name__ == "__main__":
    main()
