"""ctorch.distributed: torch.distributed over ctorch's c10d (stores and the
"gloo" process group in C, csrc/distributed/).

`import torch.distributed as dist` under ctorchrun is this package:
init_process_group / new_group / destroy_process_group, the point-to-point
and collective operations, object collectives, Work and futures, and the
stores (TCPStore, FileStore, HashStore, PrefixStore).
"""
from . import _c10d


def is_available():
    """Whether the distributed package is available (it is wherever the
    _C extension carries the c10d types)."""
    return _c10d.available


if is_available():
    from ._c10d import (  # noqa: F401
        FileStore, HashStore, PrefixStore, ProcessGroupGloo, Store, TCPStore,
    )
    from ._work import Work as _Work  # noqa: F401
    from ._grad_bucket import GradBucket  # noqa: F401
    from .distributed_c10d import *  # noqa: F401,F403
    from .distributed_c10d import (  # noqa: F401
        _all_gather_base, _backend, _get_default_group, _get_global_rank,
        _get_group_rank, _rank_not_in_group, _reduce_scatter_base,
    )
    from ._types import (  # noqa: F401
        get_debug_level, set_debug_level, set_debug_level_from_env,
    )
    from .rendezvous import (  # noqa: F401
        _create_store_from_options, register_rendezvous_handler, rendezvous,
    )
    from . import constants, distributed_c10d  # noqa: F401

    set_debug_level_from_env()
else:
    class ProcessGroup:
        pass
