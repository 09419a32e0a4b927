"""torch.distributed.algorithms.join: training with uneven inputs.

A rank that runs out of inputs leaves the `with Join([...])` block and
then "shadows" the collectives the other ranks still make: every
iteration of a rank still inside counts itself with an all-reduce of ones
(notify_join_context, from the first joinable's forward), and a joined
rank answers that all-reduce with zeros; while the sum is not zero, the
joined rank runs each joinable's main_hook (which mirrors one iteration's
collectives), and once it is zero every rank runs the post_hooks.
"""
import warnings
from abc import ABC, abstractmethod
from typing import NamedTuple

import ctorch
import ctorch.distributed as dist

__all__ = ["JoinHook", "Joinable", "Join"]


class JoinHook(object):
    """The two entry points a Joinable gives the join context manager:
    main_hook, run once per iteration the other ranks still make, and
    post_hook, run once everyone joined."""

    def main_hook(self):
        """Shadow one iteration's collectives of the non-joined ranks."""

    def post_hook(self, is_last_joiner):
        """Run after all ranks joined; is_last_joiner tells whether this
        rank was among the last to join."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False,
                           is_first_joinable=False)


class Joinable(ABC):
    """A class usable in Join: it gives a join_hook, and the device and
    process group the context manager communicates with."""

    @abstractmethod
    def __init__(self):
        super(Joinable, self).__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs):
        """A JoinHook for this joinable; kwargs come from Join(...)."""

    @property
    @abstractmethod
    def join_device(self):
        """The device of the context manager's own collectives."""

    @property
    @abstractmethod
    def join_process_group(self):
        """The process group of the context manager's own collectives."""


class Join(object):
    """The join context manager (see the module docstring)."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False,
                 **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for k, j in enumerate(joinables):
            j._join_config = _JoinConfig(enable=enable,
                                         throw_on_early_termination=throw_on_early_termination,
                                         is_first_joinable=k == 0)
        group = None
        for j in joinables:
            if group is None:
                group = j.join_process_group
            elif group != j.join_process_group:
                raise ValueError("Using join context manager with multiple process groups")
        self._process_group = group
        self._rank = dist.get_rank(group)
        self._device = joinables[0].join_device

    def __enter__(self):
        pass

    def __exit__(self, type, value, traceback):
        if not self._enable or type:
            return
        last = True
        i = 0
        limit = 1000
        warnings.simplefilter("once")
        while True:
            if i > limit:
                warnings.warn(
                    "Detected uneven input skew of greater than %d. This means that "
                    "rank %d has at least %d fewer inputs than other currently-active "
                    "ranks. This level of skew could lead to performance degradation "
                    "during training." % (limit, self._rank, limit))
            if self._count_nonjoined() == 0:
                break
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            for h in self._join_hooks:
                h.main_hook()
            last = False
            i += 1
        for h in self._join_hooks:
            h.post_hook(last)

    def _count_nonjoined(self):
        n = ctorch.zeros(1, device=self._device)
        dist.all_reduce(n, group=self._process_group)
        return n.item()

    def _notify_procs_to_terminate(self):
        ones = ctorch.ones(1, device=self._device)
        dist.all_reduce(ones, group=self._process_group)
        raise RuntimeError("Rank %d exhausted all inputs." % self._rank)

    @staticmethod
    def notify_join_context(joinable):
        """Called by a joinable before its per-iteration collectives: counts
        this rank as not joined (an async all-reduce of ones, returned) and,
        with throw_on_early_termination, raises if a rank has joined.
        Vacuous (None) unless `joinable` is the first of an enabled Join."""
        assert hasattr(joinable, "_join_config"), (
            "Check that the %s constructor calls the ``Joinable`` constructor"
            % type(joinable))
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        device = joinable.join_device
        group = joinable.join_process_group
        work = dist.all_reduce(ctorch.ones(1, device=device), group=group,
                               async_op=True)
        if config.throw_on_early_termination:
            flag = ctorch.zeros(1, device=device)
            dist.all_reduce(flag, group=group)
            if flag.item():
                raise RuntimeError(
                    "Detected at least one rank that exhausted inputs. Throwing "
                    "across all ranks.")
        return work
