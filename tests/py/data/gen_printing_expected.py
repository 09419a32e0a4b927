"""Regenerate printing_expected.py from real PyTorch 1.13.

Run from a directory without a ``types.py`` (e.g. /tmp):

    /usr/bin/python3 /work/main/tests/py/data/gen_printing_expected.py

Each case is a Python expression that builds a tensor using the name
``torch``; it must only use operations the ctorch foundation supports
(torch.tensor, arange, zeros/ones/full/empty, linspace, reshape/view,
scalar arithmetic, requires_grad=True, quantize_per_tensor).  The recorded
string is ``repr(tensor)`` under the given print options.

The script also renders each tensor with ctorch's own _tensor_str (loaded
from its file) and refuses to write the output if any case disagrees.
"""

import importlib.util
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "printing_expected.py")
SRC = os.path.join(HERE, "..", "..", "..", "python", "ctorch", "_tensor_str.py")

INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]


def build_cases():
    """(expr, printoptions-or-None) pairs run under the default dtype."""
    c = []

    def add(expr, opts=None):
        c.append((expr, opts))

    # -- 0-dim -------------------------------------------------------------
    for e in ["torch.tensor(3.5)", "torch.tensor(-0.0)", "torch.tensor(0.0)",
              "torch.tensor(2.0)", "torch.tensor(float('nan'))",
              "torch.tensor(float('inf'))", "torch.tensor(-float('inf'))",
              "torch.tensor(1e20)", "torch.tensor(1e-7)",
              "torch.tensor(123456789.0)", "torch.tensor(-2.5e-3)",
              "torch.tensor(7)", "torch.tensor(-12)", "torch.tensor(True)",
              "torch.tensor(False)", "torch.tensor(7, dtype=torch.int8)",
              "torch.tensor(200, dtype=torch.uint8)",
              "torch.tensor(1.25, dtype=torch.float16)",
              "torch.tensor(1.25, dtype=torch.bfloat16)",
              "torch.tensor(0.1, dtype=torch.float64)",
              "torch.tensor(2.0, requires_grad=True)",
              "torch.tensor(3.0, requires_grad=True) * 2"]:
        add(e)

    # -- every dtype, ranks 1..4 -------------------------------------------
    add("torch.tensor([True, False, True])")
    add("torch.tensor([[True, False], [False, False]])")
    add("torch.tensor([True, False, True, True]).reshape(2, 1, 2)")
    for dt in INT_DTYPES:
        add("torch.tensor([0, 1, 2, 3, 100, 5], dtype=torch.%s)" % dt)
        add("torch.arange(24, dtype=torch.%s).reshape(2, 3, 4)" % dt)
        add("torch.arange(48, dtype=torch.%s).reshape(2, 2, 3, 4)" % dt)
    for dt in ["int8", "int16", "int32", "int64"]:
        add("torch.tensor([[-1, 2, -30], [4, -128, 6]], dtype=torch.%s)" % dt)
    add("torch.tensor([-2147483648, 2147483647], dtype=torch.int32)")
    add("torch.tensor([-9223372036854775807, 9223372036854775807])")
    add("torch.tensor([255, 0, 17], dtype=torch.uint8)")
    for dt in FLOAT_DTYPES:
        add("torch.tensor([1.5, -2.25, 3.0, 0.1], dtype=torch.%s)" % dt)
        add("torch.tensor([1.0, -2.0, 3.0], dtype=torch.%s)" % dt)
        add("torch.tensor([[1e-5, 2.0], [3.0, 4.0]], dtype=torch.%s)" % dt)
        # half types: a scalar exactly representable in them, so the result
        # does not depend on whether the scalar is rounded to the tensor's
        # dtype before the multiplication
        scale = "0.375" if dt in ("float16", "bfloat16") else "0.37"
        add("(torch.arange(24, dtype=torch.%s) * %s - 5).reshape(2, 3, 4)"
            % (dt, scale))
        add("(torch.arange(36, dtype=torch.%s) / 7).reshape(3, 1, 3, 4)" % dt)
        add("torch.tensor([float('nan'), 1.5, float('inf')], dtype=torch.%s)" % dt)
    add("torch.tensor([65504.0, -65504.0, 6.1e-05], dtype=torch.float16)")
    add("torch.tensor([1e30, -3e-30, 7.0], dtype=torch.bfloat16)")
    add("torch.tensor([0.1, 0.2, 0.30000000000000004], dtype=torch.float64)")
    add("torch.tensor([1/3, 2/3, 1.0], dtype=torch.float64)")
    add("torch.tensor([[[[1.5]]]])")
    add("torch.tensor([[1], [2], [3]])")

    # -- nan / inf / zeros / negative zero ---------------------------------
    add("torch.tensor([float('nan'), float('inf'), -float('inf')])")
    add("torch.tensor([float('nan'), 0.0, -0.0])")
    add("torch.tensor([0.0, 0.0, 0.0])")
    add("torch.tensor([-0.0, 1.0, 2.0])")
    add("torch.tensor([-0.0, 1.5, 2.0])")
    add("torch.tensor([float('nan'), 1.0, 2.0])")
    add("torch.tensor([float('nan'), 1.5, -2.0])")
    add("torch.tensor([float('inf'), 1.0, 10000.0])")
    add("torch.tensor([-float('inf'), 1e-6, 2.0])")
    add("torch.tensor([[float('nan'), 100.0], [-float('inf'), 1e9]])")
    add("torch.tensor([float('nan'), float('nan')])")
    add("torch.tensor([0.0, 1e-10])")

    # -- fixed / scientific / integer-mode switching ----------------------
    add("torch.tensor([1.0, 2.0, 1000.0])")
    add("torch.tensor([1.0, 2.0, 1001.0])")
    add("torch.tensor([1.0, 1e8])")
    add("torch.tensor([1.0, 2e8])")
    add("torch.tensor([123456789.0, 1.0])")
    add("torch.tensor([0.0001, 0.05])")
    add("torch.tensor([0.00009, 0.05])")
    add("torch.tensor([1.5, 1500.0])")
    add("torch.tensor([1.5, 1499.0])")
    add("torch.tensor([1e10, 1e-10, 1.0])")
    add("torch.tensor([1e-20, -3e-21])")
    add("torch.tensor([123.456, -0.001, 9.99995])")
    add("torch.tensor([99999.5, 1.25])")
    add("torch.tensor([1e38, -1e38])")
    add("torch.tensor([1e300, 1e-300], dtype=torch.float64)")
    add("torch.tensor([-5.0, 5.0, 0.0]) * 1e9")
    add("torch.tensor([[1.0, -1e-5], [1e5, 0.0]])")
    add("torch.arange(10.0) * 1e6")
    add("torch.arange(10.0) * 1e-6")
    add("torch.arange(-5.0, 5.0) / 4")
    add("torch.arange(20.0) * 0.25 - 2")

    # -- wrapping at 80 columns --------------------------------------------
    add("torch.arange(100)")
    add("torch.arange(100, dtype=torch.int8)")
    add("torch.arange(40.0) * 1.5 - 7")
    add("torch.arange(30.0).reshape(2, 15) * 123.4375")
    add("(torch.arange(60.0) * 0.37 - 5).reshape(2, 2, 15)")
    add("(torch.arange(48.0) * 1e5 + 1).reshape(2, 24)")
    add("torch.arange(64, dtype=torch.int64).reshape(2, 32) * 1000003")
    add("torch.tensor([True, False] * 20)")
    add("torch.linspace(0, 1, 5)")
    add("torch.linspace(-10, 10, 30)")
    add("torch.linspace(0, 1, 2000)")

    # -- summarization ------------------------------------------------------
    add("torch.arange(1001)")
    add("torch.arange(1000)")
    add("torch.arange(2000)")
    add("torch.arange(2000.0) * 0.5")
    add("torch.arange(2000, dtype=torch.int16) - 1000")
    add("torch.arange(1000000.0).reshape(1000, 1000)")
    add("torch.arange(1000000.0).view(1000, 1000) * 0.001")
    add("torch.arange(3000).reshape(10, 15, 20)")
    add("(torch.arange(5000.0) * 0.37 - 5).reshape(10, 20, 25)")
    add("torch.arange(4096.0).reshape(4, 4, 16, 16)")
    add("torch.arange(2048.0).reshape(2, 1024)")
    add("torch.arange(2048.0).reshape(1024, 2)")
    add("torch.ones(2, 2, 500, dtype=torch.bool)")
    add("torch.ones(40, 40) * 0.5")
    add("torch.zeros(50, 50, dtype=torch.int32)")
    add("torch.full((3, 400), 2.5, dtype=torch.float64)")
    add("torch.arange(1200.0).reshape(1200, 1) * 1e-3")

    # -- empty tensors ------------------------------------------------------
    for e in ["torch.tensor([])", "torch.zeros(0)", "torch.zeros(0, 3)",
              "torch.zeros(2, 0)", "torch.zeros(2, 0, 3)",
              "torch.empty(0, dtype=torch.int64)",
              "torch.empty(0, 4, dtype=torch.int32)",
              "torch.ones(0, dtype=torch.bool)",
              "torch.zeros(0, dtype=torch.float64)",
              "torch.zeros(0, dtype=torch.float16)",
              "torch.tensor([[]])", "torch.zeros(0, requires_grad=True)",
              "torch.empty(0, 2, 2, dtype=torch.uint8)"]:
        add(e)

    # -- autograd -----------------------------------------------------------
    add("torch.tensor([1.0, 2.0, 3.0], requires_grad=True)")
    add("torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * 2")
    add("torch.tensor([1.0, 2.0, 3.0], requires_grad=True) + 1")
    add("torch.tensor([1.0, 2.0, 3.0], requires_grad=True) - 0.5")
    add("torch.tensor([1.0, 2.0, 3.0], requires_grad=True) / 3")
    add("torch.tensor([[1.5, 2.5], [3.5, 4.5]], dtype=torch.float64, requires_grad=True)")
    add("torch.arange(12.0, dtype=torch.float64).reshape(2, 6) * 1.25")
    add("torch.tensor([1.123456, 2.5, 3.75, 4.875, 5.0625, 6.03125, 7.015625, 8.0078125], "
        "dtype=torch.float64, requires_grad=True)")
    add("torch.tensor([1.123456, 2.5, 3.75, 4.875, 5.0625, 6.03125, 7.015625, 8.0078125], "
        "dtype=torch.float16, requires_grad=True) * 2")
    add("torch.ones(3, requires_grad=True)")
    add("torch.zeros(2, 2, requires_grad=True)")

    # -- quantized ----------------------------------------------------------
    add("torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10, torch.quint8)")
    add("torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 0, torch.qint8)")
    add("torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 0, torch.qint32)")
    add("torch.quantize_per_tensor(torch.arange(12.0).reshape(3, 4) * 0.3, 0.25, 3, torch.quint8)")
    add("torch.quantize_per_tensor(torch.tensor(1.5), 0.5, 2, torch.quint8)")
    add("torch.quantize_per_tensor(torch.zeros(0), 1.0, 0, torch.quint8)")
    add("torch.quantize_per_tensor(torch.zeros(2, 0), 0.5, 1, torch.qint8)")
    add("torch.quantize_per_tensor(torch.arange(2000.0) - 1000, 1.0, 0, torch.qint32)")
    add("torch.quantize_per_tensor(torch.arange(40.0) * 0.123, 0.01, 5, torch.qint32)")
    add("torch.quantize_per_tensor(torch.tensor([1.0, 2.0]), 0.2, 0, torch.quint8)")
    add("torch.quantize_per_tensor(torch.tensor([0.5, 1.5]), 1e-5, 0, torch.qint32)")

    # -- print options ------------------------------------------------------
    opt_sets = [
        {"precision": 2}, {"precision": 0}, {"precision": 8},
        {"sci_mode": True}, {"sci_mode": False},
        {"linewidth": 40}, {"linewidth": 120},
        {"threshold": 5}, {"threshold": 5, "edgeitems": 1},
        {"edgeitems": 1}, {"profile": "full"}, {"profile": "short"},
        {"profile": "short", "precision": 5},
        {"precision": 3, "sci_mode": True, "linewidth": 50},
    ]
    opt_exprs = [
        "torch.tensor([1.123456789, -2.5, 1000.0])",
        "torch.tensor([1e-8, 1.0, 3.0])",
        "torch.tensor([1.0, 2.0, 3.0])",
        "torch.tensor([float('nan'), 0.0])",
        "torch.arange(10)",
        "(torch.arange(24.0) * 0.375 - 5).reshape(2, 3, 4)",
        "torch.tensor([[0.1, -0.2, 0.3], [1.7, 2.9, -3.3]])",
        "torch.arange(30.0).reshape(2, 15) * 123.4375",
        "torch.arange(2000)",
        "torch.arange(3000.0).reshape(10, 15, 20) * 1e5",
        "torch.tensor([1.0, 2.0], requires_grad=True) * 2",
        "torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10, torch.quint8)",
    ]
    for opts in opt_sets:
        for e in opt_exprs:
            if opts.get("profile") == "full" and "3000.0" in e:
                continue  # 3000 lines of output: not worth recording
            add(e, opts)
    add("torch.arange(1200).reshape(30, 40)", {"profile": "full"})
    add("torch.arange(10)", {"threshold": 5, "edgeitems": 0})
    add("torch.arange(5.0)", {"precision": 2, "sci_mode": False})
    add("torch.tensor([1e20, 1.0])", {"sci_mode": False})
    add("torch.tensor([1e-20, 1.5])", {"sci_mode": False})
    add("torch.tensor([0.0, 0.0])", {"sci_mode": True})
    add("torch.arange(20)", {"linewidth": 10})
    add("torch.arange(20.0) * 1.5", {"linewidth": 1})
    add("torch.tensor([1.5, 2.5], dtype=torch.float64, requires_grad=True)", {"linewidth": 30})
    add("torch.zeros(0, 3, dtype=torch.int16)", {"linewidth": 20})
    return c


def build_default_dtype_cases():
    """(expr, printoptions-or-None) run with the default dtype = float64."""
    return [
        ("torch.tensor([1.5, 2.0])", None),
        ("torch.tensor([1.5, 2.0], dtype=torch.float32)", None),
        ("torch.tensor(2.5, dtype=torch.float32)", None),
        ("torch.tensor([1.5, 2.0], dtype=torch.float16)", None),
        ("torch.tensor([1.5, 2.0], dtype=torch.float64)", None),
        ("torch.arange(5)", None),
        ("torch.tensor([True])", None),
        ("torch.zeros(0)", None),
        ("torch.zeros(0, dtype=torch.float32)", None),
        ("torch.zeros(0, 2)", None),
        ("torch.arange(2000, dtype=torch.float32) / 3", None),
        ("torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True) * 2", None),
        ("torch.quantize_per_tensor(torch.tensor([1.0, 2.0], dtype=torch.float32), 0.5, 0, torch.quint8)", None),
    ]


def build_torch_only_cases():
    """Cases only the differential test runs (ops ctorch may lack)."""
    return [
        ("torch.tensor([1 + 2j, -0.5 - 1j])", None),
        ("torch.tensor([[1.5 + 0j, 0 - 2.25j], [1e5j, 3 + 4j]], dtype=torch.complex128)", None),
        ("torch.tensor([complex(float('nan'), 1), -0.0j])", None),
        ("torch.arange(2000.0).reshape(40, 50).to(torch.complex64) * (1 + 1j)", None),
        ("torch.tensor(1 - 1j)", None),
        ("torch.zeros(3, 4, device='meta')", None),
        ("torch.zeros(3, dtype=torch.int64, device='meta')", None),
        ("torch.quantize_per_channel(torch.arange(12.0).reshape(3, 4) * 0.1, "
         "torch.tensor([0.1, 0.2, 0.3]), torch.tensor([0, 1, 2]), 0, torch.quint8)", None),
        ("torch.arange(10.0).reshape(2, 5).t()", None),
        ("torch.arange(40.0).reshape(5, 8)[::2, 1::3]", None),
        ("torch.arange(5000.0).reshape(50, 100).t()", None),
        ("torch.arange(3000.0).reshape(3, 1000).flip(1)", None),
        ("torch.arange(3.0, requires_grad=True).exp()", None),
        ("torch.arange(3.0, requires_grad=True).clone().view(3, 1)", None),
    ]


def load_ours():
    spec = importlib.util.spec_from_file_location("_ctorch_tensor_str_gen", SRC)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod._get_default_dtype = torch.get_default_dtype
    return mod


def record(cases, ours, default_dtype=None):
    out = []
    bad = 0
    old = torch.get_default_dtype()
    for expr, opts in cases:
        if default_dtype is not None:
            torch.set_default_dtype(default_dtype)
        try:
            torch.set_printoptions(**(opts or {}))
            ours.set_printoptions(**(opts or {}))
            t = eval(expr, {"torch": torch})
            expected = repr(t)
            mine = ours._str(t)
        finally:
            torch.set_printoptions(profile="default")
            ours.set_printoptions(profile="default")
            torch.set_default_dtype(old)
        if mine != expected:
            bad += 1
            print("MISMATCH:", expr, opts)
            print(expected)
            print(mine)
        out.append((expr, expected, opts))
    return out, bad


def main():
    ours = load_ours()
    cases, bad1 = record(build_cases(), ours)
    ddt, bad2 = record(build_default_dtype_cases(), ours, torch.float64)
    only, bad3 = record(build_torch_only_cases(), ours)
    if bad1 + bad2 + bad3:
        print("not writing %s: %d mismatches" % (OUT, bad1 + bad2 + bad3))
        return 1
    with open(OUT, "w") as f:
        f.write('"""Recorded PyTorch %s tensor reprs (generated; do not edit).\n\n'
                'Regenerate with gen_printing_expected.py.\n\n'
                'CASES: (expr, expected repr, printoptions kwargs or None),\n'
                '    evaluated with ``torch`` bound to the library under test.\n'
                'DEFAULT_DTYPE_CASES: same, but evaluated after\n'
                '    set_default_dtype(DEFAULT_DTYPE_CASES_DTYPE).\n'
                'TORCH_ONLY_CASES: same shape; only the differential test\n'
                '    against real torch runs them (ops ctorch may not have).\n'
                '"""\n\n' % torch.__version__)
        f.write("TORCH_VERSION = %r\n\n" % torch.__version__)
        f.write("DEFAULT_DTYPE_CASES_DTYPE = 'float64'\n\n")
        for name, data in [("CASES", cases), ("DEFAULT_DTYPE_CASES", ddt),
                           ("TORCH_ONLY_CASES", only)]:
            f.write("%s = [\n" % name)
            for item in data:
                f.write("    (%r,\n     %r,\n     %r),\n" % item)
            f.write("]\n\n")
    print("wrote %d + %d + %d cases to %s" % (len(cases), len(ddt), len(only), OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
