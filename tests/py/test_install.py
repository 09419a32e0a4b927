"""`pip install .` into a venv made with --system-site-packages gives an
importable ctorch and a working ctorchrun (offline: no build isolation is
needed because the project has no pyproject.toml)."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_pip_install_in_venv(tmp_path):
    venv = tmp_path / "env"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                        str(venv)], capture_output=True, text=True)
    if r.returncode != 0 or not (venv / "bin" / "pip").exists():
        pytest.skip("venv/pip not available: " + r.stderr[-200:])
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        "build", "build-asan", "*.so", "__pycache__", ".git", "*.egg-info"))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", "-q", str(src)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    r = subprocess.run([str(venv / "bin" / "python"), "-c",
                        "import ctorch, numpy; t = ctorch.from_numpy(numpy.ones(2)); "
                        "print(ctorch.__file__.startswith(%r), t + 1)" % str(venv)],
                       capture_output=True, text=True, env=env, cwd="/", timeout=120)
    assert r.stdout == "True tensor([2., 2.], dtype=torch.float64)\n", r.stderr
    r = subprocess.run([str(venv / "bin" / "ctorchrun"), "-c",
                        "import torch; print(type(torch.ones(1)))"],
                       capture_output=True, text=True, env=env, cwd="/", timeout=120)
    assert r.stdout == "<class 'torch.Tensor'>\n", r.stderr
