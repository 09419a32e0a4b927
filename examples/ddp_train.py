"""Distributed data-parallel training on synthetic images: the main demo.

A small CNN learns to tell ten synthetic "digit" classes apart (each class is
a fixed random 28x28 pattern; samples are that pattern shifted and noised, so
nothing has to be downloaded).  Every process trains a DistributedDataParallel
copy of the model on its DistributedSampler shard over gloo; rank 0 prints a
line per epoch, the final test accuracy, and saves a checkpoint.

The file is an ordinary PyTorch script.  Run it on ctorch through the
launcher (this is what `make demo` does):

    bin/ctorchrun -m torch.distributed.run --nproc_per_node=2 examples/ddp_train.py

or unchanged on PyTorch:  torchrun --nproc_per_node=2 examples/ddp_train.py
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc1 = nn.Linear(16 * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc2(x)


def synthetic_digits(n, seed):
    """n samples of ten classes: a class's fixed pattern, shifted by up to two
    pixels and noised.  The patterns depend on nothing but the generator seed
    0, so the train and test sets (different seeds) share them."""
    g = torch.Generator().manual_seed(0)
    patterns = (torch.rand(10, 1, 28, 28, generator=g) > 0.7).float()
    g.manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=g)
    shifts = torch.randint(-2, 3, (n, 2), generator=g)
    images = torch.empty(n, 1, 28, 28)
    for i in range(n):
        dy, dx = int(shifts[i, 0]), int(shifts[i, 1])
        images[i] = torch.roll(patterns[labels[i]], (dy, dx), dims=(1, 2))
    images += 0.3 * torch.randn(n, 1, 28, 28, generator=g)
    return TensorDataset(images, labels)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64, help="per process")
    p.add_argument("--train-size", type=int, default=4096)
    p.add_argument("--test-size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--checkpoint", default="ddp_checkpoint.pt")
    args = p.parse_args()

    dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_* from the launcher
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234 + rank)  # ranks start different; DDP broadcasts rank 0's weights

    train = synthetic_digits(args.train_size, seed=1)
    test = synthetic_digits(args.test_size, seed=2)
    sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler)

    model = DDP(Net())
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    if rank == 0:
        print(f"training on {world} processes, {len(train)} samples, "
              f"batch {args.batch_size} per process", flush=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        t0 = time.perf_counter()
        stats = torch.zeros(2, dtype=torch.float64)  # summed loss, samples
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            stats += torch.tensor([loss.item() * len(y), len(y)], dtype=torch.float64)
        dist.all_reduce(stats)
        secs = time.perf_counter() - t0
        if rank == 0:
            print(f"epoch {epoch + 1}/{args.epochs}  loss {stats[0] / stats[1]:.4f}  "
                  f"{stats[1] / secs:.0f} samples/s", flush=True)

    # each rank scores its shard of the test set; the counts are summed
    model.eval()
    test_sampler = DistributedSampler(test, num_replicas=world, rank=rank, shuffle=False)
    counts = torch.zeros(2, dtype=torch.int64)  # correct, seen
    with torch.no_grad():
        for x, y in DataLoader(test, batch_size=256, sampler=test_sampler):
            counts += torch.tensor([(model(x).argmax(1) == y).sum().item(), len(y)])
    dist.all_reduce(counts)
    if rank == 0:
        print(f"test accuracy {100.0 * counts[0] / counts[1]:.1f}% "
              f"({int(counts[0])}/{int(counts[1])})", flush=True)
        torch.save({"model": model.module.state_dict(), "epochs": args.epochs},
                   args.checkpoint)
        print(f"saved {args.checkpoint}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
