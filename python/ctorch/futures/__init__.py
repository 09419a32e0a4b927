"""ctorch.futures: torch.futures.Future, a thread-safe one-shot result with
callbacks, and collect_all / wait_all.

A distributed Work's get_future() returns one of these, completed from the
process group's progress thread; callbacks then run on that thread, or
inline when the future is already complete (as in PyTorch).
"""
import os
import sys
import threading
import traceback
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")

_COMPLETED_TWICE = ("Attempting to mark a completed Future as complete again. "
                    "Note that a Future can only be marked completed once.")


def _callback_error(exc):
    """PyTorch's wrapping of an exception raised by a callback: the message
    names it and lists the Python frames, innermost first."""
    frames = traceback.extract_tb(exc.__traceback__)[1:]
    frames = list(reversed(frames)) + list(reversed(traceback.extract_stack()[:-2]))
    where = "".join("  %s(%d): %s\n" % (f.filename, f.lineno, f.name) for f in frames)
    return RuntimeError("Got the following error when running the callback: "
                        "%s: %s\n\nAt:\n%s" % (type(exc).__name__, exc, where))


class Future(Generic[T]):
    """The result of an asynchronous computation: set once with set_result
    or set_exception, read with wait / value, chained with then."""

    def __init__(self, *, devices=None):
        self._cond = threading.Condition(threading.Lock())
        self._done = False
        self._value = None
        self._error = None
        self._callbacks = []

    def done(self):
        """True once the future holds a result or an exception."""
        return self._done

    def wait(self):
        """Block until complete; return the value or raise the exception."""
        if not self._done:
            with self._cond:
                while not self._done:
                    self._cond.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        """The value of a completed future (raises its exception)."""
        if not self._done:
            raise RuntimeError("Future.value() called on a Future that has not "
                               "completed; call wait() first")
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback):
        """A new Future completed with callback(self) once this one
        completes; an exception in the callback completes it with an error."""
        child = Future()

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001 - handed to the child
                child.set_exception(_callback_error(e))
            else:
                child.set_result(result)
        self._add_callback(run)
        return child

    def add_done_callback(self, callback):
        """Run callback(self) on completion (inline if already complete);
        an exception it raises is reported on stderr and dropped."""
        def run(fut):
            try:
                callback(fut)
            except Exception as e:  # noqa: BLE001 - reported, as PyTorch logs it
                sys.stderr.write(str(_callback_error(e)) + os.linesep)
        self._add_callback(run)

    def set_result(self, result):
        """Complete with `result`; runs the callbacks."""
        self._complete(result, None)

    def set_exception(self, result):
        """Complete with an error: wait() and value() raise `result`."""
        assert isinstance(result, Exception), \
            f"{result} is of type {type(result)}, not an Exception."
        self._complete(None, result)

    def _complete(self, value, error):
        with self._cond:
            if self._done:
                raise RuntimeError(_COMPLETED_TWICE)
            self._value, self._error = value, error
            self._done = True
            callbacks, self._callbacks = self._callbacks, None
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def _add_callback(self, cb):
        with self._cond:
            if not self._done:
                self._callbacks.append(cb)
                return
        cb(self)


def collect_all(futures):
    """A Future of the list `futures`, completed when all of them are (with
    the first error, if one completes with an error)."""
    futures = list(futures)
    for f in futures:
        if not isinstance(f, Future):
            raise TypeError("collect_all(): expected a list of torch.futures.Future, "
                            "but got an element of type " + type(f).__name__)
    combined = Future()
    if not futures:
        combined.set_result([])
        return combined
    lock = threading.Lock()
    state = {"left": len(futures), "failed": False}

    def one_done(fut):
        with lock:
            if state["failed"]:
                return
            if fut._error is not None:
                state["failed"] = True
            else:
                state["left"] -= 1
                if state["left"]:
                    return
        if fut._error is not None:
            combined.set_exception(fut._error)
        else:
            combined.set_result(futures)
    for f in futures:
        f._add_callback(one_done)
    return combined


def wait_all(futures):
    """The values of all `futures` (raises the first error)."""
    return [fut.wait() for fut in collect_all(futures).wait()]
Future.__module__ = ("torch" if os.environ.get("CTORCH_TORCH_NAMES") == "1" else "ctorch") + ".futures"
