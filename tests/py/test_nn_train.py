"""End-to-end training of a small CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d,
Linear, cross entropy, SGD with momentum): the loss curve, the BatchNorm
running statistics after training and the first step's gradients, recorded
from PyTorch 1.13 (RECORDED below) and, where torch is installed, side by
side with torch.

Tolerance: the data and the initial weights are the same bit for bit (the
generator is PyTorch's), but the last bits of a step are not.  torch 1.13
convolves through oneDNN and ctorch through im2col + OpenBLAS gemm, so the
sums run in another order; log_softmax and nll_loss round differently too
(torch works in float with SLEEF's exp/log and a cascade sum).  Each step
differs by about one float32 ulp and training carries it on: over the 15
steps here the losses stay within 1e-6 relative of torch's (4e-7 seen), and
the tests allow 1e-4, so an OpenBLAS built for another CPU also passes.

Regenerate RECORDED with real torch: `cd /tmp && /usr/bin/python3
/work/main/tests/py/test_nn_train.py`.
"""
import pytest

CASES = [
    ("momentum", dict(lr=0.1, momentum=0.9)),
    ("nesterov-wd", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=1e-3)),
]
STEPS = 15
REL = 1e-4


def make_problem(m):
    """A seeded CNN and a 4-class problem of 32 noisy 12x12 images, where
    three classes brighten or darken one quadrant."""
    m.manual_seed(0)
    nn = m.nn
    net = nn.Sequential(
        nn.Conv2d(1, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 2 * 2, 4))
    x = m.randn(32, 1, 12, 12)
    y = m.randint(0, 4, (32,))
    x[:, :, :6, :6] += (y == 0).float()[:, None, None, None]
    x[:, :, 6:, 6:] += (y == 1).float()[:, None, None, None]
    x[:, :, :6, 6:] -= (y == 2).float()[:, None, None, None]
    return net, x, y


def run_cnn(m, opt_kwargs, steps=STEPS):
    """Train full-batch; returns (losses, first-step gradient sums, BatchNorm
    running mean/var sums, eval-mode accuracy)."""
    net, x, y = make_problem(m)
    opt = m.optim.SGD(net.parameters(), **opt_kwargs)
    losses, grads = [], None
    for _ in range(steps):
        opt.zero_grad()
        loss = m.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        if grads is None:
            grads = [p.grad.abs().sum().item() for p in net.parameters()]
        opt.step()
        losses.append(loss.item())
    stats = [b.sum().item() for b in net.buffers() if b.is_floating_point()]
    counts = [b.item() for b in net.buffers() if not b.is_floating_point()]
    net.eval()
    with m.no_grad():
        acc = (net(x).argmax(1) == y).float().mean().item()
    return dict(losses=losses, grads=grads, stats=stats, counts=counts, acc=acc)


# recorded from PyTorch 1.13.1 (CPU) by running this file
RECORDED = {
    'momentum': dict(
        losses=[1.801933765411377, 1.1964221000671387, 1.0732165575027466,
                0.8171835541725159, 0.5113312005996704, 0.4146401584148407,
                0.3313498795032501, 0.21870587766170502, 0.1391908824443817,
                0.0902298092842102, 0.060878802090883255, 0.04197540134191513,
                0.029618574306368828, 0.0210066270083189, 0.014848785474896431],
        grads=[4.67413330078125, 4.4651710595644545e-07, 0.16845504939556122,
               0.1640382558107376, 29.408435821533203, 1.036149797073449e-07,
               0.6141719818115234, 0.41853249073028564, 18.402591705322266,
               0.498119056224823],
        stats=[-0.530197024345398, 3.7305221557617188, 0.24332088232040405,
               8.19002914428711],
        counts=[15, 15],
        acc=1.0,
    ),
    'nesterov-wd': dict(
        losses=[1.801933765411377, 1.2303733825683594, 0.9954301118850708,
                0.8123077750205994, 0.6465749144554138, 0.514686644077301,
                0.4091666638851166, 0.32492655515670776, 0.2572850286960602,
                0.2035643607378006, 0.16159342229366302, 0.12929747998714447,
                0.10387501120567322, 0.08442499488592148, 0.06958844512701035],
        grads=[4.67413330078125, 4.4651710595644545e-07, 0.16845504939556122,
               0.1640382558107376, 29.408435821533203, 1.036149797073449e-07,
               0.6141719818115234, 0.41853249073028564, 18.402591705322266,
               0.498119056224823],
        stats=[-0.5073687434196472, 3.087289571762085, 0.03847789764404297,
               3.4316422939300537],
        counts=[15, 15],
        acc=1.0,
    ),
}


def _check(got, ref):
    assert got["losses"] == pytest.approx(ref["losses"], rel=REL)
    # the conv biases' gradients are noise around 0 (BatchNorm follows them)
    assert got["grads"] == pytest.approx(ref["grads"], rel=REL, abs=1e-5)
    assert got["stats"] == pytest.approx(ref["stats"], rel=REL, abs=1e-5)
    assert got["counts"] == ref["counts"]
    assert got["acc"] == ref["acc"]


@pytest.mark.parametrize("name,kw", CASES, ids=[c[0] for c in CASES])
def test_recorded_cnn_training(name, kw):
    import ctorch
    got = run_cnn(ctorch, kw)
    _check(got, RECORDED[name])
    assert got["losses"][-1] < 0.1 * got["losses"][0]


@pytest.mark.parametrize("name,kw", CASES, ids=[c[0] for c in CASES])
def test_cnn_training_against_torch(torch_ref, name, kw):
    import ctorch
    _check(run_cnn(ctorch, kw), run_cnn(torch_ref, kw))


def test_same_data_and_initial_weights(torch_ref):
    """What the generator makes is torch's bit for bit: the images, labels
    and every initial parameter."""
    import ctorch
    cn, cx, cy = make_problem(ctorch)
    tn, tx, ty = make_problem(torch_ref)
    assert cx.tolist() == tx.tolist() and cy.tolist() == ty.tolist()
    for (ck, cv), (tk, tv) in zip(cn.state_dict().items(), tn.state_dict().items()):
        assert ck == tk
        assert cv.tolist() == tv.tolist()


if __name__ == "__main__":
    import pprint

    import torch
    print("RECORDED = {")
    for name, kw in CASES:
        r = run_cnn(torch, kw)
        print("    %r: dict(" % name)
        for k in ("losses", "grads", "stats", "counts", "acc"):
            text = pprint.pformat(r[k], width=86 - 9 - len(k), compact=True)
            print("        %s=%s," % (k, text.replace("\n", "\n" + " " * (9 + len(k)))))
        print("    ),")
    print("}")
