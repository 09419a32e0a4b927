"""ctorch.multiprocessing: Python's multiprocessing, with tensors that cross
processes through shared memory (torch.multiprocessing).

Every name of the standard module is re-exported.  Importing this package
registers reducers with multiprocessing's ForkingPickler (reductions.py):
a tensor pickled for another process moves its storage into shared memory
the first time and travels as a handle (a file descriptor, or a name under
the file_system strategy), so the receiver maps the same pages.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy",
           "get_all_sharing_strategies", "spawn", "start_processes",
           "ProcessContext", "SpawnContext", "ProcessRaisedException",
           "ProcessExitedException"]
__all__ += multiprocessing.__all__

_sharing_strategy = "file_descriptor"
_all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Choose how CPU tensors are shared: 'file_descriptor' (an anonymous
    segment whose descriptor is passed to the receiver; the default) or
    'file_system' (a named segment under /dev/shm, opened by name)."""
    global _sharing_strategy
    assert new_strategy in _all_sharing_strategies
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The strategies this system supports."""
    return _all_sharing_strategies


init_reductions()
