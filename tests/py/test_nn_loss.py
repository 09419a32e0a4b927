"""The losses of ctorch.nn: outputs, gradients and node names recorded from
PyTorch 1.13 (data/nn_expected.py), gradcheck / gradgradcheck in float64,
torch's error messages, the loss modules, and, where torch is installed,
random shapes, reductions, weights, ignore_index and label smoothing side
by side with torch in float32 and float64."""
import gc
import math
import os
import platform
import random
import sys
import warnings

import pytest

import ctorch
import ctorch.nn as nn
import ctorch.nn.functional as F
from ctorch.autograd import gradcheck, gradgradcheck

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "data"))

import nn_cases as nc  # noqa: E402
import nn_expected as ne  # noqa: E402

REDS = nc.REDUCTIONS

# kl_div's reduction='mean' warns (as in torch) in the gradchecks
pytestmark = pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")


def close(a, b, rel, abs_=1e-12):
    assert len(a) == len(b), (a, b)
    for u, v in zip(a, b):
        if math.isnan(v):
            assert math.isnan(u), (a, b)
        else:
            assert u == pytest.approx(v, rel=rel, abs=abs_), (a, b)


# --- recorded from torch -------------------------------------------------------

@pytest.mark.parametrize("red", REDS)
@pytest.mark.parametrize("case", nc.LOSS_CASES, ids=[c[0] for c in nc.LOSS_CASES])
def test_recorded_float64(case, red):
    name, out, gx, gt = nc.run_loss(ctorch, case, red)
    rname, rout, rgx, rgt = ne.LOSS[(case[0], red)]
    assert name == rname
    close(out, rout, 1e-10)
    close(gx, rgx, 1e-9, 1e-12)
    if rgt is not None:
        close(gt, rgt, 1e-9, 1e-12)


@pytest.mark.parametrize("red", REDS)
@pytest.mark.parametrize("case", nc.LOSS_CASES, ids=[c[0] for c in nc.LOSS_CASES])
def test_recorded_float32(case, red):
    """The float32 kernels against the float64 record."""
    name, out, gx, gt = nc.run_loss(ctorch, case, red, dtype="float32")
    rname, rout, rgx, rgt = ne.LOSS[(case[0], red)]
    assert name == rname
    close(out, rout, 1e-5, 1e-6)
    close(gx, rgx, 1e-4, 1e-6)
    if rgt is not None:
        close(gt, rgt, 1e-4, 1e-6)


NAMES = [
    ("F.mse_loss(x, t)", "MseLossBackward0"),
    ("F.l1_loss(x, t)", "MeanBackward0"),
    ("F.l1_loss(x, t, reduction='sum')", "SumBackward0"),
    ("F.l1_loss(x, t, reduction='none')", "AbsBackward0"),
    ("F.smooth_l1_loss(x, t)", "SmoothL1LossBackward0"),
    ("F.huber_loss(x, t)", "HuberLossBackward0"),
    ("F.binary_cross_entropy(x.sigmoid(), t)", "BinaryCrossEntropyBackward0"),
    ("F.binary_cross_entropy_with_logits(x, t)", "BinaryCrossEntropyWithLogitsBackward0"),
    ("F.kl_div(x, t, reduction='none')", "SubBackward0"),
    ("F.kl_div(x, t, reduction='batchmean')", "DivBackward0"),
    ("F.kl_div(x, t, reduction='none', log_target=True)", "MulBackward0"),
    ("F.nll_loss(x, y)", "NllLossBackward0"),
    ("F.nll_loss(x4, y4)", "NllLoss2DBackward0"),
    ("F.nll_loss(x3, y3, reduction='none')", "ViewBackward0"),
    ("F.nll_loss(x3, y3)", "NllLoss2DBackward0"),
    ("F.cross_entropy(x, y)", "NllLossBackward0"),
    ("F.cross_entropy(x, y, label_smoothing=0.1)", "AddBackward0"),
    ("F.cross_entropy(x, t)", "DivBackward1"),
    ("F.cross_entropy(x, t, reduction='sum')", "NegBackward0"),
    ("F.cross_entropy(x, t, reduction='none')", "NegBackward0"),
]


@pytest.mark.parametrize("expr,name", NAMES)
def test_node_names(expr, name):
    env = _env(ctorch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = eval(expr, env)
    assert type(r.grad_fn).__name__ == name


def _env(m):
    g = m.Generator().manual_seed(3)
    x = m.randn(3, 4, generator=g, dtype=m.float64).requires_grad_()
    return {
        "F": m.nn.functional, "x": x, "t": m.rand(3, 4, generator=g, dtype=m.float64),
        "y": m.tensor([1, 0, 3]), "x3": m.randn(2, 3, 4, generator=g).requires_grad_(),
        "y3": m.tensor([[0, 1, 2, 1], [2, 2, 0, 1]]),
        "x4": m.randn(2, 3, 2, 2, generator=g).requires_grad_(),
        "y4": m.tensor([[[0, 1], [2, 1]], [[2, 2], [0, 1]]]),
    }


def test_next_functions():
    x = ctorch.randn(3, 4, requires_grad=True)
    t = ctorch.rand(3, 4, requires_grad=True)
    assert len(F.mse_loss(x, t).grad_fn.next_functions) == 2
    assert len(F.nll_loss(x, ctorch.tensor([0, 1, 2])).grad_fn.next_functions) == 1
    ce = F.cross_entropy(x, ctorch.tensor([0, 1, 2]))
    assert type(ce.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"


# --- gradcheck ----------------------------------------------------------------

def _d(v, rg=True):
    return ctorch.tensor(v, dtype=ctorch.float64, requires_grad=rg)


GRADCHECK = [
    ("mse", lambda x, t, r: F.mse_loss(x, t, reduction=r), nc.X, nc.T, True),
    ("smooth_l1", lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5),
     nc.X, nc.T, True),
    ("huber", lambda x, t, r: F.huber_loss(x, t, reduction=r, delta=0.7), nc.X, nc.T, True),
    ("bce", lambda x, t, r: F.binary_cross_entropy(x, t, reduction=r), nc.P, nc.T, True),
    ("bce_weight", lambda x, t, r: F.binary_cross_entropy(
        x, t, weight=_d(nc.W, False), reduction=r), nc.P, nc.T, True),
    ("bce_logits", lambda x, t, r: F.binary_cross_entropy_with_logits(x, t, reduction=r),
     nc.X, nc.T, True),
    ("bce_logits_pw", lambda x, t, r: F.binary_cross_entropy_with_logits(
        x, t, weight=_d(nc.W, False), pos_weight=_d(nc.PW, False), reduction=r),
     nc.X, nc.T, True),
    ("kl_div", lambda x, t, r: F.kl_div(x, t, reduction=r), nc.X, nc.T, True),
    ("kl_div_log", lambda x, t, r: F.kl_div(x, t, reduction=r, log_target=True),
     nc.X, nc.X, True),
    ("ce_probs", lambda x, t, r: F.cross_entropy(x, t, reduction=r, label_smoothing=0.2),
     nc.X, nc.T, True),
    ("nll", lambda x, t, r: F.nll_loss(x, ctorch.tensor(nc.Y), weight=_d(nc.W, False),
                                       reduction=r), nc.X, None, False),
    ("ce", lambda x, t, r: F.cross_entropy(x, ctorch.tensor(nc.Y), ignore_index=0,
                                           reduction=r, label_smoothing=0.1),
     nc.X, None, False),
    ("nll_4d", lambda x, t, r: F.nll_loss(x, ctorch.tensor(nc.Y4), reduction=r),
     nc.X4, None, False),
    ("ce_3d", lambda x, t, r: F.cross_entropy(x, ctorch.tensor(nc.Y3), reduction=r),
     nc.X3, None, False),
]


@pytest.mark.parametrize("red", REDS)
@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(case, red):
    _, fn, xv, tv, tgrad = case
    x = _d(xv)
    if tv is None:
        assert gradcheck(lambda a: fn(a, None, red), (x,))
    else:
        t = _d(tv, tgrad)
        assert gradcheck(lambda a, b: fn(a, b, red), (x, t))


@pytest.mark.parametrize("red", ("none", "mean"))
@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradgradcheck(case, red):
    """create_graph runs the ctag_ form of each backward (Note [Fused and
    graph backwards]); its derivative must match too."""
    _, fn, xv, tv, tgrad = case
    x = _d(xv)
    if tv is None:
        assert gradgradcheck(lambda a: fn(a, None, red), (x,))
    else:
        t = _d(tv, tgrad)
        assert gradgradcheck(lambda a, b: fn(a, b, red), (x, t))


def test_graph_backward_matches_fused():
    """The two backward forms of each node give the same first gradient."""
    for case in nc.LOSS_CASES:
        for red in REDS:
            x = nc.make(ctorch, case[1], True)
            t = nc.make(ctorch, case[2], case[3])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = case[4](F, ctorch, x, t, red)
            s = nc.weighted_sum(ctorch, out)
            g1 = ctorch.autograd.grad(s, [x], retain_graph=True)[0]
            g2 = ctorch.autograd.grad(s, [x], create_graph=True)[0]
            assert ctorch.allclose(g1, g2, rtol=1e-12, atol=1e-14), case[0]


# --- errors (torch 1.13's messages) -----------------------------------------

ERRORS = [
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0., 1, 2])),
     "RuntimeError", "expected scalar type Long but found Float"),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1, 2], dtype=m.int32)),
     "RuntimeError", "expected scalar type Long but found Int"),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1])),
     "ValueError", "Expected input batch_size (3) to match target batch_size (2)."),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1, 7])),
     "IndexError", "Target 7 is out of bounds."),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1, -1])),
     "IndexError", "Target -1 is out of bounds."),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([[0, 1, 2]])),
     "ValueError", "Expected input batch_size (3) to match target batch_size (1)."),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1, 2]),
                                        weight=m.ones(3)),
     "RuntimeError", "weight tensor should be defined either for all 4 classes or no "
     "classes but got weight tensor of shape: [3]"),
    (lambda m: m.nn.functional.nll_loss(m.randn(()), m.tensor(1)),
     "ValueError", "Expected 1 or more dimensions (got 0)"),
    (lambda m: m.nn.functional.nll_loss(m.randn(2, 3, 4), m.tensor([[0, 1, 2], [0, 0, 0]])),
     "RuntimeError", "Expected target size [2, 4], got [2, 3]"),
    (lambda m: m.nn.functional.nll_loss(m.randn(2, 3, 4, 5), m.zeros(2, 4, 4, dtype=m.long)),
     "RuntimeError", "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 4]"),
    (lambda m: m.nn.functional.nll_loss(m.randn(2, 3, 4, 5), m.zeros(2, 4, dtype=m.long)),
     "RuntimeError", "only batches of spatial targets supported (3D tensors) but got "
     "targets of dimension: 2"),
    (lambda m: m.nn.functional.nll_loss(m.randn(2, 3, 4, 5), m.zeros(2, 4, 5, dtype=m.uint8)),
     "RuntimeError", "expected scalar type Long but found Byte"),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1, 2]), reduction='foo'),
     "ValueError", "foo is not a valid value for reduction"),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4).double(), m.tensor([1, 1, 1]),
                                        weight=m.ones(4)),
     "RuntimeError", "expected scalar type Double but found Float"),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4).int(), m.tensor([1, 1, 1])),
     "RuntimeError", "\"nll_loss_out_frame\" not implemented for 'Int'"),
    (lambda m: m.nn.functional.nll_loss(m.randn(2, 3, 4, 5).half(),
                                        m.zeros(2, 4, 5, dtype=m.long)),
     "RuntimeError", "\"nll_loss2d_forward_out_frame\" not implemented for 'Half'"),
    (lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1, 2]),
                                        weight=m.ones(4, requires_grad=True)),
     "RuntimeError", "The function 'nll_loss_forward' is not differentiable with respect to "
     "argument 'weight'. This input cannot have requires_grad True."),
    (lambda m: m.nn.functional.cross_entropy(m.randn(3, 4), m.rand(3, 4).long()),
     "RuntimeError", "Expected floating point type for target with class probabilities, "
     "got Long"),
    (lambda m: m.nn.functional.cross_entropy(m.randn(3, 4), m.rand(3, 4), ignore_index=1),
     "RuntimeError", "ignore_index is not supported for floating point target"),
    (lambda m: m.nn.functional.cross_entropy(m.randn(3, 4), m.rand(3, 4), weight=m.ones(3)),
     "RuntimeError", "cross_entropy: weight tensor should be defined either for all 4 "
     "classes or no classes but got weight tensor of shape: [3]"),
    (lambda m: m.nn.functional.cross_entropy(m.randn(3, 4), m.tensor([0, 1, 2]),
                                             label_smoothing=1.5),
     "RuntimeError", "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    (lambda m: m.nn.functional.cross_entropy(m.randn(3, 4), m.tensor([0., 1, 2])),
     "RuntimeError", "expected scalar type Long but found Float"),
    (lambda m: m.nn.functional.binary_cross_entropy(m.rand(3), m.rand(4)),
     "ValueError", "Using a target size (torch.Size([4])) that is different to the input "
     "size (torch.Size([3])) is deprecated. Please ensure they have the same size."),
    (lambda m: m.nn.functional.binary_cross_entropy(m.tensor([0.5, 2.0]), m.rand(2)),
     "RuntimeError", "all elements of input should be between 0 and 1"),
    (lambda m: m.nn.functional.binary_cross_entropy(m.tensor([0.5, float('nan')]), m.rand(2)),
     "RuntimeError", "all elements of input should be between 0 and 1"),
    (lambda m: m.nn.functional.binary_cross_entropy(m.rand(3), m.rand(3).double()),
     "RuntimeError", "Found dtype Double but expected Float"),
    (lambda m: m.nn.functional.binary_cross_entropy(m.rand(3), m.ones(3).long()),
     "RuntimeError", "Found dtype Long but expected Float"),
    (lambda m: m.nn.functional.binary_cross_entropy(m.rand(3).half(), m.rand(3).half()),
     "RuntimeError", "\"binary_cross_entropy\" not implemented for 'Half'"),
    (lambda m: m.nn.functional.binary_cross_entropy(m.rand(3), m.rand(3),
                                                    weight=m.rand(3, requires_grad=True)),
     "RuntimeError", "The function 'binary_cross_entropy' is not differentiable with respect "
     "to argument 'weight'. This input cannot have requires_grad True."),
    (lambda m: m.nn.functional.binary_cross_entropy_with_logits(m.rand(3), m.rand(4)),
     "ValueError", "Target size (torch.Size([4])) must be the same as input size "
     "(torch.Size([3]))"),
    (lambda m: m.nn.functional.binary_cross_entropy_with_logits(m.rand(3), m.ones(3).long()),
     "RuntimeError", "result type Float can't be cast to the desired output type Long"),
    (lambda m: m.nn.functional.mse_loss(m.rand(3), m.rand(4)),
     "RuntimeError", "The size of tensor a (3) must match the size of tensor b (4) at "
     "non-singleton dimension 0"),
    (lambda m: m.nn.functional.mse_loss(m.rand(3).long(), m.rand(3).long()),
     "RuntimeError", "\"mse_cpu\" not implemented for 'Long'"),
    (lambda m: m.nn.functional.smooth_l1_loss(m.rand(3).long(), m.rand(3).long()),
     "RuntimeError", "\"smooth_l1_cpu\" not implemented for 'Long'"),
    (lambda m: m.nn.functional.huber_loss(m.rand(3).long(), m.rand(3).long()),
     "RuntimeError", "\"huber_cpu\" not implemented for 'Long'"),
    (lambda m: m.nn.functional.smooth_l1_loss(m.rand(3), m.rand(3), beta=-1),
     "RuntimeError", "smooth_l1_loss does not support negative values for beta."),
    (lambda m: m.nn.functional.huber_loss(m.rand(3), m.rand(3), delta=0),
     "RuntimeError", "huber_loss does not support non-positive values for delta."),
    (lambda m: m.nn.functional.mse_loss(m.rand(3), m.rand(3), reduction='bad'),
     "ValueError", "bad is not a valid value for reduction"),
    (lambda m: m.kl_div(m.rand(3).long(), m.rand(3)),
     "RuntimeError", "kl_div: Integral inputs not supported."),
]


def _error(fn, m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(m)
        except Exception as e:      # noqa: BLE001 - the exception is the result
            return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    fn, kind, msg = ERRORS[i]
    assert _error(fn, ctorch) == (kind, msg)


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_vs_torch(i, torch_ref):
    fn, kind, msg = ERRORS[i]
    assert _error(fn, torch_ref) == (kind, msg)


def test_broadcast_warning():
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(ctorch.rand(3), ctorch.rand(2, 3))


def test_legacy_reduction_warning():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        r = F.mse_loss(ctorch.ones(2), ctorch.zeros(2), size_average=False)
    assert r.item() == 2


# --- edge cases ------------------------------------------------------------

def test_empty_and_ignored():
    nan = float("nan")
    assert math.isnan(F.mse_loss(ctorch.zeros(0, 4), ctorch.zeros(0, 4)).item())
    assert F.mse_loss(ctorch.zeros(0, 4), ctorch.zeros(0, 4), reduction="sum").item() == 0
    assert math.isnan(F.nll_loss(ctorch.randn(0, 4), ctorch.zeros(0, dtype=ctorch.long)).item())
    x = ctorch.randn(3, 4, requires_grad=True)
    r = F.nll_loss(x, ctorch.tensor([1, 1, 1]), ignore_index=1)
    assert math.isnan(r.item())
    r.backward()
    assert x.grad.abs().sum().item() == 0
    r = F.cross_entropy(ctorch.randn(0, 4), ctorch.rand(0, 4))
    assert math.isnan(r.item()) or r.item() != r.item() or nan != nan


def test_bce_log_clamp():
    # log(0) is clamped at -100, as in torch
    r = F.binary_cross_entropy(ctorch.tensor([0., 1.]), ctorch.tensor([1., 0.]))
    assert r.item() == 100


def test_large_inputs_threads():
    """Inputs large enough to split across threads sum as one pass would."""
    g = ctorch.Generator().manual_seed(0)
    x = ctorch.randn(300000, generator=g, dtype=ctorch.float64)
    t = ctorch.randn(300000, generator=g, dtype=ctorch.float64)
    ref = ((x - t) ** 2).sum().item()
    assert F.mse_loss(x, t, reduction="sum").item() == pytest.approx(ref, rel=1e-12)
    assert F.mse_loss(x, t).item() == pytest.approx(ref / 300000, rel=1e-12)
    p = ctorch.rand(300000, generator=g, dtype=ctorch.float64) * 0.98 + 0.01
    y = ctorch.rand(300000, generator=g, dtype=ctorch.float64)
    ref = -(y * p.log() + (1 - y) * (1 - p).log()).mean().item()
    assert F.binary_cross_entropy(p, y).item() == pytest.approx(ref, rel=1e-12)


def test_no_leaks():
    def round_trip():
        for case in nc.LOSS_CASES:
            for red in REDS:
                nc.run_loss(ctorch, case, red)
                x = nc.make(ctorch, case[1], True)
                t = nc.make(ctorch, case[2], case[3])
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = case[4](F, ctorch, x, t, red)
                s = nc.weighted_sum(ctorch, out)
                g = ctorch.autograd.grad(s, [x], create_graph=True)[0]
                if g.requires_grad:
                    g.sum().backward()
        gc.collect()
    round_trip()
    before = ctorch._C._live_counts()
    round_trip()
    round_trip()
    after = ctorch._C._live_counts()
    assert after[0] <= before[0] and after[1] <= before[1]


# --- modules --------------------------------------------------------------------

def test_module_reprs_and_state():
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    assert repr(nn.MSELoss(reduction="sum")) == "MSELoss()"
    w = ctorch.tensor([1., 2., 3.])
    ce = nn.CrossEntropyLoss(weight=w, ignore_index=2, label_smoothing=0.1)
    assert list(ce.state_dict().keys()) == ["weight"]
    assert ce.ignore_index == 2 and ce.label_smoothing == 0.1 and ce.reduction == "mean"
    bce = nn.BCEWithLogitsLoss(pos_weight=w)
    assert list(bce.state_dict().keys()) == ["pos_weight"]
    assert list(nn.BCEWithLogitsLoss().state_dict().keys()) == []
    assert nn.NLLLoss().weight is None
    assert nn.SmoothL1Loss(beta=0.3).beta == 0.3
    assert nn.HuberLoss(delta=2.0).delta == 2.0
    assert nn.KLDivLoss(log_target=True).log_target


@pytest.mark.parametrize("sa,rd,expect", [(None, None, "mean"), (False, None, "sum"),
                                          (True, False, "none"), (False, False, "none"),
                                          (None, True, "mean")])
def test_module_legacy_args(sa, rd, expect):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = nn.MSELoss(size_average=sa, reduce=rd)
    assert m.reduction == expect
    assert (len(w) > 0) == (sa is not None or rd is not None)


def test_modules_forward():
    x = ctorch.tensor(nc.X, dtype=ctorch.float64)
    t = ctorch.tensor(nc.T, dtype=ctorch.float64)
    y = ctorch.tensor(nc.Y)
    w = ctorch.tensor(nc.W, dtype=ctorch.float64)
    pairs = [
        (nn.MSELoss(), F.mse_loss(x, t)), (nn.L1Loss(reduction="sum"), F.l1_loss(x, t, reduction="sum")),
        (nn.SmoothL1Loss(beta=0.5), F.smooth_l1_loss(x, t, beta=0.5)),
        (nn.HuberLoss(delta=0.7), F.huber_loss(x, t, delta=0.7)),
        (nn.BCEWithLogitsLoss(weight=w, pos_weight=w), F.binary_cross_entropy_with_logits(
            x, t, weight=w, pos_weight=w)),
        (nn.BCELoss(weight=w), F.binary_cross_entropy(x.sigmoid(), t, weight=w)),
    ]
    for mod, ref in pairs:
        arg = x.sigmoid() if isinstance(mod, nn.BCELoss) else x
        assert ctorch.equal(mod(arg, t), ref)
    assert ctorch.equal(nn.CrossEntropyLoss(weight=w, ignore_index=0, label_smoothing=0.2)(x, y),
                        F.cross_entropy(x, y, weight=w, ignore_index=0, label_smoothing=0.2))
    assert ctorch.equal(nn.NLLLoss(weight=w)(x, y), F.nll_loss(x, y, weight=w))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ctorch.equal(nn.KLDivLoss(reduction="batchmean")(x, t),
                            F.kl_div(x, t, reduction="batchmean"))


# --- against torch over random cases --------------------------------------------

def _rand_case(rng):
    """A random loss call: (expression, shapes and values for the env)."""
    kind = rng.choice(["pointwise", "bce", "nll", "ce", "ce_probs", "kl"])
    ndim = rng.choice([1, 2, 2, 3, 4])
    n = rng.randint(1, 5)
    c = rng.randint(2, 5)
    shape = [n, c] + [rng.randint(1, 3) for _ in range(max(0, ndim - 2))]
    if ndim == 1:
        shape = [c]
    red = rng.choice(REDS)
    return kind, shape, red


def _run_random(m, seed, dtype):
    rng = random.Random(seed)
    kind, shape, red = _rand_case(rng)
    vals = [rng.uniform(-2, 2) for _ in range(math.prod(shape))]
    pvals = [rng.uniform(0.02, 0.98) for _ in range(math.prod(shape))]
    dt = getattr(m, dtype)
    x = m.tensor(vals, dtype=dt).reshape(shape).requires_grad_()
    t = m.tensor(pvals, dtype=dt).reshape(shape)
    c = shape[1] if len(shape) > 1 else shape[0]
    cls_shape = [shape[0]] + shape[2:] if len(shape) > 1 else []
    cls = m.tensor([rng.randrange(c) for _ in range(math.prod(cls_shape))],
                   dtype=m.int64).reshape(cls_shape)
    weight = m.tensor([rng.uniform(0.1, 2) for _ in range(c)], dtype=dt) \
        if rng.random() < 0.5 else None
    ignore = rng.choice([-100, 0, c - 1])
    ls = rng.choice([0.0, 0.0, 0.1, 0.35])
    F_ = m.nn.functional
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "pointwise":
            op = rng.choice(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
            out = getattr(F_, op)(x, t, reduction=red)
        elif kind == "bce":
            if rng.random() < 0.5:
                out = F_.binary_cross_entropy(x.sigmoid(), t, reduction=red)
            else:
                pw = m.tensor([rng.uniform(0.5, 2)], dtype=dt)
                out = F_.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction=red)
        elif kind == "nll":
            out = F_.nll_loss(x, cls, weight=weight, ignore_index=ignore, reduction=red)
        elif kind == "ce":
            out = F_.cross_entropy(x, cls, weight=weight, ignore_index=ignore, reduction=red,
                                   label_smoothing=ls)
        elif kind == "ce_probs":
            out = F_.cross_entropy(x, t, weight=weight, reduction=red, label_smoothing=ls)
        else:
            out = F_.kl_div(x, t, reduction=red)
    nc.weighted_sum(m, out).backward()
    return type(out.grad_fn).__name__, nc.flat(out), nc.flat(x.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(40))
def test_random_vs_torch(seed, dtype, torch_ref):
    c = _run_random(ctorch, seed, dtype)
    t = _run_random(torch_ref, seed, dtype)
    assert c[0] == t[0]
    rel, ab = (2e-5, 2e-6) if dtype == "float32" else (1e-10, 1e-12)
    close(c[1], t[1], rel, ab)
    close(c[2], t[2], rel * 10, ab)


# --- bit for bit with torch (Note [NLL sums] in aten/cpu/loss.c) --------------------

def test_nll_cascade_sum_values():
    """torch sums the losses in float32 with a cascade of partial sums; a
    double sum rounds differently (169.307602, 2.64543128)."""
    ctorch.manual_seed(0)
    x = F.log_softmax(ctorch.randn(64, 10), 1)
    y = ctorch.randint(0, 10, (64,))
    assert F.nll_loss(x, y, reduction="sum").item() == 169.3076171875
    assert F.nll_loss(x, y).item() == 2.6454315185546875
    w = ctorch.linspace(0.5, 2, 10)
    assert F.nll_loss(x, y, weight=w).item() == 2.604212760925293
    assert F.nll_loss(x, y, weight=w, ignore_index=3, reduction="sum").item() == \
        183.1903533935547


# (function, input shape, weighted, ignore_index, reduction, dtype): batches
# past one and two levels of the cascade (16, 256, 4096 elements), a
# sample without a batch dim and the 2-D (N, C, H, W) form
BITS_SHAPES = [(64, 10), (1000, 7), (5000, 3), (7,), (3, 5, 4, 6), (2, 3, 40, 50)]
BITS_VARIANTS = [(False, -100, "mean"), (True, -100, "sum"), (True, 1, "mean"),
                 (False, 1, "none"), (True, 1, "none"), (False, 1, "sum")]
BITS_CASES = [(fn, shape, w, ig, red, "float32") for fn in ("nll_loss", "cross_entropy")
              for shape in BITS_SHAPES for (w, ig, red) in BITS_VARIANTS]
BITS_CASES += [(fn, shape, True, 1, red, "float64")
               for fn in ("nll_loss", "cross_entropy")
               for shape in [(1000, 7), (3, 5, 4, 6)] for red in REDS]


def _bits_run(m, case):
    """(loss, input gradient) from torch's generator: the input 2 randn (a
    log_softmax of it for nll_loss), targets randint, weights rand + 0.5,
    the backward of a randn gradient."""
    fn, shape, weighted, ignore, red, dtype = case
    dt = getattr(m, dtype)
    m.manual_seed(len(shape) * 1000 + shape[0])
    x = (m.randn(*shape, dtype=dt) * 2).requires_grad_()
    c = shape[1] if len(shape) > 1 else shape[0]
    t = m.randint(0, c, (shape[0],) + tuple(shape[2:]) if len(shape) > 1 else ())
    w = m.rand(c, dtype=dt) + 0.5 if weighted else None
    inp = m.log_softmax(x, 1 if len(shape) > 1 else 0) if fn == "nll_loss" else x
    out = getattr(m.nn.functional, fn)(inp, t, weight=w, ignore_index=ignore,
                                       reduction=red)
    out.backward(m.randn(tuple(out.shape), dtype=dt))
    return out.detach(), x.grad


def _bits_key(case):
    fn, shape, w, ig, red, dtype = case
    return "%s %s%s ignore=%d %s %s" % (fn, "x".join(map(str, shape)),
                                        " weight" if w else "", ig, red, dtype)


def _bits_digest(out, gx):
    import hashlib
    return hashlib.sha256(out.numpy().tobytes() + gx.numpy().tobytes()).hexdigest()[:16]


# recorded from torch 1.13: python tests/py/test_nn_loss.py --record-bits
BITS_RECORDED = {
    'nll_loss 64x10 ignore=-100 mean float32': 'eebd828c42213bbe',
    'nll_loss 64x10 weight ignore=-100 sum float32': '6d7d9dc3c991dd82',
    'nll_loss 64x10 weight ignore=1 mean float32': '9bf9cb25421c49db',
    'nll_loss 64x10 ignore=1 none float32': '62d27ad0eb8a496b',
    'nll_loss 64x10 weight ignore=1 none float32': '3f1413a6f36da884',
    'nll_loss 64x10 ignore=1 sum float32': '68a10152ed71ef5b',
    'nll_loss 1000x7 ignore=-100 mean float32': '9db52b3fc1ebc04f',
    'nll_loss 1000x7 weight ignore=-100 sum float32': '54852b776cd6ec92',
    'nll_loss 1000x7 weight ignore=1 mean float32': '1f9dd1d799ab481c',
    'nll_loss 1000x7 ignore=1 none float32': 'c147ea33e6a2f709',
    'nll_loss 1000x7 weight ignore=1 none float32': 'ffead9f4b9acd392',
    'nll_loss 1000x7 ignore=1 sum float32': '5a54888c0b1947fc',
    'nll_loss 5000x3 ignore=-100 mean float32': 'f2073a9013d2761e',
    'nll_loss 5000x3 weight ignore=-100 sum float32': '1c43a06813d01ff0',
    'nll_loss 5000x3 weight ignore=1 mean float32': '97a5c4554f320b33',
    'nll_loss 5000x3 ignore=1 none float32': '89f6d9f987204d2e',
    'nll_loss 5000x3 weight ignore=1 none float32': '8f25ce883db7fd7a',
    'nll_loss 5000x3 ignore=1 sum float32': 'a2a132639130b41b',
    'nll_loss 7 ignore=-100 mean float32': '75c5f17143144b9f',
    'nll_loss 7 weight ignore=-100 sum float32': '3ece53e1560405fe',
    'nll_loss 7 weight ignore=1 mean float32': '75c5f17143144b9f',
    'nll_loss 7 ignore=1 none float32': '75c5f17143144b9f',
    'nll_loss 7 weight ignore=1 none float32': '3ece53e1560405fe',
    'nll_loss 7 ignore=1 sum float32': '75c5f17143144b9f',
    'nll_loss 3x5x4x6 ignore=-100 mean float32': '4550816192edc3ea',
    'nll_loss 3x5x4x6 weight ignore=-100 sum float32': 'abe53aa03fba52c0',
    'nll_loss 3x5x4x6 weight ignore=1 mean float32': 'eb83fbff12081498',
    'nll_loss 3x5x4x6 ignore=1 none float32': 'e7a25a9fed00688b',
    'nll_loss 3x5x4x6 weight ignore=1 none float32': 'aa78319b014b8d2f',
    'nll_loss 3x5x4x6 ignore=1 sum float32': '282cfdad98b3e364',
    'nll_loss 2x3x40x50 ignore=-100 mean float32': '60897e538c28c85d',
    'nll_loss 2x3x40x50 weight ignore=-100 sum float32': '193cb8b6b04482f1',
    'nll_loss 2x3x40x50 weight ignore=1 mean float32': '49dd8fb1e2e66c2c',
    'nll_loss 2x3x40x50 ignore=1 none float32': '4b1379a5d7466190',
    'nll_loss 2x3x40x50 weight ignore=1 none float32': '42ac2ece849677a9',
    'nll_loss 2x3x40x50 ignore=1 sum float32': '0a53a13d30cfa130',
    'cross_entropy 64x10 ignore=-100 mean float32': 'eebd828c42213bbe',
    'cross_entropy 64x10 weight ignore=-100 sum float32': '6d7d9dc3c991dd82',
    'cross_entropy 64x10 weight ignore=1 mean float32': '9bf9cb25421c49db',
    'cross_entropy 64x10 ignore=1 none float32': '62d27ad0eb8a496b',
    'cross_entropy 64x10 weight ignore=1 none float32': '3f1413a6f36da884',
    'cross_entropy 64x10 ignore=1 sum float32': '68a10152ed71ef5b',
    'cross_entropy 1000x7 ignore=-100 mean float32': '9db52b3fc1ebc04f',
    'cross_entropy 1000x7 weight ignore=-100 sum float32': '54852b776cd6ec92',
    'cross_entropy 1000x7 weight ignore=1 mean float32': '1f9dd1d799ab481c',
    'cross_entropy 1000x7 ignore=1 none float32': 'c147ea33e6a2f709',
    'cross_entropy 1000x7 weight ignore=1 none float32': 'ffead9f4b9acd392',
    'cross_entropy 1000x7 ignore=1 sum float32': '5a54888c0b1947fc',
    'cross_entropy 5000x3 ignore=-100 mean float32': 'f2073a9013d2761e',
    'cross_entropy 5000x3 weight ignore=-100 sum float32': '1c43a06813d01ff0',
    'cross_entropy 5000x3 weight ignore=1 mean float32': '97a5c4554f320b33',
    'cross_entropy 5000x3 ignore=1 none float32': '89f6d9f987204d2e',
    'cross_entropy 5000x3 weight ignore=1 none float32': '8f25ce883db7fd7a',
    'cross_entropy 5000x3 ignore=1 sum float32': 'a2a132639130b41b',
    'cross_entropy 7 ignore=-100 mean float32': '75c5f17143144b9f',
    'cross_entropy 7 weight ignore=-100 sum float32': '3ece53e1560405fe',
    'cross_entropy 7 weight ignore=1 mean float32': '75c5f17143144b9f',
    'cross_entropy 7 ignore=1 none float32': '75c5f17143144b9f',
    'cross_entropy 7 weight ignore=1 none float32': '3ece53e1560405fe',
    'cross_entropy 7 ignore=1 sum float32': '75c5f17143144b9f',
    'cross_entropy 3x5x4x6 ignore=-100 mean float32': '4550816192edc3ea',
    'cross_entropy 3x5x4x6 weight ignore=-100 sum float32': 'abe53aa03fba52c0',
    'cross_entropy 3x5x4x6 weight ignore=1 mean float32': 'eb83fbff12081498',
    'cross_entropy 3x5x4x6 ignore=1 none float32': 'e7a25a9fed00688b',
    'cross_entropy 3x5x4x6 weight ignore=1 none float32': 'aa78319b014b8d2f',
    'cross_entropy 3x5x4x6 ignore=1 sum float32': '282cfdad98b3e364',
    'cross_entropy 2x3x40x50 ignore=-100 mean float32': '60897e538c28c85d',
    'cross_entropy 2x3x40x50 weight ignore=-100 sum float32': '193cb8b6b04482f1',
    'cross_entropy 2x3x40x50 weight ignore=1 mean float32': '49dd8fb1e2e66c2c',
    'cross_entropy 2x3x40x50 ignore=1 none float32': '4b1379a5d7466190',
    'cross_entropy 2x3x40x50 weight ignore=1 none float32': '42ac2ece849677a9',
    'cross_entropy 2x3x40x50 ignore=1 sum float32': '0a53a13d30cfa130',
    'nll_loss 1000x7 weight ignore=1 none float64': '9757954b4de61fa8',
    'nll_loss 1000x7 weight ignore=1 mean float64': '198fbc2b4ab95a64',
    'nll_loss 1000x7 weight ignore=1 sum float64': '7beda3454339f323',
    'nll_loss 3x5x4x6 weight ignore=1 none float64': '443fea5df865dceb',
    'nll_loss 3x5x4x6 weight ignore=1 mean float64': 'ce2f99decc87fedb',
    'nll_loss 3x5x4x6 weight ignore=1 sum float64': '1aa523c6b0ea08e0',
    'cross_entropy 1000x7 weight ignore=1 none float64': '9757954b4de61fa8',
    'cross_entropy 1000x7 weight ignore=1 mean float64': '198fbc2b4ab95a64',
    'cross_entropy 1000x7 weight ignore=1 sum float64': '7beda3454339f323',
    'cross_entropy 3x5x4x6 weight ignore=1 none float64': '443fea5df865dceb',
    'cross_entropy 3x5x4x6 weight ignore=1 mean float64': 'ce2f99decc87fedb',
    'cross_entropy 3x5x4x6 weight ignore=1 sum float64': '1aa523c6b0ea08e0',
}


@pytest.mark.parametrize("case", BITS_CASES, ids=[_bits_key(c) for c in BITS_CASES])
def test_bits_recorded(case):
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("log_softmax is bit-exact with the x86-64 AVX2 kernels")
    assert _bits_digest(*_bits_run(ctorch, case)) == BITS_RECORDED[_bits_key(case)]


@pytest.mark.parametrize("case", BITS_CASES, ids=[_bits_key(c) for c in BITS_CASES])
def test_bits_vs_torch(case, torch_ref):
    c_out, c_gx = _bits_run(ctorch, case)
    t_out, t_gx = _bits_run(torch_ref, case)
    assert torch_ref.equal(torch_ref.from_numpy(c_out.numpy()), t_out)
    assert torch_ref.equal(torch_ref.from_numpy(c_gx.numpy()), t_gx)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(40))
def test_random_bits_vs_torch(seed, dtype, torch_ref):
    """nll_loss and cross_entropy (class targets; label smoothing on 2-D
    inputs) equal torch's bits: losses and gradients."""
    rng = random.Random(seed)
    for _ in range(20):
        kind, shape, red = _rand_case(rng)
        if kind in ("nll", "ce"):
            break
    else:
        kind = "nll"
    ls = rng.choice([0.0, 0.0, 0.1]) if kind == "ce" and len(shape) <= 2 else 0.0
    ignore = rng.choice([-100, 0])
    weighted = rng.random() < 0.5
    res = []
    for m in (ctorch, torch_ref):
        dt = getattr(m, dtype)
        m.manual_seed(seed)
        x = (m.randn(*shape, dtype=dt) * 3).requires_grad_()
        c = shape[1] if len(shape) > 1 else shape[0]
        t = m.randint(0, c, (shape[0],) + tuple(shape[2:]) if len(shape) > 1 else ())
        w = m.rand(c, dtype=dt) + 0.5 if weighted else None
        F_ = m.nn.functional
        if kind == "nll":
            out = F_.nll_loss(x, t, weight=w, ignore_index=ignore, reduction=red)
        else:
            out = F_.cross_entropy(x, t, weight=w, ignore_index=ignore, reduction=red,
                                   label_smoothing=ls)
        out.backward(m.randn(tuple(out.shape), dtype=dt))
        res.append((out.detach().numpy(), x.grad.numpy()))
    import numpy as np
    assert np.array_equal(res[0][0], res[1][0], equal_nan=True), (kind, shape, red)
    assert np.array_equal(res[0][1], res[1][1], equal_nan=True), (kind, shape, red)


def _record_bits():
    import torch
    for case in BITS_CASES:
        print("    %r: %r," % (_bits_key(case), _bits_digest(*_bits_run(torch, case))))


if __name__ == "__main__" and "--record-bits" in sys.argv:
    _record_bits()
