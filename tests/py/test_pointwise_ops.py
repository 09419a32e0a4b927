"""The pointwise op families beyond add/sub/mul/div: unary math, rounding,
predicates, comparisons, logical and bitwise ops, floor division, remainder,
powers, and their operators, against values recorded from PyTorch 1.13
(data/pointwise_expected.py) and, where torch is installed, against torch."""
import importlib.util
import math
import os
import random

import pytest

import ctorch

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "_pointwise_expected", os.path.join(HERE, "data", "pointwise_expected.py"))
_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_data)
CASES = _data.CASES

FLOATS = [-3.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.0, 7.25, float("nan"),
          float("inf"), -float("inf"), 1e-3, 123.456]
INTS = [-7, -2, -1, 0, 1, 2, 3, 100]
UINTS = [0, 1, 2, 7, 200, 255]
BOOLS = [True, False, True]
INPUTS = {"float32": FLOATS, "float64": FLOATS, "int64": INTS, "int32": INTS,
          "int8": INTS, "uint8": UINTS, "bool": BOOLS}
# libm and PyTorch's vectorized (SLEEF) float32 functions may differ in the
# last bit; everything else must match exactly
TRANSCENDENTAL = {"sqrt", "exp", "log", "sin", "tanh", "sigmoid", "reciprocal",
                  "erfinv", "atan2", "pow"}


def decode(v):
    if v == "nan":
        return float("nan")
    if v == "inf":
        return float("inf")
    if v == "-inf":
        return -float("inf")
    if v == "-0.0":
        return -0.0
    return v


def same_value(x, y, approx):
    if isinstance(x, float) and isinstance(y, float):
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        if approx and not (math.isinf(x) or math.isinf(y)):
            return abs(x - y) <= 4e-7 * max(1.0, abs(y))
        return x == y and math.copysign(1, x) == math.copysign(1, y)
    return x == y and type(x) is type(y)


def run_case(mod, kind, op, dtype):
    a = mod.tensor(INPUTS[dtype], dtype=getattr(mod, dtype))
    if kind == "u":
        return getattr(mod, op)(a)
    return getattr(mod, op)(a, mod.flip(a, [0]) if hasattr(mod, "flip")
                            else mod.tensor(INPUTS[dtype][::-1], dtype=getattr(mod, dtype)))


@pytest.mark.parametrize("case", CASES, ids=["%s-%s-%s" % c[:3] for c in CASES])
def test_recorded(case):
    kind, op, dtype, _, rtype, values = case
    if rtype.startswith("torch."):
        r = run_case(ctorch, kind, op, dtype)
        assert repr(r.dtype) == rtype
        got = r.tolist()
        want = [decode(v) for v in values]
        assert len(got) == len(want)
        approx = op in TRANSCENDENTAL and dtype.startswith("float")
        approx = approx or (op in TRANSCENDENTAL and rtype == "torch.float32")
        for g, w in zip(got, want):
            assert same_value(g, w, approx), (got, want)
    else:
        with pytest.raises(getattr(__builtins__, rtype, None) or Exception) as info:
            run_case(ctorch, kind, op, dtype)
        assert type(info.value).__name__ == rtype
        assert str(info.value) == values


def test_operators_literal():
    a = ctorch.tensor([-7, 7, 5])
    b = ctorch.tensor([2, 2, -3])
    assert (a // b).tolist() == [-4, 3, -2]
    assert (a % b).tolist() == [1, 1, -1]
    assert (a ** 2).tolist() == [49, 49, 25]
    assert (2 ** ctorch.tensor([1, 2, 3])).tolist() == [2, 4, 8]
    assert (a & 3).tolist() == [1, 3, 1]
    assert (a | 8).tolist() == [-7, 15, 13]
    assert (a ^ 1).tolist() == [-8, 6, 4]
    assert (ctorch.tensor([1, -8]) >> 1).tolist() == [0, -4]
    assert (ctorch.tensor([1]) << 70).tolist() == [64]     # x86 shift masking, as torch
    assert (~ctorch.tensor([1, 2])).tolist() == [-2, -3]
    assert (~ctorch.tensor([True, False])).tolist() == [False, True]
    assert abs(ctorch.tensor([-1.5, 2.0])).tolist() == [1.5, 2.0]
    assert (a == 7).tolist() == [False, True, False]
    assert (a != 7).tolist() == [True, False, True]
    assert (a < b).tolist() == [True, False, False]
    assert (a >= 5).tolist() == [False, True, True]
    assert repr((a > 0).dtype) == "torch.bool"
    assert (ctorch.tensor([-7.5, 7.5]) // 2).tolist() == [-4.0, 3.0]
    assert (ctorch.tensor([-7.5, 7.5]) % 2).tolist() == [0.5, 1.5]
    assert (ctorch.tensor([1, 2]) ** 0.5).tolist() == pytest.approx([1.0, 1.4142135])
    assert repr((2.5 ** ctorch.tensor([1, 2])).dtype) == "torch.float32"


def test_inplace_operators_and_methods():
    t = ctorch.tensor([5, 6, 7])
    ident, ptr = id(t), t.data_ptr()
    t //= 2
    t %= 3
    t **= 2
    t |= 8
    t ^= 1
    t <<= 1
    t >>= 1
    t &= 15
    assert t.tolist() == [13, 9, 9]          # recorded from torch 1.13
    assert id(t) == ident and t.data_ptr() == ptr
    f = ctorch.tensor([0.25, 4.0])
    assert f.sqrt_().tolist() == [0.5, 2.0]
    assert f.neg_().tolist() == [-0.5, -2.0]
    assert f.abs_().tolist() == [0.5, 2.0]
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the "
                       "desired output type Long$"):
        ctorch.tensor([1, 2]).sqrt_()
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the "
                       "desired output type Long$"):
        ctorch.sqrt(ctorch.tensor([4.0]), out=ctorch.empty(1, dtype=ctorch.int64))


def test_out_and_division_modes():
    out = ctorch.empty(3)
    r = ctorch.sqrt(ctorch.tensor([1.0, 4.0, 9.0]), out=out)
    assert r is out and out.tolist() == [1.0, 2.0, 3.0]
    b = ctorch.empty(2, dtype=ctorch.bool)
    assert ctorch.lt(ctorch.tensor([1, 5]), 3, out=b).tolist() == [True, False]
    a = ctorch.tensor([-7, 7])
    assert ctorch.div(a, 2, rounding_mode="floor").tolist() == [-4, 3]
    assert ctorch.div(a, 2, rounding_mode="trunc").tolist() == [-3, 3]
    assert a.div(2, rounding_mode="trunc").tolist() == [-3, 3]
    assert ctorch.div(ctorch.tensor([-7.0]), 2, rounding_mode="trunc").tolist() == [-3.0]
    with pytest.raises(RuntimeError, match="^div expected rounding_mode to be one of "
                       "None, 'trunc', or 'floor' but found 'up'$"):
        ctorch.div(a, 2, rounding_mode="up")


def test_errors():
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        ctorch.tensor([1]) // 0
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        ctorch.tensor([1]) % 0
    with pytest.raises(RuntimeError, match="^Integers to negative integer powers are "
                       "not allowed.$"):
        ctorch.tensor([2]) ** -1
    assert (ctorch.tensor([2, 3]) ** ctorch.tensor([-1, 2])).tolist() == [0, 9]
    with pytest.raises(RuntimeError, match="^\"frac_cpu\" not implemented for 'Long'$"):
        ctorch.tensor([1]).frac()
    with pytest.raises(RuntimeError, match="^Boolean inputs not supported for relu$"):
        ctorch.relu(ctorch.tensor([True]))
    with pytest.raises(RuntimeError, match="^\"lshift_cpu\" not implemented for 'Float'$"):
        ctorch.tensor([1.0]) << 1
    with pytest.raises(TypeError):
        ctorch.tensor([1.0]) < "a"


def test_nan_propagation_and_signs():
    nan = float("nan")
    m = ctorch.maximum(ctorch.tensor([1.0, nan]), ctorch.tensor([2.0, 0.0])).tolist()
    assert m[0] == 2.0 and math.isnan(m[1])
    assert ctorch.fmax(ctorch.tensor([1.0, nan]), ctorch.tensor([2.0, 0.0])).tolist() == [2.0, 0.0]
    assert math.copysign(1, (-ctorch.tensor([nan])).item()) == -1.0
    assert ctorch.sign(ctorch.tensor([nan, float("inf"), -0.0])).tolist()[1:] == [1.0, 0.0]
    assert ctorch.relu(ctorch.tensor([-1.0, -0.0, 2.0])).tolist() == [0.0, -0.0, 2.0]


def _random_tensor(mod, rng, dtype, n):
    if dtype.startswith("float"):
        vals = [rng.uniform(-10, 10) for _ in range(n)]
    elif dtype == "bool":
        vals = [rng.random() < 0.5 for _ in range(n)]
    elif dtype == "uint8":
        vals = [rng.randint(0, 255) for _ in range(n)]
    else:
        vals = [rng.randint(-100, 100) for _ in range(n)]
    return vals


@pytest.mark.parametrize("seed", range(3))
def test_random_vs_torch(torch_ref, seed):
    rng = random.Random(seed)
    torch = torch_ref
    ops_u = ["abs", "neg", "sign", "floor", "ceil", "round", "trunc", "square",
             "relu", "isnan", "signbit", "logical_not", "bitwise_not", "exp", "tanh",
             "sigmoid", "log1p", "atan"]
    ops_b = ["floor_divide", "remainder", "fmod", "maximum", "minimum", "eq", "lt",
             "ge", "logical_xor", "bitwise_and", "bitwise_xor", "pow", "atan2"]
    for _ in range(120):
        dtype = rng.choice(["float32", "float64", "int64", "int32", "uint8", "bool"])
        n = rng.randint(1, 40)
        va = _random_tensor(None, rng, dtype, n)
        vb = _random_tensor(None, rng, dtype, n)
        if rng.random() < 0.5:
            op = rng.choice(ops_u)
            args_c = (ctorch.tensor(va, dtype=getattr(ctorch, dtype)),)
            args_t = (torch.tensor(va, dtype=getattr(torch, dtype)),)
        else:
            op = rng.choice(ops_b)
            if op in ("floor_divide", "remainder", "fmod") and dtype != "bool":
                vb = [v if v else 1 for v in vb]
            if op == "pow" and dtype not in ("float32", "float64"):
                vb = [abs(v) % 5 for v in vb] if dtype != "bool" else vb
            args_c = (ctorch.tensor(va, dtype=getattr(ctorch, dtype)),
                      ctorch.tensor(vb, dtype=getattr(ctorch, dtype)))
            args_t = (torch.tensor(va, dtype=getattr(torch, dtype)),
                      torch.tensor(vb, dtype=getattr(torch, dtype)))
        try:
            t = getattr(torch, op)(*args_t)
        except RuntimeError as e:
            with pytest.raises(RuntimeError):
                getattr(ctorch, op)(*args_c)
            continue
        c = getattr(ctorch, op)(*args_c)
        assert repr(c.dtype) == repr(t.dtype), (op, dtype)
        approx = op in TRANSCENDENTAL or op in ("exp", "tanh", "sigmoid", "log1p", "atan")
        for x, y in zip(c.tolist(), t.tolist()):
            assert same_value(x, y, approx), (op, dtype, c.tolist(), t.tolist())


def test_no_leaks():
    import gc
    gc.collect()
    before = ctorch._C._live_counts()[:2]
    for _ in range(50):
        a = ctorch.arange(10.0)
        (a.sqrt() + a // 3) % 2 == a.floor()
        ctorch.maximum(a, a.neg(), out=ctorch.empty(0))
    del a
    gc.collect()
    assert ctorch._C._live_counts()[:2] == before


def test_selection_ops_literal():
    """Recorded from torch 1.13."""
    x = ctorch.tensor([1, 5, 9])
    assert ctorch.clamp(x, 2, 6).tolist() == [2, 5, 6]
    c = ctorch.clamp(x, 2.5)
    assert repr(c.dtype) == "torch.float32" and c.tolist() == [2.5, 5.0, 9.0]
    n = ctorch.clamp(ctorch.tensor([1.0, float("nan")]), 0, 1).tolist()
    assert n[0] == 1.0 and math.isnan(n[1])
    assert ctorch.clamp(x, min=ctorch.tensor([0, 6, 0]), max=ctorch.tensor(7)).tolist() == [1, 6, 7]
    assert ctorch.clamp(ctorch.tensor([1.0, 5.0]), min=3, max=2).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="^torch.clamp: At least one of 'min' or 'max' "
                       "must not be None$"):
        ctorch.clamp(x)
    y = ctorch.tensor([1, 5, 9])
    assert y.clamp_(max=4) is y and y.tolist() == [1, 4, 4]
    assert ctorch.clip(x, 3, 4).tolist() == [3, 4, 4]
    w = ctorch.where(ctorch.tensor([True, False, True]), x, 0.5)
    assert repr(w.dtype) == "torch.float32" and w.tolist() == [1.0, 0.5, 9.0]
    assert ctorch.where(ctorch.tensor([True, False]), ctorch.tensor([1, 2]),
                        ctorch.tensor([3.0, 4.0])).tolist() == [1.0, 4.0]
    with pytest.raises(RuntimeError, match="^where expected condition to be a boolean "
                       "tensor, but got a tensor with dtype Long$"):
        ctorch.where(ctorch.tensor([1, 0]), x[:2], x[:2])
    assert x.masked_fill(ctorch.tensor([True, False, True]), 7.5).tolist() == [7, 5, 7]
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports a 0-dimensional "
                       "value tensor, but got tensor with 1 dimension"):
        x.masked_fill(ctorch.tensor([True, False, True]), ctorch.tensor([1, 2]))
    assert ctorch.nan_to_num(ctorch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])
                             ).tolist() == [0.0, 3.4028234663852886e38,
                                            -3.4028234663852886e38, 1.0]
    assert ctorch.nan_to_num(ctorch.tensor([float("nan"), float("inf")]), nan=1.0,
                             posinf=2.0).tolist() == [1.0, 2.0]
    assert ctorch.lerp(ctorch.tensor([0.0, 10.0]), ctorch.tensor([10.0, 20.0]),
                       0.25).tolist() == [2.5, 12.5]
    r = ctorch.tensor([1.2345, 2.3456]).round(decimals=2).tolist()
    assert r == pytest.approx([1.23, 2.35]) and ctorch.round(
        ctorch.tensor([1.5, 2.5])).tolist() == [2.0, 2.0]


def test_selection_ops_vs_torch(torch_ref):
    torch = torch_ref
    rng = random.Random(5)
    for _ in range(60):
        n = rng.randint(1, 20)
        va = [rng.uniform(-5, 5) for _ in range(n)]
        vb = [rng.uniform(-5, 5) for _ in range(n)]
        mask = [rng.random() < 0.5 for _ in range(n)]
        lo, hi = rng.uniform(-3, 0), rng.uniform(0, 3)
        for mod_c, mod_t in [(ctorch, torch)]:
            c = [mod_c.clamp(mod_c.tensor(va), lo, hi),
                 mod_c.where(mod_c.tensor(mask), mod_c.tensor(va), mod_c.tensor(vb)),
                 mod_c.tensor(va).masked_fill(mod_c.tensor(mask), lo),
                 mod_c.lerp(mod_c.tensor(va), mod_c.tensor(vb), hi / 3),
                 mod_c.tensor(va).round(decimals=1)]
            t = [mod_t.clamp(mod_t.tensor(va), lo, hi),
                 mod_t.where(mod_t.tensor(mask), mod_t.tensor(va), mod_t.tensor(vb)),
                 mod_t.tensor(va).masked_fill(mod_t.tensor(mask), lo),
                 mod_t.lerp(mod_t.tensor(va), mod_t.tensor(vb), hi / 3),
                 mod_t.tensor(va).round(decimals=1)]
            for x, y in zip(c, t):
                assert repr(x.dtype) == repr(y.dtype)
                assert x.tolist() == y.tolist()


@pytest.mark.parametrize("shape", [(300, 200), (3, 130, 70), (64, 64), (65, 129)])
def test_tiled_transposed_operands(shape):
    """Note [Tiled iteration]: an operand whose fast dimension differs from the
    output's is walked in blocks; every element must still be right."""
    n = 1
    for s in shape:
        n *= s
    a = (ctorch.arange(n, dtype=ctorch.float64) * 0.5).reshape(*shape)
    b = ctorch.arange(n, dtype=ctorch.float64).reshape(*shape[:-2], shape[-1], shape[-2])
    bt = b.transpose(-1, -2)
    out = a + bt
    assert out.is_contiguous()
    al, bl, ol = a.tolist(), b.tolist(), out.tolist()
    if len(shape) == 2:
        al, bl, ol = [al], [bl], [ol]
    for k in range(len(al)):
        for i in range(shape[-2]):
            for j in range(shape[-1]):
                assert ol[k][i][j] == al[k][i][j] + bl[k][j][i]
    # in place into a transposed output, and the int path
    c = ctorch.zeros(*shape[:-2], shape[-1], shape[-2]).transpose(-1, -2)
    c.add_(a.float())
    assert c.tolist() == a.float().tolist()


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "int32", "float64", "int64",
                                   "bool"])
@pytest.mark.parametrize("shape", [(70, 66), (2, 131, 67), (128, 64)])
def test_tiled_packed_operands_every_itemsize(dtype, shape):
    """Transposed operands are packed block by block (Note [Tiled iteration]),
    with a SIMD path for 4-byte elements and a scalar one for the rest and
    for the edges; compare with NumPy for each element size, with two packed
    operands at once and with a step-2 slice along the packed dimension."""
    import numpy as np
    rng = np.random.default_rng(sum(shape))
    tshape = shape[:-2] + (shape[-1], shape[-2])
    an = rng.integers(0, 100, size=shape).astype(dtype)
    bn = rng.integers(0, 100, size=tshape).astype(dtype)
    cn = rng.integers(0, 100, size=tshape[:-1] + (2 * tshape[-1],)).astype(dtype)
    a, b, c = ctorch.from_numpy(an), ctorch.from_numpy(bn), ctorch.from_numpy(cn)
    bt, ct_ = b.transpose(-1, -2), c[..., ::2].transpose(-1, -2)
    bnt, cnt = bn.swapaxes(-1, -2), cn[..., ::2].swapaxes(-1, -2)
    if dtype == "bool":
        got, want = ctorch.logical_xor(a, bt), np.logical_xor(an, bnt)
        got2, want2 = ctorch.where(a, bt, ct_), np.where(an, bnt, cnt)
    else:
        got, want = ctorch.maximum(a, bt), np.maximum(an, bnt)
        got2, want2 = ctorch.where(a > 50, bt, ct_), np.where(an > 50, bnt, cnt)
    assert (got.numpy() == want).all()
    assert (got2.numpy() == want2).all()
    assert got2.is_contiguous()


def test_composites_literal():
    """isclose / allclose / equal / masked_scatter_ / as_strided (recorded)."""
    nan = float("nan")
    a = ctorch.tensor([1.0, 2.0, nan])
    b = ctorch.tensor([1.0, 2.0000001, nan])
    assert ctorch.equal(a, a) is False
    assert ctorch.equal(ctorch.tensor([1, 2]), ctorch.tensor([1.0, 2.0])) is True
    assert ctorch.equal(ctorch.ones(2), ctorch.ones(3)) is False
    assert ctorch.allclose(a, b) is False and ctorch.allclose(a, b, equal_nan=True) is True
    assert ctorch.isclose(a, b).tolist() == [True, True, False]
    assert ctorch.isclose(ctorch.tensor([1, 2]), ctorch.tensor([1, 3])).tolist() == [True, False]
    assert ctorch.isclose(ctorch.tensor([1.0, float("inf")]),
                          ctorch.tensor([1.0, float("inf")])).tolist() == [True, True]
    with pytest.raises(RuntimeError, match="^Long did not match Float$"):
        ctorch.isclose(ctorch.tensor([1]), ctorch.tensor([1.0]))
    x = ctorch.zeros(5)
    x.masked_scatter_(ctorch.tensor([True, False, True, False, True]), ctorch.tensor([1.0, 2, 3]))
    assert x.tolist() == [1.0, 0.0, 2.0, 0.0, 3.0]
    y = ctorch.arange(9.0)
    assert y.as_strided((2, 2), (3, 1), 1).tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert ctorch.as_strided(y, (3,), (4,)).tolist() == [0.0, 4.0, 8.0]
    with pytest.raises(RuntimeError, match=r"^setStorage: sizes \[2, 2\], strides \[5, 5\], "
                       "storage offset 0, and itemsize 4 requiring a storage size of 44 "
                       "are out of bounds for storage of size 36$"):
        y.as_strided((2, 2), (5, 5))
