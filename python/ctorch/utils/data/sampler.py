"""Samplers (torch.utils.data.sampler): iterables of dataset keys.

The random ones draw from ctorch's generators exactly as PyTorch 1.13's do
(the same calls in the same order, lazily at the first next()), so a seed
gives torch's index sequence.
"""
from typing import Generic, Iterator, List, Optional, Sequence, Sized, TypeVar

from ... import _C
from ..._C import int64

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses give __iter__, and __len__ where they can.
    There is deliberately no default __len__ (see torch's NOTE [ Lack of
    Default `__len__` in Python Abstract Base Classes ]): list() and friends
    must be able to fall back on iteration."""

    def __init__(self, data_source: Optional[Sized]) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _seeded_generator():
    """A fresh generator seeded by one int64 draw from the default one (what
    torch does when a random sampler is given no generator)."""
    seed = int(_C.empty((), dtype=int64).random_().item())
    g = _C.Generator()
    g.manual_seed(seed)
    return g


class RandomSampler(Sampler[int]):
    """A random permutation of the dataset's indices (repeated, then cut, to
    make num_samples), or num_samples draws with replacement."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: Optional[int] = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            "replacement={}".format(self.replacement))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(self.num_samples))

    @property
    def num_samples(self) -> int:
        # the dataset's size may change between epochs
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _seeded_generator()
        if self.replacement:
            # drawn 32 at a time, as torch does, so the sequence is its
            for _ in range(self.num_samples // 32):
                yield from _C.randint(high=n, size=(32,), dtype=int64,
                                      generator=generator).tolist()
            yield from _C.randint(high=n, size=(self.num_samples % 32,), dtype=int64,
                                  generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _C.randperm(n, generator=generator).tolist()
            yield from _C.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _C.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """num_samples indices into weights, drawn with probabilities
    proportional to the weights (torch.multinomial)."""

    def __init__(self, weights: Sequence[float], num_samples: int,
                 replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(num_samples))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             "replacement={}".format(replacement))
        weights_tensor = _C.as_tensor(weights, dtype=_C.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             "weights have shape {}".format(tuple(weights_tensor.shape)))
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = _C.multinomial(self.weights, self.num_samples, self.replacement,
                               generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[List[int]]):
    """Groups the indices of another sampler (any iterable) into lists of
    batch_size; the last, shorter one is dropped if drop_last."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        # no isinstance check on sampler: anything iterable will do
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or \
                batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, "
                             "but got batch_size={}".format(batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             "drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[List[int]]:
        size = self.batch_size
        if self.drop_last:
            it = iter(self.sampler)
            while True:
                try:
                    batch = [next(it) for _ in range(size)]
                except StopIteration:
                    return
                yield batch
        batch = [0] * size
        filled = 0
        for idx in self.sampler:
            batch[filled] = idx
            filled += 1
            if filled == size:
                yield batch
                filled = 0
                batch = [0] * size
        if filled > 0:
            yield batch[:filled]

    def __len__(self) -> int:
        # only where the wrapped sampler has a length
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
