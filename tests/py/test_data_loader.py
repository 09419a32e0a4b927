"""ctorch.utils.data.DataLoader in the main process (num_workers=0): the
batches, lengths, warnings and errors of PyTorch 1.13 (recorded in
data/data_loader_expected.py, and against torch where it is installed),
where iterating leaves the random generators, and how the package loads."""
import os
import subprocess
import sys

import pytest

import ctorch
import ctorch.utils.data as D

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "data"))
import data_loader_cases as dc  # noqa: E402
from data_loader_expected import EXPECTED  # noqa: E402

NAMES = sorted(n for n in dc.CASES if n.split("/")[0] == "loader")


@pytest.mark.parametrize("name", NAMES)
def test_recorded(name):
    assert dc.CASES[name](ctorch) == EXPECTED[name]


@pytest.mark.parametrize("name", NAMES)
def test_against_torch(name, torch_ref):
    assert dc.CASES[name](ctorch) == dc.CASES[name](torch_ref)


def test_base_seed_is_drawn_from_the_generator():
    g = ctorch.Generator()
    g.manual_seed(7)
    expect = ctorch.empty((), dtype=ctorch.int64).random_(generator=g).item()
    g.manual_seed(7)
    it = iter(D.DataLoader(range(4), generator=g))
    assert it._base_seed == expect


def test_iterating_twice_and_interleaved():
    loader = D.DataLoader(list(range(5)), batch_size=2)
    a, b = iter(loader), iter(loader)
    assert next(a).tolist() == [0, 1] and next(b).tolist() == [0, 1]
    assert [x.tolist() for x in a] == [[2, 3], [4]]
    assert [x.tolist() for x in loader] == [[0, 1], [2, 3], [4]]
    with pytest.raises(StopIteration):
        next(a)


def test_custom_collate_and_sampler_objects():
    class Evens(D.Sampler):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(0, self.n, 2))

        def __len__(self):
            return (self.n + 1) // 2
    loader = D.DataLoader(list("abcdefg"), batch_size=2, sampler=Evens(7),
                          collate_fn="".join)
    assert list(loader) == ["ac", "eg"] and len(loader) == 2


def test_getitems_is_used_for_batches():
    class Batched:
        def __len__(self):
            return 5

        def __getitem__(self, i):
            raise AssertionError("__getitems__ should be used")

        def __getitems__(self, indices):
            return [i * 10 for i in indices]
    assert [b.tolist() for b in D.DataLoader(Batched(), batch_size=2)] == \
        [[0, 10], [20, 30], [40]]


def test_dataset_error_propagates_unwrapped():
    class Bad:
        def __len__(self):
            return 3

        def __getitem__(self, i):
            raise ValueError("sample %d" % i)
    with pytest.raises(ValueError, match="^sample 0$"):
        next(iter(D.DataLoader(Bad())))


def test_subclass_of_tensor_dataset_getitem_is_honoured():
    class Doubled(D.TensorDataset):
        def __getitem__(self, i):
            return tuple(t[i] * 2 for t in self.tensors)
    out = list(D.DataLoader(Doubled(ctorch.arange(4)), batch_size=4))
    assert out[0][0].tolist() == [0, 2, 4, 6]


def _run(code, env=None):
    full = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, cwd="/", timeout=120)


def test_lazy_submodule():
    # `import ctorch` does not load ctorch.utils.data; the attribute does
    r = _run("import sys, ctorch\n"
             "assert 'ctorch.utils.data' not in sys.modules\n"
             "print(ctorch.utils.data.DataLoader.__module__)\n"
             "print(ctorch.utils.data.dataloader.DataLoader is ctorch.utils.data.DataLoader)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ctorch.utils.data.dataloader", "True"]
    r = _run("import ctorch; ctorch.utils.nothing")
    assert "AttributeError: module 'ctorch.utils' has no attribute 'nothing'" in r.stderr


def test_names_under_ctorchrun():
    r = subprocess.run(
        [os.path.join(ROOT, "bin", "ctorchrun"), "-c",
         "import torch\n"
         "from torch.utils.data import DataLoader, TensorDataset\n"
         "print(DataLoader, torch.utils.data.RandomSampler)\n"
         "ds = TensorDataset(torch.arange(6))\n"
         "print([b[0].tolist() for b in DataLoader(ds, batch_size=4)])"],
        capture_output=True, text=True, cwd="/", timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "<class 'torch.utils.data.dataloader.DataLoader'> "
        "<class 'torch.utils.data.sampler.RandomSampler'>",
        "[[0, 1, 2, 3], [4, 5]]"]
