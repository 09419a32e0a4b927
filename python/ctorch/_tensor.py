"""ctorch.Tensor: the C type _C.TensorBase plus the methods that are thin
enough to stay in Python."""
import os
import warnings

from . import _C, _tensor_str
from ._layouts import per_tensor_affine, strided

_LEGACY_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
    "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
    "bool": "BoolTensor", "qint8": "QInt8Tensor", "quint8": "QUInt8Tensor",
    "qint32": "QInt32Tensor",
}

_QUANTIZED = ("qint8", "quint8", "qint32")


def _legacy_type_name(dtype):
    name = str(dtype).split(".")[-1]
    prefix = "torch.quantized." if name in _QUANTIZED else "torch."
    return prefix + _LEGACY_NAMES[name]


_CUDA_TYPE_ERROR = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend "
    "into two shared libraries: a CPU library and a CUDA library; this error has "
    "occurred because you are trying to use some CUDA functionality, but the CUDA "
    "library has not been loaded by the dynamic linker for some reason.  The CUDA "
    "library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA "
    "library! One common culprit is a lack of -Wl,--no-as-needed in your link "
    "arguments; many dynamic linkers will delete dynamic library dependencies if you "
    "don't depend on any of their symbols.  You can check if this has occurred by "
    "using ldd on your binary to see if there is a dependency on *_cuda.so library.")

_T_WARNED = False


class Tensor(_C.TensorBase):
    """A multi-dimensional array of one dtype, with PyTorch's API."""

    __array_priority__ = 1000

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the graph's leaves."""
        if gradient is None and inputs is None:
            # the common case straight to the engine (a small training step
            # would spend a third of its time in the general wrapper)
            keep = create_graph if retain_graph is None else retain_graph
            _C._run_backward((self,), (None,), bool(keep), bool(create_graph), None,
                             False, True)
            return
        from . import autograd
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    @property
    def retains_grad(self):
        return self._retains_grad()

    def __repr__(self, *, tensor_contents=None):
        return _tensor_str._str(self, tensor_contents=tensor_contents)

    def __format__(self, format_spec):
        if self.dim() == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        if self.dim() == 0:
            return self
        return iter(tuple(self.unbind(0))[::-1])

    def __hash__(self):
        return id(self)

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __array_wrap__(self, array):
        if array.dtype == bool:
            array = array.astype("uint8")
        return _C.from_numpy(array)

    def __reduce_ex__(self, proto):
        """Pickling as PyTorch's: a rebuild function over the storage;
        subclasses add their Python state (_rebuild_from_type_v2)."""
        from ._utils import _reduce_tensor
        func, args = _reduce_tensor(self, plain_pickle=True)
        if type(self) is Tensor:
            return func, args
        state = self.__getstate__()
        return (_rebuild_from_type_v2, (func, type(self), args, state))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = self.clone()
        if self.requires_grad:
            new.requires_grad_(True)
        memo[id(self)] = new
        return new

    @property
    def layout(self):
        return strided

    @property
    def T(self):
        n = self.dim()
        global _T_WARNED
        if n != 2 and n != 0 and not _T_WARNED:
            _T_WARNED = True    # TORCH_WARN_ONCE
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their "
                "shape is deprecated and it will throw an error in a future release. "
                "Consider `x.mT` to transpose batches of matrices or "
                "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                "dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(reversed(range(n))))

    @property
    def mT(self):
        if self.dim() < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of "
                               "matrices. Got %d-D tensor." % self.dim())
        return self.transpose(-2, -1)

    def pin_memory(self, device=None):
        """A copy in page-locked host memory, from which copies to a GPU
        are faster (self when already pinned)."""
        return _C._pin_memory(self)

    def is_pinned(self, device=None):
        """Whether this tensor lives in page-locked memory."""
        return _C._is_pinned(self)

    def cpu(self, memory_format=None):
        if self.device.type == "cpu" and memory_format is None:
            return self
        return self.to("cpu", memory_format=memory_format)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        from . import cuda
        cuda._lazy_init()
        if device is None:
            device = _C.device("cuda", cuda.current_device())
        elif isinstance(device, int):
            device = _C.device("cuda", device)
        else:
            device = _C.device(device)
            if device.type != "cuda":
                raise RuntimeError("Invalid device, must be cuda device")
        return self.to(device, non_blocking=non_blocking, memory_format=memory_format)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """With no argument, the legacy type name ('torch.FloatTensor');
        otherwise the tensor converted to that dtype or legacy type."""
        if dtype is None:
            return _legacy_type_name(self.dtype)
        if isinstance(dtype, str):
            if dtype.startswith("torch.cuda."):
                raise RuntimeError(_CUDA_TYPE_ERROR)
            for name, legacy in _LEGACY_NAMES.items():
                if dtype == "torch." + legacy and name not in _QUANTIZED:
                    return self.to(getattr(_C, name))
            raise ValueError("invalid type: '%s'" % dtype)
        if isinstance(dtype, type) and hasattr(dtype, "_dtype"):
            return self.to(dtype._dtype)
        return self.to(dtype)

    def qscheme(self):
        if not self.is_quantized:
            raise NotImplementedError("Could not run 'aten::qscheme' with arguments from "
                                      "the 'CPU' backend.")
        return per_tensor_affine

    def storage(self):
        from .storage import TypedStorage
        return TypedStorage._from_ref(self._storage_ref(), self.dtype)

    def _storage(self):
        return self.untyped_storage()

    def untyped_storage(self):
        from .storage import UntypedStorage
        return UntypedStorage._from_ref(self._storage_ref())

    def is_shared(self):
        return self._storage_ref().is_shared()

    def share_memory_(self):
        """Move the storage into shared memory (no-op if it is there), so
        that other processes this tensor is sent to map the same pages."""
        from .storage import _share_memory
        _share_memory(self._storage_ref())
        return self

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        return _C.tensor(data, dtype=dtype or self.dtype,
                         device=self.device if device is None else device,
                         requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return _C.empty(*size, dtype=dtype or self.dtype,
                        device=self.device if device is None else device,
                        requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return _C.zeros(*size, dtype=dtype or self.dtype,
                        device=self.device if device is None else device,
                        requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return _C.ones(*size, dtype=dtype or self.dtype,
                       device=self.device if device is None else device,
                       requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        return _C.full(size, fill_value, dtype=dtype or self.dtype,
                       device=self.device if device is None else device,
                       requires_grad=requires_grad)

    def type_as(self, other):
        return self.to(other.dtype)

    def __rtruediv__(self, other):
        return _C.div(other, self)

    __rdiv__ = __rtruediv__
    __itruediv__ = _C.TensorBase.__itruediv__


def _rebuild_from_type_v2(func, new_type, args, state):
    """Unpickling a Tensor subclass (torch._tensor._rebuild_from_type_v2)."""
    ret = func(*args)
    if new_type is Tensor:
        return ret
    if type(ret) is not new_type:
        ret = Tensor._make_subclass(new_type, ret, ret.requires_grad)
    setstate = getattr(ret.__class__, "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        ret.__setstate__(state)
    elif state:
        dict_state, slots_state = state if isinstance(state, tuple) else (state, None)
        for k, v in (dict_state or {}).items():
            setattr(ret, k, v)
        for k, v in (slots_state or {}).items():
            setattr(ret, k, v)
    return ret


# Printed names follow PyTorch's under ctorchrun (<class 'torch.Tensor'>).
Tensor.__module__ = "torch" if os.environ.get("CTORCH_TORCH_NAMES") == "1" else "ctorch"
