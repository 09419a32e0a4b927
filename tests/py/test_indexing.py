"""Advanced indexing and the indexing ops, against results recorded from
PyTorch 1.13 (data/indexing_expected.py) and, with torch installed, against
torch directly."""
import gc
import importlib.util
import os
import random

import pytest

import ctorch

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "_indexing_expected", os.path.join(HERE, "data", "indexing_expected.py"))
_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_data)


def outcome(mod, expr):
    g = {"M": mod}
    exec(_data.SETUP, g)
    try:
        r = eval(expr, g)
    except Exception as e:      # noqa: BLE001 - the error is the result
        return (type(e).__name__, str(e))
    if isinstance(r, tuple):
        return ("tuple", [(tuple(t.shape), t.tolist()) for t in r])
    return ("tensor", (repr(r.dtype), tuple(r.shape), r.tolist()))


def set_outcome(mod, stmt):
    g = {"M": mod}
    exec(_data.SETUP, g)
    try:
        exec(stmt, g)
    except Exception as e:      # noqa: BLE001
        return (type(e).__name__, str(e))
    return ("ok", g["x"].tolist(), g["y"].tolist(), g["f"].tolist())


@pytest.mark.parametrize("expr, expected", _data.CASES, ids=[c[0] for c in _data.CASES])
def test_recorded(expr, expected):
    got = outcome(ctorch, expr)
    if expected[0] in ("tensor", "tuple"):
        assert got == expected
    else:
        assert got[0] == expected[0]
        # torch appends its build path to some messages
        assert expected[1].startswith(got[1]), (got, expected)


@pytest.mark.parametrize("stmt, expected", _data.SETS, ids=[c[0] for c in _data.SETS])
def test_recorded_setitem(stmt, expected):
    got = set_outcome(ctorch, stmt)
    if expected[0] == "ok":
        assert got == expected
    else:
        assert got[0] == expected[0] and expected[1].startswith(got[1]), (got, expected)


def test_views_stay_views_and_copies_are_copies():
    x = ctorch.arange(12).reshape(3, 4)
    assert x[1:, ::2]._base is x._base     # views record the root, as torch
    adv = x[[0, 2]]
    adv[0, 0] = 100
    assert x[0, 0].item() == 0          # advanced indexing copies


@pytest.mark.parametrize("seed", range(3))
def test_random_vs_torch(torch_ref, seed):
    torch = torch_ref
    rng = random.Random(seed)
    for _ in range(60):
        shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
        n = 1
        for s in shape:
            n *= s
        items = []
        for d, s in enumerate(shape):
            kind = rng.choice(["slice", "list", "int", "full", "mask"])
            if kind == "slice":
                items.append("%d:" % rng.randint(0, s - 1))
            elif kind == "list":
                items.append(repr([rng.randint(-s, s - 1) for _ in range(rng.randint(1, 3))]))
            elif kind == "int":
                items.append(str(rng.randint(-s, s - 1)))
            elif kind == "mask":
                items.append("M.tensor(%r)" % [rng.random() < 0.5 for _ in range(s)])
            else:
                items.append(":")
        expr = "M.arange(%d).reshape(%s)[%s]" % (n, ", ".join(map(str, shape)), ", ".join(items))
        g_c, g_t = {"M": ctorch}, {"M": torch}
        try:
            want = eval(expr, g_t)
        except IndexError:
            with pytest.raises(IndexError):
                eval(expr, g_c)
            continue
        got = eval(expr, g_c)
        assert (tuple(got.shape), got.tolist()) == (tuple(want.shape), want.tolist()), expr


def test_no_leaks():
    gc.collect()
    before = ctorch._C._live_counts()[:2]
    for _ in range(20):
        x = ctorch.arange(24).reshape(2, 3, 4)
        x[[0, 1], :, [1, 3]]
        x[x > 5] = 0
        x.gather(2, ctorch.zeros(2, 3, 1, dtype=ctorch.int64))
        ctorch.nonzero(x, as_tuple=True)
    del x
    gc.collect()
    assert ctorch._C._live_counts()[:2] == before
