"""The worker process of a multi-process DataLoader
(torch.utils.data._utils.worker): seeding, get_worker_info, and the loop
that turns (task index, sampler index) pairs into (task index, batch).

Seeding follows torch so that a worker's random streams are torch's: the
iterator draws base_seed from its generator, worker i seeds `random` and
ctorch with base_seed + i, and numpy with a SeedSequence-style mix of the
two (_generate_state).
"""
import os
import queue
import random
from dataclasses import dataclass
from typing import Optional

from .... import _C
from ....random import manual_seed
from . import HAS_NUMPY, MP_STATUS_CHECK_INTERVAL, ExceptionWrapper, signal_handling


class ManagerWatchdog:
    """Whether the process that started this worker is still its parent (a
    worker must not outlive a killed main process)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info = None


class WorkerInfo:
    """id, num_workers, seed and dataset of this worker; read-only."""
    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError("Cannot assign attributes to {} objects".format(
                self.__class__.__name__))
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ["{}={}".format(k, getattr(self, k)) for k in self.__keys]
        return "{}({})".format(self.__class__.__name__, ", ".join(items))


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, and
    dataset, this process's copy).  In the main process: None."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose copy of an IterableDataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers to start a new epoch (and echoed back)."""
    seed: Optional[int] = None


_MASK32 = 0xFFFFFFFF


def _generate_state(base_seed, worker_id):
    """Four 32-bit words for numpy.random.seed: numpy's SeedSequence hash
    (O'Neill's seed_seq_fe) over [worker_id, base_seed's low and high
    words, 0], so numpy's stream differs from `random`'s though both come
    from one seed.  The same words as torch's."""
    INIT_A, MULT_A = 0x43b0d7e5, 0x931e8875
    INIT_B, MULT_B = 0x8b51f9dd, 0x58f38ded
    MIX_MULT_L, MIX_MULT_R = 0xca01f9dd, 0x4973f715
    XSHIFT = 16
    hash_const = INIT_A

    def hashmix(value):
        nonlocal hash_const
        value = (value ^ hash_const) & _MASK32
        hash_const = (hash_const * MULT_A) & _MASK32
        value = (value * hash_const) & _MASK32
        return (value ^ (value >> XSHIFT)) & _MASK32

    def mix(x, y):
        r = ((MIX_MULT_L * x) - (MIX_MULT_R * y)) & _MASK32
        return (r ^ (r >> XSHIFT)) & _MASK32

    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    pool = [hashmix(e) for e in entropy]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    state = []
    hash_const = INIT_B
    for value in pool:
        value = (value ^ hash_const) & _MASK32
        hash_const = (hash_const * MULT_B) & _MASK32
        value = (value * hash_const) & _MASK32
        state.append((value ^ (value >> XSHIFT)) & _MASK32)
    return state


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event,
                 auto_collation, collate_fn, drop_last, base_seed, init_fn, worker_id,
                 num_workers, persistent_workers, shared_seed):
    """Serve tasks until None arrives: (idx, index) -> (idx, batch), or
    (idx, ExceptionWrapper) when fetching raised.  An exception in init_fn
    or in making the fetcher is sent in reply to the first task.  See
    torch's NOTE [ Data Loader Multiprocessing Shutdown Logic ]: the worker
    exits on None, or when its parent is gone, and after done_event it
    skips work and does not flush its result queue."""
    global _worker_info
    try:
        signal_handling._set_worker_signal_handlers()
        _C.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        if HAS_NUMPY:
            import numpy as np
            np.random.seed(_generate_state(base_seed, worker_id))

        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        from ..dataloader import _DatasetKind

        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                  collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(
                where="in DataLoader worker process {}".format(worker_id))

        # an IterableDataset copy may run out before the others: the worker
        # then says so once and idles until its None
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if done_event.is_set():
                    # the None was lost (the iterator's queues were
                    # finalized before it, by the garbage collector)
                    break
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                      collate_fn, drop_last)
                continue
            if r is None:
                assert done_event.is_set() or iteration_end
                break
            if done_event.is_set() or iteration_end:
                continue    # shutting down: wait for the None
            idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(
                            where="in DataLoader worker process {}".format(worker_id))
            data_queue.put((idx, data))
            del data, idx, index, r     # hold no batch while waiting
    except KeyboardInterrupt:
        pass    # the main process gets its own
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
