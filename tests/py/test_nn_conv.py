"""Convolution, pooling, unfold / fold and interpolate in ctorch.nn:
outputs, indices, gradients and node names recorded from PyTorch 1.13
(data/nn_conv_expected.py), seeded module initialization, gradcheck /
gradgradcheck in float64, torch's error messages, the modules (repr,
padding modes, output_size), no leaks, and, where torch is installed,
random shapes, strides, paddings, dilations and groups side by side with
torch in float32 and float64."""
import gc
import os
import random
import sys
import warnings

import pytest

import ctorch
import ctorch.nn as nn
import ctorch.nn.functional as F
from ctorch.autograd import gradcheck, gradgradcheck

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "data"))

import nn_conv_cases as cc  # noqa: E402
import nn_conv_expected as ce  # noqa: E402


def close(a, b, rel, abs_=1e-12):
    assert len(a) == len(b), (len(a), len(b))
    for u, v in zip(a, b):
        assert u == pytest.approx(v, rel=rel, abs=abs_), (a, b)


# --- recorded from torch -------------------------------------------------------

@pytest.mark.parametrize("case", cc.CONV_CASES, ids=[c[0] for c in cc.CONV_CASES])
def test_recorded_conv(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        name, shape, out, grads = cc.run_conv(ctorch, case)
    rname, rshape, rout, rgrads = ce.CONV[case[0]]
    assert (name, shape) == (rname, rshape)
    close(out, rout, 1e-11)
    assert len(grads) == len(rgrads)
    for g, r in zip(grads, rgrads):
        close(g, r, 1e-10)


@pytest.mark.parametrize("case", cc.POOL_CASES, ids=[c[0] for c in cc.POOL_CASES])
def test_recorded_pool(case):
    name, shape, out, idx, grads = cc.run_pool(ctorch, case)
    rname, rshape, rout, ridx, rgrads = ce.POOL[case[0]]
    assert (name, shape, idx) == (rname, rshape, ridx)
    # linear interpolation may round its weights differently in the last bit
    rel = 1e-12 if "linear" not in case[0] else 1e-9
    close(out, rout, rel)
    close(grads[0], rgrads[0], max(rel, 1e-11))


def test_recorded_module_init():
    assert cc.module_init(ctorch) == ce.INIT


def test_pool_values_exact_float32():
    """Max, average and adaptive pools are bit-identical to torch's in
    float32 (the same window order and accumulation type)."""
    for case in cc.POOL_CASES:
        if "linear" in case[0] or "bilinear" in case[0] or "fold" in case[0]:
            continue
        x = cc.tensor(ctorch, case[1], grad=False).float()
        r = case[2](F, x)
        r = r[0] if isinstance(r, tuple) else r
        rout = ce.POOL[case[0]][2]
        got = r.flatten().tolist()
        want = ctorch.tensor(rout, dtype=ctorch.float64).float().tolist()
        if case[0].startswith(("avg", "adaptive_avg", "interpolate_area")):
            close(got, want, 1e-6, 1e-6)
        else:
            assert got == want, case[0]


# --- node names, shapes, unbatched inputs -------------------------------------

def test_grad_fn_names():
    x = ctorch.randn(2, 3, 6, 6, requires_grad=True)
    w = ctorch.randn(4, 3, 3, 3, requires_grad=True)
    names = {
        "ConvolutionBackward0": F.conv2d(x, w),
        "MaxPool2DWithIndicesBackward0": F.max_pool2d(x, 2),
        "AvgPool2DBackward0": F.avg_pool2d(x, 2),
        "AdaptiveAvgPool2DBackward0": F.adaptive_avg_pool2d(x, 3),
        "AdaptiveMaxPool2DBackward0": F.adaptive_max_pool2d(x, 3),
        "Im2ColBackward0": F.unfold(x, 2),
        "UpsampleNearest2DBackward1": F.interpolate(x, scale_factor=2),
        "UpsampleBilinear2DBackward1": F.interpolate(x, scale_factor=2, mode="bilinear"),
        "MeanBackward1": F.adaptive_avg_pool2d(x, 1),
        "SqueezeBackward1": F.max_pool1d(x[0], 2),
    }
    for name, y in names.items():
        assert type(y.grad_fn).__name__ == name
    y = F.conv2d(x[0], w)
    assert type(y.grad_fn).__name__ == "SqueezeBackward1"
    nxt = y.grad_fn.next_functions[0][0]
    assert type(nxt).__name__ == "ConvolutionBackward0"
    assert type(nxt.next_functions[0][0]).__name__ == "UnsqueezeBackward0"
    u = F.unfold(x, 2)
    assert type(F.fold(u, (6, 6), 2).grad_fn).__name__ == "Col2ImBackward0"
    x1 = ctorch.randn(2, 3, 8, requires_grad=True)
    assert type(F.max_pool1d(x1, 2).grad_fn.next_functions[0][0]).__name__ == \
        "MaxPool2DWithIndicesBackward0"
    assert type(F.avg_pool1d(x1, 2).grad_fn.next_functions[0][0]).__name__ == \
        "AvgPool2DBackward0"
    assert type(F.interpolate(x1, 5, mode="linear").grad_fn).__name__ == \
        "UpsampleLinear1DBackward1"
    assert type(F.interpolate(x1, 5).grad_fn).__name__ == "UpsampleNearest1DBackward1"


def test_no_grad_records_nothing():
    x = ctorch.randn(1, 2, 5, 5, requires_grad=True)
    w = ctorch.randn(3, 2, 3, 3, requires_grad=True)
    with ctorch.no_grad():
        for y in (F.conv2d(x, w), F.max_pool2d(x, 2), F.avg_pool2d(x, 2),
                  F.adaptive_max_pool2d(x, 2), F.unfold(x, 2),
                  F.interpolate(x, scale_factor=2), F.max_pool1d(x[0], 2)):
            assert y.grad_fn is None and not y.requires_grad


def test_shapes():
    x = ctorch.zeros(2, 3, 10, 9)
    assert F.conv2d(x, ctorch.zeros(4, 3, 3, 2), stride=(2, 3), padding=(1, 2),
                    dilation=(2, 1)).shape == (2, 4, 4, 4)
    assert F.conv2d(x, ctorch.zeros(4, 3, 3, 3), padding="same").shape == (2, 4, 10, 9)
    assert F.conv2d(x, ctorch.zeros(4, 3, 3, 3), padding="valid").shape == (2, 4, 8, 7)
    assert F.conv_transpose2d(x, ctorch.zeros(3, 2, 3, 3), stride=2, output_padding=1
                              ).shape == (2, 2, 22, 20)
    assert F.conv2d(ctorch.zeros(0, 3, 5, 5), ctorch.zeros(4, 3, 3, 3)).shape == (0, 4, 3, 3)
    y = F.conv2d(ctorch.zeros(2, 0, 5, 5), ctorch.zeros(4, 0, 3, 3), ctorch.ones(4))
    assert y.shape == (2, 4, 3, 3) and y.sum().item() == 72
    assert F.max_pool2d(x, 3, ceil_mode=True).shape == (2, 3, 4, 3)
    assert F.max_pool1d(ctorch.zeros(2, 3, 8), 9).shape == (2, 3, 0)
    assert F.adaptive_avg_pool2d(x, (None, 2)).shape == (2, 3, 10, 2)
    assert F.adaptive_max_pool2d(x, 0).shape == (2, 3, 0, 0)
    assert F.unfold(ctorch.zeros(3, 8, 8), 2).shape == (12, 49)
    assert F.fold(ctorch.zeros(12, 49), 8, 2).shape == (3, 8, 8)


def test_integer_and_bfloat16_conv():
    x = ctorch.arange(2 * 2 * 4 * 4).reshape(2, 2, 4, 4)
    w = ctorch.arange(3 * 2 * 2 * 2).reshape(3, 2, 2, 2) - 10
    y = F.conv2d(x, w, stride=2)
    ref = F.conv2d(x.double(), w.double(), stride=2)
    assert y.dtype == ctorch.int64 and y.tolist() == ref.long().tolist()
    yb = F.conv2d(x.to(ctorch.bfloat16) / 8, w.to(ctorch.bfloat16) / 8)
    assert yb.dtype == ctorch.bfloat16
    refb = F.conv2d(x.double() / 8, w.double() / 8)
    assert (yb.double() - refb).abs().max().item() < 0.5
    assert F.avg_pool2d(x, 2).tolist() == (F.avg_pool2d(x.double(), 2)).long().tolist()


# --- gradcheck -------------------------------------------------------------------

def _d(*shape, seed=0):
    ctorch.manual_seed(seed)
    return ctorch.randn(*shape, dtype=ctorch.float64, requires_grad=True)


CONV_GRAD_CASES = [
    (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
     (2, 4, 5, 5), (6, 2, 3, 2), 6),
    (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1,
                                        groups=2, dilation=(2, 1)),
     (2, 4, 3, 3), (4, 3, 3, 2), 6),
    (lambda x, w, b: F.conv1d(x, w, b, padding="same"), (2, 3, 7), (2, 3, 4), 2),
    (lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3), (1, 2, 4), (2, 3, 2), 3),
    (lambda x, w, b: F.conv2d(x, w, b), (3, 4, 4), (2, 3, 1, 1), 2),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("i", range(len(CONV_GRAD_CASES)))
def test_gradcheck_conv(i):
    f, xs, ws, nb = CONV_GRAD_CASES[i]
    args = (_d(*xs, seed=1), _d(*ws, seed=2), _d(nb, seed=3))
    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


POOL_GRAD_CASES = [
    lambda t: F.max_pool2d(t, 3, 2, 1),
    lambda t: F.max_pool2d(t, 2, 1, 0, 2, True),
    lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda t: F.avg_pool2d(t, 2, divisor_override=3),
    lambda t: F.adaptive_avg_pool2d(t, (3, 2)),
    lambda t: F.adaptive_max_pool2d(t, (3, 4)),
    lambda t: F.unfold(t, 2, padding=1, stride=2),
    lambda t: F.fold(F.unfold(t, 2), (5, 5), 2),
    lambda t: F.interpolate(t, scale_factor=1.7),
    lambda t: F.interpolate(t, size=(7, 3), mode="bilinear", align_corners=True),
    lambda t: F.interpolate(t, size=(3, 8), mode="bilinear"),
    lambda t: F.max_pool1d(t[:, :, 0], 2),
    lambda t: F.avg_pool1d(t[:, :, 0], 3, 2, 1),
    lambda t: F.adaptive_max_pool1d(t[:, :, 1], 3),
    lambda t: F.interpolate(t[:, :, 0], 9, mode="linear"),
]


@pytest.mark.parametrize("i", range(len(POOL_GRAD_CASES)))
def test_gradcheck_pool(i):
    x = _d(2, 3, 5, 5, seed=i)
    assert gradcheck(POOL_GRAD_CASES[i], (x,))
    assert gradgradcheck(POOL_GRAD_CASES[i], (x,))


def test_backward_twice_needs_retain_graph():
    x = _d(1, 2, 4, 4)
    y = F.avg_pool2d(x, 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    y = F.conv2d(x, _d(1, 2, 2, 2)).sum()
    y.backward(retain_graph=True)
    y.backward()


# --- errors (torch's messages) -------------------------------------------------

ERRORS = [
    (lambda: F.conv2d(ctorch.zeros(3, 8), ctorch.zeros(4, 3, 3, 3)), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 8]"),
    (lambda: F.conv1d(ctorch.zeros(2, 2, 3, 8), ctorch.zeros(4, 2, 3)), RuntimeError,
     "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
     "[2, 2, 3, 8]"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 2, 3, 3)), RuntimeError,
     "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 8, 8] to have 2 "
     "channels, but got 3 channels instead"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 9, 9)), RuntimeError,
     "Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel size "
     "can't be greater than actual input size"),
    (lambda: F.conv1d(ctorch.zeros(1, 1, 2), ctorch.zeros(1, 1, 5)), RuntimeError,
     "Calculated padded input size per channel: (2). Kernel size: (5). Kernel size can't be "
     "greater than actual input size"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3)), RuntimeError,
     "expected stride to be a single integer value or a list of 1 values to match the "
     "convolution dimensions, but got stride=[1, 1]"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3), ctorch.zeros(3)),
     RuntimeError, "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional "
     "with 4 elements, but got bias of size [3] instead"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3), stride=0),
     RuntimeError, "non-positive stride is not supported"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3), padding=-1),
     RuntimeError, "negative padding is not supported"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3), dilation=0),
     RuntimeError, "non-positive dilation is not supported"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3), groups=0),
     RuntimeError, "non-positive groups is not supported"),
    (lambda: F.conv2d(ctorch.zeros(2, 4, 8, 8), ctorch.zeros(3, 2, 3, 3), groups=2),
     RuntimeError, "Given groups=2, expected weight to be divisible by 2 at dimension 0, "
     "but got weight of size [[3, 2, 3, 3]] instead"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3), padding="same",
                      stride=2), RuntimeError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3), padding="foo"),
     RuntimeError, "Invalid padding string: 'foo'"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3).double()),
     RuntimeError, "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) "
     "should be the same or input should be a MKLDNN tensor and weight is a dense tensor"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8).double(), ctorch.zeros(4, 3, 3, 3)),
     RuntimeError, "expected scalar type Double but found Float"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3),
                      ctorch.zeros(4).double()), RuntimeError,
     "Input type (float) and bias type (double) should be the same"),
    (lambda: F.conv2d(ctorch.zeros(2, 3, 8, 8).half(), ctorch.zeros(4, 3, 3, 3).half()),
     RuntimeError, "\"slow_conv2d_cpu\" not implemented for 'Half'"),
    (lambda: F.conv_transpose2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(4, 3, 3, 3)),
     RuntimeError, "Given transposed=1, weight of size [4, 3, 3, 3], expected "
     "input[2, 3, 8, 8] to have 4 channels, but got 3 channels instead"),
    (lambda: F.conv_transpose2d(ctorch.zeros(2, 3, 8, 8), ctorch.zeros(3, 4, 3, 3),
                                output_padding=1), RuntimeError,
     "output padding must be smaller than either stride or dilation, but got "
     "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
     "dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose2d(ctorch.zeros(2, 3, 1, 1), ctorch.zeros(3, 4, 3, 3),
                                padding=5), RuntimeError,
     "Given input size per channel: (1 x 1). Calculated output size per channel: (-7 x -7). "
     "Output size is too small"),
    (lambda: F.max_pool2d(ctorch.zeros(3, 8), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: F.max_pool2d(ctorch.zeros(2, 3, 8, 8), 2, padding=2), RuntimeError,
     "pad should be at most half of kernel size, but got pad=2 and kernel_size=2"),
    (lambda: F.max_pool2d(ctorch.zeros(2, 3, 8, 8), 9), RuntimeError,
     "Given input size: (3x8x8). Calculated output size: (3x0x0). Output size is too small"),
    (lambda: F.max_pool2d(ctorch.zeros(2, 3, 8, 8), 0), RuntimeError,
     "stride should not be zero"),
    (lambda: F.max_pool2d(ctorch.zeros(2, 3, 8, 8), 2, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    (lambda: F.max_pool2d(ctorch.zeros(2, 3, 8, 8).long(), 2), RuntimeError,
     "\"max_pool2d\" not implemented for 'Long'"),
    (lambda: F.max_pool2d(ctorch.zeros(2, 3, 8, 8), (2, 2, 2)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: F.max_pool2d(ctorch.zeros(2, 3, 0, 4), 2), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
     "got:[2, 3, 0, 4]"),
    (lambda: F.avg_pool2d(ctorch.zeros(2, 3, 8, 8), 2, divisor_override=0), RuntimeError,
     "divisor must be not zero"),
    (lambda: F.avg_pool2d(ctorch.zeros(2, 3, 8, 8), 2, stride=(1, 1, 1)), RuntimeError,
     "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints"),
    (lambda: F.avg_pool2d(ctorch.zeros(2, 3, 8, 8).half(), 2), RuntimeError,
     "\"avg_pool2d\" not implemented for 'Half'"),
    (lambda: F.avg_pool1d(ctorch.zeros(2, 3, 8, 8), 2), RuntimeError,
     "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' "
     "(while checking arguments for avg_pool1d)"),
    (lambda: F.avg_pool1d(ctorch.zeros(2, 3, 8), (2, 2)), RuntimeError,
     "avg_pool1d() argument 'kernel_size' should contain one int (got 2)"),
    (lambda: F.max_pool1d(ctorch.zeros(8), 2), RuntimeError,
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
     "input, but got:[8]"),
    (lambda: F.max_pool1d(ctorch.zeros(2, 3, 8), 2, padding=2), RuntimeError,
     "max_pool1d() padding should be at most half of kernel size, but got padding=2 and "
     "kernel_size=2"),
    (lambda: F.max_pool1d(ctorch.zeros(2, 3, 8), (2, 2)), RuntimeError,
     "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
     "got size 2"),
    (lambda: F.max_pool1d(ctorch.zeros(2, 3, 8, requires_grad=True), 9), RuntimeError,
     "Given input size: (3x1x8). Calculated output size: (3x1x0). Output size is too small"),
    (lambda: F.adaptive_avg_pool2d(ctorch.zeros(2, 3, 8, 8), (2, 2, 2)), RuntimeError,
     "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: F.adaptive_avg_pool2d(ctorch.zeros(2, 3, 8, 8), -1), RuntimeError,
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
     "received {-1, -1}"),
    (lambda: F.adaptive_avg_pool2d(ctorch.zeros(8), 2), RuntimeError,
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [8]"),
    (lambda: F.adaptive_max_pool2d(ctorch.zeros(8), 2), RuntimeError,
     "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [8]"),
    (lambda: F.adaptive_max_pool2d(ctorch.zeros(2, 3, 0, 4), 2), RuntimeError,
     "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
     "dimensions, but input has sizes [2, 3, 0, 4] with dimension 2 being empty"),
    (lambda: F.adaptive_avg_pool1d(ctorch.zeros(2, 3, 8), (2, 2)), RuntimeError,
     "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 2)"),
    (lambda: F.adaptive_max_pool2d(ctorch.zeros(2, 3, 8, 8).long(), 2), RuntimeError,
     "\"adaptive_max_pool2d\" not implemented for 'Long'"),
    (lambda: F.unfold(ctorch.zeros(2, 3, 8, 8), 9), RuntimeError,
     "Given input with spatial size (8, 8), kernel_size=(9, 9), dilation=(1, 1), "
     "padding=(0, 0), calculated shape of the array of sliding blocks as (0, 0), but its "
     "components must be at least one."),
    (lambda: F.unfold(ctorch.zeros(2, 3, 8, 8), 0), RuntimeError,
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    (lambda: F.unfold(ctorch.zeros(2, 3, 8, 8), (2, 2, 2)), RuntimeError,
     "It is expected kernel_size equals to 2, but got size 3"),
    (lambda: F.unfold(ctorch.zeros(2, 3, 8, 8).long(), 2), RuntimeError,
     "\"im2col_out_cpu\" not implemented for 'Long'"),
    (lambda: F.fold(ctorch.zeros(2, 13, 49), (8, 8), 2), RuntimeError,
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
     "but got input.size(1)=13 and kernel_size=(2, 2)."),
    (lambda: F.fold(ctorch.zeros(2, 12, 40), (8, 8), 2), RuntimeError,
     "Given output_size=(8, 8), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
     "stride=(1, 1), expected size of input's dimension 2 to match the calculated number "
     "of sliding blocks 7 * 7 = 49, but got input.size(2)=40."),
    (lambda: F.interpolate(ctorch.zeros(2, 3, 8, 8), scale_factor=2, align_corners=True),
     ValueError, "align_corners option can only be set with the interpolating modes: "
     "linear | bilinear | bicubic | trilinear"),
    (lambda: F.interpolate(ctorch.zeros(2, 3, 8, 8)), ValueError,
     "either size or scale_factor should be defined"),
    (lambda: F.interpolate(ctorch.zeros(2, 3, 8, 8), size=4, scale_factor=2), ValueError,
     "only one of size or scale_factor should be defined"),
    (lambda: F.interpolate(ctorch.zeros(2, 3, 4), mode="bilinear", size=3),
     NotImplementedError, "Got 3D input, but bilinear mode needs 4D input"),
    (lambda: F.interpolate(ctorch.zeros(2, 3, 8, 8), mode="foo", size=3),
     NotImplementedError, "Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) "
     "for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
     "nearest-exact (got foo)"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    fn, exc, msg = ERRORS[i]
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == msg


def test_errors_match_torch(torch_ref):
    """The same calls raise the same exceptions with the same texts in torch."""
    import inspect
    t = torch_ref
    for fn, exc, msg in ERRORS:
        src = inspect.getsource(fn).strip()
        code = src[src.index("lambda"):].rstrip(",")
        # the lambda's body, re-evaluated with torch in place of ctorch
        body = code[len("lambda:"):]
        depth, end = 0, len(body)
        for k, ch in enumerate(body):
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
                if depth < 0:
                    end = k
                    break
            elif ch == "," and depth == 0:
                end = k
                break
        expr = body[:end].strip()
        with pytest.raises(exc) as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                eval(expr, {"ctorch": t, "F": t.nn.functional})
        assert str(info.value) == msg, expr


# --- modules -----------------------------------------------------------------------

def test_module_reprs():
    cases = [
        (nn.Conv2d(3, 16, 3, padding=1),
         "Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"),
        (nn.Conv2d(16, 8, (3, 2), stride=2, padding="valid", bias=False, groups=2),
         "Conv2d(16, 8, kernel_size=(3, 2), stride=(2, 2), padding=valid, groups=2, "
         "bias=False)"),
        (nn.Conv1d(2, 4, 3, padding_mode="reflect", padding=1, dilation=2),
         "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,), dilation=(2,), "
         "padding_mode=reflect)"),
        (nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1, dilation=2),
         "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), dilation=(2, 2), "
         "output_padding=(1, 1))"),
        (nn.MaxPool2d(2), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, "
         "ceil_mode=False)"),
        (nn.MaxPool1d(3, 2, 1, return_indices=True),
         "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)"),
        (nn.AvgPool2d(2, ceil_mode=True), "AvgPool2d(kernel_size=2, stride=2, padding=0)"),
        (nn.AvgPool1d(3), "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"),
        (nn.AdaptiveAvgPool2d((None, 3)), "AdaptiveAvgPool2d(output_size=(None, 3))"),
        (nn.AdaptiveMaxPool2d(3), "AdaptiveMaxPool2d(output_size=3)"),
        (nn.AdaptiveAvgPool1d(5), "AdaptiveAvgPool1d(output_size=5)"),
        (nn.Upsample(scale_factor=2), "Upsample(scale_factor=2.0, mode=nearest)"),
        (nn.UpsamplingBilinear2d(size=4), "UpsamplingBilinear2d(size=4, mode=bilinear)"),
        (nn.Unfold(2), "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"),
        (nn.Fold(4, 2), "Fold(output_size=4, kernel_size=2, dilation=1, padding=0, "
         "stride=1)"),
    ]
    for m, text in cases:
        assert repr(m) == text


def test_module_params_and_errors():
    m = nn.Conv2d(4, 6, 3, groups=2)
    assert [k for k, _ in m.named_parameters()] == ["weight", "bias"]
    assert m.weight.shape == (6, 2, 3, 3) and m.bias.shape == (6,)
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert t.weight.shape == (4, 3, 3, 3)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        nn.Conv2d(3, 4, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(3, 4, 3, padding_mode="foo")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported'):
        nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect")


def test_padding_modes_match_manual_pad():
    ctorch.manual_seed(0)
    x = ctorch.randn(2, 3, 6, 5)
    for mode in ("reflect", "replicate", "circular"):
        m = nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode=mode)
        want = F.conv2d(F.pad(x, (2, 2, 1, 1), mode=mode), m.weight, m.bias)
        assert m(x).tolist() == want.tolist()


def test_conv_transpose_output_size():
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = ctorch.randn(1, 2, 4, 4)
    assert m(x).shape == (1, 3, 7, 7)
    assert m(x, output_size=[8, 8]).shape == (1, 3, 8, 8)
    assert m(x, output_size=(1, 3, 8, 7)).shape == (1, 3, 8, 7)
    with pytest.raises(ValueError, match="requested an output size of"):
        m(x, output_size=[10, 10])


def test_small_cnn_trains():
    """A small CNN's loss falls with SGD (the layers' gradients work
    together)."""
    ctorch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(4, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                        nn.Flatten(), nn.Linear(8, 2))
    x = ctorch.randn(16, 1, 8, 8)
    y = (x.mean((1, 2, 3)) > 0).long()
    opt = ctorch.optim.SGD(net.parameters(), lr=0.5)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_no_leaks():
    def step():
        x = ctorch.randn(2, 3, 6, 6, requires_grad=True)
        w = ctorch.randn(4, 3, 3, 3, requires_grad=True)
        y = F.conv2d(x, w, padding=1)
        y = F.max_pool2d(y, 2) + F.avg_pool2d(y, 2) + F.adaptive_max_pool2d(y, 3)
        y = F.interpolate(y, scale_factor=2, mode="bilinear") + F.interpolate(y, size=(6, 6))
        g = ctorch.autograd.grad(y.sum(), (x, w), create_graph=True)
        (g[0].sum() + g[1].sum()).backward()
    step()
    gc.collect()
    before = ctorch._C._live_counts()[:2]
    for _ in range(3):
        step()
    gc.collect()
    assert ctorch._C._live_counts()[:2] == before


# --- differential against torch -------------------------------------------------------

def _to_torch(t, c, grad=False):
    r = t.tensor(c.detach().tolist(), dtype=getattr(t, str(c.dtype).split(".")[1]))
    return r.requires_grad_(grad)


def _assert_close(c, t, tol):
    import numpy as np
    a = np.array(c.detach().tolist(), dtype=float)
    b = t.detach().double().numpy()
    assert a.shape == b.shape
    assert np.allclose(a, b, rtol=tol, atol=tol), np.abs(a - b).max()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv_random_vs_torch(torch_ref, dtype):
    t = torch_ref
    rng = random.Random(1234 if dtype == "float32" else 99)
    tol = 1e-4 if dtype == "float32" else 1e-10
    for _ in range(60):
        nsp = rng.choice([1, 2])
        transposed = rng.random() < 0.35
        G = rng.choice([1, 1, 2, 3])
        cin, cout = G * rng.randint(1, 3), G * rng.randint(1, 3)
        N = rng.randint(1, 3)
        k = [rng.randint(1, 4) for _ in range(nsp)]
        s = [rng.randint(1, 3) for _ in range(nsp)]
        d = [rng.randint(1, 2) for _ in range(nsp)]
        p = [rng.randint(0, 2) for _ in range(nsp)]
        op = [rng.randint(0, max(s[i], d[i]) - 1) for i in range(nsp)]
        size = [rng.randint(1, 9) for _ in range(nsp)]
        x = ctorch.randn(N, cin, *size, dtype=getattr(ctorch, dtype))
        ws = (cin, cout // G) if transposed else (cout, cin // G)
        w = ctorch.randn(*ws, *k, dtype=x.dtype)
        b = ctorch.randn(cout, dtype=x.dtype) if rng.random() < 0.7 else None

        def call(lib, x, w, b):
            Fn = lib.nn.functional
            if transposed:
                f = Fn.conv_transpose1d if nsp == 1 else Fn.conv_transpose2d
                return f(x, w, b, s, p, op, G, d)
            f = Fn.conv1d if nsp == 1 else Fn.conv2d
            return f(x, w, b, s, p, d, G)

        xt, wt = _to_torch(t, x, True), _to_torch(t, w, True)
        bt = _to_torch(t, b, True) if b is not None else None
        try:
            yt = call(t, xt, wt, bt)
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as info:
                call(ctorch, x, w, b)
            assert str(info.value) == str(e)
            continue
        xc, wc = x.requires_grad_(True), w.requires_grad_(True)
        bc = b.requires_grad_(True) if b is not None else None
        yc = call(ctorch, xc, wc, bc)
        _assert_close(yc, yt, tol)
        g = ctorch.randn(*yc.shape, dtype=yc.dtype)
        yc.backward(g)
        yt.backward(_to_torch(t, g))
        _assert_close(xc.grad, xt.grad, tol)
        _assert_close(wc.grad, wt.grad, tol)
        if b is not None:
            _assert_close(bc.grad, bt.grad, tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pool_random_vs_torch(torch_ref, dtype):
    t = torch_ref
    rng = random.Random(7 if dtype == "float32" else 8)
    for _ in range(60):
        shape = [rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 9), rng.randint(1, 9)]
        if rng.random() < 0.3:
            shape = shape[1:]
        x = ctorch.randn(*shape, dtype=getattr(ctorch, dtype))
        k = (rng.randint(1, 4), rng.randint(1, 4))
        s = rng.choice([None, (rng.randint(1, 3), rng.randint(1, 3))])
        p = (rng.randint(0, k[0] // 2), rng.randint(0, k[1] // 2))
        # torch 1.13 indexes outside the input when a dilated window starts
        # in the padding and sees no element: avoid dilation with padding
        d = (1, 1) if p != (0, 0) else (rng.randint(1, 2), rng.randint(1, 2))
        cm, cip = rng.random() < 0.5, rng.random() < 0.5
        os_ = (rng.randint(1, 6), rng.choice([None, rng.randint(1, 6)]))
        calls = [
            (True, lambda Fn, v: Fn.max_pool2d(v, k, s, p, d, cm, True)),
            (True, lambda Fn, v: Fn.avg_pool2d(v, k, s, p, cm, cip)),
            (True, lambda Fn, v: Fn.adaptive_avg_pool2d(v, os_)),
            (True, lambda Fn, v: Fn.adaptive_max_pool2d(v, os_, True)),
            (True, lambda Fn, v: Fn.max_pool1d(v.flatten(0, -2), k[1], None, p[1],
                                               1, cm, True)),
            (True, lambda Fn, v: Fn.avg_pool1d(v.flatten(0, -2), k[1], None, p[1], cm, cip)),
            (False, lambda Fn, v: Fn.unfold(v, k, d, p, s or 1)),
            (False, lambda Fn, v: Fn.interpolate(v if v.dim() == 4 else v[None],
                                                 scale_factor=rng_sf, mode="nearest")),
            (False, lambda Fn, v: Fn.interpolate(v if v.dim() == 4 else v[None],
                                                 size=os_[0], mode="bilinear",
                                                 align_corners=cm)),
        ]
        rng_sf = rng.choice([0.5, 1.5, 2, 3, 1.7])
        for exact, f in calls:
            xt = _to_torch(t, x, True)
            try:
                rt = f(t.nn.functional, xt)
            except RuntimeError as e:
                with pytest.raises(RuntimeError) as info:
                    f(F, x.clone().requires_grad_(True))
                assert str(info.value) == str(e)
                continue
            xc = x.clone().requires_grad_(True)
            rc = f(F, xc)
            if isinstance(rt, tuple):
                assert rc[1].tolist() == rt[1].tolist()
                rc, rt = rc[0], rt[0]
            if exact and "max" in repr(rt.grad_fn).lower():
                assert rc.tolist() == rt.tolist()
            else:
                _assert_close(rc, rt, 1e-5 if dtype == "float32" else 1e-12)
            g = ctorch.randn(*rc.shape, dtype=rc.dtype)
            rc.backward(g)
            rt.backward(_to_torch(t, g))
            _assert_close(xc.grad, xt.grad, 1e-5 if dtype == "float32" else 1e-12)


def test_double_backward_vs_torch(torch_ref):
    t = torch_ref
    ctorch.manual_seed(3)
    x = ctorch.randn(2, 4, 6, 5, dtype=ctorch.float64)
    w = ctorch.randn(6, 2, 3, 2, dtype=ctorch.float64)

    def f(lib, x, w):
        Fn = lib.nn.functional
        y = Fn.conv2d(x, w, stride=(2, 1), padding=1, groups=2)
        y = Fn.max_pool2d(y, 2, 1) + Fn.avg_pool2d(y, 2, 1)
        y = Fn.interpolate(y, scale_factor=2, mode="bilinear")
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        return (gx * gx).sum() + (gw * gw).sum()

    xc, wc = x.requires_grad_(True), w.requires_grad_(True)
    xt, wt = _to_torch(t, x, True), _to_torch(t, w, True)
    f(ctorch, xc, wc).backward()
    f(t, xt, wt).backward()
    _assert_close(xc.grad, xt.grad, 1e-9)
    _assert_close(wc.grad, wt.grad, 1e-9)


def test_modules_vs_torch(torch_ref):
    """Seeded modules are initialized as torch's and compute the same."""
    t = torch_ref
    makers = [
        lambda lib: lib.nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2), dilation=2),
        lambda lib: lib.nn.Conv2d(4, 4, 3, padding="same", groups=4, padding_mode="circular"),
        lambda lib: lib.nn.Conv1d(3, 2, 4, padding=2, padding_mode="replicate"),
        lambda lib: lib.nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1, groups=1),
    ]
    for make in makers:
        ctorch.manual_seed(11)
        t.manual_seed(11)
        mc, mt = make(ctorch), make(t)
        for (kc, vc), (kt, vt) in zip(mc.state_dict().items(), mt.state_dict().items()):
            assert kc == kt and vc.tolist() == vt.tolist()
        x = ctorch.randn(2, mc.in_channels, 7, 6)
        if isinstance(mc, nn.Conv1d):
            x = x[:, :, 0]
        _assert_close(mc(x), mt(_to_torch(t, x)), 1e-5)


# --- the float32 kernels (aten/cpu/conv_avx512.c, conv_tiled.c) ---------------------
# Where the CPU has AVX-512, float32 convolution runs on ctorch's own kernels
# (implicit columns where the window steps one input column at a time,
# explicit tiles otherwise); float64 stays on OpenBLAS.  The shapes below
# reach each way through them: rows of output that are not whole 16-lane
# vectors, weight tiles over many vectors and several samples, few output
# channels (4-row panels), 1..7 input channels per group (each weight tile
# shape), padding wider than the dilated kernel, strides on one dim or the
# other, 1x1, long 1-D signals, transposed convolutions with bias, a single
# sample cut across threads.

F32_CASES = [
    # name, transposed, N, cin, cout, size, kernel, stride, padding, dilation,
    # groups, output_padding
    ("rows_not_whole_vectors", False, 2, 5, 12, (23, 37), (3, 3), 1, 1, 1, 1, 0),
    ("many_vectors_and_samples", False, 9, 6, 10, (40, 70), (3, 3), 1, 1, 1, 1, 0),
    ("few_output_channels", False, 3, 7, 3, (20, 20), (5, 5), 1, 2, 1, 1, 0),
    ("one_channel_per_group", False, 2, 8, 8, (17, 19), (3, 3), 1, 1, 1, 8, 0),
    ("two_channels_per_group", False, 2, 8, 12, (17, 19), (3, 3), 1, 1, 1, 4, 0),
    ("four_channels_per_group", False, 2, 8, 16, (12, 33), (3, 2), 1, (1, 0), 1, 2, 0),
    ("seven_channels", False, 2, 7, 9, (12, 18), (2, 3), 1, 0, 1, 1, 0),
    ("padding_past_the_kernel", False, 2, 4, 9, (11, 13), (3, 3), 1, 5, 2, 1, 0),
    ("dilated", False, 2, 6, 8, (21, 25), (3, 3), 1, 2, 2, 1, 0),
    ("stride_on_height", False, 3, 5, 8, (25, 30), (3, 3), (2, 1), 1, 1, 1, 0),
    ("stride_on_width", False, 3, 5, 8, (25, 30), (3, 3), (1, 2), 1, 1, 1, 0),
    ("stride_both", False, 3, 5, 8, (25, 30), (4, 3), 3, 2, 1, 1, 0),
    ("one_by_one", False, 4, 32, 24, (9, 21), (1, 1), 1, 0, 1, 1, 0),
    ("conv1d_long", False, 3, 4, 6, (2000,), (7,), 1, 3, 1, 1, 0),
    ("conv1d_dilated_strided", False, 3, 4, 6, (300,), (5,), 2, 4, 3, 2, 0),
    ("single_sample_plane", False, 1, 8, 16, (64, 64), (3, 3), 1, 1, 1, 1, 0),
    ("transposed_stride_1", True, 2, 6, 8, (14, 19), (3, 3), 1, 1, 1, 2, 0),
    ("transposed_stride_2", True, 2, 8, 6, (9, 10), (4, 4), 2, 1, 1, 2, 1),
    ("transposed_conv1d", True, 3, 5, 4, (100,), (5,), 1, 2, 2, 1, 0),
]


def _f32_call(case, x, w, b):
    _, transposed, _, _, _, size, _, s, p, d, G, op = case
    nsp = len(size)
    if transposed:
        f = F.conv_transpose1d if nsp == 1 else F.conv_transpose2d
        return f(x, w, b, s, p, op, G, d)
    f = F.conv1d if nsp == 1 else F.conv2d
    return f(x, w, b, s, p, d, G)


def _f32_run(case, dtype, seed=5):
    """Output and input / weight / bias gradients of the case, from data
    drawn in float32 (and widened for float64)."""
    _, transposed, N, cin, cout, size, k, _, _, _, G, _ = case
    gen = ctorch.Generator().manual_seed(seed)
    x = ctorch.randn(N, cin, *size, generator=gen)
    ws = (cin, cout // G) if transposed else (cout, cin // G)
    w = ctorch.randn(*ws, *k, generator=gen)
    b = ctorch.randn(cout, generator=gen)
    x, w, b = (t.to(dtype).requires_grad_(True) for t in (x, w, b))
    y = _f32_call(case, x, w, b)
    g = ctorch.randn(*y.shape, generator=gen).to(dtype)
    y.backward(g)
    return [y.detach(), x.grad, w.grad, b.grad]


@pytest.mark.parametrize("case", F32_CASES, ids=[c[0] for c in F32_CASES])
def test_float32_kernels_vs_float64(case):
    import numpy as np
    for got, ref in zip(_f32_run(case, ctorch.float32), _f32_run(case, ctorch.float64)):
        a = np.array(got.tolist(), dtype=float)
        r = np.array(ref.tolist(), dtype=float)
        assert a.shape == r.shape
        scale = max(1.0, float(np.abs(r).max()))
        assert np.abs(a - r).max() <= 2e-5 * scale, (np.abs(a - r).max(), scale)


@pytest.mark.parametrize("case", F32_CASES[:3] + F32_CASES[13:17],
                         ids=[c[0] for c in F32_CASES[:3] + F32_CASES[13:17]])
def test_float32_kernels_same_on_any_thread_count(case):
    """Every output element is summed by one unit of work in one order, so
    the results do not depend on the threads (where the window steps one
    input column at a time; the explicit weight product sums per thread)."""
    before = ctorch.get_num_threads()
    try:
        ctorch.set_num_threads(1)
        one = [t.tolist() for t in _f32_run(case, ctorch.float32)]
        ctorch.set_num_threads(2)
        two = [t.tolist() for t in _f32_run(case, ctorch.float32)]
        again = [t.tolist() for t in _f32_run(case, ctorch.float32)]
    finally:
        ctorch.set_num_threads(before)
    assert one == two == again


def test_float32_blas_path_agrees():
    """CT_CONV_AVX512=0 sends float32 to the im2col + OpenBLAS path; both
    agree to float32 rounding."""
    import json
    import subprocess
    import numpy as np
    root = os.path.dirname(os.path.dirname(os.path.abspath(ctorch.__file__)))
    script = (
        "import json, sys; sys.path[:0] = [%r, %r]; import test_nn_conv as m; "
        "print(json.dumps([[t.tolist() for t in m._f32_run(c, m.ctorch.float32)] "
        "for c in m.F32_CASES[:4] + m.F32_CASES[10:12] + m.F32_CASES[16:]]))"
        % (root, HERE))
    env = dict(os.environ, CT_CONV_AVX512="0")
    out = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                         capture_output=True, text=True, cwd=HERE).stdout
    cases = F32_CASES[:4] + F32_CASES[10:12] + F32_CASES[16:]
    for case, blas in zip(cases, json.loads(out)):
        for got, ref in zip(_f32_run(case, ctorch.float32), blas):
            a = np.array(got.tolist(), dtype=float)
            r = np.array(ref, dtype=float)
            scale = max(1.0, float(np.abs(r).max()))
            assert np.abs(a - r).max() <= 2e-5 * scale, case[0]


@pytest.mark.parametrize("case", F32_CASES, ids=[c[0] for c in F32_CASES])
def test_float32_kernels_vs_torch(torch_ref, case):
    t = torch_ref
    _, transposed, N, cin, cout, size, k, s, p, d, G, op = case
    got = _f32_run(case, ctorch.float32)
    gen = ctorch.Generator().manual_seed(5)
    x = ctorch.randn(N, cin, *size, generator=gen)
    ws = (cin, cout // G) if transposed else (cout, cin // G)
    w = ctorch.randn(*ws, *k, generator=gen)
    b = ctorch.randn(cout, generator=gen)
    xt, wt, bt = (_to_torch(t, v, True) for v in (x, w, b))
    Ft = t.nn.functional
    if transposed:
        f = Ft.conv_transpose1d if len(size) == 1 else Ft.conv_transpose2d
        yt = f(xt, wt, bt, s, p, op, G, d)
    else:
        f = Ft.conv1d if len(size) == 1 else Ft.conv2d
        yt = f(xt, wt, bt, s, p, d, G)
    yt.backward(_to_torch(t, ctorch.randn(*yt.shape, generator=gen)))
    for c, r in zip(got, [yt, xt.grad, wt.grad, bt.grad]):
        _assert_close(c, r, 1e-4 * max(1.0, float(r.abs().max())))
