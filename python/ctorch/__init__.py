"""ctorch: a PyTorch-compatible tensor library whose engine is C.

`import ctorch` gives torch's API; `ctorchrun script.py` runs an unchanged
PyTorch script with `import torch` resolved to this package.
"""
import os as _os

from . import _C
from ._C import Size, device, dtype  # noqa: F401
from ._C import (  # noqa: F401  dtypes and their torch aliases
    bfloat16, bool, double, float, float16, float32, float64, half, int, int8,
    int16, int32, int64, long, qint8, qint32, quint8, short, uint8,
)
from ._C import (  # noqa: F401  creation and arithmetic implemented in C
    add, arange, as_tensor, can_cast, div, divide, empty, empty_like,
    empty_strided, eye, from_numpy, full, full_like, get_default_dtype,
    get_num_threads, linspace, logspace, mul, multiply, ones, ones_like,
    promote_types, quantize_per_tensor, result_type, set_num_threads, sub,
    subtract, tensor, true_divide, zeros, zeros_like,
)
from ._C import range as _range
from ._layouts import (  # noqa: F401
    channels_last, contiguous_format, layout, memory_format, per_tensor_affine,
    preserve_format, qscheme, strided,
)
from ._tensor import Tensor
from ._type_info import finfo, iinfo  # noqa: F401
from . import _tensor_str
from ._tensor_str import set_printoptions  # noqa: F401
from .storage import TypedStorage, UntypedStorage  # noqa: F401
from .storage import (  # noqa: F401  the legacy storage types of saved files
    BFloat16Storage, BoolStorage, ByteStorage, CharStorage, DoubleStorage, FloatStorage,
    HalfStorage, IntStorage, LongStorage, QInt8Storage, QInt32Storage, QUInt8Storage,
    ShortStorage,
)
from ._legacy import (  # noqa: F401
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor,
    HalfTensor, IntTensor, LongTensor, ShortTensor,
)
from .utils.dlpack import from_dlpack  # noqa: F401
from . import linalg  # noqa: F401,E402
from . import autograd  # noqa: F401,E402
from .autograd.grad_mode import (  # noqa: F401,E402
    enable_grad, inference_mode, no_grad, set_grad_enabled,
)
from .utils.hooks import RemovableHandle as _RemovableHandle
from . import return_types  # noqa: F401,E402
from ._composite import (  # noqa: F401
    allclose, clamp_max, clamp_min, equal, isclose,
)
from . import _composite as _composite_mod
from ._composite_math import (  # noqa: F401
    aminmax, block_diag, cartesian_prod, cdist, copysign, cross, diff, heaviside, hypot,
    isin, kron, logaddexp, logaddexp2, meshgrid, tensordot, xlogy,
)
from . import _composite_math as _composite_math_mod
from ._C import Generator, default_generator  # noqa: F401
from . import random  # noqa: F401,E402
from .random import (  # noqa: F401,E402
    get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)

__version__ = "1.13.0+ctorch"

_C._set_tensor_class(Tensor)
_C._set_hook_handle_class(_RemovableHandle)
_composite_mod.install(Tensor)
_composite_math_mod.install(Tensor)

# Every public function of _C is a torch function (op families add theirs to
# _C without touching this file); names defined above take precedence.
globals().update({_k: _v for _k, _v in vars(_C).items()
                  if not _k.startswith("_") and callable(_v) and _k not in globals()})
_tensor_str._get_default_dtype = get_default_dtype

# Python's name, shadowed by torch.range below, for internal use.
_builtin_range = __builtins__["range"] if isinstance(__builtins__, dict) else __builtins__.range


# torch.range: like arange but including `end` (deprecated in torch); the C
# function itself, so argument errors read as torch's.
range = _range


def is_tensor(obj):
    """True if obj is a ctorch tensor."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    return isinstance(obj, (TypedStorage, UntypedStorage))


def is_floating_point(input):
    if not isinstance(input, Tensor):
        raise TypeError("is_floating_point(): argument 'input' (position 1) must be "
                        "Tensor, not " + type(input).__name__)
    return input.is_floating_point()


def numel(input):
    if not isinstance(input, Tensor):
        raise TypeError("numel(): argument 'input' (position 1) must be Tensor, not "
                        + type(input).__name__)
    return input.numel()


def set_default_dtype(d):
    """Set the dtype of floating tensors created from Python floats."""
    _C._set_default_dtype(d)


def clone(input, *, memory_format=None):
    return input.clone()


def dequantize(tensor):
    return tensor.dequantize()


def int_repr(tensor):
    return tensor.int_repr()


is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


# nn and optim are large and most scripts import them explicitly; load them
# on first use so that `import ctorch` stays fast (PEP 562).
_LAZY_SUBMODULES = ("nn", "optim", "multiprocessing", "distributed", "futures", "cuda")
# save/load likewise: the zip and pickle machinery costs a fifth of the start-up
_LAZY_NAMES = {"save": "serialization", "load": "serialization"}


def __getattr__(name):
    import importlib
    if name in _LAZY_SUBMODULES:
        return importlib.import_module("." + name, __name__)
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module("." + _LAZY_NAMES[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError("module 'ctorch' has no attribute '%s'" % name)


# tensors on a plain multiprocessing.Queue go through shared memory, as
# with torch (see _mp_hook.py)
from . import _mp_hook as _mp_hook  # noqa: E402
_mp_hook.install()
