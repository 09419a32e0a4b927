"""Autograd of the reductions, scans, softmax and selections: node names,
gradcheck / gradgradcheck in float64, and gradients against real PyTorch
(ties, zeros, NaN, dtype=, out=) where it is importable."""
import math
import random

import pytest

import ctorch
from ctorch.autograd import gradcheck, gradgradcheck

INF = float("inf")


def _values(shape, seed=0, lo=-1.5, hi=1.5, positive=False):
    """Distinct values (no ties) for a tensor of `shape`, nested lists."""
    rng = random.Random(seed)
    n = 1
    for d in shape:
        n *= d
    vals = set()
    while len(vals) < n:
        v = rng.uniform(0.3, hi) if positive else rng.uniform(lo, hi)
        if abs(v) > 0.05 and all(abs(abs(v) - abs(w)) > 1e-3 for w in vals):
            vals.add(round(v, 6))
    flat = list(vals)
    rng.shuffle(flat)

    def nest(flat, shape):
        if not shape:
            return flat[0]
        step = len(flat) // shape[0]
        return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]
    return nest(flat, list(shape))


def _leaf(m, data, dtype="float64"):
    return m.tensor(data, dtype=getattr(m, dtype), requires_grad=True)


def _first(r):
    return r[0] if isinstance(r, tuple) else r


# --- node names ------------------------------------------------------------------

NAMES = [
    ("x.sum()", "SumBackward0"), ("x.sum(1)", "SumBackward1"),
    ("x.sum(dtype=torch.float32)", "SumBackward0"), ("x.mean()", "MeanBackward0"),
    ("x.sum(dim=None)", "SumBackward1"), ("x.sum(None, keepdim=True)", "SumBackward1"),
    ("x.sum(())", "SumBackward1"), ("x.mean(dim=[])", "MeanBackward1"),
    ("x.amax(dim=())", "AmaxBackward0"),
    ("x.mean(1, dtype=torch.float64)", "MeanBackward1"),
    ("x.prod()", "ProdBackward0"), ("x.prod(1)", "ProdBackward1"),
    ("x.prod(1, keepdim=True)", "ProdBackward1"), ("x.prod(dtype=torch.float32)", "ProdBackward0"),
    ("x.amax()", "AmaxBackward0"), ("x.amax(1)", "AmaxBackward0"),
    ("x.amax((0, 1))", "AmaxBackward0"), ("x.amin(0)", "AminBackward0"),
    ("x.max()", "MaxBackward1"), ("x.min()", "MinBackward1"),
    ("x.max(1)", "MaxBackward0"), ("x.min(0, keepdim=True)", "MinBackward0"),
    ("torch.max(x, x * 2)", "MaximumBackward0"), ("torch.min(x, x * 2)", "MinimumBackward0"),
    ("x.median()", "MedianBackward0"), ("x.nanmedian()", "NanmedianBackward0"),
    ("x.median(1)", "MedianBackward1"), ("x.nanmedian(0)", "NanmedianBackward1"),
    ("x.mode(1)", "ModeBackward0"), ("x.kthvalue(2, 1)", "KthvalueBackward0"),
    ("x.sort(1)", "SortBackward0"), ("x.sort(0, descending=True)", "SortBackward0"),
    ("x.msort()", "SortBackward0"), ("x.topk(2, 1)", "TopkBackward0"),
    ("torch.topk(x, 1, 0, largest=False)", "TopkBackward0"),
    ("x.var()", "VarBackward0"), ("x.var(1)", "VarBackward0"),
    ("x.var(unbiased=False)", "VarBackward0"), ("x.var(1, correction=0)", "VarBackward0"),
    ("x.std()", "StdBackward0"), ("x.std(1, unbiased=False)", "StdBackward0"),
    ("x.std(0, correction=2, keepdim=True)", "StdBackward0"),
    ("torch.var_mean(x)", "VarMeanBackward0"), ("torch.var_mean(x, 1)", "VarMeanBackward0"),
    ("torch.std_mean(x, 0)", "StdMeanBackward0"),
    ("x.norm()", "NormBackward1"), ("x.norm(3)", "NormBackward1"), ("x.norm(1)", "NormBackward1"),
    ("x.norm(2, 1)", "NormBackward1"), ("x.norm(dim=1, keepdim=True)", "NormBackward1"),
    ("x.norm(float('inf'))", "NormBackward1"), ("x.norm(0)", "NormBackward1"),
    ("x.norm(p='fro')", "NormBackward1"), ("x.norm(p='fro', dim=1)", "NormBackward1"),
    ("x.norm(p='fro', dim=(0, 1))", "SqrtBackward0"),
    ("torch.norm(x, 2, dtype=torch.float64)", "NormBackward3"),
    ("torch.norm(x, 1, 1, dtype=torch.float64)", "NormBackward3"),
    ("torch.linalg.vector_norm(x)", "LinalgVectorNormBackward0"),
    ("torch.linalg.vector_norm(x, 1, dim=1)", "LinalgVectorNormBackward0"),
    ("torch.linalg.vector_norm(x, float('-inf'), dim=(0, 1))", "LinalgVectorNormBackward0"),
    ("torch.linalg.norm(x)", "LinalgVectorNormBackward0"),
    ("torch.linalg.norm(x, dim=1)", "LinalgVectorNormBackward0"),
    ("torch.linalg.norm(x, 3, dim=0, keepdim=True)", "LinalgVectorNormBackward0"),
    ("torch.linalg.norm(x[0], float('inf'))", "LinalgVectorNormBackward0"),
    ("x.logsumexp(1)", "LogsumexpBackward0"), ("x.logsumexp((0, 1))", "LogsumexpBackward0"),
    ("x.cumsum(1)", "CumsumBackward0"), ("x.cumsum(0, dtype=torch.float32)", "CumsumBackward0"),
    ("x.cumprod(1)", "CumprodBackward0"), ("x.cummax(1)", "CummaxBackward0"),
    ("x.cummin(0)", "CumminBackward0"), ("x.softmax(1)", "SoftmaxBackward0"),
    ("x.log_softmax(0)", "LogSoftmaxBackward0"),
    ("x.softmax(1, dtype=torch.float32)", "SoftmaxBackward0"),
    ("torch.log_softmax(x, 1, dtype=torch.float32)", "LogSoftmaxBackward0"),
]

NOT_DIFFERENTIABLE = [
    "x.count_nonzero()", "x.count_nonzero(1)", "x.all()", "x.any(1)", "x.argmax()",
    "x.argmin(1)", "x.argsort(1)", "x.max(1)[1]", "x.sort(0)[1]", "x.topk(2)[1]",
    "x.cummax(0)[1]", "x.median(1)[1]", "x.mode(0)[1]", "x.kthvalue(1, 0)[1]",
    "torch.var_mean(x.detach())[1]",
]


def _name_of(m, expr):
    x = _leaf(m, _values((3, 4), seed=1))
    r = _first(eval(expr, {"x": x, "torch": m}))
    return type(r.grad_fn).__name__


@pytest.mark.parametrize("expr, name", NAMES)
def test_grad_fn_name(expr, name):
    assert _name_of(ctorch, expr) == name


@pytest.mark.parametrize("expr, name", NAMES)
def test_grad_fn_name_vs_torch(torch_ref, expr, name):
    assert _name_of(torch_ref, expr) == name


def test_both_outputs_of_var_mean_share_the_node():
    x = _leaf(ctorch, _values((3, 4)))
    v, m = ctorch.var_mean(x, 1)
    assert v.grad_fn is m.grad_fn
    assert v.output_nr == 0 and m.output_nr == 1


def test_softmax_dtype_converts_first():
    x = _leaf(ctorch, _values((3, 4)))
    y = x.softmax(1, dtype=ctorch.float32)
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "ToCopyBackward0"
    z = x.cumsum(1, dtype=ctorch.float32)
    assert type(z.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"


@pytest.mark.parametrize("expr", NOT_DIFFERENTIABLE)
def test_not_differentiable(expr):
    x = _leaf(ctorch, _values((3, 4), seed=2))
    r = eval(expr, {"x": x, "torch": ctorch})
    assert r.grad_fn is None and not r.requires_grad


@pytest.mark.parametrize("expr", NOT_DIFFERENTIABLE)
def test_not_differentiable_vs_torch(torch_ref, expr):
    x = _leaf(torch_ref, _values((3, 4), seed=2))
    r = eval(expr, {"x": x, "torch": torch_ref})
    assert r.grad_fn is None and not r.requires_grad


# --- gradcheck ---------------------------------------------------------------------

GRADCHECK = [
    ("prod", lambda x: x.prod()), ("prod dim", lambda x: x.prod(1)),
    ("prod keepdim", lambda x: x.prod(0, keepdim=True)),
    ("amax", lambda x: x.amax()), ("amax dim", lambda x: x.amax(1)),
    ("amin dims", lambda x: x.amin((0, 1), keepdim=True)),
    ("max", lambda x: x.max()), ("min", lambda x: x.min()),
    ("max dim", lambda x: x.max(1)[0]), ("min dim keepdim", lambda x: x.min(0, keepdim=True)[0]),
    ("maximum", lambda x: ctorch.max(x, -x)),
    ("median", lambda x: x.median()), ("nanmedian", lambda x: x.nanmedian()),
    ("median dim", lambda x: x.median(1)[0]),
    ("nanmedian dim", lambda x: x.nanmedian(0, keepdim=True)[0]),
    ("mode", lambda x: x.mode(1)[0]), ("kthvalue", lambda x: x.kthvalue(2, 1)[0]),
    ("kthvalue keepdim", lambda x: x.kthvalue(3, 0, True)[0]),
    ("sort", lambda x: x.sort(1)[0]), ("sort desc", lambda x: x.sort(0, descending=True)[0]),
    ("msort", lambda x: x.msort()), ("topk", lambda x: x.topk(2, 1)[0]),
    ("topk smallest", lambda x: x.topk(2, 0, largest=False)[0]),
    ("var", lambda x: x.var()), ("var dim", lambda x: x.var(1)),
    ("var biased", lambda x: x.var(1, unbiased=False, keepdim=True)),
    ("var correction", lambda x: x.var(0, correction=2)),
    ("var dims", lambda x: x.var((0, 1))),
    ("std", lambda x: x.std()), ("std dim", lambda x: x.std(0, keepdim=True)),
    ("std correction", lambda x: x.std(1, correction=0)),
    ("var_mean", lambda x: ctorch.var_mean(x, 1)),
    ("std_mean", lambda x: ctorch.std_mean(x, unbiased=False)),
    ("var_mean mean only", lambda x: ctorch.var_mean(x, 0)[1]),
    ("std_mean std only", lambda x: ctorch.std_mean(x, 1, keepdim=True)[0]),
    ("norm", lambda x: x.norm()), ("norm 1", lambda x: x.norm(1)),
    ("norm 3", lambda x: x.norm(3, 1)), ("norm 1.5", lambda x: x.norm(1.5, 0, keepdim=True)),
    ("norm 0.5", lambda x: x.norm(0.5, 1)), ("norm -1", lambda x: x.norm(-1, 1)),
    ("norm inf", lambda x: x.norm(INF, 1)), ("norm -inf", lambda x: x.norm(-INF)),
    ("norm fro dims", lambda x: x.norm(p="fro", dim=(0, 1))),
    ("vector_norm", lambda x: ctorch.linalg.vector_norm(x, 2, dim=1)),
    ("vector_norm 4", lambda x: ctorch.linalg.vector_norm(x, 4)),
    ("vector_norm inf", lambda x: ctorch.linalg.vector_norm(x, INF, dim=0, keepdim=True)),
    ("linalg.norm", lambda x: ctorch.linalg.norm(x)),
    ("linalg.norm 1 dim", lambda x: ctorch.linalg.norm(x, 1, dim=1)),
    ("linalg.norm 0.5", lambda x: ctorch.linalg.norm(x[1], 0.5)),
    ("linalg.norm -inf", lambda x: ctorch.linalg.norm(x, -INF, dim=0)),
    ("logsumexp", lambda x: x.logsumexp(1)), ("logsumexp dims", lambda x: x.logsumexp((0, 1))),
    ("logsumexp keepdim", lambda x: x.logsumexp(0, keepdim=True)),
    ("cumsum", lambda x: x.cumsum(1)), ("cumsum 0", lambda x: x.cumsum(0)),
    ("cumprod", lambda x: x.cumprod(1)), ("cumprod 0", lambda x: x.cumprod(0)),
    ("cummax", lambda x: x.cummax(1)[0]), ("cummin", lambda x: x.cummin(0)[0]),
    ("softmax", lambda x: x.softmax(1)), ("softmax 0", lambda x: x.softmax(0)),
    ("log_softmax", lambda x: x.log_softmax(1)),
    ("log_softmax 0", lambda x: ctorch.log_softmax(x, 0)),
    ("sum dtype", lambda x: x.sum(1, dtype=ctorch.float64)),
    ("mean dtype", lambda x: x.mean(dtype=ctorch.float64)),
]


@pytest.mark.parametrize("name, fn", GRADCHECK, ids=[g[0] for g in GRADCHECK])
def test_gradcheck(name, fn):
    x = _leaf(ctorch, _values((3, 4), seed=3))
    assert gradcheck(fn, (x,))
    # non-contiguous: the same op on a transposed input
    y = _leaf(ctorch, _values((4, 3), seed=4))
    assert gradcheck(lambda t: fn(t.t()), (y,))


GRADCHECK_3D = [
    ("prod", lambda x: x.prod(2)), ("amax", lambda x: x.amax((0, 2))),
    ("max", lambda x: x.max(1)[0]), ("median", lambda x: x.median(0)[0]),
    ("sort", lambda x: x.sort(2)[0]), ("topk", lambda x: x.topk(2, 1)[0]),
    ("var", lambda x: x.var((0, 2), keepdim=True)), ("std", lambda x: x.std(1)),
    ("norm", lambda x: x.norm(3, (1, 2))),
    ("vector_norm", lambda x: ctorch.linalg.vector_norm(x, 1, (0, 2))),
    ("logsumexp", lambda x: x.logsumexp((0, 2))), ("cumprod", lambda x: x.cumprod(2)),
    ("cummax", lambda x: x.cummax(1)[0]), ("softmax", lambda x: x.softmax(1)),
    ("log_softmax", lambda x: x.log_softmax(2)),
]


@pytest.mark.parametrize("name, fn", GRADCHECK_3D, ids=[g[0] for g in GRADCHECK_3D])
def test_gradcheck_3d(name, fn):
    x = _leaf(ctorch, _values((2, 3, 2), seed=5))
    assert gradcheck(fn, (x,))
    # a strided view: every other element of a larger tensor, permuted
    big = _leaf(ctorch, _values((2, 3, 4), seed=6))
    assert gradcheck(lambda t: fn(t[:, :, ::2].permute(0, 1, 2)), (big,))


def test_gradcheck_zero_dim_and_one_element():
    s = _leaf(ctorch, 0.7)
    for fn in (lambda t: t.prod(), lambda t: t.prod(0), lambda t: t.amax(), lambda t: t.max(),
               lambda t: t.max(0)[0], lambda t: t.sort()[0], lambda t: t.cumsum(0),
               lambda t: t.cumprod(0), lambda t: t.softmax(0), lambda t: t.log_softmax(0),
               lambda t: t.logsumexp(0), lambda t: t.norm(), lambda t: t.median(),
               lambda t: t.cummax(0)[0], lambda t: t.kthvalue(1)[0]):
        assert gradcheck(fn, (s,))
    one = _leaf(ctorch, [[0.7]])
    for fn in (lambda t: t.prod(1), lambda t: t.cumprod(0), lambda t: t.var(1, correction=0),
               lambda t: t.topk(1)[0]):
        assert gradcheck(fn, (one,))


GRADGRAD = [
    ("softmax", lambda x: x.softmax(1)), ("log_softmax", lambda x: x.log_softmax(0)),
    ("logsumexp", lambda x: x.logsumexp(1)), ("var", lambda x: x.var(1)),
    ("var all", lambda x: x.var()), ("std", lambda x: x.std(0)),
    ("var_mean", lambda x: ctorch.var_mean(x, 1)), ("prod", lambda x: x.prod()),
    ("prod dim", lambda x: x.prod(1)), ("cumsum", lambda x: x.cumsum(0)),
    ("cumprod", lambda x: x.cumprod(1)), ("norm", lambda x: x.norm()),
    ("norm 3", lambda x: x.norm(3, 1)), ("norm 1.5", lambda x: x.norm(1.5)),
    ("amax", lambda x: x.amax(1)), ("max dim", lambda x: x.max(0)[0]),
    ("sort", lambda x: x.sort(1)[0]), ("cummax", lambda x: x.cummax(1)[0]),
    ("median", lambda x: x.median()), ("mean", lambda x: x.mean(1)),
]


@pytest.mark.parametrize("name, fn", GRADGRAD, ids=[g[0] for g in GRADGRAD])
def test_gradgradcheck(name, fn):
    x = _leaf(ctorch, _values((2, 3), seed=7))
    assert gradgradcheck(fn, (x,))


def test_gradgradcheck_prod_and_cumprod_with_zeros():
    one = _leaf(ctorch, [[0.5, 0.0, -1.2], [0.8, 1.1, 0.7]])
    two = _leaf(ctorch, [[0.5, 0.0, 0.0, 1.3], [0.0, 1.1, 0.7, -0.6]])
    assert gradgradcheck(lambda t: t.prod(), (one,))
    assert gradgradcheck(lambda t: t.prod(1), (one,))
    assert gradgradcheck(lambda t: t.prod(1), (two,))
    assert gradgradcheck(lambda t: t.cumprod(1), (one,))
    assert gradgradcheck(lambda t: t.cumprod(1), (two,))
    assert gradgradcheck(lambda t: t.cumprod(0), (two,))


def test_gradcheck_with_zeros():
    one = _leaf(ctorch, [[0.5, 0.0, -1.2], [0.8, 1.1, 0.7]])
    two = _leaf(ctorch, [[0.5, 0.0, 0.0, 1.3], [0.0, 1.1, 0.7, -0.6]])
    for x in (one, two):
        assert gradcheck(lambda t: t.prod(1), (x,))
        assert gradcheck(lambda t: t.prod(0, keepdim=True), (x,))
        assert gradcheck(lambda t: t.cumprod(1), (x,))
        assert gradcheck(lambda t: t.cumprod(0), (x,))
    assert gradcheck(lambda t: t.prod(), (one,))


# --- against torch ------------------------------------------------------------------

TORCH_EXPRS = [
    "x.prod()", "x.prod(1)", "x.prod(0, keepdim=True)", "x.amax(1)", "x.amin((0, 1))",
    "x.max()", "x.min()", "x.max(1)[0]", "x.min(0, True)[0]", "x.median()", "x.nanmedian()",
    "x.median(1)[0]", "x.nanmedian(0)[0]", "x.mode(1)[0]", "x.kthvalue(2, 1)[0]",
    "x.sort(1)[0]", "x.sort(0, descending=True)[0]", "x.msort()", "x.topk(2, 1)[0]",
    "x.var()", "x.var(1)", "x.var(0, unbiased=False)", "x.var(1, correction=2, keepdim=True)",
    "x.std()", "x.std(0, keepdim=True)", "torch.var_mean(x, 1)[0] + torch.var_mean(x, 1)[1]",
    "torch.std_mean(x)[0] * 2 + torch.std_mean(x)[1]",
    "x.norm()", "x.norm(1)", "x.norm(3, 1)", "x.norm(1.5, 0)", "x.norm(0.5, 1)", "x.norm(-2)",
    "x.norm(float('inf'), 1)", "x.norm(float('-inf'))", "x.norm(p='fro', dim=(0, 1))",
    "torch.linalg.vector_norm(x, 2, 1)", "torch.linalg.vector_norm(x, 3.5)",
    "torch.linalg.norm(x)", "torch.linalg.norm(x, 1.5, dim=1)", "torch.linalg.norm(x[0], -1)",
    "torch.linalg.norm(x[:, 1], float('inf'))",
    "x.logsumexp(1)", "x.logsumexp((0, 1), keepdim=True)", "x.cumsum(1)", "x.cumsum(0)",
    "x.cumprod(1)", "x.cumprod(0)", "x.cummax(1)[0]", "x.cummin(0)[0]", "x.softmax(1)",
    "x.softmax(0)", "x.log_softmax(1)", "x.log_softmax(0)",
    "x.t().softmax(1)", "x.t().cumprod(0)", "x[:, ::2].var(0)", "x.t().norm(3, 0)",
    "x.sum(dim=None, keepdim=True)", "x.mean(()) * x.sum(dim=[])", "x.var(None, keepdim=True)",
    "x.norm(dim=None, keepdim=True)", "x.amax((), True)", "x.max(-1, True)[0]",
    "x.median(-1, True)[0]", "x.kthvalue(2, -1, True)[0]", "x.softmax(-2)",
    "x.norm(p='fro', dim=(-1, 0), keepdim=True)", "x[0].norm(p='fro')",
]


def _grads(m, expr, data, dtype, create_graph=False, seed=0):
    """x's gradient of expr at data for an upstream gradient of random
    values (and the gradient of sum(w * that gradient) with create_graph)."""
    x = _leaf(m, data, dtype)
    out = _first(eval(expr, {"x": x, "torch": m}))
    rng = random.Random(seed)
    w = m.tensor([rng.uniform(-1, 1) for _ in range(out.numel())],
                 dtype=out.dtype).reshape(out.shape)
    if not create_graph:
        out.backward(w)
        return [x.grad.tolist(), repr(x.grad.dtype)]
    (g,) = m.autograd.grad(out, x, w, create_graph=True)
    if not g.requires_grad:
        return [g.tolist(), None]       # a constant (prod with several zeros)
    v = m.tensor([rng.uniform(-1, 1) for _ in range(g.numel())], dtype=g.dtype).reshape(g.shape)
    (g * v).sum().backward()
    return [g.tolist(), x.grad.tolist()]


def _close(a, b, tol):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for p, q in zip(a, b):
            _close(p, q, tol)
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b)
    elif isinstance(a, str):
        assert a == b
    else:
        assert a == pytest.approx(b, rel=tol, abs=tol)


@pytest.mark.parametrize("expr", TORCH_EXPRS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_vs_torch(torch_ref, expr, dtype):
    data = _values((3, 4), seed=hash(expr) % 1000)
    tol = 1e-5 if dtype == "float32" else 1e-11
    _close(_grads(ctorch, expr, data, dtype), _grads(torch_ref, expr, data, dtype), tol)


DOUBLE_EXPRS = [
    "x.softmax(1)", "x.log_softmax(0)", "x.logsumexp(1)", "x.var(1)", "x.std()",
    "x.prod()", "x.prod(1)", "x.cumprod(1)", "x.norm(3, 1)", "x.norm()",
    "x.amax(0) * x.amax(0)", "x.sort(1)[0] ** 2", "torch.var_mean(x, 0)[0]",
]


@pytest.mark.parametrize("expr", DOUBLE_EXPRS)
def test_double_backward_vs_torch(torch_ref, expr):
    data = _values((3, 4), seed=11)
    c = _grads(ctorch, expr, data, "float64", create_graph=True)
    t = _grads(torch_ref, expr, data, "float64", create_graph=True)
    _close(c, t, 1e-10)


TIES = [
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.amax(1)"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.amin(0)"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.amax()"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.max()"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.min()"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.max(1)[0]"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.min(0)[0]"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.median()"),
    ([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], "x.nanmedian()"),
    ([[1.0, 2.0, 2.0, 1.0], [3.0, 3.0, 1.0, 3.0]], "x.median(1)[0]"),
    ([[1.0, 2.0, 2.0, 1.0], [3.0, 3.0, 1.0, 3.0]], "x.mode(1)[0]"),
    ([[1.0, 2.0, 2.0, 1.0], [3.0, 3.0, 1.0, 3.0]], "x.sort(1)[0]"),
    ([[1.0, 2.0, 2.0, 1.0], [3.0, 3.0, 1.0, 3.0]], "x.sort(1, descending=True)[0]"),
    ([[1.0, 2.0, 1.0, 2.0], [3.0, 3.0, 1.0, 3.0]], "x.cummax(1)[0]"),
    ([[1.0, 2.0, 1.0, 2.0], [3.0, 3.0, 1.0, 3.0]], "x.cummin(1)[0]"),
    ([[1.0, -2.0, 2.0], [3.0, -3.0, 1.0]], "x.norm(float('inf'), 1)"),
    ([[1.0, -2.0, 2.0], [-1.0, -3.0, 1.0]], "torch.linalg.vector_norm(x, float('-inf'))"),
    ([[1.0, float("nan"), 2.0], [3.0, 3.0, float("nan")]], "x.max()"),
    ([[1.0, float("nan"), 2.0], [3.0, 3.0, float("nan")]], "x.median()"),
    ([[1.0, float("nan"), 2.0], [3.0, 3.0, 1.0]], "x.nanmedian()"),
    ([[1.0, float("nan"), 2.0], [3.0, 3.0, 1.0]], "x.amax(1)"),
]


@pytest.mark.parametrize("data, expr", TIES)
def test_ties_vs_torch(torch_ref, data, expr):
    for dtype in ("float32", "float64"):
        _close(_grads(ctorch, expr, data, dtype), _grads(torch_ref, expr, data, dtype), 1e-6)


def test_ties_recorded():
    x = _leaf(ctorch, [[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]])
    x.amax(1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]
    x.grad = None
    x.max().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
    x.grad = None
    x.max(1)[0].sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


ZEROS = [
    [[0.5, 1.5, -2.0], [0.25, 3.0, 1.0]],
    [[0.5, 0.0, -2.0], [0.25, 3.0, 1.0]],
    [[0.5, 0.0, -2.0], [0.0, 3.0, 1.0]],
    [[0.0, 0.0, -2.0], [0.25, 3.0, 0.0]],
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
]


@pytest.mark.parametrize("expr", ["x.prod()", "x.prod(1)", "x.prod(0)", "x.prod(1, keepdim=True)",
                                  "x.cumprod(1)", "x.cumprod(0)", "x.t().cumprod(1)"])
@pytest.mark.parametrize("k", range(len(ZEROS)))
def test_zeros_vs_torch(torch_ref, expr, k):
    data = ZEROS[k]
    for dtype in ("float32", "float64"):
        tol = 1e-6 if dtype == "float32" else 1e-12
        _close(_grads(ctorch, expr, data, dtype), _grads(torch_ref, expr, data, dtype), tol)
    _close(_grads(ctorch, expr, data, "float64", True),
           _grads(torch_ref, expr, data, "float64", True), 1e-12)


def test_prod_zeros_recorded():
    x = _leaf(ctorch, [2.0, 0.0, 3.0])
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]
    y = _leaf(ctorch, [2.0, 0.0, 0.0])
    y.prod().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0]
    z = _leaf(ctorch, [2.0, 0.0, 3.0, 4.0])
    z.cumprod(0).sum().backward()
    # d/dx0 = 1 + 0 + ...; d/dx1 = 2 + 2*3 + 2*3*4; later ones see the zero
    assert z.grad.tolist() == [1.0, 32.0, 0.0, 0.0]


NORM_PS = [2, 1, 3, 1.5, 0.5, -1, INF, -INF, 0]


@pytest.mark.parametrize("p", NORM_PS)
@pytest.mark.parametrize("fn", ["norm", "vector_norm", "linalg.norm"])
def test_zero_vector_norm_vs_torch(torch_ref, p, fn):
    res = []
    for m in (ctorch, torch_ref):
        x = m.zeros(2, 3, dtype=m.float64, requires_grad=True)
        if fn == "norm":
            out = x.norm(p, 1)
        elif fn == "vector_norm":
            out = m.linalg.vector_norm(x, p, 1)
        else:
            out = m.linalg.norm(x, p, dim=1)
        out.sum().backward()
        res.append(None if x.grad is None else x.grad.tolist())
    assert res[0] == res[1]


def test_zero_vector_norm_recorded():
    x = ctorch.zeros(3, dtype=ctorch.float64, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    y = ctorch.tensor([1.0, 0.0, 2.0], dtype=ctorch.float64, requires_grad=True)
    y.norm(0).backward()
    assert y.grad is None          # p = 0 has no gradient, as in torch


DTYPE_EXPRS = [
    "x.sum(dtype=torch.float64)", "x.sum(1, dtype=torch.float64)",
    "x.mean(dtype=torch.float64)", "x.mean(0, dtype=torch.float64)",
    "x.prod(dtype=torch.float64)", "x.prod(1, dtype=torch.float64)",
    "x.cumsum(1, dtype=torch.float64)", "x.cumprod(0, dtype=torch.float64)",
    "x.softmax(1, dtype=torch.float64)", "x.log_softmax(0, dtype=torch.float64)",
    "torch.norm(x, 3, 1, dtype=torch.float64)",
    "torch.linalg.vector_norm(x, 1, dtype=torch.float64)",
]


@pytest.mark.parametrize("expr", DTYPE_EXPRS)
def test_dtype_argument_vs_torch(torch_ref, expr):
    data = _values((3, 4), seed=13)
    c = _grads(ctorch, expr, data, "float32")
    t = _grads(torch_ref, expr, data, "float32")
    assert c[1] == t[1] == "torch.float32"
    _close(c, t, 1e-6)


def test_var_mean_one_output_used():
    x = _leaf(ctorch, _values((3, 4), seed=14))
    v, m = ctorch.var_mean(x, 1)
    m.sum().backward()
    _close(x.grad.tolist(), [[0.25] * 4] * 3, 1e-15)
    x.grad = None
    v, m = ctorch.std_mean(x)
    (v * 0).backward()
    assert x.grad.tolist() == [[0.0] * 4] * 3


OUT_EXPRS = [
    "torch.sum(x, 0, out=o)", "torch.mean(x, 0, out=o)", "torch.prod(x, 0, out=o)",
    "torch.var(x, 0, out=o)", "torch.std(x, 0, out=o)", "torch.norm(x, 2, 0, out=o)",
    "torch.amax(x, 0, out=o)", "torch.logsumexp(x, 0, out=o)", "torch.cumsum(x, 0, out=o)",
    "torch.cumprod(x, 0, out=o)", "torch.linalg.vector_norm(x, out=o)",
    "torch.sort(x, out=(o, i))", "torch.topk(x, 2, out=(o, i))",
    "torch.kthvalue(x, 2, out=(o, i))",
]


def _out_error(m, expr):
    x = _leaf(m, _values((3, 4), seed=15))
    o = m.empty(0, dtype=m.float64)
    i = m.empty(0, dtype=m.int64)
    try:
        eval(expr, {"x": x, "o": o, "i": i, "torch": m})
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("expr", OUT_EXPRS)
def test_out_refused_with_grad(expr):
    name = expr.split("(")[0].split(".")[-1]
    name = "linalg_vector_norm" if name == "vector_norm" else name
    assert _out_error(ctorch, expr) == (
        name + "(): functions with out=... arguments don't support automatic "
        "differentiation, but one of the arguments requires grad.")
    with ctorch.no_grad():
        assert _out_error(ctorch, expr) is None


@pytest.mark.parametrize("expr", OUT_EXPRS)
def test_out_refused_with_grad_vs_torch(torch_ref, expr):
    assert _out_error(ctorch, expr) == _out_error(torch_ref, expr)


def test_saved_tensor_modified_in_place():
    x = _leaf(ctorch, _values((3, 4), seed=16))
    y = x * 1
    s = y.softmax(1)
    s.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()
    # cumsum keeps nothing: its input may change afterwards
    z = x * 1
    c = z.cumsum(1)
    z.add_(1)
    c.sum().backward()
    assert x.grad.tolist() == [[4.0, 3.0, 2.0, 1.0]] * 3


def test_graph_is_freed():
    x = _leaf(ctorch, _values((3, 4), seed=17))
    for out in (x.prod(1), x.var(0), x.norm(3), x.sort(1)[0], x.cumprod(0), x.softmax(1)):
        out.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            out.sum().backward()


def test_no_tensor_leaks():
    import gc
    data = _values((3, 4), seed=18)
    zeros = [[0.5, 0.0, -2.0, 1.0], [0.0, 3.0, 0.0, 1.0], [1.0, 2.0, 3.0, 4.0]]
    exprs = [e for e in TORCH_EXPRS] + ["x.norm(0)", "x.norm(p='fro', dim=(0, 1))"]

    def step():
        for e in exprs:
            x = _leaf(ctorch, data)
            _first(eval(e, {"x": x, "torch": ctorch})).sum().backward()
        for e in ("x.prod()", "x.prod(1)", "x.cumprod(1)", "x.cumprod(0)", "x.var(1)",
                  "x.softmax(1)", "x.sort(1)[0]", "x.norm(3)"):
            for d in (data, zeros):
                x = _leaf(ctorch, d)
                out = _first(eval(e, {"x": x, "torch": ctorch}))
                (g,) = ctorch.autograd.grad(out.sum(), x, create_graph=True)
                if g.requires_grad:
                    (g * g).sum().backward()
        x = _leaf(ctorch, data)
        y = x * 1
        s = y.softmax(1)
        s.mul_(2)
        with pytest.raises(RuntimeError):
            s.sum().backward()
    step()
    gc.collect()
    before = ctorch._C._live_counts()
    for _ in range(3):
        step()
    gc.collect()
    after = ctorch._C._live_counts()
    assert after[0] <= before[0] and after[1] <= before[1]
