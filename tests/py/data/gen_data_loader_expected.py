"""Write data_loader_expected.py: the values of data_loader_cases.py under
PyTorch 1.13.  Run from anywhere but the repository root (where `import
torch` would find ctorch's shim): /usr/bin/python3 gen_data_loader_expected.py
"""
import os
import pprint
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import data_loader_cases as dc  # noqa: E402


def main():
    assert "ctorch" not in torch.__file__
    out = {}
    for name, fn in dc.CASES.items():
        out[name] = fn(torch)
    out["workers/fork"] = dc.worker_runs("torch", "fork")
    out["workers/errors"] = dc.worker_error_runs("torch", "fork")
    with open(os.path.join(HERE, "data_loader_expected.py"), "w") as f:
        f.write('"""torch.utils.data results of PyTorch %s (written by '
                'gen_data_loader_expected.py)."""\n\n' % torch.__version__)
        f.write("EXPECTED = " + pprint.pformat(out, width=88, compact=True) + "\n")


if __name__ == "__main__":
    main()
