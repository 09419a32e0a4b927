"""Sorting and selection: sort, argsort, msort, topk, kthvalue (as
torch.return_types), unique, searchsorted, bucketize, histc, bincount.

The first half records expectations literally (CI has no torch); the
second half compares with real PyTorch across dtypes, dims, empty and 0-dim
inputs, non-contiguous views, NaN and errors.  Where torch leaves the order
of ties unspecified (topk, kthvalue, unique(sorted=False)) only values, or
tie-free inputs, are compared.
"""
import gc
import math

import pytest

import ctorch

from helpers import error_of, same_error

T = ctorch.tensor
NAN = float("nan")

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
              "bfloat16", "float32", "float64"]


def err(fn):
    return error_of(fn)


# --- recorded expectations --------------------------------------------------
def test_sort_recorded():
    x = T([3.0, 1, 2, 1, NAN, 3, 1, -0.0, 0.0])
    r = ctorch.sort(x)
    assert type(r).__name__ == "sort"
    assert r.indices.tolist() == [7, 8, 1, 3, 6, 2, 0, 5, 4]
    v = r.values.tolist()
    assert v[:8] == [0.0, 0.0, 1, 1, 1, 2, 3, 3] and math.isnan(v[8])
    assert math.copysign(1, v[0]) == -1        # -0.0 and 0.0 keep their order
    d = x.sort(descending=True)
    assert d.indices.tolist() == [4, 0, 5, 2, 1, 3, 6, 7, 8]
    values, indices = d
    assert values is d[0] and indices is d.indices
    assert repr(ctorch.sort(T([2, 1]))) == (
        "torch.return_types.sort(\nvalues=tensor([1, 2]),\nindices=tensor([1, 0]))")
    m = T([[3, 1, 2], [0, 5, 4]])
    assert m.sort(0).values.tolist() == [[0, 1, 2], [3, 5, 4]]
    assert m.sort(0).indices.tolist() == [[1, 0, 0], [0, 1, 1]]
    assert m.sort(-1, True).indices.tolist() == [[0, 2, 1], [1, 2, 0]]
    assert ctorch.sort(m, dim=1, stable=True).values.tolist() == [[1, 2, 3], [0, 4, 5]]
    assert m.argsort().tolist() == [[1, 2, 0], [0, 2, 1]]
    assert ctorch.argsort(m, dim=0, descending=True).tolist() == [[0, 1, 1], [1, 0, 0]]
    assert ctorch.msort(m).tolist() == [[0, 1, 2], [3, 5, 4]]
    assert T([True, False]).sort().indices.tolist() == [1, 0]
    assert T(3.0).topk(0).values.item() == 3.0     # as torch: 0-dim keeps its value
    z = T(3.0).sort()
    assert z.values.dim() == 0 and z.indices.item() == 0
    e = ctorch.empty(3, 0).sort()
    assert tuple(e.values.shape) == (3, 0) and e.indices.dtype == ctorch.int64
    # the layout of the input is kept
    t = ctorch.arange(12.0).reshape(3, 4).t()
    assert t.sort(0).values.stride() == (1, 4)
    assert err(lambda: x.sort(2)) == (
        "IndexError", "Dimension out of range (expected to be in range of [-1, 0], "
        "but got 2)")


def test_sort_stable_ties_recorded():
    x = T([2, 1, 2, 1, 2, 1] * 20)             # longer than the insertion-sort cut
    idx = x.sort().indices.tolist()
    assert idx == list(range(1, 120, 2)) + list(range(0, 120, 2))
    idx = x.sort(descending=True).indices.tolist()
    assert idx == list(range(0, 120, 2)) + list(range(1, 120, 2))


def test_topk_kthvalue_recorded():
    x = T([1.0, 5, 3, NAN, 4, 2])
    r = x.topk(3)
    assert type(r).__name__ == "topk"
    assert r.indices.tolist() == [3, 1, 4]
    assert math.isnan(r.values[0].item()) and r.values.tolist()[1:] == [5.0, 4.0]
    s = ctorch.topk(x, 2, largest=False)
    assert s.values.tolist() == [1.0, 2.0] and s.indices.tolist() == [0, 5]
    m = T([[1, 9, 3], [7, 2, 8]])
    assert m.topk(1, dim=0).values.tolist() == [[7, 9, 8]]
    assert m.topk(2).indices.tolist() == [[1, 2], [2, 0]]
    assert m.topk(0).values.shape == (2, 0)
    k = m.kthvalue(2)
    assert type(k).__name__ == "kthvalue"
    assert k.values.tolist() == [3, 7] and k.indices.tolist() == [2, 0]
    k = ctorch.kthvalue(m, 1, dim=0, keepdim=True)
    assert k.values.tolist() == [[1, 2, 3]] and k.indices.tolist() == [[0, 1, 0]]
    assert repr(T(3.0).kthvalue(1)) == (
        "torch.return_types.kthvalue(\nvalues=tensor(3.),\nindices=tensor(0))")
    assert math.isnan(x.kthvalue(6).values.item())
    assert err(lambda: x.topk(7)) == ("RuntimeError", "selected index k out of range")
    assert err(lambda: x.topk(-1)) == ("RuntimeError", "selected index k out of range")
    assert err(lambda: x.kthvalue(0)) == (
        "RuntimeError", "kthvalue(): selected number k out of range for dimension 0")
    assert err(lambda: ctorch.empty(3, 0).kthvalue(1)) == (
        "IndexError", "kthvalue(): Expected reduction dim 1 to have non-zero size.")
    assert err(lambda: T([True]).topk(1)) == (
        "RuntimeError", "\"topk_cpu\" not implemented for 'Bool'")
    assert err(lambda: T([True]).kthvalue(1)) == (
        "RuntimeError", "\"kthvalue_cpu\" not implemented for 'Bool'")


def test_topk_heap_and_large_k_recorded():
    # k small beside the slice takes the heap path, large k the radix path
    x = (ctorch.arange(1000) * 7919) % 1000
    assert x.topk(3).values.tolist() == [999, 998, 997]
    top = x.topk(3)
    assert [(i * 7919) % 1000 for i in top.indices.tolist()] == [999, 998, 997]
    assert x.topk(600).values.tolist() == list(range(999, 399, -1))
    assert x.topk(5, largest=False).values.tolist() == [0, 1, 2, 3, 4]
    assert x.kthvalue(500).values.item() == 499
    assert x.kthvalue(10).values.item() == 9


def test_unique_recorded():
    x = T([3, 1, 2, 3, 1, 5])
    assert ctorch.unique(x).tolist() == [1, 2, 3, 5]
    u, inv, cnt = ctorch.unique(x, return_inverse=True, return_counts=True)
    assert u.tolist() == [1, 2, 3, 5]
    assert inv.tolist() == [2, 0, 1, 2, 0, 3]
    assert cnt.tolist() == [2, 1, 2, 1]
    u, cnt = x.unique(return_counts=True)
    assert cnt.tolist() == [2, 1, 2, 1]
    u, inv = T([[3, 1], [2, 3]]).unique(sorted=True, return_inverse=True)
    assert inv.tolist() == [[2, 0], [1, 2]]
    f = T([NAN, 1.0, NAN, 1.0]).unique(return_counts=True)
    assert f[0].tolist()[0] == 1.0 and math.isnan(f[0].tolist()[1])
    assert f[1].tolist() == [2, 1, 1]
    assert T([True, False, True]).unique().tolist() == [False, True]
    big = T([10 ** 12, -5, 10 ** 12, 7])     # range too wide to count
    assert big.unique(return_inverse=True)[1].tolist() == [2, 0, 2, 1]
    assert ctorch.unique(ctorch.empty(0)).shape == (0,)
    u, inv = T(2.0).unique(return_inverse=True)
    assert u.tolist() == [2.0] and inv.dim() == 0
    assert err(lambda: T([1.0]).half().unique()) == (
        "RuntimeError", "\"unique\" not implemented for 'Half'")


def test_searchsorted_bucketize_recorded():
    s = T([1, 3, 5, 7])
    assert ctorch.searchsorted(s, T([0, 3, 6, 9])).tolist() == [0, 1, 3, 4]
    assert ctorch.searchsorted(s, T([0, 3, 6, 9]), right=True).tolist() == [0, 2, 3, 4]
    assert ctorch.searchsorted(s, T([3]), side="right").tolist() == [2]
    assert ctorch.searchsorted(s, 3).tolist() == 1
    assert ctorch.searchsorted(s, 3.5).item() == 2
    r = ctorch.searchsorted(s, T([3]), out_int32=True)
    assert r.dtype == ctorch.int32
    assert ctorch.searchsorted(T([[1, 3, 5], [2, 4, 6]]), T([[3], [3]]),
                               right=True).tolist() == [[2], [1]]
    assert ctorch.searchsorted(T([5, 1, 3]), T([2, 4]),
                               sorter=T([1, 2, 0])).tolist() == [1, 2]
    assert ctorch.bucketize(T([1, 3, 5]), T([2, 4])).tolist() == [0, 1, 2]
    assert ctorch.bucketize(T([2, 4]), T([2, 4]), right=True).tolist() == [1, 2]
    assert ctorch.bucketize(3, T([2, 4])).item() == 1
    assert err(lambda: ctorch.searchsorted(s, T([3]), side="foo")) == (
        "RuntimeError", "torch.searchsorted(): side can only be 'left' or 'right' but "
        "got foo")
    assert err(lambda: ctorch.searchsorted(s, T([3]), side="left", right=True)) == (
        "RuntimeError", "torch.searchsorted(): side and right can't be set to opposites, "
        "got side of left while right was True")
    assert err(lambda: ctorch.searchsorted(T(1), T([3]))) == (
        "RuntimeError", "torch.searchsorted(): boundaries tensor should have positive "
        "dimension, but got 0 dimension")
    assert err(lambda: ctorch.searchsorted(T([[1, 3]]), T([3, 3]))) == (
        "RuntimeError", "torch.searchsorted(): boundaries tensor should be 1 dimension "
        "or the first N-1 dimensions of boundaries tensor and input value tensor must "
        "match, but we got boundaries tensor [1, 2] and input value tensor [2]")
    assert err(lambda: ctorch.bucketize(T([1]), T([[2, 4]]))) == (
        "RuntimeError", "boundaries tensor must be 1 dimension, but got dim(2)")


def test_histc_bincount_recorded():
    assert ctorch.histc(T([1.0, 2, 1]), bins=4, min=0, max=3).tolist() == [0, 2, 1, 0]
    h = T([1.0, 2, 1]).double().histc(4)
    assert h.dtype == ctorch.float64 and h.tolist() == [2, 0, 0, 1]
    assert T([0.0, 1, 2, 3, 4, -1]).histc(3, 0, 3).tolist() == [1, 1, 2]
    assert ctorch.histc(ctorch.empty(0), 4).tolist() == [0, 0, 0, 0]
    assert err(lambda: T([1, 2]).histc()) == (
        "RuntimeError", "\"histogram_cpu\" not implemented for 'Long'")
    assert err(lambda: T([1.0]).histc(0)) == (
        "RuntimeError", "torch.histogram(): bins must be > 0, but got 0 for dimension 0")
    assert err(lambda: T([1.0]).histc(4, 3, 1)) == (
        "RuntimeError", "torch.histc: max must be larger than min")
    assert err(lambda: T([1.0, math.inf]).histc(4)) == (
        "RuntimeError", "torch.histc: range of [1, inf] is not finite")
    x = T([1, 2, 1])
    assert ctorch.bincount(x).tolist() == [0, 2, 1]
    assert x.bincount(minlength=5).tolist() == [0, 2, 1, 0, 0]
    w = ctorch.bincount(x, weights=T([0.5, 1, 2]))
    assert w.dtype == ctorch.float32 and w.tolist() == [0, 2.5, 1]
    assert ctorch.bincount(x, T([1, 1, 2])).dtype == ctorch.float64
    assert ctorch.bincount(T([], dtype=ctorch.int64)).tolist() == []
    assert ctorch.bincount(T([1, 0], dtype=ctorch.uint8)).tolist() == [1, 1]
    assert err(lambda: ctorch.bincount(T([1, -2]))) == (
        "RuntimeError", "bincount only supports 1-d non-negative integral inputs.")
    assert err(lambda: ctorch.bincount(T([[1]]))) == (
        "RuntimeError", "bincount only supports 1-d non-negative integral inputs.")
    assert err(lambda: ctorch.bincount(T([1.0]))) == (
        "RuntimeError", "\"bincount_cpu\" not implemented for 'Float'")
    assert err(lambda: ctorch.bincount(x, T([1.0]))) == (
        "RuntimeError", "weights should be 1-d and have the same length as input")
    assert err(lambda: ctorch.bincount(x, minlength=-1)) == (
        "RuntimeError", "minlength should be >= 0")


def test_quantized_recorded():
    q = ctorch.quantize_per_tensor(T([0.3, -0.2, 0.7, 0.1]), 0.1, 2, ctorch.quint8)
    r = q.sort(descending=True)
    assert r.indices.tolist() == [2, 0, 3, 1]
    assert r.values.dtype == ctorch.quint8 and r.values.q_scale() == 0.1
    assert r.values.q_zero_point() == 2
    assert r.values.dequantize().tolist() == pytest.approx([0.7, 0.3, 0.1, -0.2])
    assert q.argsort().tolist() == [1, 3, 0, 2]
    assert q.topk(2).indices.tolist() == [2, 0]
    assert ctorch.msort(q).int_repr().tolist() == [0, 3, 5, 9]
    assert err(lambda: q.kthvalue(1)) == (
        "RuntimeError", "\"kthvalue_cpu\" not implemented for 'QUInt8'")


def test_out_recorded():
    x = T([3.0, 1, 2])
    v, i = ctorch.empty(0), ctorch.empty(0, dtype=ctorch.int64)
    r = ctorch.sort(x, out=(v, i))
    assert type(r).__name__ == "sort_out" and r.values is v and r.indices is i
    assert v.tolist() == [1.0, 2.0, 3.0] and i.tolist() == [1, 2, 0]
    r = ctorch.topk(x, 2, out=[v, i])
    assert repr(r).startswith("torch.return_types.topk_out(") and i.tolist() == [0, 2]
    r = ctorch.kthvalue(x, 2, out=(v, i))
    assert v.tolist() == 2.0 and i.tolist() == 2
    o = ctorch.empty(0, dtype=ctorch.int64)
    assert ctorch.searchsorted(T([1, 3]), T([2, 4]), out=o) is o and o.tolist() == [1, 2]
    assert ctorch.bucketize(T([0, 4]), T([1, 3]), out=o) is o and o.tolist() == [0, 2]
    h = ctorch.empty(0)
    assert ctorch.histc(x, 3, out=h) is h and h.tolist() == [1.0, 1.0, 1.0]
    assert err(lambda: ctorch.sort(x, out=v)) == (
        "TypeError", "sort(): argument 'out' must be tuple of Tensors, not Tensor")


def test_large_threaded_sort_recorded():
    # many slices above the grain size: split across threads
    n = 300
    x = (ctorch.arange(n * 257) * 7919 % 1009).reshape(n, 257).float()
    s = x.sort(1)
    v = s.values
    assert (v[:, 1:] >= v[:, :-1]).all().item()
    assert (x.gather(1, s.indices) == v).all().item()
    big = (ctorch.arange(1 << 20) * 2654435761 % (1 << 20)).float()
    sv = big.sort().values
    assert sv[:5].tolist() == [0, 1, 2, 3, 4] and sv[-1].item() == (1 << 20) - 1


def test_no_leaks():
    live = ctorch._C._live_counts()
    for _ in range(3):
        x = ctorch.arange(100000.0).flip(0)
        x.sort()
        x.argsort(descending=True)
        x.topk(5)
        x.topk(60000)
        x.kthvalue(70000)
        x.int().unique(return_inverse=True, return_counts=True)
        x.unique(return_inverse=True, return_counts=True)
        ctorch.searchsorted(x.sort().values, x)
        ctorch.bucketize(3, T([1, 5]))
        x.histc(10)
        x.int().abs().bincount(x.abs())
        try:
            x.topk(10 ** 6)
        except RuntimeError:
            pass
        del x
    gc.collect()
    assert ctorch._C._live_counts() == live


# --- differential tests against PyTorch -------------------------------------
def _pair(torch, data, dtype, shape=None):
    t = torch.tensor(data, dtype=getattr(torch, dtype))
    if shape is not None:
        t = t.reshape(shape)
    c = ctorch.tensor(t.float().tolist() if dtype in ("float16", "bfloat16") else
                      t.tolist(), dtype=getattr(ctorch, dtype))
    return c, t


def _same(c, t):
    assert repr(c.dtype) == repr(t.dtype)
    assert tuple(c.shape) == tuple(t.shape)
    assert c.stride() == t.stride()
    cv, tv = c.tolist(), t.tolist()
    assert repr(cv) == repr(tv)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sort_vs_torch(torch_ref, dtype):
    torch = torch_ref
    g = torch.Generator().manual_seed(1)
    raw = torch.randint(-3, 4, (6, 70), generator=g)
    if dtype == "bool":
        raw = raw > 0
    elif dtype == "uint8":
        raw = raw + 3
    c, t = _pair(torch, raw.tolist(), dtype)
    for dim in (0, 1, -1):
        for desc in (False, True):
            cr = c.sort(dim=dim, descending=desc, stable=True)
            tr = t.sort(dim=dim, descending=desc, stable=True)
            _same(cr.values, tr.values)
            _same(cr.indices, tr.indices)
            _same(ctorch.argsort(c, dim, desc), tr.indices)
    # non-contiguous views (torch's default sort is not stable on ties)
    _same(c.t().sort(0).indices, t.t().sort(dim=0, stable=True).indices)
    _same(c[:, ::3].sort(descending=True).values, t[:, ::3].sort(descending=True).values)
    _same(c.sort(0).values, t.sort(0).values)
    if dtype not in ("bool", "float16"):
        tk_c, tk_t = c.topk(4, 1), t.topk(4, 1)
        _same(tk_c.values, tk_t.values)
        assert (c.gather(1, tk_c.indices) == tk_c.values).all().item()
        _same(c.topk(5, 0, largest=False).values, t.topk(5, 0, largest=False).values)
        _same(c.kthvalue(10, 1).values, t.kthvalue(10, 1).values)
        _same(c.kthvalue(2, 0, keepdim=True).values, t.kthvalue(2, 0, keepdim=True).values)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_sort_nan_inf_vs_torch(torch_ref, dtype):
    torch = torch_ref
    data = [NAN, 1.0, -math.inf, 0.0, -0.0, math.inf, NAN, -2.5, 1.0, 3.0] * 7
    c, t = _pair(torch, data, dtype)
    for desc in (False, True):
        cr, tr = c.sort(descending=desc), t.sort(descending=desc, stable=True)
        assert repr(cr.values.tolist()) == repr(tr.values.tolist())
        assert cr.indices.tolist() == tr.indices.tolist()
    if dtype == "float16":
        return
    # topk on distinct values: the order of indices is defined
    d = [NAN, 1.0, -math.inf, 0.5, math.inf, -2.5, 3.0, 2.0]
    c, t = _pair(torch, d, dtype)
    for k in range(len(d) + 1):
        for largest in (True, False):
            cr, tr = c.topk(k, largest=largest), t.topk(k, largest=largest)
            assert repr(cr.values.tolist()) == repr(tr.values.tolist())
            assert cr.indices.tolist() == tr.indices.tolist()
    for k in range(1, len(d) + 1):
        cr, tr = c.kthvalue(k), t.kthvalue(k)
        assert repr(cr.values.tolist()) == repr(tr.values.tolist())
        assert cr.indices.tolist() == tr.indices.tolist()


def test_sort_random_large_vs_torch(torch_ref):
    torch = torch_ref
    g = torch.Generator().manual_seed(2)
    t = torch.randperm(1 << 16, generator=g).float() / 7     # no ties
    c = ctorch.tensor(t.tolist())
    assert c.sort().indices.tolist() == t.sort(stable=True).indices.tolist()
    assert c.sort(descending=True).indices.tolist() == \
        t.sort(descending=True, stable=True).indices.tolist()
    assert c.topk(100).indices.tolist() == t.topk(100).indices.tolist()
    assert c.topk(30000, largest=False).indices.tolist() == \
        t.topk(30000, largest=False).indices.tolist()
    assert c.kthvalue(12345).indices.item() == t.kthvalue(12345).indices.item()
    ti = torch.randint(-(1 << 40), 1 << 40, (5000,), generator=g)
    ci = ctorch.tensor(ti.tolist())
    assert ci.sort().values.tolist() == ti.sort().values.tolist()
    tm = torch.rand(40, 3000, generator=g)
    cm = ctorch.tensor(tm.tolist())
    assert cm.sort(1).indices.tolist() == tm.sort(dim=1, stable=True).indices.tolist()
    assert cm.topk(7, 1).indices.tolist() == tm.topk(7, 1).indices.tolist()


def test_sort_shapes_and_errors_vs_torch(torch_ref):
    torch = torch_ref
    for shape in [(), (0,), (3, 0), (0, 4), (1,)]:
        t = torch.zeros(shape)
        c = ctorch.zeros(shape)
        _same(c.sort().values, t.sort().values)
        _same(c.sort().indices, t.sort().indices)
        _same(c.argsort(), t.argsort())
        if t.numel() > 0 or t.dim() == 1:
            _same(c.topk(0).values, t.topk(0).values)
    assert repr(ctorch.topk(T(2.0), 1)) == repr(torch.topk(torch.tensor(2.0), 1))
    assert repr(ctorch.topk(T(2.0), 0)) == repr(torch.topk(torch.tensor(2.0), 0))
    cases = [
        lambda m, x: m.sort(x, 3),
        lambda m, x: m.topk(x, 4, 3),
        lambda m, x: m.topk(x, 9),
        lambda m, x: m.kthvalue(x, 9),
        lambda m, x: m.kthvalue(x, 0, 0),
        lambda m, x: m.argsort(x, -4),
        lambda m, x: m.topk(x > 0, 1),
    ]
    t = torch.arange(6.0).reshape(2, 3)
    c = ctorch.arange(6.0).reshape(2, 3)
    for f in cases:
        same_error(lambda: f(ctorch, c), lambda: f(torch, t))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64",
                                   "bfloat16", "float32", "float64"])
def test_unique_vs_torch(torch_ref, dtype):
    torch = torch_ref
    g = torch.Generator().manual_seed(3)
    raw = torch.randint(-20, 20, (7, 9), generator=g)
    if dtype == "bool":
        raw = raw > 0
    elif dtype == "uint8":
        raw = raw + 20
    c, t = _pair(torch, raw.tolist(), dtype)
    for sorted_ in (True, False):
        cu = ctorch.unique(c, sorted=True, return_inverse=True, return_counts=True)
        tu = torch.unique(t, sorted=True, return_inverse=True, return_counts=True)
        for a, b in zip(cu, tu):
            _same(a, b)
        _same(c.unique(sorted=sorted_).sort().values, t.unique(sorted=sorted_).sort().values)
    _same(c.t().unique(return_inverse=True)[1], t.t().unique(return_inverse=True)[1])


def test_unique_floats_wide_vs_torch(torch_ref):
    torch = torch_ref
    g = torch.Generator().manual_seed(4)
    t = (torch.rand(3000, generator=g) * 50).round()   # (torch misorders NaNs)
    c = ctorch.tensor(t.tolist())
    cu, ci, cc = c.unique(return_inverse=True, return_counts=True)
    tu, ti, tc = t.unique(return_inverse=True, return_counts=True)
    assert repr(cu.tolist()) == repr(tu.tolist())
    assert ci.tolist() == ti.tolist() and cc.tolist() == tc.tolist()
    w = torch.randint(-(1 << 50), 1 << 50, (2000,), generator=g)
    w = torch.cat([w, w[:500]])
    cw = ctorch.tensor(w.tolist())
    for a, b in zip(cw.unique(return_inverse=True, return_counts=True),
                    w.unique(return_inverse=True, return_counts=True)):
        assert a.tolist() == b.tolist()


@pytest.mark.filterwarnings("ignore::UserWarning")     # torch's non-contiguous note
@pytest.mark.parametrize("sdt,vdt", [("int64", "int64"), ("float32", "float32"),
                                     ("int64", "float32"), ("float64", "int32"),
                                     ("int16", "int16"), ("bfloat16", "bfloat16")])
def test_searchsorted_vs_torch(torch_ref, sdt, vdt):
    torch = torch_ref
    g = torch.Generator().manual_seed(5)
    seq = torch.randint(-30, 30, (4, 12), generator=g).sort(1).values
    vals = torch.randint(-35, 35, (4, 9), generator=g)
    cs, ts = _pair(torch, seq.tolist(), sdt)
    cv, tv = _pair(torch, vals.tolist(), vdt)
    for right in (False, True):
        for i32 in (False, True):
            _same(ctorch.searchsorted(cs, cv, right=right, out_int32=i32),
                  torch.searchsorted(ts, tv, right=right, out_int32=i32))
            _same(ctorch.searchsorted(cs[0], cv, right=right, out_int32=i32),
                  torch.searchsorted(ts[0], tv, right=right, out_int32=i32))
            _same(ctorch.bucketize(cv, cs[1], right=right, out_int32=i32),
                  torch.bucketize(tv, ts[1], right=right, out_int32=i32))
    _same(ctorch.searchsorted(cs[0], 3), torch.searchsorted(ts[0], 3))
    _same(ctorch.searchsorted(cs[0], 2.5), torch.searchsorted(ts[0], 2.5))
    _same(ctorch.searchsorted(cs[:, ::2], cv.t()[:4]),
          torch.searchsorted(ts[:, ::2], tv.t()[:4]))
    perm = torch.randperm(12, generator=g)
    _same(ctorch.searchsorted(ctorch.tensor(ts[0][perm].tolist(), dtype=cs.dtype),
                              cv, sorter=ctorch.tensor(perm.argsort().tolist())),
          torch.searchsorted(ts[0][perm], tv, sorter=perm.argsort()))
    bad = [
        lambda m, s, v: m.searchsorted(s[:2], v),
        lambda m, s, v: m.searchsorted(s, 3),
        lambda m, s, v: m.searchsorted(s[0], v, sorter=s[0].int()),
        lambda m, s, v: m.searchsorted(s[0], v, sorter=m.arange(3)),
        lambda m, s, v: m.searchsorted(s[0], v, side="middle"),
        lambda m, s, v: m.bucketize(v, s),
    ]
    for f in bad:
        same_error(lambda: f(ctorch, cs, cv), lambda: f(torch, ts, tv))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_vs_torch(torch_ref, dtype):
    torch = torch_ref
    g = torch.Generator().manual_seed(6)
    t = (torch.randn(5000, generator=g) * 3).to(getattr(torch, dtype))
    c = ctorch.tensor(t.float().tolist(), dtype=getattr(ctorch, dtype))
    for args in [(), (10,), (7, -2, 2), (13, 0, 0), (5, -1.5, 4.25), (1,)]:
        _same(c.histc(*args), t.histc(*args))
    _same(ctorch.histc(c[::3], bins=20, min=-1, max=1), torch.histc(t[::3], bins=20,
                                                                     min=-1, max=1))
    for f in [lambda m, x: m.histc(x, 0), lambda m, x: m.histc(x, 4, 2, 1),
              lambda m, x: m.histc(x.long()), lambda m, x: m.histc(x.half(), 4, 0, 1)]:
        same_error(lambda: f(ctorch, c), lambda: f(torch, t))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount_vs_torch(torch_ref, dtype):
    torch = torch_ref
    g = torch.Generator().manual_seed(7)
    t = torch.randint(0, 50, (400,), generator=g).to(getattr(torch, dtype))
    c = ctorch.tensor(t.tolist(), dtype=getattr(ctorch, dtype))
    _same(c.bincount(), t.bincount())
    _same(ctorch.bincount(c, minlength=80), torch.bincount(t, minlength=80))
    _same(c[::2].bincount(), t[::2].bincount())
    for wdt in ["float32", "float64", "int64", "float16"]:
        tw = torch.rand(400, generator=g).mul(10).to(getattr(torch, wdt))
        cw = ctorch.tensor(tw.tolist(), dtype=getattr(ctorch, wdt))
        a, b = ctorch.bincount(c, cw), torch.bincount(t, tw)
        assert repr(a.dtype) == repr(b.dtype)
        assert a.tolist() == pytest.approx(b.tolist(), rel=1e-6)
    for f in [lambda m, x: m.bincount(x.float()), lambda m, x: m.bincount(x.view(20, 20)),
              lambda m, x: m.bincount(x, minlength=-3),
              lambda m, x: m.bincount(x, m.ones(3))]:
        same_error(lambda: f(ctorch, c), lambda: f(torch, t))
