"""torch.random: the default CPU generator's seed and state, and fork_rng.

The generator itself is C (ctorch._C.Generator, bit-compatible with
PyTorch's mt19937 CPU generator); these are PyTorch's Python wrappers
around the default one.
"""
import contextlib
import warnings

from ._C import default_generator

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
           "fork_rng"]


def _cuda():
    """ctorch.cuda when it exists (the CUDA generators follow the CPU seed)."""
    try:
        from . import cuda
    except ImportError:
        return None
    return cuda


def set_rng_state(new_state):
    r"""Sets the random number generator state.

    Args:
        new_state (torch.ByteTensor): The desired state
    """
    default_generator.set_state(new_state)


def get_rng_state():
    r"""Returns the random number generator state as a `torch.ByteTensor`."""
    return default_generator.get_state()


def manual_seed(seed):
    r"""Sets the seed for generating random numbers. Returns a
    `torch.Generator` object.

    Args:
        seed (int): The desired seed. Value must be within the inclusive range
            `[-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff]`. Otherwise, a
            RuntimeError is raised. Negative inputs are remapped to positive
            values with the formula `0x1_0000_0000_0000_0000 + seed`.
    """
    seed = int(seed)
    cuda = _cuda()
    if cuda is not None and hasattr(cuda, "manual_seed_all"):
        cuda.manual_seed_all(seed)
    return default_generator.manual_seed(seed)


def seed():
    r"""Sets the seed for generating random numbers to a non-deterministic
    random number. Returns a 64 bit number used to seed the RNG.
    """
    s = default_generator.seed()
    cuda = _cuda()
    if cuda is not None and hasattr(cuda, "manual_seed_all"):
        cuda.manual_seed_all(s)
    return s


def initial_seed():
    r"""Returns the initial seed for generating random numbers as a
    Python `long`.
    """
    return default_generator.initial_seed()


_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices"):
    """Forks the RNG, so that when you return, the RNG is reset to the state
    that it was previously in.

    Args:
        devices (iterable of CUDA IDs): CUDA devices for which to fork the
            RNG.  CPU RNG state is always forked.
        enabled (bool): if ``False``, the RNG is not forked.
    """
    global _fork_rng_warned_already
    if not enabled:
        yield
        return

    cuda = _cuda()
    count = cuda.device_count() if cuda is not None and hasattr(cuda, "device_count") else 0
    if devices is None:
        if count > 1 and not _fork_rng_warned_already:
            warnings.warn(
                ("CUDA reports that you have {num_devices} available devices, and you "
                 "have used {caller} without explicitly specifying which devices are "
                 "being used. For safety, we initialize *every* CUDA device by default, "
                 "which can be quite slow if you have a lot of GPUs.  If you know that "
                 "you are only making use of a few CUDA devices, set the environment "
                 "variable CUDA_VISIBLE_DEVICES or the '{devices_kw}' keyword argument "
                 "of {caller} with the set of devices you are actually using.  For "
                 "example, if you are using CPU only, set CUDA_VISIBLE_DEVICES= or "
                 "devices=[]; if you are using GPU 0 only, set CUDA_VISIBLE_DEVICES=0 "
                 "or devices=[0].  To initialize all devices and suppress this warning, "
                 "set the '{devices_kw}' keyword argument to "
                 "`range(torch.cuda.device_count())`."
                 ).format(num_devices=count, caller=_caller, devices_kw=_devices_kw))
            _fork_rng_warned_already = True
        devices = list(range(count))
    else:
        # a generator would be exhausted by the first traversal
        devices = list(devices)

    cpu_rng_state = get_rng_state()
    gpu_rng_states = [cuda.get_rng_state(d) for d in devices] if devices else []
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)
        for d, state in zip(devices, gpu_rng_states):
            cuda.set_rng_state(state, d)
