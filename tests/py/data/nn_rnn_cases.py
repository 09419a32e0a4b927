"""Fixed configurations of the recurrent layers (nn.RNN / LSTM / GRU, the
cells, the pack / pad functions) whose results test_nn_rnn.py compares with
PyTorch 1.13's, recorded in nn_rnn_expected.py by gen_nn_rnn_expected.py.

A runner takes the module (ctorch or torch) and returns plain Python values,
so the same code makes the records and checks them: modules are built after
manual_seed (their weights come from the RNG, bit-identical in both) and
run in float64 on deterministic inputs; the gradients are those of a fixed
weighting of every output."""
import math


def wave(shape, a=1.3, b=0.2, scale=1.0):
    """Deterministic values for a tensor of `shape` (a flat list)."""
    n = 1
    for s in shape:
        n *= s
    return [scale * math.sin(a * i + b) + 0.1 * (i % 3) for i in range(n)]


def tensor(m, shape, a=1.3, b=0.2, dtype=None, grad=True):
    t = m.tensor(wave(shape, a, b), dtype=dtype or m.float64).reshape(shape)
    return t.requires_grad_(grad)


def _flat(t):
    return t.detach().flatten().tolist()


def _weighted_backward(m, outs):
    """Backward of sum(out * wave(out.shape)) over the outputs."""
    total = 0
    for k, out in enumerate(outs):
        wt = m.tensor(wave(list(out.shape), 0.7, 1.1 + k), dtype=out.dtype)
        total = total + (out * wt.reshape(out.shape)).sum()
    total.backward()


# (name, class, constructor kwargs, input shape, initial state given, train)
LAYER_CASES = [
    ("lstm", "LSTM", dict(input_size=3, hidden_size=4), [4, 2, 3], True, False),
    ("lstm_2l_bidir_bf", "LSTM",
     dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True, batch_first=True),
     [2, 5, 3], True, False),
    ("lstm_proj_bidir", "LSTM",
     dict(input_size=3, hidden_size=5, proj_size=2, bidirectional=True), [3, 2, 3], False,
     False),
    ("lstm_unbatched_2l", "LSTM", dict(input_size=3, hidden_size=4, num_layers=2), [4, 3],
     True, False),
    ("lstm_dropout_3l", "LSTM",
     dict(input_size=3, hidden_size=4, num_layers=3, dropout=0.5), [3, 2, 3], False, True),
    ("gru", "GRU", dict(input_size=3, hidden_size=4), [4, 2, 3], True, False),
    ("gru_2l_nobias", "GRU", dict(input_size=3, hidden_size=3, num_layers=2, bias=False),
     [3, 2, 3], True, False),
    ("gru_bidir_bf", "GRU",
     dict(input_size=2, hidden_size=3, bidirectional=True, batch_first=True), [2, 4, 2],
     False, False),
    ("rnn_tanh", "RNN", dict(input_size=3, hidden_size=4), [4, 2, 3], True, False),
    ("rnn_relu_2l_bidir", "RNN",
     dict(input_size=3, hidden_size=3, num_layers=2, bidirectional=True,
          nonlinearity="relu"), [3, 2, 3], True, False),
]

# (name, class, kwargs, padded input shape [T, B, I] (batch_first: [B, T, I]),
#  lengths, initial state given)
PACKED_CASES = [
    ("lstm_packed_2l_bidir", "LSTM",
     dict(input_size=2, hidden_size=3, num_layers=2, bidirectional=True), [4, 3, 2],
     [2, 4, 1], True),
    ("gru_packed_bf", "GRU", dict(input_size=2, hidden_size=3, batch_first=True), [3, 5, 2],
     [5, 5, 2], False),
    ("rnn_packed_bidir", "RNN", dict(input_size=2, hidden_size=2, bidirectional=True),
     [3, 4, 2], [1, 3, 2, 3], True),
]

# (name, class, kwargs, input shape, state given)
CELL_CASES = [
    ("lstm_cell", "LSTMCell", dict(input_size=3, hidden_size=4), [2, 3], True),
    ("lstm_cell_unbatched", "LSTMCell", dict(input_size=3, hidden_size=4), [3], True),
    ("gru_cell", "GRUCell", dict(input_size=3, hidden_size=4), [2, 3], True),
    ("gru_cell_nobias", "GRUCell", dict(input_size=3, hidden_size=2, bias=False), [2, 3],
     False),
    ("rnn_cell", "RNNCell", dict(input_size=3, hidden_size=4), [2, 3], True),
    ("rnn_cell_relu", "RNNCell", dict(input_size=3, hidden_size=4, nonlinearity="relu"),
     [2, 3], True),
]


def _state_shapes(kwargs, batch):
    d = 2 if kwargs.get("bidirectional") else 1
    n = kwargs.get("num_layers", 1) * d
    h = kwargs["hidden_size"]
    p = kwargs.get("proj_size", 0) or h
    return ([n, batch, p], [n, batch, h]) if batch is not None else ([n, p], [n, h])


def _module(m, cls, kwargs, seed):
    m.manual_seed(seed)
    return getattr(m.nn, cls)(**kwargs).double()


def _result(m, outs, inputs, mod):
    _weighted_backward(m, outs)
    grads = {"input:" + str(k): _flat(t.grad) for k, t in enumerate(inputs)}
    for name, p in mod.named_parameters():
        grads[name] = _flat(p.grad)
    return [list(o.shape) for o in outs], [_flat(o) for o in outs], grads


def run_layer(m, case):
    name, cls, kwargs, shape, with_state, train = case
    mod = _module(m, cls, kwargs, 3)
    mod.train(train)
    x = tensor(m, shape)
    inputs = [x]
    args = []
    if with_state:
        batched = len(shape) == 3
        bdim = 0 if kwargs.get("batch_first") else 1
        hs, cs = _state_shapes(kwargs, shape[bdim] if batched else None)
        h0 = tensor(m, hs, 0.9, 0.4)
        inputs.append(h0)
        if cls == "LSTM":
            c0 = tensor(m, cs, 1.7, 0.8)
            inputs.append(c0)
            args = [(h0, c0)]
        else:
            args = [h0]
    m.manual_seed(11)           # the dropout masks
    out, hidden = mod(x, *args)
    hidden = list(hidden) if isinstance(hidden, tuple) else [hidden]
    return _result(m, [out] + hidden, inputs, mod)


def run_packed(m, case):
    name, cls, kwargs, shape, lengths, with_state = case
    R = m.nn.utils.rnn
    bf = kwargs.get("batch_first", False)
    mod = _module(m, cls, kwargs, 5)
    x = tensor(m, shape)
    packed = R.pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=False)
    inputs = [x]
    args = []
    if with_state:
        hs, cs = _state_shapes(kwargs, len(lengths))
        h0 = tensor(m, hs, 0.9, 0.4)
        inputs.append(h0)
        if cls == "LSTM":
            c0 = tensor(m, cs, 1.7, 0.8)
            inputs.append(c0)
            args = [(h0, c0)]
        else:
            args = [h0]
    out, hidden = mod(packed, *args)
    hidden = list(hidden) if isinstance(hidden, tuple) else [hidden]
    padded, lens = R.pad_packed_sequence(out, batch_first=bf, padding_value=-2.0)
    info = [packed.batch_sizes.tolist(), packed.sorted_indices.tolist(),
            packed.unsorted_indices.tolist(), lens.tolist(), out.batch_sizes.tolist()]
    return [info, _flat(packed.data)] + list(_result(m, [padded] + hidden, inputs, mod))


def run_cell(m, case):
    name, cls, kwargs, shape, with_state = case
    mod = _module(m, cls, kwargs, 7)
    x = tensor(m, shape)
    inputs = [x]
    hshape = ([shape[0]] if len(shape) == 2 else []) + [kwargs["hidden_size"]]
    state = None
    if with_state:
        h = tensor(m, hshape, 0.9, 0.4)
        inputs.append(h)
        state = h
        if cls == "LSTMCell":
            c = tensor(m, hshape, 1.7, 0.8)
            inputs.append(c)
            state = (h, c)
    outs = []
    for _ in range(3):          # three steps, each from the last
        state = mod(x, state)
    outs = list(state) if isinstance(state, tuple) else [state]
    return _result(m, outs, inputs, mod)


def lstm_float32(m):
    """nn.LSTM(3, 4, 2 layers, bidirectional) in float32: output and h_n."""
    m.manual_seed(3)
    mod = m.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = tensor(m, [5, 2, 3], dtype=m.float32)
    out, (h, c) = mod(x)
    _weighted_backward(m, [out, h, c])
    return [_flat(out), _flat(h), _flat(c), _flat(x.grad), _flat(mod.weight_hh_l1.grad)]


def module_init(m):
    """The float32 parameters of seeded modules, by name (bit-exact)."""
    m.manual_seed(2)
    res = {}
    for cls, kwargs in [("LSTM", dict(input_size=2, hidden_size=3, num_layers=2,
                                      bidirectional=True, proj_size=1)),
                        ("GRU", dict(input_size=2, hidden_size=2, bias=False)),
                        ("RNN", dict(input_size=1, hidden_size=2, nonlinearity="relu")),
                        ("LSTMCell", dict(input_size=2, hidden_size=1)),
                        ("GRUCell", dict(input_size=1, hidden_size=2)),
                        ("RNNCell", dict(input_size=2, hidden_size=1, bias=False))]:
        mod = getattr(m.nn, cls)(**kwargs)
        res[cls] = [(n, list(p.shape), p.flatten().tolist())
                    for n, p in mod.named_parameters()]
    return res


def pad_pack_functions(m):
    """pad_sequence, pack_sequence, unpack_sequence, unpad_sequence on
    fixed sequences (values, batch sizes and indices)."""
    R = m.nn.utils.rnn
    seqs = [tensor(m, [n, 2], 0.3 * n, 0.1, grad=False) for n in (2, 4, 3)]
    res = {}
    res["pad"] = _flat(R.pad_sequence(seqs))
    res["pad_bf"] = _flat(R.pad_sequence(seqs, batch_first=True, padding_value=9.0))
    p = R.pack_sequence(seqs, enforce_sorted=False)
    res["pack"] = (_flat(p.data), p.batch_sizes.tolist(), p.sorted_indices.tolist(),
                   p.unsorted_indices.tolist())
    res["unpack"] = [_flat(t) for t in R.unpack_sequence(p)]
    padded, lens = R.pad_packed_sequence(p, batch_first=True, total_length=6)
    res["pad_packed_bf"] = (list(padded.shape), list(padded.stride()), _flat(padded),
                            lens.tolist())
    res["unpad"] = [_flat(t) for t in R.unpad_sequence(padded, lens, batch_first=True)]
    sorted_seqs = [seqs[1], seqs[2], seqs[0]]
    q = R.pack_sequence(sorted_seqs)
    res["pack_sorted"] = (_flat(q.data), q.batch_sizes.tolist(), q.sorted_indices,
                          q.unsorted_indices)
    return res
