"""ctorch.cuda without a CUDA build: what PyTorch's CPU build answers.

A build with the CUDA part (libctorch_cuda.so) answers as a CUDA build of
PyTorch (test_cuda.py); there these tests run in a copy of the package
without that library, which is what a build without CUDA is."""
import os
import shutil
import subprocess
import sys

import pytest

import ctorch
from helpers import CUDA_BUILT, error_of

cpu_only = pytest.mark.skipif(CUDA_BUILT, reason="this build has the CUDA part "
                              "(test_in_a_copy_without_the_cuda_part runs these)")


@pytest.mark.skipif(not CUDA_BUILT, reason="this build has no CUDA part")
def test_in_a_copy_without_the_cuda_part(tmp_path):
    pkg = os.path.dirname(os.path.abspath(ctorch.__file__))
    shutil.copytree(pkg, tmp_path / "ctorch",
                    ignore=shutil.ignore_patterns("libctorch_cuda.so", "__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("CTORCH_TEST_PYDIR", None)
    env.pop("CTORCH_CUDA_PART", None)   # (it would make the copy a CUDA build again)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        os.path.abspath(__file__)], env=env, capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.abspath(__file__)), timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert " passed" in p.stdout and "failed" not in p.stdout, p.stdout

NEEDS_DEVICE = ["current_device", "synchronize", "get_device_name", "get_device_capability",
                "get_device_properties", "initial_seed", "get_rng_state", "current_stream",
                "default_stream", "is_bf16_supported", "init"]
QUIET = ["manual_seed", "manual_seed_all", "seed", "seed_all", "empty_cache"]
ZERO = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"]
ASSERT = ("AssertionError", "Torch not compiled with CUDA enabled")


def _call(mod, name):
    f = getattr(mod.cuda, name)
    if name in ("get_device_name", "get_device_capability", "get_device_properties"):
        return lambda: f(0)
    if name in ("manual_seed", "manual_seed_all"):
        return lambda: f(1)
    return f


@cpu_only
def test_answers():
    c = ctorch.cuda
    assert (c.is_available(), c.device_count(), c.is_initialized()) == (False, 0, False)
    for name in NEEDS_DEVICE:
        assert error_of(_call(ctorch, name)) == ASSERT, name
    for name in QUIET:
        assert _call(ctorch, name)() is None, name
    for name in ZERO:
        assert _call(ctorch, name)() == 0, name
    # PyTorch's CPU build trips over a missing _C hook here; ctorch asserts
    assert error_of(lambda: c.set_device(0)) == ASSERT


@cpu_only
def test_tensor_and_module_moves():
    assert error_of(lambda: ctorch.zeros(2).cuda()) == ASSERT
    assert error_of(lambda: ctorch.zeros(2).to(0)) == ASSERT
    assert error_of(lambda: ctorch.zeros(2).to("cuda:1")) == ASSERT
    assert error_of(lambda: ctorch.nn.Linear(2, 2).to(1)) == ASSERT
    assert error_of(lambda: ctorch.nn.Linear(2, 2).cuda()) == ASSERT


@cpu_only
def test_device_context():
    with ctorch.cuda.device(None):
        pass
    with ctorch.cuda.device(-1):
        pass
    with ctorch.cuda.device_of(ctorch.zeros(1)):
        pass
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        with ctorch.cuda.device(0):
            pass


@cpu_only
def test_against_torch(torch_ref):
    if torch_ref.cuda.is_available():
        pytest.skip("a CUDA build of torch answers differently")
    for mod_name in ("is_available", "device_count", "is_initialized"):
        assert getattr(ctorch.cuda, mod_name)() == getattr(torch_ref.cuda, mod_name)()
    for name in NEEDS_DEVICE:
        assert error_of(_call(ctorch, name)) == error_of(_call(torch_ref, name)), name
    for name in QUIET + ZERO:
        assert _call(ctorch, name)() == _call(torch_ref, name)(), name
    assert error_of(lambda: ctorch.zeros(2).cuda()) == error_of(lambda: torch_ref.zeros(2).cuda())
