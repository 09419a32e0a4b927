"""What DataLoader's iterators and worker processes share: the status-check
interval, the exit flag, and ExceptionWrapper (torch keeps that one in
torch._utils and re-exports it here; ctorch has it only here so far).

Everything a worker process runs lives at module level in these files, so
that the spawn start method can pickle it by name."""
import atexit
import importlib.util
import multiprocessing.util  # noqa: F401  (its atexit hook must come first)
import sys
import traceback

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between checks that the other side of a queue is still alive."""

python_exit_status = False
"""Set when the interpreter starts shutting down (an atexit hook registered
after multiprocessing's, so it runs before that one terminates the
workers): from then on an iterator leaves its workers to multiprocessing's
exit handler, and a worker's death is not reported."""

# numpy is imported only where it is needed (worker seeding, collation of
# arrays); importing it costs more than importing ctorch.
HAS_NUMPY = importlib.util.find_spec("numpy") is not None


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)


class KeyErrorMessage(str):
    """A str that is its own repr: KeyError repr()s its argument, which
    would print a traceback as one long quoted line."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, picklable, to re-raise in
    another thread or process.  The exc_info itself is not kept (it would
    hold the frames alive)."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise exc_type("Caught <name> <where>.\\nOriginal Traceback ...")."""
        msg = "Caught {} {}.\nOriginal {}".format(self.exc_type.__name__, self.where,
                                                 self.exc_msg)
        if self.exc_type == KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            # exceptions whose first argument is not the message
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            # constructors that need more than a message
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # the traceback holds this frame: a local holding the exception
            # would be a cycle, keeping the DataLoader iterator up the stack
            # (and its workers) alive until the garbage collector runs
            del exception


from . import collate, fetch, pin_memory, signal_handling, worker  # noqa: E402,F401
