"""The legacy tensor types: torch.FloatTensor(2, 3), torch.LongTensor([1, 2]),
isinstance(t, torch.FloatTensor)."""
from . import _C
from ._tensor import Tensor


class _LegacyType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls._dtype

    def __call__(cls, *args, **kwargs):
        return _C._legacy_new(cls._dtype, *args, **kwargs)

    @property
    def dtype(cls):
        return cls._dtype

    @property
    def is_sparse(cls):
        return False

    @property
    def is_cuda(cls):
        return False


def _make(name, dtype):
    cls = _LegacyType(name, (), {"_dtype": dtype})
    cls.__module__ = "torch"
    return cls


FloatTensor = _make("FloatTensor", _C.float32)
DoubleTensor = _make("DoubleTensor", _C.float64)
HalfTensor = _make("HalfTensor", _C.float16)
BFloat16Tensor = _make("BFloat16Tensor", _C.bfloat16)
LongTensor = _make("LongTensor", _C.int64)
IntTensor = _make("IntTensor", _C.int32)
ShortTensor = _make("ShortTensor", _C.int16)
CharTensor = _make("CharTensor", _C.int8)
ByteTensor = _make("ByteTensor", _C.uint8)
BoolTensor = _make("BoolTensor", _C.bool)
