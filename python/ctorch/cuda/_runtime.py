"""ctorch.cuda as a CUDA build of PyTorch has it, over _C's _cuda_* calls
(csrc/python/cuda.c, include/ctorch/cuda.h).

CUDA starts on first need (_lazy_init), as in PyTorch: seeding queued
before it, memory queries answering 0 and empty_cache doing nothing until
then.  Without a driver or a GPU, is_available() is False and starting
raises PyTorch's RuntimeError.  Streams and events wrap the C handles; the
current stream is kept per thread and device.

Each device has a default Philox generator (default_generators), seeded
from the OS when CUDA starts; the calls made before that are queued and
run then, the later of manual_seed / manual_seed_all last, as in PyTorch.
"""
import threading

from .. import _C

from . import _cpu_build

# the CPU build's names, and what only a build with CUDA has
__all__ = _cpu_build.__all__ + ["memory_stats", "Stream", "Event", "stream",
                                "set_stream", "StreamContext"]

_initialized = False
_init_lock = threading.RLock()
_queued_calls = []                  # run by _lazy_init, in order
_queued_seeds = {}                  # the last manual_seed / manual_seed_all, by kind
_seed_order = []                    # those kinds, the latest last
_tls = threading.local()            # .streams: {device index: Stream}


def _is_compiled():
    return True


def device_count():
    return _C._cuda_getDeviceCount()


def is_available():
    return device_count() > 0


def is_initialized():
    return _initialized


def _lazy_init():
    """Start CUDA once: make the devices' default generators, then run the
    calls queued before (the last seeding call after the others, as in
    PyTorch).  Other threads wait; the queued calls themselves re-enter."""
    global _initialized
    if _initialized or getattr(_tls, "initializing", False):
        return
    with _init_lock:
        if _initialized:
            return
        _C._cuda_init()
        _default_generators[:] = [_C._cuda_default_generator(i)
                                  for i in range(device_count())]
        calls = _queued_calls + [_queued_seeds[k] for k in _seed_order]
        _tls.initializing = True
        try:
            for call in calls:
                call()
        finally:
            _tls.initializing = False
        _queued_seeds.clear()
        del _seed_order[:], _queued_calls[:]
        _initialized = True


def _lazy_call(call, seed=False, seed_all=False):
    """Run call now when CUDA runs, else when it starts (torch.cuda's)."""
    with _init_lock:
        if not _initialized:
            if seed or seed_all:
                kind = "all" if seed_all else "one"
                _queued_seeds[kind] = call
                if kind in _seed_order:
                    _seed_order.remove(kind)
                _seed_order.append(kind)
            else:
                _queued_calls.append(call)
            return
    call()


init = _lazy_init


def _device_index(dev, optional=False):
    """torch.cuda._utils._get_device_index: an int, a 'cuda[:N]' string or
    device, a ctorch.cuda.device.  Without an index: the current device when
    optional (None when no GPU is available, as in PyTorch), else a
    ValueError."""
    if isinstance(dev, device):
        return dev.idx
    if isinstance(dev, str):
        from .. import device as _device
        dev = _device(dev)
    if isinstance(dev, int):
        return dev
    if dev is not None:
        if dev.type != "cuda":
            raise ValueError("Expected a cuda device, but got: {}".format(dev))
        if dev.index is not None:
            return dev.index
    if optional:
        return current_device() if is_available() else None
    raise ValueError("Expected a torch.device with a specified index or an integer, "
                     "but got:{}".format(dev))


def current_device():
    _lazy_init()
    return _C._cuda_getDevice()


def set_device(device):
    d = _device_index(device)
    if d >= 0:
        _lazy_init()
        _C._cuda_setDevice(d)


class device:
    """Context manager selecting a CUDA device; -1 does nothing."""

    def __init__(self, device):
        self.idx = _device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx == -1:
            return
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """device(obj's device), a no-op for CPU objects."""

    def __init__(self, obj):
        d = getattr(obj, "device", None)
        super().__init__(d.index if d is not None and d.type == "cuda" else -1)


def synchronize(device=None):
    _lazy_init()
    _C._cuda_synchronize(_device_index(device, optional=True))


class _CudaDeviceProperties:
    def __init__(self, name, major, minor, total_memory, multi_processor_count):
        self.name = name
        self.major = major
        self.minor = minor
        self.total_memory = total_memory
        self.multi_processor_count = multi_processor_count

    def __repr__(self):
        return ("_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, "
                "multi_processor_count=%d)" % (self.name, self.major, self.minor,
                                               self.total_memory // (1024 * 1024),
                                               self.multi_processor_count))


def get_device_properties(device):
    _lazy_init()
    d = _device_index(device, optional=True)
    if d < 0 or d >= device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(*_C._cuda_getDeviceProperties(d))


def get_device_name(device=None):
    return get_device_properties(device).name


def get_device_capability(device=None):
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported():
    return get_device_capability(current_device())[0] >= 8


def mem_get_info(device=None):
    _lazy_init()
    return _C._cuda_memGetInfo(_device_index(device, optional=True))


# --- memory --------------------------------------------------------------------

def memory_stats(device=None):
    if not is_initialized():
        return {}
    return _C._cuda_memoryStats(_device_index(device, optional=True))


def _stat(name, key):
    def f(device=None):
        return memory_stats(device).get(key, 0)
    f.__name__ = f.__qualname__ = name
    return f


memory_allocated = _stat("memory_allocated", "allocated_bytes.all.current")
max_memory_allocated = _stat("max_memory_allocated", "allocated_bytes.all.peak")
memory_reserved = _stat("memory_reserved", "reserved_bytes.all.current")
max_memory_reserved = _stat("max_memory_reserved", "reserved_bytes.all.peak")


def reset_peak_memory_stats(device=None):
    _lazy_init()
    _C._cuda_resetPeakMemoryStats(_device_index(device, optional=True))


def empty_cache():
    if is_initialized():
        _C._cuda_emptyCache()


# --- the generators (torch/cuda/random.py) ------------------------------------------

_default_generators = []          # filled by _lazy_init


def _generators():
    _lazy_init()
    return _default_generators


def _default_generators_now():
    """torch.cuda.default_generators: () until CUDA starts, then one per
    device."""
    return tuple(_generators()) if _initialized else ()


def _rng_index(device):
    from .. import device as _device
    if isinstance(device, str):
        device = _device(device)
    elif isinstance(device, int):
        device = _device("cuda", device)
    idx = device.index
    return current_device() if idx is None else idx


def get_rng_state(device="cuda"):
    """The RNG state of a device as a ByteTensor: PyTorch 2's 16 bytes, the
    seed and the Philox offset."""
    _lazy_init()
    return _generators()[_rng_index(device)].get_state()


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state, device="cuda"):
    new_state_copy = new_state.clone()

    def cb():
        _generators()[_rng_index(device)].set_state(new_state_copy)
    _lazy_call(cb)


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def manual_seed(seed):
    """Seed the current device's generator (queued until CUDA starts)."""
    seed = int(seed)

    def cb():
        _generators()[current_device()].manual_seed(seed)
    _lazy_call(cb, seed=True)


def manual_seed_all(seed):
    """Seed every device's generator (queued until CUDA starts)."""
    seed = int(seed)

    def cb():
        for g in _generators():
            g.manual_seed(seed)
    _lazy_call(cb, seed_all=True)


def seed():
    def cb():
        _generators()[current_device()].seed()
    _lazy_call(cb)


def seed_all():
    def cb():
        gens = _generators()
        if gens:
            s = gens[0].seed()
            for g in gens[1:]:
                g.manual_seed(s)
    _lazy_call(cb)


def initial_seed():
    _lazy_init()
    return _generators()[current_device()].initial_seed()


# --- streams and events ------------------------------------------------------------

_free_streams = {}                 # (device, priority): handles to hand out again


class Stream:
    """A CUDA stream (cudaStreamNonBlocking) on a device; Stream(device,
    priority=0).  As in PyTorch, CUDA streams are never destroyed: one
    whose Stream is gone is handed to the next Stream of its device and
    priority (the memory cached for it stays ordered on it).  Streams from
    current_stream/default_stream wrap the device's default stream."""

    def __init__(self, device=None, priority=0, _handle=None):
        _lazy_init()
        self.device_index = _device_index(device, optional=True)
        self.priority = priority
        self._pooled = _handle is None
        if _handle is None:
            free = _free_streams.get((self.device_index, priority))
            _handle = free.pop() if free else _C._cuda_streamNew(self.device_index, priority)
        self.cuda_stream = _handle

    @property
    def device(self):
        from .. import device as _device
        return _device("cuda", self.device_index)

    def __del__(self):
        if getattr(self, "_pooled", False):
            _free_streams.setdefault((self.device_index, self.priority),
                                     []).append(self.cuda_stream)

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def query(self):
        return _C._cuda_streamQuery(self.device_index, self.cuda_stream)

    def synchronize(self):
        _C._cuda_streamSynchronize(self.device_index, self.cuda_stream)

    def __eq__(self, other):
        return (isinstance(other, Stream) and self.cuda_stream == other.cuda_stream
                and self.device_index == other.device_index)

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return "<torch.cuda.Stream device=%s cuda_stream=%#x>" % (self.device,
                                                                 self.cuda_stream)


class Event:
    """A CUDA event, created on the device of the first stream it is
    recorded on; elapsed_time needs enable_timing=True on both."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._handle = None
        self._device = None

    def record(self, stream=None):
        if stream is None:
            stream = current_stream()
        if self._handle is None:
            self._handle = _C._cuda_eventNew(stream.device_index, self.enable_timing,
                                             self.blocking)
            self._device = stream.device_index
        elif self._device != stream.device_index:
            raise RuntimeError("Event device %d does not match recording stream's device "
                               "%d." % (self._device, stream.device_index))
        _C._cuda_eventRecord(stream.device_index, self._handle, stream.cuda_stream)

    def wait(self, stream=None):
        if stream is None:
            stream = current_stream()
        if self._handle is not None:        # never recorded: nothing to wait for
            _C._cuda_streamWaitEvent(stream.device_index, stream.cuda_stream, self._handle)

    def query(self):
        return True if self._handle is None else _C._cuda_eventQuery(self._handle)

    def synchronize(self):
        if self._handle is not None:
            _C._cuda_eventSynchronize(self._handle)

    def elapsed_time(self, end_event):
        if self._handle is None or end_event._handle is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed "
                               "time.")
        return _C._cuda_eventElapsedTime(self._handle, end_event._handle)

    def __del__(self):
        h = getattr(self, "_handle", None)
        if h is not None:
            try:
                _C._cuda_eventFree(h)
            except Exception:       # noqa: BLE001 - interpreter shutdown
                pass

    def __repr__(self):
        return "<torch.cuda.Event %s>" % ("%#x" % self._handle if self._handle
                                          else "uninitialized")


def _streams():
    s = getattr(_tls, "streams", None)
    if s is None:
        s = _tls.streams = {}
    return s


def default_stream(device=None):
    _lazy_init()
    return Stream(device, _handle=0)


def current_stream(device=None):
    _lazy_init()
    d = _device_index(device, optional=True)
    return _streams().get(d) or default_stream(d)


def set_stream(stream):
    """Make stream current on its device, and its device the current one
    (as PyTorch 1.13's _cuda_setStream does); None: nothing."""
    if stream is None:
        return
    if current_device() != stream.device_index:
        set_device(stream.device_index)
    _C._cuda_setStream(stream.device_index, stream.cuda_stream)
    _streams()[stream.device_index] = stream


class StreamContext:
    """Inside the block, stream is the current stream (and its device the
    current device); on leaving, the streams of both devices and the
    device are put back.  None: nothing."""

    def __init__(self, stream):
        self.stream = stream
        self.src_prev_stream = self.dst_prev_stream = None

    def __enter__(self):
        if self.stream is None:
            return
        self.src_prev_stream = current_stream(None)
        if self.src_prev_stream.device_index != self.stream.device_index:
            with device(self.stream.device_index):
                self.dst_prev_stream = current_stream(self.stream.device_index)
        set_stream(self.stream)

    def __exit__(self, *exc):
        if self.stream is None:
            return False
        if self.dst_prev_stream is not None:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)
        return False


def stream(stream):
    return StreamContext(stream)
