"""Optimizer steps and the pointwise kernels they run: ctorch beside PyTorch,
measured in the same run.  Usage: PYTHONPATH=python /usr/bin/python3
benchmarks/bench_optim.py [--quick].  The torch column appears when it is
importable.

Cases (float32):
  * SGD(momentum=0.9), Adam and AdamW steps on the parameters of an MLP
    784-256-10 (gradients filled once, then step() alone is timed);
  * the same on a tiny MLP 16-16-4, where the per-parameter overhead of
    Python and of each op call dominates;
  * the kernels underneath on 1M floats: add_ with alpha (a fused
    multiply-add per element), sqrt, addcmul_ and addcdiv_.
The libraries are timed in turns and each figure is the median over the
repeats.  Ratios are torch's time divided by ctorch's (above 1: ctorch is
faster).
"""
import statistics
import timeit

from _common import QUICK, load_libs, print_table

REPEATS = 5 if QUICK else 11


def optim_case(m, opt_name, sizes):
    m.manual_seed(0)
    nn = m.nn
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    for p in model.parameters():
        p.grad = m.randn(p.shape) * 0.01
    params = model.parameters()
    opt = {"SGD": lambda: m.optim.SGD(params, lr=0.01, momentum=0.9),
           "Adam": lambda: m.optim.Adam(params, lr=1e-3),
           "AdamW": lambda: m.optim.AdamW(params, lr=1e-3)}[opt_name]()
    return opt.step


def pointwise_case(m, name, n=1 << 20):
    m.manual_seed(0)
    a = m.rand(n) + 0.5
    b = m.rand(n) + 0.5
    c = m.rand(n) + 0.5
    out = m.empty(n)
    return {
        "add_alpha": lambda: a.add_(b, alpha=-1e-3),
        "add_alpha_out": lambda: m.add(a, b, alpha=0.5, out=out),
        "sqrt": lambda: m.sqrt(a, out=out),
        "sqrt_new": lambda: b.sqrt(),
        "addcmul_": lambda: a.mul_(0.999).addcmul_(b, b, value=1e-3),
        "addcdiv_": lambda: c.addcdiv_(a, b, value=-1e-6),
    }[name]


MLP = (784, 256, 10)
TINY = (16, 16, 4)
CASES = [
    ("SGD(momentum=0.9) step, MLP 784-256-10", lambda m: optim_case(m, "SGD", MLP),
     200),
    ("Adam step, MLP 784-256-10", lambda m: optim_case(m, "Adam", MLP), 100),
    ("AdamW step, MLP 784-256-10", lambda m: optim_case(m, "AdamW", MLP), 100),
    ("SGD(momentum=0.9) step, MLP 16-16-4", lambda m: optim_case(m, "SGD", TINY), 1000),
    ("Adam step, MLP 16-16-4", lambda m: optim_case(m, "Adam", TINY), 1000),
    ("AdamW step, MLP 16-16-4", lambda m: optim_case(m, "AdamW", TINY), 1000),
    ("a.add_(b, alpha=) 1M", lambda m: pointwise_case(m, "add_alpha"), 200),
    ("add(a, b, alpha=, out=) 1M", lambda m: pointwise_case(m, "add_alpha_out"), 200),
    ("sqrt(a, out=) 1M", lambda m: pointwise_case(m, "sqrt"), 200),
    ("a.sqrt() 1M", lambda m: pointwise_case(m, "sqrt_new"), 200),
    ("a.mul_().addcmul_() 1M", lambda m: pointwise_case(m, "addcmul_"), 200),
    ("a.addcdiv_() 1M", lambda m: pointwise_case(m, "addcdiv_"), 200),
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
    header = ["benchmark (us per call)"] + names + [n + "/ctorch" for n in names[1:]]
    table = [header]
    for title, make, number in CASES:
        t = run_case(libs, make, number // 4 if QUICK else number)
        line = [title] + ["%.1f" % (t[n] * 1e6) for n in names]
        line += ["%.2fx" % (t[n] / t["ctorch"]) for n in names[1:]]
        table.append(line)
    print_table(table)
    print("\nratios are time(other) / time(ctorch): above 1.00x ctorch is faster")


if __name__ == "__main__":
    main()
