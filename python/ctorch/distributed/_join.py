"""The store-based join check run before a process group is built.

Every rank of the world claims <base>/claim/<r> with compare_set (init
only), sets <base>/rank/<r> and waits on all ranks' keys with the group's
timeout, so
init_process_group / new_group fail within the timeout naming the ranks
that never arrived, instead of hanging in the transport.  A rank claimed by
two processes fails at once in the second one; that process also records
the error under <base>/abort and sets the missing rank keys, so the ranks
already waiting wake up and raise the same error.

The claim token names host and pid: a claim whose process is gone (a
FileStore left by a killed run) is taken over, not reported.
"""
import os
import socket
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


def _wait(store, keys, ranks, rank, base, timeout, world_size):
    """store.wait(keys); on a timeout, a RuntimeError naming the ranks
    (ranks[i] owns keys[i]) whose keys never appeared."""
    try:
        store.wait(keys, timeout)
    except RuntimeError as e:
        try:
            missing = [r for r, k in zip(ranks, keys) if not store.check([k])]
        except RuntimeError:
            raise e from None
        if not missing:
            raise
        raise RuntimeError(
            "Timed out initializing process group in store based barrier on rank: "
            "%d, for key: %s (world_size=%d, worker_count=%d, timeout=%s): %s never "
            "joined" % (rank, base, world_size, world_size - len(missing),
                        timedelta(seconds=timeout.total_seconds()),
                        _rank_list(missing))) from None


def arrive(store, base, rank, world_size, timeout, claim):
    """Check in as `rank` and wait until all `world_size` ranks have.

    claim: detect a second process claiming the same rank (init); new_group
    only checks in.  Raises RuntimeError naming the missing ranks after
    `timeout` (a timedelta), or the double claim.
    """
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
            store.set(abort_key, msg)
            for r in _missing(store, keys):
                store.set(keys[r], "abort")
            raise RuntimeError(msg)
    # a set (not compare_set, which need not wake waiters) marks the arrival
    store.set(keys[rank], "1")
    _wait(store, keys, range(world_size), rank, base, timeout, world_size)
    if claim and store.check([abort_key]):
        raise RuntimeError(store.get(abort_key).decode(errors="replace"))


def depart(store, base, rank, world_size, timeout):
    """After building the group: rank 0 (the TCPStore's host) returns only
    when every other rank has built it and is done with the store."""
    if rank != 0:
        store.set("%s/built/%d" % (base, rank), "1")
        return
    ranks = range(1, world_size)
    keys = ["%s/built/%d" % (base, r) for r in ranks]
    if keys:
        _wait(store, keys, ranks, rank, base, timeout, world_size)
