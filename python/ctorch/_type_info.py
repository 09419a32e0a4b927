"""torch.finfo and torch.iinfo: the numeric limits of a dtype, with
PyTorch 1.13's fields, errors and printed forms."""
import builtins

from . import _C

# bits, eps (2**-mantissa bits), max, smallest normal, resolution
# (10**-digits, digits = floor(-log10(eps)))
_FLOATS = {
    "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 1e-3),
    "bfloat16": (16, 2.0 ** -7, 3.3895313892515355e+38, 2.0 ** -126, 1e-2),
    "float32": (32, 2.0 ** -23, 3.4028234663852886e+38, 2.0 ** -126, 1e-6),
    "float64": (64, 2.0 ** -52, 1.7976931348623157e+308, 2.0 ** -1022, 1e-15),
}
_INTS = {"uint8": (8, False), "int8": (8, True), "int16": (16, True),
         "int32": (32, True), "int64": (64, True)}


def _name(type, who):
    if not isinstance(type, _C.dtype):
        raise TypeError("%s(): argument 'type' (position 1) must be torch.dtype, not %s"
                        % (who, builtins.type(type).__name__))
    return str(type).split(".")[-1]



class _Info:
    """Equality by dtype; printed as repr."""

    def __eq__(self, other):
        return type(other) is type(self) and self.dtype == other.dtype

    def __hash__(self):
        return hash((type(self).__name__, self.dtype))

    def __str__(self):
        return repr(self)


class finfo(_Info):
    """Limits of a floating dtype (the default dtype when none is given)."""

    def __init__(self, type=None):
        name = _name(_C.get_default_dtype() if type is None else type, "finfo")
        if name not in _FLOATS:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FLOATS[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __repr__(self):
        return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, "
                "dtype=%s)" % (self.resolution, self.min, self.max, self.eps,
                               self.smallest_normal, self.tiny, self.dtype))


class iinfo(_Info):
    """Limits of an integer dtype."""

    def __init__(self, type):
        name = _name(type, "iinfo")
        if name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if name not in _INTS:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        self.bits, signed = _INTS[name]
        self.min = -(1 << (self.bits - 1)) if signed else 0
        self.max = (1 << (self.bits - 1)) - 1 if signed else (1 << self.bits) - 1
        self.dtype = name

    def __repr__(self):
        # (1.13 prints the bounds with %g: int32's as -2.14748e+09)
        return "iinfo(min=%g, max=%g, dtype=%s)" % (self.min, self.max, self.dtype)
