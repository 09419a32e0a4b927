"""DataLoader and its iterators (torch.utils.data.dataloader).

A DataLoader combines a dataset, a sampler of keys (or batches of keys)
and a collate function.  Iterating it gives a _SingleProcessDataLoaderIter
(num_workers=0) or a _MultiProcessingDataLoaderIter, whose worker
processes (_utils/worker.py) receive (task index, keys) on one queue each,
round robin, and answer on a shared result queue; the iterator hands the
batches out in task order, keeping prefetch_factor tasks per worker in
flight.  Batches cross processes through ctorch.multiprocessing, whose
pickler moves tensors into shared memory.

Randomness follows PyTorch 1.13 call for call: making an iterator draws
one int64 base_seed from the loader's generator (or the default one),
then the sampler draws as torch's do, so the main process's RNG state and
the batches match torch's for the same seed, with any number of workers.
"""
import itertools
import multiprocessing as python_multiprocessing
import os
import queue
import threading
import time
import warnings
from typing import Any, Callable, Generic, List, Optional, TypeVar

from ... import _C
from ... import multiprocessing
from . import _utils
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")
_collate_fn_t = Callable[[List[T]], Any]
_worker_init_fn_t = Callable[[int], None]

default_collate: _collate_fn_t = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info

# How often the main process looks at its workers while it waits for a
# batch, when no SIGCHLD handler can tell it (a loader iterated outside the
# main thread) or a worker exited with status 0.
_POLL_INTERVAL = 0.1


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _utils.fetch._MapDatasetFetcher(dataset, auto_collation, collate_fn,
                                                   drop_last)
        return _utils.fetch._IterableDatasetFetcher(dataset, auto_collation, collate_fn,
                                                    drop_last)


class _InfiniteConstantSampler(Sampler):
    """None forever: the sampler of an IterableDataset, whose keys mean
    nothing (the dataset decides when it ends)."""

    def __init__(self):
        super().__init__(None)

    def __iter__(self):
        while True:
            yield None


def _cuda_available():
    try:
        from ... import cuda
    except ImportError:
        return False
    is_available = getattr(cuda, "is_available", None)
    return is_available is not None and is_available()


def _worker_count_warning(suggested, created, cpuset_checked):
    if suggested is None:
        suggestion = ("DataLoader is not able to compute a suggested max number of "
                      "worker in current system.")
    else:
        suggestion = ("Our suggested max number of worker in current system is {}{}, "
                      "which is smaller than what this DataLoader is going to create."
                      ).format(suggested, "" if cpuset_checked
                               else " (`cpuset` is not taken into account)")
    return ("This DataLoader will create {} worker processes in total. {} "
            "Please be aware that excessive worker creation might get DataLoader running "
            "slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.").format(created, suggestion)


class DataLoader(Generic[T_co]):
    """Iterable over a dataset's batches (PyTorch 1.13's arguments):
    batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn,
    pin_memory, drop_last, timeout, worker_init_fn, multiprocessing_context,
    generator, and keyword-only prefetch_factor, persistent_workers and
    pin_memory_device."""
    __initialized = False

    def __init__(self, dataset: Dataset[T_co], batch_size: Optional[int] = 1,
                 shuffle: Optional[bool] = None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn: Optional[_collate_fn_t] = None,
                 pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Optional[_worker_init_fn_t] = None,
                 multiprocessing_context=None, generator=None,
                 *, prefetch_factor: int = 2, persistent_workers: bool = False,
                 pin_memory_device: str = ""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable "
                             "multiprocessing.")
        assert prefetch_factor > 0
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        # Dataset errors come before sampler errors: an IterableDataset
        # takes no sampler at all (torch's NOTE [ Custom Samplers and
        # IterableDataset ]).
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "shuffle option, but got shuffle={}".format(shuffle))
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "sampler option, but got sampler={}".format(sampler))
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "batch_sampler option, but got batch_sampler={}"
                                 .format(batch_sampler))
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")

        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive "
                                 "with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching "
                             "and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)

        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator

        if collate_fn is None:
            collate_fn = (_utils.collate.default_collate if self._auto_collation
                          else _utils.collate.default_convert)
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers

        self.__initialized = True
        self._IterableDataset_len_called = None  # see __len__
        self._iterator = None
        self.check_worker_number_rationality()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError(("multiprocessing_context can only be used with "
                                  "multi-process loading (num_workers > 0), but got "
                                  "num_workers={}").format(self.num_workers))
            if isinstance(multiprocessing_context, (str, bytes)):
                valid = multiprocessing.get_all_start_methods()
                if multiprocessing_context not in valid:
                    raise ValueError(("multiprocessing_context option should specify a "
                                      "valid start method in {!r}, but got "
                                      "multiprocessing_context={!r}").format(
                                          valid, multiprocessing_context))
                multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
            if not isinstance(multiprocessing_context,
                              python_multiprocessing.context.BaseContext):
                raise TypeError(("multiprocessing_context option should be a valid context "
                                 "object or a string specifying the start method, but got "
                                 "multiprocessing_context={}").format(multiprocessing_context))
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler",
                                           "drop_last", "dataset", "persistent_workers"):
            raise ValueError("{} attribute should not be set after {} is "
                             "initialized".format(attr, self.__class__.__name__))
        super().__setattr__(attr, val)

    def __iter__(self):
        # persistent workers live in the one iterator, reset for each epoch
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what the fetchers are fed: batches of keys, or single keys
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            # NOTE [ IterableDataset and __len__ ] (torch): trust the
            # dataset's length, remember it, and warn when the iterator
            # yields more than it said
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warn when more workers are asked for than this process may use
        CPUs (os.sched_getaffinity, else os.cpu_count)."""
        if not self.num_workers:
            return
        suggested, cpuset_checked = None, False
        if hasattr(os, "sched_getaffinity"):
            try:
                suggested = len(os.sched_getaffinity(0))
                cpuset_checked = True
            except Exception:
                pass
        if suggested is None:
            suggested = os.cpu_count()
        if suggested is None or self.num_workers > suggested:
            warnings.warn(_worker_count_warning(suggested, self.num_workers,
                                                cpuset_checked))


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._shared_seed = None
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._world_size, self._rank = 1, 0
        self._prefetch_factor = loader.prefetch_factor
        if len(loader.pin_memory_device) == 0:
            self._pin_memory = loader.pin_memory and _cuda_available()
            self._pin_memory_device = None
        else:
            if not loader.pin_memory:
                warnings.warn("pin memory device is set and pin_memory flag is not used "
                              "then device pinned memory won't be usedplease set "
                              "pin_memory to true, if you need to use the device pin memory")
            self._pin_memory = loader.pin_memory
            self._pin_memory_device = loader.pin_memory_device
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # drawn whatever the number of workers, so that the RNG state after
        # iter(loader) is torch's
        self._base_seed = _C.empty((), dtype=_C.int64).random_(
            generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0
        self._profile_name = "enumerate(DataLoader)#{}.__next__".format(
            self.__class__.__name__)

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if self._dataset_kind == _DatasetKind.Iterable and \
                self._IterableDataset_len_called is not None and \
                self._num_yielded > self._IterableDataset_len_called:
            msg = ("Length of IterableDataset {} was reported to be {} (when accessing "
                   "len(dataloader)), but {} samples have been fetched. ").format(
                       self._dataset, self._IterableDataset_len_called, self._num_yielded)
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not "
                        "properly configuring the IterableDataset replica at each worker. "
                        "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                        "data.IterableDataset for examples.")
            warnings.warn(msg)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        # (sic: torch passes the name as a second argument)
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        assert self._timeout == 0
        assert self._num_workers == 0
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
        if self._pin_memory:
            data = _utils.pin_memory.pin_memory(data, self._pin_memory_device)
        return data


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Task bookkeeping, as torch's (see its long comments for the why):

    _send_idx / _rcvd_idx   the next task to send / to hand out
    _task_info[idx]         (worker_id,) while outstanding, (worker_id,
                            data) once it arrived early
    _tasks_outstanding      tasks sent and not yet received
    _workers_status[i]      whether worker i still takes tasks (False once
                            its IterableDataset copy ended or it is shut)

    Shutdown (torch's NOTE [ Data Loader Multiprocessing Shutdown Logic ]):
    set _workers_done_event, send each worker None, join with a timeout,
    then terminate stragglers.  Happens at the end of an epoch (unless
    persistent), on an error, and in __del__."""

    def __init__(self, loader):
        super().__init__(loader)
        assert self._num_workers > 0
        assert self._prefetch_factor > 0
        context = loader.multiprocessing_context
        if context is None:
            context = multiprocessing
        self._worker_init_fn = loader.worker_init_fn
        if _utils.HAS_NUMPY:
            # the workers seed numpy; import it once here, where forked
            # workers inherit it, instead of once in every worker
            import numpy  # noqa: F401

        self._owner_pid = os.getpid()
        self._worker_result_queue = context.Queue()
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = context.Event()
        self._index_queues = []
        self._workers = []
        for i in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            w = context.Process(
                target=_utils.worker._worker_loop,
                args=(self._dataset_kind, self._dataset, index_queue,
                      self._worker_result_queue, self._workers_done_event,
                      self._auto_collation, self._collate_fn, self._drop_last,
                      self._base_seed, self._worker_init_fn, i, self._num_workers,
                      self._persistent_workers, self._shared_seed))
            w.daemon = True
            # started before it is kept: a failed start leaves nothing to
            # shut down (torch's "NB: Process.start() actually take some time")
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)

        if self._pin_memory:
            from ... import cuda
            self._pin_memory_thread_done_event = threading.Event()
            self._data_queue = queue.Queue()
            thread = threading.Thread(
                target=_utils.pin_memory._pin_memory_loop,
                args=(self._worker_result_queue, self._data_queue, cuda.current_device(),
                      self._pin_memory_thread_done_event, self._pin_memory_device))
            thread.daemon = True
            thread.start()
            self._pin_memory_thread = thread
        else:
            self._data_queue = self._worker_result_queue

        _utils.signal_handling._set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        _utils.signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True for _ in range(self._num_workers)]
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # persistent workers: start a new epoch and wait for every
            # worker to say it has
            for idx in range(self._num_workers):
                self._index_queues[idx].put(_utils.worker._ResumeIteration(self._shared_seed))
            pending = self._num_workers
            while pending > 0:
                return_idx, return_data = self._get_data()
                if isinstance(return_idx, _utils.worker._ResumeIteration):
                    assert return_data is None
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _failed_workers(self):
        """The workers that were taking tasks and are no longer alive (marked
        unavailable)."""
        failed = []
        for worker_id, w in enumerate(self._workers):
            if self._workers_status[worker_id] and not w.is_alive():
                failed.append(w)
                self._mark_worker_as_unavailable(worker_id)
        return failed

    def _try_get_data(self, timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        """(True, data) from the result queue, or (False, None) after
        timeout seconds.  Raises RuntimeError if a worker has died: when the
        SIGCHLD handler noticed first, its error is the cause, as in torch;
        when polling did, the cause is made from the exit code."""
        deadline = time.monotonic() + timeout
        waiting = _utils.signal_handling._waiting
        while True:
            try:
                wait = min(_POLL_INTERVAL, max(0.0, deadline - time.monotonic()))
                waiting.active = True
                try:
                    return (True, self._data_queue.get(timeout=wait))
                finally:
                    waiting.active = False
            except Exception as e:
                failed = self._failed_workers()
                if not failed and not isinstance(e, queue.Empty):
                    # a receive that failed (EOFError, ConnectionResetError:
                    # a worker died while handing over a batch's shared
                    # memory) before that worker could be reaped
                    settle = time.monotonic() + 1.0
                    while not failed and time.monotonic() < settle:
                        time.sleep(0.01)
                        failed = self._failed_workers()
                if failed:
                    # no local may hold e: its traceback holds this frame
                    # (torch's NOTE [ Python Traceback Reference Cycle Problem ])
                    raise RuntimeError("DataLoader worker (pid(s) {}) exited "
                                       "unexpectedly".format(
                                           ", ".join(str(w.pid) for w in failed))) \
                        from (e if _utils.signal_handling.is_worker_failure(e)
                              else _exit_error(failed[0]))
                if isinstance(e, queue.Empty):
                    if time.monotonic() < deadline:
                        continue
                    return (False, None)
                _raise_if_out_of_descriptors()
                raise

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError("DataLoader timed out after {} seconds".format(self._timeout))
        if self._pin_memory:
            while self._pin_memory_thread.is_alive():
                success, data = self._try_get_data()
                if success:
                    return data
            raise RuntimeError("Pin memory thread exited unexpectedly")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self):
        while True:
            # skip tasks of workers that stopped (their IterableDataset
            # ended) and will never answer them
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                worker_id = info[0]
                if len(info) == 2 or self._workers_status[worker_id]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                return self._process_data(data)

            assert not self._shutdown and self._tasks_outstanding > 0
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and \
                    isinstance(data, _utils.worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue

            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)     # early: keep it for later
            else:
                del self._task_info[idx]
                return self._process_data(data)

    def _try_put_index(self):
        assert self._tasks_outstanding < self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next worker still taking tasks
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                break
        else:
            return
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, _utils.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        # the worker gets its None now (it may still be working); when not
        # shutting down, done_event stays clear so that it keeps serving the
        # tasks it already has
        if not hasattr(self, "_workers_status"):
            self._workers_status = [True] * len(self._workers)
        assert self._workers_status[worker_id] or (self._persistent_workers and shutdown)
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False
        assert self._workers_done_event.is_set() == shutdown

    def _shutdown_workers(self):
        if _utils is None or _utils.python_exit_status is True or \
                _utils.python_exit_status is None:
            return      # interpreter exit: multiprocessing's handler does it
        if self._shutdown or self._owner_pid != os.getpid():
            return      # done, or a forked copy: the workers are not ours
        self._shutdown = True
        try:
            if hasattr(self, "_pin_memory_thread"):
                self._pin_memory_thread_done_event.set()
                self._worker_result_queue.put((None, None))
                self._pin_memory_thread.join()
                self._worker_result_queue.cancel_join_thread()
                self._worker_result_queue.close()
            self._workers_done_event.set()
            if all(_feeds(q) for q in self._index_queues):
                # (no status yet if starting a worker failed)
                status = getattr(self, "_workers_status", [True] * len(self._workers))
                for worker_id in range(len(self._workers)):
                    if self._persistent_workers or status[worker_id]:
                        self._mark_worker_as_unavailable(worker_id, shutdown=True)
                # one deadline for all (torch waits this long for each)
                deadline = time.monotonic() + _utils.MP_STATUS_CHECK_INTERVAL
                for w in self._workers:
                    w.join(timeout=max(0.0, deadline - time.monotonic()))
            # else the garbage collector has finalized the queues before
            # this iterator: no None would arrive, the workers are
            # terminated below
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            # forget the pids before terminating, so that the SIGCHLD handler
            # does not report the terminated workers
            if self._worker_pids_set:
                _utils.signal_handling._remove_worker_pids(id(self))
                self._worker_pids_set = False
            for w in self._workers:
                if w.is_alive():
                    w.terminate()

    def __del__(self):
        if hasattr(self, "_shutdown"):
            self._shutdown_workers()


def _feeds(q):
    """Whether a multiprocessing queue still sends what is put on it: its
    finalizer (weakref-triggered, so run first when the garbage collector
    frees a cycle holding an iterator) stops the feeder thread."""
    close = getattr(q, "_close", None)
    return close is None or close.still_active()


def _exit_error(w):
    """The error the SIGCHLD handler would have given for dead worker w."""
    code = w.exitcode
    if code is not None and code < 0:
        status = _Status(os.CLD_KILLED, -code)
    else:
        status = _Status(os.CLD_EXITED, code)
    return _utils.signal_handling.worker_failure(
        _utils.signal_handling._failure_message(w.pid, status))


class _Status:
    """The two fields of a waitid result _failure_message reads."""

    def __init__(self, si_code, si_status):
        self.si_code = si_code
        self.si_status = si_status


def _raise_if_out_of_descriptors():
    """A queue error while descriptors have run out gets torch's advice."""
    import errno
    import tempfile
    try:
        files = [tempfile.NamedTemporaryFile() for _ in range(10)]
    except OSError as e:
        if e.errno == errno.EMFILE:
            raise RuntimeError(
                "Too many open files. Communication with the workers is no longer "
                "possible. Please increase the limit using `ulimit -n` in the shell or "
                "change the sharing strategy by calling "
                "`torch.multiprocessing.set_sharing_strategy('file_system')` at the "
                "beginning of your code") from None
        return
    for f in files:
        f.close()
