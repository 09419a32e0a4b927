"""Regenerate nn_expected.py from real PyTorch 1.13.

Run from a directory where ``import torch`` finds PyTorch (e.g. /tmp):

    /usr/bin/python3 /work/main/tests/py/data/gen_nn_expected.py

The cases are in nn_cases.py; values are written with repr(), which
round-trips floats exactly.
"""
import os
import pprint
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import nn_cases as nc  # noqa: E402


def main():
    loss = {}
    for case in nc.LOSS_CASES:
        for red in nc.REDUCTIONS:
            loss[(case[0], red)] = nc.run_loss(torch, case, red)
    norm = {key: nc.run_norm(torch, key) for key in nc.NORM_CASES}
    bn_module = {str(mom): nc.run_bn_module(torch, mom) for mom in (0.1, None)}
    with open(os.path.join(HERE, "nn_expected.py"), "w") as f:
        f.write('"""Recorded by gen_nn_expected.py from PyTorch %s; do not edit."""\n'
                % torch.__version__)
        f.write("# (grad_fn, output, d/dinput, d/dtarget) per (case, reduction)\n")
        f.write("LOSS = " + pprint.pformat(loss, width=100) + "\n")
        f.write("# (grad_fn, output, gradients, running stats / renormed weight)\n")
        f.write("NORM = " + pprint.pformat(norm, width=100) + "\n")
        f.write("BN_MODULE = " + pprint.pformat(bn_module, width=100) + "\n")


if __name__ == "__main__":
    main()
