"""exp bit for bit as PyTorch 1.13 computes it on an x86-64 CPU with AVX2
(Note [exp as PyTorch's] in aten/cpu/unary.c): SHA-256 digests of results
recorded from torch, and torch.equal against torch where it is installed.
Like test_softmax_bits.py, the recorded digests need the AVX2 kernels."""
import hashlib

import pytest

from test_softmax_bits import _cpu_has_avx2, avx2

import ctorch

# (dtype, view): contiguous rows with a partial last vector, strided and
# transposed views, a 0-dim tensor, special values
CASES = [
    ("float32", "all"), ("float32", "step3"), ("float32", "tail13"), ("float32", "t"),
    ("float64", "all"), ("float64", "step3"), ("float64", "tail13"), ("float64", "t"),
    ("bfloat16", "all"), ("bfloat16", "step3"), ("float32", "scalar"), ("float32", "special"),
    ("float64", "special"),
]


def inputs(M, dtype, view):
    if view == "special":
        v = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 88.72, 88.73, -103.9,
             -104.5, 1e-40, 709.78, 709.79, -745.1, -746.0, 0.5]
        return M.tensor(v, dtype=getattr(M, dtype))
    x = M.linspace(-120.0, 100.0, 100003, dtype=M.float64).to(getattr(M, dtype))
    if view == "step3":
        return x[::3]
    if view == "tail13":
        return x[:13]
    if view == "t":
        return x[:100000].reshape(400, 250).t()
    if view == "scalar":
        return x[7777].clone()
    return x


def digest(t):
    if str(t.dtype).endswith("bfloat16"):     # (no NumPy bfloat16: exact in float32)
        t = t.float()
    return hashlib.sha256(t.contiguous().view(-1).numpy().tobytes()).hexdigest()


RECORDED = {
    ('float32', 'all'): 'dc50d84b37f5a140cbf444ef9c94b25a02d216349ddd491f3baa8af704f0f009',
    ('float32', 'step3'): 'cc090b4cc5f982c5b728c903b0f84705b148b65e3e0d55a7c39e47bbdf3a5660',
    ('float32', 'tail13'): '7955cb2de90dd9efc6df9fdbf5f5d10c114f4135a9a6b52db1003be749e32f7a',
    ('float32', 't'): 'c444d83c963c86fdb625436e23990785951080019b16b7013fdb9dee116196cf',
    ('float64', 'all'): 'f2160d6d359b167b1f2c154043956408371df6c2bd3900ecf6e95770b44d171d',
    ('float64', 'step3'): '561a180944e9eb33daaea771ea95b881ac8b304d411881b90805a353ddb5b05c',
    ('float64', 'tail13'): 'bfd3926f11022aa62b1895d124db780e29960ae4399606ed4fac2646fccab357',
    ('float64', 't'): 'cb7ee1d0018999e4181ec780b90809dc22ffb8418e5e30780ca47108839aec46',
    ('bfloat16', 'all'): '562d5c51f65acc54b1bf2797b35570bd5cc1f01251d4c4990908bc246be838e1',
    ('bfloat16', 'step3'): '09aef8bbb37c9b222b622e221332e0c2dd3920c5c03b666d72c125feb0f91b82',
    ('float32', 'scalar'): '67abdd721024f0ff4e0b3f4c2fc13bc5bad42d0b7851d456d88d203d15aaa450',
    ('float32', 'special'): 'afe3e5ef3d2f8cf0f9aac94c6d0f2dff99e7be0778c28aa1b7e816627a6a1bba',
    ('float64', 'special'): 'b5a6bba1a6bbf17bbbee19ce6f0fb18d75ac9bb06372bee4711dd8de25d6490c',
}


@avx2
@pytest.mark.parametrize("dtype, view", CASES)
def test_recorded(dtype, view):
    assert digest(inputs(ctorch, dtype, view).exp()) == RECORDED[dtype, view]


@pytest.mark.parametrize("dtype, view", CASES)
def test_against_torch(torch_ref, dtype, view):
    got = inputs(ctorch, dtype, view).exp()
    want = inputs(torch_ref, dtype, view).exp()
    if not _cpu_has_avx2():     # the plain loops agree to an ulp
        assert ctorch.allclose(got.double(), ctorch.from_numpy(want.double().numpy()),
                               rtol=1e-6 if dtype != "bfloat16" else 1e-2, equal_nan=True)
    else:
        assert digest(got) == digest(want)
