"""CUDA tensors over the pretend device (tests/fake_cuda/part.c), run by
test_cuda_fake.py in a process started with CTORCH_CUDA_PART set.

The pretend device's memory is host memory that is unreadable outside its
kernels, so any host code reading a device tensor's data faults and kills
this process.  Each case_* function asserts; `main` runs them all and prints
one JSON line {name: "ok" | traceback}.
"""
import ctypes
import json
import os
import sys
import traceback

import ctorch as torch
import ctorch.nn.functional as F

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
_fake = []


def kernels(name):
    """How many times the pretend part ran kernel `name`."""
    if not _fake:
        _fake.append(ctypes.CDLL(os.environ["CTORCH_CUDA_PART"]))
        _fake[0].fake_cuda_kernel_count.restype = ctypes.c_long
    return _fake[0].fake_cuda_kernel_count(name.encode())


def trains_alike(make_model, make_opt, make_data, loss_fn, steps=3, tol=1e-5):
    """A model trained `steps` steps on the CPU and on the device, from the
    same seed: the same last loss and parameters, to tol."""
    def run(device):
        torch.manual_seed(0)
        model = make_model().to(device)
        opt = make_opt(model.parameters())
        x, y = (t.to(device) for t in make_data())
        for _ in range(steps):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        return loss.item(), [p.detach().cpu() for p in model.parameters()]

    lc, pc = run("cpu")
    ld, pd = run("cuda")
    assert abs(lc - ld) < tol, (lc, ld)
    for a, b in zip(pc, pd):
        assert torch.allclose(a, b, atol=tol), (a, b)


def case_names():
    return sorted(n for n in globals() if n.startswith("case_"))


def same(dev_t, cpu_t):
    assert dev_t.device.type == "cuda", dev_t.device
    h = dev_t.cpu()
    assert h.device.type == "cpu"
    assert h.dtype == cpu_t.dtype, (h.dtype, cpu_t.dtype)
    assert h.shape == cpu_t.shape, (h.shape, cpu_t.shape)
    # NaN compares equal to NaN here: bit patterns are what is checked
    assert repr(h.tolist()) == repr(cpu_t.tolist()), (h.tolist(), cpu_t.tolist())


def raises(exc, fn, text=None):
    try:
        fn()
    except exc as e:
        if text is not None:
            assert str(e) == text, repr(str(e))
        return str(e)
    raise AssertionError("no %s raised" % exc.__name__)


def sample(dtype):
    x = torch.tensor([[0.0, 1.5, -2.0, 3.25], [100.0, -0.5, 7.0, 0.0], [1.0, 2.0, 3.0, 4.0]])
    if dtype == torch.bool:
        return x != 0
    if dtype == torch.uint8:
        return x.abs().to(dtype)
    return x.to(dtype)


# --- moving and copying -------------------------------------------------------

def case_roundtrip_every_dtype_and_layout():
    for dt in DTYPES:
        x = sample(dt)
        for v in (x, x.t(), x[:, 1:3], x[1:, ::2], x[0].expand(3, 4), x[2]):
            before = kernels("copy")
            y = v.cuda()
            assert y.device == torch.device("cuda:0") and y.is_cuda
            assert y.stride() == v.stride() or not v.is_contiguous()
            same(y, v.contiguous())
            # the strided views were laid out by the device copy kernel
            assert kernels("copy") >= before


def case_strided_device_copies():
    x = torch.arange(24.).reshape(2, 3, 4)
    y = x.cuda()
    same(y.permute(2, 0, 1).contiguous(), x.permute(2, 0, 1).contiguous())
    z = torch.zeros(4, 3, device="cuda")
    before = kernels("copy")
    z.t().copy_(y[1])                       # device to device, into a transposed view
    assert kernels("copy") == before + 1
    same(z, x[1].t().contiguous())
    w = torch.zeros(3, 4, device="cuda")
    w.copy_(torch.tensor([1., 2., 3., 4.]))  # host row broadcast into device memory
    same(w, torch.tensor([1., 2., 3., 4.]).expand(3, 4).contiguous())
    h = torch.zeros(4, 3)
    h.t().copy_(y[0])                       # device into a strided host view
    assert h.t().tolist() == x[0].tolist()


def case_dtype_conversion_on_device():
    for src in DTYPES:
        for dst in DTYPES:
            x = sample(src)
            same(x.cuda().to(dst), x.to(dst))


def case_between_devices():
    x = torch.arange(6).reshape(2, 3)
    a = x.cuda(0)
    b = a.to("cuda:1")
    assert str(b.device) == "cuda:1"
    same(b, x)
    c = torch.empty(3, 2, dtype=torch.int64, device="cuda:1")
    c.copy_(a.t())
    same(c, x.t().contiguous())
    assert a.cuda(0) is a and a.to("cuda:0") is a
    assert a.cpu().cpu().device.type == "cpu"


def case_factories():
    same(torch.zeros(2, 3, device="cuda"), torch.zeros(2, 3))
    same(torch.ones(2, dtype=torch.int32, device="cuda:1"), torch.ones(2, dtype=torch.int32))
    same(torch.full((2, 2), 7.5, device=torch.device("cuda", 0)), torch.full((2, 2), 7.5))
    same(torch.tensor([[1, 2], [3, 4]], device="cuda"), torch.tensor([[1, 2], [3, 4]]))
    same(torch.arange(5, device="cuda"), torch.arange(5))
    assert torch.zeros(1, device="cuda:1").device.index == 1
    y = torch.arange(6.).reshape(2, 3).cuda(1)
    for fn, ref in ((torch.zeros_like, torch.zeros(2, 3)), (torch.ones_like, torch.ones(2, 3))):
        r = fn(y)
        assert r.device.index == 1
        same(r, ref)
    same(torch.full_like(y, 2), torch.full((2, 3), 2.))
    assert torch.empty_like(y).device == y.device
    assert torch.zeros_like(y, device="cpu").device.type == "cpu"
    same(y.new_zeros(2), torch.zeros(2))
    same(y.new_ones(2, 2), torch.ones(2, 2))
    same(y.new_full((3,), 4.), torch.full((3,), 4.))
    same(y.new_tensor([1., 2.]), torch.tensor([1., 2.]))
    torch.cuda.set_device(1)
    try:
        assert torch.zeros(1, device="cuda").device.index == 1
        assert torch.zeros(1).cuda().device.index == 1
    finally:
        torch.cuda.set_device(0)
    # fill_ and zero_ run the fill kernel
    before = kernels("fill")
    z = torch.empty(3, 4, device="cuda")
    z.fill_(0.5)
    z[1].zero_()
    z.t()[0].fill_(True)
    assert kernels("fill") == before + 3
    ref = torch.full((3, 4), 0.5)
    ref[1] = 0
    ref[:, 0] = 1
    same(z, ref)
    b = torch.zeros(2, dtype=torch.bool, device="cuda")
    b.fill_(0.5)
    same(b, torch.tensor([True, True]))


def case_printing():
    assert repr(torch.tensor([1., 2.]).cuda()) == "tensor([1., 2.], device='cuda:0')"
    assert repr(torch.tensor([1, 2], dtype=torch.int32, device="cuda:1")) == \
        "tensor([1, 2], device='cuda:1', dtype=torch.int32)"
    x = torch.tensor([1.5, 2.], requires_grad=True)
    assert repr(x.cuda()) == \
        "tensor([1.5000, 2.0000], device='cuda:0', grad_fn=<ToCopyBackward0>)"
    assert repr(torch.zeros(0, 2, device="cuda")) == \
        "tensor([], device='cuda:0', size=(0, 2))"
    assert str(torch.arange(6).reshape(2, 3).cuda().t()) == \
        "tensor([[0, 3],\n        [1, 4],\n        [2, 5]], device='cuda:0')"


def case_item_tolist():
    y = torch.tensor([[1.5, 2.], [3., 4.]]).cuda()
    assert y[1, 0].item() == 3.0
    assert y.t().tolist() == [[1.5, 3.0], [2.0, 4.0]]
    assert torch.tensor(7, device="cuda").item() == 7


# --- arithmetic ---------------------------------------------------------------

def case_binary_matches_cpu():
    a = torch.tensor([[1., -2., 3.5], [4., 0.25, -6.]])
    b = torch.tensor([2., -4., 0.5])
    ops = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
           lambda x, y: torch.add(x, y, alpha=3), lambda x, y: torch.sub(x, y, alpha=0.5),
           lambda x, y: x.t() * y[:2], lambda x, y: y * 2, lambda x, y: 1 - x,
           lambda x, y: x / 4]
    for op in ops:
        before = kernels("binary")
        same(op(a.cuda(), b.cuda()), op(a, b))
        assert kernels("binary") > before
    for da in (torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float64, torch.bool):
        for db in (torch.int64, torch.float32, torch.bool):
            x, y = sample(da), sample(db)[0]
            for op in (torch.add, torch.mul):
                same(op(x.cuda(), y.cuda()), op(x, y))
            if da != torch.bool or db != torch.bool:
                same(x.cuda() - y.cuda() if db != torch.bool and da != torch.bool
                     else x.cuda() * y.cuda(), x - y if db != torch.bool and da != torch.bool
                     else x * y)
            same(torch.div(x.cuda(), y.cuda()), torch.div(x, y))


def case_binary_in_place_and_out():
    x = torch.arange(6.).reshape(2, 3)
    y = x.cuda()
    y.add_(torch.ones(3, device="cuda"), alpha=2)
    y.mul_(torch.tensor(2.))                # a 0-dim host tensor stands as a number
    y[0].sub_(1)
    same(y, ((x + 2) * 2) - torch.tensor([[1.], [0.]]))
    out = torch.empty(2, 3, dtype=torch.float64, device="cuda")
    torch.mul(y, y, out=out)
    same(out, (((x + 2) * 2) - torch.tensor([[1.], [0.]])).pow(2).double())
    r = torch.empty(0, device="cuda")
    torch.add(y, 1, out=r)                  # resized on the device
    assert r.shape == (2, 3)
    i = torch.arange(4, device="cuda")
    i += 3
    same(i, torch.arange(3, 7))
    raises(RuntimeError, lambda: i.div_(2),
           "result type Float can't be cast to the desired output type Long")


def case_mixed_devices():
    y = torch.ones(3, device="cuda")
    msg = ("Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    raises(RuntimeError, lambda: y + torch.ones(3), msg)
    raises(RuntimeError, lambda: torch.ones(3) * y, msg)
    raises(RuntimeError, lambda: torch.add(y, y, out=torch.empty(3)), msg)
    raises(RuntimeError, lambda: y + torch.ones(3, device="cuda:1"),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cuda:1!")
    raises(RuntimeError, lambda: torch.cat([y, torch.ones(3)]), msg)
    same(torch.cat([y, y * 2]), torch.tensor([1., 1., 1., 2., 2., 2.]))
    same(torch.stack([y, y]).t(), torch.ones(3, 2))
    # a 0-dim CPU tensor is a number beside device tensors
    same(y + torch.tensor(2.), torch.full((3,), 3.))


def case_errors():
    y = torch.ones(2, 2, device="cuda")
    raises(TypeError, y.numpy,
           "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy "
           "the tensor to host memory first.")
    raises(RuntimeError, lambda: torch.zeros(1, device="cuda:7"))
    raises(RuntimeError, lambda: torch.ones(1).cuda(5))
    raises(RuntimeError, lambda: torch.ones(1).cuda("cpu"), "Invalid device, must be cuda device")
    raises(NotImplementedError, lambda: torch.mm(y.long(), y.long()))


def case_no_host_access():
    """Ops without device kernels refuse device tensors instead of reading
    them (a read would fault here)."""
    x = torch.arange(1., 13.).reshape(3, 4).cuda()
    i = torch.tensor([0, 2]).cuda()
    img = torch.ones(1, 2, 5, 5).cuda()
    calls = [
        lambda: x.sum(), lambda: x.mean(0), lambda: x.max(), lambda: x.argmax(1),
        lambda: x.exp(), lambda: x.sqrt(), lambda: x.pow(2), lambda: x == x,
        lambda: x < 3, lambda: torch.where(x > 2, x, x), lambda: x.clamp(0, 5),
        lambda: x @ x.t(), lambda: torch.mm(x, x.t()), lambda: x.matmul(x[0]),
        lambda: F.linear(x, x), lambda: F.relu(x), lambda: F.softmax(x, 1),
        lambda: F.log_softmax(x, 1), lambda: F.cross_entropy(x, i[:1].repeat(3)),
        lambda: F.mse_loss(x, x), lambda: F.conv2d(img, torch.ones(1, 2, 3, 3).cuda()),
        lambda: F.max_pool2d(img, 2), lambda: F.avg_pool2d(img, 2),
        lambda: F.embedding(i, x), lambda: F.layer_norm(x, (4,)),
        lambda: x.sort(), lambda: x.topk(2), lambda: x.index_select(0, i),
        lambda: x.gather(1, i.expand(3, 2)), lambda: x.masked_fill(x > 3, 0),
        lambda: x[i], lambda: x.nonzero(), lambda: x.cumsum(0), lambda: x.unique(),
        lambda: torch.tril(x), lambda: x.repeat(2, 1), lambda: F.dropout(x, 0.5),
        lambda: x.abs(), lambda: x.neg(), lambda: torch.isnan(x), lambda: x.norm(),
    ]
    for k, call in enumerate(calls):
        try:
            r = call()
        except (NotImplementedError, RuntimeError) as e:
            assert "device" in str(e) or "CUDA" in str(e) or "cuda" in str(e), (k, str(e))
            continue
        outs = r if isinstance(r, (tuple, list)) else (r,)
        for o in outs:
            assert o.device.type == "cuda", (k, o.device)


# --- memory, autograd, modules ------------------------------------------------

def case_memory_counters():
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated(0)
    a = torch.empty(1000, device="cuda")                # 4000 B, rounded to 4096
    assert torch.cuda.memory_allocated(0) == base + 4096
    assert torch.cuda.memory_allocated(1) == 0
    b = torch.empty(3, device="cuda:1")
    assert torch.cuda.memory_allocated(1) == 512
    peak = torch.cuda.max_memory_allocated(0)
    del a, b
    assert torch.cuda.memory_allocated(0) == base
    assert torch.cuda.memory_allocated(1) == 0
    assert torch.cuda.max_memory_allocated(0) == peak >= base + 4096
    assert torch.cuda.memory_reserved(0) > 0
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved(1) == 0
    e = torch.empty(0, device="cuda")
    assert e.numel() == 0 and torch.cuda.memory_allocated(0) == base


def case_autograd_through_device():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x.cuda()
    assert y.grad_fn.name() == "ToCopyBackward0"
    z = y * y + y
    z.backward(torch.ones(3, device="cuda"))
    assert x.grad.device.type == "cpu"
    assert x.grad.tolist() == [3., 5., 7.]
    w = torch.tensor([1., 1.], device="cuda", requires_grad=True)
    (w * 3).backward(torch.tensor([1., 2.], device="cuda"))
    assert w.grad.device == w.device
    same(w.grad, torch.tensor([3., 6.]))


def case_module_cuda():
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 2)
    w = m.weight
    ref = m.weight.detach().clone()
    m.cuda()
    assert m.weight is w and m.weight.device.type == "cuda" and m.bias.is_cuda
    same(m.weight.detach(), ref)
    m.to("cuda:1")
    assert m.weight.device.index == 1
    m.cpu()
    assert m.weight.device.type == "cpu" and m.weight.tolist() == ref.tolist()
    m.to(torch.device("cuda"), torch.float64)
    assert m.weight.dtype == torch.float64 and m.weight.is_cuda


def case_current_stream_reaches_the_kernels():
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
        y = torch.ones(3, device="cuda") * 2
        same(y, torch.full((3,), 2.))
    assert torch.cuda.current_stream() == torch.cuda.default_stream()
    # the C side follows: an allocation made on s is cached for s
    with torch.cuda.stream(s):
        a = torch.empty(100, device="cuda")
    ptr = a.data_ptr()
    del a
    b = torch.empty(100, device="cuda")        # the default stream: not a's block
    assert b.data_ptr() != ptr
    with torch.cuda.stream(s):
        c = torch.empty(100, device="cuda")    # s again: a's block back
        assert c.data_ptr() == ptr


# --- kernels beyond copy/fill/add: unary, binary, reductions, matmul --------

def close(dev_t, cpu_t, tol=0):
    assert dev_t.device.type == "cuda", dev_t.device
    h = dev_t.cpu()
    assert h.dtype == cpu_t.dtype and h.shape == cpu_t.shape, (h, cpu_t)
    if tol == 0:
        assert repr(h.tolist()) == repr(cpu_t.tolist()), (h, cpu_t)
    else:
        assert torch.allclose(h, cpu_t, rtol=tol, atol=tol, equal_nan=True), (h, cpu_t)


def case_unary_ops():
    x = torch.tensor([[-2.5, -1.0, -0.0, 0.0], [0.5, 1.0, 3.75, float("nan")]])
    i = torch.tensor([[-3, -1, 0, 2], [5, 7, -8, 1]])
    for name in ("abs", "neg", "sign", "sqrt", "exp", "log", "sin", "cos", "tanh",
                 "sigmoid", "floor", "ceil", "round", "trunc", "frac", "reciprocal",
                 "relu", "square", "isnan", "isinf", "isfinite", "logical_not", "signbit"):
        before = kernels("unary")
        close(getattr(x.cuda(), name)(), getattr(x, name)())
        assert kernels("unary") == before + 1, name
    for name in ("abs", "neg", "sign", "square", "bitwise_not", "relu"):
        close(getattr(i.cuda(), name)(), getattr(i, name)())
    close(i.cuda().sqrt(), i.sqrt())                   # integers computed in float
    close(torch.relu(x.t().cuda()), torch.relu(x.t()))
    y = torch.empty(2, 4, dtype=torch.float64, device="cuda")
    torch.exp(x.cuda(), out=y)
    close(y, x.exp().double())


def case_binary_family():
    a = torch.tensor([[1.5, -2.0, 3.0], [0.0, float("nan"), -7.25]])
    b = torch.tensor([2.0, -4.0, 0.5])
    for op in (torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge, torch.maximum,
               torch.minimum, torch.atan2, torch.pow, torch.fmod, torch.remainder,
               torch.floor_divide, torch.logical_and, torch.logical_or):
        close(op(a.cuda(), b.cuda()), op(a, b))
    m = torch.tensor([[6, -7, 9], [1, 0, 12]])
    n = torch.tensor([4, 3, -2])
    for op in (torch.bitwise_and, torch.bitwise_or, torch.bitwise_xor, torch.eq,
               torch.maximum, torch.bitwise_left_shift):
        close(op(m.cuda(), n.cuda()), op(m, n))
    close(a.cuda() > 1, a > 1)
    close(a.cuda() ** 2, a ** 2)
    # integer division: Python's floor and remainder, C's trunc and fmod,
    # -1 divisors of the smallest value wrapping as on the CPU
    ops = (torch.floor_divide, torch.remainder, torch.fmod,
           lambda p, q: torch.div(p, q, rounding_mode="trunc"))
    for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
        info = torch.iinfo(dt)
        p = torch.tensor([[7, -7, 0, 5, info.min, info.max], [13, -13, 1, -1, info.min, 3]])
        q = torch.tensor([[2, 2, -3, -1, -1, 7], [-4, -4, 5, 2, 3, -1]])
        if dt == torch.uint8:
            p, q = p.abs(), q.abs()
        p, q = p.to(dt), q.to(dt)
        for op in ops:
            same(op(p.cuda(), q.cuda()), op(p, q))
            same(op(p.cuda(), 3), op(p, 3))
            same(op(100, q.cuda()), op(100, q))
        d = p.cuda()
        d //= q.cuda()
        same(d, p // q)
    same(m.cuda() // n.cuda(), m // n)
    same(m.cuda() % n.cuda(), m % n)
    same(torch.tensor([True, False]).cuda() // 2, torch.tensor([True, False]) // 2)
    # a divisor that is 0 in the common dtype (256 as uint8), checked on the host
    u = torch.tensor([5, 7], dtype=torch.uint8)
    for op in (torch.floor_divide, torch.remainder, torch.fmod):
        before = kernels("binary")
        raises(RuntimeError, lambda: op(u.cuda(), 256), "ZeroDivisionError")
        raises(RuntimeError, lambda: op(u.cuda(), torch.tensor(256)), "ZeroDivisionError")
        assert kernels("binary") == before
    # an empty result divides nothing: no error, as on the CPU
    e = torch.empty(0, 3, dtype=torch.long)
    same(e.cuda() // torch.tensor([1, 0, 2]).cuda(), e // torch.tensor([1, 0, 2]))
    same(e.cuda() % 0, e % 0)
    # a zero divisor: the CPU's ZeroDivisionError, and no kernel runs
    z = torch.tensor([3, 0, 1])
    for op in ops:
        for args in ((m.cuda(), z.cuda()), (m.cuda(), 0), (m.cuda(), torch.tensor(0)),
                     (5, z.cuda())):
            before = kernels("binary")
            cpu = raises(RuntimeError, lambda: op(*[t.cpu() if isinstance(t, torch.Tensor)
                                                     else t for t in args]))
            assert cpu == "ZeroDivisionError", cpu
            raises(RuntimeError, lambda: op(*args), cpu)
            # a device divisor is compared with 0 there (one binary kernel)
            looked = isinstance(args[1], torch.Tensor) and args[1].is_cuda
            assert kernels("binary") == before + looked, (op, args)


def case_round_decimals_on_device():
    torch.manual_seed(0)
    x = torch.cat([torch.randn(300) * 1000,
                   torch.tensor([0.5, 1.5, 2.5, -0.5, 0.125, 0.375, 1.005, 2.675, 1e30,
                                 float("inf"), float("nan"), -0.0, 65504.0])])
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        for d in (-3, -1, 0, 1, 2, 5, 40):
            same(x.to(dt).cuda().round(decimals=d), x.to(dt).round(decimals=d))
    same(torch.round(x[:5].cuda().t(), decimals=2), torch.round(x[:5], decimals=2))
    for dt in (torch.int64, torch.int8):
        same(x.to(dt).cuda().round(decimals=2), x.to(dt).round(decimals=2))


def case_bool_min_max_dim_on_device():
    x = torch.tensor([[True, False, True], [True, True, True], [False, False, True]])
    for f in (lambda t: t.min(1), lambda t: t.max(0), lambda t: t.min(1, keepdim=True),
              lambda t: torch.max(t.t(), 1), lambda t: t[:, :0].max(0)):
        v, i = f(x.cuda())
        cv, ci = f(x)
        same(v, cv)
        same(i, ci)


def case_composite_math_on_device():
    # python/ctorch/_composite_math.py over device tensors: the CPU's values
    a = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    b = torch.tensor([[2.0, 1.0, 0.0], [1.0, -1.0, 2.0]])
    fns = [torch.logaddexp, torch.logaddexp2, torch.hypot, torch.copysign, torch.heaviside,
           lambda x, y: torch.cross(x, y, dim=1), torch.kron, torch.cdist, torch.isin,
           lambda x, y: torch.xlogy(x.abs(), y.abs()),
           lambda x, y: torch.tensordot(x, y.t(), 1), lambda x, y: torch.diff(x, dim=1),
           lambda x, y: torch.aminmax(x, dim=0).max, lambda x, y: torch.block_diag(x, y),
           lambda x, y: torch.cartesian_prod(x[0], y[0]),
           lambda x, y: torch.stack(torch.meshgrid(x[0], y[0], indexing="ij"))]
    for f in fns:
        same(f(a.cuda(), b.cuda()), f(a, b))
    raises(RuntimeError, lambda: torch.hypot(a.cuda(), b),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")


def case_reductions():
    x = torch.tensor([[[1.5, -2.0, 3.0, 0.25], [4.0, 5.5, -6.0, 1.0], [0.0, 2.0, 2.0, -1.0]],
                      [[7.0, 8.0, -9.5, 3.0], [1.0, 1.0, 1.0, 1.0], [-3.0, 0.5, 6.0, 2.0]]])
    y = x.cuda()
    close(y.sum(), x.sum())
    close(y.sum(1), x.sum(1))
    close(y.sum((0, 2), keepdim=True), x.sum((0, 2), keepdim=True))
    close(y.mean(-1), x.mean(-1), 1e-6)
    close(y.mean(), x.mean(), 1e-6)
    close(y.amax(1), x.amax(1))
    close(y.amin((0, 1)), x.amin((0, 1)))
    close(y.max(), x.max())
    vals, idx = y.max(2)
    close(vals, x.max(2).values)
    close(idx, x.max(2).indices)
    vals, idx = y.min(0, keepdim=True)
    close(vals, x.min(0, keepdim=True).values)
    close(idx, x.min(0, keepdim=True).indices)
    close(y.argmax(), x.argmax())
    close(y.argmin(1), x.argmin(1))
    close(y.permute(2, 0, 1).sum(0), x.permute(2, 0, 1).sum(0))
    close((y > 0).all(2), (x > 0).all(2))
    close((y > 0).any(), (x > 0).any())
    i = torch.arange(12).reshape(3, 4)
    close(i.cuda().sum(0), i.sum(0))
    close(i.cuda().prod(1), i.prod(1))
    close(torch.zeros(0, 3, device="cuda").sum(0), torch.zeros(3))
    close(y.std(), x.std(), 1e-6)


def case_matmul_family():
    torch.manual_seed(1)
    a = torch.randn(4, 3)
    b = torch.randn(3, 5)
    before = kernels("gemm")
    close(a.cuda() @ b.cuda(), a @ b, 1e-6)
    assert kernels("gemm") == before + 1
    close(torch.mm(a.cuda(), b.t().contiguous().t().cuda()), a @ b, 1e-6)
    close(torch.mm(b.t().cuda(), a.t().cuda()), b.t() @ a.t(), 1e-6)   # transposed views
    c = torch.randn(4, 5)
    close(torch.addmm(c.cuda(), a.cuda(), b.cuda(), beta=0.5, alpha=2),
          torch.addmm(c, a, b, beta=0.5, alpha=2), 1e-6)
    bias = torch.randn(5)
    close(torch.addmm(bias.cuda(), a.cuda(), b.cuda()), torch.addmm(bias, a, b), 1e-6)
    p = torch.randn(2, 4, 3)
    q = torch.randn(2, 3, 6)
    close(torch.bmm(p.cuda(), q.cuda()), torch.bmm(p, q), 1e-6)
    close(torch.matmul(p.cuda(), b.cuda()), torch.matmul(p, b), 1e-6)
    close(torch.matmul(a.cuda(), b[:, 0].cuda()), torch.matmul(a, b[:, 0]), 1e-6)
    close(p.cuda()[:, ::2] @ q.cuda(), p[:, ::2] @ q, 1e-6)            # strided rows
    w = torch.randn(6, 3)
    close(F.linear(a.cuda(), w.cuda(), bias[:1].expand(6).contiguous().cuda()),
          F.linear(a, w, bias[:1].expand(6).contiguous()), 1e-6)
    close(torch.mm(torch.zeros(2, 0).cuda(), torch.zeros(0, 3).cuda()), torch.zeros(2, 3))
    close(torch.mm(a.double().cuda(), b.double().cuda()), a.double() @ b.double(), 1e-12)
    raises(NotImplementedError, lambda: torch.mm(torch.ones(2, 2, dtype=torch.int64).cuda(),
                                                 torch.ones(2, 2, dtype=torch.int64).cuda()))
    raises(RuntimeError, lambda: a.cuda() @ b,
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")


def case_zero_gradients_on_the_device():
    """Ops whose gradient is zero (floor, sign, round) give it on the
    input's device."""
    x = torch.tensor([1.5, -2.25, 3.0], device="cuda", requires_grad=True)
    (x.floor() + x.sign() * 2 + x * 3).sum().backward()
    same(x.grad, torch.full((3,), 3.))


def case_mlp_training_step_matches_cpu():
    """Linear-ReLU-Linear, MSE loss, SGD: the step on the device gives the
    CPU's parameters."""
    trains_alike(
        lambda: torch.nn.Sequential(torch.nn.Linear(10, 10), torch.nn.ReLU(),
                                    torch.nn.Linear(10, 5)),
        lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
        lambda: (torch.randn(20, 10), torch.randn(20, 5)), torch.nn.MSELoss(), tol=1e-6)


# --- where, softmax, nll_loss and cross-entropy ---------------------------------

def case_where_and_masked_fill():
    cond = torch.tensor([[True, False, True, False], [False, False, True, True],
                         [True, True, False, False]])
    for dt in DTYPES:
        a, b = sample(dt), sample(dt).flip(0)
        before = kernels("where")
        same(torch.where(cond.cuda(), a.cuda(), b.cuda()), torch.where(cond, a, b))
        assert kernels("where") == before + 1, dt
        m = a.clone()
        m.masked_fill_(cond, 1)
        d = a.cuda()
        d.masked_fill_(cond.cuda(), 1)
        same(d, m)
    x = torch.arange(12.).reshape(3, 4)
    # broadcasting, a transposed operand, a CPU number, a uint8 condition, promotion
    c = x > 4
    same(torch.where(c[:, :1].cuda(), x.cuda(), x.t().contiguous().t().cuda() * 2),
         torch.where(c[:, :1], x, x * 2))
    same(torch.where(c.cuda(), x.cuda(), torch.tensor(-1.)), torch.where(c, x, torch.tensor(-1.)))
    same(torch.where(c.cuda().to(torch.uint8), x.cuda(), -x.cuda()),
         torch.where(c.to(torch.uint8), x, -x))
    same(torch.where(c.cuda(), x.cuda().int(), x.cuda().double()),
         torch.where(c, x.int(), x.double()))
    same(x.cuda().masked_fill(torch.tensor([True, False, False, True]).cuda(), -2.5),
         x.masked_fill(torch.tensor([True, False, False, True]), -2.5))
    same(x.cuda().masked_fill(torch.tensor(True), 3), x.masked_fill(torch.tensor(True), 3))
    msg = ("Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    raises(RuntimeError, lambda: torch.where(c, x.cuda(), x.cuda()), msg)
    raises(RuntimeError, lambda: x.cuda().masked_fill_(c, 0), msg)
    raises(RuntimeError, lambda: torch.where(x.cuda(), x.cuda(), x.cuda()))
    # a gradient flows through where on the device
    xd = x.cuda().requires_grad_()
    torch.where(c.cuda(), xd * 3, xd).sum().backward()
    same(xd.grad, torch.where(c, torch.tensor(3.), torch.tensor(1.)).expand(3, 4).contiguous())


def case_softmax_family():
    torch.manual_seed(3)
    x = torch.randn(4, 5, 3)
    for fn in (F.softmax, F.log_softmax):
        for dim in (0, 1, 2, -1):
            y = fn(x.cuda(), dim=dim)
            assert y.is_contiguous()
            close(y, fn(x, dim=dim), 1e-6)
        xt = x.transpose(0, 2)
        close(fn(xt.cuda(), 1), fn(xt, 1), 1e-6)
        close(fn(x.cuda(), 1, dtype=torch.float64), fn(x, 1, dtype=torch.float64), 1e-12)
        close(fn(x.double().cuda(), 0), fn(x.double(), 0), 1e-12)
        close(fn(x.cuda().bfloat16(), 2).float(), fn(x.bfloat16(), 2).float(), 1e-2)
        # half runs on a GPU (float accumulation) though not on the CPU
        h = fn(x.cuda().half(), 1)
        assert h.dtype == torch.float16
        close(h.float(), fn(x, 1), 2e-3)
        close(fn(torch.tensor(3.).cuda(), 0), fn(torch.tensor(3.), 0))
        close(fn(torch.empty(0, 3).cuda(), 1), torch.empty(0, 3))
        # rows of -inf, as masked attention gives: NaN, as on the CPU
        m = torch.tensor([[0., float("-inf")], [float("-inf"), float("-inf")]])
        close(fn(m.cuda(), 1), fn(m, 1), 1e-6)
        for dim in (0, 2):
            xc = x.clone().requires_grad_()
            xd = x.cuda().requires_grad_()
            w = torch.randn(4, 5, 3)
            (fn(xc, dim) * w).sum().backward()
            (fn(xd, dim) * w.cuda()).sum().backward()
            close(xd.grad, xc.grad, 1e-6)
        raises(RuntimeError, lambda: fn(torch.arange(3).cuda(), 0),
               "\"host_softmax\" not implemented for 'Long'")
        raises(IndexError, lambda: fn(x.cuda(), 3))


def case_nll_and_cross_entropy():
    torch.manual_seed(4)
    logits = torch.randn(6, 4)
    tgt = torch.tensor([0, 3, 1, 2, 2, 1])
    wt = torch.rand(4)
    variants = [{}, {"weight": wt}, {"ignore_index": 2}, {"ignore_index": -100},
                {"weight": wt, "ignore_index": 1}, {"reduction": "sum"},
                {"reduction": "none"}, {"reduction": "none", "weight": wt},
                {"reduction": "sum", "weight": wt, "ignore_index": 3},
                {"label_smoothing": 0.2}, {"label_smoothing": 0.1, "reduction": "sum"}]
    for fn in (F.cross_entropy, lambda x, t, **kw: F.nll_loss(F.log_softmax(x, 1), t, **kw)):
        for kw in variants:
            if fn is not F.cross_entropy and "label_smoothing" in kw:
                continue
            kd = {k: v.cuda() if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
            lc = logits.clone().requires_grad_()
            ld = logits.cuda().requires_grad_()
            a = fn(lc, tgt, **kw)
            b = fn(ld, tgt.cuda(), **kd)
            close(b, a, 1e-6)
            a.sum().backward()
            b.sum().backward()
            close(ld.grad, lc.grad, 1e-6)
    # every target ignored: the mean is 0/0
    close(F.nll_loss(logits.cuda(), torch.full((6,), 1).cuda(), ignore_index=1),
          F.nll_loss(logits, torch.full((6,), 1), ignore_index=1))
    # an ignored row holding -inf (masked logits) counts for nothing, and
    # its per-element loss is +0 as on the CPU
    xi = torch.tensor([[float("-inf"), 0.5, 1.0], [0.2, -1.0, 3.0]])
    ti = torch.tensor([-100, 2])
    for kw in ({}, {"reduction": "none"}, {"weight": torch.tensor([1.0, 2.0, 3.0])}):
        kd = {k: v.cuda() if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
        xc, xd = xi.clone().requires_grad_(), xi.cuda().requires_grad_()
        a, b = F.nll_loss(xc, ti, **kw), F.nll_loss(xd, ti.cuda(), **kd)
        close(b, a)
        a.sum().backward()
        b.sum().backward()
        close(xd.grad, xc.grad)
    # one sample (C) with a 0-dim target; uint8 targets; float64 and bfloat16
    close(F.nll_loss(logits[0].cuda(), tgt[0].cuda()), F.nll_loss(logits[0], tgt[0]))
    close(F.nll_loss(logits.cuda(), tgt.to(torch.uint8).cuda()),
          F.nll_loss(logits, tgt.to(torch.uint8)), 1e-6)
    close(F.cross_entropy(logits.double().cuda(), tgt.cuda()),
          F.cross_entropy(logits.double(), tgt), 1e-12)
    close(F.nll_loss(logits.bfloat16().cuda(), tgt.cuda()).float(),
          F.nll_loss(logits.bfloat16(), tgt).float(), 1e-2)
    # spatial (N, C, H, W), and (N, C, L) through nll_loss_nd
    li = torch.randn(2, 3, 4, 5)
    ti = torch.randint(0, 3, (2, 4, 5))
    for kw in ({}, {"reduction": "none"}, {"weight": wt[:3], "ignore_index": 0}):
        kd = {k: v.cuda() if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
        lc = li.clone().requires_grad_()
        ld = li.cuda().requires_grad_()
        a = F.cross_entropy(lc, ti, **kw)
        b = F.cross_entropy(ld, ti.cuda(), **kd)
        close(b, a, 1e-6)
        a.sum().backward()
        b.sum().backward()
        close(ld.grad, lc.grad, 1e-6)
    close(F.cross_entropy(li[..., 0].cuda(), ti[..., 0].cuda()),
          F.cross_entropy(li[..., 0], ti[..., 0]), 1e-6)
    # class probabilities as the target
    p = F.softmax(torch.randn(6, 4), 1)
    close(F.cross_entropy(logits.cuda(), p.cuda(), label_smoothing=0.1),
          F.cross_entropy(logits, p, label_smoothing=0.1), 1e-6)
    # bad input: the CPU's errors, caught, never a fault or a wrong answer
    raises(IndexError, lambda: F.cross_entropy(logits.cuda(), torch.tensor([0, 5, 1, 2, 2, 1]).cuda()),
           "Target 5 is out of bounds.")
    raises(IndexError, lambda: F.nll_loss(logits.cuda(), torch.tensor([0, -1, 1, 2, 2, 1]).cuda()),
           "Target -1 is out of bounds.")
    raises(RuntimeError, lambda: F.cross_entropy(logits.cuda(), tgt),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    raises(RuntimeError, lambda: F.nll_loss(logits.cuda(), tgt.float().cuda()),
           "expected scalar type Long but found Float")
    raises(ValueError, lambda: F.nll_loss(logits.cuda(), tgt[:5].cuda()),
           "Expected input batch_size (6) to match target batch_size (5).")
    # weight with label smoothing gathers the weights (advanced indexing)
    close(F.cross_entropy(logits.cuda(), tgt.cuda(), weight=wt.cuda(), label_smoothing=0.1),
          F.cross_entropy(logits, tgt, weight=wt, label_smoothing=0.1), 1e-6)


def case_classifier_training_step_matches_cpu():
    """Linear-ReLU-Linear, cross-entropy, SGD with momentum: the step on the
    device gives the CPU's parameters, and the model learns."""
    def run(device):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                    torch.nn.Linear(16, 3)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
        x = torch.randn(30, 8)
        y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
        x, y = x.to(device), y.to(device)
        losses = []
        for _ in range(12):
            opt.zero_grad()
            loss = torch.nn.CrossEntropyLoss()(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        acc = (model(x).argmax(1) == y).float().mean().item()
        return losses, acc, [p.detach().cpu() for p in model.parameters()]

    losses_c, acc_c, params_c = run("cpu")
    losses_d, acc_d, params_d = run("cuda")
    assert losses_d[-1] < losses_d[0] * 0.6, losses_d
    assert abs(acc_c - acc_d) < 1e-6, (acc_c, acc_d)
    for lc, ld in zip(losses_c, losses_d):
        assert abs(lc - ld) < 1e-5, (losses_c, losses_d)
    for pc, pd in zip(params_c, params_d):
        assert torch.allclose(pc, pd, atol=1e-5), (pc, pd)


# --- normalization layers: batch norm, layer norm, group norm -----------------

def _grads(fn, tensors, w_out, device):
    """fn's output on device and the gradients of tensors (fresh leaves
    there, None staying None) under the weighted sum w_out."""
    ts = [t.detach().clone().to(device).requires_grad_() if t is not None else None
          for t in tensors]
    y = fn(*ts)
    (y.float() * w_out.to(device)).sum().backward()
    return y.detach(), [t.grad if t is not None else None for t in ts]


def _check_grads(fn, tensors, tol=1e-5):
    """fn and the gradients of its inputs on the device match the CPU's."""
    w = torch.randn(*fn(*tensors).shape)
    yc, gc = _grads(fn, tensors, w, "cpu")
    yd, gd = _grads(fn, tensors, w, "cuda")
    close(yd, yc, tol)
    for a, b in zip(gd, gc):
        assert (a is None) == (b is None)
        if a is not None:
            close(a, b, tol)


def case_layer_norm_on_device():
    torch.manual_seed(20)
    x = torch.randn(4, 6, 5) * 3 + 1
    for shape in ((5,), (6, 5), (4, 6, 5)):
        w = torch.randn(*shape)
        b = torch.randn(*shape)
        for wb in ((w, b), (w, None), (None, b), (None, None)):
            close(F.layer_norm(x.cuda(), shape, *[t.cuda() if t is not None else None
                                                  for t in wb]),
                  F.layer_norm(x, shape, *wb), 1e-5)
            _check_grads(lambda x_, w_, b_: F.layer_norm(x_, shape, w_, b_, eps=1e-3),
                         [x, *wb])
        # the saved statistics: shaped input.shape[:-k] + [1] * k, the input's dtype
        yc, mc, rc = torch.native_layer_norm(x, list(shape), w, b, 1e-5)
        yd, md, rd = torch.native_layer_norm(x.cuda(), list(shape), w.cuda(), b.cuda(), 1e-5)
        close(yd, yc, 1e-5)
        close(md, mc, 1e-5)
        close(rd, rc, 1e-5)
    # a transposed input, float64, a module
    xt = x.transpose(0, 2)
    close(F.layer_norm(xt.cuda(), (4,)), F.layer_norm(xt, (4,)), 1e-5)
    close(F.layer_norm(x.double().cuda(), (5,)), F.layer_norm(x.double(), (5,)), 1e-12)
    torch.manual_seed(1)
    ln = torch.nn.LayerNorm(5)
    with torch.no_grad():
        ln.weight.normal_()
        ln.bias.normal_()
    close(ln.cuda()(x.cuda()), ln.cpu()(x), 1e-5)
    # half and bfloat16: float32 inside, rounded once
    for dt, tol in ((torch.float16, 2e-3), (torch.bfloat16, 2e-2)):
        w = torch.randn(5)
        y = F.layer_norm(x.to(dt).cuda(), (5,), w.to(dt).cuda(), w.to(dt).cuda())
        assert y.dtype == dt
        close(y.float(), F.layer_norm(x.to(dt).float(), (5,), w.to(dt).float(),
                                      w.to(dt).float()), tol * 10)
        xd = x.to(dt).cuda().requires_grad_()
        F.layer_norm(xd, (5,)).sum().backward()
        assert xd.grad.dtype == dt and xd.grad.is_cuda
    # double backward (composites of device ops) for the three layers
    for fn in (lambda t: F.layer_norm(t, (5,)), lambda t: F.group_norm(t, 3),
               lambda t: F.batch_norm(t, None, None, training=True)):
        w1, w2 = torch.randn(4, 6, 5), torch.randn(4, 6, 5)
        grads = []
        for dev in ("cpu", "cuda"):
            xs = x.detach().clone().to(dev).requires_grad_()
            g, = torch.autograd.grad((fn(xs) * w1.to(dev)).sum(), xs, create_graph=True)
            (g * w2.to(dev)).sum().backward()
            grads.append(xs.grad)
        close(grads[1], grads[0], 1e-5)
    # empty rows, and rows of nothing (NaN statistics)
    close(F.layer_norm(torch.empty(0, 5).cuda(), (5,)), F.layer_norm(torch.empty(0, 5), (5,)))
    e = torch.empty(3, 0)
    for got, want in zip(torch.native_layer_norm(e.cuda(), [0], None, None, 1e-5),
                         torch.native_layer_norm(e, [0], None, None, 1e-5)):
        close(got, want)
    # the CPU's errors
    raises(RuntimeError, lambda: F.layer_norm(x.cuda(), (4,)),
           "Given normalized_shape=[4], expected input with shape [*, 4], but got input "
           "of size[4, 6, 5]")
    raises(RuntimeError, lambda: F.layer_norm(x.cuda(), (5,), torch.ones(5)),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")


def case_batch_norm_on_device():
    torch.manual_seed(21)
    for shape in ((8, 6), (8, 6, 5), (4, 6, 3, 5)):
        x = torch.randn(*shape) * 2 + 0.5
        w, b = torch.randn(6), torch.randn(6)
        rm, rv = torch.randn(6), torch.rand(6) + 0.5
        for wb in ((w, b), (None, None), (w, None)):
            wbd = [t.cuda() if t is not None else None for t in wb]
            # training: the batch's statistics, the running ones updated in place
            rmc, rvc, rmd, rvd = rm.clone(), rv.clone(), rm.cuda(), rv.cuda()
            for _ in range(3):
                close(F.batch_norm(x.cuda(), rmd, rvd, *wbd, training=True, momentum=0.3),
                      F.batch_norm(x, rmc, rvc, *wb, training=True, momentum=0.3), 1e-5)
            close(rmd, rmc, 1e-6)
            close(rvd, rvc, 1e-5)
            # eval: the running statistics
            close(F.batch_norm(x.cuda(), rmd, rvd, *wbd, eps=1e-3),
                  F.batch_norm(x, rmc, rvc, *wb, eps=1e-3), 1e-5)
            # without running statistics
            close(F.batch_norm(x.cuda(), None, None, *wbd, training=True),
                  F.batch_norm(x, None, None, *wb, training=True), 1e-5)
            for training in (True, False):
                _check_grads(lambda x_, w_, b_: F.batch_norm(
                    x_, rm.to(x_.device), rv.to(x_.device), w_, b_, training=training), [x, *wb])
        yc, mc, ic = torch.native_batch_norm(x, w, b, rm.clone(), rv.clone(), True, 0.1, 1e-5)
        yd, md, id_ = torch.native_batch_norm(x.cuda(), w.cuda(), b.cuda(), rm.cuda(),
                                              rv.cuda(), True, 0.1, 1e-5)
        close(yd, yc, 1e-5)
        close(md, mc, 1e-6)
        close(id_, ic, 1e-5)
        outs = torch.native_batch_norm(x.cuda(), w.cuda(), b.cuda(), rm.cuda(), rv.cuda(),
                                       False, 0.1, 1e-5)
        for got, want in zip(outs, torch.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)):
            close(got, want, 1e-5)
    # float64; a transposed input; eps 0 with a constant channel (invstd 0)
    x = torch.randn(5, 4, 3)
    close(F.batch_norm(x.double().cuda(), None, None, training=True),
          F.batch_norm(x.double(), None, None, training=True), 1e-12)
    xt = x.transpose(0, 2)
    close(F.batch_norm(xt.cuda(), None, None, training=True),
          F.batch_norm(xt, None, None, training=True), 1e-5)
    xc = x.clone()
    xc[:, 1] = 2.0
    for got, want in zip(torch.native_batch_norm(xc.cuda(), None, None, None, None, True, 0.1, 0.0),
                         torch.native_batch_norm(xc, None, None, None, None, True, 0.1, 0.0)):
        close(got, want, 1e-5)
    # half and bfloat16, with parameters of their dtype or float32 ones
    x = torch.randn(8, 3, 4)
    for dt, tol in ((torch.float16, 5e-3), (torch.bfloat16, 5e-2)):
        for pdt in (dt, torch.float32):
            rmd, rvd = torch.zeros(3, dtype=pdt).cuda(), torch.ones(3, dtype=pdt).cuda()
            y = F.batch_norm(x.to(dt).cuda(), rmd, rvd, torch.ones(3, dtype=pdt).cuda(),
                             torch.zeros(3, dtype=pdt).cuda(), training=True)
            assert y.dtype == dt and rmd.dtype == pdt
            rmc, rvc = torch.zeros(3), torch.ones(3)
            close(y.float(), F.batch_norm(x.to(dt).float(), rmc, rvc, training=True), tol)
            close(rmd.float(), rmc, tol)
            close(rvd.float(), rvc, tol)
    # modules: three training steps, then eval; running stats and the counter
    for make, shape in ((lambda: torch.nn.BatchNorm1d(6), (10, 6)),
                        (lambda: torch.nn.BatchNorm1d(6, momentum=None), (10, 6, 4)),
                        (lambda: torch.nn.BatchNorm2d(3), (4, 3, 5, 5)),
                        (lambda: torch.nn.BatchNorm2d(3, affine=False), (4, 3, 2, 2)),
                        (lambda: torch.nn.BatchNorm2d(3, track_running_stats=False),
                         (4, 3, 2, 2))):
        torch.manual_seed(5)
        mc = make()
        md = make().cuda()
        md.load_state_dict(mc.state_dict())
        for step in range(3):
            xs = torch.randn(*shape) + step
            close(md(xs.cuda()), mc(xs), 1e-5)
        for name, buf in mc.named_buffers():
            close(dict(md.named_buffers())[name], buf, 1e-5)
        mc.eval()
        md.eval()
        xs = torch.randn(*shape)
        close(md(xs.cuda()), mc(xs), 1e-5)
    # an empty batch: the CPU's clone
    e = torch.empty(0, 6)
    bn = torch.nn.BatchNorm1d(6)
    close(bn.cuda()(e.cuda()), bn.cpu()(e))
    # the CPU's errors
    raises(RuntimeError, lambda: F.batch_norm(torch.randn(4, 6).cuda(), torch.zeros(6),
                                              torch.ones(6), training=True),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    raises(RuntimeError, lambda: F.batch_norm(torch.randn(4, 6).cuda(), None, None),
           "running_mean must be defined in evaluation mode")
    raises(RuntimeError, lambda: F.batch_norm(torch.arange(8).reshape(4, 2).cuda(), None,
                                              None, training=True),
           "\"batch_norm\" not implemented for 'Long'")


def case_group_norm_on_device():
    torch.manual_seed(22)
    x = torch.randn(3, 6, 4, 5) * 2 - 1
    w, b = torch.randn(6), torch.randn(6)
    for groups in (1, 2, 3, 6):
        for wb in ((w, b), (None, None), (None, b)):
            close(F.group_norm(x.cuda(), groups, *[t.cuda() if t is not None else None
                                                   for t in wb]),
                  F.group_norm(x, groups, *wb), 1e-5)
            _check_grads(lambda x_, w_, b_: F.group_norm(x_, groups, w_, b_, eps=1e-3),
                         [x, *wb])
        for got, want in zip(torch.native_group_norm(x.cuda(), w.cuda(), b.cuda(), 3, 6, 20,
                                                     groups, 1e-5),
                             torch.native_group_norm(x, w, b, 3, 6, 20, groups, 1e-5)):
            close(got, want, 1e-5)
    x3 = torch.randn(4, 6, 7)
    close(F.group_norm(x3.cuda(), 2, w.cuda(), b.cuda()), F.group_norm(x3, 2, w, b), 1e-5)
    x2 = torch.randn(5, 6)
    _check_grads(lambda x_, w_: F.group_norm(x_, 2, w_), [x2, w])
    close(F.group_norm(x.double().cuda(), 3), F.group_norm(x.double(), 3), 1e-12)
    gn = torch.nn.GroupNorm(2, 6)
    close(gn.cuda()(x.cuda()), gn.cpu()(x), 1e-5)
    for dt, tol in ((torch.float16, 5e-3), (torch.bfloat16, 5e-2)):
        y = F.group_norm(x.to(dt).cuda(), 3, w.to(dt).cuda(), b.to(dt).cuda())
        assert y.dtype == dt
        close(y.float(), F.group_norm(x.to(dt).float(), 3, w.to(dt).float(),
                                      b.to(dt).float()), tol * 10)
    close(F.group_norm(torch.empty(0, 6, 2).cuda(), 3), F.group_norm(torch.empty(0, 6, 2), 3))
    raises(RuntimeError, lambda: F.group_norm(x.cuda(), 4),
           "Expected number of channels in input to be divisible by num_groups, but got "
           "input of shape [3, 6, 4, 5] and num_groups=4")
    raises(RuntimeError, lambda: F.group_norm(x.cuda(), 3, w),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")


def case_norm_training_steps_match_cpu():
    """Linear-LayerNorm-ReLU-Linear and Linear-BatchNorm1d-ReLU-Linear, MSE
    loss, SGD with momentum: the device's steps give the CPU's parameters
    and running statistics."""
    def run(norm, device):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 12), norm(12), torch.nn.ReLU(),
                                    torch.nn.Linear(12, 3)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        x = torch.randn(16, 8).to(device)
        y = torch.randn(16, 3).to(device)
        losses = []
        for _ in range(4):
            opt.zero_grad()
            loss = torch.nn.MSELoss()(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [t.detach().cpu() for t in model.state_dict().values()]

    for norm in (torch.nn.LayerNorm, torch.nn.BatchNorm1d,
                 lambda c: torch.nn.GroupNorm(3, c)):
        losses_c, state_c = run(norm, "cpu")
        losses_d, state_d = run(norm, "cuda")
        assert losses_d[-1] < losses_d[0], losses_d
        for lc, ld in zip(losses_c, losses_d):
            assert abs(lc - ld) < 1e-5, (losses_c, losses_d)
        for sc, sd in zip(state_c, state_d):
            assert sc.dtype == sd.dtype
            assert torch.allclose(sc.double(), sd.double(), atol=1e-5), (sc, sd)

    # the composites release every temporary: device memory is back at its level
    def work():
        xs = torch.randn(4, 6, 5).cuda().requires_grad_()
        ws = torch.randn(6).cuda().requires_grad_()
        rmd, rvd = torch.zeros(6).cuda(), torch.ones(6).cuda()
        y = (F.batch_norm(xs, rmd, rvd, ws, ws, training=True) + F.group_norm(xs, 3, ws, ws)
             + F.layer_norm(xs, (5,)))
        y.sum().backward()
        F.batch_norm(xs.detach(), rmd, rvd, ws.detach(), None)
        raises(RuntimeError, lambda: F.layer_norm(xs, (5,), torch.ones(5)))

    base = torch.cuda.memory_allocated(0)
    work()
    assert torch.cuda.memory_allocated(0) == base, (torch.cuda.memory_allocated(0), base)


def case_gloo_on_device_tensors():
    """A group of one over gloo takes device tensors through host copies."""
    import tempfile
    import ctorch.distributed as dist
    with tempfile.TemporaryDirectory() as d:
        dist.init_process_group("gloo", init_method="file://" + os.path.join(d, "store"),
                                rank=0, world_size=1)
        try:
            t = torch.arange(6.).reshape(2, 3).cuda()
            dist.all_reduce(t)
            same(t, torch.arange(6.).reshape(2, 3))
            w = dist.all_reduce(t.t(), op=dist.ReduceOp.MAX, async_op=True)
            w.wait()
            assert w.result()[0].is_cuda
            dist.broadcast(t, 0)
            out = [torch.zeros(2, 3, device="cuda")]
            dist.all_gather(out, t)
            same(out[0], torch.arange(6.).reshape(2, 3))
        finally:
            dist.destroy_process_group()


# --- gather, index_select, scatter_add, index_add_, embedding ------------------

def case_gather_on_the_device():
    x = torch.arange(24.).reshape(2, 3, 4)
    idx = {0: torch.tensor([[[1, 0, 1, 0], [0, 0, 1, 1]]]),
           1: torch.tensor([[[2, 0, 1, 2], [1, 1, 0, 0]], [[0, 2, 2, 1], [2, 0, 0, 0]]]),
           2: torch.tensor([[[3, 0], [1, 1], [2, 0]], [[0, 3], [3, 3], [1, 2]]]),
           -1: torch.tensor([[[3], [0], [1]], [[2], [2], [0]]])}
    for dim, i in idx.items():
        before = kernels("gather")
        same(torch.gather(x.cuda(), dim, i.cuda()), torch.gather(x, dim, i))
        assert kernels("gather") == before + 1, dim
    # non-contiguous input and index, an index smaller than the input
    xt = x.permute(2, 0, 1)                          # (4, 2, 3), strided
    it = torch.tensor([[3, 1], [0, 2], [1, 1]]).t()  # (2, 3) transposed
    same(torch.gather(xt.cuda()[:, 1], 0, it.cuda()), torch.gather(xt[:, 1], 0, it))
    same(torch.gather(x.cuda()[:, ::2, 1:], 2, (idx[2][:, :2, :1] % 3).cuda()),
         torch.gather(x[:, ::2, 1:], 2, idx[2][:, :2, :1] % 3))
    same(x.cuda().gather(1, idx[1][:, :1].expand(2, 3, 4).cuda()),
         x.gather(1, idx[1][:, :1].expand(2, 3, 4)))
    # every dtype, 0-dim and empty
    for dt in DTYPES:
        s = sample(dt)
        i = torch.tensor([[2, 0, 1, 2], [0, 0, 2, 1]])
        same(torch.gather(s.cuda(), 0, i.cuda()), torch.gather(s, 0, i))
        same(torch.gather(s.cuda(), 1, i[:, :3].cuda()), torch.gather(s, 1, i[:, :3]))
    same(torch.gather(torch.tensor(5.).cuda(), 0, torch.tensor(0).cuda()),
         torch.gather(torch.tensor(5.), 0, torch.tensor(0)))
    same(torch.gather(x.cuda(), 1, torch.zeros(2, 0, 4, dtype=torch.long).cuda()),
         torch.gather(x, 1, torch.zeros(2, 0, 4, dtype=torch.long)))
    # the CPU's errors: out of range (either side), dtype, ndim, two devices
    for bad in (torch.tensor([[[2]]]), torch.tensor([[[-1]]])):
        cpu = raises(RuntimeError, lambda: torch.gather(x, 0, bad))
        raises(RuntimeError, lambda: torch.gather(x.cuda(), 0, bad.cuda()), cpu)
    cpu = raises(RuntimeError, lambda: torch.gather(x, 2, torch.tensor([[[0, 4]]])))
    assert cpu == "index 4 is out of bounds for dimension 2 with size 4", cpu
    raises(RuntimeError, lambda: torch.gather(x.cuda(), 2, torch.tensor([[[0, 4]]]).cuda()), cpu)
    cpu = raises(RuntimeError, lambda: torch.gather(x, 0, torch.tensor([[[0]]]).int()))
    raises(RuntimeError, lambda: torch.gather(x.cuda(), 0, torch.tensor([[[0]]]).int().cuda()),
           cpu)
    cpu = raises(RuntimeError, lambda: torch.gather(x, 0, torch.tensor([0])))
    raises(RuntimeError, lambda: torch.gather(x.cuda(), 0, torch.tensor([0]).cuda()), cpu)
    msg = ("Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    raises(RuntimeError, lambda: torch.gather(x.cuda(), 0, idx[0]), msg)
    raises(RuntimeError, lambda: torch.gather(x, 0, idx[0].cuda()),
           msg.replace("cuda:0 and cpu", "cpu and cuda:0"))
    # backward: a scatter_add into zeros on the device
    xd = x.cuda().requires_grad_()
    xc = x.clone().requires_grad_()
    before = kernels("scatter_add")
    (torch.gather(xd, 1, idx[1].cuda()) * 2).sum().backward()
    (torch.gather(xc, 1, idx[1]) * 2).sum().backward()
    assert kernels("scatter_add") == before + 1
    same(xd.grad, xc.grad)


def case_index_select_on_the_device():
    x = torch.arange(24.).reshape(2, 3, 4)
    for dim, i in ((0, [1, 0, 1]), (1, [2, -1, 0, 0]), (2, [3]), (-1, [-4, 2]), (1, [])):
        i = torch.tensor(i, dtype=torch.long)
        for it in (i, i.int()):
            before = kernels("gather")
            same(x.cuda().index_select(dim, it.cuda()), x.index_select(dim, it))
            assert kernels("gather") == before + (1 if it.numel() else 0)
    same(x.cuda()[1].t().index_select(0, torch.tensor(2).cuda()),
         x[1].t().index_select(0, torch.tensor(2)))
    same(torch.index_select(x.cuda()[:, 1:, ::2], 2, torch.tensor([1, 1]).cuda()),
         torch.index_select(x[:, 1:, ::2], 2, torch.tensor([1, 1])))
    for dt in DTYPES:
        s = sample(dt)
        same(s.cuda().index_select(1, torch.tensor([3, 0, 3]).cuda()),
             s.index_select(1, torch.tensor([3, 0, 3])))
    for bad in (torch.tensor([0, 3]), torch.tensor([-4])):
        cpu = raises(IndexError, lambda: x.index_select(1, bad))
        assert cpu == "index out of range in self", cpu
        raises(IndexError, lambda: x.cuda().index_select(1, bad.cuda()), cpu)
    cpu = raises(IndexError, lambda: x.index_select(1, torch.tensor([[0]])))
    raises(IndexError, lambda: x.cuda().index_select(1, torch.tensor([[0]]).cuda()), cpu)
    raises(RuntimeError, lambda: x.cuda().index_select(1, torch.tensor([0])),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    # backward: index_add into zeros on the device, repeated rows accumulate
    xd, xc = x.cuda().requires_grad_(), x.clone().requires_grad_()
    i = torch.tensor([2, 0, 2, 2])
    (xd.index_select(1, i.cuda()) ** 2).sum().backward()
    (xc.index_select(1, i) ** 2).sum().backward()
    same(xd.grad, xc.grad)


def case_scatter_add_and_index_add():
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
               torch.int32, torch.int16, torch.int8, torch.uint8):
        z = torch.arange(12).reshape(3, 4).to(dt)
        src = (torch.arange(8).reshape(2, 4) + 1).to(dt)
        i = torch.tensor([[0, 2, 2, 0], [2, 2, 1, 0]])   # duplicates accumulate
        before = kernels("scatter_add")
        same(z.cuda().scatter_add(0, i.cuda(), src.cuda()), z.scatter_add(0, i, src))
        assert kernels("scatter_add") == before + 1, dt
        d = z.cuda()
        d.scatter_add_(1, i.cuda(), src.cuda())
        same(d, z.clone().scatter_add_(1, i, src))
        # index_add_: rows with repeated indices, alpha
        t = torch.zeros(4, 3, dtype=dt)
        s = torch.arange(15).reshape(5, 3).to(dt)
        j = torch.tensor([0, 3, 0, 2, 1])
        d = t.cuda()
        d.index_add_(0, j.cuda(), s.cuda())
        same(d, t.clone().index_add_(0, j, s))
        if dt.is_floating_point:
            same(t.cuda().index_add(1, torch.tensor([2, 2]).cuda(), s[:4, :2].cuda(), alpha=3),
                 t.index_add(1, torch.tensor([2, 2]), s[:4, :2], alpha=3))
    # bool adds as or
    b = torch.tensor([[True, False], [False, False]])
    same(b.cuda().scatter_add(0, torch.tensor([[1, 1]]).cuda(), b[:1].cuda()),
         b.scatter_add(0, torch.tensor([[1, 1]]), b[:1]))
    # a src larger than the index, strided operands
    z, src = torch.zeros(3, 5), torch.arange(20.).reshape(4, 5)
    i = torch.tensor([[2, 1], [0, 2]])
    same(z.cuda().t().scatter_add(1, i.cuda(), src.cuda().t()),
         z.t().scatter_add(1, i, src.t()))
    # errors
    cpu = raises(RuntimeError, lambda: z.scatter_add(0, torch.tensor([[3]]), src))
    raises(RuntimeError, lambda: z.cuda().scatter_add(0, torch.tensor([[3]]).cuda(),
                                                      src.cuda()), cpu)
    cpu = raises(RuntimeError, lambda: z.scatter_add(0, torch.tensor([[0, 0]]), src.int()))
    raises(RuntimeError, lambda: z.cuda().scatter_add(0, torch.tensor([[0, 0]]).cuda(),
                                                      src.int().cuda()), cpu)
    cpu = raises(IndexError, lambda: z.index_add(0, torch.tensor([0, 3]), src[:2]))
    raises(IndexError, lambda: z.cuda().index_add(0, torch.tensor([0, 3]).cuda(),
                                                  src[:2].cuda()), cpu)
    cpu = raises(RuntimeError, lambda: z.index_add(0, torch.tensor([0, 1]), src[:3]))
    raises(RuntimeError, lambda: z.cuda().index_add(0, torch.tensor([0, 1]).cuda(),
                                                    src[:3].cuda()), cpu)
    raises(RuntimeError, lambda: z.cuda().scatter_add(0, torch.tensor([[0]]), src.cuda()),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    # gradients of both, on the device
    zd, sd = torch.zeros(3, 5).cuda().requires_grad_(), src.cuda().requires_grad_()
    zc, sc = torch.zeros(3, 5).requires_grad_(), src.clone().requires_grad_()
    ii = torch.tensor([[2, 1, 0, 0, 1], [0, 2, 2, 1, 1]])
    w = torch.arange(15.).reshape(3, 5)
    (zd.scatter_add(0, ii.cuda(), sd) * w.cuda()).sum().backward()
    (zc.scatter_add(0, ii, sc) * w).sum().backward()
    same(zd.grad, zc.grad)
    same(sd.grad, sc.grad)


def _same_outcome(fn, *args):
    """fn on CPU operands and on their device copies: the same values, or
    the same error."""
    try:
        want = fn(*args)
    except Exception as e:      # noqa: BLE001 - the error is the result
        raises(type(e), lambda: fn(*[a.cuda() if isinstance(a, torch.Tensor) else a
                                    for a in args]), str(e))
        return
    same(fn(*[a.cuda() if isinstance(a, torch.Tensor) else a for a in args]), want)


def case_scatter_index_copy_fill_on_device():
    # no two writes to one element below (which of them lands is not set
    # on a GPU); reduce="add" sums duplicates
    i = torch.tensor([[2, 0, 1, 2], [1, 1, 0, 0]])
    i1 = torch.tensor([[2, 0, 1, 3], [1, 3, 0, 2]])
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
               torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool):
        z = torch.arange(12).reshape(3, 4).to(dt)
        src = (torch.arange(8).reshape(2, 4) + 1).to(dt)
        before = kernels("scatter")
        same(z.cuda().scatter(0, i.cuda(), src.cuda()), z.scatter(0, i, src))
        assert kernels("scatter") == before + 1, dt
        d = z.cuda()
        d.scatter_(1, i.cuda(), 5)
        same(d, z.clone().scatter_(1, i, 5))
        same(z.cuda().scatter(1, i1.cuda(), src.cuda()), z.scatter(1, i1, src))
        same(z.cuda().scatter(1, i.cuda(), src.cuda(), reduce="add"),
             z.scatter(1, i, src, reduce="add"))
        if dt != torch.bool:
            same(z.cuda().scatter(0, i.cuda(), 2, reduce="add"), z.scatter(0, i, 2, reduce="add"))
        # index_copy_ in any order, index_fill_ with negative and repeated ones
        t = torch.zeros(5, 3, dtype=dt)
        s = torch.arange(15).reshape(5, 3).to(dt)
        j = torch.tensor([0, 3, 4, 2, 1])
        d = t.cuda()
        d.index_copy_(0, j.cuda(), s.cuda())
        same(d, t.clone().index_copy_(0, j, s))
        same(t.cuda().index_copy(1, torch.tensor([2, 0]).cuda(), s[:, :2].cuda()),
             t.index_copy(1, torch.tensor([2, 0]), s[:, :2]))
        same(z.cuda().index_fill(0, torch.tensor([2, -1]).cuda(), 3),
             z.index_fill(0, torch.tensor([2, -1]), 3))
        same(z.cuda().index_fill(1, torch.tensor([-1, 0]).cuda(), 7),
             z.index_fill(1, torch.tensor([-1, 0]), 7))
    # several writes to one element: one of them lands
    d = torch.zeros(3).cuda().index_copy_(0, torch.tensor([1, 1]).cuda(),
                                          torch.tensor([5.0, 7.0]).cuda()).cpu()
    assert d[1].item() in (5.0, 7.0) and d[0].item() == d[2].item() == 0, d
    d = torch.zeros(2, 2).cuda().scatter_(1, torch.tensor([[0, 0]]).cuda(),
                                          torch.tensor([[5.0, 7.0]]).cuda()).cpu()
    assert d[0, 0].item() in (5.0, 7.0) and d.sum().item() == d[0, 0].item(), d
    # values converted as the CPU's fill: 2.7 into int64 truncates
    z = torch.arange(12).reshape(3, 4)
    same(z.cuda().index_fill(0, torch.tensor([1]).cuda(), 2.7),
         z.index_fill(0, torch.tensor([1]), 2.7))
    same(z.cuda().scatter(1, torch.tensor([[0]]).cuda(), 1.9),
         z.scatter(1, torch.tensor([[0]]), 1.9))
    # a 0-dim value tensor, a 0-dim self, an empty index, strided operands
    f = torch.arange(6.).reshape(2, 3)
    same(f.cuda().index_fill(1, torch.tensor([0, 2]).cuda(), torch.tensor(4.).cuda()),
         f.index_fill(1, torch.tensor([0, 2]), torch.tensor(4.)))
    same(torch.tensor(3.).cuda().index_copy(0, torch.tensor([0]).cuda(),
                                            torch.tensor(9.).cuda()), torch.tensor(9.))
    same(torch.tensor(1.).cuda().index_fill(0, torch.tensor([-1]).cuda(), 2.),
         torch.tensor(2.))
    same(f.cuda().index_fill(0, torch.tensor([], dtype=torch.long).cuda(), 1.), f)
    same(f.cuda().scatter(1, torch.empty(2, 0, dtype=torch.long).cuda(), 1.), f)
    z, src = torch.zeros(3, 5), torch.arange(20.).reshape(4, 5)
    ii = torch.tensor([[2, 1], [0, 2]])
    same(z.cuda().t().scatter(1, ii.cuda(), src.cuda().t()), z.t().scatter(1, ii, src.t()))
    same(z.cuda().t().index_copy(1, torch.tensor([2, 0]).cuda(), src.cuda().t()[:, :2]),
         z.t().index_copy(1, torch.tensor([2, 0]), src.t()[:, :2]))
    # bad input: the CPU's errors, before anything is written
    bad = [
        (lambda a, j, b: a.index_copy(0, j, b), f, torch.tensor([-1]), torch.ones(1, 3)),
        (lambda a, j, b: a.index_copy(0, j, b), f, torch.tensor([2]), torch.ones(1, 3)),
        (lambda a, j, b: a.index_copy(0, j, b), f, torch.tensor([0]), torch.ones(1, 3).double()),
        (lambda a, j, b: a.index_copy(0, j, b), f, torch.tensor([0.]), torch.ones(1, 3)),
        (lambda a, j, b: a.index_copy(0, j, b), f, torch.tensor([0, 1]), torch.ones(1, 3)),
        (lambda a, j: a.index_fill(1, j, 5), f, torch.tensor([3])),
        (lambda a, j: a.index_fill(1, j, 5), f, torch.tensor([-4])),
        (lambda a, j: a.index_fill(1, j, 5), f, torch.tensor([0.])),
        (lambda a, j, b: a.index_add(0, j, b), f, torch.tensor([-1]), torch.ones(1, 3)),
        (lambda a, j, b: a.scatter(1, j, b), f, torch.tensor([[3]]), torch.ones(1, 1)),
        (lambda a, j: a.scatter(1, j, 1.), f, torch.tensor([[-1]])),
        (lambda a, j, b: a.scatter(1, j, b), f, torch.tensor([[0]]), torch.ones(1, 1).double()),
    ]
    for fn, *args in bad:
        before = kernels("scatter")
        _same_outcome(fn, *args)
        assert kernels("scatter") == before
    raises(NotImplementedError, lambda: f.cuda().scatter(0, torch.tensor([[0]]).cuda(), 2.,
                                                         reduce="multiply"))
    raises(RuntimeError, lambda: f.cuda().index_copy(0, torch.tensor([0]), torch.ones(1, 3).cuda()),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    # gradients through the writes, on the device
    for op in (lambda a, b: a.scatter(0, ii[:, :2].cuda() if a.is_cuda else ii[:, :2], b),
               lambda a, b: a.index_copy(0, torch.tensor([2, 0]).to(a.device), b),
               lambda a, b: a.index_fill(1, torch.tensor([1]).to(a.device), 0.5) * b.sum()):
        zc, sc = torch.arange(15.).reshape(3, 5).requires_grad_(), src[:2].clone().requires_grad_()
        zd = zc.detach().cuda().requires_grad_()
        sd = sc.detach().cuda().requires_grad_()
        w = torch.arange(15.).reshape(3, 5)
        (op(zd, sd) * w.cuda()).sum().backward()
        (op(zc, sc) * w).sum().backward()
        same(zd.grad, zc.grad)
        same(sd.grad, sc.grad)


def case_embedding_forward_backward():
    torch.manual_seed(1)
    w = torch.randn(6, 4)
    idx = torch.tensor([[0, 2, 5], [2, 2, 1]])
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        same(F.embedding(idx.cuda(), w.to(dt).cuda()), F.embedding(idx, w.to(dt)))
    same(F.embedding(idx.int().cuda(), w.cuda()), F.embedding(idx.int(), w))
    same(F.embedding(idx[0, 1].cuda(), w.cuda()), F.embedding(idx[0, 1], w))
    same(F.embedding(idx.t().cuda(), w.cuda().t().contiguous().t()), F.embedding(idx.t(), w))
    for pad in (None, 2, -1):
        for freq in (False, True):
            wc = w.clone().requires_grad_()
            wd = w.cuda().requires_grad_()
            g = torch.randn(2, 3, 4)
            (F.embedding(idx, wc, padding_idx=pad, scale_grad_by_freq=freq) * g).sum().backward()
            before = kernels("scatter_add")
            (F.embedding(idx.cuda(), wd, padding_idx=pad, scale_grad_by_freq=freq)
             * g.cuda()).sum().backward()
            assert kernels("scatter_add") > before
            close(wd.grad, wc.grad, 1e-6)
    # nn.Embedding on the device, gathers
    emb = torch.nn.Embedding(6, 4, padding_idx=0)
    before = kernels("gather")
    out = emb.cuda()(idx.cuda())
    assert kernels("gather") == before + 1 and out.is_cuda
    # errors: as the CPU's
    cpu = raises(IndexError, lambda: F.embedding(torch.tensor([6]), w))
    raises(IndexError, lambda: F.embedding(torch.tensor([6]).cuda(), w.cuda()), cpu)
    cpu = raises(IndexError, lambda: F.embedding(torch.tensor([-7]), w))
    raises(IndexError, lambda: F.embedding(torch.tensor([-7]).cuda(), w.cuda()), cpu)
    cpu = raises(RuntimeError, lambda: F.embedding(torch.tensor([1.0]), w))
    raises(RuntimeError, lambda: F.embedding(torch.tensor([1.0]).cuda(), w.cuda()), cpu)
    raises(RuntimeError, lambda: F.embedding(idx, w.cuda()),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    # max_norm renormalises on the host: refused on the device
    raises(NotImplementedError, lambda: F.embedding(idx.cuda(), w.cuda(), max_norm=1.0))


def case_embedding_training_step_matches_cpu():
    """nn.Embedding -> mean over the sequence -> Linear -> cross_entropy, with
    SGD: the device's parameters follow the CPU's."""
    def run(device):
        torch.manual_seed(0)
        emb = torch.nn.Embedding(10, 6, padding_idx=0)
        lin = torch.nn.Linear(6, 3)
        emb, lin = emb.to(device), lin.to(device)
        opt = torch.optim.SGD(list(emb.parameters()) + list(lin.parameters()), lr=0.5)
        tokens = torch.tensor([[1, 2, 3, 0], [4, 4, 5, 0], [6, 7, 8, 9], [1, 1, 0, 0],
                               [9, 8, 2, 3], [5, 0, 0, 0]]).to(device)
        y = torch.tensor([0, 1, 2, 0, 2, 1]).to(device)
        losses = []
        for _ in range(8):
            opt.zero_grad()
            loss = F.cross_entropy(lin(emb(tokens).mean(1)), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().cpu() for p in list(emb.parameters()) + list(lin.parameters())]

    before = kernels("scatter_add")
    losses_c, params_c = run("cpu")
    losses_d, params_d = run("cuda")
    assert kernels("scatter_add") >= before + 8
    assert losses_d[-1] < losses_d[0], losses_d
    for lc, ld in zip(losses_c, losses_d):
        assert abs(lc - ld) < 1e-5, (losses_c, losses_d)
    for pc, pd in zip(params_c, params_d):
        assert torch.allclose(pc, pd, atol=1e-5), (pc, pd)
    assert params_d[0][0].abs().sum().item() == 0      # the padding row never moved


def case_data_parallel_over_two_devices():
    """nn.DataParallel on cuda:0 and cuda:1: the batch is split, each half
    runs on its device, outputs come back to output_device, and training
    gives the CPU's parameters (replica gradients add up in the module's)."""
    seen = []

    class Probe(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(6, 3)
            self.register_buffer("scale", torch.tensor(2.0))

        def forward(self, x, bias=None):
            seen.append((x.device.index, x.shape[0], self.lin.weight.device.index,
                         self.scale.device.index))
            out = self.lin(x) * self.scale
            return (out, out.sum()) if bias is None else out + bias

    def run(dp):
        torch.manual_seed(0)
        m = Probe()
        x = torch.randn(10, 6)
        y = torch.randint(0, 3, (10,))
        if dp:
            m = m.cuda(0)
            model = torch.nn.DataParallel(m, device_ids=[0, 1])
            x, y = x.cuda(0), y.cuda(0)
        else:
            model = m
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(3):
            opt.zero_grad()
            out, total = model(x)
            loss = F.cross_entropy(out, y) + total.sum() * 1e-3
            loss.backward()
            opt.step()
        return out, loss.item(), [p.detach().cpu() for p in m.parameters()]

    out_c, loss_c, params_c = run(False)
    del seen[:]
    out_d, loss_d, params_d = run(True)
    assert out_d.device == torch.device("cuda:0") and out_d.shape == (10, 3)
    assert seen[:2] == [(0, 5, 0, 0), (1, 5, 1, 1)], seen
    assert abs(loss_c - loss_d) < 1e-5, (loss_c, loss_d)
    for pc, pd in zip(params_c, params_d):
        assert torch.allclose(pc, pd, atol=1e-6), (pc, pd)
    # output_device, keyword arguments split along dim, a batch smaller
    # than the device count
    m = Probe().cuda(0)
    dp = torch.nn.DataParallel(m, device_ids=[0, 1], output_device=1)
    x = torch.randn(4, 6).cuda(0)
    b = torch.ones(4, 3).cuda(0)
    del seen[:]
    r = dp(x, bias=b)
    assert r.device == torch.device("cuda:1") and [s[:2] for s in seen] == [(0, 2), (1, 2)]
    close(r, (m.lin(x) * 2 + b).cpu(), 1e-6)
    del seen[:]
    r = dp(x[:1], bias=b[:1])
    assert r.shape == (1, 3) and [s[:2] for s in seen] == [(0, 1)], seen
    raises(RuntimeError, lambda: torch.nn.DataParallel(Probe(), device_ids=[0, 1])(x))


def case_backward_runs_on_the_forward_stream():
    """Note [Backward in stream order]: the backward of ops run under
    torch.cuda.stream(s) is queued on s, after the caller's stream (an
    event wait), and the caller's stream waits for it at the end; with one
    stream throughout there is no wait at all."""
    kernels("copy")                          # loads the library
    lib = _fake[0]
    lib.fake_cuda_stream_kernels.restype = ctypes.c_long
    lib.fake_cuda_stream_kernels.argtypes = [ctypes.c_void_p]
    lib.fake_cuda_stream_waits.restype = ctypes.c_long

    def on(stream):
        return lib.fake_cuda_stream_kernels(stream.cuda_stream or None)

    torch.manual_seed(5)
    x = torch.randn(4, 3).cuda().requires_grad_()
    d = torch.cuda.default_stream()
    y = (x * 2).exp().sum()
    before_d, waits = on(d), lib.fake_cuda_stream_waits()
    y.backward()
    assert on(d) > before_d and lib.fake_cuda_stream_waits() == waits
    s = torch.cuda.Stream()
    x.grad = None
    with torch.cuda.stream(s):
        s.wait_stream(d)
        y = (x * 2).exp().sum()
    before_s, before_d, waits = on(s), on(d), lib.fake_cuda_stream_waits()
    y.backward()
    # exp's and mul's backward on s; the root's ones on the caller's stream
    assert on(s) - before_s >= 2, on(s) - before_s
    assert on(d) - before_d <= 1, on(d) - before_d
    assert lib.fake_cuda_stream_waits() - waits == 2
    close(x.grad, (2 * (x.detach() * 2).exp()).cpu(), 1e-6)


def case_pin_memory():
    """Tensor.pin_memory() copies into the part's page-locked memory (a
    contiguous copy; views of it are pinned too; freed with the tensor),
    DataLoader(pin_memory=True) pins its batches, device tensors refuse."""
    import gc
    kernels("copy")
    lib = _fake[0]
    lib.fake_cuda_pinned_blocks.restype = ctypes.c_long
    blocks = lib.fake_cuda_pinned_blocks()
    t = torch.arange(6.).reshape(2, 3).t()
    assert not t.is_pinned()
    p = t.pin_memory()
    assert p.is_pinned() and p.is_contiguous() and p.device.type == "cpu"
    assert p.tolist() == t.tolist() and p.pin_memory() is p and p[1].is_pinned()
    assert lib.fake_cuda_pinned_blocks() == blocks + 1
    same(p.cuda(non_blocking=True), t)
    raises(RuntimeError, lambda: p.cuda().pin_memory(),
           "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned")
    from ctorch.utils.data import DataLoader, TensorDataset
    dl = DataLoader(TensorDataset(torch.arange(8.), torch.arange(8)), batch_size=4,
                    pin_memory=True)
    for x, y in dl:
        assert x.is_pinned() and y.is_pinned()
    del p, x, y, dl
    gc.collect()
    assert lib.fake_cuda_pinned_blocks() == blocks


# --- pooling: max, average, adaptive (gathers over a window table) ---------

_TWO_DEVICES = ("Expected all tensors to be on the same device, but found at least two "
                "devices, %s and %s!")


def _pool_grads(fn, x, device):
    """fn(x) on device and x's gradient under a fixed weighting."""
    xs = x.detach().clone().to(device).requires_grad_()
    y = fn(xs)
    torch.manual_seed(99)
    w = torch.randn(*y.shape).to(y.dtype)
    (y * w.to(device)).sum().backward()
    return y.detach(), xs.grad


# --- scans and selections (device_scan.c, device_select.c) ------------------

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _views(s):
    """s and non-contiguous, 1-d, 0-dim and empty views of it."""
    return (s, s.t(), s[:, 1:3], s[0], s[1:, ::2], s[0, 0], s[:0], s[:, :0].t())


def case_cumulative_ops_on_device():
    nan = float("nan")
    for dt in DTYPES:
        for v in _views(sample(dt)):
            for d in range(-max(v.dim(), 1), max(v.dim(), 1)):
                if dt not in _FLOATS:
                    # integers and bool: int64 results, exactly the CPU's
                    same(v.cuda().cumsum(d), v.cumsum(d))
                    same(v.cuda().cumprod(d), v.cumprod(d))
                    f64 = torch.float64
                    same(v.cuda().cumsum(d, dtype=f64), v.cumsum(d, dtype=f64))
                elif dt == torch.float16:
                    # PyTorch's CUDA scans take half, its CPU ones do not
                    ref = v.float()
                    close(v.cuda().cumsum(d), ref.cumsum(d).half(), 1e-2)
                    close(v.cuda().cumprod(d), ref.cumprod(d).half(), 1e-2)
                else:
                    tol = 1e-2 if dt == torch.bfloat16 else 1e-6
                    close(v.cuda().cumsum(d), v.cumsum(d), tol)
                    close(v.cuda().cumprod(d), v.cumprod(d), tol)
                for op in ("cummax", "cummin"):
                    a = getattr(v.cuda(), op)(d)
                    b = getattr(v.float() if dt == torch.float16 else v, op)(d)
                    same(a.values, b.values.to(dt))
                    same(a.indices, b.indices)
    # ties, signed zeros and NaNs: the last index of the running extreme
    ties = torch.tensor([[1., 3, 3, 1, nan, 2, nan, 0, -0., 0.],
                         [0, -0., 0, 5, 5, 1, 2, 7, 7, -1],
                         [nan, 1, nan, nan, -2, 9, 9, 9, nan, 0]])
    torch.manual_seed(40)
    long_ties = torch.randint(-3, 4, (3, 37))        # steps k = 1 .. 32
    for t in (ties, ties.double(), ties.t(), long_ties, long_ties.t(), long_ties.to(torch.int8)):
        for d in (0, 1):
            for op in ("cummax", "cummin"):
                a, b = getattr(t.cuda(), op)(d), getattr(t, op)(d)
                same(a.values, b.values)
                same(a.indices, b.indices)
            if t.dtype not in _FLOATS:
                same(t.cuda().cumsum(d), t.cumsum(d))
    # float sums and products over longer lines and three dims
    x = torch.randn(5, 37, 6)
    for d in (0, 1, 2, -1):
        close(x.cuda().cumsum(d), x.cumsum(d), 1e-5)
        close((x.cuda() * 0.3 + 1).cumprod(d), (x * 0.3 + 1).cumprod(d), 1e-5)
        close(x.cuda().cumsum(d, dtype=torch.float64), x.cumsum(d, dtype=torch.float64), 1e-12)
        close(x.permute(2, 0, 1).cuda().cumsum(d), x.permute(2, 0, 1).cumsum(d), 1e-5)
    # int64 wraps as on the CPU
    big = torch.tensor([2 ** 62, 2 ** 62, 2 ** 62, -5])
    same(big.cuda().cumsum(0), big.cumsum(0))
    same(torch.full((70,), 3).cuda().cumprod(0), torch.full((70,), 3).cumprod(0))
    # the CPU's errors
    y = torch.arange(24.).reshape(2, 3, 4)
    for fn in (lambda t: t.cumsum(3), lambda t: t.cumprod(-4), lambda t: t.cummax(3),
               lambda t: t.cummin(-4)):
        raises(IndexError, lambda: fn(y.cuda()), raises(IndexError, lambda: fn(y)))


def case_cumulative_backward_on_device():
    torch.manual_seed(41)
    x = torch.randn(4, 9)
    xz = x.clone()
    xz[1, 3] = 0
    xz[2, 0] = 0
    xz[2, 5] = 0
    xz[3, 8] = 0
    fns = [lambda t: t.cumsum(1), lambda t: t.cumsum(0, dtype=torch.float64),
           lambda t: t.cumprod(1), lambda t: t.cumprod(0), lambda t: t.cummax(1)[0],
           lambda t: t.cummin(0)[0], lambda t: t[:, 2:].t().cumsum(1),
           lambda t: t[1:, ::2].cumprod(1), lambda t: t[2].cummax(0)[0],
           lambda t: t.prod(1), lambda t: t.prod().reshape(1)]
    for fn in fns:
        _check_grads(fn, [x], tol=1e-4)
        _check_grads(fn, [xz], tol=1e-4)     # cumprod: the masked formula
    for fn in (lambda t: t.cumsum(0), lambda t: t.cumprod(0), lambda t: t.cummax(0)[0]):
        _check_grads(lambda t: fn(t).reshape(1), [torch.tensor(3.)])
        _check_grads(fn, [torch.zeros(0)])
    # create_graph through cumprod with zeros (ones made on the device)
    xd, xc = xz.cuda().requires_grad_(), xz.clone().requires_grad_()
    gd, = torch.autograd.grad(xd.cumprod(1).sum(), xd, create_graph=True)
    gc, = torch.autograd.grad(xc.cumprod(1).sum(), xc, create_graph=True)
    close(gd.detach(), gc.detach(), 1e-4)
    (gd * gd).sum().backward()
    (gc * gc).sum().backward()
    close(xd.grad, xc.grad, 1e-3)
    # count_nonzero, which cumprod's backward counts zeros with
    same(torch.count_nonzero(xz.cuda()), torch.count_nonzero(xz))
    same(torch.count_nonzero(xz.cuda(), 1), torch.count_nonzero(xz, 1))


def case_nonzero_and_masked_select_on_device():
    for dt in DTYPES:
        for v in _views(sample(dt)):
            same(v.cuda().nonzero(), v.nonzero())
            m = v.bool() if dt == torch.bool else v > 1
            same(v.cuda().masked_select(m.cuda()), v.masked_select(m))
            same(v.cuda()[m.cuda()], v[m])
            if v.dim() == 2 and v.shape[0] > 0:
                same(v.cuda().masked_select(m[0].cuda()), v.masked_select(m[0]))
    torch.manual_seed(42)
    x = torch.randn(3, 4, 5)
    m = x > 0.3
    same(x.cuda().nonzero(), x.nonzero())
    same(x.permute(2, 0, 1).cuda().nonzero(), x.permute(2, 0, 1).nonzero())
    w = torch.randn(3, 1, 7, 6, 5) > 0.5
    same(w.cuda().nonzero(), w.nonzero())
    same(w.permute(4, 2, 0, 3, 1).cuda().nonzero(), w.permute(4, 2, 0, 3, 1).nonzero())
    same(torch.arange(1, 300).cuda().nonzero(), torch.arange(1, 300).nonzero())
    same(x.cuda().masked_select(m.cuda()), x.masked_select(m))
    same(x.cuda()[m.cuda()], x[m])
    same(x.cuda()[m[:, :, 0].cuda()], x[m[:, :, 0]])
    same(x.cuda()[:, m[1].cuda()], x[:, m[1]])
    same(x.cuda()[1:, m[0, :, 0].cuda(), ::2], x[1:, m[0, :, 0], ::2])
    same(torch.zeros(3, 4).cuda().nonzero(), torch.zeros(3, 4).nonzero())
    same(torch.ones(3, 4).cuda().nonzero(), torch.ones(3, 4).nonzero())
    same(torch.tensor(0.).cuda().nonzero(), torch.tensor(0.).nonzero())
    # bit for bit: signed zeros and NaN move through gather
    z = torch.tensor([-0.0, 1.0, float("nan"), -0.0, 2.0])
    k = torch.tensor([True, False, True, True, False])
    same(z.cuda().masked_select(k.cuda()), z.masked_select(k))
    # the CPU's errors, and PyTorch's for two devices
    cpu = raises(RuntimeError, lambda: x.masked_select(x))
    raises(RuntimeError, lambda: x.cuda().masked_select(x.cuda()), cpu)
    raises(RuntimeError, lambda: x.cuda().masked_select(m), _TWO_DEVICES % ("cuda:0", "cpu"))
    # backward through t[mask]
    _check_grads(lambda t: t[t > 0.3] * 2, [x])
    _check_grads(lambda t: t.cumsum(0)[t.cumsum(1) > 0.5], [x], tol=1e-4)


def case_take_and_index_on_device():
    for dt in DTYPES:
        s = sample(dt)
        i = torch.tensor([[0, -1], [5, 11]])
        same(s.cuda().take(i.cuda()), s.take(i))
        same(s.t().cuda().take(i.cuda()), s.t().take(i))
        same(s.cuda()[torch.tensor([2, 0, -1]).cuda()], s[torch.tensor([2, 0, -1])])
        same(s.t().cuda()[torch.tensor([1, 1]), torch.tensor([2, -3])],
             s.t()[torch.tensor([1, 1]), torch.tensor([2, -3])])
    same(torch.tensor(5.).cuda().take(torch.tensor([0, -1]).cuda()),
         torch.tensor(5.).take(torch.tensor([0, -1])))
    same(torch.zeros(0).cuda().take(torch.zeros(2, 0, dtype=torch.long).cuda()),
         torch.zeros(0).take(torch.zeros(2, 0, dtype=torch.long)))
    y = torch.arange(120.).reshape(2, 3, 4, 5)
    a, b = torch.tensor([[0, 1], [1, 0]]), torch.tensor([2, -1])
    reads = [lambda t, a, b: t[a, :, b], lambda t, a, b: t[:, a, b], lambda t, a, b: t[a],
             lambda t, a, b: t[:, :, :, b], lambda t, a, b: t[1, a, :, b],
             lambda t, a, b: t.permute(3, 1, 0, 2)[b, a], lambda t, a, b: t[a, b.int()],
             lambda t, a, b: t[:, :0, a], lambda t, a, b: t[..., a[:, :1], b],
             lambda t, a, b: t[a[:0]], lambda t, a, b: t[:, 1:, a][:, :, ::2]]
    for fn in reads:
        same(fn(y.cuda(), a.cuda(), b.cuda()), fn(y, a, b))
        same(fn(y.cuda(), a, b), fn(y, a, b))        # CPU index tensors are moved
    # the CPU's errors, and PyTorch's for an index on another device
    for bad in (lambda t, d: t.take(torch.tensor([0, 120]).to(d)),
                lambda t, d: t.take(torch.tensor([[-121]]).to(d)),
                lambda t, d: t[torch.tensor([0, 2]).to(d)],
                lambda t, d: t[:, torch.tensor([-4]).to(d)],
                lambda t, d: t[torch.tensor([0, 1]).to(d), torch.tensor([0, 1, 2]).to(d)]):
        cpu = raises(IndexError, lambda: bad(y, "cpu"))
        raises(IndexError, lambda: bad(y.cuda(), "cuda"), cpu)
    cpu = raises(RuntimeError, lambda: y.take(torch.tensor([0.])))
    raises(RuntimeError, lambda: y.cuda().take(torch.tensor([0.]).cuda()), cpu)
    raises(RuntimeError, lambda: y.cuda().take(torch.tensor([0])),
           _TWO_DEVICES % ("cuda:0", "cpu"))
    raises(RuntimeError, lambda: y[torch.tensor([0]).cuda()],
           "indices should be either on cpu or on the same device as the indexed tensor (cpu)")
    # index_put_ with accumulate (scatter_add), duplicates included
    r = torch.arange(3).reshape(3, 1)
    puts = [((torch.tensor([0, 0, 2]),), torch.ones(4)),
            ((torch.tensor([0, 0, 2]), torch.tensor([1, 1, -1])), torch.tensor(2)),
            ((r, torch.tensor([3, 3])), torch.arange(6).reshape(3, 2))]
    for dt in (torch.float32, torch.float64, torch.int64, torch.int32):
        z = torch.arange(12).reshape(3, 4).to(dt)
        for idx, v in puts:
            v = v.to(dt)
            zc = z.clone()
            zc.index_put_(idx, v, accumulate=True)
            zd = z.cuda()
            zd.index_put_(tuple(i.cuda() for i in idx), v.cuda(), accumulate=True)
            same(zd, zc)
            zd = z.cuda()                           # CPU indices, a 0-dim CPU value
            zd.index_put_(idx, v.sum(), accumulate=True)
            zc = z.clone()
            zc.index_put_(idx, v.sum(), accumulate=True)
            same(zd, zc)
        zt = z.t().cuda()                           # non-contiguous: written back
        zt.index_put_((torch.tensor([1, 1]).cuda(),), torch.ones(3).to(dt).cuda(),
                      accumulate=True)
        zc = z.t().clone()
        zc.index_put_((torch.tensor([1, 1]),), torch.ones(3).to(dt), accumulate=True)
        same(zt, zc)
    cpu = raises(IndexError, lambda: torch.zeros(3).index_put_((torch.tensor([3]),),
                                                               torch.ones(1), accumulate=True))
    raises(IndexError, lambda: torch.zeros(3).cuda().index_put_(
        (torch.tensor([3]).cuda(),), torch.ones(1).cuda(), accumulate=True), cpu)
    # assignment (t[index] = v, masked_scatter): each target's one writer
    x = torch.tensor([[0., 1.5, -2, 3.25], [100, -0., 7, 0], [1, 2, 3, 4]])
    m = x > 1
    for dt in DTYPES:
        z = sample(dt)
        v = torch.tensor([-0., 9, 8, float("nan")]).to(dt)
        for idx, val in (((torch.tensor([0, 2]),), v),
                         ((torch.tensor([2, 0]), torch.tensor([1, -1])), v[2:]), ((m,), v[1])):
            zc, zd = z.clone(), z.cuda()
            zc[idx] = val
            zd[tuple(i.cuda() for i in idx)] = val.cuda()
            same(zd, zc)
        zt, zc = z.t().cuda(), z.t().clone()        # non-contiguous: written back
        zt[:, torch.tensor([1]).cuda()] = v.reshape(4, 1).cuda()
        zc[:, torch.tensor([1])] = v.reshape(4, 1)
        same(zt, zc)
        src = torch.arange(20.).to(dt)
        same(z.cuda().masked_scatter(m.cuda(), src.cuda()), z.masked_scatter(m, src))
    cpu = raises(RuntimeError, lambda: x.masked_scatter(m, torch.ones(2)))
    raises(RuntimeError, lambda: x.cuda().masked_scatter(m.cuda(), torch.ones(2).cuda()), cpu)
    _check_grads(lambda t: t.masked_select((t > 1).to(t.device)), [x])
    # backward: index_put_ / put_ with accumulate into zeros on the device
    x = torch.randn(3, 4)
    _check_grads(lambda t: t[torch.tensor([0, 0, 2]).to(t.device)], [x])
    _check_grads(lambda t: t[:, torch.tensor([[1, 1], [3, -4]]).to(t.device)], [x])
    _check_grads(lambda t: t.t()[torch.tensor([1, 1]).to(t.device), torch.tensor([2, 0])], [x])
    _check_grads(lambda t: t.take(torch.tensor([0, 0, 5, -1]).to(t.device)), [x])


def case_index_put_duplicate_targets():
    """Assignment through repeated indices keeps the last writer of each
    target, as the CPU does (PyTorch's CUDA leaves it unspecified, but it
    is always one of that target's own values)."""
    for dt in (torch.float32, torch.int64, torch.float16):
        x = torch.zeros(5, dtype=dt)
        idx = torch.tensor([0, 0, 1, 4, 0, 4])
        v = torch.tensor([1, 2, 3, 4, 5, 6], dtype=dt)
        xd = x.cuda()
        xd[idx.cuda()] = v.cuda()
        x[idx] = v
        same(xd, x)
        assert x.tolist() == [5, 3, 0, 0, 6]
        m = torch.zeros(3, 4, dtype=dt)
        rows, cols = torch.tensor([2, 0, 2, 2]), torch.tensor([1, 3, 1, 1])
        md = m.cuda()
        md.index_put_((rows.cuda(), cols.cuda()), torch.tensor([7, 8, 9, 10], dtype=dt).cuda())
        m.index_put_((rows, cols), torch.tensor([7, 8, 9, 10], dtype=dt))
        same(md, m)


def case_max_pool2d_on_device():
    torch.manual_seed(30)
    x = torch.randn(2, 3, 9, 8)
    variants = [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)},
                {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2},
                {"kernel_size": 3, "stride": 2, "ceil_mode": True},
                {"kernel_size": (2, 3), "stride": 3, "padding": 1, "dilation": (2, 1),
                 "ceil_mode": True}]
    for kw in variants:
        before = kernels("gather")
        vd, idd = F.max_pool2d(x.cuda(), return_indices=True, **kw)
        assert kernels("gather") > before
        vc, ic = F.max_pool2d(x, return_indices=True, **kw)
        same(vd, vc)
        same(idd, ic)
        # unbatched [C, H, W]
        vd, idd = F.max_pool2d(x[0].cuda(), return_indices=True, **kw)
        vc, ic = F.max_pool2d(x[0], return_indices=True, **kw)
        same(vd, vc)
        same(idd, ic)
        same(F.max_pool2d(x.double().cuda(), **kw), F.max_pool2d(x.double(), **kw))
        same(F.max_pool2d(x.bfloat16().cuda(), **kw), F.max_pool2d(x.bfloat16(), **kw))
        # float16: PyTorch's CUDA takes it (the CPU does not): float32's answer
        vh, ih = F.max_pool2d(x.half().cuda(), return_indices=True, **kw)
        vf, if_ = F.max_pool2d(x.half().float(), return_indices=True, **kw)
        same(vh, vf.half())
        same(ih, if_)
        # gradients: grad_output scattered to the maxima
        for xs in (x, x[1]):
            yd, gd = _pool_grads(lambda t: F.max_pool2d(t, **kw), xs, "cuda")
            yc, gc = _pool_grads(lambda t: F.max_pool2d(t, **kw), xs, "cpu")
            same(yd, yc)
            close(gd, gc, 1e-6)
    # ties take the first maximum; windows of -inf (and padding) report the
    # window's first element in the plane, as the CPU
    t = torch.tensor([[[[1.0, 1.0, float("-inf")], [1.0, 0.0, float("-inf")],
                        [float("-inf"), float("-inf"), float("-inf")]]]])
    t2 = torch.full((1, 1, 4, 4), float("-inf"))
    t2[0, 0, 1, 1], t2[0, 0, 3, 3] = 2.0, 5.0
    for tt in (t, t2):
        for kw in ({"kernel_size": 2, "stride": 1}, {"kernel_size": 2, "padding": 1},
                   {"kernel_size": 3, "padding": 1, "stride": 2, "ceil_mode": True}):
            vd, idd = F.max_pool2d(tt.cuda(), return_indices=True, **kw)
            vc, ic = F.max_pool2d(tt, return_indices=True, **kw)
            same(vd, vc)
            same(idd, ic)
    # an empty batch; max_pool1d through max_pool2d; the module
    same(F.max_pool2d(torch.empty(0, 3, 5, 5).cuda(), 2), F.max_pool2d(torch.empty(0, 3, 5, 5), 2))
    s = torch.randn(2, 3, 11)
    same(F.max_pool1d(s.cuda(), 3, 2, 1), F.max_pool1d(s, 3, 2, 1))
    same(torch.nn.MaxPool2d(3, 2, ceil_mode=True).cuda()(x.cuda()),
         torch.nn.MaxPool2d(3, 2, ceil_mode=True)(x))
    # the CPU's errors
    bad = [lambda t: F.max_pool2d(t, 3, padding=2),
           lambda t: F.max_pool2d(t, 2, stride=0),
           lambda t: F.max_pool2d(t, 2, dilation=0),
           lambda t: F.max_pool2d(t, 2, padding=-1),
           lambda t: F.max_pool2d(t[0, 0], 2),
           lambda t: F.max_pool2d(t, 10),
           lambda t: F.max_pool2d(t[:, :, :0], 2),
           lambda t: F.max_pool2d(t.int(), 2)]
    for fn in bad:
        raises(RuntimeError, lambda: fn(x.cuda()), raises(RuntimeError, lambda: fn(x)))
    # a CPU gradient for a device pool: refused before it reaches the pool
    xd = x.cuda().requires_grad_()
    y = F.max_pool2d(xd, 2)
    raises(RuntimeError, lambda: y.backward(torch.ones(*y.shape)),
           "invalid gradient at index 0 - expected device cuda:0 but got cpu")


def case_avg_pool2d_on_device():
    torch.manual_seed(31)
    x = torch.randn(2, 3, 9, 8)
    variants = [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
                {"kernel_size": (3, 2), "stride": (2, 3), "padding": (1, 1),
                 "ceil_mode": True},
                {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                 "count_include_pad": False},
                {"kernel_size": 3, "padding": 1, "divisor_override": 5},
                {"kernel_size": 2, "stride": 3, "ceil_mode": True, "divisor_override": 3}]
    for kw in variants:
        before = kernels("gather")
        close(F.avg_pool2d(x.cuda(), **kw), F.avg_pool2d(x, **kw), 1e-6)
        assert kernels("gather") == before + 1
        close(F.avg_pool2d(x[1].cuda(), **kw), F.avg_pool2d(x[1], **kw), 1e-6)
        close(F.avg_pool2d(x.double().cuda(), **kw), F.avg_pool2d(x.double(), **kw), 1e-12)
        close(F.avg_pool2d(x.bfloat16().cuda(), **kw).float(),
              F.avg_pool2d(x.bfloat16(), **kw).float(), 1e-2)
        close(F.avg_pool2d(x.half().cuda(), **kw).float(),
              F.avg_pool2d(x.half().float(), **kw), 1e-3)
        for xs in (x, x[0]):
            yd, gd = _pool_grads(lambda t: F.avg_pool2d(t, **kw), xs, "cuda")
            yc, gc = _pool_grads(lambda t: F.avg_pool2d(t, **kw), xs, "cpu")
            close(yd, yc, 1e-6)
            close(gd, gc, 1e-6)
    same(F.avg_pool2d(torch.empty(0, 2, 4, 4).cuda(), 2), F.avg_pool2d(torch.empty(0, 2, 4, 4), 2))
    s = torch.randn(2, 3, 11)
    close(F.avg_pool1d(s.cuda(), 3, 2, 1), F.avg_pool1d(s, 3, 2, 1), 1e-6)
    # the CPU's errors; int64 is refused as by PyTorch's CUDA
    bad = [lambda t: F.avg_pool2d(t, 3, padding=2), lambda t: F.avg_pool2d(t, 2, stride=0),
           lambda t: F.avg_pool2d(t, 10), lambda t: F.avg_pool2d(t.int(), 2)]
    for fn in bad:
        raises(RuntimeError, lambda: fn(x.cuda()), raises(RuntimeError, lambda: fn(x)))
    raises(IndexError, lambda: F.avg_pool2d(x[0, 0].cuda(), 2),
           raises(IndexError, lambda: F.avg_pool2d(x[0, 0], 2)))
    raises(RuntimeError, lambda: F.avg_pool2d(x.long().cuda(), 2),
           "\"avg_pool2d_out_cuda_frame\" not implemented for 'Long'")


def case_adaptive_pools_on_device():
    torch.manual_seed(32)
    x = torch.randn(2, 3, 9, 7)
    for osz in ((3, 2), (4, 5), 1, (9, 7), (12, 10), (None, 3)):
        close(F.adaptive_avg_pool2d(x.cuda(), osz), F.adaptive_avg_pool2d(x, osz), 1e-6)
        close(F.adaptive_avg_pool2d(x[0].cuda(), osz), F.adaptive_avg_pool2d(x[0], osz), 1e-6)
        vd, idd = F.adaptive_max_pool2d(x.cuda(), osz, return_indices=True)
        vc, ic = F.adaptive_max_pool2d(x, osz, return_indices=True)
        same(vd, vc)
        same(idd, ic)
        for fn in (lambda t: F.adaptive_avg_pool2d(t, osz),
                   lambda t: F.adaptive_max_pool2d(t, osz)):
            for xs in (x, x[1]):
                yd, gd = _pool_grads(fn, xs, "cuda")
                yc, gc = _pool_grads(fn, xs, "cpu")
                close(yd, yc, 1e-6)
                close(gd, gc, 1e-6)
    close(F.adaptive_avg_pool2d(x.bfloat16().cuda(), 3).float(),
          F.adaptive_avg_pool2d(x.bfloat16(), 3).float(), 1e-2)
    same(F.adaptive_max_pool2d(x.double().cuda(), (2, 4)), F.adaptive_max_pool2d(x.double(), (2, 4)))
    same(F.adaptive_avg_pool2d(x.cuda(), (0, 3)), F.adaptive_avg_pool2d(x, (0, 3)))
    # float16 gradients of every pool (the device takes half): float32's
    for fn in (lambda t: F.max_pool2d(t, 3, 2, 1), lambda t: F.avg_pool2d(t, 3, 2, 1),
               lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
               lambda t: F.adaptive_max_pool2d(t, (3, 4))):
        xh = x.half().cuda().requires_grad_()
        fn(xh).float().sum().backward()
        xf = x.half().float().requires_grad_()
        fn(xf).sum().backward()
        close(xh.grad, xf.grad.half(), 1e-3)
    bad = [lambda t: F.adaptive_avg_pool2d(t, (-1, 2)), lambda t: F.adaptive_max_pool2d(t, (-1, 2)),
           lambda t: F.adaptive_avg_pool2d(t[0, 0], 2), lambda t: F.adaptive_max_pool2d(t[:, :, :0], 2),
           lambda t: F.adaptive_avg_pool2d(t.int(), 2)]
    for fn in bad:
        raises(RuntimeError, lambda: fn(x.cuda()), raises(RuntimeError, lambda: fn(x)))


def case_pooling_training_step_matches_cpu():
    """BatchNorm2d -> AvgPool2d -> MaxPool2d -> Flatten -> Linear -> ReLU ->
    Linear, with cross-entropy and SGD: the device's steps give the CPU's
    parameters (batch norm first, so that both pools' backwards run)."""
    def run(device):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.BatchNorm2d(2),
                                    torch.nn.AvgPool2d(3, stride=1, padding=1),
                                    torch.nn.MaxPool2d(2, ceil_mode=True),
                                    torch.nn.Flatten(), torch.nn.Linear(2 * 4 * 4, 12),
                                    torch.nn.ReLU(), torch.nn.Linear(12, 3)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = torch.randn(24, 2, 7, 7)
        y = (x[:, 0, :3].mean((1, 2)) > 0).long() + (x[:, 1, 3:].mean((1, 2)) > 0).long()
        x, y = x.to(device), y.to(device)
        losses = []
        for _ in range(10):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().cpu() for p in model.parameters()]

    losses_c, params_c = run("cpu")
    before = kernels("scatter_add")
    losses_d, params_d = run("cuda")
    assert kernels("scatter_add") >= before + 20    # both pools' backwards, each step
    assert losses_d[-1] < losses_d[0], losses_d
    for lc, ld in zip(losses_c, losses_d):
        assert abs(lc - ld) < 1e-5, (losses_c, losses_d)
    for pc, pd in zip(params_c, params_d):
        assert torch.allclose(pc, pd, atol=1e-5), (pc, pd)


def case_optimizers_and_clipping_match_cpu():
    """Adam, AdamW, RMSprop and Adagrad steps with clip_grad_norm_ (addcmul,
    addcdiv, clamp and the vector norm on the device) give the CPU's
    parameters and norms."""
    def run(device, optcls):
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(),
                                torch.nn.Linear(8, 3)).to(device)
        opt = optcls(m.parameters(), lr=0.01)
        x, y = torch.randn(10, 6).to(device), torch.randint(0, 3, (10,)).to(device)
        norms = []
        for _ in range(4):
            opt.zero_grad()
            F.cross_entropy(m(x), y).backward()
            norms.append(float(torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5)))
            opt.step()
        return norms, [p.detach().cpu() for p in m.parameters()]

    for optcls in (torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop,
                   torch.optim.Adagrad):
        nc, pc = run("cpu", optcls)
        nd, pd = run("cuda", optcls)
        assert max(abs(a - b) for a, b in zip(nc, nd)) < 1e-5, (optcls, nc, nd)
        for a, b in zip(pc, pd):
            assert torch.allclose(a, b, atol=1e-5), (optcls, a, b)
    x = torch.tensor([[3.0, -4.0, 0.5], [0.0, 1.5, -2.0]])
    for p in (2, 1, 0, float("inf"), float("-inf"), 3, 0.5):
        close(torch.norm(x.cuda(), p), torch.norm(x, p), 1e-6)
        close(torch.linalg.vector_norm(x.cuda(), p, dim=1, keepdim=True),
              torch.linalg.vector_norm(x, p, dim=1, keepdim=True), 1e-6)
    close(torch.norm(x.cuda().half(), 2).float(), torch.norm(x, 2), 1e-3)
    xd = x.cuda().requires_grad_()
    torch.norm(xd).backward()
    close(xd.grad, x / torch.norm(x), 1e-6)
    t = torch.tensor([1.0, -2.0, 3.5])
    close(torch.addcmul(t.cuda(), t.cuda(), t.cuda() * 2, value=0.5),
          torch.addcmul(t, t, t * 2, value=0.5))
    close(torch.addcdiv(t.cuda(), t.cuda(), t.cuda() + 4, value=-3),
          torch.addcdiv(t, t, t + 4, value=-3))
    u = t.cuda()
    u.addcmul_(u, u, value=2)
    close(u, torch.addcmul(t, t, t, value=2))
    close(t.cuda().clamp(-1, 2), t.clamp(-1, 2))
    close(t.cuda().clamp(max=torch.tensor(0.5)), t.clamp(max=0.5))
    # dropout samples on the device (case_cuda_sampling_ops has more)
    d = F.dropout(t.cuda()).cpu()
    assert all(v == 0 or v == 2 * w for v, w in zip(d.tolist(), t.tolist())), d
    close(F.dropout(t.cuda(), training=False), t)
    close(F.dropout(t.cuda(), p=1.0), F.dropout(t, p=1.0))


def _sort_inputs(dt, big=False):
    """CPU inputs of dtype dt for the sorting cases: ties (few distinct
    values), NaN, +-inf and -0.0 for floating dtypes, lengths 0, 1 and
    lengths that are not powers of two, 0-dim, and strided views; with big,
    rows of 100 too."""
    xs = [torch.tensor(2.5), torch.tensor([]), torch.tensor([3.]),
          torch.tensor([1., 0., 2., 1., 1.]), torch.tensor([5., -1., 5., 2., 0., 2., 7., 5.])]
    g = torch.Generator().manual_seed(7)
    m = torch.randint(-4, 5, (3, 13), generator=g).double()
    c = torch.randint(-4, 5, (4, 6, 5), generator=g).double()
    xs += [m, c, torch.zeros(2, 0, 3), m.t(), c.permute(2, 0, 1)[:, ::2]]
    if big:
        w = torch.randint(-40, 41, (2, 100), generator=g).double()
        xs += [w, w[:, 1::3]]
    out = []
    for x in xs:
        if dt.is_floating_point:
            x = torch.where(x == 3, torch.tensor(float("nan")), x)
            x = torch.where(x == 4, torch.tensor(float("inf")), x)
            x = torch.where(x == -4, torch.tensor(float("-inf")), x)
            x = torch.where(x == -3, torch.tensor(-0.0), x)
            x = x / 2 if dt != torch.float16 else x
        if dt == torch.bool:
            out.append(x > 0)
        elif dt == torch.uint8:
            out.append(x.abs().to(dt))
        else:
            out.append(x.to(dt))
    return out


def _dims(x):
    return range(-max(x.dim(), 1), max(x.dim(), 1))


def case_sort_and_argsort_on_device():
    for dt in DTYPES:
        big = dt in (torch.int32, torch.int64, torch.float32, torch.float64)
        for x in _sort_inputs(dt, big):
            xd = x.cuda()
            for dim in _dims(x):
                # stable or not, the CPU's order (ties in input order)
                for desc, stable in ((False, True), (True, False)):
                    v, i = torch.sort(xd, dim=dim, descending=desc, stable=stable)
                    cv, ci = torch.sort(x, dim=dim, descending=desc, stable=stable)
                    same(v, cv)
                    same(i, ci)
            same(torch.argsort(xd, dim=-1, descending=True), torch.argsort(x, dim=-1, descending=True))
            same(xd.sort()[0], x.sort()[0])
    # the CPU's errors
    x = torch.tensor([[1., 2.], [3., 0.]])
    cpu = raises(IndexError, lambda: torch.sort(x, dim=2))
    raises(IndexError, lambda: torch.sort(x.cuda(), dim=2), cpu)
    cpu = raises(IndexError, lambda: torch.argsort(x, dim=-3))
    raises(IndexError, lambda: torch.argsort(x.cuda(), dim=-3), cpu)


def case_topk_kthvalue_on_device():
    for dt in (torch.bool, torch.float16, torch.uint8, torch.int64, torch.bfloat16,
               torch.float32, torch.float64):
        for x in _sort_inputs(dt, dt == torch.float32):
            xd = x.cuda()
            if dt == torch.bool:
                # the CPU's error, named as PyTorch's CUDA names the op
                cpu = raises(RuntimeError, lambda: torch.topk(x, 0))
                raises(RuntimeError, lambda: torch.topk(xd, 0), cpu.replace("_cpu", "_cuda"))
                cpu = raises(RuntimeError, lambda: torch.kthvalue(x, 1))
                raises(RuntimeError, lambda: torch.kthvalue(xd, 1),
                       cpu.replace("_cpu", "_cuda"))
                continue
            # float16, which 1.13's CPU refuses and its CUDA takes, against
            # the CPU on float32 (exact for float16 values, same order)
            xc, back = (x.float(), torch.float16) if dt == torch.float16 else (x, dt)
            if dt == torch.float16:
                raises(RuntimeError, lambda: torch.topk(x, 0),
                       "\"topk_cpu\" not implemented for 'Half'")
            for dim in _dims(x):
                n = x.shape[dim] if x.dim() else 1
                for k in sorted({0, 1, n // 2, n} - {-1}):
                    if k > n:
                        continue
                    for largest in (True, False):
                        v, i = torch.topk(xd, k, dim=dim, largest=largest)
                        cv, ci = torch.topk(xc, k, dim=dim, largest=largest)
                        same(v, cv.to(back))
                        same(i, ci)
                    if k == 0:
                        continue
                    keepdim = k % 2 == 1
                    v, i = torch.kthvalue(xd, k, dim, keepdim)
                    cv, ci = torch.kthvalue(xc, k, dim, keepdim)
                    same(v, cv.to(back))
                    same(i, ci)
                # k out of range: the CPU's exact messages
                cpu = raises(RuntimeError, lambda: torch.topk(xc, n + 1, dim))
                assert cpu == "selected index k out of range", cpu
                raises(RuntimeError, lambda: torch.topk(xd, n + 1, dim), cpu)
                raises(RuntimeError, lambda: torch.topk(xd, -1, dim), cpu)
                if n == 0:
                    cpu = raises(IndexError, lambda: torch.kthvalue(xc, 1, dim))
                    raises(IndexError, lambda: torch.kthvalue(xd, 1, dim), cpu)
                    continue
                for bad in (0, n + 1):
                    cpu = raises(RuntimeError, lambda: torch.kthvalue(xc, bad, dim))
                    raises(RuntimeError, lambda: torch.kthvalue(xd, bad, dim), cpu)


def case_median_on_device():
    nan = float("nan")
    extra = [torch.tensor([[nan, 1., nan, 0.], [2., nan, 2., 2.]]),
             torch.full((2, 7), nan), torch.full((3,), nan),
             torch.tensor([[1., 1., 1., 0., 0., 0.]])]
    for dt in (torch.bool, torch.float16, torch.int8, torch.int64, torch.bfloat16,
               torch.float32, torch.float64):
        xs = _sort_inputs(dt) + ([e.to(dt) for e in extra] if dt.is_floating_point else [])
        for x in xs:
            xd = x.cuda()
            if dt in (torch.bool, torch.float16):
                for fn in (torch.median, torch.nanmedian):
                    cpu = raises(RuntimeError, lambda: fn(x))
                    raises(RuntimeError, lambda: fn(xd), cpu)
                    cpu = raises(RuntimeError, lambda: fn(x, 0))
                    raises(RuntimeError, lambda: fn(xd, 0), cpu)
                continue
            for fn in (torch.median, torch.nanmedian):
                same(fn(xd), fn(x))
                for dim in range(-max(x.dim(), 1), max(x.dim(), 1)):
                    if x.dim() and x.shape[dim] == 0:
                        cpu = raises(IndexError, lambda: fn(x, dim))
                        raises(IndexError, lambda: fn(xd, dim), cpu)
                        continue
                    keepdim = dim % 2 == 0
                    v, i = fn(xd, dim, keepdim)
                    cv, ci = fn(x, dim, keepdim)
                    same(v, cv)
                    same(i, ci)
            if x.numel():
                same(xd.median(-1, keepdim=True)[1], x.median(-1, keepdim=True)[1])


def case_sorting_backward_on_device():
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-3, 4, (4, 7), generator=g).double()   # ties
    x[1, 2] = float("nan")
    for dt in (torch.float32, torch.float64, torch.bfloat16):
        xc = x.to(dt)
        ops = [lambda t: torch.sort(t, 1)[0], lambda t: torch.sort(t, 0, descending=True)[0],
               lambda t: torch.sort(t.t(), 1, stable=True)[0],
               lambda t: torch.topk(t, 3, 1)[0], lambda t: torch.topk(t, 2, 0, largest=False)[0],
               lambda t: torch.topk(t, 0, 1)[0], lambda t: torch.topk(t[0, 0], 1)[0],
               lambda t: torch.kthvalue(t, 4, 1)[0], lambda t: torch.kthvalue(t, 2, 0, True)[0],
               lambda t: torch.median(t, 1)[0], lambda t: torch.nanmedian(t, 0, True)[0],
               lambda t: torch.median(t[2]), lambda t: torch.nanmedian(t)]
        for op in ops:
            grads = []
            for dev in ("cpu", "cuda"):
                t = xc.clone().to(dev).requires_grad_()
                y = op(t)
                wgt = torch.arange(1., y.numel() + 1).reshape(y.shape).to(dt).to(dev)
                (y * wgt).sum().backward()
                grads.append(t.grad)
            same(grads[1], grads[0])


def case_convolution_matches_cpu():
    """Note [Convolution on a device]: conv1d/conv2d forward and every
    gradient, with groups, stride, padding and dilation, against the CPU;
    a small CNN trains as on the CPU."""
    torch.manual_seed(6)

    def check(x, w, b, **kw):
        fn = F.conv2d if x.dim() == 4 else F.conv1d
        xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
        xd, wd = x.cuda().requires_grad_(), w.cuda().requires_grad_()
        bc = b.clone().requires_grad_() if b is not None else None
        bd = b.cuda().requires_grad_() if b is not None else None
        yc, yd = fn(xc, wc, bc, **kw), fn(xd, wd, bd, **kw)
        close(yd, yc, 1e-5)
        g = torch.randn(yc.shape)
        (yc * g).sum().backward()
        (yd * g.cuda()).sum().backward()
        close(xd.grad, xc.grad, 1e-5)
        close(wd.grad, wc.grad, 1e-5)
        if b is not None:
            close(bd.grad, bc.grad, 1e-5)

    check(torch.randn(2, 3, 7, 6), torch.randn(4, 3, 3, 3), torch.randn(4))
    check(torch.randn(2, 4, 7, 6), torch.randn(6, 2, 3, 2), None, stride=2, padding=1,
          groups=2)
    check(torch.randn(2, 4, 9, 8), torch.randn(4, 4, 3, 3), torch.randn(4), dilation=2,
          padding=(2, 1))
    check(torch.randn(3, 2, 10), torch.randn(5, 2, 3), torch.randn(5), stride=2, padding=1)
    check(torch.randn(2, 3, 5, 5), torch.randn(4, 3, 1, 1), torch.randn(4))
    check(torch.randn(1, 2, 5, 5), torch.randn(2, 1, 3, 3), None, padding="same", groups=2)
    check(torch.randn(2, 3, 6, 6).double(), torch.randn(2, 3, 3, 3).double(), None)
    close(F.conv2d(torch.zeros(0, 3, 5, 5).cuda(), torch.randn(2, 3, 3, 3).cuda()),
          torch.zeros(0, 2, 3, 3))
    # (transposed convolution: case_conv_transpose_on_device, cuda_fake_shapes.py)
    raises(RuntimeError, lambda: F.conv2d(torch.randn(1, 2, 3, 3).cuda(),
                                          torch.randn(2, 2, 3, 3)),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")

    trains_alike(
        lambda: torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.Conv2d(4, 4, 3, stride=2), torch.nn.ReLU(),
                                    torch.nn.Flatten(), torch.nn.Linear(4 * 3 * 3, 3)),
        lambda params: torch.optim.Adam(params, lr=0.01),
        lambda: (torch.randn(8, 1, 8, 8), torch.randint(0, 3, (8,))), F.cross_entropy)


def main():
    names = sys.argv[1:] or case_names()
    results = {}
    for n in names:
        try:
            globals()[n]()
            results[n] = "ok"
        except BaseException:
            results[n] = traceback.format_exc()
        # the pretend part guards each cached segment around every kernel:
        # a cache grown by earlier cases would slow the later ones
        torch.cuda.empty_cache()
    print(json.dumps(results))


# --- the CUDA generators (aten/cuda/random_math.h, Note [Device random streams]) ---

# torch.rand / torch.randn on a CUDA device right after torch.manual_seed,
# as PyTorch prints them on NVIDIA GPUs (four decimals).
PT_RAND_SEED0 = [0.3990, 0.5167, 0.0249, 0.9401, 0.9459, 0.7967, 0.4150, 0.8203, 0.2290,
                 0.9096, 0.1183, 0.0752, 0.4092, 0.9601, 0.2093, 0.1940, 0.8909, 0.4387]
PT_RAND_SEED0_SECOND_3X3 = [0.9722, 0.7910, 0.4690, 0.3300, 0.3345, 0.3783, 0.7640,
                            0.6405, 0.1103]
PT_RANDN_SEED0_3X8 = [[-0.9247, -0.4253, -2.6438, 0.1452, -0.1209, -0.5797, -0.6229, -0.3284],
                      [-1.0745, -0.3631, -1.6711, 2.2655, 0.3117, -0.1842, 1.2866, 1.1820],
                      [-0.1271, 1.2169, 1.4353, 1.0605, -0.4941, -1.4244, -0.7244, -1.2973]]
PT_RAND_SEED42_3X4 = [[0.6130, 0.0101, 0.3984, 0.0403], [0.1563, 0.4825, 0.7362, 0.4060],
                      [0.5189, 0.2867, 0.2416, 0.9228]]
# the pretend device's resident threads: 4 multiprocessors of 2048
FAKE_THREADS = 4 * 2048


def close4(t, want, tol=5e-5):
    """t equals values printed to four decimals."""
    got = t.cpu().tolist()
    flat_g = got if not isinstance(got[0], list) else [v for r in got for v in r]
    flat_w = want if not isinstance(want[0], list) else [v for r in want for v in r]
    assert len(flat_g) == len(flat_w), (got, want)
    assert all(abs(a - b) < tol for a, b in zip(flat_g, flat_w)), (got, want)


def case_cuda_rng_matches_pytorch():
    torch.manual_seed(0)
    close4(torch.rand(18, device="cuda"), PT_RAND_SEED0)
    torch.manual_seed(0)
    close4(torch.rand(3, 3, device="cuda"), PT_RAND_SEED0[:9])
    close4(torch.rand(3, 3, device="cuda"), PT_RAND_SEED0_SECOND_3X3)
    torch.cuda.manual_seed(0)
    close4(torch.randn(3, 8, device="cuda"), PT_RANDN_SEED0_3X8)
    torch.manual_seed(42)
    close4(torch.rand(3, 4, device="cuda"), PT_RAND_SEED42_3X4)
    # a generator of its own, and the tensor methods, draw the same way
    g = torch.Generator(device="cuda")
    assert g.device == torch.device("cuda", 0) and g.initial_seed() == 67280421310721
    g.manual_seed(0)
    close4(torch.empty(18, device="cuda").uniform_(generator=g), PT_RAND_SEED0)
    torch.manual_seed(0)
    close4(torch.empty(3, 8, device="cuda").normal_(), PT_RANDN_SEED0_3X8)
    torch.manual_seed(0)
    close4(torch.empty(3, 8, device="cuda").normal_(2.0, 3.0),
           [[2 + 3 * v for v in r] for r in PT_RANDN_SEED0_3X8], 3 * 5e-5 + 1e-6)
    # every call moves the offset on by 4 per Philox block one thread takes
    torch.manual_seed(5)
    st = torch.cuda.get_rng_state()      # PyTorch 2's layout: seed, offset
    assert st.dtype == torch.uint8 and st.shape == (16,)
    assert st.tolist() == [5] + [0] * 15
    torch.rand(FAKE_THREADS * 4, device="cuda")            # one block per thread
    assert torch.cuda.get_rng_state()[8] == 4
    torch.rand(FAKE_THREADS * 4 + 1, device="cuda")        # two
    assert torch.cuda.get_rng_state()[8] == 12
    torch.rand(FAKE_THREADS * 2 + 1, device="cuda", dtype=torch.float64)  # two per block
    assert torch.cuda.get_rng_state()[8] == 20
    torch.empty(0, device="cuda").uniform_()              # nothing drawn
    assert torch.cuda.get_rng_state()[8] == 20
    # the device's generator is not the CPU's
    torch.manual_seed(0)
    a = torch.rand(4)
    torch.rand(4, device="cuda")
    torch.manual_seed(0)
    assert torch.rand(4).tolist() == a.tolist()


def case_cuda_rng_states_and_seeds():
    gens = torch.cuda.default_generators
    assert len(gens) == torch.cuda.device_count() == 2
    assert gens[1].device == torch.device("cuda", 1)
    torch.cuda.manual_seed_all(11)
    assert [g.initial_seed() for g in gens] == [11, 11]
    torch.cuda.manual_seed(12)                          # the current device only
    assert [g.initial_seed() for g in gens] == [12, 11]
    assert torch.cuda.initial_seed() == 12
    with torch.cuda.device(1):
        assert torch.cuda.initial_seed() == 11
        b = torch.rand(5, device="cuda")
    torch.cuda.manual_seed(11)
    same(b, torch.rand(5, device="cuda").cpu())          # cuda:1 drew from its own
    s = torch.cuda.get_rng_state()
    x = torch.randn(7, device="cuda")
    torch.cuda.set_rng_state(s)
    same(torch.randn(7, device="cuda"), x.cpu())
    # the seed alone restarts the offset at 0
    torch.cuda.manual_seed(11)
    first = torch.rand(3, device="cuda")
    torch.rand(3, device="cuda")
    torch.cuda.set_rng_state(s[:8])
    same(torch.rand(3, device="cuda"), first.cpu())
    raises(RuntimeError, lambda: torch.cuda.set_rng_state(s[:10]), "RNG state is wrong size")
    raises(RuntimeError, lambda: gens[0].set_state(torch.get_rng_state()),
           "RNG state is wrong size")
    bad = s.clone()
    bad[8] = 6
    raises(RuntimeError, lambda: gens[0].set_state(bad), "offset must be a multiple of 4")
    states = torch.cuda.get_rng_state_all()
    assert len(states) == 2 and states[1].shape == (16,)
    y = torch.rand(3, device="cuda:1")
    torch.cuda.set_rng_state_all(states)
    same(torch.rand(3, device="cuda:1"), y.cpu())
    # seed(): a fresh seed from the OS (below 2^53, as PyTorch's), which
    # initial_seed reports
    assert gens[0].seed() < 2**53
    assert torch.cuda.initial_seed() == gens[0].initial_seed()
    torch.cuda.seed_all()
    assert gens[0].initial_seed() == gens[1].initial_seed()
    # fork_rng restores the devices' generators too
    torch.manual_seed(3)
    with torch.random.fork_rng(devices=[0, 1]):
        torch.rand(10, device="cuda")
        torch.rand(10, device="cuda:1")
    same(torch.rand(2, device="cuda:1"), (lambda: (torch.manual_seed(3),
                                                   torch.rand(2, device="cuda:1"))[1])().cpu())
    # generators of a device type sample only into that device type
    g = torch.Generator(device="cuda")
    raises(RuntimeError, lambda: torch.rand(2, generator=g),
           "Expected a 'cpu' device type for generator but found 'cuda'")
    raises(RuntimeError, lambda: torch.randperm(4, generator=g),
           "Expected a 'cpu' device type for generator but found 'cuda'")
    raises(RuntimeError, lambda: torch.multinomial(torch.ones(3), 2, generator=g),
           "Expected a 'cpu' device type for generator but found 'cuda'")
    raises(RuntimeError, lambda: torch.rand(2, device="cuda", generator=torch.Generator()),
           "Expected a 'cuda' device type for generator but found 'cpu'")
    assert raises(RuntimeError, lambda: torch.Generator(device="cuda:5")).startswith(
        "CUDA error: invalid device ordinal")
    assert torch.Generator(device="cuda:1").device == torch.device("cuda", 1)


def _philox(c, k):
    m = 0xFFFFFFFF
    c0, c1, c2, c3 = c
    k0, k1 = k
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & m, (p0 >> 32) ^ c3 ^ k1, p0 & m
        k0, k1 = (k0 + 0x9E3779B9) & m, (k1 + 0xBB67AE85) & m
    return c0, c1, c2, c3


def _reference_draws(seed, offset, n, threads, wide):
    """Element i's raw draw, Note [Device random streams] written out again."""
    u = 2 if wide else 4
    out = []
    blocks = {}
    for i in range(n):
        q = i // threads
        key = (i % threads, q // u)
        if key not in blocks:
            lo = offset // 4 + key[1]
            blocks[key] = _philox((lo & 0xFFFFFFFF, lo >> 32, key[0] & 0xFFFFFFFF, key[0] >> 32),
                                  (seed & 0xFFFFFFFF, seed >> 32))
        w = blocks[key]
        s = q % u
        out.append((w[2 * s] << 32 | w[2 * s + 1]) if wide else w[s])
    return out


def case_cuda_rng_element_order():
    """Every element's draw against a Python Philox over several rounds of
    the launch, in memory order, through random_() (the raw bits)."""
    assert _philox((0, 0, 0, 0), (0, 0)) == (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)
    n = FAKE_THREADS * 4 * 2 + 37
    torch.cuda.manual_seed(2**40 + 7)
    torch.rand(5, device="cuda")                               # offset 4
    t = torch.empty(n, dtype=torch.int32, device="cuda").random_()
    ref = _reference_draws(2**40 + 7, 4, n, FAKE_THREADS, False)
    assert t.cpu().tolist() == [r % 2**31 for r in ref]
    # int64 takes two words per value
    torch.cuda.manual_seed(9)
    t = torch.empty(n, dtype=torch.int64, device="cuda").random_()
    assert t.cpu().tolist() == [r % 2**63 for r in _reference_draws(9, 0, n, FAKE_THREADS, True)]
    # randint over a range of 2^28 or more, too; a small range takes one word
    torch.cuda.manual_seed(9)
    t = torch.randint(-5, 2**40, (3000,), device="cuda")
    assert t.cpu().tolist() == [r % (2**40 + 5) - 5
                                for r in _reference_draws(9, 0, 3000, 3072, True)]
    t = torch.randint(3, 10, (100,), device="cuda", dtype=torch.int8)
    assert t.cpu().tolist() == [r % 7 + 3 for r in _reference_draws(9, 4, 100, 256, False)]
    t = torch.randint(0, 2**28, (100,), device="cuda")         # 2^28: two words
    assert t.cpu().tolist() == [r % 2**28 for r in _reference_draws(9, 8, 100, 256, True)]
    t = torch.randint(0, 2**28 - 1, (100,), device="cuda")     # one
    assert t.cpu().tolist() == [r % (2**28 - 1)
                                for r in _reference_draws(9, 12, 100, 256, False)]
    # a transposed output draws in memory order, as PyTorch's TensorIterator
    torch.cuda.manual_seed(1)
    a = torch.empty(6, 4, dtype=torch.int32, device="cuda").t().random_()
    torch.cuda.manual_seed(1)
    b = torch.empty(6, 4, dtype=torch.int32, device="cuda").random_()
    same(a.t(), b.cpu())


def case_cuda_sampling_ops():
    torch.cuda.manual_seed(4)
    for dt in DTYPES:
        z = torch.empty(50, dtype=dt, device="cuda").bernoulli_(0.0)
        o = torch.empty(50, dtype=dt, device="cuda").bernoulli_(1.0)
        same(z, torch.zeros(50, dtype=dt))
        same(o, torch.ones(50, dtype=dt))
        r = torch.empty(400, dtype=dt, device="cuda").random_().cpu()
        hi = {torch.bool: 1, torch.uint8: 255, torch.int8: 127, torch.int16: 2**15 - 1,
              torch.int32: 2**31 - 1, torch.int64: 2**63 - 1, torch.float16: 2048,
              torch.bfloat16: 256, torch.float32: 2**24, torch.float64: 2**53}[dt]
        assert r.min().item() >= 0 and r.max().item() <= hi, dt
        assert len(set(r.tolist())) > 1, dt
        lo = 0 if dt in (torch.bool, torch.uint8) else -3
        q = torch.randint(lo, lo + 2 if dt == torch.bool else 4, (300,), dtype=dt,
                          device="cuda").cpu()
        assert q.min().item() == lo and q.max().item() == (1 if dt == torch.bool else 3), dt
    raises(RuntimeError, lambda: torch.empty(3, device="cuda").bernoulli_(1.5),
           "bernoulli_ expects p to be in [0, 1], but got p=1.5")
    m = torch.empty(20000, device="cuda").bernoulli_(0.3).mean().item()
    assert 0.28 < m < 0.32, m
    # dropout: 0 or 1 / (1 - p), about p of them 0; identity when not training
    x = torch.ones(20000, device="cuda", requires_grad=True)
    y = F.dropout(x, 0.25)
    scale = torch.tensor(1 / 0.75).item()                # in float32
    vals = set(y.detach().cpu().tolist())
    assert vals == {0.0, scale} and abs((y == 0).float().mean().item() - 0.25) < 0.02
    y.sum().backward()
    same(x.grad, (y.detach() != 0).float().cpu() * scale)
    assert F.dropout(x, 0.25, training=False) is x
    d2 = F.dropout2d(torch.ones(2, 8, 3, 3, device="cuda"), 0.5).cpu()
    assert all(len(set(ch.flatten().tolist())) == 1 for b in d2 for ch in b)
    # normal / uniform moments and bounds, every floating dtype
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        u = torch.empty(20000, dtype=dt, device="cuda").uniform_(-2, 5).cpu().double()
        assert u.min().item() >= -2 and u.max().item() < 5 and abs(u.mean().item() - 1.5) < 0.1
        nrm = torch.randn(20000, dtype=dt, device="cuda").cpu().double()
        assert abs(nrm.mean().item()) < 0.05 and abs(nrm.std().item() - 1) < 0.05, dt
    raises(RuntimeError, lambda: torch.empty(3, device="cuda").normal_(0, -1),
           "normal expects std >= 0.0, but found std -1")
    raises(RuntimeError, lambda: torch.empty(3, dtype=torch.int64, device="cuda").normal_())
    # the _like factories keep the device
    base = torch.zeros(2, 3, device="cuda", dtype=torch.float64)
    for t in (torch.rand_like(base), torch.randn_like(base), torch.randint_like(base, 9)):
        assert t.device == torch.device("cuda", 0) and t.dtype == torch.float64
    # torch.normal with tensors composes normal_ with mul and add there
    torch.cuda.manual_seed(0)
    mt = torch.tensor([[10.0], [20.0], [30.0]], device="cuda")
    close4(torch.normal(mt, torch.full((3, 8), 2.0, device="cuda")),
           [[m + 2 * v for v in r] for m, r in zip((10, 20, 30), PT_RANDN_SEED0_3X8)], 3e-3)
    raises(RuntimeError, lambda: torch.normal(mt, torch.tensor([-1.0], device="cuda")),
           "normal expects all elements of std >= 0.0")
    # bernoulli with a tensor of probabilities (its own draws, PyTorch's law)
    p = torch.tensor([0.0, 1.0, 0.0, 1.0], device="cuda")
    same(torch.bernoulli(p), p.cpu())
    same(torch.empty(2, 4, device="cuda", dtype=torch.int64).bernoulli_(p),
         torch.tensor([[0, 1, 0, 1]] * 2))
    half = torch.full((20000,), 0.5, device="cuda")
    assert abs(torch.bernoulli(half).mean().item() - 0.5) < 0.02
    raises(RuntimeError, lambda: torch.empty(3, device="cuda").bernoulli_(
        torch.ones(3, dtype=torch.int64, device="cuda")),
        "expected probabilities tensor to have floating type, got Long")
    # the full int64 range (random_(from=-2**63, to=None))
    f = torch.empty(1000, dtype=torch.int64, device="cuda").random_(-2**63, None).cpu()
    assert f.min().item() < -2**60 and f.max().item() > 2**60
    raises(RuntimeError, lambda: torch.empty(3, dtype=torch.int32, device="cuda")
           .random_(-2**63, None),
           "random_full_64_bits_range_kernel_cuda handles only int64, double, float and "
           "bfloat16")


def case_cuda_seed_before_cuda_starts():
    """Calls before CUDA starts are queued, as in PyTorch: the seeding ones
    after the others (here the set_rng_state is overridden), the later of
    manual_seed / manual_seed_all last."""
    import subprocess
    code = ("import ctorch as torch\n"
            "torch.cuda.set_rng_state(torch.tensor([9] + [0] * 15, dtype=torch.uint8))\n"
            "torch.manual_seed(0)\n"
            "assert not torch.cuda.is_initialized()\n"
            "assert torch.cuda.default_generators == ()\n"
            "torch.cuda.manual_seed(1)\n"
            "print(torch.rand(3, device='cuda:1').tolist(), torch.rand(2, device='cuda').tolist())\n")
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    torch.manual_seed(0)
    torch.cuda.manual_seed(1)
    want = [torch.rand(3, device="cuda:1").tolist(), torch.rand(2, device="cuda").tolist()]
    assert p.stdout.strip() == "%s %s" % tuple(want), (p.stdout, want)
    close4(torch.tensor(want[0][:3]), PT_RAND_SEED0[:3])


def case_partial_views_and_pad_gradients_on_device():
    """Gradients that fill in zeros for unused pieces (chunk, split, unbind,
    an in-place write into a view) or pad stay on the device and equal the
    CPU's."""
    base = torch.arange(24.).reshape(4, 6) / 7
    calls = [
        lambda t: (t.chunk(2)[0] ** 2).sum(),
        lambda t: (t.split([1, 3])[1] * 3).sum(),
        lambda t: t.unbind(0)[2].exp().sum(),
        lambda t: t.unbind(1)[0].sum(),
        lambda t: (lambda o: (o.__setitem__((slice(None), slice(1, 7)), t * 2), o)[1])(
            torch.zeros(4, 8, device=t.device)).pow(2).sum(),
        lambda t: t[t > 1].sum(),
        lambda t: F.pad(t, (1, 2, -1, 1), value=0.5).pow(2).sum(),
    ] + [lambda t, m=m: F.pad(t[None], (2, 1), mode=m).pow(2).sum()
         for m in ("reflect", "replicate", "circular")]
    for k, f in enumerate(calls):
        xc = base.clone().requires_grad_()
        xd = base.cuda().requires_grad_()
        yc, yd = f(xc), f(xd)
        assert yd.device.type == "cuda", k
        yc.backward()
        yd.backward()
        assert xd.grad.device == torch.device("cuda", 0), (k, xd.grad.device)
        assert (xd.grad.cpu() - xc.grad).abs().max().item() < 1e-5, k
        assert abs(yd.item() - yc.item()) < 1e-4 * max(1, abs(yc.item())), k


def _loss_calls(F):
    """(name, fn(x, y, **tensors), needs x in [0, 1]) for every pointwise loss."""
    return [
        ("mse", lambda x, y, r, w=None, q=None: F.mse_loss(x, y, reduction=r), False),
        ("smooth_l1", lambda x, y, r, w=None, q=None:
            F.smooth_l1_loss(x, y, reduction=r, beta=0.75), False),
        ("smooth_l1_b0", lambda x, y, r, w=None, q=None:
            F.smooth_l1_loss(x, y, reduction=r, beta=0.0), False),
        ("huber", lambda x, y, r, w=None, q=None:
            F.huber_loss(x, y, reduction=r, delta=0.6), False),
        ("bce", lambda x, y, r, w=None, q=None:
            F.binary_cross_entropy(x, y, weight=w, reduction=r), True),
        ("bce_logits", lambda x, y, r, w=None, q=None:
            F.binary_cross_entropy_with_logits(x, y, weight=w, reduction=r,
                                               pos_weight=q), False),
    ]


def case_pointwise_losses_on_device():
    """Every pointwise loss, forward and backward (input and target), on the
    device equals ctorch's CPU results."""
    base = torch.tensor([[0.05, 0.9, 0.5, 0.0], [1.0, 0.3, 0.7, 0.2], [0.45, 0.6, 0.99, 0.01]])
    tgt = torch.tensor([[0.0, 1.0, 0.25, 0.5], [1.0, 0.0, 0.7, 0.9], [0.3, 1.0, 0.0, 0.2]])
    wts = torch.tensor([0.5, 2.0, 1.0, 0.0])
    pos = torch.tensor([[3.0], [0.5], [1.0]])
    for dtype in (torch.float32, torch.float64, torch.float16):
        tol = 1e-6 if dtype == torch.float32 else 1e-12 if dtype == torch.float64 else 1e-3
        for name, fn, unit in _loss_calls(F):
            if name == "bce" and dtype == torch.float16:
                continue
            for r in ("none", "mean", "sum"):
                for with_w in (False, True) if name.startswith("bce") else (False,):
                    x = base if unit else (base - 0.5) * 6
                    x, y = x.to(dtype), tgt.to(dtype)
                    w = wts.to(dtype) if with_w else None
                    q = pos.to(dtype) if with_w and name == "bce_logits" else None
                    xc = x.clone().requires_grad_()
                    yc = y.clone().requires_grad_()
                    xd = x.cuda().requires_grad_()
                    yd = y.cuda().requires_grad_()
                    want = fn(xc, yc, r, w, q)
                    got = fn(xd, yd, r, w.cuda() if w is not None else None,
                             q.cuda() if q is not None else None)
                    close(got.detach(), want.detach(), tol)
                    g = torch.linspace(-1, 2, want.numel()).reshape(want.shape).to(dtype)
                    want.backward(g)
                    got.backward(g.cuda())
                    close(xd.grad, xc.grad, tol)
                    if name != "bce":       # (the CPU: target gradient of bce too)
                        close(yd.grad, yc.grad, tol)
    # the same without autograd
    x, y = (base - 0.5) * 6, tgt
    for r in ("none", "mean", "sum"):
        for name, fn, unit in _loss_calls(F):
            xi = base if unit else x
            want = fn(xi, y, r)
            close(fn(xi.cuda(), y.cuda(), r), want, 1e-6)
    # broadcasting (with PyTorch's warning on size mismatch), weight broadcast
    import warnings
    xb, yb = torch.tensor([[0.2], [0.8]]), torch.tensor([0.1, 0.9, 0.5])
    warnings.filterwarnings("ignore", "Using a target size")
    for name, fn, unit in _loss_calls(F):
        for r in ("none", "sum"):
            if name.startswith("bce"):
                xx, yy = xb.expand(2, 3).contiguous(), yb.expand(2, 3).contiguous()
                close(fn(xx.cuda(), yy.cuda(), r, wts[:3].cuda()), fn(xx, yy, r, wts[:3]), 1e-6)
            else:
                close(fn(xb.cuda(), yb.cuda(), r), fn(xb, yb, r), 1e-6)
    # empty tensors: 'mean' NaN, 'sum' 0
    e = torch.zeros(0, 3)
    for name, fn, unit in _loss_calls(F):
        for r in ("none", "mean", "sum"):
            close(fn(e.cuda(), e.cuda(), r), fn(e, e, r))
    # extremes: BCE's log clamped at -100, logits far out
    xe = torch.tensor([0.0, 1.0, 1e-30, 1.0 - 1e-7])
    ye = torch.tensor([1.0, 0.0, 1.0, 0.0])
    close(F.binary_cross_entropy(xe.cuda(), ye.cuda(), reduction="none"),
          F.binary_cross_entropy(xe, ye, reduction="none"), 1e-6)
    xl = torch.tensor([-200.0, 200.0, 0.0, 30.0])
    close(F.binary_cross_entropy_with_logits(xl.cuda(), ye.cuda(), reduction="none",
                                             pos_weight=torch.tensor(2.0).cuda()),
          F.binary_cross_entropy_with_logits(xl, ye, reduction="none",
                                             pos_weight=torch.tensor(2.0)), 1e-6)
    # bad input: the CPU's errors
    for bad in (torch.tensor([0.5, 1.5]), torch.tensor([-0.1, 0.5]),
                torch.tensor([float("nan"), 0.5])):
        text = raises(RuntimeError, lambda: F.binary_cross_entropy(bad, torch.ones(2)))
        raises(RuntimeError, lambda: F.binary_cross_entropy(bad.cuda(), torch.ones(2).cuda()),
               text)
    calls = [
        lambda d: F.smooth_l1_loss(torch.ones(2, device=d), torch.ones(2, device=d), beta=-1.0),
        lambda d: F.huber_loss(torch.ones(2, device=d), torch.ones(2, device=d), delta=0.0),
        lambda d: F.binary_cross_entropy(torch.ones(2, device=d).half(),
                                         torch.ones(2, device=d).half()),
        lambda d: F.binary_cross_entropy(torch.ones(2, device=d),
                                         torch.ones(2, device=d).double()),
        lambda d: F.binary_cross_entropy_with_logits(torch.ones(2, device=d),
                                                     torch.ones(2, device=d).long()),
        lambda d: F.mse_loss(torch.ones(2, device=d).long(), torch.ones(2, device=d).long()),
    ]
    xm = torch.rand(3).cuda()
    for name, fn, unit in _loss_calls(F):
        raises(RuntimeError, lambda: fn(xm, torch.rand(3), "mean"),
               "Expected all tensors to be on the same device, but found at least two "
               "devices, cuda:0 and cpu!")
    for k, call in enumerate(calls):
        try:
            call("cpu")
        except (RuntimeError, ValueError) as e:
            raises(type(e), lambda: call("cuda"), str(e))
        else:
            raise AssertionError("no error on the CPU: %d" % k)


def case_var_std_logsumexp_on_device():
    """var / std / var_mean / std_mean and logsumexp on the device, and
    their gradients, equal ctorch's CPU results."""
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([[[1.5, -2.0, 3.0, 0.25], [4.0, 5.5, -6.0, 1.0], [0.0, 2.0, 2.0, -1.0]],
                      [[7.0, 8.0, -9.5, 3.0], [1.0, 1.0, 1.0, 1.0], [-3.0, 0.5, 6.0, 2.0]]])
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        tol = 1e-12 if dtype == torch.float64 else 1e-6 if dtype == torch.float32 else 0
        xt = x.to(dtype)
        y = xt.cuda()
        for dims in (None, 0, 1, (0, 2), (-1, 1), (0, 1, 2)):
            for keepdim in (False, True):
                for correction in (0, 1, 2, 5):
                    args = () if dims is None else (dims,)
                    kw = dict(keepdim=keepdim, correction=correction)
                    close(y.var(*args, **kw), xt.var(*args, **kw), tol)
                    close(y.std(*args, **kw), xt.std(*args, **kw), tol)
                    for fn in (torch.var_mean, torch.std_mean):
                        a, b = fn(y, *args, **kw)
                        c, d = fn(xt, *args, **kw)
                        close(a, c, tol)
                        close(b, d, tol)
                if dtype != torch.float16:      # (no CPU kernel)
                    dd = () if dims is None else dims
                    if dims is None:
                        dd = (0, 1, 2)
                    close(torch.logsumexp(y, dd, keepdim),
                          torch.logsumexp(xt, dd, keepdim), tol)
    raises(RuntimeError, lambda: torch.logsumexp(x.half(), 1),
           raises(RuntimeError, lambda: torch.logsumexp(x.half().cuda(), 1)))
    # integers: var refused as on the CPU, logsumexp in the default dtype
    i = torch.arange(12).reshape(3, 4)
    close(torch.logsumexp(i.cuda(), 1), torch.logsumexp(i, 1), 1e-6)
    for call in (lambda t: t.var(), lambda t: t.std(0), lambda t: torch.var_mean(t, 1),
                 lambda t: torch.std_mean(t)):
        text = raises(RuntimeError, lambda: call(i))
        raises(RuntimeError, lambda: call(i.cuda()), text)
    raises(IndexError, lambda: x.cuda().var(3), raises(IndexError, lambda: x.var(3)))
    # infinities and NaN
    s = torch.tensor([[1.0, 2.0, 3.0], [-inf, -inf, -inf], [inf, 1.0, 2.0], [nan, 1.0, inf],
                      [1000.0, 1000.0, -inf], [inf, -inf, 0.0], [-inf, 0.0, -inf]])
    close(torch.logsumexp(s.cuda(), 1), torch.logsumexp(s, 1), 1e-6)
    close(torch.logsumexp(s.cuda(), 0, True), torch.logsumexp(s, 0, True), 1e-6)
    close(s.cuda().var(1), s.var(1), 1e-6)
    close(s.cuda().std(0), s.std(0), 1e-6)
    # empty
    for e in (torch.zeros(0, 3), torch.zeros(2, 0)):
        for d in (0, 1):
            close(e.cuda().var(d), e.var(d))
            close(e.cuda().std(d, keepdim=True), e.std(d, keepdim=True))
            close(torch.logsumexp(e.cuda(), d), torch.logsumexp(e, d))
            a, b = torch.var_mean(e.cuda(), d)
            c, dd = torch.var_mean(e, d)
            close(a, c)
            close(b, dd)
    close(torch.zeros(0).cuda().var(), torch.zeros(0).var())
    close(torch.logsumexp(torch.zeros(0).cuda(), 0), torch.logsumexp(torch.zeros(0), 0))
    # gradients on the device
    xr = x.double().requires_grad_()
    yr = x.double().cuda().requires_grad_()
    fns = [lambda t: t.var(1), lambda t: t.std((0, 2), keepdim=True),
           lambda t: t.var(correction=0), lambda t: torch.logsumexp(t, 1),
           lambda t: torch.logsumexp(t, (0, 2), True),
           lambda t: sum(torch.var_mean(t, 1)), lambda t: sum(torch.std_mean(t, 2)),
           lambda t: torch.std_mean(t, 0)[1]]
    for fn in fns:
        want = fn(xr)
        got = fn(yr)
        g = torch.linspace(-1, 1, want.numel()).reshape(want.shape).double()
        want.backward(g)
        got.backward(g.cuda())
        close(yr.grad, xr.grad, 1e-12)
        xr.grad = None
        yr.grad = None


# More cases live in sibling modules, one per area (they import the
# helpers above from this module); their case_* functions join this one's.
for _name in ("cuda_fake_sampling", "cuda_fake_counting", "cuda_fake_shapes",
              "cuda_fake_activations"):
    try:
        _mod = __import__(_name)
    except ModuleNotFoundError as _e:
        if _e.name != _name:
            raise
        continue
    globals().update((k, v) for k, v in vars(_mod).items() if k.startswith("case_"))

if __name__ == "__main__":
    main()
