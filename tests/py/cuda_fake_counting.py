"""The counting and searching ops on the pretend device (aten/device_count.c):
unique, unique_consecutive, bincount, histc, searchsorted, bucketize and
mode, each compared bit for bit with ctorch's CPU result, errors included.
Run through cuda_fake_cases.py, which imports the case_* functions."""
import ctorch as torch

from cuda_fake_cases import DTYPES, _dims, _sort_inputs, raises, same

NAN = float("nan")


def _noncontiguous(dt):
    x = torch.tensor([[3., 1., 3., -0.0, 0.0, 1., 7.], [2., 2., 5., 1., 3., 3., 0.]])
    if dt.is_floating_point:
        x[1, 2] = NAN
        x[0, 6] = NAN
    if dt == torch.bool:
        x = x > 1
    else:
        x = x.abs().to(dt) if dt == torch.uint8 else x.to(dt)
    return [x.t(), x[:, ::2], x.t()[1:]]


def _same_results(dev, cpu):
    if isinstance(cpu, tuple):
        assert isinstance(dev, tuple) and len(dev) == len(cpu), (dev, cpu)
        for a, b in zip(dev, cpu):
            same(a, b)
    else:
        same(dev, cpu)


def _few_inputs(dt):
    """A short list of _sort_inputs's (ties, NaN, +-inf, -0.0, 0-dim,
    empty, 2-d, 3-d, strided) and a strided view: each device sort costs
    about a hundred pretend kernels."""
    xs = _sort_inputs(dt)
    return [xs[0], xs[1], xs[4], xs[5], xs[7], xs[9]] + _noncontiguous(dt)[:1]


def case_unique_on_device():
    for dt in DTYPES:
        for k, x in enumerate(_few_inputs(dt)):
            xd = x.cuda()
            if dt == torch.float16:
                cpu = raises(RuntimeError, lambda: torch.unique(x))
                raises(RuntimeError, lambda: torch.unique(xd), cpu)
                break
            _same_results(torch.unique(xd, return_inverse=True, return_counts=True),
                          torch.unique(x, return_inverse=True, return_counts=True))
            if k == 3:
                _same_results(torch.unique(xd, sorted=False, return_counts=True),
                              torch.unique(x, sorted=False, return_counts=True))
                _same_results(torch.unique(xd, return_inverse=True),
                              torch.unique(x, return_inverse=True))
                same(xd.unique(), x.unique())
    # a wide integer range (the CPU sorts) and a narrow one (it counts)
    g = torch.Generator().manual_seed(5)
    for x in (torch.randint(-10**12, 10**12, (50,), generator=g),
              torch.randint(0, 5, (6, 7), generator=g).to(torch.int16)):
        _same_results(torch.unique(x.cuda(), return_inverse=True, return_counts=True),
                      torch.unique(x, return_inverse=True, return_counts=True))
    # -0.0 and 0.0 are one value, its first occurrence's bits kept
    for x in (torch.tensor([0.0, -0.0, 1.0]), torch.tensor([-0.0, 1.0, 0.0])):
        _same_results(torch.unique(x.cuda(), return_counts=True),
                      torch.unique(x, return_counts=True))


def case_unique_dim_on_device():
    g = torch.Generator().manual_seed(23)
    m = torch.randint(0, 3, (7, 3), generator=g).double()
    for dt in (torch.bool, torch.uint8, torch.int64, torch.bfloat16, torch.float32,
               torch.float64):
        x = (m > 1) if dt == torch.bool else m.to(dt)
        cases = [(x, (0, 1)), (torch.stack([x, x.flip(0)], 2).transpose(0, 1), (-1, 1))]
        if dt.is_floating_point:
            # NaN and -0.0: the CPU's kernel on a host copy
            y = x.clone()
            y[0, 0] = NAN
            y[3, 1] = -0.0
            cases.append((y, (0,)))
        for xx, dims in cases:
            for dim in dims:
                cpu = torch.unique(xx, dim=dim, return_inverse=True, return_counts=True)
                dev = torch.unique(xx.cuda(), dim=dim, return_inverse=True, return_counts=True)
                _same_results(dev, cpu)
                assert dev[0].stride() == cpu[0].stride(), (dev[0].stride(), cpu[0].stride())
    cpu = raises(RuntimeError, lambda: torch.unique(x.half(), dim=0))
    raises(RuntimeError, lambda: torch.unique(x.half().cuda(), dim=0), cpu)
    # empty inputs and the CPU's errors for them
    for x, dim in ((torch.zeros(0, 3), 0), (torch.zeros(0, 3), 1), (torch.zeros(2, 0, 0), 1),
                   (torch.tensor(1.), 0), (torch.zeros(2, 2), 2)):
        try:
            cpu = torch.unique(x, dim=dim, return_inverse=True, return_counts=True)
        except (RuntimeError, IndexError) as e:
            raises(type(e), lambda: torch.unique(x.cuda(), dim=dim), str(e))
            continue
        _same_results(torch.unique(x.cuda(), dim=dim, return_inverse=True, return_counts=True),
                      cpu)


def case_unique_consecutive_on_device():
    for dt in DTYPES:
        for x in _few_inputs(dt):
            xd = x.cuda()
            if dt == torch.float16:
                cpu = raises(RuntimeError, lambda: torch.unique_consecutive(x))
                raises(RuntimeError, lambda: torch.unique_consecutive(xd), cpu)
                break
            same(torch.unique_consecutive(xd), torch.unique_consecutive(x))
            _same_results(torch.unique_consecutive(xd, return_inverse=True, return_counts=True),
                          torch.unique_consecutive(x, return_inverse=True, return_counts=True))
            for dim in range(-x.dim(), x.dim()):
                inv = cnt = dim % 2 == 0
                try:
                    cpu = torch.unique_consecutive(x, return_inverse=inv, return_counts=cnt,
                                                   dim=dim)
                except RuntimeError as e:
                    raises(RuntimeError, lambda: torch.unique_consecutive(
                        xd, return_inverse=inv, return_counts=cnt, dim=dim), str(e))
                    continue
                dev = torch.unique_consecutive(xd, return_inverse=inv, return_counts=cnt,
                                               dim=dim)
                _same_results(dev, cpu)
                # the values are a view laid out as the CPU's
                v = dev[0] if isinstance(dev, tuple) else dev
                c = cpu[0] if isinstance(cpu, tuple) else cpu
                assert v.stride() == c.stride(), (v.stride(), c.stride())
            if x.dim() == 0:
                cpu = raises(IndexError, lambda: torch.unique_consecutive(x, dim=0))
                raises(IndexError, lambda: torch.unique_consecutive(xd, dim=0), cpu)
    # rows equal but for a NaN, rows with -0.0 and 0.0
    x = torch.tensor([[1., NAN], [1., NAN], [-0.0, 2.], [0.0, 2.], [0.0, 2.]])
    for dim in (0, 1):
        _same_results(torch.unique_consecutive(x.cuda(), True, True, dim),
                      torch.unique_consecutive(x, True, True, dim))
    for bad in (2, -3):
        cpu = raises(IndexError, lambda: torch.unique_consecutive(x, dim=bad))
        raises(IndexError, lambda: torch.unique_consecutive(x.cuda(), dim=bad), cpu)


def case_bincount_on_device():
    g = torch.Generator().manual_seed(11)
    base = torch.randint(0, 9, (40,), generator=g)
    wts = [None, torch.rand(40, generator=g), torch.rand(40, generator=g).double(),
           (torch.rand(40, generator=g) * 8).to(torch.float16),
           torch.randint(-3, 4, (40,), generator=g), torch.randint(0, 2, (40,), generator=g) > 0,
           torch.rand(80, generator=g)[::2]]
    for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
        for x in (base.to(dt), base.to(dt)[::3], torch.tensor([], dtype=dt),
                  torch.tensor([0], dtype=dt), torch.tensor([5, 5, 5], dtype=dt)):
            for w in wts:
                if w is not None and w.numel() != x.numel():
                    w = w[:x.numel()] if w.numel() >= x.numel() else None
                for minlength in (0, 3, 12):
                    wd = w.cuda() if w is not None else None
                    try:
                        cpu = torch.bincount(x, w, minlength)
                    except RuntimeError as e:
                        raises(RuntimeError, lambda: torch.bincount(x.cuda(), wd, minlength),
                               str(e))
                        continue
                    same(torch.bincount(x.cuda(), wd, minlength), cpu)
    same(base.cuda().bincount(), base.bincount())
    # the CPU's errors
    bad = [(torch.tensor([1., 2.]), None, 0), (torch.tensor([True, False]), None, 0),
           (torch.tensor([1, 2]), None, -1), (torch.tensor([1, -2]), None, 0),
           (torch.tensor([[1, 2]]), None, 0), (torch.tensor(3), None, 0),
           (torch.tensor([1, 2]), torch.tensor([1., 2., 3.]), 0),
           (torch.tensor([1, 2]), torch.tensor([[1., 2.]]), 0),
           (torch.zeros(2, 0, dtype=torch.int64), None, 0)]
    for x, w, m in bad:
        cpu = raises(RuntimeError, lambda: torch.bincount(x, w, m))
        wd = w.cuda() if w is not None else None
        raises(RuntimeError, lambda: torch.bincount(x.cuda(), wd, m), cpu)
    raises(RuntimeError, lambda: torch.bincount(base.cuda(), wts[1]))


def case_histc_on_device():
    g = torch.Generator().manual_seed(13)
    raw = torch.randn(200, generator=g) * 3
    raw[::17] = 0.5
    for dt in (torch.float32, torch.float64, torch.bfloat16):
        x = raw.to(dt)
        xs = [x, x[::3], x.reshape(10, 20).t(), torch.tensor([], dtype=dt),
              torch.tensor([2.5], dtype=dt), torch.tensor([1., 1., 1.], dtype=dt),
              torch.tensor([-1., NAN, 3., float("inf"), 1.], dtype=dt)]
        for xx in xs:
            for bins, lo, hi in ((100, 0, 0), (7, -2, 2), (1, -1, 1), (13, 0.1, 0.3),
                                 (300, -5, 5), (5, 1, 1), (3, -1e30, 1e30)):
                try:
                    cpu = torch.histc(xx, bins, lo, hi)
                except RuntimeError as e:
                    raises(RuntimeError, lambda: torch.histc(xx.cuda(), bins, lo, hi), str(e))
                    continue
                same(torch.histc(xx.cuda(), bins, lo, hi), cpu)
        same(x.cuda().histc(bins=10, min=-3, max=3), x.histc(bins=10, min=-3, max=3))
    # bfloat16's bins rounded up (259 to 260): the values past the last bin
    # count in it on both
    xb = torch.linspace(0, 1, 1000).bfloat16()
    same(xb.cuda().histc(259, 0, 1), xb.histc(259, 0, 1))
    # the CPU's errors: dtypes, bins, an inverted or infinite range
    for x, args in ((raw.half(), (10,)), (raw.long(), (10,)), (raw, (0,)), (raw, (-3,)),
                    (raw, (10, 3, 1)), (raw, (10, 0, float("inf"))),
                    (torch.tensor([1., float("inf")]), (10,)), (torch.tensor([1., NAN]), (10,))):
        cpu = raises(RuntimeError, lambda: torch.histc(x, *args))
        raises(RuntimeError, lambda: torch.histc(x.cuda(), *args), cpu)


def _search_inputs(dt):
    seqs = [torch.tensor([1., 2., 2., 3., 5., 5., 5., 8.]), torch.tensor([4.]),
            torch.tensor([[0., 1., 1., 4.], [-2., -2., 3., 9.], [1., 1., 1., 1.]]),
            torch.tensor([[[1., 3.], [2., 2.]], [[-1., 0.], [5., 6.]]])]
    vals = [torch.tensor([0., 1., 2., 2.5, 5., 9., -3., 8.]), torch.tensor(2.),
            torch.tensor([[1., 4., 0.], [-2., 3., 10.], [1., 0., 2.]]),
            torch.tensor([[[1., 3., 2.], [2., 1., 0.]], [[0., -1., 7.], [5., 6., 5.5]]])]
    out = []
    for s, v in zip(seqs, vals):
        if dt.is_floating_point:
            s = torch.where(s == 8., torch.tensor(NAN), s)
            s = torch.where(s == 0., torch.tensor(-0.0), s)
            v = torch.where(v == 9., torch.tensor(NAN), v)
        if dt == torch.bool:
            s, v = s > 1, v > 1
            s = s.sort(-1)[0]
        elif dt == torch.uint8:
            s, v = s.abs().to(dt).sort(-1)[0], v.abs().to(dt)
        else:
            s, v = s.to(dt), v.to(dt)
        out.append((s, v))
    return out


def case_searchsorted_on_device():
    for dt in DTYPES:
        for s, v in _search_inputs(dt):
            for right in (False, True):
                for out_int32 in (False, True):
                    same(torch.searchsorted(s.cuda(), v.cuda(), right=right, out_int32=out_int32),
                         torch.searchsorted(s, v, right=right, out_int32=out_int32))
                side = "right" if right else "left"
                same(torch.searchsorted(s.cuda(), v.cuda(), side=side),
                     torch.searchsorted(s, v, side=side))
            if s.dim() == 1:
                same(torch.bucketize(v.cuda(), s.cuda()), torch.bucketize(v, s))
                same(torch.bucketize(v.cuda(), s.cuda(), right=True, out_int32=True),
                     torch.bucketize(v, s, right=True, out_int32=True))
    # promotion between the two dtypes, strided operands, empty ones
    s = torch.tensor([1, 3, 3, 6, 9, 12, 15, 20])
    v = torch.tensor([[0.5, 3., 3.5], [20., 21., -1.]])
    same(torch.searchsorted(s.cuda(), v.cuda()), torch.searchsorted(s, v))
    same(torch.searchsorted(s[::2].cuda(), v.t().cuda(), right=True),
         torch.searchsorted(s[::2], v.t(), right=True))
    same(torch.searchsorted(s.cuda(), torch.tensor([]).cuda()), torch.searchsorted(s, torch.tensor([])))
    same(torch.searchsorted(torch.tensor([]).cuda(), v.cuda()), torch.searchsorted(torch.tensor([]), v))
    same(torch.searchsorted(s.cuda(), 7), torch.searchsorted(s, 7))
    same(torch.bucketize(4, s.cuda()), torch.bucketize(4, s))
    # a sorter, with entries outside the row (the CPU reads key 0 there)
    u = torch.tensor([[9., 1., 4., 1.], [3., -2., 7., 0.]])
    order = u.argsort(-1)
    q = torch.tensor([[1., 0., 5., 10.], [-3., 3., 7., 0.]])
    for right in (False, True):
        same(torch.searchsorted(u.cuda(), q.cuda(), sorter=order.cuda(), right=right),
             torch.searchsorted(u, q, sorter=order, right=right))
        wild = torch.tensor([[1, 3, 7, 0], [-1, 0, 2, 3]])
        same(torch.searchsorted(u.cuda(), q.cuda(), sorter=wild.cuda(), right=right),
             torch.searchsorted(u, q, sorter=wild, right=right))
        iu = torch.tensor([-2**63, 0, 5])
        iq = torch.tensor([-2**63, 1, 5])
        wild = torch.tensor([0, 7, 2])
        same(torch.searchsorted(iu.cuda(), iq.cuda(), sorter=wild.cuda(), right=right),
             torch.searchsorted(iu, iq, sorter=wild, right=right))
    # the CPU's errors, and PyTorch's for operands on two devices
    bad = [(torch.tensor(1.), v, {}), (u, torch.tensor(1.), {}), (u, torch.ones(3, 2), {}),
           (u, q, {"sorter": order.int()}), (u, q, {"sorter": order[:, :2]})]
    for a, b, kw in bad:
        cpu = raises(RuntimeError, lambda: torch.searchsorted(a, b, **kw))
        kwd = {k: t.cuda() for k, t in kw.items()}
        raises(RuntimeError, lambda: torch.searchsorted(a.cuda(), b.cuda(), **kwd), cpu)
    raises(RuntimeError, lambda: torch.searchsorted(s.cuda(), v),
           "torch.searchsorted(): boundaries and input value tensors should have same "
           "device type, but got boundaries tensor device type cuda:0 and input value "
           "tensor device type cpu")
    raises(RuntimeError, lambda: torch.searchsorted(s, v.cuda()),
           "torch.searchsorted(): boundaries and input value tensors should have same "
           "device type, but got boundaries tensor device type cpu and input value "
           "tensor device type cuda:0")
    raises(RuntimeError, lambda: torch.searchsorted(u.cuda(), q.cuda(), sorter=order),
           "torch.searchsorted(): sorter and boundary tensors should have same device "
           "type, but got sorter tensor device type cpu and input value tensor device "
           "type cuda:0")
    cpu = raises(RuntimeError, lambda: torch.bucketize(v, u))
    raises(RuntimeError, lambda: torch.bucketize(v.cuda(), u.cuda()), cpu)


def _mode_rows(n, rows, g, nan):
    x = torch.randint(0, 4, (rows, n), generator=g).double()
    if nan:
        x = torch.where(torch.rand(rows, n, generator=g) < 0.15, torch.tensor(NAN), x)
    return x


def case_mode_on_device():
    g = torch.Generator().manual_seed(17)
    for dt in DTYPES:
        for x in _few_inputs(dt):
            xd = x.cuda()
            for dim in sorted({0, -1, x.dim() - 2} & set(_dims(x))):
                if x.dim() and x.shape[dim] == 0:
                    cpu = raises(IndexError, lambda: torch.mode(x, dim))
                    raises(IndexError, lambda: torch.mode(xd, dim), cpu)
                    continue
                keepdim = dim % 2 == 0
                v, i = torch.mode(xd, dim, keepdim)
                cv, ci = torch.mode(x, dim, keepdim)
                same(v, cv)
                same(i, ci)
    # line lengths up to the insertion sort's 16 and past it (the host
    # copy), many lines of ties and NaNs: the CPU's std::sort index choice
    for n, dt in ((2, torch.int32), (3, torch.bfloat16), (6, torch.float64),
                  (16, torch.float64), (17, torch.float64), (40, torch.int32)):
        for nan in (False, True) if dt.is_floating_point else (False,):
            xx = _mode_rows(n, 50, g, nan).to(dt)
            v, i = torch.mode(xx.cuda(), 1)
            cv, ci = torch.mode(xx, 1)
            same(v, cv)
            same(i, ci)
            v, i = torch.mode(xx.t().cuda(), 0, True)
            same(v, cv.unsqueeze(0))
            same(i, ci.unsqueeze(0))
    same(torch.tensor(2.5).cuda().mode()[0], torch.tensor(2.5).mode()[0])
    bad = torch.zeros(2, 3)
    cpu = raises(IndexError, lambda: torch.mode(bad, 2))
    raises(IndexError, lambda: torch.mode(bad.cuda(), 2), cpu)


def case_mode_backward_on_device():
    g = torch.Generator().manual_seed(19)
    for n in (5, 16, 23):
        x = torch.randint(-2, 3, (4, n), generator=g).double()
        x[1, 2] = NAN
        for dt in (torch.float32, torch.float64):
            for op in (lambda t: torch.mode(t, 1)[0], lambda t: torch.mode(t, 0, True)[0],
                       lambda t: t.t().mode()[0]):
                grads = []
                for dev in ("cpu", "cuda"):
                    t = x.to(dt).clone().to(dev).requires_grad_()
                    y = op(t)
                    w = torch.arange(1., y.numel() + 1).reshape(y.shape).to(dt).to(dev)
                    (y * w).sum().backward()
                    grads.append(t.grad)
                same(grads[1], grads[0])
                t = x.to(dt).cuda().requires_grad_()
                assert type(torch.mode(t, 1)[0].grad_fn).__name__ == "ModeBackward0"
