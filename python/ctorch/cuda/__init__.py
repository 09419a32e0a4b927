"""ctorch.cuda: CUDA devices, memory, streams and events.

Which answers come depends on the build, as with PyTorch's wheels: a build
without the CUDA part (no toolkit where it was built) answers as PyTorch's
CPU-only build does (_cpu_build.py); a build with it (libctorch_cuda.so
beside libctorch.so) answers as a CUDA build of PyTorch, which on a
machine without a driver or GPU means is_available() is False and
anything needing a device raises PyTorch's "Found no NVIDIA driver ..."
(_runtime.py).
"""
from .. import _C

if _C._cuda_is_built():
    from . import _runtime as _impl
else:
    from . import _cpu_build as _impl

__all__ = list(_impl.__all__)
globals().update({name: getattr(_impl, name) for name in __all__})
_is_compiled = _impl._is_compiled
_lazy_init = _impl._lazy_init
_device_index = _impl._device_index


def __getattr__(name):
    if name == "default_generators":
        return _impl._default_generators_now()
    raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))
