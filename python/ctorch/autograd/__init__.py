"""ctorch.autograd: reverse-mode differentiation.

The graph and the engine are C (csrc/autograd/); this module is torch's
Python API over them: backward, grad, the grad-mode managers, custom
Functions and the finite-difference checks.
"""
import warnings

from .. import _C
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck
from . import graph  # noqa: F401
from . import function  # noqa: F401

__all__ = ["Function", "backward", "grad", "grad_mode", "gradcheck", "gradgradcheck",
           "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "Variable"]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _grads_for(tensors, grad_tensors):
    if grad_tensors is None:
        return (None,) * len(tensors)
    grads = _as_tuple(grad_tensors)
    if len(grads) != len(tensors):
        raise RuntimeError("grad can be implicitly created only for scalar outputs"
                           if False else
                           "Mismatch in number of tensors and gradients: got %d tensors "
                           "and %d gradients" % (len(tensors), len(grads)))
    from .. import Tensor
    out = []
    for g in grads:
        if g is not None and not isinstance(g, Tensor):
            from .. import tensor as _tensor
            g = _tensor(g)
        out.append(g)
    return tuple(out)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate the gradients of `tensors` into the leaves' .grad."""
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.")
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments "
                               "both passed to backward(). Please only use "
                               "'grad_tensors'.")
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    tensors = _as_tuple(tensors)
    inputs = _as_tuple(inputs)
    grads = _grads_for(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    _C._run_backward(tensors, grads, bool(retain_graph), bool(create_graph), inputs,
                     False, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, is_grads_batched=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple (not
    accumulated into .grad)."""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now "
                      "(defaults to True). To accumulate gradient for other parts of "
                      "the graph, please use torch.autograd.backward.")
    if is_grads_batched:
        raise NotImplementedError("ctorch: is_grads_batched=True is not supported")
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grads = _grads_for(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    return _C._run_backward(outputs, grads, bool(retain_graph), bool(create_graph),
                            inputs, bool(allow_unused), False)


def Variable(data, requires_grad=False, volatile=False):  # noqa: N802
    """The old Variable wrapper: now a tensor (requires_grad set if asked)."""
    return data.requires_grad_(requires_grad) if requires_grad else data


class _ImperativeEngine(object):
    """Variable._execution_engine: queue_callback(fn) runs fn when the
    current backward pass finishes (the engine's final callbacks)."""

    queue_callback = staticmethod(_C._queue_callback)


Variable._execution_engine = _ImperativeEngine()
