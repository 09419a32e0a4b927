"""The launcher: `python -m ctorch.distributed.run` (torchrun) and
`ctorch.distributed.launch`, and ctorch.distributed.elastic's pieces.

Each test starts real launchers in subprocesses.  Worker scripts print what
they see (the environment as JSON); the expectations are written out, and
where real PyTorch is installed its launcher runs the same scripts for the
differential tests (torch 1.13's own launcher cannot parse its default
--redirects/--tee under Python 3.11, so it runs with Std.from_str fixed)."""
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

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PY_DIR = os.path.join(ROOT, "python")
RUN = os.path.join(ROOT, "bin", "ctorchrun")

ENV_KEYS = ["GROUP_RANK", "GROUP_WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
            "MASTER_ADDR", "MASTER_PORT", "NCCL_ASYNC_ERROR_HANDLING",
            "OMP_NUM_THREADS", "RANK", "ROLE_NAME", "ROLE_RANK", "ROLE_WORLD_SIZE",
            "TORCHELASTIC_ERROR_FILE", "TORCHELASTIC_MAX_RESTARTS",
            "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_RUN_ID",
            "TORCHELASTIC_USE_AGENT_STORE", "WORLD_SIZE"]

SCRIPTS = {
    # prints {"env": the launcher's variables, "argv": its arguments}
    "envp.py": """
        import json, os, sys
        keys = %r
        sys.stdout.write(json.dumps({"env": {k: os.environ[k] for k in keys
                                             if k in os.environ},
                                     "argv": sys.argv[1:]}) + "\\n")
    """ % ENV_KEYS,
    "out.py": """
        import os, sys
        sys.stdout.write("hello out %s\\n" % os.environ["RANK"])
        sys.stderr.write("hello err %s\\n" % os.environ["RANK"])
    """,
    # rank 1 raises under @record after rank 0 is ready; rank 0 reports SIGTERM
    "fail_record.py": """
        import os, signal, sys, time
        from torch.distributed.elastic.multiprocessing.errors import record
        def on_term(s, f):
            sys.stdout.write("rank %s got SIGTERM\\n" % os.environ["RANK"])
            sys.exit(0)
        @record
        def main():
            signal.signal(signal.SIGTERM, on_term)
            if os.environ["RANK"] == "0":
                open(sys.argv[1] + ".ready", "w").close()
            else:
                while not os.path.exists(sys.argv[1] + ".ready"):
                    time.sleep(0.01)
                open(sys.argv[1], "w").write(repr(time.time()))
                raise ValueError("boom from rank 1")
            time.sleep(60)
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
    # node 0's workers are done at once, node 1's sleep
    "group1_sleeps.py": """
        import os, time
        if os.environ["GROUP_RANK"] == "1":
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


def launch(args, cwd, module="torch.distributed.run", env=None, timeout=60,
           omp=True, check=None):
    """Run ctorchrun -m <module> args; returns the CompletedProcess."""
    p = subprocess.run([RUN, "-m", module] + [str(a) for a in args], cwd=str(cwd),
                       capture_output=True, text=True, env=_env(env, omp),
                       timeout=timeout)
    if check is not None:
        assert p.returncode == check, p.stdout + p.stderr
    return p


def start(args, cwd, module="torch.distributed.run", env=None, prefix=()):
    return subprocess.Popen(list(prefix) + [RUN, "-m", module] + [str(a) for a in args],
                            cwd=str(cwd), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(env))


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

    def _kill_session(self):
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
            self._kill_session()
            self.proc.wait()
        for t in self._readers:
            t.join(10)
        if any(t.is_alive() for t in self._readers):
            self._kill_session()         # a process left holding the pipes
            for t in self._readers:
                t.join()
        self.returncode = self.proc.returncode
        self.stdout, self.stderr = self._text("out"), self._text("err")
        if check is not None:
            assert self.returncode == check, self.stdout + self.stderr
        return self


def run_launcher(args, cwd, module="torch.distributed.run", env=None, omp=True,
                 prefix=()):
    """Start ctorchrun -m <module> args as a Run."""
    return Run(list(prefix) + [RUN, "-m", module] + list(args), cwd, _env(env, omp))


def torch_launch(args, cwd, env=None, omp=True):
    pytest.importorskip("torch")
    e = _env(env, omp)
    return subprocess.run([sys.executable, "-c", TORCH_RUN] + [str(a) for a in args],
                          cwd=str(cwd), capture_output=True, text=True, env=e,
                          timeout=120)


def records(out):
    """The JSON lines of envp.py, by RANK."""
    recs = [json.loads(line) for line in out.splitlines() if line.startswith('{"')]
    return {int(r["env"]["RANK"]): r for r in recs}


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


OMP_NOTICE = (
    "WARNING:__main__:\n*****************************************\n"
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
    "default, to avoid your system being overloaded, please further tune the "
    "variable for optimal performance in your application as needed. \n"
    "*****************************************\n")


# ---------------------------------------------------------------- environment


def test_defaults():
    from ctorch.distributed.run import parse_args
    a = parse_args(["x.py"])
    assert (a.nnodes, a.nproc_per_node, a.rdzv_backend, a.rdzv_endpoint, a.rdzv_id,
            a.standalone, a.max_restarts, a.monitor_interval, a.role, a.module,
            a.no_python, a.run_path, a.log_dir, a.redirects, a.tee, a.node_rank,
            a.master_addr, a.master_port, a.training_script_args) == (
        "1:1", "1", "static", "", "none", False, 0, 5, "default", False, False,
        False, None, "0", "0", 0, "127.0.0.1", 29500, [])


def test_worker_env_two_procs(scripts):
    port = free_port()
    p = launch(["--nproc_per_node=2", "envp.py", "a", "--b"], scripts, omp=False,
               env={"PET_MASTER_PORT": str(port)}, check=0)
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
            "LOCAL_WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
            "NCCL_ASYNC_ERROR_HANDLING": "1", "OMP_NUM_THREADS": "1", "RANK": str(rank),
            "ROLE_NAME": "default", "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": "2",
            "TORCHELASTIC_MAX_RESTARTS": "0", "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_RUN_ID": "none", "TORCHELASTIC_USE_AGENT_STORE": "True",
            "WORLD_SIZE": "2"}
    # the temporary log directory is removed when the launcher exits
    assert not os.path.exists(err.split("/none_")[0])


def test_omp_kept_when_set_or_one_proc(scripts):
    p = launch(["--nproc_per_node=2", "envp.py"], scripts,
               env={"OMP_NUM_THREADS": "3"}, check=0)
    assert p.stderr == ""
    assert {r["env"]["OMP_NUM_THREADS"] for r in records(p.stdout).values()} == {"3"}
    p = launch(["envp.py"], scripts, omp=False, check=0)
    assert p.stderr == ""
    assert "OMP_NUM_THREADS" not in records(p.stdout)[0]["env"]


def test_dash_spellings_role_rdzv_id_restarts(scripts):
    port = free_port()
    p = launch(["--nproc-per-node", "2", "--role", "trainer", "--rdzv-id", "job7",
                "--max-restarts=3", "--monitor-interval=0.5", "--master-port", port,
                "--master-addr=localhost", "--start-method=fork", "envp.py"],
               scripts, check=0)
    for rank, rec in records(p.stdout).items():
        env = rec["env"]
        assert (env["ROLE_NAME"], env["TORCHELASTIC_RUN_ID"], env["MASTER_PORT"],
                env["MASTER_ADDR"], env["TORCHELASTIC_MAX_RESTARTS"]) == (
                    "trainer", "job7", str(port), "localhost", "3")
        assert "/job7_" in env["TORCHELASTIC_ERROR_FILE"]


def test_pet_environment_defaults(scripts):
    p = launch(["envp.py"], scripts, env={"PET_NPROC_PER_NODE": "2",
                                          "PET_ROLE": "r", "PET_MAX_RESTARTS": "2"},
               check=0)
    recs = records(p.stdout)
    assert sorted(recs) == [0, 1]
    assert recs[1]["env"]["ROLE_NAME"] == "r"
    assert recs[1]["env"]["TORCHELASTIC_MAX_RESTARTS"] == "2"


@pytest.mark.parametrize("value", ["cpu", "auto"])
def test_nproc_cpu_auto(scripts, value):
    p = launch(["--nproc_per_node", value, "envp.py"], scripts, check=0)
    recs = records(p.stdout)
    assert sorted(recs) == list(range(os.cpu_count()))
    assert recs[0]["env"]["LOCAL_WORLD_SIZE"] == str(os.cpu_count())


@pytest.mark.parametrize("args, message", [
    (["--nnodes=1:2:3", "x.py"], 'RuntimeError: nnodes=1:2:3 is not in "MIN:MAX" format'),
    (["--nproc_per_node=many", "x.py"], "ValueError: Unsupported nproc_per_node value: many"),
    (["--redirects=7", "x.py"], "ValueError: 7 does not match: <^[0123]$> or "
                                "<^(\\d:[0123],)*(\\d:[0123])$>"),
    (["--no_python", "-m", "x"], "ValueError: Don't use both the '--no_python' flag "
                                 "and the '--module' flag at the same time."),
    (["--rdzv_conf=a", "x.py"], "ValueError: The rendezvous configuration option 'a' "
                                "must have a value specified."),
])
def test_bad_flags(scripts, args, message):
    p = launch(args, scripts, check=1)
    assert p.stderr.rstrip().splitlines()[-1] == message


def test_usage_error(scripts):
    p = launch(["--nproc_per_node=2"], scripts, check=2)
    assert "error: the following arguments are required: training_script" in p.stderr


# ---------------------------------------------------------------- how to run


def test_module_flag(scripts):
    p = launch(["--nproc_per_node=2", "-m", "pkg.mod", "x"], scripts, check=0)
    assert [r["argv"] for r in records(p.stdout).values()] == [["x"], ["x"]]


def test_no_python(scripts):
    p = launch(["--nproc_per_node=2", "--no_python", "/bin/sh", "-c",
                'echo "rank $RANK of $WORLD_SIZE"'], scripts, check=0)
    assert sorted(p.stdout.splitlines()) == ["rank 0 of 2", "rank 1 of 2"]


def test_run_path(scripts):
    p = launch(["--nproc_per_node=2", "--run_path", scripts / "envp.py", "q"], scripts,
               check=0)
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


def test_launch_adds_local_rank(scripts):
    p = launch(["--nproc_per_node=2", "envp.py", "q"], scripts,
               module="torch.distributed.launch", check=0)
    assert LAUNCH_WARNING in p.stderr
    assert {r: rec["argv"] for r, rec in records(p.stdout).items()} == {
        0: ["--local_rank=0", "q"], 1: ["--local_rank=1", "q"]}
    p = launch(["--use_env", "--nproc_per_node=2", "envp.py", "q"], scripts,
               module="torch.distributed.launch", check=0)
    assert [rec["argv"] for rec in records(p.stdout).values()] == [["q"], ["q"]]
    p = launch(["--no_python", "/bin/true"], scripts, module="torch.distributed.launch",
               check=1)
    assert p.stderr.rstrip().endswith(
        "ValueError: When using the '--no_python' flag, you must also set the "
        "'--use_env' flag.")


def test_python_api_elastic_launch(scripts):
    code = textwrap.dedent("""
        import sys
        from torch.distributed.launcher.api import LaunchConfig, elastic_launch
        cfg = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2,
                           rdzv_backend="c10d", rdzv_endpoint="localhost:0",
                           run_id="api", max_restarts=0)
        print(elastic_launch(cfg, sys.executable)("-u", "envp.py"))
    """)
    p = subprocess.run([RUN, "-c", code], cwd=str(scripts), capture_output=True,
                       text=True, env=_env(), timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "{0: None, 1: None}"
    assert records(p.stdout)[1]["env"]["TORCHELASTIC_USE_AGENT_STORE"] == "False"


def test_python_api_function_entrypoint(scripts):
    """A function entrypoint: its return values by local rank; a raise is
    recorded (the summary shows its traceback)."""
    (scripts / "fn.py").write_text(textwrap.dedent("""
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
    """))
    p = subprocess.run([RUN, "fn.py"], cwd=str(scripts), capture_output=True,
                       text=True, env=_env(), timeout=60)
    assert p.returncode == 1
    assert p.stdout == "{0: (0, 'hi'), 1: (1, 'hi')}\n"
    s = summary(p.stderr)
    assert (s["name"], s["rank"]) == ("work", "1")
    assert s["traceback"].endswith('RuntimeError("fn failed")\n  RuntimeError: fn failed\n  ')


# ---------------------------------------------------------------- failures


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
    p = launch(["--nproc_per_node=2", "fail_record.py", stamp], scripts, check=1)
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


def test_failure_exit_code_without_record(scripts):
    p = launch(["--nproc_per_node=2", "fail_exit.py"], scripts, check=1)
    s = summary(p.stderr)
    assert (s["rank"], s["exitcode"], s["error_file"], s["traceback"]) == (
        "1", "3", "<N/A>",
        "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    assert re.search(r"\n(=+)\nfail_exit.py FAILED\n", p.stderr).group(1) == "=" * 60


def test_failure_sigkill(scripts, tmp_path):
    stamp = tmp_path / "t"
    p = launch(["--nproc_per_node=2", "kill9.py", stamp], scripts, check=1)
    assert time.time() - float(stamp.read_text()) < 1.5
    s = summary(p.stderr)
    assert (s["rank"], s["exitcode"], s["error_file"]) == ("0", "-9", "<N/A>")
    assert s["traceback"] == "Signal 9 (SIGKILL) received by PID %s" % s["pid"]


def test_restart_after_first_failure(scripts):
    p = launch(["--nproc_per_node=2", "--max_restarts=2", "flaky.py"], scripts, check=0)
    lines = set(p.stdout.splitlines())
    # rank 1 may be stopped before it prints in the first attempt
    assert lines - {"attempt 0 rank 1"} == {
        "attempt 0 rank 0", "attempt 1 rank 0", "attempt 1 rank 1"}
    assert "failed (exitcode: 2) local_rank: 0" in p.stderr
    assert "ChildFailedError" not in p.stderr


def test_restarts_exhausted(scripts):
    p = launch(["--max_restarts=2", "always_fail.py"], scripts, check=1)
    assert p.stdout.splitlines() == ["attempt 0", "attempt 1", "attempt 2"]
    s = summary(p.stderr)
    assert (s["exitcode"], s["name"]) == ("4", "always_fail.py")
    assert p.stderr.count("failed (exitcode: 4)") == 3


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_forwarded(scripts, sig):
    """A signal to the launcher is sent on to every worker."""
    p = start(["--nproc_per_node=2", "term.py"], scripts)
    lines = [p.stdout.readline(), p.stdout.readline()]
    assert sorted(lines) == ["ready 0\n", "ready 1\n"]
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 1
    assert sorted(out.splitlines()) == ["rank 0 got %s" % sig.name,
                                        "rank 1 got %s" % sig.name]
    assert ("WARNING:torch.distributed.elastic.agent.server.api:Received %d death "
            "signal, shutting down workers\n" % sig) in err
    assert "closing signal %s" % sig.name in err
    assert err.rstrip().endswith("SignalException: Process %d got signal: %d"
                                 % (p.pid, sig))


def _signal_line(pid, sig):
    return "SignalException: Process %d got signal: %d" % (pid, sig)


@pytest.mark.parametrize("sig, node_rank", [(signal.SIGINT, 0), (signal.SIGTERM, 1)])
def test_signal_during_rendezvous(scripts, sig, node_rank):
    """A launcher waiting for the other nodes stops at once on SIGINT or
    SIGTERM (node 0 hosts the store and waits for node 1's key; node 1
    waits to connect), not when the store's timeout (900 s) ends."""
    p = run_launcher(["--nnodes=2", "--node_rank=%d" % node_rank, "--master_port",
                      free_port(), "envp.py"], scripts, env={"LOGLEVEL": "INFO"})
    p.wait_line("Starting elastic_operator with launch configs")
    time.sleep(0.3)
    t = time.monotonic()
    p.send_signal(sig)
    p.finish(timeout=20, check=1)
    assert time.monotonic() - t < 5
    assert p.stderr.rstrip().endswith(_signal_line(p.pid, sig))


def test_signal_during_exit_barrier(scripts):
    """A launcher whose workers are done waits for the other nodes; a
    SIGTERM then ends it with SignalException (exit 1), not success."""
    port = free_port()
    common = ["--nnodes=2", "--master_port", port, "group1_sleeps.py"]
    b = run_launcher(["--node_rank=1"] + common, scripts)
    a = run_launcher(["--node_rank=0"] + common, scripts, env={"LOGLEVEL": "INFO"})
    a.wait_line("Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 "
                "seconds for other agents to finish")
    time.sleep(0.3)      # past that line: a signal inside logging is lost
    a.send_signal(signal.SIGTERM)
    a.finish(timeout=20, check=1)
    assert a.stderr.rstrip().endswith(_signal_line(a.pid, signal.SIGTERM))
    b.send_signal(signal.SIGTERM)
    b.finish(timeout=30, check=1)


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_signal_while_starting_workers(scripts):
    """A signal that reaches the launcher while it is still starting
    workers (here from the first worker) stops every worker started: none
    is left running."""
    pids = scripts / "start_pids"
    p = run_launcher(["--nproc_per_node=8", "--no_python", "/bin/sh", "-c",
                      'echo $$ >> %s; [ $LOCAL_RANK = 0 ] && kill -TERM $PPID; '
                      'exec sleep 30 >/dev/null 2>&1' % pids], scripts)
    p.finish(timeout=60, check=1)
    assert p.stderr.rstrip().endswith(_signal_line(p.pid, signal.SIGTERM))
    started = [int(x) for x in pids.read_text().split()]
    time.sleep(0.2)
    left = [pid for pid in started if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_sigkill_after_grace_period(tmp_path):
    """A worker that ignores SIGTERM is killed once the grace period ends."""
    code = textwrap.dedent("""
        import signal, sys, time
        from ctorch.distributed.elastic.multiprocessing import SubprocessContext
        ignore = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \\
                 "print('up', flush=True); time.sleep(60)"
        pc = SubprocessContext("w", sys.executable, {0: ["-c", ignore]}, {0: {}},
                               sys.argv[1]).start()
        time.sleep(0.5)
        t = time.monotonic()
        pc.close(signal.SIGTERM, timeout=0.5)
        print(pc.result().failures[0].exitcode, round(time.monotonic() - t, 1))
    """)
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                       text=True, env=_env({"PYTHONPATH": PY_DIR}), timeout=60)
    assert p.stdout.splitlines()[-1] in ("-9 0.5", "-9 0.6")
    assert "closing signal SIGTERM" in p.stderr
    assert "forcefully exiting via SIGKILL" in p.stderr


# ---------------------------------------------------------------- output


def test_tee_prefixes_and_log_dir(scripts, tmp_path):
    p = launch(["--nproc_per_node=2", "--tee=3", "--log_dir", tmp_path, "out.py"],
               scripts, check=0)
    assert sorted(p.stdout.splitlines()) == ["[default0]:hello out 0",
                                             "[default1]:hello out 1"]
    assert sorted(p.stderr.splitlines()) == ["[default0]:hello err 0",
                                             "[default1]:hello err 1"]
    (job,) = os.listdir(tmp_path)
    assert job.startswith("none_")
    base = tmp_path / job / "attempt_0"
    assert sorted(os.listdir(base)) == ["0", "1"]
    assert (base / "1" / "stdout.log").read_text() == "hello out 1\n"
    assert (base / "0" / "stderr.log").read_text() == "hello err 0\n"


def test_redirects_only_to_files(scripts, tmp_path):
    p = launch(["--nproc_per_node=2", "-r", "3", "--log-dir", tmp_path, "out.py"],
               scripts, check=0)
    assert (p.stdout, p.stderr) == ("", "")
    (job,) = os.listdir(tmp_path)
    assert (tmp_path / job / "attempt_0" / "0" / "stdout.log").read_text() == "hello out 0\n"


def test_redirect_and_tee_maps(scripts):
    p = launch(["--nproc_per_node=2", "--redirects=0:1", "--tee=1:2", "--role", "trainer",
                "out.py"], scripts, check=0)
    assert p.stdout.splitlines() == ["hello out 1"]
    assert sorted(p.stderr.splitlines()) == ["[trainer1]:hello err 1", "hello err 0"]


def test_default_streams_pass_through(scripts):
    p = launch(["--nproc_per_node=2", "out.py"], scripts, check=0)
    assert sorted(p.stdout.splitlines()) == ["hello out 0", "hello out 1"]
    assert sorted(p.stderr.splitlines()) == ["hello err 0", "hello err 1"]


# ---------------------------------------------------------------- nodes


def _finish(p, timeout=60):
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, out + err
    return out


def _allreduce_lines(outs):
    return sorted(line for out in outs for line in out.splitlines())


def test_standalone_allreduce(scripts):
    p = launch(["--standalone", "--nproc_per_node=3", "allreduce.py"], scripts, check=0)
    assert sorted(p.stdout.splitlines()) == [
        "rank %d 3 [6.0, 6.0] 0" % r for r in range(3)]


def test_two_nodes_static_loopback(scripts):
    port = free_port()
    common = ["--nnodes=2", "--nproc_per_node=2", "--master_port", port]
    a = start(common + ["--node_rank=0", "allreduce.py"], scripts)
    b = start(common + ["--node-rank=1", "--master-addr=127.0.0.1", "allreduce.py"],
              scripts)
    outs = [_finish(a), _finish(b)]
    assert _allreduce_lines(outs) == ["rank %d 4 [10.0, 10.0] %d" % (r, r // 2)
                                      for r in range(4)]


def test_two_nodes_c10d_loopback(scripts):
    ep = "127.0.0.1:%d" % free_port()
    common = ["--rdzv_backend=c10d", "--rdzv_endpoint", ep, "--rdzv_id=j1",
              "--nproc_per_node=2"]
    a = start(["--nnodes=2"] + common + ["envp.py"], scripts)
    b = start(["--nnodes=1:2"] + common + ["envp.py"], scripts)
    recs = {**records(_finish(a)), **records(_finish(b))}
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
def test_two_nodes_restart_together(scripts, backend):
    """A worker of node 0 fails on the first attempt: node 0 restarts its
    group, node 1 sees it waiting in the next round and restarts too."""
    port = free_port()
    if backend == "static":
        ranks = [["--node_rank=0", "--master_port", port],
                 ["--node_rank=1", "--master_port", port]]
    else:
        ranks = [["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % port]] * 2
    common = ["--nnodes=2", "--nproc_per_node=2", "--max_restarts=1",
              "--monitor_interval=0.2"]
    a = start(common + ranks[0] + ["mflaky.py"], scripts)
    b = start(common + ranks[1] + ["mflaky.py"], scripts)
    assert _allreduce_lines([_finish(a), _finish(b)]) == [
        "attempt 1 rank %d sum 10.0" % r for r in range(4)]


def test_min_max_nodes_last_call(scripts):
    """--nnodes=1:2: with one node only, the round closes at the last call."""
    p = launch(["--nnodes=1:2", "--rdzv_backend=c10d", "--rdzv_endpoint=localhost:0",
                "--rdzv_conf=last_call_timeout=0.3", "--nproc_per_node=2", "envp.py"],
               scripts, check=0)
    recs = records(p.stdout)
    assert [(r["env"]["WORLD_SIZE"], r["env"]["GROUP_WORLD_SIZE"])
            for r in recs.values()] == [("2", "1")] * 2


def test_two_nodes_failure_stops_the_other(scripts):
    port = free_port()
    common = ["--nnodes=2", "--nproc_per_node=2", "--master_port", port,
              "--monitor_interval=0.2"]
    a = start(common + ["--node_rank=0", "mfail.py"], scripts)
    b = start(common + ["--node_rank=1", "mfail.py"], scripts)
    _, err_b = b.communicate(timeout=60)
    _, err_a = a.communicate(timeout=60)
    assert (a.returncode, b.returncode) == (1, 1)
    s = summary(err_b)
    assert (s["rank"], s["local_rank"], s["exitcode"]) == ("3", "1", "7")
    assert "the worker group of node 1 failed; stopping this node's workers" in err_a
    assert summary(err_a)["exitcode"] == "-15"


@pytest.fixture
def two_hosts():
    """Network namespaces a (10.233.x.1) and b (10.233.x.2) joined by a veth
    pair (as tests/py/test_dist_store.py's, with loopback up: local workers
    reach their own node's address); skipped when not root or without ip."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2")
    tag = "%d" % (os.getpid() % 100000)
    a, b = "ctlna" + tag, "ctlnb" + tag
    va, vb = "ctlva" + tag, "ctlvb" + tag
    net = "10.233.%d" % (os.getpid() % 250 + 1)
    cmds = [["ip", "netns", "add", a], ["ip", "netns", "add", b],
            ["ip", "link", "add", va, "type", "veth", "peer", "name", vb],
            ["ip", "link", "set", va, "netns", a], ["ip", "link", "set", vb, "netns", b],
            ["ip", "-n", a, "addr", "add", net + ".1/24", "dev", va],
            ["ip", "-n", b, "addr", "add", net + ".2/24", "dev", vb],
            ["ip", "-n", a, "link", "set", va, "up"],
            ["ip", "-n", b, "link", "set", vb, "up"],
            ["ip", "-n", a, "link", "set", "lo", "up"],
            ["ip", "-n", b, "link", "set", "lo", "up"]]
    try:
        for c in cmds:
            if subprocess.run(c, capture_output=True).returncode != 0:
                pytest.skip("cannot make network namespaces here")
        yield a, b, net + ".1"
    finally:
        for ns in (a, b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@pytest.mark.parametrize("backend", ["static", "c10d"])
def test_two_nodes_network_namespaces(scripts, two_hosts, backend):
    a, b, ip_a = two_hosts
    port = 29400 + os.getpid() % 1000
    if backend == "static":
        common = ["--nnodes=2", "--nproc_per_node=2", "--master_addr", ip_a,
                  "--master_port", port]
        ranks = [["--node_rank=0"], ["--node_rank=1"]]
    else:
        common = ["--nnodes=2", "--nproc_per_node=2", "--rdzv_backend=c10d",
                  "--rdzv_endpoint=%s:%d" % (ip_a, port), "--rdzv_id=ns"]
        ranks = [[], []]
    pb = start(common + ranks[1] + ["allreduce.py"], scripts,
               prefix=["ip", "netns", "exec", b])
    time.sleep(0.3)                  # b waits for a's store
    pa = start(common + ranks[0] + ["allreduce.py"], scripts,
               prefix=["ip", "netns", "exec", a])
    outs = [_finish(pa), _finish(pb)]
    lines = _allreduce_lines(outs)
    assert [line.split()[:5] for line in lines] == [
        ["rank", str(r), "4", "[10.0,", "10.0]"] for r in range(4)]
    if backend == "static":
        assert [line.split()[-1] for line in lines] == ["0", "0", "1", "1"]


# ---------------------------------------------------------------- errors API


def test_workers_of_ctorch_launcher_import_ctorch(scripts):
    """`python -m ctorch.distributed.run` (not only under ctorchrun): a
    PyTorch script's `import torch` is ctorch in the workers."""
    (scripts / "which.py").write_text(
        "import torch\nprint(torch.__name__, type(torch.zeros(1)).__module__)\n")
    p = subprocess.run([sys.executable, "-m", "ctorch.distributed.run", "which.py"],
                       cwd=str(scripts), capture_output=True, text=True,
                       env=_env({"PYTHONPATH": PY_DIR}), timeout=60)
    assert (p.returncode, p.stdout) == (0, "ctorch torch\n"), p.stderr


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


def test_env_and_summary_match_torch(scripts, tmp_path):
    """The same environment and the same failure summary and log lines as
    torch's launcher (the four launchers run at once: torch's takes ~5 s)."""
    pytest.importorskip("torch")

    def torch_start(args, env):
        return subprocess.Popen([sys.executable, "-c", TORCH_RUN,
                                 "--monitor_interval=0.2"] + [str(a) for a in args],
                                cwd=str(scripts), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)

    def ctorch_start(args, env):
        return subprocess.Popen([RUN, "-m", "torch.distributed.run"] +
                                [str(a) for a in args], cwd=str(scripts),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)

    env_args = ["--nproc_per_node=2", "envp.py", "a"]
    procs = [torch_start(env_args, _env(omp=False)),
             ctorch_start(env_args, _env(omp=False)),
             torch_start(["--nproc_per_node=2", "fail_record.py", tmp_path / "t"], _env()),
             ctorch_start(["--nproc_per_node=2", "fail_record.py", tmp_path / "c"],
                          _env())]
    (t_out, t_err), (c_out, c_err), (_, tf_err), (_, cf_err) = [
        p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 1, 1], (t_err, c_err)
    assert t_err == c_err == OMP_NOTICE
    t, c = records(t_out), records(c_out)
    for recs in (t, c):
        for r in (0, 1):
            recs[r]["env"].pop("TORCHELASTIC_ERROR_FILE")
            recs[r]["env"].pop("MASTER_PORT")
    assert t == c
    assert _normalize(cf_err) == _normalize(tf_err)
