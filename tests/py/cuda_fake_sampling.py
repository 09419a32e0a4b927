"""The samplers on the pretend device (aten/device_sampling.c and the
`random` kernel's exponential / cauchy / log_normal / geometric / poisson
ops in aten/cuda/random_math.h): exact values against a Python Philox
where an element's value is one transformation of its draw, laws with
fixed seeds where the op is a composite, PyTorch's error messages.
Imported by cuda_fake_cases.py, whose runner runs these cases."""
import math
import struct
from collections import Counter

import ctorch as torch
import ctorch.nn.functional as F

from cuda_fake_cases import FAKE_THREADS, _philox, raises, same

EPS32 = 2.0 ** -23


def _threads(n):
    """The launch's threads for n elements on the pretend device."""
    return min((n + 255) // 256 * 256, FAKE_THREADS)


def _blocks(seed, offset, n):
    """Element i's Philox block and slot, for four values a block (32-bit
    draws) and for two (float64)."""
    th = _threads(n)
    cache = {}

    def block(t, rnd):
        if (t, rnd) not in cache:
            lo = offset // 4 + rnd
            cache[t, rnd] = _philox((lo & 0xFFFFFFFF, lo >> 32, t & 0xFFFFFFFF, t >> 32),
                                    (seed & 0xFFFFFFFF, seed >> 32))
        return cache[t, rnd]

    def at(i, per):
        q = i // th
        return block(i % th, q // per), q % per
    return at


def _f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def _uniform_f(w):
    # curand_uniform: fmaf((float)w, 2^-32, 2^-33), exact in double then
    # rounded once
    return _f32(_f32(w) * 2.0 ** -32 + 2.0 ** -33)


def _uniform_d(x, y):
    z = x ^ ((y << 21) & (2 ** 64 - 1))
    return z * 2.0 ** -53 + 2.0 ** -54   # z * 2^-53 is exact: one rounding, as fma's


def _normal_d(b, which):
    zx = b[0] ^ ((b[1] << 21) & (2 ** 64 - 1))
    zy = b[2] ^ ((b[3] << 21) & (2 ** 64 - 1))
    u = zx * 2.0 ** -53 + 2.0 ** -54
    v = zy * 2.0 ** -52 + 2.0 ** -53
    s = math.sqrt(-2.0 * math.log(u))
    return (math.sin(v * 3.1415926535897932) if which == 0
            else math.cos(v * 3.1415926535897932)) * s


def _state_offset():
    return int.from_bytes(bytes(torch.cuda.get_rng_state()[8:16].tolist()), "little")


def case_cuda_transforms_match_a_python_philox():
    """float64 values are computed the same way in Python (one rounding per
    step, the same libm), so they are checked bit for bit; float32 to a few
    ulps (the kernel's logf / tanf against Python's double functions)."""
    n = FAKE_THREADS * 2 + 21              # two rounds of the launch, and a third
    seed = 2 ** 33 + 17
    cases = [
        ("exponential_", (0.75,), lambda u: -1.0 / 0.75 * (
            math.log(u) if u < 1 - 2.0 ** -53 else -(2.0 ** -53))),
        ("cauchy_", (0.0, 1.0), lambda u: math.tan(3.14159265358979323846 * (u - 0.5))),
        ("geometric_", (0.25,), lambda u: float(math.ceil(math.log(u) / math.log1p(-0.25)))),
    ]
    for name, args, fn in cases:
        torch.cuda.manual_seed(seed)
        torch.rand(3, device="cuda")                       # offset 4
        t = getattr(torch.empty(n, dtype=torch.float64, device="cuda"), name)(*args)
        at = _blocks(seed, 4, n)
        want = []
        for i in range(n):
            b, s = at(i, 2)
            want.append(fn(_uniform_d(b[2 * s], b[2 * s + 1])))
        assert t.cpu().tolist() == want, name
        assert _state_offset() == 4 + 4 * 2, name         # two blocks a thread
    torch.cuda.manual_seed(seed)
    t = torch.empty(n, dtype=torch.float64, device="cuda").log_normal_(0.0, 1.0).cpu().tolist()
    at = _blocks(seed, 0, n)
    assert t == [math.exp(_normal_d(*at(i, 2))) for i in range(n)]
    # float32: four values a block, the float functions
    for name, args, fn in [
            ("exponential_", (2.0,), lambda u: -0.5 * math.log(u)),
            ("cauchy_", (1.0, 3.0), lambda u: 1 + 3 * math.tan(_f32(
                _f32(3.14159265358979323846) * _f32(min(max(u, EPS32), 1 - EPS32) - 0.5))))]:
        torch.cuda.manual_seed(seed)
        t = getattr(torch.empty(n, device="cuda"), name)(*args).cpu().tolist()
        at = _blocks(seed, 0, n)
        for i in range(n):
            b, s = at(i, 4)
            w = fn(_uniform_f(b[s]))
            assert abs(t[i] - w) <= 4e-7 * max(1.0, abs(w)), (name, i, t[i], w)
        assert _state_offset() == 4, name
    # a transposed output draws in memory order, as the other samplers
    torch.cuda.manual_seed(3)
    a = torch.empty(5, 7, device="cuda").t().exponential_()
    torch.cuda.manual_seed(3)
    same(a.t(), torch.empty(5, 7, device="cuda").exponential_().cpu())


def case_cuda_per_element_samplers():
    torch.cuda.manual_seed(6)
    n = 40000
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        e = torch.empty(n, dtype=dt, device="cuda").exponential_(4.0).cpu().double()
        assert e.min().item() > 0 and abs(e.mean().item() - 0.25) < 0.01, dt
        c = torch.empty(n, dtype=dt, device="cuda").cauchy_(2.0, 0.5).cpu().double()
        q = c.sort().values
        assert abs(q[n // 2].item() - 2.0) < 0.03, dt                 # median
        assert abs(q[3 * n // 4].item() - q[n // 4].item() - 1.0) < 0.05, dt   # 2 sigma
        ln = torch.empty(n, dtype=dt, device="cuda").log_normal_(0.5, 0.25).cpu().double()
        lg = ln.log()
        assert abs(lg.mean().item() - 0.5) < 0.01 and abs(lg.std().item() - 0.25) < 0.01, dt
    for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
               torch.bfloat16, torch.float32, torch.float64):
        g = torch.empty(n, dtype=dt, device="cuda").geometric_(0.2).cpu().double()
        assert g.min().item() >= 1 and abs(g.mean().item() - 5.0) < 0.1, dt
        assert abs((g == 1).double().mean().item() - 0.2) < 0.01, dt
    # F.gumbel_softmax draws exponential_ there: rows sum to 1, hard is
    # one-hot, the argmax follows softmax(logits)
    logits = torch.tensor([0.0, 1.0, 2.0], device="cuda").log_softmax(0).expand(6000, 3)
    y = F.gumbel_softmax(logits, tau=0.5)
    assert y.device.type == "cuda"
    assert (y.sum(1) - 1).abs().max().item() < 1e-5
    h = F.gumbel_softmax(logits, hard=True).cpu()
    assert sorted(set(h.flatten().tolist())) == [0.0, 1.0] and (h.sum(1) == 1).all().item()
    freq = torch.bincount(h.argmax(1), minlength=3).double() / 6000
    want = torch.tensor([0.0, 1.0, 2.0]).double().softmax(0)
    assert (freq - want).abs().max().item() < 0.03, freq
    # PyTorch's messages
    x = torch.empty(3, device="cuda")
    raises(RuntimeError, lambda: x.exponential_(-1),
           "exponential_ expects lambda >= 0.0, but found lambda=-1")
    raises(RuntimeError, lambda: x.log_normal_(1, 0),
           "log_normal_ expects std > 0.0, but found std=0")
    raises(RuntimeError, lambda: x.geometric_(0),
           "geometric_ expects p to be in (0, 1), but got p=0")
    raises(RuntimeError, lambda: torch.empty(3, dtype=torch.bool, device="cuda").geometric_(0.5),
           "\"geometric_cuda\" not implemented for 'Bool'")
    raises(RuntimeError, lambda: torch.empty(3, dtype=torch.int64, device="cuda").cauchy_(),
           "\"cauchy_cuda\" not implemented for 'Long'")
    raises(RuntimeError, lambda: torch.empty(3, dtype=torch.int32, device="cuda")
           .exponential_(), "\"exponential_cuda\" not implemented for 'Int'")
    raises(RuntimeError, lambda: torch.empty(3, dtype=torch.int8, device="cuda").log_normal_(),
           "\"log_normal_cuda\" not implemented for 'Char'")
    raises(RuntimeError, lambda: x.exponential_(generator=torch.Generator()),
           "Expected a 'cuda' device type for generator but found 'cpu'")
    # a generator of its own repeats its draws
    g1 = torch.Generator(device="cuda").manual_seed(5)
    a = torch.empty(9, device="cuda").cauchy_(generator=g1)
    g1.manual_seed(5)
    same(torch.empty(9, device="cuda").cauchy_(generator=g1), a.cpu())


def case_cuda_randperm():
    torch.cuda.manual_seed(1)
    for n in (0, 1, 2, 7, 1000):
        for dt in (torch.int64, torch.int32, torch.int16, torch.uint8, torch.float16,
                   torch.float32, torch.float64):
            if dt == torch.uint8 and n > 256:
                continue
            p = torch.randperm(n, device="cuda", dtype=dt)
            assert p.device == torch.device("cuda", 0) and p.dtype == dt and p.shape == (n,)
            assert sorted(int(v) for v in p.cpu().tolist()) == list(range(n)), (n, dt)
    # uniform over the 6 orders of 3 (each 100 of 600, sd 9.1), and each
    # value over the 5 places of 5 (each 80 of 400, sd 8)
    orders = Counter(tuple(torch.randperm(3, device="cuda").cpu().tolist())
                     for _ in range(600))
    assert len(orders) == 6 and all(abs(c - 100) < 5 * 9.1 for c in orders.values()), orders
    places = torch.stack([torch.randperm(5, device="cuda") for _ in range(400)]).cpu()
    for v in range(5):
        hits = (places == v).sum(0).tolist()
        assert all(abs(h - 80) < 5 * 8.0 for h in hits), hits
    # its generator, the default's offset moved on (no two calls alike)
    g = torch.Generator(device="cuda").manual_seed(9)
    a = torch.randperm(50, device="cuda", generator=g)
    g.manual_seed(9)
    same(torch.randperm(50, device="cuda", generator=g), a.cpu())
    assert torch.randperm(50, device="cuda").cpu().tolist() != \
        torch.randperm(50, device="cuda").cpu().tolist()
    out = torch.empty(4, dtype=torch.int64, device="cuda")
    r = torch.randperm(6, device="cuda", out=out)
    assert r is out and sorted(out.cpu().tolist()) == list(range(6))
    # the CPU's checks and messages
    raises(RuntimeError, lambda: torch.randperm(-1, device="cuda"),
           "Trying to create tensor with negative dimension -1: [-1]")
    raises(RuntimeError, lambda: torch.randperm(5, device="cuda", dtype=torch.bool),
           "\"randperm\" not implemented for 'Bool'")
    raises(RuntimeError, lambda: torch.randperm(3000, device="cuda", dtype=torch.half),
           "n cannot be greater than 2049 for Half type.")
    raises(RuntimeError, lambda: torch.randperm(3, device="cuda", generator=torch.Generator()),
           "Expected a 'cuda' device type for generator but found 'cpu'")


def _freq(samples, ncat):
    c = Counter(samples)
    n = len(samples)
    return [c.get(j, 0) / n for j in range(ncat)]


def case_cuda_multinomial():
    torch.cuda.manual_seed(2)
    probs = torch.tensor([[0.0, 1.0, 0.0, 3.0, 0.0, 4.0, 0.0, 0.0],
                          [5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0],
                          [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])
    k = 8000
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        s = torch.multinomial(probs.to(dt).cuda(), k, replacement=True)
        assert s.device.type == "cuda" and s.dtype == torch.int64 and s.shape == (3, k)
        s = s.cpu().tolist()
        for row, p in zip(s, probs.tolist()):
            f = _freq(row, 8)
            want = [v / sum(p) for v in p]
            assert all((w == 0) == (g == 0) for g, w in zip(f, want)), (dt, f)
            assert all(abs(g - w) < 5 * math.sqrt(w * (1 - w) / k) + 1e-9
                       for g, w in zip(f, want)), (dt, f, want)
    one = torch.multinomial(torch.tensor([0.0, 2.0, 0.0, 6.0], device="cuda"), 4000, True)
    assert one.shape == (4000,)
    f = _freq(one.cpu().tolist(), 4)
    assert f[0] == 0 and f[2] == 0 and abs(f[3] - 0.75) < 0.035, f
    # without replacement: distinct, never a zero, first picks follow p;
    # one sample keeps a dim of 1
    p = torch.tensor([0.1, 0.0, 0.2, 0.3, 0.4], device="cuda")
    draws = torch.multinomial(p.expand(6000, 5), 4).cpu().tolist()
    assert all(sorted(r) == [0, 2, 3, 4] for r in draws)
    f = _freq([r[0] for r in draws], 5)
    assert all(abs(a - b) < 0.03 for a, b in zip(f, [0.1, 0.0, 0.2, 0.3, 0.4])), f
    for dt in (torch.float16, torch.bfloat16, torch.float64):     # half too, as on CUDA
        d = torch.multinomial(p.to(dt).expand(50, 5), 3).cpu().tolist()
        assert all(len(set(r)) == 3 and 1 not in r for r in d), dt
    m1 = torch.multinomial(probs.cuda(), 1)
    assert m1.shape == (3, 1) and m1.device.type == "cuda"
    assert m1.cpu()[1, 0].item() in (0, 7)
    g = torch.Generator(device="cuda").manual_seed(4)
    a = torch.multinomial(probs.cuda(), 5, True, generator=g)
    g.manual_seed(4)
    same(torch.multinomial(probs.cuda(), 5, True, generator=g), a.cpu())
    # the CPU's checks and messages (PyTorch 1.13's)
    c = lambda *v: torch.tensor(v, device="cuda")
    for repl, vals, text in [
            (True, (1.0, -1.0), "invalid multinomial distribution (encountering probability "
                                "entry < 0)"),
            (True, (1.0, float("nan")), "invalid multinomial distribution (encountering "
                                        "probability entry < 0)"),
            (True, (1.0, float("inf")), "invalid multinomial distribution (encountering "
                                        "probability entry = infinity or NaN)"),
            (True, (0.0, 0.0), "invalid multinomial distribution (sum of probabilities <= 0)"),
            (False, (0.0, 0.0), "invalid multinomial distribution (sum of probabilities <= 0)"),
            (False, (1.0, float("inf")), "probability tensor contains either `inf`, `nan` or "
                                         "element < 0")]:
        raises(RuntimeError, lambda: torch.multinomial(c(*vals), 1, repl), text)
    raises(RuntimeError, lambda: torch.multinomial(
        torch.tensor([[1.0, 1.0], [0.0, 0.0]], device="cuda"), 2, True),
        "invalid multinomial distribution (sum of probabilities <= 0)")
    raises(RuntimeError, lambda: torch.multinomial(torch.ones(2, 2, 2, device="cuda"), 1),
           "prob_dist must be 1 or 2 dim")
    raises(RuntimeError, lambda: torch.multinomial(torch.ones(3, device="cuda"), 4),
           "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    raises(RuntimeError, lambda: torch.multinomial(torch.ones(3, device="cuda"), 0, True),
           "cannot sample n_sample <= 0 samples")
    raises(RuntimeError, lambda: torch.multinomial(
        torch.ones(3, dtype=torch.int64, device="cuda"), 1),
        "multinomial only supports floating-point dtypes for input, got: Long")
    raises(RuntimeError, lambda: torch.multinomial(torch.ones(3, device="cuda"), 2, True,
                                                   generator=torch.Generator()),
           "Expected a 'cuda' device type for generator but found 'cpu'")


def case_cuda_poisson():
    torch.cuda.manual_seed(8)
    n = 20000
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        for lam in (0.0, 0.7, 4.0, 10.0, 55.0):
            r = torch.poisson(torch.full((n,), lam, dtype=dt, device="cuda"))
            assert r.dtype == dt and r.device.type == "cuda"
            v = r.cpu().double()
            assert (v == v.floor()).all().item() and v.min().item() >= 0
            lam_r = torch.tensor(lam, dtype=dt).item()           # the rate as stored
            assert abs(v.mean().item() - lam_r) < 5 * math.sqrt(lam_r / n) + 1e-9, (dt, lam)
            assert abs(v.var().item() - lam_r) < 0.05 * lam_r + 1e-9, (dt, lam)
    # each element its own rate, a non-contiguous input, the result contiguous
    rates = torch.tensor([[0.0, 2.0], [1000.0, 0.5]], device="cuda").t()
    draws = torch.stack([torch.poisson(rates) for _ in range(500)]).cpu()
    assert draws.shape == (500, 2, 2) and torch.poisson(rates).is_contiguous()
    means = draws.mean(0)
    assert means[0, 0].item() == 0.0 and abs(means[1, 0].item() - 2.0) < 0.35
    assert abs(means[0, 1].item() - 1000) < 8 and abs(means[1, 1].item() - 0.5) < 0.2
    # every call moves the offset on by the blocks an element may take
    torch.cuda.manual_seed(8)
    torch.poisson(torch.ones(7, device="cuda"))
    assert _state_offset() == 96
    torch.poisson(torch.ones(7, device="cuda"))
    assert _state_offset() == 192
    raises(RuntimeError, lambda: torch.poisson(torch.tensor([1.0, -1.0], device="cuda")),
           "invalid Poisson rate, expected rate to be non-negative")
    raises(RuntimeError, lambda: torch.poisson(torch.tensor([float("nan")], device="cuda")),
           "invalid Poisson rate, expected rate to be non-negative")
    raises(RuntimeError, lambda: torch.poisson(torch.tensor([1, 2], device="cuda")),
           "\"poisson_cuda\" not implemented for 'Long'")
    assert torch.poisson(torch.empty(0, 3, device="cuda")).shape == (0, 3)
