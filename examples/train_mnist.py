"""Train a small CNN (or an MLP) on an MNIST-like synthetic data set.

A plain PyTorch script: it imports only `torch` (torch.nn, torch.nn.functional,
torch.optim), so it runs unchanged under PyTorch and under ctorch:

    bin/ctorchrun examples/train_mnist.py            # ctorch
    python3 examples/train_mnist.py                  # PyTorch, from another directory

Nothing is downloaded: ten 28x28 "digits" are drawn once from the seeded
generator (blocky random prototypes), and every sample is one of them shifted
by up to two pixels, rescaled in contrast, with pixels knocked out and
Gaussian noise added.  Because ctorch's generator reproduces PyTorch's bit for
bit, both see the same images, the same initial weights and the same batches.

It prints the loss of each epoch, the final train and test accuracy, and
checks that the state dict survives torch.save / torch.load.
"""
import argparse
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SIDE = 28
CLASSES = 10


def make_prototypes():
    """Ten blocky 28x28 patterns: a shared random 7x7 on/off grid with a
    few cells flipped per class, scaled up 4x (so classes look alike)."""
    base = torch.rand(1, 1, 7, 7) > 0.5
    flip = torch.rand(CLASSES, 1, 7, 7) < 0.2
    grid = (base ^ flip).float()
    return F.interpolate(grid, scale_factor=4, mode="nearest")


def make_dataset(protos, n, shift=3, noise=1.0, dropout=0.25):
    """n noisy, shifted samples of the prototypes with their labels."""
    labels = torch.randint(0, CLASSES, (n,))
    x = protos[labels]
    # shift every sample by (dy, dx) in [-shift, shift]^2: one roll per shift
    dy = torch.randint(-shift, shift + 1, (n,))
    dx = torch.randint(-shift, shift + 1, (n,))
    for sy in range(-shift, shift + 1):
        for sx in range(-shift, shift + 1):
            idx = ((dy == sy) & (dx == sx)).nonzero().flatten()
            if idx.numel():
                x[idx] = torch.roll(x[idx], shifts=(sy, sx), dims=(2, 3))
    contrast = 0.5 + torch.rand(n, 1, 1, 1)
    keep = (torch.rand(n, 1, SIDE, SIDE) > dropout).float()
    x = x * contrast * keep + noise * torch.randn(n, 1, SIDE, SIDE)
    return (x - 0.3) / 0.8, labels


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)      # 8 x 14 x 14
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)      # 16 x 7 x 7
        return self.fc(torch.flatten(x, 1))


def make_mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(SIDE * SIDE, 128), nn.ReLU(),
                         nn.Dropout(0.2), nn.Linear(128, CLASSES))


def make_model(kind):
    return SmallCNN() if kind == "cnn" else make_mlp()


def train_epoch(model, opt, x, y, batch_size):
    """One pass over (x, y) in a random order; returns the mean loss."""
    model.train()
    order = torch.randperm(x.shape[0])
    total, count = 0.0, 0
    for start in range(0, x.shape[0], batch_size):
        idx = order[start:start + batch_size]
        opt.zero_grad()
        loss = F.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        total += loss.item() * idx.numel()
        count += idx.numel()
    return total / count


@torch.no_grad()
def accuracy(model, x, y, batch_size=500):
    model.eval()
    correct = 0
    for start in range(0, x.shape[0], batch_size):
        pred = model(x[start:start + batch_size]).argmax(dim=1)
        correct += (pred == y[start:start + batch_size]).sum().item()
    return correct / x.shape[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", choices=("cnn", "mlp"), default="cnn")
    p.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--train-size", type=int, default=4000)
    p.add_argument("--test-size", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=50)
    p.add_argument("--lr", type=float, default=None,
                   help="learning rate (default 0.05 for SGD, 0.002 for Adam)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    torch.manual_seed(args.seed)
    protos = make_prototypes()
    x_train, y_train = make_dataset(protos, args.train_size)
    x_test, y_test = make_dataset(protos, args.test_size)

    model = make_model(args.model)
    if args.optimizer == "sgd":
        lr = 0.05 if args.lr is None else args.lr
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        lr = 0.002 if args.lr is None else args.lr
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    nparams = sum(q.numel() for q in model.parameters())
    print(f"{args.model}: {nparams} parameters, {args.optimizer} lr={lr}, "
          f"{args.train_size} train / {args.test_size} test samples")

    t0 = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        lr_now = opt.param_groups[0]["lr"]
        loss = train_epoch(model, opt, x_train, y_train, args.batch_size)
        sched.step()
        print(f"epoch {epoch}  lr {lr_now:.4f}  loss {loss:.4f}")
    elapsed = time.perf_counter() - t0

    train_acc = accuracy(model, x_train, y_train)
    test_acc = accuracy(model, x_test, y_test)
    print(f"train accuracy {100 * train_acc:.2f}%  test accuracy {100 * test_acc:.2f}%")

    # the weights round-trip through a file
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.pt")
        torch.save(model.state_dict(), path)
        restored = make_model(args.model)
        restored.load_state_dict(torch.load(path, weights_only=True))
    same = all(torch.equal(a, b) for a, b in
               zip(model.state_dict().values(), restored.state_dict().values()))
    print(f"reloaded from torch.save: weights equal {same}, "
          f"test accuracy {100 * accuracy(restored, x_test, y_test):.2f}%")
    print(f"training took {elapsed:.1f} s")


if __name__ == "__main__":
    main()
