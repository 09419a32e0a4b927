"""Shape and nn ops composed of device kernels (aten/device_shape.c,
aten/device_upsample.c, aten/device_conv.c): tril / triu / diag / trace /
outer / lerp / nan_to_num / one_hot, interpolate, transposed convolution,
unfold / fold.  Imported by cuda_fake_cases.py, whose main() runs these
case_* functions too; each checks the device against ctorch's CPU: values
(bit for bit where only elements move), dtypes, gradients (which must come
back on the device) and error messages."""
import ctorch as torch
import ctorch.nn.functional as F

from cuda_fake_cases import DTYPES, close, kernels, raises, same, trains_alike

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _mat(dt, *shape):
    """A tensor of shape with distinct values (signed where dt allows)."""
    n = 1
    for s in shape:
        n *= s
    x = (torch.arange(float(n)) - n // 3).reshape(*shape) * 0.75
    if dt == torch.bool:
        return x.long() % 3 != 0
    if dt == torch.uint8:
        return x.abs().to(dt)
    return x.to(dt)


def _same_error(fn, *args, exc=(RuntimeError, IndexError, ValueError, TypeError)):
    """fn on CPU args and on their device copies raises the same error."""
    dev = [a.cuda() if isinstance(a, torch.Tensor) else a for a in args]
    mc = raises(exc, lambda: fn(*args))
    md = raises(exc, lambda: fn(*dev))
    assert mc == md, (mc, md)


def _grad_pair(fn, xs, seed=5):
    """fn's value and the gradients of xs, on the CPU and on the device,
    under one random weighting of the output; the device's gradients must
    be device tensors."""
    out = []
    for dev in ("cpu", "cuda"):
        ts = [x.detach().clone().to(dev).requires_grad_() for x in xs]
        y = fn(*ts)
        torch.manual_seed(seed)
        w = torch.randn(y.shape).to(y.dtype).to(dev)
        (y * w).sum().backward()
        for t in ts:
            assert t.grad.device.type == dev, (dev, t.grad.device)
        out.append((y.detach(), [t.grad for t in ts]))
    return out


def _check_grads(fn, xs, tol=0, seed=5):
    (yc, gc), (yd, gd) = _grad_pair(fn, xs, seed)
    close(yd, yc, tol)
    for a, b in zip(gd, gc):
        close(a, b, tol)


# --- tril, triu, diag, trace, outer -----------------------------------------

def case_tril_triu_on_device():
    """tril / triu select elements: bit for bit in every dtype, views,
    batches, in place and out=; gradients on the device; the CPU's errors."""
    for dt in DTYPES:
        x = _mat(dt, 2, 4, 5)
        views = (x, x[0], x.transpose(1, 2), x[:, 1:, ::2], x[1].t(), x[:, :0])
        for v in views:
            for d in (-5, -1, 0, 1, 3, 7):
                same(torch.tril(v.cuda(), d), torch.tril(v, d))
                same(v.cuda().triu(d), v.triu(d))
        # in place, on a non-contiguous device view, and out=
        yc, yd = x.clone(), x.cuda()
        yc.transpose(1, 2).tril_(1)
        yd.transpose(1, 2).tril_(1)
        same(yd, yc)
        yc.triu_(-1)
        yd.triu_(-1)
        same(yd, yc)
        oc, od = torch.empty(0, dtype=dt), torch.empty(0, dtype=dt, device="cuda")
        torch.triu(x, 2, out=oc)
        torch.triu(x.cuda(), 2, out=od)
        same(od, oc)
    before = kernels("where")
    torch.tril(torch.ones(3, 3).cuda())
    assert kernels("where") == before + 1
    for f in (torch.tril, torch.triu):
        _check_grads(lambda t: f(t, 1), [torch.randn(3, 4, 5)])
        _check_grads(lambda t: f(t.t(), -1), [torch.randn(4, 4).double()])
        _same_error(f, torch.ones(3))
        _same_error(f, torch.tensor(1.))
    raises(RuntimeError, lambda: torch.tril(torch.ones(2, 2).cuda(), out=torch.empty(2, 2)),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")
    _same_error(lambda t, o: torch.tril(t, out=o), torch.ones(2, 2), torch.empty(2, 2).long())


def case_diag_trace_outer_on_device():
    for dt in DTYPES:
        x = _mat(dt, 4, 5)
        for v in (x, x.t(), x[1:, ::2], x[:, :0]):
            for d in (-4, -1, 0, 2, 6):
                same(torch.diag(v.cuda(), d), torch.diag(v, d))
        for v in (x[1], x[:, 2], x[0, ::2], x[0, :0]):
            for d in (-2, 0, 1):
                same(torch.diag(v.cuda(), d), torch.diag(v, d))
        if dt != torch.bool:
            for v in (x, x.t(), x[1:, ::2], x[:, :0]):
                same(torch.trace(v.cuda()), torch.trace(v))
        else:
            _same_error(torch.trace, x)
        for a, b in ((x[0], x[1, :3]), (x[:, 1], x[0, ::2])):
            same(torch.outer(a.cuda(), b.cuda()), torch.outer(a, b))
            same(a.cuda().ger(b.cuda()), a.ger(b))
    # float sums: the CPU's double accumulation, rounded once
    big = torch.randn(300, 300) * 1000
    same(torch.trace(big.cuda()), torch.trace(big))
    same(torch.trace(big.half().cuda()), torch.trace(big.half()))
    same(torch.outer(torch.ones(2).cuda(), torch.arange(3).cuda()),
         torch.outer(torch.ones(2), torch.arange(3)))
    oc, od = torch.empty(0), torch.empty(0, device="cuda")
    torch.diag(torch.arange(3.), 1, out=oc)
    torch.diag(torch.arange(3.).cuda(), 1, out=od)
    same(od, oc)
    _check_grads(lambda t: torch.diag(t, 1), [torch.randn(4, 5)])
    _check_grads(lambda t: torch.diag(t, -1), [torch.randn(4)])
    _check_grads(lambda t: torch.trace(t.t()), [torch.randn(3, 5)])
    _check_grads(lambda a, b: torch.outer(a, b), [torch.randn(3), torch.randn(4)])
    _check_grads(lambda t: torch.addr(t, t[0], t[:, 1], beta=0, alpha=2), [torch.randn(4, 4)])
    _same_error(torch.diag, torch.ones(2, 2, 2))
    _same_error(torch.trace, torch.ones(2))
    _same_error(torch.outer, torch.ones(2, 2), torch.ones(2))
    _same_error(torch.outer, torch.ones(2), torch.ones(2, 2))
    raises(RuntimeError, lambda: torch.outer(torch.ones(2).cuda(), torch.ones(2)))


# --- lerp, nan_to_num, one_hot ----------------------------------------------

def case_lerp_on_device():
    """Note [lerp on a device]: float32, float16 and bfloat16 match the
    CPU's fused multiply-add bit for bit; float64 to rounding."""
    torch.manual_seed(3)
    s = torch.randn(6, 40) * 10
    e = torch.randn(6, 40) * 10
    w = torch.rand(6, 40) * 3 - 1
    w[0, :5] = torch.tensor([0.5, -0.5, 0.0, 1.0, float("nan")])
    for dt in _FLOATS:
        sc, ec, wc = s.to(dt), e.to(dt), w.to(dt)
        tol = 1e-12 if dt == torch.float64 else 0
        close(torch.lerp(sc.cuda(), ec.cuda(), wc.cuda()), torch.lerp(sc, ec, wc), tol)
        close(torch.lerp(sc.t().cuda(), ec.t().cuda(), wc[:, 0].cuda()),
              torch.lerp(sc.t(), ec.t(), wc[:, 0]), tol)
        for k in (0.25, 0.75, -2.0, 3):
            close(torch.lerp(sc.cuda(), ec.cuda(), k), torch.lerp(sc, ec, k), tol)
            close(sc.cuda().lerp(ec[0].cuda(), k), sc.lerp(ec[0], k), tol)
        # a 0-dim CPU weight stands as a number
        close(torch.lerp(sc.cuda(), ec.cuda(), torch.tensor(0.3, dtype=dt)),
              torch.lerp(sc, ec, torch.tensor(0.3, dtype=dt)), tol)
    _check_grads(lambda a, b, c: torch.lerp(a, b, c), [s[:2], e[:2], w[:2]], 1e-6)
    _check_grads(lambda a, b: torch.lerp(a, b, 0.3), [s[:2], e[0]], 1e-6)
    _same_error(torch.lerp, torch.ones(2).long(), torch.ones(2).long(), 0.5)
    _same_error(torch.lerp, torch.ones(2), torch.ones(2).double(), 0.5)
    _same_error(torch.lerp, torch.ones(2), torch.ones(3), 0.5)
    raises(RuntimeError, lambda: torch.lerp(torch.ones(2).cuda(), torch.ones(2), 0.5),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")


def case_nan_to_num_on_device():
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([[nan, inf, -inf, 1.5], [-0.0, 70000., -1e39, 3e38]], dtype=torch.float64)
    for dt in _FLOATS:
        v = x.to(dt)
        for kw in ({}, {"nan": 2.0}, {"posinf": 1e30, "neginf": -7.25},
                   {"nan": -1.0, "posinf": 1e10, "neginf": 0.1}):
            for t in (v, v.t(), v[:, ::2]):
                same(torch.nan_to_num(t.cuda(), **kw), torch.nan_to_num(t, **kw))
        yc, yd = v.clone(), v.cuda()
        yc.nan_to_num_(nan=9.0)
        yd.nan_to_num_(nan=9.0)
        same(yd, yc)
    for dt in (torch.int32, torch.uint8, torch.bool):
        same(torch.nan_to_num(_mat(dt, 3, 4).cuda()), torch.nan_to_num(_mat(dt, 3, 4)))
    _check_grads(lambda t: torch.nan_to_num(t * 1), [x.float()])


def case_one_hot_on_device():
    i = torch.tensor([[0, 3, 1], [2, 2, 0]])
    same(F.one_hot(i.cuda()), F.one_hot(i))
    same(F.one_hot(i.t().cuda(), 6), F.one_hot(i.t(), 6))
    same(F.one_hot(torch.empty(0, 2).long().cuda(), 3), F.one_hot(torch.empty(0, 2).long(), 3))
    assert F.one_hot(i.cuda()).device == torch.device("cuda", 0)
    _same_error(F.one_hot, i, 3)
    _same_error(F.one_hot, -i)
    _same_error(F.one_hot, i.int())
    _same_error(F.one_hot, torch.empty(0).long())


# --- interpolate (Note in aten/device_upsample.c) ----------------------------

_UP_CALLS = [
    lambda t: F.interpolate(t, scale_factor=2),
    lambda t: F.interpolate(t, scale_factor=1.7),
    lambda t: F.interpolate(t, scale_factor=(0.5, 1.5)),
    lambda t: F.interpolate(t, size=(7, 4)),
    lambda t: F.interpolate(t, size=(5, 6)),
    lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"),
    lambda t: F.interpolate(t, scale_factor=1.3, mode="bilinear", align_corners=True),
    lambda t: F.interpolate(t, scale_factor=(0.6, 2.5), mode="bilinear"),
    lambda t: F.interpolate(t, scale_factor=1.3, mode="bilinear", recompute_scale_factor=True),
    lambda t: F.interpolate(t, size=(9, 11), mode="bilinear"),
    lambda t: F.interpolate(t, size=(3, 2), mode="bilinear", align_corners=True),
    lambda t: F.interpolate(t, size=(1, 7), mode="bilinear", align_corners=True),
    lambda t: F.interpolate(t, size=(5, 13), mode="bilinear"),
    lambda t: F.interpolate(t[:, :, 1], scale_factor=2.5),
    lambda t: F.interpolate(t[:, :, 1], size=13, mode="linear"),
    lambda t: F.interpolate(t[:, :, 1], scale_factor=0.7, mode="linear", align_corners=True),
]


def case_interpolate_on_device():
    """The forward is the CPU loops' arithmetic step for step: bit for bit
    in float32, float64 and bfloat16 (float16, which the CPU refuses, as
    the CPU's float32 result rounded); gradients to rounding."""
    torch.manual_seed(11)
    x = torch.randn(2, 3, 5, 6) * 4
    x[0, 0, 0, :3] = torch.tensor([float("nan"), float("inf"), -0.0])
    for k, f in enumerate(_UP_CALLS):
        for t in (x, x.permute(0, 1, 3, 2).contiguous().transpose(2, 3), x[:, ::2]):
            same(f(t.cuda()), f(t))
        for dt in (torch.float64, torch.bfloat16):
            same(f(x.to(dt).cuda()), f(x.to(dt)))
        same(f(x.half().cuda()), f(x.half().float()).half())
        _check_grads(f, [torch.randn(2, 3, 5, 6)], 1e-5)
        if k % 4 == 0:
            _check_grads(f, [torch.randn(2, 3, 5, 6).double()], 1e-12)
            (yc, gc), (yd, gd) = _grad_pair(f, [torch.randn(1, 2, 5, 6).bfloat16()])
            same(yd, yc)
            assert (gd[0].cpu().float() - gc[0].float()).abs().max().item() < 0.05
    # modules, an empty batch
    up = torch.nn.Upsample(scale_factor=2, mode="bilinear")
    same(up(x.cuda()), up(x))
    same(F.interpolate(torch.empty(0, 3, 4, 4).cuda(), scale_factor=2),
         F.interpolate(torch.empty(0, 3, 4, 4), scale_factor=2))
    # the CPU's errors
    for f in (lambda t: F.interpolate(t, scale_factor=2),
              lambda t: F.interpolate(t, scale_factor=2, mode="bilinear")):
        _same_error(f, x.long())
        _same_error(f, torch.ones(1, 0, 3, 3))
        _same_error(lambda t: f(t), torch.ones(1, 2, 3, 0))
    _same_error(lambda t: F.interpolate(t, size=(0, 3)), x)
    _same_error(lambda t: F.interpolate(t, size=(2, 3), mode="linear"), x)


# --- transposed convolution, unfold / fold (aten/device_conv.c) ---------------

def _conv_check(fn, x, w, b, tol=1e-5, **kw):
    xs = [x, w] + ([b] if b is not None else [])
    _check_grads(lambda *ts: fn(ts[0], ts[1], ts[2] if len(ts) > 2 else None, **kw), xs, tol)


def case_conv_transpose_on_device():
    """Note [Convolution on a device], the products read the other way:
    forward and every gradient against the CPU."""
    torch.manual_seed(12)
    t2, t1 = F.conv_transpose2d, F.conv_transpose1d
    _conv_check(t2, torch.randn(2, 3, 4, 5), torch.randn(3, 4, 3, 3), torch.randn(4))
    _conv_check(t2, torch.randn(2, 4, 4, 5), torch.randn(4, 3, 3, 2), None, stride=2,
                padding=1, output_padding=1, groups=2)
    _conv_check(t2, torch.randn(1, 2, 5, 4), torch.randn(2, 2, 2, 3), torch.randn(2),
                stride=(2, 3), padding=(0, 1), dilation=(2, 1), output_padding=(1, 2))
    _conv_check(t2, torch.randn(2, 3, 3, 3), torch.randn(3, 1, 1, 1), None, groups=3)
    _conv_check(t1, torch.randn(3, 2, 7), torch.randn(2, 5, 3), torch.randn(5), stride=2,
                padding=1)
    _conv_check(t1, torch.randn(2, 4, 6), torch.randn(4, 1, 4), None, groups=2, dilation=3,
                output_padding=1, stride=2)
    _conv_check(t2, torch.randn(2, 3, 4, 4).double(), torch.randn(3, 2, 3, 3).double(),
                torch.randn(2).double(), 1e-12, stride=2)
    # the modules, with output_size
    for m in (torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1),
              torch.nn.ConvTranspose1d(3, 2, 4, stride=3, bias=False)):
        x = torch.randn(2, 3, 5, 5) if isinstance(m, torch.nn.ConvTranspose2d) \
            else torch.randn(2, 3, 5)
        md = torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1) \
            if isinstance(m, torch.nn.ConvTranspose2d) \
            else torch.nn.ConvTranspose1d(3, 2, 4, stride=3, bias=False)
        md.load_state_dict(m.state_dict())
        md = md.cuda()
        close(md(x.cuda()), m(x).detach(), 1e-5)
        if isinstance(m, torch.nn.ConvTranspose2d):
            close(md(x.cuda(), output_size=[10, 10]), m(x, output_size=[10, 10]).detach(),
                  1e-5)
        m(x).sum().backward()
        md(x.cuda()).sum().backward()
        for p, q in zip(md.parameters(), m.parameters()):
            assert p.grad.device.type == "cuda"
            close(p.grad, q.grad, 1e-4)
    close(t2(torch.zeros(0, 3, 4, 4).cuda(), torch.randn(3, 2, 3, 3).cuda()),
          torch.zeros(0, 2, 6, 6))
    # the CPU's errors
    _same_error(lambda x, w: t2(x, w, stride=1, output_padding=1), torch.ones(1, 2, 3, 3),
                torch.ones(2, 2, 3, 3))
    _same_error(lambda x, w: t2(x, w), torch.ones(1, 3, 3, 3), torch.ones(2, 2, 3, 3))
    _same_error(lambda x, w: t2(x, w, padding=3), torch.ones(1, 2, 2, 2),
                torch.ones(2, 2, 3, 3))
    _same_error(lambda x, w: t2(x, w), torch.ones(1, 2, 3, 3), torch.ones(2, 2, 3, 3).double())
    raises(RuntimeError, lambda: t2(torch.ones(1, 2, 3, 3).cuda(), torch.ones(2, 2, 3, 3)),
           "Expected all tensors to be on the same device, but found at least two "
           "devices, cuda:0 and cpu!")

    # a small decoder trains as on the CPU
    trains_alike(
        lambda: torch.nn.Sequential(torch.nn.ConvTranspose2d(2, 4, 3, stride=2), torch.nn.ReLU(),
                                    torch.nn.ConvTranspose2d(4, 1, 2, padding=1)),
        lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9),
        lambda: (torch.randn(4, 2, 3, 3), torch.randn(4, 1, 6, 6)), F.mse_loss)


def case_unfold_fold_on_device():
    """unfold only moves elements: bit for bit in every floating dtype;
    fold sums overlapping blocks, to rounding; gradients on the device."""
    torch.manual_seed(13)
    x = torch.randn(2, 3, 5, 6)
    kws = [dict(kernel_size=2), dict(kernel_size=(2, 3), padding=1, stride=2),
           dict(kernel_size=3, dilation=(2, 1), padding=(1, 0)), dict(kernel_size=1)]
    for kw in kws:
        for dt in _FLOATS:
            v = x.to(dt)
            for t in (v, v.transpose(2, 3), v[0], v[:, :, 1:]):
                same(F.unfold(t.cuda(), **kw), F.unfold(t, **kw))
            cols = F.unfold(v, **kw)
            for c in (cols, cols[0], cols.transpose(1, 2).contiguous().transpose(1, 2)):
                tol = 1e-5 if dt in (torch.float32, torch.float64) else 1e-2
                close(F.fold(c.cuda(), (5, 6), **kw), F.fold(c, (5, 6), **kw), tol)
        _check_grads(lambda t: F.unfold(t, **kw), [x], 1e-5)
        _check_grads(lambda t: F.fold(t, (5, 6), **kw), [F.unfold(x, **kw)], 1e-5)
        fc, fd = torch.nn.Fold((5, 6), **kw), torch.nn.Unfold(**kw)
        close(fc(fd(x.cuda())), fc(fd(x)), 1e-5)
    same(F.unfold(torch.empty(0, 3, 4, 4).cuda(), 2), F.unfold(torch.empty(0, 3, 4, 4), 2))
    # the CPU's errors
    _same_error(lambda t: F.unfold(t, 2), torch.ones(2, 3))
    _same_error(lambda t: F.unfold(t, 7), x)
    _same_error(lambda t: F.unfold(t, 2), x.long())
    _same_error(lambda t: F.unfold(t, 2, stride=0), x)
    _same_error(lambda t: F.fold(t, (5, 6), 2), torch.ones(2, 12, 7))
    _same_error(lambda t: F.fold(t, (5, 6), 2), torch.ones(2, 13, 20))
    _same_error(lambda t: F.fold(t, (5, 6), 2), torch.ones(2, 12, 20).int())


# --- RNN / LSTM / GRU (python/ctorch/nn/modules/rnn.py: _device_layer) -------

def _rnn_pair(cls, kw, seed=0):
    torch.manual_seed(seed)
    m = cls(4, 5, **kw)
    md = cls(4, 5, **kw)
    md.load_state_dict(m.state_dict())
    return m, md.cuda()


def _outputs(y):
    """The tensors of a recurrent module's output (nested tuples, packed)."""
    if isinstance(y, torch.nn.utils.rnn.PackedSequence):
        return [y.data]
    if isinstance(y, (tuple, list)):
        return [t for v in y for t in _outputs(v)]
    return [y]


def case_rnn_layers_on_device():
    """Every mode, layers, directions, projections, batch_first, given
    states and packed sequences: outputs, final states and every gradient
    against the CPU's fused recurrence; the cells too."""
    torch.manual_seed(14)
    pack = torch.nn.utils.rnn.pack_padded_sequence
    x = torch.randn(6, 3, 4)
    configs = [(torch.nn.LSTM, {}), (torch.nn.GRU, {}), (torch.nn.RNN, {}),
               (torch.nn.RNN, {"nonlinearity": "relu", "bias": False}),
               (torch.nn.LSTM, {"proj_size": 3, "num_layers": 2, "bidirectional": True}),
               (torch.nn.GRU, {"num_layers": 2, "bidirectional": True, "batch_first": True}),
               (torch.nn.LSTM, {"batch_first": True, "bias": False})]
    for cls, kw in configs:
        m, md = _rnn_pair(cls, kw)
        dirs = 2 if kw.get("bidirectional") else 1
        nl = kw.get("num_layers", 1)
        hsz = kw.get("proj_size", 0) or 5
        h0 = torch.randn(nl * dirs, 3, hsz)
        c0 = torch.randn(nl * dirs, 3, 5)
        states = [None, (h0, c0) if cls is torch.nn.LSTM else h0]
        for st in states:
            bf = kw.get("batch_first", False)
            xin = x.transpose(0, 1) if bf else x
            for inp in (xin, pack(xin, [6, 4, 1], batch_first=bf)):
                def dev(v):
                    if v is None or isinstance(v, torch.nn.utils.rnn.PackedSequence):
                        return v if v is None else v.to("cuda")
                    if isinstance(v, tuple):
                        return tuple(t.cuda() for t in v)
                    return v.cuda()
                yc, yd = m(inp, st), md(dev(inp), dev(st))
                oc, od = _outputs(yc), _outputs(yd)
                assert len(oc) == len(od)
                for a, b in zip(od, oc):
                    close(a, b.detach(), 1e-5)
                torch.manual_seed(1)
                ws = [torch.randn(t.shape) for t in oc]
                m.zero_grad()
                md.zero_grad()
                sum((a * w).sum() for a, w in zip(oc, ws)).backward()
                sum((a * w.cuda()).sum() for a, w in zip(od, ws)).backward()
                for p, q in zip(md.parameters(), m.parameters()):
                    assert p.grad.device.type == "cuda"
                    close(p.grad, q.grad, 1e-4)
    # float64, and a gradient of the input and the initial state
    m, md = _rnn_pair(torch.nn.GRU, {})
    m, md = m.double(), md.double()
    _check_grads(lambda a, h: md(a, h)[0] if a.is_cuda else m(a, h)[0],
                 [x.double(), torch.randn(1, 3, 5).double()], 1e-10)
    # the cells
    for cls in (torch.nn.LSTMCell, torch.nn.GRUCell, torch.nn.RNNCell):
        torch.manual_seed(2)
        c = cls(4, 5)
        cd = cls(4, 5)
        cd.load_state_dict(c.state_dict())
        cd = cd.cuda()
        for a, b in zip(_outputs(cd(x[0].cuda())), _outputs(c(x[0]))):
            close(a, b.detach(), 1e-5)
        hx = torch.randn(3, 5)
        st = (hx, hx * 2) if cls is torch.nn.LSTMCell else hx
        std = (hx.cuda(), hx.cuda() * 2) if cls is torch.nn.LSTMCell else hx.cuda()
        oc, od = _outputs(c(x[1], st)), _outputs(cd(x[1].cuda(), std))
        sum(t.sum() for t in oc).backward()
        sum(t.sum() for t in od).backward()
        for p, q in zip(cd.parameters(), c.parameters()):
            assert p.grad.device.type == "cuda"
            close(p.grad, q.grad, 1e-5)
    # the CPU's errors
    m, md = _rnn_pair(torch.nn.LSTM, {})
    for bad in (torch.randn(6, 3, 3), torch.randn(6, 4)[None, None]):
        mc = raises(RuntimeError, lambda: m(bad))
        assert raises(RuntimeError, lambda: md(bad.cuda())) == mc


def case_shape_ops_free_their_device_memory():
    """Every composite here, forward and backward, and its error paths,
    leaves the device's allocated bytes where they were (each temporary
    has one owner)."""
    x = torch.randn(2, 3, 5, 6).cuda()
    w = torch.randn(3, 4, 3, 3).cuda()
    gru = torch.nn.GRU(6, 4).cuda()
    calls = [
        lambda t: torch.tril(t, 1), lambda t: torch.diag(t[0, 0], 1),
        lambda t: torch.trace(t[0, 0]), lambda t: torch.outer(t[0, 0, 0], t[0, 0, 1]),
        lambda t: torch.lerp(t, t * 2, 0.7), lambda t: torch.nan_to_num(t / 0),
        lambda t: F.interpolate(t, scale_factor=1.5, mode="bilinear"),
        lambda t: F.interpolate(t, size=(3, 7)), lambda t: F.conv_transpose2d(t, w, stride=2),
        lambda t: F.fold(F.unfold(t, 2), (5, 6), 2), lambda t: gru(t[0])[0],
    ]
    bad = [lambda: torch.tril(x[0, 0, 0]), lambda: F.interpolate(x.long(), scale_factor=2),
           lambda: F.conv_transpose2d(x, w[:2]), lambda: F.fold(x[0], (5, 6), 2)]

    def run():
        for f in calls:
            t = x.detach().clone().requires_grad_()
            f(t).sum().backward()
            assert t.grad is not None and t.grad.is_cuda
            del t
        F.one_hot(torch.arange(3).cuda()).sum().item()
        gru.zero_grad(set_to_none=True)
        for f in bad:
            raises((RuntimeError, IndexError), f)

    run()
    base = torch.cuda.memory_allocated(0)
    run()
    assert torch.cuda.memory_allocated(0) == base, (torch.cuda.memory_allocated(0), base)


def case_convolutions_without_channels_on_device():
    """Convolutions whose input has no channels (or no samples): the
    output is the bias, the gradients zeros or the bias's sum."""
    cases = [(F.conv2d, torch.randn(2, 0, 4, 4), torch.randn(3, 0, 2, 2), torch.randn(3)),
             (F.conv1d, torch.randn(2, 0, 5), torch.randn(3, 0, 2), torch.randn(3)),
             (F.conv_transpose2d, torch.randn(2, 3, 4, 4), torch.randn(3, 0, 2, 2),
              torch.randn(0)),
             (F.conv_transpose2d, torch.randn(0, 3, 4, 4), torch.randn(3, 2, 2, 2),
              torch.randn(2)),
             (F.conv2d, torch.randn(0, 3, 4, 4), torch.randn(2, 3, 2, 2), torch.randn(2))]
    for fn, x, w, b in cases:
        _conv_check(fn, x, w, b)
