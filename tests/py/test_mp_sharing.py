"""Tensors across processes through shared memory (ctorch.multiprocessing):
share_memory_ / is_shared, Queue / Pipe / Pool / Process arguments under
fork and spawn, views keeping their geometry, storages staying shared, the
file_system strategy, and no segment left in /dev/shm afterwards.

Children run the functions at the top of this module (spawn children import
them by name).  A process that sends tensors stays alive until they are
received, as with torch: a descriptor is handed over by its sender."""
import os
import pickle
import signal
import subprocess
import sys
import textwrap

import pytest

import ctorch
import ctorch.multiprocessing as cmp

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "bin", "ctorchrun")
METHODS = ["fork", "spawn"]
ALL_DTYPES = [ctorch.bool, ctorch.uint8, ctorch.int8, ctorch.int16, ctorch.int32,
              ctorch.int64, ctorch.float16, ctorch.bfloat16, ctorch.float32,
              ctorch.float64]


def _sample(dtype):
    """A 2x3 tensor of each dtype with distinct values."""
    return ctorch.arange(6).reshape(2, 3).to(dtype) if dtype != ctorch.bool else \
        ctorch.tensor([[True, False, True], [False, True, True]])


# ---- what the children run ----------------------------------------------

def _echo(inq, outq, done):
    """Send back what arrives, adding 1 in place to the tensors that allow
    it, until None."""
    while True:
        item = inq.get()
        if item is None:
            break
        for t in item if isinstance(item, (list, tuple)) else [item]:
            if isinstance(t, ctorch.Tensor) and t.dtype != ctorch.bool and t.numel() \
                    and not t.is_quantized and not t.requires_grad:
                t.add_(1)
        outq.put(item)
    done.wait()


def _write_parts(parts, whole, out):
    """The tutorial's pattern: a tuple of slices as a Process argument."""
    for i, p in enumerate(parts):
        p.fill_(i)
    whole[0] = -7
    out.put([p.is_shared() for p in parts])


def _pipe_child(conn):
    t = conn.recv()
    t.mul_(3)
    conn.send(ctorch.full((2,), 4.0))
    conn.recv()


def _double(t):
    return t * 2


def _same_storage(a, out, done):
    """Two views arriving in separate messages over one storage: a write
    through one shows through the other."""
    x = a.get()
    y = a.get()
    x[0] = 42
    out.put((y[0].item(), x.untyped_storage() == y.untyped_storage()))
    done.wait()


def _grad_child(q, out, done):
    t = q.get()
    out.put((type(t).__name__, t.requires_grad, t.is_leaf, t.tolist()))
    done.wait()


# ---- share_memory_ -------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_share_memory_keeps_values_and_views(dtype):
    t = _sample(dtype)
    view = t[:, 1:]
    before = t.tolist()
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and view.is_shared() and t.storage().is_shared()
    assert t.tolist() == before
    assert view.tolist() == [r[1:] for r in before]
    t.share_memory_()       # a second call does nothing
    assert t.tolist() == before


def test_share_memory_small_empty_and_zero_dim():
    for t in (ctorch.tensor(3.5), ctorch.empty(0), ctorch.zeros(0, 4), ctorch.ones(1)):
        before = t.tolist()
        t.share_memory_()
        assert t.is_shared() and t.tolist() == before


def test_shared_storage_cannot_resize():
    t = ctorch.zeros(4).share_memory_()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.resize_(100)


def test_storage_and_module_share_memory():
    s = ctorch.arange(4.0).untyped_storage()
    assert s.share_memory_() is s and s.is_shared()
    ts = ctorch.arange(4.0).storage()
    assert ts.share_memory_() is ts and ts.is_shared()
    m = ctorch.nn.Linear(3, 2)
    m.register_buffer("b", ctorch.zeros(2))
    assert m.share_memory() is m
    assert all(p.is_shared() for p in m.parameters()) and m.b.is_shared()


def test_sharing_strategies():
    assert cmp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert cmp.get_sharing_strategy() == "file_descriptor"
    try:
        cmp.set_sharing_strategy("file_system")
        assert cmp.get_sharing_strategy() == "file_system"
        t = ctorch.zeros(3).share_memory_()
        assert t.untyped_storage()._ref._shm_handle().startswith("/ctorch_")
    finally:
        cmp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        cmp.set_sharing_strategy("nope")


def test_multiprocessing_names_reexported():
    import multiprocessing
    for name in multiprocessing.__all__:
        assert getattr(cmp, name) is getattr(multiprocessing, name)
    for name in ("Process", "Queue", "SimpleQueue", "Pool", "Event", "Barrier",
                 "Manager", "get_context", "set_start_method", "get_start_method",
                 "cpu_count", "spawn", "start_processes"):
        assert name in cmp.__all__


def test_pickling_for_files_is_unchanged():
    """Plain pickle (not ForkingPickler) copies the data, as torch does."""
    t = ctorch.arange(5.0)
    u = pickle.loads(pickle.dumps(t))
    assert u.tolist() == t.tolist() and not u.is_shared() and not t.is_shared()


def test_non_leaf_requiring_grad_refused():
    from multiprocessing.reduction import ForkingPickler
    x = ctorch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor "
                       "which requires_grad"):
        ForkingPickler.dumps(x)


# ---- across processes ----------------------------------------------------

class Echo:
    """A child echoing through queues, kept for a test."""

    def __init__(self, method):
        ctx = cmp.get_context(method)
        self.inq, self.outq, self.done = ctx.Queue(), ctx.Queue(), ctx.Event()
        self.p = ctx.Process(target=_echo, args=(self.inq, self.outq, self.done))
        self.p.start()

    def trip(self, item):
        self.inq.put(item)
        return self.outq.get(timeout=60)

    def close(self):
        self.inq.put(None)
        self.done.set()
        self.p.join(60)
        assert self.p.exitcode == 0


@pytest.fixture(scope="module", params=METHODS)
def echo(request):
    e = Echo(request.param)
    yield e
    e.close()


def test_queue_round_trip_every_dtype(echo):
    sent = [_sample(d) for d in ALL_DTYPES]
    expect = [(t + 1 if t.dtype != ctorch.bool else t).tolist() for t in sent]
    back = echo.trip(sent)
    for t, b, e in zip(sent, back, expect):
        assert b.dtype == t.dtype and b.tolist() == e
        assert t.tolist() == e          # the child's write is seen here
        assert b.untyped_storage() == t.untyped_storage()   # home again: one storage


def test_queue_views_keep_geometry_and_sharing(echo):
    base = ctorch.arange(24.0).reshape(4, 6)
    views = [base[1:3, ::2], base.t(), base[3], base[2, 5]]
    back = echo.trip(views)     # one storage, sent once, written four times
    for v, b in zip(views, back):
        assert b.shape == v.shape and b.stride() == v.stride()
        assert b.storage_offset() == v.storage_offset()
        assert b.tolist() == v.tolist()
    expect = ctorch.arange(24.0).reshape(4, 6)
    for rows, cols in ((slice(1, 3), slice(None, None, 2)), (slice(None), slice(None)),
                       (3, slice(None)), (2, 5)):
        expect[rows, cols] += 1
    assert base.tolist() == expect.tolist()


def test_queue_zero_dim_empty_and_quantized(echo):
    z, e = ctorch.tensor(2.5), ctorch.empty(0, 3)
    q = ctorch.quantize_per_tensor(ctorch.tensor([0.5, 1.0]), 0.5, 2, ctorch.quint8)
    bz, be, bq = echo.trip([z, e, q])
    assert bz.dim() == 0 and bz.item() == 3.5 and z.item() == 3.5
    assert be.shape == (0, 3) and be.is_shared()
    assert bq.q_scale() == 0.5 and bq.q_zero_point() == 2
    assert bq.dequantize().tolist() == q.dequantize().tolist()


def test_requires_grad_and_parameter_cross(echo):
    t = ctorch.ones(2, requires_grad=True)
    p = ctorch.nn.Parameter(ctorch.zeros(2))
    bt, bp = echo.trip([t, p])
    assert bt.requires_grad and bt.is_leaf
    assert type(bp) is ctorch.nn.Parameter and bp.requires_grad


@pytest.mark.parametrize("method", METHODS)
def test_storage_stays_shared_between_messages(method):
    ctx = cmp.get_context(method)
    a, out, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=_same_storage, args=(a, out, done))
    p.start()
    base = ctorch.zeros(4)
    a.put(base[:2])
    a.put(base[:3])
    seen, same = out.get(timeout=60)
    done.set()
    p.join(60)
    assert (seen, same) == (42.0, True)
    assert base.tolist() == [42.0, 0.0, 0.0, 0.0]


def test_spawn_tuple_of_slices_as_process_args():
    """../shared/tutorials/spawn_tensor_slices.py's pattern, where PyTorch
    1.13 dies with 'bad value(s) in fds_to_keep'."""
    ctx = cmp.get_context("spawn")
    idx = ctorch.arange(133)
    parts = ctorch.split(idx, 16)
    out = ctx.Queue()
    p = ctx.Process(target=_write_parts, args=(parts, idx, out))
    p.start()
    flags = out.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0 and flags == [True] * len(parts)
    expect = [i // 16 for i in range(133)]
    expect[0] = -7
    assert idx.tolist() == expect


@pytest.mark.parametrize("method", METHODS)
def test_pipe(method):
    ctx = cmp.get_context(method)
    a, b = ctx.Pipe()
    p = ctx.Process(target=_pipe_child, args=(b,))
    p.start()
    t = ctorch.ones(3)
    a.send(t)
    got = a.recv()
    a.send(None)
    p.join(60)
    assert t.tolist() == [3.0] * 3 and got.tolist() == [4.0, 4.0]


@pytest.mark.parametrize("method", METHODS)
def test_pool_map(method):
    with cmp.get_context(method).Pool(2) as pool:
        out = pool.map(_double, [ctorch.arange(3) + i for i in range(4)])
    assert [o.tolist() for o in out] == [[2 * (j + i) for j in range(3)] for i in range(4)]


def test_fork_sees_writes_only_to_shared_tensors():
    """Under fork, Process arguments are inherited, not pickled: only a
    tensor moved to shared memory first shows the child's writes."""
    ctx = cmp.get_context("fork")
    shared, private = ctorch.zeros(3).share_memory_(), ctorch.zeros(3)
    out = ctx.Queue()
    p = ctx.Process(target=_write_parts, args=((shared, private), ctorch.zeros(1), out))
    p.start()
    out.get(timeout=60)
    p.join(60)
    assert shared.tolist() == [0.0] * 3 and private.tolist() == [0.0] * 3
    p = ctx.Process(target=_write_parts, args=((ctorch.zeros(1), shared), private, out))
    p.start()
    out.get(timeout=60)
    p.join(60)
    assert shared.tolist() == [1.0] * 3 and private.tolist() == [0.0] * 3


# ---- no segment outlives the program -------------------------------------

LEAK_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    import ctorch
    import ctorch.multiprocessing as mp

    def child(q, got, die):
        q.put(ctorch.full((1000,), 7.0))
        q.put(ctorch.arange(10)[2:])
        got.wait()
        if die:
            os.kill(os.getpid(), signal.SIGKILL)

    if __name__ == "__main__":
        method, strategy, die = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
        mp.set_sharing_strategy(strategy)
        ctx = mp.get_context(method)
        q, got = ctx.Queue(), ctx.Event()
        mine = ctorch.ones(5).share_memory_()
        p = ctx.Process(target=child, args=(q, got, die))
        p.start()
        a, b = q.get(), q.get()
        got.set()
        p.join()
        print(os.getpid(), p.pid, p.exitcode, a.sum().item(), b.tolist())
""")


@pytest.mark.parametrize("method,strategy,die", [
    ("fork", "file_system", True), ("spawn", "file_system", True),
    ("fork", "file_system", False), ("fork", "file_descriptor", True)])
def test_no_segment_left_in_dev_shm(tmp_path, method, strategy, die):
    script = tmp_path / "leak.py"
    script.write_text(LEAK_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, str(script), method, strategy, str(int(die))],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    pid, cpid, code, total, tail = r.stdout.split(" ", 4)
    assert code == ("-9" if die else "0") and float(total) == 7000.0
    assert tail.strip() == str(list(range(2, 10)))
    leftovers = [f for f in os.listdir("/dev/shm")
                 if f.startswith("ctorch_%s_" % cpid) or f.startswith("ctorch_%s_" % pid)]
    assert leftovers == []
    assert "leaked" not in r.stderr


def test_tutorial_runs_under_ctorchrun(tmp_path):
    """The tutorial's Process/slices part (its gloo part needs
    torch.distributed: the first run checks up to there)."""
    src = open(os.path.join(ROOT, "..", "shared", "tutorials", "spawn_tensor_slices.py")).read() \
        if os.path.exists(os.path.join(ROOT, "..", "shared", "tutorials")) else None
    if src is None:
        pytest.skip("the tutorials are not beside the checkout")
    script = tmp_path / "slices.py"
    script.write_text(src.replace("import torch.distributed as dist\n", "")
                      .replace("    dist.init_process_group(backend, rank=rank, world_size=size)\n",
                               ""))
    # whole lines from each child, as from a pipe without PYTHONUNBUFFERED
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    r = subprocess.run([RUN, str(script)], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("(tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15]),")
    assert sorted(l for l in lines if l.startswith("rank ")) == \
        sorted("rank %d of 9" % i for i in range(9))


# ---- against PyTorch -----------------------------------------------------

def _torch():
    try:
        import torch
    except ImportError:
        return None
    return None if "ctorch" in getattr(torch, "__file__", "") else torch


@pytest.mark.skipif(_torch() is None, reason="torch is not importable")
def test_surface_matches_torch():
    torch = _torch()
    import torch.multiprocessing as tmp
    assert set(tmp.__all__) <= set(cmp.__all__)
    assert cmp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert cmp.get_sharing_strategy() == tmp.get_sharing_strategy()
    # is_shared before and after, for tensors, views, storages and modules
    for make in (lambda m: m.arange(6.0), lambda m: m.tensor(1), lambda m: m.empty(0)):
        c, t = make(ctorch), make(torch)
        assert c.is_shared() == t.is_shared()
        c.share_memory_(), t.share_memory_()
        assert c.is_shared() == t.is_shared()
        assert c.storage().is_shared() == t.storage().is_shared()
    from multiprocessing.reduction import ForkingPickler
    errs = []
    for m in (ctorch, torch):
        try:
            ForkingPickler.dumps(m.ones(2, requires_grad=True) * 2)
        except RuntimeError as e:
            errs.append(str(e))
    assert len(errs) == 2 and errs[0] == errs[1]
