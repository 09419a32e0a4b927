"""DLPack exchange: zero-copy tensors to and from other libraries."""
from .. import _C


def to_dlpack(tensor):
    """A DLPack capsule sharing tensor's memory (consumable once)."""
    return _C._to_dlpack(tensor)


def from_dlpack(ext_tensor):
    """A tensor sharing memory with an object that implements __dlpack__
    (NumPy arrays, other frameworks' tensors) or with a DLPack capsule."""
    if hasattr(ext_tensor, "__dlpack__"):
        device = ext_tensor.__dlpack_device__()
        if device[0] != 1:
            raise RuntimeError("Unsupported device_type: %d" % device[0])
        capsule = ext_tensor.__dlpack__()
    else:
        capsule = ext_tensor
    return _C._from_dlpack_capsule(capsule)
