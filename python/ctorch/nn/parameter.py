"""nn.Parameter: a tensor that a Module registers as its parameter."""
import os
from collections import OrderedDict

from .._tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A Tensor subclass that Modules register when it is assigned as an
    attribute; requires grad unless told otherwise."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .. import empty
            data = empty(0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        # torch pickles through torch._utils._rebuild_parameter with the same
        # arguments; hooks are not saved (Note [Don't serialize hooks])
        return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    """Unpickling: torch._utils._rebuild_parameter's signature."""
    param = Parameter(data, requires_grad)
    if backward_hooks:
        param._backward_hooks = backward_hooks
    return param


# Printed names follow PyTorch's under ctorchrun
# (<class 'torch.nn.parameter.Parameter'>).
if os.environ.get("CTORCH_TORCH_NAMES") == "1":
    Parameter.__module__ = "torch.nn.parameter"
