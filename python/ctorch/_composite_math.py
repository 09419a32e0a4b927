"""Math ops PyTorch 1.13 has that are compositions of ops ctorch already has
(diff, meshgrid, cartesian_prod, block_diag, kron, cross, tensordot,
aminmax, logaddexp(2), hypot, xlogy, copysign, heaviside, isin, cdist).
Each function checks its arguments as torch does (same exception types and
messages) and leaves the arithmetic to the C ops it calls, so it runs on
every device those ops run on and gets autograd from them.

Known differences from torch (see tests/py/test_composite_math.py):
* logaddexp/logaddexp2/xlogy: torch's CPU kernels use libm's exp/log/log2
  on some elements (a vector loop's scalar tail, broadcast inner loops
  shorter than a vector; all of xlogy) where ctorch's ops are SLEEF-like;
  float32/float64 results agree within 4 ulp (most bit for bit), bfloat16
  (and xlogy's float16) bit for bit.
* hypot: float32/bfloat16 go through float64, float64 through a
  double-double Newton step: torch's (SLEEF's, libm's) hypot bit for bit
  but for rare 1-ulp cases.
* cross emulates the fma torch's compiled kernel uses (float32 through
  float64, float64 through Dekker's product): bit for bit.
* cdist: within floating-point tolerance (torch's own kernels sum in a
  different order).
* meshgrid's error for a 2-D input names the tensor's shape, not torch's
  C++ print of it.
"""
import builtins as _b
import math as _math
import warnings as _warnings

from . import _C
from ._composite import _legacy

_range = _b.range
_max = _b.max


def _T():
    from ._tensor import Tensor
    return Tensor


def _wrap_dim(dim, ndim):
    n = _max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], "
                         "but got %d)" % (-n, n - 1, dim))
    return dim % n


def _need_tensor(fn, arg, pos, x):
    if not isinstance(x, _T()):
        raise TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s"
                        % (fn, arg, pos, type(x).__name__))


def _is_float(dt):
    return dt in (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _not_impl(name, dt):
    raise RuntimeError('"%s" not implemented for \'%s\'' % (name, _legacy(dt)))


# -- pointwise ---------------------------------------------------------------

def _float_binary(name, input, other):
    """Check and promote the operands of logaddexp/logaddexp2/hypot."""
    _need_tensor(name, "input", 1, input)
    _need_tensor(name, "other", 2, other)
    return _promote_float(name, input, other)


def _promote_float(name, input, other):
    dt = _C.result_type(input, other)
    if not _is_float(dt) or (dt == _C.float16 and input.device.type == "cpu"):
        _not_impl(name + "_cpu", dt)
    return input.to(dt), other.to(dt), dt


def _logadd(name, input, other, exp, log):
    """max + log(1 + exp(-|input - other|)) with the base's exp and log, as
    torch's CPU kernel computes it (bfloat16 in float), and input where both
    are the same infinity."""
    a, b, dt = _float_binary(name, input, other)
    if dt == _C.bfloat16:     # torch's kernel works in float for BFloat16
        return _logadd(name, a.float(), b.float(), exp, log).to(dt)
    r = _C.maximum(a, b) + log(exp((a - b).abs().neg()) + 1)
    return _C.where(a.isinf() & (a == b), a, r)


def logaddexp(input, other):
    """log(exp(input) + exp(other))."""
    return _logadd("logaddexp", input, other, _C.exp, _C.log)


def logaddexp2(input, other):
    """log2(2**input + 2**other)."""
    return _logadd("logaddexp2", input, other, _C.exp2, _C.log2)


def hypot(input, other):
    """sqrt(input**2 + other**2) without overflow; inf when either is inf."""
    a, b, dt = _float_binary("hypot", input, other)
    if dt == _C.float64:
        # scale by a power of two (exact) so that the squares cannot overflow
        m = _C.maximum(a.abs(), b.abs())
        e = _C.where((m > 0) & m.isfinite(), m.log2().floor(), _C.zeros_like(m))
        s = (-e).exp2()
        r = _sqrt_sum_squares(a * s, b * s) * e.exp2()
    else:
        a64, b64 = a.double(), b.double()
        r = (a64 * a64 + b64 * b64).sqrt().float().to(dt)
    inf = a.isinf() | b.isinf()
    return _C.where(inf, _C.full_like(r, float("inf")), r)


def _sqrt_sum_squares(x, y):
    """sqrt(x*x + y*y) correctly rounded but for rare ties: a Newton step
    on the double-double sum of the squares (x, y scaled to about 1)."""
    xh, xl = _two_prod(x, x)
    yh, yl = _two_prod(y, y)
    sh = xh + yh
    bb = sh - xh
    sl = ((xh - (sh - bb)) + (yh - bb)) + (xl + yl)
    h = sh.sqrt()
    ph, pl = _two_prod(h, h)
    corr = ((sh - ph) + (sl - pl)) / (h * 2)
    return _C.where(h > 0, h + corr, h)


def _scalar_or_tensor(fn, x, y, ref):
    if isinstance(x, _T()) or isinstance(y, _T()):
        return
    raise TypeError(
        "%s() received an invalid combination of arguments - got (%s, %s), but expected "
        "one of:\n * (Tensor input, Tensor other, *, Tensor out)\n%s"
        % (fn, type(x).__name__, type(y).__name__, ref))


def _as_tensor_like(x, ref, dt):
    if isinstance(x, _T()):
        return x.to(dt)
    return _C.tensor(x, dtype=dt, device=ref.device)


def xlogy(input, other):
    """input * log(other); 0 where input == 0 (unless other is nan)."""
    _scalar_or_tensor("xlogy", input, other,
                      " * (Number self, Tensor other, *, Tensor out)\n"
                      " * (Tensor input, Number other, *, Tensor out)\n")
    ref = input if isinstance(input, _T()) else other
    dt = _C.result_type(input, other)
    if not _is_float(dt):
        dt = _C.get_default_dtype()
    x, y = _as_tensor_like(input, ref, dt), _as_tensor_like(other, ref, dt)
    if dt == _C.float16:      # torch's kernel works in float for Half
        p = (x.float() * y.float().log()).to(dt)
    else:
        p = x * y.log()
    r = _C.where(x == 0, _C.zeros((), dtype=dt, device=ref.device), p)
    return _C.where(y.isnan(), y, r)


def copysign(input, other):
    """|input| with other's sign bit; integers give the default float dtype."""
    if not isinstance(input, _T()):
        raise TypeError(
            "copysign() received an invalid combination of arguments - got (%s, %s), but "
            "expected one of:\n * (Tensor input, Tensor other, *, Tensor out)\n * (Tensor "
            "input, Number other, *, Tensor out)\n"
            % (type(input).__name__, type(other).__name__ if not isinstance(other, _T())
               else "Tensor"))
    dt = _C.result_type(input, other)
    if not _is_float(dt):
        dt = _C.get_default_dtype()
    a = input.to(dt).abs()
    if isinstance(other, _T()):
        _broadcast_shape(input.shape, other.shape)
        neg = other.signbit()
    else:
        neg = _C.tensor(_math.copysign(1.0, other) < 0, device=input.device)
    return _C.where(neg, a.neg(), a)


def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, values where input == 0."""
    _need_tensor("heaviside", "input", 1, input)
    _need_tensor("heaviside", "values", 2, values)
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _C.where(input == 0, values, (input > 0).to(input.dtype))


def _broadcast_shape(sa, sb):
    """torch's broadcast of two shapes, with its message when they do not."""
    sa, sb = list(sa), list(sb)
    n = _max(len(sa), len(sb))
    sa, sb = [1] * (n - len(sa)) + sa, [1] * (n - len(sb)) + sb
    out = []
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) "
                               "at non-singleton dimension %d" % (x, y, i))
        out.append(y if x == 1 else x)
    return out


_TENSOR_ARG = {"logaddexp": "other", "logaddexp2": "other", "hypot": "other",
               "heaviside": "values"}


def _method(fn, name):
    """fn as a Tensor method: a non-tensor argument is named as torch's method names it."""
    arg = _TENSOR_ARG.get(fn.__name__)

    def method(self, other):
        if arg is not None:
            _need_tensor(name, arg, 1, other)
        return fn(self, other)
    method.__name__ = name
    return method


def _inplace(fn):
    checked = _method(fn, fn.__name__ + "_")

    def method(self, other):
        r = checked(self, other)
        if not _C.can_cast(r.dtype, self.dtype):
            raise RuntimeError("result type %s can't be cast to the desired output type %s"
                               % (_legacy(r.dtype), _legacy(self.dtype)))
        return self.copy_(r)
    method.__name__ = fn.__name__ + "_"
    return method


# -- reductions and set ops ----------------------------------------------------

def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of input, over dim or all of it: torch.return_types.aminmax."""
    from .return_types import aminmax as _ret
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension "
                               "as the operation has no identity.")
        if keepdim:
            dims = tuple(_range(input.dim()))
            return _ret((input.amin(dims, True), input.amax(dims, True)))
        return _ret((input.amin(), input.amax()))
    d = _wrap_dim(dim, input.dim())
    if input.dim() > 0 and input.shape[d] == 0:
        raise IndexError("aminmax: Expected reduction dim %d to have non-zero size." % d)
    if input.dim() == 0:
        return _ret((input.clone(), input.clone()))
    return _ret((input.amin(d, keepdim), input.amax(d, keepdim)))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of elements is in test_elements (sort+search)."""
    T = _T()
    if not isinstance(elements, T) and not isinstance(test_elements, T):
        raise TypeError(
            "isin() received an invalid combination of arguments - got (%s, %s), but "
            "expected one of:\n * (Tensor elements, Tensor test_elements, *, bool "
            "assume_unique, bool invert, Tensor out)\n * (Number element, Tensor "
            "test_elements, *, bool assume_unique, bool invert, Tensor out)\n * (Tensor "
            "elements, Number test_element, *, bool assume_unique, bool invert, Tensor out)\n"
            % (type(elements).__name__, type(test_elements).__name__))
    for x in (elements, test_elements):
        dt = x.dtype if isinstance(x, T) else _C.bool if isinstance(x, bool) else None
        if dt in (_C.bool, _C.bfloat16):
            raise RuntimeError("Unsupported input type encountered for isin(): %s"
                               % _legacy(dt))
    ref = elements if isinstance(elements, T) else test_elements
    dt = _C.result_type(elements, test_elements)
    e = _as_tensor_like(elements, ref, dt)
    t = _as_tensor_like(test_elements, ref, dt).reshape(-1)
    if t.numel() == 0:
        found = _C.zeros(e.shape, dtype=_C.bool, device=ref.device)
    else:
        st = t.sort().values
        idx = _C.searchsorted(st, e.reshape(-1)).clamp(max=st.numel() - 1)
        found = (st[idx] == e.reshape(-1)).reshape(e.shape)
    return found.logical_not() if invert else found


# -- shape compositions ---------------------------------------------------------

def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (xor for bool)."""
    if input.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(dim, input.dim())
    for name, o in (("prepend", prepend), ("append", append)):
        if o is None:
            continue
        if not isinstance(o, _T()):
            raise TypeError("diff(): argument '%s' must be Tensor, not %s"
                            % (name, type(o).__name__))
        if o.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in _range(o.dim()):
            if i != d and o.shape[i] != input.shape[i]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of "
                    "input except along the differencing dimension; input.size(%d) = %d, but "
                    "got tensor.size(%d) = %d" % (i, input.shape[i], i, o.shape[i]))
    r = input
    if n != 0 and (prepend is not None or append is not None):
        r = _C.cat([x for x in (prepend, input, append) if x is not None], d)
    if n <= 0:
        return r
    length = r.shape[d] - 1
    for _ in _range(min(n, r.shape[d])):
        hi, lo = r.narrow(d, 1, length), r.narrow(d, 0, length)
        r = hi.logical_xor(lo) if r.dtype == _C.bool else hi - lo
        length -= 1
    return r


_meshgrid_warned = False


def meshgrid(*tensors, indexing=None):
    """Grids of the 0-D/1-D tensors' coordinates ('ij': matrix, 'xy': cartesian)."""
    global _meshgrid_warned
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        if not _meshgrid_warned:
            _meshgrid_warned = True
            _warnings.warn("torch.meshgrid: in an upcoming release, it will be required to "
                           "pass the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    return _meshgrid(tensors, indexing)


def _meshgrid(tensors, indexing):
    size = len(tensors)
    if size == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i in _range(size - 1):
        if tensors[i].dtype != tensors[i + 1].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if tensors[i].device != tensors[i + 1].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    refs = list(tensors)
    swap = False
    if indexing == "xy":
        swap = size >= 2
        if swap:
            refs[0], refs[1] = refs[1], refs[0]
    elif indexing != "ij":
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           "received: %s" % indexing)
    for t in refs:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               "but got: tensor of shape %s" % (list(t.shape),))
    shape = [t.numel() for t in refs]
    grids = []
    for i, t in enumerate(refs):
        view = [1] * size
        view[i] = -1
        grids.append(t.view(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Rows of itertools.product of the 1-D tensors."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError("Expect a 1D vector, but got shape %s" % (list(t.shape),))
    if len(tensors) == 1:
        return tensors[0]
    return _C.stack([g.flatten() for g in _meshgrid(tensors, "ij")], 1)


def block_diag(*tensors):
    """The 0-D/1-D/2-D tensors as blocks of a block-diagonal matrix."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer "
                               "dimensions. Input %d has %d dimensions" % (i, t.dim()))
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return _C.empty((1, 0))
    dt = blocks[0].dtype
    for b in blocks[1:]:
        dt = _C.promote_types(dt, b.dtype)
    dev = blocks[0].device
    ncols = sum(b.shape[1] for b in blocks)
    rows, c = [], 0
    for b in blocks:
        r, w = b.shape
        rows.append(_C.cat([_C.zeros((r, c), dtype=dt, device=dev), b.to(dt),
                            _C.zeros((r, ncols - c - w), dtype=dt, device=dev)], 1))
        c += w
    return _C.cat(rows, 0)


def kron(input, other):
    """The Kronecker product: every element of input times all of other."""
    nd = _max(input.dim(), other.dim())
    a_shape = [1] * (nd - input.dim()) + list(input.shape)
    b_shape = [1] * (nd - other.dim()) + list(other.shape)
    a_view, b_view = [], []
    for sa, sb in zip(a_shape, b_shape):
        a_view += [sa, 1]
        b_view += [1, sb]
    out = [sa * sb for sa, sb in zip(a_shape, b_shape)]
    return (input.reshape(a_view) * other.reshape(b_view)).reshape(out)


def _cross(input, other, dim, dim_shown):
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError("linalg.cross: inputs dimension %d must have length 3. Got %d and %d"
                           % (dim_shown, input.shape[d], other.shape[d]))
    if input.dtype != other.dtype:
        raise RuntimeError("expected scalar type %s but found %s"
                           % (_legacy(input.dtype), _legacy(other.dtype)))
    if input.dtype in (_C.bool, _C.float16):
        _not_impl("cross", input.dtype)
    a = [input.narrow(d, i, 1) for i in _range(3)]
    b = [other.narrow(d, i, 1) for i in _range(3)]
    return _C.cat([_fms(a[1], b[2], a[2], b[1]), _fms(a[2], b[0], a[0], b[2]),
                   _fms(a[0], b[1], a[1], b[0])], d)


def _fms(p, q, r, s):
    """p*q - r*s as torch's CPU cross kernel computes it, fma(p, q, -(r*s))."""
    if p.dtype == _C.float32:       # the product is exact in float64
        return (p.double() * q.double() - (r * s).double()).float()
    if p.dtype != _C.float64:
        return p * q - r * s
    c = (r * s).neg()
    h, l = _two_prod(p, q)
    t = h + c                       # h + l + c, rounded once (almost always)
    bb = t - h
    e = (h - (t - bb)) + (c - bb)
    return _C.where(h.isfinite() & t.isfinite(), t + (e + l), p * q + c)


def _two_prod(a, b):
    """h, l with h + l == a * b exactly (Dekker, Veltkamp's split)."""
    h = a * b
    a1, a2 = _split(a)
    b1, b2 = _split(b)
    return h, ((a1 * b1 - h) + a1 * b2 + a2 * b1) + a2 * b2


def _split(a):
    c = a * 134217729.0
    hi = c - (c - a)
    return hi, a - hi


def cross(input, other, dim=None):
    """torch.cross: linalg.cross over dim, by default the first of size 3."""
    if dim is None:
        for i, s in enumerate(input.shape):
            if s == 3:
                dim = i
                break
        else:
            raise RuntimeError("no dimension of size 3 in input")
    return _cross(input, other, dim, dim)


def linalg_cross(input, other, *, dim=-1):
    """torch.linalg.cross: the cross product of 3-vectors along dim (broadcasting)."""
    return _cross(input, other, dim, dim)


def tensordot(a, b, dims=2, out=None):
    """Contract a's dims[0] with b's dims[1] (or a's last and b's first dims)."""
    if not isinstance(dims, (tuple, list, _T(), int)):
        raise RuntimeError("tensordot expects dims to be int or Tuple[List[int], List[int]] or "
                           "List[List[int]] containing two lists, but got dims=%s" % (dims,))
    if isinstance(dims, _T()):
        dims = dims.tolist() if dims.numel() > 1 else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError("tensordot expects dims >= 0, but got dims=%d" % dims)
        da, db = list(_range(-dims, 0)), list(_range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    t1, t2, csize = a, b, 1
    for x, y in zip(da, db):
        s1, s2 = a.shape[_wrap_dim(x, a.dim())], b.shape[_wrap_dim(y, b.dim())]
        if s2 == 1:
            t1 = t1.sum(x, True)
        elif s1 == 1:
            t2 = t2.sum(y, True)
        elif s1 != s2:
            raise RuntimeError("contracted dimensions need to match, but first has size %d in "
                               "dim %d and second has size %d in dim %d" % (s1, x, s2, y))
        else:
            csize *= s1
    ca, cb = _dim_set(da, a.dim()), _dim_set(db, b.dim())
    p1 = [i for i in _range(a.dim()) if i not in ca] + [x % _max(a.dim(), 1) for x in da]
    p2 = [y % _max(b.dim(), 1) for y in db] + [i for i in _range(b.dim()) if i not in cb]
    rs1 = [t1.shape[i] for i in _range(a.dim()) if i not in ca]
    rs2 = [t2.shape[i] for i in _range(b.dim()) if i not in cb]
    m1 = t1.permute(p1).reshape(_prod(rs1), csize)
    m2 = t2.permute(p2).reshape(csize, _prod(rs2))
    r = _C.mm(m1, m2).reshape(rs1 + rs2)
    if out is not None:
        out.resize_(r.shape)
        return out.copy_(r)
    return r


def _dim_set(dims, ndim):
    seen = set()
    for x in dims:
        w = _wrap_dim(x, ndim)
        if w in seen:
            raise RuntimeError("dim %d appears multiple times in the list of dims" % w)
        seen.add(w)
    return seen


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of x1 and x2 (batched)."""
    modes = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError("%s is not a valid value for compute_mode" % (compute_mode,))
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise RuntimeError("cdist only supports at least 2D tensors, %s got: %dD"
                               % (name, x.dim()))
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: %d X2: %d"
                           % (x1.shape[-1], x2.shape[-1]))
    for name, x in (("X1", x1), ("X2", x2)):
        if not _is_float(x.dtype):
            raise RuntimeError("cdist only supports floating-point dtypes, %s got: %s"
                               % (name, _legacy(x.dtype)))
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = _broadcast_shape(x1.shape[:-2], x2.shape[:-2])
    if x1.dtype != x2.dtype:
        raise RuntimeError("expected scalar type %s but found %s"
                           % (_legacy(x1.dtype), _legacy(x2.dtype)))
    if x1.dtype in (_C.float16, _C.bfloat16):
        _not_impl("cdist", x1.dtype)
    a = x1.expand(batch + list(x1.shape[-2:]))
    b = x2.expand(batch + list(x2.shape[-2:]))
    r1, r2 = a.shape[-2], b.shape[-2]
    mode = modes[compute_mode]
    if p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        n1 = a.square().sum(-1, True)
        n2 = b.square().sum(-1, True)
        a_ = _C.cat([a * -2, n1, _C.ones_like(n1)], -1)
        b_ = _C.cat([b, _C.ones_like(n2), n2], -1)
        return _C.matmul(a_, b_.transpose(-2, -1)).clamp_min(0).sqrt()
    from .linalg import vector_norm
    return vector_norm(a.unsqueeze(-2) - b.unsqueeze(-3), p, dim=-1)


__all__ = ["diff", "meshgrid", "cartesian_prod", "block_diag", "kron", "cross",
           "tensordot", "aminmax", "logaddexp", "logaddexp2", "hypot", "xlogy",
           "copysign", "heaviside", "isin", "cdist"]

_METHODS = ("diff", "kron", "cross", "aminmax", "logaddexp", "logaddexp2", "hypot",
            "xlogy", "copysign", "heaviside")


def install(tensor_cls):
    """Bind the composites torch also has as Tensor methods."""
    for name in _METHODS:
        fn = globals()[name]
        setattr(tensor_cls, name, _method(fn, name) if name in _TENSOR_ARG else fn)
    for name in ("hypot", "xlogy", "copysign", "heaviside"):
        setattr(tensor_cls, name + "_", _inplace(globals()[name]))
