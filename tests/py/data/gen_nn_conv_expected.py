"""Regenerate nn_conv_expected.py from real PyTorch 1.13.

Run from a directory where ``import torch`` finds PyTorch (e.g. /tmp):

    /usr/bin/python3 /work/main/tests/py/data/gen_nn_conv_expected.py

The cases are in nn_conv_cases.py; values are written with repr(), which
round-trips floats exactly.
"""
import os
import pprint
import sys
import warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import nn_conv_cases as cc  # noqa: E402


def main():
    warnings.simplefilter("ignore")
    conv = {case[0]: cc.run_conv(torch, case) for case in cc.CONV_CASES}
    pool = {case[0]: cc.run_pool(torch, case) for case in cc.POOL_CASES}
    init = cc.module_init(torch)
    with open(os.path.join(HERE, "nn_conv_expected.py"), "w") as f:
        f.write('"""Recorded by gen_nn_conv_expected.py from PyTorch %s; do not edit."""\n'
                % torch.__version__)
        f.write("# (grad_fn, shape, output, [d/dinput, d/dweight(, d/dbias)])\n")
        f.write("CONV = " + pprint.pformat(conv, width=100) + "\n")
        f.write("# (grad_fn, shape, output, indices or None, [d/dinput])\n")
        f.write("POOL = " + pprint.pformat(pool, width=100) + "\n")
        f.write("# torch.manual_seed(7), then the module: its state_dict\n")
        f.write("INIT = " + pprint.pformat(init, width=100) + "\n")


if __name__ == "__main__":
    main()
