"""nn.parallel.DistributedDataParallel, nn.DataParallel, the join context
manager and DDP's communication hooks.

The multi-process checks run one script (_SCRIPT) on 1, 2 and 3 ranks
under bin/ctorchrun (`import torch` is ctorch).  Each rank trains DDP
models and, in the same process, a single-process reference that sees the
whole global batch (each rank's shard is generated from a seed every rank
knows); the script prints one line per check with its maximum difference
and a checksum of the trained parameters.  The same script runs under
real PyTorch when it is installed: it must print the same lines (the
initial parameters come from the same generator, so the checksums agree
to print precision).
"""
import os

import pytest

import helpers

import ctorch
import ctorch.distributed as dist
import ctorch.nn as nn
from ctorch.distributed.algorithms import Join, JoinHook, Joinable

def run_ranks(code, world_size, impl="ctorch", timeout=90):
    return helpers.run_ranks(code, world_size, impl, timeout=timeout,
                             env={"OMP_NUM_THREADS": "1"}, tmp_prefix="ctorch_ddp_")


_SCRIPT = r'''
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

dist.init_process_group("gloo")
R, W = dist.get_rank(), dist.get_world_size()
STEPS, B = 3, 4
TOL = {"fp16_hook": 2e-3, "fp16_wrapper": 2e-3}


def shard(step, r, n_in=6, n_out=3):
    g = torch.Generator().manual_seed(1000 * step + r)
    return torch.randn(B, n_in, generator=g), torch.randn(B, n_out, generator=g)


def mlp():
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(),
                         nn.Linear(8, 3))


class Branchy(nn.Module):
    """`skip` is never used; `odd` only on rank 1."""
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 3)
        self.skip = nn.Linear(6, 3)
        self.odd = nn.Linear(3, 3)

    def forward(self, x, use_odd=False):
        y = self.a(x)
        return self.odd(y) if use_odd else y


def fresh(make, seed=0):
    torch.manual_seed(seed)
    return make()


def maxdiff(m1, m2):
    d = 0.0
    for (n, a), (_, b) in zip(m1.state_dict().items(), m2.state_dict().items()):
        d = max(d, (a.double() - b.double()).abs().max().item())
    return d


def checksum(m):
    return sum(p.double().sum().item() for p in m.parameters())


def report(name, ddp_model, ref):
    d = maxdiff(ddp_model, ref)
    ok = d <= TOL.get(name, 1e-5)
    print("%s %s %.4f" % (name, "ok" if ok else "BAD %g" % d, checksum(ref)))


def train(name, make, steps=STEPS, ddp_kw={}, fwd_kw=lambda r: {}, hook=None,
          counts=None, accumulate=1):
    """DDP on this rank against the reference over all ranks' shards."""
    local = fresh(make, seed=R)                 # differs until the broadcast
    ddp = DDP(local, **ddp_kw)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    ref = fresh(make)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    counts = counts or [steps] * W
    ctx = ddp.join() if counts[R] != steps or len(set(counts)) > 1 else None
    if ctx is not None:
        ctx.__enter__()
    for step in range(counts[R]):
        opt.zero_grad()
        for micro in range(accumulate):
            x, y = shard(10 * step + micro, R)
            sync = micro == accumulate - 1
            if sync:
                loss = nn.functional.mse_loss(ddp(x, **fwd_kw(R)), y)
                loss.backward()
            else:
                with ddp.no_sync():
                    nn.functional.mse_loss(ddp(x, **fwd_kw(R)), y).backward()
        opt.step()
    if ctx is not None:
        ctx.__exit__(None, None, None)
    for step in range(max(counts)):
        ref_opt.zero_grad()
        for r in range(W):
            if step >= counts[r]:
                continue
            for micro in range(accumulate):
                x, y = shard(10 * step + micro, r)
                (nn.functional.mse_loss(ref(x, **fwd_kw(r)), y) / W).backward()
        ref_opt.step()
    report(name, ddp.module, ref)
    return ddp, ref


train("basic", mlp)
ddp, _ = train("bucket_view", mlp, ddp_kw=dict(gradient_as_bucket_view=True))
views = all(p.grad is not None and p.grad._base is not None for p in ddp.parameters())
print("grads are bucket views", views)
train("small_buckets", mlp, ddp_kw=dict(bucket_cap_mb=0.0001))
train("small_buckets_view", mlp, ddp_kw=dict(bucket_cap_mb=0.0001,
                                             gradient_as_bucket_view=True))
train("no_sync", mlp, accumulate=3)
train("allreduce_hook", mlp, hook=default_hooks.allreduce_hook)
train("fp16_hook", mlp, hook=default_hooks.fp16_compress_hook)
train("fp16_wrapper", mlp,
      hook=default_hooks.fp16_compress_wrapper(default_hooks.allreduce_hook))
train("static_graph", mlp, ddp_kw=dict(static_graph=True))
sub = dist.new_group(list(range(W)))
train("process_group", mlp, ddp_kw=dict(process_group=sub))

# unused parameters: `skip` by every rank, `odd` by rank 1 only
ddp, ref = train("find_unused", Branchy, ddp_kw=dict(find_unused_parameters=True),
                 fwd_kw=lambda r: {"use_odd": r == 1})
print("never-used grad", ddp.module.skip.weight.grad)
train("static_unused", Branchy, ddp_kw=dict(static_graph=True),
      fwd_kw=lambda r: {"use_odd": r == 1})

# uneven inputs: rank r has 2 + r batches
train("join", mlp, counts=[2 + r for r in range(W)])
train("join_view", mlp, counts=[2 + r for r in range(W)],
      ddp_kw=dict(gradient_as_bucket_view=True))
train("join_unused", Branchy, counts=[2 + r for r in range(W)],
      ddp_kw=dict(find_unused_parameters=True), fwd_kw=lambda r: {"use_odd": r == 1})

# uneven inputs with throw_on_early_termination: every rank raises
if W > 1:
    ddp = DDP(fresh(mlp))
    try:
        with ddp.join(throw_on_early_termination=True):
            for step in range(2 + R):
                x, y = shard(step, R)
                nn.functional.mse_loss(ddp(x), y).backward()
        print("early: none")
    except RuntimeError as e:
        print("early:", e)

# a parameter with no grad, without find_unused_parameters
ddp = DDP(fresh(Branchy))
ddp(torch.ones(2, 6)).sum().backward()
try:
    ddp(torch.ones(2, 6))
    print("no error")
except RuntimeError as e:
    msg = str(e)
    print("unfinished:", msg.split(".")[0] + ".", "|", msg.split("\n")[3])

# buffers: BatchNorm statistics follow rank 0's at every forward
def bn():
    return nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))

for bcast in (True, False):
    ddp = DDP(fresh(bn, seed=R), broadcast_buffers=bcast)
    ref = fresh(bn)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    def buffers():
        return {k: v.clone() for k, v in ref[1].named_buffers()}

    bufs = [buffers() for _ in range(W)]
    for step in range(STEPS):
        opt.zero_grad()
        x, y = shard(step, R)
        nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
        ref_opt.zero_grad()
        start = bufs[0]
        for r in range(W):
            ref[1].load_state_dict(start if bcast else bufs[r], strict=False)
            x, y = shard(step, r)
            (nn.functional.mse_loss(ref(x), y) / W).backward()
            bufs[r] = buffers()
        ref_opt.step()
    ref[1].load_state_dict(bufs[R], strict=False)
    report("buffers_%s" % bcast, ddp.module, ref)
    print("num_batches_tracked", ddp.module[1].num_batches_tracked.item())

print("keys", list(ddp.state_dict().keys())[:3])
print("module", type(ddp.module).__name__)
print("GradBucket", dist.GradBucket.__name__)
print("done")
'''


def _lines(results):
    for rc, out, err in results:
        assert rc == 0, out + err
    return [out.splitlines() for _, out, _ in results]


@pytest.mark.parametrize("world", [1, 2, 3])
def test_ddp_matches_single_process(world):
    ranks = _lines(run_ranks(_SCRIPT, world))
    for lines in ranks:
        assert lines[-1] == "done", lines
        for line in lines:
            assert "BAD" not in line and "no error" not in line, lines
    got = ranks[0]
    assert "grads are bucket views True" in got
    assert "never-used grad None" in got
    checks = [ln.split()[0] for ln in got if ln.split()[1:2] == ["ok"]]
    assert checks == ["basic", "bucket_view", "small_buckets", "small_buckets_view",
                      "no_sync", "allreduce_hook", "fp16_hook", "fp16_wrapper",
                      "static_graph",
                      "process_group", "find_unused", "static_unused", "join",
                      "join_view", "join_unused", "buffers_True", "buffers_False"]
    assert ("unfinished: Expected to have finished reduction in the prior iteration "
            "before starting a new one. | Parameter indices which did not receive grad "
            "for rank 0: 2 3 4 5") in got
    assert "keys ['module.0.weight', 'module.0.bias', 'module.1.weight']" in got
    assert "module Sequential" in got
    if world > 1:
        assert "early: Rank 0 exhausted all inputs." in got
        for lines in ranks[1:]:
            assert ("early: Detected at least one rank that exhausted inputs. Throwing "
                    "across all ranks.") in lines
    # every rank trained the same model
    sums = [[ln for ln in lines if " ok " in ln] for lines in ranks]
    assert all(s == sums[0] for s in sums)


def _same_line(a, b):
    """Equal lines, numbers within 1e-3 (the checksums are float32 sums;
    BLAS libraries may differ in the last bits)."""
    ta, tb = a.split(" "), b.split(" ")
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x == y:
            continue
        try:
            if abs(float(x) - float(y)) > 1e-3:
                return False
        except ValueError:
            return False
    return True


def test_ddp_same_output_as_torch(torch_ref):
    ours = _lines(run_ranks(_SCRIPT, 2))
    theirs = _lines(run_ranks(_SCRIPT, 2, impl="torch"))
    for o, t in zip(ours, theirs):
        assert len(o) == len(t) and all(_same_line(a, b) for a, b in zip(o, t)), (o, t)


# ---- in-process: one rank, errors ------------------------------------------------

@pytest.fixture(scope="module")
def world1():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    store = dist.HashStore()
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def _err(fn):
    try:
        fn()
    except Exception as e:      # noqa: BLE001
        return type(e).__name__, str(e)
    return None


_DEVICE_MSG = ("DistributedDataParallel device_ids and output_device arguments only work "
               "with single-device/multiple-device GPU modules or CPU modules, but got "
               "device_ids %s, output_device %s, and module parameters "
               "{device(type='cpu')}.")


def test_constructor_arguments(world1):
    DDP = nn.parallel.DistributedDataParallel
    m = nn.Linear(2, 2)
    d = DDP(m)
    assert d.module is m and d.device_ids is None and d.output_device is None
    assert d.device_type == "cpu" and d.process_group is dist.group.WORLD
    assert list(d.state_dict()) == ["module.weight", "module.bias"]
    assert repr(d) == ("DistributedDataParallel(\n  (module): Linear(in_features=2, "
                       "out_features=2, bias=True)\n)")
    assert _err(lambda: DDP(m, device_ids=[0])) == ("ValueError",
                                                    _DEVICE_MSG % ("[0]", "None"))
    assert _err(lambda: DDP(m, device_ids=[0], output_device=0)) == (
        "ValueError", _DEVICE_MSG % ("[0]", "0"))
    assert _err(lambda: DDP(m, output_device=1)) == ("ValueError",
                                                     _DEVICE_MSG % ("None", "1"))
    assert _err(lambda: DDP(m, device_ids=[0, 1])) == (
        "ValueError", "device_ids can only be None or contain a single element.")
    assert DDP(m, device_ids=[]).device_ids is None
    assert _err(lambda: DDP(nn.ReLU())) == (
        "RuntimeError", "DistributedDataParallel is not needed when a module doesn't "
        "have any parameter that requires a gradient.")


def test_comm_hook_errors(world1):
    from ctorch.distributed.algorithms.ddp_comm_hooks import default_hooks
    d = nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    assert _err(lambda: d.register_comm_hook(None, 1)) == (
        "TypeError", "Communication hook must be callable.")
    d.register_comm_hook(None, default_hooks.allreduce_hook)
    assert _err(lambda: d.register_comm_hook(None, default_hooks.allreduce_hook)) == (
        "RuntimeError", "register_comm_hook or register_builtin_comm_hook can only be "
        "called once.")
    seen = []

    def hook(state, bucket):
        seen.append((bucket.index(), bucket.is_last(), bucket.buffer().tolist(),
                     sorted(tuple(p.shape) for p in bucket.parameters())))
        return default_hooks.allreduce_hook(state, bucket)

    d = nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    assert _err(lambda: d.register_comm_hook(None, default_hooks.bf16_compress_hook)) == (
        "TypeError", "BF16 all reduce communication hook required CUDA 11+ and NCCL 2.10+.")
    from ctorch.distributed.algorithms.ddp_comm_hooks import (
        DDPCommHookType, register_ddp_comm_hook)
    register_ddp_comm_hook(DDPCommHookType.NOOP, d)
    assert d.reducer.comm_hook.__name__ == "noop_hook"
    d(ctorch.ones(1, 2)).sum().backward()
    assert d.module.bias.grad.tolist() == [1.0, 1.0]
    d = nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    d.register_comm_hook(None, hook)
    d(ctorch.ones(1, 2)).sum().backward()
    assert seen == [(0, True, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [(2,), (2, 2)])]
    assert d.module.weight.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_ready_twice_and_no_sync(world1):
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.b = nn.Linear(2, 2)

        def forward(self, x):
            return self.a(x)

    d = nn.parallel.DistributedDataParallel(M())
    out = d(ctorch.ones(1, 2))
    out.sum().backward(retain_graph=True)
    e = _err(lambda: out.sum().backward())
    assert e[0] == "RuntimeError"
    assert e[1].startswith("Expected to mark a variable ready only once. This error is "
                           "caused by one of the following reasons: 1) Use of a module")
    assert "\nParameter at index 1 has been marked as ready twice." in e[1]
    d = nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    with d.no_sync():
        d(ctorch.ones(1, 2)).sum().backward()
        d(ctorch.ones(1, 2)).sum().backward()
    assert d.module.weight.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    d(ctorch.ones(1, 2)).sum().backward()
    assert d.module.weight.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_join_api(world1):
    assert _err(lambda: Join([])) == (
        "ValueError", "The join context manager requires at least one joinable")
    assert issubclass(nn.parallel.DistributedDataParallel, Joinable)
    calls = []

    class Hook(JoinHook):
        def post_hook(self, is_last_joiner):
            calls.append(is_last_joiner)

    class J(Joinable):
        def __init__(self):
            super().__init__()

        def join_hook(self, **kwargs):
            calls.append(kwargs)
            return Hook()

        join_device = ctorch.device("cpu")
        join_process_group = dist.group.WORLD

    j = J()
    with Join([j], flag=1):
        assert Join.notify_join_context(j) is not None
    assert calls == [{"flag": 1}, True]


def test_queue_callback():
    engine = ctorch.autograd.Variable._execution_engine
    assert _err(lambda: engine.queue_callback(lambda: None)) == (
        "RuntimeError", "Final callbacks can only be installed during backward pass.")
    x = ctorch.ones(2, requires_grad=True)
    seen = []

    def hook(g):
        engine.queue_callback(lambda: seen.append(x.grad.tolist()))
        engine.queue_callback(lambda: engine.queue_callback(lambda: seen.append("b")))
        return g

    x.register_hook(hook)
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0], "b"]


def test_data_parallel_cpu():
    m = nn.Linear(2, 2)
    for dp in (nn.DataParallel(m), nn.DataParallel(m, device_ids=[0, 1], output_device=1)):
        assert dp.module is m and dp.device_ids == []
        assert not hasattr(dp, "output_device")
        assert list(dp.state_dict()) == ["module.weight", "module.bias"]
        x = ctorch.ones(3, 2)
        assert dp(x).tolist() == m(x).tolist()
    assert nn.parallel.data_parallel(m, ctorch.ones(1, 2)).tolist() == m(
        ctorch.ones(1, 2)).tolist()
    assert nn.DataParallel is nn.parallel.DataParallel


def test_data_parallel_cpu_as_torch(torch_ref):
    tm = torch_ref.nn.Linear(2, 2)
    tdp = torch_ref.nn.DataParallel(tm, device_ids=[0])
    dp = nn.DataParallel(nn.Linear(2, 2), device_ids=[0])
    assert dp.device_ids == tdp.device_ids
    assert hasattr(dp, "output_device") == hasattr(tdp, "output_device")
    assert repr(dp).replace("ctorch", "torch") == repr(tdp)


def test_grad_layout():
    """A weight's first gradient (mm's backward makes it transposed) is
    stored in the weight's layout, as PyTorch's layout contract has it;
    DDP and the optimizers then read it contiguously."""
    m = nn.Linear(3, 2)
    m(ctorch.ones(4, 3)).sum().backward()
    assert m.weight.grad.stride() == (3, 1) and m.weight.grad.tolist() == [[4.0] * 3] * 2
    # mm's backward lays the gradient of weight.t() out like weight.t()
    x = ctorch.ones(4, 3, requires_grad=True)
    gw, gx = ctorch.autograd.grad(m(x).sum(), [m.weight, x])
    assert gw.stride() == (3, 1) and gw.tolist() == [[4.0] * 3] * 2
    assert gx.stride() == (3, 1)
    gw, = ctorch.autograd.grad(ctorch.mm(ctorch.ones(4, 3), m.weight.t()).sum(), [m.weight])
    assert gw.stride() == (3, 1)


def test_unfinished_reduction_sticks(world1):
    """As PyTorch: the error comes before the module runs, on every forward
    with grad mode on (no_sync too), and not under no_grad."""
    calls = []

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.b = nn.Linear(2, 2)

        def forward(self, x):
            calls.append(1)
            return self.a(x)

    d = nn.parallel.DistributedDataParallel(M())
    d(ctorch.ones(1, 2)).sum().backward()
    for _ in range(2):
        e = _err(lambda: d(ctorch.ones(1, 2)))
        assert e[0] == "RuntimeError" and e[1].startswith("Expected to have finished")
        assert "Parameter indices which did not receive grad for rank 0: 2 3\n" in e[1]
    assert len(calls) == 1
    with ctorch.no_grad():
        d(ctorch.ones(1, 2))
    with d.no_sync():
        assert _err(lambda: d(ctorch.ones(1, 2)))[0] == "RuntimeError"
    assert len(calls) == 2


def test_buckets_start_during_backward(world1):
    """Buckets follow the parameters in reverse, the first closing at
    1 MiB and the others at bucket_cap_mb; each starts as soon as its
    gradients are in, while backward still computes the earlier layers."""
    from ctorch.distributed.algorithms.ddp_comm_hooks import default_hooks
    ctorch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                      nn.Linear(512, 512))
    d = nn.parallel.DistributedDataParallel(m, bucket_cap_mb=0.5)
    events = []

    def hook(state, bucket):
        events.append(("bucket", bucket.index(), [tuple(p.shape) for p in bucket.parameters()]))
        return default_hooks.allreduce_hook(state, bucket)

    d.register_comm_hook(None, hook)
    m[0].weight.register_hook(lambda g: events.append(("first layer grad",)))
    d(ctorch.ones(2, 8)).sum().backward()
    assert events == [("bucket", 0, [(512,), (512, 512)]),
                      ("bucket", 1, [(512,), (512, 512)]),
                      ("first layer grad",),
                      ("bucket", 2, [(512,), (512, 8)])]
    assert all(p.grad is not None for p in m.parameters())


def test_pickling(world1):
    """deepcopy / save+load rebuild the reducer over the default group;
    a DDP over another group refuses, with PyTorch's message."""
    import copy
    import io
    d = nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    d2 = copy.deepcopy(d)
    d2(ctorch.ones(1, 2)).sum().backward()
    assert d2.module.weight.grad.tolist() == [[1.0, 1.0]] * 2
    assert d.module.weight.grad is None
    buf = io.BytesIO()
    ctorch.save(d, buf)
    buf.seek(0)
    d3 = ctorch.load(buf)
    assert list(d3.state_dict()) == ["module.weight", "module.bias"]
    d3(ctorch.ones(1, 2)).sum().backward()
    assert d3.module.bias.grad.tolist() == [1.0, 1.0]
    g = dist.new_group([0])
    e = _err(lambda: copy.deepcopy(nn.parallel.DistributedDataParallel(
        nn.Linear(2, 2), process_group=g)))
    assert e == ("RuntimeError", "DDP Pickling/Unpickling are only supported when using "
                 "DDP with the default process group. That is, when you have called "
                 "init_process_group and have not passed process_group argument to DDP "
                 "constructor")
