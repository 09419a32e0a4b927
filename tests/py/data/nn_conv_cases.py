"""Fixed inputs and the calls of convolution, pooling, unfold / fold and
interpolate whose results test_nn_conv.py compares with PyTorch 1.13's,
recorded in nn_conv_expected.py by gen_nn_conv_expected.py.

A runner takes the module (ctorch or torch) and returns plain Python
values: the grad_fn name, the output (and indices), and the gradients of
a fixed weighting of the output, so the same code makes the records and
checks them.  Inputs are float64 so the records are exact to print."""
import math


def wave(shape, a=1.3, b=0.2, scale=2.0):
    """Deterministic values for a tensor of `shape` (a flat list)."""
    n = 1
    for s in shape:
        n *= s
    return [scale * math.sin(a * i + b) + 0.1 * (i % 3) for i in range(n)]


def tensor(m, shape, a=1.3, b=0.2, grad=True):
    t = m.tensor(wave(shape, a, b), dtype=m.float64).reshape(shape)
    return t.requires_grad_(grad)


def _weighted_grads(m, out, inputs):
    """Gradients of sum(out * wave(out.shape)) for the inputs."""
    wt = m.tensor(wave(list(out.shape), 0.7, 1.1, 1.0), dtype=out.dtype)
    (out * wt.reshape(out.shape)).sum().backward()
    return [t.grad.flatten().tolist() if t.grad is not None else None for t in inputs]


# (name, input shape, weight shape, bias size (0: none), call(F, x, w, b))
CONV_CASES = [
    ("conv2d", [2, 3, 5, 4], [4, 3, 3, 2], 4,
     lambda F, x, w, b: F.conv2d(x, w, b, padding=1)),
    ("conv2d_strided_groups", [1, 4, 7, 6], [6, 2, 3, 3], 6,
     lambda F, x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                 groups=2)),
    ("conv2d_same_even", [1, 2, 5, 5], [3, 2, 2, 2], 0,
     lambda F, x, w, b: F.conv2d(x, w, b, padding="same")),
    ("conv2d_unbatched", [2, 4, 4], [3, 2, 2, 2], 3,
     lambda F, x, w, b: F.conv2d(x, w, b, stride=2)),
    ("conv1d", [2, 2, 9], [3, 2, 3], 3,
     lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2)),
    ("conv_transpose2d", [1, 4, 3, 3], [4, 3, 3, 2], 6,
     lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                           output_padding=1, groups=2)),
    ("conv_transpose1d", [2, 3, 4], [3, 2, 3], 2,
     lambda F, x, w, b: F.conv_transpose1d(x, w, b, stride=3, dilation=2)),
]


def run_conv(m, case):
    name, xs, ws, nb, call = case
    x = tensor(m, xs)
    w = tensor(m, ws, 0.9, 0.5)
    b = tensor(m, [nb], 0.3, 0.1) if nb else None
    out = call(m.nn.functional, x, w, b)
    grads = _weighted_grads(m, out, [x, w] + ([b] if b is not None else []))
    return type(out.grad_fn).__name__, list(out.shape), out.flatten().tolist(), grads


# (name, input shape, call(F, x)) -> output (or (output, indices))
POOL_CASES = [
    ("max_pool2d", [2, 2, 5, 6], lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True)),
    ("max_pool2d_dilated_ceil", [1, 2, 7, 7],
     lambda F, x: F.max_pool2d(x, (2, 3), (2, 1), 0, (2, 1), True, True)),
    ("max_pool2d_unbatched", [2, 4, 5], lambda F, x: F.max_pool2d(x, 2)),
    ("avg_pool2d", [2, 2, 5, 6], lambda F, x: F.avg_pool2d(x, 3, 2, 1)),
    ("avg_pool2d_ceil_nopad", [1, 2, 5, 5],
     lambda F, x: F.avg_pool2d(x, 2, 2, 1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d_divisor", [1, 1, 4, 4], lambda F, x: F.avg_pool2d(x, 3, 1, divisor_override=5)),
    ("adaptive_avg_pool2d", [2, 2, 7, 5], lambda F, x: F.adaptive_avg_pool2d(x, (3, 2))),
    ("adaptive_avg_pool2d_1", [2, 2, 3, 3], lambda F, x: F.adaptive_avg_pool2d(x, 1)),
    ("adaptive_max_pool2d", [2, 2, 7, 5],
     lambda F, x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True)),
    ("max_pool1d", [2, 3, 9], lambda F, x: F.max_pool1d(x, 3, 2, 1, return_indices=True)),
    ("avg_pool1d", [2, 3, 9], lambda F, x: F.avg_pool1d(x, 4, 3, 2, True, False)),
    ("adaptive_avg_pool1d", [2, 3, 9], lambda F, x: F.adaptive_avg_pool1d(x, 4)),
    ("adaptive_max_pool1d", [2, 3, 9],
     lambda F, x: F.adaptive_max_pool1d(x, 4, return_indices=True)),
    ("unfold", [2, 2, 4, 5], lambda F, x: F.unfold(x, (2, 3), dilation=1, padding=1, stride=2)),
    ("fold", [2, 8, 9], lambda F, x: F.fold(x, (4, 5), 2, padding=1, stride=2)),
    ("interpolate_nearest", [1, 2, 3, 4], lambda F, x: F.interpolate(x, scale_factor=1.5)),
    ("interpolate_nearest_size", [1, 2, 3, 4], lambda F, x: F.interpolate(x, size=(5, 2))),
    ("interpolate_bilinear", [1, 2, 3, 4],
     lambda F, x: F.interpolate(x, size=(5, 7), mode="bilinear")),
    ("interpolate_bilinear_ac", [1, 2, 3, 4],
     lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)),
    ("interpolate_linear", [2, 2, 5], lambda F, x: F.interpolate(x, 8, mode="linear")),
    ("interpolate_area", [1, 2, 6, 5], lambda F, x: F.interpolate(x, size=(4, 2), mode="area")),
]


def run_pool(m, case):
    name, xs, call = case
    x = tensor(m, xs)
    r = call(m.nn.functional, x)
    idx = None
    if isinstance(r, tuple):
        r, idx = r
        idx = idx.flatten().tolist()
    grads = _weighted_grads(m, r, [x])
    return type(r.grad_fn).__name__, list(r.shape), r.flatten().tolist(), idx, grads


def module_init(m):
    """Seeded default initialization of each module: parameter values."""
    out = {}
    for name, make in [
            ("Conv1d", lambda nn: nn.Conv1d(3, 4, 3)),
            ("Conv2d", lambda nn: nn.Conv2d(3, 4, (2, 3), groups=1)),
            ("Conv2d_groups_nobias", lambda nn: nn.Conv2d(4, 6, 3, groups=2, bias=False)),
            ("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(4, 2, 3, groups=2)),
            ("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(2, 3, 2))]:
        m.manual_seed(7)
        mod = make(m.nn)
        out[name] = {k: v.flatten().tolist() for k, v in mod.state_dict().items()}
    return out
