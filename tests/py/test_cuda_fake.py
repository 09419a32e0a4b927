"""CUDA tensors without a GPU: libctorch's device paths (storages, copies,
factories, printing, the binary kernels' dispatch, device checks, memory
counters, autograd and modules across devices) run over the pretend device
of tests/fake_cuda/part.c, whose memory the host cannot read outside its
kernels.  The cases live in cuda_fake_cases.py and run in one process
started with CTORCH_CUDA_PART pointing at the pretend part; the CUDA
kernels themselves (aten/cuda/*.cu) need a GPU and are not run here."""
import json
import os
import subprocess
import sys

import pytest

import ctorch
from cuda_fake_cases import case_names

HERE = os.path.dirname(os.path.abspath(__file__))


def fake_part():
    """build/tests/libctorch_cuda_fake.so of the build the package came
    from (build-asan/ for the sanitizer run)."""
    pydir = os.path.dirname(os.path.dirname(os.path.abspath(ctorch.__file__)))
    for d in (os.path.dirname(pydir), os.path.join(os.path.dirname(pydir), "build")):
        p = os.path.join(d, "tests", "libctorch_cuda_fake.so")
        if os.path.exists(p):
            return p
    pytest.fail("libctorch_cuda_fake.so is not built (make test-py builds it)")


@pytest.fixture(scope="module")
def results():
    env = dict(os.environ, CTORCH_CUDA_PART=fake_part())
    env.pop("PYTHONUNBUFFERED", None)
    p = subprocess.run([sys.executable, os.path.join(HERE, "cuda_fake_cases.py")],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, "the cases' process died (rc %d):\n%s%s" % (
        p.returncode, p.stdout[-3000:], p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", case_names())
def test_case(results, name):
    assert results[name] == "ok", results[name]
