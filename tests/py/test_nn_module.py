"""nn.Module, nn.Parameter and the containers against PyTorch 1.13.

Each scenario is a function of the library (ctorch or torch) that returns
plain Python values (strings, lists, rounded floats, error texts).  Two
tests per scenario: its result equals the recorded one in EXPECTED (no
torch needed; regenerate with `python3 tests/py/test_nn_module.py` from a
directory where torch imports), and equals what real torch gives.
"""
import copy
import pickle
import sys
import warnings
from collections import OrderedDict

import pytest

import ctorch


def render(x):
    """A comparable form: tensors as (dtype, shape, values to 5 decimals)."""
    if hasattr(x, "tolist") and hasattr(x, "dtype"):
        v = x.tolist()
        return ["T", str(x.dtype), list(x.shape), _round(v)]
    if isinstance(x, (list, tuple)):
        return [render(e) for e in x]
    if isinstance(x, dict):
        return [[k, render(v)] for k, v in x.items()]
    if isinstance(x, float):
        return round(x, 5)
    if isinstance(x, str):
        # class paths print as torch's under ctorchrun only
        return x.replace("<class 'ctorch.", "<class 'torch.")
    return x


def _round(v):
    if isinstance(v, list):
        return [_round(e) for e in v]
    return round(v, 5) if isinstance(v, float) else v


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return [type(e).__name__, str(e)]
    return None


def _net(T):
    nn = T.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)
            self.register_buffer("count", T.zeros(1))
            self.register_buffer("scratch", T.ones(2), persistent=False)

        def forward(self, x):
            return self.lin(x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(T.tensor([2.0]))
            self.first = Block()
            self.act = nn.ReLU()
            self.shared = self.first
            self.head = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
            self.none_mod = None
            self.register_parameter("unused", None)

        def forward(self, x):
            return self.head(self.act(self.first(x))) * self.scale

    return Net()


# --- scenarios -------------------------------------------------------------------

def s_traversal(T):
    T.manual_seed(0)
    m = _net(T)
    sd = m.state_dict()
    return {
        "params": [n for n, _ in m.named_parameters()],
        "params_prefix": [n for n, _ in m.named_parameters(prefix="net")],
        "params_norec": [n for n, _ in m.named_parameters(recurse=False)],
        "buffers": [n for n, _ in m.named_buffers()],
        "children": [n for n, _ in m.named_children()],
        "modules": [n for n, _ in m.named_modules()],
        "modules_dup": [n for n, _ in m.named_modules(remove_duplicate=False)],
        "n_params": len(list(m.parameters())),
        "state_dict": list(sd.keys()),
        "metadata": [[k, dict(v)] for k, v in sd._metadata.items()],
        "type": type(sd).__name__,
        "detached": [v.requires_grad for v in sd.values()],
        "keep_vars": [v.requires_grad for v in m.state_dict(keep_vars=True).values()],
        "prefix": list(m.state_dict(prefix="p.").keys()),
        "repr": repr(m),
        "getattr": err(lambda: m.nothing),
        "dir": [k for k in dir(m) if k in ("scale", "first", "count", "head", "lin")],
        "submodule": repr(m.get_submodule("head.0")),
        "get_parameter": render(m.get_parameter("scale")),
        "get_buffer": render(m.get_buffer("first.count")),
        "errs": [err(lambda: m.get_submodule("head.9")),
                 err(lambda: m.get_submodule("scale")),
                 err(lambda: m.get_parameter("first.count")),
                 err(lambda: m.get_buffer("first.lin")),
                 err(lambda: m.get_parameter("first.nope"))],
    }


def s_setattr(T):
    nn = T.nn
    m = nn.Module()
    out = []
    m.w = nn.Parameter(T.ones(2))
    out.append(err(lambda: setattr(m, "w", T.ones(2))))
    m.w = None
    out.append(list(m._parameters.items()))
    m.sub = nn.Linear(1, 1)
    out.append(err(lambda: setattr(m, "sub", 3)))
    m.sub = None
    out.append(list(m._modules.items()))
    m.register_buffer("b", T.zeros(1))
    out.append(err(lambda: setattr(m, "b", 5)))
    m.b = T.ones(1)
    out.append(render(m.b))
    # reassigning a name as another kind moves it
    m.b = nn.Parameter(T.ones(1))
    out.append([list(m._buffers), list(m._parameters)])
    m.plain = 3
    out.append(m.plain)
    del m.plain
    del m.b
    out.append([list(m._buffers), list(m._parameters), hasattr(m, "b")])
    errs = [
        err(lambda: m.register_buffer("a.b", T.ones(1))),
        err(lambda: m.register_buffer("", T.ones(1))),
        err(lambda: m.register_buffer(1, T.ones(1))),
        err(lambda: m.register_buffer("training", T.ones(1))),
        err(lambda: m.register_buffer("x", [1])),
        err(lambda: m.register_parameter("a.b", None)),
        err(lambda: m.register_parameter("", None)),
        err(lambda: m.register_parameter("x", T.ones(1))),
        err(lambda: m.add_module("q", 3)),
        err(lambda: m.add_module(2, nn.ReLU())),
        err(lambda: m.add_module("a.b", nn.ReLU())),
        err(lambda: m.add_module("", nn.ReLU())),
        err(lambda: m.add_module("training", nn.ReLU())),
    ]
    out.append(errs)

    class Early(nn.Module):
        def __init__(self, what):
            if what == "p":
                self.p = nn.Parameter(T.ones(1))
            elif what == "m":
                self.m = nn.ReLU()
            elif what == "b":
                self.register_buffer("b", T.ones(1))
            else:
                self.register_parameter("p", None)
            super().__init__()

    out.append([err(lambda: Early(w)) for w in ("p", "m", "b", "r")])
    m.register_module("extra", nn.ReLU())
    out.append(list(m._modules))
    return out


def s_state_dict_load(T):
    nn = T.nn
    T.manual_seed(0)
    a, b = _net(T), _net(T)
    res = [render(b.load_state_dict(a.state_dict()))]
    res.append(render(b.first.lin.weight) == render(a.first.lin.weight))
    sd = a.state_dict()
    sd["extra.key"] = T.ones(1)
    del sd["head.0.bias"]
    res.append(err(lambda: b.load_state_dict(sd)))
    r = b.load_state_dict(sd, strict=False)
    res.append([repr(r), r.missing_keys, r.unexpected_keys])
    sd = a.state_dict()
    sd["first.lin.weight"] = T.ones(4, 3)
    sd["scale"] = T.ones(2)
    res.append(err(lambda: b.load_state_dict(sd)))
    sd = a.state_dict()
    sd["scale"] = "text"
    res.append(err(lambda: b.load_state_dict(sd)))
    res.append(err(lambda: b.load_state_dict([1, 2])))
    # a 0-dim parameter loads from a one-element 1-d entry
    m = nn.Module()
    m.p = nn.Parameter(T.tensor(1.0))
    m.load_state_dict({"p": T.tensor([5.0])})
    res.append(render(m.p))
    # post hooks see the keys and may change them in place
    seen = []

    def hook(module, keys):
        seen.append((list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.unexpected_keys.clear()

    m2 = nn.Linear(2, 2)
    m2.register_load_state_dict_post_hook(hook)
    res.append(repr(m2.load_state_dict({"weight": T.ones(2, 2), "bias": T.ones(2),
                                        "junk": T.ones(1)})))
    res.append(seen)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d = m2.state_dict(None, "pre.")
    res.append([list(d), len(w)])
    return res


def s_modes_and_grads(T):
    T.manual_seed(0)
    m = _net(T)
    res = [m.training, m.first.training]
    m.eval()
    res.append([m.training, m.first.training, m.head[1].training])
    m.train()
    res.append([m.training, m.head[0].training])
    res.append(err(lambda: m.train("no")))
    out = m(T.ones(4, 3)).sum()
    out.backward()
    res.append([p.grad is not None for p in m.parameters()])
    m.zero_grad()
    res.append([render(p.grad) for p in m.parameters()][:2])
    m.zero_grad(set_to_none=True)
    res.append([p.grad is None for p in m.parameters()])
    m.requires_grad_(False)
    res.append([p.requires_grad for p in m.parameters()])
    order = []
    m.apply(lambda mod: order.append(type(mod).__name__))
    res.append(order)
    return res


def s_conversion(T):
    T.manual_seed(0)
    m = _net(T)
    w = m.first.lin.weight
    m.first.lin.weight.grad = T.ones(2, 3)
    r = m.double()
    res = [r is m, str(m.first.lin.weight.dtype), m.first.lin.weight is w,
           str(w.grad.dtype), str(m.first.count.dtype), type(w).__name__]
    m.float()
    res.append(str(w.dtype))
    m.to(T.float64)
    res.append(str(w.dtype))
    m.to("cpu", T.float32)
    res.append(str(w.dtype))
    m.to(T.zeros(1, dtype=T.float64))
    res.append(str(w.dtype))
    m.half()
    res.append(str(w.dtype))
    m.type(T.float32)
    res.append(str(w.dtype))
    m.register_buffer("idx", T.arange(3))
    m.double()
    res.append(str(m.idx.dtype))
    res.append(err(lambda: m.to(T.int32)))
    res.append(m.cpu() is m)
    return res


def s_hooks(T):
    nn = T.nn
    T.manual_seed(0)
    lin = nn.Linear(3, 2)
    calls = []

    def pre(mod, inp):
        calls.append(("pre", type(mod).__name__, len(inp)))
        return (inp[0] * 2,)

    def post(mod, inp, out):
        calls.append(("post", render(inp[0])[2]))
        return out + 1

    h1 = lin.register_forward_pre_hook(pre)
    h2 = lin.register_forward_hook(post)
    x = T.ones(1, 3)
    y1 = lin(x)
    h1.remove()
    h2.remove()
    y2 = lin(x)
    res = [calls, render(y1 - y2 * 0)[1], render(lin(2 * x) + 1) == render(y1)]

    grads = []

    def bwd(mod, gin, gout):
        grads.append([render(g) if g is not None else None for g in gin + gout])
        return (gin[0] * 10,)

    lin.register_full_backward_hook(bwd)
    x = T.ones(1, 3, requires_grad=True)
    lin(x).sum().backward()
    res.append(grads)
    res.append(render(x.grad))
    res.append(err(lambda: lin.register_backward_hook(bwd)))

    # no input requires grad: grad_input is (None,)
    grads.clear()
    lin2 = nn.Linear(3, 2)
    lin2.register_full_backward_hook(
        lambda m, gi, go: grads.append([gi[0], render(go)]))
    lin2(T.ones(1, 3)).sum().backward()
    res.append(grads)

    # global hooks run before the module's own
    seen = []
    g = nn.modules.module.register_module_forward_hook(
        lambda m, i, o: seen.append(type(m).__name__))
    nn.Sequential(nn.ReLU(), nn.Tanh())(T.ones(1))
    g.remove()
    nn.ReLU()(T.ones(1))
    res.append(seen)
    with lin.register_forward_hook(lambda m, i, o: seen.append("ctx")):
        lin(T.ones(1, 3))
    lin(T.ones(1, 3))
    res.append(seen[-1])
    return res


def s_repr(T):
    nn = T.nn

    class Multi(nn.Module):
        def extra_repr(self):
            return "first line\nsecond line"

    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(OrderedDict([("conv", Multi()),
                                                    ("act", nn.ReLU())]))
            self.lst = nn.ModuleList([nn.Identity(), nn.Sequential(nn.Linear(1, 1))])
            self.dct = nn.ModuleDict({"b": nn.ReLU6(),
                                      "a": nn.ELU(alpha=0.5, inplace=True)})
            self.empty = nn.Sequential()

        def extra_repr(self):
            return "one=1"

    return [repr(Wrap()), repr(Multi()), repr(nn.Module()),
            str(nn.Linear(4, 5, bias=False))]


def s_sequential(T):
    nn = T.nn
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    res = [len(s), type(s[0]).__name__, type(s[-1]).__name__, repr(s[1:]),
           [type(m).__name__ for m in s], err(lambda: s[3]), err(lambda: s[-4])]
    s.append(nn.Sigmoid())
    s.insert(1, nn.Tanh())
    res.append([type(m).__name__ for m in s])
    s.extend([nn.Identity()])
    del s[0]
    res.append(list(s._modules))
    s[0] = nn.ReLU6()
    res.append(repr(s))
    res.append(type(s.pop(1)).__name__)
    res.append(err(lambda: s.insert(10, nn.ReLU())))
    res.append(err(lambda: s.insert(0, 3)))
    res.append(repr(s + nn.Sequential(nn.ReLU())))
    res.append(err(lambda: s + 3))
    res.append(len(s * 2))
    res.append(err(lambda: s * 0))
    od = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    res.append([list(od._modules), repr(od[1:])])
    res.append("0" in dir(s))
    x = T.tensor([[-1.0, 2.0]])
    res.append(render(nn.Sequential(nn.ReLU(), nn.Identity())(x)))
    return res


def s_module_list_dict(T):
    nn = T.nn
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml.append(nn.Sigmoid())
    ml.extend([nn.Identity()])
    ml.insert(0, nn.ELU())
    res = [len(ml), [type(m).__name__ for m in ml], repr(ml[1:3]), err(lambda: ml[9]),
           err(lambda: ml.extend(3))]
    del ml[1]
    res.append(list(ml._modules))
    ml += [nn.ReLU()]
    res.append(len(ml + ml))
    res.append(type(ml.pop(0)).__name__)
    md = nn.ModuleDict({"z": nn.ReLU(), "a": nn.Tanh()})
    md["m"] = nn.Sigmoid()
    md.update([("q", nn.Identity())])
    res.append([list(md.keys()), "a" in md, len(md), type(md.pop("z")).__name__])
    res.append(err(lambda: md.update(3)))
    res.append(err(lambda: md.update([3])))
    res.append(err(lambda: md.update([("a", 1, 2)])))
    res.append(repr(md))
    md.clear()
    res.append(len(md))
    return res


def s_parameter_containers(T):
    nn = T.nn
    pl = nn.ParameterList([nn.Parameter(T.ones(2)), T.zeros(3, dtype=T.float64)])
    pl.append(nn.Parameter(T.ones(1, 2)))
    res = [len(pl), [type(p).__name__ for p in pl],
           [n for n, _ in pl.named_parameters()],
           repr(pl), len(pl[0:2]), err(lambda: pl[5]), err(lambda: pl())]
    res.append(err(lambda: pl.extend(T.ones(2))))
    pd = nn.ParameterDict({"b": nn.Parameter(T.ones(1)), "a": T.zeros(2)})
    pd["c"] = T.ones(3)
    res.append([list(pd.keys()), [n for n, _ in pd.named_parameters()], len(pd),
                "a" in pd, type(pd["a"]).__name__])
    res.append(repr(pd))
    res.append(list(pd.pop("b").shape))
    res.append(list(pd.copy().keys()))
    k, _ = pd.popitem()
    res.append([k, list(pd.keys())])
    res.append(pd.get("zz", 7))
    res.append(err(lambda: pd[1]))
    res.append(list((pd | nn.ParameterDict({"n": T.ones(1)})).keys()))
    res.append(list(pd.state_dict().keys()))
    return res


def s_parameter(T):
    nn = T.nn
    p = nn.Parameter(T.tensor([1.0, 2.0]))
    q = nn.Parameter(T.ones(1), requires_grad=False)
    d = copy.deepcopy(p)
    res = [repr(p), repr(q), type(d).__name__, d.requires_grad, d is p,
           render(d), repr(nn.Parameter()), p.is_leaf, isinstance(p, T.Tensor),
           str(type(p)).replace("ctorch", "torch")]
    t = T.ones(2, requires_grad=True) * 2
    res.append([nn.Parameter(t).is_leaf, nn.Parameter(t).grad_fn is None])
    return res


def s_deepcopy_module(T):
    T.manual_seed(0)
    m = _net(T)
    c = copy.deepcopy(m)
    res = [repr(c) == repr(m), c.first.lin.weight is m.first.lin.weight,
           render(c.first.lin.weight) == render(m.first.lin.weight),
           c.first is c.shared, type(c.scale).__name__]
    return res


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


def test_pickle_module_roundtrip():
    # pickling needs tensor pickling (serialization); skip until it exists
    m = ctorch.nn.Linear(2, 2)
    try:
        data = pickle.dumps(m)
    except Exception:  # noqa: BLE001
        pytest.skip("tensors do not pickle yet")
    c = pickle.loads(data)
    assert repr(c) == repr(m)
    assert c.weight.tolist() == m.weight.tolist()
    assert type(c.weight).__name__ == "Parameter"


def test_parameter_reduce():
    p = ctorch.nn.Parameter(ctorch.ones(2), requires_grad=False)
    fn, args = p.__reduce_ex__(2)
    q = fn(*args)
    assert type(q) is ctorch.nn.Parameter and not q.requires_grad
    assert q.tolist() == [1.0, 1.0]


# Recorded from PyTorch 1.13 (see the module docstring).
EXPECTED = {
    'conversion': [True, 'torch.float64', True, 'torch.float64', 'torch.float64',
                'Parameter', 'torch.float32', 'torch.float64', 'torch.float32',
                'torch.float64', 'torch.float16', 'torch.float32', 'torch.int64',
                ['TypeError',
                 'nn.Module.to only accepts floating point or complex dtypes, but got '
                 'desired dtype=torch.int32'],
                True],
 'deepcopy_module': [True, False, True, True, 'Parameter'],
 'hooks': [[['pre', 'Linear', 1], ['post', [1, 3]]], 'torch.float32', True,
           [[None, [['T', 'torch.float32', [1, 2], [[1.0, 1.0]]]]]],
           ['T', 'torch.float32', [1, 3], [[-4.29217, 0.87347, -3.20365]]],
           ['RuntimeError',
            'Cannot use both regular backward hooks and full backward hooks on a '
            'single Module. Please use only one of them.'],
           [[None, [['T', 'torch.float32', [1, 2], [[1.0, 1.0]]]]]],
           ['ReLU', 'Tanh', 'Sequential', 'ctx'], 'ctx'],
 'modes_and_grads': [True, True, [False, False, False], [True, True],
                     ['ValueError', 'training mode is expected to be boolean'],
                     [True, True, True, True, True],
                     [['T', 'torch.float32', [1], [0.0]],
                      ['T', 'torch.float32', [2, 3],
                       [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]],
                     [True, True, True, True, True],
                     [False, False, False, False, False],
                     ['Linear', 'Block', 'ReLU', 'Linear', 'Tanh', 'Sequential',
                      'Net']],
 'module_list_dict': [5, ['ELU', 'ReLU', 'Tanh', 'Sigmoid', 'Identity'],
                      'ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n)',
                      ['IndexError', 'index 9 is out of range'],
                      ['TypeError',
                       'ModuleList.extend should be called with an iterable, but got '
                       'int'],
                      ['0', '1', '2', '3'], 10, 'ELU',
                      [['z', 'a', 'm', 'q'], True, 4, 'ReLU'],
                      ['TypeError',
                       'ModuleDict.update should be called with an iterable of '
                       'key/value pairs, but got int'],
                      ['TypeError',
                       'ModuleDict update sequence element #0 should be Iterable; '
                       'isint'],
                      ['ValueError',
                       'ModuleDict update sequence element #0 has length 3; 2 is '
                       'required'],
                      'ModuleDict(\n'
                      '  (a): Tanh()\n'
                      '  (m): Sigmoid()\n'
                      '  (q): Identity()\n'
                      ')',
                      0],
 'parameter': ['Parameter containing:\ntensor([1., 2.], requires_grad=True)',
               'Parameter containing:\ntensor([1.])', 'Parameter', True, False,
               ['T', 'torch.float32', [2], [1.0, 2.0]],
               'Parameter containing:\ntensor([], requires_grad=True)', True, True,
               "<class 'torch.nn.parameter.Parameter'>", [True, True]],
 'parameter_containers': [3, ['Parameter', 'Parameter', 'Parameter'], ['0', '1', '2'],
                          'ParameterList(\n'
                          '    (0): Parameter containing: [torch.float32 of size 2]\n'
                          '    (1): Parameter containing: [torch.float64 of size 3]\n'
                          '    (2): Parameter containing: [torch.float32 of size 1x2]\n'
                          ')',
                          2, ['IndexError', 'index 5 is out of range'],
                          ['RuntimeError', 'ParameterList should not be called.'],
                          ['TypeError',
                           'ParameterList.extend should be called with an iterable, '
                           'but got Tensor'],
                          [['a', 'b', 'c'], ['a', 'b', 'c'], 3, True, 'Parameter'],
                          'ParameterDict(\n'
                          '    (a): Parameter containing: [torch.FloatTensor of size '
                          '2]\n'
                          '    (b): Parameter containing: [torch.FloatTensor of size '
                          '1]\n'
                          '    (c): Parameter containing: [torch.FloatTensor of size '
                          '3]\n'
                          ')',
                          [1], ['a', 'c'], ['c', ['a']], 7,
                          ['TypeError',
                           'Index given to ParameterDict cannot be used as a key as it '
                           "is not a string (type is 'int'). Open an issue on github "
                           'if you need non-string keys.'],
                          ['a', 'n'], ['a']],
 'repr': ['Wrap(\n'
          '  one=1\n'
          '  (inner): Sequential(\n'
          '    (conv): Multi(\n'
          '      first line\n'
          '      second line\n'
          '    )\n'
          '    (act): ReLU()\n'
          '  )\n'
          '  (lst): ModuleList(\n'
          '    (0): Identity()\n'
          '    (1): Sequential(\n'
          '      (0): Linear(in_features=1, out_features=1, bias=True)\n'
          '    )\n'
          '  )\n'
          '  (dct): ModuleDict(\n'
          '    (b): ReLU6()\n'
          '    (a): ELU(alpha=0.5, inplace=True)\n'
          '  )\n'
          '  (empty): Sequential()\n'
          ')',
          'Multi(\n  first line\n  second line\n)', 'Module()',
          'Linear(in_features=4, out_features=5, bias=False)'],
 'sequential': [3, 'Linear', 'Linear',
                'Sequential(\n'
                '  (1): ReLU()\n'
                '  (2): Linear(in_features=3, out_features=1, bias=True)\n'
                ')',
                ['Linear', 'ReLU', 'Linear'], ['IndexError', 'index 3 is out of range'],
                ['IndexError', 'index -4 is out of range'],
                ['Linear', 'Tanh', 'ReLU', 'Linear', 'Sigmoid'],
                ['0', '1', '2', '3', '4'],
                'Sequential(\n'
                '  (0): ReLU6()\n'
                '  (1): ReLU()\n'
                '  (2): Linear(in_features=3, out_features=1, bias=True)\n'
                '  (3): Sigmoid()\n'
                '  (4): Identity()\n'
                ')',
                'ReLU', ['IndexError', 'Index out of range: 10'],
                ['AssertionError',
                 "module should be of type: <class 'torch.nn.modules.module.Module'>"],
                'Sequential(\n'
                '  (0): ReLU6()\n'
                '  (1): Linear(in_features=3, out_features=1, bias=True)\n'
                '  (2): Sigmoid()\n'
                '  (3): Identity()\n'
                '  (4): ReLU()\n'
                ')',
                ['ValueError',
                 'add operator supports only objects of Sequential class, but <class '
                 "'int'> is given."],
                8,
                ['ValueError',
                 'Non-positive multiplication factor 0 for <class '
                 "'torch.nn.modules.container.Sequential'>"],
                [['a', 'b'], 'Sequential(\n  (b): Tanh()\n)'], False,
                ['T', 'torch.float32', [1, 2], [[0.0, 2.0]]]],
 'setattr': [['TypeError',
              "cannot assign 'torch.FloatTensor' as parameter 'w' (torch.nn.Parameter "
              'or None expected)'],
             [['w', None]],
             ['TypeError',
              "cannot assign 'int' as child module 'sub' (torch.nn.Module or None "
              'expected)'],
             [['sub', None]],
             ['TypeError',
              "cannot assign 'int' as buffer 'b' (torch.Tensor or None expected)"],
             ['T', 'torch.float32', [1], [1.0]], [[], ['w', 'b']], 3,
             [[], ['w'], False],
             [['KeyError', '\'buffer name can\\\'t contain "."\''],
              ['KeyError', '\'buffer name can\\\'t be empty string ""\''],
              ['TypeError', 'buffer name should be a string. Got int'],
              ['KeyError', '"attribute \'training\' already exists"'],
              ['TypeError',
               "cannot assign 'list' object to buffer 'x' (torch Tensor or None "
               'required)'],
              ['KeyError', '\'parameter name can\\\'t contain "."\''],
              ['KeyError', '\'parameter name can\\\'t be empty string ""\''],
              ['TypeError',
               "cannot assign 'torch.FloatTensor' object to parameter 'x' "
               '(torch.nn.Parameter or None required)'],
              ['TypeError', 'int is not a Module subclass'],
              ['TypeError', 'module name should be a string. Got int'],
              ['KeyError', '\'module name can\\\'t contain ".", got: a.b\''],
              ['KeyError', '\'module name can\\\'t be empty string ""\''],
              ['KeyError', '"attribute \'training\' already exists"']],
             [['AttributeError',
               'cannot assign parameters before Module.__init__() call'],
              ['AttributeError', 'cannot assign module before Module.__init__() call'],
              ['AttributeError', 'cannot assign buffer before Module.__init__() call'],
              ['AttributeError',
               'cannot assign parameter before Module.__init__() call']],
             ['sub', 'extra']],
 'state_dict_load': [[[], []], True,
                     ['RuntimeError',
                      'Error(s) in loading state_dict for Net:\n'
                      '\tMissing key(s) in state_dict: "head.0.bias". \n'
                      '\tUnexpected key(s) in state_dict: "extra.key". '],
                     ["_IncompatibleKeys(missing_keys=['head.0.bias'], "
                      "unexpected_keys=['extra.key'])",
                      ['head.0.bias'], ['extra.key']],
                     ['RuntimeError',
                      'Error(s) in loading state_dict for Net:\n'
                      '\tsize mismatch for scale: copying a param with shape '
                      'torch.Size([2]) from checkpoint, the shape in current model is '
                      'torch.Size([1]).\n'
                      '\tsize mismatch for first.lin.weight: copying a param with '
                      'shape torch.Size([4, 3]) from checkpoint, the shape in current '
                      'model is torch.Size([2, 3]).'],
                     ['RuntimeError',
                      'Error(s) in loading state_dict for Net:\n'
                      '\tWhile copying the parameter named "scale", expected '
                      'torch.Tensor or Tensor-like object from checkpoint but received '
                      "<class 'str'>"],
                     ['TypeError',
                      "Expected state_dict to be dict-like, got <class 'list'>."],
                     ['T', 'torch.float32', [], 5.0], '<All keys matched successfully>',
                     [[[], ['junk']]], [['pre.weight', 'pre.bias'], 1]],
 'traversal': [['params',
                ['scale', 'first.lin.weight', 'first.lin.bias', 'head.0.weight',
                 'head.0.bias']],
               ['params_prefix',
                ['net.scale', 'net.first.lin.weight', 'net.first.lin.bias',
                 'net.head.0.weight', 'net.head.0.bias']],
               ['params_norec', ['scale']],
               ['buffers', ['first.count', 'first.scratch']],
               ['children', ['first', 'act', 'head']],
               ['modules',
                ['', 'first', 'first.lin', 'act', 'head', 'head.0', 'head.1']],
               ['modules_dup',
                ['', 'first', 'first.lin', 'act', 'shared', 'shared.lin', 'head',
                 'head.0', 'head.1']],
               ['n_params', 5],
               ['state_dict',
                ['scale', 'first.count', 'first.lin.weight', 'first.lin.bias',
                 'shared.count', 'shared.lin.weight', 'shared.lin.bias',
                 'head.0.weight', 'head.0.bias']],
               ['metadata',
                [['', [['version', 1]]], ['first', [['version', 1]]],
                 ['first.lin', [['version', 1]]], ['act', [['version', 1]]],
                 ['shared', [['version', 1]]], ['shared.lin', [['version', 1]]],
                 ['head', [['version', 1]]], ['head.0', [['version', 1]]],
                 ['head.1', [['version', 1]]]]],
               ['type', 'OrderedDict'],
               ['detached',
                [False, False, False, False, False, False, False, False, False]],
               ['keep_vars', [True, False, True, True, False, True, True, True, True]],
               ['prefix',
                ['p.scale', 'p.first.count', 'p.first.lin.weight', 'p.first.lin.bias',
                 'p.shared.count', 'p.shared.lin.weight', 'p.shared.lin.bias',
                 'p.head.0.weight', 'p.head.0.bias']],
               ['repr',
                'Net(\n'
                '  (first): Block(\n'
                '    (lin): Linear(in_features=3, out_features=2, bias=True)\n'
                '  )\n'
                '  (act): ReLU()\n'
                '  (shared): Block(\n'
                '    (lin): Linear(in_features=3, out_features=2, bias=True)\n'
                '  )\n'
                '  (head): Sequential(\n'
                '    (0): Linear(in_features=2, out_features=2, bias=True)\n'
                '    (1): Tanh()\n'
                '  )\n'
                ')'],
               ['getattr',
                ['AttributeError', "'Net' object has no attribute 'nothing'"]],
               ['dir', ['first', 'head', 'scale']],
               ['submodule', 'Linear(in_features=2, out_features=2, bias=True)'],
               ['get_parameter', ['T', 'torch.float32', [1], [2.0]]],
               ['get_buffer', ['T', 'torch.float32', [1], [0.0]]],
               ['errs',
                [['AttributeError', 'Sequential has no attribute `9`'],
                 ['AttributeError', '`scale` is not an nn.Module'],
                 ['AttributeError', '`count` is not an nn.Parameter'],
                 ['AttributeError', '`lin` is not a buffer'],
                 ['AttributeError', 'Block has no attribute `nope`']]]]}

if __name__ == "__main__":
    import pprint
    import torch
    out = {n: run(torch, n) for n in SCENARIOS}
    print("EXPECTED = " + pprint.pformat(out, width=88, compact=True))


def test_no_leaks_training_loop():
    # a leaf whose gradient was accumulated into (two backwards) frees it
    # with itself; modules, hooks and the activations' nodes leave nothing
    import gc
    F = ctorch.nn.functional

    def work():
        x = ctorch.randn(5, 6, requires_grad=True)
        for _ in range(2):
            F.leaky_relu(x * 1, 0.1, True).sum().backward()
        m = ctorch.nn.Sequential(ctorch.nn.Linear(6, 4), ctorch.nn.ELU())
        m.register_full_backward_hook(lambda *a: None)
        for _ in range(2):
            m(x).sum().backward()
        y = F.gelu(x, approximate="tanh")
        (g,) = ctorch.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()

    work()
    gc.collect()
    live = ctorch._C._live_counts()
    for _ in range(3):
        work()
    gc.collect()
    assert ctorch._C._live_counts() == live


def test_module_cuda_without_gpu():
    """Module.cuda() where no GPU is: what PyTorch's build of the same kind
    raises (helpers.NO_CUDA)."""
    from helpers import NO_CUDA, error_of, no_gpu_here
    no_gpu_here()
    assert error_of(lambda: ctorch.nn.Linear(2, 2).cuda()) == NO_CUDA
    assert error_of(lambda: ctorch.nn.Linear(2, 2).to("cuda:0")) == NO_CUDA
