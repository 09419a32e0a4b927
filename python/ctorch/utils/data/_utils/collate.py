"""default_collate and default_convert (torch.utils.data._utils.collate):
turning a list of samples into a batch, and a sample into tensors.

collate() walks the structure of the first sample: a type registered in
collate_fn_map (exactly, else the first isinstance match in the map's
order) is handled by its function; mappings, named tuples and sequences
are collated field by field.  numpy's types join default_collate_fn_map
when numpy has been imported (a batch cannot hold arrays before that), at
the place torch's map has them.
"""
import collections
import re
import sys
from typing import Callable, Dict, Optional, Tuple, Type, Union

from .... import _C
from ...._C import float64
from ...._tensor import Tensor
from ....storage import _shared_empty
from . import worker as _worker

np_str_obj_array_pattern = re.compile(r"[SaUO]")
string_classes = (str, bytes)

_Map = Optional[Dict[Union[Type, Tuple[Type, ...]], Callable]]


def default_convert(data):
    """numpy arrays and scalars (not of strings or objects) become tensors,
    inside mappings, named tuples and sequences too (tuples become lists);
    everything else is returned as it is.  DataLoader's collate_fn when
    automatic batching is off."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" \
                and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _C.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            # a mapping type whose constructor takes no dict
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, string_classes):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            # a sequence type whose constructor takes no list (range)
            return [default_convert(d) for d in data]
    return data


default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def collate(batch, *, collate_fn_map: _Map = None):
    """Collate batch (a list of samples) using the functions of
    collate_fn_map for the leaf types; each is called as
    fn(samples, collate_fn_map=collate_fn_map)."""
    if not _numpy_registered and "numpy" in sys.modules:
        _register_numpy()
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            return elem_type({key: collate([d[key] for d in batch],
                                           collate_fn_map=collate_fn_map)
                              for key in elem})
        except TypeError:
            # a mapping type whose constructor takes no dict
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                    for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            return elem_type([collate(samples, collate_fn_map=collate_fn_map)
                              for samples in transposed])
        except TypeError:
            # a sequence type whose constructor takes no list (range)
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map: _Map = None):
    out = None
    if _worker.get_worker_info() is not None:
        # in a worker: stack straight into fresh shared memory, which the
        # result queue then sends as a handle, without a copy (torch's
        # errors follow: out= refuses tensors that require grad, and a
        # first sample of a narrower dtype than the others)
        elem = batch[0]
        out = _shared_empty((len(batch),) + tuple(elem.shape), elem.dtype)
    return _C.stack(batch, 0, out=out)


def collate_numpy_array_fn(batch, *, collate_fn_map: _Map = None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_C.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map: _Map = None):
    return _C.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map: _Map = None):
    return _C.tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map: _Map = None):
    return _C.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map: _Map = None):
    return batch


default_collate_fn_map: Dict[Union[Type, Tuple[Type, ...]], Callable] = {
    Tensor: collate_tensor_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    string_classes: collate_str_fn,
}
_numpy_registered = False


def _register_numpy():
    """Put numpy's array and scalar types into default_collate_fn_map right
    after Tensor, where torch's map has them (the isinstance fallback goes
    in order: numpy.float64 is also a float), keeping any entry a user has
    set for them."""
    global _numpy_registered
    _numpy_registered = True
    np = sys.modules["numpy"]
    items = list(default_collate_fn_map.items())
    at = next((i + 1 for i, (k, _) in enumerate(items) if k is Tensor), 0)
    added = [(k, f) for k, f in [(np.ndarray, collate_numpy_array_fn),
                                 ((np.bool_, np.number, np.object_), collate_numpy_scalar_fn)]
             if k not in default_collate_fn_map]
    default_collate_fn_map.clear()
    default_collate_fn_map.update(items[:at] + added + items[at:])


if "numpy" in sys.modules:
    _register_numpy()


def default_collate(batch):
    """Stack a batch into tensors with a new first dimension: tensors are
    stacked, numpy arrays and numbers become tensors (floats as float64),
    strings and bytes stay lists, and mappings, named tuples and sequences
    are collated field by field (tuples become lists)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
