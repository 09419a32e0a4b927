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


def worker_entry(worker):
    """The `--worker LIB RANK WORLD PATH` entry of the multi-process
    benchmarks: run worker(lib, rank, world, path) in this fresh
    interpreter (ctorch from the checkout), rank 0 printing its result as
    JSON, and leave at once (no interpreter teardown).  Returns without
    doing anything when the process is the driver."""
    import json
    import os
    if "--worker" not in sys.argv:
        return
    i = sys.argv.index("--worker")
    lib, rank, world, path = sys.argv[i + 1:i + 5]
    if lib == "ctorch":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "python"))
    res = worker(lib, int(rank), int(world), path)
    if int(rank) == 0:
        print(json.dumps(res))
    sys.stdout.flush()
    os._exit(0)


def run_world(script, lib, world, env=None, args=(), timeout=900):
    """Start `world` ranks of `script --worker LIB RANK WORLD PATH [args]`
    as fresh interpreters meeting through a FileStore at a new temporary
    PATH (removed after); rank 0's JSON result.  `env` is the ranks'
    environment (default: this one)."""
    import json
    import os
    import subprocess
    import tempfile
    fd, path = tempfile.mkstemp(prefix="bench_world_")
    os.close(fd)
    os.unlink(path)
    procs = [subprocess.Popen([sys.executable, os.path.abspath(script), "--worker", lib,
                               str(r), str(world), path] + list(args),
                              stdout=subprocess.PIPE, env=env, cwd="/tmp")
             for r in range(world)]
    outs = [p.communicate(timeout=timeout)[0] for p in procs]
    for p in (path, path + ".lock"):
        if os.path.exists(p):
            os.unlink(p)
    if any(p.returncode for p in procs):
        raise RuntimeError("%s world %d: a rank failed" % (lib, world))
    return json.loads(outs[0])
