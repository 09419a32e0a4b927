"""nn.functional: convolution, pooling, unfold / fold and interpolate.

As in PyTorch, the convolutions and the 1-D pools are the top-level C
functions themselves (ctorch.conv2d is F.conv2d); the 2-D pools, the
adaptive pools, unfold / fold and interpolate are thin Python over private
_C functions (torch._C._nn's), with torch's argument handling.  The
kernels are in aten/cpu/conv*.c and pool.c, their derivatives in
csrc/autograd/functions_conv.c."""
import math
import warnings

from .. import _C

__all__ = [
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "avg_pool1d", "avg_pool2d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "unfold", "fold", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
]

conv1d = _C.conv1d
conv2d = _C.conv2d
conv_transpose1d = _C.conv_transpose1d
conv_transpose2d = _C.conv_transpose2d
avg_pool1d = _C.avg_pool1d
avg_pool2d = _C._avg_pool2d
adaptive_avg_pool1d = _C.adaptive_avg_pool1d


def _pair(x):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x, x)


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    return [v if v is not None else d
            for v, d in zip(out_size, list(defaults)[-len(out_size):])]


def _stride_or_empty(stride):
    return [] if stride is None else stride


# --- max pooling ------------------------------------------------------------------

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _C.max_pool1d_with_indices(input, kernel_size, _stride_or_empty(stride),
                                      padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of the last dim; with return_indices, also
    the positions the maxima came from."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)
    return _C.max_pool1d(input, kernel_size, _stride_or_empty(stride), padding, dilation,
                         ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _C._max_pool2d_with_indices(input, kernel_size, _stride_or_empty(stride),
                                       padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of the last two dims; with return_indices,
    also the flat positions (h * W + w) the maxima came from."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)
    return _C.max_pool2d(input, kernel_size, _stride_or_empty(stride), padding, dilation,
                         ceil_mode)


# --- adaptive pooling ---------------------------------------------------------------

def adaptive_avg_pool2d(input, output_size):
    """Average over the windows that split H and W into output_size parts
    (None keeps that dim's size)."""
    return _C._adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _C.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    if return_indices:
        return adaptive_max_pool1d_with_indices(input, output_size)
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _C._adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    if return_indices:
        return adaptive_max_pool2d_with_indices(input, output_size)
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


# --- sliding blocks -------------------------------------------------------------------

def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a [N, C, H, W] (or [C, H, W]) input as columns:
    [N, C * prod(kernel_size), L]."""
    return _C._im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding),
                      _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The sum of sliding local blocks back into [N, C, *output_size]
    (unfold's adjoint)."""
    return _C._col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                      _pair(padding), _pair(stride))


# --- interpolate ----------------------------------------------------------------------

def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of [N, C, L] or [N, C, H, W] by `size` or
    `scale_factor`: modes nearest, linear (3-D), bilinear (4-D) and area
    (adaptive average pooling), with torch's index arithmetic."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the "
                             "interpolating modes: linear | bilinear | bicubic | "
                             "trilinear")
    elif align_corners is None:
        align_corners = False

    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, "
                    "but got input with spatial dimensions of {} and output size of {}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                    .format(list(input.shape[2:]), size))
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial "
                    "dimensions, but got input with spatial dimensions of {} and "
                    "scale_factor of shape {}. Please provide input tensor in (N, C, d1, "
                    "d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                    .format(list(input.shape[2:]), scale_factor))
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(math.floor(float(input.size(i + 2)) * scale_factors[i]))
                       for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is only supported for bilinear and bicubic "
                         "modes")
    if antialias:
        raise NotImplementedError("interpolate: antialias is not supported by ctorch")

    def sizes():
        if output_size is not None:
            return output_size
        # torch's upsample ops: static_cast<int64_t>(input_size * scale)
        return [int(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]

    if mode == "nearest" and input.dim() in (3, 4):
        return _C._upsample(input, "nearest", sizes(), False, scale_factors)
    if mode == "area" and input.dim() == 3:
        return adaptive_avg_pool1d(input, output_size)
    if mode == "area" and input.dim() == 4:
        return adaptive_avg_pool2d(input, output_size)
    if (mode == "linear" and input.dim() == 3) or (mode == "bilinear" and input.dim() == 4):
        return _C._upsample(input, "linear", sizes(), align_corners, scale_factors)

    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if input.dim() == 3 and mode == "trilinear":
        raise NotImplementedError("Got 3D input, but trilinear mode needs 5D input")
    if input.dim() == 4 and mode == "linear":
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if input.dim() == 4 and mode == "trilinear":
        raise NotImplementedError("Got 4D input, but trilinear mode needs 5D input")
    if input.dim() in (3, 4, 5) and mode in ("nearest", "linear", "bilinear", "bicubic",
                                             "trilinear", "area", "nearest-exact"):
        raise NotImplementedError("interpolate: mode '%s' on %dD input is not supported by "
                                  "ctorch" % (mode, input.dim()))
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        " (got {}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
        "area | nearest-exact (got {})".format(input.dim(), mode))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate "
                  "instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use "
                  "nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use "
                  "nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
