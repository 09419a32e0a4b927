"""Recurrent layers in ctorch.nn (RNN, LSTM, GRU, their cells) and
nn.utils.rnn: outputs, states and gradients recorded from PyTorch 1.13
(data/nn_rnn_expected.py, made by data/gen_nn_rnn_expected.py), seeded
initialization bit for bit, parameter names and order, reprs, torch's error
messages, packed sequences, dropout between layers, gradcheck in float64
(the modules and the C recurrence _C._rnn_layer with every input), no
leaks; and, where torch is installed, the same configurations and random
ones side by side with torch in float32 and float64."""
import gc
import os
import random
import sys
import types
import warnings

import pytest

import ctorch
import ctorch.nn as nn
from ctorch import _C
from ctorch.autograd import gradcheck
from ctorch.nn.utils import rnn as R

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "data"))

import nn_rnn_cases as rc  # noqa: E402
import nn_rnn_expected as rx  # noqa: E402

from helpers import same_error  # noqa: E402


def close(a, b, rel, abs_=1e-12):
    assert len(a) == len(b), (len(a), len(b))
    for u, v in zip(a, b):
        assert u == pytest.approx(v, rel=rel, abs=abs_), (a, b)


def check_record(got, want, rel=1e-10, abs_=1e-12):
    """got / want: nested lists, tuples and dicts with float lists."""
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for k in want:
            check_record(got[k], want[k], rel, abs_)
    elif isinstance(want, (list, tuple)) and want and isinstance(want[0], float):
        close(got, want, rel, abs_)
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            check_record(g, w, rel, abs_)
    else:
        assert got == want


# --- recorded from torch ------------------------------------------------------

@pytest.mark.parametrize("case", rc.LAYER_CASES, ids=[c[0] for c in rc.LAYER_CASES])
def test_recorded_layer(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rc.run_layer(ctorch, case)
    check_record(list(got), list(rx.LAYERS[case[0]]))


@pytest.mark.parametrize("case", rc.PACKED_CASES, ids=[c[0] for c in rc.PACKED_CASES])
def test_recorded_packed(case):
    check_record(list(rc.run_packed(ctorch, case)), list(rx.PACKED[case[0]]))


@pytest.mark.parametrize("case", rc.CELL_CASES, ids=[c[0] for c in rc.CELL_CASES])
def test_recorded_cell(case):
    check_record(list(rc.run_cell(ctorch, case)), list(rx.CELLS[case[0]]))


def test_recorded_float32():
    got = rc.lstm_float32(ctorch)
    for g, w in zip(got, rx.LSTM_FLOAT32):
        close(g, w, 1e-5, 1e-6)


def test_recorded_init_bit_exact():
    """Seeded modules hold torch's weights bit for bit (uniform_ over
    self.parameters() in torch's order)."""
    assert rc.module_init(ctorch) == rx.INIT


def test_recorded_pad_pack_functions():
    check_record(rc.pad_pack_functions(ctorch), rx.PAD_PACK, 0, 0)


# --- module structure ---------------------------------------------------------

def test_parameter_names_and_shapes():
    m = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    names = [n for n, _ in m.named_parameters()]
    expect = []
    for layer in range(2):
        for sfx in ("", "_reverse"):
            expect += [x.format(layer, sfx) for x in
                       ("weight_ih_l{}{}", "weight_hh_l{}{}", "bias_ih_l{}{}",
                        "bias_hh_l{}{}", "weight_hr_l{}{}")]
    assert names == expect
    assert m._flat_weights_names == expect
    assert [list(p.shape) for p in m._flat_weights] == [
        [20, 3], [20, 2], [20], [20], [2, 5], [20, 3], [20, 2], [20], [20], [2, 5],
        [20, 4], [20, 2], [20], [20], [2, 5], [20, 4], [20, 2], [20], [20], [2, 5]]
    assert [[p.shape[0] for p in w] for w in m.all_weights][0] == [20, 20, 20, 20, 2]
    assert all(a is b for a, b in zip(m._flat_weights, m.parameters()))
    g = nn.GRU(4, 3, bias=False)
    assert [n for n, _ in g.named_parameters()] == ["weight_ih_l0", "weight_hh_l0"]
    assert g.weight_ih_l0.shape == (9, 4)
    c = nn.LSTMCell(3, 2, bias=False)
    assert [n for n, _ in c.named_parameters()] == ["weight_ih", "weight_hh"]
    assert c.bias_ih is None and c.bias_hh is None


def test_flat_weights_follow_assignment_and_apply():
    m = nn.GRU(2, 3)
    assert m.flatten_parameters() is None
    w = nn.Parameter(ctorch.zeros(9, 3))
    m.weight_hh_l0 = w
    assert m._flat_weights[1] is w
    m.double()
    assert all(p.dtype == ctorch.float64 for p in m._flat_weights)
    assert all(a is b for a, b in zip(m._flat_weights, m.parameters()))
    out, h = m(ctorch.randn(4, 1, 2, dtype=ctorch.float64))
    assert out.dtype == ctorch.float64 and h.shape == (1, 1, 3)


REPRS = [
    (lambda: nn.LSTM(10, 20, num_layers=2, batch_first=True),
     "LSTM(10, 20, num_layers=2, batch_first=True)"),
    (lambda: nn.LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.5,
                     bidirectional=True, bias=False, proj_size=5),
     "LSTM(10, 20, proj_size=5, num_layers=2, bias=False, batch_first=True, dropout=0.5, "
     "bidirectional=True)"),
    (lambda: nn.GRU(3, 4), "GRU(3, 4)"),
    (lambda: nn.RNN(3, 4, nonlinearity="relu"), "RNN(3, 4)"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="relu"), "RNNCell(3, 4, nonlinearity=relu)"),
    (lambda: nn.GRUCell(3, 4, bias=False), "GRUCell(3, 4, bias=False)"),
    (lambda: nn.LSTMCell(3, 4), "LSTMCell(3, 4)"),
    (lambda: nn.Sequential(nn.GRU(2, 2)), "Sequential(\n  (0): GRU(2, 2)\n)"),
]


@pytest.mark.parametrize("make,text", REPRS)
def test_repr(make, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(make()) == text


def test_dropout_warning_and_train_eval():
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last "
                      "recurrent layer, so non-zero dropout expects num_layers greater "
                      "than 1, but got dropout=0.5 and num_layers=1"):
        nn.LSTM(3, 4, dropout=0.5)
    ctorch.manual_seed(0)
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = ctorch.randn(3, 2, 3)
    a, _ = m(x)
    b, _ = m(x)
    assert not ctorch.equal(a, b)            # new masks each call
    m.eval()
    c, _ = m(x)
    d, _ = m(x)
    assert ctorch.equal(c, d)


def test_outputs_shapes_and_strides():
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True, proj_size=2)
    out, (h, c) = m(ctorch.randn(5, 7, 3))
    assert out.shape == (5, 7, 4) and out.stride() == (4, 20, 1)
    assert h.shape == (4, 5, 2) and c.shape == (4, 5, 4)
    out, (h, c) = m(ctorch.randn(7, 3))
    assert out.shape == (7, 4) and h.shape == (4, 2) and c.shape == (4, 4)
    g = nn.GRU(3, 4)
    out, h = g(ctorch.randn(5, 0, 3))         # an empty batch works
    assert out.shape == (5, 0, 4) and h.shape == (1, 0, 4)


def test_packed_output_is_packed_sequence():
    m = nn.GRU(2, 3)
    p = R.pack_padded_sequence(ctorch.randn(4, 3, 2), [4, 2, 3], enforce_sorted=False)
    out, h = m(p)
    assert isinstance(out, R.PackedSequence)
    assert out.batch_sizes is p.batch_sizes
    assert out.sorted_indices is p.sorted_indices
    assert out.data.shape == (9, 3) and h.shape == (1, 3, 3)
    data, bs, si, ui = out                    # a namedtuple
    assert data is out.data and ui.tolist() == [0, 2, 1]


def test_packed_sequence_methods():
    p = R.pack_sequence([ctorch.tensor([1., 2, 3]), ctorch.tensor([4., 5])])
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert p.to(ctorch.float32) is p
    q = p.double()
    assert q.data.dtype == ctorch.float64 and q.batch_sizes is p.batch_sizes
    assert p.long().data.tolist() == [1, 4, 2, 5, 3]
    assert not p.is_cuda
    assert p.cpu() is p
    assert R.invert_permutation(ctorch.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert R.invert_permutation(None) is None
    elsewhere = types.SimpleNamespace(device=types.SimpleNamespace(type="cuda"))
    with pytest.raises(ValueError, match="batch_sizes should always be on CPU"):
        R.PackedSequence(ctorch.zeros(2), elsewhere)


def test_pack_gradients_flow():
    x = ctorch.randn(4, 3, 2, requires_grad=True)
    p = R.pack_padded_sequence(x, ctorch.tensor([4, 3, 1]))
    padded, lens = R.pad_packed_sequence(p)
    padded.sum().backward()
    mask = [[1.0 if t < n else 0.0 for n in (4, 3, 1)] for t in range(4)]
    assert x.grad.sum(2).div(2).tolist() == mask
    assert lens.tolist() == [4, 3, 1] and lens.dtype == ctorch.int64


# --- errors, as torch words them -----------------------------------------------

ERRORS = [
    ("nn.LSTMCell(10, 20)(L.randn(3, 5))", RuntimeError,
     "input has inconsistent input_size: got 5 expected 10"),
    ("nn.LSTMCell(10, 20)(L.randn(3, 10), (L.randn(4, 20), L.randn(4, 20)))", RuntimeError,
     "Input batch size 3 doesn't match hidden0 batch size 4"),
    ("nn.LSTMCell(10, 20)(L.randn(3, 10), (L.randn(3, 20), L.randn(3, 21)))", RuntimeError,
     "hidden0 has inconsistent hidden_size: got 21, expected 20"),
    ("nn.LSTMCell(10, 20)(L.randn(3, 10, 2))", AssertionError,
     "LSTMCell: Expected input to be 1-D or 2-D but received 3-D tensor"),
    ("nn.GRUCell(10, 20)(L.randn(3, 10), L.randn(3, 21))", RuntimeError,
     "hidden0 has inconsistent hidden_size: got 21, expected 20"),
    ("nn.RNNCell(3, 4)(L.randn(1, 2, 3))", AssertionError,
     "RNNCell: Expected input to be 1-D or 2-D but received 3-D tensor"),
    ("nn.LSTM(10, 20)(L.randn(5, 3, 11))", RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 10, got 11"),
    ("nn.LSTM(10, 20)(L.randn(5, 3, 10, 1))", RuntimeError,
     "input must have 3 dimensions, got 5"),
    ("nn.LSTM(10, 20)(L.randn(5, 3, 10), (L.randn(1, 4, 20), L.randn(1, 3, 20)))",
     RuntimeError, "Expected hidden[0] size (1, 3, 20), got [1, 4, 20]"),
    ("nn.LSTM(10, 20)(L.randn(5, 3, 10), (L.randn(1, 3, 20), L.randn(1, 3, 21)))",
     RuntimeError, "Expected hidden[1] size (1, 3, 20), got [1, 3, 21]"),
    ("nn.LSTM(10, 20)(L.randn(5, 3, 10), (L.randn(3, 20), L.randn(1, 3, 21)))",
     RuntimeError, "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 3-D) "
     "tensors"),
    ("nn.LSTM(10, 20)(L.randn(5, 10), (L.randn(1, 3, 20), L.randn(1, 3, 21)))",
     RuntimeError, "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, "
     "3-D) tensors"),
    ("nn.LSTM(10, 20)(L.randn(5, 3, 10).double())", RuntimeError,
     "mat1 and mat2 must have the same dtype"),
    ("nn.LSTM(10, 20)(L.randn(5, 3, 10), (L.zeros(1, 3, 20).double(), L.zeros(1, 3, 20)))",
     RuntimeError, "mat1 and mat2 must have the same dtype"),
    ("nn.GRU(10, 20)(L.randn(5, 3, 10), L.randn(3, 20))", RuntimeError,
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    ("nn.GRU(10, 20)(L.randn(5, 10), L.randn(1, 3, 20))", RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    ("nn.GRU(10, 20)(L.randn(5, 3, 10), L.randn(2, 3, 20))", RuntimeError,
     "Expected hidden size (1, 3, 20), got [2, 3, 20]"),
    ("nn.GRU(10, 20)(L.randn(0, 3, 10))", RuntimeError,
     "Expected sequence length to be larger than 0 in RNN"),
    ("nn.GRU(10, 20, proj_size=3)", ValueError,
     "proj_size argument is only supported for LSTM, not RNN or GRU"),
    ("nn.RNN(10, 20, nonlinearity='sig')", ValueError, "Unknown nonlinearity 'sig'"),
    ("nn.LSTM(10, 20, dropout=2)", ValueError,
     "dropout should be a number in range [0, 1] representing the probability of an "
     "element being zeroed"),
    ("nn.LSTM(10, 20, dropout=True)", ValueError,
     "dropout should be a number in range [0, 1] representing the probability of an "
     "element being zeroed"),
    ("nn.LSTM(10, 20, proj_size=20)", ValueError, "proj_size has to be smaller than "
     "hidden_size"),
    ("nn.LSTM(10, 20, proj_size=-1)", ValueError,
     "proj_size should be a positive integer or zero to disable projections"),
    ("R.pack_padded_sequence(L.randn(5, 3, 2), [3, 5, 2])", RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
     "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
     "sidestep this requirement if you do not need ONNX exportability."),
    ("R.pack_padded_sequence(L.randn(5, 3, 2), [5, 3, 0])", RuntimeError,
     "Length of all samples has to be greater than 0, but found an element in 'lengths' "
     "that is <= 0"),
    ("R.pack_padded_sequence(L.randn(5, 3, 2), [5, 3])", RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"),
    ("R.pack_padded_sequence(L.randn(5, 3, 2), L.tensor([[5, 3, 2]]))", RuntimeError,
     "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"),
    ("R.pack_padded_sequence(L.randn(5, 0, 2), [])", RuntimeError,
     "Cannot pack empty tensors."),
    ("R.pad_packed_sequence(R.pack_padded_sequence(L.randn(5, 3, 2), [5, 3, 2]), "
     "total_length=4)", ValueError,
     "Expected total_length to be at least the length of the longest sequence in input, "
     "but got total_length=4 and max sequence length being 5"),
    ("R.pad_sequence(5)", RuntimeError,
     "pad_sequence: Expected iterable for input sequences, but got arg of type: "
     "<class 'int'>"),
    ("R.pad_sequence([L.randn(2, 3), L.randn(3, 4)])", RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
     "dimension 1"),
    ("R.pad_sequence([])", RuntimeError, "received an empty list of sequences"),
]


def _eval_error(lib, text):
    nn_, R_ = lib.nn, lib.nn.utils.rnn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(text, {"nn": nn_, "R": R_, "L": lib})


@pytest.mark.parametrize("text,exc,msg", ERRORS, ids=[e[0][:40] for e in ERRORS])
def test_errors(text, exc, msg):
    with pytest.raises(exc) as info:
        _eval_error(ctorch, text)
    assert str(info.value) == msg


def test_rnncell_unknown_nonlinearity():
    c = nn.RNNCell(3, 4)
    c.nonlinearity = "foo"
    with pytest.raises(RuntimeError, match="^Unknown nonlinearity: foo$"):
        c(ctorch.randn(2, 3))


def test_double_backward_raises():
    m = nn.LSTM(3, 4)
    x = ctorch.randn(2, 1, 3, requires_grad=True)
    out, _ = m(x)
    with pytest.raises(RuntimeError, match="LstmBackward0: double backward through "
                       "ctorch's recurrent layers is not supported"):
        ctorch.autograd.grad(out.sum(), x, create_graph=True)


def test_backward_twice_and_modified_weight():
    m = nn.GRU(2, 3)
    out, _ = m(ctorch.randn(3, 1, 2))
    out.sum().backward(retain_graph=True)
    out.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                       "time"):
        out.sum().backward()
    out, _ = m(ctorch.randn(3, 1, 2))
    with ctorch.no_grad():
        m.weight_hh_l0.mul_(2)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient "
                       "computation has been modified by an inplace operation"):
        out.sum().backward()


def test_rnn_layer_binding_checks():
    gx, w = ctorch.zeros(6, 8), ctorch.zeros(8, 2)
    h0, c0 = ctorch.zeros(3, 2), ctorch.zeros(3, 2)
    with pytest.raises(ValueError, match="Unrecognized RNN mode: foo"):
        _C._rnn_layer("foo", gx, w, None, None, h0, c0, None, 2, False)
    with pytest.raises(RuntimeError, match="rnn: c0 is given for LSTM layers only"):
        _C._rnn_layer("GRU", ctorch.zeros(6, 6), ctorch.zeros(6, 2), None, None, h0, c0,
                      None, 2, False)
    with pytest.raises(RuntimeError, match="rnn: the steps cover 9 rows but the input has 6"):
        _C._rnn_layer("LSTM", gx, w, None, None, h0, c0, None, 3, False)
    with pytest.raises(RuntimeError, match="batch_sizes must not increase"):
        _C._rnn_layer("LSTM", gx, w, None, None, h0, c0, ctorch.tensor([2, 4]), 0, False)
    with pytest.raises(RuntimeError, match="rnn: expected h0 of size \\[3, 2\\], got"):
        _C._rnn_layer("LSTM", gx, w, None, None, ctorch.zeros(3, 3), c0, None, 2, False)
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        _C._rnn_layer("RNN_TANH", ctorch.zeros(2, 2).half(), ctorch.zeros(2, 2).half(),
                      None, None, ctorch.zeros(1, 2).half(), None, None, 2, False)


# --- gradcheck (float64) ----------------------------------------------------------

def _d(*shape, grad=True):
    return ctorch.randn(*shape, dtype=ctorch.float64).requires_grad_(grad)


LAYER_GRADCHECK = [
    ("RNN_TANH", 3, None, False, False),
    ("RNN_RELU", 3, [3, 2, 2, 1], False, False),
    ("LSTM", 2, None, True, False),
    ("LSTM", 3, [3, 3, 1], False, True),
    ("LSTM", 3, [2, 2, 1], True, True),
    ("GRU", 3, None, True, False),
    ("GRU", 3, [3, 1, 1], True, False),
]


@pytest.mark.parametrize("mode,H,batch_sizes,reverse,proj", LAYER_GRADCHECK)
def test_gradcheck_rnn_layer(mode, H, batch_sizes, reverse, proj):
    """The C recurrence against finite differences, every input at once
    (gx, w_hh, b_hh, w_hr, h0, c0), padded and packed, both directions."""
    ctorch.manual_seed(1)
    G = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    B = batch_sizes[0] if batch_sizes else 2
    N = sum(batch_sizes) if batch_sizes else 3 * B
    P = 2 if proj else H
    bs = ctorch.tensor(batch_sizes) if batch_sizes else None
    ins = [_d(N, G * H), _d(G * H, P) * 0.5, _d(G * H), _d(P, H) if proj else None,
           _d(B, P), _d(B, H) if mode == "LSTM" else None]
    live = [t for t in ins if t is not None]
    for t in live:
        t.detach_().requires_grad_(True)

    def f(*args):
        it = iter(args)
        full = [next(it) if t is not None else None for t in ins]
        out, h, c = _C._rnn_layer(mode, full[0], full[1], full[2], full[3], full[4],
                                  full[5], bs, 0 if bs is not None else 3, reverse)
        return (out, h) if c is None else (out, h, c)
    assert gradcheck(f, tuple(live))


MODULE_GRADCHECK = [
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(proj_size=2, batch_first=True)),
    ("GRU", dict(bidirectional=True, bias=False)),
    ("RNN", dict(num_layers=2)),
    ("RNN", dict(nonlinearity="relu")),
]


@pytest.mark.parametrize("cls,kw", MODULE_GRADCHECK)
def test_gradcheck_module(cls, kw):
    ctorch.manual_seed(0)
    m = getattr(nn, cls)(3, 4, **kw).double()
    d = 2 if kw.get("bidirectional") else 1
    n = kw.get("num_layers", 1) * d
    p = kw.get("proj_size", 0) or 4
    x = _d(2, 4, 3)
    h0 = _d(n, 2 if kw.get("batch_first") else 4, p)
    if cls == "LSTM":
        c0 = _d(n, h0.shape[1], 4)
        assert gradcheck(lambda x, h, c: m(x, (h, c))[0], (x, h0, c0))
    else:
        assert gradcheck(lambda x, h: m(x, h), (x, h0))


def test_gradcheck_cells_and_packed():
    ctorch.manual_seed(0)
    for cls in ("LSTMCell", "GRUCell", "RNNCell"):
        m = getattr(nn, cls)(3, 2).double()
        x, h = _d(2, 3), _d(2, 2)
        if cls == "LSTMCell":
            assert gradcheck(lambda x, h, c: m(x, (h, c)), (x, h, _d(2, 2)))
        else:
            assert gradcheck(lambda x, h: m(x, h), (x, h))
    m = nn.LSTM(2, 3, bidirectional=True).double()

    def packed(x):
        p = R.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)
        out, (h, c) = m(p)
        return R.pad_packed_sequence(out)[0], h, c
    assert gradcheck(packed, (_d(4, 3, 2),))


def test_no_leaks():
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    cell = nn.GRUCell(3, 4)

    def step():
        x = ctorch.randn(5, 2, 3, requires_grad=True)
        p = R.pack_padded_sequence(x, [5, 3], enforce_sorted=False)
        out, (h, c) = m(p)
        y = R.pad_packed_sequence(out)[0].sum() + h.sum() + c.sum()
        y = y + cell(x[0]).sum()
        y.backward()
        with ctorch.no_grad():
            m(x)
    step()
    gc.collect()
    before = ctorch._C._live_counts()[:2]
    for _ in range(3):
        step()
    gc.collect()
    assert ctorch._C._live_counts()[:2] == before


def test_training_reduces_loss():
    """A small sequence classifier (LSTM + Linear) learns a fixed batch."""
    ctorch.manual_seed(0)
    lstm, head = nn.LSTM(4, 8, batch_first=True), nn.Linear(8, 2)
    x = ctorch.randn(16, 6, 4)
    y = (x.sum((1, 2)) > 0).long()
    params = list(lstm.parameters()) + list(head.parameters())
    opt = ctorch.optim.Adam(params, lr=0.05)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        out, (h, _) = lstm(x)
        loss = nn.functional.cross_entropy(head(h[-1]), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]


# --- differential against torch ------------------------------------------------

def _t(torch, c):
    return torch.tensor(c.detach().tolist(), dtype=getattr(torch, str(c.dtype).split(".")[1]))


def _same(torch, c, t, rtol, atol):
    assert tuple(c.shape) == tuple(t.shape)
    assert torch.allclose(_t(torch, c), t.detach(), rtol=rtol, atol=atol), (c, t)


@pytest.mark.parametrize("text,exc,msg", ERRORS, ids=[e[0][:40] for e in ERRORS])
def test_errors_against_torch(torch_ref, text, exc, msg):
    same_error(lambda: _eval_error(ctorch, text), lambda: _eval_error(torch_ref, text))


@pytest.mark.parametrize("case", rc.LAYER_CASES, ids=[c[0] for c in rc.LAYER_CASES])
def test_layers_against_torch(torch_ref, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_record(list(rc.run_layer(ctorch, case)), list(rc.run_layer(torch_ref, case)))


def _random_case(rng):
    cls = rng.choice(["RNN", "LSTM", "GRU"])
    kw = dict(input_size=rng.randint(1, 5), hidden_size=rng.randint(1, 6),
              num_layers=rng.randint(1, 3), bias=rng.random() < 0.8,
              batch_first=rng.random() < 0.5, bidirectional=rng.random() < 0.5)
    if cls == "RNN":
        kw["nonlinearity"] = rng.choice(["tanh", "relu"])
    if cls == "LSTM" and kw["hidden_size"] > 1 and rng.random() < 0.3:
        kw["proj_size"] = rng.randint(1, kw["hidden_size"] - 1)
    T, B = rng.randint(1, 6), rng.randint(1, 4)
    lengths = None
    if rng.random() < 0.4:
        lengths = [rng.randint(1, T) for _ in range(B)]
        lengths[rng.randrange(B)] = T
    return cls, kw, T, B, lengths, rng.random() < 0.5, rng.choice(["float32", "float64"])


def _run_random(lib, case, seed):
    cls, kw, T, B, lengths, with_state, dtype = case
    dt = getattr(lib, dtype)
    lib.manual_seed(seed)
    m = getattr(lib.nn, cls)(**kw).to(dt)
    shape = (B, T, kw["input_size"]) if kw["batch_first"] else (T, B, kw["input_size"])
    x = lib.randn(*shape, dtype=dt, requires_grad=True)
    inputs, args = [x], []
    if with_state:
        hs, cs = rc._state_shapes(kw, B)
        h0 = lib.randn(*hs, dtype=dt, requires_grad=True)
        inputs.append(h0)
        if cls == "LSTM":
            c0 = lib.randn(*cs, dtype=dt, requires_grad=True)
            inputs.append(c0)
            args = [(h0, c0)]
        else:
            args = [h0]
    inp = x
    if lengths is not None:
        inp = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=kw["batch_first"],
                                                    enforce_sorted=False)
    out, hidden = m(inp, *args)
    if lengths is not None:
        out = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=kw["batch_first"])[0]
    hidden = list(hidden) if isinstance(hidden, tuple) else [hidden]
    outs = [out] + hidden
    total = 0
    for k, o in enumerate(outs):
        total = total + (o * lib.arange(o.numel(), dtype=dt).reshape(o.shape).cos()).sum()
    total.backward()
    grads = [t.grad for t in inputs] + [p.grad for p in m.parameters()]
    return outs, grads, list(m.parameters())


def test_random_against_torch(torch_ref):
    """Random configurations (mode, sizes, layers, directions, batch_first,
    bias, projections, packed lengths, float32 / float64): the same seed
    gives the same weights; outputs, states and every gradient agree."""
    rng = random.Random(1234)
    for i in range(40):
        case = _random_case(rng)
        co, cg, cp = _run_random(ctorch, case, i)
        to, tg, tp = _run_random(torch_ref, case, i)
        for a, b in zip(cp, tp):                  # bit-identical initialization
            assert _t(torch_ref, a).equal(b.detach()), case
        tol = (1e-5, 1e-6) if case[-1] == "float32" else (1e-10, 1e-12)
        for a, b in zip(co + cg, to + tg):
            _same(torch_ref, a, b, *tol)


def test_cells_against_torch(torch_ref):
    rng = random.Random(7)
    for i in range(20):
        cls = rng.choice(["LSTMCell", "GRUCell", "RNNCell"])
        kw = dict(input_size=rng.randint(1, 5), hidden_size=rng.randint(1, 5),
                  bias=rng.random() < 0.8)
        if cls == "RNNCell":
            kw["nonlinearity"] = rng.choice(["tanh", "relu"])
        batch = rng.choice([None, 1, 3])
        res = []
        for lib in (ctorch, torch_ref):
            lib.manual_seed(i)
            m = getattr(lib.nn, cls)(**kw)
            shape = (kw["input_size"],) if batch is None else (batch, kw["input_size"])
            x = lib.randn(*shape, requires_grad=True)
            state = None
            for _ in range(3):
                state = m(x, state)
            outs = list(state) if isinstance(state, tuple) else [state]
            sum(o.sum() * (k + 1) for k, o in enumerate(outs)).backward()
            res.append(outs + [x.grad] + [p.grad for p in m.parameters()])
        for a, b in zip(*res):
            _same(torch_ref, a, b, 1e-5, 1e-6)


def test_dropout_masks_against_torch(torch_ref):
    """Dropout between layers draws torch's masks (same seed, same order)."""
    res = []
    for lib in (ctorch, torch_ref):
        lib.manual_seed(0)
        m = lib.nn.LSTM(5, 7, num_layers=3, dropout=0.4, bidirectional=True)
        x = lib.randn(4, 3, 5)
        out, (h, c) = m(x)
        res.append([out, h, c])
    for a, b in zip(*res):
        _same(torch_ref, a, b, 1e-5, 1e-6)


def test_pack_utilities_against_torch(torch_ref):
    rng = random.Random(3)
    for i in range(10):
        B, T = rng.randint(1, 4), rng.randint(1, 5)
        lengths = [rng.randint(1, T) for _ in range(B)]
        bf = rng.random() < 0.5
        res = []
        for lib in (ctorch, torch_ref):
            lib.manual_seed(i)
            x = lib.randn(*((B, T, 2) if bf else (T, B, 2)), dtype=lib.float64)
            p = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=bf,
                                                      enforce_sorted=False)
            padded, lens = lib.nn.utils.rnn.pad_packed_sequence(
                p, batch_first=bf, padding_value=-1.5, total_length=T + 1)
            res.append((p.data.tolist(), p.batch_sizes.tolist(), p.sorted_indices.tolist(),
                        padded.tolist(), list(padded.stride()), lens.tolist()))
        assert res[0] == res[1]
