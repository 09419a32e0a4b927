"""Autograd of the indexing ops (csrc/autograd/functions_index.c): grad_fn
names as PyTorch 1.13 records them, gradcheck / gradgradcheck in float64
(repeated indices for the accumulating ops), gradients against PyTorch in
float32 and float64, the graphs a create_graph backward records, the
in-place forms (leaf error, history rebased on non-leaves and on views),
nonzero / argwhere staying out of the graph, and the errors."""
import gc
import re

import pytest

import ctorch
from ctorch.autograd import gradcheck, gradgradcheck

X = [[0.3, -1.2, 2.0, 0.7], [1.1, -0.4, 0.9, -2.2], [0.5, 1.7, -0.8, 0.1]]
S = [[1.3, -0.2, 0.4, 0.6], [0.1, -1.4, 0.3, -0.2], [1.5, 0.7, -0.3, 0.9]]
MASK = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]


def env(m, dtype="float64"):
    """The names the expressions below use, made by module m: x (3, 4) and
    s (3, 4) and v, z (0-dim) require grad; the rest are indices and masks."""
    dt = getattr(m, dtype)
    return {
        "torch": m,
        "x": m.tensor(X, dtype=dt, requires_grad=True),
        "s": m.tensor(S, dtype=dt, requires_grad=True),
        "v": m.tensor(2.0, dtype=dt, requires_grad=True),
        "z": m.tensor(1.5, dtype=dt, requires_grad=True),
        "i": m.tensor([0, 2, 2]),                           # a repeat
        "u": m.tensor([2, 0, 1]),                           # a permutation
        "gi": m.tensor([[0, 1, 2, 0], [2, 2, 1, 0]]),       # repeats in a column
        "gu": m.tensor([[0, 1, 2, 0], [2, 0, 1, 1]]),       # distinct per column
        "pu": m.tensor([[0, 5], [11, -2]]),                 # distinct flat positions
        "m": m.tensor(MASK),
        "mr": m.tensor([True, False, True, True]),          # broadcast over rows
    }


# (expression, grad_fn name).  Ops that write with repeated indices only
# where they accumulate: a plain write to a repeated position keeps one of
# the values, which finite differences cannot follow (PyTorch neither).
OPS = [
    # readers
    ("x.index_select(0, i)", "IndexSelectBackward0"),
    ("torch.index_select(x, 1, i)", "IndexSelectBackward0"),
    ("x.index_select(1, i.int())", "IndexSelectBackward0"),
    ("x.index_select(0, torch.tensor(1))", "IndexSelectBackward0"),
    ("x.gather(0, gi)", "GatherBackward0"),
    ("torch.gather(x, 1, gi[:, :3])", "GatherBackward0"),
    ("x.gather(1, gi.t()[:3], sparse_grad=False)", "GatherBackward0"),
    ("x.take(gi)", "TakeBackward0"),
    ("torch.take(x.t(), torch.tensor([-1, 0, 0, 7]))", "TakeBackward0"),
    ("z.take(torch.tensor([0, 0, -1]))", "TakeBackward0"),
    ("x.masked_select(m)", "MaskedSelectBackward0"),
    ("torch.masked_select(x, mr)", "MaskedSelectBackward0"),
    ("x[0].masked_select(m)", "MaskedSelectBackward0"),
    ("x[i]", "IndexBackward0"),
    ("x[:, i]", "IndexBackward0"),
    ("x[gi, 1]", "IndexBackward0"),
    ("x[m]", "IndexBackward0"),
    ("x.t()[i, u]", "IndexBackward0"),
    # writers, out of place
    ("x.scatter(0, gu, s[:2])", "ScatterBackward0"),
    ("torch.scatter(x, 1, gu.t()[:3, :2], s[:, :2])", "ScatterBackward0"),
    ("x.scatter(0, gi, 1.5)", "ScatterBackward1"),
    ("x.scatter_add(0, gi, s[:2])", "ScatterAddBackward0"),
    ("torch.scatter_add(x, 1, gi.t()[:3, :2], s[:, 1:3])", "ScatterAddBackward0"),
    ("x.index_add(0, i, s)", "IndexAddBackward0"),
    ("x.index_add(1, i, s[:, :3], alpha=-2)", "IndexAddBackward0"),
    ("torch.index_add(x, 0, i, s, alpha=0.5)", "IndexAddBackward0"),
    ("z.index_add(0, torch.tensor([0]), v)", "IndexAddBackward0"),
    ("x.index_copy(0, u, s)", "IndexCopyBackward0"),
    ("torch.index_copy(x, 1, u, s[:, :3])", "IndexCopyBackward0"),
    ("x.index_fill(0, i, 2.0)", "IndexFillBackward0"),
    ("x.index_fill(1, i, v)", "IndexFillBackward1"),
    ("torch.index_fill(x, 0, i, v)", "IndexFillBackward1"),
    ("x.masked_scatter(m, s)", "MaskedScatterBackward0"),
    ("x.masked_scatter(mr, s.t())", "MaskedScatterBackward0"),
    ("torch.masked_scatter(x[0], m, s)", "MaskedScatterBackward0"),
    ("z.masked_scatter(torch.tensor(True), s[0])", "MaskedScatterBackward0"),
    ("x.put(pu, s[0])", "PutBackward0"),
    ("x.put(gi, s[:2], accumulate=True)", "PutBackward0"),
    ("torch.put(x.t(), pu, s[1])", "PutBackward0"),
    ("x.index_put((i,), s, accumulate=True)", "IndexPutBackward0"),
    ("x.index_put((u[:2], i[:2]), s[0, :2])", "IndexPutBackward0"),
    ("torch.index_put(x, (m,), s.reshape(-1)[:6])", "IndexPutBackward0"),
    ("x.index_put((i,), s[:, 0:1], accumulate=True)", "IndexPutBackward0"),
    # writers, in place on a non-leaf
    ("(x * 1).scatter_(0, gu, s[:2])", "ScatterBackward0"),
    ("(x * 1).scatter_(0, gi, -1.0)", "ScatterBackward1"),
    ("(x * 1).scatter_add_(0, gi, s[:2])", "ScatterAddBackward0"),
    ("(x * 1).index_add_(0, i, s, alpha=3)", "IndexAddBackward0"),
    ("(x * 1).index_copy_(1, u, s[:, :3])", "IndexCopyBackward0"),
    ("(x * 1).index_fill_(1, i, 0.5)", "IndexFillBackward0"),
    ("(x * 1).index_fill_(0, i, v)", "IndexFillBackward1"),
    ("(x * 1).masked_scatter_(m, s)", "MaskedScatterBackward0"),
    ("(x * 1).masked_scatter_(mr, s)", "MaskedScatterBackward0"),
    ("(x * 1).put_(pu, s[2])", "PutBackward0"),
    ("(x * 1).put_(gi, s[:2], accumulate=True)", "PutBackward0"),
    ("(x * 1).index_put_((i,), s, accumulate=True)", "IndexPutBackward0"),
    # only the source requires grad
    ("torch.zeros(3, 4, dtype=s.dtype).index_add_(0, i, s)", "IndexAddBackward0"),
    ("torch.zeros(3, 4, dtype=s.dtype).scatter_(0, gu, s[1:])", "ScatterBackward0"),
]
# A src larger than the index: only its leading part is read.  PyTorch 1.13
# returns an index-shaped gradient for it and fails; the gradient here is
# padded with zeros (gradcheck only).
LARGER_SRC = [
    "torch.scatter(x, 1, gu.t()[:3, :2], s)",
    "x.scatter_add(0, gi, s)",
    "torch.zeros(3, 4, dtype=s.dtype).scatter_(0, gu, s)",
]
EXPRS = [e for e, _ in OPS]
NOT_IMPLEMENTED = [
    "x.scatter(0, gi, s[:2], reduce='add')",
    "x.scatter(0, gi, 2.0, reduce='multiply')",
    "(x * 1).scatter_(0, gi, s[:2], reduce='multiply')",
]


def run(m, expr, dtype="float64"):
    e = env(m, dtype)
    return eval(expr, e), e


def inputs_of(expr):
    """The differentiable names expr uses, in a fixed order."""
    return [n for n in ("x", "s", "v", "z") if re.search(r"\b%s\b" % n, expr)]


def as_function(expr):
    """expr as f(*inputs) for gradcheck, and the inputs."""
    names = inputs_of(expr)
    e = env(ctorch)

    def f(*args):
        return eval(expr, dict(e, **dict(zip(names, args))))
    return f, tuple(e[n] for n in names)


def flat(t):
    """t's values as one flat list (None stays None), for pytest.approx."""
    return None if t is None else t.detach().reshape(-1).tolist()


def grad_out(m, y):
    """A gradient for y with distinct values (the same in both libraries)."""
    n = y.numel()
    vals = [0.37 * k - 0.5 for k in range(n)]
    return m.tensor(vals, dtype=y.dtype).reshape(tuple(y.shape))


# --- names ---------------------------------------------------------------------

@pytest.mark.parametrize("expr, name", OPS + [(e, "NotImplemented") for e in NOT_IMPLEMENTED])
def test_grad_fn_name(expr, name):
    y, _ = run(ctorch, expr)
    assert type(y.grad_fn).__name__ == name
    assert y.grad_fn.name() == name
    assert y.requires_grad and not y.is_leaf


@pytest.mark.parametrize("expr", EXPRS + NOT_IMPLEMENTED)
def test_grad_fn_name_vs_torch(torch_ref, expr):
    yc, _ = run(ctorch, expr)
    yt, _ = run(torch_ref, expr)
    assert type(yc.grad_fn).__name__ == type(yt.grad_fn).__name__
    assert tuple(yc.shape) == tuple(yt.shape)
    assert flat(yc) == pytest.approx(flat(yt))


def test_next_functions():
    y, e = run(ctorch, "x.index_add(0, i, s)")
    (fx, _), (fs, _) = y.grad_fn.next_functions
    assert type(fx).__name__ == "AccumulateGrad" and fx.variable is e["x"]
    assert fs.variable is e["s"]
    y, e = run(ctorch, "x.index_fill(1, i, 2.0)")
    assert len(y.grad_fn.next_functions) == 1
    # index_fill with a tensor value: the value has an edge even without grad
    y, e = run(ctorch, "x.index_fill(1, i, torch.tensor(3.0))")
    assert type(y.grad_fn).__name__ == "IndexFillBackward1"
    assert y.grad_fn.next_functions[1][0] is None


# --- gradcheck -------------------------------------------------------------------

@pytest.mark.parametrize("expr", EXPRS + LARGER_SRC)
def test_gradcheck(expr):
    f, ins = as_function(expr)
    assert gradcheck(f, ins)


@pytest.mark.parametrize("expr", EXPRS + LARGER_SRC)
def test_gradgradcheck(expr):
    f, ins = as_function(expr)
    assert gradgradcheck(f, ins)


# every first gradient must have history (it depends on the incoming
# gradient, always), so a create_graph backward can go on from it.
@pytest.mark.parametrize("expr", EXPRS + LARGER_SRC)
def test_first_gradients_have_history(expr):
    f, ins = as_function(expr)
    y = f(*ins)
    go = grad_out(ctorch, y).requires_grad_(True)
    gs = ctorch.autograd.grad(y, ins, go, create_graph=True, allow_unused=True)
    for g in gs:
        assert g is None or g.requires_grad


# --- gradients against PyTorch ------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("expr", EXPRS)
def test_gradients_vs_torch(torch_ref, expr, dtype):
    names = inputs_of(expr)
    res = []
    for m in (ctorch, torch_ref):
        y, e = run(m, expr, dtype)
        y.backward(grad_out(m, y))
        res.append([flat(e[n].grad) for n in names])
    tol = 1e-5 if dtype == "float32" else 1e-12
    for gc_, gt in zip(*res):
        assert (gc_ is None) == (gt is None)
        if gc_ is not None:
            assert gc_ == pytest.approx(gt, rel=tol, abs=tol)


@pytest.mark.parametrize("expr", EXPRS)
def test_sum_backward_vs_torch(torch_ref, expr):
    """The gradient arrives expanded (stride 0) from sum()."""
    names = inputs_of(expr)
    res = []
    for m in (ctorch, torch_ref):
        y, e = run(m, expr)
        y.sum().backward()
        res.append([flat(e[n].grad) for n in names])
    for gc_, gt in zip(*res):
        assert (gc_ is None) == (gt is None)
        if gc_ is not None:
            assert gc_ == pytest.approx(gt)


# --- double backward -----------------------------------------------------------------

# The first gradients of a create_graph backward: PyTorch's formulas, so
# the nodes of the recorded graph are PyTorch's too (x, s, v).
DOUBLE = [
    ("x[i]", ["IndexPutImplBackward0", None, None]),
    ("x.index_select(0, i)", ["IndexAddBackward0", None, None]),
    ("x.gather(0, gi)", ["ScatterAddBackward0", None, None]),
    ("x.take(gi)", ["PutBackward0", None, None]),
    ("x.masked_select(m)", ["MaskedScatterBackward0", None, None]),
    ("x.scatter(0, gu, s[:2])", ["ScatterBackward1", "SliceBackwardBackward0", None]),
    ("x.scatter_add(0, gi, s[:2])", [None, "SliceBackwardBackward0", None]),
    ("x.index_add(0, i, s)", [None, "ExpandBackward0", None]),
    ("x.index_copy(0, u, s)", ["IndexFillBackward0", "ExpandBackward0", None]),
    ("x.index_fill(0, i, v)", ["IndexFillBackward0", None, "SumBackward0"]),
    ("x.masked_scatter(m, s)", ["MaskedFillBackward0", "ViewBackward0", None]),
    ("x.index_put((i[:2],), s[:2])", ["IndexPutBackward0", "SliceBackwardBackward0", None]),
    ("x.put(pu, s[0])", ["PutBackward0", "SelectBackwardBackward0", None]),
]


def first_grads(m, expr):
    y, e = run(m, expr)
    go = m.ones_like(y, requires_grad=True) if m is not ctorch else \
        ctorch.ones(*y.shape, dtype=y.dtype).requires_grad_(True)
    ins = [e["x"], e["s"], e["v"]]
    gs = m.autograd.grad(y, ins, go, create_graph=True, allow_unused=True)
    return gs, go, ins


@pytest.mark.parametrize("expr, names", DOUBLE)
def test_double_backward_graph(expr, names):
    gs, _, _ = first_grads(ctorch, expr)
    got = [None if g is None or g.grad_fn is None else type(g.grad_fn).__name__ for g in gs]
    assert got == names


@pytest.mark.parametrize("expr", [e for e, _ in DOUBLE])
def test_double_backward_graph_vs_torch(torch_ref, expr):
    names = []
    for m in (ctorch, torch_ref):
        gs, _, _ = first_grads(m, expr)
        names.append([None if g is None or g.grad_fn is None else type(g.grad_fn).__name__
                      for g in gs])
    assert names[0] == names[1]


@pytest.mark.parametrize("expr", [e for e, _ in DOUBLE])
def test_double_backward_vs_torch(torch_ref, expr):
    res = []
    for m in (ctorch, torch_ref):
        gs, go, ins = first_grads(m, expr)
        total = None
        for k, g in enumerate(gs):
            if g is not None and g.requires_grad:
                w = (g * g).sum() * (k + 1)
                total = w if total is None else total + w
        total.backward()
        res.append((flat(go.grad), [flat(t.grad) for t in ins]))
    assert res[0][0] == pytest.approx(res[1][0])
    for a, b in zip(res[0][1], res[1][1]):
        assert (a is None) == (b is None)
        if a is not None:
            assert a == pytest.approx(b)


def test_index_backward_create_graph_values():
    """t[i]'s gradient, recorded, differentiated again against the gradient
    it was made from."""
    x = ctorch.tensor([1.0, 2.0, 3.0], dtype=ctorch.float64, requires_grad=True)
    i = ctorch.tensor([0, 2, 2, 1])
    g = ctorch.tensor([1.0, 10.0, 100.0, 1000.0], dtype=ctorch.float64, requires_grad=True)
    (gx,) = ctorch.autograd.grad(x[i], x, g, create_graph=True)
    assert gx.tolist() == [1.0, 1000.0, 110.0]
    assert type(gx.grad_fn).__name__ == "IndexPutImplBackward0"
    (gx * ctorch.tensor([1.0, 2.0, 3.0], dtype=ctorch.float64)).sum().backward()
    assert g.grad.tolist() == [1.0, 3.0, 3.0, 2.0]


# --- in place ----------------------------------------------------------------------

INPLACE = [
    "x.scatter_(0, gu, s[:2])", "x.scatter_(0, gu, 1.0)", "x.scatter_add_(0, gi, s[:2])",
    "x.index_add_(0, i, s)", "x.index_copy_(0, u, s)", "x.index_fill_(0, i, 1.0)",
    "x.index_fill_(0, i, v)", "x.masked_scatter_(m, s)", "x.put_(pu, s[0])",
    "x.index_put_((i,), s, accumulate=True)",
    "x.scatter_(0, gi, s[:2], reduce='add')",
]
LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation."


@pytest.mark.parametrize("expr", INPLACE)
def test_inplace_on_leaf_raises(expr):
    e = env(ctorch)
    before = e["x"].tolist()
    with pytest.raises(RuntimeError, match=re.escape(LEAF_MSG)):
        eval(expr, e)
    assert e["x"].tolist() == before and e["x"]._version == 0


@pytest.mark.parametrize("expr", INPLACE)
def test_inplace_on_leaf_raises_vs_torch(torch_ref, expr):
    msgs = []
    for m in (ctorch, torch_ref):
        with pytest.raises(RuntimeError) as info:
            eval(expr, env(m))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1] == LEAF_MSG


@pytest.mark.parametrize("expr", INPLACE)
def test_inplace_on_leaf_under_no_grad(expr):
    e = env(ctorch)
    with ctorch.no_grad():
        r = eval(expr, e)
    assert r is e["x"] and e["x"].grad_fn is None and e["x"]._version == 1


@pytest.mark.parametrize("expr", INPLACE)
def test_inplace_rebases_history(expr):
    """On a non-leaf: the same tensor comes back, one version later, with
    the op's node as its history, whose edge leads to the old history."""
    e = env(ctorch)
    e["x"] = e["x"] * 2
    y = e["x"]
    r = eval(expr, e)
    assert r is y and y._version == 1
    name = dict(OPS).get(re.sub(r"^x\.", "(x * 1).", expr))
    if "reduce" in expr:
        name = "NotImplemented"
    if name is not None:
        assert type(y.grad_fn).__name__ == name
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"


@pytest.mark.parametrize("expr", [e for e in INPLACE if "reduce" not in e])
def test_inplace_on_view_vs_torch(torch_ref, expr):
    """In place on a view of a non-leaf: the base's history is rebased
    (CopySlices), gradients flow to the base's inputs."""
    res = []
    for m in (ctorch, torch_ref):
        e = env(m)
        base = m.cat([e["x"] * 1, e["x"] * 2])      # (6, 4)
        e2 = dict(e, x=base[1:4])
        eval(expr, e2)
        out = base * m.arange(24, dtype=base.dtype).reshape(6, 4)
        out.sum().backward()
        res.append([flat(e[n].grad) for n in ("x", "s", "v")])
    assert res[0] == res[1]


def test_inplace_bumps_version_once():
    e = env(ctorch)
    y = e["x"] * 1
    for k, expr in enumerate(["y.index_add_(0, i, s)", "y.index_fill_(1, i, 0.0)",
                              "y.scatter_(0, gu, s[:2])", "y.masked_scatter_(m, s)",
                              "y.put_(pu, s[0])", "y.index_copy_(0, u, s)",
                              "y.scatter_add_(0, gi, s[:2])",
                              "y.index_put_((i,), s, accumulate=True)"]):
        eval(expr, dict(e, y=y))
        assert y._version == k + 1


def test_inplace_then_saved_self_is_stale():
    """A node that saved y sees the in-place write (version check)."""
    e = env(ctorch)
    y = e["x"] * 1
    w = y * y                                       # saves y
    y.index_fill_(0, e["i"], 0.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()


def test_inplace_source_only_requires_grad():
    e = env(ctorch)
    t = ctorch.zeros(3, 4, dtype=ctorch.float64)
    t.index_add_(0, e["i"], e["s"])
    assert not t.is_leaf and t.requires_grad
    assert t.grad_fn.next_functions[0][0] is None
    t.sum().backward()
    assert e["s"].grad.tolist() == [[1.0] * 4] * 3


# --- not differentiable ----------------------------------------------------------------

def test_nonzero_argwhere_not_differentiable():
    x = ctorch.tensor([[0.0, 1.5], [-2.0, 0.0]], requires_grad=True)
    for r in (x.nonzero(), ctorch.nonzero(x), x.argwhere(), ctorch.argwhere(x),
              *ctorch.nonzero(x, as_tuple=True), *x.nonzero(as_tuple=True)):
        assert r.dtype == ctorch.int64
        assert not r.requires_grad and r.grad_fn is None and r.is_leaf
    # ... but indexing with them is
    y = x[x.nonzero(as_tuple=True)]
    assert type(y.grad_fn).__name__ == "IndexBackward0"
    (y * ctorch.tensor([2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [3.0, 0.0]]


def test_nonzero_vs_torch(torch_ref):
    for m in (ctorch, torch_ref):
        x = m.tensor(X, requires_grad=True)
        assert not m.nonzero(x).requires_grad and not m.argwhere(x).requires_grad


def test_integer_inputs_record_nothing():
    t = ctorch.tensor([[1, 2], [3, 4]])
    i = ctorch.tensor([1, 0])
    for r in (t.index_select(0, i), t.gather(1, ctorch.tensor([[0], [1]])), t.take(i),
              t.index_add(0, i, t), t.scatter(0, ctorch.tensor([[1, 0]]), 7),
              t.masked_scatter(t > 1, t), t.put(i, ctorch.tensor([5, 6]))):
        assert r.grad_fn is None and not r.requires_grad


def test_no_grad_records_nothing():
    e = env(ctorch)
    with ctorch.no_grad():
        for expr in EXPRS:
            assert eval(expr, e).grad_fn is None


# --- errors ------------------------------------------------------------------------

@pytest.mark.parametrize("expr", NOT_IMPLEMENTED)
def test_scatter_reduce_backward_not_implemented(expr):
    y, _ = run(ctorch, expr)
    op = "scatter_" if ".scatter_(" in expr else "scatter"
    with pytest.raises(RuntimeError, match="derivative for aten::%s is not implemented" % op):
        y.sum().backward()


@pytest.mark.parametrize("expr", NOT_IMPLEMENTED)
def test_scatter_reduce_backward_vs_torch(torch_ref, expr):
    msgs = []
    for m in (ctorch, torch_ref):
        y, _ = run(m, expr)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


ERRORS = [
    "x.index_fill(0, i, torch.tensor([1.0]))",
    "x.masked_scatter(m, s[:1])",
    "x.masked_scatter(m, s.float())",
    "x.scatter(0, gi, s[:1])",
    "x.scatter_add(0, gi, s[:1, :2])",
    "x.scatter(0, gi, s.float())",
    "x.scatter(0, gi, 1.0, reduce='mean')",
    "x.index_add(0, i[:2], s)",
    "x.index_add(0, i, s.float())",
    "x.index_copy(0, u[:2], s)",
    "x.index_copy(0, u, s.float())",
    "x.index_copy(0, u, s[0])",
    "x.take(gi.int())",
    "x.take(torch.tensor([12]))",
    "x.put(pu, s[0, :3])",
    "x.put(pu, s[0].float())",
    "x.put(pu.int(), s[0])",
    "x.put(torch.tensor([0, -13]), s[0, :2])",
    "torch.zeros(0).put_(torch.tensor([0]), torch.tensor([1.0]))",
    "x.index_put((i,), s.float())",
    "x.index_put((i,), s[0, :3])",
    "x.index_put((None, i), s)",
    "x.gather(0, gi.int())",
    "x.index_select(0, torch.tensor([[0]]))",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_vs_torch(torch_ref, expr):
    out = []
    for m in (ctorch, torch_ref):
        try:
            eval(expr, env(m))
            out.append(None)
        except Exception as exc:        # noqa: BLE001 - the error is the result
            out.append((type(exc).__name__, str(exc)))
    assert out[0] is not None and out[0] == out[1]


def test_errors_recorded():
    e = env(ctorch)
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor"):
        e["x"].index_fill(0, e["i"], ctorch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones"):
        e["x"].masked_scatter(e["m"], e["s"][:1])
    with pytest.raises(RuntimeError, match="to be smaller size than src"):
        e["x"].scatter(0, e["gi"], e["s"][:1])
    with pytest.raises(IndexError, match="Expected source and index to have the same"):
        e["x"].put(e["pu"], e["s"][0, :3])


def test_saved_index_modified_in_place():
    res = []
    for expr in ("x.gather(0, j)", "x.index_select(0, j[0])", "x.take(j)",
                 "x.index_add(0, j[0, :3], s)"):
        e = env(ctorch)
        j = ctorch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])
        y = eval(expr, dict(e, j=j))
        j.zero_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            y.sum().backward()
        res.append(str(info.value))
    assert "torch.LongTensor [2, 4]" in res[0]


def test_saved_index_modified_vs_torch(torch_ref):
    msgs = []
    for m in (ctorch, torch_ref):
        x = m.tensor(X, dtype=m.float64, requires_grad=True)
        j = m.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])
        y = x.gather(0, j)
        j.zero_()
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("expr", ["x[i]", "x.index_select(0, i)", "x.masked_select(m)",
                                  "x.index_put((i,), s, accumulate=True)",
                                  "x.scatter_add(0, gi, s[:2])"])
def test_backward_twice(expr):
    y, _ = run(ctorch, expr)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    y, e = run(ctorch, expr)
    y.sum().backward(retain_graph=True)
    g = e["x"].grad.tolist()
    y.sum().backward()
    assert e["x"].grad.tolist() == [[2 * a for a in row] for row in g]


# --- memory ------------------------------------------------------------------------

def test_no_leaks():
    def step():
        for expr in EXPRS[::3] + ["x[i]"]:
            y, e = run(ctorch, expr)
            gs = ctorch.autograd.grad(y.sum(), [e["x"]], create_graph=True, allow_unused=True)
            if gs[0] is not None and gs[0].requires_grad:
                gs[0].sum().backward()
    step()
    gc.collect()
    before = ctorch._C._live_counts()
    for _ in range(3):
        step()
    gc.collect()
    after = ctorch._C._live_counts()
    assert after[0] <= before[0] and after[1] <= before[1]
