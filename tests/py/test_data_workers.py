"""ctorch.utils.data.DataLoader with worker processes (fork and spawn):
the same batches as in the main process, PyTorch 1.13's per-worker seeds
(`random`, ctorch and numpy streams recorded from torch), persistent
workers, sharded iterable datasets, prefetching, timeouts, and failures:
an exception in a worker re-raised with its traceback, a worker killed by
a signal or exiting reported as torch reports it, and no process left
behind.  Spawned workers cost about half a second each, so few loaders use
spawn."""
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time

import pytest

import ctorch
import ctorch.utils.data as D

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "data"))
import data_loader_cases as dc  # noqa: E402
from data_loader_expected import EXPECTED  # noqa: E402


@pytest.fixture(autouse=True)
def _no_workers_left():
    yield
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


# The loaders of loader_runs that run again with workers (each start of a
# worker forks the whole test process, a good part of a second here)
WORKER_RUNS = {0, 2, 3, 4, 5, 6, 8, 10, 13, 17, 18}


def test_two_workers_give_the_main_process_batches():
    got = dc.loader_runs(ctorch, 2, "fork", select=WORKER_RUNS)
    expect = dc.selected(EXPECTED["loader/batches"], WORKER_RUNS)
    for i, (g, e) in enumerate(zip(got, expect)):
        if i not in dc.PER_WORKER_ENTRIES:
            assert g == e, i
    # an iterable dataset: every worker iterates all of it
    assert got[13][0] == [x for b in expect[13][0] for x in (b, b)]
    assert got[13][1] == expect[13][1]


def test_loader_runs_against_torch(torch_ref):
    # the entries that depend on the workers (the others are recorded)
    select = {13, 17, 18}
    assert dc.loader_runs(ctorch, 2, "fork", select=select) == \
        dc.loader_runs(torch_ref, 2, "fork", select=select)


def test_worker_seeds_recorded_fork():
    assert dc.worker_runs("ctorch", "fork") == EXPECTED["workers/fork"]


def test_worker_seeds_recorded_spawn():
    # the start method changes nothing that a dataset can see
    select = {0, 3}
    assert dc.worker_runs("ctorch", "spawn", select=select) == \
        dc.selected(EXPECTED["workers/fork"], {0, 1, 5})


def test_worker_seeds_against_torch(torch_ref):
    select = {0, 1}
    assert dc.worker_runs("ctorch", "fork", select=select) == \
        dc.worker_runs("torch", "fork", select=select)


def test_worker_errors_recorded():
    assert dc.worker_error_runs("ctorch") == EXPECTED["workers/errors"]


def test_worker_errors_against_torch(torch_ref):
    which = (0, 4)      # all of them are recorded
    assert dc.worker_error_runs("ctorch", which=which) == \
        dc.worker_error_runs("torch", which=which)


def test_worker_error_spawn():
    got = dc.worker_error(ctorch, dc.Failing(ValueError("bad")), "spawn")
    assert got == EXPECTED["workers/errors"][0]


def test_exception_message_carries_the_traceback():
    with pytest.raises(ValueError) as info:
        list(D.DataLoader(dc.Failing(ValueError("bad")), batch_size=2, num_workers=2))
    msg = str(info.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\n"
                          "Original Traceback (most recent call last):\n")
    assert "in _worker_loop\n    data = fetcher.fetch(index)\n" in msg
    assert 'data_loader_cases.py", line ' in msg and "raise self.exc" in msg
    assert msg.endswith("\nValueError: bad\n")
    del info        # its traceback holds this frame, which holds info


def test_killed_worker_message_and_pid():
    loader = D.DataLoader(dc.Failing(kill=signal.SIGKILL), batch_size=2, num_workers=2)
    it = iter(loader)
    pids = [w.pid for w in it._workers]
    with pytest.raises(RuntimeError) as info:
        list(it)
    pid = pids[dc.Failing().at // 2 % 2]        # batch 2 goes to worker 0
    assert str(info.value) == "DataLoader worker (pid(s) %d) exited unexpectedly" % pid
    assert type(info.value.__cause__) is RuntimeError
    assert str(info.value.__cause__) == \
        "DataLoader worker (pid %d) is killed by signal: Killed. " % pid
    del it, info


def test_killed_worker_outside_the_main_thread():
    # A process that never made an iterator in its main thread has no
    # SIGCHLD handler (Python runs handlers in the main thread only, and
    # one handler serves every iterator): the iterator polls its workers.
    code = """if 1:
        import signal, sys, threading
        sys.path.insert(0, %r)
        import ctorch.utils.data as D
        import data_loader_cases as dc
        def run():
            try:
                list(D.DataLoader(dc.Failing(kill=signal.SIGKILL), batch_size=2,
                                  num_workers=2))
            except RuntimeError as e:
                print(repr(str(e)))
                print(repr(str(e.__cause__)))
        th = threading.Thread(target=run)
        th.start()
        th.join()
        print(signal.getsignal(signal.SIGCHLD))
    """ % os.path.join(HERE, "data")
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, PYTHONPATH=os.path.join(
                           os.path.dirname(os.path.dirname(HERE)), "python")))
    assert time.monotonic() - t0 < 60
    msg, cause, handler = r.stdout.splitlines()
    assert re.fullmatch(r"'DataLoader worker \(pid\(s\) \d+\) exited unexpectedly'", msg)
    assert re.fullmatch(r"'DataLoader worker \(pid \d+\) is killed by signal: Killed. '",
                        cause)
    assert handler in ("0", "Handlers.SIG_DFL")      # no Python handler set


def test_worker_exiting_with_status_zero():
    with pytest.raises(RuntimeError, match=r"^DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly$"):
        list(D.DataLoader(dc.Failing(code=0), batch_size=2, num_workers=2))


def test_timeout():
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        list(D.DataLoader(dc.Slow(), num_workers=2, timeout=0.3))
    assert time.monotonic() - t0 < 10


def test_timeout_not_reached():
    out = list(D.DataLoader(dc.Slow(), num_workers=2, timeout=5))
    assert [b.item() for b in out] == [0, 1, 2, 3]


def test_prefetch_factor_bounds_the_tasks_in_flight():
    it = iter(D.DataLoader(list(range(40)), batch_size=2, num_workers=2, prefetch_factor=3))
    assert it._tasks_outstanding == 6 and it._send_idx == 6
    next(it)
    assert it._send_idx == 7
    assert [b.tolist() for b in it][-1] == [38, 39]


def test_worker_init_fn_and_worker_info():
    def init(worker_id):
        info = D.get_worker_info()
        assert info.id == worker_id and info.num_workers == 2
        with pytest.raises(RuntimeError, match="^Cannot assign attributes to WorkerInfo "
                                               "objects$"):
            info.id = 5
        info.dataset.offset = 100 * (worker_id + 1)
    out = [b.tolist() for b in D.DataLoader(Offset(), batch_size=2, num_workers=2,
                                            worker_init_fn=init)]
    assert out == [[100, 101], [202, 203], [104, 105]]


class Offset:
    offset = 0

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return self.offset + i


def test_worker_info_repr():
    def show(worker_id):
        info = D.get_worker_info()
        return repr(info).replace(repr(info.dataset), "DS")
    out = list(D.DataLoader(ReprProbe(), batch_size=None, num_workers=1))
    assert out == ["WorkerInfo(id=0, num_workers=1, seed=%d, dataset=DS)" % out_seed(out)]


class ReprProbe:
    def __len__(self):
        return 1

    def __getitem__(self, i):
        info = D.get_worker_info()
        return repr(info).replace(repr(info.dataset), "DS")


def out_seed(out):
    return int(out[0].split("seed=")[1].split(",")[0])


def test_persistent_workers_are_reused():
    loader = D.DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = {int(p) for b in loader for p in b}
    second = {int(p) for b in loader for p in b}
    assert first == second and len(first) == 2
    it = loader._iterator
    assert all(w.is_alive() for w in it._workers)
    del loader, it


class Pids:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return os.getpid()


def test_persistent_iterable_dataset_resumes():
    loader = D.DataLoader(dc.shards("ctorch", 5), batch_size=2, num_workers=2,
                          persistent_workers=True)
    epochs = [[b.tolist() for b in loader] for _ in range(3)]
    assert epochs[0] == epochs[1] == epochs[2] == [[0, 1], [3, 4], [2]]


def test_iterator_abandoned_midway_shuts_down():
    it = iter(D.DataLoader(list(range(100)), batch_size=2, num_workers=2))
    next(it)
    workers = list(it._workers)
    del it
    for w in workers:
        w.join(10)
        assert not w.is_alive()


def test_forkserver_context_object():
    ctx = multiprocessing.get_context("forkserver")
    loader = D.DataLoader(D.TensorDataset(ctorch.arange(6.)), batch_size=4, num_workers=1,
                          multiprocessing_context=ctx)
    assert loader.multiprocessing_context is ctx
    assert [b[0].tolist() for b in loader] == [[0., 1., 2., 3.], [4., 5.]]


def test_batches_arrive_whole_and_writable():
    x = ctorch.randn(50, 3, 4, 4)
    y = ctorch.arange(50)
    loader = D.DataLoader(D.TensorDataset(x, y), batch_size=8, num_workers=2)
    got = list(loader)
    assert [b[1].tolist() for b in got] == [list(range(i, min(i + 8, 50)))
                                            for i in range(0, 50, 8)]
    assert ctorch.equal(ctorch.cat([b[0] for b in got]), x)
    got[0][0].add_(1)       # a batch belongs to the receiver
    assert ctorch.equal(got[0][0], x[:8] + 1)


def test_spawn_tensor_dataset():
    ds = D.TensorDataset(ctorch.arange(10.).reshape(5, 2), ctorch.arange(5))
    loader = D.DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context="spawn",
                          shuffle=True, generator=ctorch.Generator().manual_seed(1))
    got = [[t.tolist() for t in b] for b in loader]
    g = ctorch.Generator().manual_seed(1)
    main = [[t.tolist() for t in b] for b in D.DataLoader(ds, batch_size=2, shuffle=True,
                                                          generator=g)]
    assert got == main
