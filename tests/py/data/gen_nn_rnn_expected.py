"""Regenerate nn_rnn_expected.py from real PyTorch 1.13.

Run from a directory where ``import torch`` finds PyTorch (e.g. /tmp):

    /usr/bin/python3 /work/main/tests/py/data/gen_nn_rnn_expected.py

The cases are in nn_rnn_cases.py; values are written with repr(), which
round-trips floats exactly.
"""
import os
import pprint
import sys
import warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import nn_rnn_cases as rc  # noqa: E402


def main():
    warnings.simplefilter("ignore")
    torch.set_default_dtype(torch.float32)
    layers = {case[0]: rc.run_layer(torch, case) for case in rc.LAYER_CASES}
    packed = {case[0]: rc.run_packed(torch, case) for case in rc.PACKED_CASES}
    cells = {case[0]: rc.run_cell(torch, case) for case in rc.CELL_CASES}
    with open(os.path.join(HERE, "nn_rnn_expected.py"), "w") as f:
        f.write('"""Recorded by gen_nn_rnn_expected.py from PyTorch %s; do not edit."""\n'
                % torch.__version__)
        f.write("# (shapes of output and states, their values, {input:k / param: grad})\n")
        f.write("LAYERS = " + pprint.pformat(layers, width=100) + "\n")
        f.write("# ([batch_sizes, sorted, unsorted, lengths, output batch_sizes], packed data,\n"
                "#  shapes, values (padded output first), grads)\n")
        f.write("PACKED = " + pprint.pformat(packed, width=100) + "\n")
        f.write("CELLS = " + pprint.pformat(cells, width=100) + "\n")
        f.write("LSTM_FLOAT32 = " + pprint.pformat(rc.lstm_float32(torch), width=100) + "\n")
        f.write("INIT = " + pprint.pformat(rc.module_init(torch), width=100) + "\n")
        f.write("PAD_PACK = " + pprint.pformat(rc.pad_pack_functions(torch), width=100) + "\n")


if __name__ == "__main__":
    main()
