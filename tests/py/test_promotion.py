"""Type promotion for the pointwise ops: promote_types, can_cast,
result_type and the dtype that add/sub/mul/div actually produce.

Every expectation below was recorded from PyTorch 1.13 and is written out
literally, because CI has no torch.  Each literal test has a
``*_matches_torch`` twin that recomputes the expectation with real torch and
is skipped where torch is not importable.
"""

import math

import pytest

import ctorch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
          "float16", "bfloat16", "float32", "float64"]
FLOATING = {"float16", "bfloat16", "float32", "float64"}

# torch.promote_types(ROW, COLUMN), recorded from PyTorch 1.13.
PROMOTE_TYPES = {
    "bool": {
        "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "uint8": {
        "bool": "uint8", "uint8": "uint8", "int8": "int16", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int8": {
        "bool": "int8", "uint8": "int16", "int8": "int8", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int16": {
        "bool": "int16", "uint8": "int16", "int8": "int16", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int32": {
        "bool": "int32", "uint8": "int32", "int8": "int32", "int16": "int32",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int64": {
        "bool": "int64", "uint8": "int64", "int8": "int64", "int16": "int64",
        "int32": "int64", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "float16": {
        "bool": "float16", "uint8": "float16", "int8": "float16", "int16": "float16",
        "int32": "float16", "int64": "float16", "float16": "float16",
        "bfloat16": "float32", "float32": "float32", "float64": "float64",
    },
    "bfloat16": {
        "bool": "bfloat16", "uint8": "bfloat16", "int8": "bfloat16", "int16": "bfloat16",
        "int32": "bfloat16", "int64": "bfloat16", "float16": "float32",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "float32": {
        "bool": "float32", "uint8": "float32", "int8": "float32", "int16": "float32",
        "int32": "float32", "int64": "float32", "float16": "float32",
        "bfloat16": "float32", "float32": "float32", "float64": "float64",
    },
    "float64": {
        "bool": "float64", "uint8": "float64", "int8": "float64", "int16": "float64",
        "int32": "float64", "int64": "float64", "float16": "float64",
        "bfloat16": "float64", "float32": "float64", "float64": "float64",
    },
}

# torch.can_cast(ROW, COLUMN), recorded from PyTorch 1.13.
CAN_CAST = {
    "bool": {
        "bool": True, "uint8": True, "int8": True, "int16": True,
        "int32": True, "int64": True, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "uint8": {
        "bool": False, "uint8": True, "int8": True, "int16": True,
        "int32": True, "int64": True, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "int8": {
        "bool": False, "uint8": True, "int8": True, "int16": True,
        "int32": True, "int64": True, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "int16": {
        "bool": False, "uint8": True, "int8": True, "int16": True,
        "int32": True, "int64": True, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "int32": {
        "bool": False, "uint8": True, "int8": True, "int16": True,
        "int32": True, "int64": True, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "int64": {
        "bool": False, "uint8": True, "int8": True, "int16": True,
        "int32": True, "int64": True, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "float16": {
        "bool": False, "uint8": False, "int8": False, "int16": False,
        "int32": False, "int64": False, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "bfloat16": {
        "bool": False, "uint8": False, "int8": False, "int16": False,
        "int32": False, "int64": False, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "float32": {
        "bool": False, "uint8": False, "int8": False, "int16": False,
        "int32": False, "int64": False, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
    "float64": {
        "bool": False, "uint8": False, "int8": False, "int16": False,
        "int32": False, "int64": False, "float16": True,
        "bfloat16": True, "float32": True, "float64": True,
    },
}

# torch.result_type(ones(2, dtype=ROW), ones((), dtype=COLUMN)), recorded from
# PyTorch 1.13: a 0-dim tensor only counts when it is of a higher category.
DIM_WITH_ZERO_DIM = {
    "bool": {
        "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "uint8": {
        "bool": "uint8", "uint8": "uint8", "int8": "uint8", "int16": "uint8",
        "int32": "uint8", "int64": "uint8", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int8": {
        "bool": "int8", "uint8": "int8", "int8": "int8", "int16": "int8",
        "int32": "int8", "int64": "int8", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int16": {
        "bool": "int16", "uint8": "int16", "int8": "int16", "int16": "int16",
        "int32": "int16", "int64": "int16", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int32": {
        "bool": "int32", "uint8": "int32", "int8": "int32", "int16": "int32",
        "int32": "int32", "int64": "int32", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int64": {
        "bool": "int64", "uint8": "int64", "int8": "int64", "int16": "int64",
        "int32": "int64", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "float16": {
        "bool": "float16", "uint8": "float16", "int8": "float16", "int16": "float16",
        "int32": "float16", "int64": "float16", "float16": "float16",
        "bfloat16": "float16", "float32": "float16", "float64": "float16",
    },
    "bfloat16": {
        "bool": "bfloat16", "uint8": "bfloat16", "int8": "bfloat16", "int16": "bfloat16",
        "int32": "bfloat16", "int64": "bfloat16", "float16": "bfloat16",
        "bfloat16": "bfloat16", "float32": "bfloat16", "float64": "bfloat16",
    },
    "float32": {
        "bool": "float32", "uint8": "float32", "int8": "float32", "int16": "float32",
        "int32": "float32", "int64": "float32", "float16": "float32",
        "bfloat16": "float32", "float32": "float32", "float64": "float32",
    },
    "float64": {
        "bool": "float64", "uint8": "float64", "int8": "float64", "int16": "float64",
        "int32": "float64", "int64": "float64", "float16": "float64",
        "bfloat16": "float64", "float32": "float64", "float64": "float64",
    },
}

# torch.result_type(ones((), dtype=ROW), ones((), dtype=COLUMN)), recorded from
# PyTorch 1.13: two 0-dim tensors promote like promote_types.
ZERO_DIM_WITH_ZERO_DIM = {
    "bool": {
        "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "uint8": {
        "bool": "uint8", "uint8": "uint8", "int8": "int16", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int8": {
        "bool": "int8", "uint8": "int16", "int8": "int8", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int16": {
        "bool": "int16", "uint8": "int16", "int8": "int16", "int16": "int16",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int32": {
        "bool": "int32", "uint8": "int32", "int8": "int32", "int16": "int32",
        "int32": "int32", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "int64": {
        "bool": "int64", "uint8": "int64", "int8": "int64", "int16": "int64",
        "int32": "int64", "int64": "int64", "float16": "float16",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "float16": {
        "bool": "float16", "uint8": "float16", "int8": "float16", "int16": "float16",
        "int32": "float16", "int64": "float16", "float16": "float16",
        "bfloat16": "float32", "float32": "float32", "float64": "float64",
    },
    "bfloat16": {
        "bool": "bfloat16", "uint8": "bfloat16", "int8": "bfloat16", "int16": "bfloat16",
        "int32": "bfloat16", "int64": "bfloat16", "float16": "float32",
        "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    },
    "float32": {
        "bool": "float32", "uint8": "float32", "int8": "float32", "int16": "float32",
        "int32": "float32", "int64": "float32", "float16": "float32",
        "bfloat16": "float32", "float32": "float32", "float64": "float64",
    },
    "float64": {
        "bool": "float64", "uint8": "float64", "int8": "float64", "int16": "float64",
        "int32": "float64", "int64": "float64", "float16": "float64",
        "bfloat16": "float64", "float32": "float64", "float64": "float64",
    },
}

# torch.result_type(t, scalar) for t of dtype ROW, as (t with dims, t 0-dim),
# scalar True / 1 / 1.5, recorded from PyTorch 1.13 (default dtype float32).
WITH_PYTHON_SCALAR = {
    "bool": (
        {"bool": "bool", "int": "int64", "float": "float32"},
        {"bool": "bool", "int": "int64", "float": "float32"},
    ),
    "uint8": (
        {"bool": "uint8", "int": "uint8", "float": "float32"},
        {"bool": "uint8", "int": "uint8", "float": "float32"},
    ),
    "int8": (
        {"bool": "int8", "int": "int8", "float": "float32"},
        {"bool": "int8", "int": "int8", "float": "float32"},
    ),
    "int16": (
        {"bool": "int16", "int": "int16", "float": "float32"},
        {"bool": "int16", "int": "int16", "float": "float32"},
    ),
    "int32": (
        {"bool": "int32", "int": "int32", "float": "float32"},
        {"bool": "int32", "int": "int32", "float": "float32"},
    ),
    "int64": (
        {"bool": "int64", "int": "int64", "float": "float32"},
        {"bool": "int64", "int": "int64", "float": "float32"},
    ),
    "float16": (
        {"bool": "float16", "int": "float16", "float": "float16"},
        {"bool": "float16", "int": "float16", "float": "float16"},
    ),
    "bfloat16": (
        {"bool": "bfloat16", "int": "bfloat16", "float": "bfloat16"},
        {"bool": "bfloat16", "int": "bfloat16", "float": "bfloat16"},
    ),
    "float32": (
        {"bool": "float32", "int": "float32", "float": "float32"},
        {"bool": "float32", "int": "float32", "float": "float32"},
    ),
    "float64": (
        {"bool": "float64", "int": "float64", "float": "float64"},
        {"bool": "float64", "int": "float64", "float": "float64"},
    ),
}


def _dt(mod, name):
    return getattr(mod, name)


def _name(dtype):
    return str(dtype).replace("torch.", "")


def _key(v):
    """tolist() output made comparable exactly: NaN equals NaN, -0.0 differs
    from 0.0, and bool/int/float of equal value differ."""
    if isinstance(v, list):
        return [_key(x) for x in v]
    if isinstance(v, float):
        if math.isnan(v):
            return ("float", "nan")
        return ("float", v, math.copysign(1.0, v))
    return (type(v).__name__, v)


def _outcome(fn, mod):
    """What fn(mod) does: a dtype name, a tensor summary, or the exception."""
    try:
        r = fn(mod)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return ("raises", type(e).__name__, str(e))
    if hasattr(r, "tolist") and hasattr(r, "dtype"):
        return ("tensor", _name(r.dtype), tuple(r.shape), _key(r.tolist()))
    if isinstance(r, (bool, int, float)):
        return _key(r)
    return _name(r)


def _pairs():
    return [(a, b) for a in DTYPES for b in DTYPES]


# --- promote_types ------------------------------------------------------------

def test_promote_types_table():
    got = {a: {b: _name(ctorch.promote_types(_dt(ctorch, a), _dt(ctorch, b)))
               for b in DTYPES} for a in DTYPES}
    assert got == PROMOTE_TYPES


def test_promote_types_table_matches_torch():
    torch = pytest.importorskip("torch")
    want = {a: {b: _name(torch.promote_types(_dt(torch, a), _dt(torch, b)))
                for b in DTYPES} for a in DTYPES}
    got = {a: {b: _name(ctorch.promote_types(_dt(ctorch, a), _dt(ctorch, b)))
               for b in DTYPES} for a in DTYPES}
    assert want == PROMOTE_TYPES        # the recording is still torch's
    assert got == want


def test_promote_types_is_symmetric_and_idempotent():
    for a, b in _pairs():
        ab = ctorch.promote_types(_dt(ctorch, a), _dt(ctorch, b))
        assert ab == ctorch.promote_types(_dt(ctorch, b), _dt(ctorch, a))
        assert ctorch.promote_types(ab, ab) == ab
    assert ctorch.promote_types(type1=ctorch.int8, type2=ctorch.uint8) == ctorch.int16


def test_promote_types_returns_dtype_objects():
    r = ctorch.promote_types(ctorch.float16, ctorch.bfloat16)
    assert r is ctorch.float32
    assert isinstance(r, ctorch.dtype)


def test_promote_types_quantized_same_type():
    assert ctorch.promote_types(ctorch.qint8, ctorch.qint8) == ctorch.qint8


def test_promote_types_quantized_message():
    with pytest.raises(RuntimeError) as e:
        ctorch.promote_types(ctorch.quint8, ctorch.qint8)
    assert str(e.value) == (
        "promoteTypes with quantized numbers is not handled yet; figure out what "
        "the correct rules should be, offending types: QUInt8 QInt8")


def test_result_type_quantized_same_type():
    q = ctorch.quantize_per_tensor(ctorch.tensor([1.0, 2.0]), 0.1, 0, ctorch.qint8)
    assert ctorch.result_type(q, q) == ctorch.qint8


# --- can_cast -----------------------------------------------------------------

def test_can_cast_table():
    got = {a: {b: ctorch.can_cast(_dt(ctorch, a), _dt(ctorch, b)) for b in DTYPES}
           for a in DTYPES}
    assert got == CAN_CAST


def test_can_cast_table_matches_torch():
    torch = pytest.importorskip("torch")
    want = {a: {b: torch.can_cast(_dt(torch, a), _dt(torch, b)) for b in DTYPES}
            for a in DTYPES}
    assert want == CAN_CAST
    got = {a: {b: ctorch.can_cast(_dt(ctorch, a), _dt(ctorch, b)) for b in DTYPES}
           for a in DTYPES}
    assert got == want


# --- the dtype each op produces -------------------------------------------------
# a = [1, 0] and b = [1, 1] in every dtype pair; sub with a bool operand and
# everything else follow from the promote_types table.

A_VALS = [1, 0]
B_VALS = [1, 1]


def _expected_op(op, a, b):
    p = PROMOTE_TYPES[a][b]
    if op == "sub" and "bool" in (a, b):
        if a == b:
            return ("raises", "RuntimeError",
                    "Subtraction, the `-` operator, with two bool tensors is not "
                    "supported. Use the `^` or `logical_xor()` operator instead.")
        return ("raises", "RuntimeError",
                "Subtraction, the `-` operator, with a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or `logical_not()` "
                "operator instead.")
    if op == "div":
        p = p if p in FLOATING else "float32"
        vals = [1.0, 0.0]
    elif p == "bool":
        vals = {"add": [True, True], "mul": [True, False]}[op]
    elif p in FLOATING:
        vals = {"add": [2.0, 1.0], "sub": [0.0, -1.0], "mul": [1.0, 0.0]}[op]
    else:
        vals = {"add": [2, 1], "sub": [0, 255 if p == "uint8" else -1],
                "mul": [1, 0]}[op]
    return ("tensor", p, (2,), _key(vals))


def _op_fn(op, a, b):
    def fn(m):
        x = m.tensor(A_VALS, dtype=_dt(m, a))
        y = m.tensor(B_VALS, dtype=_dt(m, b))
        return getattr(m, op)(x, y)
    return fn


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_op_result_dtype_all_pairs(op):
    for a, b in _pairs():
        assert _outcome(_op_fn(op, a, b), ctorch) == _expected_op(op, a, b), (a, b)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_op_result_dtype_all_pairs_matches_torch(op):
    torch = pytest.importorskip("torch")
    for a, b in _pairs():
        fn = _op_fn(op, a, b)
        want = _outcome(fn, torch)
        assert want == _expected_op(op, a, b), (a, b)
        assert _outcome(fn, ctorch) == want, (a, b)


# --- result_type: dimensioned tensors, 0-dim tensors, Python scalars ----------

def _dim(m, name):
    return m.ones(2, dtype=_dt(m, name))


def _zero(m, name):
    return m.ones((), dtype=_dt(m, name))


def _check_tiers(m, table, left, right):
    """result_type and the dtype of a + b / b + a against a recorded table."""
    got_rt, got_add, got_radd = {}, {}, {}
    for a, b in _pairs():
        x, y = left(m, a), right(m, b)
        got_rt[a, b] = _name(m.result_type(x, y))
        got_add[a, b] = _name((x * y).dtype)
        got_radd[a, b] = _name((y * x).dtype)
    want = {(a, b): table[a][b] for a, b in _pairs()}
    assert got_rt == want
    assert got_add == want
    assert got_radd == want


def test_result_type_dim_with_zero_dim():
    _check_tiers(ctorch, DIM_WITH_ZERO_DIM, _dim, _zero)


def test_result_type_dim_with_zero_dim_matches_torch():
    torch = pytest.importorskip("torch")
    _check_tiers(torch, DIM_WITH_ZERO_DIM, _dim, _zero)
    _check_tiers(ctorch, DIM_WITH_ZERO_DIM, _dim, _zero)


def test_result_type_zero_dim_with_zero_dim():
    _check_tiers(ctorch, ZERO_DIM_WITH_ZERO_DIM, _zero, _zero)


def test_result_type_zero_dim_with_zero_dim_matches_torch():
    torch = pytest.importorskip("torch")
    _check_tiers(torch, ZERO_DIM_WITH_ZERO_DIM, _zero, _zero)
    _check_tiers(ctorch, ZERO_DIM_WITH_ZERO_DIM, _zero, _zero)


def test_result_type_dim_with_dim_is_promote_types():
    _check_tiers(ctorch, PROMOTE_TYPES, _dim, _dim)


SCALARS = {"bool": True, "int": 1, "float": 1.5}


def _scalar_table(m):
    got = {}
    for a in DTYPES:
        per = []
        for make in (_dim, _zero):
            t = make(m, a)
            row = {}
            for kind, s in SCALARS.items():
                r = {_name(m.result_type(t, s)), _name(m.result_type(s, t)),
                     _name((t + s).dtype), _name((s * t).dtype)}
                assert len(r) == 1, (a, kind, r)
                row[kind] = r.pop()
            per.append(row)
        got[a] = tuple(per)
    return got


def test_result_type_with_python_scalars():
    assert _scalar_table(ctorch) == WITH_PYTHON_SCALAR


def test_result_type_with_python_scalars_matches_torch():
    torch = pytest.importorskip("torch")
    assert _scalar_table(torch) == WITH_PYTHON_SCALAR
    assert _scalar_table(ctorch) == WITH_PYTHON_SCALAR


def test_result_type_of_two_python_scalars():
    assert ctorch.result_type(2, 3.0) == ctorch.float32
    assert ctorch.result_type(True, 1) == ctorch.int64
    assert ctorch.result_type(True, False) == ctorch.bool
    assert ctorch.result_type(2, 3) == ctorch.int64


# --- worked examples, values included ------------------------------------------
# (id, builder, dtype, shape, values); the builder gets the module (ctorch or
# torch) so the same case runs against both.

CASES = [
    ("int_plus_float_scalar", lambda m: m.tensor([1, 2], dtype=m.int32) + 2.5,
     "float32", (2,), [3.5, 4.5]),
    ("float_scalar_plus_int", lambda m: 2.5 + m.tensor([1, 2]),
     "float32", (2,), [3.5, 4.5]),
    ("int64_div_int", lambda m: m.tensor([7, 1]) / 2,
     "float32", (2,), [3.5, 0.5]),
    ("int_div_int_tensor", lambda m: m.tensor([7, 1]) / m.tensor([3, 3]),
     "float32", (2,), [2.3333332538604736, 0.3333333432674408]),
    ("uint8_plus_1000_wraps", lambda m: m.tensor([1, 250], dtype=m.uint8) + 1000,
     "uint8", (2,), [233, 226]),
    ("1000_plus_uint8_wraps", lambda m: 1000 + m.tensor([1, 250], dtype=m.uint8),
     "uint8", (2,), [233, 226]),
    ("int8_times_300_wraps", lambda m: m.tensor([1, -1], dtype=m.int8) * 300,
     "int8", (2,), [44, -44]),
    ("int32_plus_2_pow_40_wraps", lambda m: m.tensor([1, 2], dtype=m.int32) + 2 ** 40,
     "int32", (2,), [1, 2]),
    ("bool_plus_true", lambda m: m.tensor([True, False]) + True,
     "bool", (2,), [True, True]),
    ("bool_times_true", lambda m: m.tensor([True, False]) * True,
     "bool", (2,), [True, False]),
    ("bool_plus_1", lambda m: m.tensor([True, False]) + 1,
     "int64", (2,), [2, 1]),
    ("bool_times_2_5", lambda m: m.tensor([True, False]) * 2.5,
     "float32", (2,), [2.5, 0.0]),
    ("int8_plus_true", lambda m: m.tensor([1, 2], dtype=m.int8) + True,
     "int8", (2,), [2, 3]),
    ("float16_plus_0_1", lambda m: m.tensor([1.0], dtype=m.float16) + 0.1,
     "float16", (1,), [1.099609375]),
    ("bfloat16_times_3", lambda m: m.tensor([1.5], dtype=m.bfloat16) * 3,
     "bfloat16", (1,), [4.5]),
    ("int32_plus_zero_dim_float64",
     lambda m: m.tensor([1, 2], dtype=m.int32) + m.tensor(1.5, dtype=m.float64),
     "float64", (2,), [2.5, 3.5]),
    ("float16_plus_zero_dim_float64",
     lambda m: m.tensor([1.5, 2.0], dtype=m.float16) + m.tensor(1.0, dtype=m.float64),
     "float16", (2,), [2.5, 3.0]),
    ("int32_plus_zero_dim_int64",
     lambda m: m.tensor([1, 2], dtype=m.int32) + m.tensor(2, dtype=m.int64),
     "int32", (2,), [3, 4]),
    ("int8_plus_zero_dim_int64_wraps",
     lambda m: m.tensor([100], dtype=m.int8) + m.tensor(100),
     "int8", (1,), [-56]),
    ("uint8_plus_zero_dim_int8",
     lambda m: m.tensor([1], dtype=m.uint8) + m.tensor(-2, dtype=m.int8),
     "uint8", (1,), [255]),
    ("bool_plus_zero_dim_int8",
     lambda m: m.tensor([True]) + m.tensor(2, dtype=m.int8),
     "int8", (1,), [3]),
    ("zero_dim_float64_plus_zero_dim_int32",
     lambda m: m.tensor(1.5, dtype=m.float64) + m.tensor(2, dtype=m.int32),
     "float64", (), 3.5),
    ("zero_dim_int16_plus_int",
     lambda m: m.tensor(3, dtype=m.int16) + 2,
     "int16", (), 5),
    ("zero_dim_int16_plus_zero_dim_int64",
     lambda m: m.tensor(3, dtype=m.int16) + m.tensor(2),
     "int64", (), 5),
    ("zero_dim_float16_beats_wrapped_float",
     lambda m: m.tensor(1.0, dtype=m.float16) + 1.0,
     "float16", (), 2.0),
    ("dim_int_with_zero_dim_float16",
     lambda m: m.tensor([1], dtype=m.int32) + m.tensor(2.0, dtype=m.float16),
     "float16", (1,), [3.0]),
    ("int32_plus_float64_tensor",
     lambda m: m.tensor([1, 2], dtype=m.int32) + m.tensor([0.25, 0.1], dtype=m.float64),
     "float64", (2,), [1.25, 2.1]),
    ("uint8_plus_int8_is_int16",
     lambda m: m.tensor([200, 255, 0], dtype=m.uint8)
     + m.tensor([-100, 127, -128], dtype=m.int8),
     "int16", (3,), [100, 382, -128]),
    ("uint8_times_int8_is_int16",
     lambda m: m.tensor([200, 255], dtype=m.uint8) * m.tensor([100, -128], dtype=m.int8),
     "int16", (2,), [20000, -32640]),
    ("float16_plus_bfloat16_is_float32",
     lambda m: m.tensor([0.1, 65504.0], dtype=m.float16)
     + m.tensor([0.1, 1.0], dtype=m.bfloat16),
     "float32", (2,), [0.2000732421875, 65505.0]),
    # int64 -> float32 rounds once (2**60 + 2**36 + 1 -> 2**60 + 2**37); going
    # through double first would give 2**60
    ("int64_plus_float32_rounds_int",
     lambda m: m.tensor([2 ** 24 + 1, -(2 ** 60 + 2 ** 36 + 1)]) + m.tensor([0.0, 0.0]),
     "float32", (2,), [16777216.0, -1.1529216420458004e+18]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_promotion_examples(case):
    _, fn, dtype, shape, values = case
    assert _outcome(fn, ctorch) == ("tensor", dtype, shape, _key(values))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_promotion_examples_match_torch(case):
    torch = pytest.importorskip("torch")
    _, fn, dtype, shape, values = case
    want = _outcome(fn, torch)
    assert want == ("tensor", dtype, shape, _key(values))
    assert _outcome(fn, ctorch) == want


# --- default dtype float64 ----------------------------------------------------

@pytest.fixture
def float64_default():
    old = ctorch.get_default_dtype()
    ctorch.set_default_dtype(ctorch.float64)
    try:
        yield
    finally:
        ctorch.set_default_dtype(old)
    assert ctorch.get_default_dtype() == old


@pytest.fixture
def torch_float64_default():
    torch = pytest.importorskip("torch")
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield torch
    finally:
        torch.set_default_dtype(old)


DEFAULT_F64_CASES = [
    ("int_plus_float_scalar", lambda m: m.tensor([1, 2], dtype=m.int32) + 2.5,
     "float64", (2,), [3.5, 4.5]),
    ("float_scalar_plus_int", lambda m: 0.1 + m.tensor([1]),
     "float64", (1,), [1.1]),
    ("int_div_int", lambda m: m.tensor([7, 1]) / m.tensor([3, 3]),
     "float64", (2,), [2.3333333333333335, 0.3333333333333333]),
    ("int_div_python_int", lambda m: m.tensor([1], dtype=m.uint8) / 3,
     "float64", (1,), [0.3333333333333333]),
    ("bool_times_float", lambda m: m.tensor([True, False]) * 1.5,
     "float64", (2,), [1.5, 0.0]),
    ("float32_tensor_keeps_dtype", lambda m: m.tensor([1.0], dtype=m.float32) + 0.1,
     "float32", (1,), [1.100000023841858]),
    ("float16_tensor_keeps_dtype", lambda m: m.tensor([1.0], dtype=m.float16) + 0.1,
     "float16", (1,), [1.099609375]),
    ("zero_dim_float32_is_not_default",
     lambda m: m.tensor([1], dtype=m.int32) + m.tensor(1.5, dtype=m.float32),
     "float32", (1,), [2.5]),
    ("int_plus_int_stays_int", lambda m: m.tensor([1], dtype=m.int16) + 2,
     "int16", (1,), [3]),
]


@pytest.mark.parametrize("case", DEFAULT_F64_CASES, ids=[c[0] for c in DEFAULT_F64_CASES])
def test_default_dtype_float64(float64_default, case):
    _, fn, dtype, shape, values = case
    assert _outcome(fn, ctorch) == ("tensor", dtype, shape, _key(values))


def test_default_dtype_float64_result_type(float64_default):
    assert ctorch.result_type(2, 3.0) == ctorch.float64
    assert ctorch.result_type(ctorch.tensor([1]), 1.5) == ctorch.float64
    assert ctorch.result_type(ctorch.tensor([1], dtype=ctorch.float16), 1.5) == ctorch.float16
    assert ctorch.result_type(ctorch.tensor(1, dtype=ctorch.int8), 1.5) == ctorch.float64


@pytest.mark.parametrize("case", DEFAULT_F64_CASES, ids=[c[0] for c in DEFAULT_F64_CASES])
def test_default_dtype_float64_matches_torch(float64_default, torch_float64_default, case):
    torch = torch_float64_default
    _, fn, dtype, shape, values = case
    want = _outcome(fn, torch)
    assert want == ("tensor", dtype, shape, _key(values))
    assert _outcome(fn, ctorch) == want


def test_default_dtype_is_restored():
    # runs after the float64 tests above: the fixture put float32 back
    assert ctorch.get_default_dtype() == ctorch.float32
    assert (ctorch.tensor([1]) + 0.5).dtype == ctorch.float32
