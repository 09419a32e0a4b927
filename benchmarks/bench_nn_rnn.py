"""Recurrent layer benchmarks (nn.LSTM, nn.GRU, nn.LSTMCell): ctorch beside
PyTorch, measured in the same run.  Usage: PYTHONPATH=python /usr/bin/python3
benchmarks/bench_nn_rnn.py [--quick].  The torch column appears when it is
importable.

Cases (float32, seeded so both libraries hold the same weights):
  * LSTM(128, 256), sequence 35, batch 32: forward + backward of the sum of
    the output (the issue's "small LSTM step");
  * the same plus a plain SGD update of every parameter under no_grad
    (p -= 1e-5 * p.grad, no optimizer object; small, so the repeated steps
    do not drive the gates into saturation), grads zeroed first;
  * the LSTM forward alone under no_grad;
  * GRU(128, 256), same sizes, forward + backward;
  * LSTM(64, 128, num_layers=2, bidirectional=True), sequence 20, batch 16,
    forward + backward;
  * LSTMCell(128, 256) run over 35 steps by a Python loop, batch 32,
    forward + backward;
  * a tiny LSTM(16, 32), sequence 10, batch 4, forward + backward, and a
    tiny LSTMCell(16, 32) step (batch 4, forward + backward), where the
    cost is the per-call overhead.
The libraries are timed in turns and each figure is the median over the
repeats, in milliseconds per call.  Ratios are torch's time divided by
ctorch's (above 1: ctorch is faster).
"""
import statistics
import timeit

from _common import QUICK, load_libs, print_table

REPEATS = 5 if QUICK else 11


def layer_case(m, kind, input_size, hidden, seq, batch, update=False, grad=True,
               **kwargs):
    m.manual_seed(0)
    model = getattr(m.nn, kind)(input_size, hidden, **kwargs)
    x = m.randn(seq, batch, input_size)
    params = list(model.parameters())

    def step():
        for p in params:
            p.grad = None
        out, _ = model(x)
        out.sum().backward()
        if update:
            with m.no_grad():
                for p in params:
                    p.sub_(1e-5 * p.grad)

    def forward():
        with m.no_grad():
            model(x)
    return step if grad else forward


def cell_case(m, input_size, hidden, seq, batch):
    m.manual_seed(0)
    cell = m.nn.LSTMCell(input_size, hidden)
    xs = m.randn(seq, batch, input_size).unbind(0)
    params = list(cell.parameters())

    def step():
        for p in params:
            p.grad = None
        h = c = m.zeros(batch, hidden)
        total = 0
        for x in xs:
            h, c = cell(x, (h, c))
            total = total + h.sum()
        total.backward()
    return step


CASES = [
    ("LSTM(128,256) T35 B32 fwd+bwd", lambda m: layer_case(m, "LSTM", 128, 256, 35, 32), 5),
    ("LSTM(128,256) T35 B32 fwd+bwd+SGD update",
     lambda m: layer_case(m, "LSTM", 128, 256, 35, 32, update=True), 5),
    ("LSTM(128,256) T35 B32 fwd (no_grad)",
     lambda m: layer_case(m, "LSTM", 128, 256, 35, 32, grad=False), 10),
    ("GRU(128,256) T35 B32 fwd+bwd", lambda m: layer_case(m, "GRU", 128, 256, 35, 32), 5),
    ("LSTM(64,128) 2 layers bidir T20 B16 fwd+bwd",
     lambda m: layer_case(m, "LSTM", 64, 128, 20, 16, num_layers=2, bidirectional=True),
     10),
    ("LSTMCell(128,256) 35-step loop B32 fwd+bwd", lambda m: cell_case(m, 128, 256, 35, 32),
     5),
    ("LSTM(16,32) T10 B4 fwd+bwd", lambda m: layer_case(m, "LSTM", 16, 32, 10, 4), 200),
    ("LSTMCell(16,32) 1 step B4 fwd+bwd", lambda m: cell_case(m, 16, 32, 1, 4), 500),
]


def run_case(libs, make, number):
    steps = {}
    for name, m in libs.items():
        steps[name] = make(m)
        timeit.timeit(steps[name], number=2)        # warm up
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
