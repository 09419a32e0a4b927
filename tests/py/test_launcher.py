"""The launcher: `python -m ctorch.distributed.run` (torchrun) and
`ctorch.distributed.launch`, and ctorch.distributed.elastic's pieces.

Each test reads real launchers run in subprocesses.  Worker scripts print
what they see (the environment as JSON); the expectations are written out,
and where real PyTorch is installed its launcher runs the same scripts for
the differential tests (torch 1.13's own launcher cannot parse its default
--redirects/--tee under Python 3.11, so it runs with Std.from_str fixed).

Note [one batch of launchers]: a launcher run is mostly waiting (imports,
the workers' sleeps, rendezvous, torch's launcher), so the runs the tests
read are started together, once, by the module fixture `batch`, the
slowest first; each test waits for its own runs and checks them, so a
failure still names its test.  The tests that time how fast the launcher
reacts (a failure handled within 1.5 s, the SIGKILL grace period) run
alone, before the batch starts."""
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import helpers

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PY_DIR = os.path.join(ROOT, "python")
RUN = os.path.join(ROOT, "bin", "ctorchrun")

ENV_KEYS = ["GROUP_RANK", "GROUP_WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
            "MASTER_ADDR", "MASTER_PORT", "NCCL_ASYNC_ERROR_HANDLING",
            "OMP_NUM_THREADS", "RANK", "ROLE_NAME", "ROLE_RANK", "ROLE_WORLD_SIZE",
            "TORCHELASTIC_ERROR_FILE", "TORCHELASTIC_MAX_RESTARTS",
            "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_RUN_ID",
            "TORCHELASTIC_USE_AGENT_STORE", "WORLD_SIZE"]

# prints {"env": the launcher's variables, "argv": its arguments}
PRINT_ENV = """
    import json, os, sys
    sys.stdout.write(json.dumps({"env": {k: os.environ[k] for k in %r
                                         if k in os.environ},
                                 "argv": sys.argv[1:]}) + "\\n")
""" % ENV_KEYS

SCRIPTS = {
    "envp.py": PRINT_ENV,
    "which.py": """
        import torch
        print(torch.__name__, type(torch.zeros(1)).__module__)
    """,
    "out.py": """
        import os, sys
        sys.stdout.write("hello out %s\\n" % os.environ["RANK"])
        sys.stderr.write("hello err %s\\n" % os.environ["RANK"])
    """,
    # prints its environment; rank 1 raises under @record once rank 0 is
    # ready, rank 0 reports SIGTERM (only rank 1 imports torch)
    "fail_record.py": PRINT_ENV + """
    import signal, time
    def on_term(s, f):
        sys.stdout.write("rank %s got SIGTERM\\n" % os.environ["RANK"])
        sys.exit(0)
    if os.environ["RANK"] == "0":
        signal.signal(signal.SIGTERM, on_term)
        open(sys.argv[1] + ".ready", "w").close()
        time.sleep(60)
    from torch.distributed.elastic.multiprocessing.errors import record
    @record
    def main():
        while not os.path.exists(sys.argv[1] + ".ready"):
            time.sleep(0.01)
        open(sys.argv[1], "w").write(repr(time.time()))
        raise ValueError("boom from rank 1")
    main()
    """,
    "fail_exit.py": """
        import os, sys, time
        if os.environ["RANK"] == "1":
            time.sleep(0.2)
            sys.exit(3)
        time.sleep(60)
    """,
    "kill9.py": """
        import os, signal, sys, time
        if os.environ["RANK"] == "0":
            time.sleep(0.2)
            open(sys.argv[1], "w").write(repr(time.time()))
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(60)
    """,
    # fails on the first attempt only (rank 0)
    "flaky.py": """
        import os, sys
        n = os.environ["TORCHELASTIC_RESTART_COUNT"]
        sys.stdout.write("attempt %s rank %s\\n" % (n, os.environ["RANK"]))
        if n == "0" and os.environ["RANK"] == "0":
            sys.exit(2)
    """,
    "always_fail.py": """
        import os, sys
        print("attempt", os.environ["TORCHELASTIC_RESTART_COUNT"], flush=True)
        sys.exit(4)
    """,
    "term.py": """
        import os, signal, sys, time
        def on_term(s, f):
            sys.stdout.write("rank %s got %s\\n" % (os.environ["RANK"],
                                                    signal.Signals(s).name))
            sys.exit(0)
        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_term)
        sys.stdout.write("ready %s\\n" % os.environ["RANK"])
        time.sleep(60)
    """,
    # a collective across every worker of every node
    "allreduce.py": """
        import os, sys, torch, torch.distributed as dist
        dist.init_process_group("gloo")
        t = torch.ones(2) * (dist.get_rank() + 1)
        dist.all_reduce(t)
        sys.stdout.write("rank %d %d %s %s\\n" % (dist.get_rank(), dist.get_world_size(),
                                                t.tolist(), os.environ["GROUP_RANK"]))
        dist.destroy_process_group()
    """,
    # rank 0 fails on the first attempt; then every worker all-reduces
    "mflaky.py": """
        import os, sys, time, torch, torch.distributed as dist
        n = os.environ["TORCHELASTIC_RESTART_COUNT"]
        if n == "0" and os.environ["RANK"] == "0":
            time.sleep(0.3)
            sys.exit(5)
        dist.init_process_group("gloo")
        t = torch.ones(1) * (dist.get_rank() + 1)
        dist.all_reduce(t)
        sys.stdout.write("attempt %s rank %d sum %s\\n" % (n, dist.get_rank(), t.item()))
        dist.destroy_process_group()
    """,
    # the workers of node argv[1] sleep, the others are done at once
    "node_sleeps.py": """
        import os, sys, time
        if os.environ["GROUP_RANK"] == sys.argv[1]:
            time.sleep(60)
    """,
    "mfail.py": """
        import os, sys, time
        if os.environ["RANK"] == "3":
            time.sleep(0.3)
            sys.exit(7)
        time.sleep(60)
    """,
}

# torch 1.13's launcher with Std.from_str working under Python 3.11
TORCH_RUN = """
import re, runpy, sys
from torch.distributed.elastic.multiprocessing import api
def from_str(vm):
    if re.match(api._VALUE_REGEX, vm):
        return api.Std(int(vm))
    return {int(i): api.Std(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
api.Std.from_str = staticmethod(from_str)
sys.argv[0] = "torch.distributed.run"
runpy.run_module("torch.distributed.run", run_name="__main__", alter_sys=True)
"""


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    d = tmp_path_factory.mktemp("launcher")
    for name, text in SCRIPTS.items():
        (d / name).write_text(textwrap.dedent(text))
    (d / "pkg").mkdir()
    (d / "pkg" / "__init__.py").write_text("")
    shutil.copy(d / "envp.py", d / "pkg" / "mod.py")
    return d


_TMPDIR = [None]


@pytest.fixture(scope="module", autouse=True)
def _launcher_tmpdir(tmp_path_factory):
    """The launchers' $TMPDIR: the log directories a failed job leaves."""
    _TMPDIR[0] = str(tmp_path_factory.mktemp("tmp"))
    yield
    _TMPDIR[0] = None


def _env(extra=None, omp=True):
    e = dict(os.environ)
    if _TMPDIR[0]:
        e["TMPDIR"] = _TMPDIR[0]
    for k in ("PYTHONUNBUFFERED", "PYTHONPATH", "CTORCH_TORCH_NAMES", "LOGLEVEL"):
        e.pop(k, None)
    for k in list(e):
        if k.startswith("PET_") or k.startswith("TORCHELASTIC_"):
            del e[k]
    # the store of a single-node static launcher: a free port rather than
    # the default 29500, which other tests running beside these may hold
    e["PET_MASTER_PORT"] = str(free_port())
    if omp:
        e["OMP_NUM_THREADS"] = "1"      # no notice unless a test wants it
    else:
        e.pop("OMP_NUM_THREADS", None)
    e.update(extra or {})
    return e


def launch(args, cwd, module="torch.distributed.run", env=None, omp=True,
           prefix=()):
    """Start ctorchrun -m <module> args as a Run."""
    return Run(list(prefix) + [RUN, "-m", module] + list(args), cwd, _env(env, omp))


def torch_launch(args, cwd, env=None, omp=True):
    """Start torch 1.13's launcher (fixed as TORCH_RUN says) as a Run."""
    return Run([sys.executable, "-c", TORCH_RUN] + list(args), cwd, _env(env, omp))


class Run:
    """A command in a subprocess (its own session) whose stdout and stderr
    threads read line by line as they come: many run at once, none blocks
    on a full pipe, and a test can wait for a line before acting."""

    def __init__(self, argv, cwd, env):
        self.proc = subprocess.Popen([str(a) for a in argv], cwd=str(cwd), env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
        self.pid = self.proc.pid
        self._lines = {"out": [], "err": []}
        self._cond = threading.Condition()
        self._readers = [threading.Thread(target=self._read, args=(f, name), daemon=True)
                         for f, name in ((self.proc.stdout, "out"),
                                         (self.proc.stderr, "err"))]
        for t in self._readers:
            t.start()

    def _read(self, f, name):
        for line in f:
            with self._cond:
                self._lines[name].append(line)
                self._cond.notify_all()
        f.close()

    def _text(self, name):
        with self._cond:
            return "".join(self._lines[name])

    def wait_line(self, text, stream="err", timeout=60):
        """Wait until a line of `stream` ("out" or "err") contains `text`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not any(text in line for line in self._lines[stream]):
                left = deadline - time.monotonic()
                assert left > 0 and self.proc.poll() is None, (
                    "no line with %r:\n%s%s" % (text, "".join(self._lines["out"]),
                                                 "".join(self._lines["err"])))
                self._cond.wait(min(left, 0.1))

    def send_signal(self, sig):
        self.proc.send_signal(sig)

    def kill_session(self):
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def finish(self, timeout=90, check=None):
        """Wait for the command (killing its session at the timeout); sets
        returncode, stdout and stderr and returns self."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill_session()
            self.proc.wait()
        for t in self._readers:
            t.join(10)
        if any(t.is_alive() for t in self._readers):
            self.kill_session()         # a process left holding the pipes
            for t in self._readers:
                t.join()
        self.returncode = self.proc.returncode
        self.stdout, self.stderr = self._text("out"), self._text("err")
        if check is not None:
            assert self.returncode == check, self.stdout + self.stderr
        return self


def finish_nodes(runs, timeout=90):
    """Wait for the launchers of one job (one per node); once one fails,
    the others get 10 s, not the rendezvous timeout.  Asserts that all
    succeeded (showing every node's output) and returns their stdouts."""
    deadline = time.monotonic() + timeout
    while any(r.proc.poll() is None for r in runs) and time.monotonic() < deadline:
        if any(r.proc.poll() not in (None, 0) for r in runs):
            deadline = min(deadline, time.monotonic() + 10)
        time.sleep(0.05)
    for r in runs:
        r.finish(timeout=0.1)
    assert [r.returncode for r in runs] == [0] * len(runs), "\n".join(
        "node %d (exit %s):\n%s%s" % (i, r.returncode, r.stdout, r.stderr)
        for i, r in enumerate(runs))
    return [r.stdout for r in runs]


def records(out):
    """The JSON lines of envp.py, by RANK."""
    recs = [json.loads(line) for line in out.splitlines() if line.startswith('{"')]
    return {int(r["env"]["RANK"]): r for r in recs}


from helpers import free_port  # noqa: E402


OMP_NOTICE = (
    "WARNING:__main__:\n*****************************************\n"
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
    "default, to avoid your system being overloaded, please further tune the "
    "variable for optimal performance in your application as needed. \n"
    "*****************************************\n")


# ---------------------------------------------------------------- in process


def test_defaults():
    from ctorch.distributed.run import parse_args
    a = parse_args(["x.py"])
    assert (a.nnodes, a.nproc_per_node, a.rdzv_backend, a.rdzv_endpoint, a.rdzv_id,
            a.standalone, a.max_restarts, a.monitor_interval, a.role, a.module,
            a.no_python, a.run_path, a.log_dir, a.redirects, a.tee, a.node_rank,
            a.master_addr, a.master_port, a.training_script_args) == (
        "1:1", "1", "static", "", "none", False, 0, 5, "default", False, False,
        False, None, "0", "0", 0, "127.0.0.1", 29500, [])


def test_record_writes_error_file(tmp_path):
    code = textwrap.dedent("""
        from ctorch.distributed.elastic.multiprocessing.errors import record
        @record
        def main():
            raise KeyError("k")
        main()
    """)
    err = tmp_path / "error.json"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=_env({"PYTHONPATH": PY_DIR,
                                 "TORCHELASTIC_ERROR_FILE": str(err)}))
    assert p.returncode == 1
    data = json.loads(err.read_text())
    assert data["message"]["message"] == "KeyError: 'k'"
    assert data["message"]["extraInfo"]["py_callstack"].endswith("KeyError: 'k'\n")
    assert int(data["message"]["extraInfo"]["timestamp"]) <= time.time()


def _summary_of(mod, tmp_path):
    """ChildFailedError's message for fixed failures, with `mod` being
    ctorch's or torch's errors module."""
    err = tmp_path / "e.json"
    err.write_text(json.dumps({"message": {
        "message": "ValueError: x", "extraInfo": {
            "py_callstack": "Traceback (most recent call last):\nValueError: x\n",
            "timestamp": "1700000000"}}}))
    failures = {3: mod.ProcessFailure(1, 111, 1, str(err)),
                0: mod.ProcessFailure(0, 222, -9, str(tmp_path / "none.json"))}
    failures[0].timestamp = 1800000000
    return str(mod.ChildFailedError("train.py", failures))


def test_summary_format(tmp_path):
    from datetime import datetime
    from ctorch.distributed.elastic.multiprocessing import errors

    def iso(t):
        return datetime.fromtimestamp(t).isoformat(sep="_")

    host = socket.getfqdn()
    assert _summary_of(errors, tmp_path) == "\n".join([
        "",
        "=" * 60,
        "train.py FAILED",
        "-" * 60,
        "Failures:",
        "[1]:",
        "  time      : " + iso(1800000000),
        "  host      : " + host,
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : -9 (pid: 222)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 222",
        "-" * 60,
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : " + iso(1700000000),
        "  host      : " + host,
        "  rank      : 3 (local_rank: 1)",
        "  exitcode  : 1 (pid: 111)",
        "  error_file: %s" % (tmp_path / "e.json"),
        "  traceback : Traceback (most recent call last):",
        "  ValueError: x",
        "  ",
        "=" * 60])


def test_summary_format_matches_torch(tmp_path, torch_ref):
    from torch.distributed.elastic.multiprocessing import errors as terrors
    from ctorch.distributed.elastic.multiprocessing import errors
    assert _summary_of(errors, tmp_path) == _summary_of(terrors, tmp_path)


# ---------------------------------------------------------------- reaction times
# (before the batch starts: see Note [one batch of launchers])


SUMMARY = re.compile(
    r"ChildFailedError: \n(=+)\n(?P<name>\S+) FAILED\n-+\nFailures:\n"
    r"(?P<others>(?:.|\n)*?)\n-+\nRoot Cause \(first observed failure\):\n"
    r"\[0\]:\n"
    r"  time      : (?P<time>\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d)\n"
    r"  host      : (?P<host>.*)\n"
    r"  rank      : (?P<rank>\d+) \(local_rank: (?P<local_rank>\d+)\)\n"
    r"  exitcode  : (?P<exitcode>-?\d+) \(pid: (?P<pid>\d+)\)\n"
    r"  error_file: (?P<error_file>.*)\n"
    r"  traceback : (?P<traceback>(?:.|\n)*?)\n?\1\n$")


def summary(stderr):
    m = SUMMARY.search(stderr)
    assert m, stderr
    return m.groupdict()


def test_failure_with_record(scripts, tmp_path):
    stamp = tmp_path / "t"
    p = launch(["--nproc_per_node=2", "fail_record.py", stamp], scripts).finish(check=1)
    end = time.time()
    # the failure is seen at once: the launcher has exited within 1.5 s
    # (torch 1.13: 6.7 s, a monitor_interval and a 5 s sleep)
    assert end - float(stamp.read_text()) < 1.5
    s = summary(p.stderr)
    assert (s["name"], s["rank"], s["local_rank"], s["exitcode"]) == (
        "fail_record.py", "1", "1", "1")
    assert s["others"] == "  <NO_OTHER_FAILURES>"
    assert s["host"] == socket.getfqdn()
    assert s["error_file"].endswith("/attempt_0/1/error.json")
    assert os.path.exists(s["error_file"])       # kept for the user to read
    tb = s["traceback"].splitlines()
    assert tb[0] == "Traceback (most recent call last):"
    assert '      raise ValueError("boom from rank 1")' in tb
    assert tb[-2:] == ["  ValueError: boom from rank 1", "  "]
    # the other worker was sent SIGTERM; log lines as torch's
    assert "rank 0 got SIGTERM" in p.stdout
    pid0 = re.search(r"Sending process (\d+) closing signal SIGTERM", p.stderr)
    assert pid0 and pid0.group(1) != s["pid"]
    assert ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) "
            "local_rank: 1 (pid: %s) of binary: %s\n" % (s["pid"], sys.executable)
            in p.stderr)
    assert ("ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:"
            "no error file defined for parent, to copy child error file (%s)\n"
            % s["error_file"]) in p.stderr


def test_failure_sigkill(scripts, tmp_path):
    stamp = tmp_path / "t"
    p = launch(["--nproc_per_node=2", "kill9.py", stamp], scripts).finish(check=1)
    assert time.time() - float(stamp.read_text()) < 1.5
    s = summary(p.stderr)
    assert (s["rank"], s["exitcode"], s["error_file"]) == ("0", "-9", "<N/A>")
    assert s["traceback"] == "Signal 9 (SIGKILL) received by PID %s" % s["pid"]


def test_sigkill_after_grace_period(tmp_path):
    """A worker that ignores SIGTERM is killed once the grace period ends."""
    code = textwrap.dedent("""
        import os, signal, sys, time
        from ctorch.distributed.elastic.multiprocessing import SubprocessContext
        up = os.path.join(sys.argv[1], "up")
        ignore = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                  "open(%r, 'w').close(); time.sleep(60)" % up)
        pc = SubprocessContext("w", sys.executable, {0: ["-c", ignore]}, {0: {}},
                               sys.argv[1]).start()
        while not os.path.exists(up):
            time.sleep(0.01)
        t = time.monotonic()
        pc.close(signal.SIGTERM, timeout=0.5)
        print(pc.result().failures[0].exitcode, time.monotonic() - t)
    """)
    p = Run([sys.executable, "-c", code, tmp_path], tmp_path,
            _env({"PYTHONPATH": PY_DIR})).finish(check=0)
    code, took = p.stdout.split()
    assert code == "-9" and 0.5 <= float(took) < 1.5
    assert "closing signal SIGTERM" in p.stderr
    assert "forcefully exiting via SIGKILL" in p.stderr


# ---------------------------------------------------------------- the batch


def _start_batch(d, hosts):
    """Every run the batch tests read, by name (a Run, or a list of Runs
    for the nodes of one job), the slowest first.  Runs that a test must
    know the master port of carry it as .port."""
    runs = {}

    def add(name, args, port=None, **kw):
        port = port or free_port()
        env = dict(kw.pop("env", {}), PET_MASTER_PORT=str(port))
        runs[name] = launch(args, d, env=env, **kw)
        runs[name].port = port

    def nodes(name, per_node, common, **kw):
        """One launcher per node, with per_node[i] + common as flags."""
        runs[name] = [launch(extra + common, d, **kw) for extra in per_node]

    if importlib.util.find_spec("torch") is not None:
        # torch's launcher and ctorch's on the same failing job: the
        # environment, the failure summary and the log lines
        args = ["--nproc_per_node=2", "fail_record.py"]
        runs["torch_fail"] = torch_launch(["--monitor_interval=0.2"] + args +
                                          [d / "tstamp", "a"], d, omp=False)
        runs["ctorch_fail"] = launch(args + [d / "cstamp", "a"], d, omp=False)
    if not isinstance(hosts, str):
        a, b, ip_a = hosts
        port = 29400 + os.getpid() % 1000
        common = ["--nnodes=2", "--nproc_per_node=2", "allreduce.py"]
        runs["netns_static"] = [
            launch(["--master_addr", ip_a, "--master_port", port, "--node_rank=%d" % r]
                   + common, d, prefix=["ip", "netns", "exec", ns])
            for r, ns in ((0, a), (1, b))]
        runs["netns_c10d"] = [
            launch(["--rdzv_backend=c10d", "--rdzv_endpoint=%s:%d" % (ip_a, port + 1),
                    "--rdzv_id=ns"] + common, d, prefix=["ip", "netns", "exec", ns])
            for ns in (b, a)]
    for backend in ("static", "c10d"):
        port = free_port()
        if backend == "static":
            per_node = [["--node_rank=0", "--master_port", port],
                        ["--node_rank=1", "--master_port", port]]
        else:
            per_node = [["--rdzv_backend=c10d",
                         "--rdzv_endpoint=127.0.0.1:%d" % port]] * 2
        nodes("restart_" + backend, per_node,
              ["--nnodes=2", "--nproc_per_node=2", "--max_restarts=1",
               "--monitor_interval=0.2", "mflaky.py"])
    (d / "fn.py").write_text(FN_PY)
    runs["api_function"] = Run([RUN, "fn.py"], d, _env())
    runs["api_elastic"] = Run([RUN, "-c", API_ELASTIC], d, _env())
    port = free_port()
    nodes("static_loopback", [["--node_rank=0"], ["--node-rank=1",
                                                  "--master-addr=127.0.0.1"]],
          ["--nnodes=2", "--nproc_per_node=2", "--master_port", port, "allreduce.py"])
    ep = "127.0.0.1:%d" % free_port()
    nodes("c10d_loopback", [["--nnodes=2"], ["--nnodes=1:2"]],
          ["--rdzv_backend=c10d", "--rdzv_endpoint", ep, "--rdzv_id=j1",
           "--nproc_per_node=2", "envp.py"])
    port = free_port()
    nodes("failure_stops", [["--node_rank=0"], ["--node_rank=1"]],
          ["--nnodes=2", "--nproc_per_node=2", "--master_port", port,
           "--monitor_interval=0.2", "mfail.py"])
    port = free_port()
    nodes("exit_barrier", [["--node_rank=0"], ["--node_rank=1"]],
          ["--nnodes=2", "--master_port", port, "--monitor_interval=0.2",
           "node_sleeps.py", "1"], env={"LOGLEVEL": "INFO"})
    for sig, node_rank in RDZV_SIGNALS:
        add("rdzv_signal_%d" % node_rank, ["--nnodes=2", "--node_rank=%d" % node_rank,
                                            "envp.py"], env={"LOGLEVEL": "INFO"})
    add("standalone", ["--standalone", "--nproc_per_node=3", "allreduce.py"])
    add("last_call", ["--nnodes=1:2", "--rdzv_backend=c10d",
                      "--rdzv_endpoint=localhost:0",
                      "--rdzv_conf=last_call_timeout=0.3", "--nproc_per_node=2",
                      "envp.py"])
    for sig in FORWARDED:
        add("forward_%d" % sig, ["--nproc_per_node=2", "term.py"])
    add("starting", ["--nproc_per_node=8", "--no_python", "/bin/sh", "-c",
                     'echo $$ >> %s; [ $LOCAL_RANK = 0 ] && kill -TERM $PPID; '
                     'exec sleep 30 >/dev/null 2>&1' % (d / "start_pids")])
    add("restart", ["--nproc_per_node=2", "--max_restarts=2", "flaky.py"])
    add("exhausted", ["--max_restarts=2", "always_fail.py"])
    add("exit_code", ["--nproc_per_node=2", "fail_exit.py"])
    add("env", ["--nproc_per_node=2", "envp.py", "a", "--b"], omp=False)
    add("omp_set", ["--nproc_per_node=2", "envp.py"], env={"OMP_NUM_THREADS": "3"})
    add("omp_one", ["envp.py"], omp=False)
    add("dash", ["--nproc-per-node", "2", "--role", "trainer", "--rdzv-id", "job7",
                 "--max-restarts=3", "--monitor-interval=0.5", "--master-port",
                 free_port(), "--master-addr=localhost", "--start-method=fork",
                 "envp.py"])
    add("pet", ["envp.py"], env={"PET_NPROC_PER_NODE": "2", "PET_ROLE": "r",
                                 "PET_MAX_RESTARTS": "2"})
    for value in NPROC_VALUES:
        add("nproc_" + value, ["--nproc_per_node", value, "envp.py"])
    for i, (args, _) in enumerate(BAD_FLAGS):
        add("bad_flags_%d" % i, args)
    add("usage", ["--nproc_per_node=2"])
    add("module", ["--nproc_per_node=2", "-m", "pkg.mod", "x"])
    add("no_python", ["--nproc_per_node=2", "--no_python", "/bin/sh", "-c",
                      'echo "rank $RANK of $WORLD_SIZE"'])
    add("run_path", ["--nproc_per_node=2", "--run_path", d / "envp.py", "q"])
    add("launch", ["--nproc_per_node=2", "envp.py", "q"],
        module="torch.distributed.launch")
    add("launch_use_env", ["--use_env", "--nproc_per_node=2", "envp.py", "q"],
        module="torch.distributed.launch")
    add("launch_no_python", ["--no_python", "/bin/true"],
        module="torch.distributed.launch")
    add("tee", ["--nproc_per_node=2", "--tee=3", "--log_dir", d / "logs_tee", "out.py"])
    add("redirects", ["--nproc_per_node=2", "-r", "3", "--log-dir",
                      d / "logs_redirects", "out.py"])
    add("maps", ["--nproc_per_node=2", "--redirects=0:1", "--tee=1:2", "--role",
                 "trainer", "out.py"])
    add("streams", ["--nproc_per_node=2", "out.py"])
    runs["ctorch_module"] = Run([sys.executable, "-m", "ctorch.distributed.run",
                                 "which.py"], d, _env({"PYTHONPATH": PY_DIR}))
    return runs


@pytest.fixture(scope="module")
def batch(scripts):
    """The runs of _start_batch, started at the first test that asks; the
    ones left running at the end are killed.  Namespace runs are there
    only where namespaces can be made (else batch["two_hosts"] says why)."""
    # helpers.two_hosts (loopback up: local workers reach their own node's
    # address), or the reason it skips
    made = helpers.two_hosts("ln")
    try:
        hosts = next(made)[:3]
    except pytest.skip.Exception as e:
        hosts = str(e)
    runs = _start_batch(scripts, hosts)
    runs["two_hosts"] = hosts
    yield runs
    for r in runs.values():
        for run in (r if isinstance(r, list) else [r] if isinstance(r, Run) else []):
            if run.proc.poll() is None:
                run.kill_session()
            run.finish(timeout=10)
    made.close()                        # removes the namespaces


# ---------------------------------------------------------------- environment


def test_worker_env_two_procs(batch):
    p = batch["env"].finish(check=0)
    assert p.stderr == OMP_NOTICE
    recs = records(p.stdout)
    assert sorted(recs) == [0, 1]
    for rank, rec in recs.items():
        env = rec["env"]
        assert rec["argv"] == ["a", "--b"]
        err = env.pop("TORCHELASTIC_ERROR_FILE")
        assert re.fullmatch(re.escape(_TMPDIR[0]) +
                            r"/torchelastic_\w+/none_\w+/attempt_0/%d/error.json"
                            % rank, err), err
        assert env == {
            "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1", "LOCAL_RANK": str(rank),
            "LOCAL_WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(p.port), "NCCL_ASYNC_ERROR_HANDLING": "1",
            "OMP_NUM_THREADS": "1", "RANK": str(rank), "ROLE_NAME": "default",
            "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": "2",
            "TORCHELASTIC_MAX_RESTARTS": "0", "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_RUN_ID": "none", "TORCHELASTIC_USE_AGENT_STORE": "True",
            "WORLD_SIZE": "2"}
    # the temporary log directory is removed when the launcher exits
    assert not os.path.exists(err.split("/none_")[0])


def test_omp_kept_when_set_or_one_proc(batch):
    p = batch["omp_set"].finish(check=0)
    assert p.stderr == ""
    assert {r["env"]["OMP_NUM_THREADS"] for r in records(p.stdout).values()} == {"3"}
    p = batch["omp_one"].finish(check=0)
    assert p.stderr == ""
    assert "OMP_NUM_THREADS" not in records(p.stdout)[0]["env"]


def test_dash_spellings_role_rdzv_id_restarts(batch):
    p = batch["dash"].finish(check=0)
    recs = records(p.stdout)
    assert sorted(recs) == [0, 1]
    for rank, rec in recs.items():
        env = rec["env"]
        assert (env["ROLE_NAME"], env["TORCHELASTIC_RUN_ID"], env["MASTER_ADDR"],
                env["TORCHELASTIC_MAX_RESTARTS"]) == ("trainer", "job7", "localhost", "3")
        assert env["MASTER_PORT"] != str(p.port)       # --master-port's, not PET's
        assert "/job7_" in env["TORCHELASTIC_ERROR_FILE"]


def test_pet_environment_defaults(batch):
    p = batch["pet"].finish(check=0)
    recs = records(p.stdout)
    assert sorted(recs) == [0, 1]
    assert recs[1]["env"]["ROLE_NAME"] == "r"
    assert recs[1]["env"]["TORCHELASTIC_MAX_RESTARTS"] == "2"
    assert recs[1]["env"]["MASTER_PORT"] == str(p.port)


NPROC_VALUES = ["cpu", "auto"]


@pytest.mark.parametrize("value", NPROC_VALUES)
def test_nproc_cpu_auto(batch, value):
    p = batch["nproc_" + value].finish(check=0)
    recs = records(p.stdout)
    assert sorted(recs) == list(range(os.cpu_count()))
    assert recs[0]["env"]["LOCAL_WORLD_SIZE"] == str(os.cpu_count())


BAD_FLAGS = [
    (["--nnodes=1:2:3", "x.py"], 'RuntimeError: nnodes=1:2:3 is not in "MIN:MAX" format'),
    (["--nproc_per_node=many", "x.py"], "ValueError: Unsupported nproc_per_node value: many"),
    (["--redirects=7", "x.py"], "ValueError: 7 does not match: <^[0123]$> or "
                                "<^(\\d:[0123],)*(\\d:[0123])$>"),
    (["--no_python", "-m", "x"], "ValueError: Don't use both the '--no_python' flag "
                                 "and the '--module' flag at the same time."),
    (["--rdzv_conf=a", "x.py"], "ValueError: The rendezvous configuration option 'a' "
                                "must have a value specified."),
]


@pytest.mark.parametrize("case", range(len(BAD_FLAGS)))
def test_bad_flags(batch, case):
    p = batch["bad_flags_%d" % case].finish(check=1)
    assert p.stderr.rstrip().splitlines()[-1] == BAD_FLAGS[case][1]


def test_usage_error(batch):
    p = batch["usage"].finish(check=2)
    assert "error: the following arguments are required: training_script" in p.stderr


# ---------------------------------------------------------------- how to run


def test_module_flag(batch):
    p = batch["module"].finish(check=0)
    assert [r["argv"] for r in records(p.stdout).values()] == [["x"], ["x"]]


def test_no_python(batch):
    p = batch["no_python"].finish(check=0)
    assert sorted(p.stdout.splitlines()) == ["rank 0 of 2", "rank 1 of 2"]


def test_run_path(batch):
    p = batch["run_path"].finish(check=0)
    recs = records(p.stdout)
    assert sorted(recs) == [0, 1] and recs[1]["argv"] == ["q"]


LAUNCH_WARNING = (
    "FutureWarning: The module torch.distributed.launch is deprecated\n"
    "and will be removed in future. Use torchrun.\n"
    "Note that --use_env is set by default in torchrun.\n"
    "If your script expects `--local_rank` argument to be set, please\n"
    "change it to read from `os.environ['LOCAL_RANK']` instead. See \n"
    "https://pytorch.org/docs/stable/distributed.html#launch-utility for \n"
    "further instructions\n\n  warnings.warn(\n")


def test_launch_adds_local_rank(batch):
    p = batch["launch"].finish(check=0)
    assert LAUNCH_WARNING in p.stderr
    assert {r: rec["argv"] for r, rec in records(p.stdout).items()} == {
        0: ["--local_rank=0", "q"], 1: ["--local_rank=1", "q"]}
    p = batch["launch_use_env"].finish(check=0)
    assert [rec["argv"] for rec in records(p.stdout).values()] == [["q"], ["q"]]
    p = batch["launch_no_python"].finish(check=1)
    assert p.stderr.rstrip().endswith(
        "ValueError: When using the '--no_python' flag, you must also set the "
        "'--use_env' flag.")


API_ELASTIC = """
import sys
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
cfg = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2, rdzv_backend="c10d",
                   rdzv_endpoint="localhost:0", run_id="api", max_restarts=0)
print(elastic_launch(cfg, sys.executable)("-u", "envp.py"))
"""


def test_python_api_elastic_launch(batch):
    p = batch["api_elastic"].finish(check=0)
    assert p.stdout.splitlines()[-1] == "{0: None, 1: None}"
    assert records(p.stdout)[1]["env"]["TORCHELASTIC_USE_AGENT_STORE"] == "False"


FN_PY = textwrap.dedent("""
    import os
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    def work(x):
        if x == "fail" and os.environ["RANK"] == "1":
            raise RuntimeError("fn failed")
        return int(os.environ["RANK"]), x

    if __name__ == "__main__":
        cfg = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2,
                           rdzv_backend="c10d", rdzv_endpoint="localhost:0")
        print(elastic_launch(cfg, work)("hi"))
        elastic_launch(cfg, work)("fail")
""")


def test_python_api_function_entrypoint(batch):
    """A function entrypoint: its return values by local rank; a raise is
    recorded (the summary shows its traceback)."""
    p = batch["api_function"].finish(check=1)
    assert p.stdout == "{0: (0, 'hi'), 1: (1, 'hi')}\n"
    # no run_id: a random one, as torch's (a fixed one would join two such
    # jobs on one c10d endpoint), kept in the config for its next launch
    assert len(re.findall(r"^config has no run_id, generated a random run_id: "
                          r"\d{20,}$", p.stderr, re.M)) == 1
    s = summary(p.stderr)
    assert (s["name"], s["rank"]) == ("work", "1")
    assert s["traceback"].endswith('RuntimeError("fn failed")\n  RuntimeError: fn failed\n  ')


def test_workers_of_ctorch_launcher_import_ctorch(batch):
    """`python -m ctorch.distributed.run` (not only under ctorchrun): a
    PyTorch script's `import torch` is ctorch in the workers."""
    p = batch["ctorch_module"].finish()
    assert (p.returncode, p.stdout) == (0, "ctorch torch\n"), p.stderr


# ---------------------------------------------------------------- failures


def test_failure_exit_code_without_record(batch):
    p = batch["exit_code"].finish(check=1)
    s = summary(p.stderr)
    assert (s["rank"], s["exitcode"], s["error_file"], s["traceback"]) == (
        "1", "3", "<N/A>",
        "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    assert re.search(r"\n(=+)\nfail_exit.py FAILED\n", p.stderr).group(1) == "=" * 60


def test_restart_after_first_failure(batch):
    p = batch["restart"].finish(check=0)
    lines = set(p.stdout.splitlines())
    # rank 1 may be stopped before it prints in the first attempt
    assert lines - {"attempt 0 rank 1"} == {
        "attempt 0 rank 0", "attempt 1 rank 0", "attempt 1 rank 1"}
    assert "failed (exitcode: 2) local_rank: 0" in p.stderr
    assert "ChildFailedError" not in p.stderr


def test_restarts_exhausted(batch):
    p = batch["exhausted"].finish(check=1)
    assert p.stdout.splitlines() == ["attempt 0", "attempt 1", "attempt 2"]
    s = summary(p.stderr)
    assert (s["exitcode"], s["name"]) == ("4", "always_fail.py")
    assert p.stderr.count("failed (exitcode: 4)") == 3


def _signal_line(pid, sig):
    return "SignalException: Process %d got signal: %d" % (pid, sig)


FORWARDED = [signal.SIGTERM, signal.SIGINT]


@pytest.mark.parametrize("sig", FORWARDED)
def test_signal_forwarded(batch, sig):
    """A signal to the launcher is sent on to every worker."""
    p = batch["forward_%d" % sig]
    p.wait_line("ready 0", "out")
    p.wait_line("ready 1", "out")
    p.send_signal(sig)
    p.finish(timeout=30, check=1)
    assert sorted(p.stdout.splitlines()) == sorted([
        "ready 0", "ready 1", "rank 0 got %s" % sig.name, "rank 1 got %s" % sig.name])
    assert ("WARNING:torch.distributed.elastic.agent.server.api:Received %d death "
            "signal, shutting down workers\n" % sig) in p.stderr
    assert "closing signal %s" % sig.name in p.stderr
    assert p.stderr.rstrip().endswith(_signal_line(p.pid, sig))


RDZV_SIGNALS = [(signal.SIGINT, 0), (signal.SIGTERM, 1)]


@pytest.mark.parametrize("sig, node_rank", RDZV_SIGNALS)
def test_signal_during_rendezvous(batch, sig, node_rank):
    """A launcher waiting for the other nodes stops at once on SIGINT or
    SIGTERM (node 0 hosts the store and waits for node 1's key; node 1
    waits to connect), not when the store's timeout (900 s) ends."""
    p = batch["rdzv_signal_%d" % node_rank]
    p.wait_line("Starting elastic_operator with launch configs")
    time.sleep(0.3)
    t = time.monotonic()
    p.send_signal(sig)
    p.finish(timeout=30, check=1)
    assert time.monotonic() - t < 10
    assert p.stderr.rstrip().endswith(_signal_line(p.pid, sig))


def test_signal_during_exit_barrier(batch):
    """A launcher whose workers are done waits for the other nodes; a
    SIGTERM then ends it with SignalException (exit 1), not success.  The
    other node, whose store host is now gone, still stops on SIGTERM (its
    monitor's store calls time out in seconds, not in 900 s)."""
    a, b = batch["exit_barrier"]
    a.wait_line("Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 "
                "seconds for other agents to finish")
    time.sleep(0.3)      # past that line: a signal inside logging is lost
    a.send_signal(signal.SIGTERM)
    a.finish(timeout=30, check=1)
    assert a.stderr.rstrip().endswith(_signal_line(a.pid, signal.SIGTERM))
    time.sleep(1)        # b's monitor (every 0.2 s) meets the missing host
    t = time.monotonic()
    b.send_signal(signal.SIGTERM)
    b.finish(timeout=60, check=1)
    assert time.monotonic() - t < 15
    assert b.stderr.rstrip().endswith(_signal_line(b.pid, signal.SIGTERM))


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_signal_while_starting_workers(batch, scripts):
    """A signal that reaches the launcher while it is still starting
    workers (here from the first worker) stops every worker started: none
    is left running."""
    p = batch["starting"].finish(timeout=60, check=1)
    assert p.stderr.rstrip().endswith(_signal_line(p.pid, signal.SIGTERM))
    started = [int(x) for x in (scripts / "start_pids").read_text().split()]
    time.sleep(0.2)
    left = [pid for pid in started if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


# ---------------------------------------------------------------- output


def test_tee_prefixes_and_log_dir(batch, scripts):
    p = batch["tee"].finish(check=0)
    assert sorted(p.stdout.splitlines()) == ["[default0]:hello out 0",
                                             "[default1]:hello out 1"]
    assert sorted(p.stderr.splitlines()) == ["[default0]:hello err 0",
                                             "[default1]:hello err 1"]
    logs = scripts / "logs_tee"
    (job,) = os.listdir(logs)
    assert job.startswith("none_")
    base = logs / job / "attempt_0"
    assert sorted(os.listdir(base)) == ["0", "1"]
    assert (base / "1" / "stdout.log").read_text() == "hello out 1\n"
    assert (base / "0" / "stderr.log").read_text() == "hello err 0\n"


def test_redirects_only_to_files(batch, scripts):
    p = batch["redirects"].finish(check=0)
    assert (p.stdout, p.stderr) == ("", "")
    logs = scripts / "logs_redirects"
    (job,) = os.listdir(logs)
    assert (logs / job / "attempt_0" / "0" / "stdout.log").read_text() == "hello out 0\n"


def test_redirect_and_tee_maps(batch):
    p = batch["maps"].finish(check=0)
    assert p.stdout.splitlines() == ["hello out 1"]
    assert sorted(p.stderr.splitlines()) == ["[trainer1]:hello err 1", "hello err 0"]


def test_default_streams_pass_through(batch):
    p = batch["streams"].finish(check=0)
    assert sorted(p.stdout.splitlines()) == ["hello out 0", "hello out 1"]
    assert sorted(p.stderr.splitlines()) == ["hello err 0", "hello err 1"]


# ---------------------------------------------------------------- nodes


def _allreduce_lines(outs):
    return sorted(line for out in outs for line in out.splitlines())


def test_standalone_allreduce(batch):
    p = batch["standalone"].finish(check=0)
    assert sorted(p.stdout.splitlines()) == [
        "rank %d 3 [6.0, 6.0] 0" % r for r in range(3)]


def test_two_nodes_static_loopback(batch):
    assert _allreduce_lines(finish_nodes(batch["static_loopback"])) == [
        "rank %d 4 [10.0, 10.0] %d" % (r, r // 2) for r in range(4)]


def test_two_nodes_c10d_loopback(batch):
    outs = finish_nodes(batch["c10d_loopback"])
    recs = {**records(outs[0]), **records(outs[1])}
    assert sorted(recs) == [0, 1, 2, 3]
    envs = [recs[r]["env"] for r in range(4)]
    assert [(e["GROUP_RANK"], e["LOCAL_RANK"], e["WORLD_SIZE"], e["GROUP_WORLD_SIZE"])
            for e in envs] == [("0", "0", "4", "2"), ("0", "1", "4", "2"),
                               ("1", "0", "4", "2"), ("1", "1", "4", "2")]
    assert {(e["MASTER_ADDR"], e["MASTER_PORT"], e["TORCHELASTIC_USE_AGENT_STORE"],
             e["TORCHELASTIC_RUN_ID"]) for e in envs} == {
        (envs[0]["MASTER_ADDR"], envs[0]["MASTER_PORT"], "False", "j1")}
    # (test_two_nodes_restart_together[c10d] all-reduces across such nodes)


@pytest.mark.parametrize("backend", ["static", "c10d"])
def test_two_nodes_restart_together(batch, backend):
    """A worker of node 0 fails on the first attempt: node 0 restarts its
    group, node 1 sees it waiting in the next round and restarts too."""
    assert _allreduce_lines(finish_nodes(batch["restart_" + backend])) == [
        "attempt 1 rank %d sum 10.0" % r for r in range(4)]


def test_min_max_nodes_last_call(batch):
    """--nnodes=1:2: with one node only, the round closes at the last call."""
    p = batch["last_call"].finish(check=0)
    recs = records(p.stdout)
    assert [(r["env"]["WORLD_SIZE"], r["env"]["GROUP_WORLD_SIZE"])
            for r in recs.values()] == [("2", "1")] * 2


def test_two_nodes_failure_stops_the_other(batch):
    a, b = batch["failure_stops"]
    b.finish(check=1)
    a.finish(check=1)
    s = summary(b.stderr)
    assert (s["rank"], s["local_rank"], s["exitcode"]) == ("3", "1", "7")
    assert "the worker group of node 1 failed; stopping this node's workers" in a.stderr
    assert summary(a.stderr)["exitcode"] == "-15"


@pytest.mark.parametrize("backend", ["static", "c10d"])
def test_two_nodes_network_namespaces(batch, backend):
    """Two nodes in two network namespaces (helpers.two_hosts): node b
    starts as early as node a and waits for a's store."""
    if isinstance(batch["two_hosts"], str):
        pytest.skip(batch["two_hosts"])
    lines = _allreduce_lines(finish_nodes(batch["netns_" + backend]))
    assert [line.split()[:5] for line in lines] == [
        ["rank", str(r), "4", "[10.0,", "10.0]"] for r in range(4)]
    if backend == "static":
        assert [line.split()[-1] for line in lines] == ["0", "0", "1", "1"]


# ---------------------------------------------------------------- vs torch


def _normalize(stderr):
    """A failure's log lines and summary with the varying parts (pids,
    times, paths, the launcher's own traceback) taken out."""
    s = summary(stderr)
    for key in ("pid", "time", "error_file"):
        stderr = stderr.replace(s[key], "<%s>" % key)
    logs = [re.sub(r"\d{3,}", "N", line) for line in stderr.splitlines()
            if re.match(r"(WARNING|ERROR):torch", line)]
    box = stderr[stderr.index("ChildFailedError: \n"):]
    box = re.sub(r'File "[^"]*errors/__init__.py", line \d+, in wrapper\n\s*return f.*\n'
                 r'\s*\^+', "<record>", box)
    return logs, box


def test_env_and_summary_match_torch(batch):
    """The same environment, failure summary and log lines as torch's
    launcher, for one failing job."""
    if "torch_fail" not in batch:
        pytest.skip("torch is not installed")
    t = batch["torch_fail"].finish(timeout=120, check=1)
    c = batch["ctorch_fail"].finish(check=1)
    assert t.stderr.startswith(OMP_NOTICE) and c.stderr.startswith(OMP_NOTICE)
    t_recs, c_recs = records(t.stdout), records(c.stdout)
    for recs in (t_recs, c_recs):
        assert sorted(recs) == [0, 1]
        for r in (0, 1):
            recs[r]["env"].pop("TORCHELASTIC_ERROR_FILE")
            recs[r]["env"].pop("MASTER_PORT")
            assert recs[r]["argv"][1:] == ["a"]
            del recs[r]["argv"]
    assert t_recs == c_recs
    assert _normalize(c.stderr) == _normalize(t.stderr)
