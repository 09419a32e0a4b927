"""torch.nn.DataParallel: one process driving several GPUs.

Without a GPU, PyTorch keeps the module and runs it as is (device_ids is
[] and there is no output_device); so does this.  With one CUDA device the
module moves there and inputs follow it.  With several, each forward
scatters the inputs along `dim` (torch.chunk's pieces), replicates the
module on the devices that got a piece, applies each replica to its piece
and gathers the outputs on output_device.  Replicas hold differentiable
copies of the parameters (their gradients flow back and add up in the
original parameters, as PyTorch's Broadcast / ReduceAddCoalesced do);
buffers are copied without a gradient.  The replicas run one after the
other on this thread: their kernels are queued asynchronously on their
devices, so the devices still work at once.
"""
import copy
import warnings
from collections import OrderedDict
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
        inputs, kwargs = scatter_kwargs(inputs, kwargs, self.device_ids, self.dim)
        if not inputs and not kwargs:
            inputs, kwargs = ((),), ({},)
        replicas = replicate(self.module, self.device_ids[:len(inputs)])
        outputs = parallel_apply(replicas, inputs, kwargs,
                                 self.device_ids[:len(inputs)])
        return gather(outputs, self.output_device, dim=self.dim)


def _pieces(obj, devices, dim):
    """obj split for each device: tensors chunked along dim and moved
    (differentiably), lists/tuples/dicts split element-wise, anything else
    repeated.  Fewer pieces than devices when a batch is smaller."""
    if isinstance(obj, ctorch.Tensor):
        return [c.to(ctorch.device("cuda", d))
                for c, d in zip(obj.chunk(len(devices), dim), devices)]
    if isinstance(obj, (tuple, list)) and obj:
        cols = [_pieces(o, devices, dim) for o in obj]
        n = min(len(c) for c in cols)
        return [type(obj)(c[i] for c in cols) if not hasattr(obj, "_fields")
                else type(obj)(*(c[i] for c in cols)) for i in range(n)]
    if isinstance(obj, dict) and obj:
        cols = {k: _pieces(v, devices, dim) for k, v in obj.items()}
        n = min(len(c) for c in cols.values())
        return [type(obj)((k, c[i]) for k, c in cols.items()) for i in range(n)]
    return [obj for _ in devices]


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """(inputs per device, kwargs per device), padded to the same length."""
    ins = _pieces(tuple(inputs), target_gpus, dim) if inputs else []
    kws = _pieces(dict(kwargs), target_gpus, dim) if kwargs else []
    n = max(len(ins), len(kws))
    ins = list(ins) + [()] * (n - len(ins))
    kws = list(kws) + [{}] * (n - len(kws))
    n = min(n, len(ins), len(kws))
    return tuple(ins[:n]), tuple(kws[:n])


def replicate(network, devices, detach=False):
    """A copy of `network` on each device, its parameters differentiable
    copies of the originals (detached with detach=True)."""
    def copy_to(module, device):
        r = copy.copy(module)
        r.__dict__ = dict(module.__dict__)
        r._parameters = OrderedDict()
        for k, p in module._parameters.items():
            if p is None:
                r._parameters[k] = None
                continue
            q = p.to(device)
            r._parameters[k] = q.detach().requires_grad_(p.requires_grad) if detach else q
        r._buffers = OrderedDict((k, None if b is None else b.detach().to(device))
                                 for k, b in module._buffers.items())
        r._modules = OrderedDict((k, None if m is None else copy_to(m, device))
                                 for k, m in module._modules.items())
        r._is_replica = True
        return r
    return [copy_to(network, ctorch.device("cuda", _index(d))) for d in devices]


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """modules[i](*inputs[i], **kwargs_tup[i]) with device i current."""
    if kwargs_tup is None:
        kwargs_tup = ({},) * len(modules)
    if devices is None:
        devices = [None] * len(modules)
    outputs = []
    for m, inp, kw, d in zip(modules, inputs, kwargs_tup, devices):
        if not isinstance(inp, (list, tuple)):
            inp = (inp,)
        if d is None:
            outputs.append(m(*inp, **kw))
            continue
        with ctorch.cuda.device(_index(d)):
            outputs.append(m(*inp, **kw))
    return outputs


def gather(outputs, target_device, dim=0):
    """The replicas' outputs joined on target_device along dim (tuples,
    lists and dicts element-wise)."""
    device = ctorch.device("cpu") if target_device == -1 else \
        ctorch.device("cuda", _index(target_device))
    first = outputs[0]
    if isinstance(first, ctorch.Tensor):
        if all(o.dim() == 0 for o in outputs):
            warnings.warn("Was asked to gather along dimension 0, but all input tensors "
                          "were scalars; will instead unsqueeze and return a vector.")
            outputs = [o.view(1) for o in outputs]
        return ctorch.cat([o.to(device) for o in outputs], dim)
    if first is None:
        return None
    if isinstance(first, dict):
        return type(first)((k, gather([o[k] for o in outputs], target_device, dim))
                           for k in first)
    if isinstance(first, (list, tuple)):
        items = [gather(list(col), target_device, dim) for col in zip(*outputs)]
        return type(first)(*items) if hasattr(first, "_fields") else type(first)(items)
    return outputs


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
