"""DDP's reducer: gradient buckets and their all-reduce during backward.

PyTorch's reducer is C++ (torch/csrc/distributed/c10d/reducer.cpp); this
one is Python over ctorch's C pieces, because its per-step work is a few
calls per parameter and per bucket while the copies, the all-reduce and
the waiting are C with the GIL released.

Note [Buckets]
Parameters are grouped per dtype into buckets, walking them in reverse
(the order backward produces their gradients in): the first bucket closes
once it holds at least 1 MiB, the next ones at bucket_cap_mb (PyTorch's
limits after its first-iteration rebuild).  Each bucket owns one flat
tensor; every parameter has a view of it.  A hook on each parameter's
AccumulateGrad node copies the new gradient, scaled by 1/world, into its
view (or, with gradient_as_bucket_view, makes .grad that view, so the
gradient is accumulated in the bucket directly).  When a bucket's last
gradient arrived its all-reduce is started asynchronously (buckets are
started in index order on every rank, so the collectives match), and
backward goes on computing the next gradients meanwhile.  When the last
bucket started, a final callback (queue_callback) waits for all of them
and writes the results back to .grad: the only copies are into the
bucket and back, as in PyTorch, and none with gradient_as_bucket_view.

Note [Unused parameters]
A parameter whose hook does not fire leaves its bucket incomplete: with
find_unused_parameters the forward walks the graph from the outputs and
marks the parameters it cannot reach ready at the start of backward (their
slice is zero), and a map of locally used parameters is summed over the
world so that a parameter no rank used keeps its .grad.  Without it the
reduction never finishes, and the next forward raises PyTorch's error.
static_graph records the first iteration instead (which parameters were
used and how often their hook fired), reduces everything at its end, and
from then on counts hooks.
"""
import itertools
import weakref

import ctorch
from ctorch import _C
from ctorch.distributed._grad_bucket import GradBucket

_FIRST_BUCKET_BYTES = 1024 * 1024

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new "
    "one. This error indicates that your module has parameters that were not used in "
    "producing loss. You can enable unused parameter detection by passing the keyword "
    "argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` "
    "function outputs participate in calculating loss. \nIf you already have done the "
    "above, then the distributed data parallel module wasn't able to locate the output "
    "tensors in the return value of your module's `forward` function. Please include "
    "the loss function and the structure of the return value of `forward` of your "
    "module when reporting this issue (e.g. list, dict, iterable).\nParameter indices "
    "which did not receive grad for rank %d: %s\n In addition, you can set the "
    "environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print "
    "out information about which particular parameters did not receive gradient on "
    "this rank as part of this error")

_READY_TWICE = (
    "Expected to mark a variable ready only once. This error is caused by one of the "
    "following reasons: 1) Use of a module parameter outside the `forward` function. "
    "Please make sure model parameters are not shared across multiple concurrent "
    "forward-backward passes. or try to use _set_static_graph() as a workaround if "
    "this module graph does not change during training loop.2) Reused parameters in "
    "multiple reentrant backward passes. For example, if you use multiple "
    "`checkpoint` functions to wrap the same part of your model, it would result in "
    "the same set of parameters been used by different reentrant backward passes "
    "multiple times, and hence marking a variable ready multiple times. DDP does not "
    "support such use cases in default. You can try to use _set_static_graph() as a "
    "workaround if your module graph does not change over iterations.\nParameter at "
    "index %d has been marked as ready twice. This means that multiple autograd "
    "engine  hooks have fired for this particular parameter during this iteration. "
    "You can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or "
    "DETAIL to print parameter names for further debugging.")


class _Bucket(object):
    __slots__ = ("index", "indices", "buffer", "views", "pending", "work", "future")

    def __init__(self, index, indices, params):
        self.index = index
        self.indices = indices
        numel = [p.numel() for p in params]
        self.buffer = ctorch.zeros(sum(numel), dtype=params[0].dtype,
                                   device=params[0].device)
        offsets = list(itertools.accumulate([0] + numel))
        self.views = [self.buffer[offsets[k]:offsets[k + 1]].view(p.shape)
                      for k, p in enumerate(params)]
        self.pending = 0
        self.work = None
        self.future = None


def _assign_buckets(params, cap_bytes):
    """Lists of parameter indices, per dtype, walking the parameters in
    reverse; a bucket closes when it reaches its limit (Note [Buckets])."""
    open_ = {}
    done = []
    for i in reversed(range(len(params))):
        p = params[i]
        key = p.dtype
        entry = open_.setdefault(key, [[], 0, 0])
        entry[0].append(i)
        entry[1] += p.numel() * p.element_size()
        limit = _FIRST_BUCKET_BYTES if entry[2] == 0 else cap_bytes
        if entry[1] >= limit:
            done.append(entry[0])
            open_[key] = [[], 0, entry[2] + 1]
    done.extend(e[0] for e in open_.values() if e[0])
    return done


class Reducer(object):
    """Buckets, hooks and the per-iteration state of one DDP module."""

    def __init__(self, params, process_group, bucket_cap_bytes, find_unused,
                 gradient_as_bucket_view):
        self.params = params
        self.pg = process_group
        self.world = process_group.size()
        self.rank = process_group.rank()
        self.find_unused = find_unused
        self.as_view = gradient_as_bucket_view
        self.static_graph = False
        self.static_iteration = 0
        self.hook_counts = None       # static graph: hooks per parameter
        self.static_unused = ()       # static graph: unused by every rank
        self.comm_hook = None
        self.comm_state = None
        self.div = float(self.world)
        self.buckets = []
        self.where = [None] * len(params)     # param index -> (bucket, view)
        for b, indices in enumerate(_assign_buckets(params, bucket_cap_bytes)):
            bucket = _Bucket(b, indices, [params[i] for i in indices])
            self.buckets.append(bucket)
            for k, i in enumerate(indices):
                self.where[i] = (bucket, bucket.views[k])
        if self.as_view:
            for i, p in enumerate(params):
                if p.grad is not None:
                    view = self.where[i][1]
                    view.copy_(p.grad)
                    p.grad = view
        self.expect_hooks = False
        self.require_finalize = False
        self.ready = [False] * len(params)
        self.unused = ()
        self.unused_pending = False
        self.local_used = None
        self.used_work = None
        self.next_bucket = 0
        self.fwd_work = None
        self._nodes = []
        self._handles = []
        for i, p in enumerate(params):
            node = p.expand_as(p).grad_fn.next_functions[0][0]
            self._handles.append(node.register_hook(self._hook_for(weakref.ref(self), i)))
            self._nodes.append(node)      # keeps the AccumulateGrad alive

    @staticmethod
    def _hook_for(ref, i):
        """The hook of parameter i; it holds the reducer weakly, so that a
        dropped DDP module frees its reducer, which removes its hooks."""
        def hook(grads_out, grads_in):
            self = ref()
            if self is not None and self.expect_hooks:
                self._autograd_hook(i)
        return hook

    def __del__(self):
        for h in getattr(self, "_handles", ()):
            h.remove()

    # --- forward side ------------------------------------------------------

    def ensure_prior_reduction_finished(self):
        """Before each forward with grad mode on: PyTorch's error when the
        last reduced backward left a bucket incomplete (it stays until the
        module is rebuilt, as PyTorch's does)."""
        if self.require_finalize:
            missing = [str(i) for i, r in enumerate(self.ready) if not r]
            raise RuntimeError(_UNFINISHED % (self.rank, " ".join(missing)))

    def prepare_for_backward(self, outputs, fwd_work=None):
        """Called after each forward that will be reduced: resets the
        per-iteration state and, with find_unused_parameters, finds the
        parameters `outputs` cannot reach (Note [Unused parameters])."""
        self.expect_hooks = True
        self.require_finalize = True
        self.ready = [False] * len(self.params)
        self.next_bucket = 0
        self.fwd_work = fwd_work
        for b in self.buckets:
            b.pending = len(b.indices)
            b.work = b.future = None
        self.unused = ()
        self.local_used = None
        if self.static_graph:
            if self.static_iteration == 0:
                self.local_used = ctorch.zeros(len(self.params), dtype=ctorch.int32)
                self.hook_counts = [0] * len(self.params)
                self.static_unused = ()
            else:
                self.unused = tuple(i for i, n in enumerate(self.hook_counts) if n == 0)
                self.remaining = list(self.hook_counts)
        elif self.find_unused:
            self.unused = self._find_unused(outputs)
            self.local_used = ctorch.ones(len(self.params), dtype=ctorch.int32)
            for i in self.unused:
                self.local_used[i] = 0
        self.unused_pending = bool(self.unused)

    def _find_unused(self, outputs):
        """Indices of the parameters whose AccumulateGrad no output's graph
        reaches."""
        index = {id(n): i for i, n in enumerate(self._nodes)}
        seen = set()
        alive = []          # node objects made on the way: their ids stay unique
        stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
        reached = set()
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen:
                continue
            seen.add(id(fn))
            alive.append(fn)
            i = index.get(id(fn))
            if i is not None:
                reached.add(i)
                continue
            for nxt, _ in fn.next_functions:
                if nxt is not None and id(nxt) not in seen:
                    stack.append(nxt)
        # leaves used directly as outputs have no grad_fn of their own
        for t in outputs:
            if t.grad_fn is None and t.requires_grad:
                for i, p in enumerate(self.params):
                    if p is t:
                        reached.add(i)
        return tuple(i for i in range(len(self.params)) if i not in reached)

    # --- backward side -----------------------------------------------------

    def _autograd_hook(self, i):
        if self.static_graph and self.static_iteration == 0:
            if self.hook_counts[i] == 0:
                self.local_used[i] = 1
            self.hook_counts[i] += 1
            if not self.unused_pending:
                self.unused_pending = True
                _C._queue_callback(self._delay_all_reduce)
            return
        if self.unused_pending:
            self.unused_pending = False
            for u in self.unused:
                self._mark_ready(u)
        if self.static_graph:
            self.remaining[i] -= 1
            if self.remaining[i] != 0:
                return
        self._mark_ready(i)

    def _mark_ready(self, i):
        if self.ready[i]:
            raise RuntimeError(_READY_TWICE % i)
        self.ready[i] = True
        bucket, view = self.where[i]
        p = self.params[i]
        grad = p.grad
        if grad is None:
            view.zero_()
        elif self.as_view and grad.data_ptr() == view.data_ptr():
            if self.comm_hook is None:
                view.div_(self.div)
        else:
            if self.comm_hook is None:
                ctorch.mul(grad, 1.0 / self.div, out=view)
            else:
                view.copy_(grad)
            if self.as_view:
                p.grad = view
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready()

    def _launch_ready(self):
        """Start the all-reduce of each complete bucket in index order."""
        buckets = self.buckets
        while self.next_bucket < len(buckets) and buckets[self.next_bucket].pending == 0:
            self._launch(buckets[self.next_bucket])
            self.next_bucket += 1
        if self.next_bucket == len(buckets):
            if self.local_used is not None:
                self.used_work = self.pg.allreduce([self.local_used], 0, async_op=True)
            _C._queue_callback(self._finalize)

    def _launch(self, bucket):
        if self.comm_hook is None:
            bucket.work = self.pg.allreduce([bucket.buffer], 0, async_op=True)
        else:
            gb = GradBucket(bucket.index, bucket.buffer,
                            [self.params[i] for i in bucket.indices], bucket.views,
                            bucket.index == len(self.buckets) - 1)
            bucket.future = self.comm_hook(self.comm_state, gb)

    def _finalize(self):
        """The final callback: wait for each bucket in turn and write its
        results to .grad (the first buckets' copies overlap the last
        buckets' all-reduce)."""
        self.expect_hooks = False
        self.require_finalize = False
        unused = self.static_unused if self.static_iteration > 0 else ()
        if self.local_used is not None:
            self.used_work.wait()
            self.used_work = None
            unused = {i for i, n in enumerate(self.local_used.tolist()) if n == 0}
        for b in self.buckets:
            if b.work is not None:
                b.work.wait()
            else:
                out = b.future.wait()
                if isinstance(out, (list, tuple)):
                    out = out[0]
                if out.data_ptr() != b.buffer.data_ptr():
                    b.buffer.copy_(out.view(-1))
            b.work = b.future = None
            for i, view in zip(b.indices, b.views):
                if i in unused:
                    continue
                p = self.params[i]
                grad = p.grad
                if self.as_view:
                    if grad is None or grad.data_ptr() != view.data_ptr():
                        p.grad = view
                elif grad is None:
                    p.grad = view.clone()
                else:
                    grad.copy_(view)
        if self.static_graph and self.static_iteration == 0:
            self.static_unused = tuple(sorted(unused))
        if self.static_graph:
            self.static_iteration += 1

    def _delay_all_reduce(self):
        """static_graph's first iteration: reduce every bucket at the end of
        backward, now that all hooks have fired."""
        self.unused_pending = False
        for i in range(len(self.params)):
            self._mark_ready_delayed(i)
        self._launch_ready()

    def _mark_ready_delayed(self, i):
        self.ready[i] = True
        bucket, view = self.where[i]
        grad = self.params[i].grad
        if grad is None or self.hook_counts[i] == 0:
            view.zero_()
        elif self.comm_hook is None:
            ctorch.mul(grad, 1.0 / self.div, out=view)
        else:
            view.copy_(grad)
        if self.as_view and grad is not None and self.hook_counts[i] > 0:
            self.params[i].grad = view
        bucket.pending -= 1

    # --- join: what a joined rank runs to match the others -----------------

    def zero_buckets_all_reduce(self):
        """One collective per bucket, on zeros, as the backward of a rank
        that still has inputs starts them."""
        works = []
        for b in self.buckets:
            z = ctorch.zeros_like(b.buffer)
            if self.comm_hook is None:
                works.append(self.pg.allreduce([z], 0, async_op=True))
            else:
                views = [z[0:0]] * len(b.indices)
                gb = GradBucket(b.index, z, [self.params[i] for i in b.indices], views,
                                b.index == len(self.buckets) - 1)
                works.append(self.comm_hook(self.comm_state, gb))
        for w in works:
            w.wait()

    def unused_map_all_reduce(self):
        z = ctorch.zeros(len(self.params), dtype=ctorch.int32)
        self.pg.allreduce([z], 0, async_op=False).wait()
