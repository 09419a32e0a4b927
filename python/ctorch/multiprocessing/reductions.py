"""Pickling tensors and storages for another process (torch's
multiprocessing/reductions.py).

A tensor sent to another process moves its storage into shared memory
(ctorch/shm.h) and travels as (storage handle, dtype, offset, sizes,
strides); the receiver maps the same pages, so writes on either side are
seen by the other.

Note [One handle per storage]
Several tensors over one storage (the slices of torch.split, a tensor and
its views) must send that storage once.  Each shared storage gets one
_SharedStorage object here, alive while any pickling holds it; pickle's
memo then writes it once per message.  Under the spawn start method a
descriptor becomes an entry of the child's fds_to_keep, which must not
repeat: PyTorch 1.13 sends one per tensor and dies with "ValueError: bad
value(s) in fds_to_keep" for a tuple of slices.  A descriptor that a later
message to the same child needs again is duplicated.
"""
import os
import weakref
import multiprocessing
from multiprocessing import context, util
from multiprocessing.reduction import ForkingPickler

from .. import _mp_hook

from .. import _C
from .._tensor import Tensor
from .. import storage as _storage

_FD, _NAME = 0, 1
_handles = weakref.WeakValueDictionary()
# the sharing mechanism itself lives beside the storages (share_memory_
# uses it without loading this module)
_strategy_kind = _storage._strategy_kind
_register_cleanup = _storage._register_cleanup
_share = _storage._share


def _dup_fd(fd):
    """multiprocessing.reduction.DupFd, with each descriptor at most once in
    a spawning child's fds_to_keep (Note [One handle per storage])."""
    popen = context.get_spawning_popen()
    if popen is not None:
        sent = popen.__dict__.setdefault("_ctorch_fds", set())
        if fd in sent:
            fd = os.dup(fd)
            util.Finalize(popen, os.close, args=(fd,))
        sent.add(fd)
    return multiprocessing.reduction.DupFd(fd)


class _SharedStorage:
    """One shared storage on its way out (Note [One handle per storage])."""
    __slots__ = ("ref", "__weakref__")

    def __init__(self, ref):
        self.ref = ref

    def __reduce__(self):
        handle = self.ref._shm_handle()
        nbytes = self.ref.nbytes()
        if isinstance(handle, str):
            self.ref._shm_incref()      # the receiver's count, taken over there
            return (_rebuild_storage_name, (handle, nbytes))
        return (_rebuild_storage_fd, (_dup_fd(handle), nbytes))


def _shared(ref):
    """The _SharedStorage of a storage handle, moving it to shared memory
    first if needed (or into the kind the strategy now asks for)."""
    kind = _strategy_kind()
    handle = ref._shm_handle()
    if handle is None or isinstance(handle, str) != (kind == _NAME):
        _share(ref, kind)
    h = _handles.get(ref)
    if h is None:
        h = _handles[ref] = _SharedStorage(ref)
    return h


def _rebuild_storage_fd(df, nbytes):
    fd = df.detach()
    try:
        return _C.StorageBase._from_shm(fd, nbytes)
    finally:
        os.close(fd)


def _rebuild_storage_name(name, nbytes):
    _register_cleanup()
    return _C.StorageBase._from_shm(name, nbytes)


# --- tensors ----------------------------------------------------------------

def _rebuild_tensor(cls, shared, dtype, offset, size, stride, requires_grad,
                    qparams=None):
    t = shared._tensor(dtype, offset, size, stride, *(qparams or ()))
    if cls is not Tensor:
        return Tensor._make_subclass(cls, t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, "
            "since autograd does not support crossing process boundaries.  "
            "If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue).")
    qparams = None
    if tensor.is_quantized:
        qparams = (tensor.q_scale(), tensor.q_zero_point())
    return (_rebuild_tensor, (type(tensor), _shared(tensor._storage_ref()), tensor.dtype,
                              tensor.storage_offset(), tuple(tensor.size()),
                              tensor.stride(), tensor.requires_grad, qparams))


# --- storages ---------------------------------------------------------------

def _rebuild_untyped(shared):
    return _storage.UntypedStorage._from_ref(shared)


def _rebuild_typed(cls, shared, dtype):
    if cls is _storage.TypedStorage:
        return cls._from_ref(shared, dtype)
    return cls._from_ref(shared)


def reduce_untyped_storage(storage):
    return (_rebuild_untyped, (_shared(storage._ref),))


def reduce_typed_storage(storage):
    return (_rebuild_typed, (type(storage), _shared(storage._ref), storage.dtype))


def init_reductions():
    """Register the reducers with multiprocessing's ForkingPickler directly
    (the ones _mp_hook registered load this module on first use)."""
    for cls, name in _mp_hook.reduced_classes():
        ForkingPickler.register(cls, globals()[name])
