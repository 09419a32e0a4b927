"""The store-based join check run before a process group is built.

Every rank of the world claims <base>/claim/<r> with compare_set (init
only), sets <base>/rank/<r> and waits on all ranks' keys with the group's
timeout, so init_process_group / new_group fail within the timeout naming
the ranks that never arrived, instead of hanging in the transport.

A failure is shared through the store: the rank that sees it first (the
first to time out, or the second process claiming a rank while ranks are
still missing) writes the error
under <base>/abort and sets the missing rank keys, so every rank still
waiting wakes up at once and raises the same error.  Rank 0, the TCPStore's
host, then waits briefly for the others to read it before it raises (its
exit would close the store under them).

The claim token names host and pid: a claim whose process is gone (a
FileStore left by a killed run) is taken over, not reported.

The keys live under <base>#<epoch>.  A FileStore closed cleanly keeps its
keys (c10d's rule), so a run whose join failed (a rank killed before it
came, the others timed out) leaves its abort behind, and the next run on
that file would raise it at once.  A join that failed and whose claimants
are all gone is stale: the first process to see that moves <base>/epoch on
(compare_set, so every process lands on the same epoch) and joins afresh.
"""
import os
import socket
import time
import uuid
from datetime import timedelta


def _token():
    return "%s:%d:%s" % (socket.gethostname(), os.getpid(), uuid.uuid4().hex[:8])


def _owner_gone(token):
    """True when `token` was written by a process of this host that no
    longer exists."""
    try:
        host, pid, _ = token.split(":")
        pid = int(pid)
    except ValueError:
        return False
    if host != socket.gethostname() or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _describe(token):
    try:
        host, pid, _ = token.split(":")
        return "pid %s on %s" % (pid, host)
    except ValueError:
        return repr(token)


def _rank_list(ranks):
    if len(ranks) == 1:
        return "rank %d" % ranks[0]
    return "ranks " + ", ".join(str(r) for r in ranks)


def _missing(store, keys):
    return [r for r, k in enumerate(keys) if not store.check([k])]


_LINGER = timedelta(seconds=1)


_ON_RANK = "store based barrier on rank: "


def _as_seen_by(msg, rank):
    """The shared failure `msg` as `rank` reports it: a timeout names the
    rank raising it, as each rank's own would."""
    head, sep, tail = msg.partition(_ON_RANK)
    if not sep or rank < 0:
        return msg
    return "%s%s%d%s" % (head, sep, rank, tail[tail.find(","):])


def _fail(store, base, rank, keys, msg):
    """Publish `msg` as the group's failure (the first one written wins),
    wake the waiting ranks, and raise it."""
    abort_key = base + "/abort"
    msg = _as_seen_by(store.compare_set(abort_key, "", msg).decode(errors="replace"), rank)
    present = [r for r in range(len(keys)) if store.check([keys[r]])]
    for r in range(len(keys)):
        if r not in present:
            store.set(keys[r], "abort")
    if rank > 0:
        # done with the store: rank 0, its host, need not linger for us
        # (a rank that timed out on its own never reads the abort below)
        try:
            store.set("%s/ack/%d" % (base, rank), "1")
        except RuntimeError:
            pass
    if rank == 0:
        acks = ["%s/ack/%d" % (base, r) for r in present if r != 0]
        try:
            if acks:
                store.wait(acks, _LINGER)
        except RuntimeError:
            pass
    raise RuntimeError(msg)


def _timeout_message(rank, base, world_size, missing, timeout):
    return ("Timed out initializing process group in " + _ON_RANK +
            "%d, for key: %s (world_size=%d, worker_count=%d, timeout=%s): %s never "
            "joined" % (rank, base, world_size, world_size - len(missing),
                        timedelta(seconds=timeout.total_seconds()),
                        _rank_list(missing)))


def _stale(store, key_base, world_size):
    """True when the join under key_base failed and every process that
    claimed a rank in it is gone."""
    if not store.check([key_base + "/abort"]):
        return False
    for r in range(world_size):
        k = "%s/claim/%d" % (key_base, r)
        if store.check([k]) and not _owner_gone(store.get(k).decode(errors="replace")):
            return False
    return True


def _key_base(store, base, world_size):
    """<base>#<epoch>, past any stale epochs (see the module's note)."""
    epoch_key = base + "/epoch"
    epoch = store.compare_set(epoch_key, "", "0").decode()
    while _stale(store, "%s#%s" % (base, epoch), world_size):
        epoch = store.compare_set(epoch_key, epoch, str(int(epoch) + 1)).decode()
    return "%s#%s" % (base, epoch)


_SLICE = 0.1


class GroupLost(RuntimeError):
    """Raised by an `alive` callable: the process group lost a rank."""


def _wait_all(store, keys, timeout, alive):
    """store.wait(keys, timeout).  With `alive` (a callable that raises once
    the ranks' process group has lost a rank), the wait goes in slices that
    call it, so a dead rank fails the wait at once, not after the timeout
    (new_group's is 30 minutes by default)."""
    if alive is None:
        store.wait(keys, timeout)
        return
    end = time.monotonic() + timeout.total_seconds()
    while True:
        start = time.monotonic()
        piece = min(max(end - start, 0.001), _SLICE)
        try:
            store.wait(keys, timedelta(seconds=piece))
            return
        except RuntimeError:
            # a store that fails at once is not a slice that ran out
            if time.monotonic() >= end or time.monotonic() - start < piece * 0.5:
                raise
            alive()


def arrive(store, base, rank, world_size, timeout, claim, alive=None):
    """Check in as `rank` and wait until all `world_size` ranks have.

    claim: detect a second process claiming the same rank (init); new_group
    only checks in.  Raises RuntimeError naming the missing ranks after
    `timeout` (a timedelta), or the double claim; alive: see _wait_all.
    Returns the base of the keys used (depart takes it).
    """
    name = base
    if claim:
        base = _key_base(store, base, world_size)
    keys = ["%s/rank/%d" % (base, r) for r in range(world_size)]
    abort_key = base + "/abort"
    if claim:
        claim_key = "%s/claim/%d" % (base, rank)
        token = _token()
        owner = store.compare_set(claim_key, "", token).decode(errors="replace")
        if owner != token and _owner_gone(owner):
            owner = store.compare_set(claim_key, owner, token).decode(errors="replace")
        if owner != token:
            if store.check([abort_key]):
                raise RuntimeError(store.get(abort_key).decode(errors="replace"))
            msg = ("init_process_group: rank %d is claimed by two processes (%s and "
                   "%s); every process needs its own rank in [0, %d)"
                   % (rank, _describe(owner), _describe(token), world_size))
            if not _missing(store, keys):
                # the others can complete without this process
                raise RuntimeError(msg)
            _fail(store, base, -1, keys, msg)
    # a set (not compare_set, which need not wake waiters) marks the arrival
    store.set(keys[rank], "1")
    try:
        _wait_all(store, keys, timeout, alive)
    except GroupLost as e:
        _fail(store, base, rank, keys, str(e))
    except RuntimeError as e:
        try:
            missing = _missing(store, keys)
        except RuntimeError:
            raise e from None
        if missing:
            _fail(store, base, rank, keys,
                  _timeout_message(rank, name, world_size, missing, timeout))
    if store.check([abort_key]):
        msg = store.get(abort_key).decode(errors="replace")
        store.set("%s/ack/%d" % (base, rank), "1")
        raise RuntimeError(_as_seen_by(msg, rank))
    return base


def depart(store, base, rank, world_size, timeout, alive=None):
    """After building the group: rank 0 (the TCPStore's host) returns only
    when every other rank has built it and is done with the store.  `base`
    is what arrive returned."""
    if rank != 0:
        store.set("%s/built/%d" % (base, rank), "1")
        return
    keys = ["%s/built/%d" % (base, r) for r in range(1, world_size)]
    if not keys:
        return
    try:
        _wait_all(store, keys, timeout, alive)
    except GroupLost as e:
        raise RuntimeError(str(e)) from None
    except RuntimeError as e:
        try:
            missing = [r + 1 for r in _missing(store, keys)]
        except RuntimeError:
            raise e from None
        if not missing:
            raise
        raise RuntimeError(_timeout_message(rank, base.split("#")[0] + "/built",
                                            world_size, missing, timeout)) from None
