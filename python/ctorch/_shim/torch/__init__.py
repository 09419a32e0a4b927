"""`torch` under ctorchrun: this package stands first on sys.path, replaces
itself with ctorch, and maps every torch.X submodule to ctorch.X (the same
module objects, so classes are shared)."""
import importlib
import importlib.abc
import importlib.util
import sys


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `torch.X` as the module `ctorch.X`."""

    def find_spec(self, name, path=None, target=None):
        if not name.startswith("torch."):
            return None
        real = "ctorch" + name[len("torch"):]
        try:
            spec = importlib.util.find_spec(real)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        return importlib.util.spec_from_loader(
            name, self, origin=spec.origin,
            is_package=spec.submodule_search_locations is not None)

    def create_module(self, spec):
        module = importlib.import_module("ctorch" + spec.name[len("torch"):])
        self._specs = getattr(self, "_specs", {})
        self._specs[spec.name] = module.__spec__
        return module

    def get_code(self, name):
        # `python -m torch.distributed.run`: runpy runs ctorch.X's code
        real = "ctorch" + name[len("torch"):]
        return importlib.util.find_spec(real).loader.get_code(real)

    def exec_module(self, module):
        # the import machinery stamped the alias spec on the module; the
        # module keeps its own identity
        original = self._specs.pop(module.__spec__.name, None)
        if original is not None:
            module.__spec__ = original


if not any(isinstance(f, _TorchAlias) for f in sys.meta_path):
    sys.meta_path.insert(0, _TorchAlias())

import ctorch as _ctorch  # noqa: E402

sys.modules["torch"] = _ctorch
