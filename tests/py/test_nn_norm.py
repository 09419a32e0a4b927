"""Batch, layer and group normalization and embedding in ctorch.nn:
outputs, gradients, running statistics and node names recorded from
PyTorch 1.13 (data/nn_expected.py), gradcheck / gradgradcheck in float64,
torch's error messages, the modules (initialization, repr, state dict keys
and loading, train / eval, momentum None), and, where torch is installed,
random shapes side by side with torch in float32 and float64."""
import gc
import math
import os
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


def close(a, b, rel, abs_=1e-12):
    assert len(a) == len(b), (a, b)
    for u, v in zip(a, b):
        assert u == pytest.approx(v, rel=rel, abs=abs_), (a, b)


# --- recorded from torch -------------------------------------------------------

@pytest.mark.parametrize("key", nc.NORM_CASES)
def test_recorded_float64(key):
    name, out, grads, extra = nc.run_norm(ctorch, key)
    rname, rout, rgrads, rextra = ne.NORM[key]
    assert name == rname
    close(out, rout, 1e-10)
    assert len(grads) == len(rgrads)
    for g, r in zip(grads, rgrads):
        close(g, r, 1e-9, 1e-12)
    close(extra, rextra, 1e-10)


@pytest.mark.parametrize("key", nc.NORM_CASES)
def test_recorded_float32(key):
    name, out, grads, extra = nc.run_norm(ctorch, key, dtype="float32")
    rname, rout, rgrads, rextra = ne.NORM[key]
    assert name == rname
    close(out, rout, 1e-5, 1e-5)
    for g, r in zip(grads, rgrads):
        close(g, r, 1e-4, 1e-5)
    close(extra, rextra, 1e-5, 1e-6)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_recorded_batchnorm_module(momentum):
    state, out = nc.run_bn_module(ctorch, momentum)
    rstate, rout = ne.BN_MODULE[str(momentum)]
    assert list(state) == ["weight", "bias", "running_mean", "running_var",
                           "num_batches_tracked"]
    assert sorted(state) == sorted(rstate)
    for k in state:
        close(state[k], rstate[k], 1e-10)
    close(out, rout, 1e-10)


# --- gradcheck ----------------------------------------------------------------

def _d(shape, a=1.3, b=0.2):
    return ctorch.tensor(nc.wave(shape, a, b), dtype=ctorch.float64, requires_grad=True)


def _bn(training, affine=True):
    def fn(x, w, b):
        rm = ctorch.tensor([0.1, -0.2, 0.3], dtype=ctorch.float64)
        rv = ctorch.tensor([1.5, 0.5, 2.0], dtype=ctorch.float64)
        return F.batch_norm(x, rm, rv, w if affine else None, b if affine else None,
                            training=training, eps=1e-3)
    return fn


GRADCHECK = [
    ("bn_train_4d", _bn(True), (2, 3, 2, 2)),
    ("bn_train_2d", _bn(True), (4, 3)),
    ("bn_eval_3d", _bn(False), (2, 3, 4)),
    ("bn_noaffine", _bn(True, False), (2, 3, 4)),
    ("ln", lambda x, w, b: F.layer_norm(x, (4,), w[0], b[0]), (2, 3, 4)),
    ("ln_2", lambda x, w, b: F.layer_norm(x, (3, 4), w, b), (2, 3, 4)),
    ("ln_noaffine", lambda x, w, b: F.layer_norm(x, (3, 4)), (2, 3, 4)),
    ("gn", lambda x, w, b: F.group_norm(x, 3, w[0].repeat(2)[:6], b[0].repeat(2)[:6],
                                        eps=1e-4), (2, 6, 3)),
    ("gn_1", lambda x, w, b: F.group_norm(x, 1, None, None), (2, 6, 3)),
]


def _params(key, shape):
    if key.startswith("bn"):
        return _d((3,), 0.4, 0.5), _d((3,), 0.9, 0.1)
    if key.startswith("ln"):
        return _d((3, 4), 0.3, 1.0), _d((3, 4), 0.7, 0.3)
    return _d((3, 4), 0.3, 1.0), _d((3, 4), 0.7, 0.3)


@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(case):
    key, fn, shape = case
    x = _d(shape)
    w, b = _params(key, shape)
    assert gradcheck(fn, (x, w, b))


@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradgradcheck(case):
    key, fn, shape = case
    x = _d(shape)
    w, b = _params(key, shape)
    assert gradgradcheck(fn, (x, w, b))


@pytest.mark.parametrize("pad,freq", [(-1, False), (3, True), (1, False)])
def test_embedding_gradcheck(pad, freq):
    """padding_idx and scale_grad_by_freq change the gradient on purpose
    (checked against torch's values above), so only the plain lookup is
    gradchecked; the second derivatives hold with padding_idx too."""
    idx = ctorch.tensor([[1, 3, 1], [5, 0, 3]])
    w = _d((6, 3))
    if pad < 0 and not freq:
        assert gradcheck(lambda w_: ctorch.embedding(w_, idx, pad, freq), (w,))
    if not freq:
        assert gradgradcheck(lambda w_: ctorch.embedding(w_, idx, pad, freq) ** 2, (w,))


def test_graph_backward_matches_fused():
    for key in nc.NORM_CASES:
        if key == "embedding_max_norm":
            continue
        for create in (False, True):
            r = _grads(key, create)
            if not create:
                ref = r
        for a, b in zip(ref, r):
            assert ctorch.allclose(a, b, rtol=1e-10, atol=1e-12), key


def _grads(key, create):
    """The gradients of run_norm's loss, with or without create_graph."""
    x = ctorch.tensor(nc.wave((2, 6, 3)), dtype=ctorch.float64, requires_grad=True)
    w = ctorch.tensor([0.5 + 0.25 * i for i in range(6)], dtype=ctorch.float64,
                      requires_grad=True)
    b = ctorch.tensor([0.1 * i for i in range(6)], dtype=ctorch.float64, requires_grad=True)
    if key.startswith("batch_norm"):
        out = F.batch_norm(x, ctorch.zeros(6, dtype=ctorch.float64),
                           ctorch.ones(6, dtype=ctorch.float64), w, b,
                           training=key != "batch_norm_eval")
    elif key.startswith("layer_norm"):
        out = F.layer_norm(x, (3,), w[:3], b[:3])
    elif key.startswith("group_norm"):
        out = F.group_norm(x, 2, w, b)
    else:
        out = ctorch.embedding(w.reshape(3, 2), ctorch.tensor([2, 0, 2]), 0, True)
        x = None
    s = nc.weighted_sum(ctorch, out)
    leaves = [t for t in (x, w, b) if t is not None and (key.startswith("emb") is False
                                                         or t is w)]
    return ctorch.autograd.grad(s, leaves, create_graph=create)


# --- errors ------------------------------------------------------------------

ERRORS = [
    (lambda m: m.embedding(m.randn(5), m.tensor([1])),
     "RuntimeError", "'weight' must be 2-D"),
    (lambda m: m.embedding(m.randn(5, 3), m.tensor([1.])),
     "RuntimeError", "Expected tensor for argument #1 'indices' to have one of the following "
     "scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments "
     "for embedding)"),
    (lambda m: m.embedding(m.randn(5, 3), m.tensor([7])),
     "IndexError", "index out of range in self"),
    (lambda m: m.embedding_renorm_(m.randn(5), m.tensor([1]), 1.0, 2.0),
     "RuntimeError", "Expected 2-dimensional tensor, but got 1-dimensional tensor for "
     "argument #1 'self' (while checking arguments for embedding_renorm_)"),
    (lambda m: m.embedding_renorm_(m.randn(5, 3), m.tensor([1.]), 1.0, 2.0),
     "RuntimeError", "Expected tensor for argument #2 'indices' to have one of the following "
     "scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments "
     "for embedding_renorm_)"),
    (lambda m: m.embedding_renorm_(m.randn(5, 3), m.tensor([9]), 1.0, 2.0),
     "IndexError", "select(): index 9 out of range for tensor of size [5, 3] at dimension 0"),
    (lambda m: m.nn.functional.embedding(m.tensor([1]), m.randn(5, 3), padding_idx=7),
     "AssertionError", "Padding_idx must be within num_embeddings"),
    (lambda m: m.batch_norm(m.randn(3), None, None, None, None, True, 0.1, 1e-5, False),
     "IndexError", "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda m: m.batch_norm(m.randn(3, 4), None, None, m.zeros(3), None, True, 0.1, 1e-5,
                            False),
     "RuntimeError", "running_mean should contain 4 elements not 3"),
    (lambda m: m.batch_norm(m.randn(3, 4), m.ones(5), None, None, None, True, 0.1, 1e-5,
                            False),
     "RuntimeError", "weight should contain 4 elements not 5"),
    (lambda m: m.batch_norm(m.randn(3, 4), None, None, None, None, False, 0.1, 1e-5, False),
     "RuntimeError", "running_mean must be defined in evaluation mode"),
    (lambda m: m.batch_norm(m.randn(3, 4), None, None, m.zeros(4), None, False, 0.1, 1e-5,
                            False),
     "RuntimeError", "running_var must be defined in evaluation mode"),
    (lambda m: m.batch_norm(m.randn(3, 4).int(), None, None, None, None, True, 0.1, 1e-5,
                            False),
     "RuntimeError", "\"batch_norm\" not implemented for 'Int'"),
    (lambda m: m.batch_norm(m.randn(3, 4).double(), m.ones(4), None, None, None, True, 0.1,
                            1e-5, False),
     "RuntimeError", "mixed dtype (CPU): expect input to have scalar type of BFloat16"),
    (lambda m: m.batch_norm(m.randn(3, 4), m.ones(4).double(), None, None, None, True, 0.1,
                            1e-5, False),
     "RuntimeError", "mixed dtype (CPU): expect parameter to have scalar type of Float"),
    (lambda m: m.nn.functional.batch_norm(m.randn(1, 4), None, None, training=True),
     "ValueError", "Expected more than 1 value per channel when training, got input size "
     "torch.Size([1, 4])"),
    (lambda m: m.nn.functional.layer_norm(m.randn(3, 5), (4,)),
     "RuntimeError", "Given normalized_shape=[4], expected input with shape [*, 4], but got "
     "input of size[3, 5]"),
    (lambda m: m.nn.functional.layer_norm(m.randn(3, 5), (2, 5)),
     "RuntimeError", "Given normalized_shape=[2, 5], expected input with shape [*, 2, 5], but "
     "got input of size[3, 5]"),
    (lambda m: m.nn.functional.layer_norm(m.randn(3, 5), (5,), m.ones(4)),
     "RuntimeError", "Expected weight to be of same shape as normalized_shape, but got weight "
     "of shape [4] and normalized_shape = [5]"),
    (lambda m: m.nn.functional.layer_norm(m.randn(3, 5), (5,), None, m.ones(4)),
     "RuntimeError", "Expected bias to be of same shape as normalized_shape, but got bias of "
     "shape [4] and normalized_shape = [5]"),
    (lambda m: m.nn.functional.layer_norm(m.randn(3, 5), ()),
     "RuntimeError", "Expected normalized_shape to be at least 1-dimensional, i.e., "
     "containing at least one element, but got normalized_shape = []"),
    (lambda m: m.nn.functional.layer_norm(m.randn(3, 5).int(), (5,)),
     "RuntimeError", "\"LayerNormKernelImpl\" not implemented for 'Int'"),
    (lambda m: m.nn.functional.layer_norm(m.randn(3, 5), (5,), m.ones(5).double()),
     "RuntimeError", "expected scalar type Float but found Double"),
    (lambda m: m.nn.functional.group_norm(m.randn(3, 6), 4),
     "RuntimeError", "Expected number of channels in input to be divisible by num_groups, "
     "but got input of shape [3, 6] and num_groups=4"),
    (lambda m: m.nn.functional.group_norm(m.randn(3, 6), 0),
     "ZeroDivisionError", "integer division or modulo by zero"),
    (lambda m: m.nn.functional.group_norm(m.randn(3, 6), 3, m.ones(5)),
     "RuntimeError", "Expected weight to be a vector of size equal to the number of channels "
     "in input, but got weight of shape [5] and input of shape [3, 6]"),
    (lambda m: m.nn.functional.group_norm(m.randn(3, 6), 3, None, m.ones(5)),
     "RuntimeError", "Expected bias to be a vector of size equal to the number of channels "
     "in input, but got bias of shape [0] and input of shape [3, 6]"),
    (lambda m: m.nn.functional.group_norm(m.randn(6), 3),
     "IndexError", "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda m: m.nn.functional.group_norm(m.randn(1, 3), 3),
     "ValueError", "Expected more than 1 value per channel when training, got input size "
     "[1, 3]"),
    (lambda m: m.nn.functional.group_norm(m.randn(3, 6).int(), 3),
     "RuntimeError", "\"GroupNormKernelImpl\" not implemented for 'Int'"),
    (lambda m: m.nn.BatchNorm1d(3)(m.randn(2, 3, 4, 5)),
     "ValueError", "expected 2D or 3D input (got 4D input)"),
    (lambda m: m.nn.BatchNorm2d(3)(m.randn(2, 3)),
     "ValueError", "expected 4D input (got 2D input)"),
    (lambda m: m.nn.GroupNorm(4, 6),
     "ValueError", "num_channels must be divisible by num_groups"),
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


# --- kernels: shapes and edge cases --------------------------------------------

def test_native_outputs():
    x = ctorch.tensor(nc.wave((2, 3, 4)))
    out, mean, rstd = ctorch.native_layer_norm(x, (3, 4), None, None, 1e-5)
    assert mean.shape == (2, 1, 1) and rstd.shape == (2, 1, 1)
    out, m, s = ctorch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    assert m.shape == (3,) and s.shape == (3,)
    out, m, s = ctorch.native_batch_norm(x, None, None, ctorch.zeros(3), ctorch.ones(3), False,
                                         0.1, 1e-5)
    assert m.shape == (0,) and s.shape == (0,)
    out, m, s = ctorch.native_group_norm(ctorch.tensor(nc.wave((2, 6, 4))), None, None, 2, 6,
                                         4, 3, 1e-5)
    assert m.shape == (2, 3) and s.shape == (2, 3)


def test_empty_inputs():
    assert F.batch_norm(ctorch.randn(0, 4), None, None, training=True).shape == (0, 4)
    assert F.layer_norm(ctorch.randn(3, 0), (0,)).shape == (3, 0)
    x = ctorch.randn(0, 3, requires_grad=True)
    F.batch_norm(x, None, None, ctorch.ones(3), ctorch.zeros(3), training=True).sum().backward()
    assert x.grad.shape == (0, 3)


def test_running_stats_update():
    x = ctorch.tensor(nc.wave((5, 2, 3)), dtype=ctorch.float64)
    rm, rv = ctorch.zeros(2, dtype=ctorch.float64), ctorch.ones(2, dtype=ctorch.float64)
    F.batch_norm(x, rm, rv, training=True, momentum=0.25)
    xs = x.transpose(0, 1).reshape(2, -1)
    assert ctorch.allclose(rm, 0.25 * xs.mean(1))
    assert ctorch.allclose(rv, 0.75 + 0.25 * xs.var(1, unbiased=True))
    # eval uses them and leaves them alone
    before = rm.clone()
    y = F.batch_norm(x, rm, rv, training=False, eps=0.0)
    assert ctorch.equal(rm, before)
    ref = (x - rm.reshape(1, 2, 1)) / rv.reshape(1, 2, 1).sqrt()
    assert ctorch.allclose(y, ref)


def test_non_contiguous_and_large():
    """Transposed inputs and inputs large enough to use several threads."""
    g = ctorch.Generator().manual_seed(1)
    x = ctorch.randn(64, 8, 40, 40, generator=g, dtype=ctorch.float64)
    y = F.batch_norm(x, None, None, training=True, eps=0.0)
    assert y.mean((0, 2, 3)).abs().max().item() < 1e-12
    assert (y.var((0, 2, 3), unbiased=False) - 1).abs().max().item() < 1e-9
    xt = x.transpose(1, 3)
    lt = F.layer_norm(xt, (8,))
    assert ctorch.allclose(lt, F.layer_norm(xt.contiguous(), (8,)))
    gn = F.group_norm(x, 4)
    ref = F.layer_norm(x.reshape(64, 4, -1), (2 * 40 * 40,)).reshape(x.shape)
    assert ctorch.allclose(gn, ref)


def test_embedding_renorm_in_place():
    w = ctorch.tensor([[3., 4.], [0.3, 0.4], [6., 8.]])
    out = F.embedding(ctorch.tensor([0, 1, 0]), w, max_norm=1.0)
    assert w[0].norm().item() == pytest.approx(1.0, rel=1e-6)
    assert w[1].tolist() == pytest.approx([0.3, 0.4])
    assert w[2].tolist() == [6., 8.]     # not looked up: left alone
    assert out.shape == (3, 2)
    w = ctorch.tensor([[3., 4.], [1., 1.]])
    ctorch.embedding_renorm_(w, ctorch.tensor([0, 1]), 2.0, 1.0)   # the 1-norm
    assert w[0].abs().sum().item() == pytest.approx(2.0, rel=1e-6)
    assert w[1].tolist() == [1., 1.]


def test_embedding_shapes_and_int32():
    w = ctorch.randn(7, 3)
    idx = ctorch.tensor([[[1, 2], [3, 4]]], dtype=ctorch.int32)
    out = ctorch.embedding(w, idx)
    assert out.shape == (1, 2, 2, 3) and out.is_contiguous()
    assert ctorch.equal(out[0, 1, 0], w[3])
    assert ctorch.embedding(w, ctorch.tensor(2)).shape == (3,)


def test_no_leaks():
    def round_trip():
        for key in nc.NORM_CASES:
            nc.run_norm(ctorch, key)
            if key != "embedding_max_norm":
                gs = [g.sum() for g in _grads(key, True) if g.requires_grad]
                if gs:
                    sum(gs).backward()
        gc.collect()
    round_trip()
    before = ctorch._C._live_counts()
    round_trip()
    round_trip()
    after = ctorch._C._live_counts()
    assert after[0] <= before[0] and after[1] <= before[1]


# --- modules --------------------------------------------------------------------

REPRS = [
    ("BatchNorm1d(4)", "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, "
     "track_running_stats=True)"),
    ("BatchNorm2d(3, momentum=None, affine=False)",
     "BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, track_running_stats=True)"),
    ("BatchNorm3d(2, eps=1e-3, track_running_stats=False)",
     "BatchNorm3d(2, eps=0.001, momentum=0.1, affine=True, track_running_stats=False)"),
    ("LayerNorm(4)", "LayerNorm((4,), eps=1e-05, elementwise_affine=True)"),
    ("LayerNorm([3, 4], elementwise_affine=False)",
     "LayerNorm((3, 4), eps=1e-05, elementwise_affine=False)"),
    ("GroupNorm(2, 4)", "GroupNorm(2, 4, eps=1e-05, affine=True)"),
    ("Embedding(10, 3)", "Embedding(10, 3)"),
    ("Embedding(10, 3, padding_idx=-1, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True, "
     "sparse=True)",
     "Embedding(10, 3, padding_idx=9, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True, "
     "sparse=True)"),
]


@pytest.mark.parametrize("expr,text", REPRS)
def test_module_repr(expr, text):
    assert repr(eval("nn." + expr)) == text


STATE_KEYS = [
    ("BatchNorm1d(4)", ["weight", "bias", "running_mean", "running_var",
                        "num_batches_tracked"]),
    ("BatchNorm1d(4, affine=False)", ["running_mean", "running_var", "num_batches_tracked"]),
    ("BatchNorm2d(4, track_running_stats=False)", ["weight", "bias"]),
    ("LayerNorm(4)", ["weight", "bias"]),
    ("LayerNorm(4, elementwise_affine=False)", []),
    ("GroupNorm(2, 4)", ["weight", "bias"]),
    ("Embedding(5, 2)", ["weight"]),
]


@pytest.mark.parametrize("expr,keys", STATE_KEYS)
def test_module_state_keys(expr, keys):
    assert list(eval("nn." + expr).state_dict().keys()) == keys


def test_module_init():
    bn = nn.BatchNorm2d(3)
    assert bn.weight.tolist() == [1., 1., 1.] and bn.bias.tolist() == [0., 0., 0.]
    assert bn.running_var.tolist() == [1., 1., 1.]
    assert bn.num_batches_tracked.dtype == ctorch.int64 and bn.num_batches_tracked.item() == 0
    assert isinstance(bn.weight, nn.Parameter)
    ln = nn.LayerNorm((2, 3), dtype=ctorch.float64)
    assert ln.weight.dtype == ctorch.float64 and ln.weight.shape == (2, 3)
    e = nn.Embedding(5, 3, padding_idx=2)
    assert e.weight[2].tolist() == [0., 0., 0.]
    ctorch.manual_seed(0)
    a = nn.Embedding(4, 2).weight.detach()
    ctorch.manual_seed(0)
    assert ctorch.equal(a, ctorch.randn(4, 2))


def test_batchnorm_modes():
    x = ctorch.tensor(nc.wave((4, 3, 2)))
    bn = nn.BatchNorm1d(3)
    bn(x)
    bn(x)
    assert bn.num_batches_tracked.item() == 2
    bn.eval()
    rm = bn.running_mean.clone()
    bn(x)
    assert bn.num_batches_tracked.item() == 2 and ctorch.equal(bn.running_mean, rm)
    # without running stats, eval normalizes with the batch's statistics
    bn = nn.BatchNorm1d(3, track_running_stats=False).eval()
    assert bn.running_mean is None
    assert ctorch.allclose(bn(x), F.batch_norm(x, None, None, bn.weight, bn.bias, True))
    bn = nn.BatchNorm1d(3, momentum=None)
    for _ in range(4):
        bn(x)
    xs = x.transpose(0, 1).reshape(3, -1)
    assert ctorch.allclose(bn.running_mean, xs.mean(1))
    bn.reset_running_stats()
    assert bn.num_batches_tracked.item() == 0 and bn.running_mean.tolist() == [0., 0., 0.]


def test_batchnorm_load_old_state_dict():
    """A version-1 state dict (no num_batches_tracked) loads, the counter
    set to 0, as in torch."""
    bn = nn.BatchNorm1d(2)
    bn.num_batches_tracked.fill_(5)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    bn.load_state_dict(sd)
    assert bn.num_batches_tracked.item() == 0


def test_embedding_from_pretrained():
    w = ctorch.tensor([[1., 2.], [3., 4.]])
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and ctorch.equal(e(ctorch.tensor([1])), w[1:])
    e = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=0)
    assert e.weight.requires_grad and e.padding_idx == 0
    e(ctorch.tensor([0, 1, 1])).sum().backward()
    assert e.weight.grad.tolist() == [[0., 0.], [2., 2.]]


def test_modules_against_torch_state(torch_ref):
    """State dicts interchange: torch's loads into ctorch and the reverse,
    and the loaded modules compute the same."""
    torch = torch_ref
    torch.manual_seed(0)
    for name, args in [("BatchNorm2d", (3,)), ("LayerNorm", ((2, 2),)), ("GroupNorm", (3, 3)),
                       ("Embedding", (5, 2))]:
        tm = getattr(torch.nn, name)(*args)
        cm = getattr(nn, name)(*args)
        with torch.no_grad():
            for p in tm.parameters():
                p.uniform_(-1, 1)
        if name == "BatchNorm2d":
            tm(torch.randn(4, 3, 2, 2))
            tm.eval()
            cm.eval()
        cm.load_state_dict({k: ctorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        tm2 = getattr(torch.nn, name)(*args)
        tm2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in cm.state_dict().items()})
        tm2.train(tm.training)
        if name == "Embedding":
            xi = [[0, 4], [2, 2]]
            tx, cx = torch.tensor(xi), ctorch.tensor(xi)
        else:
            xv = nc.wave((2, 3, 2, 2))
            tx, cx = torch.tensor(xv, dtype=torch.float32), ctorch.tensor(xv)
            if name == "LayerNorm":
                tx, cx = tx[:, 0], cx[:, 0]
        ref = tm(tx).detach().numpy()
        assert ctorch.allclose(cm(cx).detach(), ctorch.tensor(ref), rtol=1e-5, atol=1e-6)
        assert (tm2(tx) - tm(tx)).abs().max().item() == 0


# --- against torch over random cases --------------------------------------------

def _run_random(m, seed, dtype):
    rng = random.Random(seed)
    kind = rng.choice(["bn", "bn_eval", "ln", "gn", "emb"])
    dt = getattr(m, dtype)
    F_ = m.nn.functional
    if kind == "emb":
        nw, d = rng.randint(2, 8), rng.randint(1, 5)
        w = m.tensor([[rng.uniform(-2, 2) for _ in range(d)] for _ in range(nw)], dtype=dt,
                     requires_grad=True)
        shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
        idx = m.tensor([rng.randrange(nw) for _ in range(math.prod(shape))]).reshape(shape)
        pad = rng.choice([None, 0, nw - 1])
        out = F_.embedding(idx, w, padding_idx=pad, scale_grad_by_freq=rng.random() < 0.5)
        leaves = [w]
    else:
        nd = rng.randint(2, 4)
        c = rng.choice([2, 3, 4, 6])
        shape = [rng.randint(2, 4), c] + [rng.randint(1, 3) for _ in range(nd - 2)]
        x = m.tensor([rng.uniform(-3, 3) for _ in range(math.prod(shape))],
                     dtype=dt).reshape(shape).requires_grad_()
        if kind.startswith("bn"):
            w = m.tensor([rng.uniform(0.5, 2) for _ in range(c)], dtype=dt, requires_grad=True)
            b = m.tensor([rng.uniform(-1, 1) for _ in range(c)], dtype=dt, requires_grad=True)
            rm = m.tensor([rng.uniform(-1, 1) for _ in range(c)], dtype=dt)
            rv = m.tensor([rng.uniform(0.5, 2) for _ in range(c)], dtype=dt)
            out = F_.batch_norm(x, rm, rv, w, b, training=kind == "bn",
                                momentum=rng.uniform(0, 1), eps=rng.choice([1e-5, 1e-2]))
            leaves = [x, w, b]
            out = out * 1 + 0 * (rm.sum() + rv.sum())   # running stats compared below
            extra = rm, rv
        elif kind == "ln":
            k = rng.randint(1, nd - 1)
            ns = shape[-k:]
            w = m.tensor([rng.uniform(0.5, 2) for _ in range(math.prod(ns))],
                         dtype=dt).reshape(ns).requires_grad_()
            out = F_.layer_norm(x, ns, w, None)
            leaves = [x, w]
        else:
            g = rng.choice([gg for gg in (1, 2, 3) if c % gg == 0])
            w = m.tensor([rng.uniform(0.5, 2) for _ in range(c)], dtype=dt, requires_grad=True)
            b = m.tensor([rng.uniform(-1, 1) for _ in range(c)], dtype=dt, requires_grad=True)
            out = F_.group_norm(x, g, w, b)
            leaves = [x, w, b]
    nc.weighted_sum(m, out).backward()
    res = [nc.flat(out)] + [nc.flat(t.grad) for t in leaves]
    if kind.startswith("bn"):
        res += [nc.flat(t) for t in extra]
    return res


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(40))
def test_random_vs_torch(seed, dtype, torch_ref):
    c = _run_random(ctorch, seed, dtype)
    t = _run_random(torch_ref, seed, dtype)
    # float32: normalized values are O(1); where a group has one element
    # torch's fused multiply-add leaves rounding noise where ctorch has 0
    rel, ab = (1e-4, 1e-4) if dtype == "float32" else (1e-9, 1e-11)
    assert len(c) == len(t)
    for a, b in zip(c, t):
        close(a, b, rel, ab)
