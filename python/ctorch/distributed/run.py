"""`python -m ctorch.distributed.run` (torchrun): start --nproc_per_node
worker processes on this node, with torchelastic's environment (RANK,
LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, ...), through a static or c10d
rendezvous with the launchers of the other nodes.

    python -m ctorch.distributed.run --nproc_per_node=2 train.py --lr 0.1
    python -m ctorch.distributed.run --nnodes=2 --node_rank=R \\
        --master_addr=HOST --master_port=29500 --nproc_per_node=2 train.py
    python -m ctorch.distributed.run --nnodes=2 --rdzv_backend=c10d \\
        --rdzv_endpoint=HOST:29400 --rdzv_id=job1 train.py

Every flag is also spelled with dashes (--nproc-per-node) and read from
$PET_<FLAG> when not given.  A worker failure ends the job (after
--max_restarts restarts of the whole group) with PyTorch's failure summary.
Python workers find `import torch` as ctorch (as under bin/ctorchrun), so
an unchanged PyTorch script runs on ctorch; under ctorchrun,
`-m torch.distributed.run` is this module.
"""
import logging
import os
import sys
import uuid
from argparse import REMAINDER, Action, ArgumentParser

from .elastic.multiprocessing import Std
from .elastic.multiprocessing.errors import record
from .elastic.utils.logging import get_logger
from .launcher.api import LaunchConfig, elastic_launch

__all__ = ["get_args_parser", "parse_args", "parse_min_max_nnodes",
           "determine_local_world_size", "get_rdzv_endpoint", "get_use_env",
           "config_from_args", "run_script_path", "run", "main"]

log = get_logger(__name__)


class env(Action):
    """An option whose default comes from $PET_<DEST> when set."""

    def __init__(self, dest, default=None, required=False, **kwargs):
        default = os.environ.get(f"PET_{dest.upper()}", default)
        if default:
            required = False
        super().__init__(dest=dest, default=default, required=required, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


class check_env(Action):
    """A flag that is also on when $PET_<DEST> is a non-zero number."""

    def __init__(self, dest, default=False, **kwargs):
        default = bool(int(os.environ.get(f"PET_{dest.upper()}", "1" if default else "0")))
        super().__init__(dest=dest, const=True, default=default, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, self.const)


def _both(name):
    """--x_y and its --x-y spelling."""
    return [name, name.replace("_", "-")] if "_" in name else [name]


def get_args_parser():
    """torchrun's flags."""
    parser = ArgumentParser(description="Torch Distributed Elastic Training Launcher")
    add = parser.add_argument
    add(*_both("--nnodes"), action=env, type=str, default="1:1",
        help="Number of nodes, or the range of nodes in form "
             "<minimum_nodes>:<maximum_nodes>.")
    add(*_both("--nproc_per_node"), action=env, type=str, default="1",
        help="Number of workers per node; supported values: [auto, cpu, gpu, int].")
    add(*_both("--rdzv_backend"), action=env, type=str, default="static",
        help="Rendezvous backend.")
    add(*_both("--rdzv_endpoint"), action=env, type=str, default="",
        help="Rendezvous backend endpoint; usually in form <host>:<port>.")
    add(*_both("--rdzv_id"), action=env, type=str, default="none",
        help="User-defined group id.")
    add(*_both("--rdzv_conf"), action=env, type=str, default="",
        help="Additional rendezvous configuration (<key1>=<value1>,<key2>=<value2>,...).")
    add("--standalone", action=check_env,
        help="Start a local standalone rendezvous backend that is represented by a "
             "C10d TCP store on a free port. Useful when launching single-node, "
             "multi-worker job. If specified --rdzv_backend, --rdzv_endpoint, "
             "--rdzv_id are auto-assigned; any explicitly set values are ignored.")
    add(*_both("--max_restarts"), action=env, type=int, default=0,
        help="Maximum number of worker group restarts before failing.")
    add(*_both("--monitor_interval"), action=env, type=float, default=5,
        help="Interval, in seconds, to monitor the state of workers.")
    add(*_both("--start_method"), action=env, type=str, default="spawn",
        choices=["spawn", "fork", "forkserver"],
        help="Multiprocessing start method to use when creating workers.")
    add("--role", action=env, type=str, default="default",
        help="User-defined role for the workers.")
    add("-m", "--module", action=check_env,
        help="Change each process to interpret the launch script as a Python "
             "module, executing with the same behavior as 'python -m'.")
    add(*_both("--no_python"), action=check_env,
        help="Skip prepending the training script with 'python' - just execute it "
             "directly. Useful when the script is not a Python script.")
    add(*_both("--run_path"), action=check_env,
        help="Run the training script with runpy.run_path in the same interpreter. "
             "Script must be provided as an abs path (e.g. /abs/path/script.py). "
             "Takes precedence over --no_python.")
    add(*_both("--log_dir"), action=env, type=str, default=None,
        help="Base directory to use for log files (e.g. /var/log/torch/elastic). "
             "The same directory is re-used for multiple runs (a unique job-level "
             "sub-directory is created with rdzv_id as the prefix).")
    add("-r", "--redirects", action=env, type=str, default="0",
        help="Redirect std streams into a log file in the log directory (e.g. [-r 3] "
             "redirects both stdout+stderr for all workers, [-r 0:1,1:2] redirects "
             "stdout for local rank 0 and stderr for local rank 1).")
    add("-t", "--tee", action=env, type=str, default="0",
        help="Tee std streams into a log file and also to console (see --redirects "
             "for format).")
    add(*_both("--node_rank"), type=int, action=env, default=0,
        help="Rank of the node for multi-node distributed training.")
    add(*_both("--master_addr"), default="127.0.0.1", type=str, action=env,
        help="Address of the master node (rank 0). It should be either the IP "
             "address or the hostname of rank 0. For single node multi-proc training "
             "the --master_addr can simply be 127.0.0.1; IPv6 should have the "
             "pattern `[0:0:0:0:0:0:0:1]`.")
    add(*_both("--master_port"), default=29500, type=int, action=env,
        help="Port on the master node (rank 0) to be used for communication during "
             "distributed training.")
    add("training_script", type=str,
        help="Full path to the (single GPU) training program/script to be launched "
             "in parallel, followed by all the arguments for the training script.")
    add("training_script_args", nargs=REMAINDER)
    return parser


def parse_args(args):
    return get_args_parser().parse_args(args)


def parse_min_max_nnodes(nnodes):
    arr = nnodes.split(":")
    if len(arr) == 1:
        min_nodes = max_nodes = int(arr[0])
    elif len(arr) == 2:
        min_nodes, max_nodes = int(arr[0]), int(arr[1])
    else:
        raise RuntimeError(f'nnodes={nnodes} is not in "MIN:MAX" format')
    return min_nodes, max_nodes


def determine_local_world_size(nproc_per_node):
    """An int, or "cpu" (the CPU count), "gpu" (the CUDA device count) or
    "auto" (GPUs when there are, else CPUs)."""
    try:
        logging.info(f"Using nproc_per_node={nproc_per_node}.")
        return int(nproc_per_node)
    except ValueError:
        from .. import cuda
        if nproc_per_node == "cpu":
            num_proc, device_type = os.cpu_count(), "cpu"
        elif nproc_per_node == "gpu":
            if not cuda.is_available():
                raise ValueError("Cuda is not available.")
            num_proc, device_type = cuda.device_count(), "gpu"
        elif nproc_per_node == "auto":
            if cuda.is_available():
                num_proc, device_type = cuda.device_count(), "gpu"
            else:
                num_proc, device_type = os.cpu_count(), "cpu"
        else:
            raise ValueError(f"Unsupported nproc_per_node value: {nproc_per_node}")
        log.info(f"Using nproc_per_node={nproc_per_node}, seting to {num_proc} since "
                 f"the instance has {os.cpu_count()} {device_type}")
        return num_proc


def get_rdzv_endpoint(args):
    if args.rdzv_backend == "static" and not args.rdzv_endpoint:
        return f"{args.master_addr}:{args.master_port}"
    return args.rdzv_endpoint


def get_use_env(args):
    """False only for ctorch.distributed.launch without --use_env (the
    workers then get --local_rank=N)."""
    return getattr(args, "use_env", True)


def _parse_rendezvous_config(config_str):
    config = {}
    config_str = config_str.strip()
    if not config_str:
        return config
    for kv in config_str.split(","):
        key, *values = kv.split("=", 1)
        key = key.strip()
        if not key:
            raise ValueError("The rendezvous configuration string must be in format "
                             "<key1>=<value1>,...,<keyN>=<valueN>.")
        value = values[0].strip() if values else None
        if not value:
            raise ValueError(f"The rendezvous configuration option '{key}' must "
                             f"have a value specified.")
        config[key] = value
    return config


def config_from_args(args):
    """(LaunchConfig, program or function, its arguments) for the flags."""
    min_nodes, max_nodes = parse_min_max_nnodes(args.nnodes)
    assert 0 < min_nodes <= max_nodes
    assert args.max_restarts >= 0
    nproc_per_node = determine_local_world_size(args.nproc_per_node)
    if "OMP_NUM_THREADS" not in os.environ and nproc_per_node > 1:
        omp_num_threads = 1
        log.warning(
            f"\n*****************************************\n"
            f"Setting OMP_NUM_THREADS environment variable for each process to be "
            f"{omp_num_threads} in default, to avoid your system being overloaded, "
            f"please further tune the variable for optimal performance in "
            f"your application as needed. \n"
            f"*****************************************")
        os.environ["OMP_NUM_THREADS"] = str(omp_num_threads)
    rdzv_configs = _parse_rendezvous_config(args.rdzv_conf)
    if args.rdzv_backend == "static":
        rdzv_configs["rank"] = args.node_rank
    config = LaunchConfig(
        min_nodes=min_nodes, max_nodes=max_nodes, nproc_per_node=nproc_per_node,
        run_id=args.rdzv_id, role=args.role, rdzv_endpoint=get_rdzv_endpoint(args),
        rdzv_backend=args.rdzv_backend, rdzv_configs=rdzv_configs,
        max_restarts=args.max_restarts, monitor_interval=args.monitor_interval,
        start_method=args.start_method, redirects=Std.from_str(args.redirects),
        tee=Std.from_str(args.tee), log_dir=args.log_dir)
    cmd_args = []
    if args.run_path:
        cmd = run_script_path
        cmd_args.append(args.training_script)
    elif not args.no_python:
        cmd = os.getenv("PYTHON_EXEC", sys.executable)
        cmd_args.append("-u")
        if args.module:
            cmd_args.append("-m")
        cmd_args.append(args.training_script)
    else:
        if args.module:
            raise ValueError("Don't use both the '--no_python' flag"
                             " and the '--module' flag at the same time.")
        cmd = args.training_script
    if not get_use_env(args):
        cmd_args.append("--local_rank=${local_rank}")
    cmd_args.extend(args.training_script_args)
    return config, cmd, cmd_args


def run_script_path(training_script, *training_script_args):
    """Run a script as __main__ with these arguments (--run_path)."""
    import runpy
    sys.argv = [training_script, *training_script_args]
    runpy.run_path(sys.argv[0], run_name="__main__")


def _workers_import_ctorch_as_torch():
    """Python workers find `import torch` as ctorch, as under bin/ctorchrun
    (the shim package first on PYTHONPATH): a PyTorch script launched by
    ctorch's launcher runs on ctorch."""
    pkg = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shim = os.path.join(pkg, "ctorch", "_shim")
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if shim not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([shim, pkg] + paths)
    os.environ["CTORCH_TORCH_NAMES"] = "1"


def run(args):
    _workers_import_ctorch_as_torch()
    if args.standalone:
        args.rdzv_backend = "c10d"
        args.rdzv_endpoint = "localhost:0"
        args.rdzv_id = str(uuid.uuid4())
        log.info(f"\n**************************************\n"
                 f"Rendezvous info:\n"
                 f"--rdzv_backend={args.rdzv_backend} "
                 f"--rdzv_endpoint={args.rdzv_endpoint} "
                 f"--rdzv_id={args.rdzv_id}\n"
                 f"**************************************\n")
    config, cmd, cmd_args = config_from_args(args)
    elastic_launch(config=config, entrypoint=cmd)(*cmd_args)


@record
def main(args=None):
    args = parse_args(args)
    run(args)


if __name__ == "__main__":
    main()
