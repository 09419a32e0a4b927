"""addcmul and addcdiv (aten/cpu/pointwise_ternary.c): recorded values,
the bit-exact rounding PyTorch 1.13's kernels have (Note [addcmul
rounding]), promotion, broadcasting, in-place and out= forms, PyTorch's
errors, and the derivatives; against torch where it is installed."""
import math
import struct

import pytest

import ctorch
from ctorch.autograd import gradcheck, gradgradcheck
from helpers import error_of, same_error, same_tensor


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def fma32(a, b, c):
    """fmaf(a, b, c): the exact a*b + c (float64 holds a float32 product
    exactly; the sum is exact here too, as the test values are tame)
    rounded once to float32."""
    return f32(a * b + c)


S = [0.1, -2.5, 3.0, 1e-3, 7.75, -0.3, 0.2, 1.5, 2.0]
A = [0.7, 1.3, -0.9, 5.5, 0.01, 3.3, -1.1, 0.6, 0.45]
B = [1.9, -0.4, 2.2, 0.3, 1.7, -2.8, 0.9, 1.05, 3.0]


def test_addcmul_is_one_fma_float32():
    s, a, b = (ctorch.tensor(v) for v in (S, A, B))
    v = f32(0.37)
    r = ctorch.addcmul(s, a, b, value=0.37).tolist()
    want = [fma32(f32(v * f32(x)), f32(y), f32(z)) for z, x, y in zip(S, A, B)]
    assert r == want


def test_addcdiv_rounds_each_step_float32():
    s, a, b = (ctorch.tensor(v) for v in (S, A, B))
    v = f32(-0.37)
    r = ctorch.addcdiv(s, a, b, value=-0.37).tolist()
    want = [f32(f32(z) + f32(f32(v * f32(x)) / f32(y))) for z, x, y in zip(S, A, B)]
    assert r == want


def test_recorded_values():
    """Values printed by PyTorch 1.13."""
    s = ctorch.tensor([1.0, 2.0, 3.0])
    assert ctorch.addcmul(s, s, s, value=2).tolist() == [3.0, 10.0, 21.0]
    assert s.addcdiv(s, s + 1, value=0.5).tolist() == [1.25, 2.3333332538604736, 3.375]
    i = ctorch.tensor([1, 2, 3])
    assert ctorch.addcmul(i, i, i, value=2).tolist() == [3, 10, 21]
    assert ctorch.addcmul(i, i, i, value=0.5).tolist() == [1, 2, 3]
    u = ctorch.tensor([100, 2, 3], dtype=ctorch.uint8)
    assert ctorch.addcmul(u, u, u, value=3).tolist() == [148, 14, 30]
    i8 = ctorch.tensor([100, 2, 3], dtype=ctorch.int8)
    assert ctorch.addcmul(i8, i8, i8, value=3).tolist() == [-108, 14, 30]
    assert ctorch.addcmul(s, i, i, value=0.5).tolist() == [1.5, 4.0, 7.5]
    assert ctorch.addcdiv(i, s, i, value=0.5).tolist() == [1.5, 2.5, 3.5]
    assert ctorch.addcmul(s, s, s, value=True).tolist() == [2.0, 6.0, 12.0]


def test_promotion_and_broadcast():
    s = ctorch.ones(2, 3)
    r = ctorch.addcmul(s, ctorch.ones(3, dtype=ctorch.float64), ctorch.ones(2, 1))
    assert r.dtype == ctorch.float64 and tuple(r.shape) == (2, 3)
    # a 0-dim float64 operand does not promote a float32 tensor
    r = ctorch.addcmul(ctorch.ones(3), ctorch.ones(3), ctorch.tensor(3.0, dtype=ctorch.float64))
    assert r.dtype == ctorch.float32 and r.tolist() == [4.0, 4.0, 4.0]
    r = ctorch.addcdiv(ctorch.ones(3, 1), ctorch.ones(1, 4), ctorch.full((4,), 2.0))
    assert tuple(r.shape) == (3, 4) and r.tolist() == [[1.5] * 4] * 3


def test_inplace_and_out():
    s = ctorch.tensor([1.0, 2.0, 3.0])
    x = s.clone()
    assert x.addcmul_(s, s, value=2) is x
    assert x.tolist() == [3.0, 10.0, 21.0]
    assert x.addcdiv_(s, s) is x and x.tolist() == [4.0, 11.0, 22.0]
    out = ctorch.empty(3)
    assert ctorch.addcmul(s, s, s, value=2, out=out) is out
    assert out.tolist() == [3.0, 10.0, 21.0]
    # computed in float32, written to a float64 out
    out64 = ctorch.empty(3, dtype=ctorch.float64)
    ctorch.addcdiv(s, s, s, out=out64)
    assert out64.tolist() == [2.0, 3.0, 4.0]
    # non-contiguous operands and output
    m = ctorch.arange(12.0).reshape(3, 4)
    t = m.t()
    r = ctorch.addcmul(t, t, t)
    assert r.tolist() == [[v + v * v for v in row] for row in t.tolist()]
    t.addcdiv_(t, t + 1, value=2)
    want = [[v + 2 * v / (v + 1) for v in row]
            for row in ctorch.arange(12.0).reshape(3, 4).tolist()]
    assert m.flatten().tolist() == pytest.approx(sum(want, []), rel=1e-6)
    # in place on a version counter
    v0 = x._version
    x.addcmul_(s, s)
    assert x._version == v0 + 1


def test_bfloat16():
    s, a, b = (ctorch.tensor(v, dtype=ctorch.bfloat16) for v in (S, A, B))
    r = ctorch.addcmul(s, a, b, value=0.37)
    assert r.dtype == ctorch.bfloat16
    want = ctorch.tensor([fma32(f32(f32(0.37) * x), y, z) for z, x, y in
                          zip(s.float().tolist(), a.float().tolist(), b.float().tolist())]
                         ).to(ctorch.bfloat16)
    assert r.tolist() == want.tolist()


ERRORS = [
    ("addcdiv(i, i, i)",
     "Integer division with addcdiv is no longer supported, and in a future  release "
     "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
     "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
     "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
     "float inputs. The future addcdiv behavior is just the latter implementation: "
     "(input + value * tensor1 / tensor2), for all dtypes."),
    ("addcmul(i.bool(), i.bool(), i.bool())",
     "\"addcmul_cpu_out\" not implemented for 'Bool'"),
    ("addcmul(f.half(), f.half(), f.half())",
     "\"addcmul_cpu_out\" not implemented for 'Half'"),
    ("addcdiv(f.half(), f.half(), f.half())",
     "\"addcdiv_cpu_out\" not implemented for 'Half'"),
    ("i.clone().addcmul_(f, f)", "result type Float can't be cast to the desired output type Long"),
    ("addcmul(f, f, f, out=m.empty(3, dtype=m.long))",
     "result type Float can't be cast to the desired output type Long"),
    ("addcmul(f, f, f, value=1e40)", "value cannot be converted to type float without overflow"),
    ("addcmul(f, m.ones(2), f)",
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    ("f.clone().addcmul_(m.ones(2, 3), m.ones(2, 3))",
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
]


def _eval(m, expr):
    i = m.tensor([1, 2, 3])
    f = m.tensor([1.0, 2.0, 3.0])
    if not expr.startswith(("i.", "f.")):
        expr = "m." + expr
    return eval(expr, {"m": m, "i": i, "f": f})


@pytest.mark.parametrize("expr,msg", ERRORS)
def test_errors(expr, msg):
    assert error_of(lambda: _eval(ctorch, expr)) == ("RuntimeError", msg)


def test_argument_errors():
    f = ctorch.ones(3)
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        ctorch.addcmul(f, f, 3.0)
    with pytest.raises(TypeError):
        ctorch.addcmul(f, f, f, 1.0)
    with pytest.raises(TypeError, match="must be Number, not str"):
        ctorch.addcmul(f, f, f, value="a")


@pytest.mark.parametrize("expr,msg", ERRORS)
def test_errors_against_torch(torch_ref, expr, msg):
    same_error(lambda: _eval(ctorch, expr), lambda: _eval(torch_ref, expr))


def test_autograd():
    x = ctorch.tensor([1.0, 2.0], requires_grad=True)
    y = ctorch.addcmul(x, x, x, value=2)
    assert type(y.grad_fn).__name__ == "AddcmulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 9.0]
    z = ctorch.addcdiv(x, x, x + 1, value=2)
    assert type(z.grad_fn).__name__ == "AddcdivBackward0"
    w = x.clone().addcdiv_(x, x + 1)
    assert type(w.grad_fn).__name__ == "AddcdivBackward0"
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        ctorch.addcmul(x, x, x, out=ctorch.empty(2))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.addcmul_(x, x)


def D(v, shape=None):
    t = ctorch.tensor(v, dtype=ctorch.float64)
    return (t.reshape(shape) if shape else t).requires_grad_()


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_gradcheck(op):
    s, a, b = D([0.3, -1.2, 0.8]), D([1.1, 0.5, -0.7]), D([1.5, -0.9, 2.1])
    fn = getattr(ctorch, op)
    assert gradcheck(lambda s, a, b: fn(s, a, b, value=0.7), (s, a, b))
    assert gradgradcheck(lambda s, a, b: fn(s, a, b, value=-1.3), (s, a, b))
    # broadcasting: gradients summed back to each input's shape
    s2, a2, b2 = D([0.3, -1.2], (2, 1)), D([1.1, 0.5, -0.7]), D([1.5])
    assert gradcheck(lambda s, a, b: fn(s, a, b, value=0.5), (s2, a2, b2))
    # in place on a non-leaf
    assert gradcheck(lambda s, a, b: getattr(s.clone(), op + "_")(a, b, value=2.0),
                     (s, a, b))


def test_float32_grads_keep_dtype():
    s = ctorch.ones(3, requires_grad=True)
    a = ctorch.ones(3, dtype=ctorch.float64, requires_grad=True)
    r = ctorch.addcmul(s, a, ctorch.ones(3))
    r.sum().backward()
    assert s.grad.dtype == ctorch.float32 and a.grad.dtype == ctorch.float64


# --- against torch -----------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("n", [1, 7, 16, 33, 1000])
def test_bitwise_against_torch(torch_ref, dtype, op, n):
    """Contiguous (vector body and tail), strided and broadcast operands:
    PyTorch's vectorized and scalar loops round alike, so must we."""
    import numpy as np
    rng = np.random.default_rng(n)
    vals = [rng.standard_normal(2 * n).astype("float32") for _ in range(3)]
    for mod_out in [None, "strided", "bcast"]:
        res = []
        for m in (ctorch, torch_ref):
            dt = getattr(m, dtype)
            s, a, b = (m.tensor(v.tolist(), dtype=dt) for v in vals)
            if mod_out == "strided":
                s, a, b = s[::2], a[::2], b[::2]
            elif mod_out == "bcast":
                s, a, b = s[:n], a[:1], b[n:]
            res.append(getattr(m, op)(s, a, b, value=0.3711))
            x = s.clone()
            getattr(x, op + "_")(a, b, value=-1.75)
            res.append(x)
        for c, t in zip(res[:2], res[2:]):
            same_tensor(c, t)


def test_gradients_against_torch(torch_ref):
    for op in ["addcmul", "addcdiv"]:
        grads = []
        for m in (ctorch, torch_ref):
            s = m.tensor([0.3, -1.2, 0.8], requires_grad=True)
            a = m.tensor([[1.1], [0.5]], requires_grad=True)
            b = m.tensor([1.5, -0.9, 2.1], dtype=m.float64, requires_grad=True)
            r = getattr(m, op)(s, a, b, value=0.7)
            r.backward(m.ones(2, 3, dtype=r.dtype))
            grads.append([s.grad.tolist(), a.grad.tolist(), b.grad.tolist(), str(r.dtype)])
        assert grads[0][3] == grads[1][3]
        for c, t in zip(grads[0][:3], grads[1][:3]):
            flat_c = [x for row in c for x in (row if isinstance(row, list) else [row])]
            flat_t = [x for row in t for x in (row if isinstance(row, list) else [row])]
            assert all(math.isclose(x, y, rel_tol=1e-6) for x, y in zip(flat_c, flat_t))
