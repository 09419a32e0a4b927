"""Regenerate data/serialization/*.pt with real PyTorch 1.13.

Run from a directory where ``import torch`` finds PyTorch (e.g. /tmp):

    /usr/bin/python3 /work/main/tests/py/data/gen_serialization_data.py

The objects are built by serialization_cases.py; test_serialization.py
loads each file with ctorch, compares it with the same object built by
ctorch, and checks that ctorch.save writes the same bytes.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import serialization_cases as sc  # noqa: E402

OUT = os.path.join(HERE, "serialization")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, (build, kwargs, how) in sc.FILES.items():
        path = os.path.join(OUT, name)
        obj = build(torch)
        if how == "path":
            torch.save(obj, path, **kwargs)
        else:
            with open(path, "wb") as f:
                torch.save(obj, f, **kwargs)
        print(name, os.path.getsize(path))


if __name__ == "__main__":
    main()
