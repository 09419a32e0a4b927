"""Autograd benchmarks: ctorch beside PyTorch, measured in the same run.
Usage: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_autograd.py
[--quick].  (NumPy has no autograd; its column is absent.)

Cases:
- one small training-style step: x = ones(4, 4, requires_grad=True);
  (x * x).sum().backward() -- graph recording, the engine and gradient
  accumulation, with almost no arithmetic;
- an MLP forward and backward, batch 64, 784-256-10, relu, mean squared
  output, written with the ops both libraries share (x @ W.t() + b).
The libraries are timed in turns, one repeat each, so load from other
processes falls on all of them alike; figures are medians.  Ratios are
ctorch's time divided by torch's (below 1: ctorch is faster).
"""
import statistics
import timeit

from _common import QUICK, load_libs, print_table

REPEATS = 5 if QUICK else 11


def small_step(m):
    x = m.ones(4, 4, requires_grad=True)

    def step():
        (x * x).sum().backward()
    return step, 2000 if QUICK else 20000


def mlp_step(m):
    def param(rows, cols, k):
        n = rows * cols
        w = (m.arange(n, dtype=m.float32).reshape(rows, cols) % k - k // 2) * 0.01
        return w.requires_grad_(True)
    w1, w2 = param(256, 784, 7), param(10, 256, 5)
    b1, b2 = m.zeros(256, requires_grad=True), m.zeros(10, requires_grad=True)
    x = (m.arange(64 * 784, dtype=m.float32).reshape(64, 784) % 11) * 0.1

    def step():
        h = (x @ w1.t() + b1).relu()
        out = h @ w2.t() + b2
        (out * out).mean().backward()
    return step, 20 if QUICK else 100


CASES = [("(x * x).sum().backward(), 4x4", small_step, "us"),
         ("MLP 784-256-10 fwd+bwd, batch 64", mlp_step, "us")]


def run():
    libs = {k: v for k, v in load_libs().items() if k != "numpy"}
    names = list(libs)
    header = ["benchmark"] + names + (["ctorch/torch"] if "torch" in libs else [])
    table = [header]
    for title, make, unit in CASES:
        steps = {n: make(libs[n]) for n in names}
        times = {n: [] for n in names}
        for _ in range(REPEATS):
            for n in names:
                fn, number = steps[n]
                times[n].append(timeit.timeit(fn, number=number) / number)
        med = {n: statistics.median(times[n]) for n in names}
        row = [title] + ["%.2f us" % (med[n] * 1e6) for n in names]
        if "torch" in libs:
            row.append("%.2fx" % (med["ctorch"] / med["torch"]))
        table.append(row)
    print_table(table)


if __name__ == "__main__":
    run()
