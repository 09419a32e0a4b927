"""Regenerate random_expected.py from real PyTorch 1.13.

Run from a directory where ``import torch`` finds PyTorch (e.g. /tmp):

    /usr/bin/python3 /work/main/tests/py/data/gen_random_expected.py

Each case is an expression over the module ``m`` (torch when recording,
ctorch when testing) evaluated right after ``m.manual_seed(seed)``.  The
recording is a CRC-32 of the values packed little-endian in the dtype, so
bit-identical results are required to match.
"""
import os
import struct
import zlib

import torch

FORMATS = {"float32": "f", "float64": "d", "int64": "q", "int32": "i"}


def crc(t):
    """CRC-32 of t's values in row-major order, packed as its dtype."""
    fmt = FORMATS[str(t.dtype).split(".")[-1]]
    v = t.flatten().tolist()
    return zlib.crc32(struct.pack("<%d%s" % (len(v), fmt), *v))


def cases():
    out = []
    for n in [1, 15, 16, 17, 100, 1000, 4099]:
        for dt in ["float32", "float64"]:
            out += [f"m.rand({n}, dtype=m.{dt})", f"m.randn({n}, dtype=m.{dt})",
                    f"m.empty({n}, dtype=m.{dt}).uniform_(-3, 7)",
                    f"m.empty({n}, dtype=m.{dt}).normal_(2, 0.5)"]
        out += [f"m.randint(-7, 1000, ({n},))", f"m.randint(0, 2**40, ({n},))",
                f"m.randperm({n})", f"m.empty({n}).exponential_(1.5)",
                f"m.bernoulli(m.full(({n},), 0.3))"]
    return out


def main():
    lines = ['"""CRC-32 of PyTorch 1.13 sampling results (gen_random_expected.py)."""',
             "", "RECORDED_CRC = {"]
    for c in cases():
        for seed in (0, 42):
            torch.manual_seed(seed)
            lines.append(f"    ({c!r}, {seed}): {crc(eval(c, {'m': torch})):#010x},")
    lines.append("}")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_expected.py")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
