"""Optimizer and scheduler scenarios shared by gen_optim_expected.py (run
with real PyTorch) and test_optim.py (run with ctorch): each function takes
the module `m` (torch or ctorch) and returns plain Python values.

The optimizer problem sets gradients by hand from elementwise products,
sums and differences only, so that the recorded trajectories test the
optimizers' arithmetic and nothing else (no reductions, no BLAS)."""

# (optimizer class name, constructor keywords); lr is always given
OPTIMIZER_CASES = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.002, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.05, maximize=True)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("AdamW", dict(lr=0.05, betas=(0.5, 0.9), maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, maximize=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.2, eps=1e-6, maximize=True)),
]

STEPS = 20

W0 = [0.5, -1.25, 2.0, 0.1, -0.7]
T = [1.0, 0.5, -1.0, 0.25, 0.0]
A = [1.0, 2.0, 0.5, 3.0, 1.5]
C0 = [[0.3, -0.2, 0.9], [1.1, -0.4, 0.05]]


def make_params(m, dtype):
    """w: a plain 1-D tensor; c: a transposed (non-contiguous) leaf."""
    dt = getattr(m, dtype)
    w = m.tensor(W0, dtype=dt).requires_grad_()
    c = m.tensor(C0, dtype=dt).t().detach().requires_grad_()
    return w, c


def set_grads(m, w, c):
    """grad w = 2 a (w - t) + 0.2 w^3; grad c = c^3 - 0.5 c (elementwise)."""
    dt = w.dtype
    with m.no_grad():
        t = m.tensor(T, dtype=dt)
        a = m.tensor(A, dtype=dt)
        wd = w.detach()
        cd = c.detach()
        w.grad = (wd - t) * a * 2 + wd * wd * wd * 0.2
        c.grad = cd * cd * cd - cd * 0.5


def run_optimizer(m, name, kwargs, dtype="float32", steps=STEPS):
    """Final w, c (lists) and the optimizer's state_dict()['state'] as
    lists, after `steps` steps."""
    w, c = make_params(m, dtype)
    opt = getattr(m.optim, name)([w, c], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        set_grads(m, w, c)
        opt.step()
    state = {}
    for k, v in opt.state_dict()["state"].items():
        state[k] = {sk: (sv.tolist() if isinstance(sv, m.Tensor) else sv)
                    for sk, sv in v.items()}
    return w.tolist(), c.tolist(), state


# (scheduler class name, keywords, optimizer keywords, epochs) - the lr of
# each group after each scheduler.step()
SCHEDULER_CASES = [
    ("StepLR", dict(step_size=3, gamma=0.5), {}, 10),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 8], gamma=0.1), {}, 10),
    ("ExponentialLR", dict(gamma=0.9), {}, 10),
    ("CosineAnnealingLR", dict(T_max=6, eta_min=0.001), {}, 20),
    ("CosineAnnealingLR", dict(T_max=4), {}, 12),
    ("LambdaLR", dict(lr_lambda="lambda e: 0.95 ** e"), {}, 8),
    ("MultiplicativeLR", dict(lr_lambda="lambda e: 0.9"), {}, 6),
    ("ConstantLR", dict(factor=0.5, total_iters=3), {}, 6),
    ("LinearLR", dict(start_factor=0.25, total_iters=4), {}, 7),
    ("PolynomialLR", dict(total_iters=5, power=2.0), {}, 7),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=12), dict(momentum=0.9), 11),
    ("OneCycleLR", dict(max_lr=[1.0, 0.5], total_steps=10, anneal_strategy="linear",
                        three_phase=True), dict(momentum=0.9), 9),
    ("OneCycleLR", dict(max_lr=0.3, epochs=2, steps_per_epoch=4, pct_start=0.25),
     "adam", 7),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3), dict(momentum=0.9), 10),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=4,
                      mode="triangular2"), dict(momentum=0.9), 14),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range",
                      gamma=0.9, cycle_momentum=False), {}, 8),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01), {}, 12),
]


def run_scheduler(m, name, kwargs, opt_kwargs, epochs):
    """[(lr of each group, momentum or beta1 of group 0)] after each step,
    with two parameter groups (lr 0.1 and 0.05)."""
    p1 = m.zeros(2, requires_grad=True)
    p2 = m.zeros(3, requires_grad=True)
    groups = [{"params": [p1]}, {"params": [p2], "lr": 0.05}]
    if opt_kwargs == "adam":
        opt = m.optim.Adam(groups, lr=0.1)
    else:
        opt = m.optim.SGD(groups, lr=0.1, **opt_kwargs)
    kwargs = dict(kwargs)
    if isinstance(kwargs.get("lr_lambda"), str):
        kwargs["lr_lambda"] = eval(kwargs["lr_lambda"])
    sched = getattr(m.optim.lr_scheduler, name)(opt, **kwargs)
    out = [sched.get_last_lr()]
    for _ in range(epochs):
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        mom = g["betas"][0] if "betas" in g else g.get("momentum")
        out.append((sched.get_last_lr(), mom))
    return out


# ReduceLROnPlateau: (keywords, the metric sequence)
PLATEAU_CASES = [
    (dict(patience=2, factor=0.5), [1.0, 0.9, 0.95, 0.93, 0.92, 0.91, 0.95, 0.96, 0.97,
                                    0.98, 0.8, 0.81, 0.82, 0.83]),
    (dict(mode="max", patience=1, factor=0.1, cooldown=2, threshold=0.1,
          threshold_mode="abs", min_lr=[0.002, 0.01]),
     [1.0, 1.05, 1.08, 1.2, 1.2, 1.1, 1.0, 0.9, 1.5, 1.5, 1.5, 1.5]),
]


def run_plateau(m, kwargs, metrics):
    p1 = m.zeros(2, requires_grad=True)
    p2 = m.zeros(3, requires_grad=True)
    opt = m.optim.SGD([{"params": [p1]}, {"params": [p2], "lr": 0.05}], lr=0.1)
    sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    out = []
    for v in metrics:
        opt.step()
        sched.step(m.tensor(v))
        out.append([g["lr"] for g in opt.param_groups])
    return out


# A small MLP trained end to end (autograd, Linear, Tanh, cross entropy,
# the optimizer, a scheduler): the loss after each step.
MLP_CASES = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True), ("StepLR", dict(step_size=5))),
    ("Adam", dict(lr=0.02, amsgrad=True), ("CosineAnnealingLR", dict(T_max=10))),
    ("AdamW", dict(lr=0.02, weight_decay=0.1), ("OneCycleLR", dict(max_lr=0.05,
                                                                    total_steps=15))),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True), None),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01), ("ExponentialLR", dict(gamma=0.9))),
]


def run_mlp(m, name, kwargs, sched, steps=15):
    import math
    net = m.nn.Sequential(m.nn.Linear(4, 8), m.nn.Tanh(), m.nn.Linear(8, 3))
    with m.no_grad():
        for k, p in enumerate(net.parameters()):
            vals = [math.sin(1.7 * i + k) * 0.5 for i in range(p.numel())]
            p.copy_(m.tensor(vals).reshape(p.shape))
    x = m.tensor([[math.cos(0.3 * i + j) for j in range(4)] for i in range(16)])
    y = m.tensor([(i * 7) % 3 for i in range(16)])
    opt = getattr(m.optim, name)(net.parameters(), **kwargs)
    s = getattr(m.optim.lr_scheduler, sched[0])(opt, **sched[1]) if sched else None
    loss_fn = m.nn.CrossEntropyLoss()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        if s is not None:
            s.step()
        losses.append(loss.item())
    return losses
