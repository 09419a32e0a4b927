"""torch.return_types: the named tuples (values, indices) that max, min,
median, nanmedian, mode, cummax, cummin, sort, topk and kthvalue (and their
out= forms) return.

The types are made in C (csrc/python/return_types.c); this module holds each
under its op's name so that pickle finds it (Note [Pickling return types]).
Their __module__ is this module's name, or "torch.return_types" under
ctorchrun, where ``torch.return_types`` is this module.
"""
import os as _os

from . import _C

_MODULE = ("torch.return_types" if _os.environ.get("CTORCH_TORCH_NAMES") == "1"
           else __name__)

globals().update(_C._return_types(_MODULE))


class aminmax(tuple):
    """torch.return_types.aminmax: the (min, max) that torch.aminmax returns
    (made here, its fields not being C's (values, indices))."""
    __slots__ = ()
    n_fields = n_sequence_fields = 2
    n_unnamed_fields = 0

    def __new__(cls, sequence):
        sequence = tuple(sequence)
        if len(sequence) != 2:
            raise TypeError("torch.return_types.aminmax() takes a 2-sequence "
                            "(%d-sequence given)" % len(sequence))
        return tuple.__new__(cls, sequence)

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return "torch.return_types.aminmax(\nmin=%r,\nmax=%r)" % tuple(self)

    def __reduce__(self):
        return (type(self), (tuple(self),))


aminmax.__module__ = _MODULE
__all__ = sorted(list(_C._return_types(_MODULE)) + ["aminmax"])


def __getattr__(name):
    # a type first registered by a binding after import
    types = _C._return_types(_MODULE)
    if name in types:
        return types[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
