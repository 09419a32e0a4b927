"""Flatten parameters into one vector and back
(torch.nn.utils.convert_parameters)."""
from ... import _C
from ..._tensor import Tensor
from ..modules.module import _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """One 1-D tensor: the parameters flattened and concatenated."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return _C.cat(vec)


def vector_to_parameters(vec, parameters):
    """Make each parameter's .data a slice of vec, in order."""
    if not isinstance(vec, Tensor):
        raise TypeError("expected torch.Tensor, but got: {}".format(_typename(vec)))
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param, old_param_device):
    # CPU only: every parameter reports device -1
    if old_param_device is None:
        return -1
    if old_param_device != -1:
        raise TypeError("Found two parameters on different devices, this is currently "
                        "not supported.")
    return old_param_device
