"""The small value types of torch.distributed: Backend, ReduceOp (with its
RedOpType enum and the deprecated reduce_op), DebugLevel, and the option
records of c10d's collectives."""
import enum
import os
import warnings
from collections import namedtuple

_MODULE = ("torch" if os.environ.get("CTORCH_TORCH_NAMES") == "1" else "ctorch") \
    + ".distributed.distributed_c10d"


class Backend(object):
    """The backends as lowercase strings: ``Backend.GLOO == "gloo"``.
    ``Backend(name)`` checks a name and returns it lowercased
    (``Backend("GLOO") == "gloo"``)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    TCP = "tcp"

    _BackendPlugin = namedtuple("_BackendPlugin", ["creator_fn", "extended_api"])

    _plugins = {}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend name must be a string, but got: {}".format(name))
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.TCP:
            raise ValueError("TCP backend has been deprecated. Please use "
                             "Gloo or MPI backend for collective operations "
                             "on CPU tensors.")
        if value == Backend.UNDEFINED:
            raise ValueError("Invalid backend: '{}'".format(name))
        if value not in (Backend.GLOO, Backend.NCCL, Backend.UCC, Backend.MPI):
            value = name.lower()
        return value

    @classmethod
    def register_backend(cls, name, func, extended_api=False):
        """Register a third-party backend: func(store, rank, size, timeout)
        returns its process group."""
        assert not hasattr(Backend, name.upper()), (
            f"{name.upper()} c10d backend already exist")
        assert name.upper() not in Backend._plugins, (
            f"{name.upper()} c10d backend creator function already exist")
        setattr(Backend, name.upper(), name.upper())
        Backend._plugins[name.upper()] = Backend._BackendPlugin(func, extended_api)


class RedOpType(enum.IntEnum):
    """c10d::ReduceOp::RedOpType; the values are the codes _C's process
    group takes."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class ReduceOp(object):
    """A reduction for all_reduce, reduce and reduce_scatter:
    ReduceOp.SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR, AVG (and PREMUL_SUM,
    which is the bare RedOpType as in PyTorch 1.13)."""

    __slots__ = ("op", "_code")
    RedOpType = RedOpType

    def __init__(self, op):
        if not isinstance(op, RedOpType):
            raise TypeError("__init__(): incompatible constructor arguments. The "
                            "following argument types are supported:\n    1. "
                            "torch._C._distributed_c10d.ReduceOp(arg0: "
                            "c10d::ReduceOp::RedOpType)\n\nInvoked with: %r" % (op,))
        self.op = op
        self._code = int(op)

    def __eq__(self, other):
        if isinstance(other, ReduceOp):
            return self._code == other._code
        if isinstance(other, RedOpType):
            return self._code == int(other)
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return self._code

    def __reduce__(self):
        return (ReduceOp, (self.op,))


for _name, _member in RedOpType.__members__.items():
    setattr(ReduceOp, _name, _member if _name == "PREMUL_SUM" else ReduceOp(_member))
ReduceOp.__module__ = _MODULE


def _op_code(op, fn):
    """The integer code of a ReduceOp (or RedOpType) for _C; a TypeError
    naming `fn` for anything else."""
    code = getattr(op, "_code", None)
    if code is not None and type(op) is ReduceOp:
        return code
    if isinstance(op, RedOpType):
        return int(op)
    raise TypeError("%s(): incompatible function arguments: op must be a "
                    "torch.distributed.ReduceOp, not %s" % (fn, type(op).__name__))


class _reduce_op(object):
    """Deprecated enum-like class of SUM, PRODUCT, MIN and MAX; use ReduceOp."""

    def __init__(self):
        for k, v in RedOpType.__members__.items():
            setattr(self, k, v)
        self.__members__ = RedOpType.__members__

    def __getattribute__(self, key):
        warnings.warn("torch.distributed.reduce_op is deprecated, please use "
                      "torch.distributed.ReduceOp instead")
        return object.__getattribute__(self, key)


reduce_op = _reduce_op()


class DebugLevel(enum.IntEnum):
    """TORCH_DISTRIBUTED_DEBUG: OFF, INFO or DETAIL."""
    OFF = 0
    INFO = 1
    DETAIL = 2


_debug_level = DebugLevel.OFF


def get_debug_level():
    return _debug_level


def set_debug_level(level):
    global _debug_level
    _debug_level = DebugLevel(level)


def set_debug_level_from_env():
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, "
                         "or DETAIL, but got %s" % value)
    set_debug_level(DebugLevel[value])


class _Options(object):
    """Base of the option records: keyword construction, and a repr."""
    _fields = ()

    def __init__(self, **kwargs):
        for name, default in self._fields:
            setattr(self, name, default)
        for name, value in kwargs.items():
            if name not in dict(self._fields):
                raise TypeError("%s has no option %r" % (type(self).__name__, name))
            setattr(self, name, value)


def _options(name, fields):
    cls = type(name, (_Options,), {"_fields": fields})
    cls.__module__ = _MODULE
    return cls


_TIMEOUT = ("timeout", None)
AllreduceOptions = _options("AllreduceOptions", (("reduceOp", ReduceOp.SUM), _TIMEOUT))
AllreduceCoalescedOptions = _options("AllreduceCoalescedOptions",
                                     (("reduceOp", ReduceOp.SUM), _TIMEOUT))
BroadcastOptions = _options("BroadcastOptions",
                            (("rootRank", 0), ("rootTensor", 0), _TIMEOUT))
ReduceOptions = _options("ReduceOptions", (("reduceOp", ReduceOp.SUM), ("rootRank", 0),
                                           ("rootTensor", 0), _TIMEOUT))
GatherOptions = _options("GatherOptions", (("rootRank", 0), _TIMEOUT))
ScatterOptions = _options("ScatterOptions", (("rootRank", 0), _TIMEOUT))
ReduceScatterOptions = _options("ReduceScatterOptions",
                                (("reduceOp", ReduceOp.SUM), _TIMEOUT))
BarrierOptions = _options("BarrierOptions", (("device_ids", []), _TIMEOUT))
AllToAllOptions = _options("AllToAllOptions", (_TIMEOUT,))

for _cls in (Backend, DebugLevel):
    _cls.__module__ = _MODULE
del _cls, _name, _member
