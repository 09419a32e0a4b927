"""Fixed inputs and the calls of the losses, normalization layers and
embedding whose results test_nn_loss.py and test_nn_norm.py compare with
PyTorch 1.13's, recorded in nn_expected.py by gen_nn_expected.py.

Every runner takes the module (ctorch or torch) and returns plain Python
values: the output, and the gradients of a fixed weighting of it, so the
same code makes the records and checks them."""
import math

X = [[0.3, -1.2, 0.8, 2.1], [-0.5, 0.05, 1.7, -0.9], [1.1, 0.4, -2.3, 0.6]]
T = [[0.1, 0.9, 0.4, 0.7], [0.6, 0.2, 0.95, 0.3], [0.45, 0.8, 0.05, 0.5]]
P = [[0.2, 0.7, 0.55, 0.9], [0.35, 0.5, 0.85, 0.15], [0.6, 0.25, 0.05, 0.75]]
Y = [2, 0, 3]
W = [0.5, 1.0, 2.0, 1.5]
PW = [1.0, 2.0, 0.5, 3.0]
Y3 = [[0, 2, 1, 1], [2, 0, 0, 1]]
Y4 = [[[0, 2], [1, 1]], [[2, 0], [0, 1]]]


def wave(shape, a=1.3, b=0.2, scale=2.0):
    """Deterministic values for a tensor of `shape` (nested lists)."""
    n = 1
    for s in shape:
        n *= s
    flat = [scale * math.sin(a * i + b) + 0.1 * (i % 3) for i in range(n)]

    def nest(v, shp):
        if not shp:
            return v[0]
        step = len(v) // shp[0]
        return [nest(v[i * step:(i + 1) * step], shp[1:]) for i in range(shp[0])]
    return nest(flat, list(shape))


X3 = wave((2, 3, 4))
X4 = wave((2, 3, 2, 2), a=0.7, b=1.1)
REDUCTIONS = ("none", "mean", "sum")


def flat(t):
    """A tensor's values as a flat list of Python floats."""
    v = t.detach().reshape(-1).tolist()
    return [float(e) for e in v]


def weighted_sum(m, out):
    """sum(out * c) with c a fixed ramp, so each output element gets its own
    weight in the gradients."""
    if out.dim() == 0:
        return out * 1.3
    c = m.linspace(0.5, 1.5, out.numel(), dtype=out.dtype).reshape(out.shape)
    return (out * c).sum()


# (key, input, target, target differentiable, call(F, m, x, t, reduction))
def _cases():
    def w(m, like):
        return m.tensor(W, dtype=like.dtype)

    def pw(m, like):
        return m.tensor(PW, dtype=like.dtype)
    return [
        ("mse", "X", "T", True, lambda F, m, x, t, r: F.mse_loss(x, t, reduction=r)),
        ("l1", "X", "T", True, lambda F, m, x, t, r: F.l1_loss(x, t, reduction=r)),
        ("smooth_l1", "X", "T", True,
         lambda F, m, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5)),
        ("smooth_l1_beta0", "X", "T", True,
         lambda F, m, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.0)),
        ("huber", "X", "T", True,
         lambda F, m, x, t, r: F.huber_loss(x, t, reduction=r, delta=0.7)),
        ("bce", "P", "T", True,
         lambda F, m, x, t, r: F.binary_cross_entropy(x, t, reduction=r)),
        ("bce_weight", "P", "T", True,
         lambda F, m, x, t, r: F.binary_cross_entropy(x, t, weight=w(m, x), reduction=r)),
        ("bce_logits", "X", "T", True,
         lambda F, m, x, t, r: F.binary_cross_entropy_with_logits(x, t, reduction=r)),
        ("bce_logits_weights", "X", "T", True,
         lambda F, m, x, t, r: F.binary_cross_entropy_with_logits(
             x, t, weight=w(m, x), pos_weight=pw(m, x), reduction=r)),
        ("kl_div", "X", "T", True,
         lambda F, m, x, t, r: F.kl_div(x, t, reduction=r)),
        ("kl_div_log_target", "X", "X", True,
         lambda F, m, x, t, r: F.kl_div(x, t * 0.5, reduction=r, log_target=True)),
        ("nll", "X", "Y", False, lambda F, m, x, t, r: F.nll_loss(x, t, reduction=r)),
        ("nll_weight_ignore", "X", "Y", False,
         lambda F, m, x, t, r: F.nll_loss(x, t, weight=w(m, x), ignore_index=0, reduction=r)),
        ("nll_1d", "X", "Y", False,
         lambda F, m, x, t, r: F.nll_loss(x[0], t[1], reduction=r)),
        ("nll_3d", "X3", "Y3", False,
         lambda F, m, x, t, r: F.nll_loss(x, t, weight=w(m, x)[:3], reduction=r)),
        ("nll_4d", "X4", "Y4", False,
         lambda F, m, x, t, r: F.nll_loss(x, t, ignore_index=2, reduction=r)),
        ("ce", "X", "Y", False, lambda F, m, x, t, r: F.cross_entropy(x, t, reduction=r)),
        ("ce_weight_ignore", "X", "Y", False,
         lambda F, m, x, t, r: F.cross_entropy(x, t, weight=w(m, x), ignore_index=3,
                                               reduction=r)),
        ("ce_smoothing", "X", "Y", False,
         lambda F, m, x, t, r: F.cross_entropy(x, t, reduction=r, label_smoothing=0.15)),
        ("ce_smoothing_weight", "X", "Y", False,
         lambda F, m, x, t, r: F.cross_entropy(x, t, weight=w(m, x), ignore_index=0,
                                               reduction=r, label_smoothing=0.2)),
        ("ce_probs", "X", "T", True,
         lambda F, m, x, t, r: F.cross_entropy(x, t, reduction=r)),
        ("ce_probs_smoothing_weight", "X", "T", True,
         lambda F, m, x, t, r: F.cross_entropy(x, t, weight=w(m, x), reduction=r,
                                               label_smoothing=0.3)),
        ("ce_4d", "X4", "Y4", False,
         lambda F, m, x, t, r: F.cross_entropy(x, t, reduction=r)),
    ]


LOSS_CASES = _cases()
DATA = {"X": X, "T": T, "P": P, "Y": Y, "X3": X3, "Y3": Y3, "X4": X4, "Y4": Y4}


def make(m, name, requires_grad, dtype="float64"):
    v = DATA[name]
    if name.startswith("Y"):
        return m.tensor(v, dtype=m.int64)
    return m.tensor(v, dtype=getattr(m, dtype), requires_grad=requires_grad)


def run_loss(m, case, reduction, dtype="float64"):
    """(grad_fn name, output, d/dinput, d/dtarget or None) of one case."""
    import warnings
    key, xn, tn, tgrad, call = case
    F = m.nn.functional
    x = make(m, xn, True, dtype)
    t = make(m, tn, tgrad, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = call(F, m, x, t, reduction)
    weighted_sum(m, out).backward()
    return (type(out.grad_fn).__name__, flat(out), flat(x.grad),
            flat(t.grad) if tgrad else None)


# --- normalization ----------------------------------------------------------

def _bn_params(m, c, dtype):
    w = m.tensor([0.5 + 0.25 * i for i in range(c)], dtype=dtype, requires_grad=True)
    b = m.tensor([0.1 * i - 0.2 for i in range(c)], dtype=dtype, requires_grad=True)
    return w, b


def run_norm(m, key, dtype="float64"):
    """(grad_fn name, output, [gradients], [extra values]) of a
    normalization case."""
    F = m.nn.functional
    dt = getattr(m, dtype)
    extra = []
    if key.startswith("batch_norm"):
        shape = {"batch_norm_2d": (4, 3), "batch_norm_3d": (2, 3, 4),
                 "batch_norm_4d": (2, 3, 2, 2), "batch_norm_eval": (2, 3, 2, 2),
                 "batch_norm_noaffine": (2, 3, 4)}[key]
        x = m.tensor(wave(shape), dtype=dt, requires_grad=True)
        w, b = _bn_params(m, 3, dt)
        rm = m.tensor([0.1, -0.2, 0.3], dtype=dt)
        rv = m.tensor([1.5, 0.5, 2.0], dtype=dt)
        training = key != "batch_norm_eval"
        affine = key != "batch_norm_noaffine"
        out = F.batch_norm(x, rm, rv, w if affine else None, b if affine else None,
                           training=training, momentum=0.3, eps=1e-3)
        leaves = [x, w, b] if affine else [x]
        extra = flat(rm) + flat(rv)
    elif key.startswith("layer_norm"):
        x = m.tensor(wave((2, 3, 4)), dtype=dt, requires_grad=True)
        if key == "layer_norm_2":
            w = m.tensor(wave((3, 4), a=0.3), dtype=dt, requires_grad=True)
            b = m.tensor(wave((3, 4), a=0.9, scale=0.5), dtype=dt, requires_grad=True)
            out = F.layer_norm(x, (3, 4), w, b, eps=1e-4)
            leaves = [x, w, b]
        else:
            out = F.layer_norm(x, (4,))
            leaves = [x]
    elif key.startswith("group_norm"):
        x = m.tensor(wave((2, 6, 3)), dtype=dt, requires_grad=True)
        w = m.tensor([0.5 + 0.25 * i for i in range(6)], dtype=dt, requires_grad=True)
        b = m.tensor([0.1 * i - 0.2 for i in range(6)], dtype=dt, requires_grad=True)
        groups = 3 if key == "group_norm" else 1
        out = F.group_norm(x, groups, w, b, eps=1e-4)
        leaves = [x, w, b]
    else:
        weight = m.tensor(wave((6, 3), a=0.45), dtype=dt, requires_grad=True)
        idx = m.tensor([[1, 3, 1], [5, 0, 3]])
        if key == "embedding":
            out = F.embedding(idx, weight)
        elif key == "embedding_padding_freq":
            out = F.embedding(idx, weight, padding_idx=3, scale_grad_by_freq=True)
        else:
            out = F.embedding(idx, weight, max_norm=1.5)
            extra = flat(weight)
        leaves = [weight]
    weighted_sum(m, out).backward()
    return (type(out.grad_fn).__name__, flat(out), [flat(t.grad) for t in leaves], extra)


NORM_CASES = ("batch_norm_2d", "batch_norm_3d", "batch_norm_4d", "batch_norm_eval",
              "batch_norm_noaffine", "layer_norm_1", "layer_norm_2", "group_norm",
              "group_norm_1", "embedding", "embedding_padding_freq", "embedding_max_norm")


def run_bn_module(m, momentum, steps=3):
    """A BatchNorm2d trained for a few steps, then evaluated: its state and
    the eval output."""
    bn = m.nn.BatchNorm2d(3, momentum=momentum).double()
    for s in range(steps):
        bn(m.tensor(wave((2, 3, 2, 2), a=0.5 + 0.1 * s, b=0.3 * s), dtype=m.float64))
    bn.eval()
    out = bn(m.tensor(wave((2, 3, 2, 2), a=1.7), dtype=m.float64))
    state = {k: flat(v) if v.dim() > 0 else [float(v.item())]
             for k, v in bn.state_dict().items()}
    return state, flat(out)
