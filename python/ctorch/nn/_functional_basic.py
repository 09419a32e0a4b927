"""nn.functional: linear layers, activations, dropout, softmax, one_hot,
normalize, distances and pad.  Thin wrappers: the arithmetic runs in _C
(the activations with parameters in aten/cpu/activation.c, with their
derivatives in csrc/autograd/functions_activation.c)."""
import math
import warnings

from .. import _C
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = [
    "linear", "bilinear", "identity",
    "dropout", "alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
    "feature_alpha_dropout",
    "threshold", "threshold_", "relu", "relu_", "glu", "hardtanh", "hardtanh_", "relu6",
    "elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "prelu",
    "rrelu", "rrelu_", "logsigmoid", "gelu", "hardshrink", "tanhshrink", "softsign",
    "softplus", "softmin", "softmax", "gumbel_softmax", "log_softmax", "softshrink",
    "tanh", "sigmoid", "hardsigmoid", "silu", "mish", "hardswish",
    "one_hot", "normalize", "cosine_similarity", "pairwise_distance", "pad",
    "scaled_dot_product_attention", "multi_head_attention_forward",
]

_OPS = _C._activation_ops()
_act = _C._activation


def _check_tensor(fname, input):
    if not isinstance(input, Tensor):
        raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s"
                        % (fname, type(input).__name__))


# --- linear -------------------------------------------------------------------

def linear(input, weight, bias=None):
    """y = input @ weight.T + bias, recorded as PyTorch 1.13's at::linear
    records it: addmm for a 2-D input with bias, addmm on the flattened
    input for a contiguous 3-D one, else matmul (plus an in-place add)."""
    if input.dim() == 2 and bias is not None:
        return _C.addmm(bias, input, weight.t())
    if bias is not None:
        if input.dim() == 3 and input.is_contiguous():
            sizes = input.shape
            out = _C.addmm(bias, input.view(-1, sizes[2]), weight.t())
            return out.view(sizes[0], sizes[1], out.size(1))
        output = _C.matmul(input, weight.t())
        output += bias
        return output
    return _C.matmul(input, weight.t())


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    if input1.dim() != input2.dim():
        raise RuntimeError("bilinear(): input dimensions do not match: got %d and %d"
                           % (input1.dim(), input2.dim()))
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError("bilinear(): input batch dimensions do not match at dim "
                               "%d: got %d and %d" % (i, input1.size(i), input2.size(i)))
    if input1.size(-1) != weight.size(1):
        raise RuntimeError("bilinear(): input1 size does not match weight size: got %d "
                           "but expected %d" % (input1.size(-1), weight.size(1)))
    if input2.size(-1) != weight.size(2):
        raise RuntimeError("bilinear(): input2 size does not match weight size: got %d "
                           "but expected %d" % (input2.size(-1), weight.size(2)))
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError("bilinear(): bias size does not match weight size: got %d "
                           "but expected %d" % (bias.size(0), weight.size(0)))
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, input1.size(-1))
    x2 = input2.reshape(-1, input2.size(-1))
    # (x1 W_o) . x2 for every o: one matmul against the weight laid out as
    # [i, o * j], then a batched dot with x2
    o, i, j = weight.shape
    t = _C.matmul(x1, weight.permute(1, 0, 2).reshape(i, o * j)).view(-1, o, j)
    out = _C.matmul(t, x2.unsqueeze(-1)).squeeze(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(tuple(lead) + (o,))


def identity(input):
    return input


# --- dropout ------------------------------------------------------------------

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}"
                         .format(p))


def _dropout_impl(input, p, train, inplace, feature, alpha):
    """at::_dropout_impl: the noise is a bernoulli(1 - p) draw over the input
    (or one per feature map) scaled to keep the expectation; the same draws
    as PyTorch's CPU kernel, so seeded masks agree."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        z = _C.zeros((), dtype=input.dtype)     # (a CPU number stands on any device)
        return input.mul_(z) if inplace else input * z
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the "
                               "input")
        shape = (input.size(0), input.size(1)) + (1,) * (input.dim() - 2)
        noise = _C.empty(shape, dtype=input.dtype, device=input.device)
    else:
        noise = _C.empty(tuple(input.shape), dtype=input.dtype, device=input.device)
    noise.bernoulli_(1 - p)
    if alpha:
        a_const = 1.7580993408473766
        a = 1. / math.sqrt((a_const * a_const * p + 1) * (1 - p))
        b = noise.add(-1).mul_(a_const * a).add_(a_const * a * p)
        noise.mul_(a)
        out = input.mul_(noise) if inplace else input * noise
        return out.add_(b)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, False)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, True, True)


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a "
                           f"{inp_dim}D input. Note that dropout1d exists to provide "
                           "channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D "
                           "or 3D inputs).")
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, True, False)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To "
                      "retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout2d exists to provide channel-wise "
                      "dropout on inputs with 2 spatial dimensions, a channel dimension, "
                      "and an optional batch dimension (i.e. 3D or 4D inputs).")
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted "
                      "as shape (N, C, L), where C is the channel dim. This behavior will "
                      "change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D "
                      "channel-wise dropout behavior, please switch to using dropout1d "
                      "instead.")
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To "
                      "retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout3d exists to provide channel-wise "
                      "dropout on inputs with 3 spatial dimensions, a channel dimension, "
                      "and an optional batch dimension (i.e. 4D or 5D inputs).")
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, True, False)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


# --- activations --------------------------------------------------------------

def threshold(input, threshold, value, inplace=False):
    return _C.threshold_(input, threshold, value) if inplace else \
        _C.threshold(input, threshold, value)


threshold_ = _C.threshold_


def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


def relu_(input):
    return input.relu_()


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be "
                           "even")
    n = input.size(dim)
    if n % 2 != 0:
        d = dim if dim >= 0 else dim + input.dim()
        raise RuntimeError("Halving dimension must be even, but dimension %d is size %d"
                           % (d, n))
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def hardtanh(input, min_val=-1., max_val=1., inplace=False):
    _check_tensor("hardtanh", input)
    return _act(input, _OPS["hardtanh"], min_val, max_val, 0., inplace)


def hardtanh_(input, min_val=-1., max_val=1.):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    return hardtanh(input, 0., 6., inplace)


def elu(input, alpha=1., inplace=False):
    _check_tensor("elu", input)
    return _act(input, _OPS["elu"], alpha, 1., 1., inplace)


def elu_(input, alpha=1.):
    return elu(input, alpha, True)


def selu(input, inplace=False):
    return _C.selu_(input) if inplace else _C.selu(input)


selu_ = _C.selu_


def celu(input, alpha=1., inplace=False):
    return _C.celu_(input, alpha) if inplace else _C.celu(input, alpha)


celu_ = _C.celu_


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _check_tensor("leaky_relu", input)
    return _act(input, _OPS["leaky_relu"], negative_slope, 0., 0., inplace)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or shared."""
    n = weight.numel()
    if n != 1:
        channels = input.size(1) if input.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. "
                               "Found parameter numbers = %d and channel size = %d."
                               % (n, channels))
        if input.dim() >= 2:
            weight = weight.reshape((n,) + (1,) * (input.dim() - 2))
    return _C.where(input > 0, input, weight * input)


def rrelu(input, lower=1. / 8, upper=1. / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per
    element in training, fixed at their mean in evaluation."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slope = _C.empty(tuple(input.shape), dtype=input.dtype,
                     device=input.device).uniform_(lower, upper)
    out = _C.where(input >= 0, input, input * slope)
    if inplace:
        with no_grad():
            input.copy_(out)
        return input
    return out


def rrelu_(input, lower=1. / 8, upper=1. / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def logsigmoid(input):
    _check_tensor("log_sigmoid", input)
    return _act(input, _OPS["log_sigmoid"])


def gelu(input, approximate="none"):
    """x * Phi(x), or its tanh approximation with approximate='tanh'."""
    if approximate == "none":
        if not input.is_floating_point():
            _act(input, _OPS["gelu_tanh"])     # raises torch's GeluKernelImpl error
        return _C.gelu(input)
    if approximate == "tanh":
        return _act(input, _OPS["gelu_tanh"])
    raise RuntimeError("approximate argument must be either none or tanh.")


def hardshrink(input, lambd=0.5):
    return _C.hardshrink(input, lambd)


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


def softplus(input, beta=1, threshold=20):
    _check_tensor("softplus", input)
    return _act(input, _OPS["softplus"], beta, threshold)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call "
                  "to include dim=X as an argument.".format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return (-input).softmax(dim)
    return (-input).softmax(dim, dtype=dtype)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.softmax(dim)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.log_softmax(dim)
    return input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    gumbels = -_C.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError("lambda must be greater or equal to 0, but found to be %s."
                           % _fmt_scalar(lambd))
    _check_tensor("softshrink", input)
    return _act(input, _OPS["softshrink"], lambd)


def _fmt_scalar(v):
    # c10's Scalar printing: integral values without a fraction
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def tanh(input):
    warnings.warn("nn.functional.tanh is deprecated. Use torch.tanh instead.")
    return input.tanh()


def sigmoid(input):
    warnings.warn("nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.")
    return input.sigmoid()


def hardsigmoid(input, inplace=False):
    _check_tensor("hardsigmoid", input)
    return _act(input, _OPS["hardsigmoid"], inplace=inplace)


def silu(input, inplace=False):
    return input.silu_() if inplace else _C.silu(input)


def mish(input, inplace=False):
    _check_tensor("mish", input)
    return _act(input, _OPS["mish"], inplace=inplace)


def hardswish(input, inplace=False):
    _check_tensor("hardswish", input)
    return _act(input, _OPS["hardswish"], inplace=inplace)


# --- one_hot, normalize, distances ---------------------------------------------

def one_hot(tensor, num_classes=-1):
    """int64 tensor of shape (*, num_classes) with ones at the indices."""
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _C.empty(tuple(tensor.shape) + (num_classes,), dtype=_C.int64,
                        device=tensor.device)
    if int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1
    elif int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = _C.zeros(tuple(tensor.shape) + (num_classes,), dtype=_C.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps)."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _C.div(input, denom, out=out)


# c10's ScalarType names, as its messages print dtypes
_SCALAR_TYPE_NAMES = {"torch.int64": "Long", "torch.int32": "Int", "torch.int16": "Short",
                      "torch.int8": "Char", "torch.uint8": "Byte", "torch.bool": "Bool"}


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / ||x1|| * x2 / ||x2||) along dim, each norm at least eps,
    composed as PyTorch 1.13 composes it."""
    common = _C.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype "
                           "is %s" % _SCALAR_TYPE_NAMES.get(str(common), str(common)))
    a, b = _C.broadcast_tensors(x1.to(common), x2.to(common))
    na = (a * a).sum(dim, keepdim=True)
    nb = (b * b).sum(dim, keepdim=True)
    with no_grad():
        na.clamp_min_(eps * eps)
        nb.clamp_min_(eps * eps)
    return ((a / na.sqrt()) * (b / nb.sqrt())).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    output_dim = max(x1.dim(), x2.dim())
    return _C.norm(x1 - x2 + eps, p, output_dim - 1, keepdim)


# --- pad --------------------------------------------------------------------------

def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims: pad = (left, right, top, bottom, ...);
    modes constant (any dims, negative pads crop), reflect, replicate,
    circular (the last 1-3 dims of a batched or unbatched input)."""
    pad = list(pad)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length too large")
    if mode == "constant":
        return _constant_pad(input, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError("Unrecognised padding mode " + str(mode))
    if value is not None and value != 0:
        raise RuntimeError('Padding mode "%s" doesn\'t take in value argument' % mode)
    npad = len(pad) // 2
    if not (1 <= npad <= 3 and input.dim() in (npad + 1, npad + 2)):
        raise NotImplementedError("Only 2D, 3D, 4D, 5D padding with non-constant padding "
                                  "are supported for now")
    if mode == "circular" and len(pad) != 2 * (input.dim() - 2):
        # circular padding wants a batch dimension
        raise RuntimeError("Invalid padding size, expected %d but got %d"
                           % (2 * (input.dim() - 2), len(pad)))
    out = input
    for k in range(npad):
        d = input.dim() - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        n = input.size(d)
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError("Argument #%d: Padding size should be less than the "
                               "corresponding input dimension, but got: padding (%d, %d) "
                               "at dimension %d of input %s"
                               % (4 + 2 * k, lo, hi, d,
                                  # (torch's 2-d kernel prints the rank)
                                  input.dim() if npad == 2 else list(input.shape)))
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        idx = _C.arange(-lo, n + hi)
        if mode == "reflect":
            # mirror about the edges without repeating them
            idx = idx.abs()
            idx = (n - 1) - ((n - 1) - idx).abs()
        elif mode == "replicate":
            idx = idx.clamp(0, n - 1)
        else:
            idx = idx.remainder(n)
        out = out.index_select(d, idx.to(input.device))
    return out


def _constant_pad(input, pad, value):
    nd = input.dim()
    shape = list(input.shape)
    src = [slice(None)] * nd
    dst = [slice(None)] * nd
    for k in range(len(pad) // 2):
        d = nd - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        n = shape[d]
        new = n + lo + hi
        if new < 0:
            raise RuntimeError("The input size %d, plus negative padding %d and %d "
                               "resulted in a negative output size, which is invalid. "
                               "Check dimension %d of your input." % (n, lo, hi, d))
        shape[d] = new
        # crop the input where a pad is negative, place it where positive
        src[d] = slice(max(-lo, 0), n - max(-hi, 0))
        dst[d] = slice(max(lo, 0), new - max(hi, 0))
    out = _C.full(tuple(shape), value, dtype=input.dtype, device=input.device)
    view = out[tuple(dst)]
    if view.numel() > 0:
        view.copy_(input[tuple(src)])
    return out


# --- attention ------------------------------------------------------------------

def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """softmax(q k^T * scale + mask) v (PyTorch 2.x's function; a bool mask
    marks the positions that take part)."""
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    attn = _C.matmul(query, key.transpose(-2, -1)) * scale_factor
    if is_causal:
        keep = _C.ones(L, S, dtype=_C.bool).tril()
        attn = attn.masked_fill(keep.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == _C.bool:
            attn = attn.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn = attn + attn_mask
    attn = attn.softmax(-1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p)
    return _C.matmul(attn, value)


def _scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                  need_attn_weights=False, is_causal=False):
    """PyTorch 1.13's private form: (output, weights or an empty tensor)."""
    L, S = query.size(-2), key.size(-2)
    attn = _C.matmul(query / math.sqrt(query.size(-1)), key.transpose(-2, -1))
    if is_causal:
        keep = _C.ones(L, S, dtype=_C.bool).tril()
        attn = attn.masked_fill(keep.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == _C.bool:
            attn = attn.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn = attn + attn_mask
    attn = attn.softmax(-1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p)
    out = _C.matmul(attn, value)
    return out, (attn if need_attn_weights else _C.empty(0, dtype=query.dtype))


def _in_projection_packed(q, k, v, w, b=None):
    E = q.size(-1)
    if k is v:
        if q is k:
            return linear(q, w, b).chunk(3, dim=-1)
        w_q, w_kv = w.split([E, E * 2])
        if b is None:
            b_q = b_kv = None
        else:
            b_q, b_kv = b.split([E, E * 2])
        return (linear(q, w_q, b_q),) + tuple(linear(k, w_kv, b_kv).chunk(2, dim=-1))
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    assert w_q.shape == (Eq, Eq), \
        f"expecting query weights shape of {(Eq, Eq)}, but got {w_q.shape}"
    assert w_k.shape == (Eq, Ek), \
        f"expecting key weights shape of {(Eq, Ek)}, but got {w_k.shape}"
    assert w_v.shape == (Eq, Ev), \
        f"expecting value weights shape of {(Eq, Ev)}, but got {w_v.shape}"
    assert b_q is None or b_q.shape == (Eq,), \
        f"expecting query bias shape of {(Eq,)}, but got {b_q.shape}"
    assert b_k is None or b_k.shape == (Eq,), \
        f"expecting key bias shape of {(Eq,)}, but got {b_k.shape}"
    assert b_v is None or b_v.shape == (Eq,), \
        f"expecting value bias shape of {(Eq,)}, but got {b_v.shape}"
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        is_batched = True
        assert key.dim() == 3 and value.dim() == 3, \
            ("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
             f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 2, \
                ("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or"
                 f" 2-D but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), \
                ("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                 f" but found {attn_mask.dim()}-D tensor instead")
    elif query.dim() == 2:
        is_batched = False
        assert key.dim() == 2 and value.dim() == 2, \
            ("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
             f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 1, \
                ("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or"
                 f" 1-D but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), \
                ("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or"
                 f" 3-D but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                assert attn_mask.shape == expected_shape, \
                    (f"Expected `attn_mask` shape to be {expected_shape} but got "
                     f"{attn_mask.shape}")
    else:
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received "
            f"{query.dim()}-D query tensor")
    return is_batched


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v,
                                 add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True,
                                 attn_mask=None, use_separate_proj_weight=False,
                                 q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None,
                                 average_attn_weights=True):
    """PyTorch 1.13's multi-head attention, step for step: projections,
    heads folded into the batch, scaled q k^T (+ mask) by baddbmm,
    softmax, dropout, bmm with v, output projection."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask,
                                  num_heads)
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape
    if key_padding_mask is not None:
        if key_padding_mask.dtype != _C.bool and not key_padding_mask.is_floating_point():
            raise AssertionError("only bool and floating types of key_padding_mask are "
                                 "supported")
    assert embed_dim == embed_dim_to_check, \
        f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
    head_dim = embed_dim // num_heads
    assert head_dim * num_heads == embed_dim, \
        f"embed_dim {embed_dim} not divisible by num_heads {num_heads}"
    if use_separate_proj_weight:
        assert key.shape[:2] == value.shape[:2], \
            (f"key's sequence and batch dims {key.shape[:2]} do not match value's "
             f"{value.shape[:2]}")
    else:
        assert key.shape == value.shape, \
            f"key shape {key.shape} does not match value shape {value.shape}"

    if not use_separate_proj_weight:
        assert in_proj_weight is not None, \
            "use_separate_proj_weight is False but in_proj_weight is None"
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        assert q_proj_weight is not None, \
            "use_separate_proj_weight is True but q_proj_weight is None"
        assert k_proj_weight is not None, \
            "use_separate_proj_weight is True but k_proj_weight is None"
        assert v_proj_weight is not None, \
            "use_separate_proj_weight is True but v_proj_weight is None"
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dtype == _C.uint8:
            warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention is "
                          "deprecated. Use bool tensor instead.")
            attn_mask = attn_mask.to(_C.bool)
        else:
            assert attn_mask.is_floating_point() or attn_mask.dtype == _C.bool, \
                ("Only float, byte, and bool types are supported for attn_mask, not "
                 f"{attn_mask.dtype}")
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if attn_mask.shape != correct_2d_size:
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, "
                                   f"but should be {correct_2d_size}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if attn_mask.shape != correct_3d_size:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, "
                                   f"but should be {correct_3d_size}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not "
                               "supported")

    if bias_k is not None and bias_v is not None:
        assert static_k is None, "bias cannot be added to static key."
        assert static_v is None, "bias cannot be added to static value."
        k = _C.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _C.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    else:
        assert bias_k is None
        assert bias_v is None

    q = q.contiguous().view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.contiguous().view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        assert static_k.size(0) == bsz * num_heads, \
            f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}"
        assert static_k.size(2) == head_dim, \
            f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}"
        k = static_k
    if static_v is None:
        v = v.contiguous().view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        assert static_v.size(0) == bsz * num_heads, \
            f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}"
        assert static_v.size(2) == head_dim, \
            f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}"
        v = static_v

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = _C.cat([k, _C.zeros(zero_attn_shape, dtype=k.dtype)], dim=1)
        v = _C.cat([v, _C.zeros(zero_attn_shape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)
    if key_padding_mask is not None:
        assert key_padding_mask.shape == (bsz, src_len), \
            (f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
             f"{key_padding_mask.shape}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len). \
            expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        elif attn_mask.dtype == _C.bool:
            attn_mask = attn_mask.logical_or(key_padding_mask)
        else:
            # (masked_fill's result has the broadcast shape of both)
            shape = (max(attn_mask.size(0), key_padding_mask.size(0)),) + \
                tuple(attn_mask.shape[1:])
            attn_mask = attn_mask.expand(shape).masked_fill(key_padding_mask,
                                                            float("-inf"))

    if attn_mask is not None and attn_mask.dtype == _C.bool:
        new_attn_mask = _C.zeros_like(attn_mask, dtype=q.dtype)
        new_attn_mask.masked_fill_(attn_mask, float("-inf"))
        attn_mask = new_attn_mask

    if not training:
        dropout_p = 0.0

    B, Nt, E = q.shape
    q_scaled = q / math.sqrt(E)
    if attn_mask is not None:
        attn_output_weights = _C.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        attn_output_weights = _C.bmm(q_scaled, k.transpose(-2, -1))
    attn_output_weights = softmax(attn_output_weights, dim=-1)
    if dropout_p > 0.0:
        attn_output_weights = dropout(attn_output_weights, p=dropout_p)

    attn_output = _C.bmm(attn_output_weights, v)
    attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))

    if need_weights:
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.sum(dim=1) / num_heads
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
