"""examples/train_mnist.py, a plain PyTorch script, run under bin/ctorchrun:
the loss falls, the accuracy is well above chance, the weights survive
torch.save/torch.load, and the printed numbers are PyTorch 1.13's (recorded
below, and side by side with torch where it is installed).

How close: the data, the initial weights, the dropout masks and the batch
order come from the generator and are torch's bit for bit.  The MLP's steps
then differ from torch's only in the last bit of log_softmax / nll_loss, and
its printout (4 decimals) is torch's line for line.  The CNN's convolutions
sum in another order than torch's oneDNN, each step differs by about an ulp
and SGD with momentum amplifies it: after 60 steps the loss differs in the
4th decimal (0.7732 vs 0.7729), so it is compared within 2e-3 relative and
the accuracies within one point.
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "examples", "train_mnist.py")
RUN = os.path.join(ROOT, "bin", "ctorchrun")

SMALL = ["--epochs", "3", "--train-size", "1000", "--test-size", "500"]
SETTINGS = {
    "cnn-sgd": SMALL,
    "mlp-adam": ["--model", "mlp", "--optimizer", "adam"] + SMALL,
}

# printed by PyTorch 1.13.1 for each setting: (lr, loss) per epoch, train and
# test accuracy in percent
RECORDED = {
    "cnn-sgd": dict(epochs=[(0.05, 2.0575), (0.05, 1.1353), (0.025, 0.7729)],
                    train=80.50, test=67.80),
    "mlp-adam": dict(epochs=[(0.002, 1.9771), (0.002, 0.6289), (0.001, 0.2049)],
                     train=100.00, test=66.20),
}


def _env():
    e = dict(os.environ)
    e.pop("PYTHONPATH", None)           # neither runner needs one
    e.pop("CTORCH_TORCH_NAMES", None)
    return e


def run_example(cmd, args, cwd):
    p = subprocess.run(cmd + [SCRIPT] + args, cwd=cwd, capture_output=True,
                       text=True, env=_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""               # no warnings either
    return p.stdout


def parse(out):
    """The numbers of a printout, and its text with the timing line cut."""
    epochs = [(float(lr), float(loss)) for lr, loss in
              re.findall(r"^epoch \d+  lr (\S+)  loss (\S+)$", out, re.M)]
    train, test = map(float, re.search(
        r"^train accuracy (\S+)%  test accuracy (\S+)%$", out, re.M).groups())
    equal, reloaded = re.search(
        r"^reloaded from torch.save: weights equal (\w+), test accuracy (\S+)%$",
        out, re.M).groups()
    text = re.sub(r"^training took .*\n", "", out, flags=re.M)
    return dict(epochs=epochs, train=train, test=test, equal=equal,
                reloaded=float(reloaded), text=text)


_cache = {}


def ctorch_result(name):
    if name not in _cache:
        _cache[name] = parse(run_example([RUN], SETTINGS[name], "/"))
    return _cache[name]


def close_to(got, ref, name):
    """got's numbers equal ref's at print precision (MLP) or within the CNN's
    tolerance (see the module docstring)."""
    assert [lr for lr, _ in got["epochs"]] == [lr for lr, _ in ref["epochs"]]
    losses = [loss for _, loss in got["epochs"]]
    ref_losses = [loss for _, loss in ref["epochs"]]
    if name.startswith("mlp"):
        assert losses == pytest.approx(ref_losses, abs=1.5e-4)
        assert got["train"] == pytest.approx(ref["train"], abs=0.25)
        assert got["test"] == pytest.approx(ref["test"], abs=0.25)
    else:
        assert losses == pytest.approx(ref_losses, rel=2e-3)
        assert got["train"] == pytest.approx(ref["train"], abs=1.0)
        assert got["test"] == pytest.approx(ref["test"], abs=1.0)


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_trains_under_ctorchrun(name):
    r = ctorch_result(name)
    losses = [loss for _, loss in r["epochs"]]
    assert len(losses) == 3
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < 0.5 * losses[0]
    assert r["train"] > 75.0 and r["test"] > 55.0       # chance is 10%
    assert r["equal"] == "True" and r["reloaded"] == r["test"]


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_recorded_printout(name):
    close_to(ctorch_result(name), RECORDED[name], name)


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_against_torch(torch_ref, tmp_path, name):
    """The same script under real PyTorch (started outside the checkout,
    so `import torch` is torch) prints the same thing."""
    ref = parse(run_example(["/usr/bin/python3"], SETTINGS[name], str(tmp_path)))
    got = ctorch_result(name)
    close_to(got, ref, name)
    if name.startswith("mlp"):
        assert got["text"] == ref["text"]


def test_script_is_plain_pytorch():
    """The example's code names only torch (its docstring may mention
    ctorch): no ctorch import, name or string."""
    import ast
    with open(SCRIPT) as f:
        tree = ast.parse(f.read())
    doc = tree.body[0].value
    words, imports = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node is not doc:
            words.append(node.value)
        elif isinstance(node, ast.Import):
            imports += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append(node.module)
    assert not [w for w in words + imports if "ctorch" in w]
    assert {i for i in imports if i.startswith("torch")} == {
        "torch", "torch.nn", "torch.nn.functional"}
