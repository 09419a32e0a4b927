"""Ops PyTorch defines as compositions of others (isclose, allclose, equal,
clamp_min/max); the work happens in the C ops they call.  (masked_scatter is
in C, csrc/python/index.c, for its MaskedScatterBackward0.)"""
from . import _C


def _check_same_dtype(a, b, name):
    if a.dtype != b.dtype:
        raise RuntimeError("%s did not match %s" % (_legacy(a.dtype), _legacy(b.dtype)))


def _legacy(dtype):
    from ._tensor import _LEGACY_NAMES
    return _LEGACY_NAMES[str(dtype).split(".")[-1]][:-len("Tensor")]


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (bool)."""
    _check_same_dtype(input, other, "isclose")
    if rtol < 0:
        raise RuntimeError("rtol must be greater than or equal to zero, but got %s" % rtol)
    if atol < 0:
        raise RuntimeError("atol must be greater than or equal to zero, but got %s" % atol)
    close = input == other
    if equal_nan and input.is_floating_point():
        close = close | (input.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    a, b = input, other
    if a.dtype == _C.bool:
        a, b = a.to(_C.get_default_dtype()), b.to(_C.get_default_dtype())
    allowed = atol + (rtol * b).abs()
    actual = (a - b).abs()
    return close | (actual.isfinite() & (actual <= allowed))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of input is close to other's (isclose)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def equal(input, other):
    """True when both have the same size and elements."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool((input == other).all().item())


def clamp_min(input, min):
    return input.clamp(min=min)


def clamp_max(input, max):
    return input.clamp(max=max)


def install(tensor_cls):
    """Bind the composites as Tensor methods too."""
    for name in ("isclose", "allclose", "equal", "clamp_min", "clamp_max"):
        setattr(tensor_cls, name, globals()[name])
    tensor_cls.clamp_min_ = lambda self, min: self.clamp_(min=min)
    tensor_cls.clamp_max_ = lambda self, max: self.clamp_(max=max)
