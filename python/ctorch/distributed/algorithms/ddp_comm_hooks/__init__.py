"""torch.distributed.algorithms.ddp_comm_hooks: communication hooks for
DistributedDataParallel.register_comm_hook, and DDPCommHookType /
register_ddp_comm_hook to register them by name."""
from enum import Enum
from functools import partial

from . import debugging_hooks as debugging  # noqa: F401
from . import default_hooks as default  # noqa: F401
from . import debugging_hooks, default_hooks  # noqa: F401

__all__ = ["DDPCommHookType", "register_ddp_comm_hook"]


def _ddp_comm_hook_wrapper(comm_hook, model, state):
    model.register_comm_hook(state, comm_hook)


class DDPCommHookType(Enum):
    """The hooks by name; each value registers its hook:
    DDPCommHookType.ALLREDUCE.value(model=model, state=process_group)."""

    ALLREDUCE = partial(_ddp_comm_hook_wrapper, comm_hook=default.allreduce_hook)
    FP16_COMPRESS = partial(_ddp_comm_hook_wrapper, comm_hook=default.fp16_compress_hook)
    BF16_COMPRESS = partial(_ddp_comm_hook_wrapper, comm_hook=default.bf16_compress_hook)
    NOOP = partial(_ddp_comm_hook_wrapper, comm_hook=debugging.noop_hook)


def register_ddp_comm_hook(comm_hook_type, model, state=None):
    """Register the hook `comm_hook_type` names on the DDP `model`."""
    comm_hook_type.value(model=model, state=state)
