"""ctorch.utils (torch.utils).

`data` loads on first use (PEP 562), so that `ctorch.utils.data.DataLoader`
works after a plain `import ctorch`, as in torch, while `import ctorch`
does not pay for it.
"""
import importlib as _importlib

_LAZY_SUBMODULES = ("data",)


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module("." + name, __name__)
    raise AttributeError("module 'ctorch.utils' has no attribute '%s'" % name)
