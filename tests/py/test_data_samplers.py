"""ctorch.utils.data samplers, DistributedSampler and random_split: the
index sequences PyTorch 1.13 gives for the same seeds (recorded in
data/data_loader_expected.py, and against torch where it is installed),
where each leaves the random generators, and torch's error messages."""
import os
import sys

import pytest

import ctorch
import ctorch.utils.data as D

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
import data_loader_cases as dc  # noqa: E402
from data_loader_expected import EXPECTED  # noqa: E402

NAMES = sorted(n for n in dc.CASES if n.split("/")[0] in ("sampler", "distributed"))


@pytest.mark.parametrize("name", NAMES)
def test_recorded(name):
    assert dc.CASES[name](ctorch) == EXPECTED[name]


@pytest.mark.parametrize("name", NAMES)
def test_against_torch(name, torch_ref):
    assert dc.CASES[name](ctorch) == dc.CASES[name](torch_ref)


def test_random_sampler_matches_randperm():
    # the sampler's seed is one int64 draw from the default generator
    ctorch.manual_seed(0)
    seed = int(ctorch.empty((), dtype=ctorch.int64).random_().item())
    g = ctorch.Generator()
    g.manual_seed(seed)
    expect = ctorch.randperm(50, generator=g).tolist()
    ctorch.manual_seed(0)
    assert list(D.RandomSampler(range(50))) == expect


def test_random_sampler_follows_dataset_length():
    data = list(range(3))
    s = D.RandomSampler(data, generator=ctorch.Generator())
    data.append(3)
    assert len(s) == 4 and sorted(s) == [0, 1, 2, 3]


def test_random_sampler_large_permutation():
    g = ctorch.Generator()
    g.manual_seed(3)
    out = list(D.RandomSampler(range(100000), generator=g))
    assert sorted(out) == list(range(100000))
    g.manual_seed(3)
    assert out == ctorch.randperm(100000, generator=g).tolist()


def test_batch_sampler_reuses_nothing():
    # each batch is a new list: keeping one must not see the next
    batches = list(D.BatchSampler(range(7), 3, False))
    assert batches == [[0, 1, 2], [3, 4, 5], [6]]
    assert len({id(b) for b in batches}) == 3


def test_distributed_defaults_ask_the_package():
    # num_replicas and rank default to the default group's world size and
    # rank; without ctorch.distributed, torch's error for a build without it
    if D.distributed._distributed() is None:
        match = "^Requires distributed package to be available$"
    else:
        match = "^Default process group has not been initialized"
    for kw in ({}, {"num_replicas": 2}, {"rank": 0}):
        with pytest.raises(RuntimeError, match=match):
            D.DistributedSampler(range(4), **kw)


def test_distributed_ranks_partition_the_epoch():
    n, replicas = 23, 4
    parts = [list(D.DistributedSampler(range(n), num_replicas=replicas, rank=r, seed=5))
             for r in range(replicas)]
    flat = sorted(i for p in parts for i in p)
    assert len(flat) == 24 and set(flat) == set(range(n))     # one index repeated
    dropped = [list(D.DistributedSampler(range(n), num_replicas=replicas, rank=r, seed=5,
                                         drop_last=True)) for r in range(replicas)]
    assert all(len(p) == 5 for p in dropped)
    assert len({i for p in dropped for i in p}) == 20


def test_samplers_are_generic():
    # subscriptable as torch's typing generics
    assert D.Sampler[int] is not None and D.Dataset[int] is not None
    assert isinstance(D.DistributedSampler(range(2), 1, 0), D.Sampler)


def test_public_names():
    assert set(D.__all__) >= {
        "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
        "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
        "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
        "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info",
        "random_split"}
    for name in D.__all__:
        assert hasattr(D, name)
    assert D.distributed.DistributedSampler is D.DistributedSampler
    assert D.sampler.RandomSampler is D.RandomSampler
    assert D.dataset.TensorDataset is D.TensorDataset
