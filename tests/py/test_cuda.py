"""ctorch.cuda in a build with the CUDA part (libctorch_cuda.so).

Without a driver (this machine, CI): the answers of a CUDA build of
PyTorch on a machine with no GPU, recorded from PyTorch's sources
(torch/cuda/__init__.py, c10/cuda/CUDAFunctions.cpp).  With a GPU (marked
`gpu`, skipped elsewhere): devices, memory through the caching allocator,
streams and events against the device itself.
"""
import pytest

import ctorch
from helpers import CUDA_BUILT, NO_DRIVER, error_of, no_gpu_here

pytestmark = pytest.mark.skipif(not CUDA_BUILT, reason="this build has no CUDA part "
                                "(the CUDA toolkit was not found when it was built)")
gpu = pytest.mark.skipif(not CUDA_BUILT or ctorch.cuda.device_count() == 0,
                         reason="no CUDA GPU here")
NO = ("RuntimeError", NO_DRIVER)


def test_answers_without_a_driver():
    no_gpu_here()
    c = ctorch.cuda
    assert c._is_compiled()
    assert (c.is_available(), c.device_count(), c.is_initialized()) == (False, 0, False)
    for f in (c.init, c.current_device, c.synchronize, lambda: c.set_device(0),
              lambda: c.get_device_name(0), lambda: c.get_device_capability(0),
              lambda: c.get_device_properties(0), c.mem_get_info, c.reset_peak_memory_stats,
              c.current_stream, c.default_stream, c.Stream, lambda: c.Event().record(),
              c.initial_seed):
        assert error_of(f) == NO, f
    # the same answer every time, and CUDA still not initialized
    assert error_of(c.init) == NO
    assert not c.is_initialized()
    # quiet until CUDA starts, as in PyTorch
    for f in (c.empty_cache, lambda: c.manual_seed(1), lambda: c.manual_seed_all(1),
              c.seed, c.seed_all):
        assert f() is None
    for f in (c.memory_allocated, c.max_memory_allocated, c.memory_reserved,
              c.max_memory_reserved):
        assert f() == 0 and f(0) == 0
    assert c.memory_stats() == {}
    assert c.Event(enable_timing=True).query() is True     # never recorded
    assert error_of(lambda: c.Event(True).elapsed_time(c.Event(True))) == (
        "RuntimeError", "Both events must be recorded before calculating elapsed time.")
    assert error_of(lambda: c.Event().wait()) == NO          # the current stream
    assert ctorch.ones(2).is_pinned() is False
    assert error_of(lambda: ctorch.ones(2).pin_memory()) == NO
    with c.device(-1):
        pass
    with c.device_of(ctorch.zeros(1)):
        pass
    with c.stream(None):
        pass
    with pytest.raises(RuntimeError, match="^Found no NVIDIA driver"):
        with c.device(0):
            pass
    assert error_of(lambda: c.set_device("cpu")) == (
        "ValueError", "Expected a cuda device, but got: cpu")
    assert error_of(lambda: c.set_device("cuda")) == (
        "ValueError", "Expected a torch.device with a specified index or an integer, "
        "but got:cuda")


def test_tensors_without_a_driver():
    no_gpu_here()
    for f in (lambda: ctorch.zeros(2).cuda(), lambda: ctorch.zeros(2, device="cuda"),
              lambda: ctorch.zeros(2).to("cuda:0"), lambda: ctorch.ones(2, device=0),
              lambda: ctorch.nn.Linear(2, 2).cuda()):
        assert error_of(f) == NO


def test_ctorchrun_script_sees_a_cuda_build(tmp_path):
    """An unchanged PyTorch script under ctorchrun takes the CUDA-build
    turns: no GPU, and the first device use raises PyTorch's error."""
    import os
    import subprocess
    import sys
    no_gpu_here()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    script = tmp_path / "s.py"
    script.write_text("import torch\n"
                      "print(torch.cuda.is_available(), torch.cuda.device_count())\n"
                      "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
                      "print(torch.ones(2, device=device).sum().item())\n"
                      "torch.zeros(1).cuda()\n")
    env = dict(os.environ, CTORCH_PYTHON=sys.executable)
    env.pop("PYTHONUNBUFFERED", None)
    p = subprocess.run([os.path.join(root, "bin", "ctorchrun"), str(script)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    assert p.stdout == "False 0\n2.0\n"
    assert p.stderr.strip().splitlines()[-1] == "RuntimeError: " + NO_DRIVER


# --- on a GPU ------------------------------------------------------------------------

@gpu
def test_devices():
    c = ctorch.cuda
    c.init()
    n = c.device_count()
    assert c.is_available() and c.is_initialized() and n >= 1
    p = c.get_device_properties(0)
    assert p.total_memory > 0 and p.multi_processor_count > 0 and p.major >= 3
    assert c.get_device_name(0) == p.name
    assert repr(p).startswith("_CudaDeviceProperties(name='%s', major=%d" % (p.name, p.major))
    assert c.current_device() == 0
    with c.device(n - 1):
        assert c.current_device() == n - 1
    assert c.current_device() == 0
    free, total = c.mem_get_info(0)
    assert 0 < free <= total
    c.synchronize()
    assert error_of(lambda: c.get_device_properties(n)) == ("AssertionError",
                                                           "Invalid device id")


@gpu
def test_streams_and_events():
    c = ctorch.cuda
    s = c.Stream()
    assert s != c.default_stream() and s.device == ctorch.device("cuda", 0)
    assert c.current_stream() == c.default_stream()
    with c.stream(s):
        assert c.current_stream() == s
    assert c.current_stream() == c.default_stream()
    a, b = c.Event(enable_timing=True), c.Event(enable_timing=True)
    a.record(s)
    b.record(s)
    b.synchronize()
    assert a.query() and b.query() and s.query()
    assert b.elapsed_time(a) <= 0.0 <= a.elapsed_time(b)
    s.wait_stream(c.default_stream())
    s.synchronize()
    # a stream let go is handed out again, never destroyed
    h = s.cuda_stream
    del s
    assert c.Stream().cuda_stream == h
    if c.device_count() > 1:
        s1 = c.Stream(1)
        with c.stream(s1):
            assert c.current_device() == 1 and c.current_stream() == s1
        assert c.current_device() == 0
        e = c.Event()
        e.record(s1)
        assert error_of(lambda: e.record(c.default_stream(0))) == (
            "RuntimeError", "Event device 1 does not match recording stream's device 0.")


@gpu
def test_caching_allocator_through_the_runtime():
    """Only the stats are reachable from Python before CUDA tensors exist:
    they start at 0 on a fresh device and empty_cache keeps them there."""
    c = ctorch.cuda
    c.init()
    c.empty_cache()
    assert c.memory_allocated() == 0
    c.reset_peak_memory_stats()
    assert c.max_memory_allocated() == 0
    assert set(c.memory_stats()) >= {"allocated_bytes.all.current",
                                     "reserved_bytes.all.current", "num_ooms"}
