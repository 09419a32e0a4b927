"""Tensor printing: ctorch's repr must match PyTorch 1.13 byte for byte.

The expected strings live in data/printing_expected.py, recorded from real
PyTorch by data/gen_printing_expected.py.  Three groups of tests:

* ``test_ctorch_repr*``: build each case with ``torch`` bound to ctorch and
  compare ``repr``/``str`` to the recording (skipped until ctorch imports).
* ``test_torch_differential*``: render real torch tensors with our
  ``_tensor_str._str`` and compare to torch's own ``repr`` (skipped when
  torch is not installed).
* Self-contained tests of the formatter on a duck-typed fake tensor, of
  the option handling and of the summarization cost; these need neither
  library.
"""

import importlib.util
import math
import os
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "python", "ctorch", "_tensor_str.py")
DATA = os.path.join(HERE, "data", "printing_expected.py")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


expected_data = _load(DATA, "_printing_expected")
CASES = expected_data.CASES
DEFAULT_DTYPE_CASES = expected_data.DEFAULT_DTYPE_CASES
TORCH_ONLY_CASES = expected_data.TORCH_ONLY_CASES


def _case_id(case):
    expr, _, opts = case
    text = expr if len(expr) <= 60 else expr[:57] + "..."
    if opts:
        text += " " + ",".join("%s=%s" % kv for kv in sorted(opts.items()))
    return text


def _params(cases):
    return [pytest.param(*case, id=_case_id(case)) for case in cases]


@pytest.fixture
def standalone():
    """A private copy of _tensor_str loaded from its file (no ctorch)."""
    return _load(SRC, "_ctorch_tensor_str_under_test")


# ---------------------------------------------------------------------------
# ctorch against the recording
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ctorch():
    return pytest.importorskip("ctorch")


def _ctorch_set_printoptions(ct):
    fn = getattr(ct, "set_printoptions", None)
    if fn is None:
        fn = importlib.import_module("ctorch._tensor_str").set_printoptions
    return fn


def _adapt_prefixes(ct, expected):
    """Recorded text says ``dtype=torch.int32``; ctorch may spell its dtype
    and qscheme objects with another module prefix (``ctorch.int32``).  Use
    whatever prefix ctorch's own objects print with; nothing else changes."""
    dtype_prefix = str(ct.float32).rsplit(".", 1)[0]
    if dtype_prefix != "torch":
        expected = expected.replace("dtype=torch.", "dtype=%s." % dtype_prefix)
    scheme = getattr(ct, "per_tensor_affine", None)
    if scheme is not None and "." in str(scheme):
        scheme_prefix = str(scheme).rsplit(".", 1)[0]
        if scheme_prefix != "torch":
            expected = expected.replace("quantization_scheme=torch.",
                                        "quantization_scheme=%s." % scheme_prefix)
    return expected


def _check_ctorch(ct, expr, expected, opts):
    if "grad_fn=" in expected and importlib.util.find_spec("ctorch.autograd") is None:
        pytest.skip("grad_fn= needs the autograd graph (ctorch.autograd)")
    expected = _adapt_prefixes(ct, expected)
    set_printoptions = _ctorch_set_printoptions(ct)
    try:
        if opts:
            set_printoptions(**opts)
        t = eval(expr, {"torch": ct})
        assert repr(t) == expected
        assert str(t) == expected
    finally:
        set_printoptions(profile="default")


@pytest.mark.parametrize("expr, expected, opts", _params(CASES))
def test_ctorch_repr(ctorch, expr, expected, opts):
    _check_ctorch(ctorch, expr, expected, opts)


@pytest.mark.parametrize("expr, expected, opts", _params(DEFAULT_DTYPE_CASES))
def test_ctorch_repr_default_dtype(ctorch, expr, expected, opts):
    if not hasattr(ctorch, "set_default_dtype"):
        pytest.skip("ctorch.set_default_dtype not available")
    old = ctorch.get_default_dtype()
    ctorch.set_default_dtype(
        getattr(ctorch, expected_data.DEFAULT_DTYPE_CASES_DTYPE))
    try:
        _check_ctorch(ctorch, expr, expected, opts)
    finally:
        ctorch.set_default_dtype(old)


# ---------------------------------------------------------------------------
# Our formatter on real torch tensors against torch's repr
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(scope="module")
def ours_for_torch(torch):
    mod = _load(SRC, "_ctorch_tensor_str_vs_torch")
    mod._get_default_dtype = torch.get_default_dtype
    return mod


def _check_torch(torch, ours, expr, expected, opts, default_dtype=None):
    old_dtype = torch.get_default_dtype()
    try:
        if default_dtype is not None:
            torch.set_default_dtype(getattr(torch, default_dtype))
        torch.set_printoptions(**(opts or {}))
        ours.set_printoptions(**(opts or {}))
        t = eval(expr, {"torch": torch})
        reference = repr(t)
        assert ours._str(t) == reference
        if torch.__version__.startswith("1.13"):
            assert reference == expected
    finally:
        torch.set_printoptions(profile="default")
        ours.set_printoptions(profile="default")
        torch.set_default_dtype(old_dtype)


@pytest.mark.parametrize("expr, expected, opts",
                         _params(CASES + TORCH_ONLY_CASES))
def test_torch_differential(torch, ours_for_torch, expr, expected, opts):
    _check_torch(torch, ours_for_torch, expr, expected, opts)


@pytest.mark.parametrize("expr, expected, opts", _params(DEFAULT_DTYPE_CASES))
def test_torch_differential_default_dtype(torch, ours_for_torch, expr,
                                          expected, opts):
    _check_torch(torch, ours_for_torch, expr, expected, opts,
                 expected_data.DEFAULT_DTYPE_CASES_DTYPE)


def test_torch_tensor_contents(torch, ours_for_torch):
    t = torch.arange(3.0, requires_grad=True)
    assert (ours_for_torch._str(t, tensor_contents="[custom]")
            == t.__repr__(tensor_contents="[custom]"))


def test_torch_speed_1000x1000(torch, ours_for_torch):
    t = torch.arange(1000000.0).reshape(1000, 1000) * 0.001
    assert ours_for_torch._str(t) == repr(t)
    best = math.inf
    for _ in range(5):
        start = time.perf_counter()
        ours_for_torch._str(t)
        best = min(best, time.perf_counter() - start)
    assert best < 0.010


# ---------------------------------------------------------------------------
# Library-independent tests on a duck-typed fake tensor
# ---------------------------------------------------------------------------

class FakeDtype(object):
    def __init__(self, name):
        self.name = name
        self.is_floating_point = name in ("float16", "bfloat16", "float32",
                                          "float64")

    def __str__(self):
        return "fake." + self.name

    __repr__ = __str__


class FakeDevice(object):
    type = "cpu"

    def __str__(self):
        return "cpu"


class FakeTensor(object):
    """A strided view over ``getter(flat_index)``; counts what it converts."""

    def __init__(self, getter, shape, dtype="float32", strides=None,
                 offset=0, stats=None):
        self.getter = getter
        self.shape = tuple(shape)
        if strides is None:
            strides, acc = [], 1
            for size in reversed(self.shape):
                strides.insert(0, acc)
                acc *= size
        self.strides = tuple(strides)
        self.offset = offset
        self.dtype = FakeDtype(dtype) if isinstance(dtype, str) else dtype
        self.stats = stats if stats is not None else {"tolist": 0}
        self.requires_grad = False
        self.grad_fn = None
        self.is_quantized = False
        self.device = FakeDevice()

    def dim(self):
        return len(self.shape)

    def numel(self):
        return math.prod(self.shape)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def _view(self, shape, strides, offset):
        return FakeTensor(self.getter, shape, self.dtype, strides, offset,
                          self.stats)

    def narrow(self, dim, start, length):
        shape = list(self.shape)
        shape[dim] = length
        return self._view(shape, self.strides,
                          self.offset + start * self.strides[dim])

    def select(self, dim, index):
        shape = self.shape[:dim] + self.shape[dim + 1:]
        strides = self.strides[:dim] + self.strides[dim + 1:]
        return self._view(shape, strides,
                          self.offset + index * self.strides[dim])

    def tolist(self):
        self.stats["tolist"] += self.numel()

        def build(level, base):
            if level == len(self.shape):
                return self.getter(base)
            return [build(level + 1, base + i * self.strides[level])
                    for i in range(self.shape[level])]

        return build(0, self.offset)


@pytest.fixture
def fake_ts(standalone):
    standalone._get_default_dtype = lambda: FakeDtype("float32")
    return standalone


def _expected(expr, opts=None):
    for case in CASES:
        if case[0] == expr and case[2] == opts:
            return case[1]
    raise KeyError(expr)


def test_fake_summarized_touches_only_edges(fake_ts):
    t = FakeTensor(float, (1000, 1000))
    text = fake_ts._str(t)
    assert text == _expected("torch.arange(1000000.0).reshape(1000, 1000)")
    # 6 rows x 6 edge columns
    assert t.stats["tolist"] == 36


def test_fake_summarized_rank3(fake_ts):
    t = FakeTensor(int, (10, 15, 20), "int64")
    assert fake_ts._str(t) == _expected("torch.arange(3000).reshape(10, 15, 20)")
    assert t.stats["tolist"] <= 6 * 6 * 6


def test_fake_dtype_suffix_uses_str_of_dtype(fake_ts):
    t = FakeTensor(lambda i: i - 1, (3,), "int32")
    assert fake_ts._str(t) == "tensor([-1,  0,  1], dtype=fake.int32)"
    t = FakeTensor(lambda i: i * 0.5, (2, 2), "float64")
    assert fake_ts._str(t) == ("tensor([[0.0000, 0.5000],\n"
                               "        [1.0000, 1.5000]], dtype=fake.float64)")
    assert fake_ts._str(FakeTensor(float, (0, 2), "int64")) == \
        "tensor([], size=(0, 2), dtype=fake.int64)"


def test_fake_grad_fn_name(fake_ts):
    class Node(object):
        def name(self):
            return "torch::autograd::AddBackward0"

    class MulBackward0(object):
        pass

    t = FakeTensor(float, (2,))
    t.grad_fn = Node()
    assert fake_ts._str(t) == "tensor([0., 1.], grad_fn=<AddBackward0>)"
    t.grad_fn = MulBackward0()
    assert fake_ts._str(t) == "tensor([0., 1.], grad_fn=<MulBackward0>)"
    t.grad_fn = None
    t.requires_grad = True
    assert fake_ts._str(t) == "tensor([0., 1.], requires_grad=True)"


def test_fake_device_suffix(fake_ts):
    class Cuda(object):
        type = "cuda"

        def __str__(self):
            return "cuda:0"

    t = FakeTensor(float, (2,))
    t.device = Cuda()
    assert fake_ts._str(t) == "tensor([0., 1.], device='cuda:0')"


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------

def _opts(mod):
    o = mod.PRINT_OPTS
    return (o.precision, o.threshold, o.edgeitems, o.linewidth, o.sci_mode)


def test_profiles(standalone):
    assert _opts(standalone) == (4, 1000, 3, 80, None)
    standalone.set_printoptions(profile="short")
    assert _opts(standalone) == (2, 1000, 2, 80, None)
    standalone.set_printoptions(profile="full")
    assert _opts(standalone) == (4, math.inf, 3, 80, None)
    standalone.set_printoptions(profile="short", precision=6, linewidth=100)
    assert _opts(standalone) == (6, 1000, 2, 100, None)
    standalone.set_printoptions(profile="default")
    assert _opts(standalone) == (4, 1000, 3, 80, None)


def test_sci_mode_reset_by_every_call(standalone):
    standalone.set_printoptions(sci_mode=True)
    assert standalone.PRINT_OPTS.sci_mode is True
    standalone.set_printoptions(precision=3)
    assert standalone.PRINT_OPTS.sci_mode is None
    assert standalone.PRINT_OPTS.precision == 3


def test_printoptions_context_manager(standalone):
    standalone.set_printoptions(precision=3, sci_mode=False)
    before = _opts(standalone)
    with standalone.printoptions(profile="full", sci_mode=True, linewidth=20):
        assert _opts(standalone) == (4, math.inf, 3, 20, True)
    assert _opts(standalone) == before
    with pytest.raises(RuntimeError):
        with standalone.printoptions(precision=1):
            raise RuntimeError("boom")
    assert _opts(standalone) == before
