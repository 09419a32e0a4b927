"""ctorch.utils.data datasets and collation: TensorDataset, ConcatDataset,
ChainDataset, Subset, default_collate and default_convert give PyTorch
1.13's results, types and errors (recorded in data/data_loader_expected.py,
and against torch where it is installed)."""
import collections
import os
import sys

import numpy as np
import pytest

import ctorch
import ctorch.utils.data as D

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
import data_loader_cases as dc  # noqa: E402
from data_loader_expected import EXPECTED  # noqa: E402

NAMES = sorted(n for n in dc.CASES if n.split("/")[0] in ("dataset", "collate"))


@pytest.mark.parametrize("name", NAMES)
def test_recorded(name):
    assert dc.CASES[name](ctorch) == EXPECTED[name]


@pytest.mark.parametrize("name", NAMES)
def test_against_torch(name, torch_ref):
    assert dc.CASES[name](ctorch) == dc.CASES[name](torch_ref)


def test_tensor_dataset_views():
    x = ctorch.arange(6.).reshape(3, 2)
    ds = D.TensorDataset(x)
    assert ds.tensors == (x,)
    row = ds[1][0]
    row[0] = 10.
    assert x[1, 0].item() == 10.      # samples are views, as in torch


def test_collate_keeps_mapping_and_sequence_types():
    class Frozen(collections.abc.Mapping):
        # a mapping whose constructor takes no dict: collated into a dict
        def __init__(self, **kw):
            self._d = dict(kw)

        def __getitem__(self, k):
            return self._d[k]

        def __iter__(self):
            return iter(self._d)

        def __len__(self):
            return len(self._d)
    out = D.default_collate([Frozen(a=1), Frozen(a=2)])
    assert type(out) is dict and out["a"].tolist() == [1, 2]
    od = D.default_collate([collections.OrderedDict(b=1, a=2)] * 2)
    assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]


def test_collate_tensor_subclass_and_dtypes():
    p = ctorch.nn.Parameter(ctorch.ones(2))
    out = D.default_collate([p, p])
    assert type(out) is ctorch.Tensor and out.shape == (2, 2)
    for dtype in (ctorch.uint8, ctorch.int16, ctorch.float16, ctorch.bfloat16, ctorch.bool,
                  ctorch.float64):
        t = ctorch.zeros(3, dtype=dtype)
        assert D.default_collate([t, t]).dtype == dtype


def test_collate_fn_map_extension():
    collate = D._utils.collate
    fn_map = dict(collate.default_collate_fn_map)
    fn_map[str] = lambda batch, *, collate_fn_map=None: "".join(batch)
    assert collate.collate([("a", 1), ("b", 2)], collate_fn_map=fn_map)[0] == "ab"


def test_numpy_types_join_the_map_after_tensor():
    # numpy is imported by now; its entries sit right after Tensor, as in torch
    collate = D._utils.collate
    D.default_collate([1, 2])
    keys = list(collate.default_collate_fn_map)
    assert keys[0] is ctorch.Tensor
    assert keys[1] is np.ndarray
    assert keys[2] == (np.bool_, np.number, np.object_)
    assert keys[3:] == [float, int, (str, bytes)]


def test_default_convert_keeps_unknown_objects():
    obj = object()
    assert D.default_convert(obj) is obj
    t = ctorch.ones(1)
    assert D.default_convert(t) is t
    arr = np.arange(3)
    conv = D.default_convert(arr)
    arr[0] = 7
    assert conv[0].item() == 7          # as_tensor shares the array's memory
