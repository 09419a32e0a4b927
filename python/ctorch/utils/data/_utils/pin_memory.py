"""Copying batches into pinned (page-locked) memory
(torch.utils.data._utils.pin_memory).  DataLoader pins only where a CUDA
device is available, so on a CPU-only ctorch pin_memory=True is accepted
and changes nothing, as in a CPU-only torch."""
import collections
import queue

from . import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper
from .collate import string_classes


def _pin_memory_loop(in_queue, out_queue, device_id, done_event, device):
    """The pinning thread: batches from in_queue, pinned, to out_queue."""
    from .... import _C, cuda
    _C.set_num_threads(1)
    cuda.set_device(device_id)
    while not done_event.is_set():
        try:
            r = in_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        idx, data = r
        if not done_event.is_set() and not isinstance(data, ExceptionWrapper):
            try:
                data = pin_memory(data, device)
            except Exception:
                data = ExceptionWrapper(
                    where="in pin memory thread for device {}".format(device_id))
            r = (idx, data)
        while not done_event.is_set():
            try:
                out_queue.put(r, timeout=MP_STATUS_CHECK_INTERVAL)
                break
            except queue.Full:
                continue
        del r, idx, data


def pin_memory(data, device=None):
    """data with every tensor inside it pinned (tuples become lists)."""
    from .... import Tensor
    if isinstance(data, Tensor):
        return data.pin_memory(device)
    if isinstance(data, string_classes):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({k: pin_memory(v, device) for k, v in data.items()})
        except TypeError:
            return {k: pin_memory(v, device) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(pin_memory(v, device) for v in data))
    if isinstance(data, tuple):
        return [pin_memory(v, device) for v in data]
    if isinstance(data, collections.abc.Sequence):
        try:
            return type(data)([pin_memory(v, device) for v in data])
        except TypeError:
            return [pin_memory(v, device) for v in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
