"""A communication hook that communicates nothing (to measure the rest)."""
from ctorch.futures import Future


def noop_hook(_, bucket):
    """Return the bucket unreduced, as an already completed Future."""
    fut = Future()
    fut.set_result(bucket.buffer())
    return fut
