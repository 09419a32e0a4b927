"""softmax and log_softmax, forward and backward, bit for bit as PyTorch 1.13
computes them on an x86-64 CPU with AVX2 (Note [Softmax order] in
aten/cpu/softmax.c): digests of the results recorded from torch (they run
without torch), and torch.equal against torch over many shapes, dims,
dtypes and thread counts where torch is installed.

The recorded digests need ctorch's AVX2 kernels (SLEEF's exp and log):
elsewhere ctorch runs plain loops that agree to an ulp, and those tests
are skipped.  Regenerate the record with
`python tests/py/test_softmax_bits.py` (needs torch)."""
import hashlib
import random
import sys

import pytest

import ctorch


def _cpu_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read().split()
    except OSError:
        return False
    return "avx2" in flags and "fma" in flags


avx2 = pytest.mark.skipif(not _cpu_has_avx2(),
                          reason="bit-exact only with the AVX2 kernels")

FNS = ("softmax", "log_softmax")

# (shape, dim, dtype): rows shorter and longer than a vector and with a
# partial last vector; other dims with inner sizes below, at and past a
# vector (the scalar positions use libm's exp); a softmax whose positions
# torch splits among threads; a dim of size 1 and a 1-D input
CASES = [
    ((64, 10), 1, "float32"),
    ((5, 3), 1, "float32"),
    ((7, 8), -1, "float32"),
    ((9, 17), 1, "float32"),
    ((4, 100), 1, "float32"),
    ((3, 1000), 1, "float32"),
    ((2, 33), 1, "float64"),
    ((9, 17), 1, "float64"),
    ((3, 1000), 1, "float64"),
    ((3, 5, 7), 0, "float32"),
    ((3, 5, 7), 1, "float32"),
    ((2, 10, 13), 1, "float32"),
    ((4, 20, 9), 1, "float64"),
    ((30, 17), 0, "float32"),
    ((3, 7, 40), 1, "float32"),
    ((2, 3, 4, 5), 1, "float64"),
    ((5, 3, 1), 1, "float32"),
    ((10, 3277), 0, "float32"),
    ((4, 1, 6), 1, "float32"),
    ((7,), 0, "float32"),
]

# sha256 (first 16 hex digits) of the result and the input's gradient,
# recorded from torch 1.13 with one thread
RECORDED = {
    'softmax 64x10 dim=1 float32': '962f6959cbd29b85',
    'softmax 5x3 dim=1 float32': '3ff411a63cd8bdae',
    'softmax 7x8 dim=-1 float32': '1b754d4d8943a72c',
    'softmax 9x17 dim=1 float32': 'df4834ce9b5ffe31',
    'softmax 4x100 dim=1 float32': 'efe65de9a4ad1e1a',
    'softmax 3x1000 dim=1 float32': '9f21dbff50fbf61d',
    'softmax 2x33 dim=1 float64': '6ebf2e70772ad19c',
    'softmax 9x17 dim=1 float64': 'c9945348838e42da',
    'softmax 3x1000 dim=1 float64': '5a1c3b3d60012a61',
    'softmax 3x5x7 dim=0 float32': 'a5ad3fc49cd3987e',
    'softmax 3x5x7 dim=1 float32': '83694684a57d2cbd',
    'softmax 2x10x13 dim=1 float32': '094715c73029caad',
    'softmax 4x20x9 dim=1 float64': '562e123703f501fa',
    'softmax 30x17 dim=0 float32': 'ea914f731f2ca8a5',
    'softmax 3x7x40 dim=1 float32': '1384d11bc762c84a',
    'softmax 2x3x4x5 dim=1 float64': '29aa25c75eed440f',
    'softmax 5x3x1 dim=1 float32': '082d0b269d28a216',
    'softmax 10x3277 dim=0 float32': '64a52dea49977be5',
    'softmax 4x1x6 dim=1 float32': '9f498cf62b542aae',
    'softmax 7 dim=0 float32': '6eaa20d9a08aa103',
    'log_softmax 64x10 dim=1 float32': '71a8442ac0583b23',
    'log_softmax 5x3 dim=1 float32': '9775b488e5859ae3',
    'log_softmax 7x8 dim=-1 float32': '0c1840947694a0f3',
    'log_softmax 9x17 dim=1 float32': 'ae9668be8fb0c058',
    'log_softmax 4x100 dim=1 float32': 'b1e2846346ed1f7a',
    'log_softmax 3x1000 dim=1 float32': '9ffd3299bb91175c',
    'log_softmax 2x33 dim=1 float64': 'de15421b10cf74e6',
    'log_softmax 9x17 dim=1 float64': '66176c48607363ae',
    'log_softmax 3x1000 dim=1 float64': '2dfc9e940d1ab1ba',
    'log_softmax 3x5x7 dim=0 float32': 'ae4ddd8c4b274bbc',
    'log_softmax 3x5x7 dim=1 float32': 'b6196a2d38a7d92d',
    'log_softmax 2x10x13 dim=1 float32': '0e3df19f41e45422',
    'log_softmax 4x20x9 dim=1 float64': '84eb9ee132cbb468',
    'log_softmax 30x17 dim=0 float32': '939704150053268c',
    'log_softmax 3x7x40 dim=1 float32': '387175a6faed40f6',
    'log_softmax 2x3x4x5 dim=1 float64': '0bef78a42a8ac13a',
    'log_softmax 5x3x1 dim=1 float32': '9775b488e5859ae3',
    'log_softmax 10x3277 dim=0 float32': '1bbd00d2f46af0bb',
    'log_softmax 4x1x6 dim=1 float32': '5d89f056865052bc',
    'log_softmax 7 dim=0 float32': 'b6972bf9118eea70',
}


def _run(m, fn, shape, dim, dtype, seed=0):
    """(result, gradient of the input) for x = 4 randn, backward of a randn
    gradient, both from torch's generator."""
    dt = getattr(m, dtype)
    m.manual_seed(seed)
    x = (m.randn(*shape, dtype=dt) * 4).requires_grad_()
    g = m.randn(*shape, dtype=dt)
    y = getattr(m, fn)(x, dim)
    y.backward(g)
    return y.detach(), x.grad


def _digest(y, gx):
    h = hashlib.sha256(y.numpy().tobytes() + gx.numpy().tobytes())
    return h.hexdigest()[:16]


class _threads:
    """ctorch (and torch) with n threads inside the block."""

    def __init__(self, n, *mods):
        self.n, self.mods = n, mods

    def __enter__(self):
        self.old = [m.get_num_threads() for m in self.mods]
        for m in self.mods:
            m.set_num_threads(self.n)

    def __exit__(self, *exc):
        for m, n in zip(self.mods, self.old):
            m.set_num_threads(n)


def _key(fn, case):
    shape, dim, dtype = case
    return "%s %s dim=%d %s" % (fn, "x".join(map(str, shape)), dim, dtype)


@avx2
@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("case", CASES, ids=[_key("", c).strip() for c in CASES])
def test_recorded(fn, case):
    with _threads(1, ctorch):
        y, gx = _run(ctorch, fn, *case)
    assert _digest(y, gx) == RECORDED[_key(fn, case)]


@avx2
def test_classifier_values():
    """The float32 values of the issue's case, as torch prints them."""
    ctorch.manual_seed(0)
    x = ctorch.randn(64, 10)
    assert x.log_softmax(1)[:2, :3].tolist() == [
        [-3.313417911529541, -3.339938163757324, -2.4381566047668457],
        [-2.3976829051971436, -2.4395322799682617, -2.6278247833251953]]
    assert x.softmax(1)[0, :3].tolist() == [
        0.036391571164131165, 0.0354391448199749, 0.08732166141271591]


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("case", CASES, ids=[_key("", c).strip() for c in CASES])
def test_vs_torch(fn, case, torch_ref):
    for n in (1, 2, 3):
        with _threads(n, ctorch, torch_ref):
            cy, cg = _run(ctorch, fn, *case)
            ty, tg = _run(torch_ref, fn, *case)
        assert torch_ref.equal(torch_ref.from_numpy(cy.numpy()), ty), (n, case)
        assert torch_ref.equal(torch_ref.from_numpy(cg.numpy()), tg), (n, case)


def _random_case(rng):
    ndim = rng.choice([1, 2, 2, 3, 3, 4])
    shape = [rng.choice([1, 2, 3, 5, 8, 9, 16, 17, 31, 64, 100]) for _ in range(ndim)]
    if rng.random() < 0.2:
        shape[rng.randrange(ndim)] = rng.choice([257, 1031])
    dim = rng.randrange(-ndim, ndim)
    return tuple(shape), dim, rng.choice(["float32", "float64"])


@pytest.mark.parametrize("seed", range(60))
def test_random_vs_torch(seed, torch_ref):
    rng = random.Random(seed)
    case = _random_case(rng)
    with _threads(rng.choice([1, 2]), ctorch, torch_ref):
        for fn in FNS:
            cy, cg = _run(ctorch, fn, *case, seed=seed)
            ty, tg = _run(torch_ref, fn, *case, seed=seed)
            assert torch_ref.equal(torch_ref.from_numpy(cy.numpy()), ty), (fn, case)
            assert torch_ref.equal(torch_ref.from_numpy(cg.numpy()), tg), (fn, case)


def test_special_values_vs_torch(torch_ref):
    """-inf (whole rows too), +inf and NaN, non-contiguous inputs, dtype=."""
    import numpy as np
    rng = np.random.default_rng(5)
    for dt in ("float32", "float64"):
        for shape in [(6, 9), (3, 17, 5), (2, 40)]:
            x = (rng.standard_normal(shape) * 3).astype(dt)
            x.ravel()[::7] = -np.inf
            x[0] = -np.inf
            x.ravel()[3] = np.inf
            x.ravel()[5] = np.nan
            y = (rng.standard_normal(shape[::-1]) * 1e3).astype(dt)
            perm = tuple(range(len(shape) - 1, -1, -1))
            for dim in range(len(shape)):
                for fn in FNS:
                    c = getattr(ctorch, fn)(ctorch.tensor(x), dim).numpy()
                    t = getattr(torch_ref, fn)(torch_ref.from_numpy(x), dim).numpy()
                    assert np.array_equal(c, t, equal_nan=True), (dt, shape, dim, fn)
                    cy = ctorch.tensor(y).permute(*perm)
                    ty = torch_ref.from_numpy(y).permute(*perm)
                    c = getattr(ctorch, fn)(cy, dim, dtype=ctorch.float64).numpy()
                    t = getattr(torch_ref, fn)(ty, dim, dtype=torch_ref.float64).numpy()
                    assert np.array_equal(c, t), (dt, shape, dim, fn)


def test_create_graph_still_differentiable():
    """Under create_graph the backward is recorded (the composite formula),
    so a second derivative exists."""
    for fn in FNS:
        x = ctorch.randn(3, 4, dtype=ctorch.float64, requires_grad=True)
        y = getattr(ctorch, fn)(x, 1)
        (g,) = ctorch.autograd.grad((y * y).sum(), x, create_graph=True)
        assert g.requires_grad
        (gg,) = ctorch.autograd.grad(g.sum(), x)
        assert gg.shape == x.shape


def _record():
    import torch
    with _threads(1, torch):
        for fn in FNS:
            for case in CASES:
                digest = _digest(*_run(torch, fn, *case))
                print("    %r: %r," % (_key(fn, case), digest))


if __name__ == "__main__":
    sys.exit(_record())
