"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and
unpack sequences, as PyTorch 1.13 defines them.  torch's C++ halves
(_pack_padded_sequence, _pad_packed_sequence, pad_sequence) are written
here with the same slicing, so results, batch sizes, lengths and error
messages are torch's and gradients flow through ordinary ops."""
from collections import namedtuple
from collections.abc import Iterable

import ctorch

from ... import _C
from ..modules.module import _torch_names

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

PackedSequence_ = namedtuple("PackedSequence_",
                             ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    """Holds the data and list of batch_sizes of a packed sequence: rows of
    data are the sequences' t-th elements for t = 0, 1, ..., batch_sizes[t]
    of them (the sequences still running at t), longest sequence first.
    Made by pack_padded_sequence / pack_sequence, never by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def cuda(self, *args, **kwargs):
        ex = _C.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs):
        ex = _C.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=ctorch.double)

    def float(self):
        return self.to(dtype=ctorch.float)

    def half(self):
        return self.to(dtype=ctorch.half)

    def long(self):
        return self.to(dtype=ctorch.long)

    def int(self):
        return self.to(dtype=ctorch.int)

    def short(self):
        return self.to(dtype=ctorch.short)

    def char(self):
        return self.to(dtype=ctorch.int8)

    def byte(self):
        return self.to(dtype=ctorch.uint8)

    def to(self, *args, **kwargs):
        """data.to(*args, **kwargs); the indices follow to data's device;
        batch_sizes stay on the cpu.  self when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices = bind(self.sorted_indices, lambda t: t.to(data.device, **kwargs))
        unsorted_indices = bind(self.unsorted_indices,
                                lambda t: t.to(data.device, **kwargs))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should "
                "never be created manually. They should be instantiated by functions "
                "like pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    assert isinstance(data, (list, tuple)) and len(data) == 2
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None,
                          unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """The inverse permutation (None for None)."""
    if permutation is None:
        return None
    output = _C.empty_like(permutation)
    output.scatter_(0, permutation, _C.arange(0, permutation.numel(),
                                              device=permutation.device))
    return output


def _check_long_1d(t, what):
    if t.dim() != 1 or t.dtype != ctorch.int64 or t.device.type != "cpu":
        raise RuntimeError("'%s' argument should be a 1D CPU int64 tensor, but got %dD "
                           "%s %s tensor" % (what, t.dim(), t.device.type,
                                             t.type().split(".")[-1][:-len("Tensor")]))


def _pack_padded(input, lengths_t, batch_first):
    """torch's _pack_padded_sequence: (data, batch_sizes) of a padded
    [T, B, *] input (sorted by decreasing length)."""
    if batch_first:
        input = input.transpose(0, 1)
    _check_long_1d(lengths_t, "lengths")
    batch_size = input.size(1)
    lengths = lengths_t.tolist()
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(lengths) != batch_size:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got "
                           "%d (batch_size=%d)" % (len(lengths), batch_size))
    if lengths[batch_size - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    for i in range(batch_size - 1):
        if lengths[batch_size - 1 - i] > lengths[batch_size - 2 - i]:
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` "
                "is True. You can pass `enforce_sorted=False` to pack_padded_sequence "
                "and/or pack_sequence to sidestep this requirement if you do not need "
                "ONNX exportability.")
    # the sequences still running over [prev_l, l) are the first `current`
    steps, batch_sizes = [], []
    step_shape = (-1,) + tuple(input.shape[2:])
    prev_l = 0
    for i in range(batch_size):
        l = lengths[batch_size - 1 - i]
        if l > prev_l:
            current = batch_size - i
            steps.append(input[prev_l:l, :current].reshape(step_shape))
            batch_sizes.extend([current] * (l - prev_l))
            prev_l = l
    return _C.cat(steps), _C.tensor(batch_sizes, dtype=ctorch.int64)


def _pad_packed(data, batch_sizes_t, batch_first, padding_value, total_length):
    """torch's _pad_packed_sequence: (padded, lengths)."""
    _check_long_1d(batch_sizes_t, "batch_sizes")
    batch_sizes = batch_sizes_t.tolist()
    max_batch_size = batch_sizes[0]
    max_real_seq_length = len(batch_sizes)
    max_seq_length = max_real_seq_length
    if total_length > 0:
        if total_length < max_seq_length:
            raise RuntimeError(
                "Expected total_length to be at least the length of the longest sequence "
                "in input, but got total_length=%d and max sequence length being %d"
                % (total_length, max_seq_length))
        max_seq_length = total_length
    trailing = tuple(data.shape[1:])
    output = _C.full((max_seq_length, max_batch_size) + trailing, padding_value,
                     dtype=data.dtype, device=data.device)
    lengths = [0] * max_batch_size
    at = max_batch_size - 1
    data_offset, prev_batch_size, prev_i = 0, max_batch_size, 0
    for i in range(max_real_seq_length + 1):
        batch_size = batch_sizes[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            # steps [prev_i, i) all had prev_batch_size rows
            n = prev_batch_size * (i - prev_i)
            rows = data[data_offset:data_offset + n]
            output[prev_i:i, :prev_batch_size].copy_(
                rows.view((i - prev_i, prev_batch_size) + trailing))
            data_offset += n
            prev_i = i
        for _ in range(prev_batch_size - batch_size):
            lengths[at] = i
            at -= 1
        prev_batch_size = batch_size
    if batch_first:
        output = output.transpose(0, 1)
    return output, _C.tensor(lengths, dtype=ctorch.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded [T, B, *] (batch_first: [B, T, *]) batch of sequences
    of the given lengths.  enforce_sorted: the lengths must not increase;
    otherwise the batch is sorted here and the permutation kept."""
    lengths = _C.as_tensor(lengths, dtype=ctorch.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = _C.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded batch, lengths), the
    batch padded with padding_value to total_length steps when given."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence "
                "in input, but got total_length={} and max sequence length being {}"
                .format(total_length, max_seq_length))
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                         padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded_output.index_select(batch_dim, unsorted_indices),
                lengths[unsorted_indices.cpu()])
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    """Stacks sequences of different lengths ([L_i, *] each) into one
    [max L, B, *] (batch_first: [B, max L, *]) tensor, padding with
    padding_value."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got "
                           f"arg of type: {type(sequences)}")
    sequences = tuple(sequences)
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    trailing = tuple(first.shape[1:])
    max_len = max(s.size(0) for s in sequences)
    n = len(sequences)
    dims = (n, max_len) if batch_first else (max_len, n)
    out = _C.full(dims + trailing, padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        if batch_first:
            out.select(0, i).narrow(0, 0, length).copy_(seq)
        else:
            out.narrow(0, 0, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, as a list of [L_i, *] tensors."""
    unpadded_sequences = []
    if not batch_first:
        # (torch transposes the caller's tensor in place here)
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = _C.arange(max_length)
    for seq, length in zip(padded_sequences, lengths):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence of pad_sequence(sequences)."""
    lengths = _C.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds (the inverse of
    pack_sequence)."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)


_torch_names(globals())
