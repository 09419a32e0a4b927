"""Fixtures shared by the tests in tests/py.

* ``torch_ref``: real PyTorch for differential tests; the test is skipped
  where ``import torch`` fails (CI has no torch, so every test that uses it
  has a twin with the expectations written out).
* An autouse fixture that puts global state back after every test: the
  default dtype and the print options, of ctorch and of torch when they
  were imported.
"""

import sys

import pytest

# helpers.py asserts with pytest's detailed messages
pytest.register_assert_rewrite("helpers")


@pytest.fixture
def torch_ref():
    """The real ``torch`` module, or a skip when it is not installed."""
    return pytest.importorskip("torch")


def _reset(mod):
    try:
        mod.set_default_dtype(mod.float32)
        mod.set_printoptions(profile="default")
    except Exception:      # a half-built ctorch must not break teardown
        pass


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Reset the default dtype to float32 and the print options to their
    defaults after each test, so a failing test cannot leak its settings."""
    yield
    for name in ("ctorch", "torch"):
        mod = sys.modules.get(name)
        if mod is not None:
            _reset(mod)
