"""DistributedSampler (torch.utils.data.distributed): each of num_replicas
processes takes every num_replicas-th index of one shared (optionally
shuffled) order, padded by repetition or cut to divide evenly."""
import math
from typing import Iterator, Optional, TypeVar

from ... import _C
from .dataset import Dataset
from .sampler import Sampler

__all__ = ["DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


def _distributed():
    """ctorch.distributed when it is there and available, else None."""
    try:
        from ... import distributed
    except ImportError:
        return None
    is_available = getattr(distributed, "is_available", None)
    return distributed if is_available is not None and is_available() else None


class DistributedSampler(Sampler[T_co]):
    """Indices rank, rank + num_replicas, ... of the epoch's order: a
    permutation from a generator seeded with seed + epoch when shuffle, else
    0..len-1.  Without drop_last the order is padded with its own first
    indices (repeated as often as needed) to a multiple of num_replicas;
    with it, the tail is cut.  num_replicas and rank default to the world
    size and rank of torch.distributed's default group.  Call set_epoch()
    before each epoch for a new order."""

    def __init__(self, dataset: Dataset, num_replicas: Optional[int] = None,
                 rank: Optional[int] = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            dist = _distributed()
            if dist is None:
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            dist = _distributed()
            if dist is None:
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError("Invalid rank {}, rank should be in the interval"
                             " [0, {}]".format(rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            # the largest even split that drops the fewest samples
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        n = len(self.dataset)
        if self.shuffle:
            g = _C.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = _C.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch whose order the next iteration gives (with shuffle)."""
        self.epoch = epoch
