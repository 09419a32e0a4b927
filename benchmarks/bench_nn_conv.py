"""Convolution and pooling benchmarks: ctorch beside PyTorch, measured in
the same run.  Usage: PYTHONPATH=python /usr/bin/python3
benchmarks/bench_nn_conv.py [--quick].  The torch column appears when it is
importable.

Cases (float32, batch 32, an input that requires grad, so every backward
computes the input's gradient too):
  * Conv2d forward + backward: 3 -> 16 channels, 32x32, kernel 3 (the
    issue's case), 16 -> 32 channels, 16x16, padding 1, and 32 -> 64
    channels, 16x16, padding 1;
  * Conv2d forward alone, the first shape;
  * Conv1d forward + backward: 16 -> 32 channels, length 128, kernel 5,
    padding 2;
  * ConvTranspose2d forward + backward: 32 -> 16 channels, 8x8 -> 16x16,
    kernel 4, stride 2, padding 1;
  * max_pool2d(2) forward + backward on [32, 16, 32, 32];
  * avg_pool2d(2) and adaptive_avg_pool2d(4) forward + backward, same input.
The libraries are timed in turns, one repeat each, so that load from other
processes falls on all of them alike; each figure is the median over the
repeats, in milliseconds per call.  Ratios are torch's time divided by
ctorch's (above 1: ctorch is faster).
"""
import statistics
import timeit

from _common import QUICK, load_libs, print_table

REPEATS = 5 if QUICK else 11


def conv_case(m, cin, cout, hw, pad, backward):
    return module_case(m, lambda nn: nn.Conv2d(cin, cout, 3, padding=pad),
                       (32, cin, hw, hw), backward)


def module_case(m, make, shape, backward=True):
    m.manual_seed(0)
    conv = make(m.nn)
    x = m.randn(*shape).requires_grad_(True)
    if not backward:
        def step():
            with m.no_grad():
                conv(x)
        return step

    def step():
        conv.zero_grad()
        x.grad = None
        conv(x).sum().backward()
    return step


def pool_case(m, kind):
    m.manual_seed(0)
    x = m.randn(32, 16, 32, 32).requires_grad_(True)
    F = m.nn.functional
    fn = {"max": lambda t: F.max_pool2d(t, 2),
          "avg": lambda t: F.avg_pool2d(t, 2),
          "adaptive": lambda t: F.adaptive_avg_pool2d(t, 4)}[kind]

    def step():
        x.grad = None
        fn(x).sum().backward()
    return step


CASES = [
    ("Conv2d 3->16 32x32 k3 fwd+bwd", lambda m: conv_case(m, 3, 16, 32, 0, True), 10),
    ("Conv2d 16->32 16x16 k3 p1 fwd+bwd", lambda m: conv_case(m, 16, 32, 16, 1, True), 10),
    ("Conv2d 32->64 16x16 k3 p1 fwd+bwd", lambda m: conv_case(m, 32, 64, 16, 1, True), 5),
    ("Conv2d 3->16 32x32 k3 fwd", lambda m: conv_case(m, 3, 16, 32, 0, False), 20),
    ("Conv1d 16->32 L128 k5 p2 fwd+bwd",
     lambda m: module_case(m, lambda nn: nn.Conv1d(16, 32, 5, padding=2), (32, 16, 128)),
     10),
    ("ConvTranspose2d 32->16 8x8 k4 s2 fwd+bwd",
     lambda m: module_case(m, lambda nn: nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1),
                           (32, 32, 8, 8)), 10),
    ("max_pool2d(2) fwd+bwd", lambda m: pool_case(m, "max"), 10),
    ("avg_pool2d(2) fwd+bwd", lambda m: pool_case(m, "avg"), 10),
    ("adaptive_avg_pool2d(4) fwd+bwd", lambda m: pool_case(m, "adaptive"), 10),
]


def run_case(libs, make, number):
    steps = {}
    for name, m in libs.items():
        steps[name] = make(m)
        timeit.timeit(steps[name], number=3)        # warm up
    times = {name: [] for name in libs}
    for _ in range(REPEATS):
        for name in libs:
            times[name].append(timeit.timeit(steps[name], number=number) / number)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    libs = {k: v for k, v in load_libs().items() if k in ("ctorch", "torch")}
    names = list(libs)
    header = ["benchmark (ms per call)"] + names + [n + "/ctorch" for n in names[1:]]
    table = [header]
    for title, make, number in CASES:
        t = run_case(libs, make, number)
        line = [title] + ["%.3f" % (t[n] * 1e3) for n in names]
        line += ["%.2fx" % (t[n] / t["ctorch"]) for n in names[1:]]
        table.append(line)
    print_table(table)
    print("\nratios are time(other) / time(ctorch): above 1.00x ctorch is faster")


if __name__ == "__main__":
    main()
