"""nn.Linear / MLP and activation benchmarks: ctorch beside PyTorch,
measured in the same run.  Usage: PYTHONPATH=python /usr/bin/python3
benchmarks/bench_nn_linear.py [--quick].  The torch column appears when it
is importable.

Cases (float32):
  * MLP training step, batch 64, 784-256-10 (the issue's case): zero_grad,
    forward, cross entropy, backward, SGD step;
  * the same with a tiny MLP (16-16-4, batch 8), where the cost is the
    per-call overhead of modules, autograd and the optimizer;
  * Linear(784, 256) forward on a batch of 64, without autograd;
  * leaky_relu, gelu(tanh), elu and softplus forward + backward on 64x4096.
The libraries are timed in turns and each figure is the median over the
repeats, in milliseconds per call.  Ratios are torch's time divided by
ctorch's (above 1: ctorch is faster).
"""
import statistics
import timeit

from _common import QUICK, load_libs, print_table

REPEATS = 5 if QUICK else 11


def mlp_case(m, sizes, batch):
    m.manual_seed(0)
    nn = m.nn
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    opt = m.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = m.randn(batch, sizes[0])
    y = m.randint(0, sizes[-1], (batch,))
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return step


def linear_forward_case(m):
    m.manual_seed(0)
    lin = m.nn.Linear(784, 256)
    x = m.randn(64, 784)

    def step():
        with m.no_grad():
            lin(x)
    return step


def activation_case(m, name):
    m.manual_seed(0)
    F = m.nn.functional
    fn = {"leaky_relu": lambda t: F.leaky_relu(t, 0.1),
          "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
          "elu": F.elu, "softplus": F.softplus}[name]
    x = m.randn(64, 4096).requires_grad_(True)

    def step():
        x.grad = None
        fn(x).sum().backward()
    return step


CASES = [
    ("MLP 784-256-10 b64 train step", lambda m: mlp_case(m, (784, 256, 10), 64), 20),
    ("MLP 16-16-4 b8 train step", lambda m: mlp_case(m, (16, 16, 4), 8), 200),
    ("Linear(784, 256) fwd b64", linear_forward_case, 100),
    ("leaky_relu fwd+bwd 64x4096", lambda m: activation_case(m, "leaky_relu"), 50),
    ("gelu(tanh) fwd+bwd 64x4096", lambda m: activation_case(m, "gelu_tanh"), 50),
    ("elu fwd+bwd 64x4096", lambda m: activation_case(m, "elu"), 50),
    ("softplus fwd+bwd 64x4096", lambda m: activation_case(m, "softplus"), 50),
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
