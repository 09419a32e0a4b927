"""torch.nn.DataParallel: one process driving several GPUs.

Without a GPU, PyTorch keeps the module and runs it as is (device_ids is
[] and there is no output_device); so does this.  With one CUDA device the
module moves there and inputs follow it.  Splitting a batch over several
devices (replicate, parallel_apply, gather) needs the CUDA build and is
not written yet.
"""
from itertools import chain

import ctorch

from ..modules.module import Module, _torch_names

__all__ = ["DataParallel", "data_parallel"]


def _device_type():
    cuda = getattr(ctorch, "cuda", None)
    if cuda is not None and cuda.is_available():
        return "cuda"
    return None


def _index(d):
    if isinstance(d, int):
        return d
    if isinstance(d, str):
        d = ctorch.device(d)
    return d.index if d.index is not None else 0


def _to(obj, device):
    if isinstance(obj, ctorch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: _to(v, device) for k, v in obj.items()}
    return obj


class DataParallel(Module):
    """Run `module` over the batch split along `dim` on device_ids."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super(DataParallel, self).__init__()
        device_type = _device_type()
        if device_type is None:
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(ctorch.cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_index(d) for d in device_ids]
        self.output_device = _index(output_device)
        self.src_device_obj = ctorch.device(device_type, self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on "
                                   "device {} (device_ids[0]) but found one of them on "
                                   "device: {}".format(self.src_device_obj, t.device))
        if len(self.device_ids) == 1:
            return self.module(*_to(inputs, self.src_device_obj),
                               **_to(kwargs, self.src_device_obj))
        raise NotImplementedError("ctorch: DataParallel over several CUDA devices is "
                                  "not implemented; use DistributedDataParallel")


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional form of DataParallel: module(*inputs) over device_ids."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if module_kwargs is None:
        module_kwargs = {}
    if _device_type() is None:
        return module(*inputs, **module_kwargs)
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **module_kwargs)


_torch_names(globals())
