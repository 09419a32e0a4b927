"""ctorch.cuda as PyTorch's CPU-only build has it (a build without the CUDA part).

No CUDA device is compiled in, so scripts written for GPUs take the same
turns they take on a CPU build of PyTorch: `is_available()` is False,
`device_count()` is 0, seeding and cache calls are quiet no-ops (PyTorch
queues them until CUDA initializes, which never happens), and anything that
needs a device raises "Torch not compiled with CUDA enabled".
"""

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device",
           "set_device", "device", "device_of", "synchronize", "get_device_name",
           "get_device_capability", "get_device_properties", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "get_rng_state_all", "set_rng_state", "set_rng_state_all", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_peak_memory_stats", "current_stream",
           "default_stream", "is_bf16_supported", "mem_get_info"]


def _is_compiled():
    return False


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _lazy_init():
    raise AssertionError("Torch not compiled with CUDA enabled")


init = _lazy_init


def _needs_device(name):
    def f(*args, **kwargs):
        _lazy_init()
    f.__name__ = f.__qualname__ = name
    return f


# PyTorch's CPU build fails set_device with an AttributeError on a missing
# _C hook; ctorch gives the assertion every other device call gives.
for _name in ("current_device", "set_device", "synchronize", "get_device_name",
              "get_device_capability", "get_device_properties", "initial_seed",
              "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
              "current_stream", "default_stream", "is_bf16_supported", "mem_get_info"):
    globals()[_name] = _needs_device(_name)
del _name


def _quiet(*args, **kwargs):
    return None


manual_seed = manual_seed_all = seed = seed_all = empty_cache = _quiet
reset_peak_memory_stats = _quiet


def _zero(device=None):
    return 0


memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _zero


def _device_index(dev):
    if dev is None:
        return -1
    if isinstance(dev, int):
        return dev
    from .. import device as _device
    d = _device(dev) if isinstance(dev, str) else dev
    return -1 if d.index is None else d.index


class device:
    """Context manager selecting a CUDA device: entering it with a real index
    needs CUDA, as in PyTorch; None or -1 does nothing."""

    def __init__(self, device):
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx != -1:
            _lazy_init()

    def __exit__(self, *exc):
        return False


class device_of(device):
    """device(obj's device): a no-op for CPU tensors."""

    def __init__(self, obj):
        super().__init__(-1)


def _default_generators_now():
    return ()
