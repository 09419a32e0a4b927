"""Worker failures: `record` (decorate a script's main so an uncaught
exception is written to the worker's error file), ProcessFailure (one
failed worker, read back from that file) and ChildFailedError (the
launcher's exception, whose message is PyTorch's failure summary box)."""
import json
import os
import signal
import socket
import time
from datetime import datetime
from functools import wraps

from ...utils.logging import get_logger
from .error_handler import ErrorHandler
from .handlers import get_error_handler

__all__ = ["ProcessFailure", "ChildFailedError", "record", "ErrorHandler",
           "get_error_handler"]

log = get_logger(__name__)

_EMPTY_ERROR_DATA = {"message": "<NONE>"}
_NOT_AVAILABLE = "<N/A>"


class ProcessFailure:
    """A failed worker: local_rank, pid, exitcode (negative: killed by that
    signal) and error_file.  When the error file exists its message and
    timestamp are used; otherwise the message names the signal or points
    at @record, and the timestamp is now."""

    def __init__(self, local_rank, pid, exitcode, error_file):
        self.local_rank = local_rank
        self.pid = pid
        self.exitcode = exitcode
        self.error_file = error_file
        self.error_file_data = _EMPTY_ERROR_DATA
        self.message = ""
        self.timestamp = int(time.time())
        if error_file and os.path.isfile(error_file):
            with open(error_file) as fp:
                self.error_file_data = json.load(fp)
            message = self.error_file_data["message"]
            if isinstance(message, str):
                self.timestamp = int(self.error_file_data.get("timestamp", 0))
            else:
                self.timestamp = int(message["extraInfo"]["timestamp"])
            self.message = message
        else:
            self.error_file = _NOT_AVAILABLE
        if not self.message:
            if self.exitcode < 0:
                self.message = (f"Signal {-self.exitcode} ({self.signal_name()})"
                                f" received by PID {self.pid}")
            else:
                self.message = ("To enable traceback see: "
                                "https://pytorch.org/docs/stable/elastic/errors.html")

    def signal_name(self):
        if self.exitcode < 0:
            return signal.Signals(-self.exitcode).name
        return _NOT_AVAILABLE

    def timestamp_isoformat(self):
        """YYYY-MM-DD_HH:MM:SS"""
        return datetime.fromtimestamp(self.timestamp).isoformat(sep="_")

    def __repr__(self):
        return (f"ProcessFailure(local_rank={self.local_rank}, pid={self.pid}, "
                f"exitcode={self.exitcode}, error_file={self.error_file!r})")


_FAILURE_FORMAT = """[{idx}]:
  time      : {time}
  host      : {hostname}
  rank      : {rank} (local_rank: {local_rank})
  exitcode  : {exitcode} (pid: {pid})
  error_file: {error_file}
  traceback : {message}"""

_MSG_FORMAT = """
{border}
{title}
{section}
Failures:
{other_failures}
{section}
Root Cause (first observed failure):
{root_failure}
{border}"""


class ChildFailedError(Exception):
    """Raised by the launcher when workers failed: `name` (the script) and
    `failures` ({global rank: ProcessFailure}).  Its message is the summary
    box; the root cause is the failure with the earliest timestamp."""

    def __init__(self, name, failures):
        self.name = name
        self.failures = failures
        assert self.failures
        super().__init__(self.format_msg())

    def get_first_failure(self):
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim="=", section_delim="-"):
        title = f"{self.name} FAILED"
        root_rank, _ = self.get_first_failure()
        root, others = "", []
        width = len(title)
        for idx, (rank, failure) in enumerate(self.failures.items()):
            fmt = self._format_failure(idx, rank, failure)
            width = max(width, max(len(line) for line in fmt.split("\n")))
            if rank == root_rank:
                root = fmt
            else:
                others.append(fmt)
        width = min(width, 60)
        return _MSG_FORMAT.format(
            border=boarder_delim * width, title=title,
            section=section_delim * width, root_failure=root,
            other_failures="\n".join(others or ["  <NO_OTHER_FAILURES>"]))

    def _format_failure(self, idx, rank, failure):
        msg = failure.message
        if isinstance(msg, dict):
            msg = (msg.get("extraInfo", {})
                   .get("py_callstack", msg.get("message", _NOT_AVAILABLE))
                   .replace("\n", "\n  "))
        return _FAILURE_FORMAT.format(
            idx=idx, time=failure.timestamp_isoformat(), hostname=socket.getfqdn(),
            rank=rank, local_rank=failure.local_rank, exitcode=failure.exitcode,
            pid=failure.pid, error_file=failure.error_file, message=msg)


def record(fn, error_handler=None):
    """Decorate a process's top-level function: an exception escaping it is
    written to the error file (TORCHELASTIC_ERROR_FILE) and re-raised; a
    ChildFailedError passes the root cause's error file up instead."""
    if not error_handler:
        error_handler = get_error_handler()

    @wraps(fn)
    def wrapper(*args, **kwargs):
        error_handler.initialize()
        try:
            return fn(*args, **kwargs)
        except ChildFailedError as e:
            rank, failure = e.get_first_failure()
            if failure.error_file != _NOT_AVAILABLE:
                error_handler.dump_error_file(failure.error_file, failure.exitcode)
            else:
                log.info(f"local_rank {rank} FAILED with no error file. Decorate "
                         f"your entrypoint fn with @record for traceback info. "
                         f"See: https://pytorch.org/docs/stable/elastic/errors.html")
            raise
        except Exception as e:
            error_handler.record_exception(e)
            raise

    return wrapper
