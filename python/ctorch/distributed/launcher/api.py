"""The launcher's agent: rendezvous with the other nodes, start this node's
workers with torchelastic's environment, watch them, restart the whole
group on a failure while restarts remain, and otherwise stop the others and
raise ChildFailedError (PyTorch's failure summary).

    elastic_launch(LaunchConfig(...), sys.executable)("-u", "train.py")

One attempt = one rendezvous round + one SubprocessContext.  Waiting on the
workers is driven by their pidfds (elastic/multiprocessing/api.py), so a
failure is handled as soon as it happens; monitor_interval only paces the
check for other nodes waiting to restart.
"""
import os
import shutil
import signal
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Union

from ..elastic.multiprocessing import (
    ChildFailedError, SignalException, Std, SubprocessContext,
)
from ..elastic.multiprocessing.api import _terminate_process_handler
from ..elastic.rendezvous import create_rendezvous
from ..elastic.utils.logging import get_logger

__all__ = ["LaunchConfig", "elastic_launch", "launch_agent"]

log = get_logger(__name__)
mp_log = get_logger("torch.distributed.elastic.multiprocessing.api")
agent_log = get_logger("torch.distributed.elastic.agent.server.api")


@dataclass
class LaunchConfig:
    """The launcher's settings, as torch.distributed.launcher.LaunchConfig."""
    min_nodes: int
    max_nodes: int
    nproc_per_node: int
    run_id: str = ""
    role: str = "default_role"
    rdzv_endpoint: str = ""
    rdzv_backend: str = "etcd"
    rdzv_configs: Dict[str, Any] = field(default_factory=dict)
    rdzv_timeout: int = -1
    max_restarts: int = 3
    monitor_interval: float = 30
    start_method: str = "spawn"
    log_dir: Optional[str] = None
    redirects: Union[Std, Dict[int, Std]] = Std.NONE
    tee: Union[Std, Dict[int, Std]] = Std.NONE
    metrics_cfg: Dict[str, str] = field(default_factory=dict)
    local_addr: Optional[str] = None

    def __post_init__(self):
        default_timeout = 900
        if self.rdzv_timeout != -1:
            self.rdzv_configs["timeout"] = self.rdzv_timeout
        elif "timeout" not in self.rdzv_configs:
            self.rdzv_configs["timeout"] = default_timeout


class elastic_launch:
    """elastic_launch(config, entrypoint)(*args) runs `entrypoint` (a
    program, or a module-level function) once per local rank and returns
    {local_rank: return value} (None for programs) on success."""

    def __init__(self, config, entrypoint):
        self._config = config
        self._entrypoint = entrypoint

    def __call__(self, *args):
        return launch_agent(self._config, self._entrypoint, list(args))


def _get_entrypoint_name(entrypoint, args):
    """The name in the summary's title: the script for `python script.py`
    (its first argument not starting with "-"), else the program or
    function name."""
    if callable(entrypoint):
        return entrypoint.__name__
    if isinstance(entrypoint, str):
        if entrypoint == sys.executable:
            return next((arg for arg in args if arg[0] != "-"), "")
        return entrypoint
    return ""


# a function entrypoint: imported by "module:qualname", run under @record
# (its traceback goes to the error file), its return value pickled to
# $CTORCH_ELASTIC_RETURN_FILE for elastic_launch to return
_FUNCTION_RUNNER = (
    "import importlib, os, pickle, sys\n"
    "from ctorch.distributed.elastic.multiprocessing.errors import record\n"
    "m, _, q = sys.argv[1].rpartition(':')\n"
    "if m.endswith('.py'):\n"
    "    import runpy, types\n"
    "    f = types.SimpleNamespace(**runpy.run_path(m, run_name='__mp_main__'))\n"
    "else:\n"
    "    f = importlib.import_module(m)\n"
    "for p in q.split('.'):\n"
    "    f = getattr(f, p)\n"
    "sys.argv = sys.argv[2:]\n"
    "r = record(f)(*sys.argv[1:])\n"
    "with open(os.environ['CTORCH_ELASTIC_RETURN_FILE'], 'wb') as fp:\n"
    "    pickle.dump(r, fp)\n")


def _command(entrypoint, args):
    """(program, argv after it) for one worker; a function runs in a fresh
    interpreter that imports it by module and qualified name."""
    if callable(entrypoint):
        module = entrypoint.__module__
        main = sys.modules.get(module)
        if module == "__main__":
            if getattr(main, "__spec__", None) is not None:
                module = main.__spec__.name          # run with -m: by name
            else:
                module = os.path.abspath(main.__file__)  # a script: by path
        where = f"{module}:{entrypoint.__qualname__}"
        return sys.executable, ["-u", "-c", _FUNCTION_RUNNER, where,
                                entrypoint.__name__, *args]
    return entrypoint, list(args)


def _substitute(args, local_rank):
    """torchelastic's ${local_rank} macro in the workers' arguments."""
    return [a.replace("${local_rank}", str(local_rank)) for a in args]


class _Agent:
    def __init__(self, config, entrypoint, args):
        self.config = config
        self.program, self.args = _command(entrypoint, args)
        self.is_function = callable(entrypoint)
        self.name = _get_entrypoint_name(entrypoint, args)
        self.remaining = config.max_restarts
        rdzv_conf = config.rdzv_configs
        self.rdzv = create_rendezvous(
            config.rdzv_backend, config.rdzv_endpoint, config.run_id,
            config.min_nodes, config.max_nodes, int(rdzv_conf.get("rank", 0)),
            timeout=int(rdzv_conf.get("join_timeout", rdzv_conf["timeout"])),
            last_call_timeout=float(rdzv_conf.get("last_call_timeout", 30)))
        self._own_log_dir = config.log_dir is None
        base = config.log_dir or tempfile.mkdtemp(prefix="torchelastic_")
        os.makedirs(base, exist_ok=True)
        self.log_dir = tempfile.mkdtemp(prefix=f"{config.run_id}_", dir=base)
        self._base = base
        self.pcontext = None
        self.info = None

    def _start(self):
        """Rendezvous, then start this node's workers for the next attempt."""
        cfg = self.config
        info = self.info = self.rdzv.next_rendezvous(cfg.nproc_per_node)
        # the round, not this node's own count: every node of a round agrees
        # on it, and the workers' store keys (/worker/attempt_N) depend on it
        restart_count = self.rdzv.round
        world_size = sum(info.local_world_sizes)
        base_rank = sum(info.local_world_sizes[:info.group_rank])
        attempt_dir = os.path.join(self.log_dir, f"attempt_{restart_count}")
        shutil.rmtree(attempt_dir, ignore_errors=True)
        os.makedirs(attempt_dir)
        args, envs, self.error_files, return_files = {}, {}, {}, {}
        for local_rank in range(cfg.nproc_per_node):
            error_file = os.path.join(attempt_dir, str(local_rank), "error.json")
            os.makedirs(os.path.dirname(error_file), exist_ok=True)
            self.error_files[local_rank] = error_file
            envs[local_rank] = {
                "LOCAL_RANK": str(local_rank),
                "RANK": str(base_rank + local_rank),
                "GROUP_RANK": str(info.group_rank),
                "ROLE_RANK": str(base_rank + local_rank),
                "ROLE_NAME": cfg.role,
                "LOCAL_WORLD_SIZE": str(cfg.nproc_per_node),
                "WORLD_SIZE": str(world_size),
                "GROUP_WORLD_SIZE": str(info.group_world_size),
                "ROLE_WORLD_SIZE": str(world_size),
                "MASTER_ADDR": info.master_addr,
                "MASTER_PORT": str(info.master_port),
                "TORCHELASTIC_RESTART_COUNT": str(restart_count),
                "TORCHELASTIC_MAX_RESTARTS": str(cfg.max_restarts),
                "TORCHELASTIC_RUN_ID": self.rdzv.get_run_id(),
                "TORCHELASTIC_USE_AGENT_STORE": str(info.use_agent_store),
                "NCCL_ASYNC_ERROR_HANDLING": os.getenv("NCCL_ASYNC_ERROR_HANDLING", "1"),
                "TORCHELASTIC_ERROR_FILE": error_file,
            }
            if self.is_function:
                return_files[local_rank] = os.path.join(attempt_dir, str(local_rank),
                                                        "return.pkl")
                envs[local_rank]["CTORCH_ELASTIC_RETURN_FILE"] = return_files[local_rank]
            args[local_rank] = _substitute(self.args, local_rank)
        # kept before starting: a signal during start() leaves the workers
        # started so far for _stop()
        self.pcontext = SubprocessContext(cfg.role, self.program, args, envs,
                                          attempt_dir, cfg.redirects, cfg.tee,
                                          return_files)
        self.pcontext.start()

    def _stop(self, death_sig=signal.SIGTERM):
        if self.pcontext is not None:
            self.pcontext.close(death_sig)
            self.pcontext = None

    def run(self):
        """Attempts until success or no restarts are left.  Returns the
        result of the last attempt."""
        cfg = self.config
        self._start()
        while True:
            multi_node = self.info.group_world_size > 1 or cfg.min_nodes != cfg.max_nodes
            result = self.pcontext.wait(cfg.monitor_interval if multi_node else None,
                                        self.error_files)
            if result is None:
                failed_node = self.rdzv.failed_node()
                if failed_node is not None:
                    log.error(f"[{cfg.role}] the worker group of node {failed_node} "
                              f"failed; stopping this node's workers")
                    self.pcontext.close()
                    result = self.pcontext.result(self.error_files)
                    self.pcontext = None
                    self._exit_barrier(result)
                    return result
                if self.rdzv.num_nodes_waiting() > 0:
                    log.info(f"[{cfg.role}] Detected new nodes from group_rank="
                             f"{self.info.group_rank}; will restart worker group")
                    self._stop()
                    self._start()
                continue
            if result.is_failed():
                local_rank = min(result.failures,
                                 key=lambda r: result.failures[r].timestamp)
                failure = result.failures[local_rank]
                self._stop()
                mp_log.error(f"failed (exitcode: {failure.exitcode}) local_rank: "
                             f"{local_rank} (pid: {failure.pid}) of binary: "
                             f"{self.program}")
                if self.remaining > 0:
                    log.info(f"[{cfg.role}] Worker group FAILED. {self.remaining}/"
                             f"{cfg.max_restarts} attempts left; will restart "
                             f"worker group")
                    self.remaining -= 1
                    self._start()
                    continue
                self.rdzv.set_failed(self.info.group_rank)
            self._exit_barrier(result)
            return result

    def _exit_barrier(self, result, timeout=300):
        """Wait for the other nodes' workers to finish (logged as torch's
        agent logs it)."""
        state = "FAILED" if result.is_failed() else "SUCCEEDED"
        agent_log.info(f"Local worker group finished (WorkerState.{state}). "
                       f"Waiting {timeout} seconds for other agents to finish")
        self.rdzv.exit_barrier(self.info, timeout)

    def close(self, succeeded):
        """Stop the workers.  The temporary log directory is removed when
        the job succeeded and no output went to files; otherwise it stays,
        as PyTorch's does, for the logs and the error files the summary
        names."""
        self._stop()
        cfg = self.config
        kept = [cfg.redirects, cfg.tee]
        to_files = any(v if isinstance(v, Std) else any(v.values()) for v in kept)
        if self._own_log_dir and succeeded and not to_files:
            shutil.rmtree(self._base, ignore_errors=True)


def launch_agent(config, entrypoint, args):
    """Run the agent; return {local_rank: return value} or raise
    ChildFailedError naming the failed workers by global rank."""
    if not config.run_id:
        # as torch's: two jobs on one c10d endpoint must not share a run id
        config.run_id = str(uuid.uuid4().int)
        log.warning(f"config has no run_id, generated a random run_id: {config.run_id}")
    log.info(f"Starting elastic_operator with launch configs:\n"
             f"  entrypoint       : {_get_entrypoint_name(entrypoint, args)}\n"
             f"  min_nodes        : {config.min_nodes}\n"
             f"  max_nodes        : {config.max_nodes}\n"
             f"  nproc_per_node   : {config.nproc_per_node}\n"
             f"  run_id           : {config.run_id}\n"
             f"  rdzv_backend     : {config.rdzv_backend}\n"
             f"  rdzv_endpoint    : {config.rdzv_endpoint}\n"
             f"  rdzv_configs     : {config.rdzv_configs}\n"
             f"  max_restarts     : {config.max_restarts}\n"
             f"  monitor_interval : {config.monitor_interval}\n"
             f"  log_dir          : {config.log_dir}\n"
             f"  metrics_cfg      : {config.metrics_cfg}\n")
    old = {s: signal.signal(s, _terminate_process_handler)
           for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)}
    agent, succeeded = None, False
    try:
        agent = _Agent(config, entrypoint, args)
        result = agent.run()
        if result.is_failed():
            base_rank = sum(agent.info.local_world_sizes[:agent.info.group_rank])
            raise ChildFailedError(
                name=agent.name,
                failures={base_rank + r: f for r, f in result.failures.items()})
        succeeded = True
        return result.return_values
    except SignalException as e:
        agent_log.warning(f"Received {e.sigval} death signal, shutting down workers")
        if agent is not None:
            agent._stop(e.sigval)
        raise
    finally:
        if agent is not None:
            agent.close(succeeded)
        for s, h in old.items():
            signal.signal(s, h)
