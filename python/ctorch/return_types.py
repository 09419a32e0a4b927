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
__all__ = sorted(_C._return_types(_MODULE))


def __getattr__(name):
    # a type first registered by a binding after import
    types = _C._return_types(_MODULE)
    if name in types:
        return types[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
