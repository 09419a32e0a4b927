"""bin/ctorchrun: `import torch` resolves to ctorch, for every way the
interpreter can be started and for the processes a script starts."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "bin", "ctorchrun")


def run(args, cwd="/", stdin=None, env=None):
    e = dict(os.environ)
    e.pop("PYTHONPATH", None)           # ctorchrun must not need one
    e.pop("CTORCH_TORCH_NAMES", None)
    if env:
        e.update(env)
    p = subprocess.run([RUN] + args, cwd=cwd, input=stdin, capture_output=True,
                       text=True, env=e, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_done_when_line():
    out = run(["-c", "import torch; print(torch.arange(5), "
                     "torch.zeros(2, 3, dtype=torch.float64))"])
    assert out == ("tensor([0, 1, 2, 3, 4]) tensor([[0., 0., 0.],\n"
                   "        [0., 0., 0.]], dtype=torch.float64)\n")


def test_printed_names_are_torch_names():
    out = run(["-c", "import torch; print(type(torch.zeros(1)), torch.float32, "
                     "torch.zeros(2).shape, torch.zeros(1).dtype, torch.Tensor)"])
    assert out == ("<class 'torch.Tensor'> torch.float32 torch.Size([2]) "
                   "torch.float32 <class 'torch.Tensor'>\n")


def test_submodule_imports(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import torch
        import torch.utils.dlpack
        from torch.utils.dlpack import to_dlpack
        import torch.utils as tu
        import ctorch
        assert torch is ctorch
        assert torch.utils.dlpack is ctorch.utils.dlpack
        assert tu is ctorch.utils
        assert to_dlpack is ctorch.utils.dlpack.to_dlpack
        print("ok", torch.utils.dlpack.__name__)
    """))
    assert run([str(script)]) == "ok ctorch.utils.dlpack\n"


def test_script_args_and_cwd(tmp_path):
    script = tmp_path / "args.py"
    script.write_text("import sys, torch\nprint(sys.argv[1:], torch.ones(1).item())\n")
    assert run([str(script), "a", "--b"], cwd=str(tmp_path)) == "['a', '--b'] 1.0\n"
    assert run(["args.py", "x"], cwd=str(tmp_path)) == "['x'] 1.0\n"


def test_module_mode(tmp_path):
    pkg = tmp_path / "mymod.py"
    pkg.write_text("import torch\nprint('mod', torch.full((2,), 3))\n")
    assert run(["-m", "mymod"], cwd=str(tmp_path)) == "mod tensor([3, 3])\n"


def test_stdin_and_unbuffered():
    assert run([], stdin="import torch\nprint(torch.tensor([1.5]))\n") == \
        "tensor([1.5000])\n"
    assert run(["-u", "-"], stdin="import torch\nprint(torch.eye(1))\n") == \
        "tensor([[1.]])\n"


def test_through_a_symlink(tmp_path):
    link = tmp_path / "ctr"
    os.symlink(RUN, link)
    p = subprocess.run([str(link), "-c", "import torch; print(torch.ones(1))"],
                       capture_output=True, text=True, cwd="/", timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "tensor([1.])\n"


def test_subprocess_and_spawn_children(tmp_path):
    script = tmp_path / "kids.py"
    script.write_text(textwrap.dedent("""
        import subprocess, sys
        import multiprocessing as mp
        import torch

        def child(q):
            import torch
            q.put((torch.__name__, repr(torch.arange(3))))

        if __name__ == "__main__":
            out = subprocess.run([sys.executable, "-c",
                                  "import torch; print(torch.__name__, torch.ones(2))"],
                                 capture_output=True, text=True).stdout
            print(out.strip())
            ctx = mp.get_context("spawn")
            q = ctx.Queue()
            p = ctx.Process(target=child, args=(q,))
            p.start()
            print(q.get(timeout=60))
            p.join()
            print("exit", p.exitcode)
    """))
    assert run([str(script)]) == ("ctorch tensor([1., 1.])\n"
                                  "('ctorch', 'tensor([0, 1, 2])')\n"
                                  "exit 0\n")


def test_outside_ctorchrun_torch_is_untouched():
    """Without ctorchrun, `import torch` is whatever is installed."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c",
                        "import importlib.util as u; s = u.find_spec('torch'); "
                        "print(s is None or 'ctorch' not in (s.origin or ''))"],
                       capture_output=True, text=True, env=env, cwd="/", timeout=120)
    assert p.stdout.strip() == "True"


def test_zero_copy_tutorial_matches_pytorch():
    path = os.path.join(ROOT, "..", "shared", "tutorials", "zero_copy.py")
    if not os.path.exists(path):
        pytest.skip("shared tutorials not present")
    out = run([path])
    assert out == "[[1. 1.]]\n[[2. 2.]]\n[[1. 1.]]\nTrue\n"
