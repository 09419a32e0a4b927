"""Text rendering of tensors (``repr``/``str``), matching PyTorch 1.13.

The output of :func:`_str` is meant to be character-for-character the same as
what PyTorch 1.13 prints for an equivalent tensor.  The module only relies on
a small, duck-typed set of tensor members, so it renders ctorch tensors and
real ``torch`` tensors alike:

    dtype (``str(dtype)`` and ``dtype.is_floating_point``), shape, dim(),
    numel(), tolist(), narrow(), select(), requires_grad, grad_fn,
    is_quantized, dequantize(), q_scale(), q_zero_point(), qscheme(), device.

All number crunching happens in plain Python on values obtained via
``tolist()``.  Single and half precision values widen exactly to Python
floats, so formatting those floats with ``{:.Nf}`` / ``{:.Ne}`` yields the
same digits PyTorch shows.  When a tensor is large enough to be summarized
only its edge elements are ever converted to Python objects.
"""

import contextlib
import math
import sys

__all__ = ["PRINT_OPTS", "set_printoptions", "printoptions"]


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------

class _PrintOptions(object):
    """Current global print settings (mutated by :func:`set_printoptions`)."""

    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None

    def __repr__(self):
        return ("PrintOptions(precision={}, threshold={}, edgeitems={}, "
                "linewidth={}, sci_mode={})").format(
                    self.precision, self.threshold, self.edgeitems,
                    self.linewidth, self.sci_mode)


PRINT_OPTS = _PrintOptions()

# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, profile=None, sci_mode=None):
    """Change how tensors are printed.

    Args:
        precision: digits after the decimal point for floating values
            (default 4).
        threshold: element count above which a tensor is summarized with
            ``...`` (default 1000).
        edgeitems: how many leading and trailing entries of each dimension a
            summary keeps (default 3).
        linewidth: target characters per line used to wrap rows
            (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``; a preset applied
            before any of the explicit options above.
        sci_mode: ``True`` forces scientific notation, ``False`` forbids it,
            ``None`` (default) lets the formatter decide.  Like PyTorch, every
            call sets this option, so omitting it resets it to ``None``.
    """
    if profile is not None:
        preset = _PROFILES.get(profile)
        if preset is not None:
            (PRINT_OPTS.precision, PRINT_OPTS.threshold,
             PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth) = preset
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


_OPTION_FIELDS = ("precision", "threshold", "edgeitems", "linewidth",
                  "sci_mode")


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager: apply ``set_printoptions(**kwargs)`` temporarily.

    All options (``sci_mode`` included) are restored on exit.
    """
    saved = [getattr(PRINT_OPTS, name) for name in _OPTION_FIELDS]
    set_printoptions(**kwargs)
    try:
        yield PRINT_OPTS
    finally:
        for name, value in zip(_OPTION_FIELDS, saved):
            setattr(PRINT_OPTS, name, value)


# ---------------------------------------------------------------------------
# Default dtype lookup
# ---------------------------------------------------------------------------

# A callable returning the default dtype.  When left as None the default
# dtype is taken from ctorch (or, failing that, from torch).  Tests that
# render real torch tensors set it to ``torch.get_default_dtype``.
_get_default_dtype = None
_fallback_getter = None


def _default_dtype():
    global _fallback_getter
    if _get_default_dtype is not None:
        return _get_default_dtype()
    if _fallback_getter is not None:
        return _fallback_getter()
    try:
        from ctorch import get_default_dtype as getter
    except ImportError:
        if "ctorch" in sys.modules:
            # ctorch exists but is still initializing: answer from torch or
            # the stock default, and ask ctorch again next time.
            try:
                from torch import get_default_dtype
                return get_default_dtype()
            except ImportError:
                return "float32"
        try:
            from torch import get_default_dtype as getter
        except ImportError:
            def getter():
                return "float32"
    _fallback_getter = getter
    return getter()


def _dtype_name(dtype):
    """'torch.float32' / 'ctorch.float32' / 'float32' -> 'float32'."""
    return str(dtype).rsplit(".", 1)[-1]


_FLOAT_NAMES = frozenset(("float16", "bfloat16", "float32", "float64",
                          "half", "float", "double"))
_COMPLEX_NAMES = frozenset(("complex32", "complex64", "complex128"))


def _is_floating(dtype, name):
    flag = getattr(dtype, "is_floating_point", None)
    if isinstance(flag, bool):
        return flag
    return name in _FLOAT_NAMES


# ---------------------------------------------------------------------------
# Collecting the values to show
# ---------------------------------------------------------------------------

class _Ellipsis(object):
    """Marker standing for the elided middle of a summarized dimension."""

    __slots__ = ()

    def __repr__(self):
        return "..."


_ELIDED = _Ellipsis()


def _collect(t, shape, edge):
    """Nested lists holding the entries a summary shows.

    Dimensions longer than ``2 * edge`` keep their first and last ``edge``
    entries with ``_ELIDED`` in between; everything else is kept whole.
    Only the kept pieces are converted with ``tolist()``.
    """
    limit = 2 * edge
    for size in shape:
        if size > limit:
            break
    else:
        return t.tolist()
    n = shape[0]
    if len(shape) == 1:
        # n > limit here.  With edge == 0 PyTorch's ``x[-0:]`` is the whole
        # row, so the "tail" then repeats every element; mirror that.
        head = t.narrow(0, 0, edge).tolist() if edge > 0 else []
        tail = t.narrow(0, n - edge, edge).tolist() if edge > 0 else t.tolist()
        return head + [_ELIDED] + tail
    inner = shape[1:]
    if n > limit:
        rows = list(range(edge)) + [_ELIDED] + list(range(n - edge, n))
    else:
        rows = range(n)
    return [_ELIDED if i is _ELIDED else _collect(t.select(0, i), inner, edge)
            for i in rows]


def _flatten(data, depth, out):
    """Append the leaves of ``depth``-deep nested lists to ``out``."""
    if depth == 1:
        out.extend(v for v in data if v is not _ELIDED)
    else:
        for sub in data:
            if sub is not _ELIDED:
                _flatten(sub, depth - 1, out)
    return out


# ---------------------------------------------------------------------------
# Element formatting
# ---------------------------------------------------------------------------

class _Formatter(object):
    """Chooses one textual layout for all elements of a tensor.

    For floating tensors it decides between integer style (``3.``), fixed
    point and scientific notation from the finite non-zero values, and the
    common column width; integer and bool tensors are printed with ``str``.
    """

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        precision = PRINT_OPTS.precision

        if not floating:
            width = 1
            for v in values:
                n = len(str(v))
                if n > width:
                    width = n
            self.max_width = width
        else:
            isfinite = math.isfinite
            finite = [v for v in values if v != 0 and isfinite(v)]
            if not finite:
                # Only zeros / nan / inf: keep the defaults, and (as PyTorch
                # does) ignore a forced sci_mode.
                return
            magnitudes = [abs(v) for v in finite]
            largest = max(magnitudes)
            smallest = min(magnitudes)
            floor = math.floor
            for v in finite:
                if floor(v) != v:
                    self.int_mode = False
                    break
            spread = largest / smallest > 1000.0 or largest > 1.0e8
            if self.int_mode:
                if spread:
                    self.sci_mode = True
                    spec = "{{:.{}e}}".format(precision)
                    self.max_width = max(len(spec.format(v)) for v in finite)
                else:
                    self.max_width = max(
                        len("{:.0f}".format(v)) + 1 for v in finite)
            else:
                spec = "{{:.{}f}}".format(precision)
                if spread or smallest < 1.0e-4:
                    self.sci_mode = True
                    spec = "{{:.{}e}}".format(precision)
                self.max_width = max(len(spec.format(v)) for v in finite)

        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                text = "{:{}.{}e}".format(value, self.max_width,
                                          PRINT_OPTS.precision)
            elif self.int_mode:
                text = "{:.0f}".format(value)
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = "{:.{}f}".format(value, PRINT_OPTS.precision)
        else:
            text = str(value)
        pad = self.max_width - len(text)
        return " " * pad + text if pad > 0 else text


def _complex_text(value, real_fmt, imag_fmt):
    real = real_fmt.format(value.real)
    imag = (imag_fmt.format(value.imag) + "j").lstrip()
    if imag[0] in "+-":
        return real + imag
    return real + "+" + imag


def _row_text(row, indent, render, item_width):
    """One innermost dimension, wrapped to PRINT_OPTS.linewidth."""
    per_line = max(1, int(math.floor(
        (PRINT_OPTS.linewidth - indent) / item_width)))
    items = [" ..." if v is _ELIDED else render(v) for v in row]
    if len(items) <= per_line:
        return "[" + ", ".join(items) + "]"
    lines = [", ".join(items[i:i + per_line])
             for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _block_text(data, dim, indent, render, item_width):
    if dim == 1:
        return _row_text(data, indent, render, item_width)
    parts = ["..." if sub is _ELIDED
             else _block_text(sub, dim - 1, indent + 1, render, item_width)
             for sub in data]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(parts) + "]"


def _tensor_text(t, indent):
    """The bracketed body of a (dense, non-quantized) tensor."""
    numel = t.numel()
    if numel == 0:
        return "[]"
    dim = t.dim()
    dtype = t.dtype
    name = _dtype_name(dtype)

    if dim == 0:
        data = t.tolist()
        values = [data]
    else:
        shape = tuple(t.shape)
        if numel > PRINT_OPTS.threshold:
            data = _collect(t, shape, PRINT_OPTS.edgeitems)
        else:
            data = t.tolist()
        values = _flatten(data, dim, [])

    if name in _COMPLEX_NAMES:
        real_fmt = _Formatter([v.real for v in values], True)
        imag_fmt = _Formatter([v.imag for v in values], True)

        def render(v):
            return _complex_text(v, real_fmt, imag_fmt)

        item_width = real_fmt.width() + imag_fmt.width() + 3
    else:
        fmt = _Formatter(values, _is_floating(dtype, name))
        render = fmt.format
        item_width = fmt.width() + 2

    if dim == 0:
        return render(data)
    return _block_text(data, dim, indent, render, item_width)


def _add_suffixes(text, suffixes, indent, force_newline=False):
    """Append ``, key=value`` items, starting new lines past linewidth."""
    pieces = [text]
    # Same (slightly generous) measure of the last line PyTorch uses.
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        n = len(suffix)
        if force_newline or last_line_len + n + 2 > PRINT_OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + n
            force_newline = False
        else:
            pieces.append(", " + suffix)
            last_line_len += n + 2
    pieces.append(")")
    return "".join(pieces)


def _grad_fn_name(fn):
    getter = getattr(fn, "name", None)
    if callable(getter):
        try:
            name = getter()
        except Exception:
            name = None
        if isinstance(name, str) and name:
            return name.rsplit("::", 1)[-1]
    return type(fn).__name__


def _shape_text(t):
    return str(tuple(int(s) for s in t.shape))


def _str(self, *, tensor_contents=None):
    """``repr(tensor)``: the text PyTorch 1.13 prints for the same tensor."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    custom = tensor_contents is not None
    body = tensor_contents if custom else None

    device = getattr(self, "device", None)
    if device is not None and getattr(device, "type", "cpu") != "cpu":
        suffixes.append("device='" + str(device) + "'")

    dtype = self.dtype
    name = _dtype_name(dtype)
    default_name = _dtype_name(_default_dtype())
    default_complex = "complex128" if default_name == "float64" else "complex64"
    has_default_dtype = name in (default_name, default_complex, "int64", "bool")

    if getattr(self, "is_quantized", False):
        suffixes.append("size=" + _shape_text(self))
        if not has_default_dtype:
            suffixes.append("dtype=" + str(dtype))
        scheme = self.qscheme()
        scheme_text = str(scheme)
        suffixes.append("quantization_scheme=" + scheme_text)
        if "per_tensor" in scheme_text:
            suffixes.append("scale=" + str(self.q_scale()))
            suffixes.append("zero_point=" + str(self.q_zero_point()))
        elif "per_channel" in scheme_text:
            suffixes.append("scale=" + str(self.q_per_channel_scales()))
            suffixes.append("zero_point=" + str(self.q_per_channel_zero_points()))
            suffixes.append("axis=" + str(self.q_per_channel_axis()))
        if not custom:
            body = _tensor_text(self.dequantize(), indent)
    elif getattr(self, "is_meta", False) is True:
        suffixes.append("size=" + _shape_text(self))
        if name != default_name:
            suffixes.append("dtype=" + str(dtype))
        if not custom:
            body = "..."
    elif self.numel() == 0:
        # Show the shape unless it is (0,), and always show a non-default
        # dtype since no element can hint at it.
        if self.dim() != 1:
            suffixes.append("size=" + _shape_text(self))
        if name != default_name:
            suffixes.append("dtype=" + str(dtype))
        if not custom:
            body = "[]"
    else:
        if not has_default_dtype:
            suffixes.append("dtype=" + str(dtype))
        if not custom:
            # a device tensor's values are formatted from a host copy
            values = self.detach().cpu() if getattr(self, "is_cuda", False) is True \
                else self
            body = _tensor_text(values, indent)

    grad_fn = getattr(self, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append("grad_fn=<{}>".format(_grad_fn_name(grad_fn)))
    elif getattr(self, "requires_grad", False):
        suffixes.append("requires_grad=True")

    return _add_suffixes(prefix + body, suffixes, indent)
