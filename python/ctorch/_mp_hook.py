"""Tensors through plain `multiprocessing`, as with torch.

`import torch` registers torch's reducers with multiprocessing's
ForkingPickler, so a tensor put on a multiprocessing.Queue travels through
shared memory even in a script that never imports torch.multiprocessing.
Importing multiprocessing here would cost a third of `import ctorch`, so
the reducers are registered when multiprocessing.reduction is first
imported (or now, if it already is), as trampolines that load
ctorch.multiprocessing.reductions on first use.
"""
import importlib.machinery
import sys

_TARGET = "multiprocessing.reduction"


def _trampoline(name):
    def reduce(obj):
        from .multiprocessing import reductions
        return getattr(reductions, name)(obj)
    return reduce


def reduced_classes():
    """(class, name of its reducer in multiprocessing.reductions): the one
    list both registrations use.  nn.Parameter needs no entry: it pickles as
    (its .data, requires_grad), and its .data is a Tensor."""
    from ._tensor import Tensor
    from . import storage
    yield Tensor, "reduce_tensor"
    yield storage.UntypedStorage, "reduce_untyped_storage"
    for cls in (storage.TypedStorage, *storage._storage_classes.values()):
        yield cls, "reduce_typed_storage"


def _register(forking_pickler):
    for cls, name in reduced_classes():
        forking_pickler.register(cls, _trampoline(name))


class _Finder:
    """A meta path entry that waits for multiprocessing.reduction, lets the
    normal finders load it, and registers once it has run."""

    def find_spec(self, name, path=None, target=None):
        if name != _TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_register(module):
            exec_module(module)
            _register(module.ForkingPickler)
        spec.loader.exec_module = exec_and_register
        return spec


def install():
    module = sys.modules.get(_TARGET)
    if module is not None:
        _register(module.ForkingPickler)
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
