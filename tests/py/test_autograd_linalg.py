"""Autograd of the linear algebra family: the grad_fn names PyTorch 1.13
gives (recorded, and compared with torch where it is importable), the
graph matmul builds for every rank combination, gradcheck / gradgradcheck
in float64 on non-contiguous and broadcast inputs, and gradients against
torch in float32 and float64."""
import random

import pytest

import ctorch
from ctorch.autograd import gradcheck, gradgradcheck


def _values(shape, seed):
    rng = random.Random(seed)
    n = 1
    for d in shape:
        n *= d
    return [rng.uniform(-1.5, 1.5) for _ in range(n)]


def _make(m, shape, seed, dtype="float64", rg=True):
    t = m.tensor(_values(shape, seed), dtype=getattr(m, dtype)).reshape(*shape).clone()
    return t.requires_grad_(rg)


def _env(m, dtype="float64"):
    """The operands the expressions below use, equal in both libraries."""
    shapes = dict(s=(3, 3), m=(3, 4), n=(4, 5), v=(4,), w=(3,), u=(5,), x=(2, 3, 4),
                  b1=(2, 3, 4), b2=(2, 4, 5), c=(3, 5), bc=(2, 3, 5), y=(2, 2, 3, 4))
    env = {k: _make(m, sh, i, dtype) for i, (k, sh) in enumerate(shapes.items())}
    env["torch"] = m
    return env


def _chain(t):
    """The grad_fn name and its children's names (None for no edge)."""
    fn = t.grad_fn
    kids = tuple(None if f is None else type(f).__name__ for f, _ in fn.next_functions)
    return type(fn).__name__, kids


# expression, grad_fn name, names of its next_functions
NAMES = [
    ("torch.mm(m, n)", "MmBackward0", ("AccumulateGrad", "AccumulateGrad")),
    ("torch.bmm(b1, b2)", "BmmBackward0", ("AccumulateGrad", "AccumulateGrad")),
    ("torch.mv(m, v)", "MvBackward0", ("AccumulateGrad", "AccumulateGrad")),
    ("torch.dot(v, v)", "DotBackward0", ("AccumulateGrad", "AccumulateGrad")),
    ("torch.vdot(v, v * 2)", "VdotBackward0", ("AccumulateGrad", "MulBackward0")),
    ("torch.outer(w, v)", "MulBackward0", ("ReshapeAliasBackward0", "AccumulateGrad")),
    ("torch.ger(w, v)", "MulBackward0", ("ReshapeAliasBackward0", "AccumulateGrad")),
    ("w.outer(v.detach())", "MulBackward0", ("ReshapeAliasBackward0", None)),
    ("torch.addmm(c, m, n)", "AddmmBackward0", ("AccumulateGrad",) * 3),
    ("torch.addmv(w, m, v)", "AddmvBackward0", ("AccumulateGrad",) * 3),
    ("torch.addmv(w, m, v, beta=0)", "AddmvBackward0", ("AccumulateGrad",) * 3),
    ("torch.baddbmm(bc, b1, b2)", "BaddbmmBackward0", ("AccumulateGrad",) * 3),
    ("torch.addbmm(c, b1, b2, alpha=2)", "AddbmmBackward0", ("AccumulateGrad",) * 3),
    ("torch.addr(s, w, w)", "AddrBackward0", ("AccumulateGrad",) * 3),
    ("(c * 1).addmm_(m, n)", "AddmmBackward0", ("MulBackward0", "AccumulateGrad",
                                                "AccumulateGrad")),
    ("(w * 1).addmv_(m, v)", "AddmvBackward0", ("MulBackward0", "AccumulateGrad",
                                                "AccumulateGrad")),
    ("(s * 1).addr_(w, w)", "AddrBackward0", ("MulBackward0", "AccumulateGrad",
                                             "AccumulateGrad")),
    ("(bc * 1).baddbmm_(b1, b2)", "BaddbmmBackward0", ("MulBackward0", "AccumulateGrad",
                                                      "AccumulateGrad")),
    ("(c * 1).addbmm_(b1, b2)", "AddbmmBackward0", ("MulBackward0", "AccumulateGrad",
                                                   "AccumulateGrad")),
    ("torch.tril(s)", "TrilBackward0", ("AccumulateGrad",)),
    ("torch.triu(s, 1)", "TriuBackward0", ("AccumulateGrad",)),
    ("s.tril(-1)", "TrilBackward0", ("AccumulateGrad",)),
    ("(s * 1).tril_()", "TrilBackward0", ("MulBackward0",)),
    ("(s * 1).triu_(1)", "TriuBackward0", ("MulBackward0",)),
    ("torch.tril(x)", "TrilBackward0", ("AccumulateGrad",)),
    ("torch.diag(s)", "DiagBackward0", ("AccumulateGrad",)),
    ("torch.diag(w, 1)", "DiagBackward0", ("AccumulateGrad",)),
    ("m.diag(-1)", "DiagBackward0", ("AccumulateGrad",)),
    ("torch.trace(m)", "TraceBackward0", ("AccumulateGrad",)),
    ("torch.diagonal(s)", "DiagonalBackward0", ("AccumulateGrad",)),
    # matmul, every rank combination (Note [matmul graph])
    ("torch.matmul(v, v)", "DotBackward0", ("AccumulateGrad", "AccumulateGrad")),
    ("torch.matmul(m, v)", "MvBackward0", ("AccumulateGrad", "AccumulateGrad")),
    ("torch.matmul(v, n)", "SqueezeBackward3", ("MmBackward0",)),
    ("torch.matmul(m, n)", "MmBackward0", ("AccumulateGrad", "AccumulateGrad")),
    ("x @ v", "UnsafeViewBackward0", ("MvBackward0",)),
    ("w @ x", "UnsafeViewBackward0", ("MvBackward0",)),
    ("x @ n", "UnsafeViewBackward0", ("MmBackward0",)),
    ("y @ n", "UnsafeViewBackward0", ("MmBackward0",)),
    ("u @ b2.transpose(1, 2)", "UnsafeViewBackward0", ("MvBackward0",)),
    ("m @ b2", "CloneBackward0", ("TransposeBackward0",)),
    ("n.t() @ x.transpose(1, 2)", "UnsafeViewBackward0", ("BmmBackward0",)),
    ("x.transpose(0, 1) @ n", "UnsafeViewBackward0", ("MmBackward0",)),
    ("b1 @ b2", "UnsafeViewBackward0", ("BmmBackward0",)),
    ("x @ b2", "UnsafeViewBackward0", ("BmmBackward0",)),
    ("y @ b2", "UnsafeViewBackward0", ("BmmBackward0",)),
    ("x.unsqueeze(0) @ b2", "UnsafeViewBackward0", ("BmmBackward0",)),
    ("m @ n.detach()", "MmBackward0", ("AccumulateGrad", None)),
]


def _name_of(m, expr):
    return _chain(eval(expr, _env(m)))


@pytest.mark.parametrize("expr, name, kids", NAMES, ids=[n[0] for n in NAMES])
def test_grad_fn_names(expr, name, kids):
    assert _name_of(ctorch, expr) == (name, kids)


@pytest.mark.parametrize("expr, name, kids", NAMES, ids=[n[0] for n in NAMES])
def test_grad_fn_names_vs_torch(torch_ref, expr, name, kids):
    assert _name_of(ctorch, expr) == _name_of(torch_ref, expr)


def _deep_chain(t, depth=6):
    out, fn = [], t.grad_fn
    while fn is not None and depth > 0:
        out.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions
               if f is not None and type(f).__name__ != "AccumulateGrad"]
        fn = nxt[0] if nxt else None
        depth -= 1
    return out


MATMUL_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
                 ((2, 3, 4), (4,)), ((4,), (2, 4, 5)), ((2, 3, 4), (4, 5)),
                 ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                 ((1, 3, 4), (2, 2, 4, 5)), ((3, 4), (2, 2, 4, 5)), ((2, 2, 3, 4), (4,))]


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_graph_vs_torch(torch_ref, sa, sb):
    res = []
    for m in (ctorch, torch_ref):
        a, b = _make(m, sa, 1), _make(m, sb, 2)
        r = m.matmul(a, b)
        (r * r).sum().backward()
        res.append((_deep_chain(r), tuple(r.shape), r._base is None, r.is_contiguous(),
                    a.grad.tolist(), b.grad.tolist()))
    assert res[0][:4] == res[1][:4]
    for k in (4, 5):
        assert ctorch.tensor(res[0][k]).allclose(ctorch.tensor(res[1][k]), rtol=1e-12,
                                                 atol=1e-12)


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_gradcheck(sa, sb):
    a, b = _make(ctorch, sa, 3), _make(ctorch, sb, 4)
    assert gradcheck(lambda p, q: p @ q, (a, b))


@pytest.mark.parametrize("sa, sb", [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)),
                                    ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)),
                                    ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)),
                                    ((2, 3, 4), (4,))])
def test_matmul_gradgradcheck(sa, sb):
    a, b = _make(ctorch, sa, 5), _make(ctorch, sb, 6)
    assert gradgradcheck(lambda p, q: (p @ q) ** 2, (a, b))


def test_matmul_folds_transposed_batches():
    # [b, n, m] with its last two dims transposed goes through bmm (no fold)
    p = _make(ctorch, (2, 4, 3), 7).detach().transpose(1, 2).requires_grad_()
    n = _make(ctorch, (4, 5), 8)
    assert _deep_chain(p @ n)[:2] == ["UnsafeViewBackward0", "BmmBackward0"]
    q = _make(ctorch, (3, 2, 4), 9).detach().transpose(0, 1).requires_grad_()
    assert _deep_chain(q @ n)[:2] == ["UnsafeViewBackward0", "MmBackward0"]
    pc, qc = p.detach().transpose(1, 2).contiguous(), q.detach().transpose(0, 1).contiguous()
    assert gradcheck(lambda s, t: s.transpose(1, 2) @ t, (pc.requires_grad_(), n))
    assert gradcheck(lambda s, t: s.transpose(0, 1) @ t, (qc.requires_grad_(), n))


def test_matmul_version_and_views():
    v, n = _make(ctorch, (4,), 1), _make(ctorch, (4, 5), 2)
    r = v @ n               # mm(...).squeeze_(0): in place, not a view
    assert r._version == 1 and r._base is None and r.shape == (5,)
    x = _make(ctorch, (2, 3, 4), 3)
    assert (x @ n)._base is None and (x @ v)._base is None


# --- gradcheck ---------------------------------------------------------------------

def _inp(*shapes, seed=0, t=False):
    """float64 leaves; with t the function gets them transposed (the leaves are
    made with the last two dims swapped), i.e. non-contiguous."""
    out = []
    for i, s in enumerate(shapes):
        if t and len(s) >= 2:
            s = s[:-2] + (s[-1], s[-2])
        out.append(_make(ctorch, s, seed + i))
    return out


def _T(p):
    return p.transpose(-2, -1) if p.dim() >= 2 else p


PRODUCTS = [
    ("mm", lambda a, b: a.mm(b), [(3, 4), (4, 2)]),
    ("bmm", lambda a, b: a.bmm(b), [(2, 3, 4), (2, 4, 2)]),
    ("mv", lambda a, b: a.mv(b), [(3, 4), (4,)]),
    ("dot", lambda a, b: a.dot(b), [(4,), (4,)]),
    ("vdot", lambda a, b: ctorch.vdot(a, b), [(4,), (4,)]),
    ("outer", lambda a, b: ctorch.outer(a, b), [(3,), (4,)]),
    ("ger", lambda a, b: a.ger(b), [(3,), (4,)]),
    ("addmm", lambda s, a, b: ctorch.addmm(s, a, b, beta=0.5, alpha=2), [(3, 2), (3, 4), (4, 2)]),
    ("addmm bcast", lambda s, a, b: ctorch.addmm(s, a, b, alpha=-1), [(2,), (3, 4), (4, 2)]),
    ("addmv", lambda s, a, b: ctorch.addmv(s, a, b, beta=2, alpha=0.5), [(3,), (3, 4), (4,)]),
    ("addmv bcast", lambda s, a, b: ctorch.addmv(s, a, b), [(1,), (3, 4), (4,)]),
    ("baddbmm", lambda s, a, b: ctorch.baddbmm(s, a, b, beta=0.5, alpha=3),
     [(2, 3, 2), (2, 3, 4), (2, 4, 2)]),
    ("baddbmm bcast", lambda s, a, b: ctorch.baddbmm(s, a, b), [(3, 1), (2, 3, 4), (2, 4, 2)]),
    ("addbmm", lambda s, a, b: ctorch.addbmm(s, a, b, beta=-1, alpha=2),
     [(3, 2), (2, 3, 4), (2, 4, 2)]),
    ("addbmm bcast", lambda s, a, b: ctorch.addbmm(s, a, b), [(2,), (2, 3, 4), (2, 4, 2)]),
    ("addr", lambda s, a, b: ctorch.addr(s, a, b, beta=2, alpha=0.5), [(3, 4), (3,), (4,)]),
    ("addr bcast", lambda s, a, b: ctorch.addr(s, a, b), [(1, 4), (3,), (4,)]),
    ("addr beta 0", lambda s, a, b: ctorch.addr(s, a, b, beta=0), [(3, 4), (3,), (4,)]),
]


@pytest.mark.parametrize("name, fn, shapes", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_gradcheck_products(name, fn, shapes):
    assert gradcheck(fn, tuple(_inp(*shapes)))
    # the same with non-contiguous (transposed) operands
    ins = _inp(*shapes, seed=10, t=True)
    assert gradcheck(lambda *a: fn(*[_T(p) for p in a]), tuple(ins))


@pytest.mark.parametrize("name, fn, shapes",
                         [p for p in PRODUCTS if p[0] in ("mm", "bmm", "mv", "dot", "addmm",
                                                          "baddbmm", "addbmm", "addr",
                                                          "addmv", "outer")],
                         ids=lambda p: p if isinstance(p, str) else "")
def test_gradgradcheck_products(name, fn, shapes):
    assert gradgradcheck(lambda *a: fn(*a).sin(), tuple(_inp(*shapes, seed=20)))


def test_gradcheck_inplace_products():
    s, a, b = _inp((3, 2), (3, 4), (4, 2), seed=30)
    assert gradcheck(lambda p, q, r: (p * 1).addmm_(q, r, beta=0.5, alpha=2), (s, a, b))
    s, a, b = _inp((2, 3, 2), (2, 3, 4), (2, 4, 2), seed=31)
    assert gradcheck(lambda p, q, r: (p * 1).baddbmm_(q, r, alpha=-1), (s, a, b))
    s, a, b = _inp((3,), (3, 4), (4,), seed=32)
    assert gradcheck(lambda p, q, r: (p * 1).addmv_(q, r, beta=3), (s, a, b))
    s, a, b = _inp((3, 4), (3,), (4,), seed=33)
    assert gradcheck(lambda p, q, r: (p * 1).addr_(q, r, alpha=2), (s, a, b))
    s, a, b = _inp((3, 2), (2, 3, 4), (2, 4, 2), seed=34)
    assert gradcheck(lambda p, q, r: (p * 1).addbmm_(q, r), (s, a, b))


TRI = [
    ("tril", lambda t: t.tril(), (3, 4)), ("tril -1", lambda t: ctorch.tril(t, -1), (4, 3)),
    ("triu 1", lambda t: t.triu(1), (3, 4)), ("tril batch", lambda t: t.tril(1), (2, 3, 3)),
    ("tril_", lambda t: (t * 1).tril_(), (3, 3)), ("triu_", lambda t: (t * 1).triu_(-1), (3, 3)),
    ("diag of matrix", lambda t: t.diag(), (3, 4)), ("diag 1", lambda t: ctorch.diag(t, 1), (3, 4)),
    ("diag -2", lambda t: t.diag(-2), (4, 3)), ("diag of vector", lambda t: t.diag(), (3,)),
    ("diag of vector -1", lambda t: t.diag(-1), (3,)), ("trace", lambda t: t.trace(), (3, 4)),
    ("trace tall", lambda t: ctorch.trace(t), (4, 2)),
    ("diagonal", lambda t: t.diagonal(), (3, 4)),
    ("diagonal dims", lambda t: ctorch.diagonal(t, 1, 2, 0), (3, 4, 2)),
    ("diagonal neg", lambda t: t.diagonal(-1, -1, -2), (2, 3, 4)),
]


@pytest.mark.parametrize("name, fn, shape", TRI, ids=[p[0] for p in TRI])
def test_gradcheck_tri_diag(name, fn, shape):
    (x,) = _inp(shape, seed=40)
    assert gradcheck(fn, (x,))
    (y,) = _inp(shape, seed=41, t=True)
    assert gradcheck(lambda p: fn(_T(p)), (y,))
    assert gradgradcheck(lambda p: fn(p) * fn(p), (x,))


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(4,), (4,)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]), ("iij->ij", [(3, 3, 2)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("...i,...i", [(2, 3), (3,)]),
    ("b...,b->...", [(2, 3, 4), (2,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,kl->", [(2, 3), (3, 2)]), ("abc,cda,db->", [(2, 3, 4), (4, 2, 2), (2, 3)]),
    ("ij,ij->ij", [(1, 3), (2, 3)]), ("iji,j->i", [(2, 3, 2), (3,)]),
    ("a,a,a->a", [(3,), (3,), (3,)]), ("Ab,bC->AC", [(2, 3), (3, 2)]),
]


@pytest.mark.parametrize("eq, shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_gradcheck_einsum(eq, shapes):
    ins = tuple(_inp(*shapes, seed=50))
    assert gradcheck(lambda *a: ctorch.einsum(eq, *a), ins)
    # non-contiguous operands, and the operand-list form
    tin = tuple(_inp(*shapes, seed=51, t=True))
    assert gradcheck(lambda *a: ctorch.einsum(eq, [_T(p) for p in a]), tin)


@pytest.mark.parametrize("eq, shapes", EINSUM[:12], ids=[e[0] for e in EINSUM[:12]])
def test_gradgradcheck_einsum(eq, shapes):
    ins = tuple(_inp(*shapes, seed=52))
    assert gradgradcheck(lambda *a: ctorch.einsum(eq, *a).sin(), ins)


@pytest.mark.parametrize("eq, shapes", EINSUM, ids=[e[0] for e in EINSUM])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_einsum_gradients_vs_torch(torch_ref, eq, shapes, dtype):
    res = []
    for m in (ctorch, torch_ref):
        ins = [_make(m, s, 60 + i, dtype) for i, s in enumerate(shapes)]
        out = m.einsum(eq, *ins)
        (out * out).sum().backward()
        res.append((out.tolist(), [i.grad.tolist() for i in ins]))
    tol = 1e-5 if dtype == "float32" else 1e-12
    c, t = res
    assert ctorch.tensor(c[0]).allclose(ctorch.tensor(t[0]), rtol=tol, atol=tol)
    for gc, gt in zip(c[1], t[1]):
        assert ctorch.tensor(gc).allclose(ctorch.tensor(gt), rtol=tol, atol=tol)


def test_einsum_records_steps():
    a, b, c = _inp((2, 3), (3, 4), (4, 2), seed=70)
    r = ctorch.einsum("ij,jk,kl->il", a, b, c)
    assert type(r.grad_fn).__name__ == "EinsumBackward0"
    kids = [type(f).__name__ for f, _ in r.grad_fn.next_functions]
    assert kids == ["EinsumBackward0", "AccumulateGrad"]
    # without grad: the kernel alone, no history
    with ctorch.no_grad():
        assert ctorch.einsum("ij,jk->ik", a, b).grad_fn is None
    assert ctorch.einsum("ij,jk->ik", a.detach(), b.detach()).grad_fn is None


# --- against torch -------------------------------------------------------------

DIFF = [
    "(torch.mm(m, n) ** 2).sum()", "(torch.bmm(b1, b2).sin()).sum()",
    "(torch.mv(m, v) * w).sum()", "torch.dot(v, v.exp())", "torch.vdot(v, v * v)",
    "(torch.outer(w, v) ** 2).sum()", "(torch.ger(w, u[:4]).cos()).sum()",
    "(torch.addmm(c[0], m, n, beta=0.5, alpha=-2) ** 2).sum()",
    "(torch.addmv(w, m, v, beta=2, alpha=3) ** 2).sum()",
    "(torch.baddbmm(bc, b1, b2, beta=0.25) ** 2).sum()",
    "(torch.addbmm(c, b1, b2, alpha=0.5) ** 2).sum()",
    "(torch.addr(s, w, w, beta=3, alpha=-1) ** 2).sum()",
    "(torch.tril(s, -1) ** 2).sum() + (torch.triu(m, 1) ** 3).sum()",
    "(torch.diag(m, 1) ** 2).sum() + (torch.diag(w, -1) ** 2).sum()",
    "torch.trace(s * s) + torch.trace(m.t() @ m)",
    "(x @ n).pow(2).sum() + (w @ x).pow(2).sum() + (x @ v).pow(2).sum()",
    "(m @ b2).pow(2).sum() + (b1 @ b2).pow(2).sum() + (y @ b2).pow(2).sum()",
    "(v @ n).pow(2).sum() + (m @ v).pow(2).sum() + (v @ v) ** 2",
    "((s * 1).tril_() ** 2).sum() + ((m * 1).addmm_(s, m, alpha=2) ** 2).sum()",
]


@pytest.mark.parametrize("expr", DIFF)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_vs_torch(torch_ref, expr, dtype):
    res = []
    for m in (ctorch, torch_ref):
        env = _env(m, dtype)
        out = eval(expr, env)
        out.backward()
        grads = {k: t.grad.tolist() for k, t in env.items()
                 if isinstance(t, m.Tensor) and t.is_leaf and t.grad is not None}
        res.append((out.item(), grads))
    tol = 1e-4 if dtype == "float32" else 1e-11
    assert res[0][0] == pytest.approx(res[1][0], rel=tol, abs=tol)
    assert res[0][1].keys() == res[1][1].keys()
    for k in res[0][1]:
        c, t = ctorch.tensor(res[0][1][k]), ctorch.tensor(res[1][1][k])
        assert c.allclose(t, rtol=tol, atol=tol), k


# --- errors ------------------------------------------------------------------------

ERRORS = [
    "torch.mm(m, n, out=torch.empty(3, 5, dtype=m.dtype))",
    "torch.bmm(b1, b2, out=torch.empty(2, 3, 5, dtype=m.dtype))",
    "torch.mv(m, v, out=torch.empty(3, dtype=m.dtype))",
    "torch.dot(v, v, out=torch.empty((), dtype=m.dtype))",
    "torch.outer(w, v, out=torch.empty(3, 4, dtype=m.dtype))",
    "torch.matmul(m, n, out=torch.empty(3, 5, dtype=m.dtype))",
    "torch.addmv(w, m, v, out=torch.empty(3, dtype=m.dtype))",
    "torch.tril(s, out=torch.empty(3, 3, dtype=m.dtype))",
    "torch.diag(s, out=torch.empty(3, dtype=m.dtype))",
    "s.tril_()", "w.addmv_(m, v)", "torch.matmul(x, m)", "torch.matmul(v, m.t()[:2])",
    "torch.matmul(b1, b1)", "torch.matmul(m, s)", "torch.matmul(s, b2)",
    "torch.matmul(b2, s)", "torch.matmul(y, b1)", "torch.matmul(w, b2)",
]


def _error(m, expr):
    try:
        eval(expr, _env(m))
    except Exception as e:      # noqa: BLE001 - the error is the result
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_vs_torch(torch_ref, expr):
    c, t = _error(ctorch, expr), _error(torch_ref, expr)
    assert c is not None and c == t


def test_no_history_without_grad():
    env = _env(ctorch)
    with ctorch.no_grad():
        for expr, _, _ in NAMES:
            assert eval(expr, env).grad_fn is None, expr
    ints = ctorch.ones(3, 3, dtype=ctorch.int64)
    assert ctorch.trace(ints).grad_fn is None and ctorch.trace(ints).dtype == ctorch.int64


# --- singular values and matrix norms ----------------------------------------------

NORMS = [
    ("torch.linalg.svdvals(s)", ["LinalgSvdBackward0"]),
    ("torch.linalg.svdvals(x)", ["LinalgSvdBackward0"]),
    ("torch.linalg.matrix_norm(m)", ["LinalgVectorNormBackward0"]),
    ("torch.linalg.matrix_norm(x, 'fro', (0, 2), keepdim=True)", ["LinalgVectorNormBackward0"]),
    ("torch.linalg.matrix_norm(s, 'nuc')",
     ["SumBackward1", "LinalgSvdBackward0", "PermuteBackward0"]),
    ("torch.linalg.matrix_norm(x, 'nuc', keepdim=True)",
     ["PermuteBackward0", "UnsqueezeBackward0", "SumBackward1", "LinalgSvdBackward0",
      "PermuteBackward0"]),
    ("torch.linalg.matrix_norm(m, 2)", ["AmaxBackward0", "LinalgSvdBackward0",
                                        "PermuteBackward0"]),
    ("torch.linalg.matrix_norm(m, -2)", ["AminBackward0", "LinalgSvdBackward0",
                                         "PermuteBackward0"]),
    ("torch.linalg.matrix_norm(x, 1)", ["AmaxBackward0", "LinalgVectorNormBackward0"]),
    ("torch.linalg.matrix_norm(x, -1, (2, 0))", ["AminBackward0", "LinalgVectorNormBackward0"]),
    ("torch.linalg.matrix_norm(m, float('inf'), keepdim=True)",
     ["AmaxBackward0", "LinalgVectorNormBackward0"]),
    ("torch.linalg.matrix_norm(x.to(torch.float32), 2, dtype=torch.float64)",
     ["AmaxBackward0", "LinalgSvdBackward0", "PermuteBackward0", "ToCopyBackward0",
      "ToCopyBackward0"]),
    ("torch.linalg.norm(m)", ["LinalgVectorNormBackward0"]),
    ("torch.linalg.norm(v, 3)", ["LinalgVectorNormBackward0"]),
    ("torch.linalg.norm(m, 'nuc')", ["SumBackward1", "LinalgSvdBackward0", "PermuteBackward0"]),
    ("torch.linalg.norm(x, -2, (1, 2))", ["AminBackward0", "LinalgSvdBackward0",
                                          "PermuteBackward0"]),
    ("torch.linalg.norm(x, 1, 1)", ["LinalgVectorNormBackward0"]),
]


@pytest.mark.parametrize("expr, chain", NORMS, ids=[n[0] for n in NORMS])
def test_norm_graph(expr, chain):
    r = eval(expr, _env(ctorch))
    assert _deep_chain(r) == chain


@pytest.mark.parametrize("expr, chain", NORMS, ids=[n[0] for n in NORMS])
def test_norm_graph_and_gradients_vs_torch(torch_ref, expr, chain):
    res = []
    for m in (ctorch, torch_ref):
        env = _env(m)
        r = eval(expr, env)
        (r * r).sum().backward()
        res.append((_deep_chain(r), r.output_nr, r.tolist(),
                    {k: t.grad.tolist() for k, t in env.items()
                     if isinstance(t, m.Tensor) and t.grad is not None}))
    assert res[0][:2] == res[1][:2]
    tol = 1e-5 if "float32" in expr else 1e-10
    assert ctorch.tensor(res[0][2]).allclose(ctorch.tensor(res[1][2]), rtol=tol, atol=tol)
    assert res[0][3].keys() == res[1][3].keys()
    for k in res[0][3]:
        assert ctorch.tensor(res[0][3][k]).allclose(ctorch.tensor(res[1][3][k]), rtol=tol,
                                                    atol=tol), k


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 4)])
def test_gradcheck_svdvals(shape):
    (a,) = _inp(shape, seed=80)
    assert gradcheck(lambda t: ctorch.linalg.svdvals(t), (a,))
    assert gradgradcheck(lambda t: ctorch.linalg.svdvals(t), (a,))
    (b,) = _inp(shape, seed=81, t=True)
    assert gradcheck(lambda t: ctorch.linalg.svdvals(_T(t)), (b,))


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 3, 4)])
def test_gradcheck_matrix_norm(ord, shape):
    (a,) = _inp(shape, seed=82)
    assert gradcheck(lambda t: ctorch.linalg.matrix_norm(t, ord), (a,))
    assert gradcheck(lambda t: ctorch.linalg.matrix_norm(_T(t), ord, keepdim=True), (a,))
    if ord in ("fro", "nuc", 2):
        assert gradgradcheck(lambda t: ctorch.linalg.matrix_norm(t, ord), (a,))


def test_norm_errors_and_no_grad_paths():
    env = _env(ctorch)
    s = env["s"]
    with pytest.raises(RuntimeError, match="out=... arguments don't support"):
        ctorch.linalg.svdvals(s, out=ctorch.empty(3, dtype=s.dtype))
    with ctorch.no_grad():
        assert ctorch.linalg.svdvals(s).grad_fn is None
        assert ctorch.linalg.matrix_norm(s, "nuc").grad_fn is None
    assert ctorch.linalg.svdvals(s.detach()).grad_fn is None
    # an empty matrix: no singular values, no graph needed
    e = ctorch.zeros(0, 3, dtype=ctorch.float64, requires_grad=True)
    assert ctorch.linalg.svdvals(e).shape == (0,)


def test_no_leaks():
    """Forward, backward with create_graph and a double backward of every
    expression above leave no tensor behind (refcounts balanced)."""
    import gc

    def round_trip():
        for expr in [n[0] for n in NAMES + NORMS] + ["torch.einsum('%s', *ops)" % e[0]
                                                    for e in EINSUM]:
            env = _env(ctorch)
            eq = expr.split("'")[1] if "einsum" in expr else None
            if eq is not None:
                shapes = next(s for e, s in EINSUM if e == eq)
                env["ops"] = [_make(ctorch, s, i) for i, s in enumerate(shapes)]
            r = eval(expr, env)
            leaves = [t for t in env.values() if isinstance(t, ctorch.Tensor)]
            leaves += env.get("ops", [])
            grads = ctorch.autograd.grad((r * r).sum(), leaves, create_graph=True,
                                         allow_unused=True)
            second = sum(g.sum() for g in grads if g is not None and g.requires_grad)
            if isinstance(second, ctorch.Tensor):
                second.backward()
            del env, r, leaves, grads, second
        gc.collect()
    round_trip()
    before = ctorch._C._live_counts()
    round_trip()
    round_trip()
    after = ctorch._C._live_counts()
    assert after[0] <= before[0] and after[1] <= before[1]


INPLACE_ON_VIEWS = [
    "y[:, :2].addmm_(y[:, 2:] * 1, b[:2] * 1, beta=0.5)",
    "y[1:].tril_()",
    "y[:, 1:].triu_(1)",
    "y.t()[0].addmv_(y[:, :3].t() * 1, y[0, :3] * 1, alpha=2)",
    "y[:2, :2].addr_(b[:2, 0], b[:2, 1])",
]


@pytest.mark.parametrize("expr", INPLACE_ON_VIEWS)
def test_inplace_on_views_vs_torch(torch_ref, expr):
    res = []
    for m in (ctorch, torch_ref):
        a = m.arange(12., dtype=m.float64).reshape(3, 4).requires_grad_()
        b = m.linspace(-1, 1, 8, dtype=m.float64).reshape(4, 2).requires_grad_()
        y = a * 1
        eval(expr, {"y": y, "b": b, "torch": m})
        (y ** 2).sum().backward()
        res.append((type(y.grad_fn).__name__, y.tolist(), a.grad.tolist(),
                    None if b.grad is None else b.grad.tolist()))
    assert res[0] == res[1]
