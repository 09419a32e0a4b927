"""Reductions, scans and softmax: sum, mean, prod, max/min (full and with a
dim, as torch.return_types), amax, amin, argmax, argmin, std/var (unbiased
and correction=), std_mean, var_mean, norm and ctorch.linalg's norms, all,
any, count_nonzero, logsumexp, cumsum, cumprod, cummax, cummin, median,
nanmedian, mode (with torch's index among ties), softmax, log_softmax.

The first half records expectations literally (CI has no torch); the
second half compares with real PyTorch across dtypes, dims, keepdim,
empty and 0-dim inputs, non-contiguous views, NaN/inf and errors.
"""
import gc
import math

import numpy as np
import pytest

import ctorch
import ctorch.linalg

from helpers import error_of, same_error

T = ctorch.tensor
NAN = float("nan")


def err(fn):
    return error_of(fn)


# --- recorded expectations --------------------------------------------------
def test_sum_mean_prod_recorded():
    a = T([[1.0, 2, 3], [4, 5, 6]])
    assert a.sum().item() == 21.0 and a.sum().dim() == 0
    assert a.sum(0).tolist() == [5.0, 7.0, 9.0]
    assert a.sum(-1, keepdim=True).tolist() == [[6.0], [15.0]]
    assert a.sum((0, 1)).item() == 21.0
    assert ctorch.sum(a, dim=[1]).tolist() == [6.0, 15.0]
    assert a.mean().item() == 3.5
    assert a.mean(1).tolist() == [2.0, 5.0]
    assert a.prod().item() == 720.0
    assert a.prod(1).tolist() == [6.0, 120.0]
    i = T([[1, 2], [3, 4]])
    assert repr(i.sum()) == "tensor(10)"
    assert i.sum().dtype == ctorch.int64
    assert T([True, False, True]).sum().item() == 2
    assert T([1, 2], dtype=ctorch.int8).sum().dtype == ctorch.int64
    assert repr(i.sum(dtype=ctorch.float32)) == "tensor(10.)"
    assert repr(i.mean(dtype=ctorch.float64)) == "tensor(2.5000, dtype=torch.float64)"
    assert repr(T([1.0, 2.0]).half().sum()) == "tensor(3., dtype=torch.float16)"
    assert err(lambda: i.mean()) == (
        "RuntimeError", "mean(): could not infer output dtype. Input dtype must be "
        "either a floating point or complex dtype. Got: Long")
    assert err(lambda: a.sum(2)) == (
        "IndexError", "Dimension out of range (expected to be in range of [-2, 1], but "
        "got 2)")
    assert err(lambda: a.sum((0, 0))) == (
        "RuntimeError", "dim 0 appears multiple times in the list of dims")


def test_empty_recorded():
    e = ctorch.empty(0)
    assert repr(e.sum()) == "tensor(0.)"
    assert repr(e.prod()) == "tensor(1.)"
    assert repr(e.mean()) == "tensor(nan)"
    assert repr(ctorch.empty(0, 3).sum(0)) == "tensor([0., 0., 0.])"
    assert ctorch.empty(0, 3).sum(1).shape == (0,)
    assert err(lambda: e.max()) == (
        "RuntimeError", "max(): Expected reduction dim to be specified for "
        "input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
    assert err(lambda: ctorch.empty(0, 3).max(0)) == (
        "IndexError", "max(): Expected reduction dim 0 to have non-zero size.")
    assert err(lambda: ctorch.empty(0, 3).amax(0)) == (
        "IndexError", "amax(): Expected reduction dim 0 to have non-zero size.")
    assert err(lambda: e.argmax()) == (
        "IndexError", "argmax(): Expected reduction dim to be specified for "
        "input.numel() == 0.")
    assert repr(e.all()) == "tensor(True)"
    assert repr(e.any()) == "tensor(False)"
    assert repr(ctorch.empty(0, 3).logsumexp(0)) == "tensor([-inf, -inf, -inf])"


def test_max_min_recorded():
    a = T([[1.0, 5, 3], [4, 2, 6]])
    r = a.max(1)
    assert repr(r) == ("torch.return_types.max(\nvalues=tensor([5., 6.]),\n"
                       "indices=tensor([1, 2]))")
    assert r.values.tolist() == [5.0, 6.0] and r[1].tolist() == [1, 2]
    v, i = a.min(0, keepdim=True)
    assert v.tolist() == [[1.0, 2.0, 3.0]] and i.tolist() == [[0, 1, 0]]
    assert type(r).__name__ == "max" and isinstance(r, tuple)
    assert a.max().item() == 6.0 and a.min().item() == 1.0
    assert a.amax(0).tolist() == [4.0, 5.0, 6.0]
    assert a.amin((0, 1)).item() == 1.0
    assert a.argmax().item() == 5 and a.argmin(1).tolist() == [0, 1]
    assert a.argmax(1, keepdim=True).tolist() == [[1], [2]]
    n = T([1.0, float("nan"), 3.0, float("nan")])
    assert math.isnan(n.max().item()) and n.max(0).indices.item() == 1
    assert math.isnan(n.amin().item())
    assert n.argmax().item() == 1
    assert T([True, False]).max().item() is True
    assert T([2, 7, 7], dtype=ctorch.int16).max(0).indices.item() == 1


def test_var_std_recorded():
    a = T([1.0, 2.0, 3.0, 4.0])
    assert abs(a.var().item() - 1.6666666) < 1e-6
    assert a.var(unbiased=False).item() == 1.25
    assert a.var(0, correction=0).item() == 1.25
    assert abs(a.std().item() - 1.2909944) < 1e-6
    s, m = ctorch.std_mean(a)
    assert m.item() == 2.5 and abs(s.item() - 1.2909944) < 1e-6
    v, m = ctorch.var_mean(a.reshape(2, 2), 1, keepdim=True)
    assert v.tolist() == [[0.5], [0.5]] and m.tolist() == [[1.5], [3.5]]
    assert math.isnan(T([1.0]).std().item())
    assert err(lambda: T([1, 2]).std()) == (
        "RuntimeError", "std and var only support floating point and complex dtypes")


def test_norms_recorded():
    a = T([[3.0, 4.0], [1.0, 2.0]])
    assert repr(a.norm()) == "tensor(5.4772)"
    assert a.norm(1).item() == 10.0
    assert a.norm(float("inf")).item() == 4.0
    assert a.norm(p="fro", dim=1).tolist() == pytest.approx([5.0, 5 ** 0.5])
    assert repr(a.norm(p=3)) == "tensor(4.6416)"
    assert a.norm(p=0).item() == 4.0
    assert repr(ctorch.linalg.norm(a)) == "tensor(5.4772)"
    assert ctorch.linalg.vector_norm(a, float("-inf")).item() == 1.0
    assert ctorch.linalg.vector_norm(a, 1, dim=0).tolist() == [4.0, 6.0]
    assert err(lambda: T([1, 2]).norm()) == (
        "RuntimeError", "norm(): input dtype should be either floating point or "
        "complex. Got Long instead.")
    assert err(lambda: ctorch.linalg.vector_norm(T([1, 2]))) == (
        "RuntimeError", "linalg.vector_norm: Expected a floating point or complex "
        "tensor as input. Got Long")


def test_logical_recorded():
    a = T([[0.0, 1.0], [2.0, 3.0]])
    assert a.all().item() is False and a.any().item() is True
    assert a.all(1).tolist() == [False, True]
    assert repr(T([1, 2], dtype=ctorch.uint8).all()) == "tensor(1, dtype=torch.uint8)"
    assert T([1, 2], dtype=ctorch.int8).all().dtype == ctorch.bool
    assert repr(a.count_nonzero()) == "tensor(3)"
    assert a.count_nonzero(0).tolist() == [1, 2]
    assert T([float("nan")]).all().item() is True


def test_scans_recorded():
    a = T([[1.0, 2, 3], [4, 5, 6]])
    assert a.cumsum(1).tolist() == [[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]
    assert a.cumprod(0).tolist() == [[1.0, 2.0, 3.0], [4.0, 10.0, 18.0]]
    assert repr(T([1, 2]).cumsum(0)) == "tensor([1, 3])"
    assert T([1, 2], dtype=ctorch.int8).cumprod(0).dtype == ctorch.int64
    assert T([1, 2]).cumsum(0, dtype=ctorch.float32).dtype == ctorch.float32
    r = T([1.0, 3, 3, 1]).cummax(0)
    assert r.values.tolist() == [1.0, 3.0, 3.0, 3.0]
    assert r.indices.tolist() == [0, 1, 2, 2]
    assert repr(r).startswith("torch.return_types.cummax(\nvalues=")
    r = T([1.0, float("nan"), 3, 1]).cummax(0)
    assert r.indices.tolist() == [0, 1, 1, 1]
    assert T([3.0, 1, 2]).cummin(0).values.tolist() == [3.0, 1.0, 1.0]
    assert T(5.0).cumsum(0).item() == 5.0


def test_median_mode_softmax_recorded():
    assert T([1.0, 2, 3, 4]).median().item() == 2.0
    r = T([[1.0, 4, 2, 3], [9, 8, 7, 6]]).median(1)
    assert r.values.tolist() == [2.0, 7.0] and r.indices.tolist() == [2, 2]
    assert math.isnan(T([1.0, float("nan")]).median().item())
    assert math.isnan(ctorch.empty(0).median().item())
    r = T([1.0, 2, 2, 3, 3, 1]).mode()
    assert r.values.item() == 1.0 and r.indices.item() == 5
    r = T([3.0, 2, 2, 3, 3, 2]).mode(0)
    assert r.values.item() == 2.0 and r.indices.item() == 5
    s = T([[1.0, 2, 3]]).softmax(1)
    assert s.tolist()[0] == pytest.approx([0.09003057, 0.24472847, 0.66524096])
    assert T([[1.0, 2, 3]]).log_softmax(-1).tolist()[0] == pytest.approx(
        [-2.40760596, -1.40760596, -0.40760596])
    assert ctorch.softmax(T([1, 2]), 0, dtype=ctorch.float64).dtype == ctorch.float64
    assert err(lambda: T([1, 2]).softmax(0)) == (
        "RuntimeError", "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'")
    assert err(lambda: T([[1, 2]]).log_softmax(0)) == (
        "RuntimeError", "\"softmax_kernel_impl\" not implemented for 'Long'")
    assert err(lambda: ctorch.empty(0, 3).median(0)) == (
        "IndexError", "median(): Expected reduction dim 0 to have non-zero size.")


def test_median_mode_ties_recorded():
    """The index among equal values is torch 1.13's (recorded from it):
    median takes rank (n - 1) / 2 by (value, position), or the first NaN;
    nanmedian rank (non-NaN count - 1) / 2, and for an all-NaN line what
    std::nth_element leaves first; mode the last element of the first
    longest run after std::sort (Note [libstdc++ order])."""
    a = T([2, 1, 2, 1, 2, 2, 2, 2, 0, 1, 0, 2, 0, 0, 0, 1, 1, 0, 1, 2, 0, 2, 0, 0, 2,
           0, 1, 1, 0, 1, 0, 0, 0, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 2, 2, 2.0])
    r = a.mode()
    assert r.values.item() == 0.0 and r.indices.item() == 46
    assert a.median(0).indices.item() == 3
    assert T([2, 0, 2, 0, 1, 0, 1, 1, 1, 0, 2, 2, 0, 0, 1, 2, 0, 0, 2, 0.0]).mode(
        0).indices.item() == 3
    N = NAN
    b = T([1.0, 1, 1, N, 2, 0, 2, N, 1, 1, 2, 0, 2, 2, 0, 2, 0, 2, 2, 2, N, 2, 1, N, N,
           1, 0, 2, 0, 2, N, 0, N, 2, N, 0, N, 0, 1, 1])
    r = b.mode(0)
    assert r.values.item() == 2.0 and r.indices.item() == 19
    r = b.nanmedian(0)
    assert r.values.item() == 1.0 and r.indices.item() == 25
    r = b.median(0)
    assert math.isnan(r.values.item()) and r.indices.item() == 3
    m = T([[0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0],
           [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0],
           [0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1],
           [0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1],
           [1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0]])
    assert m.mode(1).indices.tolist() == [8, 0, 1, 2, 1]
    assert m.mode(0).indices.tolist() == [3, 3, 4, 4, 4, 4, 4, 3, 4, 4, 3, 3, 4, 4, 4,
                                          4, 3, 3, 4, 2, 4, 4, 3, 4]
    assert m.median(1).indices.tolist() == [4, 20, 6, 9, 2]
    assert m.t().median(0).indices.tolist() == [4, 20, 6, 9, 2]
    assert m.median(0).indices.tolist() == [2, 3, 2, 1, 0, 4, 2, 3, 2, 4, 1, 1, 2, 2, 2,
                                            4, 3, 1, 1, 2, 2, 4, 1, 4]
    for n, i in [(7, 5), (20, 12), (33, 23)]:
        r = ctorch.full((n,), NAN).nanmedian(0)
        assert math.isnan(r.values.item()) and r.indices.item() == i
    assert ctorch.full((3, 20), NAN).nanmedian(1).indices.tolist() == [12, 12, 12]
    assert ctorch.full((20,), NAN).mode(0).indices.item() == 10
    r = T([0.0, -0.0, -0.0, 0.0, 5, 5]).mode(0)
    assert repr(r.values.item()) == "0.0" and r.indices.item() == 3


def test_nanmedian_recorded():
    x = T([[1.0, NAN, 3.0], [NAN, NAN, NAN]])
    assert x.nanmedian().item() == 1.0
    r = ctorch.nanmedian(x, 1)
    assert type(r).__name__ == "nanmedian" and repr(r).startswith(
        "torch.return_types.nanmedian(\nvalues=tensor([1., nan]),\nindices=tensor([0, ")
    r = x.nanmedian(dim=0, keepdim=True)
    assert r.values.shape == (1, 3) and r.indices.tolist() == [[0, 0, 0]]
    assert math.isnan(ctorch.nanmedian(ctorch.empty(0)).item())
    assert math.isnan(T([NAN, NAN]).nanmedian().item())
    assert T([3, 1, 2, 2]).nanmedian().item() == 2
    r = T(3.0).nanmedian(-1, True)
    assert r.values.item() == 3.0 and r.indices.item() == 0 and r.indices.dim() == 0
    assert ctorch.nanmedian(ctorch.empty(0, 3), 1).values.shape == (0,)
    assert err(lambda: ctorch.empty(0, 3).nanmedian(0)) == (
        "IndexError", "median(): Expected reduction dim 0 to have non-zero size.")
    assert err(lambda: T([True]).nanmedian(0)) == (
        "RuntimeError", "\"median_out\" not implemented for 'Bool'")
    assert err(lambda: T([1.0]).half().nanmedian()) == (
        "RuntimeError", "\"median_cpu\" not implemented for 'Half'")


def test_out_and_noncontiguous_recorded():
    a = T([[1.0, 2], [3, 4]])
    o = ctorch.empty(2)
    r = ctorch.sum(a, 0, out=o)
    assert r is o and o.tolist() == [4.0, 6.0]
    assert a.t().sum(1).tolist() == [4.0, 6.0]
    assert a[:, 1].sum().item() == 6.0
    assert a.t().cumsum(0).tolist() == [[1.0, 3.0], [3.0, 7.0]]


def test_float32_sum_matches_recorded_cascade():
    """16M float32 values: the cascade gives PyTorch's float result bit for bit
    (recorded from torch 1.13: float(torch.from_numpy(x).sum()))."""
    x = np.random.RandomState(0).randn(1 << 24).astype(np.float32)
    s = ctorch.from_numpy(x).sum()
    assert float(s) == 4734.42919921875
    assert repr(s) == "tensor(4734.4292)"
    assert float(ctorch.from_numpy(x[:7]).sum()) == 7.224209785461426


def _churn():
    a = ctorch.arange(24, dtype=ctorch.float32).reshape(2, 3, 4)
    a.sum(1), a.mean((0, 2)), a.max(1), a.min(), a.argmax(2), a.std_mean if False else 0
    ctorch.var_mean(a, 1), a.norm(), a.cumsum(0), a.cummax(1), a.median(2), a.mode(0)
    a.softmax(2), a.logsumexp(1), a.all(), a.count_nonzero(), a.prod(0)
    a.nanmedian(1), a.nanmedian(), ctorch.empty(0, dtype=ctorch.int32).median()
    for fn in (lambda: a.sum(5), lambda: a.int().mean(), lambda: ctorch.empty(0).max(),
               lambda: a.bool().nanmedian(0)):
        error_of(fn)


def test_no_leaks():
    _churn()
    gc.collect()
    base = ctorch._C._live_counts()[:2]
    for _ in range(2):
        _churn()
        gc.collect()
        assert ctorch._C._live_counts()[:2] == base


# --- differential tests against PyTorch --------------------------------------
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16",
          "int8", "uint8", "bool"]


def _pair(torch, dtype, shape=(3, 4, 5), seed=0, special=False):
    r = np.random.RandomState(seed)
    x = np.asarray(r.randn(*shape) * 4)
    if special and x.size >= 4:
        f = x.reshape(-1)
        f[1], f[5 % f.size], f[2] = np.nan, np.inf, -np.inf
    if dtype == "bool":
        x = x > 0
    elif dtype.startswith(("int", "uint")):
        x = np.abs(x) if dtype == "uint8" else x
        x = np.round(x).astype(np.int64)
    t = torch.tensor(x.tolist(), dtype=getattr(torch, dtype))
    c = ctorch.tensor(x.tolist(), dtype=getattr(ctorch, dtype))
    return c, t


def _same(c, t, tol=0.0):
    if isinstance(t, tuple):
        assert type(c).__name__ == type(t).__name__
        assert len(c) == len(t)
        for a, b in zip(c, t):
            _same(a, b, tol)
        return
    assert repr(c.dtype) == repr(t.dtype), (c, t)
    assert tuple(c.shape) == tuple(t.shape), (c, t)
    cv = np.array(c.float().tolist() if c.dtype == ctorch.bfloat16 else c.tolist(),
                  dtype=np.float64)
    tv = np.array(t.float().tolist() if repr(t.dtype) == "torch.bfloat16" else t.tolist(),
                  dtype=np.float64)
    if tol == 0:
        np.testing.assert_array_equal(cv, tv)
    else:
        np.testing.assert_allclose(cv, tv, rtol=tol, atol=tol, equal_nan=True)


def _both(torch, c, t, fn, tol=0.0):
    ec, et = error_of(lambda: fn(ctorch, c)), error_of(lambda: fn(torch, t))
    if et is not None and ec is None and "not implemented for" in et[1]:
        return      # a kernel PyTorch 1.13 lacks that ctorch has
    if et is not None or ec is not None:
        assert ec is not None and et is not None, (ec, et)
        assert ec[0] == et[0], (ec, et)
        return
    _same(fn(ctorch, c), fn(torch, t), tol)


def _tol(dtype):
    return {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-5}.get(dtype, 1e-12)


DIM_ARGS = [None, 0, 1, -1, (0, 2), (-1, -2), (0, 1, 2), 3, -4]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "prod", "mean", "amax", "amin", "nansum_like"])
def test_dims_reductions_vs_torch(torch_ref, dtype, op):
    c, t = _pair(torch_ref, dtype)
    if op == "prod":
        c, t = c[:, :2, :2], t[:, :2, :2]
    if op == "nansum_like":
        op = "sum"
        c, t = c.transpose(0, 2), t.transpose(0, 2)
    for dim in DIM_ARGS:
        for keep in (False, True):
            if op == "prod" and isinstance(dim, tuple):
                continue
            if dim is None:
                if op in ("amax", "amin"):
                    continue
                _both(torch_ref, c, t, lambda m, x: getattr(x, op)(), _tol(dtype))
                continue
            _both(torch_ref, c, t, lambda m, x: getattr(x, op)(dim, keepdim=keep),
                  _tol(dtype))
            _both(torch_ref, c, t, lambda m, x: getattr(m, op)(x, dim, keep), _tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_best_vs_torch(torch_ref, dtype):
    for special in (False, True):
        if special and not dtype.startswith(("float", "bfloat")):
            continue
        c, t = _pair(torch_ref, dtype, special=special)
        for fn in (lambda m, x: x.max(), lambda m, x: x.min(), lambda m, x: x.argmax(),
                   lambda m, x: x.argmin(), lambda m, x: x.argmax(1, True),
                   lambda m, x: m.argmin(x, -1)):
            _both(torch_ref, c, t, fn)
        for dim in (0, 1, 2, -1, 3):
            for keep in (False, True):
                _both(torch_ref, c, t, lambda m, x: x.max(dim, keep))
                _both(torch_ref, c, t, lambda m, x: m.min(x, dim, keepdim=keep))
                _both(torch_ref, c, t, lambda m, x: x.amax(dim, keep))


@pytest.mark.parametrize("dtype", DTYPES)
def test_logical_vs_torch(torch_ref, dtype):
    c, t = _pair(torch_ref, dtype)
    for fn in (lambda m, x: x.all(), lambda m, x: x.any(), lambda m, x: x.all(1),
               lambda m, x: x.any(-1, True), lambda m, x: x.count_nonzero(),
               lambda m, x: m.count_nonzero(x, (0, 2)), lambda m, x: x.sum(dtype=m.float64),
               lambda m, x: x.cumsum(1), lambda m, x: x.cumprod(2),
               lambda m, x: x.cummax(0), lambda m, x: x.cummin(-1),
               lambda m, x: x.median(), lambda m, x: x.median(1),
               lambda m, x: x.mode(0)):
        _both(torch_ref, c, t, fn, _tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_float_reductions_vs_torch(torch_ref, dtype):
    tol = _tol(dtype) * 10
    for special in (False, True):
        c, t = _pair(torch_ref, dtype, special=special)
        fns = [
            lambda m, x: x.std(), lambda m, x: x.var(1), lambda m, x: x.std(0, True, True),
            lambda m, x: x.var(False), lambda m, x: x.var((0, 2), correction=0),
            lambda m, x: x.std(dim=-1, correction=2, keepdim=True),
            lambda m, x: m.std_mean(x, 1), lambda m, x: m.var_mean(x, (0, 1), True),
            lambda m, x: x.norm(), lambda m, x: x.norm(1), lambda m, x: x.norm(3, 1),
            lambda m, x: x.norm(float("inf"), (0, 2)), lambda m, x: x.norm(float("-inf")),
            lambda m, x: x.norm(p="fro", dim=(0, 1)), lambda m, x: x.norm(0, 2, True),
            lambda m, x: m.logsumexp(x, 1), lambda m, x: x.logsumexp((0, 2), True),
            lambda m, x: x.softmax(1), lambda m, x: x.log_softmax(-1),
            lambda m, x: m.softmax(x, 0, dtype=m.float64), lambda m, x: x.cumsum(0),
            lambda m, x: x.mean((0, 1)), lambda m, x: x.median(2),
        ]
        for fn in fns:
            _both(torch_ref, c, t, fn, tol)


def test_linalg_norm_vs_torch(torch_ref):
    c, t = _pair(torch_ref, "float32", shape=(4, 5))
    for fn in (lambda m, x: m.linalg.norm(x), lambda m, x: m.linalg.norm(x, dim=1),
               lambda m, x: m.linalg.norm(x[0], 1), lambda m, x: m.linalg.norm(x, "fro"),
               lambda m, x: m.linalg.vector_norm(x, 3.5),
               lambda m, x: m.linalg.vector_norm(x, float("inf"), dim=(0,), keepdim=True),
               lambda m, x: m.linalg.norm(x[1], float("-inf"))):
        _both(torch_ref, c, t, fn, 1e-5)


def test_zero_dim_and_empty_vs_torch(torch_ref):
    for shape in [(), (0,), (0, 3), (3, 0), (2, 0, 2)]:
        c, t = _pair(torch_ref, "float32", shape=shape)
        for fn in (lambda m, x: x.sum(), lambda m, x: x.sum(0), lambda m, x: x.sum(-1, True),
                   lambda m, x: x.mean(), lambda m, x: x.prod(), lambda m, x: x.max(),
                   lambda m, x: x.max(0), lambda m, x: x.amax(-1), lambda m, x: x.argmax(),
                   lambda m, x: x.argmin(0), lambda m, x: x.std(), lambda m, x: x.var(0),
                   lambda m, x: x.norm(), lambda m, x: x.all(), lambda m, x: x.any(0),
                   lambda m, x: x.logsumexp(0), lambda m, x: x.cumsum(0),
                   lambda m, x: x.cummax(0), lambda m, x: x.median(),
                   lambda m, x: x.median(0), lambda m, x: x.mode(0),
                   lambda m, x: x.softmax(0), lambda m, x: x.count_nonzero(),
                   lambda m, x: x.sum(1)):
            _both(torch_ref, c, t, fn, 1e-6)


def test_errors_vs_torch(torch_ref):
    c, t = _pair(torch_ref, "float32", shape=(2, 3))
    ci, ti = _pair(torch_ref, "int64", shape=(2, 3))
    cases = [
        (c, t, lambda m, x: x.sum(2)), (c, t, lambda m, x: x.mean(-3)),
        (c, t, lambda m, x: x.sum((1, 1))), (c, t, lambda m, x: x.max(2)),
        (c, t, lambda m, x: x.cumsum(5)), (ci, ti, lambda m, x: x.mean()),
        (ci, ti, lambda m, x: x.var()), (ci, ti, lambda m, x: x.norm()),
        (ci, ti, lambda m, x: x.softmax(1)), (ci, ti, lambda m, x: x.log_softmax(0)),
        (c, t, lambda m, x: m.empty(0).max()), (c, t, lambda m, x: m.empty(0, 2).min(0)),
        (c, t, lambda m, x: m.empty(0).argmin()),
        (c, t, lambda m, x: m.empty(2, 0).amin(1)),
        (c, t, lambda m, x: m.empty(2, 0).mode(1)),
        (ci, ti, lambda m, x: m.linalg.vector_norm(x)),
    ]
    for cc, tt, fn in cases:
        same_error(lambda: fn(ctorch, cc), lambda: fn(torch_ref, tt))


def test_noncontiguous_vs_torch(torch_ref):
    c, t = _pair(torch_ref, "float32", shape=(6, 7, 8))
    views = [lambda x: x.transpose(0, 2), lambda x: x[:, ::2, 1:],
             lambda x: x.permute(1, 2, 0)[::2]]
    for v in views:
        cv, tv = v(c), v(t)
        for fn in (lambda m, x: x.sum(), lambda m, x: x.sum(1), lambda m, x: x.sum((0, 2)),
                   lambda m, x: x.mean(-1, True), lambda m, x: x.max(1),
                   lambda m, x: x.argmin(), lambda m, x: x.var(0),
                   lambda m, x: x.cumsum(2), lambda m, x: x.softmax(0),
                   lambda m, x: x.median(1), lambda m, x: x.cummin(1),
                   lambda m, x: x.prod(2), lambda m, x: x.norm(2, (0, 1))):
            _both(torch_ref, cv, tv, fn, 1e-5)


@pytest.mark.parametrize("shape", [(4096, 33), (33, 4096), (100, 100), (7,), (1000, 3),
                                   (3, 1000), (65, 64)])
def test_float_sums_bit_exact_vs_torch(torch_ref, shape):
    x = np.random.RandomState(3).randn(*shape).astype(np.float32)
    c, t = ctorch.from_numpy(x), torch_ref.from_numpy(x)
    assert float(c.sum()) == float(t.sum())
    for d in range(len(shape)):
        assert c.sum(d).tolist() == t.sum(d).tolist()
        assert c.mean(d).tolist() == t.mean(d).tolist()
    xd = x.astype(np.float64)
    assert float(ctorch.from_numpy(xd).sum()) == float(torch_ref.from_numpy(xd).sum())


def test_large_sum_vs_torch(torch_ref):
    x = np.random.RandomState(1).rand(1 << 24).astype(np.float32)
    c, t = ctorch.from_numpy(x), torch_ref.from_numpy(x)
    assert repr(c.sum()) == repr(t.sum())
    assert repr(c.mean()) == repr(t.mean())
    m = x.reshape(4096, 4096)
    cm, tm = ctorch.from_numpy(m), torch_ref.from_numpy(m)
    assert cm.sum(0).tolist() == tm.sum(0).tolist()
    assert cm.sum(1).tolist() == tm.sum(1).tolist()
    assert cm.amax(0).tolist() == tm.amax(0).tolist()
    assert cm.argmax().item() == tm.argmax().item()
    assert abs(cm.std().item() - tm.std().item()) < 1e-6


def test_return_types_repr_vs_torch(torch_ref):
    c, t = _pair(torch_ref, "float32", shape=(2, 3))
    for name in ("max", "min", "median", "nanmedian", "mode", "cummax", "cummin"):
        assert repr(getattr(c, name)(1)) == repr(getattr(t, name)(1))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16",
                                   "bfloat16", "float32", "float64"])
def test_median_mode_ties_vs_torch(torch_ref, dtype):
    """Tie-heavy lines (values from {0, 1, 2}, NaN, all-NaN lines), short
    and past the 16-element insertion-sort cut, along every dim: the same
    index as torch's."""
    torch = torch_ref
    g = torch.Generator().manual_seed(21)
    floating = dtype in ("float16", "bfloat16", "float32", "float64")
    for shape in [(50,), (7,), (17,), (300,), (20, 30), (3, 4, 5)]:
        for k in (2, 3):
            raw = torch.randint(0, k, shape, generator=g).to(torch.float64)
            if floating:
                raw[torch.rand(shape, generator=g) < (0.1 if k == 2 else 0.6)] = NAN
                if len(shape) == 2:
                    raw[0] = NAN            # an all-NaN line along dim 1
            if dtype == "bool":
                raw = raw > 0
            t = raw.to(getattr(torch, dtype))
            c = ctorch.tensor(raw.tolist(), dtype=getattr(ctorch, dtype))
            for d in range(-len(shape), len(shape)):
                for name in ("median", "nanmedian", "mode"):
                    for v in (lambda x: x, lambda x: x.transpose(0, -1)):
                        _both(torch, v(c), v(t), lambda m, x: getattr(x, name)(d))
                _both(torch, c, t, lambda m, x: m.mode(x, d, True))
                _both(torch, c, t, lambda m, x: m.nanmedian(x, dim=d, keepdim=True))
            _both(torch, c, t, lambda m, x: x.median())
            _both(torch, c, t, lambda m, x: x.nanmedian())


def test_nanmedian_vs_torch(torch_ref):
    torch = torch_ref
    for shape in [(), (0,), (0, 3), (3, 0), (2, 0, 2), (1,), (4, 1)]:
        c, t = _pair(torch, "float32", shape=shape, special=True)
        for fn in (lambda m, x: x.nanmedian(), lambda m, x: x.nanmedian(0),
                   lambda m, x: m.nanmedian(x, -1, True), lambda m, x: x.nanmedian(dim=0)):
            _both(torch, c, t, fn)
    c, t = _pair(torch, "int64", shape=(2, 3))
    for fn in (lambda m, x: x.nanmedian(2), lambda m, x: x.bool().nanmedian(0),
               lambda m, x: x.bool().nanmedian(), lambda m, x: x.half().nanmedian(0),
               lambda m, x: m.empty(0, 3).nanmedian(0)):
        same_error(lambda: fn(ctorch, c), lambda: fn(torch, t))
    # bad arguments: the same exception (the overload listing's wording is
    # the argument parser's, as for median)
    for fn in (lambda m, x: x.nanmedian(0.5), lambda m, x: m.nanmedian(x, 1, 2),
               lambda m, x: m.nanmedian(x, keepdim=True)):
        _both(torch, c, t, fn)
    c, t = _pair(torch, "int64", shape=(0,))
    _both(torch, c, t, lambda m, x: x.median())
    _both(torch, c, t, lambda m, x: x.nanmedian())


def test_max_min_of_two_tensors_is_elementwise():
    """torch.max(a, b) / a.min(b): the elementwise overload (recorded)."""
    a = ctorch.tensor([1.0, 5.0, 3.0])
    b = ctorch.tensor([4.0, 2.0, 3.0])
    assert ctorch.max(a, b).tolist() == [4.0, 5.0, 3.0]
    assert a.min(b).tolist() == [1.0, 2.0, 3.0]
    assert repr(ctorch.max(ctorch.tensor([1, 2]), ctorch.tensor([2.5, 0.0])).dtype) == \
        "torch.float32"
