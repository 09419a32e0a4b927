"""Scenarios for test_dist_mpi.py, run by mpirun on every rank:
`mpirun -np N python mpi_cases.py SCENARIO`.  Each rank checks its own
results and prints "ok SCENARIO <rank>" at the end; a failed check is a
traceback and a non-zero exit."""
import os
import sys
import warnings

import numpy as np

import ctorch as torch
import ctorch.distributed as dist

Op = dist.ReduceOp
DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool]
OPS = [Op.SUM, Op.PRODUCT, Op.MIN, Op.MAX, Op.BAND, Op.BOR, Op.BXOR, Op.AVG]
NAMES = {Op.SUM: "SUM", Op.PRODUCT: "PRODUCT", Op.MIN: "MIN", Op.MAX: "MAX",
         Op.BAND: "BAND", Op.BOR: "BOR", Op.BXOR: "BXOR", Op.AVG: "AVG"}


def values(n, r, dtype, op=None):
    """Rank r's input: small integers, so every sum and product is exact
    in every dtype (products stay within int8)."""
    i = np.arange(n)
    v = 1 + (i + r) % 2 if op == Op.PRODUCT else (i * 7 + r * 3) % 16
    if dtype == torch.bool:
        return torch.from_numpy(v % 2 == 1)
    return torch.from_numpy(v.astype(np.float64)).to(dtype)


def as64(t):
    return t.to(torch.float64).numpy() if t.dtype != torch.bool else t.numpy()


def expected(n, world, dtype, op):
    xs = [as64(values(n, q, dtype, op)) for q in range(world)]
    if dtype == torch.bool:
        xs = [x.astype(bool) for x in xs]
        f = {Op.SUM: np.logical_or, Op.MAX: np.logical_or, Op.BOR: np.logical_or,
             Op.PRODUCT: np.logical_and, Op.MIN: np.logical_and,
             Op.BAND: np.logical_and, Op.BXOR: np.logical_xor}[op]
    else:
        ints = [x.astype(np.int64) for x in xs]
        f = {Op.SUM: np.add, Op.AVG: np.add, Op.PRODUCT: np.multiply,
             Op.MIN: np.minimum, Op.MAX: np.maximum, Op.BAND: np.bitwise_and,
             Op.BOR: np.bitwise_or, Op.BXOR: np.bitwise_xor}[op]
        xs = ints if op in (Op.BAND, Op.BOR, Op.BXOR) else xs
    acc = xs[0]
    for x in xs[1:]:
        acc = f(acc, x)
    if op == Op.AVG:
        acc = acc / world
    return acc


def allowed(dtype, op):
    if op in (Op.BAND, Op.BOR, Op.BXOR):
        return not dtype.is_floating_point
    if op == Op.AVG:
        return dtype.is_floating_point
    return True


def check(got, want, what, tol=0.0):
    got = as64(got)
    want = np.asarray(want, dtype=got.dtype)
    ok = np.allclose(got, want, rtol=tol, atol=0) if tol else np.array_equal(got, want)
    assert ok, "%s: got %s, want %s" % (what, got[:8], want[:8])


def case_ops(r, world):
    """Every collective x dtype (x ReduceOp where it reduces), sizes 0, 1, 7."""
    for dtype in DTYPES:
        for n in (0, 1, 7):
            tag = "%s n=%d" % (dtype, n)
            for op in OPS:
                t = values(n, r, dtype, op)
                if not allowed(dtype, op):
                    try:
                        dist.all_reduce(t, op=op)
                    except RuntimeError as e:
                        assert "Cannot use ReduceOp.%s" % NAMES[op] in str(e), str(e)
                    else:
                        raise AssertionError("all_reduce %s %s did not raise" % (op, tag))
                    continue
                dist.all_reduce(t, op=op)
                half = dtype in (torch.float16, torch.bfloat16)
                # an average is rounded once in the dtype
                tol = (1e-2 if half else 1e-6) if op == Op.AVG else 0.0
                check(t, expected(n, world, dtype, op),
                      "all_reduce %s %s" % (NAMES[op], tag), tol=tol)
                root = world - 1
                t = values(n, r, dtype, op)
                dist.reduce(t, root, op=op)
                if r == root:
                    check(t, expected(n, world, dtype, op),
                          "reduce %s %s" % (NAMES[op], tag), tol=tol)
                else:
                    check(t, as64(values(n, r, dtype, op)), "reduce input kept " + tag)
            t = values(n, r, dtype)
            dist.broadcast(t, 0)
            check(t, as64(values(n, 0, dtype)), "broadcast " + tag)
            out = [torch.zeros(n, dtype=dtype) for _ in range(world)]
            dist.all_gather(out, values(n, r, dtype))
            for q in range(world):
                check(out[q], as64(values(n, q, dtype)), "all_gather %s from %d" % (tag, q))
            flat = torch.zeros(world * n, dtype=dtype)
            dist.all_gather_into_tensor(flat, values(n, r, dtype))
            check(flat, np.concatenate([as64(values(n, q, dtype)) for q in range(world)]),
                  "all_gather_into_tensor " + tag)
            gl = [torch.zeros(n, dtype=dtype) for _ in range(world)] if r == 1 % world else None
            dist.gather(values(n, r, dtype), gl, dst=1 % world)
            if gl is not None:
                for q in range(world):
                    check(gl[q], as64(values(n, q, dtype)), "gather %s from %d" % (tag, q))
            o = torch.zeros(n, dtype=dtype)
            sl = [values(n, 10 + q, dtype) for q in range(world)] if r == 0 else None
            dist.scatter(o, sl, src=0)
            check(o, as64(values(n, 10 + r, dtype)), "scatter " + tag)
            if dtype != torch.bool:
                o = torch.zeros(n, dtype=dtype)
                dist.reduce_scatter(o, [values(n, r + q, dtype) for q in range(world)])
                want = sum(as64(values(n, q + r2, dtype)) for r2 in range(world)
                           for q in [r])
                check(o, want, "reduce_scatter " + tag, tol=1e-2)
                o = torch.zeros(n, dtype=dtype)
                src = torch.cat([values(n, r + q, dtype) for q in range(world)])
                dist.reduce_scatter_tensor(o, src)
                check(o, want, "reduce_scatter_tensor " + tag, tol=1e-2)
            # all_to_all_single, equal splits and uneven ones (q + 1 rows to q)
            src = torch.cat([values(n, 100 * r + q, dtype) for q in range(world)])
            o = torch.zeros(world * n, dtype=dtype)
            dist.all_to_all_single(o, src)
            check(o, np.concatenate([as64(values(n, 100 * q + r, dtype))
                                     for q in range(world)]), "all_to_all_single " + tag)
            rows = [q + 1 for q in range(world)]
            src = torch.cat([values(rows[q] * n, 100 * r + q, dtype) for q in range(world)])
            o = torch.zeros(world * rows[r] * n, dtype=dtype)
            dist.all_to_all_single(o.view(-1, max(n, 1)) if n else o,
                                   src.view(-1, max(n, 1)) if n else src,
                                   [rows[r]] * world if n else None, rows if n else None)
            if n:
                check(o, np.concatenate([as64(values(rows[r] * n, 100 * q + r, dtype))
                                         for q in range(world)]), "all_to_all splits " + tag)
            outs = [torch.zeros(n + q, dtype=dtype) for q in range(world)]
            dist.all_to_all(outs, [values(n + r, 1000 * r + q, dtype) for q in range(world)])
            for q in range(world):
                check(outs[q], as64(values(n + q, 1000 * q + r, dtype)),
                      "all_to_all list %s from %d" % (tag, q))
    dist.barrier()


def case_p2p(r, world):
    """send/recv around a ring with tags, isend/irecv, any-source recv,
    non-contiguous tensors, a 16M-element all_reduce."""
    nxt, prv = (r + 1) % world, (r - 1) % world
    for dtype in DTYPES:
        x = values(5, r, dtype)
        y = torch.zeros(5, dtype=dtype)
        if world > 1:
            reqs = [dist.isend(x, nxt, tag=3), dist.irecv(y, prv, tag=3)]
            for q in reqs:
                q.wait()
            check(y, as64(values(5, prv, dtype)), "isend/irecv %s" % dtype)
    if world > 1:
        # tags keep two messages apart whatever their order
        if r == 0:
            dist.send(torch.tensor([1.0]), 1, tag=11)
            dist.send(torch.tensor([2.0]), 1, tag=22)
        elif r == 1:
            a, b = torch.zeros(1), torch.zeros(1)
            dist.recv(b, 0, tag=22)
            dist.recv(a, 0, tag=11)
            assert (a.item(), b.item()) == (1.0, 2.0), (a, b)
        # any source: rank 0 hears from every other rank, learns who sent
        if r == 0:
            seen = set()
            for _ in range(world - 1):
                t = torch.zeros(1, dtype=torch.int64)
                src = dist.recv(t)
                assert t.item() == 100 + src, (t, src)
                seen.add(src)
            assert seen == set(range(1, world)), seen
        else:
            dist.send(torch.tensor([100 + r]), 0)
    # non-contiguous: a column of a matrix, in place
    m = torch.arange(12, dtype=torch.float32).view(3, 4) * (r + 1)
    col = m[:, 1]
    dist.all_reduce(col)
    s = world * (world + 1) / 2
    check(m[:, 1], np.array([1.0, 5.0, 9.0]) * s, "non-contiguous all_reduce")
    check(m[:, 0], np.array([0.0, 4.0, 8.0]) * (r + 1), "neighbours untouched")
    m = torch.zeros(3, 4)
    t = torch.arange(3.0) + 7 if r == 0 else m[:, 2]
    dist.broadcast(t, 0)
    if r != 0:
        check(m[:, 2], [7.0, 8.0, 9.0], "non-contiguous broadcast")
    outs = [torch.zeros(2, 2)[:, 1] for _ in range(world)]
    dist.all_gather(outs, torch.ones(2, 3)[:, 0] * r)
    for q in range(world):
        check(outs[q], [q, q], "non-contiguous all_gather")
    if world > 1:
        if r == 0:
            dist.send(torch.arange(8.0).view(2, 4)[:, 1], 1)
        elif r == 1:
            d = torch.zeros(3, 2)
            dist.recv(d[:2, 0], 0)
            check(d[:, 0], [1.0, 5.0, 0.0], "non-contiguous send/recv")
    big = torch.ones(1 << 24)
    dist.all_reduce(big)
    assert big[0].item() == world and big[-1].item() == world and big.sum().item() == world * (1 << 24)
    dist.barrier()


def case_groups(r, world):
    """new_group over MPI communicators: members compute among themselves,
    the others get NON_GROUP_MEMBER; two groups used interleaved."""
    odd = [q for q in range(world) if q % 2 == 1]
    even = [q for q in range(world) if q % 2 == 0]
    g_odd = dist.new_group(odd)
    g_even = dist.new_group(even)
    mine, other = (g_odd, g_even) if r % 2 else (g_even, g_odd)
    assert other == dist.GroupMember.NON_GROUP_MEMBER or not odd
    members = odd if r % 2 else even
    assert dist.get_world_size(mine) == len(members)
    assert dist.get_rank(mine) == members.index(r)
    assert dist.get_backend(mine) == "mpi"
    t = torch.tensor([float(r)])
    dist.all_reduce(t, group=mine)
    assert t.item() == sum(members), (t, members)
    t = torch.tensor([float(r)])
    dist.broadcast(t, members[-1], group=mine)
    assert t.item() == members[-1]
    if len(members) > 1:
        if r == members[0]:
            dist.send(torch.tensor([5.0]), members[1], group=mine)
        elif r == members[1]:
            x = torch.zeros(1)
            dist.recv(x, members[0], group=mine)
            assert x.item() == 5.0
    t = torch.ones(1)
    dist.all_reduce(t)
    assert t.item() == world
    dist.destroy_process_group(mine)
    t = torch.ones(1)
    dist.all_reduce(t)
    assert t.item() == world


def case_async(r, world):
    """async_op=True: works overlap with computing, complete in order,
    futures and callbacks fire."""
    ts = [torch.full((1000,), float(r + k)) for k in range(20)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    acc = torch.zeros(1000)
    for _ in range(50):
        acc += 1
    seen = []
    fut = works[-1].get_future().then(lambda f: seen.append(f.value()[0][0].item()) or 1)
    for k, w in enumerate(works):
        w.wait()
        assert w.is_completed() and w.is_success()
        assert ts[k][0].item() == sum(range(world)) + world * k, (k, ts[k][0])
    fut.wait()
    assert seen == [sum(range(world)) + world * 19], seen
    b = dist.barrier(async_op=True)
    b.wait()
    if world > 1:
        x = torch.zeros(3)
        req = dist.irecv(x, (r - 1) % world)
        dist.send(torch.full((3,), float(r)), (r + 1) % world)
        req.wait()
        assert x[0].item() == (r - 1) % world
        assert req.is_completed()


def case_ring(r, world):
    """Reductions of 1 MiB and more run as a ring of messages (Note [MPI
    ring]): several in flight at once beside user sends on tag 0, block
    sizes that do not divide evenly, every kind of reduction, a subgroup."""
    nxt, prv = (r + 1) % world, (r - 1) % world
    sizes = [262147, 300001, 1 << 18, 5, 1 << 20]        # float32: 1 MiB and more
    ts = [values(n, r, torch.float32) for n in sizes]
    inbox = torch.zeros(7)
    req = dist.irecv(inbox, prv, tag=0)
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    dist.send(torch.full((7,), float(r)), nxt, tag=0)
    for n, t, w in zip(sizes, ts, works):
        w.wait()
        check(t, expected(n, world, torch.float32, Op.SUM), "async ring n=%d" % n)
    req.wait()
    check(inbox, [float(prv)] * 7, "send beside rings")
    n = 400003
    for dtype, op in [(torch.float64, Op.MAX), (torch.int32, Op.BXOR),
                      (torch.bfloat16, Op.SUM), (torch.float16, Op.MIN),
                      (torch.float32, Op.AVG), (torch.int8, Op.PRODUCT),
                      (torch.bool, Op.SUM), (torch.uint8, Op.BAND)]:
        m = n * 8 if dtype in (torch.bool, torch.uint8, torch.int8) else n
        t = values(m, r, dtype, op)
        dist.all_reduce(t, op=op)
        check(t, expected(m, world, dtype, op), "ring %s %s" % (dtype, NAMES[op]),
              tol=1e-6 if op == Op.AVG else 0.0)
    # reduce: the ring, then every block to the root; the others' tensors
    # stay as they were
    for root in {0, world - 1}:
        for dtype, op in [(torch.float32, Op.SUM), (torch.int64, Op.MAX),
                          (torch.float64, Op.AVG)]:
            t = values(n, r, dtype, op)
            dist.reduce(t, root, op=op)
            if r == root:
                check(t, expected(n, world, dtype, op),
                      "ring reduce %s to %d" % (NAMES[op], root),
                      tol=1e-6 if op == Op.AVG else 0.0)
            else:
                check(t, as64(values(n, r, dtype, op)), "ring reduce input kept")
    works = [dist.reduce(values(n, r, torch.float32), 0, async_op=True) for _ in range(3)]
    for w in works:
        w.wait()
    # strided: staged through a contiguous copy, then the ring
    base = torch.zeros(n, 3)
    col = base[:, 1]
    col.copy_(values(n, r, torch.float32))
    dist.all_reduce(col, op=Op.MIN)
    check(col, expected(n, world, torch.float32, Op.MIN), "ring strided")
    assert base[:, 0].abs().sum().item() == 0 and base[:, 2].abs().sum().item() == 0
    # reduce_scatter: the ring's first half; block q of every rank's input
    # goes to rank q
    k = 300007
    o = torch.zeros(k)
    dist.reduce_scatter(o, [values(k, r + q, torch.float32) for q in range(world)])
    check(o, sum(as64(values(k, q + r, torch.float32)) for q in range(world)),
          "ring reduce_scatter")
    src = torch.cat([values(k, r + q, torch.float32) for q in range(world)])
    dist.reduce_scatter_tensor(o, src, op=Op.MAX)
    check(o, np.max([as64(values(k, q + r, torch.float32)) for q in range(world)], axis=0),
          "ring reduce_scatter_tensor max")
    check(src, np.concatenate([as64(values(k, r + q, torch.float32)) for q in range(world)]),
          "ring reduce_scatter_tensor input kept")
    # a subgroup of the even ranks has its own ring
    evens = list(range(0, world, 2))
    g = dist.new_group(evens)
    if r in evens:
        t = values(n, r, torch.float32)
        dist.all_reduce(t, group=g)
        want = sum(as64(values(n, q, torch.float32)) for q in evens)
        check(t, want, "ring in a subgroup")
    dist.barrier()


def case_errors(r, world):
    """MPI errors and bad arguments: RuntimeErrors with MPI's text or
    PyTorch's wording, and the group keeps working after each."""
    def raises(fn, *needles):
        try:
            fn()
        except (RuntimeError, ValueError) as e:
            for s in needles:
                assert s in str(e), (s, str(e))
            return
        raise AssertionError("no error for %s" % (needles,))

    raises(lambda: dist.all_reduce(torch.ones(2, dtype=torch.int32), op=Op.AVG),
           "Cannot use ReduceOp.AVG with non-floating dtype")
    raises(lambda: dist.all_reduce(torch.ones(2), op=Op.BAND),
           "Cannot use ReduceOp.BAND with non-integral dtype")
    raises(lambda: dist.init_process_group("mpi"),
           "trying to initialize the default process group twice!")
    pg = dist.distributed_c10d._get_default_group()
    raises(lambda: pg.allreduce([torch.ones(1), torch.ones(1)]),
           "MPI process group does not support multi-GPU collectives")
    raises(lambda: pg.broadcast([torch.ones(1)], world + 3),
           "ProcessGroupMPI::broadcast: invalid root rank: %d" % (world + 3))
    if world > 1:
        if r == 0:
            raises(lambda: dist.send(torch.ones(1), 1, tag=-5), "MPI_ERR_TAG: invalid tag")
            dist.send(torch.arange(4.0), 1, tag=1)
            dist.send(torch.arange(4.0), 1, tag=2)
        elif r == 1:
            raises(lambda: dist.recv(torch.zeros(2), 0, tag=1),
                   "ProcessGroupMPI::recv: ", "MPI_ERR_TRUNCATE: message truncated")
            raises(lambda: dist.recv(torch.zeros(8), 0, tag=2),
                   "ProcessGroupMPI::recv: rank 0 sent 4 elements, but the receiving "
                   "tensor has 8")
    t = torch.ones(3)
    dist.all_reduce(t)
    assert t.tolist() == [world] * 3


def case_ddp(r, world):
    """DDP over mpi and over gloo: the same steps give the same parameters."""
    import ctorch.nn as nn
    from ctorch.nn.parallel import DistributedDataParallel as DDP

    def train():
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
        ddp = DDP(model, bucket_cap_mb=0.0001)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
        g = torch.Generator().manual_seed(100 + r)
        for _ in range(5):
            x = torch.randn(4, 8, generator=g)
            loss = ddp(x).pow(2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        return [p.detach().clone() for p in model.parameters()]

    over_mpi = train()
    dist.destroy_process_group()
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%s" % os.environ["GLOO_PORT"],
                            rank=r, world_size=world)
    over_gloo = train()
    for a, b in zip(over_mpi, over_gloo):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-6), (a, b)
    # the ranks agree: DDP averaged their gradients
    flat = torch.cat([p.reshape(-1) for p in over_mpi])
    first = flat.clone()
    dist.broadcast(first, 0)
    assert torch.equal(flat, first)


def case_killed(r, world):
    """Rank 1 dies in the middle of the run: mpirun ends the job (the test
    checks that it returns, non-zero, without hanging)."""
    t = torch.ones(1 << 20)
    dist.all_reduce(t)
    if r == 1:
        os._exit(3)
    for _ in range(100):
        dist.all_reduce(t)
    raise AssertionError("all_reduce went on without rank 1")


def main():
    scenario = sys.argv[1]
    if scenario == "ring_rank0":
        # only rank 0 asks for rings from one byte on: the others follow it
        if os.environ["OMPI_COMM_WORLD_RANK"] == "0":
            os.environ["CTORCH_MPI_RING_BYTES"] = "1"
        scenario = "async"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if scenario == "warn":
            dist.init_process_group("mpi", rank=0, world_size=7)
        else:
            dist.init_process_group("mpi")
    msgs = [str(w.message) for w in caught]
    if scenario == "warn":
        assert msgs == ["For MPI backend, world_size (7) and rank (0) are ignored since "
                        "they are assigned by the MPI runtime."], msgs
    r, world = dist.get_rank(), dist.get_world_size()
    assert world == int(os.environ["OMPI_COMM_WORLD_SIZE"]), world
    assert r == int(os.environ["OMPI_COMM_WORLD_RANK"]), r
    assert dist.get_backend() == "mpi" and dist.is_mpi_available()
    if scenario != "warn":
        globals()["case_" + scenario](r, world)
    if dist.is_initialized():
        dist.destroy_process_group()
    print("ok %s %d" % (sys.argv[1], r), flush=True)


if __name__ == "__main__":
    main()
