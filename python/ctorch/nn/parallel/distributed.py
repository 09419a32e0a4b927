"""torch.nn.parallel.DistributedDataParallel over ctorch.distributed.

Construction broadcasts rank 0's parameters and buffers; each forward may
broadcast the buffers again (broadcast_buffers) and prepares the reducer
(_reducer.py), whose autograd hooks all-reduce the gradients in buckets
while backward runs, so after backward every rank holds the average.
"""
from contextlib import contextmanager

import ctorch
import ctorch.distributed as dist
from ctorch.distributed.algorithms.join import Join, Joinable, JoinHook

from ..modules.module import Module, _torch_names
from ._reducer import GradBucket, Reducer

__all__ = ["DistributedDataParallel"]


def _find_tensors(obj):
    """The tensors inside a (nested) forward output."""
    if isinstance(obj, ctorch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


def _to_device(obj, device):
    """obj with its tensors moved to `device` (device_ids[0] of a GPU module)."""
    if isinstance(obj, ctorch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def _global_rank(group, rank):
    return rank if group is dist.group.WORLD else dist.get_global_rank(group, rank)


def _broadcast_coalesced(group, tensors, src):
    """Broadcast `tensors` from global rank `src`: one flat tensor per
    dtype, copied back into each."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for ts in by_dtype.values():
        flat = ctorch.cat([t.detach().reshape(-1) for t in ts]) if len(ts) > 1 \
            else ts[0].detach().reshape(-1).clone()
        dist.broadcast(flat, src, group=group)
        offset = 0
        with ctorch.no_grad():
            for t in ts:
                n = t.numel()
                t.copy_(flat[offset:offset + n].view(t.shape))
                offset += n


class _DDPJoinHook(JoinHook):
    """What a joined rank runs for each iteration the others still make:
    the same collectives as their forward and backward, on zeros."""

    def __init__(self, ddp, divide_by_initial_world_size):
        self.ddp = ddp
        ddp._divide_by_initial_world_size = divide_by_initial_world_size

    def main_hook(self):
        ddp = self.ddp
        ddp._check_and_sync_module_buffers()
        work = ddp._check_global_requires_backward_grad_sync(is_joined_rank=True)
        work.wait()
        sync = work.result()[0].item() != 0
        ddp.require_forward_param_sync = sync
        if not sync:
            return
        ddp.reducer.zero_buckets_all_reduce()
        if ddp.find_unused_parameters:
            ddp.reducer.unused_map_all_reduce()

    def post_hook(self, is_last_joiner):
        self.ddp._sync_final_model(is_last_joiner)


class DistributedDataParallel(Module, Joinable):
    """Data parallelism over processes: wrap the module, train as usual;
    gradients are averaged over the process group during backward."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=25,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super(DistributedDataParallel, self).__init__()
        Joinable.__init__(self)
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module "
                               "doesn't have any parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        devices = {p.device for p in module.parameters()}
        types = {d.type for d in devices}
        if len(types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the "
                             "same type of devices, but input module parameters locate "
                             "in {}.".format(types))
        self.is_multi_device_module = len(devices) > 1
        self.device_type = next(iter(types))
        if (device_ids is None or len(device_ids) == 0 or self.device_type == "cpu"
                or self.is_multi_device_module):
            if device_ids or output_device:
                raise ValueError(
                    "DistributedDataParallel device_ids and output_device arguments "
                    "only work with single-device/multiple-device GPU modules or CPU "
                    "modules, but got device_ids {}, output_device {}, and module "
                    "parameters {}.".format(device_ids, output_device, devices))
            self.device_ids = None
            self.output_device = None
        else:
            self.device_ids = [ctorch.device(d).index if not isinstance(d, int) else d
                               for d in device_ids]
            self.output_device = (self.device_ids[0] if output_device is None
                                  else output_device)
        self.process_group = (dist.distributed_c10d._get_default_group()
                              if process_group is None else process_group)
        self.static_graph = False
        self.dim = dim
        self.module = module
        self.device = next(iter(module.parameters())).device
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.parameters_to_ignore = list(getattr(module, "_ddp_params_and_buffers_to_ignore",
                                                 []))
        if check_reduction:
            import warnings
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` "
                          "module is deprecated. Please avoid using it.")
        self.broadcast_bucket_size = int(250 * 1024 * 1024)
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        ignore = set(self.parameters_to_ignore)
        self.modules_buffers = [b for n, b in module.named_buffers() if n not in ignore]
        self._sync_module_states(0)
        self.num_iterations = 0
        self._divide_by_initial_world_size = True
        self._authoritative_rank = 0
        self._grad_sync_work = None
        self._build_reducer()
        self._has_rebuilt_buckets = False
        if static_graph:
            self._set_static_graph()

    def _build_reducer(self):
        ignore = set(self.parameters_to_ignore)
        named = [(n, p) for n, p in self.module.named_parameters()
                 if p.requires_grad and n not in ignore]
        self._param_names = [n for n, _ in named]
        self.reducer = Reducer([p for _, p in named], self.process_group,
                               self.bucket_bytes_cap, self.find_unused_parameters,
                               self.gradient_as_bucket_view)

    def __getstate__(self):
        """Pickling (torch.save, deepcopy) drops the process group and the
        reducer; unpickling builds them again over the default group."""
        if self.process_group is not dist.distributed_c10d._get_default_group():
            raise RuntimeError(
                "DDP Pickling/Unpickling are only supported when using DDP with the "
                "default process group. That is, when you have called "
                "init_process_group and have not passed process_group argument to "
                "DDP constructor")
        attrs = dict(self.__dict__)
        for k in ("process_group", "reducer", "_grad_sync_work"):
            attrs.pop(k, None)
        return attrs

    def __setstate__(self, state):
        self.process_group = dist.distributed_c10d._get_default_group()
        super(DistributedDataParallel, self).__setstate__(state)
        self.__dict__.setdefault("require_forward_param_sync", True)
        self.__dict__.setdefault("require_backward_grad_sync", True)
        self._grad_sync_work = None
        self._build_reducer()
        if self.static_graph:
            self.reducer.static_graph = True

    def _sync_module_states(self, src):
        tensors = [p for n, p in self.module.named_parameters()
                   if n not in self.parameters_to_ignore]
        tensors += [b for n, b in self.module.named_buffers()
                    if n not in self.parameters_to_ignore]
        if tensors:
            _broadcast_coalesced(self.process_group, tensors,
                                 _global_rank(self.process_group, src))

    def _set_static_graph(self):
        if self.static_graph:
            import warnings
            warnings.warn("You've set static_graph to be True, no need to set it again.")
            return
        self.static_graph = True
        self.reducer.static_graph = True
        if self.find_unused_parameters:
            import warnings
            warnings.warn("You passed find_unused_parameters=true to "
                          "DistributedDataParallel, `_set_static_graph` will detect unused "
                          "parameters automatically, so you do not need to set "
                          "find_unused_parameters=true, just be sure these unused "
                          "parameters will not change during training loop while calling "
                          "`_set_static_graph`.")

    # --- forward ---------------------------------------------------------------

    @contextmanager
    def no_sync(self):
        """Inside, backward accumulates into .grad without communicating;
        the first backward after it reduces the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def forward(self, *inputs, **kwargs):
        grad_sync = ctorch.is_grad_enabled() and self.require_backward_grad_sync
        if grad_sync:
            self.num_iterations += 1
        if ctorch.is_grad_enabled():
            self.reducer.ensure_prior_reduction_finished()
        work = Join.notify_join_context(self)
        if self.will_sync_module_buffers():
            self._sync_buffers()
        if self._join_config.enable:
            self._grad_sync_work = self._check_global_requires_backward_grad_sync(
                is_joined_rank=False)
        if self.device_ids:
            dev = ctorch.device(self.device_type, self.device_ids[0])
            inputs, kwargs = _to_device(inputs, dev), _to_device(kwargs, dev)
        output = self.module(*inputs, **kwargs)
        if grad_sync:
            self.require_forward_param_sync = True
            if work is not None and not self._divide_by_initial_world_size:
                work.wait()
                self.reducer.div = float(work.result()[0].item())
            else:
                self.reducer.div = float(self.reducer.world)
            outs = (_find_tensors(output)
                    if self.find_unused_parameters and not self.static_graph else [])
            self.reducer.prepare_for_backward(outs)
        else:
            self.require_forward_param_sync = False
        return output

    def will_sync_module_buffers(self):
        return (self.require_forward_param_sync and self.broadcast_buffers
                and len(self.modules_buffers) > 0)

    def _find_common_rank(self, input_rank, rank_cond):
        t = ctorch.tensor([input_rank if rank_cond else -1], device=self.device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=self.process_group)
        if t.item() == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one "
                             "process. This indicates a bug in PyTorch, please report "
                             "an issue.")
        return int(t.item())

    def _sync_buffers(self):
        if self._join_config.enable:
            src = self._find_common_rank(self._distributed_rank, True)
        else:
            src = 0
        self._sync_module_buffers(src)

    def _sync_module_buffers(self, authoritative_rank):
        _broadcast_coalesced(self.process_group, self.modules_buffers,
                             _global_rank(self.process_group, authoritative_rank))

    def _check_and_sync_module_buffers(self):
        if self.will_sync_module_buffers():
            self._sync_module_buffers(self._find_common_rank(self._distributed_rank,
                                                             False))

    def _check_global_requires_backward_grad_sync(self, is_joined_rank):
        flag = (ctorch.ones(1, device=self.device)
                if not is_joined_rank and self.require_backward_grad_sync
                else ctorch.zeros(1, device=self.device))
        return dist.all_reduce(flag, group=self.process_group, async_op=True)

    def _sync_final_model(self, is_last_joiner):
        self._authoritative_rank = self._find_common_rank(self._distributed_rank,
                                                          is_last_joiner)
        self._sync_module_states(self._authoritative_rank)

    @property
    def _distributed_rank(self):
        return dist.get_rank(self.process_group)

    # --- join ------------------------------------------------------------------

    def join(self, divide_by_initial_world_size=True, enable=True,
             throw_on_early_termination=False):
        """Join([self]): train with uneven inputs across ranks."""
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        return _DDPJoinHook(self, kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        return self.device

    @property
    def join_process_group(self):
        return self.process_group

    # --- communication hooks ---------------------------------------------------

    def register_comm_hook(self, state, hook):
        """Reduce each bucket with hook(state, bucket) -> Future of the
        reduced flat tensor instead of the built-in averaging all-reduce."""
        self._check_comm_hook(hook)
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can "
                               "only be called once.")
        self.reducer.comm_hook = hook
        self.reducer.comm_state = state

    def _check_comm_hook(self, hook):
        import inspect
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        sig = inspect.signature(hook)
        ann = sig.parameters["bucket"].annotation
        if ann is not inspect._empty and ann is not GradBucket:
            raise ValueError("Communication hook: bucket annotation should be "
                             "dist.GradBucket.")
        if hook.__name__ in ("bf16_compress_hook", "bf16_compress_wrapper_hook"):
            # PyTorch allows them only with CUDA 11+ and NCCL 2.10+
            raise TypeError("BF16 all reduce communication hook required CUDA 11+ and "
                            "NCCL 2.10+.")

    def _set_params_and_buffers_to_ignore_for_model(module, params_and_buffers_to_ignore):
        module._ddp_params_and_buffers_to_ignore = params_and_buffers_to_ignore

    _set_params_and_buffers_to_ignore_for_model = staticmethod(
        _set_params_and_buffers_to_ignore_for_model)


_torch_names(globals())
