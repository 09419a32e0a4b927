"""The legacy tensor types: torch.FloatTensor(2, 3), torch.LongTensor([1, 2]),
isinstance(t, torch.FloatTensor)."""
from . import _C
from ._tensor import Tensor


class _LegacyType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls._dtype

    def __call__(cls, *args, device=None):
        dt = cls._dtype
        if len(args) == 0:
            return _C.empty(0, dtype=dt)
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype != dt:
                raise TypeError("expected %s (got %s)" % (cls.__name__[:-6],
                                                          args[0].type()[6:-6]))
            return args[0]
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _C.empty(*args, dtype=dt)
        if len(args) == 1 and isinstance(args[0], _C.Size):
            return _C.empty(args[0], dtype=dt)
        if len(args) == 1:
            return _C.tensor(args[0], dtype=dt)
        raise TypeError("new(): argument 'size' must be tuple of ints, but found "
                        "element of type %s at pos 1" % type(args[0]).__name__)


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
