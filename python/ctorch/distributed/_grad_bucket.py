"""torch.distributed.GradBucket (a C++ class in PyTorch): what a DDP
communication hook receives (ctorch/nn/parallel/_reducer.py makes them)."""
import os


class GradBucket(object):
    """What a communication hook gets: one bucket's flat gradient tensor
    and the parameters whose gradients it holds (torch.distributed.GradBucket)."""

    __slots__ = ("_index", "_buffer", "_params", "_views", "_last")

    def __init__(self, index, buffer, params, views, is_last):
        self._index = index
        self._buffer = buffer
        self._params = params
        self._views = views
        self._last = is_last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def gradients(self):
        return list(self._views)

    def parameters(self):
        return list(self._params)

    def is_last(self):
        return self._last

    def set_buffer(self, buffer):
        self._buffer = buffer


GradBucket.__module__ = ("torch" if os.environ.get("CTORCH_TORCH_NAMES") == "1"
                         else "ctorch") + "._C._distributed_c10d"
