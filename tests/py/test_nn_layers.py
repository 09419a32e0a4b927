"""nn layers and nn.functional (linear, activations, dropout, softmax,
one_hot, normalize, distances, pad, flatten) and nn.utils against PyTorch
1.13.

As in test_nn_module.py: every scenario is a function of the library whose
plain-value result is compared with the recorded EXPECTED (regenerate with
`python3 tests/py/test_nn_layers.py` where torch imports) and with real
torch.  Seeded initializations are compared bit for bit (the float values
as Python floats), computed values to 4 decimals.
"""
import math
import sys
import warnings

import pytest

import ctorch


def _round(v, nd):
    if isinstance(v, list):
        return [_round(e, nd) for e in v]
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = round(v, nd)
        return 0.0 if r == 0 else r
    return v


def render(x, nd=4):
    if hasattr(x, "tolist") and hasattr(x, "dtype"):
        return ["T", str(x.dtype), list(x.shape), _round(x.tolist(), nd)]
    if isinstance(x, (list, tuple)):
        return [render(e, nd) for e in x]
    if isinstance(x, dict):
        return [[k, render(v, nd)] for k, v in x.items()]
    if isinstance(x, float):
        return _round(x, nd)
    if isinstance(x, str):
        return x.replace("<class 'ctorch.", "<class 'torch.")
    return x


def exact(t):
    """A tensor's values as exact floats (bitwise comparisons)."""
    return ["X", str(t.dtype), list(t.shape), t.tolist()]


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return [type(e).__name__, str(e)]
    return None


def data(T, *shape, seed=0, scale=2.0, dtype=None):
    """Deterministic inputs: the same values in both libraries."""
    n = 1
    for s in shape:
        n *= s
    vals = [scale * math.sin(1.3 * i + seed) for i in range(n)]
    t = T.tensor(vals, dtype=dtype or T.float32)
    return t.reshape(shape)


# Nodes where ctorch composes what PyTorch records as one node: torch's
# name -> the name of ctorch's last node.
NAME_ALIASES = {"GluBackward0": "MulBackward0", "PreluBackward0": "WhereBackward0",
                "MishBackwardBackward0": "MulBackward0"}


def grad_fn_name(t):
    if t.grad_fn is None:
        return None
    name = t.grad_fn.name()
    return NAME_ALIASES.get(name, name)


def fwd_bwd(T, module_or_fn, x, names=True):
    """Output, grad_fn name and input gradient of sum(out * weights)."""
    x = x.detach().requires_grad_(True)
    y = module_or_fn(x)
    w = data(T, *y.shape, seed=5, scale=1.0).to(y.dtype)
    (y * w).sum().backward()
    return [render(y), grad_fn_name(y) if names else None, render(x.grad)]


# --- initialization (bitwise) ----------------------------------------------------

def s_init_linear(T):
    T.manual_seed(0)
    lin = T.nn.Linear(10, 5)
    lin2 = T.nn.Linear(3, 4, bias=False)
    return [exact(lin.weight), exact(lin.bias), exact(lin2.weight), lin2.bias,
            exact(T.nn.Linear(2, 2, dtype=T.float64).weight)]


def s_init_bilinear_prelu(T):
    T.manual_seed(1)
    b = T.nn.Bilinear(2, 3, 2)
    p = T.nn.PReLU(3, init=0.1)
    return [exact(b.weight), exact(b.bias), exact(p.weight)]


def s_init_sequence(T):
    # the generator state after a model is built: later draws agree too
    T.manual_seed(3)
    T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 2))
    return exact(T.rand(4))


# --- linear --------------------------------------------------------------------------

def s_linear_forward(T):
    T.manual_seed(0)
    lin = T.nn.Linear(4, 3)
    out = []
    for shape in [(4,), (2, 4), (2, 3, 4), (2, 1, 3, 4)]:
        out.append(fwd_bwd(T, lin, data(T, *shape)))
    x = data(T, 3, 2, 4).transpose(0, 1)
    out.append(fwd_bwd(T, lin, x))
    nob = T.nn.Linear(4, 3, bias=False)
    out.append(fwd_bwd(T, nob, data(T, 2, 4)))
    out.append(render(lin.weight.grad))
    out.append(render(lin.bias.grad))
    out.append(err(lambda: lin(data(T, 2, 5))))
    return out


def s_bilinear(T):
    T.manual_seed(0)
    b = T.nn.Bilinear(3, 2, 4)
    x1 = data(T, 5, 3).requires_grad_()
    x2 = data(T, 5, 2, seed=2).requires_grad_()
    y = b(x1, x2)
    y.sum().backward()
    res = [render(y), render(x1.grad), render(x2.grad), render(b.weight.grad),
           render(b.bias.grad), repr(b)]
    y3 = b(data(T, 2, 2, 3), data(T, 2, 2, 2))
    res.append(render(y3))
    F = T.nn.functional
    w = b.weight.detach()
    res.append(err(lambda: F.bilinear(data(T, 2, 3), data(T, 2, 2, 2), w)))
    res.append(err(lambda: F.bilinear(data(T, 2, 3), data(T, 3, 2), w)))
    res.append(err(lambda: F.bilinear(data(T, 2, 4), data(T, 2, 2), w)))
    res.append(err(lambda: F.bilinear(data(T, 2, 3), data(T, 2, 3), w)))
    res.append(err(lambda: F.bilinear(data(T, 2, 3), data(T, 2, 2), w, T.ones(3))))
    return res


# --- activations -------------------------------------------------------------------

def _activation_modules(T):
    nn = T.nn
    return [
        nn.ReLU(), nn.ReLU6(), nn.LeakyReLU(), nn.LeakyReLU(0.2), nn.ELU(), nn.ELU(0.5),
        nn.SELU(), nn.CELU(), nn.CELU(2.0), nn.GELU(), nn.GELU(approximate="tanh"),
        nn.SiLU(), nn.Sigmoid(), nn.Tanh(), nn.Softplus(), nn.Softplus(2, 1),
        nn.Hardtanh(), nn.Hardtanh(-0.5, 2.0), nn.Threshold(0.1, 20.0),
        nn.Hardsigmoid(),
        nn.Hardswish(), nn.Mish(), nn.Softsign(), nn.Tanhshrink(), nn.Softshrink(),
        nn.Softshrink(1.0), nn.Hardshrink(), nn.Hardshrink(1.5), nn.LogSigmoid(),
        nn.Softmax(dim=1), nn.LogSoftmax(dim=0), nn.Softmin(dim=1), nn.GLU(),
        nn.PReLU(), nn.Identity(),
    ]


def s_activations(T):
    x = data(T, 4, 6, scale=4.0)
    res = []
    for m in _activation_modules(T):
        res.append([repr(m)] + fwd_bwd(T, m, x))
    return res


def s_activations_float64(T):
    x = data(T, 3, 4, scale=5.0, dtype=T.float64)
    return [fwd_bwd(T, m, x) for m in _activation_modules(T)[:30]]


def s_activation_inplace(T):
    F = T.nn.functional
    res = []
    for fn in [lambda t: F.relu(t, inplace=True), lambda t: F.leaky_relu(t, 0.3, True),
               lambda t: F.elu(t, 1.0, True), lambda t: F.hardtanh(t, -1, 1, True),
               lambda t: F.relu6(t, True), lambda t: F.selu(t, True),
               lambda t: F.celu(t, 0.7, True),
               lambda t: F.threshold(t, 0.5, -1.0, True),
               lambda t: F.hardsigmoid(t, True), lambda t: F.hardswish(t, True),
               lambda t: F.mish(t, True), lambda t: F.silu(t, True)]:
        leaf = data(T, 2, 5, scale=4.0).requires_grad_()
        y = leaf * 1
        z = fn(y)
        w = data(T, 2, 5, seed=3)
        (z * w).sum().backward()
        res.append([z is y, render(z), grad_fn_name(z), render(leaf.grad)])
    leaf = data(T, 3).requires_grad_()
    res.append(err(lambda: F.leaky_relu(leaf, 0.1, True)))
    return res


def s_activation_double_backward(T):
    F = T.nn.functional
    res = []
    fns = [lambda t: F.leaky_relu(t, 0.2), F.elu, F.selu, lambda t: F.celu(t, 1.5),
           F.softplus, F.hardtanh, lambda t: F.threshold(t, 0.3, 2.0), F.hardswish,
           lambda t: F.gelu(t, approximate="tanh"), F.mish, F.softshrink, F.hardshrink,
           F.logsigmoid, F.relu6]
    for fn in fns:
        x = data(T, 7, scale=3.0, dtype=T.float64).requires_grad_()
        y = fn(x)
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        # torch's mish backward is composite: its double-backward graph ends
        # in a MulBackward0 either way, ctorch records one node
        name = grad_fn_name(g) if fn is not F.mish else None
        res.append([name, render(g), render(gg)])
    return res


def s_activation_params(T):
    F = T.nn.functional
    x = T.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, float("nan"), float("inf")])
    res = [render(F.hardtanh(x)), render(F.threshold(x, 0.5, 9.0)),
           render(F.leaky_relu(x, -0.5)), render(F.softshrink(x, 0.5)),
           render(F.hardshrink(x, 0.5)), render(F.softplus(x, 2, 3)),
           render(F.elu(x, 2.0)), render(F.relu6(x * 3)), render(F.hardswish(x)),
           render(F.hardsigmoid(x)), render(F.mish(x)), render(F.logsigmoid(x)),
           render(F.gelu(x, approximate="tanh"))]
    i = T.tensor([-3, 0, 2, 9])
    res.append(render(F.hardtanh(i, -2, 5)))
    res.append(render(F.threshold(i, 1, 7)))
    res.append(render(F.relu6(i)))
    for fn in [F.leaky_relu, F.elu, F.softplus, F.hardsigmoid, F.hardswish, F.mish,
               F.softshrink, F.logsigmoid, F.selu, F.celu, F.silu, F.gelu,
               lambda t: F.gelu(t, approximate="tanh"), F.hardshrink]:
        res.append(err(lambda: fn(i)))
    res.append(err(lambda: F.gelu(x, approximate="fast")))
    res.append(err(lambda: F.softshrink(x, -1.0)))
    res.append(err(lambda: F.celu(x, 0.0)))
    res.append(err(lambda: F.glu(T.ones(3))))
    res.append(err(lambda: F.glu(T.tensor(1.0))))
    res.append(err(lambda: F.prelu(T.ones(2, 3), T.ones(2))))
    res.append(render(F.prelu(data(T, 2, 3, 2), T.tensor([0.1, 0.2, 0.3]))))
    res.append(render(F.rrelu(x, training=False)))
    res.append(render(T.nn.functional.rrelu(x[:7], 0.1, 0.3, False)))
    for fn in [lambda t: F.leaky_relu(t, 0.1), F.elu, F.softplus, F.hardtanh,
               F.hardswish, lambda t: F.gelu(t, approximate="tanh"), F.logsigmoid]:
        bf = fn(data(T, 4).bfloat16())
        res.append([str(bf.dtype), render(bf.float(), 2)])
    return res


def s_softmax(T):
    F = T.nn.functional
    x = data(T, 2, 3, 4)
    res = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res.append(render(F.softmax(x)))
        res.append(render(F.log_softmax(data(T, 3))))
        res.append(render(F.softmin(data(T, 3, 2))))
        res.append(render(T.nn.Softmax()(data(T, 2, 2))))
        res.append([str(m.message) for m in w])
    res.append(render(F.softmax(x, dim=-1, dtype=T.float64)))
    res.append(render(F.log_softmax(x, 1)))
    res.append(render(T.nn.Softmax2d()(x)))
    res.append(err(lambda: T.nn.Softmax2d()(data(T, 3))))
    res.append(fwd_bwd(T, T.nn.LogSoftmax(dim=-1), x))
    return res


# --- dropout -----------------------------------------------------------------------

def s_dropout(T):
    nn, F = T.nn, T.nn.functional
    res = []
    x = data(T, 4, 5) + 5
    for m in [nn.Dropout(), nn.Dropout(0.2), nn.Dropout2d(0.5), nn.Dropout1d(0.3),
              nn.AlphaDropout(0.2), nn.FeatureAlphaDropout(0.4), nn.Dropout3d(0.5)]:
        T.manual_seed(7)
        inp = x.reshape(2, 2, 5) if isinstance(m, (nn.Dropout2d, nn.Dropout1d)) else x
        if isinstance(m, nn.Dropout3d):
            inp = x.reshape(1, 2, 2, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res.append([repr(m), fwd_bwd(T, m, inp)])
            m.eval()
            res.append(m(inp) is inp)
    T.manual_seed(1)
    y = x.clone()
    r = F.dropout(y, 0.5, True, True)
    res.append([r is y, render(y)])
    res.append(render(F.dropout(x, 1.0)))
    res.append(F.dropout(x, 0.0) is x)
    res.append(err(lambda: nn.Dropout(1.5)))
    res.append(err(lambda: F.dropout(x, -0.1)))
    res.append(err(lambda: F.dropout1d(data(T, 2, 2, 2, 2))))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.dropout2d(data(T, 2, 3), 0.5)
        F.dropout3d(data(T, 2, 3), 0.5)
        res.append(len(w))
    res.append(T.rand(1).item())
    return res


# --- flatten, one_hot, normalize, distances, pad --------------------------------------

def s_flatten(T):
    nn = T.nn
    x = data(T, 2, 3, 4)
    res = [list(nn.Flatten()(x).shape), list(nn.Flatten(0, -1)(x).shape),
           list(nn.Flatten(1, 1)(x).shape), list(nn.Unflatten(1, (3, 1))(x).shape),
           list(nn.Unflatten(-1, [2, 2])(x).shape), repr(nn.Flatten()),
           repr(nn.Unflatten(1, (3, 1))), err(lambda: nn.Unflatten(1, 3)),
           err(lambda: nn.Unflatten(1, (3, "a"))), err(lambda: nn.Unflatten(1.0, (3,))),
           err(lambda: nn.Unflatten("x", (3,))),
           err(lambda: nn.Unflatten("x", ((3,), 2))),
           fwd_bwd(T, nn.Flatten(), x)]
    return res


def s_one_hot(T):
    F = T.nn.functional
    idx = T.tensor([[0, 2], [1, 3]])
    return [render(F.one_hot(idx)), render(F.one_hot(idx, 5)),
            render(F.one_hot(T.tensor([], dtype=T.int64), 3)),
            err(lambda: F.one_hot(T.tensor([1.0]))),
            err(lambda: F.one_hot(T.tensor([-1]))),
            err(lambda: F.one_hot(T.tensor([3]), 2)),
            err(lambda: F.one_hot(T.tensor([], dtype=T.int64)))]


def s_normalize_distances(T):
    F = T.nn.functional
    x = data(T, 3, 4)
    y = data(T, 3, 4, seed=4)
    z = T.zeros(2, 4)
    return [fwd_bwd(T, lambda t: F.normalize(t), x),
            fwd_bwd(T, lambda t: F.normalize(t, 1.0, 0), x),
            render(F.normalize(z)),
            fwd_bwd(T, lambda t: F.cosine_similarity(t, y), x),
            fwd_bwd(T, lambda t: F.cosine_similarity(t, y[0], dim=-1), x),
            render(F.cosine_similarity(z, T.ones(2, 4))),
            render(F.cosine_similarity(T.tensor([[1, 2]]), T.tensor([[3.0, 4.0]]))),
            err(lambda: F.cosine_similarity(T.tensor([[1, 2]]), T.tensor([[3, 4]]))),
            fwd_bwd(T, lambda t: F.pairwise_distance(t, y), x),
            render(F.pairwise_distance(x, y, 1.0, keepdim=True)),
            render(F.pairwise_distance(x, y, float("inf")))]


def s_pad(T):
    F = T.nn.functional
    x = data(T, 1, 2, 3, 4)
    x3 = data(T, 2, 3, 4)
    res = []
    for args, inp in [(((1, 2),), x), (((1, 1, 2, 0),), x), (((0, 0, 0, 0, 1, 1),), x),
                      (((-1, 2),), x), (((1, 2), "constant", 3.5), x),
                      (((1, 2), "reflect"), x3), (((2, 1, 1, 2), "reflect"), x),
                      (((1, 2), "replicate"), x3), (((3, 1, 2, 2), "replicate"), x),
                      (((1, 2), "circular"), x3), (((2, 3, 1, 2), "circular"), x),
                      (((-1, 1), "reflect"), x3), (((2, 1, 1, 0), "reflect"), x3)]:
        # ctorch pads with copies into a view / index_select (CopySlices,
        # IndexSelectBackward0), torch with a node per mode: no names here
        res.append([str(args), fwd_bwd(T, lambda t: F.pad(t, *args), inp, names=False)])
    x2 = data(T, 2, 3)
    res.append(render(F.pad(x2, (1, 1), "reflect")))
    res.append(render(F.pad(x2.int(), (1, 0, 0, 1), value=7)))
    res.append(render(F.pad(data(T, 1, 1, 2, 2, 2), (1, 0, 0, 1, 1, 0), "replicate")))
    res.append(err(lambda: F.pad(x, (1,))))
    res.append(err(lambda: F.pad(x, (1,) * 10)))
    res.append(err(lambda: F.pad(x3, (4, 4), "reflect")))
    res.append(err(lambda: F.pad(x, (1, 1, 3, 1), "reflect")))
    res.append(err(lambda: F.pad(x, (1, 1), "reflect")))
    res.append(err(lambda: F.pad(x2, (1, 1), "circular")))
    res.append(err(lambda: F.pad(x3, (1, 1, 1, 1), "circular")))
    res.append(err(lambda: F.pad(x3, (1, 1), "reflect", 2.0)))
    res.append(err(lambda: F.pad(x, (1, 1, 1, 1, 1, 1, 1, 1), "replicate")))
    res.append(err(lambda: F.pad(x3, (5, 1), "circular")))
    res.append(err(lambda: F.pad(x, (1, 1), "wrap")))
    res.append(err(lambda: F.pad(data(T, 3), (1, 1), "reflect")))
    return res


# --- attention and transformers ------------------------------------------------

def s_attention(T):
    nn, F = T.nn, T.nn.functional
    T.manual_seed(0)
    res = []
    m = nn.MultiheadAttention(8, 2, dropout=0.2, add_bias_kv=True, add_zero_attn=True)
    q, k, v = data(T, 5, 3, 8), data(T, 4, 3, 8, seed=1), data(T, 4, 3, 8, seed=2)
    mask = T.zeros(5, 4, dtype=T.bool)
    mask[0, 1] = True
    kpm = T.zeros(3, 4, dtype=T.bool)
    kpm[1, 3] = True
    out = fwd_bwd(T, lambda t: m(t, k, v, key_padding_mask=kpm, attn_mask=mask)[0], q)
    res.append(out)
    res.append(render(m.in_proj_weight.grad))
    m.eval()
    o, w = m(q, k, v, attn_mask=data(T, 5, 4, seed=3), average_attn_weights=False)
    res.append([render(o), render(w)])
    o, w = m(q[:, 0], k[:, 0], v[:, 0], need_weights=False)
    res.append([render(o), w])
    m2 = nn.MultiheadAttention(6, 3, kdim=4, vdim=5, batch_first=True, bias=False)
    o, w = m2(data(T, 2, 3, 6), data(T, 2, 4, 4), data(T, 2, 4, 5))
    res.append([render(o), render(w), repr(m2),
                [n for n, _ in m2.named_parameters()]])
    res.append(err(lambda: m2(data(T, 3, 6), data(T, 2, 4, 4), data(T, 2, 4, 5))))
    res.append(err(lambda: nn.MultiheadAttention(6, 4)))
    res.append(err(lambda: m(q, k, v, attn_mask=T.zeros(2, 2))))
    x = data(T, 2, 4, 3, 8)
    res.append(render(F._scaled_dot_product_attention(x[0], x[0], x[0], None, 0.0,
                                                      True, True)))
    return res


def s_transformer(T):
    nn = T.nn
    T.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
    kpm = T.zeros(3, 5, dtype=T.bool)
    kpm[2, 4] = True
    smask = nn.Transformer.generate_square_subsequent_mask(5)
    res = [render(smask),
           fwd_bwd(T, lambda t: enc(t, mask=smask, src_key_padding_mask=kpm),
                   data(T, 5, 3, 8))]
    tr = nn.Transformer(8, 2, 1, 1, 16, 0.0, batch_first=True, norm_first=True,
                        activation="gelu")
    res.append(fwd_bwd(T, lambda t: tr(t, data(T, 2, 3, 8, seed=4)), data(T, 2, 4, 8)))
    res.append([len(list(tr.parameters())), [n for n, _ in tr.named_parameters()][:8]])
    res.append(repr(layer))
    dec = nn.TransformerDecoderLayer(8, 2, 16, 0.0)
    dec.eval()
    res.append(render(dec(data(T, 3, 2, 8), data(T, 4, 2, 8, seed=1))))
    res.append(err(lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh")))
    res.append(err(lambda: tr(data(T, 2, 4, 8), data(T, 3, 3, 8))))
    res.append(err(lambda: tr(data(T, 2, 4, 6), data(T, 2, 3, 6))))
    return res


# --- nn.utils ----------------------------------------------------------------------

def s_utils(T):
    nn = T.nn
    T.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    (m(data(T, 5, 4)) ** 2).sum().backward()
    grads = [p.grad.clone() for p in m.parameters()]
    res = [render(nn.utils.clip_grad_norm_(m.parameters(), 1.0)),
           render([p.grad for p in m.parameters()])]
    for p, g in zip(m.parameters(), grads):
        p.grad = g.clone()
    res.append(render(nn.utils.clip_grad_norm_(m.parameters(), 0.5,
                                               norm_type=float("inf"))))
    res.append(render(nn.utils.clip_grad_norm_(list(m.parameters())[0], 100.0, 1)))
    res.append(render(nn.utils.clip_grad_norm_([], 1.0)))
    m[0].weight.grad[0, 0] = float("nan")
    res.append(err(lambda: nn.utils.clip_grad_norm_(m.parameters(), 1.0,
                                                   error_if_nonfinite=True)))
    for p, g in zip(m.parameters(), grads):
        p.grad = g.clone()
    nn.utils.clip_grad_value_(m.parameters(), 0.5)
    res.append(render([p.grad for p in m.parameters()]))
    v = nn.utils.parameters_to_vector(m.parameters())
    res.append(render(v))
    nn.utils.vector_to_parameters(v * 2, m.parameters())
    res.append(render(m[2].bias))
    res.append(err(lambda: nn.utils.vector_to_parameters([1.0], m.parameters())))
    return res


def s_training(T):
    """A small MLP trained with plain gradient steps: the loss curve."""
    nn = T.nn
    T.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.1), nn.Dropout(0.1),
                          nn.Linear(16, 8), nn.GELU(approximate="tanh"),
                          nn.Linear(8, 3))
    x = T.randn(32, 6)
    target = T.randn(32, 3)
    losses = []
    for _ in range(30):
        model.zero_grad()
        loss = ((model(x) - target) ** 2).mean()
        loss.backward()
        with T.no_grad():
            for p in model.parameters():
                p -= 0.05 * p.grad
        losses.append(loss.item())
    model.eval()
    return [render(losses, 4), render(((model(x) - target) ** 2).mean().item())]


def s_reprs(T):
    nn = T.nn
    mods = [nn.Linear(3, 4), nn.Bilinear(2, 3, 4, bias=False), nn.Identity(3, a=1),
            nn.ReLU(inplace=True), nn.ReLU6(True), nn.LeakyReLU(0.1, True), nn.ELU(2.0),
            nn.CELU(), nn.SELU(True), nn.GELU(), nn.SiLU(True), nn.Mish(), nn.Sigmoid(),
            nn.Tanh(), nn.Softmax(), nn.LogSoftmax(1), nn.Softmin(0), nn.Softmax2d(),
            nn.Softplus(beta=2), nn.Hardtanh(-2, 2, True), nn.Threshold(0.1, 2, True),
            nn.Hardsigmoid(), nn.Hardswish(True), nn.Softsign(), nn.Tanhshrink(),
            nn.Softshrink(0.3), nn.Hardshrink(), nn.LogSigmoid(), nn.PReLU(4),
            nn.GLU(0),
            nn.RReLU(0.1, 0.2, True), nn.Dropout(0.3, True), nn.Dropout2d(),
            nn.AlphaDropout(0.1), nn.Flatten(2, 3), nn.Unflatten(0, (2, 2))]
    return [repr(m) for m in mods] + [err(lambda: nn.Hardtanh(1, 0))]


SCENARIOS = [name[2:] for name in dir(sys.modules[__name__]) if name.startswith("s_")]


def run(T, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return render(globals()["s_" + name](T))


@pytest.mark.parametrize("name", SCENARIOS)
def test_recorded(name):
    assert run(ctorch, name) == EXPECTED[name]


@pytest.mark.parametrize("name", SCENARIOS)
def test_vs_torch(name, torch_ref):
    assert run(ctorch, name) == run(torch_ref, name)


def test_gradcheck_activations():
    F = ctorch.nn.functional
    fns = [lambda t: F.leaky_relu(t, 0.2), lambda t: F.elu(t, 0.7), F.selu,
           lambda t: F.celu(t, 1.5), lambda t: F.softplus(t, 2, 4), F.hardtanh,
           lambda t: F.threshold(t, 0.3, 2.0), F.hardsigmoid, F.hardswish,
           lambda t: F.gelu(t, approximate="tanh"), F.mish, F.softshrink, F.hardshrink,
           F.logsigmoid, F.relu6, F.softsign, F.tanhshrink, F.glu,
           lambda t: F.prelu(t, ctorch.tensor([0.3], dtype=ctorch.float64)),
           lambda t: F.pad(t, (1, 2), "reflect"),
           lambda t: F.pad(t[None], (2, 1), "circular"),
           lambda t: F.pad(t[None], (1, 2, 0, 1), "replicate"),
           lambda t: F.pad(t, (1, -1)),
           lambda t: F.normalize(t, dim=0), lambda t: F.cosine_similarity(t, t.flip(0)),
           lambda t: F.linear(t, t.flip(0))]
    # points away from the kinks (finite differences straddle them otherwise)
    x = ctorch.tensor([[-2.3, -1.1, -0.35, 0.42], [0.83, 1.7, 2.9, -3.3]],
                      dtype=ctorch.float64, requires_grad=True)
    for fn in fns:
        assert ctorch.autograd.gradcheck(fn, (x,))
    smooth = [lambda t: F.elu(t, 0.7), lambda t: F.softplus(t, 2, 4),
              lambda t: F.gelu(t, approximate="tanh"), F.mish, F.logsigmoid, F.selu,
              lambda t: F.celu(t, 1.5), F.hardswish, lambda t: F.leaky_relu(t, 0.2)]
    for fn in smooth:
        assert ctorch.autograd.gradgradcheck(fn, (x,))


def test_bilinear_gradcheck():
    w = ctorch.randn(2, 3, 4, dtype=ctorch.float64, requires_grad=True)
    b = ctorch.randn(2, dtype=ctorch.float64, requires_grad=True)
    x1 = ctorch.randn(5, 3, dtype=ctorch.float64, requires_grad=True)
    x2 = ctorch.randn(5, 4, dtype=ctorch.float64, requires_grad=True)
    assert ctorch.autograd.gradcheck(ctorch.nn.functional.bilinear, (x1, x2, w, b))


def test_scaled_dot_product_attention(torch_ref):
    # PyTorch 2.x's function against 1.13's private one
    F, TF = ctorch.nn.functional, torch_ref.nn.functional
    q, k, v = (data(ctorch, 2, 3, 4, 5, seed=s) for s in (0, 1, 2))
    tq, tk, tv = (data(torch_ref, 2, 3, 4, 5, seed=s) for s in (0, 1, 2))
    m = data(ctorch, 4, 4, seed=3)
    tm = data(torch_ref, 4, 4, seed=3)
    for kw, tkw in [({}, {}), ({"is_causal": True}, {"is_causal": True}),
                    ({"attn_mask": m}, {"attn_mask": tm}),
                    ({"attn_mask": m > 0}, {"attn_mask": tm > 0})]:
        got = F.scaled_dot_product_attention(q, k, v, **kw)
        want = TF._scaled_dot_product_attention(tq, tk, tv, need_attn_weights=False,
                                                **tkw)[0]
        assert got.reshape(-1).tolist() == pytest.approx(want.reshape(-1).tolist(),
                                                         abs=1e-5)
    got = F.scaled_dot_product_attention(q, k, v, scale=0.5)
    ref = (ctorch.matmul(q, k.transpose(-2, -1)) * 0.5).softmax(-1) @ v
    assert got.reshape(-1).tolist() == pytest.approx(ref.reshape(-1).tolist(), abs=1e-6)


def test_linear_grad_fn_names(torch_ref):
    for T in (ctorch, torch_ref):
        w = T.ones(3, 4, requires_grad=True)
        b = T.ones(3, requires_grad=True)
        names = [T.nn.functional.linear(T.ones(*s), w, b).grad_fn.name()
                 for s in [(2, 4), (2, 2, 4), (4,), (2, 2, 2, 4)]]
        names.append(T.nn.functional.linear(T.ones(2, 4), w).grad_fn.name())
        if T is ctorch:
            mine = names
    assert mine == names


# Recorded from PyTorch 1.13 (see the module docstring).
EXPECTED = {'activation_double_backward': [['LeakyReluBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.7813, 3.093, -0.1651, -0.212, 1.2907,
                                   5.9913]],
                                 ['T', 'torch.float64', [7],
                                  [0.08, 2.0, 2.0, 0.08, 0.08, 2.0, 2.0]]],
                                ['EluBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.7813, 3.093, -0.2218, -0.1313, 1.2907,
                                   5.9913]],
                                 ['T', 'torch.float64', [7],
                                  [2.0, 2.0, 2.0, -0.1895, -0.1213, 2.0, 2.0]]],
                                ['EluBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 6.3825, 3.4146, -0.6855, -0.4058, 1.4249,
                                   6.6142]],
                                 ['T', 'torch.float64', [7],
                                  [6.1818, 2.2079, 2.2079, -0.5858, -0.3749, 2.2079,
                                   2.2079]]],
                                ['EluBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.7813, 3.093, -0.5665, -0.425, 1.2907,
                                   5.9913]],
                                 ['T', 'torch.float64', [7],
                                  [2.0, 2.0, 2.0, -0.25, -0.2249, 2.0, 2.0]]],
                                ['SoftplusBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.6931, 5.5796, 2.8683, 0.027, 0.009, 1.3998,
                                   5.7989]],
                                 ['T', 'torch.float64', [7],
                                  [0.8466, 2.0886, 1.8629, 0.0493, 0.0171, 1.3422,
                                   2.0902]]],
                                ['HardtanhBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 0.0, 0.0, 0.0, 0.0, 1.2907, 0.0]],
                                 ['T', 'torch.float64', [7],
                                  [2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]]],
                                ['ThresholdBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.7813, 3.093, 0.0, 0.0, 1.2907, 5.9913]],
                                 ['T', 'torch.float64', [7],
                                  [0.0, 2.0, 2.0, 0.0, 0.0, 2.0, 2.0]]],
                                ['HardswishBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 8.3072, 2.3801, 0.121, 0.1184, 0.5608, 8.9716]],
                                 ['T', 'torch.float64', [7],
                                  [0.5, 6.176, 2.8437, -0.1442, 0.1911, 1.2842,
                                   6.4869]]],
                                ['GeluBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.8606, 3.2697, 0.0064, 0.0006, 0.9076, 6.054]],
                                 ['T', 'torch.float64', [7],
                                  [0.5, 1.8318, 2.4036, 0.0212, 0.0028, 2.2928,
                                   1.8552]]],
                                [None,
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.8911, 3.1643, 0.0541, 0.0382, 0.9652,
                                   6.0908]],
                                 ['T', 'torch.float64', [7],
                                  [0.72, 1.9021, 2.3331, 0.012, 0.0331, 2.1924,
                                   1.9044]]],
                                ['SoftshrinkBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 4.7813, 2.093, -3.1266, -4.3007, 0.2907,
                                   4.9913]],
                                 ['T', 'torch.float64', [7],
                                  [0.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]],
                                ['HardshrinkBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.7813, 3.093, -4.1266, -5.3007, 1.2907,
                                   5.9913]],
                                 ['T', 'torch.float64', [7],
                                  [0.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]],
                                ['LogSigmoidBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [-0.6931, -0.0057, -0.0678, -3.8737, -5.0785, -0.2901,
                                   -0.0046]],
                                 ['T', 'torch.float64', [7],
                                  [0.8466, 0.0109, 0.1176, 2.0112, 2.0799, 0.427,
                                   0.009]]],
                                ['HardtanhBackwardBackward0',
                                 ['T', 'torch.float64', [7],
                                  [0.0, 5.7813, 3.093, 0.0, 0.0, 1.2907, 5.9913]],
                                 ['T', 'torch.float64', [7],
                                  [0.0, 2.0, 2.0, 0.0, 0.0, 2.0, 2.0]]]],
 'activation_inplace': [[True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.8542, 2.062, 0.0, 0.0],
                           [0.8605, 3.9942, 1.2764, 0.0, 0.0]]],
                         'ReluBackward0',
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, -1.8323, -1.2625, 0.0, 0.0],
                           [-0.1503, -1.9619, -0.8993, 0.0, 0.0]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.8542, 2.062, -0.8253, -1.0601],
                           [0.8605, 3.9942, 1.2764, -0.9934, -0.9144]]],
                         'LeakyReluBackward1',
                         ['T', 'torch.float32', [2, 5],
                          [[0.0847, -1.8323, -1.2625, 0.3471, 0.5644],
                           [-0.1503, -1.9619, -0.8993, 0.4442, 0.5074]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.8542, 2.062, -0.9361, -0.9708],
                           [0.8605, 3.9942, 1.2764, -0.9635, -0.9525]]],
                         'EluBackward1',
                         ['T', 'torch.float32', [2, 5],
                          [[0.2822, -1.8323, -1.2625, 0.0739, 0.0549],
                           [-0.1503, -1.9619, -0.8993, 0.054, 0.0803]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 1.0, 1.0, -1.0, -1.0],
                           [0.8605, 1.0, 1.0, -1.0, -1.0]]],
                         'HardtanhBackward0',
                         ['T', 'torch.float32', [2, 5],
                          [[0.2822, 0.0, 0.0, 0.0, 0.0],
                           [-0.1503, 0.0, 0.0, 0.0, 0.0]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.8542, 2.062, 0.0, 0.0],
                           [0.8605, 3.9942, 1.2764, 0.0, 0.0]]],
                         'HardtanhBackward0',
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, -1.8323, -1.2625, 0.0, 0.0],
                           [-0.1503, -1.9619, -0.8993, 0.0, 0.0]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 4.0496, 2.1666, -1.6458, -1.7068],
                           [0.9041, 4.1967, 1.3411, -1.694, -1.6747]]],
                         'EluBackward1',
                         ['T', 'torch.float32', [2, 5],
                          [[0.4962, -1.9252, -1.3265, 0.1299, 0.0966],
                           [-0.1579, -2.0613, -0.9449, 0.0949, 0.1411]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.8542, 2.062, -0.6863, -0.6955],
                           [0.8605, 3.9942, 1.2764, -0.6938, -0.691]]],
                         'CeluBackward1',
                         ['T', 'torch.float32', [2, 5],
                          [[0.2822, -1.8323, -1.2625, 0.0227, 0.0121],
                           [-0.1503, -1.9619, -0.8993, 0.0131, 0.0217]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[-1.0, 3.8542, 2.062, -1.0, -1.0],
                           [0.8605, 3.9942, 1.2764, -1.0, -1.0]]],
                         'ThresholdBackward1',
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, -1.8323, -1.2625, 0.0, 0.0],
                           [-0.1503, -1.9619, -0.8993, 0.0, 0.0]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.5, 1.0, 0.8437, 0.0415, 0.0],
                           [0.6434, 1.0, 0.7127, 0.0, 0.0]]],
                         'HardsigmoidBackward0',
                         ['T', 'torch.float32', [2, 5],
                          [[0.047, 0.0, -0.2104, 0.1928, 0.0],
                           [-0.0251, 0.0, -0.1499, 0.0, 0.0]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.8542, 1.7396, -0.1141, 0.0],
                           [0.5536, 3.9942, 0.9097, 0.0, 0.0]]],
                         'HardswishBackward0',
                         ['T', 'torch.float32', [2, 5],
                          [[0.1411, -1.8323, -1.4991, -0.4824, 0.0],
                           [-0.1183, -1.9619, -0.8323, 0.0, 0.0]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.8509, 2.0102, -0.1701, -0.1017],
                           [0.7208, 3.9916, 1.1604, -0.1186, -0.1412]]],
                         'MishBackward0',
                         ['T', 'torch.float32', [2, 5],
                          [[0.1693, -1.8427, -1.3455, -0.1188, -0.1343],
                           [-0.153, -1.9707, -0.9733, -0.1193, -0.1547]]]],
                        [True,
                         ['T', 'torch.float32', [2, 5],
                          [[0.0, 3.7743, 1.8293, -0.1651, -0.1002],
                           [0.6047, 3.9219, 0.9979, -0.1165, -0.1381]]],
                         'SiluBackward0',
                         ['T', 'torch.float32', [2, 5],
                          [[0.1411, -1.9378, -1.3807, -0.1101, -0.1299],
                           [-0.1326, -2.0656, -0.8989, -0.1144, -0.1464]]]],
                        ['RuntimeError',
                         'a view of a leaf Variable that requires grad is being used '
                         'in an in-place operation.']],
 'activation_params': [['T', 'torch.float32', [9],
                        [-1.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0, 'nan', 1.0]],
                       ['T', 'torch.float32', [9],
                        [9.0, 9.0, 9.0, 9.0, 9.0, 1.0, 3.0, 'nan', 'inf']],
                       ['T', 'torch.float32', [9],
                        [1.5, 0.5, 0.25, 0.0, 0.5, 1.0, 3.0, 'nan', 'inf']],
                       ['T', 'torch.float32', [9],
                        [-2.5, -0.5, 0.0, 0.0, 0.0, 0.5, 2.5, 0.0, 'inf']],
                       ['T', 'torch.float32', [9],
                        [-3.0, -1.0, 0.0, 0.0, 0.0, 1.0, 3.0, 'nan', 'inf']],
                       ['T', 'torch.float32', [9],
                        [0.0012, 0.0635, 0.1566, 0.3466, 0.6566, 1.0635, 3.0, 'nan',
                         'inf']],
                       ['T', 'torch.float32', [9],
                        [-1.9004, -1.2642, -0.7869, 0.0, 0.5, 1.0, 3.0, 'nan', 'inf']],
                       ['T', 'torch.float32', [9],
                        [0.0, 0.0, 0.0, 0.0, 1.5, 3.0, 6.0, 'nan', 6.0]],
                       ['T', 'torch.float32', [9],
                        [0.0, -0.3333, -0.2083, 0.0, 0.2917, 0.6667, 3.0, 'nan',
                         'inf']],
                       ['T', 'torch.float32', [9],
                        [0.0, 0.3333, 0.4167, 0.5, 0.5833, 0.6667, 1.0, 'nan', 1.0]],
                       ['T', 'torch.float32', [9],
                        [-0.1456, -0.3034, -0.2207, 0.0, 0.3752, 0.8651, 2.9865, 'nan',
                         'inf']],
                       ['T', 'torch.float32', [9],
                        [-3.0486, -1.3133, -0.9741, -0.6931, -0.4741, -0.3133, -0.0486,
                         'nan', 0.0]],
                       ['T', 'torch.float32', [9],
                        [-0.0036, -0.1588, -0.1543, 0.0, 0.3457, 0.8412, 2.9964, 'nan',
                         'inf']],
                       ['T', 'torch.int64', [4], [-2, 0, 2, 5]],
                       ['T', 'torch.int64', [4], [7, 7, 2, 9]],
                       ['T', 'torch.int64', [4], [0, 0, 2, 6]],
                       ['RuntimeError',
                        '"leaky_relu_cpu" not implemented for \'Long\''],
                       ['RuntimeError', '"elu_cpu" not implemented for \'Long\''],
                       ['RuntimeError', '"softplus_cpu" not implemented for \'Long\''],
                       ['RuntimeError',
                        '"hardsigmoid_cpu" not implemented for \'Long\''],
                       ['RuntimeError', '"hardswish_cpu" not implemented for \'Long\''],
                       ['RuntimeError', '"mish_cpu" not implemented for \'Long\''],
                       ['RuntimeError',
                        '"softshrink_cpu" not implemented for \'Long\''],
                       ['RuntimeError',
                        '"log_sigmoid_cpu" not implemented for \'Long\''],
                       ['RuntimeError', '"elu_cpu" not implemented for \'Long\''],
                       ['RuntimeError', '"elu_cpu" not implemented for \'Long\''],
                       ['RuntimeError', '"silu_cpu" not implemented for \'Long\''],
                       ['RuntimeError',
                        '"GeluKernelImpl" not implemented for \'Long\''],
                       ['RuntimeError',
                        '"GeluKernelImpl" not implemented for \'Long\''],
                       ['RuntimeError',
                        '"hardshrink_cpu" not implemented for \'Long\''],
                       ['RuntimeError',
                        'approximate argument must be either none or tanh.'],
                       ['RuntimeError',
                        'lambda must be greater or equal to 0, but found to be -1.'],
                       ['RuntimeError',
                        'ZeroDivisionError: alpha cannot be 0 for CELU'],
                       ['RuntimeError',
                        'Halving dimension must be even, but dimension 0 is size 3'],
                       ['RuntimeError',
                        'glu does not support scalars because halving size must be '
                        'even'],
                       ['RuntimeError',
                        'Mismatch of parameter numbers and input channel size. Found '
                        'parameter numbers = 2 and channel size = 3.'],
                       ['T', 'torch.float32', [2, 3, 2],
                        [[[0.0, 1.9271], [1.031, -0.2751], [-0.5301, 0.4302]],
                         [[1.9971, 0.6382], [-0.3311, -0.3048], [0.8403, 1.9735]]]],
                       ['T', 'torch.float32', [9],
                        [-0.6875, -0.2292, -0.1146, 0.0, 0.5, 1.0, 3.0, 'nan', 'inf']],
                       ['T', 'torch.float32', [7],
                        [-0.6, -0.2, -0.1, 0.0, 0.5, 1.0, 3.0]],
                       ['torch.bfloat16',
                        ['T', 'torch.float32', [4], [0.0, 1.93, 1.03, -0.14]]],
                       ['torch.bfloat16',
                        ['T', 'torch.float32', [4], [0.0, 1.93, 1.03, -0.75]]],
                       ['torch.bfloat16',
                        ['T', 'torch.float32', [4], [0.69, 2.06, 1.34, 0.23]]],
                       ['torch.bfloat16',
                        ['T', 'torch.float32', [4], [0.0, 1.0, 1.0, -1.0]]],
                       ['torch.bfloat16',
                        ['T', 'torch.float32', [4], [0.0, 1.59, 0.69, -0.37]]],
                       ['torch.bfloat16',
                        ['T', 'torch.float32', [4], [0.0, 1.88, 0.88, -0.12]]],
                       ['torch.bfloat16',
                        ['T', 'torch.float32', [4], [-0.69, -0.14, -0.3, -1.6]]]],
 'activations': [['ReLU()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, 0.0, 0.0, 0.8605],
                    [3.9942, 1.2764, 0.0, 0.0, 1.6807, 3.9471],
                    [0.431, 0.0, 0.0, 2.4222, 3.7152, 0.0],
                    [0.0, 0.0, 3.0502, 3.3093, 0.0, 0.0]]],
                  'ReluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9679, 0.0, 0.0, -0.8755],
                    [0.2315, 0.9993, 0.0, 0.0, -0.751, 0.4354],
                    [0.9839, 0.0, 0.0, -0.5914, 0.6188, 0.0],
                    [0.0, 0.0, -0.404, 0.7733, 0.0, 0.0]]]],
                 ['ReLU6()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, 0.0, 0.0, 0.8605],
                    [3.9942, 1.2764, 0.0, 0.0, 1.6807, 3.9471],
                    [0.431, 0.0, 0.0, 2.4222, 3.7152, 0.0],
                    [0.0, 0.0, 3.0502, 3.3093, 0.0, 0.0]]],
                  'HardtanhBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9679, 0.0, 0.0, -0.8755],
                    [0.2315, 0.9993, 0.0, 0.0, -0.751, 0.4354],
                    [0.9839, 0.0, 0.0, -0.5914, 0.6188, 0.0],
                    [0.0, 0.0, -0.404, 0.7733, 0.0, 0.0]]]],
                 ['LeakyReLU(negative_slope=0.01)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -0.0275, -0.0353, 0.8605],
                    [3.9942, 1.2764, -0.0331, -0.0305, 1.6807, 3.9471],
                    [0.431, -0.0372, -0.0242, 2.4222, 3.7152, -0.0043],
                    [-0.0395, -0.0168, 3.0502, 3.3093, -0.0128, -0.0399]]],
                  'LeakyReluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.0096, 0.0168, 0.9679, 0.005, -0.007, -0.8755],
                    [0.2315, 0.9993, 0.003, -0.0084, -0.751, 0.4354],
                    [0.9839, 0.0009, -0.0094, -0.5914, 0.6188, 0.0092],
                    [-0.0013, -0.0099, -0.404, 0.7733, 0.0082, -0.0034]]]],
                 ['LeakyReLU(negative_slope=0.2)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -0.5502, -0.7068, 0.8605],
                    [3.9942, 1.2764, -0.6623, -0.6096, 1.6807, 3.9471],
                    [0.431, -0.7433, -0.4839, 2.4222, 3.7152, -0.0869],
                    [-0.7895, -0.3355, 3.0502, 3.3093, -0.256, -0.7988]]],
                  'LeakyReluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.1918, 0.0168, 0.9679, 0.1002, -0.14, -0.8755],
                    [0.2315, 0.9993, 0.0606, -0.1674, -0.751, 0.4354],
                    [0.9839, 0.0182, -0.187, -0.5914, 0.6188, 0.1845],
                    [-0.0251, -0.1979, -0.404, 0.7733, 0.1636, -0.0672]]]],
                 ['ELU(alpha=1.0)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -0.9361, -0.9708, 0.8605],
                    [3.9942, 1.2764, -0.9635, -0.9525, 1.6807, 3.9471],
                    [0.431, -0.9757, -0.911, 2.4222, 3.7152, -0.3524],
                    [-0.9807, -0.8131, 3.0502, 3.3093, -0.7219, -0.9816]]],
                  'EluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0168, 0.9679, 0.032, -0.0204, -0.8755],
                    [0.2315, 0.9993, 0.0111, -0.0397, -0.751, 0.4354],
                    [0.9839, 0.0022, -0.0832, -0.5914, 0.6188, 0.5973],
                    [-0.0024, -0.1849, -0.404, 0.7733, 0.2274, -0.0062]]]],
                 ['ELU(alpha=0.5)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -0.4681, -0.4854, 0.8605],
                    [3.9942, 1.2764, -0.4818, -0.4763, 1.6807, 3.9471],
                    [0.431, -0.4878, -0.4555, 2.4222, 3.7152, -0.1762],
                    [-0.4904, -0.4066, 3.0502, 3.3093, -0.3609, -0.4908]]],
                  'EluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0168, 0.9679, 0.016, -0.0102, -0.8755],
                    [0.2315, 0.9993, 0.0055, -0.0199, -0.751, 0.4354],
                    [0.9839, 0.0011, -0.0416, -0.5914, 0.6188, 0.2987],
                    [-0.0012, -0.0924, -0.404, 0.7733, 0.1137, -0.0031]]]],
                 ['SELU()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 4.0496, 2.1666, -1.6458, -1.7068, 0.9041],
                    [4.1967, 1.3411, -1.694, -1.6747, 1.7659, 4.1472],
                    [0.4529, -1.7153, -1.6017, 2.545, 3.9035, -0.6196],
                    [-1.7242, -1.4296, 3.2049, 3.4771, -1.2692, -1.7257]]],
                  'EluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-1.6859, 0.0177, 1.017, 0.0563, -0.0359, -0.9198],
                    [0.2432, 1.05, 0.0194, -0.0698, -0.7891, 0.4574],
                    [1.0338, 0.0039, -0.1463, -0.6213, 0.6502, 1.0502],
                    [-0.0043, -0.325, -0.4245, 0.8125, 0.3998, -0.0109]]]],
                 ['CELU(alpha=1.0)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -0.9361, -0.9708, 0.8605],
                    [3.9942, 1.2764, -0.9635, -0.9525, 1.6807, 3.9471],
                    [0.431, -0.9757, -0.911, 2.4222, 3.7152, -0.3524],
                    [-0.9807, -0.8131, 3.0502, 3.3093, -0.7219, -0.9816]]],
                  'CeluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0168, 0.9679, 0.032, -0.0204, -0.8755],
                    [0.2315, 0.9993, 0.0111, -0.0397, -0.751, 0.4354],
                    [0.9839, 0.0022, -0.0832, -0.5914, 0.6188, 0.5973],
                    [-0.0024, -0.1849, -0.404, 0.7733, 0.2274, -0.0062]]]],
                 ['CELU(alpha=2.0)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -1.4946, -1.6583, 0.8605],
                    [3.9942, 1.2764, -1.6181, -1.5643, 1.6807, 3.9471],
                    [0.431, -1.6881, -1.4034, 2.4222, 3.7152, -0.3906],
                    [-1.7222, -1.1355, 3.0502, 3.3093, -0.9453, -1.7285]]],
                  'CeluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0168, 0.9679, 0.1266, -0.1196, -0.8755],
                    [0.2315, 0.9993, 0.0579, -0.1824, -0.751, 0.4354],
                    [0.9839, 0.0142, -0.279, -0.5914, 0.6188, 0.7423],
                    [-0.0174, -0.4277, -0.404, 0.7733, 0.4313, -0.0456]]]],
                 ["GELU(approximate='none')",
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.854, 2.0216, -0.0082, -0.0007, 0.6929],
                    [3.994, 1.1476, -0.0015, -0.0035, 1.6027, 3.9469],
                    [0.2874, -0.0004, -0.0188, 2.4035, 3.7148, -0.1442],
                    [-0.0002, -0.0784, 3.0467, 3.3078, -0.1284, -0.0001]]],
                  'GeluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0168, 1.044, -0.011, 0.0018, -0.9125],
                    [0.2316, 1.1238, -0.0015, 0.0088, -0.8388, 0.4356],
                    [0.8102, -0.0001, 0.0411, -0.6172, 0.6197, 0.1607],
                    [0.0001, 0.1159, -0.4083, 0.7772, -0.1021, 0.0002]]]],
                 ["GELU(approximate='tanh')",
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8541, 2.0217, -0.0077, -0.0005, 0.6928],
                    [3.9941, 1.1474, -0.0013, -0.0031, 1.6025, 3.947],
                    [0.2874, -0.0003, -0.0184, 2.4039, 3.7149, -0.1443],
                    [-0.0001, -0.0785, 3.0471, 3.308, -0.1286, -0.0001]]],
                  'GeluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0168, 1.0448, -0.011, 0.0015, -0.9122],
                    [0.2316, 1.1237, -0.0014, 0.0085, -0.8392, 0.4355],
                    [0.8101, -0.0001, 0.0415, -0.6175, 0.6195, 0.1608],
                    [0.0001, 0.1165, -0.4081, 0.7769, -0.1019, 0.0001]]]],
                 ['SiLU()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.7743, 1.8293, -0.1651, -0.1002, 0.6047],
                    [3.9219, 0.9979, -0.1165, -0.1381, 1.4168, 3.8723],
                    [0.2612, -0.0882, -0.1977, 2.2248, 3.6269, -0.1708],
                    [-0.0747, -0.2641, 2.9123, 3.1926, -0.2785, -0.0723]]],
                  'SiluBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0178, 1.0585, -0.0477, 0.0483, -0.7726],
                    [0.2437, 0.9989, -0.0234, 0.0724, -0.8001, 0.4591],
                    [0.6976, -0.0057, 0.0934, -0.6504, 0.6575, 0.2669],
                    [0.0068, 0.0644, -0.439, 0.8331, -0.0002, 0.0178]]]],
                 ['Sigmoid()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.5, 0.9792, 0.8872, 0.06, 0.0284, 0.7028],
                    [0.9819, 0.7818, 0.0352, 0.0453, 0.843, 0.9811],
                    [0.6061, 0.0237, 0.0817, 0.9185, 0.9762, 0.393],
                    [0.0189, 0.1574, 0.9548, 0.9647, 0.2176, 0.0181]]],
                  'SigmoidBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.2397, 0.0003, 0.0969, 0.0283, -0.0193, -0.1829],
                    [0.0041, 0.1705, 0.0103, -0.0362, -0.0994, 0.0081],
                    [0.2349, 0.0021, -0.0702, -0.0443, 0.0144, 0.2201],
                    [-0.0023, -0.1313, -0.0174, 0.0263, 0.1392, -0.006]]]],
                 ['Tanh()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.9991, 0.9682, -0.9919, -0.9983, 0.6965],
                    [0.9993, 0.8555, -0.9973, -0.9955, 0.9329, 0.9993],
                    [0.4062, -0.9988, -0.9843, 0.9844, 0.9988, -0.4091],
                    [-0.9993, -0.9325, 0.9955, 0.9973, -0.8564, -0.9993]]],
                  'TanhBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0, 0.0607, 0.0081, -0.0024, -0.4508],
                    [0.0003, 0.2679, 0.0016, -0.0075, -0.0973, 0.0006],
                    [0.8216, 0.0002, -0.0292, -0.0183, 0.0015, 0.768],
                    [-0.0002, -0.129, -0.0036, 0.0041, 0.218, -0.0005]]]],
                 ['Softplus(beta=1, threshold=20)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.6931, 3.8752, 2.1817, 0.0619, 0.0288, 1.2132],
                    [4.0124, 1.5225, 0.0358, 0.0464, 1.8515, 3.9662],
                    [0.9317, 0.024, 0.0852, 2.5072, 3.7392, 0.4993],
                    [0.0191, 0.1713, 3.0965, 3.3452, 0.2454, 0.0183]]],
                  'SoftplusBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0165, 0.8587, 0.0301, -0.0199, -0.6152],
                    [0.2273, 0.7813, 0.0107, -0.0379, -0.6331, 0.4271],
                    [0.5964, 0.0022, -0.0764, -0.5432, 0.6041, 0.3626],
                    [-0.0024, -0.1558, -0.3858, 0.7461, 0.1779, -0.0061]]]],
                 ['Softplus(beta=2, threshold=1)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.3466, 3.8542, 2.062, 0.002, 0.0004, 0.8605],
                    [3.9942, 1.2764, 0.0007, 0.0011, 1.6807, 3.9471],
                    [0.6072, 0.0003, 0.0039, 2.4222, 3.7152, 0.1751],
                    [0.0002, 0.0172, 3.0502, 3.3093, 0.0372, 0.0002]]],
                  'SoftplusBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0168, 0.9679, 0.002, -0.0006, -0.8755],
                    [0.2315, 0.9993, 0.0004, -0.0019, -0.751, 0.4354],
                    [0.6918, 0.0001, -0.0073, -0.5914, 0.6188, 0.2725],
                    [0.0, -0.0334, -0.404, 0.7733, 0.0587, -0.0001]]]],
                 ['Hardtanh(min_val=-1.0, max_val=1.0)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 1.0, 1.0, -1.0, -1.0, 0.8605],
                    [1.0, 1.0, -1.0, -1.0, 1.0, 1.0],
                    [0.431, -1.0, -1.0, 1.0, 1.0, -0.4345],
                    [-1.0, -1.0, 1.0, 1.0, -1.0, -1.0]]],
                  'HardtanhBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0, 0.0, 0.0, 0.0, -0.8755],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.9839, 0.0, 0.0, 0.0, 0.0, 0.9224],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]],
                 ['Hardtanh(min_val=-0.5, max_val=2.0)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 2.0, 2.0, -0.5, -0.5, 0.8605],
                    [2.0, 1.2764, -0.5, -0.5, 1.6807, 2.0],
                    [0.431, -0.5, -0.5, 2.0, 2.0, -0.4345],
                    [-0.5, -0.5, 2.0, 2.0, -0.5, -0.5]]],
                  'HardtanhBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0, 0.0, 0.0, 0.0, -0.8755],
                    [0.0, 0.9993, 0.0, 0.0, -0.751, 0.0],
                    [0.9839, 0.0, 0.0, 0.0, 0.0, 0.9224],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]],
                 ['Threshold(threshold=0.1, value=20.0)',
                  ['T', 'torch.float32', [4, 6],
                   [[20.0, 3.8542, 2.062, 20.0, 20.0, 0.8605],
                    [3.9942, 1.2764, 20.0, 20.0, 1.6807, 3.9471],
                    [0.431, 20.0, 20.0, 2.4222, 3.7152, 20.0],
                    [20.0, 20.0, 3.0502, 3.3093, 20.0, 20.0]]],
                  'ThresholdBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9679, 0.0, 0.0, -0.8755],
                    [0.2315, 0.9993, 0.0, 0.0, -0.751, 0.4354],
                    [0.9839, 0.0, 0.0, -0.5914, 0.6188, 0.0],
                    [0.0, 0.0, -0.404, 0.7733, 0.0, 0.0]]]],
                 ['Hardsigmoid()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.5, 1.0, 0.8437, 0.0415, 0.0, 0.6434],
                    [1.0, 0.7127, 0.0, 0.0, 0.7801, 1.0],
                    [0.5718, 0.0, 0.0968, 0.9037, 1.0, 0.4276],
                    [0.0, 0.2204, 1.0, 1.0, 0.2867, 0.0]]],
                  'HardsigmoidBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.1598, 0.0, 0.1613, 0.0835, 0.0, -0.1459],
                    [0.0, 0.1666, 0.0, 0.0, -0.1252, 0.0],
                    [0.164, 0.0, -0.1559, -0.0986, 0.0, 0.1537],
                    [0.0, -0.1649, 0.0, 0.0, 0.1363, 0.0]]]],
                 ['Hardswish()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 1.7396, -0.1141, 0.0, 0.5536],
                    [3.9942, 0.9097, 0.0, 0.0, 1.3111, 3.9471],
                    [0.2465, 0.0, -0.2341, 2.1889, 3.7152, -0.1858],
                    [0.0, -0.3698, 3.0502, 3.3093, -0.3669, 0.0]]],
                  'HardswishBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0168, 1.1492, -0.2089, 0.0, -0.6888],
                    [0.2315, 0.9248, 0.0, 0.0, -0.7962, 0.4354],
                    [0.6333, 0.0, 0.2866, -0.7731, 0.6188, 0.3276],
                    [0.0, 0.0585, -0.404, 0.7733, 0.06, 0.0]]]],
                 ['Mish()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8509, 2.0102, -0.1701, -0.1017, 0.7208],
                    [3.9916, 1.1604, -0.1186, -0.1412, 1.5998, 3.9443],
                    [0.3152, -0.0893, -0.2057, 2.3902, 3.711, -0.2006],
                    [-0.0755, -0.2846, 3.0378, 3.3011, -0.3079, -0.0729]]],
                  'MishBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.5754, 0.0169, 1.0315, -0.0514, 0.05, -0.8913],
                    [0.2325, 1.0815, -0.0244, 0.0766, -0.8148, 0.4375],
                    [0.8392, -0.0058, 0.104, -0.618, 0.6232, 0.3018],
                    [0.007, 0.0859, -0.412, 0.7837, -0.0178, 0.0181]]]],
                 ['Softsign()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.794, 0.6734, -0.7334, -0.7794, 0.4625],
                    [0.7998, 0.5607, -0.7681, -0.753, 0.627, 0.7979],
                    [0.3012, -0.788, -0.7075, 0.7078, 0.7879, -0.3029],
                    [-0.7979, -0.6265, 0.7531, 0.7679, -0.5614, -0.7998]]],
                  'DivBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0007, 0.1032, 0.0356, -0.034, -0.2529],
                    [0.0093, 0.1928, 0.0163, -0.0511, -0.1045, 0.0178],
                    [0.4805, 0.0041, -0.08, -0.0505, 0.0278, 0.4482],
                    [-0.0051, -0.138, -0.0246, 0.0416, 0.1573, -0.0135]]]],
                 ['Tanhshrink()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 2.8551, 1.0938, -1.7592, -2.5355, 0.164],
                    [2.9949, 0.4209, -2.314, -2.0524, 0.7477, 2.9478],
                    [0.0248, -2.7177, -1.435, 1.4378, 2.7164, -0.0254],
                    [-2.9484, -0.7449, 2.0547, 2.312, -0.4233, -2.9947]]],
                  'SubBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9073, 0.4929, -0.6975, -0.4247],
                    [0.2312, 0.7314, 0.3015, -0.8296, -0.6537, 0.4347],
                    [0.1623, 0.0908, -0.9061, -0.573, 0.6174, 0.1544],
                    [-0.1251, -0.8605, -0.4004, 0.7692, 0.5998, -0.3354]]]],
                 ['Softshrink(0.5)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.3542, 1.562, -2.2511, -3.0338, 0.3605],
                    [3.4942, 0.7764, -2.8113, -2.5479, 1.1807, 3.4471],
                    [0.0, -3.2165, -1.9193, 1.9222, 3.2152, 0.0],
                    [-3.4477, -1.1774, 2.5502, 2.8093, -0.7798, -3.494]]],
                  'SoftshrinkBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9679, 0.501, -0.6999, -0.8755],
                    [0.2315, 0.9993, 0.3031, -0.8371, -0.751, 0.4354],
                    [0.0, 0.091, -0.9352, -0.5914, 0.6188, 0.0],
                    [-0.1253, -0.9895, -0.404, 0.7733, 0.8178, -0.3358]]]],
                 ['Softshrink(1.0)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 2.8542, 1.062, -1.7511, -2.5338, 0.0],
                    [2.9942, 0.2764, -2.3113, -2.0479, 0.6807, 2.9471],
                    [0.0, -2.7165, -1.4193, 1.4222, 2.7152, 0.0],
                    [-2.9477, -0.6774, 2.0502, 2.3093, -0.2798, -2.994]]],
                  'SoftshrinkBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9679, 0.501, -0.6999, 0.0],
                    [0.2315, 0.9993, 0.3031, -0.8371, -0.751, 0.4354],
                    [0.0, 0.091, -0.9352, -0.5914, 0.6188, 0.0],
                    [-0.1253, -0.9895, -0.404, 0.7733, 0.8178, -0.3358]]]],
                 ['Hardshrink(0.5)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -2.7511, -3.5338, 0.8605],
                    [3.9942, 1.2764, -3.3113, -3.0479, 1.6807, 3.9471],
                    [0.0, -3.7165, -2.4193, 2.4222, 3.7152, 0.0],
                    [-3.9477, -1.6774, 3.0502, 3.3093, -1.2798, -3.994]]],
                  'HardshrinkBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9679, 0.501, -0.6999, -0.8755],
                    [0.2315, 0.9993, 0.3031, -0.8371, -0.751, 0.4354],
                    [0.0, 0.091, -0.9352, -0.5914, 0.6188, 0.0],
                    [-0.1253, -0.9895, -0.404, 0.7733, 0.8178, -0.3358]]]],
                 ['Hardshrink(1.5)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -2.7511, -3.5338, 0.0],
                    [3.9942, 0.0, -3.3113, -3.0479, 1.6807, 3.9471],
                    [0.0, -3.7165, -2.4193, 2.4222, 3.7152, 0.0],
                    [-3.9477, -1.6774, 3.0502, 3.3093, 0.0, -3.994]]],
                  'HardshrinkBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 0.0168, 0.9679, 0.501, -0.6999, 0.0],
                    [0.2315, 0.0, 0.3031, -0.8371, -0.751, 0.4354],
                    [0.0, 0.091, -0.9352, -0.5914, 0.6188, 0.0],
                    [-0.1253, -0.9895, -0.404, 0.7733, 0.0, -0.3358]]]],
                 ['LogSigmoid()',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.6931, -0.021, -0.1197, -2.813, -3.5626, -0.3527],
                    [-0.0183, -0.2461, -3.3471, -3.0943, -0.1708, -0.0191],
                    [-0.5007, -3.7405, -2.5046, -0.085, -0.0241, -0.9338],
                    [-3.9668, -1.8487, -0.0463, -0.0359, -1.5251, -4.0122]]],
                  'LogSigmoidBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.4795, 0.0003, 0.1092, 0.4709, -0.68, -0.2602],
                    [0.0042, 0.218, 0.2925, -0.7992, -0.1179, 0.0082],
                    [0.3875, 0.0889, -0.8588, -0.0482, 0.0147, 0.5599],
                    [-0.123, -0.8337, -0.0183, 0.0273, 0.6398, -0.3297]]]],
                 ['Softmax(dim=1)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0171, 0.8065, 0.1344, 0.0011, 0.0005, 0.0404],
                    [0.4716, 0.0311, 0.0003, 0.0004, 0.0466, 0.4499],
                    [0.0282, 0.0004, 0.0016, 0.2063, 0.7516, 0.0119],
                    [0.0004, 0.0038, 0.4311, 0.5586, 0.0057, 0.0004]]],
                  'SoftmaxBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.018, -0.0607, 0.1177, 0.0004, -0.0004, -0.0391],
                    [-0.0327, 0.0217, 0.0, -0.0005, -0.0491, 0.0605],
                    [0.017, -0.0001, -0.0021, -0.2004, 0.1793, 0.0064],
                    [-0.0002, -0.0048, -0.2856, 0.2876, 0.0032, -0.0002]]]],
                 ['LogSoftmax(dim=0)',
                  ['T', 'torch.float32', [4, 6],
                   [[-4.0402, -0.0773, -1.309, -6.4081, -7.3785, -3.1435],
                    [-0.0461, -2.6552, -6.6823, -6.705, -2.164, -0.0569],
                    [-3.6092, -7.6481, -5.7903, -1.2349, -0.1295, -4.4385],
                    [-7.9879, -5.609, -0.3208, -0.3478, -5.1244, -7.9979]]],
                  'LogSoftmaxBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9612, -0.0921, 0.9863, 0.5013, -0.6999, -0.8818],
                    [0.1063, 0.991, 0.3032, -0.837, -0.7493, 0.2969],
                    [0.9804, 0.091, -0.935, -0.5465, 0.6314, 0.9207],
                    [-0.1254, -0.9899, -0.3545, 0.8822, 0.8179, -0.3359]]]],
                 ['Softmin(dim=1)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0194, 0.0004, 0.0025, 0.3042, 0.6653, 0.0082],
                    [0.0004, 0.0057, 0.5597, 0.4301, 0.0038, 0.0004],
                    [0.0119, 0.7522, 0.2056, 0.0016, 0.0004, 0.0282],
                    [0.4501, 0.0465, 0.0004, 0.0003, 0.0312, 0.4714]]],
                  'SoftmaxBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0121, -0.0001, -0.0032, -0.2548, 0.2416, 0.0044],
                    [-0.0002, -0.0068, -0.2745, 0.2795, 0.0021, -0.0002],
                    [-0.0127, -0.1337, 0.1744, 0.0008, -0.0003, -0.0285],
                    [-0.0494, 0.0351, 0.0001, -0.0003, -0.0329, 0.0475]]]],
                 ['GLU(dim=-1)',
                  ['T', 'torch.float32', [4, 3],
                   [[0.0, 0.1093, 1.4491], [0.181, 1.076, -3.2486],
                    [0.3959, -3.6281, -0.9509], [-3.8085, -0.365, 0.0552]]],
                  'MulBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.0576, 0.0005, 0.6802, 0.0, 0.0018, 0.4169],
                    [0.0227, -0.59, -0.8589, 0.0866, -0.1182, 0.0539],
                    [0.2126, 0.9756, 0.1191, 0.0075, -0.0862, -0.1749],
                    [-0.8076, -0.1634, 0.0079, 0.1124, 0.2145, 0.0236]]]],
                 ['PReLU(num_parameters=1)',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -0.6878, -0.8835, 0.8605],
                    [3.9942, 1.2764, -0.8278, -0.762, 1.6807, 3.9471],
                    [0.431, -0.9291, -0.6048, 2.4222, 3.7152, -0.1086],
                    [-0.9869, -0.4194, 3.0502, 3.3093, -0.3199, -0.9985]]],
                  'WhereBackward0',
                  ['T', 'torch.float32', [4, 6],
                   [[-0.2397, 0.0168, 0.9679, 0.1253, -0.175, -0.8755],
                    [0.2315, 0.9993, 0.0758, -0.2093, -0.751, 0.4354],
                    [0.9839, 0.0228, -0.2338, -0.5914, 0.6188, 0.2306],
                    [-0.0313, -0.2474, -0.404, 0.7733, 0.2044, -0.084]]]],
                 ['Identity()',
                  ['T', 'torch.float32', [4, 6],
                   [[0.0, 3.8542, 2.062, -2.7511, -3.5338, 0.8605],
                    [3.9942, 1.2764, -3.3113, -3.0479, 1.6807, 3.9471],
                    [0.431, -3.7165, -2.4193, 2.4222, 3.7152, -0.4345],
                    [-3.9477, -1.6774, 3.0502, 3.3093, -1.2798, -3.994]]],
                  None,
                  ['T', 'torch.float32', [4, 6],
                   [[-0.9589, 0.0168, 0.9679, 0.501, -0.6999, -0.8755],
                    [0.2315, 0.9993, 0.3031, -0.8371, -0.751, 0.4354],
                    [0.9839, 0.091, -0.9352, -0.5914, 0.6188, 0.9224],
                    [-0.1253, -0.9895, -0.404, 0.7733, 0.8178, -0.3358]]]]],
 'activations_float64': [[['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, 0.0], [0.0, 1.0756, 4.9927, 1.5955],
                            [0.0, 0.0, 2.1008, 4.9339]]],
                          'ReluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9679, 0.0], [0.0, -0.8755, 0.2315, 0.9993],
                            [0.0, 0.0, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, 0.0], [0.0, 1.0756, 4.9927, 1.5955],
                            [0.0, 0.0, 2.1008, 4.9339]]],
                          'HardtanhBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9679, 0.0], [0.0, -0.8755, 0.2315, 0.9993],
                            [0.0, 0.0, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -0.0344],
                            [-0.0442, 1.0756, 4.9927, 1.5955],
                            [-0.0414, -0.0381, 2.1008, 4.9339]]],
                          'LeakyReluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.0096, 0.0168, 0.9679, 0.005],
                            [-0.007, -0.8755, 0.2315, 0.9993],
                            [0.003, -0.0084, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -0.6878],
                            [-0.8835, 1.0756, 4.9927, 1.5955],
                            [-0.8278, -0.762, 2.1008, 4.9339]]],
                          'LeakyReluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.1918, 0.0168, 0.9679, 0.1002],
                            [-0.14, -0.8755, 0.2315, 0.9993],
                            [0.0606, -0.1674, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -0.9679],
                            [-0.9879, 1.0756, 4.9927, 1.5955],
                            [-0.9841, -0.9779, 2.1008, 4.9339]]],
                          'EluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.9589, 0.0168, 0.9679, 0.0161],
                            [-0.0084, -0.8755, 0.2315, 0.9993],
                            [0.0048, -0.0185, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -0.4839],
                            [-0.494, 1.0756, 4.9927, 1.5955],
                            [-0.492, -0.4889, 2.1008, 4.9339]]],
                          'EluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0168, 0.9679, 0.008],
                            [-0.0042, -0.8755, 0.2315, 0.9993],
                            [0.0024, -0.0093, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 5.0621, 2.7082, -1.7017],
                            [-1.7369, 1.1301, 5.2459, 1.6764],
                            [-1.7301, -1.7192, 2.2073, 5.184]]],
                          'EluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-1.6859, 0.0177, 1.017, 0.0283],
                            [-0.0148, -0.9198, 0.2432, 1.05],
                            [0.0085, -0.0326, -0.7891, 0.4574]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -0.9679],
                            [-0.9879, 1.0756, 4.9927, 1.5955],
                            [-0.9841, -0.9779, 2.1008, 4.9339]]],
                          'CeluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.9589, 0.0168, 0.9679, 0.0161],
                            [-0.0084, -0.8755, 0.2315, 0.9993],
                            [0.0048, -0.0185, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -1.6417],
                            [-1.7803, 1.0756, 4.9927, 1.5955],
                            [-1.7475, -1.7023, 2.1008, 4.9339]]],
                          'CeluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.9589, 0.0168, 0.9679, 0.0898],
                            [-0.0769, -0.8755, 0.2315, 0.9993],
                            [0.0383, -0.1246, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5647, -0.001],
                            [0.0, 0.9239, 4.9927, 1.5073],
                            [-0.0001, -0.0003, 2.0634, 4.9339]]],
                          'GeluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0168, 0.999, -0.0017],
                            [0.0001, -0.9626, 0.2315, 1.1222],
                            [-0.0001, 0.0008, -0.8069, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5651, -0.0008],
                            [0.0, 0.9237, 4.9927, 1.5071],
                            [0.0, -0.0002, 2.0636, 4.9339]]],
                          'GeluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0168, 0.9992, -0.0015],
                            [0.0, -0.9623, 0.2315, 1.1226],
                            [-0.0001, 0.0006, -0.8075, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.7792, 2.3955, -0.107],
                            [-0.0527, 0.802, 4.9591, 1.3265],
                            [-0.0649, -0.0826, 1.8718, 4.8986]]],
                          'SiluBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0173, 1.0633, -0.0363],
                            [0.0281, -0.8314, 0.2377, 1.0543],
                            [-0.0146, 0.0495, -0.8224, 0.4475]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.5, 0.992, 0.9294, 0.0311],
                            [0.0119, 0.7457, 0.9933, 0.8314],
                            [0.0157, 0.0217, 0.891, 0.9929]]],
                          'SigmoidBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.2397, 0.0001, 0.0635, 0.0151],
                            [-0.0082, -0.166, 0.0016, 0.1401],
                            [0.0047, -0.0177, -0.0729, 0.0031]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 0.9999, 0.9885, -0.9979],
                            [-0.9997, 0.7916, 0.9999, 0.921],
                            [-0.9995, -0.999, 0.9705, 0.9999]]],
                          'TanhBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.9589, 0.0, 0.0221, 0.0021],
                            [-0.0004, -0.3269, 0.0, 0.1517],
                            [0.0003, -0.0016, -0.0437, 0.0001]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.6931, 4.8258, 2.6507, 0.0316],
                            [0.012, 1.3691, 4.9995, 1.7802],
                            [0.0158, 0.0219, 2.2163, 4.941]]],
                          'SoftplusBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0167, 0.8996, 0.0156],
                            [-0.0083, -0.6528, 0.2299, 0.8308],
                            [0.0048, -0.0181, -0.6691, 0.4323]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.3466, 4.8178, 2.5775, 0.0005],
                            [0.0001, 1.0756, 4.9927, 1.5955],
                            [0.0001, 0.0002, 2.1008, 4.9339]]],
                          'SoftplusBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0168, 0.9679, 0.0005],
                            [-0.0001, -0.8755, 0.2315, 0.9993],
                            [0.0001, -0.0004, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 1.0, 1.0, -1.0], [-1.0, 1.0, 1.0, 1.0],
                            [-1.0, -1.0, 1.0, 1.0]]],
                          'HardtanhBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.9589, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 2.0, 2.0, -0.5], [-0.5, 1.0756, 2.0, 1.5955],
                            [-0.5, -0.5, 2.0, 2.0]]],
                          'HardtanhBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.9589, 0.0, 0.0, 0.0], [0.0, -0.8755, 0.0, 0.9993],
                            [0.0, 0.0, 0.0, 0.0]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[20.0, 4.8178, 2.5775, 20.0],
                            [20.0, 1.0756, 4.9927, 1.5955],
                            [20.0, 20.0, 2.1008, 4.9339]]],
                          'ThresholdBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9679, 0.0], [0.0, -0.8755, 0.2315, 0.9993],
                            [0.0, 0.0, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.5, 1.0, 0.9296, 0.0], [0.0, 0.6793, 1.0, 0.7659],
                            [0.0, 0.0, 0.8501, 1.0]]],
                          'HardsigmoidBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.1598, 0.0, 0.1613, 0.0], [0.0, -0.1459, 0.0, 0.1666],
                            [0.0, 0.0, -0.1252, 0.0]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.396, 0.0], [0.0, 0.7306, 4.9927, 1.222],
                            [0.0, 0.0, 1.786, 4.9339]]],
                          'HardswishBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0168, 1.3156, 0.0],
                            [0.0, -0.7516, 0.2315, 1.0311],
                            [0.0, 0.0, -0.9014, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8172, 2.5519, -0.1086],
                            [-0.053, 0.9449, 4.9923, 1.5073],
                            [-0.0654, -0.0835, 2.0515, 4.9334]]],
                          'MishBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.5754, 0.0168, 1.0041, -0.0377],
                            [0.0285, -0.9293, 0.2317, 1.0866],
                            [-0.0149, 0.0507, -0.7986, 0.4358]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 0.8281, 0.7205, -0.7747],
                            [-0.8154, 0.5182, 0.8331, 0.6147],
                            [-0.8054, -0.7921, 0.6775, 0.8315]]],
                          'DivBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.9589, 0.0005, 0.0756, 0.0254],
                            [-0.0238, -0.2032, 0.0064, 0.1483],
                            [0.0115, -0.0362, -0.0781, 0.0124]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 3.8179, 1.589, -2.4409],
                            [-3.4176, 0.284, 3.9928, 0.6745],
                            [-3.1396, -2.8109, 1.1303, 3.934]]],
                          'SubBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9458, 0.499],
                            [-0.6995, -0.5485, 0.2315, 0.8476],
                            [0.3028, -0.8355, -0.7073, 0.4353]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.3178, 2.0775, -2.9388],
                            [-3.9173, 0.5756, 4.4927, 1.0955],
                            [-3.6391, -3.3099, 1.6008, 4.4339]]],
                          'SoftshrinkBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9679, 0.501],
                            [-0.6999, -0.8755, 0.2315, 0.9993],
                            [0.3031, -0.8371, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 3.8178, 1.5775, -2.4388],
                            [-3.4173, 0.0756, 3.9927, 0.5955],
                            [-3.1391, -2.8099, 1.1008, 3.9339]]],
                          'SoftshrinkBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9679, 0.501],
                            [-0.6999, -0.8755, 0.2315, 0.9993],
                            [0.3031, -0.8371, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -3.4388],
                            [-4.4173, 1.0756, 4.9927, 1.5955],
                            [-4.1391, -3.8099, 2.1008, 4.9339]]],
                          'HardshrinkBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9679, 0.501],
                            [-0.6999, -0.8755, 0.2315, 0.9993],
                            [0.3031, -0.8371, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0, 4.8178, 2.5775, -3.4388],
                            [-4.4173, 0.0, 4.9927, 1.5955],
                            [-4.1391, -3.8099, 2.1008, 4.9339]]],
                          'HardshrinkBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[0.0, 0.0168, 0.9679, 0.501],
                            [-0.6999, 0.0, 0.2315, 0.9993],
                            [0.3031, -0.8371, -0.751, 0.4354]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[-0.6931, -0.0081, -0.0732, -3.4704],
                            [-4.4293, -0.2935, -0.0068, -0.1847],
                            [-4.1549, -3.8318, -0.1154, -0.0072]]],
                          'LogSigmoidBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.4795, 0.0001, 0.0683, 0.4854],
                            [-0.6915, -0.2227, 0.0016, 0.1685],
                            [0.2984, -0.819, -0.0819, 0.0031]]]],
                         [['T', 'torch.float64', [3, 4],
                           [[0.0073, 0.897, 0.0955, 0.0002],
                            [0.0001, 0.0189, 0.9493, 0.0318],
                            [0.0001, 0.0002, 0.0556, 0.9442]]],
                          'SoftmaxBackward0',
                          ['T', 'torch.float64', [3, 4],
                           [[-0.0077, -0.0752, 0.0828, 0.0001],
                            [-0.0001, -0.021, -0.0032, 0.0243],
                            [0.0, -0.0002, -0.0622, 0.0624]]]]],
 'attention': [[['T', 'torch.float32', [5, 3, 8],
                 [[[0.2367, -0.1026, 0.2912, -0.0823, 0.3454, 0.0709, -0.0814, 0.0229],
                   [0.0658, -0.0841, 0.343, 0.3071, -0.2911, -0.2602, -0.2352, 0.3151],
                   [-0.1779, 0.1265, -0.5342, -0.4671, 0.1342, 0.2409, 0.3429,
                    -0.4101]],
                  [[0.1309, -0.104, 0.169, -0.0528, 0.2724, 0.1012, -0.0329, 0.0093],
                   [-0.1884, -0.1644, 0.1616, 0.2141, -0.5673, -0.3176, 0.0151, 0.0722],
                   [-0.1615, 0.1499, -0.5789, -0.5081, 0.2459, 0.2193, 0.381, -0.3781]],
                  [[0.1079, -0.1452, 0.1518, -0.1076, 0.3374, 0.0869, 0.0541, -0.0393],
                   [0.0053, -0.0623, 0.3526, 0.3724, -0.542, -0.2994, -0.2548, 0.2324],
                   [0.1244, 0.1366, -0.2025, -0.2907, 0.484, 0.1255, 0.097, -0.0263]],
                  [[0.2134, -0.0542, 0.2721, 0.0035, 0.1932, 0.0893, -0.1677, 0.0572],
                   [0.0877, -0.0464, 0.3224, 0.2418, -0.2902, -0.2004, -0.2381, 0.2248],
                   [-0.0151, 0.1271, -0.3805, -0.3646, 0.4129, 0.1309, 0.2388,
                    -0.1181]],
                  [[0.2238, -0.0844, 0.2783, -0.033, 0.2912, 0.1064, -0.1244, 0.0326],
                   [0.0863, -0.019, 0.2938, 0.2343, -0.2804, -0.154, -0.2321, 0.1627],
                   [0.0166, 0.0984, -0.2655, -0.3202, 0.3169, 0.1205, 0.168,
                    -0.1202]]]],
                'ViewBackward0',
                ['T', 'torch.float32', [5, 3, 8],
                 [[[-0.0995, 0.0232, 0.0155, -0.1044, 0.0746, 0.0538, -0.0091, 0.0733],
                   [0.0569, -0.0363, -0.0393, 0.0469, 0.0058, 0.0121, -0.0015, 0.0058],
                   [0.0448, -0.0885, -0.0193, 0.0643, 0.067, 0.0234, 0.0172, -0.0072]],
                  [[-0.088, 0.0247, 0.0115, -0.0941, 0.0581, 0.0455, -0.0106, 0.0652],
                   [0.098, -0.0578, -0.0702, 0.0705, 0.0333, 0.0289, 0.0033, 0.0095],
                   [0.0222, -0.0693, -0.0131, 0.039, 0.0595, 0.0227, 0.0124, -0.0007]],
                  [[-0.0864, 0.0174, 0.0067, -0.0916, 0.0699, 0.0533, -0.0118, 0.0755],
                   [0.1449, -0.0832, -0.0636, 0.1158, 0.0304, 0.0246, 0.0232, -0.0167],
                   [-0.0006, -0.0322, -0.0029, 0.0084, 0.0201, 0.0109, 0.0041,
                    -0.0004]],
                  [[-0.0402, 0.0087, 0.0009, -0.0429, 0.0341, 0.0282, -0.0078, 0.0435],
                   [0.1217, -0.0648, -0.0407, 0.1072, -0.0048, 0.0008, 0.0193, -0.0324],
                   [-0.024, -0.0435, -0.0084, -0.0146, 0.0393, 0.0302, -0.0006, 0.02]],
                  [[-0.0384, 0.0047, -0.0019, -0.0409, 0.0373, 0.0307, -0.0083, 0.0461],
                   [0.0972, -0.0757, -0.0361, 0.0817, 0.0488, 0.0286, 0.0258, -0.0109],
                   [-0.0237, -0.0174, 0.0033, -0.0174, 0.0142, 0.0135, -0.0001,
                    0.0082]]]]],
               ['T', 'torch.float32', [24, 8],
                [[-0.2597, -0.2419, 0.1302, 0.3116, 0.0364, -0.2921, -0.1927, 0.189],
                 [0.9284, 1.2451, -0.2623, -1.3855, -0.4789, 1.1292, 1.0831, -0.5498],
                 [-0.0081, 0.0301, 0.0242, -0.0172, -0.0334, -0.0007, 0.033, 0.0184],
                 [-0.4364, -0.7058, 0.0589, 0.7373, 0.3356, -0.5577, -0.6339, 0.2186],
                 [-0.2169, 1.508, 1.0237, -0.9603, -1.5374, 0.1378, 1.6112, 0.7242],
                 [-1.059, 0.5702, 1.3641, 0.1596, -1.2787, -0.8437, 0.8274, 1.2863],
                 [-0.3563, -1.1305, -0.2485, 0.9976, 0.7822, -0.5791, -1.092, -0.0052],
                 [0.1163, -0.3896, -0.3247, 0.2158, 0.4402, 0.0197, -0.4297, -0.2495],
                 [0.4037, 0.0645, -0.3692, -0.262, 0.229, 0.3845, -0.0232, -0.397],
                 [-0.8596, 0.0062, 0.8629, 0.4554, -0.6192, -0.7867, 0.1983, 0.8928],
                 [1.3106, -0.0343, -1.329, -0.6767, 0.9669, 1.194, -0.3282, -1.3696],
                 [-0.95, -0.2008, 0.8425, 0.6516, -0.494, -0.9158, 0.004, 0.918],
                 [-0.0552, 0.0629, 0.0889, -0.0154, -0.0971, -0.0366, 0.0775, 0.0781],
                 [-2.8544, -0.8792, 2.3841, 2.1547, -1.2313, -2.8134, -0.2739, 2.6669],
                 [0.2079, 0.1202, -0.1436, -0.197, 0.0382, 0.2174, 0.0781, -0.1756],
                 [-0.4856, 0.1072, 0.5429, 0.1833, -0.4449, -0.4213, 0.2195, 0.5387],
                 [0.8305, -1.4738, -1.6189, 0.6076, 1.944, 0.4324, -1.7127, -1.3487],
                 [-0.3752, -1.5843, -0.4724, 1.3316, 1.1848, -0.6977, -1.558, -0.1358],
                 [0.8305, 0.5298, -0.547, -0.8225, 0.107, 0.8797, 0.3636, -0.6852],
                 [-0.2166, -5.3829, -2.6632, 3.9581, 4.7808, -1.4004, -5.53, -1.5582],
                 [4.7701, -1.2916, -5.4611, -1.6301, 4.589, 4.0852, -2.4035, -5.371],
                 [3.1339, 2.4177, -1.8404, -3.4023, 0.0202, 3.4131, 1.8058, -2.447],
                 [-4.9233, -0.5767, 4.6148, 3.0456, -2.9854, -4.6428, 0.5015, 4.9111],
                 [0.807, 3.1432, 0.8746, -2.6753, -2.3059, 1.4417, 3.0772, 0.2046]]],
               [['T', 'torch.float32', [5, 3, 8],
                 [[[0.2438, -0.0861, 0.3175, 0.0041, 0.2952, 0.0974, -0.1525, 0.0555],
                   [-0.1182, -0.092, 0.2277, 0.316, -0.6218, -0.36, -0.1205, 0.1895],
                   [-0.051, 0.1627, -0.498, -0.4746, 0.433, 0.255, 0.3043, -0.2879]],
                  [[0.1826, -0.0507, 0.1092, -0.1758, 0.4244, 0.2107, -0.0045, -0.0973],
                   [-0.0579, -0.1407, 0.4018, 0.4396, -0.6655, -0.3724, -0.2353,
                    0.2596],
                   [-0.157, 0.1621, -0.5348, -0.4075, 0.185, 0.111, 0.3359, -0.2596]],
                  [[0.2055, -0.0557, 0.1404, -0.152, 0.4525, 0.2294, -0.0315, -0.0831],
                   [-0.0541, -0.1256, 0.3994, 0.4524, -0.6767, -0.3871, -0.2475,
                    0.2791],
                   [-0.15, 0.1664, -0.5678, -0.4495, 0.2675, 0.137, 0.3667, -0.2744]],
                  [[0.2372, -0.0728, 0.2314, -0.071, 0.4171, 0.2066, -0.1019, -0.0232],
                   [-0.0412, -0.0889, 0.3624, 0.4283, -0.6423, -0.3788, -0.2487,
                    0.2871],
                   [-0.1036, 0.1648, -0.5546, -0.483, 0.3887, 0.1911, 0.3603, -0.2787]],
                  [[0.2649, -0.0909, 0.3299, 0.0247, 0.3545, 0.1758, -0.1826, 0.0447],
                   [-0.0127, -0.0451, 0.3307, 0.402, -0.588, -0.3541, -0.264, 0.2976],
                   [-0.0451, 0.1569, -0.5079, -0.4924, 0.4937, 0.2381, 0.3285,
                    -0.2652]]]],
                ['T', 'torch.float32', [3, 2, 5, 6],
                 [[[[0.0843, 0.0105, 0.0206, 0.2731, 0.3145, 0.297],
                    [0.3553, 0.0491, 0.0091, 0.0321, 0.2715, 0.2828],
                    [0.2066, 0.2745, 0.033, 0.0099, 0.2218, 0.2542],
                    [0.0277, 0.2811, 0.2415, 0.0276, 0.1873, 0.2348],
                    [0.0063, 0.0454, 0.3862, 0.2127, 0.1483, 0.2012]],
                   [[0.1207, 0.0183, 0.0401, 0.5499, 0.1753, 0.0957],
                    [0.5635, 0.0935, 0.0192, 0.0682, 0.1663, 0.0893],
                    [0.2867, 0.4478, 0.0581, 0.0172, 0.1232, 0.067],
                    [0.0346, 0.4021, 0.3642, 0.0403, 0.1015, 0.0574],
                    [0.0075, 0.0598, 0.5217, 0.273, 0.086, 0.052]]],
                  [[[0.2396, 0.0262, 0.0419, 0.4278, 0.1059, 0.1586],
                    [0.6845, 0.0774, 0.011, 0.0284, 0.0821, 0.1166],
                    [0.3712, 0.3787, 0.0332, 0.007, 0.0903, 0.1196],
                    [0.0539, 0.4003, 0.2426, 0.0192, 0.1279, 0.1561],
                    [0.0132, 0.0672, 0.3953, 0.1503, 0.177, 0.197]],
                   [[0.17, 0.0212, 0.0391, 0.4627, 0.1367, 0.1704],
                    [0.6027, 0.084, 0.0149, 0.0474, 0.1044, 0.1466],
                    [0.3077, 0.4152, 0.0482, 0.0133, 0.0843, 0.1314],
                    [0.0375, 0.3895, 0.3285, 0.0353, 0.0777, 0.1316],
                    [0.0076, 0.0569, 0.4828, 0.2568, 0.0701, 0.1259]]],
                  [[[0.1133, 0.018, 0.0414, 0.5941, 0.1394, 0.0938],
                    [0.5942, 0.0968, 0.0194, 0.0675, 0.1348, 0.0873],
                    [0.3178, 0.4559, 0.0541, 0.0146, 0.0964, 0.0613],
                    [0.044, 0.4416, 0.3428, 0.0325, 0.0849, 0.0542],
                    [0.0117, 0.0767, 0.5419, 0.2297, 0.0846, 0.0553]],
                   [[0.2259, 0.0283, 0.0502, 0.5474, 0.061, 0.0873],
                    [0.7224, 0.0968, 0.0158, 0.0446, 0.053, 0.0674],
                    [0.3671, 0.4564, 0.047, 0.0111, 0.0559, 0.0626],
                    [0.0487, 0.4484, 0.3242, 0.0291, 0.0756, 0.074],
                    [0.0111, 0.0711, 0.5037, 0.2198, 0.1046, 0.0897]]]]]],
               [['T', 'torch.float32', [5, 8],
                 [[0.2105, -0.0772, 0.2455, -0.0597, 0.3031, 0.1067, -0.0936, 0.0077],
                  [0.2049, -0.0796, 0.2406, -0.0609, 0.3016, 0.1043, -0.0869, 0.0056],
                  [0.2012, -0.0809, 0.2368, -0.0602, 0.302, 0.1061, -0.0839, 0.0045],
                  [0.2002, -0.0811, 0.2345, -0.0576, 0.3045, 0.1122, -0.0852, 0.0044],
                  [0.2021, -0.0801, 0.2343, -0.053, 0.3089, 0.1226, -0.0914, 0.0057]]],
                None],
               [['T', 'torch.float32', [2, 3, 6],
                 [[[-0.6829, 1.0924, -0.9465, 0.12, 1.2883, 0.2204],
                   [-0.8925, 1.1307, -1.1571, 0.135, 1.41, 0.2691],
                   [-1.3735, 1.4873, -1.5731, -0.2983, 1.6903, 0.7251]],
                  [[0.0338, 0.6012, 0.0993, 0.781, 0.9678, -0.6336],
                   [-0.1418, 0.7887, -0.102, 0.6481, 1.1383, -0.4624],
                   [0.0778, 0.9714, 0.312, 0.6515, 1.302, -0.6083]]]],
                ['T', 'torch.float32', [2, 3, 4],
                 [[[0.0505, 0.189, 0.2362, 0.5242], [0.0595, 0.2447, 0.3022, 0.3936],
                   [0.3459, 0.3258, 0.0873, 0.241]],
                  [[0.2966, 0.3524, 0.312, 0.0391], [0.4834, 0.0892, 0.1256, 0.3017],
                   [0.3101, 0.0324, 0.1286, 0.529]]]],
                'MultiheadAttention(\n'
                '  (out_proj): NonDynamicallyQuantizableLinear(in_features=6, '
                'out_features=6, bias=False)\n'
                ')',
                ['q_proj_weight', 'k_proj_weight', 'v_proj_weight', 'out_proj.weight']],
               ['AssertionError',
                'For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but '
                'found 3-D and 3-D tensors respectively'],
               ['AssertionError', 'embed_dim must be divisible by num_heads'],
               ['RuntimeError',
                'The shape of the 2D attn_mask is torch.Size([2, 2]), but should be '
                '(5, 4).'],
               [['T', 'torch.float32', [4, 3, 8],
                 [[[0.0, 1.9271, 1.031, -1.3755, -1.7669, 0.4302, 1.9971, 0.6382],
                   [-1.6553, -1.5232, 0.8404, 1.9728, 0.2151, -1.8577, -1.2089, 1.2109],
                   [1.8569, -0.2168, -1.9729, -0.8387, 1.5242, 1.6542, -0.6392,
                    -1.9962]],
                  [[-0.4285, 1.7677, 1.3742, -1.0325, -1.9266, 0.0018, 1.9276, 1.0295],
                   [-1.3765, -1.7649, 0.4323, 1.9962, 0.6357, -1.6561, -1.5217, 0.842],
                   [1.9726, 0.2139, -1.8582, -1.208, 1.2119, 1.8564, -0.2187, -1.9734]],
                  [[-0.8371, 1.5263, 1.6537, -0.6416, -1.9969, -0.4268, 1.7686, 1.373],
                   [-1.034, -1.9247, 0.0042, 1.927, 1.0267, -1.3777, -1.7638, 0.4341],
                   [1.9966, 0.6348, -1.657, -1.5213, 0.8431, 1.9723, 0.2121, -1.8589]],
                  [[-1.2068, 1.2139, 1.8563, -0.2208, -1.9744, -0.8355, 1.5274, 1.6527],
                   [-0.6435, -1.9954, -0.4241, 1.7686, 1.3702, -1.0355, -1.9242, 0.006],
                   [1.9277, 1.0261, -1.3788, -1.7637, 0.4352, 1.9966, 0.633,
                    -1.6579]]]],
                ['T', 'torch.float32', [4, 3, 3],
                 [[[1.0, 0.0, 0.0], [0.0002, 0.9998, 0.0], [0.0003, 0.0001, 0.9997]],
                  [[1.0, 0.0, 0.0], [0.0003, 0.9997, 0.0], [0.0002, 0.0001, 0.9998]],
                  [[1.0, 0.0, 0.0], [0.0004, 0.9996, 0.0], [0.0002, 0.0001, 0.9998]],
                  [[1.0, 0.0, 0.0], [0.0004, 0.9996, 0.0],
                   [0.0002, 0.0001, 0.9997]]]]]],
 'bilinear': [['T', 'torch.float32', [5, 4],
               [[-1.9674, -0.5016, -0.009, -0.4555], [-1.876, 0.7083, -2.4924, -0.5318],
                [0.1416, 2.3472, -4.1803, -2.7072], [1.5578, 1.9101, -2.8317, -4.1896],
                [0.7379, -0.1264, -0.4735, -3.0855]]],
              ['T', 'torch.float32', [5, 3],
               [[-1.7857, -1.081, -0.7813], [1.8054, 0.9314, -0.0418],
                [-1.3083, -0.5153, 0.853], [0.4368, -0.0483, -1.42],
                [0.5598, 0.5981, 1.5806]]],
              ['T', 'torch.float32', [5, 2],
               [[-1.3653, 1.2859], [2.1753, -0.2353], [-1.7928, -0.9443],
                [0.4277, 1.6063], [1.1719, -1.3878]]],
              ['T', 'torch.float32', [4, 3, 2],
               [[[6.9494, 7.6397], [8.0287, -3.3061], [-2.654, -9.4084]],
                [[6.9494, 7.6397], [8.0287, -3.3061], [-2.654, -9.4084]],
                [[6.9494, 7.6397], [8.0287, -3.3061], [-2.654, -9.4084]],
                [[6.9494, 7.6397], [8.0287, -3.3061], [-2.654, -9.4084]]]],
              ['T', 'torch.float32', [4], [5.0, 5.0, 5.0, 5.0]],
              'Bilinear(in1_features=3, in2_features=2, out_features=4, bias=True)',
              ['T', 'torch.float32', [2, 2, 4],
               [[[-1.3634, 0.403, 1.2905, 2.1033], [0.1418, 1.3979, 0.9633, 0.0186]],
                [[-0.1533, 0.1649, 2.8357, -0.1306],
                 [-2.0879, -1.184, 3.5213, 1.5851]]]],
              ['RuntimeError',
               'bilinear(): input dimensions do not match: got 2 and 3'],
              ['RuntimeError',
               'bilinear(): input batch dimensions do not match at dim 0: got 2 and 3'],
              ['RuntimeError',
               'bilinear(): input1 size does not match weight size: got 4 but expected '
               '3'],
              ['RuntimeError',
               'bilinear(): input2 size does not match weight size: got 3 but expected '
               '2'],
              ['RuntimeError',
               'bilinear(): bias size does not match weight size: got 3 but expected '
               '4']],
 'dropout': [['Dropout(p=0.5, inplace=False)',
              [['T', 'torch.float32', [4, 5],
                [[10.0, 13.8542, 0.0, 0.0, 0.0], [0.0, 13.9942, 0.0, 0.0, 0.0],
                 [11.6807, 13.9471, 10.431, 6.2835, 7.5807],
                 [0.0, 13.7152, 0.0, 6.0523, 0.0]]],
               'MulBackward0',
               ['T', 'torch.float32', [4, 5],
                [[-1.9178, 0.0336, 0.0, 0.0, 0.0], [0.0, 0.463, 0.0, 0.0, 0.0],
                 [-1.502, 0.8707, 1.9678, 0.182, -1.8704],
                 [0.0, 1.2377, 0.0, -0.2507, 0.0]]]]],
             True,
             ['Dropout(p=0.2, inplace=False)',
              [['T', 'torch.float32', [4, 5],
                [[6.25, 8.6589, 0.0, 4.5306, 0.0], [0.0, 8.7464, 7.0477, 4.1804, 4.345],
                 [7.3004, 8.7169, 6.5194, 3.9272, 4.7379],
                 [0.0, 8.572, 0.0, 3.7827, 0.0]]],
               'MulBackward0',
               ['T', 'torch.float32', [4, 5],
                [[-1.1987, 0.021, 0.0, 0.6263, 0.0],
                 [0.0, 0.2894, 1.2491, 0.3789, -1.0464],
                 [-0.9387, 0.5442, 1.2299, 0.1138, -1.169],
                 [0.0, 0.7735, 0.0, -0.1567, 0.0]]]]],
             True,
             ['Dropout2d(p=0.5, inplace=False)',
              [['T', 'torch.float32', [2, 2, 5],
                [[[10.0, 13.8542, 12.062, 7.2489, 6.4662],
                  [10.8605, 13.9942, 11.2764, 6.6887, 6.9521]],
                 [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]]],
               'MulBackward0',
               ['T', 'torch.float32', [2, 2, 5],
                [[[-1.9178, 0.0336, 1.9358, 1.002, -1.3997],
                  [-1.7509, 0.463, 1.9986, 0.6062, -1.6743]],
                 [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]]]]],
             True,
             ['Dropout1d(p=0.3, inplace=False)',
              [['T', 'torch.float32', [2, 2, 5],
                [[[7.1429, 9.8959, 8.6157, 5.1778, 4.6187],
                  [7.7575, 9.9958, 8.0546, 4.7776, 4.9658]],
                 [[0.0, 0.0, 0.0, 0.0, 0.0], [8.873, 9.7966, 6.8325, 4.3231, 5.9447]]]],
               'MulBackward0',
               ['T', 'torch.float32', [2, 2, 5],
                [[[-1.3699, 0.024, 1.3827, 0.7157, -0.9998],
                  [-1.2506, 0.3307, 1.4276, 0.433, -1.1959]],
                 [[0.0, 0.0, 0.0, 0.0, 0.0],
                  [-0.8448, 0.8841, 1.3178, -0.1791, -1.4136]]]]]],
             True,
             ['AlphaDropout(p=0.2, inplace=False)',
              [['T', 'torch.float32', [4, 5],
                [[4.7036, 6.3973, -1.2362, 3.4946, -1.2362],
                 [-1.2362, 6.4588, 5.2645, 3.2484, 3.3641],
                 [5.4421, 6.4381, 4.893, 3.0703, 3.6404],
                 [-1.2362, 6.3362, -1.2362, 2.9688, -1.2362]]],
               'AddBackward0',
               ['T', 'torch.float32', [4, 5],
                [[-0.8428, 0.0148, 0.0, 0.4403, 0.0],
                 [0.0, 0.2035, 0.8783, 0.2664, -0.7358],
                 [-0.66, 0.3826, 0.8648, 0.08, -0.822],
                 [0.0, 0.5439, 0.0, -0.1102, 0.0]]]]],
             True,
             ['FeatureAlphaDropout(p=0.4, inplace=False)',
              [['T', 'torch.float32', [4, 5],
                [[4.9235, 6.5872, -0.9106, -0.9106, -0.9106],
                 [-0.9106, 6.6476, 5.4745, -0.9106, -0.9106],
                 [5.649, 6.6272, 5.1096, 3.3193, 3.8792],
                 [-0.9106, 6.5271, -0.9106, 3.2195, -0.9106]]],
               'AddBackward0',
               ['T', 'torch.float32', [4, 5],
                [[-0.8278, 0.0145, 0.0, 0.0, 0.0], [0.0, 0.1999, 0.8627, 0.0, 0.0],
                 [-0.6483, 0.3758, 0.8494, 0.0786, -0.8074],
                 [0.0, 0.5342, 0.0, -0.1082, 0.0]]]]],
             True,
             ['Dropout3d(p=0.5, inplace=False)',
              [['T', 'torch.float32', [1, 2, 2, 5],
                [[[[10.0, 13.8542, 12.062, 7.2489, 6.4662],
                   [10.8605, 13.9942, 11.2764, 6.6887, 6.9521]],
                  [[11.6807, 13.9471, 10.431, 6.2835, 7.5807],
                   [12.4222, 13.7152, 9.5655, 6.0523, 8.3226]]]]],
               'SqueezeBackward1',
               ['T', 'torch.float32', [1, 2, 2, 5],
                [[[[-1.9178, 0.0336, 1.9358, 1.002, -1.3997],
                   [-1.7509, 0.463, 1.9986, 0.6062, -1.6743]],
                  [[-1.502, 0.8707, 1.9678, 0.182, -1.8704],
                   [-1.1827, 1.2377, 1.8449, -0.2507, -1.979]]]]]]],
             False,
             [True,
              ['T', 'torch.float32', [4, 5],
               [[10.0, 13.8542, 12.062, 7.2489, 0.0],
                [10.8605, 13.9942, 0.0, 0.0, 6.9521],
                [0.0, 13.9471, 0.0, 6.2835, 7.5807],
                [12.4222, 0.0, 9.5655, 0.0, 0.0]]]],
             ['T', 'torch.float32', [4, 5],
              [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0],
               [0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]],
             True,
             ['ValueError',
              'dropout probability has to be between 0 and 1, but got 1.5'],
             ['ValueError',
              'dropout probability has to be between 0 and 1, but got -0.1'],
             ['RuntimeError',
              'dropout1d: Expected 2D or 3D input, but received a 4D input. Note that '
              'dropout1d exists to provide channel-wise dropout on inputs with 1 '
              'spatial dimension, a channel dimension, and an optional batch dimension '
              '(i.e. 2D or 3D inputs).'],
             2, 0.4766],
 'flatten': [[2, 12], [24], [2, 3, 4], [2, 3, 1, 4], [2, 3, 2, 2],
             'Flatten(start_dim=1, end_dim=-1)',
             'Unflatten(dim=1, unflattened_size=(3, 1))',
             ['TypeError',
              'unflattened_size must be a tuple of ints, but found type int'],
             ['TypeError',
              'unflattened_size must be tuple of ints, but found element of type str '
              'at pos 1'],
             ['TypeError', 'invalid argument type for dim parameter'],
             ['TypeError',
              'unflattened_size must be tuple of tuples, but found element of type int '
              'at pos 0'],
             ['TypeError',
              'unflattened_size must be tuple of tuples, but found element of type int '
              'at pos 1'],
             [['T', 'torch.float32', [2, 12],
               [[0.0, 1.9271, 1.031, -1.3755, -1.7669, 0.4302, 1.9971, 0.6382, -1.6557,
                 -1.524, 0.8403, 1.9735],
                [0.2155, -1.8582, -1.2097, 1.2111, 1.8576, -0.2173, -1.9738, -0.8387,
                 1.5251, 1.6547, -0.6399, -1.997]]],
              'ReshapeAliasBackward0',
              ['T', 'torch.float32', [2, 3, 4],
               [[[-0.9589, 0.0168, 0.9679, 0.501], [-0.6999, -0.8755, 0.2315, 0.9993],
                 [0.3031, -0.8371, -0.751, 0.4354]],
                [[0.9839, 0.091, -0.9352, -0.5914], [0.6188, 0.9224, -0.1253, -0.9895],
                 [-0.404, 0.7733, 0.8178, -0.3358]]]]]],
 'init_bilinear_prelu': [['X', 'torch.float32', [2, 2, 3],
                          [[[0.3643, -0.3121, -0.1371], [0.3319, -0.6657, 0.4241]],
                           [[-0.1455, 0.3597, 0.0983], [-0.0866, 0.1961, 0.0349]]]],
                         ['X', 'torch.float32', [2], [0.2583, -0.2756]],
                         ['X', 'torch.float32', [3], [0.1, 0.1, 0.1]]],
 'init_linear': [['X', 'torch.float32', [5, 10],
                  [[-0.0024, 0.1696, -0.2603, -0.2327, -0.1218, 0.0848, -0.0063, 0.2507,
                    -0.0281, 0.0837],
                   [-0.0956, -0.0622, -0.3021, -0.2094, -0.1304, 0.0117, 0.125, 0.1897,
                    -0.2144, -0.1377],
                   [0.1149, 0.2626, -0.0651, 0.2366, -0.051, 0.0335, 0.2863, -0.2934,
                    -0.1991, -0.0801],
                   [-0.1233, 0.2732, -0.205, -0.1456, -0.2209, -0.2962, -0.1846, 0.2718,
                    0.1411, 0.1533],
                   [0.0166, -0.1621, 0.0535, -0.2953, -0.2285, -0.163, 0.1995, 0.1854,
                    -0.1402, -0.0114]]],
                 ['X', 'torch.float32', [5], [0.2022, 0.3144, 0.1255, 0.0427, 0.212]],
                 ['X', 'torch.float32', [4, 3],
                  [[-0.3399, 0.1076, -0.4476], [-0.4002, -0.2982, 0.2612],
                   [0.2322, -0.342, 0.1744], [0.3169, -0.0729, 0.022]]],
                 None,
                 ['X', 'torch.float64', [2, 2], [[0.6036, 0.4819], [0.0483, -0.2628]]]],
 'init_sequence': ['X', 'torch.float32', [4], [0.7142, 0.2773, 0.8548, 0.5356]],
 'linear_forward': [[['T', 'torch.float32', [3], [0.1211, -0.6283, 0.0283]],
                     'AddBackward0',
                     ['T', 'torch.float32', [4], [-0.0426, -0.1269, 0.2482, 0.2644]]],
                    [['T', 'torch.float32', [2, 3],
                      [[0.1211, -0.6283, 0.0283], [-1.4123, 0.3, -0.4353]]],
                     'AddmmBackward0',
                     ['T', 'torch.float32', [2, 4],
                      [[-0.0426, -0.1269, 0.2482, 0.2644],
                       [0.1717, -0.0753, -0.067, -0.3758]]]],
                    [['T', 'torch.float32', [2, 3, 3],
                      [[[0.1211, -0.6283, 0.0283], [-1.4123, 0.3, -0.4353],
                        [-1.9523, 0.5574, -0.6552]],
                       [[-0.9247, -0.1297, -0.3978], [0.578, -1.031, 0.0634],
                        [0.9586, -1.1883, 0.2381]]]],
                     'ViewBackward0',
                     ['T', 'torch.float32', [2, 3, 4],
                      [[[-0.0426, -0.1269, 0.2482, 0.2644],
                        [0.1717, -0.0753, -0.067, -0.3758],
                        [-0.2068, 0.2362, -0.151, 0.2812]],
                       [[0.1284, -0.2676, 0.2862, -0.0325],
                        [0.0203, 0.1524, -0.2645, -0.234],
                        [-0.1579, 0.0464, 0.0978, 0.3723]]]]],
                    [['T', 'torch.float32', [2, 1, 3, 3],
                      [[[[0.1211, -0.6283, 0.0283], [-1.4123, 0.3, -0.4353],
                         [-1.9523, 0.5574, -0.6552]]],
                       [[[-0.9247, -0.1297, -0.3978], [0.578, -1.031, 0.0634],
                         [0.9586, -1.1883, 0.2381]]]]],
                     'AddBackward0',
                     ['T', 'torch.float32', [2, 1, 3, 4],
                      [[[[-0.0426, -0.1269, 0.2482, 0.2644],
                         [0.1717, -0.0753, -0.067, -0.3758],
                         [-0.2068, 0.2362, -0.151, 0.2812]]],
                       [[[0.1284, -0.2676, 0.2862, -0.0325],
                         [0.0203, 0.1524, -0.2645, -0.234],
                         [-0.1579, 0.0464, 0.0978, 0.3723]]]]]],
                    [['T', 'torch.float32', [2, 3, 3],
                      [[[0.1211, -0.6283, 0.0283], [-1.9523, 0.5574, -0.6552],
                        [0.578, -1.031, 0.0634]],
                       [[-1.4123, 0.3, -0.4353], [-0.9247, -0.1297, -0.3978],
                        [0.9586, -1.1883, 0.2381]]]],
                     'AddBackward0',
                     ['T', 'torch.float32', [2, 3, 4],
                      [[[-0.0426, -0.1269, 0.2482, 0.2644],
                        [0.1717, -0.0753, -0.067, -0.3758],
                        [-0.2068, 0.2362, -0.151, 0.2812]],
                       [[0.1284, -0.2676, 0.2862, -0.0325],
                        [0.0203, 0.1524, -0.2645, -0.234],
                        [-0.1579, 0.0464, 0.0978, 0.3723]]]]],
                    [['T', 'torch.float32', [2, 3],
                      [[1.1565, 0.9196, -0.7235], [0.4351, 1.2264, -0.3012]]],
                     'MmBackward0',
                     ['T', 'torch.float32', [2, 4],
                      [[0.3407, -0.2645, -0.2295, 0.7615],
                       [-0.1659, 0.0425, -0.1866, -0.4942]]]],
                    ['T', 'torch.float32', [3, 4],
                     [[-1.5417, -12.5529, -5.174, 9.7848],
                      [7.6083, 2.3934, -6.3278, -5.7788],
                      [5.6122, 13.8334, 1.7887, -12.8764]]],
                    ['T', 'torch.float32', [3], [-3.4298, 0.1591, 3.5149]],
                    ['RuntimeError',
                     'mat1 and mat2 shapes cannot be multiplied (2x5 and 4x3)']],
 'normalize_distances': [[['T', 'torch.float32', [3, 4],
                           [[0.0, 0.7462, 0.3992, -0.5327],
                            [-0.6366, 0.155, 0.7196, 0.2299],
                            [-0.5326, -0.4902, 0.2703, 0.6348]]],
                          'DivBackward0',
                          ['T', 'torch.float32', [3, 4],
                           [[-0.3713, -0.0317, 0.3544, 0.2213],
                            [-0.0902, -0.3549, -0.0997, 0.3015],
                            [0.1527, -0.2185, -0.2696, 0.0742]]]],
                         [['T', 'torch.float32', [3, 4],
                           [[0.0, 0.4965, 0.2665, -0.345],
                            [-0.5163, 0.1108, 0.5163, 0.1601],
                            [-0.4837, -0.3926, 0.2172, 0.495]]],
                          'DivBackward0',
                          ['T', 'torch.float32', [3, 4],
                           [[-0.2802, -0.0575, 0.1948, 0.1765],
                            [-0.1418, -0.2874, 0.0044, 0.1998],
                            [0.1513, -0.1538, -0.2495, 0.0584]]]],
                         ['T', 'torch.float32', [2, 4],
                          [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]],
                         [['T', 'torch.float32', [3], [-0.6696, -0.5281, -0.7604]],
                          'SumBackward1',
                          ['T', 'torch.float32', [3, 4],
                           [[0.1829, 0.0156, -0.1746, -0.109],
                            [-0.001, -0.0038, -0.0011, 0.0032],
                            [0.0799, -0.1144, -0.1411, 0.0389]]]],
                         [['T', 'torch.float32', [3], [-0.6696, 0.5251, 0.9955]],
                          'SumBackward1',
                          ['T', 'torch.float32', [3, 4],
                           [[0.1829, 0.0156, -0.1746, -0.109],
                            [-0.001, -0.0038, -0.0011, 0.0032],
                            [0.0117, -0.0167, -0.0206, 0.0057]]]],
                         ['T', 'torch.float32', [2], [0.0, 0.0]],
                         ['T', 'torch.float32', [1], [0.9839]],
                         ['RuntimeError',
                          'expected common dtype to be floating point, yet common '
                          'dtype is Long'],
                         [['T', 'torch.float32', [3], [5.1708, 4.6137, 5.6552]],
                          'NormBackward1',
                          ['T', 'torch.float32', [3, 4],
                           [[-0.2807, -0.6661, -0.0756, 0.6256],
                            [-0.0081, 0.008, 0.0123, -0.0014],
                            [-0.6139, -0.2636, 0.4729, 0.5166]]]],
                         ['T', 'torch.float32', [3, 1],
                          [[8.8866], [8.1656], [10.9082]]],
                         ['T', 'torch.float32', [3], [3.5917, 3.3841, 3.587]]],
 'one_hot': [['T', 'torch.int64', [2, 2, 4],
              [[[1, 0, 0, 0], [0, 0, 1, 0]], [[0, 1, 0, 0], [0, 0, 0, 1]]]],
             ['T', 'torch.int64', [2, 2, 5],
              [[[1, 0, 0, 0, 0], [0, 0, 1, 0, 0]], [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]]]],
             ['T', 'torch.int64', [0, 3], []],
             ['RuntimeError', 'one_hot is only applicable to index tensor.'],
             ['RuntimeError', 'Class values must be non-negative.'],
             ['RuntimeError', 'Class values must be smaller than num_classes.'],
             ['RuntimeError',
              'Can not infer total number of classes from empty tensor.']],
 'pad': [['((1, 2),)',
          [['T', 'torch.float32', [1, 2, 3, 7],
            [[[[0.0, 0.0, 1.9271, 1.031, -1.3755, 0.0, 0.0],
               [0.0, -1.7669, 0.4302, 1.9971, 0.6382, 0.0, 0.0],
               [0.0, -1.6557, -1.524, 0.8403, 1.9735, 0.0, 0.0]],
              [[0.0, 0.2155, -1.8582, -1.2097, 1.2111, 0.0, 0.0],
               [0.0, 1.8576, -0.2173, -1.9738, -0.8387, 0.0, 0.0],
               [0.0, 1.5251, 1.6547, -0.6399, -1.997, 0.0, 0.0]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[0.0168, 0.9679, 0.501, -0.6999], [0.3031, -0.8371, -0.751, 0.4354],
               [-0.5914, 0.6188, 0.9224, -0.1253]],
              [[0.8178, -0.3358, -0.9974, -0.1978], [-0.9587, 0.0177, 0.9681, 0.5003],
               [0.9993, 0.3023, -0.8376, -0.7504]]]]]]],
         ['((1, 1, 2, 0),)',
          [['T', 'torch.float32', [1, 2, 5, 6],
            [[[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
               [0.0, 0.0, 1.9271, 1.031, -1.3755, 0.0],
               [0.0, -1.7669, 0.4302, 1.9971, 0.6382, 0.0],
               [0.0, -1.6557, -1.524, 0.8403, 1.9735, 0.0]],
              [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
               [0.0, 0.2155, -1.8582, -1.2097, 1.2111, 0.0],
               [0.0, 1.8576, -0.2173, -1.9738, -0.8387, 0.0],
               [0.0, 1.5251, 1.6547, -0.6399, -1.997, 0.0]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[0.091, -0.9352, -0.5914, 0.6188], [-0.9895, -0.404, 0.7733, 0.8178],
               [-0.1978, 0.8916, 0.6748, -0.5306]],
              [[-0.9355, -0.5906, 0.6195, 0.9221], [-0.4032, 0.7739, 0.8173, -0.3367],
               [0.892, 0.6742, -0.5313, -0.9584]]]]]]],
         ['((0, 0, 0, 0, 1, 1),)',
          [['T', 'torch.float32', [1, 4, 3, 4],
            [[[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
              [[0.0, 1.9271, 1.031, -1.3755], [-1.7669, 0.4302, 1.9971, 0.6382],
               [-1.6557, -1.524, 0.8403, 1.9735]],
              [[0.2155, -1.8582, -1.2097, 1.2111], [1.8576, -0.2173, -1.9738, -0.8387],
               [1.5251, 1.6547, -0.6399, -1.997]],
              [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[0.9839, 0.091, -0.9352, -0.5914], [0.6188, 0.9224, -0.1253, -0.9895],
               [-0.404, 0.7733, 0.8178, -0.3358]],
              [[-0.9974, -0.1978, 0.8916, 0.6748], [-0.5306, -0.9587, 0.0177, 0.9681],
               [0.5003, -0.7005, -0.875, 0.2324]]]]]]],
         ['((-1, 2),)',
          [['T', 'torch.float32', [1, 2, 3, 5],
            [[[[1.9271, 1.031, -1.3755, 0.0, 0.0], [0.4302, 1.9971, 0.6382, 0.0, 0.0],
               [-1.524, 0.8403, 1.9735, 0.0, 0.0]],
              [[-1.8582, -1.2097, 1.2111, 0.0, 0.0],
               [-0.2173, -1.9738, -0.8387, 0.0, 0.0],
               [1.6547, -0.6399, -1.997, 0.0, 0.0]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[0.0, -0.9589, 0.0168, 0.9679], [0.0, -0.8755, 0.2315, 0.9993],
               [0.0, -0.751, 0.4354, 0.9839]],
              [[0.0, -0.5914, 0.6188, 0.9224], [0.0, -0.404, 0.7733, 0.8178],
               [0.0, -0.1978, 0.8916, 0.6748]]]]]]],
         ["((1, 2), 'constant', 3.5)",
          [['T', 'torch.float32', [1, 2, 3, 7],
            [[[[3.5, 0.0, 1.9271, 1.031, -1.3755, 3.5, 3.5],
               [3.5, -1.7669, 0.4302, 1.9971, 0.6382, 3.5, 3.5],
               [3.5, -1.6557, -1.524, 0.8403, 1.9735, 3.5, 3.5]],
              [[3.5, 0.2155, -1.8582, -1.2097, 1.2111, 3.5, 3.5],
               [3.5, 1.8576, -0.2173, -1.9738, -0.8387, 3.5, 3.5],
               [3.5, 1.5251, 1.6547, -0.6399, -1.997, 3.5, 3.5]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[0.0168, 0.9679, 0.501, -0.6999], [0.3031, -0.8371, -0.751, 0.4354],
               [-0.5914, 0.6188, 0.9224, -0.1253]],
              [[0.8178, -0.3358, -0.9974, -0.1978], [-0.9587, 0.0177, 0.9681, 0.5003],
               [0.9993, 0.3023, -0.8376, -0.7504]]]]]]],
         ["((1, 2), 'reflect')",
          [['T', 'torch.float32', [2, 3, 7],
            [[[1.9271, 0.0, 1.9271, 1.031, -1.3755, 1.031, 1.9271],
              [0.4302, -1.7669, 0.4302, 1.9971, 0.6382, 1.9971, 0.4302],
              [-1.524, -1.6557, -1.524, 0.8403, 1.9735, 0.8403, -1.524]],
             [[-1.8582, 0.2155, -1.8582, -1.2097, 1.2111, -1.2097, -1.8582],
              [-0.2173, 1.8576, -0.2173, -1.9738, -0.8387, -1.9738, -0.2173],
              [1.6547, 1.5251, 1.6547, -0.6399, -1.997, -0.6399, 1.6547]]]],
           None,
           ['T', 'torch.float32', [2, 3, 4],
            [[[0.0168, 0.2405, -0.3744, -0.6999], [0.3031, 0.2532, 0.2329, 0.4354],
              [-0.5914, -0.7204, -0.0671, -0.1253]],
             [[0.8178, 1.1123, -0.1058, -0.1978], [-0.9587, -1.3879, 0.2676, 0.5003],
              [0.9993, 1.5184, -0.4015, -0.7504]]]]]],
         ["((2, 1, 1, 2), 'reflect')",
          [['T', 'torch.float32', [1, 2, 6, 7],
            [[[[1.9971, 0.4302, -1.7669, 0.4302, 1.9971, 0.6382, 1.9971],
               [1.031, 1.9271, 0.0, 1.9271, 1.031, -1.3755, 1.031],
               [1.9971, 0.4302, -1.7669, 0.4302, 1.9971, 0.6382, 1.9971],
               [0.8403, -1.524, -1.6557, -1.524, 0.8403, 1.9735, 0.8403],
               [1.9971, 0.4302, -1.7669, 0.4302, 1.9971, 0.6382, 1.9971],
               [1.031, 1.9271, 0.0, 1.9271, 1.031, -1.3755, 1.031]],
              [[-1.9738, -0.2173, 1.8576, -0.2173, -1.9738, -0.8387, -1.9738],
               [-1.2097, -1.8582, 0.2155, -1.8582, -1.2097, 1.2111, -1.2097],
               [-1.9738, -0.2173, 1.8576, -0.2173, -1.9738, -0.8387, -1.9738],
               [-0.6399, 1.6547, 1.5251, 1.6547, -0.6399, -1.997, -0.6399],
               [-1.9738, -0.2173, 1.8576, -0.2173, -1.9738, -0.8387, -1.9738],
               [-1.2097, -1.8582, 0.2155, -1.8582, -1.2097, 1.2111, -1.2097]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[-0.5349, -0.2862, 1.9914, 1.4201], [1.6045, 0.8584, -3.7972, -2.5654],
               [-0.3358, -0.1797, 1.2503, 0.8916]],
              [[1.5917, 0.8516, -2.0319, -1.1942], [-2.4849, -1.3294, 2.4407, 1.295],
               [0.9994, 0.5347, -1.2757, -0.7498]]]]]]],
         ["((1, 2), 'replicate')",
          [['T', 'torch.float32', [2, 3, 7],
            [[[0.0, 0.0, 1.9271, 1.031, -1.3755, -1.3755, -1.3755],
              [-1.7669, -1.7669, 0.4302, 1.9971, 0.6382, 0.6382, 0.6382],
              [-1.6557, -1.6557, -1.524, 0.8403, 1.9735, 1.9735, 1.9735]],
             [[0.2155, 0.2155, -1.8582, -1.2097, 1.2111, 1.2111, 1.2111],
              [1.8576, 1.8576, -0.2173, -1.9738, -0.8387, -0.8387, -0.8387],
              [1.5251, 1.5251, 1.6547, -0.6399, -1.997, -1.997, -1.997]]]],
           None,
           ['T', 'torch.float32', [2, 3, 4],
            [[[-0.9421, 0.9679, 0.501, -1.3438], [1.3024, -0.8371, -0.751, 1.5103],
              [-1.5266, 0.6188, 0.9224, -1.5189]],
             [[1.5911, -0.3358, -0.9974, 1.3686], [-1.4893, 0.0177, 0.9681, -1.0753],
              [1.2317, 0.3023, -0.8376, 0.6695]]]]]],
         ["((3, 1, 2, 2), 'replicate')",
          [['T', 'torch.float32', [1, 2, 7, 8],
            [[[[0.0, 0.0, 0.0, 0.0, 1.9271, 1.031, -1.3755, -1.3755],
               [0.0, 0.0, 0.0, 0.0, 1.9271, 1.031, -1.3755, -1.3755],
               [0.0, 0.0, 0.0, 0.0, 1.9271, 1.031, -1.3755, -1.3755],
               [-1.7669, -1.7669, -1.7669, -1.7669, 0.4302, 1.9971, 0.6382, 0.6382],
               [-1.6557, -1.6557, -1.6557, -1.6557, -1.524, 0.8403, 1.9735, 1.9735],
               [-1.6557, -1.6557, -1.6557, -1.6557, -1.524, 0.8403, 1.9735, 1.9735],
               [-1.6557, -1.6557, -1.6557, -1.6557, -1.524, 0.8403, 1.9735, 1.9735]],
              [[0.2155, 0.2155, 0.2155, 0.2155, -1.8582, -1.2097, 1.2111, 1.2111],
               [0.2155, 0.2155, 0.2155, 0.2155, -1.8582, -1.2097, 1.2111, 1.2111],
               [0.2155, 0.2155, 0.2155, 0.2155, -1.8582, -1.2097, 1.2111, 1.2111],
               [1.8576, 1.8576, 1.8576, 1.8576, -0.2173, -1.9738, -0.8387, -0.8387],
               [1.5251, 1.5251, 1.5251, 1.5251, 1.6547, -0.6399, -1.997, -1.997],
               [1.5251, 1.5251, 1.5251, 1.5251, 1.6547, -0.6399, -1.997, -1.997],
               [1.5251, 1.5251, 1.5251, 1.5251, 1.6547, -0.6399, -1.997, -1.997]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[0.1036, -0.12, -0.0111, 0.1862], [0.3712, -0.5306, -0.9587, 0.9858],
               [-0.0701, 0.072, -0.0756, -0.0971]],
              [[-0.0849, 0.0915, -0.0533, -0.1309], [-0.7141, 0.8924, 0.6735, -1.4903],
               [0.0203, -0.0108, 0.1142, -0.0039]]]]]]],
         ["((1, 2), 'circular')",
          [['T', 'torch.float32', [2, 3, 7],
            [[[-1.3755, 0.0, 1.9271, 1.031, -1.3755, 0.0, 1.9271],
              [0.6382, -1.7669, 0.4302, 1.9971, 0.6382, -1.7669, 0.4302],
              [1.9735, -1.6557, -1.524, 0.8403, 1.9735, -1.6557, -1.524]],
             [[1.2111, 0.2155, -1.8582, -1.2097, 1.2111, 0.2155, -1.8582],
              [-0.8387, 1.8576, -0.2173, -1.9738, -0.8387, 1.8576, -0.2173],
              [-1.997, 1.5251, 1.6547, -0.6399, -1.997, 1.5251, 1.6547]]]],
           None,
           ['T', 'torch.float32', [2, 3, 4],
            [[[-0.8586, 1.1994, 0.501, -1.6588], [1.287, -0.7461, -0.751, 1.4347],
              [-1.5808, 0.2148, 0.9224, -1.0605]],
             [[1.7094, 0.339, -0.9974, 0.5755], [-1.6592, -0.8573, 0.9681, -0.0303],
              [1.4355, 1.286, -0.8376, -0.518]]]]]],
         ["((2, 3, 1, 2), 'circular')",
          [['T', 'torch.float32', [1, 2, 6, 9],
            [[[[0.8403, 1.9735, -1.6557, -1.524, 0.8403, 1.9735, -1.6557, -1.524,
                0.8403],
               [1.031, -1.3755, 0.0, 1.9271, 1.031, -1.3755, 0.0, 1.9271, 1.031],
               [1.9971, 0.6382, -1.7669, 0.4302, 1.9971, 0.6382, -1.7669, 0.4302,
                1.9971],
               [0.8403, 1.9735, -1.6557, -1.524, 0.8403, 1.9735, -1.6557, -1.524,
                0.8403],
               [1.031, -1.3755, 0.0, 1.9271, 1.031, -1.3755, 0.0, 1.9271, 1.031],
               [1.9971, 0.6382, -1.7669, 0.4302, 1.9971, 0.6382, -1.7669, 0.4302,
                1.9971]],
              [[-0.6399, -1.997, 1.5251, 1.6547, -0.6399, -1.997, 1.5251, 1.6547,
                -0.6399],
               [-1.2097, 1.2111, 0.2155, -1.8582, -1.2097, 1.2111, 0.2155, -1.8582,
                -1.2097],
               [-1.9738, -0.8387, 1.8576, -0.2173, -1.9738, -0.8387, 1.8576, -0.2173,
                -1.9738],
               [-0.6399, -1.997, 1.5251, 1.6547, -0.6399, -1.997, 1.5251, 1.6547,
                -0.6399],
               [-1.2097, 1.2111, 0.2155, -1.8582, -1.2097, 1.2111, 0.2155, -1.8582,
                -1.2097],
               [-1.9738, -0.8387, 1.8576, -0.2173, -1.9738, -0.8387, 1.8576, -0.2173,
                -1.9738]]]]],
           None,
           ['T', 'torch.float32', [1, 2, 3, 4],
            [[[[-0.9035, -0.0832, 1.0212, -0.4002], [-0.7104, -0.7507, 0.803, 0.3707],
               [-0.4598, 0.643, 0.5196, -0.889]],
              [[-0.2764, 0.7699, 0.3124, -0.9178], [-0.8463, 0.1171, 0.9566, -0.5699],
               [0.4883, 0.88, -0.5519, -0.6188]]]]]]],
         ["((-1, 1), 'reflect')",
          [['T', 'torch.float32', [2, 3, 4],
            [[[1.9271, 1.031, -1.3755, 1.031], [0.4302, 1.9971, 0.6382, 1.9971],
              [-1.524, 0.8403, 1.9735, 0.8403]],
             [[-1.8582, -1.2097, 1.2111, -1.2097], [-0.2173, -1.9738, -0.8387, -1.9738],
              [1.6547, -0.6399, -1.997, -0.6399]]]],
           None,
           ['T', 'torch.float32', [2, 3, 4],
            [[[0.0, -0.9589, 0.5178, 0.9679], [0.0, -0.6999, 0.1239, 0.2315],
              [0.0, 0.3031, -0.4018, -0.751]],
             [[0.0, 0.9839, -0.5003, -0.9352], [0.0, 0.6188, -0.0671, -0.1253],
              [0.0, -0.404, 0.4375, 0.8178]]]]]],
         ["((2, 1, 1, 0), 'reflect')",
          [['T', 'torch.float32', [2, 4, 7],
            [[[1.9971, 0.4302, -1.7669, 0.4302, 1.9971, 0.6382, 1.9971],
              [1.031, 1.9271, 0.0, 1.9271, 1.031, -1.3755, 1.031],
              [1.9971, 0.4302, -1.7669, 0.4302, 1.9971, 0.6382, 1.9971],
              [0.8403, -1.524, -1.6557, -1.524, 0.8403, 1.9735, 0.8403]],
             [[-1.9738, -0.2173, 1.8576, -0.2173, -1.9738, -0.8387, -1.9738],
              [-1.2097, -1.8582, 0.2155, -1.8582, -1.2097, 1.2111, -1.2097],
              [-1.9738, -0.2173, 1.8576, -0.2173, -1.9738, -0.8387, -1.9738],
              [-0.6399, 1.6547, 1.5251, 1.6547, -0.6399, -1.997, -0.6399]]]],
           None,
           ['T', 'torch.float32', [2, 3, 4],
            [[[-0.8371, -0.4479, 1.5257, 0.9839], [1.5868, 0.8489, -2.8919, -1.8649],
              [-0.3358, -0.1797, 1.2503, 0.8916]],
             [[0.3023, 0.1617, 0.4657, 0.4362], [-0.5729, -0.3065, -0.8827, -0.8267],
              [0.8173, 0.4372, -0.5086, -0.1969]]]]]],
         ['T', 'torch.float32', [2, 5],
          [[1.9271, 0.0, 1.9271, 1.031, 1.9271],
           [-1.7669, -1.3755, -1.7669, 0.4302, -1.7669]]],
         ['T', 'torch.int32', [3, 4], [[7, 0, 1, 1], [7, -1, -1, 0], [7, 7, 7, 7]]],
         ['T', 'torch.float32', [1, 1, 3, 3, 3],
          [[[[[0.0, 0.0, 1.9271], [1.031, 1.031, -1.3755], [1.031, 1.031, -1.3755]],
             [[0.0, 0.0, 1.9271], [1.031, 1.031, -1.3755], [1.031, 1.031, -1.3755]],
             [[-1.7669, -1.7669, 0.4302], [1.9971, 1.9971, 0.6382],
              [1.9971, 1.9971, 0.6382]]]]]],
         ['RuntimeError', 'Padding length must be divisible by 2'],
         ['RuntimeError', 'Padding length too large'],
         ['RuntimeError',
          'Argument #4: Padding size should be less than the corresponding input '
          'dimension, but got: padding (4, 4) at dimension 2 of input [2, 3, 4]'],
         ['RuntimeError',
          'Argument #6: Padding size should be less than the corresponding input '
          'dimension, but got: padding (3, 1) at dimension 2 of input 4'],
         ['NotImplementedError',
          'Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for '
          'now'],
         ['RuntimeError', 'Invalid padding size, expected 0 but got 2'],
         ['RuntimeError', 'Invalid padding size, expected 2 but got 4'],
         ['RuntimeError', 'Padding mode "reflect" doesn\'t take in value argument'],
         ['NotImplementedError',
          'Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for '
          'now'],
         ['RuntimeError', 'Padding value causes wrapping around more than once.'],
         ['NotImplementedError', 'Unrecognised padding mode wrap'],
         ['NotImplementedError',
          'Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for '
          'now']],
 'reprs': ['Linear(in_features=3, out_features=4, bias=True)',
           'Bilinear(in1_features=2, in2_features=3, out_features=4, bias=False)',
           'Identity()', 'ReLU(inplace=True)', 'ReLU6(inplace=True)',
           'LeakyReLU(negative_slope=0.1, inplace=True)', 'ELU(alpha=2.0)',
           'CELU(alpha=1.0)', 'SELU(inplace=True)', "GELU(approximate='none')",
           'SiLU(inplace=True)', 'Mish()', 'Sigmoid()', 'Tanh()', 'Softmax(dim=None)',
           'LogSoftmax(dim=1)', 'Softmin(dim=0)', 'Softmax2d()',
           'Softplus(beta=2, threshold=20)',
           'Hardtanh(min_val=-2, max_val=2, inplace=True)',
           'Threshold(threshold=0.1, value=2, inplace=True)', 'Hardsigmoid()',
           'Hardswish()', 'Softsign()', 'Tanhshrink()', 'Softshrink(0.3)',
           'Hardshrink(0.5)', 'LogSigmoid()', 'PReLU(num_parameters=4)', 'GLU(dim=0)',
           'RReLU(lower=0.1, upper=0.2, inplace=True)', 'Dropout(p=0.3, inplace=True)',
           'Dropout2d(p=0.5, inplace=False)', 'AlphaDropout(p=0.1, inplace=False)',
           'Flatten(start_dim=2, end_dim=3)',
           'Unflatten(dim=0, unflattened_size=(2, 2))', ['AssertionError', '']],
 'softmax': [['T', 'torch.float32', [2, 3, 4],
              [[[0.4463, 0.9778, 0.9038, 0.07], [0.026, 0.6564, 0.9815, 0.8141],
                [0.0399, 0.04, 0.8146, 0.9815]],
               [[0.5537, 0.0222, 0.0962, 0.93], [0.974, 0.3436, 0.0185, 0.1859],
                [0.9601, 0.96, 0.1854, 0.0185]]]],
             ['T', 'torch.float32', [3], [-2.3678, -0.4407, -1.3368]],
             ['T', 'torch.float32', [3, 2],
              [[0.8729, 0.1271], [0.0827, 0.9173], [0.9, 0.1]]],
             ['T', 'torch.float32', [2, 2], [[0.1271, 0.8729], [0.9173, 0.0827]]],
             ['Implicit dimension choice for softmax has been deprecated. Change the '
              'call to include dim=X as an argument.',
              'Implicit dimension choice for log_softmax has been deprecated. Change '
              'the call to include dim=X as an argument.',
              'Implicit dimension choice for softmin has been deprecated. Change the '
              'call to include dim=X as an argument.',
              'Implicit dimension choice for softmax has been deprecated. Change the '
              'call to include dim=X as an argument.'],
             ['T', 'torch.float64', [2, 3, 4],
              [[[0.0915, 0.6287, 0.2566, 0.0231], [0.0156, 0.1402, 0.6717, 0.1726],
                [0.0192, 0.022, 0.2335, 0.7253]],
               [[0.2456, 0.0309, 0.059, 0.6645], [0.8232, 0.1034, 0.0178, 0.0555],
                [0.4381, 0.4987, 0.0503, 0.0129]]]],
             ['T', 'torch.float32', [2, 3, 4],
              [[[-0.3088, -0.2276, -1.4938, -3.61],
                [-2.0757, -1.7244, -0.5277, -1.5963],
                [-1.9645, -3.6786, -1.6845, -0.261]],
               [[-2.2896, -3.6815, -1.1736, -0.1563],
                [-0.6475, -2.0405, -1.9378, -2.2061],
                [-0.98, -0.1686, -0.6038, -3.3644]]]],
             ['T', 'torch.float32', [2, 3, 4],
              [[[0.4463, 0.9778, 0.9038, 0.07], [0.026, 0.6564, 0.9815, 0.8141],
                [0.0399, 0.04, 0.8146, 0.9815]],
               [[0.5537, 0.0222, 0.0962, 0.93], [0.974, 0.3436, 0.0185, 0.1859],
                [0.9601, 0.96, 0.1854, 0.0185]]]],
             ['AssertionError', 'Softmax2d requires a 3D or 4D tensor as input'],
             [['T', 'torch.float32', [2, 3, 4],
               [[[-2.3912, -0.4641, -1.3602, -3.7667],
                 [-4.162, -1.9648, -0.398, -1.7569],
                 [-3.9504, -3.8187, -1.4544, -0.3212]],
                [[-1.4042, -3.478, -2.8294, -0.4087],
                 [-0.1945, -2.2694, -4.0259, -2.8908],
                 [-0.8253, -0.6958, -2.9903, -4.3474]]]],
              'LogSoftmaxBackward0',
              ['T', 'torch.float32', [2, 3, 4],
               [[[-1.0071, -0.3144, 0.8327, 0.4888], [-0.6945, -0.8272, 0.4629, 1.0588],
                 [0.3195, -0.8185, -0.5526, 1.0516]],
                [[1.0948, 0.105, -0.9085, -0.2912], [0.2678, 0.8783, -0.1329, -1.0132],
                 [-0.777, 0.3488, 0.775, -0.3468]]]]]],
 'training': [[1.2279, 1.2215, 1.22, 1.2134, 1.2043, 1.1977, 1.2006, 1.1951, 1.1948,
               1.1817, 1.1903, 1.1783, 1.1936, 1.1813, 1.1803, 1.1812, 1.1732, 1.1744,
               1.1721, 1.1753, 1.1708, 1.1664, 1.1704, 1.1687, 1.1666, 1.1608, 1.1581,
               1.1757, 1.1665, 1.1656],
              1.1587],
 'transformer': [['T', 'torch.float32', [5, 5],
                  [[0.0, '-inf', '-inf', '-inf', '-inf'],
                   [0.0, 0.0, '-inf', '-inf', '-inf'], [0.0, 0.0, 0.0, '-inf', '-inf'],
                   [0.0, 0.0, 0.0, 0.0, '-inf'], [0.0, 0.0, 0.0, 0.0, 0.0]]],
                 [['T', 'torch.float32', [5, 3, 8],
                   [[[0.0581, -0.3486, 0.8755, 0.1539, -2.4439, 0.312, 0.8454, 0.5476],
                     [-1.6757, -1.0207, 0.8142, 1.3375, 0.3102, -0.8831, 0.2443,
                      0.8733],
                     [1.0576, 0.3261, -0.2879, -0.9108, 0.893, 1.1303, -0.2826,
                      -1.9256]],
                    [[-0.1353, -0.6367, 0.7432, 0.7148, -2.3105, 0.6469, 0.1161,
                      0.8616],
                     [-1.24, -0.7253, 0.3322, 1.1849, 1.748, -0.9575, 0.2711, -0.6134],
                     [1.4164, 0.4772, -0.6212, -1.2881, 0.3524, 1.2099, -0.0889,
                      -1.4577]],
                    [[-0.1812, -0.4821, 0.7137, 0.8274, -2.3499, 0.5537, 0.0782,
                      0.8402],
                     [-0.9227, -0.9138, -0.0213, 1.1444, 1.9823, -1.0073, -0.2427,
                      -0.0191],
                     [0.9116, 0.6155, -0.3607, -1.3237, 0.5309, 1.128, 0.3042,
                      -1.8058]],
                    [[-0.3753, -0.598, 0.7759, 1.0749, -2.2101, 0.4771, 0.0634, 0.7922],
                     [-0.4249, -0.5412, 0.2414, 0.3643, 2.1856, -0.9391, 0.3581,
                      -1.2443],
                     [1.3489, 0.4439, -0.5732, -1.155, 0.047, 1.2235, 0.3149, -1.65]],
                    [[-0.9068, -0.5699, 0.7754, 1.0273, -1.9108, -0.0155, 0.4367,
                      1.1637],
                     [-0.4437, -0.4455, -0.2387, 0.1153, 2.3628, -0.7425, 0.4758,
                      -1.0834],
                     [1.1684, 0.6629, -0.3246, -1.4519, -0.0482, 1.1123, 0.4692,
                      -1.5881]]]],
                  'NativeLayerNormBackward0',
                  ['T', 'torch.float32', [5, 3, 8],
                   [[[-0.9225, 0.6272, 0.3462, 0.1894, 0.9004, -1.5111, 0.4663,
                      -0.0364],
                     [1.0215, -0.7978, -0.6303, 0.7354, 1.0888, -0.2208, -0.2609,
                      -0.8244],
                     [0.0458, 0.2358, -0.1446, -0.2342, -0.1907, 0.1409, -0.1721,
                      0.4769]],
                    [[-0.5215, 0.3481, 0.1493, 0.0649, 0.8723, -1.3032, 0.5365,
                      -0.1228],
                     [0.876, -0.3073, -0.5385, 0.3081, 0.5518, -0.0453, -0.3425,
                      -0.5541],
                     [-0.1998, 0.1621, -0.2282, -0.5584, -0.1233, 0.1639, 0.2357,
                      0.4719]],
                    [[-0.4482, 0.1169, 0.0593, 0.2743, 0.5656, -0.737, 0.3124, -0.1131],
                     [0.8299, -0.2491, -0.6316, 0.1816, 0.3943, 0.5653, -0.4327,
                      -0.711],
                     [-0.0557, 0.0774, -0.0715, -0.5484, -0.2676, 0.0835, 0.1589,
                      0.4086]],
                    [[-0.2305, -0.0158, 0.0963, 0.2403, 0.4857, -0.6062, 0.125,
                      -0.0453],
                     [0.6688, 0.1705, -0.5448, -0.1383, 0.1902, 0.3076, -0.329,
                      -0.3165],
                     [-0.1466, 0.2502, 0.0995, -0.6041, -0.3121, -0.0625, 0.2621,
                      0.4588]],
                    [[-0.279, -0.0055, 0.0059, 0.3627, 0.61, -0.5318, -0.1139, -0.0388],
                     [1.1309, 0.2767, -0.466, -0.5049, 0.0358, 0.3598, -0.468, -0.3253],
                     [-0.266, 0.0944, 0.0, -0.4097, -0.2283, -0.0085, 0.4251,
                      0.4004]]]]],
                 [['T', 'torch.float32', [2, 3, 8],
                   [[[-0.9437, -1.0555, 0.733, 1.1167, 0.9106, -1.0848, -0.8756,
                      1.1993],
                     [1.8003, -0.0773, -1.4245, -0.1128, 0.7685, 0.741, -0.5882,
                      -1.1069],
                     [0.5501, 1.2389, 0.4893, -1.0124, -1.8203, -0.7614, 0.3943,
                      0.9216]],
                    [[-0.6834, -1.4286, 0.3454, 0.9602, 1.6099, -0.4389, -1.0766,
                      0.712],
                     [1.9671, 0.1437, -1.3313, -0.3422, 0.2902, 0.763, -0.2744,
                      -1.2161],
                     [0.3582, 1.1722, 0.6565, -1.0725, -1.7372, -0.8194, 0.4154,
                      1.0268]]]],
                  'NativeLayerNormBackward0',
                  ['T', 'torch.float32', [2, 4, 8],
                   [[[0.0942, 0.0016, -0.1007, -0.1452, 0.1405, -0.0399, 0.0261,
                      0.0234],
                     [0.1229, -0.0343, -0.0459, -0.0538, 0.165, -0.0408, -0.1121,
                      -0.001],
                     [0.2042, -0.0965, 0.0182, 0.1076, -0.0701, -0.113, 0.0265,
                      -0.0769],
                     [0.1045, 0.0373, -0.123, -0.2125, 0.1475, -0.0188, 0.0251,
                      0.0398]],
                    [[0.1514, -0.064, -0.059, -0.1018, 0.2636, -0.0768, -0.0867,
                      -0.0266],
                     [0.2568, -0.1556, -0.0333, 0.1073, -0.066, -0.1617, 0.1472,
                      -0.0947],
                     [0.0883, 0.0627, -0.1562, -0.3109, 0.1934, -0.0532, 0.1188,
                      0.0571],
                     [0.2625, -0.1039, -0.0486, -0.1105, 0.2341, -0.022, -0.097,
                      -0.1147]]]]],
                 [34,
                  ['encoder.layers.0.self_attn.in_proj_weight',
                   'encoder.layers.0.self_attn.in_proj_bias',
                   'encoder.layers.0.self_attn.out_proj.weight',
                   'encoder.layers.0.self_attn.out_proj.bias',
                   'encoder.layers.0.linear1.weight', 'encoder.layers.0.linear1.bias',
                   'encoder.layers.0.linear2.weight',
                   'encoder.layers.0.linear2.bias']],
                 'TransformerEncoderLayer(\n'
                 '  (self_attn): MultiheadAttention(\n'
                 '    (out_proj): NonDynamicallyQuantizableLinear(in_features=8, '
                 'out_features=8, bias=True)\n'
                 '  )\n'
                 '  (linear1): Linear(in_features=8, out_features=16, bias=True)\n'
                 '  (dropout): Dropout(p=0.1, inplace=False)\n'
                 '  (linear2): Linear(in_features=16, out_features=8, bias=True)\n'
                 '  (norm1): LayerNorm((8,), eps=1e-05, elementwise_affine=True)\n'
                 '  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True)\n'
                 '  (dropout1): Dropout(p=0.1, inplace=False)\n'
                 '  (dropout2): Dropout(p=0.1, inplace=False)\n'
                 ')',
                 ['T', 'torch.float32', [3, 2, 8],
                  [[[-0.0388, 1.0233, -0.0062, -1.0386, -1.9966, 0.3895, 1.2486,
                     0.4188],
                    [-1.2683, -0.7629, 0.9591, 1.4657, 0.134, -1.099, -0.5364, 1.1079]],
                   [[0.9724, -0.1893, -1.1373, -0.4078, 1.0252, 1.6063, -0.6345,
                     -1.2349],
                    [-0.4092, 0.9363, 0.1069, -0.7662, -2.0247, 0.0578, 1.2094,
                     0.8897]],
                   [[-1.1303, -0.8855, 0.8402, 1.6047, 0.4039, -0.9443, -0.8378, 0.949],
                    [1.214, -0.1489, -1.1918, -0.6752, 0.8786, 1.5099, -0.3947,
                     -1.1918]]]],
                 ['RuntimeError', 'activation should be relu/gelu, not tanh'],
                 ['RuntimeError', 'the batch number of src and tgt must be equal'],
                 ['RuntimeError',
                  'the feature number of src and tgt must be equal to d_model']],
 'utils': [['T', 'torch.float32', [], 4.2027],
           [['T', 'torch.float32', [3, 4],
             [[0.0347, 0.0259, -0.0209, -0.037], [-0.0617, -0.0144, 0.0539, 0.0433],
              [-0.0804, -0.035, 0.0617, 0.068]]],
            ['T', 'torch.float32', [3], [0.0147, 0.1276, 0.2555]],
            ['T', 'torch.float32', [2, 3],
             [[-0.3351, -0.0953, -0.2173], [-0.1046, 0.0522, -0.0413]]],
            ['T', 'torch.float32', [2], [0.8395, 0.0301]]],
           ['T', 'torch.float32', [], 3.5281], ['T', 'torch.float32', [], 0.3198],
           ['T', 'torch.float32', [], 0.0],
           ['RuntimeError',
            'The total norm of order 2.0 for gradients from `parameters` is '
            'non-finite, so it cannot be clipped. To disable this error and scale the '
            'gradients by the non-finite norm anyway, set `error_if_nonfinite=False`'],
           [['T', 'torch.float32', [3, 4],
             [[0.146, 0.1087, -0.0879, -0.1557], [-0.2591, -0.0605, 0.2267, 0.1819],
              [-0.338, -0.1472, 0.2592, 0.2859]]],
            ['T', 'torch.float32', [3], [0.0617, 0.5, 0.5]],
            ['T', 'torch.float32', [2, 3],
             [[-0.5, -0.4004, -0.5], [-0.4397, 0.2194, -0.1736]]],
            ['T', 'torch.float32', [2], [0.5, 0.1265]]],
           ['T', 'torch.float32', [23],
            [-0.0037, 0.2682, -0.4115, -0.368, -0.1926, 0.1341, -0.0099, 0.3964,
             -0.0444, 0.1323, -0.1511, -0.0983, -0.4777, -0.3311, -0.2061, 0.0214,
             0.2282, 0.3464, -0.3914, -0.2514, 0.2097, 0.4794, -0.1188]],
           ['T', 'torch.float32', [2], [0.9588, -0.2376]],
           ['TypeError', 'expected torch.Tensor, but got: list']]}

if __name__ == "__main__":
    import pprint
    import torch
    out = {n: run(torch, n) for n in SCENARIOS}
    print("EXPECTED = " + pprint.pformat(out, width=88, compact=True))
