"""Custom differentiable operations: ctorch.autograd.Function.

A Function's forward runs with grad mode off; its ctx object is then the
grad_fn of the outputs: _C makes it a graph node whose backward calls
ctx._do_backward (the engine sees only a C callback).
"""
import functools
import os

from .. import _C
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

# where PyTorch's backward classes live, for their repr
_MODULE = ("torch" if os.environ.get("CTORCH_TORCH_NAMES") == "1" else "ctorch") + \
    ".autograd.function"


class FunctionCtx:
    """What forward can tell backward: saved tensors, dirty and
    non-differentiable outputs."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_forward = tensors

    def mark_dirty(self, *args):
        self._dirty = args

    def mark_non_differentiable(self, *args):
        self._non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value

    @property
    def saved_tensors(self):
        if getattr(self, "_saved_in_node", False):
            return _C._function_saved(self)
        return tuple(getattr(self, "_to_save", None) or ())

    @property
    def needs_input_grad(self):
        return self._needs_input_grad

    def _do_backward(self, grads):
        if getattr(self, "materialize_grads", True):
            from .. import zeros
            grads = tuple(zeros(o[0], dtype=o[1]) if g is None and o is not None else g
                          for g, o in zip(grads, self._output_shapes))
        result = self._forward_cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._input_is_tensor)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError("function %s returned an incorrect number of gradients "
                                   "(expected %d, got %d)" % (type(self).__name__, n,
                                                              len(result)))
        out = []
        for i, (g, is_tensor) in enumerate(zip(result, self._input_is_tensor)):
            if g is not None and not is_tensor:
                raise RuntimeError("function %s returned a gradient different than None "
                                   "at position %d, but the corresponding forward input "
                                   "was not a Variable" % (type(self).__name__, i + 1))
            out.append(g)
        return tuple(out)


class _FunctionMeta(type):
    """Gives each Function subclass its backward class: `<Name>Backward`, a
    graph node type that also carries the ctx API."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (_C._Node, FunctionCtx),
                           {"_forward_cls": cls, "__module__": _MODULE,
                            "__repr__": object.__repr__})
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class Function(metaclass=_FunctionMeta):
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads);
    call with .apply(*args)."""

    def __init__(self, *args, **kwargs):
        cls = self.__class__
        warnings_msg = ("Legacy autograd function with non-static forward method is "
                        "deprecated. Please use new-style autograd function with static "
                        "forward method. (Example: https://pytorch.org/docs/stable/autograd"
                        ".html#torch.autograd.Function)")
        if cls.forward is Function.forward:
            raise RuntimeError(warnings_msg)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: https://pytorch.org/docs/stable/"
                           "autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method "
                                  "for your custom autograd.Function to use it with "
                                  "backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args):
        from .. import Tensor
        ctx = cls._backward_cls()
        ctx._input_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad
                                      for a in args)
        ctx._to_save = None
        with no_grad():
            outputs = cls.forward(ctx, *args)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        outs = _C._function_record(ctx, args, outs, getattr(ctx, "_dirty", ()),
                                   getattr(ctx, "_non_differentiable", ()))
        # materialized zero grads need shapes and dtypes, not the outputs
        ctx._output_shapes = tuple((tuple(o.shape), o.dtype) if isinstance(o, Tensor)
                                   else None for o in outs)
        if ctx._to_save is not None:
            if _C._function_commit_saved(ctx, ctx._to_save, outs):
                ctx._saved_in_node = True
                ctx._to_save = ()
        return outs[0] if single else outs


def once_differentiable(fn):
    """Run a backward with grad mode off (its result cannot be
    differentiated again)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
