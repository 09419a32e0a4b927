"""Every torch.distributed collective over the "mpi" backend: a plain
PyTorch script, run unchanged by ctorch under OpenMPI's launcher:

    mpirun -np 2 --oversubscribe --allow-run-as-root bin/ctorchrun examples/mpi_collectives.py

(--allow-run-as-root only as root).  Rank and world size come from mpirun;
each rank prints what it holds after each operation.
"""
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()

    def show(what, value):
        if isinstance(value, torch.Tensor):
            value = value.tolist()
        elif isinstance(value, list):
            value = [v.tolist() if isinstance(v, torch.Tensor) else v for v in value]
        print(f"rank {rank}/{world} {what}: {value}", flush=True)

    show("backend", dist.get_backend())
    t = torch.arange(4, dtype=torch.float32) + rank
    dist.all_reduce(t)
    show("all_reduce sum", t)
    for name, op in [("product", dist.ReduceOp.PRODUCT), ("min", dist.ReduceOp.MIN),
                     ("max", dist.ReduceOp.MAX), ("avg", dist.ReduceOp.AVG)]:
        t = torch.tensor([rank + 1.0, 2.0 * rank])
        dist.all_reduce(t, op=op)
        show("all_reduce " + name, t)
    for name, op in [("band", dist.ReduceOp.BAND), ("bor", dist.ReduceOp.BOR),
                     ("bxor", dist.ReduceOp.BXOR)]:
        t = torch.tensor([rank + 6, 1 << rank])
        dist.all_reduce(t, op=op)
        show("all_reduce " + name, t)

    t = torch.tensor([rank * 10])
    dist.reduce(t, dst=0)
    show("reduce to 0", t)
    t = torch.tensor([1.5, 2.5]) if rank == 0 else torch.zeros(2)
    dist.broadcast(t, src=0)
    show("broadcast", t)

    out = [torch.zeros(2, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(out, torch.tensor([rank, rank * rank]))
    show("all_gather", out)
    flat = torch.zeros(world, dtype=torch.int32)
    dist.all_gather_into_tensor(flat, torch.tensor([rank + 100], dtype=torch.int32))
    show("all_gather_into_tensor", flat)
    got = [torch.zeros(1) for _ in range(world)] if rank == 0 else None
    dist.gather(torch.tensor([rank + 0.5]), got, dst=0)
    show("gather to 0", got if got is not None else "-")
    part = torch.zeros(2)
    dist.scatter(part, [torch.full((2,), q * 3.0) for q in range(world)] if rank == 0 else None,
                 src=0)
    show("scatter", part)

    out = torch.zeros(1)
    dist.reduce_scatter(out, [torch.tensor([10.0 * rank + q]) for q in range(world)])
    show("reduce_scatter", out)
    out = torch.zeros(2)
    dist.reduce_scatter_tensor(out, torch.arange(2.0 * world) * (rank + 1))
    show("reduce_scatter_tensor", out)
    out = torch.zeros(world, dtype=torch.int64)
    dist.all_to_all_single(out, torch.arange(world) + 10 * rank)
    show("all_to_all_single", out)
    outs = [torch.zeros(q + 1) for q in range(world)]
    dist.all_to_all(outs, [torch.full((rank + 1,), float(rank * 10 + q)) for q in range(world)])
    show("all_to_all", outs)

    if world > 1:
        if rank == 0:
            dist.send(torch.tensor([3.14]), dst=1, tag=5)
        elif rank == 1:
            x = torch.zeros(1)
            dist.recv(x, src=0, tag=5)
            show("recv from 0", x)
        req = dist.isend(torch.tensor([rank]), dst=(rank + 1) % world)
        y = torch.zeros(1, dtype=torch.int64)
        dist.recv(y, src=(rank - 1) % world)
        req.wait()
        show("ring isend/recv", y)

    objs = [{"rank": rank}] * world
    gathered = [None] * world
    dist.all_gather_object(gathered, {"rank": rank, "name": f"worker{rank}"})
    show("all_gather_object", gathered)
    box = ["hello", 42] if rank == 0 else [None, None]
    dist.broadcast_object_list(box, src=0)
    show("broadcast_object_list", box)
    del objs

    work = dist.all_reduce(torch.ones(3), async_op=True)
    work.wait()
    show("async all_reduce done", work.is_completed())
    dist.barrier()
    dist.destroy_process_group()
    show("finished", True)


if __name__ == "__main__":
    main()
