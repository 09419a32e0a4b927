"""softmax / log_softmax / cross_entropy benchmarks: ctorch beside PyTorch,
measured in the same run.  Usage: PYTHONPATH=python /usr/bin/python3
benchmarks/bench_softmax.py [--quick].  The torch column appears when it
is importable.

Cases (float32 unless named): softmax and log_softmax forward along the
last dim (a classifier's 64x10 logits, 256x1000, 4096x1024) and along
dim 0 (1024x1024), their backward, cross_entropy forward + backward on
256x1000, and nll_loss on 4096x10.  Both libraries run with the same
thread count (torch's softmax along a non-last dim splits its work by it).
Each figure is the median over the repeats, in milliseconds per call;
ratios are ctorch's time divided by torch's (below 1: ctorch is faster).
The results are also checked to be bit-identical to torch's.
"""
from _common import load_libs, median_time, print_table


def cases():
    """(title, function of (lib, input tensor) -> tensor, input shape,
    number of calls per timed loop, dtype name)"""
    def sm(dim):
        return lambda m, x: m.softmax(x, dim)

    def lsm(dim):
        return lambda m, x: m.log_softmax(x, dim)

    def backward(fn, dim):
        def run(m, x):
            x = x.detach().requires_grad_()
            y = getattr(m, fn)(x, dim)
            y.backward(y)
            return x.grad
        return run

    def cross_entropy(m, x):
        x = x.detach().requires_grad_()
        t = m.arange(x.shape[0]) % x.shape[1]
        m.nn.functional.cross_entropy(x, t).backward()
        return x.grad

    def nll(m, x):
        t = m.arange(x.shape[0]) % x.shape[1]
        return m.nn.functional.nll_loss(x, t)

    return [
        ("softmax(-1) 64x10", sm(-1), (64, 10), 2000, "float32"),
        ("log_softmax(-1) 64x10", lsm(-1), (64, 10), 2000, "float32"),
        ("softmax(-1) 256x1000", sm(-1), (256, 1000), 100, "float32"),
        ("log_softmax(-1) 256x1000", lsm(-1), (256, 1000), 100, "float32"),
        ("softmax(-1) 4096x1024", sm(-1), (4096, 1024), 5, "float32"),
        ("log_softmax(-1) 4096x1024", lsm(-1), (4096, 1024), 5, "float32"),
        ("log_softmax(-1) 256x1000 f64", lsm(-1), (256, 1000), 100, "float64"),
        ("softmax(0) 1024x1024", sm(0), (1024, 1024), 10, "float32"),
        ("log_softmax(0) 1024x1024", lsm(0), (1024, 1024), 10, "float32"),
        ("softmax fwd+bwd 256x1000", backward("softmax", -1), (256, 1000), 50,
         "float32"),
        ("log_softmax fwd+bwd 256x1000", backward("log_softmax", -1), (256, 1000), 50,
         "float32"),
        ("log_softmax fwd+bwd (0) 1024x1024", backward("log_softmax", 0),
         (1024, 1024), 5, "float32"),
        ("cross_entropy fwd+bwd 256x1000", cross_entropy, (256, 1000), 50, "float32"),
        ("nll_loss 4096x10", nll, (4096, 10), 1000, "float32"),
    ]


def main():
    import numpy as np
    libs = {k: v for k, v in load_libs().items() if k != "numpy"}
    names = list(libs)
    if "torch" in libs:
        libs["torch"].set_num_threads(libs["ctorch"].get_num_threads())
    print("threads: %d" % libs["ctorch"].get_num_threads())
    table = [["benchmark"] + names + ["ctorch/" + n for n in names[1:]] + ["bits"]]
    for title, fn, shape, number, dt in cases():
        arr = np.random.RandomState(0).randn(*shape).astype(dt) * 3
        row, res = {}, {}
        for name in names:
            m = libs[name]
            x = m.from_numpy(arr)
            res[name] = fn(m, x).detach().numpy()
            row[name] = median_time(lambda: fn(m, x), number=number)
        line = [title] + ["%.3f ms" % (row[n] * 1e3) for n in names]
        line += ["%.2fx" % (row["ctorch"] / row[n]) for n in names[1:]]
        same = all(np.array_equal(res["ctorch"], res[n]) for n in names[1:])
        line.append("same" if same else "DIFFERENT")
        table.append(line)
    print_table(table)
    print("\nratios are time(ctorch) / time(torch): below 1.00x ctorch is faster")


if __name__ == "__main__":
    main()
