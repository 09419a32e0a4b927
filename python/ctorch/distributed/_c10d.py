"""The C types behind torch.distributed: the stores and the process groups
(gloo, and mpi in a build with MPI) from ctorch._C (csrc/python/
dist_store.c, dist_pg.c)."""
from .. import _C

available = hasattr(_C, "ProcessGroupGloo") and hasattr(_C, "TCPStore")
if available:
    from .._C import (  # noqa: F401
        FileStore, HashStore, PrefixStore, ProcessGroup, ProcessGroupGloo, Store,
        TCPStore,
    )
