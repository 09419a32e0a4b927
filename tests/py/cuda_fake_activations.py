"""The parametrized activations on the pretend device (imported by
cuda_fake_cases.py): every op of the `activation` kernel (aten/cuda/
activation.cu, whose expressions aten/activation_math.h shares with the
CPU's loops) and the integer composites, against the CPU bit for bit."""
import ctorch as torch
import ctorch.nn.functional as F

from cuda_fake_cases import kernels, raises, same

BASE = [-30.0, -3.0, -2.5, -1.0, -0.25, -0.0, 0.0, 0.5, 1.0, 2.0, 2.99, 3.0, 7.0, 25.0,
        float("nan"), float("inf"), -float("inf")]

# (name, call): each op of CT_FORALL_ACTIVATIONS, some with other parameters
CALLS = [
    ("leaky_relu", lambda t: F.leaky_relu(t, 0.1)),
    ("elu", lambda t: F.elu(t)),
    ("elu_alpha", lambda t: F.elu(t, 0.7)),
    ("selu", lambda t: F.selu(t)),
    ("celu", lambda t: F.celu(t, 1.5)),
    ("softplus", lambda t: F.softplus(t)),
    ("softplus_beta", lambda t: F.softplus(t, 2.0, 4.0)),
    ("hardtanh", lambda t: F.hardtanh(t, -0.5, 1.0)),
    ("hardtanh_crossed", lambda t: F.hardtanh(t, 2.0, 1.0)),
    ("relu6", lambda t: F.relu6(t)),
    ("threshold", lambda t: F.threshold(t, 0.5, -2.0)),
    ("hardsigmoid", lambda t: F.hardsigmoid(t)),
    ("hardswish", lambda t: F.hardswish(t)),
    ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")),
    ("mish", lambda t: F.mish(t)),
    ("softshrink", lambda t: F.softshrink(t, 0.5)),
    ("hardshrink", lambda t: F.hardshrink(t, 0.5)),
    ("logsigmoid", lambda t: F.logsigmoid(t)),
    ("module_elu", lambda t: torch.nn.ELU(0.3)(t)),
    ("module_softplus", lambda t: torch.nn.Softplus(0.5, 10)(t)),
    ("module_mish", lambda t: torch.nn.Mish()(t)),
    ("module_leaky", lambda t: torch.nn.LeakyReLU(0.3)(t)),
]
# the in-place forms
INPLACE = [
    ("elu_", lambda t: F.elu(t, 1.0, True)),
    ("selu_", lambda t: F.selu(t, True)),
    ("leaky_relu_", lambda t: F.leaky_relu(t, 0.2, True)),
    ("hardtanh_", lambda t: F.hardtanh(t, -1.0, 1.0, True)),
    ("hardswish_", lambda t: F.hardswish(t, True)),
    ("hardsigmoid_", lambda t: F.hardsigmoid(t, True)),
    ("threshold_", lambda t: F.threshold(t, 0.0, 9.0, True)),
    ("mish_", lambda t: F.mish(t, True)),
]
FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def case_activations_on_device():
    """Every activation and its gradient on the device, in each floating
    dtype, is the CPU's bit for bit (the pretend kernel runs the CPU's
    loops over aten/activation_math.h, the expressions activation.cu
    compiles), each forward and backward one `activation` kernel."""
    base = torch.tensor([BASE])
    grad = torch.linspace(-1, 1, len(BASE)).reshape(1, len(BASE))
    for dt in FLOATS:
        rg = dt in (torch.float32, torch.float64)
        for name, f in CALLS:
            xc = base.to(dt).clone().requires_grad_(rg)
            xd = base.to(dt).cuda().requires_grad_(rg)
            before = kernels("activation")
            yc, yd = f(xc), f(xd)
            assert yd.device.type == "cuda", name
            same(yd.detach(), yc.detach())
            if name != "selu":      # selu is elu plus a scale: one kernel and a mul
                assert kernels("activation") == before + 1, (name, dt)
            if rg:
                yc.backward(grad.to(dt))
                yd.backward(grad.to(dt).cuda())
                same(xd.grad, xc.grad)
                assert yc.grad_fn is None or type(yd.grad_fn).__name__ == type(yc.grad_fn).__name__


def case_activation_gradients_on_device():
    """Second derivatives, broadcast (sum) gradients, non-contiguous
    inputs and in-place forms on the device."""
    x0 = torch.tensor([BASE[:14]]).repeat(3, 1) * torch.tensor([[1.0], [0.5], [-2.0]])
    for name, f in CALLS:
        xc = x0.clone().requires_grad_()
        xd = x0.cuda().requires_grad_()
        # the gradient of a sum: one value broadcast
        (gc,) = torch.autograd.grad(f(xc).sum(), xc, create_graph=True)
        (gd,) = torch.autograd.grad(f(xd).sum(), xd, create_graph=True)
        same(gd.detach(), gc.detach())
        (ggc,) = torch.autograd.grad((gc * gc).sum(), xc, allow_unused=True)
        (ggd,) = torch.autograd.grad((gd * gd).sum(), xd, allow_unused=True)
        assert (ggc is None) == (ggd is None), name
        if ggc is not None:
            same(ggd, ggc)
        # a transposed, strided input (the CPU's own strided and
        # contiguous loops may differ in the last place: libmvec)
        tc, td = x0.t()[::2], x0.cuda().t()[::2]
        yd, yc = f(td).cpu(), f(tc)
        assert yd.shape == yc.shape and yd.stride() == yc.stride(), name
        assert torch.allclose(yd, yc, rtol=1e-6, atol=0, equal_nan=True), name
    for name, f in INPLACE:
        xc, xd = x0.clone(), x0.cuda()
        rc, rd = f(xc), f(xd)
        assert rd is xd, name
        same(xd, xc)
        same(rd, rc)
    # in place on a leaf's non-leaf copy keeps the graph (ELU's in-place node)
    xd = x0.cuda().requires_grad_()
    y = F.elu(xd * 1.0, 1.0, True)
    assert type(y.grad_fn).__name__ == "EluBackward1", type(y.grad_fn).__name__
    y.sum().backward()
    xc = x0.clone().requires_grad_()
    F.elu(xc * 1.0, 1.0, True).sum().backward()
    same(xd.grad, xc.grad)


def case_integer_and_bad_activations_on_device():
    """hardtanh and threshold of integer tensors (parameters truncated to
    the type) compose device kernels; the other activations refuse integer
    tensors with the CPU's message, and a gradient on another device is
    refused."""
    for dt in (torch.int64, torch.int32, torch.int8, torch.uint8):
        xi = torch.tensor([-5, 0, 3, 9, 100, -100]).to(dt)
        for f in (lambda t: F.hardtanh(t, -2, 4), lambda t: F.threshold(t, 1, 7),
                  lambda t: F.hardtanh(t, -200, 300), lambda t: F.threshold(t, 2.7, -1.5),
                  lambda t: F.relu6(t)):
            same(f(xi.cuda()), f(xi))
        xd = xi.cuda()
        F.hardtanh(xd, 0, 5, True)
        same(xd, F.hardtanh(xi, 0, 5))
    for f in (F.elu, F.softplus, F.mish, F.hardswish, lambda t: F.leaky_relu(t, 0.1)):
        cpu = raises(RuntimeError, lambda: f(torch.tensor([1, 2])))
        raises(RuntimeError, lambda: f(torch.tensor([1, 2]).cuda()), cpu)
    x = torch.tensor([1.0, -1.0]).cuda().requires_grad_()
    y = F.elu(x)
    raises(RuntimeError, lambda: y.backward(torch.ones(2)))


def case_rrelu_on_device():
    """rrelu draws its slopes on the input's device: in training each
    negative element is scaled by a slope in [lower, upper] (its gradient
    that slope), in evaluation by their mean."""
    torch.manual_seed(3)
    x = torch.linspace(-4, 4, 4001).cuda().requires_grad_()
    y = F.rrelu(x, 0.1, 0.3, training=True)
    assert y.device.type == "cuda"
    y.sum().backward()
    xc, yc, gc = x.detach().cpu(), y.detach().cpu(), x.grad.cpu()
    neg = xc < 0
    slope = yc[neg] / xc[neg]
    assert float(slope.min()) >= 0.1 - 1e-6 and float(slope.max()) <= 0.3 + 1e-6
    assert abs(float(slope.mean()) - 0.2) < 0.01
    assert torch.equal(gc[neg], slope) or torch.allclose(gc[neg], slope, rtol=1e-5)
    assert torch.equal(yc[~neg], xc[~neg]) and bool((gc[~neg] == 1).all())
    same(F.rrelu(x.detach(), 0.1, 0.3), F.leaky_relu(xc, 0.2))
    xd = torch.tensor([-1.0, 2.0]).cuda()
    assert F.rrelu(xd, training=True, inplace=True) is xd


def case_einsum_and_nll_double_backward_on_device():
    """The constants autograd and einsum make (ones for a summed label, an
    identity for a repeated one, nll's pattern of ones) are made on the
    operands' device: values and gradients equal the CPU's."""
    torch.manual_seed(0)
    a, b = torch.randn(3, 4), torch.randn(4)
    sq = torch.randn(3, 3)
    for eq, ops in (("ij->i", [a]), ("ij->", [a]), ("ii->i", [sq]), ("ij,j->i", [a, b]),
                    ("ij,j->", [a, b]), ("ii->", [sq])):
        xc = [t.clone().requires_grad_() for t in ops]
        xd = [t.cuda().requires_grad_() for t in ops]
        yc, yd = torch.einsum(eq, *xc), torch.einsum(eq, *xd)
        assert torch.allclose(yd.cpu(), yc.detach(), atol=1e-6), eq
        (yc * yc).sum().backward()
        (yd * yd).sum().backward()
        for c, d in zip(xc, xd):
            assert d.grad.device.type == "cuda", eq
            assert torch.allclose(d.grad.cpu(), c.grad, atol=1e-5), eq
    x0, t0 = torch.randn(4, 5), torch.tensor([1, 0, 4, 2])
    for red in ("none", "mean", "sum"):
        xs = [x0.clone().requires_grad_(), x0.cuda().requires_grad_()]
        gg = []
        for x, t in zip(xs, (t0, t0.cuda())):
            loss = F.nll_loss(F.log_softmax(x, 1), t, reduction=red)
            w = torch.linspace(0.5, 2, 4).to(x.device) if red == "none" else 1.0
            (g,) = torch.autograd.grad((loss * w).sum(), x, create_graph=True)
            (g2,) = torch.autograd.grad((g * g).sum(), x)
            gg.append(g2)
        assert gg[1].device.type == "cuda"
        assert torch.allclose(gg[1].cpu(), gg[0], atol=1e-6), red


def case_root_gradient_on_another_device():
    """A gradient handed to backward() or autograd.grad for a device output
    must be on that device (PyTorch's validate_outputs), except a 0-dim
    one, which is moved over; before, a CPU gradient flowed through and
    left x.grad on the CPU."""
    x = torch.randn(2, 2).cuda().requires_grad_()
    msg = "invalid gradient at index 0 - expected device cuda:0 but got cpu"
    raises(RuntimeError, lambda: (x * 2).backward(torch.ones(2, 2)), msg)
    raises(RuntimeError, lambda: torch.autograd.grad(x * 2, x, torch.ones(2, 2)), msg)
    raises(RuntimeError, lambda: F.avg_pool2d(x.view(1, 1, 2, 2), 2).backward(
        torch.ones(1, 1, 1, 1)), msg)
    raises(RuntimeError, lambda: torch.autograd.grad([x.sum(), x * 2], [x],
                                                     [torch.ones(()).cuda(), torch.ones(2, 2)]),
           msg.replace("index 0", "index 1"))
    assert x.grad is None
    (x * 2).sum().backward(torch.tensor(3.0))
    assert x.grad.device.type == "cuda"
    same(x.grad, torch.full((2, 2), 6.0))
    y = torch.ones(2, 2).requires_grad_()
    raises(RuntimeError, lambda: (y * 2).backward(torch.ones(2, 2).cuda()),
           "invalid gradient at index 0 - expected device cpu but got cuda:0")
