"""Noticing dead workers (torch.utils.data._utils.signal_handling).

An iterator registers its workers' pids (_set_worker_pids).  A SIGCHLD
handler, set once per process from the main thread, looks at each
registered pid with waitid(WNOHANG | WNOWAIT), which leaves the exit status
for multiprocessing to collect, and raises PyTorch's RuntimeError for a
worker that exited non-zero or was killed:

    DataLoader worker (pid 1234) is killed by signal: Killed.

torch does this from C++ (DataLoader.cpp); os.waitid gives Python the
same view.  Python runs the handler in the main thread, and the error comes
out of the wait on the result queue, where the iterator turns it into
"DataLoader worker (pid(s) 1234) exited unexpectedly" with this one as its
cause.  torch raises it wherever the main thread happens to be (in user
code, between two batches); ctorch raises only while the main thread waits
for a batch (_waiting), and otherwise leaves the death to the iterator,
which finds it the next time it waits (it polls its workers), so the error
always has that one form.
"""
import os
import signal
import threading

from . import IS_WINDOWS

_waiting = threading.local()
"""_waiting.active: this thread is blocked on a DataLoader result queue."""

_SIGCHLD_handler_set = False
"""Whether the handler is set (one serves every DataLoader of the process)."""

_worker_pids = {}
"""id(iterator) -> the pids of its workers still being watched."""


def worker_failure(message):
    """The RuntimeError of a dead worker, marked as such (is_worker_failure)
    so that the iterator can tell it from other errors of a receive."""
    err = RuntimeError(message)
    err._dataloader_worker_failure = True
    return err


def is_worker_failure(err):
    return getattr(err, "_dataloader_worker_failure", False)


def _set_worker_pids(key, pids):
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each "
                           "_BaseDataLoaderIter.")
    _worker_pids[key] = list(pids)


def _remove_worker_pids(key):
    if _worker_pids.pop(key, None) is None:
        raise ValueError("Cannot find worker information for _BaseDataLoaderIter "
                         "with id {}".format(key))


def _failure_message(pid, status):
    """torch's message for a worker that ended with status (a waitid result
    or, from exit codes, a (code, signal) pair built by the caller)."""
    if status.si_code == os.CLD_EXITED:
        return ("DataLoader worker (pid {}) exited unexpectedly with exit code {}. "
                "Details are lost due to multiprocessing. Rerunning with "
                "num_workers=0 may give better error trace.".format(pid, status.si_status))
    msg = "DataLoader worker (pid {}) is killed by signal: {}. ".format(
        pid, signal.strsignal(status.si_status))
    if status.si_status == signal.SIGBUS:
        msg += ("It is possible that dataloader's workers are out of shared memory. "
                "Please try to raise your shared memory limit.")
    return msg


def _error_if_any_worker_fails():
    """Raise RuntimeError for the first registered worker that has exited
    with an error or by a signal.  Its iterator's pids are then forgotten,
    so that one death is reported once."""
    from . import python_exit_status
    if python_exit_status:
        return      # multiprocessing's exit handler is terminating them
    for pids in list(_worker_pids.values()):
        for pid in pids:
            try:
                status = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except OSError:
                continue    # already collected, or not our child
            if status is None or status.si_pid == 0:
                continue
            failed = (status.si_code == os.CLD_EXITED and status.si_status != 0) or \
                status.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
            if failed:
                pids.clear()
                raise worker_failure(_failure_message(pid, status))


def _set_worker_signal_handlers():
    """In a worker.  torch installs C handlers that print "ERROR: Unexpected
    segmentation fault encountered in worker." and the like before dying;
    a Python handler cannot run for a synchronous fault, so ctorch's workers
    keep the default dispositions and the main process reports the signal."""


def _set_SIGCHLD_handler():
    """Install the SIGCHLD handler (main thread only), chained to whatever
    Python-level handler was there."""
    global _SIGCHLD_handler_set
    if IS_WINDOWS or _SIGCHLD_handler_set:
        return
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum, frame):
        if getattr(_waiting, "active", False):
            _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
