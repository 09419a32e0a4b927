"""Starting, watching and stopping the launcher's worker processes (see
api.py), and the error files they leave (errors/)."""
from .api import (  # noqa: F401
    RunProcsResult, SignalException, Std, SubprocessContext, to_map,
)
from .errors import ChildFailedError, ProcessFailure, record  # noqa: F401
