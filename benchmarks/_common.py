"""What every benchmark script shares: the libraries to compare, a timer
that reports the median of several repeats, and the table printer.

Scripts run as `python benchmarks/<name>.py`, so this module is importable
as `_common` from their directory.
"""
import statistics
import sys
import timeit

QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 7


def load_libs():
    """{'ctorch': ..., 'torch': ..., 'numpy': ...}, each when importable.
    Under ctorchrun `import torch` is ctorch itself; it is left out then."""
    libs = {}
    import ctorch
    libs["ctorch"] = ctorch
    try:
        import torch
        if "ctorch" not in getattr(torch, "__file__", ""):
            libs["torch"] = torch
    except ImportError:
        pass
    try:
        import numpy
        libs["numpy"] = numpy
    except ImportError:
        pass
    return libs


def median_time(stmt, globals=None, number=1, repeats=None):
    """Seconds per call of stmt (a callable, or a statement string run in
    globals): the median over repeats of a timed loop of `number` calls, so
    one slow repeat on a noisy machine does not move it."""
    times = timeit.repeat(stmt, globals=globals, number=number,
                          repeat=repeats or REPEATS)
    return statistics.median(times) / number


def print_table(table):
    """Rows of strings, the first a header, printed in aligned columns."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for i, row in enumerate(table):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
        if i == 0:
            print("  ".join("-" * w for w in widths))
