"""torch.distributed.distributed_c10d: process groups and their operations.

The state (the default group, every group's backend, store, name and rank
map) lives here, as in PyTorch; the work is done by _C.ProcessGroupGloo,
whose methods take lists of tensors, group ranks and integer ReduceOp codes
and return a _C.Work.  This module does PyTorch's Python-level argument
checks with its wording, maps global ranks to group ranks, and waits on the
work unless async_op=True (then it returns a Work handle).

Note [join check]: before a group is built every rank checks in through the
store (_join.py), so a rank that never comes is named after the timeout and
a rank claimed twice fails at once; rank 0, which hosts the TCPStore, waits
until every rank has built the group before it returns, so no rank is still
reading the store when rank 0 may exit.
"""
import io
import logging
import os
import pickle
import re
import time
import warnings
from datetime import timedelta

import numpy as _np

import ctorch as torch

from . import _c10d, _join
from ._c10d import PrefixStore, Store  # noqa: F401
from ._types import (  # noqa: F401
    AllreduceCoalescedOptions, AllreduceOptions, AllToAllOptions, Backend,
    BarrierOptions, BroadcastOptions, DebugLevel, GatherOptions, ReduceOp,
    ReduceOptions, ReduceScatterOptions, ScatterOptions, _op_code, get_debug_level,
    reduce_op, set_debug_level, set_debug_level_from_env,
)
from ._work import Work
from .constants import default_pg_timeout
from .rendezvous import register_rendezvous_handler, rendezvous  # noqa: F401

__all__ = [
    "Backend", "GroupMember", "P2POp", "all_gather", "all_gather_coalesced",
    "all_gather_object", "all_reduce", "all_reduce_coalesced", "all_to_all",
    "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast",
    "broadcast_object_list", "destroy_process_group", "dist_backend", "gather",
    "gather_object", "get_backend", "get_rank", "get_world_size", "group",
    "init_process_group", "irecv", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched",
    "is_ucc_available", "isend", "monitored_barrier", "new_group", "new_subgroups",
    "new_subgroups_by_enumeration", "recv", "reduce", "reduce_scatter", "scatter",
    "scatter_object_list", "send", "supports_complex", "AllreduceCoalescedOptions",
    "AllreduceOptions", "AllToAllOptions", "BarrierOptions", "BroadcastOptions",
    "GatherOptions", "PrefixStore", "ProcessGroup", "ReduceOp", "ReduceOptions",
    "ReduceScatterOptions", "ScatterOptions", "Store", "DebugLevel",
    "get_debug_level", "Work", "default_pg_timeout", "get_group_rank",
    "get_global_rank", "get_process_group_ranks", "reduce_op",
    "all_gather_into_tensor", "reduce_scatter_tensor", "ProcessGroupGloo",
]

ProcessGroupGloo = _c10d.ProcessGroupGloo
_MPI_AVAILABLE = hasattr(torch._C, "ProcessGroupMPI")
if _MPI_AVAILABLE:
    ProcessGroupMPI = torch._C.ProcessGroupMPI
    __all__ += ["ProcessGroupMPI"]
_NCCL_AVAILABLE = None     # asked of _C on first use (it loads NCCL)
_GLOO_AVAILABLE = True
_UCC_AVAILABLE = False

logger = logging.getLogger(__name__)


class _ProcessGroupMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _c10d.ProcessGroup) or type.__instancecheck__(cls, obj)


class ProcessGroup(metaclass=_ProcessGroupMeta):
    """The base of the process groups (isinstance holds for every group
    init_process_group and new_group return)."""


def supports_complex(reduceOp):
    """False for the reductions that are not defined on complex numbers."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT,
                            ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


# `_backend` and `dist_backend` keep the pre-c10d names working.
_backend = Backend.UNDEFINED
dist_backend = Backend


class group(object):
    # the default process group once initialized
    WORLD = None


class GroupMember(object):
    # Alias to group.WORLD for backward compatibility
    WORLD = group.WORLD
    NON_GROUP_MEMBER = object()


# every group -> (backend, store); its name; {global rank: group rank}
_pg_map = {}
_pg_names = {}
_pg_group_ranks = {}
_default_pg_init_method = None
# groups created since the default one, for default names
_group_count = 0
# init_process_group calls in this process: keeps the join keys of a
# re-initialization apart from the last one's (Note [join check])
_init_count = 0
# [join key, rank] of this process's last init_process_group (see _rendezvous)
_last_join = []

_NO_MPI = ("Distributed package doesn't have MPI built in."
           " MPI is only included if you build PyTorch from"
           " source on a host that has MPI installed.")
_NOT_INITIALIZED = ("Default process group has not been initialized, "
                    "please make sure to call init_process_group.")


# -- small helpers --------------------------------------------------------------

def _rank_not_in_group(group):
    """True if this process is not a member of `group`."""
    if group is None:
        return False
    return group == GroupMember.NON_GROUP_MEMBER


def _warn_not_in_group(op_name):
    global_rank = -1 if GroupMember.WORLD is None else GroupMember.WORLD.rank()
    warnings.warn(f"Running {op_name} on global rank {global_rank} which does not "
                  "belong to the given group.")


def _check_single_tensor(param, param_name):
    if not isinstance(param, torch.Tensor):
        raise RuntimeError("Invalid function argument. Expected parameter `{}` "
                           "to be of type torch.Tensor.".format(param_name))


def _check_tensor_list(param, param_name):
    if not isinstance(param, list) or \
            not all(isinstance(p, torch.Tensor) for p in param):
        raise RuntimeError("Invalid function argument. Expected parameter `{}` "
                           "to be of type List[torch.Tensor].".format(param_name))


def _ensure_all_tensors_same_dtype(*tensors):
    last = None
    for item in tensors:
        for t in (item if isinstance(item, list) else (item,)):
            if last is None:
                last = t.dtype
            elif last != t.dtype:
                raise RuntimeError("Invalid usage of tensors with different dtypes"
                                   f"Found {last} and  {t.dtype}")


def _get_default_group():
    """The default process group (RuntimeError before init_process_group)."""
    pg = GroupMember.WORLD
    if pg is None:
        raise RuntimeError(_NOT_INITIALIZED)
    return pg


def _get_default_store():
    """The store of the default process group."""
    return _pg_map[_get_default_group()][1]


def _update_default_pg(pg):
    GroupMember.WORLD = group.WORLD = pg


def _get_pg_device(group):
    """Where the group's object collectives put their tensors: the current
    CUDA device for nccl, as PyTorch's."""
    if _check_for_nccl_backend(group):
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def _check_for_nccl_backend(group):
    pg = group if group is not None and group is not GroupMember.WORLD \
        else GroupMember.WORLD
    return pg is not None and type(pg).__name__ == "ProcessGroupNCCL"


def _group_and_root(group, rank):
    """(process group, `rank` as a rank of it) for the rooted operations."""
    if group is None or group is GroupMember.WORLD:
        return _get_default_group(), rank
    return group, get_group_rank(group, rank)


def _pg(group):
    return _get_default_group() if group is None else group


def _run(op, async_op, *args):
    """Call the _C operation `op`: a Work with async_op, else wait for it
    (the op then runs on this thread: no hand-off to the progress thread)."""
    work = op(*args, async_op=async_op)
    if async_op:
        return Work(work, _renamer(op.__self__))
    _wait(op.__self__, work)


# "rank 2", "ranks 1, 3" in the C group's messages
_RANK_NUMBERS = re.compile(r"\b(ranks? )(\d+(?:, \d+)*)")


def _renamer(pg):
    """For a group whose ranks are not the global ones: a function turning
    a RuntimeError of it into one naming global ranks (the C group names
    its own; the API and get_rank() speak global ranks, so "rank 2 is gone"
    from group [1, 2, 3] becomes "rank 3 is gone").  None otherwise."""
    ranks = _pg_group_ranks.get(pg)
    if not ranks or all(g == r for g, r in ranks.items()):
        return None
    to_global = {r: g for g, r in ranks.items()}

    def rename(err):
        msg = _RANK_NUMBERS.sub(lambda m: m.group(1) + ", ".join(
            str(to_global.get(int(x), x)) for x in m.group(2).split(", ")), str(err))
        return RuntimeError(msg)
    return rename


def _wait(pg, work):
    """work.wait() of a blocking call on `pg`, its error in global ranks."""
    try:
        work.wait()
    except RuntimeError as e:
        rename = _renamer(pg)
        if rename is None:
            raise
        raise rename(e) from None


def _timeout_seconds(timeout):
    if not isinstance(timeout, timedelta):
        raise RuntimeError("Expected timeout argument to be of type"
                           "datetime.timedelta")
    return timeout.total_seconds()


# -- availability ---------------------------------------------------------------

def is_mpi_available():
    """Whether the MPI backend is available."""
    return _MPI_AVAILABLE


def is_nccl_available():
    """Whether the NCCL backend is available: this build has the CUDA part
    and NCCL (libnccl.so.2, or CTORCH_NCCL_LIB) can be loaded."""
    global _NCCL_AVAILABLE
    if _NCCL_AVAILABLE is None:
        _NCCL_AVAILABLE = hasattr(torch._C, "_nccl_available") and torch._C._nccl_available()
    return _NCCL_AVAILABLE


def is_gloo_available():
    """Whether the Gloo backend is available."""
    return _GLOO_AVAILABLE


def is_ucc_available():
    """Whether the UCC backend is available."""
    return _UCC_AVAILABLE


def is_initialized():
    """Whether the default process group has been initialized."""
    return GroupMember.WORLD is not None


def is_torchelastic_launched():
    """Whether this process was started by torchelastic (torchrun), which
    sets TORCHELASTIC_RUN_ID."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


# -- ranks and groups -------------------------------------------------------------

def get_group_rank(group, global_rank):
    """The rank in `group` of the process with global rank `global_rank`."""
    if group is GroupMember.WORLD:
        return global_rank
    if group not in _pg_group_ranks:
        raise RuntimeError(f"Group {group} is not registered, please create group "
                           "with torch.distributed.new_group API")
    group_ranks = _pg_group_ranks[group]
    if global_rank not in group_ranks:
        raise RuntimeError(f"Global rank {global_rank} is not part of group {group}")
    return group_ranks[global_rank]


def get_global_rank(group, group_rank):
    """The global rank of the process with rank `group_rank` in `group`."""
    if group is GroupMember.WORLD:
        return group_rank
    if group not in _pg_group_ranks:
        raise RuntimeError(f"Group {group} is not registered, please create group "
                           "with torch.distributed.new_group API")
    for rank, grp_rank in _pg_group_ranks[group].items():
        if grp_rank == group_rank:
            return rank
    raise RuntimeError(f"Group rank {group_rank} is not part of group {group}")


def _get_global_rank(group, rank):
    """Deprecated name of get_global_rank."""
    warnings.warn("torch.distributed.distributed_c10d._get_global_rank is deprecated "
                  "please use torch.distributed.distributed_c10d.get_global_rank "
                  "instead")
    return get_global_rank(group, rank)


def _get_group_rank(group, rank):
    """Deprecated name of get_group_rank."""
    warnings.warn("torch.distributed.distributed_c10d._get_group_rank is deprecated "
                  "please use torch.distributed.distributed_c10d.get_group_rank "
                  "instead")
    return get_group_rank(group, rank)


def get_process_group_ranks(group):
    """The global ranks of `group`'s members, in group-rank order."""
    return list(_pg_group_ranks[group].keys())


def _get_group_size(group):
    if group is GroupMember.WORLD or group is None:
        return _get_default_group().size()
    return group.size()


def get_backend(group=None):
    """The backend of `group` (default: the default group), e.g. "gloo"."""
    pg = _get_default_group() if group is None else group
    if _rank_not_in_group(pg):
        raise RuntimeError("Invalid process group specified")
    pg_store = _pg_map.get(pg, None)
    assert pg_store is not None
    return pg_store[0]


def get_rank(group=None):
    """This process's rank in `group` (default: the default group), or -1
    if it is not a member."""
    if _rank_not_in_group(group):
        return -1
    default_pg = _get_default_group()
    if group is None or group is GroupMember.WORLD:
        return default_pg.rank()
    return get_group_rank(group, default_pg.rank())


def get_world_size(group=None):
    """The number of processes in `group`, or -1 if this one is not a member."""
    if _rank_not_in_group(group):
        return -1
    return _get_group_size(group)


# -- creation and destruction ----------------------------------------------------

def _next_group_name(group_name):
    global _group_count
    if not group_name:
        group_name = str(_group_count)
        _group_count += 1
    if group_name in _pg_names.values():
        raise RuntimeError("The specified group name has already been "
                           "created, please use a different group name")
    return group_name


def init_process_group(backend, init_method=None, timeout=default_pg_timeout,
                       world_size=-1, rank=-1, store=None, group_name="",
                       pg_options=None):
    """Initialize the default process group.

    Either `store`, `rank` and `world_size` are given, or `init_method`
    (a URL: env:// (the default), tcp://host:port, file:///path, each
    optionally with ?rank=&world_size=) says how the processes meet.
    `timeout` (a timedelta, 30 minutes by default) bounds the joining and
    every operation of the group.
    """
    global _backend, _default_pg_init_method, _init_count

    _timeout_seconds(timeout)
    if GroupMember.WORLD is not None:
        raise RuntimeError("trying to initialize the default process group " "twice!")
    assert (store is None) or (init_method is None), \
        "Cannot specify both init_method and store."
    if store is not None:
        assert world_size > 0, "world_size must be positive if using store"
        assert rank >= 0, "rank must be non-negative if using store"
    elif init_method is None:
        init_method = "env://"
    backend = Backend(backend)
    if backend == Backend.MPI:
        _init_mpi(world_size, rank, group_name, timeout)
        _default_pg_init_method = init_method
        return
    if store is None:
        store, rank, world_size = _rendezvous(init_method, rank, world_size, timeout)
    if not 0 <= rank < world_size:
        raise ValueError("Invalid rank %d for a process group of world_size %d: "
                         "the rank must be in [0, %d)" % (rank, world_size, world_size))

    name = _next_group_name(group_name)
    _init_count += 1
    base = "ctorch_join:%d:%s" % (_init_count, name)
    base = _join.arrive(store, base, rank, world_size, timeout, claim=True)
    _last_join[:] = ["%s/rank/%d" % (base, rank), rank]
    default_pg = _new_process_group_helper(world_size, rank, [], backend, store,
                                           pg_options=pg_options, group_name=name,
                                           timeout=timeout)
    _update_default_pg(default_pg)
    _pg_group_ranks[default_pg] = {i: i for i in range(world_size)}
    _backend = backend
    _default_pg_init_method = init_method
    _join.depart(store, base, rank, world_size, timeout)


def _init_mpi(world_size, rank, group_name, timeout):
    """init_process_group("mpi"): rank and size come from MPI (mpirun)."""
    global _backend
    if not is_mpi_available():
        raise RuntimeError(_NO_MPI)
    if world_size != -1 or rank != -1:
        warnings.warn("For MPI backend, world_size ({}) and rank ({}) "
                      "are ignored since they are assigned by the "
                      "MPI runtime.".format(world_size, rank))
    name = _next_group_name(group_name)
    default_pg = _new_process_group_helper(-1, -1, [], Backend.MPI, None,
                                           group_name=name, timeout=timeout)
    _update_default_pg(default_pg)
    _pg_group_ranks[default_pg] = {i: i for i in range(default_pg.size())}
    _backend = Backend.MPI
    # MPI has no store: every rank leaves once every group is built
    barrier()


def _rendezvous(init_method, rank, world_size, timeout):
    """(store, rank, world_size) of `init_method`, the store prefixed.

    After a destroy_process_group, a rank re-initializing on the same
    TCPStore address may reach the old store of rank 0 before rank 0 has
    closed it: the client sees its own key of the last init there, drops
    the connection and tries again until the new store answers.
    """
    deadline = time.monotonic() + timeout.total_seconds()
    while True:
        try:
            raw, r, ws = next(rendezvous(init_method, rank, world_size,
                                         timeout=timeout))
            raw.set_timeout(timeout)
            # keys of other users of a shared store (e.g. RPC) stay apart
            store = PrefixStore("default_pg", raw)
            if not (_last_join and r != 0 and isinstance(raw, _c10d.TCPStore)
                    and store.check(_last_join[:1])):
                return store, r, ws
        except RuntimeError:
            # the old store closing under a client that was one last time
            if not (_last_join and _last_join[1] != 0) or time.monotonic() > deadline:
                raise
        raw = store = None
        if time.monotonic() > deadline:
            raise RuntimeError("init_process_group: the store of %s still belongs to "
                               "the destroyed process group" % init_method)
        time.sleep(0.02)


def _new_process_group_helper(group_size, group_rank, global_ranks_in_group, backend,
                              store, pg_options=None, group_name=None,
                              timeout=default_pg_timeout):
    """Build the process group `group_name` (already unique) on `store`;
    GroupMember.NON_GROUP_MEMBER for a process outside it."""
    seconds = _timeout_seconds(timeout)
    backend = Backend(backend)
    if backend == Backend.MPI:
        if not is_mpi_available():
            raise RuntimeError(_NO_MPI)
        pg = ProcessGroupMPI.create(global_ranks_in_group, seconds)
        if pg is None:
            return GroupMember.NON_GROUP_MEMBER
        _pg_map[pg] = (Backend.MPI, None)
        _pg_names[pg] = group_name
        return pg
    if global_ranks_in_group and group_rank is None:
        return GroupMember.NON_GROUP_MEMBER
    # the group's name prefixes its keys, so groups share one store
    prefix_store = PrefixStore(group_name, store)
    if backend == Backend.GLOO:
        if pg_options is not None:
            raise RuntimeError("GLOO options not supported")
        pg = ProcessGroupGloo(prefix_store, group_rank, group_size, seconds)
    elif backend == Backend.NCCL:
        if not is_nccl_available():
            raise RuntimeError("Distributed package doesn't have NCCL " "built in")
        pg = torch._C.ProcessGroupNCCL(prefix_store, group_rank, group_size, seconds)
    else:
        assert backend.upper() in Backend._plugins, (
            f"Unknown c10d backend type {backend.upper()}")
        plugin = Backend._plugins[backend.upper()]
        pg = plugin.creator_fn(prefix_store, group_rank, group_size, timeout)
    _pg_map[pg] = (backend, store)
    _pg_names[pg] = group_name
    return pg


def _shutdown(pg):
    shutdown = getattr(pg, "_shutdown", None)
    if shutdown is not None:
        shutdown()


def destroy_process_group(group=None):
    """Destroy `group`, or with no argument (or group.WORLD) every group:
    their connections, threads and shared memory are released and
    init_process_group may be called again."""
    global _default_pg_init_method, _group_count, _backend

    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = GroupMember.WORLD if group is None else group
    assert pg is not None
    if _pg_map.get(pg, None) is None:
        raise RuntimeError("Invalid process group specified")
    if group is None or group == GroupMember.WORLD:
        groups = list(_pg_map)
        _update_default_pg(None)
        _default_pg_init_method = None
        _backend = Backend.UNDEFINED
        _pg_map.clear()
        _pg_names.clear()
        _pg_group_ranks.clear()
        # names restart, so groups re-created after a recovery match
        _group_count = 0
        for g in groups:
            _shutdown(g)
    else:
        del _pg_map[pg]
        del _pg_names[pg]
        _pg_group_ranks.pop(pg, None)
        _shutdown(pg)


def new_group(ranks=None, timeout=default_pg_timeout, backend=None, pg_options=None):
    """A new group of the global ranks `ranks` (default: all).  Every
    process of the default group must call it, in the same order; one that
    is not in `ranks` gets GroupMember.NON_GROUP_MEMBER."""
    default_pg = _get_default_group()
    default_backend, default_store = _pg_map[default_pg]
    global_rank = default_pg.rank()
    global_world_size = default_pg.size()
    if not backend:
        backend = default_backend
    if ranks is not None:
        ranks = sorted(ranks)
        if len(ranks) > global_world_size:
            raise RuntimeError("the new group's world size should be less or "
                               "equal to the world size set by "
                               "init_process_group")
        for rank in ranks:
            if rank < 0 or rank >= global_world_size:
                raise RuntimeError("The new group's rank should be within the "
                                   "the world_size set by init_process_group")
        group_rank = ranks.index(global_rank) if global_rank in ranks else None
    else:
        ranks = list(range(global_world_size))
        group_rank = global_rank
    backend = Backend(backend)
    _timeout_seconds(timeout)
    name = _next_group_name(None)
    if default_store is None or backend == Backend.MPI:
        # MPI's groups meet through MPI_Comm_create, not a store
        pg = _new_process_group_helper(len(ranks), group_rank, ranks, backend,
                                       default_store, pg_options=pg_options,
                                       group_name=name, timeout=timeout)
        if pg is not GroupMember.NON_GROUP_MEMBER:
            _pg_group_ranks[pg] = {g: i for i, g in enumerate(ranks)}
        barrier()
        return pg
    base = "ctorch_join:%d:%s" % (_init_count, name)
    alive = _world_alive(default_pg)
    _join.arrive(default_store, base, global_rank, global_world_size, timeout,
                 claim=False, alive=alive)
    pg = _new_process_group_helper(len(ranks), group_rank, ranks, backend,
                                   default_store, pg_options=pg_options,
                                   group_name=name, timeout=timeout)
    if pg is not GroupMember.NON_GROUP_MEMBER:
        _pg_group_ranks[pg] = {g: i for i, g in enumerate(ranks)}
    _join.depart(default_store, base, global_rank, global_world_size, timeout,
                 alive=alive)
    if alive is not None:
        try:
            alive(wait=True)
        except _join.GroupLost as e:
            raise RuntimeError(str(e)) from None
    return pg


def _world_alive(default_pg):
    """For new_group's joining: every rank enters new_group, so a barrier of
    the default group (started here, asynchronously) fails as soon as a rank
    is gone.  Returns a callable that raises that failure (with wait=True,
    after waiting for the barrier), or None where the default group is not
    ctorch's gloo."""
    if not isinstance(default_pg, ProcessGroupGloo) or default_pg.size() == 1:
        return None
    probe = default_pg.barrier()

    def alive(wait=False):
        if wait or probe.is_completed():
            try:
                probe.wait()
            except RuntimeError as e:
                raise _join.GroupLost("new_group: %s" % e) from None
    return alive


def new_subgroups(group_size=None, group=None, timeout=default_pg_timeout,
                  backend=None, pg_options=None):
    """Equal-sized subgroups of consecutive ranks (needs CUDA, as PyTorch)."""
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_available():
        raise ValueError("Subgroups can only be created when CUDA is available")
    if group_size is None:
        group_size = cuda.device_count()
    world_size = get_world_size()
    if world_size < group_size:
        raise ValueError("The arg 'group_size' must not exceed the world size")
    if world_size % group_size != 0:
        raise ValueError("The world size must be divisible by 'group_size'")
    subgroups = []
    cur_subgroup = None
    for subgroup_id in range(world_size // group_size):
        ranks_in_subgroup = list(range(subgroup_id * group_size,
                                       (subgroup_id + 1) * group_size))
        subgroup = new_group(ranks=ranks_in_subgroup, timeout=timeout,
                             backend=backend, pg_options=pg_options)
        subgroups.append(subgroup)
        if get_rank() in ranks_in_subgroup:
            cur_subgroup = subgroup
    return cur_subgroup, subgroups


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=default_pg_timeout,
                                 backend=None, pg_options=None):
    """Subgroups from a list of rank lists (needs CUDA, as PyTorch)."""
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_available():
        raise ValueError("Subgroups can only be created when CUDA is available")
    if ranks_per_subgroup_list is None or len(ranks_per_subgroup_list) == 0:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    subgroups = []
    cur_subgroup = None
    rank_to_ranks = {}
    for ranks in ranks_per_subgroup_list:
        subgroup = new_group(ranks=ranks, timeout=timeout, backend=backend,
                             pg_options=pg_options)
        subgroups.append(subgroup)
        my_rank = get_rank()
        for rank in ranks:
            if rank in rank_to_ranks:
                raise ValueError("Rank {} has appeared in both subgroup {} and {}"
                                 .format(rank, rank_to_ranks[rank], ranks))
            rank_to_ranks[rank] = ranks
            if my_rank == rank:
                cur_subgroup = subgroup
    return cur_subgroup, subgroups


# -- point to point ---------------------------------------------------------------

def _check_not_self(pg, rank, kind):
    if pg.rank() == rank:
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as "
                         "the rank of the current process.")


def _p2p_target(group, peer, kind):
    """(process group, `peer` as a rank of it), after the self-check."""
    pg, group_peer = _group_and_root(group, peer)
    _check_not_self(pg, group_peer, kind)
    return pg, group_peer


def isend(tensor, dst, group=None, tag=0):
    """Send `tensor` to global rank `dst` asynchronously; returns a Work
    (None if this process is not in `group`)."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("isend")
        return
    pg, group_dst = _p2p_target(group, dst, "destination")
    return Work(pg.send([tensor], group_dst, tag), _renamer(pg))


def irecv(tensor, src=None, group=None, tag=0):
    """Receive into `tensor` asynchronously from global rank `src` (any
    rank if None); returns a Work."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("irecv")
        return
    if src is None:
        pg = _pg(group)
        return Work(pg.recv_anysource([tensor], tag), _renamer(pg))
    pg, group_src = _p2p_target(group, src, "source")
    return Work(pg.recv([tensor], group_src, tag), _renamer(pg))


def send(tensor, dst, group=None, tag=0):
    """Send `tensor` to global rank `dst` and wait until it is sent."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("send")
        return
    pg, group_dst = _p2p_target(group, dst, "destination")
    _wait(pg, pg.send([tensor], group_dst, tag, async_op=False))


def recv(tensor, src=None, group=None, tag=0):
    """Receive into `tensor` from global rank `src` (any rank if None);
    returns the sender's global rank (-1 if not in `group`)."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("recv")
        return -1
    if src is None:
        pg = _pg(group)
        work = pg.recv_anysource([tensor], tag, async_op=False)
        _wait(pg, work)
        src_rank = work.source_rank()
        if group is None or group is GroupMember.WORLD:
            return src_rank
        return get_global_rank(pg, src_rank)
    pg, group_src = _p2p_target(group, src, "source")
    _wait(pg, pg.recv([tensor], group_src, tag, async_op=False))
    return src


class P2POp(object):
    """One isend or irecv for batch_isend_irecv."""

    def __new__(cls, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv):
            raise RuntimeError("Invalid ``op``. Expected ``op`` "
                               "to be of type ``torch.distributed.isend`` or "
                               "``torch.distributed.irecv``.")
        _check_single_tensor(tensor, "tensor")
        return object.__new__(cls)

    def __init__(self, op, tensor, peer, group=None, tag=0):
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag


def batch_isend_irecv(p2p_op_list):
    """Start every P2POp of the list; returns their Work handles."""
    if not isinstance(p2p_op_list, list) or not all(
            isinstance(p, P2POp) for p in p2p_op_list):
        raise RuntimeError("Invalid ``p2p_op_list``. Each op is expected to "
                           "to be of type ``torch.distributed.P2POp``.")
    first = p2p_op_list[0].group
    if not all(first == p.group for p in p2p_op_list):
        raise RuntimeError("All ops need to use the same group.")
    reqs = []
    for p in p2p_op_list:
        ret = p.op(p.tensor, p.peer, p.group, p.tag)
        if ret is not None:
            reqs.append(ret)
    return reqs


# -- collectives -------------------------------------------------------------------

def broadcast(tensor, src, group=None, async_op=False):
    """Copy `tensor` of global rank `src` into `tensor` of every rank."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast")
        return
    pg, root = _group_and_root(group, src)
    return _run(pg.broadcast, async_op, [tensor], root)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `tensor` over all ranks with `op`; every rank gets the result
    in place."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_reduce")
        return
    pg = GroupMember.WORLD if group is None else group
    if pg is None:
        raise RuntimeError(_NOT_INITIALIZED)
    return _run(pg.allreduce, async_op, [tensor], _op_code(op, "all_reduce"))


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """all_reduce of each tensor of the list (deprecated in PyTorch)."""
    warnings.warn("torch.distributed.all_reduce_coalesced will be deprecated. If you "
                  "must use it, please revisit our documentation later at "
                  "https://pytorch.org/docs/master/"
                  "distributed.html#collective-functions")
    _check_tensor_list(tensors, "tensor")
    _ensure_all_tensors_same_dtype(tensors)
    if _rank_not_in_group(group):
        _warn_not_in_group("all_reduce_coalesced")
        return
    pg = _pg(group)
    code = _op_code(op, "all_reduce_coalesced")
    works = [pg.allreduce([t], code, async_op=async_op) for t in tensors]
    if async_op:
        return _collect([Work(w, _renamer(pg)) for w in works], tensors)
    for w in works:
        _wait(pg, w)


def _collect(works, value):
    """One Future completed with `value` when every work has completed."""
    from ..futures import collect_all
    return collect_all([w.get_future() for w in works]).then(lambda _: value)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `tensor` over all ranks with `op` into global rank `dst`."""
    _check_single_tensor(tensor, "tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce")
        return
    pg, root = _group_and_root(group, dst)
    return _run(pg.reduce, async_op, [tensor], root, _op_code(op, "reduce"))


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's `tensor` into `tensor_list` (one per rank) on all ranks."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    _ensure_all_tensors_same_dtype(tensor_list, tensor)
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather")
        return
    return _run(_pg(group).allgather, async_op, [tensor_list], [tensor])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's `input_tensor` concatenated (or stacked) into
    `output_tensor` on all ranks."""
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_into_tensor")
        return
    return _run(_pg(group)._allgather_base, async_op, output_tensor, input_tensor)


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    """Deprecated name of all_gather_into_tensor."""
    warnings.warn("torch.distributed._all_gather_base is a private function and will "
                  "be deprecated. Please use torch.distributed.all_gather_into_tensor "
                  "instead.")
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None,
                         async_op=False):
    """all_gather of each tensor of the list (deprecated in PyTorch)."""
    warnings.warn("torch.distributed.all_gather_coalesced will be deprecated. If you "
                  "must use it, please revisit our documentation later at "
                  "https://pytorch.org/docs/master/"
                  "distributed.html#collective-functions")
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_coalesced")
        return
    _check_tensor_list(input_tensor_list, "tensor_list")
    _ensure_all_tensors_same_dtype(input_tensor_list)
    if not isinstance(output_tensor_lists, list):
        raise RuntimeError("Invalid function argument: "
                           "output_tensor_lists should be a list")
    for output_tensor_list in output_tensor_lists:
        _check_tensor_list(output_tensor_list, "output_tensor_lists")
        _ensure_all_tensors_same_dtype(output_tensor_list)
    pg = _pg(group)
    works = [pg.allgather([[out[i] for out in output_tensor_lists]], [t],
                         async_op=async_op)
             for i, t in enumerate(input_tensor_list)]
    if async_op:
        return _collect([Work(w, _renamer(pg)) for w in works], output_tensor_lists)
    for w in works:
        _wait(pg, w)


def _validate_output_list_for_rank(my_rank, dst, gather_list):
    if dst == my_rank:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on "
                             "destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified "
                         "on non-destination ranks.")


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Every rank's `tensor` into `gather_list` on global rank `dst`."""
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    _ensure_all_tensors_same_dtype(tensor, gather_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("gather")
        return
    my_rank = get_rank()
    _validate_output_list_for_rank(my_rank, dst, gather_list)
    output_tensors = [gather_list] if dst == my_rank else []
    pg, root = _group_and_root(group, dst)
    return _run(pg.gather, async_op, output_tensors, [tensor], root)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Tensor i of `scatter_list` on global rank `src` into `tensor` of the
    group's rank i."""
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    _ensure_all_tensors_same_dtype(tensor, scatter_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter")
        return
    my_rank = get_rank()
    if src == my_rank:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified "
                             "on source rank.")
        input_tensors = [scatter_list]
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified "
                             "on non-source ranks.")
        input_tensors = []
    pg, root = _group_and_root(group, src)
    return _run(pg.scatter, async_op, [tensor], input_tensors, root)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce the lists over all ranks with `op`; rank i gets element i of
    the result in `output`."""
    _check_single_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    _ensure_all_tensors_same_dtype(output, input_list)
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter")
        return
    return _run(_pg(group).reduce_scatter, async_op, [output], [input_list],
                _op_code(op, "reduce_scatter"))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """reduce_scatter of `input` split along its first dimension (or
    flattened) into world_size parts."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    if _rank_not_in_group(group):
        _warn_not_in_group("reduce_scatter_tensor")
        return
    return _run(_pg(group)._reduce_scatter_base, async_op, output, input,
                _op_code(op, "reduce_scatter_tensor"))


def _reduce_scatter_base(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Deprecated name of reduce_scatter_tensor."""
    warnings.warn("torch.distributed._reduce_scatter_base is a private function and "
                  "will be deprecated. Please use torch.distributed."
                  "reduce_scatter_tensor instead.")
    return reduce_scatter_tensor(output, input, op, group, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Split `input` along dim 0 (equally, or by `input_split_sizes`), send
    part i to rank i, and concatenate what arrives into `output`."""
    if _rank_not_in_group(group):
        _warn_not_in_group("all_to_all_single")
        return
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _ensure_all_tensors_same_dtype(output, input)
    output_split_sizes = [] if output_split_sizes is None else list(output_split_sizes)
    input_split_sizes = [] if input_split_sizes is None else list(input_split_sizes)
    return _run(_pg(group).alltoall_base, async_op, output, input, output_split_sizes,
                input_split_sizes)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Send input_tensor_list[i] to rank i; output_tensor_list[j] receives
    rank j's."""
    if _rank_not_in_group(group):
        _warn_not_in_group("all_to_all")
        return
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    _ensure_all_tensors_same_dtype(output_tensor_list, input_tensor_list)
    return _run(_pg(group).alltoall, async_op, output_tensor_list, input_tensor_list)


def barrier(group=GroupMember.WORLD, async_op=False, device_ids=None):
    """Block until every rank of `group` has entered the barrier."""
    if _rank_not_in_group(group):
        _warn_not_in_group("barrier")
        return
    if device_ids is not None:
        if get_backend(group) != Backend.NCCL:
            raise RuntimeError("Function argument device_ids not supported "
                               "for the selected backend {}".format(get_backend(group)))
        if not isinstance(device_ids, list):
            raise RuntimeError("Invalid function argument: "
                               "device_ids type should be List[int]")
    return _run(_pg(group).barrier, async_op)


# tags of monitored_barrier's messages, apart from those of user code
_MONITORED_BARRIER_TAG = 0x40000000
_monitored_barrier_count = {}


def monitored_barrier(group=GroupMember.WORLD, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not reach it in `timeout`
    (default 30 minutes): rank 0 collects a message from every rank, then
    releases them.  With wait_all_ranks, rank 0 reports every missing rank,
    not only the first."""
    if _rank_not_in_group(group):
        _warn_not_in_group("monitored_barrier")
        return
    if get_backend(group) != Backend.GLOO:
        raise RuntimeError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is None:
        timeout = default_pg_timeout
    seconds = _timeout_seconds(timeout)
    pg = _pg(group)
    size, rank = pg.size(), pg.rank()
    if size == 1:
        return None
    count = _monitored_barrier_count.get(pg, 0)
    _monitored_barrier_count[pg] = count + 1
    tag = _MONITORED_BARRIER_TAG + count % (1 << 20)
    token = torch.zeros(1)
    if rank != 0:
        try:
            pg.send([token], 0, tag).wait(seconds)
            pg.recv([token], 0, tag).wait(seconds)
        except RuntimeError as e:
            raise RuntimeError(
                f"Rank {rank} successfully reached monitoredBarrier, but received "
                "errors while waiting for send/recv from rank 0. Please check rank 0 "
                f"logs for faulty rank.\n Original exception: \n{e}") from None
        return None
    ms = int(round(seconds * 1000))
    start = time.monotonic()
    recvs = [(r, pg.recv([torch.zeros(1)], r, tag)) for r in range(1, size)]
    failed = []
    for r, work in recvs:
        try:
            work.wait(max(seconds - (time.monotonic() - start), 0.001))
        except RuntimeError as e:
            if not wait_all_ranks:
                raise RuntimeError(f"[Rank 0]: Rank {r} failed to pass "
                                   f"monitoredBarrier in {ms} ms\n Original "
                                   f"exception: \n{e}") from None
            failed.append(r)
    if failed:
        raise RuntimeError("[Rank 0]: Ranks %s failed to pass monitoredBarrier in %d ms"
                           % (", ".join(str(r) for r in failed), ms))
    for work in [pg.send([token], r, tag) for r in range(1, size)]:
        work.wait(seconds)
    return None


# -- object collectives -----------------------------------------------------------

def _object_to_tensor(obj, device=None):
    """(uint8 tensor of obj's pickle, int64 tensor of its length)."""
    f = io.BytesIO()
    pickle.Pickler(f).dump(obj)
    data = f.getvalue()
    # a tensor of ctorch's own storage: the callers resize it
    byte_tensor = torch.empty(len(data), dtype=torch.uint8)
    byte_tensor.numpy()[:] = _np.frombuffer(data, dtype=_np.uint8)
    size = torch.tensor([byte_tensor.numel()], dtype=torch.long)
    if device is not None and device.type != "cpu":
        return byte_tensor.to(device), size.to(device)
    return byte_tensor, size


def _tensor_to_object(tensor, tensor_size):
    buf = tensor.cpu().numpy().tobytes()[:int(tensor_size)]
    return pickle.Unpickler(io.BytesIO(buf)).load()


def _gather_sizes(local_size, group):
    """Every rank's object size (an all_gather of one int64 each)."""
    group_size = get_world_size(group=group)
    sizes = torch.zeros(group_size, dtype=torch.long, device=local_size.device)
    all_gather([sizes[i].unsqueeze(0) for i in range(group_size)], local_size,
               group=group)
    return [int(s) for s in sizes.tolist()]


def all_gather_object(object_list, obj, group=None):
    """Every rank's picklable `obj` into `object_list` on all ranks."""
    if _rank_not_in_group(group):
        _warn_not_in_group("all_gather_object")
        return
    device = _get_pg_device(group)
    input_tensor, local_size = _object_to_tensor(obj, device)
    sizes = _gather_sizes(local_size, group)
    group_size, max_size = len(sizes), max(sizes)
    input_tensor.resize_(max_size)
    out = torch.empty(max_size * group_size, dtype=torch.uint8, device=device)
    outputs = [out[max_size * i:max_size * (i + 1)] for i in range(group_size)]
    all_gather(outputs, input_tensor, group=group)
    for i, tensor in enumerate(outputs):
        object_list[i] = _tensor_to_object(tensor, sizes[i])


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Every rank's picklable `obj` into `object_gather_list` on global
    rank `dst` (None elsewhere)."""
    if _rank_not_in_group(group):
        _warn_not_in_group("gather_object")
        return
    my_rank = get_rank()
    _validate_output_list_for_rank(my_rank, dst, object_gather_list)
    device = _get_pg_device(group)
    input_tensor, local_size = _object_to_tensor(obj, device)
    # all ranks send tensors of the largest size, so every rank needs it
    sizes = _gather_sizes(local_size, group)
    group_size, max_size = len(sizes), max(sizes)
    input_tensor.resize_(max_size)
    outputs = None
    if my_rank == dst:
        out = torch.empty(max_size * group_size, dtype=torch.uint8, device=device)
        outputs = [out[max_size * i:max_size * (i + 1)] for i in range(group_size)]
    gather(input_tensor, gather_list=outputs, dst=dst, group=group)
    if my_rank != dst:
        return
    for i, tensor in enumerate(outputs):
        object_gather_list[i] = _tensor_to_object(tensor, sizes[i])


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """The picklable objects of `object_list` on global rank `src` into
    `object_list` of every rank (all lists have the same length)."""
    if _rank_not_in_group(group):
        _warn_not_in_group("broadcast_object_list")
        return
    my_rank = get_rank()
    device = torch.device(device) if device is not None else _get_pg_device(group)
    if my_rank == src:
        tensor_list, size_list = zip(*[_object_to_tensor(obj, device)
                                       for obj in object_list])
        object_sizes_tensor = torch.cat(size_list)
    else:
        object_sizes_tensor = torch.empty(len(object_list), dtype=torch.long,
                                          device=device)
    broadcast(object_sizes_tensor, src=src, group=group)
    if my_rank == src:
        object_tensor = torch.cat(tensor_list)
    else:
        object_tensor = torch.empty(int(object_sizes_tensor.sum().item()),
                                    dtype=torch.uint8, device=device)
    broadcast(object_tensor, src=src, group=group)
    if my_rank != src:
        offset = 0
        for i, size in enumerate(object_sizes_tensor.tolist()):
            object_list[i] = _tensor_to_object(object_tensor[offset:offset + size],
                                               size)
            offset += size


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0,
                        group=None):
    """Object i of `scatter_object_input_list` on global rank `src` into
    scatter_object_output_list[0] of the group's rank i."""
    if _rank_not_in_group(group):
        _warn_not_in_group("scatter_object_list")
        return
    if not isinstance(scatter_object_output_list, list) or \
            len(scatter_object_output_list) < 1:
        raise RuntimeError("Expected argument scatter_object_output_list to be a list "
                           "of size at least 1.")
    my_rank = get_rank(group)
    device = _get_pg_device(group)
    if my_rank == src:
        tensor_list, tensor_sizes = zip(*[_object_to_tensor(obj, device)
                                          for obj in scatter_object_input_list])
        tensor_list, tensor_sizes = list(tensor_list), list(tensor_sizes)
        max_tensor_size = max(int(s) for s in tensor_sizes)
        for tensor in tensor_list:
            tensor.resize_(max_tensor_size)
        max_size = torch.tensor([max_tensor_size], dtype=torch.long, device=device)
    else:
        max_size = torch.tensor([0], dtype=torch.long, device=device)
    broadcast(max_size, src=src, group=group)
    output_tensor = torch.empty(int(max_size.item()), dtype=torch.uint8, device=device)
    scatter(output_tensor, scatter_list=None if my_rank != src else tensor_list,
            src=src, group=group)
    obj_tensor_size = torch.tensor([0], dtype=torch.long, device=device)
    scatter(obj_tensor_size, scatter_list=None if my_rank != src else tensor_sizes,
            src=src, group=group)
    scatter_object_output_list[0] = _tensor_to_object(output_tensor, obj_tensor_size)


_MODULE = ("torch" if os.environ.get("CTORCH_TORCH_NAMES") == "1" else "ctorch") \
    + ".distributed.distributed_c10d"
for _cls in (ProcessGroup, P2POp, group, GroupMember):
    _cls.__module__ = _MODULE
del _cls
