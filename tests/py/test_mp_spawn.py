"""ctorch.multiprocessing.spawn / start_processes / ProcessContext: the
processes run fn(i, *args), and a failing child becomes the exception torch
raises (its traceback, exit code or signal), the others being terminated.

The child functions live at the top of this module so that 'spawn'
children can import them by name.  Most tests use 'fork', which starts in
milliseconds; a few use 'spawn' (about 0.3 s a process)."""
import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

import ctorch
import ctorch.multiprocessing as cmp
from ctorch.multiprocessing.spawn import ProcessException

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "bin", "ctorchrun")


# ---- what the children run ----------------------------------------------

def _record(i, outdir, tag):
    """Leave "index tag pid sum" in outdir/<index>."""
    total = int(ctorch.arange(4).sum() + i)
    with open(os.path.join(outdir, str(i)), "w") as fh:
        fh.write("%d %s %d %d" % (i, tag, os.getpid(), total))


def _raise_at(i, bad):
    if i == bad:
        raise ValueError("bad rank %d" % i)
    time.sleep(60)


def _exit_with(i, code):
    if i == 0:
        sys.exit(code)
    time.sleep(60)


def _kill_self(i):
    if i == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)


def _wait_for(i, path):
    """Run until `path` exists."""
    while not os.path.exists(path):
        time.sleep(0.01)


def _ignore_term_then_sleep(i, ready_dir):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    open(os.path.join(ready_dir, str(i)), "w").close()
    if i == 0:
        while len(os.listdir(ready_dir)) < 2:
            time.sleep(0.01)
        raise RuntimeError("stop")
    time.sleep(60)


def _results(outdir, n):
    out = []
    for i in range(n):
        with open(os.path.join(outdir, str(i))) as fh:
            out.append(fh.read().split())
    return out


SPAWN_FRAME = re.compile(r'File "[^"]*/multiprocessing/spawn\.py", line \d+')


def _normal(msg):
    """A failure message with the path and line of the _wrap frame, which
    differ between ctorch and torch, made neutral."""
    return SPAWN_FRAME.sub('File "spawn.py", line N', msg)


def _raised_message(index, exc_line):
    """The message expected when process `index` raised in _raise_at."""
    return ("\n\n-- Process %d terminated with the following error:\n"
            "Traceback (most recent call last):\n"
            '  File "spawn.py", line N, in _wrap\n'
            "    fn(i, *args)\n"
            '  File "%s", line N, in _raise_at\n'
            '    raise ValueError("bad rank %%d" %% i)\n'
            "%s\n" % (index, os.path.abspath(__file__), exc_line))


def _neutral_lines(msg):
    return re.sub(r'(File "[^"]*"), line \d+', r"\1, line N", _normal(msg))


# ---- success -------------------------------------------------------------

@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_success_with_args(tmp_path, method):
    if method == "spawn":
        assert cmp.spawn(_record, args=(str(tmp_path), "hi"), nprocs=2) is None
    else:
        assert cmp.start_processes(_record, args=(str(tmp_path), "hi"), nprocs=2,
                                   start_method=method) is None
    res = _results(str(tmp_path), 2)
    assert [(r[0], r[1], r[3]) for r in res] == [("0", "hi", "6"), ("1", "hi", "7")]
    assert len({r[2] for r in res} | {str(os.getpid())}) == 3


def test_join_false_returns_context(tmp_path):
    ctx = cmp.start_processes(_record, args=(str(tmp_path), "x"), nprocs=2,
                              join=False, start_method="fork")
    assert isinstance(ctx, cmp.ProcessContext)
    assert len(ctx.processes) == 2 and len(ctx.sentinels) == 2
    assert ctx.pids() == [p.pid for p in ctx.processes]
    while not ctx.join():
        pass
    assert ctx.join() is True          # joining again is harmless
    assert ctx.sentinels == {}
    assert [p.exitcode for p in ctx.processes] == [0, 0]
    assert [r[2] for r in _results(str(tmp_path), 2)] == [str(p) for p in ctx.pids()]


def test_join_timeout_returns_false(tmp_path):
    flag = str(tmp_path / "go")
    ctx = cmp.start_processes(_wait_for, args=(flag,), nprocs=2, join=False,
                              start_method="fork")
    t0 = time.monotonic()
    assert ctx.join(timeout=0.05) is False
    assert time.monotonic() - t0 < 5
    assert all(p.is_alive() for p in ctx.processes)
    open(flag, "w").close()
    while not ctx.join(timeout=10):
        pass
    assert [p.exitcode for p in ctx.processes] == [0, 0]


def test_daemon_flag(tmp_path):
    ctx = cmp.start_processes(_record, args=(str(tmp_path), "d"), nprocs=1,
                              join=False, daemon=True, start_method="fork")
    assert ctx.processes[0].daemon is True
    assert ctx.join(timeout=30) is True


def test_zero_processes():
    assert cmp.spawn(_record, nprocs=0) is None
    assert cmp.start_processes(_record, nprocs=0, join=False).join() is True


# ---- failures ------------------------------------------------------------

@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_failing_child(method, capfd):
    t0 = time.monotonic()
    ctx = cmp.start_processes(_raise_at, args=(1,), nprocs=2, join=False,
                              start_method=method)
    with pytest.raises(cmp.ProcessRaisedException) as info:
        while not ctx.join():
            pass
    e = info.value
    assert time.monotonic() - t0 < 30          # the sleeper did not run out
    assert isinstance(e, cmp.ProcessRaisedException)
    assert isinstance(e, ProcessException)
    assert e.error_index == 1
    assert e.pid == e.error_pid == ctx.pids()[1]
    assert str(e) == e.msg == e.args[0]
    assert _neutral_lines(str(e)) == _neutral_lines(
        _raised_message(1, "ValueError: bad rank 1"))
    # the other process was terminated, and every error file removed
    assert ctx.processes[0].exitcode == -signal.SIGTERM
    assert ctx.processes[1].exitcode == 1
    assert not any(os.path.exists(p) for p in ctx.error_files)
    assert all(os.path.basename(p).startswith("pytorch-errorfile-")
               for p in ctx.error_files)
    # the child printed nothing itself: the traceback is shown once, by us
    out, err = capfd.readouterr()
    assert "Traceback" not in err and "bad rank" not in err + out


def test_failing_child_through_spawn():
    with pytest.raises(cmp.ProcessRaisedException) as info:
        cmp.spawn(_raise_at, args=(0,), nprocs=2)
    assert info.value.error_index == 0
    assert str(info.value).startswith(
        "\n\n-- Process 0 terminated with the following error:\nTraceback")
    assert str(info.value).endswith("ValueError: bad rank 0\n")


def test_child_exit_code():
    ctx = cmp.start_processes(_exit_with, args=(3,), nprocs=2, join=False,
                              start_method="fork")
    with pytest.raises(cmp.ProcessExitedException) as info:
        while not ctx.join():
            pass
    e = info.value
    assert str(e) == "process 0 terminated with exit code 3"
    assert (e.error_index, e.pid, e.exit_code, e.signal_name) == \
        (0, ctx.pids()[0], 3, None)
    assert ctx.processes[1].exitcode == -signal.SIGTERM


def test_child_killed_by_signal():
    ctx = cmp.start_processes(_kill_self, nprocs=2, join=False, start_method="fork")
    with pytest.raises(cmp.ProcessExitedException) as info:
        while not ctx.join():
            pass
    e = info.value
    assert str(e) == "process 0 terminated with signal SIGKILL"
    assert (e.error_index, e.pid, e.exit_code, e.signal_name) == \
        (0, ctx.pids()[0], -9, "SIGKILL")


def test_child_killed_spawn_method():
    with pytest.raises(cmp.ProcessExitedException,
                       match="^process 0 terminated with signal SIGKILL$"):
        cmp.spawn(_kill_self, nprocs=1)


def test_grace_period_kills_what_ignores_sigterm(tmp_path):
    ctx = cmp.start_processes(_ignore_term_then_sleep, args=(str(tmp_path),),
                              nprocs=2, join=False, start_method="fork")
    t0 = time.monotonic()
    with pytest.raises(cmp.ProcessRaisedException, match="RuntimeError: stop"):
        while not ctx.join(grace_period=0.2):
            pass
    assert time.monotonic() - t0 < 30
    assert ctx.processes[1].exitcode == -signal.SIGKILL


def test_unpicklable_fn_starts_nothing():
    with pytest.raises((pickle.PicklingError, AttributeError)):
        cmp.spawn(lambda i: None, nprocs=2)


def test_exceptions_pickle():
    e = cmp.ProcessExitedException("process 2 terminated with signal SIGTERM", 2, 77,
                                   -15, "SIGTERM")
    f = pickle.loads(pickle.dumps(e))
    assert (type(f), str(f), f.error_index, f.pid, f.exit_code, f.signal_name) == \
        (cmp.ProcessExitedException, str(e), 2, 77, -15, "SIGTERM")
    r = pickle.loads(pickle.dumps(cmp.ProcessRaisedException("m", 1, 5)))
    assert (type(r), str(r), r.error_index, r.pid, r.error_pid) == \
        (cmp.ProcessRaisedException, "m", 1, 5, 5)
    assert cmp.ProcessRaisedException.__mro__[1:] == \
        cmp.ProcessExitedException.__mro__[1:] == \
        (ProcessException, Exception, BaseException, object)


def test_warnings():
    with pytest.warns(UserWarning) as rec:
        cmp.spawn(_record, nprocs=0, start_method="fork")
    assert str(rec[0].message) == (
        "This method only supports start_method=spawn (got: fork).\n"
        "To use a different start_method use:\n\t\t"
        " torch.multiprocessing.start_processes(...)")
    with pytest.warns(UserWarning,
                      match="^SpawnContext is renamed to ProcessContext since 1.4 "
                            "release.$"):
        ctx = cmp.SpawnContext([], [])
    assert isinstance(ctx, cmp.ProcessContext) and ctx.join() is True


def test_children_die_with_their_parent(tmp_path):
    """A child is sent SIGINT when its parent dies (prctl PDEATHSIG) and
    exits quietly."""
    script = tmp_path / "orphan.py"
    script.write_text(textwrap.dedent("""
        import os, sys, time
        import ctorch.multiprocessing as mp

        def sleeper(i):
            time.sleep(60)

        ctx = mp.start_processes(sleeper, nprocs=1, join=False, start_method="fork")
        time.sleep(0.2)
        print(ctx.pids()[0], flush=True)
        os._exit(0)
    """))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    pid = int(p.stdout)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as fh:
                if fh.read().split(") ")[1].startswith("Z"):
                    break               # exited, not yet reaped by init
        except FileNotFoundError:
            break
        time.sleep(0.02)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the orphaned child kept running")
    assert "Traceback" not in p.stderr


# ---- against torch -------------------------------------------------------

def _failure(mp, fn, args, nprocs):
    ctx = mp.start_processes(fn, args=args, nprocs=nprocs, join=False,
                             start_method="fork")
    try:
        while not ctx.join():
            pass
    except Exception as e:       # noqa: BLE001 - the failure is the result
        return e, ctx
    raise AssertionError("no failure")


@pytest.mark.parametrize("fn,args", [(_raise_at, (1,)), (_exit_with, (3,)),
                                     (_exit_with, (-2,)), (_kill_self, ())])
def test_against_torch(torch_ref, fn, args):
    import torch.multiprocessing as tmp
    c, cctx = _failure(cmp, fn, args, 2)
    t, tctx = _failure(tmp, fn, args, 2)
    assert type(c).__name__ == type(t).__name__
    assert _normal(str(c)) == _normal(str(t))
    assert (c.error_index, c.pid == cctx.pids()[c.error_index]) == \
        (t.error_index, t.pid == tctx.pids()[t.error_index])
    for name in ("exit_code", "signal_name"):
        assert getattr(c, name, None) == getattr(t, name, None)
    assert [p.exitcode for p in cctx.processes] == [p.exitcode for p in tctx.processes]
    assert type(t).__mro__[1].__name__ == type(c).__mro__[1].__name__ == \
        "ProcessException"


def test_warnings_against_torch(torch_ref):
    import torch.multiprocessing as tmp

    def warning_of(mod):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            mod.spawn(_record, nprocs=0, start_method="forkserver")
            mod.SpawnContext([], [])
        return [(w.category, str(w.message)) for w in rec]
    assert warning_of(cmp) == warning_of(tmp)


# ---- under ctorchrun ------------------------------------------------------

SCRIPT = """
import os
import time
import torch
import torch.multiprocessing as mp


def work(i, base):
    t = torch.arange(3) + base + i
    # one write(2) per line: the two children share the pipe
    line = "child %d %s %s\\n" % (i, torch.__name__, t.tolist())
    os.write(1, line.encode())


def bad(i):
    if i == 1:
        raise RuntimeError("child %d failed" % i)
    time.sleep(60)


if __name__ == "__main__":
    mp.spawn(work, args=(10,), nprocs=2)
    try:
        mp.spawn(bad, nprocs=2)
    except mp.ProcessRaisedException as e:
        print("raised", e.error_index, type(e).__module__,
              str(e).splitlines()[-1], flush=True)
    mp.spawn(bad, nprocs=2)
"""


def _run_script(argv, path, cwd):
    e = dict(os.environ)
    e.pop("PYTHONPATH", None)
    e.pop("CTORCH_TORCH_NAMES", None)
    p = subprocess.run(argv + [path], cwd=cwd, capture_output=True, text=True,
                       env=e, timeout=120)
    lines = p.stdout.splitlines()
    return p.returncode, sorted(lines[:2]) + lines[2:], p.stderr


def _last_lines(stderr):
    return _neutral_lines(stderr).rstrip("\n").splitlines()[-9:]


def test_spawn_under_ctorchrun(tmp_path):
    path = tmp_path / "spawn_script.py"
    path.write_text(SCRIPT)
    rc, out, err = _run_script([RUN], str(path), str(tmp_path))
    assert rc == 1, err
    assert out == ["child 0 ctorch [10, 11, 12]",
                   "child 1 ctorch [11, 12, 13]",
                   "raised 1 torch.multiprocessing.spawn RuntimeError: child 1 failed"]
    # the uncaught failure: the parent's traceback, then the child's in the
    # message, named as torch names it
    assert err.count("Traceback (most recent call last)") == 2
    assert _last_lines(err) == [
        "torch.multiprocessing.spawn.ProcessRaisedException: ",
        "",
        "-- Process 1 terminated with the following error:",
        "Traceback (most recent call last):",
        '  File "spawn.py", line N, in _wrap',
        "    fn(i, *args)",
        '  File "%s", line N, in bad' % path,
        '    raise RuntimeError("child %d failed" % i)',
        "RuntimeError: child 1 failed"]


# torch takes seconds to import in every child: one child only
SCRIPT_ONE = """
import torch
import torch.multiprocessing as mp


def bad(i):
    raise RuntimeError("child %d failed" % i)


if __name__ == "__main__":
    try:
        mp.spawn(bad, nprocs=1)
    except mp.ProcessRaisedException as e:
        print("raised", e.error_index, type(e).__module__, str(e).splitlines()[-1])
        raise
"""


def test_spawn_script_against_torch(tmp_path, torch_ref):
    path = tmp_path / "spawn_one.py"
    path.write_text(SCRIPT_ONE)
    c = _run_script([RUN], str(path), str(tmp_path))
    t = _run_script([sys.executable], str(path), str(tmp_path))
    assert c[:2] == t[:2] == (1, ["raised 0 torch.multiprocessing.spawn "
                                  "RuntimeError: child 0 failed"])
    assert _last_lines(c[2]) == _last_lines(t[2])
