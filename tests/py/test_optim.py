"""ctorch.optim and ctorch.optim.lr_scheduler: trajectories recorded from
PyTorch 1.13 (data/optim_expected.py, bit for bit), the Optimizer API
(param groups, zero_grad, state_dict packing, errors and warnings), the
schedulers' warnings and state, and, where torch is installed, the same
runs side by side with torch."""
import functools
import importlib.util
import math
import os
import pickle
import struct
import sys
import warnings

import pytest

import ctorch
from ctorch import optim
from ctorch.optim import lr_scheduler

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "data"))
import optim_cases as oc  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "_optim_expected", os.path.join(HERE, "data", "optim_expected.py"))
_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_data)

OPT_IDS = ["%d-%s-%s" % (i, n, "-".join("%s=%s" % kv for kv in sorted(kw.items())))
           for i, (n, kw) in enumerate(oc.OPTIMIZER_CASES)]


# --- recorded trajectories ------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(oc.OPTIMIZER_CASES)), ids=OPT_IDS)
def test_recorded_trajectory(case, dtype):
    """20 steps of every optimizer and option: the parameters and the state
    are PyTorch 1.13's bit for bit."""
    name, kw = oc.OPTIMIZER_CASES[case]
    w, c, state = oc.run_optimizer(ctorch, name, kw, dtype)
    ew, ec, estate = _data.OPTIM[(case, dtype)]
    assert w == ew
    assert c == ec
    assert state == estate


@pytest.mark.parametrize("case", range(len(oc.SCHEDULER_CASES)),
                         ids=[c[0] for c in oc.SCHEDULER_CASES])
def test_recorded_schedule(case):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = oc.run_scheduler(ctorch, *oc.SCHEDULER_CASES[case])
    assert [list(x) if isinstance(x, tuple) else x for x in got] == \
        [list(x) if isinstance(x, tuple) else x for x in _data.SCHED[case]]


@pytest.mark.parametrize("case", range(len(oc.PLATEAU_CASES)))
def test_recorded_plateau(case):
    assert oc.run_plateau(ctorch, *oc.PLATEAU_CASES[case]) == _data.PLATEAU[case]


# --- against torch, end to end through autograd --------------------------------

def _quadratic_run(m, name, kw, steps=25, dtype="float32", closure=False):
    import numpy as np
    rng = np.random.default_rng(3)
    dt = getattr(m, dtype)
    A = m.tensor(rng.standard_normal((6, 4)).tolist(), dtype=dt)
    b = m.tensor(rng.standard_normal(6).tolist(), dtype=dt)
    w = m.tensor(rng.standard_normal(4).tolist(), dtype=dt).requires_grad_()
    c = m.tensor(rng.standard_normal((3, 2)).tolist(), dtype=dt).requires_grad_()
    opt = getattr(m.optim, name)([{"params": [w]}, {"params": [c], "lr": 0.03}], **kw)
    losses = []

    def f():
        opt.zero_grad()
        loss = ((A @ w - b) ** 2).mean() + (c * c * c * c).sum() * 0.1 + (c.t() @ c).sum() * 0.01
        loss.backward()
        return loss

    for _ in range(steps):
        if closure:
            losses.append(opt.step(f).item())
        else:
            losses.append(f().item())
            opt.step()
    return losses, w.tolist(), c.tolist()


@pytest.mark.parametrize("case", range(len(oc.OPTIMIZER_CASES)), ids=OPT_IDS)
def test_against_torch(torch_ref, case):
    name, kw = oc.OPTIMIZER_CASES[case]
    for dtype in ("float32", "float64"):
        got = _quadratic_run(ctorch, name, kw, dtype=dtype)
        want = _quadratic_run(torch_ref, name, kw, dtype=dtype)
        assert got[0] == pytest.approx(want[0], rel=1e-5, abs=1e-7)
        assert sum(got[2], []) == pytest.approx(sum(want[2], []), rel=1e-5, abs=1e-7)
        assert got[1] == pytest.approx(want[1], rel=1e-5, abs=1e-7)


def test_closure_against_torch(torch_ref):
    got = _quadratic_run(ctorch, "Adam", dict(lr=0.05), closure=True)
    want = _quadratic_run(torch_ref, "Adam", dict(lr=0.05), closure=True)
    assert got[1] == pytest.approx(want[1], rel=1e-5)
    assert got[0] == pytest.approx(want[0], rel=1e-5)


def test_differentiable_against_torch(torch_ref):
    """differentiable=True: the step is recorded by autograd (on non-leaf
    parameters, as torch requires)."""
    out = []
    for m in (ctorch, torch_ref):
        for name, kw in [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1)),
                         ("Adam", dict(lr=0.1, amsgrad=True)), ("RMSprop", dict(lr=0.1))]:
            x = m.tensor([1.0, -2.0, 0.5], requires_grad=True)
            p = x * 1.0
            p.retain_grad()
            opt = getattr(m.optim, name)([p], differentiable=True, **kw)
            for _ in range(2):
                (p * p * p).sum().backward(retain_graph=True)
                opt.step()
            p.sum().backward()
            out.append((p.tolist(), x.grad.tolist(), type(p.grad_fn).__name__))
    half = len(out) // 2
    for c, t in zip(out[:half], out[half:]):
        assert c[0] == pytest.approx(t[0], rel=1e-6)
        assert c[1] == pytest.approx(t[1], rel=1e-5)


# --- the Optimizer API -----------------------------------------------------------

def P(*v):
    return ctorch.tensor(list(v), requires_grad=True)


def test_param_groups_and_defaults():
    a, b = P(1.0), P(2.0)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert opt.defaults == dict(lr=0.1, momentum=0, dampening=0, weight_decay=0,
                                nesterov=False, maximize=False, foreach=None,
                                differentiable=False)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["params"] == [a]
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["momentum"] == 0.9
    assert opt.param_groups[1]["params"][0] is b
    c = P(3.0)
    opt.add_param_group({"params": (c,), "dampening": 0.1})
    assert opt.param_groups[2]["params"] == [c] and opt.param_groups[2]["dampening"] == 0.1
    assert isinstance(opt.state, dict) and opt.state[a] == {}


def test_repr_against_torch(torch_ref):
    for m in (ctorch, torch_ref):
        a = m.zeros(2, requires_grad=True)
        b = m.zeros(2, requires_grad=True)
        r = [repr(m.optim.SGD([{"params": [a]}, {"params": [b], "lr": 1}], lr=0.1, momentum=0.9)),
             repr(m.optim.Adam([a], amsgrad=True)), repr(m.optim.AdamW([a])),
             repr(m.optim.RMSprop([a], centered=True)), repr(m.optim.Adagrad([a]))]
        if m is ctorch:
            mine = r
    assert mine == r


def test_repr_recorded():
    a = ctorch.zeros(2, requires_grad=True)
    assert repr(optim.SGD([a], lr=0.1)) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n"
        "    foreach: None\n    lr: 0.1\n    maximize: False\n    momentum: 0\n"
        "    nesterov: False\n    weight_decay: 0\n)")


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def _api_errors(m):
    a = m.zeros(2, requires_grad=True)
    nonleaf = a * 2
    return [
        err(lambda: m.optim.SGD(a, lr=0.1)),
        err(lambda: m.optim.SGD([], lr=0.1)),
        err(lambda: m.optim.SGD([a], lr=0.1).add_param_group({"params": {m.zeros(1)}})),
        err(lambda: m.optim.SGD([a, 3], lr=0.1)),
        err(lambda: m.optim.SGD([nonleaf], lr=0.1)),
        err(lambda: m.optim.SGD([a])),
        err(lambda: m.optim.SGD([a], lr=-1)),
        err(lambda: m.optim.SGD([a], lr=0.1, momentum=-1)),
        err(lambda: m.optim.SGD([a], lr=0.1, weight_decay=-1)),
        err(lambda: m.optim.SGD([a], lr=0.1, nesterov=True)),
        err(lambda: m.optim.SGD([a], lr=0.1, nesterov=True, momentum=0.9, dampening=0.1)),
        err(lambda: m.optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1)),
        err(lambda: m.optim.SGD([{"params": [a]}, {"params": [m.zeros(1)]}])),
        err(lambda: m.optim.SGD([a], lr=0.1).add_param_group([a])),
        err(lambda: m.optim.Adam([a], lr=-0.1)),
        err(lambda: m.optim.Adam([a], eps=-1)),
        err(lambda: m.optim.Adam([a], betas=(1.0, 0.9))),
        err(lambda: m.optim.Adam([a], betas=(0.9, -0.1))),
        err(lambda: m.optim.Adam([a], weight_decay=-1)),
        err(lambda: m.optim.Adam([a], fused=True)),
        err(lambda: m.optim.AdamW([a], betas=(0.5, 1.5))),
        err(lambda: m.optim.RMSprop([a], alpha=-1)),
        err(lambda: m.optim.RMSprop([a], momentum=-1)),
        err(lambda: m.optim.Adagrad([a], lr_decay=-1)),
        err(lambda: m.optim.Adagrad([a], initial_accumulator_value=-1)),
        err(lambda: m.optim.Adagrad([a], eps=-1)),
    ]


def test_api_errors_recorded():
    e = _api_errors(ctorch)
    assert e[0] == ("TypeError", "params argument given to the optimizer should be an "
                    "iterable of Tensors or dicts, but got torch.FloatTensor")
    assert e[1] == ("ValueError", "optimizer got an empty parameter list")
    assert e[2] == ("TypeError", "optimizer parameters need to be organized in ordered "
                    "collections, but the ordering of tensors in sets will change between "
                    "runs. Please use a list instead.")
    assert e[3] == ("TypeError", "optimizer can only optimize Tensors, but one of the "
                    "params is int")
    assert e[4] == ("ValueError", "can't optimize a non-leaf Tensor")
    assert e[5] == ("ValueError", "parameter group didn't specify a value of required "
                    "optimization parameter lr")
    assert e[6] == ("ValueError", "Invalid learning rate: -1")
    assert e[9] == ("ValueError", "Nesterov momentum requires a momentum and zero dampening")
    assert e[11] == ("ValueError", "some parameters appear in more than one parameter group")
    assert e[13] == ("AssertionError", "param group must be a dict")
    assert e[16] == ("ValueError", "Invalid beta parameter at index 0: 1.0")
    assert e[19] == ("RuntimeError", "FusedAdam requires all the params to be CUDA, "
                     "floating point")


def test_api_errors_against_torch(torch_ref):
    assert _api_errors(ctorch) == _api_errors(torch_ref)


def test_duplicate_parameter_warning():
    a = P(1.0)
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with "
                      "duplicate parameters; in future, this will cause an error"):
        optim.SGD([a, a], lr=0.1)


def test_zero_grad():
    a, b = P(1.0, 2.0), P(3.0)
    opt = optim.SGD([a, b], lr=0.1)
    (a.sum() * 2 + b.sum()).backward()
    g = a.grad
    opt.zero_grad()                       # 1.13's default: set_to_none=False
    assert a.grad is g and a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0]
    opt.zero_grad(set_to_none=True)
    assert a.grad is None and b.grad is None
    opt.zero_grad()                       # no grads: nothing happens
    assert a.grad is None
    # a grad with history is detached first
    a.grad = (P(1.0, 1.0) * 2)
    opt.zero_grad()
    assert a.grad.grad_fn is None and not a.grad.requires_grad


def test_step_skips_params_without_grad():
    a, b = P(1.0), P(2.0)
    for cls in (optim.SGD, optim.Adam, optim.AdamW, optim.RMSprop, optim.Adagrad):
        opt = cls([a, b], lr=0.1)
        a.grad = ctorch.ones(1)
        b.grad = None
        opt.step()
        assert b.tolist() == [2.0]
        assert (b in opt.state) == (cls is optim.Adagrad)   # Adagrad fills state eagerly
        a.grad = None


def test_step_closure():
    a = P(1.0, 2.0)
    opt = optim.SGD([a], lr=0.5)
    calls = []

    def closure():
        calls.append(ctorch.is_grad_enabled())
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    with ctorch.no_grad():
        loss = opt.step(closure)
    assert calls == [True] and loss.item() == 5.0
    assert a.tolist() == [0.0, 0.0]


def test_step_runs_without_grad():
    a = P(1.0)
    opt = optim.Adam([a], lr=0.1)
    a.grad = ctorch.ones(1)
    opt.step()
    assert a.grad_fn is None and a.requires_grad and a.is_leaf
    assert ctorch.is_grad_enabled()


def test_sgd_state_keeps_none_momentum_buffer():
    a = P(1.0)
    opt = optim.SGD([a], lr=0.1)
    a.grad = ctorch.ones(1)
    opt.step()
    assert opt.state[a] == {"momentum_buffer": None}


def test_adam_state_layout():
    a = P(1.0, 2.0)
    opt = optim.Adam([a], lr=0.1, amsgrad=True)
    a.grad = ctorch.ones(2)
    opt.step()
    st = opt.state[a]
    assert list(st) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert st["step"].dtype == ctorch.float32 and st["step"].dim() == 0
    assert st["step"].item() == 1.0
    # a non-contiguous parameter gets state of the same layout
    m = ctorch.zeros(3, 2).t().detach().requires_grad_()
    opt = optim.Adam([m])
    m.grad = ctorch.ones(2, 3)
    opt.step()
    assert opt.state[m]["exp_avg"].stride() == m.stride()


# --- state_dict / load_state_dict -------------------------------------------------

def _two_group_sgd():
    a, b, c = P(1.0, 2.0), P(3.0), P(-1.0)
    opt = optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.01}], lr=0.1, momentum=0.9)
    return opt, (a, b, c)


def _grads(params):
    for i, p in enumerate(params):
        p.grad = ctorch.full(p.shape, 0.5 + i)


def test_state_dict_packed_format():
    opt, ps = _two_group_sgd()
    _grads(ps)
    opt.step()
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.01
    assert sorted(sd["state"]) == [0, 1, 2]
    assert sd["state"][0]["momentum_buffer"].tolist() == [0.5, 0.5]
    # the live state is shared, not copied (as torch does)
    assert sd["state"][0]["momentum_buffer"] is opt.state[ps[0]]["momentum_buffer"]


def test_load_state_dict_continues_the_trajectory():
    ref, ps = _two_group_sgd()
    for _ in range(3):
        _grads(ps)
        ref.step()
    sd = ref.state_dict()
    opt2, ps2 = _two_group_sgd()
    for p, q in zip(ps, ps2):
        with ctorch.no_grad():
            q.copy_(p)
    opt2.load_state_dict(sd)
    # deep-copied: stepping one does not move the other's buffers
    assert opt2.state[ps2[0]]["momentum_buffer"] is not ref.state[ps[0]]["momentum_buffer"]
    assert opt2.param_groups[1]["lr"] == 0.01
    assert opt2.param_groups[0]["params"][0] is ps2[0]
    for _ in range(2):
        _grads(ps)
        ref.step()
        _grads(ps2)
        opt2.step()
    assert [p.tolist() for p in ps] == [p.tolist() for p in ps2]


def test_load_state_dict_casts_floating_state_but_not_step():
    a = ctorch.zeros(2, dtype=ctorch.float64, requires_grad=True)
    opt = optim.Adam([a])
    sd = {"state": {0: {"step": ctorch.tensor(3.0),
                        "exp_avg": ctorch.ones(2),
                        "exp_avg_sq": ctorch.ones(2, dtype=ctorch.float16)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    st = opt.state[a]
    assert st["step"].dtype == ctorch.float32
    assert st["exp_avg"].dtype == ctorch.float64 and st["exp_avg_sq"].dtype == ctorch.float64


def test_load_state_dict_old_int_step():
    a = P(1.0)
    opt = optim.Adam([a])
    sd = opt.state_dict()
    sd["state"] = {0: {"step": 4, "exp_avg": ctorch.zeros(1), "exp_avg_sq": ctorch.zeros(1)}}
    opt.load_state_dict(sd)
    assert isinstance(opt.state[a]["step"], ctorch.Tensor) and opt.state[a]["step"].item() == 4


def test_load_state_dict_errors():
    opt, _ = _two_group_sgd()
    sd = opt.state_dict()
    other = optim.SGD([P(1.0)], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict has a different number of "
                       "parameter groups$"):
        other.load_state_dict(sd)
    other = optim.SGD([{"params": [P(1.0)]}, {"params": [P(1.0)]}], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that "
                       "doesn't match the size of optimizer's group$"):
        other.load_state_dict(sd)


def test_state_dict_from_torch(torch_ref):
    """A torch optimizer's state_dict (moved over tensor by tensor) loads
    into the ctorch optimizer, and both continue alike."""
    def mk(m):
        w = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        return w, m.optim.Adam([w], lr=0.1, amsgrad=True)

    def grad(m, w):
        with m.no_grad():
            w.grad = w * w * w - w

    tw, topt = mk(torch_ref)
    for _ in range(3):
        grad(torch_ref, tw)
        topt.step()
    conv = {}
    for k, v in topt.state_dict()["state"][0].items():
        conv[k] = ctorch.tensor(v.tolist())
    sd = {"state": {0: conv}, "param_groups": topt.state_dict()["param_groups"]}
    cw, copt = mk(ctorch)
    with ctorch.no_grad():
        cw.copy_(ctorch.tensor(tw.tolist()))
    copt.load_state_dict(sd)
    for _ in range(4):
        grad(torch_ref, tw)
        topt.step()
        grad(ctorch, cw)
        copt.step()
    assert cw.tolist() == tw.tolist()


def test_optimizer_pickles():
    a = P(1.0, 2.0)
    opt = optim.RMSprop([a], lr=0.1, momentum=0.5)
    a.grad = ctorch.ones(2)
    opt.step()
    state = opt.__getstate__()
    assert sorted(state) == ["defaults", "param_groups", "state"]
    opt2 = optim.RMSprop.__new__(optim.RMSprop)
    opt2.__setstate__(pickle.loads(pickle.dumps({"defaults": opt.defaults, "state": {},
                                                 "param_groups": []})))
    assert opt2.defaults["differentiable"] is False


# --- lr_scheduler -------------------------------------------------------------------

def _sched_opt(lr=0.1):
    return optim.SGD([P(1.0)], lr=lr, momentum=0.9)


def test_scheduler_step_before_optimizer_step_warns():
    opt = _sched_opt()
    s = lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before "
                      r"`optimizer.step\(\)`. In PyTorch 1.1.0 and later, you should call them "
                      r"in the opposite order"):
        s.step()
    opt = _sched_opt()
    s = lr_scheduler.StepLR(opt, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()
    assert opt._step_count == 1 and s._step_count == 2


def test_scheduler_overridden_step_warns():
    opt = _sched_opt()
    s = lr_scheduler.ExponentialLR(opt, 0.5)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match=r"Seems like `optimizer.step\(\)` has been "
                      r"overridden after learning rate scheduler initialization"):
        s.step()


def test_get_lr_outside_step_warns():
    opt = _sched_opt()
    s = lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"To get the last learning rate computed by the "
                      r"scheduler, please use `get_last_lr\(\)`."):
        s.get_lr()


def test_epoch_argument_deprecated():
    opt = _sched_opt()
    s = lr_scheduler.StepLR(opt, 2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was "
                      "not necessary and is being deprecated"):
        s.step(5)
    assert s.get_last_lr() == [0.1 * 0.5 ** 2]   # the closed form


def test_scheduler_errors():
    opt = _sched_opt()
    with pytest.raises(TypeError, match="^int is not an Optimizer$"):
        lr_scheduler.StepLR(3, 2)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in "
                       r"param_groups\[0\] when resuming an optimizer"):
        lr_scheduler.StepLR(opt, 2, last_epoch=3)
    with pytest.raises(ValueError, match="^Expected 1 lr_lambdas, but got 2$"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1, lambda e: 2])
    with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="^mode foo is unknown!$"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="foo")
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        lr_scheduler.OneCycleLR(opt, 1.0)
    s = lr_scheduler.OneCycleLR(opt, 1.0, total_steps=2)
    for _ in range(2):
        opt.step()
        s.step()
    with pytest.raises(ValueError, match="^Tried to step 4 times. The specified number of "
                       "total steps is 2$"):
        s.step()
    opt2 = optim.Adagrad([P(1.0)])
    with pytest.raises(ValueError, match="optimizer must support momentum with "
                       "`cycle_momentum` option enabled"):
        lr_scheduler.OneCycleLR(opt2, 1.0, total_steps=5)


def test_scheduler_state_dict():
    opt = _sched_opt()
    s = lr_scheduler.MultiStepLR(opt, [2, 4], gamma=0.5)
    for _ in range(3):
        opt.step()
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd
    assert sd["last_epoch"] == 3 and sd["base_lrs"] == [0.1] and sd["_last_lr"] == [0.05]
    opt2 = _sched_opt()
    s2 = lr_scheduler.MultiStepLR(opt2, [7])
    s2.load_state_dict(sd)
    assert s2.last_epoch == 3 and dict(s2.milestones) == {2: 1, 4: 1}
    opt2.param_groups[0]["lr"] = 0.05
    opt2.step()
    s2.step()
    assert s2.get_last_lr() == [0.025]


def test_lambda_scheduler_state_dict():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, e):
            return self.rate ** e

    opt = _sched_opt()
    d = Decay()
    s = lr_scheduler.LambdaLR(opt, d)
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"rate": 0.5}]
    d2 = Decay()
    d2.rate = 0.1
    s2 = lr_scheduler.LambdaLR(_sched_opt(), d2)
    s2.load_state_dict(sd)
    assert d2.rate == 0.5 and "lr_lambdas" in sd
    assert lr_scheduler.LambdaLR(_sched_opt(), lambda e: 1).state_dict()["lr_lambdas"] == [None]


def test_plateau_state_dict_and_verbose(capsys):
    opt = _sched_opt()
    s = lr_scheduler.ReduceLROnPlateau(opt, patience=0, verbose=True)
    s.step(1.0)
    s.step(2.0)
    assert capsys.readouterr().out == "Epoch 00002: reducing learning rate of group 0 to " \
                                      "1.0000e-02.\n"
    sd = s.state_dict()
    assert sd["best"] == 1.0 and sd["num_bad_epochs"] == 0 and "optimizer" not in sd
    s2 = lr_scheduler.ReduceLROnPlateau(_sched_opt(), mode="max")
    s2.load_state_dict(sd)
    assert s2.mode == "min" and s2.mode_worse == math.inf


def test_verbose_print(capsys):
    opt = _sched_opt()
    lr_scheduler.StepLR(opt, 1, verbose=True)
    assert capsys.readouterr().out == "Adjusting learning rate of group 0 to 1.0000e-01.\n"


def test_scheduler_names():
    for n in ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
              "LinearLR", "ExponentialLR", "SequentialLR", "CosineAnnealingLR",
              "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
              "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR"]:
        assert n in lr_scheduler.__all__ and hasattr(lr_scheduler, n)
    assert lr_scheduler.LRScheduler is lr_scheduler._LRScheduler


@pytest.mark.filterwarnings("ignore:The epoch parameter")
def test_sequential_and_chained():
    opt = _sched_opt(1.0)
    s1 = lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    s2 = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    seq = lr_scheduler.SequentialLR(opt, [s1, s2], milestones=[3])
    lrs = [seq.get_last_lr()[0]]
    for _ in range(6):
        opt.step()
        seq.step()
        lrs.append(seq.get_last_lr()[0])
    assert lrs == [0.5, 0.5, 1.0, 1.0, 0.5, 0.25, 0.125]
    opt = _sched_opt(1.0)
    ch = lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2),
                                        lr_scheduler.ExponentialLR(opt, gamma=0.5)])
    lrs = [ch.get_last_lr()[0]]
    for _ in range(4):
        opt.step()
        ch.step()
        lrs.append(ch.get_last_lr()[0])
    assert lrs == [0.5, 0.25, 0.25, 0.125, 0.0625]


def test_schedulers_against_torch(torch_ref):
    for case in oc.SCHEDULER_CASES:
        assert oc.run_scheduler(ctorch, *case) == oc.run_scheduler(torch_ref, *case)
    for case in oc.PLATEAU_CASES:
        assert oc.run_plateau(ctorch, *case) == oc.run_plateau(torch_ref, *case)


def test_warnings_against_torch(torch_ref):
    def collect(m):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            p = m.zeros(1, requires_grad=True)
            opt = m.optim.SGD([p], lr=0.1)
            s = m.optim.lr_scheduler.CosineAnnealingLR(opt, 3)
            s.step()
            s.get_lr()
            s.step(2)
            m.optim.SGD([p, p], lr=0.1)
        return [(x.category.__name__, str(x.message)) for x in w]
    assert collect(ctorch) == collect(torch_ref)


def test_names_under_ctorchrun(tmp_path):
    """Under bin/ctorchrun the classes print with torch's module names."""
    import subprocess
    script = tmp_path / "s.py"
    script.write_text(
        "import torch\n"
        "p = torch.zeros(1, requires_grad=True)\n"
        "o = torch.optim.SGD([p], lr=0.1)\n"
        "s = torch.optim.lr_scheduler.StepLR(o, 2)\n"
        "print(type(o), type(torch.optim.Adam([p])), type(s).__module__)\n"
        "print(isinstance(o, torch.optim.Optimizer), torch.optim.lr_scheduler.StepLR is type(s))\n")
    root = os.path.dirname(os.path.dirname(HERE))
    r = subprocess.run([os.path.join(root, "bin", "ctorchrun"), str(script)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("<class 'torch.optim.sgd.SGD'> <class 'torch.optim.adam.Adam'> "
                        "torch.optim.lr_scheduler\nTrue True\n")
    # plain ctorch keeps its own names
    assert optim.SGD.__module__ == "ctorch.optim.sgd"


@pytest.mark.parametrize("case", range(len(oc.MLP_CASES)), ids=[c[0] for c in oc.MLP_CASES])
def test_recorded_mlp_training(case):
    """A small MLP trained with each optimizer and a scheduler: the loss
    curve is PyTorch 1.13's (to float32 print precision and beyond)."""
    got = oc.run_mlp(ctorch, *oc.MLP_CASES[case])
    assert got == pytest.approx(_data.MLP[case], rel=1e-5)
    assert got[-1] < got[0]


@pytest.mark.parametrize("case", range(len(oc.MLP_CASES)), ids=[c[0] for c in oc.MLP_CASES])
def test_mlp_training_against_torch(torch_ref, case):
    assert oc.run_mlp(ctorch, *oc.MLP_CASES[case]) == \
        pytest.approx(oc.run_mlp(torch_ref, *oc.MLP_CASES[case]), rel=1e-5)


# --- bit for bit on tensors the vector loops and both threads see ------------

@functools.lru_cache(maxsize=None)
def _values(n, seed, scale):
    """n reproducible floats in (-scale, scale) (an LCG; no NumPy needed)."""
    out, x = [], seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        out.append((x / 1073741824.0 - 1.0) * scale)
    return tuple(out)


def _large_run(m, name, kw, dtype, steps=6):
    """Steps of an optimizer case on a 300x257 parameter (vector blocks,
    tails, two threads) and a 37-element one, with fixed gradients; returns
    the parameters' values after each step."""
    dt = getattr(m, dtype)
    shapes = [(300, 257), (37,)]
    ps = [m.tensor(_values(math.prod(s), 1 + i, 2.0), dtype=dt).reshape(s)
          .requires_grad_() for i, s in enumerate(shapes)]
    grads = [[m.tensor(_values(math.prod(s), 100 * k + i, 0.2), dtype=dt).reshape(s)
              for i, s in enumerate(shapes)] for k in range(steps)]
    opt = getattr(m.optim, name)(ps, **kw)
    out = []
    for g in grads:
        for p, gi in zip(ps, g):
            p.grad = gi
        opt.step()
        out.append([p.detach().clone() for p in ps])
    return out


def _digest(run):
    """A digest of the bytes of every parameter after every step."""
    import hashlib
    h = hashlib.sha256()
    for ps in run:
        for p in ps:
            v = p.reshape(-1).tolist()
            fmt = "f" if "float32" in str(p.dtype) else "d"
            h.update(struct.pack("<%d%s" % (len(v), fmt), *v))
    return h.hexdigest()[:16]


# recorded from PyTorch 1.13 (_digest of _large_run), per case and dtype
LARGE_DIGESTS = {
    "0-float32": "0a16b0be864857ee", "0-float64": "a676b8a6b8430b47",
    "1-float32": "c6550c9492ec017b", "1-float64": "02280fe82b7956fa",
    "2-float32": "a7443460bbe786ac", "2-float64": "092672a58c82aee7",
    "3-float32": "e6b84f01369e015d", "3-float64": "c19c75a8b0247dc7",
    "4-float32": "4efcc63087f40b11", "4-float64": "cf60b254f35f2404",
    "5-float32": "f83ae04abec70662", "5-float64": "8e75c129945f85a6",
    "6-float32": "54d46f08fbe2be6a", "6-float64": "b1714c66aa873e22",
    "7-float32": "1a5665bcd2f4c2cc", "7-float64": "36a7b083121169dc",
    "8-float32": "d4dafd33ca89ab5b", "8-float64": "973ecb535bf64038",
    "9-float32": "f2c9323cf27545bd", "9-float64": "6c3a46ac576b968d",
    "10-float32": "3301af4480382588", "10-float64": "73bcfb32f8e3436c",
    "11-float32": "b98c22278cba6a8a", "11-float64": "3e0f671c80cf836a",
    "12-float32": "690ec23d2420bd84", "12-float64": "e285e60f5d1c3271",
    "13-float32": "bf54efd0ed19163f", "13-float64": "40e09f1b80c9cd50",
    "14-float32": "5c8191474cbf4025", "14-float64": "2f90f7d3ad7ff539",
    "15-float32": "5beaacf5bd5e6f72", "15-float64": "f91a876706a38b9c",
    "16-float32": "cea6cb19763d6732", "16-float64": "1bb713d1e7a2288e",
    "17-float32": "3be224ae701d0a74", "17-float64": "3120ee910748eb7b",
    "18-float32": "26537229c451a7a2", "18-float64": "58bb9304e5ad8b28",
    "19-float32": "d7cbd5ecea5423b9", "19-float64": "d0f516589075ad06",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(oc.OPTIMIZER_CASES)), ids=OPT_IDS)
def test_large_bitwise_recorded(case, dtype):
    """Each step's parameters are PyTorch 1.13's, bit for bit: same ops,
    same order, same roundings (fused alpha and addcmul, correctly rounded
    sqrt), on tensors the vector loops and both threads see."""
    name, kw = oc.OPTIMIZER_CASES[case]
    assert _digest(_large_run(ctorch, name, kw, dtype)) == \
        LARGE_DIGESTS["%d-%s" % (case, dtype)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(oc.OPTIMIZER_CASES)), ids=OPT_IDS)
def test_large_bitwise_against_torch(torch_ref, case, dtype):
    name, kw = oc.OPTIMIZER_CASES[case]
    got = _large_run(ctorch, name, kw, dtype)
    want = _large_run(torch_ref, name, kw, dtype)
    for gs, ws in zip(got, want):
        for g, w in zip(gs, ws):
            assert g.tolist() == w.tolist()
