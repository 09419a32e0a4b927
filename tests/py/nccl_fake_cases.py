"""The nccl backend over the pretend CUDA part and the pretend NCCL
(tests/fake_cuda, tests/fake_nccl), run by test_nccl_fake.py:

    python nccl_fake_cases.py WORLD_SIZE [CASE ...]

spawns WORLD_SIZE ranks on the pretend devices cuda:0 .. (one per rank);
each runs the case_* functions in order, all ranks the same ones (every
collective needs them all), and rank 0 prints one JSON line
{case: "ok" | traceback} gathered from every rank (a case fails if it
fails on any rank).
"""
import json
import math
import os
import sys
import tempfile
import traceback

import ctorch as torch
import ctorch.distributed as dist
import ctorch.multiprocessing as mp

from cuda_fake_cases import raises

R = dist.ReduceOp


def on_device(t):
    assert t.device.type == "cuda", t.device
    return t.cpu().tolist()


def case_backend_and_group():
    assert dist.get_backend() == "nccl"
    assert dist.is_nccl_available()
    assert type(dist.group.WORLD).__name__ == "ProcessGroupNCCL"


def case_all_reduce_every_op_and_dtype():
    rank, world = dist.get_rank(), dist.get_world_size()
    ranks = range(world)
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32,
               torch.int64, torch.int8, torch.uint8):
        base = torch.tensor([1, 2, 3, 4]).to(dt)
        for op, want in ((R.SUM, sum(r + 1 for r in ranks)), (R.MIN, 1), (R.MAX, world)):
            t = (base * (rank + 1)).cuda()
            dist.all_reduce(t, op=op)
            assert on_device(t) == (base * want).tolist(), (dt, op, t)
        t = (torch.ones(4) * (rank + 1)).to(dt).cuda()
        dist.all_reduce(t, op=R.PRODUCT)
        assert on_device(t) == [float(math.factorial(world))] * 4, (dt, t)
        t = (base * (rank + 1)).cuda()
        dist.all_reduce(t, op=R.AVG)
        mean = sum(r + 1 for r in ranks) / world
        want = base.double() * mean
        if not dt.is_floating_point:
            want = want.trunc()
        assert torch.allclose(t.cpu().double(), want, rtol=1e-2), (dt, t)
    # bool: SUM is any, PRODUCT is all
    b = torch.tensor([rank == 0, True, False]).cuda()
    dist.all_reduce(b)
    assert on_device(b) == [True, True, False]
    b = torch.tensor([rank == 0, True, False]).cuda()
    dist.all_reduce(b, op=R.PRODUCT)
    assert on_device(b) == [world == 1, True, False]


def case_rooted_and_gathering_collectives():
    rank, world = dist.get_rank(), dist.get_world_size()
    t = torch.full((2, 3), float(rank), device="cuda")
    dist.broadcast(t, src=world - 1)
    assert on_device(t) == [[float(world - 1)] * 3] * 2
    t = torch.full((3,), rank + 1.0, device="cuda")
    dist.reduce(t, dst=0)
    if rank == 0:
        assert on_device(t) == [world * (world + 1) / 2] * 3
    outs = [torch.zeros(2, device="cuda") for _ in range(world)]
    dist.all_gather(outs, torch.full((2,), rank * 10.0, device="cuda"))
    assert [on_device(o) for o in outs] == [[r * 10.0] * 2 for r in range(world)]
    # a strided output is written through a copy
    big = torch.zeros(world, 4, device="cuda")
    dist.all_gather([big[r, ::2] for r in range(world)], torch.full((2,), 1.0 + rank,
                                                                     device="cuda"))
    assert on_device(big) == [[1.0 + r, 0.0, 1.0 + r, 0.0] for r in range(world)]
    flat = torch.zeros(world * 2, dtype=torch.int64, device="cuda")
    dist.all_gather_into_tensor(flat, torch.tensor([rank, -rank]).cuda())
    assert on_device(flat) == sum(([r, -r] for r in range(world)), [])
    out = torch.zeros(2, device="cuda")
    dist.reduce_scatter(out, [torch.full((2,), float(rank * 100 + q), device="cuda")
                              for q in range(world)])
    assert on_device(out) == [float(sum(r * 100 + rank for r in range(world)))] * 2
    out = torch.zeros(3, device="cuda")
    dist.reduce_scatter_tensor(out, torch.arange(3.0 * world).cuda(), op=R.MAX)
    assert on_device(out) == [3.0 * rank + k for k in range(3)]
    g = [torch.zeros(2, device="cuda") for _ in range(world)] if rank == 0 else None
    dist.gather(torch.full((2,), rank + 0.5, device="cuda"), gather_list=g, dst=0)
    if rank == 0:
        assert [on_device(x) for x in g] == [[r + 0.5] * 2 for r in range(world)]
    s = torch.zeros(2, device="cuda")
    sl = [torch.full((2,), 7.0 * q, device="cuda") for q in range(world)] \
        if rank == world - 1 else None
    dist.scatter(s, scatter_list=sl, src=world - 1)
    assert on_device(s) == [7.0 * rank] * 2


def case_all_to_all():
    rank, world = dist.get_rank(), dist.get_world_size()
    x = torch.arange(2.0 * world).cuda() + 100 * rank
    o = torch.empty(2 * world, device="cuda")
    dist.all_to_all_single(o, x)
    assert on_device(o) == sum(([100.0 * r + 2 * rank, 100.0 * r + 2 * rank + 1]
                                for r in range(world)), [])
    # uneven splits: rank r sends r + 1 rows to each rank
    rows = rank + 1
    x = torch.full((rows * world, 2), float(rank), device="cuda")
    o = torch.empty(sum(r + 1 for r in range(world)), 2, device="cuda")
    dist.all_to_all_single(o, x, output_split_sizes=[r + 1 for r in range(world)],
                           input_split_sizes=[rows] * world)
    assert on_device(o) == sum(([[float(r)] * 2] * (r + 1) for r in range(world)), [])
    outs = [torch.zeros(1, device="cuda") for _ in range(world)]
    dist.all_to_all(outs, [torch.tensor([rank * 10.0 + q]).cuda() for q in range(world)])
    assert [on_device(t) for t in outs] == [[r * 10.0 + rank] for r in range(world)]


def case_point_to_point():
    rank, world = dist.get_rank(), dist.get_world_size()
    if world < 2:
        return
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    got = torch.zeros(3, device="cuda")
    if rank % 2 == 0:
        dist.send(torch.full((3,), rank + 1.0, device="cuda"), nxt)
        dist.recv(got, prv)
    else:
        dist.recv(got, prv)
        dist.send(torch.full((3,), rank + 1.0, device="cuda"), nxt)
    assert on_device(got) == [prv + 1.0] * 3
    a, b = torch.full((2,), float(rank), device="cuda"), torch.zeros(2, device="cuda")
    reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, a, nxt),
                                   dist.P2POp(dist.irecv, b, prv)])
    for r in reqs:
        r.wait()
    assert on_device(b) == [float(prv)] * 2
    raises(RuntimeError, lambda: dist.recv(torch.zeros(1, device="cuda")),
           "ProcessGroupNCCL does not support recvAnysource")


def case_async_work_and_barrier():
    rank, world = dist.get_rank(), dist.get_world_size()
    t = torch.ones(4, device="cuda") * (rank + 1)
    w = dist.all_reduce(t, async_op=True)
    w.wait()
    assert w.is_completed() and w.is_success()
    assert on_device(t) == [world * (world + 1) / 2] * 4
    fut = dist.all_reduce(t, async_op=True).get_future()
    res = fut.wait()
    assert on_device(res[0]) == [world * world * (world + 1) / 2] * 4
    # the stream snippet: wait, then work on another stream after the default one
    s = torch.cuda.Stream()
    out = torch.tensor([rank]).cuda(rank)
    handle = dist.all_reduce(out, async_op=True)
    handle.wait()
    with torch.cuda.stream(s):
        s.wait_stream(torch.cuda.default_stream())
        out.add_(100)
    torch.cuda.synchronize()
    assert on_device(out) == [sum(range(world)) + 100]
    dist.barrier()
    dist.barrier(async_op=True).wait()


def case_object_collectives():
    rank, world = dist.get_rank(), dist.get_world_size()
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "x": [rank] * rank})
    assert objs == [{"rank": r, "x": [r] * r} for r in range(world)]
    lst = ["a", 1, None] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == ["a", 1, None]
    g = [None] * world if rank == 0 else None
    dist.gather_object(("r", rank), g, dst=0)
    if rank == 0:
        assert g == [("r", r) for r in range(world)]
    out = [None]
    dist.scatter_object_list(out, [{"to": q} for q in range(world)] if rank == 0 else None,
                             src=0)
    assert out == [{"to": rank}]


def case_subgroups():
    rank, world = dist.get_rank(), dist.get_world_size()
    g = dist.new_group(list(range(world)))
    t = torch.full((2,), rank + 1.0, device="cuda")
    dist.all_reduce(t, group=g)
    assert on_device(t) == [world * (world + 1) / 2] * 2
    assert dist.get_backend(g) == "nccl"


def case_ddp_cnn_matches_one_process():
    """DDP over nccl: a small CNN (convolutions, ReLU, Linear) trained by
    every rank on its share of a batch ends with the weights of one CPU
    process trained on the whole batch (DDP averages the gradients)."""
    from ctorch.nn.parallel import DistributedDataParallel as DDP
    rank, world = dist.get_rank(), dist.get_world_size()

    def net():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
                                   torch.nn.Conv2d(4, 4, 3, stride=2), torch.nn.ReLU(),
                                   torch.nn.Flatten(), torch.nn.Linear(4 * 3 * 3, 3))

    g = torch.Generator().manual_seed(1)
    x = torch.randn(4 * world, 1, 8, 8, generator=g)
    y = torch.randint(0, 3, (4 * world,), generator=g)
    ref = net()
    opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(ref(x), y).backward()
        opt.step()
    model = DDP(net().cuda(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    mine = slice(4 * rank, 4 * rank + 4)
    for _ in range(3):
        opt.zero_grad()
        out = model(x[mine].cuda(rank))
        torch.nn.functional.cross_entropy(out, y[mine].cuda(rank)).backward()
        opt.step()
    for a, b in zip(ref.parameters(), model.module.parameters()):
        assert b.device == torch.device("cuda", rank)
        assert torch.allclose(a.detach(), b.detach().cpu(), atol=1e-5), (a, b)


def case_bad_input():
    raises(RuntimeError, lambda: dist.all_reduce(torch.ones(2)),
           "Tensors must be CUDA and dense")
    raises(RuntimeError, lambda: dist.all_reduce(torch.ones(2, 2, device="cuda").t()),
           "Tensors must be contiguous")
    raises(RuntimeError, lambda: dist.all_reduce(torch.ones(2, device="cuda"), op=R.BAND),
           "Cannot use ReduceOp.BAND with NCCL")
    raises(RuntimeError, lambda: dist.all_reduce(torch.ones(2, dtype=torch.bool,
                                                            device="cuda"), op=R.AVG),
           "Cannot use ReduceOp.AVG with boolean inputs")
    raises(RuntimeError, lambda: dist.all_reduce(torch.ones(2, dtype=torch.int16,
                                                            device="cuda")),
           "Unsupported data type for NCCL process group")
    raises(RuntimeError, lambda: dist.broadcast(torch.ones(2, device="cuda"),
                                                src=dist.get_world_size()))
    # the group is still usable afterwards
    t = torch.ones(1, device="cuda")
    dist.all_reduce(t)
    assert on_device(t) == [float(dist.get_world_size())]


def all_cases():
    return [n for n in globals() if n.startswith("case_")]


def worker(rank, world, path, names, results):
    import faulthandler
    faulthandler.enable()
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="file://" + path, rank=rank,
                            world_size=world)
    mine = {}
    for n in names:
        try:
            globals()[n]()
            mine[n] = "ok"
        except BaseException:
            mine[n] = "rank %d: %s" % (rank, traceback.format_exc())
    every = [None] * world
    dist.all_gather_object(every, mine)
    dist.destroy_process_group()
    if rank == 0:
        merged = {n: next((r[n] for r in every if r[n] != "ok"), "ok") for n in names}
        with open(results, "w") as f:
            json.dump(merged, f)


def main():
    world = int(sys.argv[1])
    names = sys.argv[2:] or all_cases()
    with tempfile.TemporaryDirectory() as d:
        results = os.path.join(d, "results.json")
        mp.spawn(worker, args=(world, os.path.join(d, "store"), names, results),
                 nprocs=world)
        with open(results) as f:
            print(json.dumps(json.load(f)))


if __name__ == "__main__":
    main()
