"""Cases of torch.utils.data for test_data_*.py: each is a function of the
library (ctorch or torch) returning plain Python values, so one
expression is run against ctorch, against torch, and against the values
recorded from torch 1.13 (data_loader_expected.py, written by
gen_data_loader_expected.py).

Datasets that cross into worker processes are module-level classes that
name their library by string, so that the spawn start method can pickle
them.
"""
import collections
import importlib
import math
import os
import random
import signal
import time
import warnings

import numpy as np

CASES = {}


def case(group):
    def register(fn):
        CASES[group + "/" + fn.__name__] = fn
        return fn
    return register


def err(fn):
    """[exception type, message] raised by fn(), or None."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001 - the exception is the result
        return [type(e).__name__, str(e)]
    return None


def caught(fn):
    """fn()'s value and the messages of the warnings it gave."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        value = fn()
    return [value, [[x.category.__name__, str(x.message)] for x in w]]


def gen(torch, seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


def show(torch, v):
    """A batch as plain values: tensors as [dtype, shape, values], containers
    with their type names."""
    if isinstance(v, torch.Tensor):
        return ["T", str(v.dtype), list(v.shape), v.tolist()]
    if isinstance(v, dict):
        return ["dict", type(v).__name__, [[k, show(torch, x)] for k, x in v.items()]]
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return ["namedtuple", type(v).__name__, [show(torch, x) for x in v]]
    if isinstance(v, (list, tuple)):
        return [type(v).__name__, [show(torch, x) for x in v]]
    if isinstance(v, np.ndarray):
        return ["ndarray", str(v.dtype), v.tolist()]
    return [type(v).__name__, repr(v)]


def lib(name):
    return importlib.import_module(name)


def draws(torch, g=None):
    """Three draws that show where a generator (default: the global one) is."""
    return torch.randint(0, 1 << 30, (3,), generator=g).tolist()


# --- samplers -------------------------------------------------------------------------

@case("sampler")
def sequential(torch):
    s = torch.utils.data.SequentialSampler(range(7))
    return [list(s), len(s)]


@case("sampler")
def random_perm(torch):
    D = torch.utils.data
    return [list(D.RandomSampler(range(10), generator=gen(torch, 0))),
            list(D.RandomSampler(range(1), generator=gen(torch, 0)))]


@case("sampler")
def random_replacement(torch):
    # 70 = two batches of 32 draws and 6 more
    g = gen(torch, 1)
    s = torch.utils.data.RandomSampler(range(10), replacement=True, num_samples=70,
                                       generator=g)
    return [list(s), len(s), draws(torch, g)]


@case("sampler")
def random_num_samples(torch):
    D = torch.utils.data
    return [list(D.RandomSampler(range(10), num_samples=25, generator=gen(torch, 2))),
            list(D.RandomSampler(range(10), num_samples=3, generator=gen(torch, 2))),
            len(D.RandomSampler(range(10), num_samples=25))]


@case("sampler")
def random_default_generator(torch):
    # a fresh generator seeded by one draw from the default one, per epoch
    torch.manual_seed(5)
    s = torch.utils.data.RandomSampler(range(12))
    return [list(s), list(s), draws(torch)]


@case("sampler")
def random_lazy(torch):
    # nothing is drawn before the first next()
    torch.manual_seed(6)
    it = iter(torch.utils.data.RandomSampler(range(5)))
    before = draws(torch)
    torch.manual_seed(6)
    it = iter(torch.utils.data.RandomSampler(range(5)))
    first = next(it)
    return [before, first, draws(torch)]


@case("sampler")
def subset_random(torch):
    D = torch.utils.data
    s = D.SubsetRandomSampler([10, 20, 30, 40, 50], generator=gen(torch, 3))
    t = D.SubsetRandomSampler(torch.arange(5) * 7, generator=gen(torch, 3))
    torch.manual_seed(7)
    u = list(D.SubsetRandomSampler(list(range(8))))
    return [list(s), len(s), [int(i) for i in t], u, draws(torch)]


@case("sampler")
def weighted(torch):
    D = torch.utils.data
    w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    torch.manual_seed(8)
    default = list(D.WeightedRandomSampler(w, 6))
    return [list(D.WeightedRandomSampler(w, 20, generator=gen(torch, 4))),
            list(D.WeightedRandomSampler(w, 5, replacement=False, generator=gen(torch, 4))),
            list(D.WeightedRandomSampler(torch.tensor([1., 2., 3.]), 7,
                                         generator=gen(torch, 4))),
            len(D.WeightedRandomSampler(w, 9)), default, draws(torch),
            str(D.WeightedRandomSampler([1, 2], 1).weights.dtype)]


@case("sampler")
def batch(torch):
    D = torch.utils.data
    out = []
    for drop_last in (False, True):
        for n in (10, 9, 2, 0):
            b = D.BatchSampler(D.SequentialSampler(range(n)), 3, drop_last)
            out.append([list(b), len(b)])
    out.append(list(D.BatchSampler([5, 6, 7, 8], 2, False)))
    out.append(list(D.BatchSampler(iter([5, 6, 7]), 2, True)))
    return out


@case("sampler")
def sampler_errors(torch):
    D = torch.utils.data
    return [
        err(lambda: D.RandomSampler(range(3), replacement=1)),
        err(lambda: D.RandomSampler(range(3), num_samples=0)),
        err(lambda: D.RandomSampler(range(0))),
        err(lambda: D.RandomSampler(range(3), num_samples=2.0)),
        err(lambda: D.WeightedRandomSampler([1.], 0)),
        err(lambda: D.WeightedRandomSampler([1.], True)),
        err(lambda: D.WeightedRandomSampler([1.], 2, replacement=0)),
        err(lambda: D.WeightedRandomSampler([[1.]], 2)),
        err(lambda: list(D.WeightedRandomSampler([1., 2.], 3, replacement=False))),
        err(lambda: list(D.WeightedRandomSampler([-1., 2.], 3))),
        err(lambda: list(D.WeightedRandomSampler([0., 0.], 3))),
        err(lambda: D.BatchSampler(range(3), 0, False)),
        err(lambda: D.BatchSampler(range(3), True, False)),
        err(lambda: D.BatchSampler(range(3), 2, None)),
        err(lambda: len(D.BatchSampler(iter(range(3)), 2, False))),
        err(lambda: len(D.Sampler(None))),
        err(lambda: iter(D.Sampler(None))),
    ]


# --- DistributedSampler -----------------------------------------------------------------

def _distributed_rows(torch, n, replicas, shuffle, drop_last, seed=7, epoch=2):
    rows = []
    for rank in range(replicas):
        s = torch.utils.data.DistributedSampler(list(range(n)), num_replicas=replicas,
                                                rank=rank, shuffle=shuffle,
                                                drop_last=drop_last, seed=seed)
        s.set_epoch(epoch)
        rows.append([list(s), len(s), s.num_samples, s.total_size])
    return rows


DISTRIBUTED_GRID = [(n, r, sh, dl) for n in (11, 10, 3, 1) for r in (3, 4)
                    for sh in (False, True) for dl in (False, True)]


@case("distributed")
def grid(torch):
    """Every rank of every (len, num_replicas, shuffle, drop_last): padding
    by repetition, even past the dataset's length (3 and 1 over 4)."""
    return [_distributed_rows(torch, *p) for p in DISTRIBUTED_GRID]


@case("distributed")
def epochs_and_seeds(torch):
    D = torch.utils.data
    s = D.DistributedSampler(range(20), num_replicas=2, rank=1)
    out = [list(s), s.epoch, s.seed, s.shuffle, s.drop_last]
    s.set_epoch(1)
    out.append(list(s))
    s = D.DistributedSampler(range(20), num_replicas=2, rank=0, seed=1)
    out.append(list(s))
    torch.manual_seed(9)
    list(D.DistributedSampler(range(5), num_replicas=1, rank=0))
    out.append(draws(torch))        # the global generator is left alone
    return out


@case("distributed")
def distributed_errors(torch):
    D = torch.utils.data
    return [err(lambda: D.DistributedSampler(range(3), num_replicas=2, rank=2)),
            err(lambda: D.DistributedSampler(range(3), num_replicas=2, rank=-1))]


# --- datasets -------------------------------------------------------------------------

class Stream:
    """An iterable dataset of range(n) (base class chosen per library)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def _iterable(base, libname):
    """base mixed with libname's IterableDataset, as the module attribute
    <base>_<libname> (made on first use, also by __getattr__ in a spawned
    worker, so that pickle finds it)."""
    name = base.__name__ + "_" + libname
    cls = globals().get(name)
    if cls is None:
        cls = type(name, (base, lib(libname).utils.data.IterableDataset),
                   {"__module__": __name__, "__qualname__": name})
        globals()[name] = cls
    return cls


def __getattr__(name):
    base, _, libname = name.partition("_")
    if base in ("Stream", "Shards", "Overlong") and libname in ("ctorch", "torch"):
        return _iterable(globals()[base], libname)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def stream(torch, n):
    return _iterable(Stream, torch.__name__)(n)


@case("dataset")
def tensor_dataset(torch):
    D = torch.utils.data
    x = torch.arange(12).reshape(6, 2)
    y = torch.arange(6) * 10
    td = D.TensorDataset(x, y)
    return [len(td), show(torch, td[2]), show(torch, td[-1]), show(torch, td[1:3]),
            show(torch, td[[0, 5]]), err(lambda: D.TensorDataset(x, torch.arange(5))),
            err(lambda: td[6]), len(D.TensorDataset(x))]


@case("dataset")
def concat(torch):
    D = torch.utils.data
    cd = D.ConcatDataset([range(3), range(10, 15), [], range(20, 22)])
    return [len(cd), cd.cumulative_sizes, [cd[i] for i in range(len(cd))], cd[-1], cd[-10],
            err(lambda: cd[-11]), err(lambda: cd[10]), err(lambda: D.ConcatDataset([])),
            err(lambda: D.ConcatDataset([D.IterableDataset()])),
            caught(lambda: cd.cummulative_sizes), D.ConcatDataset.cumsum([[1], [2, 3]])]


@case("dataset")
def chain(torch):
    D = torch.utils.data
    ch = D.ChainDataset([stream(torch, 3), stream(torch, 2)])
    added = stream(torch, 2) + stream(torch, 3)
    return [list(ch), len(ch), list(added), type(added).__name__,
            err(lambda: list(D.ChainDataset([stream(torch, 2), range(3)]))),
            err(lambda: len(D.ChainDataset([range(3)])))]


@case("dataset")
def subset(torch):
    D = torch.utils.data
    sub = D.Subset(list(range(100, 110)), [3, 1, 4])
    td = D.TensorDataset(torch.arange(6) * 2)
    sub2 = D.Subset(td, [5, 0])
    both = td + td
    return [len(sub), sub[0], sub[-1], err(lambda: sub[[0, 1]]), err(lambda: sub[3]),
            show(torch, sub2[0]), show(torch, sub2[[0, 1]]), type(both).__name__, len(both)]


@case("dataset")
def base_classes(torch):
    D = torch.utils.data
    return [err(lambda: D.Dataset()[0]), err(lambda: len(D.Dataset())),
            err(lambda: iter(D.IterableDataset())), err(lambda: len(D.IterableDataset()))]


def _split(torch, *args, **kwargs):
    return caught(lambda: [list(s) for s in
                           torch.utils.data.random_split(*args, **kwargs)])


@case("dataset")
def random_split_lengths(torch):
    return [_split(torch, range(10), [3, 7], generator=gen(torch, 42)),
            _split(torch, range(10), (0, 10, 0), generator=gen(torch, 1)),
            _split(torch, list("abcdefg"), [2, 2, 3], generator=gen(torch, 3))]


@case("dataset")
def random_split_fractions(torch):
    return [_split(torch, range(30), [0.3, 0.3, 0.4], generator=gen(torch, 42)),
            _split(torch, range(11), [0.5, 0.25, 0.25], generator=gen(torch, 1)),
            _split(torch, range(3), [0.1, 0.1, 0.8], generator=gen(torch, 1)),
            _split(torch, range(7), [1.0], generator=gen(torch, 1))]


@case("dataset")
def random_split_default_generator(torch):
    torch.manual_seed(9)
    return [_split(torch, range(8), [5, 3]), draws(torch)]


@case("dataset")
def random_split_errors(torch):
    D = torch.utils.data
    return [err(lambda: D.random_split(range(10), [3, 8])),
            err(lambda: D.random_split(range(10), [1.5, -0.5])),
            err(lambda: D.random_split(range(10), [0.5, 0.4]))]


# --- collation ------------------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")


@case("collate")
def collate_leaves(torch):
    dc = torch.utils.data.default_collate
    return [show(torch, dc(b)) for b in (
        [0, 1, 2, 3], [0.5, 1.0], [True, False], ["a", "b"], [b"a", b"b"],
        [torch.tensor([1, 2]), torch.tensor([3, 4])], [torch.tensor(1.5), torch.tensor(2.5)],
        [torch.zeros(2, 0), torch.zeros(2, 0)])]


@case("collate")
def collate_numpy(torch):
    with warnings.catch_warnings():
        # numpy's "np.bool_ interpreted as an index", from torch.as_tensor too
        warnings.simplefilter("ignore", DeprecationWarning)
        return _collate_numpy(torch)


def _collate_numpy(torch):
    dc = torch.utils.data.default_collate
    return [show(torch, dc(b)) for b in (
        [np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)],
        [np.array([[1.5]]), np.array([[2.5]])],
        [np.float32(1.5), np.float32(2)], [np.float64(1.5), np.float64(2)],
        [np.int64(3), np.int64(4)], [np.uint8(3), np.uint8(4)],
        [np.bool_(True), np.bool_(False)], [np.array(5), np.array(6)])]


@case("collate")
def collate_containers(torch):
    dc = torch.utils.data.default_collate
    return [show(torch, dc(b)) for b in (
        [{"A": 0, "B": 1.5}, {"A": 100, "B": 2.5}],
        [collections.OrderedDict(a=1, b=2), collections.OrderedDict(a=3, b=4)],
        [collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)],
        [Point(0, 0.5), Point(1, 1.5)], [(0, 1), (2, 3)], [[0, 1], [2, 3]],
        [range(2), range(2)],
        [{"a": (1, [2.0, torch.tensor([3])]), "b": "s"},
         {"a": (4, [5.0, torch.tensor([6])]), "b": "t"}],
        [Point(np.array([1]), "s"), Point(np.array([2]), "t")])]


@case("collate")
def collate_errors(torch):
    dc = torch.utils.data.default_collate
    return [err(lambda: dc([[1, 2], [3]])),
            err(lambda: dc([torch.zeros(2), torch.zeros(3)])),
            err(lambda: dc([torch.zeros(2), torch.zeros(2, 1)])),
            err(lambda: dc([object(), object()])),
            err(lambda: dc([None, None])),
            err(lambda: dc([np.array(["a"]), np.array(["b"])])),
            err(lambda: dc([np.array([None]), np.array([None])])),
            err(lambda: dc([])),
            err(lambda: dc([{1}, {2}])),
            err(lambda: dc([{"a": 1}, {"b": 2}])),
            err(lambda: dc([1, "a"]))]


@case("collate")
def convert(torch):
    cv = torch.utils.data.default_convert
    return [show(torch, cv(x)) for x in (
        0, 1.5, "abc", b"x", None, np.array([0, 1]), np.array(["a"]), np.str_("a"),
        np.float32(2.5), Point(np.array(0), np.array(1.5)),
        [np.array([0, 1]), np.array([2, 3])], (np.array([0, 1]), 3),
        {"a": np.float32(1), "b": "x"}, range(3), torch.tensor([1]),
        collections.OrderedDict(k=np.int32(7)))]


@case("collate")
def custom_collate_map(torch):
    D = torch.utils.data

    def count(batch, *, collate_fn_map=None):
        return len(batch)
    collate = D._utils.collate.collate
    return [show(torch, collate([(1, 2), (3, 4)], collate_fn_map={int: count})),
            err(lambda: collate([(1, 2.0), (3, 4.0)], collate_fn_map={int: count})),
            show(torch, collate([[True], [False]], collate_fn_map={int: count})),
            err(lambda: collate([1, 2], collate_fn_map={float: count})),
            err(lambda: collate([1, 2]))]


# --- DataLoader -----------------------------------------------------------------------

class Dicts:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"i": i, "f": i / 2, "s": str(i), "a": np.full(2, i, dtype=np.int32)}


class Tensors:
    """(x[i], y[i]) for a small float and int tensor."""

    def __init__(self, libname, n=10):
        torch = lib(libname)
        self.x = torch.arange(n * 2.).reshape(n, 2)
        self.y = torch.arange(n)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


# loader_runs' entries that depend on the number of workers: iterable
# datasets (each worker iterates a full copy) and the generator's state
# after iter(), when workers have already drawn the sampler's seed
PER_WORKER_ENTRIES = (13, 14, 15, 17)


def loader_runs(torch, num_workers, ctx=None, select=None):
    """Batches and lengths of DataLoaders over the option space, and where
    they leave the random generators; the same for any num_workers except
    for PER_WORKER_ENTRIES.  select: the entries to compute (None elsewhere;
    a draws entry needs the run before it: 3 needs 2, 5 needs 4); every run
    starts from its own seed, so a selection changes no entry."""
    D = torch.utils.data
    kw = dict(num_workers=num_workers)
    if num_workers:
        kw["multiprocessing_context"] = ctx
    ds = Tensors(torch.__name__)
    out = []

    def wanted(*entries):
        return select is None or any(len(out) + i in select for i in entries)

    def run(dataset=ds, **opts):
        if not wanted(0):
            out.append(None)
            return
        # each from its own seed, so that any selection gives the same
        torch.manual_seed(len(out))
        loader = D.DataLoader(dataset, **opts, **kw)
        out.append([[show(torch, b) for b in loader], len(loader)])

    run(batch_size=3)
    run(batch_size=3, drop_last=True)
    run(batch_size=4, shuffle=True)
    out.append(draws(torch) if wanted(0) else None)
    g = gen(torch, 123)
    run(batch_size=4, shuffle=True, generator=g)
    out.append(draws(torch, g) if wanted(0) else None)
    run(batch_size=None)
    run(batch_size=2, sampler=[9, 1, 4])
    run(batch_sampler=[[1, 2], [5], [0, 9, 3]])
    run(batch_size=2, sampler=D.RandomSampler(ds, replacement=True, num_samples=5,
                                              generator=gen(torch, 5)))
    run(dataset=Dicts(5), batch_size=2)
    run(dataset=Dicts(3), batch_size=None)
    run(dataset=list(range(5)), batch_size=2, drop_last=True, shuffle=True)
    run(dataset=stream(torch, 7), batch_size=3)
    run(dataset=stream(torch, 7), batch_size=3, drop_last=True)
    run(dataset=stream(torch, 3), batch_size=None)
    # iterating twice: a new order each epoch
    torch.manual_seed(1)
    if wanted(0):
        loader = D.DataLoader(ds, batch_size=4, shuffle=True, **kw)
        out.append([[show(torch, b) for b in loader] for _ in range(2)])
    else:
        out.append(None)
    # iter() draws the base seed; the sampler draws at the first next()
    # (with workers: at iter(), prefetching)
    if wanted(0, 1):
        torch.manual_seed(2)
        it = iter(D.DataLoader(ds, batch_size=4, shuffle=True, **kw))
        out.append(draws(torch))
        next(it)
        out.append(draws(torch))
        del it
    else:
        out += [None, None]
    return out


@case("loader")
def batches(torch):
    return loader_runs(torch, 0)


@case("loader")
def lengths(torch):
    D = torch.utils.data
    ds = list(range(10))
    out = [len(D.DataLoader(ds)), len(D.DataLoader(ds, batch_size=3)),
           len(D.DataLoader(ds, batch_size=3, drop_last=True)),
           len(D.DataLoader(ds, batch_size=None)),
           len(D.DataLoader(ds, batch_sampler=[[1], [2, 3]])),
           len(iter(D.DataLoader(ds, batch_size=4)))]
    for bs, drop_last in ((None, False), (2, False), (2, True), (3, False), (3, True)):
        out.append(len(D.DataLoader(stream(torch, 7), batch_size=bs, drop_last=drop_last)))
    out.append(err(lambda: len(D.DataLoader(D.IterableDataset()))))
    return out


class Overlong(Stream):
    """Says it has `claimed` samples and gives n."""

    def __init__(self, n, claimed):
        super().__init__(n)
        self.claimed = claimed

    def __len__(self):
        return self.claimed

    def __repr__(self):
        return "Overlong"


def overlong(torch, n, claimed):
    return _iterable(Overlong, torch.__name__)(n, claimed)


@case("loader")
def iterable_length_warning(torch):
    D = torch.utils.data

    def run(**kw):
        loader = D.DataLoader(overlong(torch, 5, 3), **kw)
        n = len(loader)
        return [n, [show(torch, b) for b in loader]]
    return [caught(lambda: run(batch_size=None)), caught(lambda: run(batch_size=2)),
            caught(lambda: [int(x) for x in D.DataLoader(overlong(torch, 5, 3),
                                                         batch_size=None)])]


@case("loader")
def options_kept(torch):
    D = torch.utils.data
    ds = list(range(6))
    a = D.DataLoader(ds, batch_size=2, shuffle=True)
    b = D.DataLoader(ds, batch_size=None)
    c = D.DataLoader(ds, batch_sampler=[[0]])
    d = D.DataLoader(stream(torch, 3))
    return [[type(x.sampler).__name__, type(x.batch_sampler).__name__, x.batch_size,
             x.drop_last, x.num_workers, x.prefetch_factor, x.timeout, x.pin_memory,
             x.persistent_workers, x.collate_fn.__name__, x._auto_collation,
             x._dataset_kind, x.multiprocessing_context]
            for x in (a, b, c, d)]


@case("loader")
def loader_errors(torch):
    D = torch.utils.data
    ds = list(range(4))
    loader = D.DataLoader(ds)
    out = [
        err(lambda: D.DataLoader(ds, num_workers=-1)),
        err(lambda: D.DataLoader(ds, timeout=-1)),
        err(lambda: D.DataLoader(ds, prefetch_factor=3)),
        err(lambda: D.DataLoader(ds, persistent_workers=True)),
        err(lambda: D.DataLoader(stream(torch, 3), shuffle=True)),
        err(lambda: D.DataLoader(stream(torch, 3), sampler=[1])),
        err(lambda: D.DataLoader(stream(torch, 3), batch_sampler=[[1]])),
        err(lambda: D.DataLoader(ds, sampler=[1], shuffle=True)),
        err(lambda: D.DataLoader(ds, batch_sampler=[[1]], batch_size=2)),
        err(lambda: D.DataLoader(ds, batch_sampler=[[1]], drop_last=True)),
        err(lambda: D.DataLoader(ds, batch_sampler=[[1]], shuffle=True)),
        err(lambda: D.DataLoader(ds, batch_sampler=[[1]], sampler=[1])),
        err(lambda: D.DataLoader(ds, batch_size=None, drop_last=True)),
        err(lambda: D.DataLoader(ds, batch_size=0)),
        err(lambda: D.DataLoader(ds, multiprocessing_context="fork")),
        err(lambda: D.DataLoader(ds, num_workers=1, multiprocessing_context="bogus")),
        err(lambda: D.DataLoader(ds, num_workers=1, multiprocessing_context=3)),
        err(lambda: iter(D.DataLoader(ds, timeout=1))),
        err(lambda: list(D.DataLoader(ds, batch_size=2, sampler=[0, 7]))),
        err(lambda: __import__("pickle").dumps(iter(loader))),
    ]
    for attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                 "persistent_workers"):
        out.append(err(lambda: setattr(loader, attr, 1)))
    loader.num_workers = 0
    loader.collate_fn = None
    return out


@case("loader")
def loader_warnings(torch):
    D = torch.utils.data
    ds = [torch.tensor([i]) for i in range(4)]
    return [caught(lambda: D.DataLoader(ds, num_workers=3).num_workers),
            caught(lambda: [show(torch, b) for b in D.DataLoader(ds, batch_size=2,
                                                                 pin_memory=True)]),
            caught(lambda: len(list(D.DataLoader(ds, pin_memory_device="cuda"))))]


@case("loader")
def worker_info_in_main(torch):
    return [torch.utils.data.get_worker_info()]


@case("loader")
def numpy_generate_state(torch):
    gs = torch.utils.data._utils.worker._generate_state
    return [gs(0, 0), gs(12345678901234, 1), gs((1 << 63) - 1, 7), gs(1 << 40, 3)]


# --- worker processes ---------------------------------------------------------------

class Probe:
    """Sample i: what worker produced it and what its random streams give."""

    def __init__(self, libname, n):
        self.libname = libname
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        torch = lib(self.libname)
        info = torch.utils.data.get_worker_info()
        return [i, info.id, info.seed, info.num_workers, random.randrange(1 << 30),
                int(torch.randint(0, 1 << 30, ()).item()),
                int(np.random.randint(0, 1 << 30)), torch.get_num_threads(),
                info.dataset is self]


def init_random(worker_id):
    random.seed(100 + worker_id)


class Shards(Stream):
    """range(n) split between the workers by get_worker_info()."""

    def __init__(self, libname, n):
        super().__init__(n)
        self.libname = libname

    def __iter__(self):
        info = lib(self.libname).utils.data.get_worker_info()
        if info is None:
            return iter(range(self.n))
        per = int(math.ceil(self.n / info.num_workers))
        start = info.id * per
        return iter(range(start, min(start + per, self.n)))


def shards(libname, n):
    return _iterable(Shards, libname)(libname, n)


def worker_runs(libname, ctx, select=None):
    """Seeds and random streams in the workers, persistent workers and
    sharded iterable datasets with 2 workers (select: the loaders to run,
    by number; None in place of the others' entries)."""
    torch = lib(libname)
    D = torch.utils.data
    out = []

    def wanted(i):
        return select is None or i in select
    torch.manual_seed(3)
    if wanted(0):
        loader = D.DataLoader(Probe(libname, 6), batch_size=2, num_workers=2,
                              multiprocessing_context=ctx, worker_init_fn=init_random)
        out += [[show(torch, b) for b in loader], draws(torch)]
    else:
        out += [None, None]
    if wanted(1):
        loader = D.DataLoader(Probe(libname, 5), batch_size=None, num_workers=2,
                              multiprocessing_context=ctx, generator=gen(torch, 11),
                              prefetch_factor=1)
        out.append([show(torch, b) for b in loader])
    else:
        out.append(None)
    torch.manual_seed(4)
    if wanted(2):
        loader = D.DataLoader(Tensors(libname), batch_size=3, shuffle=True, num_workers=2,
                              multiprocessing_context=ctx, persistent_workers=True)
        out += [[[show(torch, b) for b in loader] for _ in range(2)], draws(torch)]
        del loader
    else:
        out += [None, None]
    if wanted(3):
        loader = D.DataLoader(shards(libname, 7), batch_size=2, num_workers=2,
                              multiprocessing_context=ctx, persistent_workers=True)
        out.append([[show(torch, b) for b in loader] for _ in range(2)])
    else:
        out.append(None)
    return out


def selected(values, select):
    """values with None in place of the entries not in select."""
    return [v if i in select else None for i, v in enumerate(values)]


class Failing:
    """Raises exc for sample 5 (or, with kill, sends itself that signal, or
    with code, exits with it)."""

    def __init__(self, exc=None, kill=None, code=None, at=5):
        self.exc, self.kill, self.code, self.at = exc, kill, code, at

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.at:
            if self.kill is not None:
                import resource
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))    # no core dump
                os.kill(os.getpid(), self.kill)
                time.sleep(5)
            if self.code is not None:
                os._exit(self.code)
            raise self.exc
        return i


class ArgsError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


def init_raises(worker_id):
    if worker_id == 1:
        raise KeyError("init %d" % worker_id)


def init_kills(worker_id):
    if worker_id == 1:
        os.kill(os.getpid(), signal.SIGKILL)


def worker_error(torch, dataset, ctx="fork", **kw):
    """[type, the message's first line, its last line] of the error a 2-worker
    loader raises, plus its cause's, with worker pids as "PID"."""
    it = iter(torch.utils.data.DataLoader(dataset, batch_size=2, num_workers=2,
                                          multiprocessing_context=ctx, **kw))
    try:
        list(it)
    except Exception as e:      # noqa: BLE001 - the exception is the result
        import re

        def describe(x):
            if x is None:
                return None
            lines = re.sub(r"pid(\(s\))? \d+", r"pid\1 PID", str(x)).rstrip().split("\n")
            return [type(x).__name__, lines[0], lines[-1]]
        return [describe(e), describe(e.__cause__)]
    finally:
        # torch 1.13's iterator stays in a reference cycle after an error
        # (until the garbage collector finds it, then takes 5 s per worker)
        it._shutdown_workers()
    return None


WORKER_ERRORS = [
    (Failing, (ValueError("bad"),), {}),
    (Failing, (KeyError("k"),), {}),
    (Failing, (ArgsError(1, 2),), {}),
    (Failing, (ValueError("bad"),), {"worker_init_fn": init_raises}),
    (Failing, (), {"kill": signal.SIGKILL}),
    (Failing, (), {"kill": signal.SIGSEGV}),
    (Failing, (), {"kill": signal.SIGBUS}),
    (Failing, (), {"code": 3}),
    (Failing, (ValueError("bad"),), {"worker_init_fn": init_kills}),
]


def worker_error_runs(libname, ctx="fork", which=None):
    """worker_error() of the WORKER_ERRORS (those numbered in which)."""
    torch = lib(libname)
    out = []
    for i, (cls, args, kw) in enumerate(WORKER_ERRORS):
        if which is not None and i not in which:
            continue
        kw = dict(kw)
        loader_kw = {k: kw.pop(k) for k in ("worker_init_fn",) if k in kw}
        out.append(worker_error(torch, cls(*args, **kw), ctx, **loader_kw))
    return out


class Slow:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(1.5)
        return i
