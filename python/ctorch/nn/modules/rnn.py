"""RNN, LSTM, GRU and their cells, as PyTorch 1.13 defines them: the same
parameters in the same order and with the same names, the same
initialization (uniform in +-1/sqrt(hidden_size) over self.parameters(),
so seeded weights are bit-identical), checks, messages and reprs.

The computation is PyTorch's CPU path: per layer and direction the input
side of the gates for all steps is one matmul (addmm), and the recurrence
runs in C (_C._rnn_layer: per step one gemm with W_hh and the fused cell,
and its backward in one pass); on a device it is composed of device ops
per step (_device_layer).  Dropout between layers is F.dropout on
the layer's output, in torch's order, so it draws the same masks."""
import math
import numbers
import warnings

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module, _torch_names

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell",
           "GRUCell"]


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def apply_permutation(tensor, permutation, dim=1):
    warnings.warn("apply_permutation is deprecated, please use "
                  "tensor.index_select(dim, permutation) instead")
    return _apply_permutation(tensor, permutation, dim)


def _device_layer(mode, gx, w_hh, b_hh, w_hr, h0, c0, batch_sizes, nsteps, reverse):
    """_C._rnn_layer for device tensors, composed of device ops one step at
    a time (the hidden side one addmm, the cell pointwise ops), so autograd
    records it and the gradients stay on the device.  Steps as Note [Packed
    steps] (aten/cpu/rnn.c): step t updates the first batch_sizes[t] rows
    of the states, the others keep theirs."""
    if batch_sizes is None:
        sizes = [h0.shape[0]] * nsteps
    else:
        sizes = [int(b) for b in batch_sizes.tolist()]
    offs = [0]
    for b in sizes:
        offs.append(offs[-1] + b)
    if offs[-1] != gx.shape[0]:
        raise RuntimeError("rnn: the steps cover %d rows but the input has %d"
                           % (offs[-1], gx.shape[0]))
    h, c = h0, c0
    outs = [None] * len(sizes)
    for t in (reversed(range(len(sizes))) if reverse else range(len(sizes))):
        bs = sizes[t]
        x, hp = gx[offs[t]:offs[t + 1]], h[:bs]
        gh = _C.addmm(b_hh, hp, w_hh.t()) if b_hh is not None else _C.mm(hp, w_hh.t())
        if mode == "LSTM":
            xi, xf, xg, xo = (x + gh).chunk(4, 1)
            cn = xf.sigmoid() * c[:bs] + xi.sigmoid() * xg.tanh()
            hn = xo.sigmoid() * cn.tanh()
            if w_hr is not None:
                hn = _C.mm(hn, w_hr.t())
            c = cn if bs == c.shape[0] else _C.cat([cn, c[bs:]], 0)
        elif mode == "GRU":
            xr, xz, xn = x.chunk(3, 1)
            hr, hz, hn_ = gh.chunk(3, 1)
            z = (xz + hz).sigmoid()
            n = (xn + hn_ * (xr + hr).sigmoid()).tanh()
            hn = (hp - n) * z + n
        else:
            hn = (x + gh).tanh() if mode == "RNN_TANH" else (x + gh).relu()
        h = hn if bs == h.shape[0] else _C.cat([hn, h[bs:]], 0)
        outs[t] = hn
    out = _C.cat(outs, 0) if outs else gx.new_empty((0, h0.shape[1]))
    return out, h, c


def _layer(mode, gx, w_hh, b_hh, w_hr, h0, c0, batch_sizes, nsteps, reverse):
    """One layer direction: _C._rnn_layer's fused steps on the CPU, the
    composite of _device_layer on a device."""
    if gx.device.type != "cpu" or h0.device.type != "cpu":
        return _device_layer(mode, gx, w_hh, b_hh, w_hr, h0, c0, batch_sizes, nsteps,
                             reverse)
    return _C._rnn_layer(mode, gx, w_hh, b_hh, w_hr, h0, c0, batch_sizes, nsteps, reverse)


def _rnn_impl(mode, input, batch_sizes, hx, cx, weights, has_biases, num_layers,
              dropout, train, bidirectional, batch_first, has_proj):
    """torch's _VF.rnn_tanh / rnn_relu / lstm / gru: (output, h_n, c_n or
    None).  input is [T, B, I] ([B, T, I] with batch_first) or, with
    batch_sizes, a PackedSequence's data; hx / cx are [layers * dirs, B, *]."""
    num_directions = 2 if bidirectional else 1
    if batch_sizes is None:
        if batch_first:
            input = input.transpose(0, 1)
        steps, batch = input.shape[0], input.shape[1]
        layer_input = input.reshape(steps * batch, input.shape[2])
    else:
        steps = None
        layer_input = input
    per_layer = (4 if has_biases else 2) + (1 if has_proj else 0)
    hs, cs = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(num_directions):
            k = layer * num_directions + direction
            w = weights[k * per_layer:(k + 1) * per_layer]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            if b_ih is not None:
                gx = _C.addmm(b_ih, layer_input, w[0].t())
            else:
                gx = _C.mm(layer_input, w[0].t())
            out, h, c = _layer(mode, gx, w[1], b_hh, w[-1] if has_proj else None,
                               hx[k], None if cx is None else cx[k], batch_sizes,
                               steps or 0, direction == 1)
            outputs.append(out)
            hs.append(h)
            cs.append(c)
        layer_output = outputs[0] if num_directions == 1 else _C.cat(outputs, 1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_output = F.dropout(layer_output, dropout, True)
        layer_input = layer_output
    output = layer_input
    if batch_sizes is None:
        output = output.view(steps, batch, output.shape[1])
        if batch_first:
            output = output.transpose(0, 1)
    h_n = _C.stack(hs, 0)
    c_n = _C.stack(cs, 0) if cx is not None else None
    return output, h_n, c_n


class RNNBase(Module):
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias",
                     "batch_first", "dropout", "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0., bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] "
                             "representing the probability of an element being "
                             "zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last "
                          "recurrent layer, so non-zero dropout expects "
                          "num_layers greater than 1, but got dropout={} and "
                          "num_layers={}".format(dropout, num_layers))
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        if mode == "LSTM":
            gate_size = 4 * hidden_size
        elif mode == "GRU":
            gate_size = 3 * hidden_size
        elif mode in ("RNN_TANH", "RNN_RELU"):
            gate_size = hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = (input_size if layer == 0
                                    else real_hidden_size * num_directions)
                w_ih = Parameter(_C.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(_C.empty((gate_size, real_hidden_size), **factory_kwargs))
                b_ih = Parameter(_C.empty(gate_size, **factory_kwargs))
                # the second bias is cuDNN's; torch keeps it everywhere
                b_hh = Parameter(_C.empty(gate_size, **factory_kwargs))
                if self.proj_size == 0:
                    layer_params = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                else:
                    w_hr = Parameter(_C.empty((proj_size, hidden_size), **factory_kwargs))
                    layer_params = ((w_ih, w_hh, b_ih, b_hh, w_hr) if bias
                                    else (w_ih, w_hh, w_hr))

                suffix = "_reverse" if direction == 1 else ""
                param_names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    param_names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if self.proj_size > 0:
                    param_names += ["weight_hr_l{}{}"]
                param_names = [x.format(layer, suffix) for x in param_names]

                for name, param in zip(param_names, layer_params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(param_names)
                self._all_weights.append(param_names)

        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            # keep self._flat_weights up to date if you do self.weight = ...
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """Resets parameter data pointer so that they can use faster code paths.

        torch does this for cuDNN only; on the CPU it is a no-op."""
        return None

    def _apply(self, fn):
        ret = super()._apply(fn)
        # the parameters may be new objects: refresh _flat_weights
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError("input must have {} dimensions, got {}".format(
                expected_input_dim, input.dim()))
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected {}, got {}".format(
                    self.input_size, input.size(-1)))

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        if self.proj_size > 0:
            return (self.num_layers * num_directions, mini_batch, self.proj_size)
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected_hidden_size)

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def __setstate__(self, d):
        super().__setstate__(d)
        if "all_weights" in d:
            self._all_weights = d["all_weights"]
        # modules saved before proj_size existed (PyTorch < 1.8)
        if "proj_size" not in d:
            self.proj_size = 0
        if isinstance(self._all_weights[0][0], str):
            return
        num_layers = self.num_layers
        num_directions = 2 if self.bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                suffix = "_reverse" if direction == 1 else ""
                weights = ["weight_ih_l{}{}", "weight_hh_l{}{}", "bias_ih_l{}{}",
                           "bias_hh_l{}{}", "weight_hr_l{}{}"]
                weights = [x.format(layer, suffix) for x in weights]
                if self.bias:
                    if self.proj_size > 0:
                        self._all_weights += [weights]
                        self._flat_weights_names.extend(weights)
                    else:
                        self._all_weights += [weights[:4]]
                        self._flat_weights_names.extend(weights[:4])
                else:
                    if self.proj_size > 0:
                        self._all_weights += [weights[:2]] + [weights[-1:]]
                        self._flat_weights_names.extend(weights[:2] + [weights[-1:]])
                    else:
                        self._all_weights += [weights[:2]]
                        self._flat_weights_names.extend(weights[:2])
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights]
                for weights in self._all_weights]

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        # copies, so the replica does not share the flat weights list
        replica._flat_weights = replica._flat_weights[:]
        replica._flat_weights_names = replica._flat_weights_names[:]
        return replica

    def _run(self, input, hx, cx, batch_sizes):
        return _rnn_impl(self.mode, input, batch_sizes, hx, cx, self._flat_weights,
                         self.bias, self.num_layers, self.dropout, self.training,
                         self.bidirectional, self.batch_first, self.proj_size > 0)


class RNN(RNNBase):
    """A multi-layer Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_(t-1) W_hh^T +
    b_hh), act tanh or relu (nonlinearity=)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(self.nonlinearity))
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return _single_state_forward(self, input, hx)


class LSTM(RNNBase):
    """A multi-layer LSTM: gates i, f, g, o from x_t and h_(t-1); c_t = f c_(t-1)
    + i g, h_t = o tanh(c_t) (times W_hr^T with proj_size > 0)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return (_apply_permutation(hx[0], permutation),
                _apply_permutation(hx[1], permutation))

    def forward(self, input, hx=None):
        orig_input = input
        batch_sizes = None
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
        else:
            batch_sizes = None
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            h_zeros = _C.zeros(self.num_layers * num_directions, max_batch_size,
                               real_hidden_size, dtype=input.dtype, device=input.device)
            c_zeros = _C.zeros(self.num_layers * num_directions, max_batch_size,
                               self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (h_zeros, c_zeros)
        else:
            if batch_sizes is None:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError(
                            "For batched 3-D input, hx and cx should also be 3-D but got "
                            f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError(
                            "For unbatched 2-D input, hx and cx should also be 2-D but "
                            f"got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, h_n, c_n = self._run(input, hx[0], hx[1], batch_sizes)
        hidden = (h_n, c_n)
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices,
                                           unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class GRU(RNNBase):
    """A multi-layer GRU: r, z = sigmoid(...), n = tanh(x W_in^T + b_in +
    r (h W_hn^T + b_hn)), h_t = (1 - z) n + z h_(t-1)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return _single_state_forward(self, input, hx)


def _single_state_forward(self, input, hx):
    """RNN and GRU: one hidden state (LSTM carries (h, c))."""
    orig_input = input
    if isinstance(orig_input, PackedSequence):
        input, batch_sizes, sorted_indices, unsorted_indices = input
        max_batch_size = int(batch_sizes[0])
    else:
        batch_sizes = None
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx should also be 2-D but got "
                        f"{hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        sorted_indices = None
        unsorted_indices = None
    if hx is None:
        num_directions = 2 if self.bidirectional else 1
        hx = _C.zeros(self.num_layers * num_directions, max_batch_size,
                      self.hidden_size, dtype=input.dtype, device=input.device)
    else:
        hx = self.permute_hidden(hx, sorted_indices)
    self.check_forward_args(input, hx, batch_sizes)
    output, hidden, _ = self._run(input, hx, None, batch_sizes)
    if isinstance(orig_input, PackedSequence):
        output_packed = PackedSequence(output, batch_sizes, sorted_indices,
                                       unsorted_indices)
        return output_packed, self.permute_hidden(hidden, unsorted_indices)
    if not is_batched:
        output = output.squeeze(batch_dim)
        hidden = hidden.squeeze(1)
    return output, self.permute_hidden(hidden, unsorted_indices)


# --- cells --------------------------------------------------------------------

def _check_cell_input(input, input_size):
    if input.size(1) != input_size:
        raise RuntimeError("input has inconsistent input_size: got {} expected {}".format(
            input.size(1), input_size))


def _check_cell_hidden(input, hx, hidden_size, label=0):
    if input.size(0) != hx.size(0):
        raise RuntimeError("Input batch size {} doesn't match hidden{} batch size {}"
                           .format(input.size(0), label, hx.size(0)))
    if hx.size(1) != hidden_size:
        raise RuntimeError("hidden{} has inconsistent hidden_size: got {}, expected {}"
                           .format(label, hx.size(1), hidden_size))


def _cell(mode, input, hx, cx, w_ih, w_hh, b_ih, b_hh):
    """torch's _VF.<mode>_cell: one step of the recurrence (h', c')."""
    _check_cell_input(input, w_ih.size(1))
    hidden_size = w_hh.size(1)
    _check_cell_hidden(input, hx, hidden_size, 0)
    if cx is not None:
        _check_cell_hidden(input, cx, hidden_size, 0)
    gx = F.linear(input, w_ih, b_ih)
    _, h, c = _layer(mode, gx, w_hh, b_hh, None, hx, cx, None, 1, False)
    return h, c


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty((num_chunks * hidden_size, input_size),
                                            **factory_kwargs))
        self.weight_hh = Parameter(_C.empty((num_chunks * hidden_size, hidden_size),
                                            **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)


class RNNCell(RNNCellBase):
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh",
                 device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        assert input.dim() in (1, 2), \
            f"RNNCell: Expected input to be 1-D or 2-D but received {input.dim()}-D tensor"
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _C.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                          device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise RuntimeError("Unknown nonlinearity: {}".format(self.nonlinearity))
        ret, _ = _cell(mode, input, hx, None, self.weight_ih, self.weight_hh,
                       self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    """One LSTM step: (h', c') from x and (h, c)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        assert input.dim() in (1, 2), \
            f"LSTMCell: Expected input to be 1-D or 2-D but received {input.dim()}-D tensor"
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _C.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                             device=input.device)
            hx = (zeros, zeros)
        else:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if not is_batched else hx
        ret = _cell("LSTM", input, hx[0], hx[1], self.weight_ih, self.weight_hh,
                    self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    """One GRU step: h' from x and h."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        assert input.dim() in (1, 2), \
            f"GRUCell: Expected input to be 1-D or 2-D but received {input.dim()}-D tensor"
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _C.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                          device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        ret, _ = _cell("GRU", input, hx, None, self.weight_ih, self.weight_hh,
                       self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


_torch_names(globals())
