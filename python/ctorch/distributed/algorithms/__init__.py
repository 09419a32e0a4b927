"""torch.distributed.algorithms: the generic join context manager and
DDP's communication hooks."""
from .join import Join, JoinHook, Joinable  # noqa: F401
