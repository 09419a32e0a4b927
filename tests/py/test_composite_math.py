"""The math compositions of python/ctorch/_composite_math.py (diff,
meshgrid, cartesian_prod, block_diag, kron, cross/linalg.cross, tensordot,
aminmax, logaddexp(2), hypot, xlogy, copysign, heaviside, isin, cdist):
values, dtypes, shapes and errors against PyTorch 1.13's, recorded below and,
with torch installed, against torch itself.

Bit for bit unless a case says otherwise: torch's CPU kernels use libm's
log/exp on some elements (logaddexp(2)'s scalar loops, xlogy) where ctorch's
ops are SLEEF's, so those allow a few units in the last place (2 for the
recorded cases, 4 for random broadcasts); float64 hypot allows 1; cdist and
tensordot sum in another order than torch's kernels and are compared with a
relative tolerance.
"""
import math
import warnings

import numpy as np
import pytest

import ctorch

NAN, INF = float("nan"), float("inf")
nan, inf = NAN, INF          # as the recorded values below print them
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.7, 1e-30, 1e30, 88.7, -100.0, 1e-40, 3e38,
           INF, -INF, NAN]


def _t(M, v, dt="float32"):
    return M.tensor(v, dtype=getattr(M, dt))


def _pair(M, fn, dt, v=SPECIAL):
    a = _t(M, v, dt)
    return getattr(M, fn)(a.reshape(-1, 1), a.reshape(1, -1))


# (name, f(M) -> result, ulps): f runs on ctorch and on torch alike; ulps is
# the difference in units in the last place allowed (None: exact, or the
# relative tolerance for cdist's "tol")
CASES = [
    # pointwise
    ("logaddexp", lambda M: _pair(M, "logaddexp", "float32"), 2),
    ("logaddexp64", lambda M: _pair(M, "logaddexp", "float64"), 2),
    ("logaddexp_bf16", lambda M: _pair(M, "logaddexp", "bfloat16"), 0),
    ("logaddexp_mixed", lambda M: M.logaddexp(M.arange(3), _t(M, [1.0, -2.0, 0.5])), 2),
    ("logaddexp2", lambda M: _pair(M, "logaddexp2", "float32"), 2),
    ("logaddexp2_64", lambda M: _pair(M, "logaddexp2", "float64"), 2),
    ("logaddexp2_bf16", lambda M: _pair(M, "logaddexp2", "bfloat16"), 0),
    ("hypot", lambda M: _pair(M, "hypot", "float32"), 0),
    ("hypot64", lambda M: _pair(M, "hypot", "float64"), 1),
    ("hypot_bf16", lambda M: _pair(M, "hypot", "bfloat16"), 0),
    ("hypot_method", lambda M: _t(M, [3.0, 5.0]).hypot(_t(M, [4.0, 12.0], "float64")), 0),
    ("hypot_", lambda M: _t(M, [3.0, 5.0]).hypot_(_t(M, [4.0, 12.0])), 0),
    ("xlogy", lambda M: _pair(M, "xlogy", "float32"), 2),
    ("xlogy64", lambda M: _pair(M, "xlogy", "float64"), 0),
    ("xlogy_half", lambda M: _pair(M, "xlogy", "float16"), 0),
    ("xlogy_bf16", lambda M: _pair(M, "xlogy", "bfloat16"), 0),
    ("xlogy_int", lambda M: M.xlogy(M.arange(4), M.arange(4)), 0),
    ("xlogy_scalar_other", lambda M: M.xlogy(_t(M, [0.0, 2.0, NAN]), 3), 2),
    ("xlogy_scalar_self", lambda M: M.xlogy(2.5, _t(M, [0.0, 2.0, NAN], "float64")), 0),
    ("xlogy_", lambda M: _t(M, [0.0, 2.0, 1.5]).xlogy_(_t(M, [NAN, 3.0, 0.0])), 2),
    ("copysign", lambda M: _pair(M, "copysign", "float32"), 0),
    ("copysign_half", lambda M: _pair(M, "copysign", "float16"), 0),
    ("copysign_int", lambda M: M.copysign(M.arange(-2, 3), _t(M, [-0.0, 0.0, -1.0, NAN, 2.0])), 0),
    ("copysign_bool", lambda M: M.copysign(M.tensor([True, False]), -1), 0),
    ("copysign_scalar", lambda M: M.copysign(_t(M, [1.0, -2.0], "float64"), -0.0), 0),
    ("copysign_", lambda M: _t(M, [1.0, -2.0]).copysign_(_t(M, [-1.0, 3.0])), 0),
    ("heaviside", lambda M: M.heaviside(_t(M, SPECIAL), _t(M, [0.5])), 0),
    ("heaviside_int", lambda M: M.heaviside(M.arange(-2, 3), M.tensor([7])), 0),
    ("heaviside_bool", lambda M: M.heaviside(M.tensor([True, False]), M.tensor([True, False])), 0),
    ("heaviside_", lambda M: _t(M, [-1.0, 0.0, 2.0]).heaviside_(_t(M, [9.0])), 0),
    # shapes
    ("diff", lambda M: M.diff(M.tensor([[1, 4, 9, 16], [2, 3, 5, 7]])), 0),
    ("diff_n2_dim0", lambda M: M.diff(_t(M, [[1.0, 2.0], [4.0, 8.0], [9.0, 27.0]]), n=2, dim=0), 0),
    ("diff_bool", lambda M: M.diff(M.tensor([True, False, False, True])), 0),
    ("diff_n_large", lambda M: M.diff(M.arange(4), n=7), 0),
    ("diff_n0", lambda M: M.diff(M.arange(4), n=0, prepend=M.arange(2)), 0),
    ("diff_neg_n", lambda M: M.diff(M.arange(4), n=-1, append=M.arange(2)), 0),
    ("diff_prepend_append", lambda M: M.diff(M.tensor([[True, False]]), dim=1,
                                             prepend=M.tensor([[3]]),
                                             append=_t(M, [[0.5, 1.5]])), 0),
    ("diff_uint8", lambda M: M.tensor([5, 2], dtype=M.uint8).diff(), 0),
    ("meshgrid_ij", lambda M: M.meshgrid(M.arange(3), M.arange(2), indexing="ij"), 0),
    ("meshgrid_xy", lambda M: M.meshgrid([M.arange(3), M.arange(2), M.tensor(7)],
                                         indexing="xy"), 0),
    ("meshgrid_one_xy", lambda M: M.meshgrid(_t(M, [1.0, 2.0]), indexing="xy"), 0),
    ("cartesian_prod", lambda M: M.cartesian_prod(M.arange(2), M.arange(3), M.arange(1)), 0),
    ("cartesian_prod_one", lambda M: M.cartesian_prod(M.arange(3)), 0),
    ("cartesian_prod_empty", lambda M: M.cartesian_prod(M.arange(3), M.arange(0)), 0),
    ("block_diag", lambda M: M.block_diag(M.tensor(5), M.tensor([True, False]),
                                          _t(M, [[1.5], [2.5]]), M.zeros(0, 2)), 0),
    ("block_diag_empty1d", lambda M: M.block_diag(M.zeros(0), M.arange(2)), 0),
    ("block_diag_none", lambda M: M.block_diag(), 0),
    ("kron", lambda M: M.kron(M.tensor([[1, 2], [3, 4]]), M.tensor([[0, 1], [1, 0]])), 0),
    ("kron_mixed", lambda M: M.kron(M.tensor(2.5), M.arange(3).reshape(3, 1)), 0),
    ("kron_ranks", lambda M: M.arange(2).kron(_t(M, [[[1.0, -1.0]]], "float64")), 0),
    ("kron_bool", lambda M: M.kron(M.tensor([True, False]), M.tensor([True, True])), 0),
    ("cross", lambda M: M.cross(_t(M, [[1.1, 2.3, -0.7], [0.3, 0.1, 9.0]]),
                                _t(M, [[0.2, -1.9, 4.4], [1.0, 1.0, 1.0]])), 0),
    ("cross_dim0", lambda M: M.cross(M.arange(9).reshape(3, 3), M.ones(3, 3, dtype=M.int64)), 0),
    ("cross_f64_dim", lambda M: M.cross(_t(M, [[0.1, 0.2, 0.3]] * 3, "float64"),
                                        _t(M, [[0.7, -0.3, 0.11]] * 3, "float64"), dim=1), 0),
    ("linalg_cross", lambda M: M.linalg.cross(_t(M, [[1.1, 2.3, -0.7]]),
                                              _t(M, [[0.2, -1.9, 4.4], [3.0, 1.0, 2.0]])), 0),
    ("cross_method", lambda M: M.arange(3).cross(M.tensor([2, 0, 1])), 0),
    ("tensordot", lambda M: M.tensordot(M.arange(24).reshape(2, 3, 4),
                                        M.arange(12).reshape(4, 3), dims=([1, 2], [1, 0])), 0),
    ("tensordot_int", lambda M: M.tensordot(M.arange(6.).reshape(2, 3),
                                            M.arange(12.).reshape(3, 4), 1), 0),
    ("tensordot_0", lambda M: M.tensordot(M.arange(2.), M.arange(3.), 0), 0),
    ("tensordot_bcast", lambda M: M.tensordot(M.arange(6.).reshape(2, 3),
                                              M.arange(4.).reshape(1, 4), dims=([1], [0])), 0),
    ("aminmax", lambda M: M.aminmax(_t(M, [[1.0, -2.0, 5.0], [0.5, 7.0, -9.0]])), 0),
    ("aminmax_dim", lambda M: M.aminmax(M.tensor([[1, -2, 5], [0, 7, -9]]), dim=1), 0),
    ("aminmax_keepdim", lambda M: M.aminmax(M.arange(6.).reshape(2, 3), dim=0, keepdim=True), 0),
    ("aminmax_all_keepdim", lambda M: M.aminmax(M.arange(6.).reshape(2, 3), keepdim=True), 0),
    ("aminmax_nan", lambda M: _t(M, [1.0, NAN, 2.0]).aminmax(), 0),
    ("aminmax_bool", lambda M: M.aminmax(M.tensor([True, False])), 0),
    ("aminmax_0d", lambda M: M.aminmax(M.tensor(3.0), dim=0), 0),
    ("aminmax_empty_other_dim", lambda M: M.aminmax(M.zeros(0, 3), dim=1), 0),
    ("isin", lambda M: M.isin(M.tensor([[1, 2], [3, 4]]), M.tensor([2, 3, 9])), 0),
    ("isin_invert", lambda M: M.isin(M.arange(5), M.tensor([[4, 0]]), invert=True), 0),
    ("isin_nan_zero", lambda M: M.isin(_t(M, [1.0, NAN, -0.0, 2.5]), _t(M, [NAN, 0.0, 2.5])), 0),
    ("isin_promote", lambda M: M.isin(M.tensor([257, 1]), M.tensor([1], dtype=M.uint8)), 0),
    ("isin_scalar", lambda M: M.isin(M.arange(3), 1.5), 0),
    ("isin_scalar_int", lambda M: M.isin(_t(M, [1.0, 1.5]), 1), 0),
    ("isin_number_elem", lambda M: M.isin(2, M.arange(3)), 0),
    ("isin_empty_test", lambda M: M.isin(M.arange(3), M.tensor([], dtype=M.int64)), 0),
    ("isin_unique", lambda M: M.isin(M.arange(4), M.arange(2), assume_unique=True), 0),
    ("cdist", lambda M: M.cdist(_t(M, [[0.0, 1.0], [2.0, 3.0]]),
                                _t(M, [[1.0, 1.0], [0.0, 0.0], [3.0, -1.0]])), 1e-6),
    ("cdist_p1", lambda M: M.cdist(_t(M, [[0.0, 1.0], [2.0, 3.0]]),
                                   _t(M, [[1.0, 1.0], [0.0, 0.0]]), p=1), 1e-6),
    ("cdist_p0", lambda M: M.cdist(_t(M, [[0.0, 1.0], [2.0, 3.0]]),
                                   _t(M, [[0.0, 1.0], [0.0, 5.0]]), p=0), 1e-6),
    ("cdist_pinf", lambda M: M.cdist(_t(M, [[0.0, 1.0], [2.0, 3.0]]),
                                     _t(M, [[1.0, 4.0]]), p=INF), 1e-6),
    ("cdist_batch", lambda M: M.cdist(M.arange(12.).reshape(2, 3, 2),
                                      M.arange(4.).reshape(1, 2, 2), p=3), 1e-6),
    ("cdist_mm", lambda M: M.cdist(M.arange(60.).reshape(30, 2) / 7, _t(M, [[1.0, 2.0]])), 1e-5),
    ("cdist_mm64", lambda M: M.cdist(M.arange(4.).reshape(2, 2).double(),
                                     _t(M, [[1.0, 2.0]], "float64"),
                                     compute_mode="use_mm_for_euclid_dist"), 1e-12),
    ("cdist_empty", lambda M: M.cdist(M.zeros(2, 0), M.zeros(3, 0)), 1e-6),
]

# (name, f(M)) whose result is an exception
ERRORS = [
    ("logaddexp_long", lambda M: M.logaddexp(M.arange(3), M.arange(3))),
    ("logaddexp_half", lambda M: M.logaddexp(M.ones(2).half(), M.ones(2).half())),
    ("logaddexp_number", lambda M: M.logaddexp(M.ones(2), 2)),
    ("logaddexp_number_self", lambda M: M.logaddexp(2.5, M.ones(2))),
    ("logaddexp_method_number", lambda M: M.ones(2).logaddexp(2.5)),
    ("logaddexp_shape", lambda M: M.logaddexp(M.ones(3), M.ones(2))),
    ("logaddexp2_bool", lambda M: M.logaddexp2(M.tensor([True]), M.tensor([True]))),
    ("hypot_long", lambda M: M.hypot(M.arange(3), M.arange(3))),
    ("hypot_number", lambda M: M.hypot(M.ones(2), 2.5)),
    ("hypot_inplace_long", lambda M: M.arange(3).hypot_(M.ones(3))),
    ("hypot_inplace_number", lambda M: M.ones(3).hypot_(2.0)),
    ("xlogy_numbers", lambda M: M.xlogy(2, 3)),
    ("xlogy_shape", lambda M: M.xlogy(M.ones(3), M.ones(2))),
    ("xlogy_inplace_long", lambda M: M.arange(3).xlogy_(M.ones(3))),
    ("copysign_number_self", lambda M: M.copysign(2.5, M.ones(2))),
    ("copysign_numbers", lambda M: M.copysign(2, 3)),
    ("copysign_shape", lambda M: M.copysign(M.ones(3), M.ones(2))),
    ("copysign_inplace_long", lambda M: M.arange(3).copysign_(M.ones(3))),
    ("heaviside_dtypes", lambda M: M.heaviside(M.arange(3), M.ones(1))),
    ("heaviside_dtypes_0d", lambda M: M.heaviside(M.ones(3).half(), M.tensor(2.0))),
    ("heaviside_number", lambda M: M.heaviside(M.ones(3), 0.5)),
    ("heaviside_method_number", lambda M: M.ones(3).heaviside(0.5)),
    ("diff_0d", lambda M: M.diff(M.tensor(2))),
    ("diff_dim", lambda M: M.diff(M.arange(3), dim=3)),
    ("diff_prepend_rank", lambda M: M.diff(M.arange(3), prepend=M.zeros(2, 2))),
    ("diff_prepend_shape", lambda M: M.diff(M.zeros(2, 3), prepend=M.zeros(3, 3))),
    ("diff_append_shape", lambda M: M.diff(M.zeros(2, 3), dim=0, append=M.zeros(3, 2))),
    ("diff_prepend_number", lambda M: M.diff(M.arange(3), prepend=1)),
    ("meshgrid_indexing", lambda M: M.meshgrid(M.arange(3), indexing="foo")),
    ("meshgrid_none", lambda M: M.meshgrid(indexing="ij")),
    ("meshgrid_dtypes", lambda M: M.meshgrid(M.arange(3), M.ones(2), indexing="ij")),
    ("cartesian_prod_2d", lambda M: M.cartesian_prod(M.zeros(2, 2))),
    ("cartesian_prod_none", lambda M: M.cartesian_prod()),
    ("cartesian_prod_dtypes", lambda M: M.cartesian_prod(M.arange(2), M.ones(2))),
    ("block_diag_3d", lambda M: M.block_diag(M.ones(2), M.zeros(2, 2, 2))),
    ("cross_no_3", lambda M: M.cross(M.ones(2, 4), M.ones(2, 4))),
    ("cross_ranks", lambda M: M.cross(M.ones(3, 3, 4), M.ones(3, 4))),
    ("cross_dim_len", lambda M: M.cross(M.ones(3, 4), M.ones(3, 4), dim=1)),
    ("cross_other_len", lambda M: M.cross(M.ones(3, 4), M.ones(4, 4))),
    ("cross_dtypes", lambda M: M.cross(M.ones(3), M.ones(3).double())),
    ("cross_bool", lambda M: M.cross(M.ones(3).bool(), M.ones(3).bool())),
    ("cross_half", lambda M: M.cross(M.ones(3).half(), M.ones(3).half())),
    ("cross_dim_range", lambda M: M.cross(M.ones(3), M.ones(3), dim=3)),
    ("linalg_cross_len", lambda M: M.linalg.cross(M.ones(3, 4), M.ones(3, 4))),
    ("linalg_cross_bcast", lambda M: M.linalg.cross(M.ones(2, 3), M.ones(4, 3))),
    ("linalg_cross_ranks", lambda M: M.linalg.cross(M.ones(3), M.ones(3, 3))),
    ("tensordot_neg", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4), dims=-1)),
    ("tensordot_mismatch", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4), dims=2)),
    ("tensordot_mismatch_list", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4),
                                                      dims=([0], [0]))),
    ("tensordot_lengths", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4), dims=([1], [0, 1]))),
    ("tensordot_dims_type", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4), dims="a")),
    ("tensordot_dims_range", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4), dims=([5], [0]))),
    ("tensordot_dims_twice", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4),
                                                   dims=([1, 1], [0, 0]))),
    ("tensordot_dtypes", lambda M: M.tensordot(M.ones(2, 3), M.ones(3, 4).double(), 1)),
    ("aminmax_empty", lambda M: M.aminmax(M.zeros(0))),
    ("aminmax_empty_dim", lambda M: M.aminmax(M.zeros(0, 3), dim=0)),
    ("aminmax_dim_range", lambda M: M.aminmax(M.zeros(2, 3), dim=3)),
    ("aminmax_positional_dim", lambda M: M.aminmax(M.zeros(2, 3), 1)),
    ("isin_numbers", lambda M: M.isin(1, 2)),
    ("isin_bool", lambda M: M.isin(M.arange(3), M.tensor([True]))),
    ("isin_bool_number", lambda M: M.isin(M.arange(3), True)),
    ("isin_bf16", lambda M: M.isin(M.ones(2).bfloat16(), M.ones(2))),
    ("cdist_1d", lambda M: M.cdist(M.ones(3), M.ones(4, 3))),
    ("cdist_1d_x2", lambda M: M.cdist(M.ones(2, 3).long(), M.ones(3))),
    ("cdist_cols", lambda M: M.cdist(M.ones(2, 3), M.ones(4, 2), p=-1)),
    ("cdist_p", lambda M: M.cdist(M.ones(2, 3), M.ones(4, 3), p=-1)),
    ("cdist_long", lambda M: M.cdist(M.ones(2, 3).long(), M.ones(4, 3))),
    ("cdist_long_x2", lambda M: M.cdist(M.ones(2, 3), M.ones(4, 3).long())),
    ("cdist_dtypes", lambda M: M.cdist(M.ones(2, 3), M.ones(4, 3).double())),
    ("cdist_half", lambda M: M.cdist(M.ones(2, 3).half(), M.ones(4, 3).half())),
    ("cdist_batch", lambda M: M.cdist(M.ones(2, 2, 3), M.ones(3, 3, 3))),
    ("cdist_mode", lambda M: M.cdist(M.ones(2, 3), M.ones(4, 3), compute_mode="bad")),
]


def summary(r):
    """A result as plain data: (dtype, shape, values) for a tensor, a list
    for a tuple (aminmax: its type name first), (type, message) for an error."""
    if isinstance(r, BaseException):
        return (type(r).__name__, str(r))
    if isinstance(r, tuple):
        head = [type(r).__name__] if type(r).__name__ == "aminmax" else []
        return head + [summary(x) for x in r]
    dt = str(r.dtype).split(".")[-1]
    x = r.detach()
    if dt == "bfloat16":
        x = x.float()
    return (dt, tuple(r.shape), x.tolist())


def run(M, f):
    try:
        return f(M)
    except Exception as e:      # noqa: BLE001 - the error is the result
        return e


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


def _ulps(a, b, dt):
    if isinstance(a, bool) or isinstance(a, int):
        return 0 if a == b else INF
    if math.isnan(a) and math.isnan(b):
        return 0
    if a == b:
        return 0 if math.copysign(1, a) == math.copysign(1, b) else INF
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return INF
    np_dt = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
             "bfloat16": np.float32}[dt]
    step = float(np.spacing(np_dt(abs(b))))
    if dt == "bfloat16":
        step *= 2 ** 16
    return abs(a - b) / step


def assert_same(got, want, tol=0):
    """got == want, floats within tol ulps (or relative tol < 1 for cdist)."""
    if isinstance(want, list) and want and isinstance(want[0], str):
        assert isinstance(got, list) and got[0] == want[0], (got, want)
        got, want = got[1:], want[1:]
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert_same(g, w, tol)
        return
    if len(want) == 2:                       # an error
        assert tuple(got) == tuple(want)
        return
    assert (got[0], tuple(got[1])) == (want[0], tuple(want[1])), (got, want)
    gv, wv = list(_flat(got[2])), list(_flat(want[2]))
    assert len(gv) == len(wv)
    for i, (g, w) in enumerate(zip(gv, wv)):
        if tol and tol < 1:
            ok = (math.isnan(g) and math.isnan(w)) or abs(g - w) <= tol * (1 + abs(w))
        else:
            ok = _ulps(g, w, got[0]) <= tol
        assert ok, "element %d: got %r, want %r (%s)" % (i, g, w, got[0])


# torch 1.13's results for CASES and ERRORS
RECORDED = {'aminmax': ['aminmax', ('float32', (), -9.0), ('float32', (), 7.0)],
 'aminmax_0d': ['aminmax', ('float32', (), 3.0), ('float32', (), 3.0)],
 'aminmax_all_keepdim': ['aminmax', ('float32', (1, 1), [[0.0]]), ('float32', (1, 1), [[5.0]])],
 'aminmax_bool': ['aminmax', ('bool', (), False), ('bool', (), True)],
 'aminmax_dim': ['aminmax', ('int64', (2,), [-2, -9]), ('int64', (2,), [5, 7])],
 'aminmax_empty_other_dim': ['aminmax', ('float32', (0,), []), ('float32', (0,), [])],
 'aminmax_keepdim': ['aminmax', ('float32', (1, 3), [[0.0, 1.0, 2.0]]),
                     ('float32', (1, 3), [[3.0, 4.0, 5.0]])],
 'aminmax_nan': ['aminmax', ('float32', (), nan), ('float32', (), nan)],
 'block_diag': ('float32', (4, 6),
                [[5.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
                 [0.0, 0.0, 0.0, 1.5, 0.0, 0.0], [0.0, 0.0, 0.0, 2.5, 0.0, 0.0]]),
 'block_diag_empty1d': ('float32', (2, 2), [[0.0, 0.0], [0.0, 1.0]]),
 'block_diag_none': ('float32', (1, 0), [[]]),
 'cartesian_prod': ('int64', (6, 3),
                    [[0, 0, 0], [0, 1, 0], [0, 2, 0], [1, 0, 0], [1, 1, 0], [1, 2, 0]]),
 'cartesian_prod_empty': ('int64', (0, 2), []),
 'cartesian_prod_one': ('int64', (3,), [0, 1, 2]),
 'cdist': ('float32', (2, 3),
           [[1.0, 1.0, 3.605551242828369],
            [2.2360680103302, 3.605551242828369, 4.123105525970459]]),
 'cdist_batch': ('float32', (2, 3, 2),
                 [[[0.0, 2.5198421478271484], [2.5198421478271484, 0.0],
                   [5.039684295654297, 2.5198421478271484]],
                  [[7.559526443481445, 5.039684295654297],
                   [10.079368591308594, 7.559526443481445],
                   [12.599210739135742, 10.079368591308594]]]),
 'cdist_empty': ('float32', (2, 3), [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
 'cdist_mm': ('float32', (30, 1),
              [[2.109260320663452], [1.7261494398117065], [1.3552619218826294],
               [1.0101525783538818], [0.7284311652183533], [0.6060917973518372],
               [0.7284315228462219], [1.010152816772461], [1.3552619218826294],
               [1.726149320602417], [2.109260082244873], [2.498979330062866],
               [2.892636775970459], [3.288818359375], [3.686710834503174], [4.085814476013184],
               [4.485805511474609], [4.886466026306152], [5.287644386291504],
               [5.689230918884277], [6.091144561767578], [6.4933247566223145],
               [6.895724773406982], [7.298308849334717], [7.701046943664551],
               [8.10391616821289], [8.506900787353516], [8.909980773925781],
               [9.313146591186523], [9.716386795043945]]),
 'cdist_mm64': ('float64', (2, 1), [[1.4142135623730951], [1.4142135623730951]]),
 'cdist_p0': ('float32', (2, 2), [[0.0, 1.0], [2.0, 2.0]]),
 'cdist_p1': ('float32', (2, 2), [[1.0, 1.0], [3.0, 5.0]]),
 'cdist_pinf': ('float32', (2, 1), [[3.0], [1.0]]),
 'copysign': ('float32', (16, 16),
              [[0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0,
                0.0],
               [0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0,
                0.0],
               [1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0,
                1.0],
               [1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0,
                1.0],
               [0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0.5, 0.5, -0.5,
                0.5],
               [2.5, -2.5, 2.5, -2.5, 2.5, 2.5, -2.5, 2.5, 2.5, 2.5, -2.5, 2.5, 2.5, 2.5, -2.5,
                2.5],
               [3.700000047683716, -3.700000047683716, 3.700000047683716, -3.700000047683716,
                3.700000047683716, 3.700000047683716, -3.700000047683716, 3.700000047683716,
                3.700000047683716, 3.700000047683716, -3.700000047683716, 3.700000047683716,
                3.700000047683716, 3.700000047683716, -3.700000047683716, 3.700000047683716],
               [1.0000000031710769e-30, -1.0000000031710769e-30, 1.0000000031710769e-30,
                -1.0000000031710769e-30, 1.0000000031710769e-30, 1.0000000031710769e-30,
                -1.0000000031710769e-30, 1.0000000031710769e-30, 1.0000000031710769e-30,
                1.0000000031710769e-30, -1.0000000031710769e-30, 1.0000000031710769e-30,
                1.0000000031710769e-30, 1.0000000031710769e-30, -1.0000000031710769e-30,
                1.0000000031710769e-30],
               [1.0000000150474662e+30, -1.0000000150474662e+30, 1.0000000150474662e+30,
                -1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                -1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                1.0000000150474662e+30, -1.0000000150474662e+30, 1.0000000150474662e+30,
                1.0000000150474662e+30, 1.0000000150474662e+30, -1.0000000150474662e+30,
                1.0000000150474662e+30],
               [88.69999694824219, -88.69999694824219, 88.69999694824219, -88.69999694824219,
                88.69999694824219, 88.69999694824219, -88.69999694824219, 88.69999694824219,
                88.69999694824219, 88.69999694824219, -88.69999694824219, 88.69999694824219,
                88.69999694824219, 88.69999694824219, -88.69999694824219, 88.69999694824219],
               [100.0, -100.0, 100.0, -100.0, 100.0, 100.0, -100.0, 100.0, 100.0, 100.0, -100.0,
                100.0, 100.0, 100.0, -100.0, 100.0],
               [9.99994610111476e-41, -9.99994610111476e-41, 9.99994610111476e-41,
                -9.99994610111476e-41, 9.99994610111476e-41, 9.99994610111476e-41,
                -9.99994610111476e-41, 9.99994610111476e-41, 9.99994610111476e-41,
                9.99994610111476e-41, -9.99994610111476e-41, 9.99994610111476e-41,
                9.99994610111476e-41, 9.99994610111476e-41, -9.99994610111476e-41,
                9.99994610111476e-41],
               [3.0000000054977558e+38, -3.0000000054977558e+38, 3.0000000054977558e+38,
                -3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                -3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                3.0000000054977558e+38, -3.0000000054977558e+38, 3.0000000054977558e+38,
                3.0000000054977558e+38, 3.0000000054977558e+38, -3.0000000054977558e+38,
                3.0000000054977558e+38],
               [inf, -inf, inf, -inf, inf, inf, -inf, inf, inf, inf, -inf, inf, inf, inf, -inf,
                inf],
               [inf, -inf, inf, -inf, inf, inf, -inf, inf, inf, inf, -inf, inf, inf, inf, -inf,
                inf],
               [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                nan]]),
 'copysign_': ('float32', (2,), [-1.0, 2.0]),
 'copysign_bool': ('float32', (2,), [-1.0, -0.0]),
 'copysign_half': ('float16', (16, 16),
                   [[0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0,
                     -0.0, 0.0],
                    [0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0,
                     -0.0, 0.0],
                    [1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0,
                     -1.0, 1.0],
                    [1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0,
                     -1.0, 1.0],
                    [0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0.5, 0.5,
                     -0.5, 0.5],
                    [2.5, -2.5, 2.5, -2.5, 2.5, 2.5, -2.5, 2.5, 2.5, 2.5, -2.5, 2.5, 2.5, 2.5,
                     -2.5, 2.5],
                    [3.69921875, -3.69921875, 3.69921875, -3.69921875, 3.69921875, 3.69921875,
                     -3.69921875, 3.69921875, 3.69921875, 3.69921875, -3.69921875, 3.69921875,
                     3.69921875, 3.69921875, -3.69921875, 3.69921875],
                    [0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0,
                     -0.0, 0.0],
                    [inf, -inf, inf, -inf, inf, inf, -inf, inf, inf, inf, -inf, inf, inf, inf,
                     -inf, inf],
                    [88.6875, -88.6875, 88.6875, -88.6875, 88.6875, 88.6875, -88.6875, 88.6875,
                     88.6875, 88.6875, -88.6875, 88.6875, 88.6875, 88.6875, -88.6875, 88.6875],
                    [100.0, -100.0, 100.0, -100.0, 100.0, 100.0, -100.0, 100.0, 100.0, 100.0,
                     -100.0, 100.0, 100.0, 100.0, -100.0, 100.0],
                    [0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0,
                     -0.0, 0.0],
                    [inf, -inf, inf, -inf, inf, inf, -inf, inf, inf, inf, -inf, inf, inf, inf,
                     -inf, inf],
                    [inf, -inf, inf, -inf, inf, inf, -inf, inf, inf, inf, -inf, inf, inf, inf,
                     -inf, inf],
                    [inf, -inf, inf, -inf, inf, inf, -inf, inf, inf, inf, -inf, inf, inf, inf,
                     -inf, inf],
                    [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                     nan]]),
 'copysign_int': ('float32', (5,), [-2.0, 1.0, -0.0, 1.0, 2.0]),
 'copysign_scalar': ('float64', (2,), [-1.0, -2.0]),
 'cross': ('float32', (2, 3),
           [[8.789999961853027, -4.980000019073486, -2.549999952316284],
            [-8.899999618530273, 8.699999809265137, 0.20000001788139343]]),
 'cross_dim0': ('int64', (3, 3), [[-3, -3, -3], [6, 6, 6], [-3, -3, -3]]),
 'cross_f64_dim': ('float64', (3, 3),
                   [[0.112, 0.19899999999999998, -0.16999999999999998],
                    [0.112, 0.19899999999999998, -0.16999999999999998],
                    [0.112, 0.19899999999999998, -0.16999999999999998]]),
 'cross_method': ('int64', (3,), [1, 4, -2]),
 'diff': ('int64', (2, 3), [[3, 5, 7], [1, 2, 2]]),
 'diff_bool': ('bool', (3,), [True, False, True]),
 'diff_n0': ('int64', (4,), [0, 1, 2, 3]),
 'diff_n2_dim0': ('float32', (1, 2), [[2.0, 13.0]]),
 'diff_n_large': ('int64', (0,), []),
 'diff_neg_n': ('int64', (6,), [0, 1, 2, 3, 0, 1]),
 'diff_prepend_append': ('float32', (1, 4), [[-2.0, -1.0, 0.5, 1.0]]),
 'diff_uint8': ('uint8', (1,), [253]),
 'heaviside': ('float32', (16,),
               [0.5, 0.5, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0,
                0.0]),
 'heaviside_': ('float32', (3,), [0.0, 9.0, 1.0]),
 'heaviside_bool': ('bool', (2,), [True, False]),
 'heaviside_int': ('int64', (5,), [0, 0, 7, 1, 1]),
 'hypot': ('float32', (16, 16),
           [[0.0, 0.0, 1.0, 1.0, 0.5, 2.5, 3.700000047683716, 1.0000000031710769e-30,
             1.0000000150474662e+30, 88.69999694824219, 100.0, 9.99994610111476e-41,
             3.0000000054977558e+38, inf, inf, nan],
            [0.0, 0.0, 1.0, 1.0, 0.5, 2.5, 3.700000047683716, 1.0000000031710769e-30,
             1.0000000150474662e+30, 88.69999694824219, 100.0, 9.99994610111476e-41,
             3.0000000054977558e+38, inf, inf, nan],
            [1.0, 1.0, 1.4142135381698608, 1.4142135381698608, 1.1180340051651,
             2.692582368850708, 3.8327536582946777, 1.0, 1.0000000150474662e+30,
             88.70563507080078, 100.00499725341797, 1.0, 3.0000000054977558e+38, inf, inf,
             nan],
            [1.0, 1.0, 1.4142135381698608, 1.4142135381698608, 1.1180340051651,
             2.692582368850708, 3.8327536582946777, 1.0, 1.0000000150474662e+30,
             88.70563507080078, 100.00499725341797, 1.0, 3.0000000054977558e+38, inf, inf,
             nan],
            [0.5, 0.5, 1.1180340051651, 1.1180340051651, 0.7071067690849304, 2.5495097637176514,
             3.733630895614624, 0.5, 1.0000000150474662e+30, 88.70140838623047,
             100.00125122070312, 0.5, 3.0000000054977558e+38, inf, inf, nan],
            [2.5, 2.5, 2.692582368850708, 2.692582368850708, 2.5495097637176514,
             3.535533905029297, 4.465422630310059, 2.5, 1.0000000150474662e+30,
             88.73522186279297, 100.03124237060547, 2.5, 3.0000000054977558e+38, inf, inf,
             nan],
            [3.700000047683716, 3.700000047683716, 3.8327536582946777, 3.8327536582946777,
             3.733630895614624, 4.465422630310059, 5.232590198516846, 3.700000047683716,
             1.0000000150474662e+30, 88.77713012695312, 100.06842803955078, 3.700000047683716,
             3.0000000054977558e+38, inf, inf, nan],
            [1.0000000031710769e-30, 1.0000000031710769e-30, 1.0, 1.0, 0.5, 2.5,
             3.700000047683716, 1.4142135555081815e-30, 1.0000000150474662e+30,
             88.69999694824219, 100.0, 1.0000000031710769e-30, 3.0000000054977558e+38, inf, inf,
             nan],
            [1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
             1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
             1.0000000150474662e+30, 1.0000000150474662e+30, 1.4142135130433894e+30,
             1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
             3.0000000054977558e+38, inf, inf, nan],
            [88.69999694824219, 88.69999694824219, 88.70563507080078, 88.70563507080078,
             88.70140838623047, 88.73522186279297, 88.77713012695312, 88.69999694824219,
             1.0000000150474662e+30, 125.44073486328125, 133.67007446289062, 88.69999694824219,
             3.0000000054977558e+38, inf, inf, nan],
            [100.0, 100.0, 100.00499725341797, 100.00499725341797, 100.00125122070312,
             100.03124237060547, 100.06842803955078, 100.0, 1.0000000150474662e+30,
             133.67007446289062, 141.42135620117188, 100.0, 3.0000000054977558e+38, inf, inf,
             nan],
            [9.99994610111476e-41, 9.99994610111476e-41, 1.0, 1.0, 0.5, 2.5, 3.700000047683716,
             1.0000000031710769e-30, 1.0000000150474662e+30, 88.69999694824219, 100.0,
             1.4142044231812486e-40, 3.0000000054977558e+38, inf, inf, nan],
            [3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
             3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
             3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
             3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38, inf, inf,
             inf, nan],
            [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf],
            [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf],
            [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, inf, inf, nan]]),
 'hypot64': ('float64', (16, 16),
             [[0.0, 0.0, 1.0, 1.0, 0.5, 2.5, 3.7, 1e-30, 1e+30, 88.7, 100.0, 1e-40, 3e+38, inf,
               inf, nan],
              [0.0, 0.0, 1.0, 1.0, 0.5, 2.5, 3.7, 1e-30, 1e+30, 88.7, 100.0, 1e-40, 3e+38, inf,
               inf, nan],
              [1.0, 1.0, 1.4142135623730951, 1.4142135623730951, 1.118033988749895,
               2.692582403567252, 3.83275357934736, 1.0, 1e+30, 88.7056367994729,
               100.00499987500625, 1.0, 3e+38, inf, inf, nan],
              [1.0, 1.0, 1.4142135623730951, 1.4142135623730951, 1.118033988749895,
               2.692582403567252, 3.83275357934736, 1.0, 1e+30, 88.7056367994729,
               100.00499987500625, 1.0, 3e+38, inf, inf, nan],
              [0.5, 0.5, 1.118033988749895, 1.118033988749895, 0.7071067811865476,
               2.5495097567963922, 3.733630940518894, 0.5, 1e+30, 88.70140923345018,
               100.0012499921876, 0.5, 3e+38, inf, inf, nan],
              [2.5, 2.5, 2.692582403567252, 2.692582403567252, 2.5495097567963922,
               3.5355339059327378, 4.465422712353221, 2.5, 1e+30, 88.73522412210384,
               100.03124511871279, 2.5, 3e+38, inf, inf, nan],
              [3.7, 3.7, 3.83275357934736, 3.83275357934736, 3.733630940518894,
               4.465422712353221, 5.232590180780452, 3.7, 1e+30, 88.77713669633641,
               100.06842658900958, 3.7, 3e+38, inf, inf, nan],
              [1e-30, 1e-30, 1.0, 1.0, 0.5, 2.5, 3.7, 1.4142135623730952e-30, 1e+30, 88.7,
               100.0, 1e-30, 3e+38, inf, inf, nan],
              [1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1.414213562373095e+30,
               1e+30, 1e+30, 1e+30, 3e+38, inf, inf, nan],
              [88.7, 88.7, 88.7056367994729, 88.7056367994729, 88.70140923345018,
               88.73522412210384, 88.77713669633641, 88.7, 1e+30, 125.44074298249353,
               133.67007892568927, 88.7, 3e+38, inf, inf, nan],
              [100.0, 100.0, 100.00499987500625, 100.00499987500625, 100.0012499921876,
               100.03124511871279, 100.06842658900958, 100.0, 1e+30, 133.67007892568927,
               141.4213562373095, 100.0, 3e+38, inf, inf, nan],
              [1e-40, 1e-40, 1.0, 1.0, 0.5, 2.5, 3.7, 1e-30, 1e+30, 88.7, 100.0,
               1.414213562373095e-40, 3e+38, inf, inf, nan],
              [3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38,
               3e+38, 4.2426406871192854e+38, inf, inf, nan],
              [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf],
              [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf],
              [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, inf, inf,
               nan]]),
 'hypot_': ('float32', (2,), [5.0, 13.0]),
 'hypot_bf16': ('bfloat16', (16, 16),
                [[0.0, 0.0, 1.0, 1.0, 0.5, 2.5, 3.703125, 9.98402083170343e-31,
                  1.0002555517425873e+30, 88.5, 100.0, 9.183549615799121e-41,
                  3.00405527047391e+38, inf, inf, nan],
                 [0.0, 0.0, 1.0, 1.0, 0.5, 2.5, 3.703125, 9.98402083170343e-31,
                  1.0002555517425873e+30, 88.5, 100.0, 9.183549615799121e-41,
                  3.00405527047391e+38, inf, inf, nan],
                 [1.0, 1.0, 1.4140625, 1.4140625, 1.1171875, 2.6875, 3.828125, 1.0,
                  1.0002555517425873e+30, 88.5, 100.0, 1.0, 3.00405527047391e+38, inf, inf,
                  nan],
                 [1.0, 1.0, 1.4140625, 1.4140625, 1.1171875, 2.6875, 3.828125, 1.0,
                  1.0002555517425873e+30, 88.5, 100.0, 1.0, 3.00405527047391e+38, inf, inf,
                  nan],
                 [0.5, 0.5, 1.1171875, 1.1171875, 0.70703125, 2.546875, 3.734375, 0.5,
                  1.0002555517425873e+30, 88.5, 100.0, 0.5, 3.00405527047391e+38, inf, inf,
                  nan],
                 [2.5, 2.5, 2.6875, 2.6875, 2.546875, 3.53125, 4.46875, 2.5,
                  1.0002555517425873e+30, 88.5, 100.0, 2.5, 3.00405527047391e+38, inf, inf,
                  nan],
                 [3.703125, 3.703125, 3.828125, 3.828125, 3.734375, 4.46875, 5.25, 3.703125,
                  1.0002555517425873e+30, 88.5, 100.0, 3.703125, 3.00405527047391e+38, inf, inf,
                  nan],
                 [9.98402083170343e-31, 9.98402083170343e-31, 1.0, 1.0, 0.5, 2.5, 3.703125,
                  1.4113214632469664e-30, 1.0002555517425873e+30, 88.5, 100.0,
                  9.98402083170343e-31, 3.00405527047391e+38, inf, inf, nan],
                 [1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                  1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                  1.0002555517425873e+30, 1.0002555517425873e+30, 1.416203404942475e+30,
                  1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                  3.00405527047391e+38, inf, inf, nan],
                 [88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 1.0002555517425873e+30, 125.0,
                  134.0, 88.5, 3.00405527047391e+38, inf, inf, nan],
                 [100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0,
                  1.0002555517425873e+30, 134.0, 141.0, 100.0, 3.00405527047391e+38, inf, inf,
                  nan],
                 [9.183549615799121e-41, 9.183549615799121e-41, 1.0, 1.0, 0.5, 2.5, 3.703125,
                  9.98402083170343e-31, 1.0002555517425873e+30, 88.5, 100.0,
                  9.183549615799121e-41, 3.00405527047391e+38, inf, inf, nan],
                 [3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                  3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                  3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                  3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38, inf, inf,
                  inf, nan],
                 [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                  inf],
                 [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                  inf],
                 [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, inf, inf,
                  nan]]),
 'hypot_method': ('float64', (2,), [5.0, 13.0]),
 'isin': ('bool', (2, 2), [[False, True], [True, False]]),
 'isin_empty_test': ('bool', (3,), [False, False, False]),
 'isin_invert': ('bool', (5,), [False, True, True, True, False]),
 'isin_nan_zero': ('bool', (4,), [False, False, True, True]),
 'isin_number_elem': ('bool', (), True),
 'isin_promote': ('bool', (2,), [False, True]),
 'isin_scalar': ('bool', (3,), [False, False, False]),
 'isin_scalar_int': ('bool', (2,), [True, False]),
 'isin_unique': ('bool', (4,), [True, True, False, False]),
 'kron': ('int64', (4, 4), [[0, 1, 0, 2], [1, 0, 2, 0], [0, 3, 0, 4], [3, 0, 4, 0]]),
 'kron_bool': ('bool', (4,), [True, True, False, False]),
 'kron_mixed': ('float32', (3, 1), [[0.0], [2.5], [5.0]]),
 'kron_ranks': ('float64', (1, 1, 4), [[[0.0, -0.0, 1.0, -1.0]]]),
 'linalg_cross': ('float32', (2, 3),
                  [[8.789999961853027, -4.980000019073486, -2.549999952316284],
                   [5.299999713897705, -4.300000190734863, -5.799999713897705]]),
 'logaddexp': ('float32', (16, 16),
               [[0.6931471824645996, 0.6931471824645996, 1.31326162815094, 0.31326165795326233,
                 0.9740769863128662, 2.578889846801758, 0.024422848597168922,
                 0.6931471824645996, 1.0000000150474662e+30, 88.69999694824219, 0.0,
                 0.6931471824645996, 3.0000000054977558e+38, inf, 0.0, nan],
                [0.6931471824645996, 0.6931471824645996, 1.31326162815094, 0.31326165795326233,
                 0.9740769863128662, 2.578889846801758, 0.024422848597168922,
                 0.6931471824645996, 1.0000000150474662e+30, 88.69999694824219, 0.0,
                 0.6931471824645996, 3.0000000054977558e+38, inf, 0.0, nan],
                [1.31326162815094, 1.31326162815094, 1.6931471824645996, 1.1269280910491943,
                 1.4740769863128662, 2.70141339302063, 1.009054183959961, 1.31326162815094,
                 1.0000000150474662e+30, 88.69999694824219, 1.0, 1.31326162815094,
                 3.0000000054977558e+38, inf, 1.0, nan],
                [0.31326165795326233, 0.31326165795326233, 1.1269280910491943,
                 -0.3068528175354004, 0.7014133334159851, 2.529750347137451, -0.934956431388855,
                 0.31326165795326233, 1.0000000150474662e+30, 88.69999694824219, -1.0,
                 0.31326165795326233, 3.0000000054977558e+38, inf, -1.0, nan],
                [0.9740769863128662, 0.9740769863128662, 1.4740769863128662, 0.7014133334159851,
                 1.1931471824645996, 2.6269280910491943, 0.5148842334747314, 0.9740769863128662,
                 1.0000000150474662e+30, 88.69999694824219, 0.5, 0.9740769863128662,
                 3.0000000054977558e+38, inf, 0.5, nan],
                [2.578889846801758, 2.578889846801758, 2.70141339302063, 2.529750347137451,
                 2.6269280910491943, 3.1931471824645996, 2.5020272731781006, 2.578889846801758,
                 1.0000000150474662e+30, 88.69999694824219, 2.5, 2.578889846801758,
                 3.0000000054977558e+38, inf, 2.5, nan],
                [0.024422848597168922, 0.024422848597168922, 1.009054183959961,
                 -0.934956431388855, 0.5148842334747314, 2.5020272731781006, -3.006852865219116,
                 0.024422848597168922, 1.0000000150474662e+30, 88.69999694824219,
                 -3.700000047683716, 0.024422848597168922, 3.0000000054977558e+38, inf,
                 -3.700000047683716, nan],
                [0.6931471824645996, 0.6931471824645996, 1.31326162815094, 0.31326165795326233,
                 0.9740769863128662, 2.578889846801758, 0.024422848597168922,
                 0.6931471824645996, 1.0000000150474662e+30, 88.69999694824219,
                 1.0000000031710769e-30, 0.6931471824645996, 3.0000000054977558e+38, inf,
                 1.0000000031710769e-30, nan],
                [1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                 1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                 1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                 1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                 3.0000000054977558e+38, inf, 1.0000000150474662e+30, nan],
                [88.69999694824219, 88.69999694824219, 88.69999694824219, 88.69999694824219,
                 88.69999694824219, 88.69999694824219, 88.69999694824219, 88.69999694824219,
                 1.0000000150474662e+30, 89.39314270019531, 88.69999694824219,
                 88.69999694824219, 3.0000000054977558e+38, inf, 88.69999694824219, nan],
                [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.700000047683716, 1.0000000031710769e-30,
                 1.0000000150474662e+30, 88.69999694824219, -99.30685424804688,
                 9.99994610111476e-41, 3.0000000054977558e+38, inf, -100.0, nan],
                [0.6931471824645996, 0.6931471824645996, 1.31326162815094, 0.31326165795326233,
                 0.9740769863128662, 2.578889846801758, 0.024422848597168922,
                 0.6931471824645996, 1.0000000150474662e+30, 88.69999694824219,
                 9.99994610111476e-41, 0.6931471824645996, 3.0000000054977558e+38, inf,
                 9.99994610111476e-41, nan],
                [3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                 3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                 3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                 3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                 3.0000000054977558e+38, inf, 3.0000000054977558e+38, nan],
                [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                 nan],
                [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.700000047683716, 1.0000000031710769e-30,
                 1.0000000150474662e+30, 88.69999694824219, -100.0, 9.99994610111476e-41,
                 3.0000000054977558e+38, inf, -inf, nan],
                [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                 nan]]),
 'logaddexp2': ('float32', (16, 16),
                [[1.0, 1.0, 1.5849624872207642, 0.5849624872207642, 1.2715532779693604,
                  2.7348406314849854, 0.10694658011198044, 1.0, 1.0000000150474662e+30,
                  88.69999694824219, 0.0, 1.0, 3.0000000054977558e+38, inf, 0.0, nan],
                 [1.0, 1.0, 1.5849624872207642, 0.5849624872207642, 1.2715532779693604,
                  2.7348406314849854, 0.10694658011198044, 1.0, 1.0000000150474662e+30,
                  88.69999694824219, 0.0, 1.0, 3.0000000054977558e+38, inf, 0.0, nan],
                 [1.5849624872207642, 1.5849624872207642, 2.0, 1.3219280242919922,
                  1.7715532779693604, 2.9367518424987793, 1.0544641017913818,
                  1.5849624872207642, 1.0000000150474662e+30, 88.69999694824219, 1.0,
                  1.5849624872207642, 3.0000000054977558e+38, inf, 1.0, nan],
                 [0.5849624872207642, 0.5849624872207642, 1.3219280242919922, 0.0,
                  0.9367518424987793, 2.6221933364868164, -0.7934905290603638,
                  0.5849624872207642, 1.0000000150474662e+30, 88.69999694824219, -1.0,
                  0.5849624872207642, 3.0000000054977558e+38, inf, -1.0, nan],
                 [1.2715532779693604, 1.2715532779693604, 1.7715532779693604,
                  0.9367518424987793, 1.5, 2.821928024291992, 0.5764350891113281,
                  1.2715532779693604, 1.0000000150474662e+30, 88.69999694824219, 0.5,
                  1.2715532779693604, 3.0000000054977558e+38, inf, 0.5, nan],
                 [2.7348406314849854, 2.7348406314849854, 2.9367518424987793,
                  2.6221933364868164, 2.821928024291992, 3.5, 2.5194919109344482,
                  2.7348406314849854, 1.0000000150474662e+30, 88.69999694824219, 2.5,
                  2.7348406314849854, 3.0000000054977558e+38, inf, 2.5, nan],
                 [0.10694658011198044, 0.10694658011198044, 1.0544641017913818,
                  -0.7934905290603638, 0.5764350891113281, 2.5194919109344482,
                  -2.700000047683716, 0.10694658011198044, 1.0000000150474662e+30,
                  88.69999694824219, -3.700000047683716, 0.10694658011198044,
                  3.0000000054977558e+38, inf, -3.700000047683716, nan],
                 [1.0, 1.0, 1.5849624872207642, 0.5849624872207642, 1.2715532779693604,
                  2.7348406314849854, 0.10694658011198044, 1.0, 1.0000000150474662e+30,
                  88.69999694824219, 1.0000000031710769e-30, 1.0, 3.0000000054977558e+38, inf,
                  1.0000000031710769e-30, nan],
                 [1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                  1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                  1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                  1.0000000150474662e+30, 1.0000000150474662e+30, 1.0000000150474662e+30,
                  3.0000000054977558e+38, inf, 1.0000000150474662e+30, nan],
                 [88.69999694824219, 88.69999694824219, 88.69999694824219, 88.69999694824219,
                  88.69999694824219, 88.69999694824219, 88.69999694824219, 88.69999694824219,
                  1.0000000150474662e+30, 89.69999694824219, 88.69999694824219,
                  88.69999694824219, 3.0000000054977558e+38, inf, 88.69999694824219, nan],
                 [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.700000047683716, 1.0000000031710769e-30,
                  1.0000000150474662e+30, 88.69999694824219, -99.0, 9.99994610111476e-41,
                  3.0000000054977558e+38, inf, -100.0, nan],
                 [1.0, 1.0, 1.5849624872207642, 0.5849624872207642, 1.2715532779693604,
                  2.7348406314849854, 0.10694658011198044, 1.0, 1.0000000150474662e+30,
                  88.69999694824219, 9.99994610111476e-41, 1.0, 3.0000000054977558e+38, inf,
                  9.99994610111476e-41, nan],
                 [3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                  3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                  3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                  3.0000000054977558e+38, 3.0000000054977558e+38, 3.0000000054977558e+38,
                  3.0000000054977558e+38, inf, 3.0000000054977558e+38, nan],
                 [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                  nan],
                 [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.700000047683716, 1.0000000031710769e-30,
                  1.0000000150474662e+30, 88.69999694824219, -100.0, 9.99994610111476e-41,
                  3.0000000054977558e+38, inf, -inf, nan],
                 [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                  nan]]),
 'logaddexp2_64': ('float64', (16, 16),
                   [[1.0, 1.0, 1.584962500721156, 0.5849625007211562, 1.271553303163612,
                     2.734840581079202, 0.10694661680013633, 1.0, 1e+30, 88.7, 0.0, 1.0, 3e+38,
                     inf, 0.0, nan],
                    [1.0, 1.0, 1.584962500721156, 0.5849625007211562, 1.271553303163612,
                     2.734840581079202, 0.10694661680013633, 1.0, 1e+30, 88.7, 0.0, 1.0, 3e+38,
                     inf, 0.0, nan],
                    [1.584962500721156, 1.584962500721156, 2.0, 1.3219280948873624,
                     1.771553303163612, 2.936751795439824, 1.0544640722696355,
                     1.584962500721156, 1e+30, 88.7, 1.0, 1.584962500721156, 3e+38, inf, 1.0,
                     nan],
                    [0.5849625007211562, 0.5849625007211562, 1.3219280948873624, 0.0,
                     0.936751795439824, 2.6221934162022746, -0.7934904857030577,
                     0.5849625007211562, 1e+30, 88.7, -1.0, 0.5849625007211562, 3e+38, inf,
                     -1.0, nan],
                    [1.271553303163612, 1.271553303163612, 1.771553303163612, 0.936751795439824,
                     1.5, 2.821928094887362, 0.5764351510247635, 1.271553303163612, 1e+30, 88.7,
                     0.5, 1.271553303163612, 3e+38, inf, 0.5, nan],
                    [2.734840581079202, 2.734840581079202, 2.936751795439824,
                     2.6221934162022746, 2.821928094887362, 3.5, 2.519491778062598,
                     2.734840581079202, 1e+30, 88.7, 2.5, 2.734840581079202, 3e+38, inf, 2.5,
                     nan],
                    [0.10694661680013633, 0.10694661680013633, 1.0544640722696355,
                     -0.7934904857030577, 0.5764351510247635, 2.519491778062598, -2.7,
                     0.10694661680013633, 1e+30, 88.7, -3.7, 0.10694661680013633, 3e+38, inf,
                     -3.7, nan],
                    [1.0, 1.0, 1.584962500721156, 0.5849625007211562, 1.271553303163612,
                     2.734840581079202, 0.10694661680013633, 1.0, 1e+30, 88.7, 1e-30, 1.0,
                     3e+38, inf, 1e-30, nan],
                    [1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30,
                     1e+30, 1e+30, 3e+38, inf, 1e+30, nan],
                    [88.7, 88.7, 88.7, 88.7, 88.7, 88.7, 88.7, 88.7, 1e+30, 89.7, 88.7, 88.7,
                     3e+38, inf, 88.7, nan],
                    [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.7, 1e-30, 1e+30, 88.7, -99.0, 1e-40,
                     3e+38, inf, -100.0, nan],
                    [1.0, 1.0, 1.584962500721156, 0.5849625007211562, 1.271553303163612,
                     2.734840581079202, 0.10694661680013633, 1.0, 1e+30, 88.7, 1e-40, 1.0,
                     3e+38, inf, 1e-40, nan],
                    [3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38,
                     3e+38, 3e+38, 3e+38, inf, 3e+38, nan],
                    [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                     nan],
                    [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.7, 1e-30, 1e+30, 88.7, -100.0, 1e-40,
                     3e+38, inf, -inf, nan],
                    [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                     nan]]),
 'logaddexp2_bf16': ('bfloat16', (16, 16),
                     [[1.0, 1.0, 1.5859375, 0.5859375, 1.2734375, 2.734375, 0.10693359375, 1.0,
                       1.0002555517425873e+30, 88.5, 0.0, 1.0, 3.00405527047391e+38, inf, 0.0,
                       nan],
                      [1.0, 1.0, 1.5859375, 0.5859375, 1.2734375, 2.734375, 0.10693359375, 1.0,
                       1.0002555517425873e+30, 88.5, 0.0, 1.0, 3.00405527047391e+38, inf, 0.0,
                       nan],
                      [1.5859375, 1.5859375, 2.0, 1.3203125, 1.7734375, 2.9375, 1.0546875,
                       1.5859375, 1.0002555517425873e+30, 88.5, 1.0, 1.5859375,
                       3.00405527047391e+38, inf, 1.0, nan],
                      [0.5859375, 0.5859375, 1.3203125, 0.0, 0.9375, 2.625, -0.79296875,
                       0.5859375, 1.0002555517425873e+30, 88.5, -1.0, 0.5859375,
                       3.00405527047391e+38, inf, -1.0, nan],
                      [1.2734375, 1.2734375, 1.7734375, 0.9375, 1.5, 2.828125, 0.578125,
                       1.2734375, 1.0002555517425873e+30, 88.5, 0.5, 1.2734375,
                       3.00405527047391e+38, inf, 0.5, nan],
                      [2.734375, 2.734375, 2.9375, 2.625, 2.828125, 3.5, 2.515625, 2.734375,
                       1.0002555517425873e+30, 88.5, 2.5, 2.734375, 3.00405527047391e+38, inf,
                       2.5, nan],
                      [0.10693359375, 0.10693359375, 1.0546875, -0.79296875, 0.578125, 2.515625,
                       -2.703125, 0.10693359375, 1.0002555517425873e+30, 88.5, -3.703125,
                       0.10693359375, 3.00405527047391e+38, inf, -3.703125, nan],
                      [1.0, 1.0, 1.5859375, 0.5859375, 1.2734375, 2.734375, 0.10693359375, 1.0,
                       1.0002555517425873e+30, 88.5, 9.98402083170343e-31, 1.0,
                       3.00405527047391e+38, inf, 9.98402083170343e-31, nan],
                      [1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                       1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                       1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                       1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                       3.00405527047391e+38, inf, 1.0002555517425873e+30, nan],
                      [88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 1.0002555517425873e+30,
                       89.5, 88.5, 88.5, 3.00405527047391e+38, inf, 88.5, nan],
                      [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.703125, 9.98402083170343e-31,
                       1.0002555517425873e+30, 88.5, -99.0, 9.183549615799121e-41,
                       3.00405527047391e+38, inf, -100.0, nan],
                      [1.0, 1.0, 1.5859375, 0.5859375, 1.2734375, 2.734375, 0.10693359375, 1.0,
                       1.0002555517425873e+30, 88.5, 9.183549615799121e-41, 1.0,
                       3.00405527047391e+38, inf, 9.183549615799121e-41, nan],
                      [3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                       3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                       3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                       3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                       3.00405527047391e+38, inf, 3.00405527047391e+38, nan],
                      [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                       inf, nan],
                      [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.703125, 9.98402083170343e-31,
                       1.0002555517425873e+30, 88.5, -100.0, 9.183549615799121e-41,
                       3.00405527047391e+38, inf, -inf, nan],
                      [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                       nan, nan]]),
 'logaddexp64': ('float64', (16, 16),
                 [[0.6931471805599453, 0.6931471805599453, 1.3132616875182228,
                   0.31326168751822286, 0.9740769841801067, 2.5788897342925496,
                   0.024422845933779143, 0.6931471805599453, 1e+30, 88.7, 0.0,
                   0.6931471805599453, 3e+38, inf, 0.0, nan],
                  [0.6931471805599453, 0.6931471805599453, 1.3132616875182228,
                   0.31326168751822286, 0.9740769841801067, 2.5788897342925496,
                   0.024422845933779143, 0.6931471805599453, 1e+30, 88.7, 0.0,
                   0.6931471805599453, 3e+38, inf, 0.0, nan],
                  [1.3132616875182228, 1.3132616875182228, 1.6931471805599454,
                   1.1269280110429727, 1.4740769841801067, 2.7014132779827524,
                   1.0090541641698876, 1.3132616875182228, 1e+30, 88.7, 1.0, 1.3132616875182228,
                   3e+38, inf, 1.0, nan],
                  [0.31326168751822286, 0.31326168751822286, 1.1269280110429727,
                   -0.3068528194400547, 0.7014132779827524, 2.5297504182726205,
                   -0.9349564382234095, 0.31326168751822286, 1e+30, 88.7, -1.0,
                   0.31326168751822286, 3e+38, inf, -1.0, nan],
                  [0.9740769841801067, 0.9740769841801067, 1.4740769841801067,
                   0.7014132779827524, 1.1931471805599454, 2.6269280110429727,
                   0.5148842546719181, 0.9740769841801067, 1e+30, 88.7, 0.5, 0.9740769841801067,
                   3e+38, inf, 0.5, nan],
                  [2.5788897342925496, 2.5788897342925496, 2.7014132779827524,
                   2.5297504182726205, 2.6269280110429727, 3.1931471805599454,
                   2.502027374123838, 2.5788897342925496, 1e+30, 88.7, 2.5, 2.5788897342925496,
                   3e+38, inf, 2.5, nan],
                  [0.024422845933779143, 0.024422845933779143, 1.0090541641698876,
                   -0.9349564382234095, 0.5148842546719181, 2.502027374123838,
                   -3.006852819440055, 0.024422845933779143, 1e+30, 88.7, -3.7,
                   0.024422845933779143, 3e+38, inf, -3.7, nan],
                  [0.6931471805599453, 0.6931471805599453, 1.3132616875182228,
                   0.31326168751822286, 0.9740769841801067, 2.5788897342925496,
                   0.024422845933779143, 0.6931471805599453, 1e+30, 88.7, 1e-30,
                   0.6931471805599453, 3e+38, inf, 1e-30, nan],
                  [1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30, 1e+30,
                   1e+30, 3e+38, inf, 1e+30, nan],
                  [88.7, 88.7, 88.7, 88.7, 88.7, 88.7, 88.7, 88.7, 1e+30, 89.39314718055995,
                   88.7, 88.7, 3e+38, inf, 88.7, nan],
                  [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.7, 1e-30, 1e+30, 88.7, -99.30685281944005,
                   1e-40, 3e+38, inf, -100.0, nan],
                  [0.6931471805599453, 0.6931471805599453, 1.3132616875182228,
                   0.31326168751822286, 0.9740769841801067, 2.5788897342925496,
                   0.024422845933779143, 0.6931471805599453, 1e+30, 88.7, 1e-40,
                   0.6931471805599453, 3e+38, inf, 1e-40, nan],
                  [3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38, 3e+38,
                   3e+38, 3e+38, inf, 3e+38, nan],
                  [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                   nan],
                  [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.7, 1e-30, 1e+30, 88.7, -100.0, 1e-40,
                   3e+38, inf, -inf, nan],
                  [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                   nan]]),
 'logaddexp_bf16': ('bfloat16', (16, 16),
                    [[0.69140625, 0.69140625, 1.3125, 0.3125, 0.97265625, 2.578125,
                      0.0242919921875, 0.69140625, 1.0002555517425873e+30, 88.5, 0.0,
                      0.69140625, 3.00405527047391e+38, inf, 0.0, nan],
                     [0.69140625, 0.69140625, 1.3125, 0.3125, 0.97265625, 2.578125,
                      0.0242919921875, 0.69140625, 1.0002555517425873e+30, 88.5, 0.0,
                      0.69140625, 3.00405527047391e+38, inf, 0.0, nan],
                     [1.3125, 1.3125, 1.6953125, 1.125, 1.4765625, 2.703125, 1.0078125, 1.3125,
                      1.0002555517425873e+30, 88.5, 1.0, 1.3125, 3.00405527047391e+38, inf, 1.0,
                      nan],
                     [0.3125, 0.3125, 1.125, -0.306640625, 0.703125, 2.53125, -0.93359375,
                      0.3125, 1.0002555517425873e+30, 88.5, -1.0, 0.3125, 3.00405527047391e+38,
                      inf, -1.0, nan],
                     [0.97265625, 0.97265625, 1.4765625, 0.703125, 1.1953125, 2.625, 0.515625,
                      0.97265625, 1.0002555517425873e+30, 88.5, 0.5, 0.97265625,
                      3.00405527047391e+38, inf, 0.5, nan],
                     [2.578125, 2.578125, 2.703125, 2.53125, 2.625, 3.1875, 2.5, 2.578125,
                      1.0002555517425873e+30, 88.5, 2.5, 2.578125, 3.00405527047391e+38, inf,
                      2.5, nan],
                     [0.0242919921875, 0.0242919921875, 1.0078125, -0.93359375, 0.515625, 2.5,
                      -3.015625, 0.0242919921875, 1.0002555517425873e+30, 88.5, -3.703125,
                      0.0242919921875, 3.00405527047391e+38, inf, -3.703125, nan],
                     [0.69140625, 0.69140625, 1.3125, 0.3125, 0.97265625, 2.578125,
                      0.0242919921875, 0.69140625, 1.0002555517425873e+30, 88.5,
                      9.98402083170343e-31, 0.69140625, 3.00405527047391e+38, inf,
                      9.98402083170343e-31, nan],
                     [1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                      1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                      1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                      1.0002555517425873e+30, 1.0002555517425873e+30, 1.0002555517425873e+30,
                      3.00405527047391e+38, inf, 1.0002555517425873e+30, nan],
                     [88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 88.5, 1.0002555517425873e+30,
                      89.0, 88.5, 88.5, 3.00405527047391e+38, inf, 88.5, nan],
                     [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.703125, 9.98402083170343e-31,
                      1.0002555517425873e+30, 88.5, -99.5, 9.183549615799121e-41,
                      3.00405527047391e+38, inf, -100.0, nan],
                     [0.69140625, 0.69140625, 1.3125, 0.3125, 0.97265625, 2.578125,
                      0.0242919921875, 0.69140625, 1.0002555517425873e+30, 88.5,
                      9.183549615799121e-41, 0.69140625, 3.00405527047391e+38, inf,
                      9.183549615799121e-41, nan],
                     [3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                      3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                      3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                      3.00405527047391e+38, 3.00405527047391e+38, 3.00405527047391e+38,
                      3.00405527047391e+38, inf, 3.00405527047391e+38, nan],
                     [inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf, inf,
                      nan],
                     [0.0, 0.0, 1.0, -1.0, 0.5, 2.5, -3.703125, 9.98402083170343e-31,
                      1.0002555517425873e+30, 88.5, -100.0, 9.183549615799121e-41,
                      3.00405527047391e+38, inf, -inf, nan],
                     [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                      nan]]),
 'logaddexp_mixed': ('float32', (3,), [1.31326162815094, 1.0485873222351074, 2.20141339302063]),
 'meshgrid_ij': [('int64', (3, 2), [[0, 0], [1, 1], [2, 2]]),
                 ('int64', (3, 2), [[0, 1], [0, 1], [0, 1]])],
 'meshgrid_one_xy': [('float32', (2,), [1.0, 2.0])],
 'meshgrid_xy': [('int64', (2, 3, 1), [[[0], [1], [2]], [[0], [1], [2]]]),
                 ('int64', (2, 3, 1), [[[0], [0], [0]], [[1], [1], [1]]]),
                 ('int64', (2, 3, 1), [[[7], [7], [7]], [[7], [7], [7]]])],
 'tensordot': ('int64', (2,), [440, 1232]),
 'tensordot_0': ('float32', (2, 3), [[0.0, 0.0, 0.0], [0.0, 1.0, 2.0]]),
 'tensordot_bcast': ('float32', (2, 4), [[0.0, 3.0, 6.0, 9.0], [0.0, 12.0, 24.0, 36.0]]),
 'tensordot_int': ('float32', (2, 4), [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]]),
 'xlogy': ('float32', (16, 16),
           [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan],
            [-inf, -inf, 0.0, nan, -0.6931471824645996, 0.9162907600402832, nan,
             -69.07755279541016, 69.07755279541016, 4.485260009765625, nan, -92.10340881347656,
             88.59684753417969, inf, nan, nan],
            [inf, inf, -0.0, nan, 0.6931471824645996, -0.9162907600402832, nan,
             69.07755279541016, -69.07755279541016, -4.485260009765625, nan, 92.10340881347656,
             -88.59684753417969, -inf, nan, nan],
            [-inf, -inf, 0.0, nan, -0.3465735912322998, 0.4581453800201416, nan,
             -34.53877639770508, 34.53877639770508, 2.2426300048828125, nan, -46.05170440673828,
             44.298423767089844, inf, nan, nan],
            [-inf, -inf, 0.0, nan, -1.732867956161499, 2.290726900100708, nan,
             -172.69387817382812, 172.69387817382812, 11.213150024414062, nan,
             -230.25851440429688, 221.49212646484375, inf, nan, nan],
            [inf, inf, -0.0, nan, 2.5646445751190186, -3.3902759552001953, nan,
             255.58694458007812, -255.58694458007812, -16.595462799072266, nan,
             340.7826232910156, -327.808349609375, -inf, nan, nan],
            [-inf, -inf, 0.0, nan, -6.931471710810137e-31, 9.162907934998682e-31, nan,
             -6.907755200098681e-29, 6.907755200098681e-29, 4.485259879347823e-30, nan,
             -9.210341069269051e-29, 8.859684596882037e-29, inf, nan, nan],
            [-inf, -inf, 0.0, nan, -6.931472145247408e+29, 9.162907423092091e+29, nan,
             -6.90775522695619e+31, 6.90775522695619e+31, 4.485260164100083e+30, nan,
             -9.210340624988472e+31, 8.859684437454331e+31, inf, nan, nan],
            [-inf, -inf, 0.0, nan, -61.482154846191406, 81.27498626708984, nan,
             -6127.1787109375, 6127.1787109375, 397.8425598144531, nan, -8169.572265625,
             7858.5400390625, inf, nan, nan],
            [inf, inf, -0.0, nan, 69.3147201538086, -91.62907409667969, nan, 6907.75537109375,
             -6907.75537109375, -448.5260009765625, nan, 9210.3408203125, -8859.6845703125,
             -inf, nan, nan],
            [-inf, -inf, 0.0, nan, -6.931382723936275e-41, 9.162810398527114e-41, nan,
             -6.907717595470758e-39, 6.907717595470758e-39, 4.485234085656945e-40, nan,
             -9.210290594393832e-39, 8.859636673173511e-39, inf, nan, nan],
            [-inf, -inf, 0.0, nan, -2.0794414695204332e+38, 2.7488723368696624e+38, nan, -inf,
             inf, inf, nan, -inf, inf, inf, nan, nan],
            [-inf, -inf, nan, nan, -inf, inf, nan, -inf, inf, inf, nan, -inf, inf, inf, nan,
             nan],
            [inf, inf, nan, nan, inf, -inf, nan, inf, -inf, -inf, nan, inf, -inf, -inf, nan,
             nan],
            [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan]]),
 'xlogy64': ('float64', (16, 16),
             [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan],
              [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan],
              [-inf, -inf, 0.0, nan, -0.6931471805599453, 0.9162907318741551, nan,
               -69.07755278982137, 69.07755278982137, 4.485259889315534, nan,
               -92.10340371976183, 88.59684582244185, inf, nan, nan],
              [inf, inf, -0.0, nan, 0.6931471805599453, -0.9162907318741551, nan,
               69.07755278982137, -69.07755278982137, -4.485259889315534, nan,
               92.10340371976183, -88.59684582244185, -inf, nan, nan],
              [-inf, -inf, 0.0, nan, -0.34657359027997264, 0.45814536593707755, nan,
               -34.538776394910684, 34.538776394910684, 2.242629944657767, nan,
               -46.051701859880914, 44.298422911220925, inf, nan, nan],
              [-inf, -inf, 0.0, nan, -1.7328679513998633, 2.2907268296853878, nan,
               -172.69388197455342, 172.69388197455342, 11.213149723288836, nan,
               -230.25850929940458, 221.49211455610464, inf, nan, nan],
              [inf, inf, -0.0, nan, 2.5646445680717975, -3.390275707934374, nan,
               255.58694532233906, -255.58694532233906, -16.595461590467476, nan,
               340.78259376311877, -327.80832954303486, -inf, nan, nan],
              [-inf, -inf, 0.0, nan, -6.9314718055994535e-31, 9.162907318741551e-31, nan,
               -6.907755278982138e-29, 6.907755278982138e-29, 4.485259889315535e-30, nan,
               -9.210340371976183e-29, 8.859684582244186e-29, inf, nan, nan],
              [-inf, -inf, 0.0, nan, -6.931471805599453e+29, 9.162907318741551e+29, nan,
               -6.907755278982137e+31, 6.907755278982137e+31, 4.4852598893155344e+30, nan,
               -9.210340371976184e+31, 8.859684582244185e+31, inf, nan, nan],
              [-inf, -inf, 0.0, nan, -61.48215491566715, 81.27498791723757, nan,
               -6127.1789324571555, 6127.1789324571555, 397.8425521822879, nan,
               -8169.571909942874, 7858.540224450592, inf, nan, nan],
              [inf, inf, -0.0, nan, 69.31471805599453, -91.62907318741551, nan,
               6907.755278982137, -6907.755278982137, -448.5259889315534, nan,
               9210.340371976183, -8859.684582244185, -inf, nan, nan],
              [-inf, -inf, 0.0, nan, -6.931471805599452e-41, 9.16290731874155e-41, nan,
               -6.907755278982136e-39, 6.907755278982136e-39, 4.485259889315534e-40, nan,
               -9.210340371976183e-39, 8.859684582244184e-39, inf, nan, nan],
              [-inf, -inf, 0.0, nan, -2.079441541679836e+38, 2.7488721956224656e+38, nan,
               -2.072326583694641e+40, 2.072326583694641e+40, 1.3455779667946603e+39, nan,
               -2.763102111592855e+40, 2.6579053746732555e+40, inf, nan, nan],
              [-inf, -inf, nan, nan, -inf, inf, nan, -inf, inf, inf, nan, -inf, inf, inf, nan,
               nan],
              [inf, inf, nan, nan, inf, -inf, nan, inf, -inf, -inf, nan, inf, -inf, -inf, nan,
               nan],
              [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
               nan]]),
 'xlogy_': ('float32', (3,), [nan, 2.1972246170043945, -inf]),
 'xlogy_bf16': ('bfloat16', (16, 16),
                [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                  nan],
                 [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                  nan],
                 [-inf, -inf, 0.0, nan, -0.69140625, 0.91796875, nan, -69.0, 69.0, 4.46875, nan,
                  -92.0, 88.5, inf, nan, nan],
                 [inf, inf, -0.0, nan, 0.69140625, -0.91796875, nan, 69.0, -69.0, -4.46875, nan,
                  92.0, -88.5, -inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -0.345703125, 0.458984375, nan, -34.5, 34.5, 2.234375,
                  nan, -46.0, 44.25, inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -1.7265625, 2.296875, nan, -172.0, 172.0, 11.1875, nan,
                  -230.0, 221.0, inf, nan, nan],
                 [inf, inf, -0.0, nan, 2.5625, -3.40625, nan, 256.0, -256.0, -16.5, nan, 340.0,
                  -328.0, -inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -6.902532920683853e-31, 9.18283397483834e-31, nan,
                  -6.902532920683853e-29, 6.902532920683853e-29, 4.461994495156348e-30, nan,
                  -9.190229545824788e-29, 8.835242138475332e-29, inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -6.93246421999813e+29, 9.160756290711814e+29, nan,
                  -6.90869577124385e+31, 6.90869577124385e+31, 4.476391182055935e+30, nan,
                  -9.190466851654663e+31, 8.873554201597606e+31, inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -61.25, 81.0, nan, -6112.0, 6112.0, 396.0, nan, -8128.0,
                  7840.0, inf, nan, nan],
                 [inf, inf, -0.0, nan, 69.0, -92.0, nan, 6912.0, -6912.0, -446.0, nan, 9216.0,
                  -8832.0, -inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -9.183549615799121e-41, 9.183549615799121e-41, nan,
                  -6.336649234901394e-39, 6.336649234901394e-39, 3.6734198463196485e-40, nan,
                  -8.448865646535191e-39, 8.081523661903227e-39, inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -2.0735956734244688e+38, 2.751501951274776e+38, nan,
                  -inf, inf, inf, nan, -inf, inf, inf, nan, nan],
                 [-inf, -inf, nan, nan, -inf, inf, nan, -inf, inf, inf, nan, -inf, inf, inf,
                  nan, nan],
                 [inf, inf, nan, nan, inf, -inf, nan, inf, -inf, -inf, nan, inf, -inf, -inf,
                  nan, nan],
                 [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                  nan]]),
 'xlogy_half': ('float16', (16, 16),
                [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                  nan],
                 [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                  nan],
                 [-inf, -inf, 0.0, nan, -0.693359375, 0.91650390625, nan, -inf, inf, 4.484375,
                  nan, -inf, inf, inf, nan, nan],
                 [inf, inf, -0.0, nan, 0.693359375, -0.91650390625, nan, inf, -inf, -4.484375,
                  nan, inf, -inf, -inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -0.3466796875, 0.458251953125, nan, -inf, inf,
                  2.2421875, nan, -inf, inf, inf, nan, nan],
                 [-inf, -inf, 0.0, nan, -1.732421875, 2.291015625, nan, -inf, inf, 11.2109375,
                  nan, -inf, inf, inf, nan, nan],
                 [inf, inf, -0.0, nan, 2.564453125, -3.388671875, nan, inf, -inf, -16.59375,
                  nan, inf, -inf, -inf, nan, nan],
                 [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                  nan],
                 [-inf, -inf, nan, nan, -inf, inf, nan, -inf, inf, inf, nan, -inf, inf, inf,
                  nan, nan],
                 [-inf, -inf, 0.0, nan, -61.46875, 81.25, nan, -inf, inf, 397.75, nan, -inf,
                  inf, inf, nan, nan],
                 [inf, inf, -0.0, nan, 69.3125, -91.625, nan, inf, -inf, -448.5, nan, inf, -inf,
                  -inf, nan, nan],
                 [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                  nan],
                 [-inf, -inf, nan, nan, -inf, inf, nan, -inf, inf, inf, nan, -inf, inf, inf,
                  nan, nan],
                 [-inf, -inf, nan, nan, -inf, inf, nan, -inf, inf, inf, nan, -inf, inf, inf,
                  nan, nan],
                 [inf, inf, nan, nan, inf, -inf, nan, inf, -inf, -inf, nan, inf, -inf, -inf,
                  nan, nan],
                 [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
                  nan]]),
 'xlogy_int': ('float32', (4,), [0.0, 0.0, 1.3862943649291992, 3.295836925506592]),
 'xlogy_scalar_other': ('float32', (3,), [0.0, 2.1972246170043945, nan]),
 'xlogy_scalar_self': ('float64', (3,), [-inf, 1.7328679513998633, nan])}

RECORDED_ERRORS = {'aminmax_dim_range': ('IndexError',
                       'Dimension out of range (expected to be in range of [-2, 1], but got '
                       '3)'),
 'aminmax_empty': ('RuntimeError',
                   'aminmax(): cannot compute aminmax over an empty dimension as the operation '
                   'has no identity.'),
 'aminmax_empty_dim': ('IndexError',
                       'aminmax: Expected reduction dim 0 to have non-zero size.'),
 'aminmax_positional_dim': ('TypeError',
                            'aminmax() takes 1 positional argument but 2 were given'),
 'block_diag_3d': ('RuntimeError',
                   'torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 '
                   'has 3 dimensions'),
 'cartesian_prod_2d': ('RuntimeError', 'Expect a 1D vector, but got shape [2, 2]'),
 'cartesian_prod_dtypes': ('RuntimeError',
                           'meshgrid expects all tensors to have the same dtype'),
 'cartesian_prod_none': ('RuntimeError', 'meshgrid expects a non-empty TensorList'),
 'cdist_1d': ('RuntimeError', 'cdist only supports at least 2D tensors, X1 got: 1D'),
 'cdist_1d_x2': ('RuntimeError', 'cdist only supports at least 2D tensors, X2 got: 1D'),
 'cdist_batch': ('RuntimeError',
                 'The size of tensor a (2) must match the size of tensor b (3) at '
                 'non-singleton dimension 0'),
 'cdist_cols': ('RuntimeError', 'X1 and X2 must have the same number of columns. X1: 3 X2: 2'),
 'cdist_dtypes': ('RuntimeError', 'expected scalar type Float but found Double'),
 'cdist_half': ('RuntimeError', '"cdist" not implemented for \'Half\''),
 'cdist_long': ('RuntimeError', 'cdist only supports floating-point dtypes, X1 got: Long'),
 'cdist_long_x2': ('RuntimeError', 'cdist only supports floating-point dtypes, X2 got: Long'),
 'cdist_mode': ('ValueError', 'bad is not a valid value for compute_mode'),
 'cdist_p': ('RuntimeError', 'cdist only supports non-negative p values'),
 'copysign_inplace_long': ('RuntimeError',
                           "result type Float can't be cast to the desired output type Long"),
 'copysign_number_self': ('TypeError',
                          'copysign() received an invalid combination of arguments - got '
                          '(float, Tensor), but expected one of:\n'
                          ' * (Tensor input, Tensor other, *, Tensor out)\n'
                          ' * (Tensor input, Number other, *, Tensor out)\n'),
 'copysign_numbers': ('TypeError',
                      'copysign() received an invalid combination of arguments - got (int, '
                      'int), but expected one of:\n'
                      ' * (Tensor input, Tensor other, *, Tensor out)\n'
                      ' * (Tensor input, Number other, *, Tensor out)\n'),
 'copysign_shape': ('RuntimeError',
                    'The size of tensor a (3) must match the size of tensor b (2) at '
                    'non-singleton dimension 0'),
 'cross_bool': ('RuntimeError', '"cross" not implemented for \'Bool\''),
 'cross_dim_len': ('RuntimeError',
                   'linalg.cross: inputs dimension 1 must have length 3. Got 4 and 4'),
 'cross_dim_range': ('IndexError',
                     'Dimension out of range (expected to be in range of [-1, 0], but got 3)'),
 'cross_dtypes': ('RuntimeError', 'expected scalar type Float but found Double'),
 'cross_half': ('RuntimeError', '"cross" not implemented for \'Half\''),
 'cross_no_3': ('RuntimeError', 'no dimension of size 3 in input'),
 'cross_other_len': ('RuntimeError',
                     'linalg.cross: inputs dimension 0 must have length 3. Got 3 and 4'),
 'cross_ranks': ('RuntimeError',
                 'linalg.cross: inputs must have the same number of dimensions.'),
 'diff_0d': ('RuntimeError', 'diff expects input to be at least one-dimensional'),
 'diff_append_shape': ('RuntimeError',
                       'diff expects the shape of tensor to prepend or append to match that of '
                       'input except along the differencing dimension; input.size(1) = 3, but '
                       'got tensor.size(1) = 2'),
 'diff_dim': ('IndexError',
              'Dimension out of range (expected to be in range of [-1, 0], but got 3)'),
 'diff_prepend_number': ('TypeError', "diff(): argument 'prepend' must be Tensor, not int"),
 'diff_prepend_rank': ('RuntimeError',
                       'diff expects prepend or append to be the same dimension as input'),
 'diff_prepend_shape': ('RuntimeError',
                        'diff expects the shape of tensor to prepend or append to match that '
                        'of input except along the differencing dimension; input.size(0) = 2, '
                        'but got tensor.size(0) = 3'),
 'heaviside_dtypes': ('RuntimeError',
                      'heaviside is not yet implemented for tensors with different dtypes.'),
 'heaviside_dtypes_0d': ('RuntimeError',
                         'heaviside is not yet implemented for tensors with different dtypes.'),
 'heaviside_method_number': ('TypeError',
                             "heaviside(): argument 'values' (position 1) must be Tensor, not "
                             'float'),
 'heaviside_number': ('TypeError',
                      "heaviside(): argument 'values' (position 2) must be Tensor, not float"),
 'hypot_inplace_long': ('RuntimeError',
                        "result type Float can't be cast to the desired output type Long"),
 'hypot_inplace_number': ('TypeError',
                          "hypot_(): argument 'other' (position 1) must be Tensor, not float"),
 'hypot_long': ('RuntimeError', '"hypot_cpu" not implemented for \'Long\''),
 'hypot_number': ('TypeError',
                  "hypot(): argument 'other' (position 2) must be Tensor, not float"),
 'isin_bf16': ('RuntimeError', 'Unsupported input type encountered for isin(): BFloat16'),
 'isin_bool': ('RuntimeError', 'Unsupported input type encountered for isin(): Bool'),
 'isin_bool_number': ('RuntimeError', 'Unsupported input type encountered for isin(): Bool'),
 'isin_numbers': ('TypeError',
                  'isin() received an invalid combination of arguments - got (int, int), but '
                  'expected one of:\n'
                  ' * (Tensor elements, Tensor test_elements, *, bool assume_unique, bool '
                  'invert, Tensor out)\n'
                  ' * (Number element, Tensor test_elements, *, bool assume_unique, bool '
                  'invert, Tensor out)\n'
                  ' * (Tensor elements, Number test_element, *, bool assume_unique, bool '
                  'invert, Tensor out)\n'),
 'linalg_cross_bcast': ('RuntimeError',
                        'The size of tensor a (2) must match the size of tensor b (4) at '
                        'non-singleton dimension 0'),
 'linalg_cross_len': ('RuntimeError',
                      'linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4'),
 'linalg_cross_ranks': ('RuntimeError',
                        'linalg.cross: inputs must have the same number of dimensions.'),
 'logaddexp2_bool': ('RuntimeError', '"logaddexp2_cpu" not implemented for \'Bool\''),
 'logaddexp_half': ('RuntimeError', '"logaddexp_cpu" not implemented for \'Half\''),
 'logaddexp_long': ('RuntimeError', '"logaddexp_cpu" not implemented for \'Long\''),
 'logaddexp_method_number': ('TypeError',
                             "logaddexp(): argument 'other' (position 1) must be Tensor, not "
                             'float'),
 'logaddexp_number': ('TypeError',
                      "logaddexp(): argument 'other' (position 2) must be Tensor, not int"),
 'logaddexp_number_self': ('TypeError',
                           "logaddexp(): argument 'input' (position 1) must be Tensor, not "
                           'float'),
 'logaddexp_shape': ('RuntimeError',
                     'The size of tensor a (3) must match the size of tensor b (2) at '
                     'non-singleton dimension 0'),
 'meshgrid_dtypes': ('RuntimeError', 'meshgrid expects all tensors to have the same dtype'),
 'meshgrid_indexing': ('RuntimeError',
                       'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                       'foo'),
 'meshgrid_none': ('RuntimeError', 'meshgrid expects a non-empty TensorList'),
 'tensordot_dims_range': ('IndexError',
                          'Dimension out of range (expected to be in range of [-2, 1], but got '
                          '5)'),
 'tensordot_dims_twice': ('RuntimeError', 'dim 1 appears multiple times in the list of dims'),
 'tensordot_dims_type': ('RuntimeError',
                         'tensordot expects dims to be int or Tuple[List[int], List[int]] or '
                         'List[List[int]] containing two lists, but got dims=a'),
 'tensordot_dtypes': ('RuntimeError', 'expected scalar type Float but found Double'),
 'tensordot_lengths': ('RuntimeError', 'both dimension lists should have same length'),
 'tensordot_mismatch': ('RuntimeError',
                        'contracted dimensions need to match, but first has size 2 in dim -2 '
                        'and second has size 3 in dim 0'),
 'tensordot_mismatch_list': ('RuntimeError',
                             'contracted dimensions need to match, but first has size 2 in dim '
                             '0 and second has size 3 in dim 0'),
 'tensordot_neg': ('RuntimeError', 'tensordot expects dims >= 0, but got dims=-1'),
 'xlogy_inplace_long': ('RuntimeError',
                        "result type Float can't be cast to the desired output type Long"),
 'xlogy_numbers': ('TypeError',
                   'xlogy() received an invalid combination of arguments - got (int, int), but '
                   'expected one of:\n'
                   ' * (Tensor input, Tensor other, *, Tensor out)\n'
                   ' * (Number self, Tensor other, *, Tensor out)\n'
                   ' * (Tensor input, Number other, *, Tensor out)\n'),
 'xlogy_shape': ('RuntimeError',
                 'The size of tensor a (3) must match the size of tensor b (2) at '
                 'non-singleton dimension 0')}


CASE_TOL = {name: tol for name, _, tol in CASES}


@pytest.mark.parametrize("name,f,tol", CASES, ids=[c[0] for c in CASES])
def test_recorded(name, f, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(summary(run(ctorch, f)), RECORDED[name], tol)


@pytest.mark.parametrize("name,f", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_recorded(name, f):
    got = run(ctorch, f)
    assert isinstance(got, Exception), got
    assert summary(got) == RECORDED_ERRORS[name]


def test_vs_torch_cases(torch_ref):
    """Every case and error against the installed torch itself."""
    for name, f, tol in CASES:
        assert_same(summary(run(ctorch, f)), summary(run(torch_ref, f)), tol)
    for name, f in ERRORS:
        assert summary(run(ctorch, f)) == summary(run(torch_ref, f)), name


# -- more: random inputs against torch, autograd, the warning, aminmax's type --

def _rand(rng, shape, dt):
    if dt == "int64":
        return np.asarray(rng.integers(-6, 6, shape))
    if dt == "bool":
        return np.asarray(rng.integers(0, 2, shape)).astype(bool)
    x = np.asarray(rng.standard_normal(shape) * rng.choice([1e-3, 1, 30, 1e4], shape))
    x[np.asarray(rng.random(shape) < 0.1)] = 0.0
    return x


def _both(fn, arrays, dts):
    out = []
    for M in (ctorch, torch_mod()):
        args = [M.tensor(a, dtype=getattr(M, d)) for a, d in zip(arrays, dts)]
        out.append(summary(run(M, lambda M: fn(M, *args))))
    return out


def torch_mod():
    import torch
    return torch


POINTWISE_TOL = {"logaddexp": 4, "logaddexp2": 4, "hypot": 1, "xlogy": 2, "copysign": 0,
                 "heaviside": 0}


@pytest.mark.parametrize("fn", sorted(POINTWISE_TOL))
def test_pointwise_random_vs_torch(torch_ref, fn):
    rng = np.random.default_rng(sorted(POINTWISE_TOL).index(fn))
    shapes = [((5, 1, 7), (3, 1)), ((40,), (40,)), ((2, 3), ()), ((), (4,)), ((0, 3), (1,))]
    dts = ["float32", "float64", "bfloat16", "float16", "int64", "bool"]
    for sa, sb in shapes:
        for da in dts:
            for db in dts:
                if fn == "heaviside" and da != db and rng.random() < 0.7:
                    continue
                got, want = _both(lambda M, a, b: getattr(M, fn)(a, b),
                                  [_rand(rng, sa, da), _rand(rng, sb, db)], [da, db])
                assert_same(got, want, POINTWISE_TOL[fn])


def test_shapes_random_vs_torch(torch_ref):
    rng = np.random.default_rng(7)
    for dt in ["float32", "float64", "int64", "bool"]:
        x = _rand(rng, (4, 5), dt)
        for n in (0, 1, 2, 4, 6):
            for dim in (0, 1, -1):
                got, want = _both(lambda M, a: M.diff(a, n=n, dim=dim), [x], [dt])
                assert_same(got, want)
        got, want = _both(lambda M, a, b, c: M.diff(a, n=2, dim=0, prepend=b, append=c),
                          [x, _rand(rng, (2, 5), "float64"), _rand(rng, (1, 5), "int64")],
                          [dt, "float64", "int64"])
        assert_same(got, want)
        for ix in ("ij", "xy"):
            got, want = _both(lambda M, a, b, c: M.meshgrid(a, b, c, indexing=ix),
                              [_rand(rng, (3,), dt), _rand(rng, (), dt), _rand(rng, (2,), dt)],
                              [dt] * 3)
            assert_same(got, want)
        got, want = _both(lambda M, a, b: M.cartesian_prod(a, b),
                          [_rand(rng, (3,), dt), _rand(rng, (4,), dt)], [dt, dt])
        assert_same(got, want)
        got, want = _both(lambda M, a, b, c: M.block_diag(a, b, c),
                          [_rand(rng, (2, 3), dt), _rand(rng, (4,), "int64"),
                           _rand(rng, (1, 1), dt)], [dt, "int64", dt])
        assert_same(got, want)
        got, want = _both(lambda M, a, b: M.kron(a, b),
                          [_rand(rng, (2, 1, 3), dt), _rand(rng, (3, 2), dt)], [dt, dt])
        assert_same(got, want)
        for kw in ({}, {"dim": 0}, {"dim": 1}):
            got, want = _both(lambda M, a: M.aminmax(a, **kw), [x], [dt])
            assert_same(got, want)


def test_cross_tensordot_random_vs_torch(torch_ref):
    rng = np.random.default_rng(8)
    for dt in ["float32", "float64", "bfloat16", "int64"]:
        a, b = _rand(rng, (4, 3, 5), dt), _rand(rng, (1, 3, 5), dt)
        got, want = _both(lambda M, a, b: M.cross(a, b), [a, b], [dt, dt])
        assert_same(got, want)
        got, want = _both(lambda M, a, b: M.linalg.cross(a, b, dim=1), [a, b], [dt, dt])
        assert_same(got, want)
    for dt in ["float64", "int64"]:     # a different matmul order can change float32
        a, b = _rand(rng, (2, 3, 4), dt), _rand(rng, (4, 3, 5), dt)
        for dims in (1, ([1, 2], [1, 0]), ([2], [0])):
            got, want = _both(lambda M, a, b: M.tensordot(a, b, dims), [a, b], [dt, dt])
            assert_same(got, want, 4 if dt == "float64" else 0)


def test_isin_cdist_random_vs_torch(torch_ref):
    rng = np.random.default_rng(9)
    for da, db in [("int64", "int64"), ("float32", "float64"), ("int64", "float32")]:
        e = rng.integers(-20, 20, (30, 7))
        t = rng.integers(-20, 20, (25,)) / rng.choice([1, 2], 25)
        for kw in ({}, {"invert": True}):
            got, want = _both(lambda M, a, b: M.isin(a, b, **kw), [e, t], [da, db])
            assert_same(got, want)
    for p in (0.0, 0.5, 1.0, 2.0, 3.0, INF):
        for sa, sb in [((3, 4), (5, 4)), ((2, 30, 3), (1, 6, 3))]:
            for mode in ("use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist"):
                got, want = _both(lambda M, a, b: M.cdist(a, b, p, mode),
                                  [rng.standard_normal(sa), rng.standard_normal(sb)],
                                  ["float64", "float64"])
                assert_same(got, want, 1e-9)


GRAD_CASES = [
    ("logaddexp", lambda M, a, b: M.logaddexp(a, b)),
    ("logaddexp2", lambda M, a, b: M.logaddexp2(a, b)),
    ("hypot", lambda M, a, b: M.hypot(a, b)),
    ("xlogy", lambda M, a, b: M.xlogy(a, b.abs() + 0.5)),
    ("copysign", lambda M, a, b: M.copysign(a, b)),
    ("cross", lambda M, a, b: M.cross(a, b, dim=1)),
    ("kron", lambda M, a, b: M.kron(a, b)),
    ("diff", lambda M, a, b: M.diff(a, n=2, prepend=b)),
    ("tensordot", lambda M, a, b: M.tensordot(a, b.t(), 1)),
    ("cdist", lambda M, a, b: M.cdist(a, b, 1.5)),
    ("block_diag", lambda M, a, b: M.block_diag(a, b)),
    ("cartesian_prod", lambda M, a, b: M.cartesian_prod(a.flatten(), b.flatten())),
]


@pytest.mark.parametrize("name,f", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_autograd_vs_torch(torch_ref, name, f):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    grads = []
    for M in (ctorch, torch_ref):
        a = M.tensor(x, dtype=M.float64, requires_grad=True)
        b = M.tensor(y, dtype=M.float64, requires_grad=True)
        r = f(M, a, b)
        w = M.tensor(np.arange(r.numel()).reshape(tuple(r.shape)) % 5 - 2.0, dtype=M.float64)
        (r * w).sum().backward()
        grads.append([None if t.grad is None else t.grad.numpy() for t in (a, b)])
    for g, w in zip(*grads):        # no gradient reads as torch's zeros
        g = np.zeros_like(x) if g is None else g
        w = np.zeros_like(x) if w is None else w
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_meshgrid_warns_once():
    from ctorch import _composite_math
    _composite_math._meshgrid_warned = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ctorch.meshgrid(ctorch.arange(2), ctorch.arange(3))
        ctorch.meshgrid(ctorch.arange(2))
        ctorch.meshgrid(ctorch.arange(2), indexing="ij")
    assert [(x.category, str(x.message)) for x in w] == [
        (UserWarning, "torch.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.")]
    assert w[0].filename == __file__


def test_aminmax_type():
    import pickle
    r = ctorch.aminmax(ctorch.tensor([1.0, 3.0]))
    assert isinstance(r, tuple) and type(r).__name__ == "aminmax"
    assert type(r) is ctorch.return_types.aminmax
    assert r.min.item() == 1.0 and r.max.item() == 3.0 and r[1].item() == 3.0
    assert repr(r) == "torch.return_types.aminmax(\nmin=tensor(1.),\nmax=tensor(3.))"
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and back.max.item() == 3.0
    mn, mx = r
    assert mn.item() == 1.0 and mx.item() == 3.0


def test_methods():
    t = ctorch.tensor([1.0, -2.0])
    for name in ("diff", "kron", "cross", "aminmax", "logaddexp", "logaddexp2", "hypot",
                 "hypot_", "xlogy", "xlogy_", "copysign", "copysign_", "heaviside",
                 "heaviside_"):
        assert callable(getattr(t, name)), name
    for name in ("isin", "tensordot", "logaddexp_", "cdist"):      # as torch: no such method
        assert not hasattr(t, name), name
    x = ctorch.tensor([0.0, 4.0])
    assert x.xlogy_(2.0) is x and x.tolist() == [0.0, float(np.float32(4 * math.log(2.0)))]
