"""Autograd: the graph, the engine, derivatives, modes, hooks, custom
Functions and the errors, against recorded values (which run everywhere)
and against real PyTorch where it is importable."""
import gc
import math
import random
import warnings

import pytest

import ctorch
from ctorch.autograd import gradcheck, gradgradcheck


def T(data, dtype=None, rg=True, m=ctorch):
    return m.tensor(data, dtype=dtype or m.float64, requires_grad=rg)


# --- the tutorial ------------------------------------------------------------

def test_tutorial_values():
    x = ctorch.ones(2, 2, requires_grad=True)
    y = x ** 2
    z = y * y * 3
    out = z.mean()
    assert repr(y) == "tensor([[1., 1.],\n        [1., 1.]], grad_fn=<PowBackward0>)"
    assert repr(z) == "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<MulBackward0>)"
    assert repr(out) == "tensor(3., grad_fn=<MeanBackward0>)"
    out.backward()
    assert x.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    x.sum().backward()
    assert x.grad.tolist() == [[4.0, 4.0], [4.0, 4.0]]
    x.grad.data.zero_()
    x.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert (x ** 2).requires_grad
    with ctorch.no_grad():
        assert not (x ** 2).requires_grad


# --- graph structure -----------------------------------------------------------

NAMES = [
    ("x * 2", "MulBackward0"), ("x + 1", "AddBackward0"), ("x + x", "AddBackward0"),
    ("x - 1", "SubBackward0"), ("x / 2", "DivBackward0"), ("-x", "NegBackward0"),
    ("x ** 2", "PowBackward0"), ("x ** x", "PowBackward1"), ("x.square()", "PowBackward0"),
    ("x % 2", "RemainderBackward0"), ("x % x", "RemainderBackward1"),
    ("x.exp()", "ExpBackward0"), ("x.log1p()", "Log1PBackward0"), ("x.exp2()", "Exp2Backward0"),
    ("x.tanh()", "TanhBackward0"), ("x.sigmoid()", "SigmoidBackward0"),
    ("x.relu()", "ReluBackward0"), ("x.abs()", "AbsBackward0"), ("x.sqrt()", "SqrtBackward0"),
    ("x.round()", "RoundBackward0"), ("x.sign()", "SignBackward0"),
    ("x.clamp(0, 1)", "ClampBackward1"), ("x.clamp(min=x)", "ClampBackward0"),
    ("torch.where(x > 0, x, x)", "WhereBackward0"), ("x.to(torch.float32)", "ToCopyBackward0"),
    ("x.clone()", "CloneBackward0"), ("torch.maximum(x, x)", "MaximumBackward0"),
    ("torch.atan2(x, x)", "Atan2Backward0"),
    ("x.sum()", "SumBackward0"), ("x.sum(0)", "SumBackward1"), ("x.mean()", "MeanBackward0"),
    ("x.mean(1, keepdim=True)", "MeanBackward1"),
    ("x.view(6)", "ViewBackward0"), ("x.t()", "TBackward0"), ("x.transpose(0, 1)", "TransposeBackward0"),
    ("x.permute(1, 0)", "PermuteBackward0"), ("x[0]", "SelectBackward0"), ("x[:, 1]", "SelectBackward0"),
    ("x[0:1]", "SliceBackward0"), ("x[None]", "UnsqueezeBackward0"), ("x[[0, 1]]", "IndexBackward0"),
    ("x[x > 0]", "IndexBackward0"), ("x.expand(2, 2, 3)", "ExpandBackward0"),
    ("x.reshape(6)", "ReshapeAliasBackward0"), ("x.t().reshape(6)", "UnsafeViewBackward0"),
    ("x.unsqueeze(0)", "UnsqueezeBackward0"), ("x.squeeze()", "SqueezeBackward0"),
    ("x.squeeze(0)", "SqueezeBackward1"), ("x.narrow(1, 0, 2)", "SliceBackward0"),
    ("torch.cat([x, x])", "CatBackward0"), ("torch.stack([x, x])", "StackBackward0"),
    ("x @ x.t()", "MmBackward0"), ("x.mm(x.t())", "MmBackward0"),
    ("torch.addmm(x, x, torch.ones(3, 3, dtype=x.dtype))", "AddmmBackward0"),
    ("x[0] @ x[1]", "DotBackward0"), ("x @ x[0]", "MvBackward0"),
    ("x.unsqueeze(0) @ x.t().unsqueeze(0)", "UnsafeViewBackward0"),
]


def _name_of(m, expr):
    x = m.tensor([[1.0, -2.0, 3.0], [0.5, 2.5, -1.0]], dtype=m.float64, requires_grad=True)
    return type(eval(expr, {"x": x, "torch": m}).grad_fn).__name__


@pytest.mark.parametrize("expr, name", NAMES)
def test_grad_fn_name(expr, name):
    assert _name_of(ctorch, expr) == name


@pytest.mark.parametrize("expr, name", NAMES)
def test_grad_fn_name_vs_torch(torch_ref, expr, name):
    assert _name_of(ctorch, expr) == _name_of(torch_ref, expr)


def test_next_functions_and_leaves():
    x = ctorch.ones(2, requires_grad=True)
    c = ctorch.ones(2)
    y = x * c
    fn = y.grad_fn
    assert y.grad_fn is fn and fn.name() == "MulBackward0"
    (acc, i0), (none, i1) = fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x
    assert none is None and (i0, i1) == (0, 0)
    assert repr(fn).startswith("<MulBackward0 object at 0x")
    z = (y + 1).sum()
    assert [type(f).__name__ for f, _ in z.grad_fn.next_functions] == ["AddBackward0"]
    assert x.is_leaf and not y.is_leaf and c.is_leaf
    assert y.requires_grad and not c.requires_grad
    assert x.grad_fn is None
    s = x.unbind(0)[0] if hasattr(x, "unbind") else None
    del s


def test_output_nr_and_version():
    x = ctorch.ones(3, requires_grad=True)
    y = x * 1
    assert y.output_nr == 0 and y._version == 0
    y.add_(1)
    assert y._version == 1 and type(y.grad_fn).__name__ == "AddBackward0"


# --- the engine ---------------------------------------------------------------

def test_backward_with_gradient_and_broadcast():
    a = T([[1.0], [2.0], [3.0]])
    b = T([10.0, 20.0])
    (a * b + a).backward(ctorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=ctorch.float64))
    assert a.grad.tolist() == [[53.0], [117.0], [181.0]]
    assert b.grad.tolist() == [22.0, 28.0]


def test_grad_accumulates_and_retain_graph():
    x = T([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_autograd_grad_and_unused():
    x, u = T([1.0, 2.0]), T([3.0])
    (g,) = ctorch.autograd.grad((x ** 3).sum(), x)
    assert g.tolist() == [3.0, 12.0] and x.grad is None
    g2 = ctorch.autograd.grad((x * x).sum(), [x, u], allow_unused=True)
    assert g2[0].tolist() == [2.0, 4.0] and g2[1] is None


def test_double_backward():
    x = T([1.0, 2.0, 3.0])
    (g,) = ctorch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.requires_grad and type(g.grad_fn).__name__ == "MulBackward0"
    (gg,) = ctorch.autograd.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 12.0, 18.0]
    y = T([0.5, -0.25])
    (g,) = ctorch.autograd.grad((y.tanh() * y.exp()).sum(), y, create_graph=True)
    g.sum().backward()
    want = [math.exp(v) * (2 * (1 - math.tanh(v) ** 2) - 2 * math.tanh(v) * (1 - math.tanh(v) ** 2)
                           + math.tanh(v)) for v in (0.5, -0.25)]
    assert y.grad.tolist() == pytest.approx(want, rel=1e-12)


def test_backward_inputs():
    a, b = T([1.0, 2.0]), T([3.0, 4.0])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [3.0, 4.0] and b.grad is None


def test_views_and_joins():
    t = T([1.0, 2.0, 3.0, 4.0])
    u = t.view(2, 2).t()[0]
    assert repr(u) == "tensor([1., 3.], dtype=torch.float64, grad_fn=<SelectBackward0>)"
    u.sum().backward()
    assert t.grad.tolist() == [1.0, 0.0, 1.0, 0.0]
    p = T([1.0, 2.0])
    (ctorch.cat([p, p * 2]).sum() + ctorch.stack([p, p])[1].sum()).backward()
    assert p.grad.tolist() == [4.0, 4.0]
    q = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (q[[0, 0, 1], [2, 2, 0]] * ctorch.tensor([1.0, 10.0, 100.0], dtype=ctorch.float64)).sum().backward()
    assert q.grad.tolist() == [[0.0, 0.0, 11.0], [100.0, 0.0, 0.0]]


def test_inplace_on_non_leaf():
    x = T([1.0, 2.0])
    y = x * 2
    y.mul_(x)          # y = 2 x^2
    y.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 8.0]
    z = x.sin()
    z.exp_()          # exp(sin(x)); ExpBackward0 saved its own result
    z.sum().backward()
    assert x.grad.tolist() == pytest.approx(
        [4.0 + math.exp(math.sin(1.0)) * math.cos(1.0),
         8.0 + math.exp(math.sin(2.0)) * math.cos(2.0)], rel=1e-12)
    w = x.exp()
    w.exp_()          # overwrites the result x.exp() saved: PyTorch refuses too
    with pytest.raises(RuntimeError, match="which is output 0 of ExpBackward0"):
        w.sum().backward()


# --- modes ---------------------------------------------------------------------

def test_grad_modes():
    x = T([1.0])
    assert ctorch.is_grad_enabled()
    with ctorch.no_grad():
        assert not (x * 2).requires_grad and not ctorch.is_grad_enabled()
        with ctorch.enable_grad():
            assert (x * 2).requires_grad
    assert ctorch.is_grad_enabled()

    @ctorch.no_grad()
    def f():
        return (x * 2).requires_grad
    assert f() is False and ctorch.is_grad_enabled()
    with ctorch.set_grad_enabled(False):
        assert not ctorch.is_grad_enabled()
    assert ctorch.is_grad_enabled()
    ctorch.set_grad_enabled(False)
    assert not ctorch.is_grad_enabled()
    ctorch.set_grad_enabled(True)
    with ctorch.inference_mode():
        assert not (x * 2).requires_grad and ctorch.is_inference_mode_enabled()
    assert not ctorch.is_inference_mode_enabled()
    d = (x * 2).detach()
    assert not d.requires_grad and d.is_leaf
    y = x * 2
    y.detach_()
    assert not y.requires_grad and y.is_leaf
    assert x.data.requires_grad is False


# --- hooks ---------------------------------------------------------------------

def test_tensor_hooks_and_retain_grad():
    w = T([1.0, 2.0, 3.0])
    seen = []
    h = w.register_hook(lambda g: g * 2)
    w.register_hook(lambda g: seen.append(g.tolist()))
    (w * w).sum().backward()
    assert w.grad.tolist() == [4.0, 8.0, 12.0] and seen == [[4.0, 8.0, 12.0]]
    h.remove()
    w.grad = None
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0, 6.0]
    v = w * 3
    v.retain_grad()
    assert v.retains_grad
    hv = []
    v.register_hook(lambda g: hv.append(g.tolist()))
    (v * v).sum().backward()
    assert v.grad.tolist() == [6.0, 12.0, 18.0] and hv == [[6.0, 12.0, 18.0]]


def test_node_hooks():
    x = T([1.0, 2.0])
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda gout: calls.append(("pre", gout[0].tolist())))
    y.grad_fn.register_hook(lambda gin, gout: calls.append(("post", gin[0].tolist())) or
                            (gin[0] * 10, gin[1]))
    y.sum().backward()
    assert calls == [("pre", [1.0, 1.0]), ("post", [3.0, 3.0])]
    assert x.grad.tolist() == [30.0, 30.0]


def test_hook_exception_propagates():
    x = T([1.0])

    def bad(g):
        raise ValueError("from the hook")
    x.register_hook(bad)
    with pytest.raises(ValueError, match="from the hook"):
        (x * 2).sum().backward()


# --- custom Functions ----------------------------------------------------------

class Square(ctorch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        ctx.save_for_backward(i)
        return i * i

    @staticmethod
    def backward(ctx, g):
        (i,) = ctx.saved_tensors
        return 2 * i * g


class MulConst(ctorch.autograd.Function):
    @staticmethod
    def forward(ctx, a, k):
        ctx.k = k
        return a * k

    @staticmethod
    def backward(ctx, g):
        assert ctx.needs_input_grad == (True, False)
        return g * ctx.k, None


def test_custom_function():
    f = T([3.0, 4.0])
    o = Square.apply(f)
    assert repr(o) == "tensor([ 9., 16.], dtype=torch.float64, grad_fn=<SquareBackward>)"
    assert [type(n).__name__ for n, _ in o.grad_fn.next_functions] == ["AccumulateGrad"]
    o.sum().backward()
    assert f.grad.tolist() == [6.0, 8.0]
    r = MulConst.apply(f, 5.0)
    r.sum().backward()
    assert f.grad.tolist() == [11.0, 13.0]
    assert gradcheck(Square.apply, (T([0.3, -1.2]),))


def test_custom_function_wrong_count():
    class Bad(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g
    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect "
                                           r"number of gradients \(expected 2, got 1\)"):
        Bad.apply(T([1.0]), T([2.0])).sum().backward()


# --- errors --------------------------------------------------------------------

ERRORS = [
    ("backward twice", "y = (x * x).sum(); y.backward(); y.backward()",
     "Trying to backward through the graph a second time (or directly access saved tensors "
     "after they have already been freed). Saved intermediate values of the graph are freed "
     "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
     "backward through the graph a second time or if you need to access saved tensors after "
     "calling backward."),
    ("modified", "b = x * 2; c = b * b; b.add_(1); c.sum().backward()",
     "one of the variables needed for gradient computation has been modified by an inplace "
     "operation: [torch.FloatTensor [2, 2]], which is output 0 of AddBackward0, is at version "
     "1; expected version 0 instead. Hint: enable anomaly detection to find the operation "
     "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."),
    ("modified output", "z = (x * 1).exp(); z.add_(1); z.sum().backward()",
     "one of the variables needed for gradient computation has been modified by an inplace "
     "operation: [torch.FloatTensor [2, 2]], which is output 0 of ExpBackward0, is at version "
     "1; expected version 0 instead. Hint: enable anomaly detection to find the operation "
     "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."),
    ("modified leaf", "l = torch.ones(2, 2); w = x * l; l.add_(1); w.sum().backward()",
     "one of the variables needed for gradient computation has been modified by an inplace "
     "operation: [torch.FloatTensor [2, 2]] is at version 1; expected version 0 instead. "
     "Hint: enable anomaly detection to find the operation that failed to compute its "
     "gradient, with torch.autograd.set_detect_anomaly(True)."),
    ("leaf in-place", "x.add_(1)",
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("non-scalar", "(x * 2).backward()", "grad can be implicitly created only for scalar outputs"),
    ("numpy", "x.numpy()",
     "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    ("no grad", "torch.ones(2).sum().backward()",
     "element 0 of tensors does not require grad and does not have a grad_fn"),
    ("unused", "torch.autograd.grad((x * x).sum(), [x, torch.ones(2, requires_grad=True)])",
     "One of the differentiated Tensors appears to not have been used in the graph. Set "
     "allow_unused=True if this is the desired behavior."),
    ("int requires grad", "torch.ones(2, dtype=torch.long).requires_grad_()",
     "only Tensors of floating point dtype can require gradients"),
    ("non-leaf flag", "(x * 2).requires_grad_(False)",
     "you can only change requires_grad flags of leaf variables. If you want to use a "
     "computed variable in a subgraph that doesn't require differentiation use var_no_grad "
     "= var.detach()."),
    ("out=", "torch.add(x, x, out=torch.empty(2, 2))",
     "add(): functions with out=... arguments don't support automatic differentiation, but "
     "one of the arguments requires grad."),
    ("grad shape", "(x * 2).backward(torch.ones(3))",
     "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a "
     "shape of torch.Size([2, 2])."),
]


def _error_of(m, code):
    x = m.ones(2, 2, requires_grad=True)
    try:
        exec(code, {"torch": m, "x": x})
    except Exception as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("what, code, msg", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(what, code, msg):
    assert _error_of(ctorch, code) == ("RuntimeError", msg)


@pytest.mark.parametrize("what, code, msg", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_vs_torch(torch_ref, what, code, msg):
    assert _error_of(torch_ref, code) == _error_of(ctorch, code)


def test_non_leaf_grad_warning():
    x = ctorch.ones(2, requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert y.grad is None
    assert len(w) == 1 and "is not a leaf Tensor is being accessed" in str(w[0].message)


# --- gradcheck over the formulas ------------------------------------------------

def _inputs(shapes, positive=False, seed=0):
    rng = random.Random(seed)
    out = []
    for s in shapes:
        n = 1
        for d in s:
            n *= d
        vals = [rng.uniform(0.2, 1.5) if positive else rng.uniform(-1.5, 1.5) for _ in range(n)]
        out.append(ctorch.tensor(vals, dtype=ctorch.float64).reshape(*s).requires_grad_(True))
    return out


UNARY_FORMULAS = ["exp", "exp2", "expm1", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh",
                  "sigmoid", "erf", "erfc", "reciprocal", "square", "relu", "neg", "abs",
                  "silu", "frac"]
POSITIVE_UNARY = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt"]


@pytest.mark.parametrize("op", UNARY_FORMULAS + POSITIVE_UNARY + ["asin", "acos", "erfinv"])
def test_gradcheck_unary(op):
    (x,) = _inputs([(2, 3)], positive=op in POSITIVE_UNARY)
    if op in ("asin", "acos", "erfinv"):
        x = (x.detach() * 0.5).requires_grad_(True)
    assert gradcheck(lambda t: getattr(ctorch, op)(t), (x,))
    # non-contiguous input
    y = _inputs([(3, 2)], positive=op in POSITIVE_UNARY, seed=3)[0]
    if op in ("asin", "acos", "erfinv"):
        y = (y.detach() * 0.5).requires_grad_(True)
    assert gradcheck(lambda t: getattr(ctorch, op)(t.t()), (y,))


BINARY = [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a.sub(b, alpha=2)),
    ("mul", lambda a, b: a * b), ("div", lambda a, b: a / b),
    ("pow", lambda a, b: a.abs() ** b), ("pow scalar", lambda a, b: a ** 3 + b ** 2),
    ("atan2", lambda a, b: ctorch.atan2(a, b)), ("maximum", lambda a, b: ctorch.maximum(a, b)),
    ("minimum", lambda a, b: ctorch.minimum(a, b)), ("where", lambda a, b: ctorch.where(a > 0, a, b)),
    ("clamp tensors", lambda a, b: a.clamp(min=b * 0.5, max=b + 1)),
    ("clamp numbers", lambda a, b: a.clamp(-0.5, 0.5) + b),
    ("remainder", lambda a, b: a % (b.abs() + 2)), ("fmod", lambda a, b: ctorch.fmod(a, b.abs() + 2)),
]


@pytest.mark.parametrize("name, fn", BINARY, ids=[b[0] for b in BINARY])
def test_gradcheck_binary_broadcast(name, fn):
    a, b = _inputs([(3, 1, 2), (4, 1)], seed=1)
    b = (b.detach() + (2.0 if name in ("div", "pow") else 0.0)).requires_grad_(True)
    assert gradcheck(fn, (a, b))


STRUCT = [
    ("sum", lambda x: x.sum()), ("sum dims", lambda x: x.sum((0, 2), keepdim=True)),
    ("mean", lambda x: x.mean(1)), ("view", lambda x: x.view(6, 2) * 2),
    ("reshape t", lambda x: x.transpose(0, 2).reshape(-1)), ("expand", lambda x: x[:, :1].expand(2, 4, 2)),
    ("permute", lambda x: x.permute(2, 0, 1) * 1), ("select slice", lambda x: x[1, 1:3, ::2]),
    ("unsqueeze squeeze", lambda x: x.unsqueeze(1).squeeze(1).squeeze()),
    ("narrow", lambda x: x.narrow(1, 1, 2)), ("cat", lambda x: ctorch.cat([x, x * 2], 1)),
    ("stack", lambda x: ctorch.stack([x, x.exp()], 2)), ("index", lambda x: x[[0, 1, 1], :, [1, 0, 0]]),
    ("mask", lambda x: x[x > 0]), ("clone", lambda x: x.clone() * 1),
]


@pytest.mark.parametrize("name, fn", STRUCT, ids=[s[0] for s in STRUCT])
def test_gradcheck_structural(name, fn):
    (x,) = _inputs([(2, 3, 2)], seed=2)
    assert gradcheck(fn, (x,))


def test_gradcheck_products():
    a, b, v, w, c = _inputs([(3, 4), (4, 2), (4,), (4,), (3, 2)], seed=4)
    assert gradcheck(lambda p, q: p @ q, (a, b))
    assert gradcheck(lambda p, q: p @ q, (a, v))
    assert gradcheck(lambda p, q: p @ q, (v, b))
    assert gradcheck(lambda p, q: p @ q, (v, w))
    assert gradcheck(lambda s, p, q: ctorch.addmm(s, p, q, beta=0.5, alpha=2.0), (c, a, b))
    x, y = _inputs([(2, 3, 4), (4, 5)], seed=5)
    assert gradcheck(lambda p, q: p @ q, (x, y))
    assert gradcheck(lambda p, q: p.t() @ q, (a, a))


def test_gradgradcheck():
    a, b = _inputs([(2, 3), (3, 2)], seed=6)
    assert gradgradcheck(lambda p, q: (p @ q).tanh(), (a, b))
    (x,) = _inputs([(4,)], positive=True, seed=7)
    assert gradgradcheck(lambda t: (t.log() * t.exp()).sigmoid() ** 2, (x,))
    assert gradgradcheck(lambda t: (t / (t + 1)).mean() + t.sum(), (x,))
    assert gradgradcheck(lambda t: t.view(2, 2).t()[0] * 3, (x,))


def test_gradcheck_detects_wrong_formula():
    class Wrong(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            return i * i

        @staticmethod
        def backward(ctx, g):
            return g          # should be 2 i g
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        gradcheck(Wrong.apply, (T([0.5, 1.5]),))


# --- against torch ---------------------------------------------------------------

DIFF_EXPRS = [
    "((a * b).exp() + a.sin() / (b.abs() + 1)).sum()",
    "((a @ b.t()).relu() ** 2).mean()",
    "(a.tanh() * b.sigmoid()).sum(1).sum()",
    "torch.cat([a, b], 0)[1:, ::2].clamp(-0.3, 0.4).sum()",
    "torch.where(a > b, a * 2, b - a).mean(0).sum()",
    "(a[:, None, :] - b[None, :, :]).abs().sum()",
    "(a.t().reshape(-1) * torch.arange(a.numel(), dtype=a.dtype)).sum() + b[1:, 1].exp().sum()",
]


@pytest.mark.parametrize("expr", DIFF_EXPRS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_vs_torch(torch_ref, expr, dtype):
    rng = random.Random(hash(expr) % 1000)
    va = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(4)]
    vb = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(4)]
    res = []
    for m in (ctorch, torch_ref):
        dt = getattr(m, dtype)
        a = m.tensor(va, dtype=dt, requires_grad=True)
        b = m.tensor(vb, dtype=dt, requires_grad=True)
        out = eval(expr, {"torch": m, "a": a, "b": b})
        out.backward()
        res.append((out.item(), a.grad.tolist(), b.grad.tolist()))
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert res[0][0] == pytest.approx(res[1][0], rel=tol, abs=tol)
    for k in (1, 2):
        for r0, r1 in zip(res[0][k], res[1][k]):
            assert r0 == pytest.approx(r1, rel=tol, abs=tol)


# --- memory ----------------------------------------------------------------------

def test_training_loop_does_not_grow():
    w = ctorch.ones(8, 8, requires_grad=True)
    x = ctorch.ones(4, 8)

    def step():
        loss = ((x @ w).tanh() * 2).sum()
        loss.backward()
        with ctorch.no_grad():
            w.sub_(w.grad * 1e-3)
        w.grad = None
    for _ in range(100):
        step()
    gc.collect()
    before = ctorch._C._live_counts()
    for _ in range(10000):
        step()
    gc.collect()
    after = ctorch._C._live_counts()
    assert after[0] <= before[0] and after[1] <= before[1]


def test_graph_freed_with_its_tensors():
    gc.collect()
    before = ctorch._C._live_counts()
    x = ctorch.ones(100, requires_grad=True)
    y = x
    for _ in range(5000):        # a long chain is freed without deep recursion
        y = y * 1.0001
    y.sum().backward()
    del y
    del x
    gc.collect()
    assert ctorch._C._live_counts()[0] == before[0]


# --- in-place on views and __setitem__ (Note [In-place on a view]) -------------

def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


def test_inplace_on_view_rebases_base():
    x = ctorch.ones(2, 3, requires_grad=True)
    y = x * 1
    v = y[0]
    v.mul_(2)
    assert type(y.grad_fn).__name__ == "CopySlices" and _names(y.grad_fn) == ["MulBackward0", None]
    assert type(v.grad_fn).__name__ == "AsStridedBackward0" and v._base is y
    y.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]


def test_setitem_gradients():
    x = ctorch.ones(2, 3, requires_grad=True)
    w = ctorch.ones(3, requires_grad=True)
    weights = ctorch.arange(6.0).view(2, 3)
    y = x * 1
    y[0] = 7
    assert type(y.grad_fn).__name__ == "CopySlices" and _names(y.grad_fn) == ["MulBackward0", None]
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    x.grad = None
    y = x * 1
    y[1] = w
    assert _names(y.grad_fn) == ["MulBackward0", "AccumulateGrad"]
    (y * weights).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]] and w.grad.tolist() == [3.0, 4.0, 5.0]
    x.grad = w.grad = None
    y = x * 1
    y[[0, 1], [1, 2]] = w[:2] * 3
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"
    (y * weights).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 2.0], [3.0, 4.0, 0.0]] and w.grad.tolist() == [3.0, 15.0, 0.0]
    x.grad = w.grad = None
    y = x * 1
    y[:, 0] += w[:2]
    assert type(y.grad_fn).__name__ == "CopySlices"
    (y * weights).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and w.grad.tolist() == [0.0, 3.0, 0.0]
    z = ctorch.zeros(2, 3)
    z[0] = w
    assert type(z.grad_fn).__name__ == "CopySlices" and z.requires_grad and not z.is_leaf
    with ctorch.no_grad():
        x[0, 0] = 3
    assert x[0, 0].item() == 3.0 and x.is_leaf


def test_view_of_leaf_inplace_errors():
    x = ctorch.ones(2, 3, requires_grad=True)
    msg = "a view of a leaf Variable that requires grad is being used in an in-place operation."
    with pytest.raises(RuntimeError) as e:
        x[0].mul_(2)
    assert str(e.value) == msg
    with pytest.raises(RuntimeError) as e:
        x[0] = 5
    assert str(e.value) == msg


def test_inplace_views_vs_torch(torch_ref):
    def run(m):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        w = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 2
        y[1, 1:] = w[:2] * w[1:]
        y[:, 0].mul_(w[:2])
        v = y.t()[2]
        v.add_(w[:2].sin())
        (y * y).sum().backward()
        return x.grad.reshape(-1).tolist(), w.grad.tolist(), type(y.grad_fn).__name__
    got, want = run(ctorch), run(torch_ref)
    assert got[2] == want[2]
    for a, b in zip(got[:2], want[:2]):
        assert a == pytest.approx(b, rel=1e-6)


def test_function_dirty_nondiff_identity():
    class Inc(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Pair(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            idx = ctorch.tensor([0, 1])
            ctx.mark_non_differentiable(idx)
            return a * 3, idx

        @staticmethod
        @ctorch.autograd.function.once_differentiable
        def backward(ctx, g, gi):
            assert gi.tolist() == [0, 0]      # materialized zeros
            return g * 3

    class Ident(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = ctorch.ones(2, requires_grad=True)
    y = x * 1
    z = Inc.apply(y)
    assert z is y and type(y.grad_fn).__name__ == "IncBackward"
    assert repr(y.grad_fn).startswith("<ctorch.autograd.function.IncBackward object at 0x")
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    a, i = Pair.apply(x)
    assert not i.requires_grad and a.requires_grad
    a.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    b = Ident.apply(x)
    assert b is not x and b._base is x and type(b.grad_fn).__name__ == "IdentBackward"
    with pytest.raises(RuntimeError) as e:
        Inc.apply(x)
    assert str(e.value) == "a leaf Variable that requires grad has been used in an in-place operation."
    assert not Ident.apply(ctorch.ones(2)).requires_grad


def test_inplace_view_errors_more():
    t = ctorch.tensor([1.0, 2.0, 3.0, 4.0]).reshape(2, 2).requires_grad_()
    with pytest.raises(RuntimeError) as e:
        t.add_(1)
    assert str(e.value) == ("a view of a leaf Variable that requires grad is being used in "
                            "an in-place operation.")
    y = ctorch.ones(4, requires_grad=True) * 1
    for pieces, name in ((y.split(2), "SplitBackward0"), (y.unbind(0), "UnbindBackward0")):
        with pytest.raises(RuntimeError) as e:
            pieces[1].mul_(2)
        assert str(e.value) == (
            "Output 1 of %s is a view and is being modified inplace. This view is the output "
            "of a function that returns multiple views. Such functions do not allow the "
            "output views to be modified inplace. You should replace the inplace operation "
            "by an out-of-place one." % name)
