"""torch.distributed.Work: the handle of an asynchronous operation.

A thin Python object over _C.Work (which the process group returns and
completes on its progress thread): it takes PyTorch's timedelta timeouts and
adds get_future(), a ctorch.futures.Future completed through
_C.Work._add_done_callback.  Blocking calls (async_op=False) use _C.Work
directly and never build one of these.
"""
import os
from datetime import timedelta

from ..futures import Future

_NO_TIMEOUT = timedelta(0)


class Work(object):
    """The result of an asynchronous collective or point-to-point call."""

    __slots__ = ("_w", "_rename", "_future", "__weakref__")

    def __init__(self, work, rename=None):
        self._w = work
        self._rename = rename          # a subgroup's errors -> global ranks
        self._future = None

    def wait(self, timeout=_NO_TIMEOUT):
        """Block until the operation completes (at most `timeout`, a
        timedelta; 0 means the group's timeout); raises RuntimeError with
        the failure.  Returns True."""
        try:
            if timeout is None or timeout == _NO_TIMEOUT:
                return self._w.wait()
            if isinstance(timeout, timedelta):
                timeout = timeout.total_seconds()
            return self._w.wait(float(timeout))
        except RuntimeError as e:
            if self._rename is None:
                raise
            raise self._rename(e) from None

    def is_completed(self):
        return self._w.is_completed()

    def is_success(self):
        return self._w.is_success()

    def exception(self):
        e = self._w.exception()
        if e is None or self._rename is None:
            return e
        return self._rename(e)

    def source_rank(self):
        """The sender of a completed any-source recv."""
        return self._w.source_rank()

    _source_rank = source_rank

    def result(self):
        return self._w.result()

    def synchronize(self):
        """CPU work needs no stream synchronization."""

    def get_future(self):
        """A Future completed with result() (or the failure) when the
        operation completes."""
        if self._future is None:
            fut = Future()
            w, rename = self._w, self._rename

            def done():
                if w.is_success():
                    fut.set_result(w.result())
                else:
                    e = w.exception()
                    if e is not None and rename is not None:
                        e = rename(e)
                    fut.set_exception(e or RuntimeError(
                        "the distributed operation failed"))
            self._future = fut
            w._add_done_callback(done)
        return self._future


Work.__module__ = ("torch" if os.environ.get("CTORCH_TORCH_NAMES") == "1"
                   else "ctorch") + ".distributed.distributed_c10d"
