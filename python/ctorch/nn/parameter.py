"""nn.Parameter: a tensor that a Module registers as its parameter."""
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
        result = type(self)(self.data.clone(),
                            self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


