"""Worker processes for the launcher: start one process per local rank with
its environment, send its output to the console, a log file or both (each
console line prefixed "[<role><local_rank>]:"), wait for them and stop them.

Waiting is driven by the kernel, not by sleeping: each child has a pidfd,
and one poll() on all of them (plus an optional timeout) returns as soon as
any child exits, so a failure is seen and the others are stopped at once.
"""
import os
import pickle
import re
import select
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import IntFlag
from typing import Any, Dict

from ..utils.logging import get_logger
from .errors import ProcessFailure

__all__ = ["Std", "to_map", "SignalException", "RunProcsResult",
           "SubprocessContext"]

log = get_logger(__name__)

_MAPPING_REGEX = r"^(\d:[0123],)*(\d:[0123])$"
_VALUE_REGEX = r"^[0123]$"


class SignalException(Exception):
    """Raised in the launcher when it receives a termination signal."""

    def __init__(self, msg, sigval):
        super().__init__(msg)
        self.sigval = sigval


# the signals received while a worker is being started (None: not starting)
_deferred = None


def _terminate_process_handler(signum, frame):
    """The launcher's handler for SIGTERM, SIGINT, SIGHUP and SIGQUIT:
    raises SignalException, or, while a worker is being started, keeps the
    signal for _signals_deferred to raise once the worker is recorded."""
    sigval = signal.Signals(signum)
    if _deferred is not None:
        _deferred.append(sigval)
        return
    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)


@contextmanager
def _signals_deferred():
    """Hold the launcher's termination signals while the body runs, then
    raise the first one.  Starting a worker is such a body: raised inside
    Popen, or between Popen and recording the process, the SignalException
    would leave a worker that the launcher cannot stop (an orphan)."""
    global _deferred
    _deferred = []
    try:
        yield
    finally:
        pending, _deferred = _deferred, None
    if pending:
        _terminate_process_handler(pending[0], None)


class Std(IntFlag):
    NONE = 0
    OUT = 1
    ERR = 2
    ALL = OUT | ERR

    @classmethod
    def from_str(cls, vm):
        """"0".."3" -> one Std for all local ranks; "0:3,1:0" -> a map
        {local_rank: Std}; anything else raises ValueError."""
        if re.match(_VALUE_REGEX, vm):
            return cls(int(vm))
        if re.match(_MAPPING_REGEX, vm):
            return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
        raise ValueError(f"{vm} does not match: <{_VALUE_REGEX}> or <{_MAPPING_REGEX}>")


def to_map(val_or_map, local_world_size):
    """A Std for every local rank (ranks missing from a map get NONE)."""
    if isinstance(val_or_map, Std):
        return {i: val_or_map for i in range(local_world_size)}
    return {i: val_or_map.get(i, Std.NONE) for i in range(local_world_size)}


@dataclass
class RunProcsResult:
    """How a group ended: return values by local rank when all succeeded,
    else the failures by local rank; the log files of each rank."""
    return_values: Dict[int, Any] = field(default_factory=dict)
    failures: Dict[int, ProcessFailure] = field(default_factory=dict)
    stdouts: Dict[int, str] = field(default_factory=dict)
    stderrs: Dict[int, str] = field(default_factory=dict)

    def is_failed(self):
        return len(self.failures) > 0


def _copy_lines(src, log_file, console, prefix):
    """Thread body for a teed stream: every line the child writes goes to
    its log file (when redirected) and to the console with the prefix."""
    with src:
        for line in iter(src.readline, b""):
            if log_file is not None:
                log_file.write(line)
                log_file.flush()
            if console is not None:
                console.write(prefix + line)
                console.flush()
    if log_file is not None:
        log_file.close()


class SubprocessContext:
    """The processes of one worker group (one attempt).

    entrypoint: the program (argv[0]); args and envs: per local rank, the
    rest of argv and the variables added to this process's environment;
    log_dir: holds <local_rank>/stdout.log and stderr.log for redirected
    or teed streams; return_files: where a function entrypoint of each rank
    leaves its pickled return value."""

    def __init__(self, name, entrypoint, args, envs, log_dir, redirects=Std.NONE,
                 tee=Std.NONE, return_files=None):
        self.name = name
        self.entrypoint = entrypoint
        self.args = args
        self.envs = envs
        self.nprocs = len(args)
        self.return_files = return_files or {}
        redirects = to_map(redirects, self.nprocs)
        tee = to_map(tee, self.nprocs)
        self.stdouts, self.stderrs = {}, {}
        self._tee = tee
        for r in range(self.nprocs):
            # a teed stream is also written to its log file (torch: tee implies
            # redirect)
            mode = redirects[r] | tee[r]
            if mode:
                os.makedirs(os.path.join(log_dir, str(r)), exist_ok=True)
            self.stdouts[r] = (os.path.join(log_dir, str(r), "stdout.log")
                               if mode & Std.OUT else "")
            self.stderrs[r] = (os.path.join(log_dir, str(r), "stderr.log")
                               if mode & Std.ERR else "")
        self.procs = {}
        self._pidfds = {}
        self._threads = {}
        self._result = {}

    def _open_stream(self, local_rank, path, teed, console, opened):
        """(the Popen argument, the copying thread's arguments or None) for
        one of the child's streams: inherited, a log file, or a pipe whose
        lines a thread copies to the log file and the prefixed console.  A
        log file opened is appended to `opened`."""
        if not path:
            return None, None
        log_file = open(path, "wb")
        opened.append(log_file)
        if not teed:
            return log_file, None
        prefix = f"[{self.name}{local_rank}]:".encode()
        return subprocess.PIPE, (log_file, console, prefix)

    def start(self):
        """Start the workers, one per local rank.  A termination signal that
        arrives meanwhile is raised once the worker being started is
        recorded, so close() stops every worker started."""
        for r in range(self.nprocs):
            with _signals_deferred():
                self._start_one(r)
        return self

    def _start_one(self, r):
        tee = self._tee[r]
        opened = []         # log files; a teed one goes on to its thread
        try:
            out, out_tee = self._open_stream(r, self.stdouts[r], tee & Std.OUT,
                                             sys.stdout.buffer, opened)
            err, err_tee = self._open_stream(r, self.stderrs[r], tee & Std.ERR,
                                             sys.stderr.buffer, opened)
            env = dict(os.environ)
            env.update(self.envs[r])
            proc = subprocess.Popen([self.entrypoint, *self.args[r]], env=env,
                                    stdout=out, stderr=err)
        except BaseException:
            for f in opened:
                f.close()
            raise
        for f in (out, err):
            if f not in (None, subprocess.PIPE):
                f.close()                  # the child has its own copy
        threads = []
        for pipe, spec in ((proc.stdout, out_tee), (proc.stderr, err_tee)):
            if spec is not None:
                t = threading.Thread(target=_copy_lines, args=(pipe, *spec),
                                     daemon=True)
                t.start()
                threads.append(t)
        self.procs[r] = proc
        self._pidfds[r] = os.pidfd_open(proc.pid)
        self._threads[r] = threads

    def pids(self):
        return {r: p.pid for r, p in self.procs.items()}

    def _reap(self, r):
        """Collect local rank r's exit code once it has exited."""
        if r not in self._result:
            code = self.procs[r].wait()
            for t in self._threads[r]:
                t.join(timeout=2)
            os.close(self._pidfds.pop(r))
            self._result[r] = code

    def _poll_exited(self, timeout):
        """Block until a running child exits or `timeout` seconds pass
        (None: no limit); reap the ones that exited."""
        poller = select.poll()
        for fd in self._pidfds.values():
            poller.register(fd, select.POLLIN)
        ready = poller.poll(None if timeout is None else max(0, timeout) * 1000)
        by_fd = {fd: r for r, fd in self._pidfds.items()}
        for fd, _ in ready:
            self._reap(by_fd[fd])

    def wait(self, timeout=None, error_files=None):
        """Wait for the group to finish, for one worker to fail, or for
        `timeout` seconds.  Returns a RunProcsResult when all succeeded or
        any failed (failures: every worker that had exited non-zero by
        then), None while they are still running at the timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if (len(self._result) == self.nprocs
                    or any(c != 0 for c in self._result.values())):
                return self.result(error_files)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            self._poll_exited(left)

    def result(self, error_files=None):
        """The RunProcsResult of the workers that have exited so far:
        failures (every non-zero exit) or, when none, the return values."""
        failed = {r: c for r, c in self._result.items() if c != 0}
        if failed:
            return RunProcsResult(
                failures={r: ProcessFailure(r, self.procs[r].pid, c,
                                            (error_files or {}).get(r, ""))
                          for r, c in failed.items()},
                stdouts=self.stdouts, stderrs=self.stderrs)
        return RunProcsResult(return_values={r: self._return_value(r)
                                             for r in sorted(self._result)},
                              stdouts=self.stdouts, stderrs=self.stderrs)

    def _return_value(self, local_rank):
        """What a function entrypoint returned (None for a program)."""
        path = self.return_files.get(local_rank)
        if not path or not os.path.exists(path):
            return None
        with open(path, "rb") as fp:
            return pickle.load(fp)

    def close(self, death_sig=signal.SIGTERM, timeout=30):
        """Send `death_sig` to the workers still running, wait up to
        `timeout` seconds for them, then SIGKILL the rest."""
        alive = [r for r in self.procs if r not in self._result]
        for r in alive:
            log.warning(f"Sending process {self.procs[r].pid} closing signal "
                        f"{death_sig.name}")
            try:
                self.procs[r].send_signal(death_sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while self._pidfds and time.monotonic() < deadline:
            self._poll_exited(deadline - time.monotonic())
        for r in list(self._pidfds):
            log.warning(f"Unable to shutdown process {self.procs[r].pid} via "
                        f"{death_sig.name}, forcefully exiting via SIGKILL")
            self.procs[r].kill()
            self._reap(r)
