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
    raises(NotImplementedError, lambda: torch.randn(2, device="cuda"))
    raises(NotImplementedError, lambda: torch.rand_like(y))
    raises(NotImplementedError, lambda: y.cumsum(0))
    raises(NotImplementedError, lambda: torch.floor_divide(y.long(), y.long()))


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
    # integer division on the device: refused, not a wrong answer
    raises(NotImplementedError, lambda: m.cuda() // n.cuda())


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
    raises(NotImplementedError, lambda: y.std())


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
    def step(device):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(10, 10), torch.nn.ReLU(),
                                    torch.nn.Linear(10, 5)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = torch.randn(20, 10).to(device)
        y = torch.randn(20, 5).to(device)
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.MSELoss()(model(x), y)
            loss.backward()
            opt.step()
        return loss.item(), [p.detach().cpu() for p in model.parameters()]

    loss_c, params_c = step("cpu")
    loss_d, params_d = step("cuda")
    assert abs(loss_c - loss_d) < 1e-6, (loss_c, loss_d)
    for pc, pd in zip(params_c, params_d):
        assert torch.allclose(pc, pd, atol=1e-6), (pc, pd)


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
    # (weight with label smoothing gathers the weights: no device kernel yet)
    raises(NotImplementedError, lambda: F.cross_entropy(logits.cuda(), tgt.cuda(),
                                                        weight=wt.cuda(), label_smoothing=0.1))


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


def main():
    names = sys.argv[1:] or case_names()
    results = {}
    for n in names:
        try:
            globals()[n]()
            results[n] = "ok"
        except BaseException:
            results[n] = traceback.format_exc()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
