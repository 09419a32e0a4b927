"""torch.multiprocessing.spawn: run fn(i, *args) in nprocs processes and
join them as a group.

The first process to exit non-zero decides the outcome: the others are
terminated and the parent raises ProcessRaisedException (the child's
traceback) or ProcessExitedException (its exit code or signal).

A child reports an exception through a one-shot error file: each process
gets a fresh temporary path that nobody has created, and the child writes
its pickled traceback there only when fn raises (PyTorch 2.x moved from a
SimpleQueue to this because a queue can deadlock a dying child).  The
parent reads and removes the files; a path that exists means "fn raised".
"""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

__all__ = ["ProcessException", "ProcessRaisedException", "ProcessExitedException",
           "ProcessContext", "SpawnContext", "start_processes", "spawn"]

_PR_SET_PDEATHSIG = 1


def _set_pdeathsig(sig):
    """Ask Linux to send `sig` to this process when its parent dies, so that
    non-daemonic children do not outlive a killed parent.  A no-op where
    prctl(2) is missing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        pass


class ProcessException(Exception):
    """A process of a spawn group failed: `error_index` is its index in the
    group, `pid` (also `error_pid`) its process id."""

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid
        self.error_pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """The process's fn raised; the message holds the child's traceback."""

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg, error_index, error_pid)


class ProcessExitedException(ProcessException):
    """The process exited with a non-zero code, or was killed by a signal
    (then `exit_code` is minus the signal number and `signal_name` its
    name, e.g. "SIGKILL")."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self),
                (self.msg, self.error_index, self.pid, self.exit_code,
                 self.signal_name))


# An uncaught failure prints PyTorch's class names under ctorchrun
# (torch.multiprocessing.spawn.ProcessRaisedException: ...).
if os.environ.get("CTORCH_TORCH_NAMES") == "1":
    for _cls in (ProcessException, ProcessRaisedException, ProcessExitedException):
        _cls.__module__ = "torch.multiprocessing.spawn"
    del _cls


def _wrap(fn, i, args, error_file):
    """The target of every child: run fn(i, *args); on an exception, leave
    the formatted traceback in error_file and exit with code 1 (the
    traceback is shown once, by the parent)."""
    # SIGINT rather than SIGKILL: the child may still clean up
    _set_pdeathsig(signal.SIGINT)
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent went away (pdeathsig) or ^C: a quiet exit
    except Exception:
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


class ProcessContext:
    """The processes of one start_processes() call.  `processes` lists the
    multiprocessing.Process objects by index, `sentinels` maps the sentinel
    of each process not yet joined to its index."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: index for index, p in enumerate(processes)}

    def pids(self):
        """The process ids, by index."""
        return [int(p.pid) for p in self.processes]

    def _stop_all(self, grace_period):
        """Terminate (SIGTERM) every process still alive; with a grace
        period, those still alive after it are killed (SIGKILL).  Joins all."""
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        if grace_period is not None:
            deadline = time.monotonic() + grace_period
            for p in self.processes:
                p.join(max(0.0, deadline - time.monotonic()))
            for p in self.processes:
                if p.is_alive():
                    p.kill()
        for p in self.processes:
            p.join()

    def _failure(self, index):
        """The exception describing the failure of process `index` (all
        processes have exited)."""
        failed = self.processes[index]
        path = self.error_files[index]
        if not os.access(path, os.R_OK):
            code = failed.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                return ProcessExitedException(
                    "process %d terminated with signal %s" % (index, name),
                    error_index=index, error_pid=failed.pid, exit_code=code,
                    signal_name=name)
            return ProcessExitedException(
                "process %d terminated with exit code %d" % (index, code),
                error_index=index, error_pid=failed.pid, exit_code=code)
        with open(path, "rb") as fh:
            trace = pickle.load(fh)
        msg = "\n\n-- Process %d terminated with the following error:\n" % index
        return ProcessRaisedException(msg + trace, index, failed.pid)

    def join(self, timeout=None, grace_period=None):
        r"""Wait for the processes.  If one exits with a non-zero status, the
        others are terminated and an exception names the first failure.

        Returns ``True`` once all processes have exited cleanly, ``False``
        when some are still running after ``timeout`` seconds.

        Args:
            timeout (float): wait at most this long.
            grace_period (float): on failure, give the others this long to
                exit after SIGTERM before they are sent SIGKILL.
        """
        if not self.sentinels:
            return True

        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            p = self.processes[index]
            p.join()
            if p.exitcode != 0:
                error_index = index
                break

        if error_index is None:
            return not self.sentinels

        self._stop_all(grace_period)
        self.sentinels.clear()
        try:
            raise self._failure(error_index)
        finally:
            for path in self.error_files:
                _remove(path)


class SpawnContext(ProcessContext):
    """The pre-1.4 name of ProcessContext."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.")
        super().__init__(processes, error_files)


def _error_file():
    """A fresh path in the temporary directory that does not exist yet."""
    tf = tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle",
                                     delete=False)
    tf.close()
    os.unlink(tf.name)
    return tf.name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False,
                    start_method="spawn"):
    """Start nprocs processes running fn(i, *args) with the given start method
    ('spawn', 'fork' or 'forkserver').  With join=True, wait for all of them
    (raising on the first failure); otherwise return their ProcessContext."""
    mp = multiprocessing.get_context(start_method)
    error_files = []
    processes = []
    try:
        for i in range(nprocs):
            error_file = _error_file()
            error_files.append(error_file)
            p = mp.Process(target=_wrap, args=(fn, i, args, error_file),
                           daemon=daemon)
            p.start()
            processes.append(p)
    except BaseException:
        # e.g. fn cannot be pickled: don't leave the started ones running
        for p in processes:
            p.terminate()
            p.join()
        for path in error_files:
            _remove(path)
        raise

    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    r"""Spawn ``nprocs`` processes that run ``fn(i, *args)``, ``i`` being the
    process index.

    If one of the processes exits with a non-zero status, the others are
    killed and an exception is raised with the cause; when the child raised,
    its traceback is part of the message.

    Args:
        fn (function): the entry point; it must be defined at the top level
            of a module so that it can be pickled.
        args (tuple): arguments passed to ``fn`` after the index.
        nprocs (int): the number of processes.
        join (bool): wait for all processes.
        daemon (bool): the processes' daemon flag.
        start_method (str): deprecated; always ``spawn``.  Use
            ``start_processes()`` for another start method.

    Returns:
        None if ``join`` is ``True``, the :class:`ProcessContext` otherwise.
    """
    if start_method != "spawn":
        warnings.warn("This method only supports start_method=spawn (got: %s).\n"
                      "To use a different start_method use:\n\t\t"
                      " torch.multiprocessing.start_processes(...)" % start_method)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
