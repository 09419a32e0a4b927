"""torch.nn.parallel: DataParallel (one process, several devices) and
DistributedDataParallel (one process per replica)."""
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]

