"""torch._utils: the functions pickles call to rebuild tensors and
parameters (the names torch.save writes: torch._utils._rebuild_tensor_v2,
_rebuild_parameter, _rebuild_qtensor), and small helpers of torch's."""
from collections import OrderedDict

from . import _C
from .storage import TypedStorage, UntypedStorage

__all__ = []


def _element_size(dtype):
    """The size in bytes of one element of dtype."""
    if not isinstance(dtype, _C.dtype):
        raise RuntimeError(f"expected torch.dtype, but got {type(dtype)}")
    return dtype.itemsize


def _storage_ref_and_dtype(storage):
    if isinstance(storage, TypedStorage):
        return storage._ref, storage.dtype
    if isinstance(storage, UntypedStorage):
        return storage._ref, _C.uint8
    raise TypeError("expected a storage, but got " + type(storage).__name__)


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor over storage with the given geometry (torch's set_), after
    the bounds check of PyTorch's setStorage."""
    ref, dtype = _storage_ref_and_dtype(storage)
    return ref._tensor(dtype, storage_offset, tuple(size), tuple(stride))


def _set_hooks(tensor, backward_hooks):
    # torch keeps this for backward compatibility only; hooks are never
    # saved (Note [Don't serialize hooks]), so the dict is normally empty
    if backward_hooks:
        tensor._backward_hooks = backward_hooks


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                       backward_hooks):
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        tensor.requires_grad = requires_grad
    _set_hooks(tensor, backward_hooks)
    return tensor


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params,
                     requires_grad, backward_hooks):
    from ._layouts import per_tensor_affine
    qscheme = quantizer_params[0]
    if qscheme is not per_tensor_affine and qscheme != "per_tensor_affine":
        raise RuntimeError("Can't deserialize quantized tensor with qscheme {}: ctorch has "
                           "per-tensor affine quantization only".format(qscheme))
    _, scale, zero_point = quantizer_params
    ref, dtype = _storage_ref_and_dtype(storage)
    tensor = ref._tensor(dtype, storage_offset, tuple(size), tuple(stride),
                         q_scale=float(scale), q_zero_point=int(zero_point))
    if requires_grad:
        tensor.requires_grad = requires_grad
    _set_hooks(tensor, backward_hooks)
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter
    param = Parameter(data, requires_grad)
    _set_hooks(param, backward_hooks)
    return param


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """PyTorch 2.x's form for parameters that carry Python attributes."""
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state:
        if isinstance(state, tuple):
            state = dict(state[0] or {}, **(state[1] or {}))
        for k, v in state.items():
            setattr(param, k, v)
    return param


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    tensor = _C.from_numpy(data).to(dtype=dtype)
    if requires_grad:
        tensor.requires_grad = requires_grad
    return tensor


_rebuild_xla_tensor = _rebuild_device_tensor_from_numpy


def _import_dotted_name(name):
    components = name.split(".")
    obj = __import__(components[0])
    for component in components[1:]:
        obj = getattr(obj, component)
    return obj


def _empty_hooks():
    return OrderedDict()


def _reduce_tensor(t, plain_pickle=False):
    """(rebuild function, args) for a tensor as PyTorch 1.13's
    Tensor._reduce_ex_internal gives them: the storage (a TypedStorage,
    which torch.save turns into a persistent id), offset, size, stride,
    requires_grad and an empty hooks dict.  For plain pickle the qscheme
    travels as its name: the torch.per_tensor_affine object is only
    picklable by the name torch.save writes."""
    storage = TypedStorage._from_ref(t._storage_ref(), t.dtype)
    if t.is_quantized:
        from ._layouts import per_tensor_affine
        qscheme = "per_tensor_affine" if plain_pickle else per_tensor_affine
        return (_rebuild_qtensor,
                (storage, t.storage_offset(), tuple(t.size()), t.stride(),
                 (qscheme, t.q_scale(), t.q_zero_point()), t.requires_grad,
                 OrderedDict()))
    return (_rebuild_tensor_v2,
            (storage, t.storage_offset(), tuple(t.size()), t.stride(), t.requires_grad,
             OrderedDict()))
