"""ctorch.distributed: torch.distributed's Python surface.

In this process: names, Backend, ReduceOp, futures, argument and
rendezvous errors, and a world of one rank (HashStore).  Across processes:
scripts run by 2-3 ranks under bin/ctorchrun (`import torch` resolving to
ctorch) print what they see; the output is checked against PyTorch 1.13's,
recorded here, and against a run of the same script under real PyTorch when
it is installed.  Failure cases (a missing rank, a rank claimed twice,
monitored_barrier, Work.wait timeouts) are ctorch-only: PyTorch 1.13 hangs
or reports them differently.

Every multi-process run uses free ports of its own, so these tests may run
beside others.
"""
import datetime
import os
import re
import socket
import subprocess
import textwrap
import time
import warnings

import pytest

import helpers

import ctorch
import ctorch.distributed as dist
from ctorch.futures import Future, collect_all, wait_all

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "bin", "ctorchrun")
needs_backend = pytest.mark.skipif(not dist.is_available(),
                                   reason="ctorch._C has no c10d process group")
T = datetime.timedelta


# ---- running scripts on several ranks --------------------------------------

def run_ranks(code, world_size, impl="ctorch", ranks=None, timeout=60, env=None):
    """helpers.run_ranks with `torch` and `dist` imported, and spare ports
    (PORT_B..D) and store files (FILE_A, FILE_B) in the environment."""
    extra = dict(PORT_B=str(helpers.free_port()), PORT_C=str(helpers.free_port()),
                 PORT_D=str(helpers.free_port()),
                 FILE_A=lambda tmp: os.path.join(tmp, "a"),
                 FILE_B=lambda tmp: os.path.join(tmp, "b"))
    extra.update(env or {})
    return helpers.run_ranks("import torch\nimport torch.distributed as dist\n"
                             + textwrap.dedent(code), world_size, impl, ranks, timeout,
                             extra, tmp_prefix="ctorch_dist_")


def _normalize(text):
    """Object addresses differ from run to run."""
    return re.sub(r"<[\w.]+ object at 0x[0-9a-f]+>", "<object>", text)


def outputs(results):
    """The ranks' stdout, normalized; fails with stderr on a crash."""
    for rc, out, err in results:
        assert rc == 0, out + err
    return [_normalize(out) for _, out, _ in results]


# ---- names ---------------------------------------------------------------------

def test_names_and_availability():
    assert ctorch.distributed is dist
    assert dist.is_available()
    assert dist.is_gloo_available() is True
    # the mpi backend is there when the build found OpenMPI (test_dist_mpi.py)
    assert dist.is_mpi_available() is hasattr(ctorch._C, "ProcessGroupMPI")
    # nccl: with a CUDA part and an NCCL library to load (test_nccl_fake.py)
    assert dist.is_nccl_available() is ctorch._C._nccl_available()
    assert dist.is_initialized() is False
    assert dist.group.WORLD is None and dist.GroupMember.WORLD is None
    assert dist.default_pg_timeout == T(minutes=30)
    assert dist.constants.default_pg_timeout == T(minutes=30)
    for name in ["init_process_group", "destroy_process_group", "new_group", "send",
                 "recv", "isend", "irecv", "broadcast", "all_reduce", "reduce",
                 "all_gather", "all_gather_into_tensor", "gather", "scatter",
                 "reduce_scatter", "reduce_scatter_tensor", "all_to_all",
                 "all_to_all_single", "barrier", "monitored_barrier",
                 "broadcast_object_list", "all_gather_object", "gather_object",
                 "scatter_object_list", "batch_isend_irecv", "P2POp", "get_rank",
                 "get_world_size", "get_backend", "get_group_rank", "get_global_rank",
                 "get_process_group_ranks", "TCPStore", "FileStore", "HashStore",
                 "PrefixStore", "Store", "Work", "ReduceOp", "Backend", "GroupMember",
                 "register_rendezvous_handler", "rendezvous", "_all_gather_base",
                 "_reduce_scatter_base", "_get_global_rank", "_get_group_rank",
                 "is_torchelastic_launched", "ProcessGroup", "reduce_op"]:
        assert hasattr(dist, name), name
    assert ctorch.futures.Future is Future
    assert dist.distributed_c10d.init_process_group is dist.init_process_group


def test_mpi_backend_missing(monkeypatch):
    """In a build without MPI, backend "mpi" gives PyTorch's message (and
    ranks, sizes and stores are never asked for)."""
    monkeypatch.setattr(dist.distributed_c10d, "_MPI_AVAILABLE", False)
    assert dist.is_mpi_available() is False
    with pytest.raises(RuntimeError) as e:
        dist.init_process_group("mpi")
    assert str(e.value) == ("Distributed package doesn't have MPI built in. MPI is only "
                            "included if you build PyTorch from source on a host that has "
                            "MPI installed.")
    assert not dist.is_initialized()


def test_is_torchelastic_launched(monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert dist.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "x")
    assert dist.is_torchelastic_launched() is True


def _error(fn):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001 - the error is the result
        return type(e).__name__, str(e)
    return None


BACKEND_CASES = ["gloo", "GLOO", "Gloo", "nccl", "MPI", "ucc", "tcp", "foo", 3]


def _backend_results(mod):
    out = []
    for c in BACKEND_CASES:
        err = _error(lambda: mod.Backend(c))
        out.append(err if err else mod.Backend(c))
    return out + [mod.Backend.GLOO, mod.Backend.NCCL, mod.Backend.MPI,
                  mod.Backend.UNDEFINED, mod.Backend("GLOO") == "gloo"]


BACKEND_EXPECTED = [
    "gloo", "gloo", "gloo", "nccl", "mpi", "ucc",
    ("ValueError", "TCP backend has been deprecated. Please use Gloo or MPI backend "
     "for collective operations on CPU tensors."),
    ("ValueError", "Invalid backend: 'foo'"),
    ("ValueError", "Backend name must be a string, but got: 3"),
    "gloo", "nccl", "mpi", "undefined", True]


def test_backend():
    assert _backend_results(dist) == BACKEND_EXPECTED
    assert type(dist.Backend("gloo")) is str


def test_backend_vs_torch(torch_ref):
    import torch.distributed as tdist
    assert _backend_results(dist) == _backend_results(tdist)


def test_register_backend():
    calls = []
    dist.Backend.register_backend("dummy_ct", lambda *a: calls.append(a))
    try:
        assert dist.Backend.DUMMY_CT == "DUMMY_CT"
        assert dist.Backend("dummy_ct") == "dummy_ct"
        with pytest.raises(AssertionError, match="DUMMY_CT c10d backend already exist"):
            dist.Backend.register_backend("dummy_ct", None)
    finally:
        del dist.Backend.DUMMY_CT
        del dist.Backend._plugins["DUMMY_CT"]


def _reduce_op_results(mod):
    R = mod.ReduceOp
    names = ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "AVG"]
    return [
        [type(getattr(R, n)).__name__ for n in names],
        [repr(getattr(R, n).op) for n in names],
        repr(R.PREMUL_SUM), type(R.PREMUL_SUM).__name__,
        {k: int(v) for k, v in R.RedOpType.__members__.items()},
        R.SUM == R.SUM, R.SUM == R.MAX, R.SUM != R.MAX, R.SUM == R.RedOpType.SUM,
        R.MAX == R.RedOpType.SUM,
        isinstance(R.SUM, R), hash(R.SUM) == hash(R(R.RedOpType.SUM)),
        R(R.RedOpType.MAX) == R.MAX, R.SUM in [R.MIN, R.SUM],
        re.sub("0x[0-9a-f]+", "0x", repr(R.SUM)).replace("ctorch.", "torch."),
    ]


def test_reduce_op():
    R = dist.ReduceOp
    assert _reduce_op_results(dist) == [
        ["ReduceOp"] * 8,
        ["<RedOpType.SUM: 0>", "<RedOpType.PRODUCT: 2>", "<RedOpType.MIN: 3>",
         "<RedOpType.MAX: 4>", "<RedOpType.BAND: 5>", "<RedOpType.BOR: 6>",
         "<RedOpType.BXOR: 7>", "<RedOpType.AVG: 1>"],
        "<RedOpType.PREMUL_SUM: 8>", "RedOpType",
        {"SUM": 0, "AVG": 1, "PRODUCT": 2, "MIN": 3, "MAX": 4, "BAND": 5, "BOR": 6,
         "BXOR": 7, "PREMUL_SUM": 8},
        True, False, True, True, False, True, True, True, True,
        "<torch.distributed.distributed_c10d.ReduceOp object at 0x>",
    ]
    assert R.RedOpType.SUM == R.SUM
    import pickle
    assert pickle.loads(pickle.dumps(R.BXOR)) == R.BXOR
    assert {R.SUM: 1}[R.SUM] == 1
    assert dist.supports_complex(R.SUM) and not dist.supports_complex(R.MAX)
    with pytest.raises(TypeError, match="incompatible constructor arguments"):
        R(3)


def test_reduce_op_vs_torch(torch_ref):
    import torch.distributed as tdist
    assert _reduce_op_results(dist) == _reduce_op_results(tdist)


def test_reduce_op_deprecated():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.reduce_op.SUM == dist.ReduceOp.RedOpType.SUM
    assert "torch.distributed.reduce_op is deprecated, please use " \
        "torch.distributed.ReduceOp instead" in str(caught[0].message)


# ---- before init -----------------------------------------------------------------

NOT_INIT = ("RuntimeError", "Default process group has not been initialized, please "
            "make sure to call init_process_group.")


def _uninitialized_calls(torch, dist):
    t = torch.ones(2)
    return [
        lambda: dist.get_rank(), lambda: dist.get_world_size(),
        lambda: dist.get_backend(), lambda: dist.all_reduce(t),
        lambda: dist.broadcast(t, 0), lambda: dist.reduce(t, 0),
        lambda: dist.all_gather([t], t), lambda: dist.send(t, 1),
        lambda: dist.recv(t, 1), lambda: dist.recv(t), lambda: dist.isend(t, 1),
        lambda: dist.irecv(t), lambda: dist.barrier(), lambda: dist.new_group([0]),
        lambda: dist.all_to_all_single(t, t), lambda: dist.all_gather_object([None], 1),
        lambda: dist.distributed_c10d._get_default_group(),
    ]


def test_calls_before_init():
    for fn in _uninitialized_calls(ctorch, dist):
        assert _error(fn) == NOT_INIT
    assert dist.get_rank(dist.GroupMember.NON_GROUP_MEMBER) == -1
    assert dist.get_world_size(dist.GroupMember.NON_GROUP_MEMBER) == -1


def test_calls_before_init_vs_torch(torch_ref):
    import torch.distributed as tdist
    for c, t in zip(_uninitialized_calls(ctorch, dist),
                    _uninitialized_calls(torch_ref, tdist)):
        assert _error(c) == _error(t)


# ---- init arguments and rendezvous ----------------------------------------------

def _init_error_calls(dist, env_setter):
    init = dist.init_process_group
    store = dist.HashStore()
    calls = [
        lambda: init("gloo", timeout=5),
        lambda: init("gloo", init_method="env://", store=store),
        lambda: init("gloo", store=store, rank=0, world_size=0),
        lambda: init("gloo", store=store, rank=-1, world_size=1),
        lambda: init("foo", store=store, rank=0, world_size=1),
        lambda: init("tcp", store=store, rank=0, world_size=1),
        lambda: init("gloo", init_method="foo://x"),
        lambda: init("gloo", init_method="tcp://127.0.0.1", rank=0, world_size=1),
        lambda: init("gloo", init_method="tcp://127.0.0.1:1234", world_size=1),
        lambda: init("gloo", init_method="tcp://127.0.0.1:1234", rank=0),
        lambda: init("gloo", init_method="file://", rank=0, world_size=1),
        lambda: init("gloo", init_method="file:///tmp/x", world_size=1),
        lambda: init("gloo", init_method="file:///tmp/x?rank=0&world_size=1",
                     rank=0, world_size=1),
        lambda: dist.rendezvous(3),
        lambda: dist.rendezvous("env://", rank="0"),
        lambda: dist.rendezvous("env://", world_size=1.5),
        lambda: dist.register_rendezvous_handler("env", None),
    ]
    env_cases = [{}, {"RANK": "0"}, {"RANK": "0", "WORLD_SIZE": "1"},
                 {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1"},
                 {"WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"},
                 {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                  "MASTER_PORT": "70000"}]
    for env in env_cases:
        calls.append(lambda env=env: (env_setter(env), init("gloo")))
    return calls


INIT_ERRORS = [
    ("RuntimeError", "Expected timeout argument to be of typedatetime.timedelta"),
    ("AssertionError", "Cannot specify both init_method and store."),
    ("AssertionError", "world_size must be positive if using store"),
    ("AssertionError", "rank must be non-negative if using store"),
    ("ValueError", "Invalid backend: 'foo'"),
    ("ValueError", "TCP backend has been deprecated. Please use Gloo or MPI backend "
     "for collective operations on CPU tensors."),
    ("RuntimeError", "No rendezvous handler for foo://"),
    ("ValueError", "Error initializing torch.distributed using tcp:// rendezvous: port "
     "number missing"),
    ("ValueError", "Error initializing torch.distributed using tcp:// rendezvous: rank "
     "parameter missing"),
    ("ValueError", "Error initializing torch.distributed using tcp:// rendezvous: world "
     "size parameter missing"),
    ("ValueError", "Error initializing torch.distributed using file:// rendezvous: path "
     "missing"),
    ("ValueError", "Error initializing torch.distributed using file:// rendezvous: rank "
     "parameter missing"),
    ("AssertionError", "The url: file:///tmp/x?rank=0&world_size=1 has node-specific "
     "arguments(rank, world_size) already."),
    ("RuntimeError", "`url` must be a string. <class 'int'>: 3"),
    ("RuntimeError", "`rank` must be an integer. 0"),
    ("RuntimeError", "`world_size` must be an integer. 1.5"),
    ("RuntimeError", "Rendezvous handler for env:// already registered"),
] + [("ValueError", "Error initializing torch.distributed using env:// rendezvous: "
      "environment variable %s expected, but not set" % v)
     for v in ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "RANK"]] + [
    ("ValueError", "port must have value from 0 to 65535 but was 70000.")]


def _env_setter(monkeypatch):
    def setter(env):
        for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
            monkeypatch.delenv(k, raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
    return setter


def test_init_errors(monkeypatch):
    got = [_error(fn) for fn in _init_error_calls(dist, _env_setter(monkeypatch))]
    assert got == INIT_ERRORS
    assert not dist.is_initialized()


def test_init_errors_vs_torch(torch_ref, monkeypatch):
    import torch.distributed as tdist
    setter = _env_setter(monkeypatch)
    c = [_error(fn) for fn in _init_error_calls(dist, setter)]
    t = [_error(fn) for fn in _init_error_calls(tdist, setter)]
    assert c == t


def test_init_backends_not_built(monkeypatch):
    # a build with MPI has the backend (test_dist_mpi.py); here it is not built
    monkeypatch.setattr(dist.distributed_c10d, "_MPI_AVAILABLE", False)
    monkeypatch.setattr(dist.distributed_c10d, "_NCCL_AVAILABLE", False)
    store = dist.HashStore()
    assert _error(lambda: dist.init_process_group("mpi", store=store, rank=0,
                                                  world_size=1)) == (
        "RuntimeError", "Distributed package doesn't have MPI built in. MPI is only "
        "included if you build PyTorch from source on a host that has MPI installed.")
    assert _error(lambda: dist.init_process_group("nccl", store=store, rank=0,
                                                  world_size=1)) == (
        "RuntimeError", "Distributed package doesn't have NCCL built in")
    assert not dist.is_initialized()


def test_custom_rendezvous_handler():
    def handler(url, **kwargs):
        yield ("store", 3, 7, url, kwargs)
    dist.register_rendezvous_handler("ctorchtest", handler)
    try:
        assert next(dist.rendezvous("ctorchtest://h:1/p", rank=3, world_size=7,
                                    timeout=1)) == (
            "store", 3, 7, "ctorchtest://h:1/p?rank=3&world_size=7", {"timeout": 1})
    finally:
        del dist.rendezvous.__globals__["_rendezvous_handlers"]["ctorchtest"]


def _store_failures(dist, monkeypatch):
    """(error, seconds) of rank 0 on a taken MASTER_PORT, and of rank 1
    with no master."""
    out = []
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        for rank, seconds in (("0", 5), ("1", 1)):
            for k, v in dict(RANK=rank, WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                             MASTER_PORT=str(port)).items():
                monkeypatch.setenv(k, v)
            if rank == "1":
                s.close()
            t0 = time.monotonic()
            err = _error(lambda: dist.init_process_group("gloo",
                                                         timeout=T(seconds=seconds)))
            out.append((err[0], err[1].replace(str(port), "PORT"),
                        time.monotonic() - t0))
    return out


@needs_backend
def test_master_port_taken_and_no_master(monkeypatch):
    (kind0, msg0, t0), (kind1, msg1, t1) = _store_failures(dist, monkeypatch)
    assert (kind0, msg0) == (
        "RuntimeError", "The server socket has failed to listen on any local network "
        "address. The server socket has failed to bind to [::]:PORT (errno: 98 - Address "
        "already in use). The server socket has failed to bind to 0.0.0.0:PORT (errno: "
        "98 - Address already in use).")
    assert t0 < 0.5
    assert (kind1, msg1) == ("TimeoutError", "The client socket has timed out after 1s "
                             "while trying to connect to (127.0.0.1, PORT).")
    assert 0.9 < t1 < 2.0
    assert not dist.is_initialized()


@needs_backend
def test_master_port_taken_and_no_master_vs_torch(torch_ref, monkeypatch):
    import torch.distributed as tdist
    got = [e[:2] for e in _store_failures(dist, monkeypatch)]
    assert got == [e[:2] for e in _store_failures(tdist, monkeypatch)]


# ---- a world of one rank, in this process ----------------------------------------

@pytest.fixture
def world1():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1,
                            timeout=T(seconds=20))
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


@needs_backend
def test_world_of_one(world1):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
    assert dist.is_initialized() and dist.group.WORLD is dist.GroupMember.WORLD
    assert isinstance(dist.group.WORLD, dist.ProcessGroup)
    t = ctorch.tensor([1., 2.])
    assert dist.all_reduce(t) is None and t.tolist() == [1., 2.]
    w = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True)
    assert isinstance(w, dist.Work) and w.wait() is True and w.is_completed()
    assert w.is_success() and w.exception() is None
    assert [x.tolist() for x in w.get_future().wait()] == [[1., 2.]]
    assert w.get_future() is w.get_future()
    dist.broadcast(t, 0)
    dist.reduce(t, 0)
    out = [ctorch.zeros(2)]
    dist.all_gather(out, t)
    assert out[0].tolist() == [1., 2.]
    g = [ctorch.zeros(2)]
    dist.gather(t, g, dst=0)
    assert g[0].tolist() == [1., 2.]
    s = ctorch.zeros(2)
    dist.scatter(s, [ctorch.ones(2)], src=0)
    assert s.tolist() == [1., 1.]
    dist.barrier()
    assert dist.monitored_barrier() is None
    objs = [None]
    dist.all_gather_object(objs, {"a": (1, "b")})
    assert objs == [{"a": (1, "b")}]
    lst = [1, "x", None]
    dist.broadcast_object_list(lst)
    assert lst == [1, "x", None]
    out = [None]
    dist.scatter_object_list(out, [[3, 4]])
    assert out == [[3, 4]]
    out = [None]
    dist.gather_object("g", out)
    assert out == ["g"]
    assert _error(lambda: dist.send(t, 0)) == (
        "ValueError", "Invalid destination rank: destination rank should not be the "
        "same as the rank of the current process.")
    assert _error(lambda: dist.irecv(t, 0)) == (
        "ValueError", "Invalid source rank: source rank should not be the same as the "
        "rank of the current process.")
    assert _error(lambda: dist.all_reduce(t, op="sum"))[0] == "TypeError"
    assert _error(lambda: dist.init_process_group("gloo")) == (
        "RuntimeError", "trying to initialize the default process group twice!")
    g = dist.new_group([0])
    assert dist.get_rank(g) == 0 and dist.get_process_group_ranks(g) == [0]
    assert dist.get_group_rank(g, 0) == 0 and dist.get_global_rank(g, 0) == 0
    with pytest.warns(UserWarning, match="_get_global_rank is deprecated"):
        assert dist._get_global_rank(g, 0) == 0
    with pytest.warns(UserWarning, match="_get_group_rank is deprecated"):
        assert dist._get_group_rank(g, 0) == 0
    dist.all_reduce(t, group=g)
    with pytest.warns(UserWarning, match="all_reduce_coalesced will be deprecated"):
        fut = dist.all_reduce_coalesced([t, ctorch.ones(1)], async_op=True)
    assert [x.tolist() for x in fut.wait()] == [[1., 2.], [1.]]
    outs = [[ctorch.zeros(2), ctorch.zeros(1)]]     # one list per rank
    with pytest.warns(UserWarning, match="all_gather_coalesced will be deprecated"):
        dist.all_gather_coalesced(outs, [t, ctorch.ones(1) * 3])
    assert [[x.tolist() for x in o] for o in outs] == [[[1., 2.], [3.]]]
    dist.destroy_process_group(g)
    assert _error(lambda: dist.get_backend(g)) == ("AssertionError", "")
    assert _error(lambda: dist.destroy_process_group(g)) == (
        "RuntimeError", "Invalid process group specified")


@needs_backend
def test_destroy_and_init_again():
    for i in range(3):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1,
                                timeout=T(seconds=20))
        g = dist.new_group()
        t = ctorch.ones(1) * i
        dist.all_reduce(t, group=g)
        assert t.tolist() == [i]
        dist.destroy_process_group()
        assert not dist.is_initialized() and dist.group.WORLD is None
        assert _error(dist.get_rank) == NOT_INIT


@needs_backend
def test_non_member_group():
    NM = dist.GroupMember.NON_GROUP_MEMBER
    assert dist.get_rank(NM) == -1 and dist.get_world_size(NM) == -1
    dist.destroy_process_group(NM)     # returns quietly, as torch


# ---- futures -----------------------------------------------------------------------

def test_future_basics():
    f = Future()
    assert not f.done()
    f.set_result(5)
    assert f.done() and f.wait() == 5 and f.value() == 5
    assert _error(lambda: f.set_result(6)) == (
        "RuntimeError", "Attempting to mark a completed Future as complete again. Note "
        "that a Future can only be marked completed once.")
    g = f.then(lambda x: x.value() + 1)
    assert isinstance(g, Future) and g.wait() == 6
    e = Future()
    e.set_exception(ValueError("foo"))
    assert e.done() and _error(e.wait) == ("ValueError", "foo")
    assert _error(e.value) == ("ValueError", "foo")
    assert _error(lambda: Future().set_exception("x")) == (
        "AssertionError", "x is of type <class 'str'>, not an Exception.")
    assert Future[int] is not None


def test_future_callback_errors(capfd):
    f = Future()
    h = f.then(lambda x: 1 / 0)
    f.set_result(1)
    kind, msg = _error(h.wait)
    assert kind == "RuntimeError"
    assert msg.startswith("Got the following error when running the callback: "
                          "ZeroDivisionError: division by zero\n\nAt:\n")
    f2 = Future()
    f2.add_done_callback(lambda x: 1 / 0)
    f2.set_result(1)
    assert f2.value() == 1
    assert "ZeroDivisionError: division by zero" in capfd.readouterr().err
    # a callback added after completion runs inline
    seen = []
    f2.add_done_callback(lambda x: seen.append(x.value()))
    assert seen == [1]


def test_future_chain_and_threads():
    import threading
    f = Future()
    chained = f.then(lambda x: x.wait() * 2).then(lambda x: x.wait() + 1)
    threading.Timer(0.05, lambda: f.set_result(10)).start()
    assert chained.wait() == 21
    assert f.wait() == 10


def test_collect_all_and_wait_all():
    a, b = Future(), Future()
    c = collect_all([a, b])
    assert not c.done()
    a.set_result(1)
    assert not c.done()
    b.set_result(2)
    assert c.done() and [x.wait() for x in c.wait()] == [1, 2]
    assert wait_all([a, b]) == [1, 2]
    e = Future()
    e.set_exception(RuntimeError("bad"))
    assert _error(lambda: collect_all([a, e]).wait()) == ("RuntimeError", "bad")
    assert _error(lambda: wait_all([a, e])) == ("RuntimeError", "bad")
    assert collect_all([]).wait() == []
    assert _error(lambda: collect_all([1]))[0] == "TypeError"


def test_futures_vs_torch(torch_ref):
    def script(F, collect_all, wait_all):
        out = []
        f = F()
        out.append(f.done())
        f.set_result([1, 2])
        out += [f.done(), f.wait(), f.value(), f.then(lambda x: len(x.wait())).wait()]
        out.append(_error(lambda: f.set_result(1)))
        e = F()
        e.set_exception(KeyError("k"))
        out.append(_error(e.wait))
        out.append(_error(lambda: F().set_exception(3)))
        a, b = F(), F()
        c = collect_all([a, b])
        a.set_result("a")
        out.append(c.done())
        b.set_result("b")
        out.append([x.value() for x in c.wait()])
        out.append(wait_all([a, b]))
        h = a.then(lambda x: {}["missing"])
        out.append(_error(h.wait)[1].split("\n")[0])
        return out
    import torch.futures as tf
    assert script(Future, collect_all, wait_all) == \
        script(tf.Future, tf.collect_all, tf.wait_all)


# ---- several ranks ----------------------------------------------------------------

BASIC = r'''
import datetime, warnings
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r = dist.get_rank(); ws = dist.get_world_size()
def P(*a):
    print(*a, flush=True)
def E(name, fn):
    try:
        P(name, "->", repr(fn()))
    except Exception as e:
        P(name, "->", type(e).__name__, str(e))
P("init", dist.is_initialized(), r, ws, dist.get_backend(), dist.get_world_size(dist.group.WORLD))
for name in ["SUM", "PRODUCT", "MIN", "MAX"]:
    t = torch.tensor([1., -2., 3.5]) * (r + 1)
    dist.all_reduce(t, op=getattr(dist.ReduceOp, name))
    P(name, t)
for name in ["SUM", "BAND", "BOR", "BXOR", "MAX"]:
    t = torch.tensor([6, 5, 3], dtype=torch.int32) + r
    dist.all_reduce(t, getattr(dist.ReduceOp, name))
    P(name, t)
for dt in [torch.float64, torch.int64, torch.uint8, torch.int8, torch.float16]:
    t = torch.arange(5).to(dt) + r
    dist.all_reduce(t)
    P("dtype", t)
t = torch.zeros(0)
dist.all_reduce(t)
P("empty", t)
t = torch.arange(3) * (r + 1)
dist.broadcast(t, 1)
P("broadcast", t)
t = torch.ones(2, 2) * (r + 1)
dist.reduce(t, 1, op=dist.ReduceOp.SUM)
if r == 1:
    P("reduce", t)
out = [torch.zeros(2) for _ in range(ws)]
dist.all_gather(out, torch.ones(2) * r)
P("all_gather", out)
if r == 0:
    g = [torch.zeros(3, dtype=torch.int64) for _ in range(ws)]
    dist.gather(torch.arange(3) + 10 * r, g, dst=0)
    P("gather", g)
else:
    dist.gather(torch.arange(3) + 10 * r, dst=0)
o = torch.zeros(2)
if r == 1:
    dist.scatter(o, [torch.ones(2) * (i + 5) for i in range(ws)], src=1)
else:
    dist.scatter(o, src=1)
P("scatter", o)
if r == 0:
    dist.send(torch.tensor([1., 2.]), 1)
    reqs = [dist.isend(torch.tensor([3., 4.]), 1, tag=7),
            dist.isend(torch.tensor([5., 6.]), 1, tag=3)]
    for q in reqs:
        q.wait()
    x = torch.zeros(2)
    P("recv any", dist.recv(x), x)
else:
    x = torch.zeros(2)
    P("recv", dist.recv(x, 0), x)
    P("recv tag3", dist.recv(x, 0, tag=3), x)
    P("recv tag7", dist.recv(x, 0, tag=7), x)
    dist.send(torch.tensor([9., 9.]), 0)
req = dist.isend(torch.ones(3) * (r + 1), (r + 1) % ws)
x = torch.zeros(3)
req2 = dist.irecv(x, (r - 1) % ws)
P("isend", type(req).__name__, req.wait(), req2.wait(), x, req2.is_completed(), req2.is_success())
x = torch.zeros(2)
ops = [dist.P2POp(dist.isend, torch.arange(2.) + 2 * r, (r + 1) % ws),
       dist.P2POp(dist.irecv, x, (r - 1 + ws) % ws)]
for q in dist.batch_isend_irecv(ops):
    q.wait()
P("batch", x)
t = torch.ones(3) * (r + 1)
w = dist.all_reduce(t, async_op=True)
f = w.get_future()
f2 = f.then(lambda fut: fut.value()[0] * 10)
P("async", w.wait(), w.is_completed(), f.wait(), f2.wait(), t)
objs = [None] * ws
dist.all_gather_object(objs, {"rank": r, "l": [r] * (r + 1)})
P("all_gather_object", objs)
lst = ["a", 1, {"k": r}] if r == 0 else [None, None, None]
dist.broadcast_object_list(lst, src=0)
P("broadcast_object_list", lst)
out = [None] * ws if r == 1 else None
dist.gather_object(("x", r), out, dst=1)
P("gather_object", out)
out = [None]
dist.scatter_object_list(out, [{"to": i} for i in range(ws)] if r == 0 else None, src=0)
P("scatter_object_list", out)
P("barrier", dist.barrier())
P("monitored_barrier", dist.monitored_barrier(timeout=datetime.timedelta(seconds=10)))
t = torch.ones(2)
E("tensor list", lambda: dist.all_reduce([t]))
E("not tensor", lambda: dist.broadcast("x", 0))
E("send list", lambda: dist.send([t], 1 - r))
E("all_gather list", lambda: dist.all_gather(t, t))
E("all_gather dtypes", lambda: dist.all_gather([t.long(), t.long()], t))
E("gather non-dst list", lambda: dist.gather(t, [t, t], dst=1 - r))
E("gather dst no list", lambda: dist.gather(t, dst=r))
E("scatter src no list", lambda: dist.scatter(t, src=r))
E("scatter non-src list", lambda: dist.scatter(t, [t, t], src=1 - r))
E("reduce_scatter list", lambda: dist.reduce_scatter(t, t))
E("all_to_all list", lambda: dist.all_to_all(t, [t]))
E("P2POp op", lambda: dist.P2POp(dist.send, t, 1))
E("P2POp tensor", lambda: dist.P2POp(dist.isend, [t], 1))
E("batch list", lambda: dist.batch_isend_irecv([1]))
E("scatter_object_list out", lambda: dist.scatter_object_list([], [1], src=0))
E("init twice", lambda: dist.init_process_group("gloo"))
E("new_group too big", lambda: dist.new_group([0, 1, 2]))
E("new_group bad rank", lambda: dist.new_group([5]))
E("get_group_rank world", lambda: dist.get_group_rank(dist.group.WORLD, 5))
E("get_global_rank world", lambda: dist.get_global_rank(dist.group.WORLD, 5))
E("process_group_ranks", lambda: dist.get_process_group_ranks(dist.group.WORLD))
E("barrier device_ids", lambda: dist.barrier(device_ids=[0]))
E("isinstance pg", lambda: isinstance(dist.group.WORLD, dist.ProcessGroup))
E("rank_not_in_group", lambda: dist.distributed_c10d._rank_not_in_group(None))
dist.destroy_process_group()
P("destroyed", dist.is_initialized(), dist.group.WORLD)
E("rank after destroy", lambda: dist.get_rank())
E("all_reduce after destroy", lambda: dist.all_reduce(t))
'''

BASIC_EXPECTED = [
    """init True 0 2 gloo 2
SUM tensor([ 3.0000, -6.0000, 10.5000])
PRODUCT tensor([ 2.0000,  8.0000, 24.5000])
MIN tensor([ 1.0000, -4.0000,  3.5000])
MAX tensor([ 2., -2.,  7.])
SUM tensor([13, 11,  7], dtype=torch.int32)
BAND tensor([6, 4, 0], dtype=torch.int32)
BOR tensor([7, 7, 7], dtype=torch.int32)
BXOR tensor([1, 3, 7], dtype=torch.int32)
MAX tensor([7, 6, 4], dtype=torch.int32)
dtype tensor([1., 3., 5., 7., 9.], dtype=torch.float64)
dtype tensor([1, 3, 5, 7, 9])
dtype tensor([1, 3, 5, 7, 9], dtype=torch.uint8)
dtype tensor([1, 3, 5, 7, 9], dtype=torch.int8)
dtype tensor([1., 3., 5., 7., 9.], dtype=torch.float16)
empty tensor([])
broadcast tensor([0, 2, 4])
all_gather [tensor([0., 0.]), tensor([1., 1.])]
gather [tensor([0, 1, 2]), tensor([10, 11, 12])]
scatter tensor([5., 5.])
recv any 1 tensor([9., 9.])
isend Work True True tensor([2., 2., 2.]) True True
batch tensor([2., 3.])
async True True [tensor([3., 3., 3.])] tensor([30., 30., 30.]) tensor([3., 3., 3.])
all_gather_object [{'rank': 0, 'l': [0]}, {'rank': 1, 'l': [1, 1]}]
broadcast_object_list ['a', 1, {'k': 0}]
gather_object None
scatter_object_list [{'to': 0}]
barrier None
monitored_barrier None
tensor list -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
not tensor -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
send list -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
all_gather list -> RuntimeError Invalid function argument. Expected parameter `tensor_list` to be of type List[torch.Tensor].
all_gather dtypes -> RuntimeError Invalid usage of tensors with different dtypesFound torch.int64 and  torch.float32
gather non-dst list -> ValueError Argument ``gather_list`` must NOT be specified on non-destination ranks.
gather dst no list -> ValueError Argument ``gather_list`` must be specified on destination rank.
scatter src no list -> ValueError Argument ``scatter_list`` must be specified on source rank.
scatter non-src list -> ValueError Argument ``scatter_list`` must NOT be specified on non-source ranks.
reduce_scatter list -> RuntimeError Invalid function argument. Expected parameter `input_list` to be of type List[torch.Tensor].
all_to_all list -> RuntimeError Invalid function argument. Expected parameter `output_tensor_list` to be of type List[torch.Tensor].
P2POp op -> RuntimeError Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or ``torch.distributed.irecv``.
P2POp tensor -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
batch list -> RuntimeError Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.
scatter_object_list out -> RuntimeError Expected argument scatter_object_output_list to be a list of size at least 1.
init twice -> RuntimeError trying to initialize the default process group twice!
new_group too big -> RuntimeError the new group's world size should be less or equal to the world size set by init_process_group
new_group bad rank -> RuntimeError The new group's rank should be within the the world_size set by init_process_group
get_group_rank world -> 5
get_global_rank world -> 5
process_group_ranks -> [0, 1]
barrier device_ids -> RuntimeError Function argument device_ids not supported for the selected backend gloo
isinstance pg -> True
rank_not_in_group -> False
destroyed False None
rank after destroy -> RuntimeError Default process group has not been initialized, please make sure to call init_process_group.
all_reduce after destroy -> RuntimeError Default process group has not been initialized, please make sure to call init_process_group.
""",
    """init True 1 2 gloo 2
SUM tensor([ 3.0000, -6.0000, 10.5000])
PRODUCT tensor([ 2.0000,  8.0000, 24.5000])
MIN tensor([ 1.0000, -4.0000,  3.5000])
MAX tensor([ 2., -2.,  7.])
SUM tensor([13, 11,  7], dtype=torch.int32)
BAND tensor([6, 4, 0], dtype=torch.int32)
BOR tensor([7, 7, 7], dtype=torch.int32)
BXOR tensor([1, 3, 7], dtype=torch.int32)
MAX tensor([7, 6, 4], dtype=torch.int32)
dtype tensor([1., 3., 5., 7., 9.], dtype=torch.float64)
dtype tensor([1, 3, 5, 7, 9])
dtype tensor([1, 3, 5, 7, 9], dtype=torch.uint8)
dtype tensor([1, 3, 5, 7, 9], dtype=torch.int8)
dtype tensor([1., 3., 5., 7., 9.], dtype=torch.float16)
empty tensor([])
broadcast tensor([0, 2, 4])
reduce tensor([[3., 3.],
        [3., 3.]])
all_gather [tensor([0., 0.]), tensor([1., 1.])]
scatter tensor([6., 6.])
recv 0 tensor([1., 2.])
recv tag3 0 tensor([5., 6.])
recv tag7 0 tensor([3., 4.])
isend Work True True tensor([1., 1., 1.]) True True
batch tensor([0., 1.])
async True True [tensor([3., 3., 3.])] tensor([30., 30., 30.]) tensor([3., 3., 3.])
all_gather_object [{'rank': 0, 'l': [0]}, {'rank': 1, 'l': [1, 1]}]
broadcast_object_list ['a', 1, {'k': 0}]
gather_object [('x', 0), ('x', 1)]
scatter_object_list [{'to': 1}]
barrier None
monitored_barrier None
tensor list -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
not tensor -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
send list -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
all_gather list -> RuntimeError Invalid function argument. Expected parameter `tensor_list` to be of type List[torch.Tensor].
all_gather dtypes -> RuntimeError Invalid usage of tensors with different dtypesFound torch.int64 and  torch.float32
gather non-dst list -> ValueError Argument ``gather_list`` must NOT be specified on non-destination ranks.
gather dst no list -> ValueError Argument ``gather_list`` must be specified on destination rank.
scatter src no list -> ValueError Argument ``scatter_list`` must be specified on source rank.
scatter non-src list -> ValueError Argument ``scatter_list`` must NOT be specified on non-source ranks.
reduce_scatter list -> RuntimeError Invalid function argument. Expected parameter `input_list` to be of type List[torch.Tensor].
all_to_all list -> RuntimeError Invalid function argument. Expected parameter `output_tensor_list` to be of type List[torch.Tensor].
P2POp op -> RuntimeError Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or ``torch.distributed.irecv``.
P2POp tensor -> RuntimeError Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.
batch list -> RuntimeError Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.
scatter_object_list out -> RuntimeError Expected argument scatter_object_output_list to be a list of size at least 1.
init twice -> RuntimeError trying to initialize the default process group twice!
new_group too big -> RuntimeError the new group's world size should be less or equal to the world size set by init_process_group
new_group bad rank -> RuntimeError The new group's rank should be within the the world_size set by init_process_group
get_group_rank world -> 5
get_global_rank world -> 5
process_group_ranks -> [0, 1]
barrier device_ids -> RuntimeError Function argument device_ids not supported for the selected backend gloo
isinstance pg -> True
rank_not_in_group -> False
destroyed False None
rank after destroy -> RuntimeError Default process group has not been initialized, please make sure to call init_process_group.
all_reduce after destroy -> RuntimeError Default process group has not been initialized, please make sure to call init_process_group.
"""]

GROUPS = r'''
import datetime, warnings
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r = dist.get_rank(); ws = dist.get_world_size()
def P(*a):
    print(*a, flush=True)
def E(name, fn):
    try:
        P(name, "->", repr(fn()))
    except Exception as e:
        P(name, "->", type(e).__name__, str(e))
g = dist.new_group([2, 0])
member = g is not dist.GroupMember.NON_GROUP_MEMBER
P("member", member, dist.get_rank(g), dist.get_world_size(g))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = torch.ones(2) * (r + 1)
    P("all_reduce", dist.all_reduce(t, group=g), t)
    t = torch.arange(3) + r
    P("broadcast", dist.broadcast(t, 2, group=g), t)
    t = torch.ones(2) * (r + 1)
    P("reduce", dist.reduce(t, 2, group=g), t if r == 2 else None)
    out = [torch.zeros(1) for _ in range(2)]
    P("all_gather", dist.all_gather(out, torch.ones(1) * r, group=g), out)
    if r == 0:
        P("send", dist.send(torch.ones(1) * 42, 2, group=g))
    elif r == 2:
        x = torch.zeros(1)
        P("recv", dist.recv(x, 0, group=g), x)
    else:
        P("send", dist.send(torch.ones(1), 0, group=g))
        P("recv", dist.recv(torch.ones(1), 0, group=g))
    if r == 2:
        P("isend", dist.isend(torch.ones(1) * 7, 0, group=g).wait())
    elif r == 0:
        x = torch.zeros(1)
        P("recv any", dist.recv(x, group=g), x)
    else:
        P("isend", dist.isend(torch.ones(1), 0, group=g))
    P("barrier", dist.barrier(group=g))
    objs = [None, None]
    P("all_gather_object", dist.all_gather_object(objs, r, group=g), objs)
    P("monitored", dist.monitored_barrier(group=g, timeout=datetime.timedelta(seconds=10)))
for w in caught:
    P("warning", w.category.__name__, str(w.message))
if member:
    P("group ranks", dist.get_process_group_ranks(g), dist.get_group_rank(g, 2),
      dist.get_global_rank(g, 1), dist.get_backend(g))
    E("group rank of non-member", lambda: dist.get_group_rank(g, 1) and None)
    E("global rank out of group", lambda: dist.get_global_rank(g, 5) and None)
    E("broadcast from non-member", lambda: dist.broadcast(torch.ones(1), 1, group=g) and None)
else:
    E("get_backend", lambda: dist.get_backend(g))
g2 = dist.new_group()
t = torch.ones(1) * r
dist.all_reduce(t, group=g2)
P("all ranks group", t, dist.get_rank(g2), dist.get_world_size(g2))
g3 = dist.new_group([1])
t = torch.ones(1) * 5
P("single", dist.all_reduce(t, group=g3) if r == 1 else None, t, dist.get_rank(g3))
dist.destroy_process_group(g3)
P("destroyed g3", dist.get_rank(g2))
dist.barrier()
dist.destroy_process_group()
P("end", dist.is_initialized())
'''

GROUPS_EXPECTED = [
    """member True 0 2
all_reduce None tensor([4., 4.])
broadcast None tensor([2, 3, 4])
reduce None None
all_gather None [tensor([0.]), tensor([2.])]
send None
recv any 2 tensor([7.])
barrier None
all_gather_object None [0, 2]
monitored None
group ranks [0, 2] 1 2 gloo
group rank of non-member -> RuntimeError Global rank 1 is not part of group <object>
global rank out of group -> RuntimeError Group rank 5 is not part of group <object>
broadcast from non-member -> RuntimeError Global rank 1 is not part of group <object>
all ranks group tensor([3.]) 0 3
single None tensor([5.]) -1
destroyed g3 0
end False
""",
    """member False -1 -1
all_reduce None tensor([2., 2.])
broadcast None tensor([1, 2, 3])
reduce None None
all_gather None [tensor([0.]), tensor([0.])]
send None
recv -1
isend None
barrier None
all_gather_object None [None, None]
monitored None
warning UserWarning Running all_reduce on global rank 1 which does not belong to the given group.
warning UserWarning Running broadcast on global rank 1 which does not belong to the given group.
warning UserWarning Running reduce on global rank 1 which does not belong to the given group.
warning UserWarning Running all_gather on global rank 1 which does not belong to the given group.
warning UserWarning Running send on global rank 1 which does not belong to the given group.
warning UserWarning Running recv on global rank 1 which does not belong to the given group.
warning UserWarning Running isend on global rank 1 which does not belong to the given group.
warning UserWarning Running barrier on global rank 1 which does not belong to the given group.
warning UserWarning Running all_gather_object on global rank 1 which does not belong to the given group.
warning UserWarning Running monitored_barrier on global rank 1 which does not belong to the given group.
get_backend -> RuntimeError Invalid process group specified
all ranks group tensor([3.]) 1 3
single None tensor([5.]) 0
destroyed g3 1
end False
""",
    """member True 1 2
all_reduce None tensor([4., 4.])
broadcast None tensor([2, 3, 4])
reduce None tensor([4., 4.])
all_gather None [tensor([0.]), tensor([2.])]
recv 0 tensor([42.])
isend True
barrier None
all_gather_object None [0, 2]
monitored None
group ranks [0, 2] 1 2 gloo
group rank of non-member -> RuntimeError Global rank 1 is not part of group <object>
global rank out of group -> RuntimeError Group rank 5 is not part of group <object>
broadcast from non-member -> RuntimeError Global rank 1 is not part of group <object>
all ranks group tensor([3.]) 2 3
single None tensor([5.]) -1
destroyed g3 2
end False
"""]

INIT = r'''
import datetime, os
r = int(os.environ["RANK"]); ws = int(os.environ["WORLD_SIZE"])
env = {k: os.environ.pop(k) for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
T = datetime.timedelta(seconds=30)
def P(*a):
    print(*a, flush=True)
def check(name):
    t = torch.ones(2) * (dist.get_rank() + 1)
    dist.all_reduce(t)
    P(name, dist.get_rank(), dist.get_world_size(), t)
    dist.destroy_process_group()
dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%s" % os.environ["PORT_B"],
                        rank=r, world_size=ws, timeout=T)
check("tcp")
dist.init_process_group(backend="gloo", init_method="file://%s?rank=%d&world_size=%d"
                        % (os.environ["FILE_A"], r, ws), timeout=T)
check("file url")
dist.init_process_group("GLOO", init_method="file://" + os.environ["FILE_B"], rank=r,
                        world_size=ws, timeout=T)
check("file")
store = dist.TCPStore("127.0.0.1", int(os.environ["PORT_C"]), ws, r == 0, T)
dist.init_process_group(dist.Backend.GLOO, store=store, rank=r, world_size=ws, timeout=T)
check("store")
os.environ.update(env)
dist.init_process_group("gloo", timeout=T)
check("env")
os.environ["MASTER_PORT"] = os.environ["PORT_D"]
dist.init_process_group("gloo", init_method="env://?rank=%d" % r, timeout=T)
check("env url rank")
'''

INIT_EXPECTED = [
    "".join("%s %d 2 tensor([3., 3.])\n" % (name, r) for name in
            ["tcp", "file url", "file", "store", "env", "env url rank"])
    for r in range(2)]


@needs_backend
def test_basic_two_ranks():
    assert outputs(run_ranks(BASIC, 2)) == BASIC_EXPECTED


@needs_backend
def test_basic_two_ranks_vs_torch(torch_ref):
    assert outputs(run_ranks(BASIC, 2)) == outputs(run_ranks(BASIC, 2, impl="torch"))


@needs_backend
def test_groups_three_ranks():
    assert outputs(run_ranks(GROUPS, 3)) == GROUPS_EXPECTED


@needs_backend
def test_groups_three_ranks_vs_torch(torch_ref):
    assert outputs(run_ranks(GROUPS, 3)) == outputs(run_ranks(GROUPS, 3, impl="torch"))


@needs_backend
def test_init_methods():
    assert outputs(run_ranks(INIT, 2)) == INIT_EXPECTED


BEYOND_TORCH = r'''
import datetime, os
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r = dist.get_rank(); ws = dist.get_world_size()
def P(*a):
    print(*a, flush=True)
def E(name, fn):
    try:
        P(name, "->", repr(fn()))
    except Exception as e:
        P(name, "->", type(e).__name__, str(e))
t = torch.arange(12.).reshape(3, 4)
dist.all_reduce(t[:, 1])
P("noncontig", t)
t = (torch.arange(6).reshape(2, 3) + 10 * r).t()
dist.broadcast(t, 1)
P("noncontig broadcast", t)
out = [torch.zeros(4, 2)[::2].t() for _ in range(ws)]
dist.all_gather(out, torch.arange(4.).reshape(2, 2).t() + r)
P("noncontig gather", out)
out = torch.zeros(2)
dist.reduce_scatter(out, [torch.ones(2) * (r + 1) * (i + 1) for i in range(ws)])
P("reduce_scatter", out)
out = torch.zeros(2)
dist.reduce_scatter_tensor(out, torch.arange(4.) + 10 * r)
P("reduce_scatter_tensor", out)
out = torch.zeros(2)
dist.reduce_scatter_tensor(out, (torch.arange(4.) + 10 * r).reshape(2, 2), op=dist.ReduceOp.MAX)
P("reduce_scatter_tensor stacked", out)
out = torch.zeros(4)
dist.all_gather_into_tensor(out, torch.ones(2) * r)
P("all_gather_into_tensor", out)
out = torch.zeros(2, 2, dtype=torch.int64)
dist.all_gather_into_tensor(out, torch.ones(2, dtype=torch.int64) * r)
P("all_gather_into_tensor stacked", out)
out = torch.zeros(4)
with __import__("warnings").catch_warnings(record=True):
    dist._all_gather_base(out, torch.ones(2) * (r + 1))
P("_all_gather_base", out)
outs = [torch.zeros(1, dtype=torch.int64) for _ in range(ws)]
dist.all_to_all(outs, [torch.tensor([10 * r + i]) for i in range(ws)])
P("all_to_all", outs)
out = torch.zeros(4, dtype=torch.int64)
dist.all_to_all_single(out, torch.arange(4) + 10 * r)
P("all_to_all_single", out)
if r == 0:
    out = torch.zeros(4, dtype=torch.int64)
    dist.all_to_all_single(out, torch.tensor([0, 1, 2]), [1, 3], [1, 2])
else:
    out = torch.zeros(3, dtype=torch.int64)
    dist.all_to_all_single(out, torch.tensor([10, 11, 12, 13]), [2, 1], [3, 1])
P("all_to_all_single splits", out)
E("avg", lambda: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.AVG))
t = torch.tensor([1., 2.], dtype=torch.bfloat16) * (r + 1)
dist.all_reduce(t)
P("bfloat16", t)
w = dist.reduce_scatter_tensor(torch.zeros(1), torch.ones(2), async_op=True)
P("async reduce_scatter", w.get_future().wait())
works = [dist.all_reduce(torch.ones(1) * i, async_op=True) for i in range(3)]
fut = torch.futures.collect_all([w.get_future() for w in works])
P("collect_all", [f.value()[0] for f in fut.wait()])
P("wait_all", torch.futures.wait_all([w.get_future() for w in works]))
E("send to self", lambda: dist.send(torch.ones(1), r))
E("isend to self", lambda: dist.isend(torch.ones(1), r))
E("recv from self", lambda: dist.recv(torch.ones(1), r))
E("band float", lambda: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND))
E("op type", lambda: dist.all_reduce(torch.ones(2), op=0))
dist.destroy_process_group()
# a new init on the same port works once the last one is destroyed
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
t = torch.ones(1)
dist.all_reduce(t)
P("again", t)
'''

BEYOND_TORCH_EXPECTED = [
    """noncontig tensor([[ 0.,  2.,  2.,  3.],
        [ 4., 10.,  6.,  7.],
        [ 8., 18., 10., 11.]])
noncontig broadcast tensor([[10, 13],
        [11, 14],
        [12, 15]])
noncontig gather [tensor([[0., 2.],
        [1., 3.]]), tensor([[1., 3.],
        [2., 4.]])]
reduce_scatter tensor([3., 3.])
reduce_scatter_tensor tensor([10., 12.])
reduce_scatter_tensor stacked tensor([10., 11.])
all_gather_into_tensor tensor([0., 0., 1., 1.])
all_gather_into_tensor stacked tensor([[0, 0],
        [1, 1]])
_all_gather_base tensor([1., 1., 2., 2.])
all_to_all [tensor([0]), tensor([10])]
all_to_all_single tensor([ 0,  1, 10, 11])
all_to_all_single splits tensor([ 0, 10, 11, 12])
avg -> RuntimeError Cannot use ReduceOp.AVG with Gloo
bfloat16 tensor([3., 6.], dtype=torch.bfloat16)
async reduce_scatter [tensor([2.])]
collect_all [tensor([0.]), tensor([2.]), tensor([4.])]
wait_all [[tensor([0.])], [tensor([2.])], [tensor([4.])]]
send to self -> ValueError Invalid destination rank: destination rank should not be the same as the rank of the current process.
isend to self -> ValueError Invalid destination rank: destination rank should not be the same as the rank of the current process.
recv from self -> ValueError Invalid source rank: source rank should not be the same as the rank of the current process.
band float -> RuntimeError Cannot use ReduceOp.BAND with non-integral dtype
op type -> TypeError all_reduce(): incompatible function arguments: op must be a torch.distributed.ReduceOp, not int
again tensor([2.])
""",
    """noncontig tensor([[ 0.,  2.,  2.,  3.],
        [ 4., 10.,  6.,  7.],
        [ 8., 18., 10., 11.]])
noncontig broadcast tensor([[10, 13],
        [11, 14],
        [12, 15]])
noncontig gather [tensor([[0., 2.],
        [1., 3.]]), tensor([[1., 3.],
        [2., 4.]])]
reduce_scatter tensor([6., 6.])
reduce_scatter_tensor tensor([14., 16.])
reduce_scatter_tensor stacked tensor([12., 13.])
all_gather_into_tensor tensor([0., 0., 1., 1.])
all_gather_into_tensor stacked tensor([[0, 0],
        [1, 1]])
_all_gather_base tensor([1., 1., 2., 2.])
all_to_all [tensor([1]), tensor([11])]
all_to_all_single tensor([ 2,  3, 12, 13])
all_to_all_single splits tensor([ 1,  2, 13])
avg -> RuntimeError Cannot use ReduceOp.AVG with Gloo
bfloat16 tensor([3., 6.], dtype=torch.bfloat16)
async reduce_scatter [tensor([2.])]
collect_all [tensor([0.]), tensor([2.]), tensor([4.])]
wait_all [[tensor([0.])], [tensor([2.])], [tensor([4.])]]
send to self -> ValueError Invalid destination rank: destination rank should not be the same as the rank of the current process.
isend to self -> ValueError Invalid destination rank: destination rank should not be the same as the rank of the current process.
recv from self -> ValueError Invalid source rank: source rank should not be the same as the rank of the current process.
band float -> RuntimeError Cannot use ReduceOp.BAND with non-integral dtype
op type -> TypeError all_reduce(): incompatible function arguments: op must be a torch.distributed.ReduceOp, not int
again tensor([2.])
"""]


@needs_backend
def test_operations_beyond_torch_gloo():
    """Operations PyTorch 1.13's gloo lacks (reduce_scatter, all_to_all,
    the tensor forms, AVG, bfloat16), futures of them, the self checks, and
    a second init on the same port after destroy."""
    assert outputs(run_ranks(BEYOND_TORCH, 2)) == BEYOND_TORCH_EXPECTED


MISSING = r'''
import datetime, time
t0 = time.monotonic()
try:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=2))
    print("joined")
except RuntimeError as e:
    print("error:", e)
print("elapsed %.1f" % (time.monotonic() - t0))
'''


@needs_backend
@pytest.mark.parametrize("ranks,missing", [([0], "ranks 1, 2"), ([0, 2], "rank 1")])
def test_missing_rank_is_named(ranks, missing):
    for rank, out in zip(ranks, outputs(run_ranks(MISSING, 3, ranks=ranks))):
        first, elapsed = out.splitlines()
        assert first.startswith("error: Timed out initializing process group in store "
                                "based barrier on rank: "), out
        assert first.endswith("(world_size=3, worker_count=%d, timeout=0:00:02): %s "
                              "never joined" % (3 - len(missing.split(",")), missing)), out
        # rank 0 raises within timeout + 1 s and takes the others with it (a
        # client may have started later, or waited for rank 0's store)
        seconds = float(elapsed.split()[1])
        assert 1.9 <= seconds <= 3.0 if rank == 0 else seconds <= 5.0, out


DUPLICATE = r'''
import datetime, time
try:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
    t = torch.ones(1)
    dist.all_reduce(t)
    print("ok", t)
    # rank 0 hosts the store: let a late third process still reach it
    time.sleep(3)
    dist.destroy_process_group()
except RuntimeError as e:
    print("error:", e)
'''


@needs_backend
def test_rank_claimed_twice():
    outs = outputs(run_ranks(DUPLICATE, 2, ranks=[0, 1, 1], timeout=40))
    errors = [o for o in outs if o.startswith("error:")]
    assert outs[1].startswith("error:") or outs[2].startswith("error:"), outs
    for o in errors:
        assert re.match(r"error: init_process_group: rank 1 is claimed by two processes "
                        r"\(pid \d+ on \S+ and pid \d+ on \S+\); every process needs its "
                        r"own rank in \[0, 2\)\n$", o), outs
    oks = [o for o in outs if not o.startswith("error:")]
    assert oks in ([], ["ok tensor([2.])\n"] * 2), outs


MONITORED = r'''
import datetime, time
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r = dist.get_rank()
T1 = datetime.timedelta(seconds=1)
def E(name, fn):
    t0 = time.monotonic()
    try:
        print(name, "->", repr(fn()), flush=True)
    except RuntimeError as e:
        print(name, "->", str(e).split("\n")[0], "%.2f" % (time.monotonic() - t0), flush=True)
if r != 2:
    E("fail fast", lambda: dist.monitored_barrier(timeout=T1))
else:
    time.sleep(1.2)
dist.barrier()
if r == 0:
    E("wait all", lambda: dist.monitored_barrier(timeout=T1, wait_all_ranks=True))
dist.barrier()
t = torch.ones(1)
dist.all_reduce(t)
print("usable", t)
'''


def _timed(line):
    """(text, seconds) of a line ending in an elapsed time."""
    text, _, secs = line.rpartition(" ")
    return text, float(secs)


@needs_backend
def test_monitored_barrier_names_ranks():
    outs = outputs(run_ranks(MONITORED, 3))
    lines = [o.splitlines() for o in outs]
    got = [_timed(lines[0][0]), _timed(lines[1][0]), _timed(lines[0][1])]
    assert [text for text, _ in got] == [
        "fail fast -> [Rank 0]: Rank 2 failed to pass monitoredBarrier in 1000 ms",
        "fail fast -> Rank 1 successfully reached monitoredBarrier, but received errors "
        "while waiting for send/recv from rank 0. Please check rank 0 logs for faulty "
        "rank.",
        "wait all -> [Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 1000 ms",
    ], outs
    assert all(0.9 <= secs <= 1.8 for _, secs in got), outs
    assert [ln[-1] for ln in lines] == ["usable tensor([3.])"] * 3


WORK_TIMEOUT = r'''
import datetime, time
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r = dist.get_rank()
if r == 0:
    x = torch.zeros(1)
    w = dist.irecv(x, 1)
    t0 = time.monotonic()
    try:
        w.wait(datetime.timedelta(seconds=0.5))
        print("no timeout")
    except RuntimeError:
        print("timed out %.2f" % (time.monotonic() - t0), w.is_completed())
    dist.barrier()
    print("late", w.wait(), x)
else:
    dist.barrier()
    dist.send(torch.ones(1) * 3, 0)
t = torch.ones(1)
dist.all_reduce(t)
print("usable", t)
'''


@needs_backend
def test_work_wait_timeout():
    out0, out1 = outputs(run_ranks(WORK_TIMEOUT, 2))
    first, rest = out0.split("\n", 1)
    assert first.startswith("timed out ") and first.endswith(" False"), out0
    assert 0.45 <= float(first.split()[2]) <= 1.2, out0
    assert rest == "late True tensor([3.])\nusable tensor([2.])\n"
    assert out1 == "usable tensor([2.])\n"


@needs_backend
def test_import_under_ctorchrun():
    """`import torch.distributed` is ctorch.distributed under ctorchrun, and
    torch.distributed / torch.futures are reachable as attributes."""
    code = ("import torch, sys\n"
            "import torch.distributed as dist\n"
            "print(dist.__name__, dist is sys.modules['ctorch.distributed'])\n"
            "print(torch.distributed is dist, torch.futures.Future.__module__)\n"
            "print(type(dist.ReduceOp.SUM), dist.Work.__module__)\n"
            "from torch.distributed import ReduceOp, init_process_group\n"
            "import torch.distributed.distributed_c10d as c10d\n"
            "print(c10d.ReduceOp is ReduceOp, c10d.__name__)\n")
    env = {k: v for k, v in os.environ.items() if k not in helpers._RANK_ENV_DROP}
    out = subprocess.run([RUN, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "ctorch.distributed True\n"
        "True torch.futures\n"
        "<class 'torch.distributed.distributed_c10d.ReduceOp'> "
        "torch.distributed.distributed_c10d\n"
        "True ctorch.distributed.distributed_c10d\n")
