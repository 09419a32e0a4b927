"""Linear algebra (aten/cpu/matmul.c, linalg_tri.c, linalg_einsum.c;
csrc/python/linalg.c): matmul and `@`, mm, bmm, mv, dot, vdot, outer, ger,
addmm, addmv, baddbmm, addbmm, addr (and their in-place forms), tril, triu,
diag, trace and einsum; singular values and matrix norms (aten/cpu/linalg_svd.c,
linalg_norm.c): linalg.svdvals, linalg.matrix_norm, linalg.norm's matrix orders
and torch.norm's p="fro" / p="nuc" (NORM_CASES, NORM_RECORDED).

Each case of CASES is a builder run on a module (ctorch or torch).  Its
result -- dtype, shape, strides and values, or the exception type and
message -- was recorded from PyTorch 1.13 into RECORDED below, because CI
has no torch; ``test_*_matches_torch`` run the same builders against real
torch (skipped where it is missing).  Operands hold small integers, so
every dtype's products are exact and compared exactly; random
floating-point operands are compared with a tolerance in the differential
tests only.  einsum results are compared without strides (torch returns
some products in other memory orders).

Deliberate differences from PyTorch 1.13 (2.x behaviour): float16 products
and trace/diag of float16 / bfloat16 are computed (1.13 raises "not
implemented"), diag of a far-off diagonal gives an empty tensor, and
torch.norm(x, "fro", dim=(a, b)) of float16 / bfloat16 is computed (1.13 raises
"sqrt_vml_cpu" not implemented) and of integers raises norm()'s dtype error
(1.13 fails an internal assert).
"""

import gc
import math
import random

import pytest

import ctorch

pytestmark = pytest.mark.filterwarnings(
    "ignore:An output with one or more elements was resized")


def A(m, *shape, dt=None):
    """Small integers (-3..3) of dtype dt (float32), shaped."""
    n = math.prod(shape)
    return (m.arange(n) % 7 - 3).to(dt or m.float32).reshape(*shape)


def O(m, *shape, dt=None):
    return m.ones(*shape, dtype=dt or m.float32)


CASES = {
    # mm
    "mm": lambda m: m.mm(A(m, 2, 3), A(m, 3, 4)),
    "mm shape": lambda m: m.mm(A(m, 2, 3), A(m, 4, 5)),
    "mm 1d": lambda m: m.mm(A(m, 3), A(m, 4, 5)),
    "mm 1d b": lambda m: m.mm(A(m, 2, 3), A(m, 3)),
    "mm dtype": lambda m: m.mm(A(m, 2, 3), A(m, 3, 4, dt=m.float64)),
    "mm bool": lambda m: m.mm(A(m, 2, 3, dt=m.bool), A(m, 3, 4, dt=m.bool)),
    "mm bool b": lambda m: m.mm(A(m, 2, 3), A(m, 3, 4, dt=m.bool)),
    "mm empty k": lambda m: m.mm(A(m, 2, 0), A(m, 0, 3)),
    "mm empty m": lambda m: m.mm(A(m, 0, 3), A(m, 3, 4)),
    "mm T": lambda m: m.mm(A(m, 3, 2).t(), A(m, 4, 3).t()),
    "mm slice": lambda m: m.mm(A(m, 4, 6)[::2, ::2], A(m, 3, 5)[:, 1:4]),
    "mm expanded": lambda m: m.mm(A(m, 1, 3).expand(4, 3), A(m, 3, 1).expand(3, 5)),
    "mm kw": lambda m: m.mm(input=A(m, 2, 3), mat2=A(m, 3, 2)),
    "mm method kw": lambda m: A(m, 2, 3).mm(mat2=A(m, 3, 2)),
    "mm number": lambda m: m.mm(A(m, 2, 3), 3),
    "mm out": lambda m: m.mm(A(m, 2, 3), A(m, 3, 4), out=m.empty(0)),
    "mm out dtype": lambda m: m.mm(A(m, 2, 3), A(m, 3, 4), out=m.empty(0, dtype=m.float64)),
    "mm int8": lambda m: m.mm(A(m, 5, 7, dt=m.int8) * 20, A(m, 7, 3, dt=m.int8) * 20),
    "mm uint8": lambda m: m.mm(A(m, 5, 7, dt=m.uint8), A(m, 7, 3, dt=m.uint8)),
    "mm int16": lambda m: m.mm(A(m, 5, 7, dt=m.int16) * 100, A(m, 7, 3, dt=m.int16) * 100),
    "mm int32": lambda m: m.mm(A(m, 5, 7, dt=m.int32), A(m, 7, 3, dt=m.int32)),
    "mm int64 T": lambda m: m.mm(A(m, 7, 5, dt=m.int64).t(), A(m, 7, 3, dt=m.int64)),
    "mm bfloat16": lambda m: m.mm(A(m, 5, 7, dt=m.bfloat16), A(m, 7, 3, dt=m.bfloat16)),
    "mm float64": lambda m: m.mm(A(m, 5, 7, dt=m.float64), A(m, 7, 3, dt=m.float64).t().t()),
    # matmul by ranks
    "matmul 0d": lambda m: m.matmul(m.tensor(1.), A(m, 3)),
    "matmul 1d 0d": lambda m: m.matmul(A(m, 3), m.tensor(1.)),
    "matmul 1d1d": lambda m: m.matmul(A(m, 3), A(m, 3)),
    "matmul 1d1d bad": lambda m: m.matmul(A(m, 3), A(m, 4)),
    "matmul 2d1d": lambda m: m.matmul(A(m, 2, 3), A(m, 3)),
    "matmul 2d1d bad": lambda m: m.matmul(A(m, 2, 3), A(m, 4)),
    "matmul 1d2d": lambda m: m.matmul(A(m, 4), A(m, 4, 5)),
    "matmul 1d2d bad": lambda m: m.matmul(A(m, 3), A(m, 4, 5)),
    "matmul 2d2d": lambda m: m.matmul(A(m, 2, 3), A(m, 3, 4)),
    "matmul 3d2d": lambda m: m.matmul(A(m, 2, 2, 3), A(m, 3, 5)),
    "matmul 3d2d bad": lambda m: m.matmul(A(m, 2, 2, 3), A(m, 4, 5)),
    "matmul 3d1d": lambda m: m.matmul(A(m, 4, 5, 3), A(m, 3)),
    "matmul 3d1d bad": lambda m: m.matmul(A(m, 4, 5, 3), A(m, 4)),
    "matmul 3d3d": lambda m: m.matmul(A(m, 2, 2, 3), A(m, 2, 3, 5)),
    "matmul 3d3d bad": lambda m: m.matmul(A(m, 2, 2, 3), A(m, 2, 4, 5)),
    "matmul broadcast bad": lambda m: m.matmul(A(m, 2, 2, 3), A(m, 3, 3, 4)),
    "matmul 2d3d": lambda m: m.matmul(A(m, 2, 3), A(m, 4, 3, 5)),
    "matmul 2d3d bad": lambda m: m.matmul(A(m, 2, 3), A(m, 4, 2, 5)),
    "matmul 1d3d": lambda m: m.matmul(A(m, 3), A(m, 4, 3, 5)),
    "matmul 1d3d bad": lambda m: m.matmul(A(m, 3), A(m, 4, 2, 5)),
    "matmul 4d3d": lambda m: m.matmul(A(m, 2, 1, 5, 3), A(m, 4, 3, 6)),
    "matmul 4d3d bad": lambda m: m.matmul(A(m, 2, 1, 2, 3), A(m, 4, 2, 5)),
    "matmul 5d": lambda m: m.matmul(A(m, 2, 1, 3, 2, 3), A(m, 1, 4, 1, 3, 2)),
    "matmul 3dT 2d": lambda m: m.matmul(A(m, 2, 3, 5).transpose(1, 2), A(m, 3, 6)),
    "matmul 3d 2dT": lambda m: m.matmul(A(m, 2, 5, 3), A(m, 6, 3).t()),
    "matmul 2dT 2dT": lambda m: m.matmul(A(m, 3, 2).t(), A(m, 4, 3).t()),
    "matmul 3d expanded": lambda m: m.matmul(A(m, 1, 2, 3).expand(4, 2, 3), A(m, 4, 3, 5)),
    "matmul float64": lambda m: m.matmul(A(m, 3, 5, 7, dt=m.float64), A(m, 7, 3, dt=m.float64)),
    "matmul int64 batched": lambda m: m.matmul(A(m, 3, 5, 7, dt=m.int64), A(m, 1, 7, 3, dt=m.int64)),
    "matmul dtype": lambda m: m.matmul(A(m, 2, 3), A(m, 3, 4, dt=m.float64)),
    "matmul dtype 1d": lambda m: m.matmul(A(m, 3), A(m, 3, dt=m.float64)),
    "matmul dtype 2d1d": lambda m: m.matmul(A(m, 2, 3), A(m, 3, dt=m.float64)),
    "matmul dtype 3d": lambda m: m.matmul(A(m, 2, 2, 3), A(m, 2, 3, 4, dt=m.float64)),
    "matmul dtype 2d3d": lambda m: m.matmul(O(m, 2, 3), O(m, 4, 3, 5, dt=m.float64)),
    "matmul dtype 1d3d": lambda m: m.matmul(O(m, 3, dt=m.float64), O(m, 4, 3, 5)),
    "matmul bool 1d3d": lambda m: m.matmul(O(m, 3, dt=m.bool), O(m, 4, 3, 5, dt=m.bool)),
    "matmul bool 2d3d": lambda m: m.matmul(O(m, 2, 3, dt=m.bool), O(m, 4, 3, 5, dt=m.bool)),
    "matmul bool 3d3d": lambda m: m.matmul(O(m, 4, 2, 3, dt=m.bool), O(m, 4, 3, 5, dt=m.bool)),
    "matmul bool 3d2d": lambda m: m.matmul(O(m, 4, 2, 3, dt=m.bool), O(m, 3, 5, dt=m.bool)),
    "matmul bool 3d1d": lambda m: m.matmul(O(m, 4, 2, 3, dt=m.bool), O(m, 3, dt=m.bool)),
    "matmul bool": lambda m: m.matmul(A(m, 2, 3, dt=m.bool), A(m, 3, 3, dt=m.bool)),
    "matmul number": lambda m: m.matmul(A(m, 2, 3), 3),
    "matmul out": lambda m: m.matmul(A(m, 2, 3), A(m, 3, 4), out=m.empty(0)),
    "matmul out dtype": lambda m: m.matmul(A(m, 2, 3), A(m, 3, 4), out=m.empty(0, dtype=m.float64)),
    "matmul out 1d": lambda m: m.matmul(A(m, 3), A(m, 3), out=m.empty(0)),
    "matmul out transposed": lambda m: m.matmul(A(m, 2, 3), A(m, 3, 4), out=m.empty(4, 2).t()),
    "matmul method": lambda m: A(m, 2, 3).matmul(A(m, 3, 2)),
    "operator @": lambda m: A(m, 2, 3) @ A(m, 3, 2),
    "operator @ batched": lambda m: A(m, 2, 2, 3) @ A(m, 3),
    "operator @ number": lambda m: A(m, 2, 3) @ 2,
    "operator @ reflected number": lambda m: 2 @ A(m, 2, 3),
    "__matmul__ number": lambda m: A(m, 2, 3).__matmul__(2),
    "__rmatmul__": lambda m: A(m, 3, 2).__rmatmul__(A(m, 2, 3)),
    # bmm
    "bmm": lambda m: m.bmm(A(m, 2, 2, 3), A(m, 2, 3, 5)),
    "bmm 2d": lambda m: m.bmm(A(m, 2, 3), A(m, 4, 5)),
    "bmm 2d b": lambda m: m.bmm(A(m, 2, 2, 3), A(m, 4, 5)),
    "bmm shape": lambda m: m.bmm(A(m, 2, 2, 3), A(m, 2, 4, 5)),
    "bmm batch": lambda m: m.bmm(A(m, 2, 2, 3), A(m, 3, 3, 5)),
    "bmm dtype": lambda m: m.bmm(A(m, 2, 2, 3), A(m, 2, 3, 5, dt=m.float64)),
    "bmm T": lambda m: m.bmm(A(m, 2, 3, 2).transpose(1, 2), A(m, 5, 2, 3).permute(1, 2, 0)),
    "bmm expanded": lambda m: m.bmm(A(m, 1, 2, 3).expand(4, 2, 3), A(m, 4, 3, 5)),
    "bmm bfloat16": lambda m: m.bmm(A(m, 2, 5, 7, dt=m.bfloat16), A(m, 2, 7, 3, dt=m.bfloat16)),
    "bmm int32": lambda m: m.bmm(A(m, 2, 5, 7, dt=m.int32), A(m, 2, 7, 3, dt=m.int32)),
    "bmm method": lambda m: A(m, 2, 2, 3).bmm(A(m, 2, 3, 1)),
    "bmm out": lambda m: m.bmm(A(m, 2, 2, 3), A(m, 2, 3, 3), out=m.empty(0)),
    "bmm out dtype": lambda m: m.bmm(A(m, 2, 2, 3), A(m, 2, 3, 3), out=m.empty(1, dtype=m.int64)),
    # mv
    "mv": lambda m: m.mv(A(m, 2, 3), A(m, 3)),
    "mv 1d": lambda m: m.mv(A(m, 3), A(m, 3)),
    "mv 2d2d": lambda m: m.mv(A(m, 2, 3), A(m, 4, 5)),
    "mv shape": lambda m: m.mv(A(m, 2, 3), A(m, 4)),
    "mv dtype": lambda m: m.mv(A(m, 2, 3), A(m, 3, dt=m.float64)),
    "mv T": lambda m: m.mv(A(m, 3, 2).t(), A(m, 6)[::2]),
    "mv expanded": lambda m: m.mv(A(m, 3, 2).t(), A(m, 1).expand(3)),
    "mv int32": lambda m: m.mv(A(m, 5, 7, dt=m.int32), A(m, 7, dt=m.int32)),
    "mv method": lambda m: A(m, 2, 3).mv(A(m, 3)),
    "mv out dtype": lambda m: m.mv(A(m, 2, 3), A(m, 3), out=m.empty(0, dtype=m.int64)),
    # dot, vdot, outer, ger
    "dot": lambda m: m.dot(A(m, 3), A(m, 6)[::2]),
    "dot 2d": lambda m: m.dot(A(m, 2, 3), A(m, 3)),
    "dot size": lambda m: m.dot(A(m, 3), A(m, 4)),
    "dot dtype": lambda m: m.dot(A(m, 3), A(m, 3, dt=m.float64)),
    "dot bool": lambda m: m.dot(A(m, 3, dt=m.bool), A(m, 3, dt=m.bool)),
    "dot int32": lambda m: m.dot(A(m, 7, dt=m.int32), A(m, 7, dt=m.int32)),
    "dot bfloat16": lambda m: m.dot(A(m, 7, dt=m.bfloat16), A(m, 7, dt=m.bfloat16)),
    "dot out": lambda m: m.dot(A(m, 3), A(m, 3), out=m.empty(0)),
    "dot out dtype": lambda m: m.dot(A(m, 3), A(m, 3), out=m.empty(0, dtype=m.float64)),
    "dot method": lambda m: A(m, 4).dot(A(m, 4)),
    "vdot": lambda m: m.vdot(A(m, 3), A(m, 3)),
    "vdot 2d": lambda m: m.vdot(A(m, 2, 3), A(m, 3)),
    "outer": lambda m: m.outer(A(m, 3), A(m, 4, dt=m.float64)),
    "outer 2d": lambda m: m.outer(A(m, 2, 3), A(m, 4)),
    "outer 2d b": lambda m: m.outer(A(m, 3), A(m, 2, 4)),
    "outer int": lambda m: m.outer(A(m, 3, dt=m.int32), A(m, 4, dt=m.int64)),
    "outer bool": lambda m: m.outer(A(m, 3, dt=m.bool), A(m, 4, dt=m.bool)),
    "outer method": lambda m: A(m, 3).outer(A(m, 2)),
    "outer out": lambda m: m.outer(A(m, 3), A(m, 2), out=m.empty(0)),
    "ger": lambda m: m.ger(A(m, 3), A(m, 4)),
    # addmm & co
    "addmm": lambda m: m.addmm(A(m, 3), A(m, 2, 3), A(m, 3, 3)),
    "addmm bad self": lambda m: m.addmm(A(m, 4), A(m, 2, 3), A(m, 3, 3)),
    "addmm bad shapes": lambda m: m.addmm(A(m, 3), A(m, 2, 3), A(m, 4, 3)),
    "addmm self dtype": lambda m: m.addmm(A(m, 3, dt=m.float64), A(m, 2, 3), A(m, 3, 3)),
    "addmm mat dtype": lambda m: m.addmm(A(m, 3), A(m, 2, 3, dt=m.float64), A(m, 3, 3)),
    "addmm 1d": lambda m: m.addmm(A(m, 3), A(m, 3), A(m, 3, 3)),
    "addmm 1d b": lambda m: m.addmm(A(m, 3), A(m, 2, 3), A(m, 3)),
    "addmm int": lambda m: m.addmm(A(m, 3, dt=m.int32), A(m, 2, 3, dt=m.int32),
                                   A(m, 3, 3, dt=m.int32), beta=2, alpha=3),
    "addmm int float beta": lambda m: m.addmm(A(m, 3, dt=m.int32), A(m, 2, 3, dt=m.int32),
                                              A(m, 3, 3, dt=m.int32), beta=2.5),
    "addmm beta 0 ignores nan": lambda m: m.addmm(m.full((2, 3), float("nan")), A(m, 2, 3),
                                                  A(m, 3, 3), beta=0),
    "addmm beta alpha": lambda m: m.addmm(A(m, 2, 1), A(m, 2, 3), A(m, 3, 3), beta=0.5,
                                          alpha=-2),
    "addmm method": lambda m: A(m, 2, 3).addmm(A(m, 2, 3), A(m, 3, 3), beta=3),
    "addmm_": lambda m: A(m, 2, 3).addmm_(A(m, 2, 3), A(m, 3, 3), alpha=2),
    "addmm_ transposed self": lambda m: A(m, 3, 2).t().addmm_(A(m, 2, 3), A(m, 3, 3), alpha=2),
    "addmm_ bad": lambda m: A(m, 3).addmm_(A(m, 2, 3), A(m, 3, 3)),
    "addmm_ dtype": lambda m: O(m, 2, 3).addmm_(O(m, 2, 3, dt=m.float64), O(m, 3, 3, dt=m.float64)),
    "addmm out": lambda m: m.addmm(A(m, 3), A(m, 2, 3), A(m, 3, 3), out=m.empty(0)),
    "addmv": lambda m: m.addmv(A(m, 2), A(m, 2, 3), A(m, 3)),
    "addmv broadcast": lambda m: m.addmv(A(m, 1) + 5, A(m, 2, 3), A(m, 3), beta=2, alpha=0.5),
    "addmv bad": lambda m: m.addmv(A(m, 3), A(m, 2, 3), A(m, 3)),
    "addmv self dtype": lambda m: m.addmv(A(m, 2, dt=m.float64), A(m, 2, 3), A(m, 3)),
    "addmv mat dtype": lambda m: m.addmv(A(m, 2), A(m, 2, 3, dt=m.float64), A(m, 3)),
    "addmv 2d self": lambda m: m.addmv(A(m, 2, 2), A(m, 2, 3), A(m, 3)),
    "addmv 2d vec": lambda m: m.addmv(A(m, 2), A(m, 2, 3), A(m, 3, 1)),
    "addmv_": lambda m: A(m, 2).addmv_(A(m, 2, 3), A(m, 3), beta=2),
    "addmv_ dtype": lambda m: O(m, 2).addmv_(O(m, 2, 3, dt=m.float64), O(m, 3, dt=m.float64)),
    "addmv int64": lambda m: m.addmv(A(m, 2, dt=m.int64), A(m, 2, 3, dt=m.int64),
                                     A(m, 3, dt=m.int64)),
    "baddbmm": lambda m: m.baddbmm(A(m, 3), A(m, 2, 2, 3), A(m, 2, 3, 3)),
    "baddbmm bad": lambda m: m.baddbmm(A(m, 4), A(m, 2, 2, 3), A(m, 2, 3, 3)),
    "baddbmm self dtype": lambda m: m.baddbmm(A(m, 3, dt=m.float64), A(m, 2, 2, 3),
                                              A(m, 2, 3, 3)),
    "baddbmm 2d": lambda m: m.baddbmm(A(m, 3), A(m, 2, 3), A(m, 2, 3, 3)),
    "baddbmm_": lambda m: A(m, 2, 2, 3).baddbmm_(A(m, 2, 2, 3), A(m, 2, 3, 3), beta=-1,
                                                 alpha=2),
    "baddbmm_ dtype": lambda m: O(m, 2, 2, 3).baddbmm_(O(m, 2, 2, 3, dt=m.float64),
                                                       O(m, 2, 3, 3, dt=m.float64)),
    "baddbmm out": lambda m: m.baddbmm(O(m, 2, 2, 3, dt=m.float64), O(m, 2, 2, 3),
                                       O(m, 2, 3, 3), out=O(m, 2, 2, 3)),
    "addbmm": lambda m: m.addbmm(A(m, 3), A(m, 2, 2, 3), A(m, 2, 3, 3)),
    "addbmm beta alpha": lambda m: m.addbmm(A(m, 2, 3), A(m, 2, 2, 3), A(m, 2, 3, 3), beta=2,
                                            alpha=3),
    "addbmm bad": lambda m: m.addbmm(A(m, 3), A(m, 2, 2, 3), A(m, 2, 4, 3)),
    "addbmm 2d": lambda m: m.addbmm(A(m, 3), A(m, 2, 3), A(m, 2, 4, 3)),
    "addbmm dtype": lambda m: m.addbmm(A(m, 3, dt=m.float64), A(m, 2, 2, 3), A(m, 2, 3, 3)),
    "addbmm_": lambda m: A(m, 2, 3).addbmm_(A(m, 4, 2, 3), A(m, 4, 3, 3)),
    # addr
    "addr": lambda m: m.addr(O(m, 2, 3), A(m, 2), A(m, 3)),
    "addr broadcast self": lambda m: m.addr(O(m, 3), A(m, 2), A(m, 3), beta=2, alpha=3),
    "addr int32 int64": lambda m: m.addr(O(m, 2, 3, dt=m.int32), A(m, 2, dt=m.int64),
                                         A(m, 3, dt=m.int64)),
    "addr mixed": lambda m: m.addr(O(m, 2, 3), A(m, 2, dt=m.int64), A(m, 3)),
    "addr float64 self": lambda m: m.addr(O(m, 2, 3, dt=m.float64), A(m, 2), A(m, 3)),
    "addr bool": lambda m: m.addr(O(m, 2, 3, dt=m.bool), A(m, 2, dt=m.bool),
                                  A(m, 3, dt=m.bool)),
    "addr bool beta 2": lambda m: m.addr(O(m, 2, 3, dt=m.bool), A(m, 2, dt=m.bool),
                                         A(m, 3, dt=m.bool), beta=2),
    "addr bool beta 0": lambda m: m.addr(O(m, 2, 3, dt=m.bool), A(m, 2, dt=m.bool),
                                         A(m, 3, dt=m.bool), beta=0),
    "addr bool float alpha": lambda m: m.addr(O(m, 2, 3, dt=m.bool), A(m, 2, dt=m.bool),
                                              A(m, 3, dt=m.bool), alpha=2.5),
    "addr 2d vec1": lambda m: m.addr(O(m, 2, 3), A(m, 1, 2), A(m, 3)),
    "addr 2d vec2": lambda m: m.addr(O(m, 2, 3), A(m, 2), A(m, 1, 3)),
    "addr bad self": lambda m: m.addr(O(m, 4, 3), A(m, 2), A(m, 3)),
    "addr int float beta": lambda m: m.addr(O(m, 2, 3, dt=m.int32), A(m, 2, dt=m.int32),
                                            A(m, 3, dt=m.int32), beta=1.5),
    "addr int bool beta": lambda m: m.addr(O(m, 2, 3, dt=m.int32), A(m, 2, dt=m.int32),
                                           A(m, 3, dt=m.int32), beta=True),
    "addr beta 0 ignores nan": lambda m: m.addr(m.full((2, 3), float("nan")), A(m, 2),
                                                A(m, 3), beta=0),
    "addr 0d self": lambda m: m.addr(m.tensor(2.), A(m, 2, dt=m.int64), A(m, 3, dt=m.int64)),
    "addr float16": lambda m: m.addr(O(m, 2, 3, dt=m.float16), A(m, 2, dt=m.float16),
                                     A(m, 3, dt=m.float16)),
    "addr out": lambda m: m.addr(O(m, 2, 3), A(m, 2), A(m, 3), beta=0, out=m.empty(0)),
    "addr method": lambda m: O(m, 2, 3).addr(A(m, 2), A(m, 3), beta=3, alpha=-1),
    "addr_": lambda m: O(m, 2, 3).addr_(A(m, 2), A(m, 3), beta=3),
    "addr_ 1d self": lambda m: O(m, 3).addr_(A(m, 2), A(m, 3)),
    "addr_ cast": lambda m: O(m, 2, 3, dt=m.int32).addr_(A(m, 2), A(m, 3)),
    # tril, triu
    "tril": lambda m: m.tril(A(m, 3, 4)),
    "tril 1d": lambda m: m.tril(A(m, 3)),
    "tril 0d": lambda m: m.tril(m.tensor(1.)),
    "tril 3d": lambda m: m.tril(A(m, 2, 3, 4), 1),
    "tril negative": lambda m: m.tril(A(m, 4, 3), -2),
    "tril far": lambda m: m.tril(A(m, 4, 3), 10),
    "triu far": lambda m: m.triu(A(m, 4, 3), -10),
    "triu far positive": lambda m: m.triu(A(m, 4, 3), 10),
    "triu bool": lambda m: m.triu(A(m, 3, 4, dt=m.bool), -1),
    "triu T": lambda m: m.triu(A(m, 4, 3).t(), 1),
    "tril_": lambda m: A(m, 3, 4).tril_(1),
    "triu_": lambda m: A(m, 3, 4).triu_(),
    "tril out": lambda m: m.tril(A(m, 3, 4), out=m.empty(0)),
    "tril method": lambda m: A(m, 3, 4).tril(-1),
    "tril diagonal kw": lambda m: A(m, 3, 4).triu(diagonal=2),
    "tril float16": lambda m: m.tril(A(m, 3, 4, dt=m.float16)),
    "triu int64": lambda m: m.triu(A(m, 2, 3, 4, dt=m.int64), -1),
    # diag, trace
    "diag 3d": lambda m: m.diag(A(m, 2, 3, 4)),
    "diag 0d": lambda m: m.diag(m.tensor(1.)),
    "diag 1d": lambda m: m.diag(A(m, 3), -1),
    "diag 1d positive": lambda m: m.diag(A(m, 3, dt=m.int64), 2),
    "diag 2d": lambda m: m.diag(A(m, 3, 4), 1),
    "diag 2d negative": lambda m: m.diag(A(m, 3, 4), -2),
    "diag 2d T": lambda m: m.diag(A(m, 4, 3).t()),
    "diag method": lambda m: A(m, 4, 3).diag(),
    "diag bool": lambda m: m.diag(A(m, 3, dt=m.bool)),
    "diag out": lambda m: m.diag(A(m, 3), out=m.empty(1)),
    "diag out dtype": lambda m: m.diag(A(m, 3, dt=m.int64), out=m.empty(1)),
    "trace": lambda m: m.trace(A(m, 3, 4)),
    "trace 1d": lambda m: m.trace(A(m, 3)),
    "trace method": lambda m: A(m, 4, 3).trace(),
    "trace int32": lambda m: m.trace(A(m, 3, 4, dt=m.int32)),
    "trace uint8": lambda m: m.trace(A(m, 3, 4, dt=m.uint8)),
    "trace bool": lambda m: m.trace(A(m, 3, 4, dt=m.bool)),
    "trace float64 T": lambda m: m.trace(A(m, 3, 4, dt=m.float64).t()),
}

EINSUM = [
    ("ij->ji", [(2, 3)]), ("ij", [(2, 3)]), ("ji", [(2, 3)]), ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("i,j->ij", [(2,), (3,)]),
    ("i,i->", [(3,), (3,)]), ("i,i", [(3,), (3,)]), ("i,i->i", [(3,), (3,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij->...ji", [(2, 3, 4)]), ("...,...", [(2, 3), (3,)]),
    ("b...,b...->b", [(2, 3), (2, 3)]), ("iJ,Jk", [(2, 3), (3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]), ("ij->ij", [(2, 3)]),
    ("ij,ik", [(2, 3), (2, 3)]), ("ij,jk->", [(2, 3), (3, 2)]),
    ("ij,kl->ijkl", [(2, 3), (2, 3)]), ("i j -> j i", [(2, 3)]),
    ("...i,...i->...", [(4, 1, 3), (5, 3)]), ("", [()]), (",->", [(), ()]),
    ("bij,bkj->bik", [(3, 2, 4), (3, 5, 4)]), ("ij,j->i", [(3, 4), (4,)]),
    ("i,ij->j", [(3,), (3, 4)]), ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 5)]),
    ("iij->ij", [(3, 3, 2)]), ("ijj,jk->ik", [(2, 3, 3), (3, 4)]),
    ("ab,cd,bc->ad", [(2, 3), (4, 5), (3, 4)]), ("a,b,c->abc", [(2,), (3,), (4,)]),
    ("...ij,...jk", [(4, 2, 3), (3, 5)]), ("ij...,jk...->ik...", [(2, 3, 4), (3, 5, 4)]),
    ("ij,ij->i", [(1, 3), (4, 3)]), ("ab,ab->", [(2, 3), (1, 3)]),
    ("i,i,i->", [(3,), (3,), (3,)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij->i", [(4, 0)]), ("ij,jk", [(2, 0), (0, 3)]),
    # errors
    ("ij->k", [(2, 3)]), ("i,j", [(2,)]), ("i", [(2,), (2,)]), ("ij", [(2,)]),
    ("i1", [(2, 3)]), ("i->ii", [(2,)]), ("ij,jk->ik", [(2, 3), (4, 5)]),
    ("...ij", [(2,)]), ("i.j", [(2, 3)]), ("ij->i->j", [(2, 3)]), ("ii->i", [(2, 3)]),
]
for _eq, _shapes in EINSUM:
    CASES["einsum %r %r" % (_eq, _shapes)] = (
        lambda m, eq=_eq, shapes=_shapes: m.einsum(eq, *[A(m, *s) for s in shapes]))
CASES.update({
    "einsum list": lambda m: m.einsum("ij,jk", [A(m, 2, 3), A(m, 3, 2)]),
    "einsum tuple": lambda m: m.einsum("ij,jk", (A(m, 2, 3), A(m, 3, 2))),
    "einsum int32": lambda m: m.einsum("ij,jk", A(m, 2, 3, dt=m.int32), A(m, 3, 2, dt=m.int32)),
    "einsum int32 sum": lambda m: m.einsum("ij->", A(m, 2, 3, dt=m.int32)),
    "einsum bool sum": lambda m: m.einsum("ij->", A(m, 2, 3, dt=m.bool)),
    "einsum float64": lambda m: m.einsum("ij,jk", A(m, 2, 3, dt=m.float64),
                                         A(m, 3, 2, dt=m.float64)),
    "einsum dtype": lambda m: m.einsum("ij,jk", A(m, 2, 3), A(m, 3, 2, dt=m.float64)),
    "einsum T": lambda m: m.einsum("ij,jk", A(m, 3, 2).t(), A(m, 2, 3).t()),
    "einsum keyword": lambda m: m.einsum("ij,jk", A(m, 3, 2), x=1),
    "einsum number operand": lambda m: m.einsum("ij,jk", A(m, 3, 2), 1),
    "einsum no equation": lambda m: m.einsum(1, A(m, 3, 2)),
})


def outcome(m, name):
    """What CASES[name] gives on module m: ("ok", dtype, shape, strides,
    values) or (exception type, message)."""
    try:
        r = CASES[name](m)
        strides = None if name.startswith("einsum") else tuple(r.stride())
        return ("ok", repr(r.dtype).replace("torch.", ""), tuple(r.shape), strides,
                r.tolist())
    except Exception as e:      # noqa: BLE001 - the exception is the result
        return (type(e).__name__, str(e).split("\n")[0])


# Recorded from PyTorch 1.13 by running CASES on torch.
RECORDED = {'__matmul__ number': ('AttributeError',
                       "'NotImplementedType' object has no attribute 'stride'"),
 '__rmatmul__': ('ok', 'float32', (2, 2), (2, 1), [[10.0, 4.0], [1.0, 4.0]]),
 'addbmm': ('ok', 'float32', (2, 3), (3, 1), [[-2.0, -2.0, 12.0], [2.0, -8.0, -4.0]]),
 'addbmm 2d': ('RuntimeError', 'batch1 must be a 3D tensor'),
 'addbmm bad': ('RuntimeError', 'Incompatible matrix sizes for bmm (2x3 and 4x3)'),
 'addbmm beta alpha': ('ok', 'float32', (2, 3), (3, 1),
                       [[-3.0, -4.0, 37.0], [15.0, -16.0, -5.0]]),
 'addbmm dtype': ('RuntimeError', 'self and mat2 must have the same dtype'),
 'addbmm_': ('ok', 'float32', (2, 3), (3, 1), [[-2.0, -1.0, 0.0], [-3.0, -1.0, 1.0]]),
 'addmm': ('ok', 'float32', (2, 3), (3, 1), [[3.0, 5.0, 0.0], [3.0, -7.0, -3.0]]),
 'addmm 1d': ('RuntimeError', 'mat1 must be a matrix, got 1-D tensor'),
 'addmm 1d b': ('RuntimeError', 'mat2 must be a matrix, got 1-D tensor'),
 'addmm bad self': ('RuntimeError',
                    'The expanded size of the tensor (3) must match the existing size '
                    '(4) at non-singleton dimension 1.  Target sizes: [2, 3].  Tensor '
                    'sizes: [4]'),
 'addmm bad shapes': ('RuntimeError',
                      'mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)'),
 'addmm beta 0 ignores nan': ('ok', 'float32', (2, 3), (3, 1),
                              [[6.0, 7.0, 1.0], [6.0, -5.0, -2.0]]),
 'addmm beta alpha': ('ok', 'float32', (2, 3), (3, 1),
                      [[-13.5, -15.5, -3.5], [-13.0, 9.0, 3.0]]),
 'addmm int': ('ok', 'int32', (2, 3), (3, 1), [[12, 17, 1], [12, -19, -8]]),
 'addmm int float beta': ('ok', 'int32', (2, 3), (3, 1), [[0, 3, -1], [0, -9, -4]]),
 'addmm mat dtype': ('RuntimeError', 'mat1 and mat2 must have the same dtype'),
 'addmm method': ('ok', 'float32', (2, 3), (3, 1),
                  [[-3.0, 1.0, -2.0], [6.0, -2.0, 4.0]]),
 'addmm out': ('ok', 'float32', (2, 3), (3, 1), [[3.0, 5.0, 0.0], [3.0, -7.0, -3.0]]),
 'addmm self dtype': ('RuntimeError', 'self and mat2 must have the same dtype'),
 'addmm_': ('ok', 'float32', (2, 3), (3, 1), [[9.0, 12.0, 1.0], [12.0, -9.0, -2.0]]),
 'addmm_ bad': ('RuntimeError',
                'Bad in-place call: input tensor size [3] and output tensor size [2, '
                '3] should match'),
 'addmm_ dtype': ('RuntimeError', 'self and mat2 must have the same dtype'),
 'addmm_ transposed self': ('ok', 'float32', (2, 3), (1, 2),
                            [[9.0, 13.0, 3.0], [10.0, -10.0, -2.0]]),
 'addmv': ('ok', 'float32', (2,), (1,), [11.0, -6.0]),
 'addmv 2d self': ('RuntimeError', 'vector + matrix @ vector expected, got 2, 2, 1'),
 'addmv 2d vec': ('RuntimeError', 'vector + matrix @ vector expected, got 1, 2, 2'),
 'addmv bad': ('RuntimeError', 'size mismatch, got 3, 2x3,3'),
 'addmv broadcast': ('ok', 'float32', (2,), (1,), [11.0, 2.0]),
 'addmv int64': ('ok', 'int64', (2,), (1,), [11, -6]),
 'addmv mat dtype': ('RuntimeError', 'expected scalar type Double but found Float'),
 'addmv self dtype': ('ok', 'float32', (2,), (1,), [11.0, -6.0]),
 'addmv_': ('ok', 'float32', (2,), (1,), [8.0, -8.0]),
 'addmv_ dtype': ('RuntimeError',
                  'Bad in-place call: input tensor dtype float and output tensor dtype '
                  'double should match'),
 'addr': ('ok', 'float32', (2, 3), (3, 1), [[10.0, 7.0, 4.0], [7.0, 5.0, 3.0]]),
 'addr 0d self': ('ok', 'float32', (2, 3), (3, 1), [[11.0, 8.0, 5.0], [8.0, 6.0, 4.0]]),
 'addr 2d vec1': ('RuntimeError', 'addr: Expected 1-D argument vec1, but got 2-D'),
 'addr 2d vec2': ('RuntimeError', 'addr: Expected 1-D argument vec2, but got 2-D'),
 'addr bad self': ('RuntimeError',
                   'The expanded size of the tensor (2) must match the existing size '
                   '(4) at non-singleton dimension 0.  Target sizes: [2, 3].  Tensor '
                   'sizes: [4, 3]'),
 'addr beta 0 ignores nan': ('ok', 'float32', (2, 3), (3, 1),
                             [[9.0, 6.0, 3.0], [6.0, 4.0, 2.0]]),
 'addr bool': ('ok', 'bool', (2, 3), (3, 1), [[True, True, True], [True, True, True]]),
 'addr bool beta 0': ('ok', 'bool', (2, 3), (3, 1),
                      [[True, True, True], [True, True, True]]),
 'addr bool beta 2': ('ok', 'bool', (2, 3), (3, 1),
                      [[True, True, True], [True, True, True]]),
 'addr bool float alpha': ('RuntimeError',
                           'For integral input tensors, argument alpha must not be a '
                           'floating point number.'),
 'addr broadcast self': ('ok', 'float32', (2, 3), (3, 1),
                         [[29.0, 20.0, 11.0], [20.0, 14.0, 8.0]]),
 'addr float16': ('ok', 'float16', (2, 3), (3, 1), [[10.0, 7.0, 4.0], [7.0, 5.0, 3.0]]),
 'addr float64 self': ('ok', 'float64', (2, 3), (3, 1),
                       [[10.0, 7.0, 4.0], [7.0, 5.0, 3.0]]),
 'addr int bool beta': ('RuntimeError',
                        'Boolean beta only supported for Boolean results.'),
 'addr int float beta': ('RuntimeError',
                         'For integral input tensors, argument beta must not be a '
                         'floating point number.'),
 'addr int32 int64': ('ok', 'int64', (2, 3), (3, 1), [[10, 7, 4], [7, 5, 3]]),
 'addr method': ('ok', 'float32', (2, 3), (3, 1),
                 [[-6.0, -3.0, 0.0], [-3.0, -1.0, 1.0]]),
 'addr mixed': ('ok', 'float32', (2, 3), (3, 1), [[10.0, 7.0, 4.0], [7.0, 5.0, 3.0]]),
 'addr out': ('ok', 'float32', (2, 3), (3, 1), [[9.0, 6.0, 3.0], [6.0, 4.0, 2.0]]),
 'addr_': ('ok', 'float32', (2, 3), (3, 1), [[12.0, 9.0, 6.0], [9.0, 7.0, 5.0]]),
 'addr_ 1d self': ('RuntimeError', '2D tensor expected, got 1D tensor for input'),
 'addr_ cast': ('RuntimeError',
                "result type Float can't be cast to the desired output type Int"),
 'baddbmm': ('ok', 'float32', (2, 2, 3), (6, 3, 1),
             [[[3.0, 5.0, 0.0], [3.0, -7.0, -3.0]],
              [[-8.0, -9.0, 11.0], [-4.0, -3.0, -2.0]]]),
 'baddbmm 2d': ('RuntimeError', 'batch1 must be a 3D tensor'),
 'baddbmm bad': ('RuntimeError',
                 'The expanded size of the tensor (3) must match the existing size (4) '
                 'at non-singleton dimension 2.  Target sizes: [2, 2, 3].  Tensor '
                 'sizes: [4]'),
 'baddbmm out': ('ok', 'float32', (2, 2, 3), (6, 3, 1),
                 [[[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]],
                  [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]]),
 'baddbmm self dtype': ('ok', 'float32', (2, 2, 3), (6, 3, 1),
                        [[[3.0, 5.0, 0.0], [3.0, -7.0, -3.0]],
                         [[-8.0, -9.0, 11.0], [-4.0, -3.0, -2.0]]]),
 'baddbmm_': ('ok', 'float32', (2, 2, 3), (6, 3, 1),
              [[[15.0, 16.0, 3.0], [12.0, -11.0, -6.0]],
               [[-13.0, -11.0, 26.0], [-1.0, -2.0, -3.0]]]),
 'baddbmm_ dtype': ('RuntimeError',
                    'Bad in-place call: input tensor dtype float and output tensor '
                    'dtype double should match'),
 'bmm': ('ok', 'float32', (2, 2, 5), (10, 5, 1),
         [[[5.0, -1.0, 7.0, 1.0, 2.0], [2.0, 5.0, 1.0, 4.0, -7.0]],
          [[-17.0, 2.0, 0.0, 12.0, 10.0], [3.0, 3.0, 3.0, -4.0, -4.0]]]),
 'bmm 2d': ('RuntimeError', 'batch1 must be a 3D tensor'),
 'bmm 2d b': ('RuntimeError', 'batch2 must be a 3D tensor'),
 'bmm T': ('ok', 'float32', (2, 2, 5), (10, 5, 1),
           [[[10.0, -8.0, -12.0, -2.0, 1.0], [4.0, -10.0, -10.0, 4.0, 4.0]],
            [[-2.0, -3.0, -4.0, -5.0, 15.0], [1.0, 4.0, 7.0, 10.0, -8.0]]]),
 'bmm batch': ('RuntimeError',
               'Expected size for first two dimensions of batch2 tensor to be: [2, 3] '
               'but got: [3, 3].'),
 'bmm bfloat16': ('ok', 'bfloat16', (2, 5, 3), (15, 3, 1),
                  [[[7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0],
                    [7.0, 14.0, 7.0], [7.0, 14.0, 7.0]],
                   [[7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0],
                    [7.0, 14.0, 7.0], [7.0, 14.0, 7.0]]]),
 'bmm dtype': ('RuntimeError', 'expected scalar type Float but found Double'),
 'bmm expanded': ('ok', 'float32', (4, 2, 5), (10, 5, 1),
                  [[[5.0, -1.0, 7.0, 1.0, 2.0], [2.0, 5.0, 1.0, 4.0, -7.0]],
                   [[-1.0, 7.0, 1.0, 2.0, -4.0], [5.0, 1.0, 4.0, -7.0, -4.0]],
                   [[7.0, 1.0, 2.0, -4.0, -10.0], [1.0, 4.0, -7.0, -4.0, -1.0]],
                   [[1.0, 2.0, -4.0, -10.0, 5.0], [4.0, -7.0, -4.0, -1.0, 2.0]]]),
 'bmm int32': ('ok', 'int32', (2, 5, 3), (15, 3, 1),
               [[[7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7]],
                [[7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7]]]),
 'bmm method': ('ok', 'float32', (2, 2, 1), (2, 1, 1),
                [[[14.0], [-4.0]], [[-7.0], [2.0]]]),
 'bmm out': ('ok', 'float32', (2, 2, 3), (6, 3, 1),
             [[[6.0, 7.0, 1.0], [6.0, -5.0, -2.0]],
              [[-5.0, -7.0, 12.0], [-1.0, -1.0, -1.0]]]),
 'bmm out dtype': ('RuntimeError',
                   'Expected out tensor to have dtype float, but got long int instead'),
 'bmm shape': ('RuntimeError',
               'Expected size for first two dimensions of batch2 tensor to be: [2, 3] '
               'but got: [2, 4].'),
 'diag 0d': ('RuntimeError', 'matrix or a vector expected'),
 'diag 1d': ('ok', 'float32', (4, 4), (4, 1),
             [[0.0, 0.0, 0.0, 0.0], [-3.0, 0.0, 0.0, 0.0], [0.0, -2.0, 0.0, 0.0],
              [0.0, 0.0, -1.0, 0.0]]),
 'diag 1d positive': ('ok', 'int64', (5, 5), (5, 1),
                      [[0, 0, -3, 0, 0], [0, 0, 0, -2, 0], [0, 0, 0, 0, -1],
                       [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]),
 'diag 2d': ('ok', 'float32', (3,), (1,), [-2.0, 3.0, 1.0]),
 'diag 2d T': ('ok', 'float32', (3,), (1,), [-3.0, 1.0, -2.0]),
 'diag 2d negative': ('ok', 'float32', (1,), (1,), [-2.0]),
 'diag 3d': ('RuntimeError', 'matrix or a vector expected'),
 'diag bool': ('ok', 'bool', (3, 3), (3, 1),
               [[True, False, False], [False, True, False], [False, False, True]]),
 'diag method': ('ok', 'float32', (3,), (1,), [-3.0, 1.0, -2.0]),
 'diag out': ('ok', 'float32', (3, 3), (3, 1),
              [[-3.0, 0.0, 0.0], [0.0, -2.0, 0.0], [0.0, 0.0, -1.0]]),
 'diag out dtype': ('RuntimeError', 'expected scalar type Long but found Float'),
 'dot': ('ok', 'float32', (), (), 10.0),
 'dot 2d': ('RuntimeError', '1D tensors expected, but got 2D and 1D tensors'),
 'dot bfloat16': ('ok', 'bfloat16', (), (), 28.0),
 'dot bool': ('RuntimeError', '"dot" not implemented for \'Bool\''),
 'dot dtype': ('RuntimeError',
               'dot : expected both vectors to have same dtype, but found Float and '
               'Double'),
 'dot int32': ('ok', 'int32', (), (), 28),
 'dot method': ('ok', 'float32', (), (), 14.0),
 'dot out': ('ok', 'float32', (), (), 14.0),
 'dot out dtype': ('RuntimeError',
                   'result dtype Double does not match input dtype Float'),
 'dot size': ('RuntimeError',
              'inconsistent tensor size, expected tensor [3] and src [4] to have the '
              'same number of elements, but got 3 and 4 elements respectively'),
 "einsum '' [()]": ('TypeError',
                    'reshape() missing 1 required positional arguments: "shape"'),
 "einsum ',->' [(), ()]": ('TypeError',
                           'reshape() missing 1 required positional arguments: '
                           '"shape"'),
 "einsum '...,...' [(2, 3), (3,)]": ('ok', 'float32', (2, 3), None,
                                     [[9.0, 4.0, 1.0], [-0.0, -2.0, -2.0]]),
 "einsum '...i,...i->...' [(4, 1, 3), (5, 3)]": ('ok', 'float32', (4, 5), None,
                                                 [[14.0, -4.0, -1.0, 2.0, -9.0],
                                                  [-4.0, 5.0, -7.0, 2.0, -3.0],
                                                  [-1.0, -7.0, 22.0, -5.0, 3.0],
                                                  [2.0, 2.0, -5.0, 2.0, -5.0]]),
 "einsum '...ij' [(2,)]": ('RuntimeError',
                           'einsum(): the number of subscripts in the equation (2) is '
                           'more than the number of dimensions (1) for operand 0'),
 "einsum '...ij,...jk' [(4, 2, 3), (3, 5)]": ('ok', 'float32', (4, 2, 5), None,
                                              [[[5.0, -1.0, 7.0, 1.0, 2.0],
                                                [2.0, 5.0, 1.0, 4.0, -7.0]],
                                               [[-15.0, -17.0, 2.0, 0.0, 12.0],
                                                [3.0, 3.0, 3.0, 3.0, -4.0]],
                                               [[0.0, 2.0, -17.0, -15.0, 8.0],
                                                [4.0, 1.0, 5.0, 2.0, -1.0]],
                                               [[1.0, 7.0, -1.0, 5.0, -10.0],
                                                [5.0, -1.0, 7.0, 1.0, 2.0]]]),
 "einsum '...ij->...ji' [(2, 3, 4)]": ('ok', 'float32', (2, 4, 3), None,
                                       [[[-3.0, 1.0, -2.0], [-2.0, 2.0, -1.0],
                                         [-1.0, 3.0, 0.0], [0.0, -3.0, 1.0]],
                                        [[2.0, -1.0, 3.0], [3.0, 0.0, -3.0],
                                         [-3.0, 1.0, -2.0], [-2.0, 2.0, -1.0]]]),
 "einsum 'a,b,c->abc' [(2,), (3,), (4,)]": ('ok', 'float32', (2, 3, 4), None,
                                            [[[-27.0, -18.0, -9.0, 0.0],
                                              [-18.0, -12.0, -6.0, 0.0],
                                              [-9.0, -6.0, -3.0, 0.0]],
                                             [[-18.0, -12.0, -6.0, 0.0],
                                              [-12.0, -8.0, -4.0, 0.0],
                                              [-6.0, -4.0, -2.0, 0.0]]]),
 "einsum 'ab,ab->' [(2, 3), (1, 3)]": ('ok', 'float32', (), None, 10.0),
 "einsum 'ab,cd,bc->ad' [(2, 3), (4, 5), (3, 4)]": ('ok', 'float32', (2, 5), None,
                                                    [[-31.0, -17.0, -24.0, -10.0, 25.0],
                                                     [11.0, 10.0, 9.0, 8.0, -14.0]]),
 "einsum 'b...,b...->b' [(2, 3), (2, 3)]": ('ok', 'float32', (2,), None, [14.0, 5.0]),
 "einsum 'bij,bjk->bik' [(2, 2, 3), (2, 3, 4)]": ('ok', 'float32', (2, 2, 4), None,
                                                  [[[9.0, 3.0, -3.0, 5.0],
                                                    [-3.0, 0.0, 3.0, -1.0]],
                                                   [[3.0, 15.0, -8.0, -10.0],
                                                    [1.0, -6.0, 1.0, 1.0]]]),
 "einsum 'bij,bkj->bik' [(3, 2, 4), (3, 5, 4)]": ('ok', 'float32', (3, 2, 5), None,
                                                  [[[14.0, -10.0, 8.0, -9.0, 2.0],
                                                    [-10.0, 23.0, -7.0, 5.0, -4.0]],
                                                   [[-4.0, 2.0, 8.0, -7.0, 6.0],
                                                    [5.0, -9.0, -9.0, 5.0, -9.0]],
                                                   [[-9.0, 6.0, -7.0, 8.0, 2.0],
                                                    [5.0, -7.0, 23.0, -10.0, -1.0]]]),
 "einsum 'bn,anm,bm->ba' [(2, 3), (4, 3, 5), (2, 5)]": ('ok', 'float32', (2, 4), None,
                                                        [[-18.0, -16.0, -35.0, 2.0],
                                                         [15.0, 19.0, 44.0, -1.0]]),
 "einsum 'i j -> j i' [(2, 3)]": ('ok', 'float32', (3, 2), None,
                                  [[-3.0, 0.0], [-2.0, 1.0], [-1.0, 2.0]]),
 "einsum 'i' [(2,), (2,)]": ('RuntimeError',
                             'einsum(): more operands were provided than specified in '
                             'the equation'),
 "einsum 'i,i' [(3,), (3,)]": ('ok', 'float32', (), None, 14.0),
 "einsum 'i,i,i->' [(3,), (3,), (3,)]": ('ok', 'float32', (), None, -36.0),
 "einsum 'i,i->' [(3,), (3,)]": ('ok', 'float32', (), None, 14.0),
 "einsum 'i,i->i' [(3,), (3,)]": ('ok', 'float32', (3,), None, [9.0, 4.0, 1.0]),
 "einsum 'i,ij->j' [(3,), (3, 4)]": ('ok', 'float32', (4,), None,
                                     [9.0, 3.0, -3.0, 5.0]),
 "einsum 'i,j' [(2,)]": ('RuntimeError',
                         'einsum(): fewer operands were provided than specified in the '
                         'equation'),
 "einsum 'i,j->ij' [(2,), (3,)]": ('ok', 'float32', (2, 3), None,
                                   [[9.0, 6.0, 3.0], [6.0, 4.0, 2.0]]),
 "einsum 'i->ii' [(2,)]": ('RuntimeError',
                           'einsum(): output subscript i appears more than once in the '
                           'output'),
 "einsum 'i.j' [(2, 3)]": ('RuntimeError',
                           "einsum(): found '.' for operand 0 that is not part of any "
                           'ellipsis'),
 "einsum 'i1' [(2, 3)]": ('RuntimeError',
                          'einsum(): invalid subscript given at index 1 in the '
                          'equation string, subscripts must be in [a-zA-Z]'),
 "einsum 'iJ,Jk' [(2, 3), (3, 2)]": ('ok', 'float32', (2, 2), None,
                                     [[10.0, 4.0], [1.0, 4.0]]),
 "einsum 'ii' [(3, 3)]": ('ok', 'float32', (), None, -4.0),
 "einsum 'ii->i' [(2, 3)]": ('RuntimeError',
                             'einsum(): subscript i is repeated for operand 0 but the '
                             "sizes don't match, 3 != 2"),
 "einsum 'ii->i' [(3, 3)]": ('ok', 'float32', (3,), None, [-3.0, 1.0, -2.0]),
 "einsum 'iij->ij' [(3, 3, 2)]": ('ok', 'float32', (3, 2), None,
                                  [[-3.0, -2.0], [-2.0, -1.0], [-1.0, 0.0]]),
 "einsum 'ij' [(2, 3)]": ('ok', 'float32', (2, 3), None,
                          [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]]),
 "einsum 'ij' [(2,)]": ('RuntimeError',
                        'einsum(): the number of subscripts in the equation (2) does '
                        'not match the number of dimensions (1) for operand 0 and no '
                        'ellipsis was given'),
 "einsum 'ij,ij->i' [(1, 3), (4, 3)]": ('ok', 'float32', (4,), None,
                                        [14.0, -4.0, -1.0, 2.0]),
 "einsum 'ij,ij->ij' [(2, 3), (2, 3)]": ('ok', 'float32', (2, 3), None,
                                         [[9.0, 4.0, 1.0], [0.0, 1.0, 4.0]]),
 "einsum 'ij,ik' [(2, 3), (2, 3)]": ('ok', 'float32', (3, 3), None,
                                     [[9.0, 6.0, 3.0], [6.0, 5.0, 4.0],
                                      [3.0, 4.0, 5.0]]),
 "einsum 'ij,j->i' [(3, 4), (4,)]": ('ok', 'float32', (3,), None, [14.0, -10.0, 8.0]),
 "einsum 'ij,jk' [(2, 0), (0, 3)]": ('ok', 'float32', (2, 3), None,
                                     [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
 "einsum 'ij,jk,kl->il' [(2, 3), (3, 2), (2, 2)]": ('ok', 'float32', (2, 2), None,
                                                    [[-34.0, -20.0], [-7.0, -2.0]]),
 "einsum 'ij,jk->' [(2, 3), (3, 2)]": ('ok', 'float32', (), None, 19.0),
 "einsum 'ij,jk->ik' [(2, 3), (4, 5)]": ('RuntimeError',
                                         'einsum(): subscript j has size 4 for operand '
                                         '1 which does not broadcast with previously '
                                         'seen size 3'),
 "einsum 'ij,kl->ijkl' [(2, 3), (2, 3)]": ('ok', 'float32', (2, 3, 2, 3), None,
                                           [[[[9.0, 6.0, 3.0], [-0.0, -3.0, -6.0]],
                                             [[6.0, 4.0, 2.0], [-0.0, -2.0, -4.0]],
                                             [[3.0, 2.0, 1.0], [-0.0, -1.0, -2.0]]],
                                            [[[-0.0, -0.0, -0.0], [0.0, 0.0, 0.0]],
                                             [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]],
                                             [[-6.0, -4.0, -2.0], [0.0, 2.0, 4.0]]]]),
 "einsum 'ij->' [(2, 3)]": ('ok', 'float32', (), None, -3.0),
 "einsum 'ij->i' [(4, 0)]": ('ok', 'float32', (4,), None, [0.0, 0.0, 0.0, 0.0]),
 "einsum 'ij->i->j' [(2, 3)]": ('RuntimeError',
                                'einsum(): invalid subscript given at index 5 in the '
                                'equation string, subscripts must be in [a-zA-Z]'),
 "einsum 'ij->ij' [(2, 3)]": ('ok', 'float32', (2, 3), None,
                              [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]]),
 "einsum 'ij->j' [(2, 3)]": ('ok', 'float32', (3,), None, [-3.0, -1.0, 1.0]),
 "einsum 'ij->ji' [(2, 3)]": ('ok', 'float32', (3, 2), None,
                              [[-3.0, 0.0], [-2.0, 1.0], [-1.0, 2.0]]),
 "einsum 'ij->k' [(2, 3)]": ('RuntimeError',
                             'einsum(): output subscript k does not appear in the '
                             'equation for any input operand'),
 "einsum 'ij...,jk...->ik...' [(2, 3, 4), (3, 5, 4)]": ('ok', 'float32', (2, 5, 4),
                                                        None,
                                                        [[[8.0, -5.0, -5.0, 1.0],
                                                          [-1.0, -2.0, 3.0, -7.0],
                                                          [-3.0, 1.0, -3.0, -1.0],
                                                          [-5.0, -3.0, 12.0, 12.0],
                                                          [7.0, 0.0, -1.0, -3.0]],
                                                         [[-3.0, -15.0, 7.0, 0.0],
                                                          [-1.0, 6.0, -9.0, 10.0],
                                                          [8.0, 6.0, 3.0, -1.0],
                                                          [3.0, 6.0, 8.0, -5.0],
                                                          [-9.0, 6.0, -1.0, -2.0]]]),
 "einsum 'ijj,jk->ik' [(2, 3, 3), (3, 4)]": ('ok', 'float32', (2, 4), None,
                                             [[14.0, 10.0, 6.0, -5.0],
                                              [6.0, 8.0, 10.0, -9.0]]),
 "einsum 'ijk,ikl->ijl' [(2, 3, 4), (2, 4, 5)]": ('ok', 'float32', (2, 3, 5), None,
                                                  [[[5.0, -1.0, 7.0, 1.0, 2.0],
                                                    [7.0, 10.0, -1.0, 2.0, -16.0],
                                                    [2.0, 0.0, 5.0, 3.0, 1.0]],
                                                   [[18.0, 4.0, 4.0, -17.0, -17.0],
                                                    [-10.0, -1.0, 1.0, 3.0, 5.0],
                                                    [11.0, -13.0, -16.0, 2.0, -1.0]]]),
 "einsum 'ji' [(2, 3)]": ('ok', 'float32', (3, 2), None,
                          [[-3.0, 0.0], [-2.0, 1.0], [-1.0, 2.0]]),
 'einsum T': ('ok', 'float32', (2, 2), None, [[10.0, 1.0], [4.0, 4.0]]),
 'einsum bool sum': ('ok', 'int64', (), None, 5),
 'einsum dtype': ('RuntimeError', 'expected scalar type Float but found Double'),
 'einsum float64': ('ok', 'float64', (2, 2), None, [[10.0, 4.0], [1.0, 4.0]]),
 'einsum int32': ('ok', 'int32', (2, 2), None, [[10, 4], [1, 4]]),
 'einsum int32 sum': ('ok', 'int64', (), None, -3),
 'einsum keyword': ('TypeError', "einsum() got an unexpected keyword argument 'x'"),
 'einsum list': ('ok', 'float32', (2, 2), None, [[10.0, 4.0], [1.0, 4.0]]),
 'einsum no equation': ('TypeError',
                        "einsum(): argument 'equation' (position 1) must be str, not "
                        'int'),
 'einsum number operand': ('TypeError',
                           'expected Tensor as element 1 in argument 1, but got int'),
 'einsum tuple': ('ok', 'float32', (2, 2), None, [[10.0, 4.0], [1.0, 4.0]]),
 'ger': ('ok', 'float32', (3, 4), (4, 1),
         [[9.0, 6.0, 3.0, -0.0], [6.0, 4.0, 2.0, -0.0], [3.0, 2.0, 1.0, -0.0]]),
 'matmul 0d': ('RuntimeError',
               'both arguments to matmul need to be at least 1D, but they are 0D and '
               '1D'),
 'matmul 1d 0d': ('RuntimeError',
                  'both arguments to matmul need to be at least 1D, but they are 1D '
                  'and 0D'),
 'matmul 1d1d': ('ok', 'float32', (), (), 14.0),
 'matmul 1d1d bad': ('RuntimeError',
                     'inconsistent tensor size, expected tensor [3] and src [4] to '
                     'have the same number of elements, but got 3 and 4 elements '
                     'respectively'),
 'matmul 1d2d': ('ok', 'float32', (5,), (1,), [5.0, -1.0, 7.0, 1.0, 2.0]),
 'matmul 1d2d bad': ('RuntimeError',
                     'mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)'),
 'matmul 1d3d': ('ok', 'float32', (4, 5), (5, 1),
                 [[5.0, -1.0, 7.0, 1.0, 2.0], [-1.0, 7.0, 1.0, 2.0, -4.0],
                  [7.0, 1.0, 2.0, -4.0, -10.0], [1.0, 2.0, -4.0, -10.0, 5.0]]),
 'matmul 1d3d bad': ('RuntimeError', 'size mismatch, got 20, 20x2,3'),
 'matmul 2d1d': ('ok', 'float32', (2,), (1,), [14.0, -4.0]),
 'matmul 2d1d bad': ('RuntimeError', 'size mismatch, got 2, 2x3,4'),
 'matmul 2d2d': ('ok', 'float32', (2, 4), (4, 1),
                 [[9.0, 3.0, -3.0, 5.0], [-3.0, 0.0, 3.0, -1.0]]),
 'matmul 2d3d': ('ok', 'float32', (4, 2, 5), (10, 5, 1),
                 [[[5.0, -1.0, 7.0, 1.0, 2.0], [2.0, 5.0, 1.0, 4.0, -7.0]],
                  [[-1.0, 7.0, 1.0, 2.0, -4.0], [5.0, 1.0, 4.0, -7.0, -4.0]],
                  [[7.0, 1.0, 2.0, -4.0, -10.0], [1.0, 4.0, -7.0, -4.0, -1.0]],
                  [[1.0, 2.0, -4.0, -10.0, 5.0], [4.0, -7.0, -4.0, -1.0, 2.0]]]),
 'matmul 2d3d bad': ('RuntimeError',
                     'mat1 and mat2 shapes cannot be multiplied (20x2 and 3x2)'),
 'matmul 2dT 2dT': ('ok', 'float32', (2, 4), (4, 1),
                    [[10.0, 1.0, -8.0, 4.0], [4.0, 4.0, -10.0, 4.0]]),
 'matmul 3d 2dT': ('ok', 'float32', (2, 5, 6), (30, 6, 1),
                   [[[14.0, -4.0, -1.0, 2.0, -9.0, 8.0],
                     [-4.0, 5.0, -7.0, 2.0, -3.0, -1.0],
                     [-1.0, -7.0, 22.0, -5.0, 3.0, -3.0],
                     [2.0, 2.0, -5.0, 2.0, -5.0, 2.0],
                     [-9.0, -3.0, 3.0, -5.0, 22.0, -7.0]],
                    [[8.0, -1.0, -3.0, 2.0, -7.0, 5.0],
                     [-10.0, 8.0, -9.0, 2.0, -1.0, -4.0],
                     [14.0, -4.0, -1.0, 2.0, -9.0, 8.0],
                     [-4.0, 5.0, -7.0, 2.0, -3.0, -1.0],
                     [-1.0, -7.0, 22.0, -5.0, 3.0, -3.0]]]),
 'matmul 3d expanded': ('ok', 'float32', (4, 2, 5), (10, 5, 1),
                        [[[5.0, -1.0, 7.0, 1.0, 2.0], [2.0, 5.0, 1.0, 4.0, -7.0]],
                         [[-1.0, 7.0, 1.0, 2.0, -4.0], [5.0, 1.0, 4.0, -7.0, -4.0]],
                         [[7.0, 1.0, 2.0, -4.0, -10.0], [1.0, 4.0, -7.0, -4.0, -1.0]],
                         [[1.0, 2.0, -4.0, -10.0, 5.0], [4.0, -7.0, -4.0, -1.0, 2.0]]]),
 'matmul 3d1d': ('ok', 'float32', (4, 5), (5, 1),
                 [[14.0, -4.0, -1.0, 2.0, -9.0], [8.0, -10.0, 14.0, -4.0, -1.0],
                  [2.0, -9.0, 8.0, -10.0, 14.0], [-4.0, -1.0, 2.0, -9.0, 8.0]]),
 'matmul 3d1d bad': ('RuntimeError', 'size mismatch, got 20, 20x3,4'),
 'matmul 3d2d': ('ok', 'float32', (2, 2, 5), (10, 5, 1),
                 [[[5.0, -1.0, 7.0, 1.0, 2.0], [2.0, 5.0, 1.0, 4.0, -7.0]],
                  [[-15.0, -17.0, 2.0, 0.0, 12.0], [3.0, 3.0, 3.0, 3.0, -4.0]]]),
 'matmul 3d2d bad': ('RuntimeError',
                     'mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)'),
 'matmul 3d3d': ('ok', 'float32', (2, 2, 5), (10, 5, 1),
                 [[[5.0, -1.0, 7.0, 1.0, 2.0], [2.0, 5.0, 1.0, 4.0, -7.0]],
                  [[-17.0, 2.0, 0.0, 12.0, 10.0], [3.0, 3.0, 3.0, -4.0, -4.0]]]),
 'matmul 3d3d bad': ('RuntimeError',
                     'Expected size for first two dimensions of batch2 tensor to be: '
                     '[2, 3] but got: [2, 4].'),
 'matmul 3dT 2d': ('ok', 'float32', (2, 5, 6), (30, 6, 1),
                   [[[15.0, 0.0, -1.0, -2.0, -3.0, -4.0],
                     [17.0, -2.0, -7.0, -5.0, -3.0, -1.0],
                     [-2.0, 17.0, 1.0, -1.0, -3.0, -5.0],
                     [0.0, 15.0, -5.0, -4.0, -3.0, -2.0],
                     [-12.0, -8.0, 10.0, 7.0, 4.0, 1.0]],
                    [[17.0, -2.0, -7.0, -5.0, -3.0, -1.0],
                     [-2.0, 17.0, 1.0, -1.0, -3.0, -5.0],
                     [0.0, 15.0, -5.0, -4.0, -3.0, -2.0],
                     [-12.0, -8.0, 10.0, 7.0, 4.0, 1.0],
                     [-10.0, -10.0, 4.0, 4.0, 4.0, 4.0]]]),
 'matmul 4d3d': ('ok', 'float32', (2, 4, 5, 6), (120, 30, 6, 1),
                 [[[[1.0, 9.0, 10.0, 4.0, -2.0, -8.0],
                    [7.0, 3.0, -8.0, -5.0, -2.0, 1.0],
                    [-22.0, -3.0, 9.0, 7.0, 5.0, 3.0],
                    [5.0, 5.0, -2.0, -2.0, -2.0, -2.0],
                    [-3.0, -22.0, 1.0, 3.0, 5.0, 7.0]],
                   [[-2.0, -8.0, -14.0, 1.0, 9.0, 10.0],
                    [-2.0, 1.0, 4.0, 7.0, 3.0, -8.0], [5.0, 3.0, 1.0, -22.0, -3.0, 9.0],
                    [-2.0, -2.0, -2.0, 5.0, 5.0, -2.0],
                    [5.0, 7.0, 9.0, -3.0, -22.0, 1.0]],
                   [[9.0, 10.0, 4.0, -2.0, -8.0, -14.0],
                    [3.0, -8.0, -5.0, -2.0, 1.0, 4.0], [-3.0, 9.0, 7.0, 5.0, 3.0, 1.0],
                    [5.0, -2.0, -2.0, -2.0, -2.0, -2.0],
                    [-22.0, 1.0, 3.0, 5.0, 7.0, 9.0]],
                   [[-8.0, -14.0, 1.0, 9.0, 10.0, 4.0],
                    [1.0, 4.0, 7.0, 3.0, -8.0, -5.0], [3.0, 1.0, -22.0, -3.0, 9.0, 7.0],
                    [-2.0, -2.0, 5.0, 5.0, -2.0, -2.0],
                    [7.0, 9.0, -3.0, -22.0, 1.0, 3.0]]],
                  [[[3.0, 7.0, 4.0, 1.0, -2.0, -5.0],
                    [9.0, 1.0, -14.0, -8.0, -2.0, 4.0],
                    [1.0, 9.0, 10.0, 4.0, -2.0, -8.0],
                    [7.0, 3.0, -8.0, -5.0, -2.0, 1.0],
                    [-22.0, -3.0, 9.0, 7.0, 5.0, 3.0]],
                   [[-2.0, -5.0, -8.0, 3.0, 7.0, 4.0],
                    [-2.0, 4.0, 10.0, 9.0, 1.0, -14.0],
                    [-2.0, -8.0, -14.0, 1.0, 9.0, 10.0],
                    [-2.0, 1.0, 4.0, 7.0, 3.0, -8.0],
                    [5.0, 3.0, 1.0, -22.0, -3.0, 9.0]],
                   [[7.0, 4.0, 1.0, -2.0, -5.0, -8.0],
                    [1.0, -14.0, -8.0, -2.0, 4.0, 10.0],
                    [9.0, 10.0, 4.0, -2.0, -8.0, -14.0],
                    [3.0, -8.0, -5.0, -2.0, 1.0, 4.0],
                    [-3.0, 9.0, 7.0, 5.0, 3.0, 1.0]],
                   [[-5.0, -8.0, 3.0, 7.0, 4.0, 1.0],
                    [4.0, 10.0, 9.0, 1.0, -14.0, -8.0],
                    [-8.0, -14.0, 1.0, 9.0, 10.0, 4.0],
                    [1.0, 4.0, 7.0, 3.0, -8.0, -5.0],
                    [3.0, 1.0, -22.0, -3.0, 9.0, 7.0]]]]),
 'matmul 4d3d bad': ('RuntimeError',
                     'Expected size for first two dimensions of batch2 tensor to be: '
                     '[8, 3] but got: [8, 2].'),
 'matmul 5d': ('ok', 'float32', (2, 4, 3, 2, 2), (48, 12, 4, 2, 1),
               [[[[[10.0, 4.0], [1.0, 4.0]], [[-8.0, -10.0], [4.0, 4.0]],
                  [[-12.0, -10.0], [7.0, 4.0]]],
                 [[[-5.0, 10.0], [-2.0, 1.0]], [[15.0, -8.0], [-3.0, 4.0]],
                  [[0.0, -12.0], [-4.0, 7.0]]],
                 [[[1.0, -5.0], [-5.0, -2.0]], [[17.0, 15.0], [-3.0, -3.0]],
                  [[-2.0, 0.0], [-1.0, -4.0]]],
                 [[[-7.0, 1.0], [-1.0, -5.0]], [[-2.0, 17.0], [-3.0, -3.0]],
                  [[17.0, -2.0], [-5.0, -1.0]]]],
                [[[[-2.0, 4.0], [10.0, 4.0]], [[1.0, 4.0], [-8.0, -10.0]],
                  [[4.0, 4.0], [-12.0, -10.0]]],
                 [[[-1.0, -2.0], [-5.0, 10.0]], [[-2.0, 1.0], [15.0, -8.0]],
                  [[-3.0, 4.0], [0.0, -12.0]]],
                 [[[-7.0, -1.0], [1.0, -5.0]], [[-5.0, -2.0], [17.0, 15.0]],
                  [[-3.0, -3.0], [-2.0, 0.0]]],
                 [[[1.0, -7.0], [-7.0, 1.0]], [[-1.0, -5.0], [-2.0, 17.0]],
                  [[-3.0, -3.0], [17.0, -2.0]]]]]),
 'matmul bool': ('RuntimeError', '"addmm_impl_cpu_" not implemented for \'Bool\''),
 'matmul bool 1d3d': ('RuntimeError', '"addmv_impl_cpu" not implemented for \'Bool\''),
 'matmul bool 2d3d': ('RuntimeError', '"addmm_impl_cpu_" not implemented for \'Bool\''),
 'matmul bool 3d1d': ('RuntimeError', '"addmv_impl_cpu" not implemented for \'Bool\''),
 'matmul bool 3d2d': ('RuntimeError', '"addmm_impl_cpu_" not implemented for \'Bool\''),
 'matmul bool 3d3d': ('RuntimeError', '"bmm" not implemented for \'Bool\''),
 'matmul broadcast bad': ('RuntimeError',
                          'The size of tensor a (2) must match the size of tensor b '
                          '(3) at non-singleton dimension 0'),
 'matmul dtype': ('RuntimeError', 'expected scalar type Float but found Double'),
 'matmul dtype 1d': ('RuntimeError',
                     'dot : expected both vectors to have same dtype, but found Float '
                     'and Double'),
 'matmul dtype 1d3d': ('RuntimeError', 'expected scalar type Float but found Double'),
 'matmul dtype 2d1d': ('RuntimeError', 'expected scalar type Float but found Double'),
 'matmul dtype 2d3d': ('RuntimeError', 'expected scalar type Double but found Float'),
 'matmul dtype 3d': ('RuntimeError', 'expected scalar type Float but found Double'),
 'matmul float64': ('ok', 'float64', (3, 5, 3), (15, 3, 1),
                    [[[7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0],
                      [7.0, 14.0, 7.0], [7.0, 14.0, 7.0]],
                     [[7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0],
                      [7.0, 14.0, 7.0], [7.0, 14.0, 7.0]],
                     [[7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0],
                      [7.0, 14.0, 7.0], [7.0, 14.0, 7.0]]]),
 'matmul int64 batched': ('ok', 'int64', (3, 5, 3), (15, 3, 1),
                          [[[7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7]],
                           [[7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7]],
                           [[7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7],
                            [7, 14, 7]]]),
 'matmul method': ('ok', 'float32', (2, 2), (2, 1), [[10.0, 4.0], [1.0, 4.0]]),
 'matmul number': ('TypeError',
                   "matmul(): argument 'other' (position 2) must be Tensor, not int"),
 'matmul out': ('ok', 'float32', (2, 4), (4, 1),
                [[9.0, 3.0, -3.0, 5.0], [-3.0, 0.0, 3.0, -1.0]]),
 'matmul out 1d': ('ok', 'float32', (), (), 14.0),
 'matmul out dtype': ('RuntimeError',
                      'Expected out tensor to have dtype float, but got double '
                      'instead'),
 'matmul out transposed': ('ok', 'float32', (2, 4), (1, 2),
                           [[9.0, 3.0, -3.0, 5.0], [-3.0, 0.0, 3.0, -1.0]]),
 'mm': ('ok', 'float32', (2, 4), (4, 1),
        [[9.0, 3.0, -3.0, 5.0], [-3.0, 0.0, 3.0, -1.0]]),
 'mm 1d': ('RuntimeError', 'self must be a matrix'),
 'mm 1d b': ('RuntimeError', 'mat2 must be a matrix'),
 'mm T': ('ok', 'float32', (2, 4), (4, 1),
          [[10.0, 1.0, -8.0, 4.0], [4.0, 4.0, -10.0, 4.0]]),
 'mm bfloat16': ('ok', 'bfloat16', (5, 3), (3, 1),
                 [[7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0],
                  [7.0, 14.0, 7.0], [7.0, 14.0, 7.0]]),
 'mm bool': ('RuntimeError', '"addmm_impl_cpu_" not implemented for \'Bool\''),
 'mm bool b': ('RuntimeError', 'expected scalar type Float but found Bool'),
 'mm dtype': ('RuntimeError', 'expected scalar type Float but found Double'),
 'mm empty k': ('ok', 'float32', (2, 3), (3, 1), [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
 'mm empty m': ('ok', 'float32', (0, 4), (4, 1), []),
 'mm expanded': ('ok', 'float32', (4, 5), (5, 1),
                 [[14.0, 14.0, 14.0, 14.0, 14.0], [14.0, 14.0, 14.0, 14.0, 14.0],
                  [14.0, 14.0, 14.0, 14.0, 14.0], [14.0, 14.0, 14.0, 14.0, 14.0]]),
 'mm float64': ('ok', 'float64', (5, 3), (3, 1),
                [[7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0], [7.0, 14.0, 7.0],
                 [7.0, 14.0, 7.0]]),
 'mm int16': ('ok', 'int16', (5, 3), (3, 1),
              [[4464, 8928, 4464], [4464, 8928, 4464], [4464, 8928, 4464],
               [4464, 8928, 4464], [4464, 8928, 4464]]),
 'mm int32': ('ok', 'int32', (5, 3), (3, 1),
              [[7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7]]),
 'mm int64 T': ('ok', 'int64', (5, 3), (3, 1),
                [[14, 14, -7], [0, -7, 14], [0, -14, 0], [14, -7, 0], [-7, 14, 14]]),
 'mm int8': ('ok', 'int8', (5, 3), (3, 1),
             [[-16, -32, -16], [-16, -32, -16], [-16, -32, -16], [-16, -32, -16],
              [-16, -32, -16]]),
 'mm kw': ('ok', 'float32', (2, 2), (2, 1), [[10.0, 4.0], [1.0, 4.0]]),
 'mm method kw': ('ok', 'float32', (2, 2), (2, 1), [[10.0, 4.0], [1.0, 4.0]]),
 'mm number': ('TypeError',
               "mm(): argument 'mat2' (position 2) must be Tensor, not int"),
 'mm out': ('ok', 'float32', (2, 4), (4, 1),
            [[9.0, 3.0, -3.0, 5.0], [-3.0, 0.0, 3.0, -1.0]]),
 'mm out dtype': ('RuntimeError',
                  'Expected out tensor to have dtype float, but got double instead'),
 'mm shape': ('RuntimeError',
              'mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)'),
 'mm slice': ('ok', 'float32', (2, 3), (3, 1), [[4.0, 8.0, 5.0], [-14.0, 5.0, 3.0]]),
 'mm uint8': ('ok', 'uint8', (5, 3), (3, 1),
              [[7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7], [7, 14, 7]]),
 'mv': ('ok', 'float32', (2,), (1,), [14.0, -4.0]),
 'mv 1d': ('RuntimeError', 'vector + matrix @ vector expected, got 1, 1, 1'),
 'mv 2d2d': ('RuntimeError', 'vector + matrix @ vector expected, got 1, 2, 2'),
 'mv T': ('ok', 'float32', (2,), (1,), [11.0, 8.0]),
 'mv dtype': ('RuntimeError', 'expected scalar type Float but found Double'),
 'mv expanded': ('ok', 'float32', (2,), (1,), [9.0, 0.0]),
 'mv int32': ('ok', 'int32', (5,), (1,), [28, 28, 28, 28, 28]),
 'mv method': ('ok', 'float32', (2,), (1,), [14.0, -4.0]),
 'mv out dtype': ('RuntimeError',
                  'Expected out tensor to have dtype float, but got long int instead'),
 'mv shape': ('RuntimeError', 'size mismatch, got 2, 2x3,4'),
 'operator @': ('ok', 'float32', (2, 2), (2, 1), [[10.0, 4.0], [1.0, 4.0]]),
 'operator @ batched': ('ok', 'float32', (2, 2), (2, 1), [[14.0, -4.0], [-1.0, 2.0]]),
 'operator @ number': ('TypeError',
                       "unsupported operand type(s) for @: 'Tensor' and 'int'"),
 'operator @ reflected number': ('TypeError',
                                 "unsupported operand type(s) for @: 'int' and "
                                 "'Tensor'"),
 'outer': ('ok', 'float64', (3, 4), (4, 1),
           [[9.0, 6.0, 3.0, -0.0], [6.0, 4.0, 2.0, -0.0], [3.0, 2.0, 1.0, -0.0]]),
 'outer 2d': ('RuntimeError', 'outer: Expected 1-D argument self, but got 2-D'),
 'outer 2d b': ('RuntimeError', 'outer: Expected 1-D argument vec2, but got 2-D'),
 'outer bool': ('ok', 'bool', (3, 4), (4, 1),
                [[True, True, True, False], [True, True, True, False],
                 [True, True, True, False]]),
 'outer int': ('ok', 'int64', (3, 4), (4, 1),
               [[9, 6, 3, 0], [6, 4, 2, 0], [3, 2, 1, 0]]),
 'outer method': ('ok', 'float32', (3, 2), (2, 1),
                  [[9.0, 6.0], [6.0, 4.0], [3.0, 2.0]]),
 'outer out': ('ok', 'float32', (3, 2), (2, 1), [[9.0, 6.0], [6.0, 4.0], [3.0, 2.0]]),
 'trace': ('ok', 'float32', (), (), -1.0),
 'trace 1d': ('RuntimeError', 'trace: expected a matrix, but got tensor with dim 1'),
 'trace bool': ('RuntimeError', '"trace" not implemented for \'Bool\''),
 'trace float64 T': ('ok', 'float64', (), (), -1.0),
 'trace int32': ('ok', 'int64', (), (), -1),
 'trace method': ('ok', 'float32', (), (), -4.0),
 'trace uint8': ('ok', 'int64', (), (), 255),
 'tril': ('ok', 'float32', (3, 4), (4, 1),
          [[-3.0, 0.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [-2.0, -1.0, 0.0, 0.0]]),
 'tril 0d': ('IndexError', 'Dimension specified as -2 but tensor has no dimensions'),
 'tril 1d': ('IndexError',
             'Dimension out of range (expected to be in range of [-1, 0], but got -2)'),
 'tril 3d': ('ok', 'float32', (2, 3, 4), (12, 4, 1),
             [[[-3.0, -2.0, 0.0, 0.0], [1.0, 2.0, 3.0, 0.0], [-2.0, -1.0, 0.0, 1.0]],
              [[2.0, 3.0, 0.0, 0.0], [-1.0, 0.0, 1.0, 0.0], [3.0, -3.0, -2.0, -1.0]]]),
 'tril diagonal kw': ('ok', 'float32', (3, 4), (4, 1),
                      [[0.0, 0.0, -1.0, 0.0], [0.0, 0.0, 0.0, -3.0],
                       [0.0, 0.0, 0.0, 0.0]]),
 'tril far': ('ok', 'float32', (4, 3), (3, 1),
              [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0], [3.0, -3.0, -2.0],
               [-1.0, 0.0, 1.0]]),
 'tril float16': ('ok', 'float16', (3, 4), (4, 1),
                  [[-3.0, 0.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0],
                   [-2.0, -1.0, 0.0, 0.0]]),
 'tril method': ('ok', 'float32', (3, 4), (4, 1),
                 [[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [-2.0, -1.0, 0.0, 0.0]]),
 'tril negative': ('ok', 'float32', (4, 3), (3, 1),
                   [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [3.0, 0.0, 0.0],
                    [-1.0, 0.0, 0.0]]),
 'tril out': ('ok', 'float32', (3, 4), (4, 1),
              [[-3.0, 0.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [-2.0, -1.0, 0.0, 0.0]]),
 'tril_': ('ok', 'float32', (3, 4), (4, 1),
           [[-3.0, -2.0, 0.0, 0.0], [1.0, 2.0, 3.0, 0.0], [-2.0, -1.0, 0.0, 1.0]]),
 'triu T': ('ok', 'float32', (3, 4), (4, 1),
            [[0.0, 0.0, 3.0, -1.0], [0.0, 0.0, -3.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),
 'triu bool': ('ok', 'bool', (3, 4), (4, 1),
               [[True, True, True, False], [True, True, True, True],
                [False, True, False, True]]),
 'triu far': ('ok', 'float32', (4, 3), (3, 1),
              [[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0], [3.0, -3.0, -2.0],
               [-1.0, 0.0, 1.0]]),
 'triu far positive': ('ok', 'float32', (4, 3), (3, 1),
                       [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                        [0.0, 0.0, 0.0]]),
 'triu int64': ('ok', 'int64', (2, 3, 4), (12, 4, 1),
                [[[-3, -2, -1, 0], [1, 2, 3, -3], [0, -1, 0, 1]],
                 [[2, 3, -3, -2], [-1, 0, 1, 2], [0, -3, -2, -1]]]),
 'triu_': ('ok', 'float32', (3, 4), (4, 1),
           [[-3.0, -2.0, -1.0, 0.0], [0.0, 2.0, 3.0, -3.0], [0.0, 0.0, 0.0, 1.0]]),
 'vdot': ('ok', 'float32', (), (), 14.0),
 'vdot 2d': ('RuntimeError', '1D tensors expected, but got 2D and 1D tensors')}


# --- recorded and differential cases ---------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_recorded(name):
    assert outcome(ctorch, name) == RECORDED[name]


@pytest.mark.parametrize("name", list(CASES))
def test_case_matches_torch(name, torch_ref):
    assert outcome(ctorch, name) == outcome(torch_ref, name)


# --- random operands against torch, with a tolerance -------------------------------

def _rand(shape, seed):
    rng = random.Random(seed)
    return [rng.uniform(-1, 1) for _ in range(math.prod(shape))]


def _pair(torch, shape, layout, dtype, seed):
    """The same operand in ctorch and torch: `layout` "c" (contiguous), "t"
    (last two dims transposed), "s" (every other column of a wider tensor)
    or "e" (expanded from size 1 along the first dim)."""
    out = []
    for m in (ctorch, torch):
        dt = getattr(m, dtype)
        if layout == "t" and len(shape) >= 2:
            s = list(shape[:-2]) + [shape[-1], shape[-2]]
            t = m.tensor(_rand(s, seed), dtype=m.float64).reshape(s).to(dt).transpose(-1, -2)
        elif layout == "s":
            s = list(shape[:-1]) + [2 * shape[-1]]
            t = m.tensor(_rand(s, seed), dtype=m.float64).reshape(s).to(dt)[..., ::2]
        elif layout == "e" and len(shape) >= 2:
            s = [1] + list(shape[1:])
            t = m.tensor(_rand(s, seed), dtype=m.float64).reshape(s).to(dt).expand(*shape)
        else:
            t = m.tensor(_rand(shape, seed), dtype=m.float64).reshape(shape).to(dt)
        out.append(t)
    return out


def _close(c, t, dtype):
    assert repr(c.dtype).replace("torch.", "") == repr(t.dtype).replace("torch.", "")
    assert tuple(c.shape) == tuple(t.shape)
    cv, tv = c.double().flatten().tolist(), t.double().flatten().tolist()
    tol = {"float64": 1e-12, "float32": 1e-5, "bfloat16": 5e-2, "float16": 5e-3}[dtype]
    for x, y in zip(cv, tv):
        assert abs(x - y) <= tol * max(1.0, abs(y)), (x, y)


SHAPES = [((5, 7), (7, 3)), ((1, 7), (7, 1)), ((7,), (7,)), ((4, 7), (7,)), ((7,), (7, 4)),
          ((3, 4, 7), (7, 5)), ((3, 4, 7), (3, 7, 5)), ((2, 1, 4, 7), (3, 7, 2)),
          ((4, 7), (2, 7, 5)), ((7,), (2, 7, 5)), ((3, 4, 7), (7,)), ((64, 33), (33, 65))]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("layouts", ["cc", "tc", "ct", "tt", "sc", "cs", "ec", "ce"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul_random_matches_torch(torch_ref, shapes, layouts, dtype):
    a = _pair(torch_ref, shapes[0], layouts[0], dtype, 1)
    b = _pair(torch_ref, shapes[1], layouts[1], dtype, 2)
    _close(ctorch.matmul(a[0], b[0]), torch_ref.matmul(a[1], b[1]), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("layouts", ["ccc", "ttt", "sct", "etc"])
def test_add_products_random_match_torch(torch_ref, layouts, dtype):
    s, a, b = (_pair(torch_ref, sh, lay, dtype, seed) for sh, lay, seed in
               zip([(6, 5), (6, 7), (7, 5)], layouts, (3, 4, 5)))
    _close(ctorch.addmm(s[0], a[0], b[0], beta=0.5, alpha=-1.5),
           torch_ref.addmm(s[1], a[1], b[1], beta=0.5, alpha=-1.5), dtype)
    s, a, b = (_pair(torch_ref, sh, lay, dtype, seed) for sh, lay, seed in
               zip([(3, 6, 5), (3, 6, 7), (3, 7, 5)], layouts, (3, 4, 5)))
    _close(ctorch.baddbmm(s[0], a[0], b[0], beta=2, alpha=0.25),
           torch_ref.baddbmm(s[1], a[1], b[1], beta=2, alpha=0.25), dtype)
    _close(ctorch.addbmm(s[0][0], a[0], b[0], beta=2, alpha=0.25),
           torch_ref.addbmm(s[1][0], a[1], b[1], beta=2, alpha=0.25), dtype)
    v = _pair(torch_ref, (7,), "s", dtype, 6)
    _close(ctorch.addmv(s[0][0, :, 0], a[0][0], v[0], beta=-1, alpha=3),
           torch_ref.addmv(s[1][0, :, 0], a[1][0], v[1], beta=-1, alpha=3), dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_products_match_torch(torch_ref, dtype):
    """Integers wrap as torch's do (values up to 100, sums overflow the
    narrow types)."""
    rng = random.Random(7)
    pairs = []
    for shape in [(3, 5, 9), (3, 9, 4), (9,), (5, 9)]:
        vals = [rng.randrange(0, 100) for _ in range(math.prod(shape))]
        pairs.append([m.tensor(vals, dtype=getattr(m, dtype)).reshape(shape)
                      for m in (ctorch, torch_ref)])
    (a, b, v, mat) = pairs
    for fn in (lambda m, i: m.bmm(a[i], b[i]), lambda m, i: m.matmul(a[i], b[i][0]),
               lambda m, i: m.mv(mat[i], v[i]), lambda m, i: m.dot(v[i], v[i]),
               lambda m, i: m.matmul(a[i][:, ::2], b[i][0]),
               lambda m, i: m.matmul(b[i].transpose(1, 2), mat[i].t()),
               lambda m, i: m.addmm(mat[i][:, :4], mat[i], b[i][1], beta=3, alpha=2),
               lambda m, i: m.einsum("bij,jk->bik", a[i], b[i][2])):
        c, t = fn(ctorch, 0), fn(torch_ref, 1)
        assert repr(c.dtype) == repr(t.dtype)
        assert c.tolist() == t.tolist()


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(5, 7), (7, 3)]), ("bij,bjk->bik", [(4, 5, 7), (4, 7, 3)]),
    ("ij->ji", [(5, 7)]), ("ii->i", [(6, 6)]), ("ij->", [(5, 7)]), ("i,j->ij", [(5,), (7,)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 5, 8)]), ("...ij,...jk", [(3, 5, 7), (7, 2)]),
    ("ij,jk,kl->il", [(4, 5), (5, 6), (6, 3)]), ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_einsum_random_matches_torch(torch_ref, eq, shapes, dtype):
    ops = [_pair(torch_ref, s, "c", dtype, i) for i, s in enumerate(shapes)]
    _close(ctorch.einsum(eq, *[o[0] for o in ops]),
           torch_ref.einsum(eq, *[o[1] for o in ops]), dtype)


def test_large_products_match_torch(torch_ref):
    """The BLAS paths at sizes where OpenBLAS and ctorch use threads."""
    for sa, sb in [((300, 200), (200, 250)), ((256, 64, 64), (256, 64, 64)),
                   ((512, 300), (300,)), ((40, 33, 20), (20, 31))]:
        a, b = _pair(torch_ref, sa, "c", "float32", 8), _pair(torch_ref, sb, "c", "float32", 9)
        _close(a[0] @ b[0], a[1] @ b[1], "float32")
        a, b = _pair(torch_ref, sa, "t", "float32", 8), _pair(torch_ref, sb, "s", "float32", 9)
        _close(a[0] @ b[0], a[1] @ b[1], "float32")


# --- without torch ------------------------------------------------------------------

def test_float16_products_computed_in_float():
    """float16 products (2.x behaviour; 1.13 raises) accumulate in float and
    round once."""
    a = ctorch.tensor([[0.1, 0.2, 0.3], [1.5, -2.0, 4.0]], dtype=ctorch.float16)
    b = ctorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=ctorch.float16)
    r = a @ b
    assert r.dtype == ctorch.float16
    assert r.tolist() == (a.float() @ b.float()).half().tolist()
    assert ctorch.dot(a[0], b[:, 0]).item() == pytest.approx(2.2, abs=2e-3)
    assert ctorch.trace(a).dtype == ctorch.float16


def test_batched_products_agree_with_single_ones():
    """bmm over many batches (split across threads) equals one mm per batch;
    transposed and expanded operands equal their contiguous copies."""
    a = (ctorch.arange(64 * 9 * 11, dtype=ctorch.float64) % 13 - 6).reshape(64, 9, 11)
    b = (ctorch.arange(64 * 11 * 5, dtype=ctorch.float64) % 7 - 3).reshape(64, 11, 5)
    r = ctorch.bmm(a, b)
    for i in (0, 17, 63):
        assert r[i].tolist() == ctorch.mm(a[i], b[i]).tolist()
    at = a.transpose(1, 2).contiguous().transpose(1, 2)
    assert ctorch.bmm(at, b).tolist() == r.tolist()
    ai = a.to(ctorch.int32)
    assert ctorch.bmm(ai, b.to(ctorch.int32)).tolist() == r.to(ctorch.int32).tolist()
    e = a[:1].expand(64, 9, 11)
    assert ctorch.bmm(e, b)[5].tolist() == ctorch.mm(a[0], b[5]).tolist()


@pytest.mark.parametrize("dtype", ["int32", "int64", "int16", "bfloat16", "float16"])
def test_large_typed_products_agree_with_float64(dtype):
    """The typed loops (split by rows across threads) and the float16 /
    bfloat16 sgemm path on sizes above the threading grain: small integer
    operands make every product exact."""
    dt = getattr(ctorch, dtype)
    a = (ctorch.arange(120 * 70) % 5 - 2).reshape(120, 70)
    b = (ctorch.arange(70 * 90) % 3 - 1).reshape(90, 70).t()
    want = (a.double() @ b.double()).tolist()
    assert (a.to(dt) @ b.to(dt)).double().tolist() == want
    want = ctorch.bmm(a.double().expand(3, 120, 70), b.double().expand(3, 70, 90))
    got = ctorch.bmm(a.to(dt).expand(3, 120, 70), b.to(dt).expand(3, 70, 90))
    assert got.double().tolist() == want.tolist()


def test_matmul_operator_on_subclass_and_identity():
    a = ctorch.ones(2, 3)
    b = a
    a @= ctorch.ones(3, 3)          # no __imatmul__ in torch 1.13: rebinds
    assert a is not b and tuple(a.shape) == (2, 3)
    assert not hasattr(ctorch.Tensor, "__imatmul__")
    assert (ctorch.ones(2, 2) @ ctorch.ones(2, 2)).tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_out_is_written_in_place():
    out = ctorch.empty(2, 4)
    r = ctorch.mm(A(ctorch, 2, 3), A(ctorch, 3, 4), out=out)
    assert r is out
    out = ctorch.empty(4, 2).t()                    # non-contiguous, right shape
    r = ctorch.matmul(A(ctorch, 2, 3), A(ctorch, 3, 4), out=out)
    assert r is out and tuple(out.stride()) == (1, 2)
    assert out.tolist() == ctorch.mm(A(ctorch, 2, 3), A(ctorch, 3, 4)).tolist()
    s = A(ctorch, 3, 3)
    r = s.addmm_(s, s)                              # self is also an operand
    assert r is s
    assert s.tolist() == (A(ctorch, 3, 3) + A(ctorch, 3, 3) @ A(ctorch, 3, 3)).tolist()
    t = A(ctorch, 3, 4)
    assert t.tril_() is t and t.tolist()[0] == [-3.0, 0.0, 0.0, 0.0]


def test_no_leaks():
    """Every case, successful or not, leaves no tensor or storage behind."""
    def run_all():
        for name in CASES:
            outcome(ctorch, name)
    run_all()
    gc.collect()
    before = ctorch._C._live_counts()[:2]
    for _ in range(2):
        run_all()
    gc.collect()
    assert ctorch._C._live_counts()[:2] == before


# --- singular values and matrix norms -------------------------------------------------
# torch.linalg.svdvals / matrix_norm / norm and torch.norm's p="fro" / "nuc", recorded
# from PyTorch 1.13 in NORM_RECORDED like CASES above.  M(...) is full-rank (smallest
# singular value above 1 for every shape used), so the values do not depend on how a
# LAPACK rounds a zero singular value; they are compared with a tolerance because the
# last bits of an SVD may differ between LAPACK builds.

INF = float("inf")
NAN = float("nan")


def M(m, *shape, dt=None):
    """Integers -6..6 in a full-rank pattern, of dtype dt (float32), shaped."""
    n = math.prod(shape)
    return ((m.arange(n) * 7 + 3) % 13 - 6).to(dt or m.float32).reshape(*shape)


def _svd(m, *shape, dt=None):
    return m.linalg.svdvals(M(m, *shape, dt=dt))


def _mn(m, ord, *shape, dt=None, **kw):
    return m.linalg.matrix_norm(M(m, *shape, dt=dt), ord, **kw)


NAN_MATRIX = [[float("nan"), 1.0], [1.0, 1.0]]

NORM_CASES = {
    # svdvals
    "svdvals": lambda m: _svd(m, 3, 4),
    "svdvals tall": lambda m: _svd(m, 5, 2),
    "svdvals float64": lambda m: _svd(m, 4, 3, dt=m.float64),
    "svdvals batch": lambda m: _svd(m, 2, 2, 3, 3),
    "svdvals mT": lambda m: m.linalg.svdvals(M(m, 2, 4, 3).mT),
    "svdvals slice": lambda m: m.linalg.svdvals(M(m, 4, 6)[:, ::2]),
    "svdvals 1x4": lambda m: _svd(m, 1, 4),
    "svdvals 0x3": lambda m: _svd(m, 0, 3),
    "svdvals 3x0": lambda m: _svd(m, 3, 0),
    "svdvals 2x0x3": lambda m: _svd(m, 2, 0, 3),
    "svdvals 0x2x3": lambda m: _svd(m, 0, 2, 3),
    "svdvals half empty": lambda m: _svd(m, 0, 3, dt=m.float16),
    "svdvals int": lambda m: _svd(m, 2, 2, dt=m.int32),
    "svdvals int empty": lambda m: _svd(m, 0, 2, dt=m.int64),
    "svdvals bool": lambda m: _svd(m, 2, 2, dt=m.bool),
    "svdvals half": lambda m: _svd(m, 2, 2, dt=m.float16),
    "svdvals bfloat16": lambda m: _svd(m, 2, 2, dt=m.bfloat16),
    "svdvals 1d": lambda m: _svd(m, 3),
    "svdvals 0d": lambda m: m.linalg.svdvals(m.tensor(1.0)),
    "svdvals nan": lambda m: m.linalg.svdvals(m.tensor(NAN_MATRIX)),
    "svdvals nan batch": lambda m: m.linalg.svdvals(
        m.stack([m.ones(2, 2), m.tensor(NAN_MATRIX)])),
    "svdvals inf": lambda m: m.linalg.svdvals(m.tensor([[INF, 1.0], [1.0, 1.0]])),
    "svdvals out": lambda m: m.linalg.svdvals(M(m, 3, 4), out=m.empty(0)),
    "svdvals out resized": lambda m: m.linalg.svdvals(M(m, 3, 4), out=m.empty(5)),
    "svdvals out dtype": lambda m: m.linalg.svdvals(M(m, 3, 4),
                                                    out=m.empty(0, dtype=m.float64)),
    "svdvals out int": lambda m: m.linalg.svdvals(M(m, 3, 4, dt=m.float64),
                                                  out=m.empty(0, dtype=m.int64)),
    "svdvals driver": lambda m: m.linalg.svdvals(M(m, 3, 4), driver="gesvd"),
    "svdvals kw": lambda m: m.linalg.svdvals(A=M(m, 3, 4)),
    "svdvals number": lambda m: m.linalg.svdvals(1),
    # matrix_norm: every order, batches, dims, keepdim, dtype=
    **{"matrix_norm %s" % o: (lambda o: lambda m: _mn(m, o, 3, 4))(o)
       for o in ["fro", "nuc", INF, -INF, 1, -1, 2, -2]},
    **{"matrix_norm %s batch dims" % o:
       (lambda o: lambda m: _mn(m, o, 2, 3, 4, dim=(2, 0)))(o)
       for o in ["fro", "nuc", INF, -INF, 1, -1, 2, -2]},
    **{"matrix_norm %s keepdim" % o:
       (lambda o: lambda m: _mn(m, o, 2, 3, 4, dim=(-1, 0), keepdim=True))(o)
       for o in ["fro", "nuc", INF, -INF, 1, -1, 2, -2]},
    **{"matrix_norm %s float64" % o:
       (lambda o: lambda m: _mn(m, o, 2, 4, 3, dtype=m.float64))(o)
       for o in ["fro", "nuc", INF, -1, -2]},
    **{"matrix_norm %s half" % o: (lambda o: lambda m: _mn(m, o, 3, 4, dt=m.float16))(o)
       for o in ["fro", "nuc", INF, -1, 2]},
    **{"matrix_norm %s empty %s" % (o, s):
       (lambda o, s: lambda m: _mn(m, o, *s))(o, s)
       for o in ["nuc", INF, 1, -2] for s in [(0, 3), (3, 0), (2, 0, 3), (0, 2, 3)]},
    "matrix_norm default": lambda m: m.linalg.matrix_norm(M(m, 2, 3, 4)),
    "matrix_norm kw": lambda m: m.linalg.matrix_norm(input=M(m, 3, 4), ord="nuc",
                                                     dim=[0, 1], keepdim=True),
    "matrix_norm bool ord": lambda m: _mn(m, True, 3, 4),
    "matrix_norm tensor ord": lambda m: _mn(m, m.tensor(-2.0), 3, 4),
    "matrix_norm float64 in": lambda m: _mn(m, 2, 3, 4, dt=m.float64),
    "matrix_norm half in float": lambda m: _mn(m, 1, 3, 4, dt=m.float16, dtype=m.float32),
    "matrix_norm out": lambda m: _mn(m, 2, 2, 3, 4, out=m.empty(0)),
    "matrix_norm out resized": lambda m: _mn(m, "nuc", 3, 4, out=m.empty(3)),
    "matrix_norm inf": lambda m: m.linalg.matrix_norm(m.tensor([[INF, 1.0], [1.0, 1.0]]), 2),
    "matrix_norm inf 1": lambda m: m.linalg.matrix_norm(m.tensor([[INF, 1.0], [1.0, 1.0]]),
                                                        -1),
    "matrix_norm nan fro": lambda m: m.linalg.matrix_norm(m.tensor(NAN_MATRIX)),
    # matrix_norm errors, in torch's order: ord, rank, dtype, dim, dtype=
    "matrix_norm order 3": lambda m: _mn(m, 3, 3, 4),
    "matrix_norm order 0": lambda m: _mn(m, 0, 3, 4),
    "matrix_norm order 0.5": lambda m: _mn(m, 0.5, 3, 4),
    "matrix_norm order 1e10": lambda m: _mn(m, 1e10, 3, 4),
    "matrix_norm order nan": lambda m: _mn(m, float("nan"), 3, 4),
    "matrix_norm order str": lambda m: _mn(m, "abc", 3, 4),
    "matrix_norm order first": lambda m: _mn(m, "abc", 3, dt=m.int32),
    "matrix_norm order None": lambda m: _mn(m, None, 3, 4),
    "matrix_norm 1d": lambda m: _mn(m, "fro", 4),
    "matrix_norm 0d": lambda m: m.linalg.matrix_norm(m.tensor(2.0), 2),
    "matrix_norm int": lambda m: _mn(m, "fro", 3, 4, dt=m.int64),
    "matrix_norm bool": lambda m: _mn(m, 1, 3, 4, dt=m.bool),
    "matrix_norm half 2": lambda m: _mn(m, -2, 3, 4, dt=m.float16),
    "matrix_norm bfloat16 nuc": lambda m: _mn(m, "nuc", 3, 4, dt=m.bfloat16),
    "matrix_norm half in float 2": lambda m: _mn(m, 2, 3, 4, dt=m.float16,
                                                 dtype=m.float32),
    "matrix_norm dim 1": lambda m: _mn(m, "fro", 2, 3, 4, dim=(1,)),
    "matrix_norm dim 3": lambda m: _mn(m, 2, 2, 3, 4, dim=(0, 1, 2)),
    "matrix_norm dim empty": lambda m: _mn(m, 2, 2, 3, 4, dim=()),
    "matrix_norm dim int": lambda m: _mn(m, 2, 2, 3, 4, dim=1),
    "matrix_norm dim same": lambda m: _mn(m, "nuc", 2, 3, 4, dim=(1, -2)),
    "matrix_norm dim range": lambda m: _mn(m, 1, 2, 3, 4, dim=(1, 3)),
    "matrix_norm dim range neg": lambda m: _mn(m, 1, 2, 3, 4, dim=(-4, 1)),
    "matrix_norm dtype int": lambda m: _mn(m, 2, 3, 4, dtype=m.int64),
    "matrix_norm dtype narrow": lambda m: _mn(m, "fro", 3, 4, dtype=m.float16),
    "matrix_norm out dtype": lambda m: _mn(m, 2, 3, 4, out=m.empty(0, dtype=m.float64)),
    "matrix_norm out dtype=": lambda m: _mn(m, INF, 3, 4, dtype=m.float64,
                                            out=m.empty(0)),
    "matrix_norm nan": lambda m: m.linalg.matrix_norm(m.tensor(NAN_MATRIX), "nuc"),
    "matrix_norm nan batch": lambda m: m.linalg.matrix_norm(
        m.stack([m.ones(2, 2), m.tensor(NAN_MATRIX)]), -2),
    # linalg.norm: matrix orders over two dims or of a 2-D input
    **{"norm %s" % o: (lambda o: lambda m: m.linalg.norm(M(m, 3, 4), o))(o)
       for o in [None, "fro", "nuc", INF, -INF, 1, -1, 2, -2, 3]},
    **{"norm %s dims" % o:
       (lambda o: lambda m: m.linalg.norm(M(m, 2, 3, 4), o, (0, -1), True))(o)
       for o in [None, "fro", "nuc", INF, -1, 2]},
    **{"norm %s 1d" % o: (lambda o: lambda m: m.linalg.norm(M(m, 5), o))(o)
       for o in [None, "fro", "nuc", INF, -INF, 1, -1, 2, -2, 3, 0]},
    **{"norm %s dim 1" % o: (lambda o: lambda m: m.linalg.norm(M(m, 2, 3, 4), o, 1))(o)
       for o in [None, "fro", INF, -2, 0]},
    **{"norm %s 3d" % o: (lambda o: lambda m: m.linalg.norm(M(m, 2, 3, 4), o))(o)
       for o in [None, "fro", 2]},
    **{"norm %s dim 3" % o:
       (lambda o: lambda m: m.linalg.norm(M(m, 2, 3, 4), o, (0, 1, 2)))(o)
       for o in [None, "nuc", 1]},
    **{"norm %s dim empty" % o: (lambda o: lambda m: m.linalg.norm(M(m, 3, 4), o, ()))(o)
       for o in [None, "fro", 2]},
    "norm 3 dims": lambda m: m.linalg.norm(M(m, 2, 3, 4), 3, (1, 2)),
    "norm abc": lambda m: m.linalg.norm(M(m, 2, 3, 4), "abc", 1),
    "norm dtype": lambda m: m.linalg.norm(M(m, 3, 4), -2, dtype=m.float64),
    "norm int": lambda m: m.linalg.norm(M(m, 3, 4, dt=m.int32), 2),
    "norm out": lambda m: m.linalg.norm(M(m, 3, 4), "nuc", out=m.empty(0)),
    "norm out dtype": lambda m: m.linalg.norm(M(m, 3, 4), 2, out=m.empty(0, dtype=m.float64)),
    "norm vector out dtype": lambda m: m.linalg.norm(M(m, 4), out=m.empty(0, dtype=m.float64)),
    "norm kw": lambda m: m.linalg.norm(input=M(m, 3, 4), ord=-1, dim=[1, 0]),
    # torch.norm and Tensor.norm with p="nuc" / "fro"
    "torch.norm nuc": lambda m: m.norm(M(m, 3, 4), "nuc"),
    "torch.norm nuc keepdim": lambda m: m.norm(M(m, 3, 4), "nuc", keepdim=True),
    "torch.norm nuc dims": lambda m: m.norm(M(m, 2, 3, 4), "nuc", (2, 0), True),
    "torch.norm nuc empty": lambda m: m.norm(M(m, 0, 3), "nuc"),
    "torch.norm nuc 3d": lambda m: m.norm(M(m, 2, 3, 4), "nuc"),
    "torch.norm nuc 1d": lambda m: m.norm(M(m, 4), "nuc"),
    "torch.norm nuc 1d dims": lambda m: m.norm(M(m, 4), "nuc", (0, 1)),
    "torch.norm nuc dim 1": lambda m: m.norm(M(m, 3, 4), "nuc", 1),
    "torch.norm nuc dim empty": lambda m: m.norm(M(m, 3, 4), "nuc", ()),
    "torch.norm nuc dim same": lambda m: m.norm(M(m, 2, 3, 4), "nuc", (0, -3)),
    "torch.norm nuc dtype": lambda m: m.norm(M(m, 3, 4), "nuc", dtype=m.float64),
    "torch.norm nuc int": lambda m: m.norm(M(m, 3, 4, dt=m.int64), "nuc"),
    "torch.norm nuc half": lambda m: m.norm(M(m, 3, 4, dt=m.float16), "nuc"),
    "torch.norm nuc out": lambda m: m.norm(M(m, 3, 4), "nuc", out=m.empty(0, dtype=m.float64)),
    "torch.norm nuc out 3d": lambda m: m.norm(M(m, 2, 3, 4), "nuc", out=m.empty(0)),
    "torch.norm fro": lambda m: m.norm(M(m, 2, 3, 4), "fro"),
    "torch.norm fro dims": lambda m: m.norm(M(m, 2, 3, 4), "fro", (2, 0), True),
    "torch.norm fro dim 1": lambda m: m.norm(M(m, 2, 3, 4), "fro", -1),
    "torch.norm fro dim 3": lambda m: m.norm(M(m, 2, 3, 4), "fro", (0, 1, 2)),
    "torch.norm fro dim same": lambda m: m.norm(M(m, 2, 3, 4), "fro", (0, -3)),
    "torch.norm fro dtype": lambda m: m.norm(M(m, 3, 4), "fro", dtype=m.float64),
    "torch.norm fro out 3d": lambda m: m.norm(M(m, 2, 3, 4), "fro", out=m.empty(0)),
    "torch.norm fro out": lambda m: m.norm(M(m, 3, 4), "fro", out=m.empty(0)),
    "torch.norm default dim 3": lambda m: m.norm(M(m, 2, 3, 4), dim=(0, 1, 2)),
    "torch.norm default dtype": lambda m: m.norm(M(m, 3, 4), dtype=m.float64),
    "torch.norm None dim 3": lambda m: m.norm(M(m, 2, 3, 4), None, (0, 1, 2)),
    "torch.norm abc": lambda m: m.norm(M(m, 3, 4), "abc"),
    "Tensor.norm nuc": lambda m: M(m, 3, 4).norm("nuc"),
    "Tensor.norm nuc dims": lambda m: M(m, 2, 3, 4).norm(p="nuc", dim=(0, 1), keepdim=True),
    "Tensor.norm fro dims": lambda m: M(m, 2, 3, 4).norm("fro", (0, 1)),
    "Tensor.norm nuc 3d": lambda m: M(m, 2, 3, 4).norm(p="nuc"),
}


def norm_outcome(m, name):
    """What NORM_CASES[name] gives on module m, as outcome() does."""
    try:
        r = NORM_CASES[name](m)
        return ("ok", repr(r.dtype).replace("torch.", ""), tuple(r.shape), tuple(r.stride()),
                [float(v) for v in r.double().flatten().tolist()])
    except Exception as e:      # noqa: BLE001 - the exception is the result
        return (type(e).__name__, str(e).split("\n")[0])


def _same_outcome(got, want):
    """Equal outcomes; values within float32 rounding of an SVD (NaN equal)."""
    assert got[:4] == want[:4]
    if got[0] == "ok":
        assert len(got[4]) == len(want[4])
        for x, y in zip(got[4], want[4]):
            assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(
                y, rel=2e-6, abs=1e-5), (x, y)


# Recorded from PyTorch 1.13 by running NORM_CASES on torch.
NORM_RECORDED = {'Tensor.norm fro dims': ('ok', 'float32', (4,), (1,),
                          [9.0, 9.380831718444824, 9.219544410705566,
                           9.219544410705566]),
 'Tensor.norm nuc': ('ok', 'float32', (), (), [19.891590118408203]),
 'Tensor.norm nuc 3d': ('RuntimeError',
                        'Expected a tensor with 2 dimensions, but got a tensor with 3 '
                        'dimensions instead.'),
 'Tensor.norm nuc dims': ('ok', 'float32', (1, 1, 4), (1, 1, 1),
                          [10.930268287658691, 11.120479583740234, 10.916776657104492,
                           10.916776657104492]),
 'matrix_norm -1': ('ok', 'float32', (), (), [4.0]),
 'matrix_norm -1 batch dims': ('ok', 'float32', (3,), (1,), [12.0, 12.0, 12.0]),
 'matrix_norm -1 float64': ('ok', 'float64', (2,), (1,), [13.0, 12.0]),
 'matrix_norm -1 half': ('ok', 'float16', (), (), [4.0]),
 'matrix_norm -1 keepdim': ('ok', 'float32', (1, 3, 1), (3, 1, 1), [12.0, 12.0, 12.0]),
 'matrix_norm -2': ('ok', 'float32', (), (), [1.4495925903320312]),
 'matrix_norm -2 batch dims': ('ok', 'float32', (3,), (1,),
                               [2.4875576496124268, 7.429779529571533,
                                5.032322883605957]),
 'matrix_norm -2 empty (0, 2, 3)': ('ok', 'float32', (0,), (1,), []),
 'matrix_norm -2 empty (0, 3)': ('IndexError',
                                 'amin(): Expected reduction dim -1 to have non-zero '
                                 'size.'),
 'matrix_norm -2 empty (2, 0, 3)': ('IndexError',
                                    'amin(): Expected reduction dim -1 to have '
                                    'non-zero size.'),
 'matrix_norm -2 empty (3, 0)': ('IndexError',
                                 'amin(): Expected reduction dim -1 to have non-zero '
                                 'size.'),
 'matrix_norm -2 float64': ('ok', 'float64', (2,), (1,),
                            [1.4015406237101036, 2.8212051203742634]),
 'matrix_norm -2 keepdim': ('ok', 'float32', (1, 3, 1), (1, 1, 1),
                            [2.4875576496124268, 7.429779529571533, 5.032322883605957]),
 'matrix_norm -inf': ('ok', 'float32', (), (), [12.0]),
 'matrix_norm -inf batch dims': ('ok', 'float32', (3,), (1,), [6.0, 6.0, 6.0]),
 'matrix_norm -inf keepdim': ('ok', 'float32', (1, 3, 1), (3, 1, 1), [6.0, 6.0, 6.0]),
 'matrix_norm 0d': ('RuntimeError',
                    'linalg.matrix_norm: The input tensor A must have at least 2 '
                    'dimensions.'),
 'matrix_norm 1': ('ok', 'float32', (), (), [15.0]),
 'matrix_norm 1 batch dims': ('ok', 'float32', (3,), (1,), [14.0, 13.0, 14.0]),
 'matrix_norm 1 empty (0, 2, 3)': ('ok', 'float32', (0,), (1,), []),
 'matrix_norm 1 empty (0, 3)': ('ok', 'float32', (), (), [0.0]),
 'matrix_norm 1 empty (2, 0, 3)': ('ok', 'float32', (2,), (1,), [0.0, 0.0]),
 'matrix_norm 1 empty (3, 0)': ('IndexError',
                                'amax(): Expected reduction dim 0 to have non-zero '
                                'size.'),
 'matrix_norm 1 keepdim': ('ok', 'float32', (1, 3, 1), (3, 1, 1), [14.0, 13.0, 14.0]),
 'matrix_norm 1d': ('RuntimeError',
                    'linalg.matrix_norm: The input tensor A must have at least 2 '
                    'dimensions.'),
 'matrix_norm 2': ('ok', 'float32', (), (), [9.871014595031738]),
 'matrix_norm 2 batch dims': ('ok', 'float32', (3,), (1,),
                              [9.263479232788086, 8.93299388885498, 9.309979438781738]),
 'matrix_norm 2 half': ('RuntimeError',
                        'linalg.matrix_norm: Low precision dtypes not supported. Got '
                        'Half'),
 'matrix_norm 2 keepdim': ('ok', 'float32', (1, 3, 1), (1, 1, 1),
                           [9.263479232788086, 8.93299388885498, 9.309979438781738]),
 'matrix_norm bfloat16 nuc': ('RuntimeError',
                              'linalg.matrix_norm: Low precision dtypes not supported. '
                              'Got BFloat16'),
 'matrix_norm bool': ('RuntimeError',
                      'linalg.matrix_norm: Expected a floating point or complex tensor '
                      'as input. Got Bool'),
 'matrix_norm bool ord': ('ok', 'float32', (), (), [15.0]),
 'matrix_norm default': ('ok', 'float32', (2,), (1,),
                         [13.152946472167969, 12.884099006652832]),
 'matrix_norm dim 1': ('RuntimeError',
                       'linalg.matrix_norm: dim must be a 2-tuple. Got 1'),
 'matrix_norm dim 3': ('RuntimeError',
                       'linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2'),
 'matrix_norm dim empty': ('RuntimeError',
                           'linalg.matrix_norm: dim must be a 2-tuple. Got '),
 'matrix_norm dim int': ('TypeError',
                         'linalg_matrix_norm() received an invalid combination of '
                         'arguments - got (Tensor, int, dim=int), but expected one '
                         'of:'),
 'matrix_norm dim range': ('IndexError',
                           'Dimension out of range (expected to be in range of [-3, '
                           '2], but got 3)'),
 'matrix_norm dim range neg': ('IndexError',
                               'Dimension out of range (expected to be in range of '
                               '[-3, 2], but got -4)'),
 'matrix_norm dim same': ('RuntimeError',
                          'linalg.matrix_norm: dims must be different. Got (1, 1)'),
 'matrix_norm dtype int': ('RuntimeError',
                           'linalg.matrix_norm: dtype should be floating point or '
                           'complex, but got Long'),
 'matrix_norm dtype narrow': ('RuntimeError',
                              'linalg.matrix_norm: the dtype of the input (Float) '
                              'should be convertible without narrowing to the '
                              'specified dtype (Half)'),
 'matrix_norm float64 in': ('ok', 'float64', (), (), [9.8710148206244]),
 'matrix_norm fro': ('ok', 'float32', (), (), [13.152946472167969]),
 'matrix_norm fro batch dims': ('ok', 'float32', (3,), (1,),
                                [9.591663360595703, 11.618949890136719,
                                 10.58300495147705]),
 'matrix_norm fro float64': ('ok', 'float64', (2,), (1,),
                             [13.152946437965905, 12.884098726725126]),
 'matrix_norm fro half': ('ok', 'float16', (), (), [13.15625]),
 'matrix_norm fro keepdim': ('ok', 'float32', (1, 3, 1), (3, 1, 1),
                             [9.591663360595703, 11.618949890136719,
                              10.58300495147705]),
 'matrix_norm half 2': ('RuntimeError',
                        'linalg.matrix_norm: Low precision dtypes not supported. Got '
                        'Half'),
 'matrix_norm half in float': ('ok', 'float32', (), (), [15.0]),
 'matrix_norm half in float 2': ('RuntimeError',
                                 'linalg.matrix_norm: Low precision dtypes not '
                                 'supported. Got Half'),
 'matrix_norm inf': ('ok', 'float32', (), (), [NAN]),
 'matrix_norm inf 1': ('ok', 'float32', (), (), [2.0]),
 'matrix_norm inf batch dims': ('ok', 'float32', (3,), (1,), [7.0, 7.0, 7.0]),
 'matrix_norm inf empty (0, 2, 3)': ('ok', 'float32', (0,), (1,), []),
 'matrix_norm inf empty (0, 3)': ('IndexError',
                                  'amax(): Expected reduction dim 0 to have non-zero '
                                  'size.'),
 'matrix_norm inf empty (2, 0, 3)': ('IndexError',
                                     'amax(): Expected reduction dim 1 to have '
                                     'non-zero size.'),
 'matrix_norm inf empty (3, 0)': ('ok', 'float32', (), (), [0.0]),
 'matrix_norm inf float64': ('ok', 'float64', (2,), (1,), [12.0, 12.0]),
 'matrix_norm inf half': ('ok', 'float16', (), (), [14.0]),
 'matrix_norm inf keepdim': ('ok', 'float32', (1, 3, 1), (3, 1, 1), [7.0, 7.0, 7.0]),
 'matrix_norm int': ('RuntimeError',
                     'linalg.matrix_norm: Expected a floating point or complex tensor '
                     'as input. Got Long'),
 'matrix_norm kw': ('ok', 'float32', (1, 1), (1, 1), [19.891590118408203]),
 'matrix_norm nan': ('_LinAlgError',
                     'linalg.svd: The algorithm failed to converge because the input '
                     'matrix contained non-finite values.'),
 'matrix_norm nan batch': ('_LinAlgError',
                           'linalg.svd: (Batch element 1): The algorithm failed to '
                           'converge because the input matrix contained non-finite '
                           'values.'),
 'matrix_norm nan fro': ('ok', 'float32', (), (), [NAN]),
 'matrix_norm nuc': ('ok', 'float32', (), (), [19.891590118408203]),
 'matrix_norm nuc batch dims': ('ok', 'float32', (3,), (1,),
                                [11.751036643981934, 16.362773895263672,
                                 14.342302322387695]),
 'matrix_norm nuc empty (0, 2, 3)': ('ok', 'float32', (0,), (1,), []),
 'matrix_norm nuc empty (0, 3)': ('ok', 'float32', (), (), [0.0]),
 'matrix_norm nuc empty (2, 0, 3)': ('ok', 'float32', (2,), (1,), [0.0, 0.0]),
 'matrix_norm nuc empty (3, 0)': ('ok', 'float32', (), (), [0.0]),
 'matrix_norm nuc float64': ('ok', 'float64', (2,), (1,),
                             [19.074005048458236, 20.58415835075291]),
 'matrix_norm nuc half': ('RuntimeError',
                          'linalg.matrix_norm: Low precision dtypes not supported. Got '
                          'Half'),
 'matrix_norm nuc keepdim': ('ok', 'float32', (1, 3, 1), (1, 1, 1),
                             [11.751036643981934, 16.362773895263672,
                              14.342302322387695]),
 'matrix_norm order 0': ('RuntimeError', 'linalg.matrix_norm: Order 0 not supported.'),
 'matrix_norm order 0.5': ('RuntimeError',
                           'linalg.matrix_norm: Order 0.5 not supported.'),
 'matrix_norm order 1e10': ('RuntimeError',
                            'linalg.matrix_norm: Order 1e+10 not supported.'),
 'matrix_norm order 3': ('RuntimeError', 'linalg.matrix_norm: Order 3 not supported.'),
 'matrix_norm order None': ('TypeError',
                            'linalg_matrix_norm() received an invalid combination of '
                            'arguments - got (Tensor, NoneType), but expected one of:'),
 'matrix_norm order first': ('RuntimeError',
                             'linalg.matrix_norm: Order abc not supported.'),
 'matrix_norm order nan': ('RuntimeError',
                           'linalg.matrix_norm: Order nan not supported.'),
 'matrix_norm order str': ('RuntimeError',
                           'linalg.matrix_norm: Order abc not supported.'),
 'matrix_norm out': ('ok', 'float32', (2,), (1,),
                     [9.871014595031738, 12.525708198547363]),
 'matrix_norm out dtype': ('RuntimeError',
                           'linalg.matrix_norm expected out tensor dtype Float but '
                           'got: Double'),
 'matrix_norm out dtype=': ('RuntimeError',
                            'linalg.matrix_norm expected out tensor dtype Double but '
                            'got: Float'),
 'matrix_norm out resized': ('ok', 'float32', (), (), [19.891590118408203]),
 'matrix_norm tensor ord': ('ok', 'float32', (), (), [1.4495925903320312]),
 'norm -1': ('ok', 'float32', (), (), [4.0]),
 'norm -1 1d': ('ok', 'float32', (), (), [0.43795621395111084]),
 'norm -1 dims': ('ok', 'float32', (1, 3, 1), (3, 1, 1), [6.0, 6.0, 6.0]),
 'norm -2': ('ok', 'float32', (), (), [1.4495925903320312]),
 'norm -2 1d': ('ok', 'float32', (), (), [0.8265842795372009]),
 'norm -2 dim 1': ('ok', 'float32', (2, 4), (4, 1),
                   [0.6882472038269043, 2.770542621612549, 0.0, 2.770542621612549,
                    2.3643312454223633, 0.6882472038269043, 2.770542621612549, 0.0]),
 'norm -inf': ('ok', 'float32', (), (), [12.0]),
 'norm -inf 1d': ('ok', 'float32', (), (), [1.0]),
 'norm 0 1d': ('ok', 'float32', (), (), [5.0]),
 'norm 0 dim 1': ('ok', 'float32', (2, 4), (4, 1),
                  [3.0, 3.0, 2.0, 3.0, 3.0, 3.0, 3.0, 2.0]),
 'norm 1': ('ok', 'float32', (), (), [15.0]),
 'norm 1 1d': ('ok', 'float32', (), (), [15.0]),
 'norm 1 dim 3': ('RuntimeError',
                  'linalg.norm: If dim is specified, it must be of length 1 or 2. Got '
                  '[0, 1, 2]'),
 'norm 2': ('ok', 'float32', (), (), [9.871014595031738]),
 'norm 2 1d': ('ok', 'float32', (), (), [7.416198253631592]),
 'norm 2 3d': ('RuntimeError',
               'linalg.norm: If dim is not specified but ord is, the input must be 1D '
               'or 2D. Got 3D.'),
 'norm 2 dim empty': ('RuntimeError',
                      'linalg.norm: If dim is specified, it must be of length 1 or 2. '
                      'Got []'),
 'norm 2 dims': ('ok', 'float32', (1, 3, 1), (1, 1, 1),
                 [9.263479232788086, 8.93299388885498, 9.309979438781738]),
 'norm 3': ('RuntimeError', 'linalg.matrix_norm: Order 3 not supported.'),
 'norm 3 1d': ('ok', 'float32', (), (), [6.082202434539795]),
 'norm 3 dims': ('RuntimeError', 'linalg.matrix_norm: Order 3 not supported.'),
 'norm None': ('ok', 'float32', (), (), [13.152946472167969]),
 'norm None 1d': ('ok', 'float32', (), (), [7.416198253631592]),
 'norm None 3d': ('ok', 'float32', (), (), [18.41195297241211]),
 'norm None dim 1': ('ok', 'float32', (2, 4), (4, 1),
                     [3.316624879837036, 8.774964332580566, 2.8284270763397217,
                      8.774964332580566, 8.366600036621094, 3.316624879837036,
                      8.774964332580566, 2.8284270763397217]),
 'norm None dim 3': ('RuntimeError',
                     'linalg.norm: If dim is specified, it must be of length 1 or 2. '
                     'Got [0, 1, 2]'),
 'norm None dim empty': ('RuntimeError',
                         'linalg.norm: If dim is specified, it must be of length 1 or '
                         '2. Got []'),
 'norm None dims': ('ok', 'float32', (1, 3, 1), (3, 1, 1),
                    [9.591663360595703, 11.618949890136719, 10.58300495147705]),
 'norm abc': ('RuntimeError', 'linalg.matrix_norm: Order abc not supported.'),
 'norm dtype': ('ok', 'float64', (), (), [1.449592463228332]),
 'norm fro': ('ok', 'float32', (), (), [13.152946472167969]),
 'norm fro 1d': ('RuntimeError',
                 'linalg.matrix_norm: The input tensor A must have at least 2 '
                 'dimensions.'),
 'norm fro 3d': ('RuntimeError',
                 'linalg.norm: If dim is not specified but ord is, the input must be '
                 '1D or 2D. Got 3D.'),
 'norm fro dim 1': ('RuntimeError', 'linalg.matrix_norm: dim must be a 2-tuple. Got 1'),
 'norm fro dim empty': ('RuntimeError',
                        'linalg.norm: If dim is specified, it mut be of length 1 or 2. '
                        'Got []'),
 'norm fro dims': ('ok', 'float32', (1, 3, 1), (3, 1, 1),
                   [9.591663360595703, 11.618949890136719, 10.58300495147705]),
 'norm inf': ('ok', 'float32', (), (), [14.0]),
 'norm inf 1d': ('ok', 'float32', (), (), [5.0]),
 'norm inf dim 1': ('ok', 'float32', (2, 4), (4, 1),
                    [3.0, 6.0, 2.0, 6.0, 6.0, 3.0, 6.0, 2.0]),
 'norm inf dims': ('ok', 'float32', (1, 3, 1), (3, 1, 1), [14.0, 13.0, 14.0]),
 'norm int': ('RuntimeError',
              'linalg.matrix_norm: Expected a floating point or complex tensor as '
              'input. Got Int'),
 'norm kw': ('ok', 'float32', (), (), [12.0]),
 'norm nuc': ('ok', 'float32', (), (), [19.891590118408203]),
 'norm nuc 1d': ('RuntimeError',
                 'linalg.matrix_norm: The input tensor A must have at least 2 '
                 'dimensions.'),
 'norm nuc dim 3': ('RuntimeError',
                    'linalg.norm: If dim is specified, it mut be of length 1 or 2. Got '
                    '[0, 1, 2]'),
 'norm nuc dims': ('ok', 'float32', (1, 3, 1), (1, 1, 1),
                   [11.751036643981934, 16.362773895263672, 14.342302322387695]),
 'norm out': ('ok', 'float32', (), (), [19.891590118408203]),
 'norm out dtype': ('RuntimeError',
                    'linalg.norm expected out tensor dtype Float but got: Double'),
 'norm vector out dtype': ('RuntimeError',
                           'linalg.norm expected out tensor dtype Float but got: '
                           'Double'),
 'svdvals': ('ok', 'float32', (3,), (1,),
             [9.871014595031738, 8.570981979370117, 1.4495925903320312]),
 'svdvals 0d': ('RuntimeError',
                'linalg.svd: The input tensor A must have at least 2 dimensions.'),
 'svdvals 0x2x3': ('ok', 'float32', (0, 2), (2, 1), []),
 'svdvals 0x3': ('ok', 'float32', (0,), (1,), []),
 'svdvals 1d': ('RuntimeError',
                'linalg.svd: The input tensor A must have at least 2 dimensions.'),
 'svdvals 1x4': ('ok', 'float32', (1,), (1,), [7.348469257354736]),
 'svdvals 2x0x3': ('ok', 'float32', (2, 0), (1, 1), []),
 'svdvals 3x0': ('ok', 'float32', (0,), (1,), []),
 'svdvals batch': ('ok', 'float32', (2, 2, 3), (6, 3, 1),
                   [9.567373275756836, 5.9289350509643555, 1.1458923816680908,
                    9.75688362121582, 3.5394742488861084, 1.1293138265609741,
                    8.549471855163574, 7.55465841293335, 2.415297269821167,
                    10.50696086883545, 5.694156169891357, 1.0864425897598267]),
 'svdvals bfloat16': ('RuntimeError',
                      '"linalg_svd_cpu" not implemented for \'BFloat16\''),
 'svdvals bool': ('RuntimeError',
                  'linalg.svd: Expected a floating point or complex tensor as input. '
                  'Got Bool'),
 'svdvals driver': ('RuntimeError',
                    'torch.linalg.svd: keyword argument `driver=` is only supported on '
                    'CUDA inputs with cuSOLVER backend.'),
 'svdvals float64': ('ok', 'float64', (3,), (1,),
                     [11.563656313801651, 6.108808110946481, 1.4015406237101036]),
 'svdvals half': ('RuntimeError', '"linalg_svd_cpu" not implemented for \'Half\''),
 'svdvals half empty': ('ok', 'float16', (0,), (1,), []),
 'svdvals inf': ('ok', 'float32', (2,), (1,), [NAN, NAN]),
 'svdvals int': ('RuntimeError',
                 'linalg.svd: Expected a floating point or complex tensor as input. '
                 'Got Int'),
 'svdvals int empty': ('RuntimeError',
                       'linalg.svd: Expected a floating point or complex tensor as '
                       'input. Got Long'),
 'svdvals kw': ('ok', 'float32', (3,), (1,),
                [9.871014595031738, 8.570981979370117, 1.4495925903320312]),
 'svdvals mT': ('ok', 'float32', (2, 3), (3, 1),
                [11.563655853271484, 6.108807563781738, 1.4015402793884277,
                 9.255339622497559, 8.507612228393555, 2.8212058544158936]),
 'svdvals nan': ('_LinAlgError',
                 'linalg.svd: The algorithm failed to converge because the input '
                 'matrix contained non-finite values.'),
 'svdvals nan batch': ('_LinAlgError',
                       'linalg.svd: (Batch element 1): The algorithm failed to '
                       'converge because the input matrix contained non-finite '
                       'values.'),
 'svdvals number': ('TypeError',
                    "linalg_svdvals(): argument 'A' (position 1) must be Tensor, not "
                    'int'),
 'svdvals out': ('ok', 'float32', (3,), (1,),
                 [9.871014595031738, 8.570981979370117, 1.4495925903320312]),
 'svdvals out dtype': ('RuntimeError',
                       'Expected out tensor to have dtype float, but got double '
                       'instead'),
 'svdvals out int': ('RuntimeError',
                     'Expected out tensor to have dtype double, but got long int '
                     'instead'),
 'svdvals out resized': ('ok', 'float32', (3,), (1,),
                         [9.871014595031738, 8.570981979370117, 1.4495925903320312]),
 'svdvals slice': ('ok', 'float32', (3,), (1,),
                   [10.824707984924316, 6.86838436126709, 1.2848995923995972]),
 'svdvals tall': ('ok', 'float32', (2,), (1,),
                  [12.095219612121582, 2.5895285606384277]),
 'torch.norm None dim 3': ('ok', 'float32', (), (), [18.41195297241211]),
 'torch.norm abc': ('RuntimeError',
                    "only valid string values are 'fro' and 'nuc', found abc"),
 'torch.norm default dim 3': ('RuntimeError',
                              'Expected at most 2 dimensions, but got 3 dimensions '
                              'instead.'),
 'torch.norm default dtype': ('ValueError',
                              'dtype argument is not supported in frobenius norm'),
 'torch.norm fro': ('ok', 'float32', (), (), [18.41195297241211]),
 'torch.norm fro dim 1': ('ok', 'float32', (2, 3), (3, 1),
                          [7.348469257354736, 8.5440034866333, 6.78233003616333,
                           6.164413928985596, 7.874007701873779, 8.124038696289062]),
 'torch.norm fro dim 3': ('RuntimeError',
                          'Expected at most 2 dimensions, but got 3 dimensions '
                          'instead.'),
 'torch.norm fro dim same': ('RuntimeError',
                             'Expected dims to be different, got [0, -3] instead'),
 'torch.norm fro dims': ('ok', 'float32', (1, 3, 1), (3, 1, 1),
                         [9.591663360595703, 11.618949890136719, 10.58300495147705]),
 'torch.norm fro dtype': ('ValueError',
                          'dtype argument is not supported in frobenius norm'),
 'torch.norm fro out': ('ok', 'float32', (), (), [13.152946472167969]),
 'torch.norm fro out 3d': ('RuntimeError',
                           'Expected at most 2 dimensions, but got 3 dimensions '
                           'instead.'),
 'torch.norm nuc': ('ok', 'float32', (), (), [19.891590118408203]),
 'torch.norm nuc 1d': ('RuntimeError',
                       'Expected a tensor with 2 dimensions, but got a tensor with 1 '
                       'dimension instead.'),
 'torch.norm nuc 1d dims': ('IndexError',
                            'Dimension out of range (expected to be in range of [-1, '
                            '0], but got 1)'),
 'torch.norm nuc 3d': ('RuntimeError',
                       'Expected a tensor with 2 dimensions, but got a tensor with 3 '
                       'dimensions instead.'),
 'torch.norm nuc dim 1': ('RuntimeError',
                          "nuclear norm requires a 'dim' argument of size 2"),
 'torch.norm nuc dim empty': ('RuntimeError',
                              "nuclear norm requires a 'dim' argument of size 2"),
 'torch.norm nuc dim same': ('RuntimeError', 'duplicate or invalid dimensions'),
 'torch.norm nuc dims': ('ok', 'float32', (1, 3, 1), (1, 1, 1),
                         [11.751036643981934, 16.362773895263672, 14.342302322387695]),
 'torch.norm nuc dtype': ('ValueError',
                          'dtype argument is not supported in nuclear norm'),
 'torch.norm nuc empty': ('ok', 'float32', (), (), [0.0]),
 'torch.norm nuc half': ('RuntimeError',
                         '"linalg_svd_cpu" not implemented for \'Half\''),
 'torch.norm nuc int': ('RuntimeError',
                        'linalg.svd: Expected a floating point or complex tensor as '
                        'input. Got Long'),
 'torch.norm nuc keepdim': ('ok', 'float32', (1, 1), (1, 1), [19.891590118408203]),
 'torch.norm nuc out': ('ok', 'float64', (), (), [19.891590118408203]),
 'torch.norm nuc out 3d': ('RuntimeError',
                           'Expected a tensor with 2 dimensions, but got a tensor with '
                           '3 dimensions instead.')}


@pytest.mark.parametrize("name", list(NORM_CASES))
def test_norm_recorded(name):
    _same_outcome(norm_outcome(ctorch, name), NORM_RECORDED[name])


@pytest.mark.parametrize("name", list(NORM_CASES))
def test_norm_case_matches_torch(name, torch_ref):
    _same_outcome(norm_outcome(ctorch, name), norm_outcome(torch_ref, name))


def _norm_pair(torch, shape, dtype, seed, perm):
    """The same random operand in ctorch and torch, permuted by perm."""
    out = []
    for m in (ctorch, torch):
        t = m.tensor(_rand(shape, seed), dtype=m.float64).reshape(shape)
        out.append(t.to(getattr(m, dtype)).permute(*perm))
    return out


def _norm_close(c, t, dtype):
    """_close, and the strides too (keepdim results are permuted views)."""
    _close(c, t, dtype)
    assert tuple(c.stride()) == tuple(t.stride())


ORDS = ["fro", "nuc", INF, -INF, 1, -1, 2, -2]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(40))
def test_matrix_norms_random_match_torch(torch_ref, seed, dtype):
    """Random shapes (empty dims included), batches, layouts, dims, orders and
    keepdim, through matrix_norm, linalg.norm, svdvals and torch.norm."""
    rng = random.Random(seed)
    for _ in range(12):
        nd = rng.randint(2, 4)
        shape = [rng.choice([0, 1, 2, 3, 5, 7]) if rng.random() < 0.15 else rng.randint(1, 7)
                 for _ in range(nd)]
        perm = list(range(nd))
        if rng.random() < 0.4:
            rng.shuffle(perm)
        c, t = _norm_pair(torch_ref, shape, dtype, rng.randrange(1000), perm)
        d0, d1 = rng.sample(range(nd), 2)
        dims = (d0 - nd if rng.random() < 0.5 else d0, d1)
        ord, keepdim = rng.choice(ORDS), rng.random() < 0.5
        calls = [lambda m, x: m.linalg.matrix_norm(x, ord, dims, keepdim),
                 lambda m, x: m.linalg.norm(x, ord, dims, keepdim),
                 lambda m, x: m.linalg.svdvals(x)]
        if ord in ("fro", "nuc"):
            calls.append(lambda m, x: m.norm(x, ord, dims, keepdim))
        for call in calls:
            want = norm_outcome_of(torch_ref, call, t)
            got = norm_outcome_of(ctorch, call, c)
            if want[0] != "ok":
                assert got == want
            else:
                _norm_close(got[1], want[1], dtype)


def norm_outcome_of(m, call, x):
    try:
        return ("ok", call(m, x))
    except Exception as e:      # noqa: BLE001 - the exception is the result
        return (type(e).__name__, str(e).split("\n")[0])


@pytest.mark.parametrize("ord", ORDS)
def test_matrix_norm_dtype_and_out_match_torch(torch_ref, ord):
    """dtype= (computing in float64) and out= (written in place)."""
    c, t = _norm_pair(torch_ref, (3, 5, 4), "float32", 7, (0, 1, 2))
    _norm_close(ctorch.linalg.matrix_norm(c, ord, dtype=ctorch.float64),
                torch_ref.linalg.matrix_norm(t, ord, dtype=torch_ref.float64), "float64")
    oc, ot = ctorch.empty(3), torch_ref.empty(3)
    rc = ctorch.linalg.matrix_norm(c, ord, (2, 1), out=oc)
    rt = torch_ref.linalg.matrix_norm(t, ord, (2, 1), out=ot)
    assert rc is oc and rt is ot
    _norm_close(oc, ot, "float32")
    if ord not in ("nuc", 2, -2):
        h = (ctorch.half, torch_ref.half)
        _close(ctorch.linalg.matrix_norm(c.to(h[0]), ord),
               torch_ref.linalg.matrix_norm(t.to(h[1]), ord), "float16")


def test_large_svdvals_match_torch(torch_ref):
    """Matrices where LAPACK blocks and OpenBLAS threads, and a batch."""
    for shape in [(200, 120), (64, 257), (8, 33, 17)]:
        for dtype in ("float32", "float64"):
            c, t = _norm_pair(torch_ref, shape, dtype, 11, range(len(shape)))
            _close(ctorch.linalg.svdvals(c), torch_ref.linalg.svdvals(t), dtype)
            _close(ctorch.linalg.matrix_norm(c.mT, "nuc"),
                   torch_ref.linalg.matrix_norm(t.mT, "nuc"), dtype)


def test_svdvals_properties():
    """Without torch: descending non-negative values whose squares sum to the
    squared Frobenius norm; orthogonal and diagonal matrices; LinAlgError."""
    a = (ctorch.arange(7 * 5, dtype=ctorch.float64) * 7 % 13 - 6).reshape(7, 5)
    s = ctorch.linalg.svdvals(a).tolist()
    assert s == sorted(s, reverse=True) and min(s) > 0
    assert sum(v * v for v in s) == pytest.approx((a * a).sum().item(), rel=1e-12)
    assert ctorch.linalg.svdvals(ctorch.tensor([[0.0, -4.0], [3.0, 0.0]])).tolist() == [
        4.0, 3.0]
    r = ctorch.linalg.svdvals(ctorch.eye(3, dtype=ctorch.float64).expand(4, 3, 3))
    assert r.tolist() == [[1.0] * 3] * 4
    assert ctorch.linalg.matrix_norm(a, 2).item() == pytest.approx(s[0], rel=1e-12)
    assert ctorch.linalg.matrix_norm(a, -2).item() == pytest.approx(s[-1], rel=1e-12)
    assert ctorch.linalg.matrix_norm(a, "nuc").item() == pytest.approx(sum(s), rel=1e-12)
    assert ctorch.linalg.LinAlgError.__name__ == "_LinAlgError"
    assert issubclass(ctorch.linalg.LinAlgError, RuntimeError)
    with pytest.raises(ctorch.linalg.LinAlgError, match="non-finite values"):
        ctorch.linalg.svdvals(ctorch.tensor([[float("nan"), 1.0], [1.0, 1.0]]))


def test_norms_no_leaks():
    """Every norm case, successful or not, leaves no tensor or storage behind."""
    def run_all():
        for name in NORM_CASES:
            norm_outcome(ctorch, name)
    run_all()
    gc.collect()
    before = ctorch._C._live_counts()[:2]
    for _ in range(2):
        run_all()
    gc.collect()
    assert ctorch._C._live_counts()[:2] == before
