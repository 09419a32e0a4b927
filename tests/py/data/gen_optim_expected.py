"""Regenerate optim_expected.py from real PyTorch 1.13.

Run from a directory where ``import torch`` finds PyTorch (e.g. /tmp):

    /usr/bin/python3 /work/main/tests/py/data/gen_optim_expected.py

The scenarios are in optim_cases.py; the values are written with repr(),
which round-trips floats exactly, so the tests can ask for bit-identical
trajectories.
"""
import os
import pprint
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import optim_cases as oc  # noqa: E402


def main():
    optim = {}
    for i, (name, kw) in enumerate(oc.OPTIMIZER_CASES):
        for dtype in ("float32", "float64"):
            optim[(i, dtype)] = oc.run_optimizer(torch, name, kw, dtype)
    sched = {i: oc.run_scheduler(torch, *case) for i, case in enumerate(oc.SCHEDULER_CASES)}
    plateau = {i: oc.run_plateau(torch, *case) for i, case in enumerate(oc.PLATEAU_CASES)}
    mlp = {i: oc.run_mlp(torch, *case) for i, case in enumerate(oc.MLP_CASES)}
    with open(os.path.join(HERE, "optim_expected.py"), "w") as f:
        f.write('"""PyTorch 1.13 optimizer trajectories and learning-rate schedules '
                '(gen_optim_expected.py)."""\n\n')
        f.write("# (case index, dtype): (final w, final c, state_dict()['state'])\n")
        f.write("OPTIM = " + pprint.pformat(optim, width=100) + "\n\n")
        f.write("# case index: [initial lrs, (lrs, momentum) after each step]\n")
        f.write("SCHED = " + pprint.pformat(sched, width=100) + "\n\n")
        f.write("PLATEAU = " + pprint.pformat(plateau, width=100) + "\n\n")
        f.write("# case index: the MLP's loss after each step\n")
        f.write("MLP = " + pprint.pformat(mlp, width=100) + "\n")


if __name__ == "__main__":
    main()
