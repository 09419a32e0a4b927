"""exp and log bit for bit as PyTorch 1.13 computes them on an x86-64 CPU
with AVX2 (Note [exp and log as PyTorch's] in aten/cpu/unary.c): SHA-256
digests of results recorded from torch, and torch.equal against torch where
it is installed.  Like test_softmax_bits.py, the recorded digests need the
AVX2 kernels."""
import hashlib

import pytest

from test_softmax_bits import _cpu_has_avx2, avx2

import ctorch

# (fn, dtype, view): contiguous rows with a partial last vector, strided
# and transposed views, a 0-dim tensor, special values
VIEWS = [
    ("float32", "all"), ("float32", "step3"), ("float32", "tail13"), ("float32", "t"),
    ("float64", "all"), ("float64", "step3"), ("float64", "tail13"), ("float64", "t"),
    ("bfloat16", "all"), ("bfloat16", "step3"), ("float32", "scalar"), ("float32", "special"),
    ("float64", "special"),
]
CASES = [(fn,) + v for fn in ("exp", "log") for v in VIEWS]


def inputs(M, fn, dtype, view):
    if view == "special":
        v = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 88.72, 88.73, -103.9,
             -104.5, 1e-40, 709.78, 709.79, -745.1, -746.0, 0.5, 5e-324, -1.0, 0.75, 1.5]
        return M.tensor(v, dtype=getattr(M, dtype))
    lo, hi = (-120.0, 100.0) if fn == "exp" else (1e-4, 1.0)
    x = M.linspace(lo, hi, 100003, dtype=M.float64)
    if fn == "log":
        # magnitudes spread over 32 decades, by products alone (exact IEEE
        # steps, the same in both libraries)
        x = x * x
        x = x * x
        x = x * x * 1e6
    x = x.to(getattr(M, dtype))
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


def run(M, fn, dtype, view):
    return getattr(inputs(M, fn, dtype, view), fn)()


RECORDED = {
    ('exp', 'float32', 'all'): 'dc50d84b37f5a140cbf444ef9c94b25a02d216349ddd491f3baa8af704f0f009',
    ('exp', 'float32', 'step3'): 'cc090b4cc5f982c5b728c903b0f84705b148b65e3e0d55a7c39e47bbdf3a5660',
    ('exp', 'float32', 'tail13'): '7955cb2de90dd9efc6df9fdbf5f5d10c114f4135a9a6b52db1003be749e32f7a',
    ('exp', 'float32', 't'): 'c444d83c963c86fdb625436e23990785951080019b16b7013fdb9dee116196cf',
    ('exp', 'float64', 'all'): 'f2160d6d359b167b1f2c154043956408371df6c2bd3900ecf6e95770b44d171d',
    ('exp', 'float64', 'step3'): '561a180944e9eb33daaea771ea95b881ac8b304d411881b90805a353ddb5b05c',
    ('exp', 'float64', 'tail13'): 'bfd3926f11022aa62b1895d124db780e29960ae4399606ed4fac2646fccab357',
    ('exp', 'float64', 't'): 'cb7ee1d0018999e4181ec780b90809dc22ffb8418e5e30780ca47108839aec46',
    ('exp', 'bfloat16', 'all'): '562d5c51f65acc54b1bf2797b35570bd5cc1f01251d4c4990908bc246be838e1',
    ('exp', 'bfloat16', 'step3'): '09aef8bbb37c9b222b622e221332e0c2dd3920c5c03b666d72c125feb0f91b82',
    ('exp', 'float32', 'scalar'): '67abdd721024f0ff4e0b3f4c2fc13bc5bad42d0b7851d456d88d203d15aaa450',
    ('exp', 'float32', 'special'): '2ed918e8723fc44ce0cdb651aa38608ffa5b17f4fbda7155a0758aacd2c6ac8f',
    ('exp', 'float64', 'special'): '76a600794cb76f39e2491f326f535743c998886fd41f42ee9d54ef0bc4619c87',
    ('log', 'float32', 'all'): 'f7320b645324625954e3f78e24de7a879a1ba5ae8b5093282f6bdd4da45ccc8b',
    ('log', 'float32', 'step3'): 'fcad7f41df2b97d842b138e72c955fca08be986f64ee62286b928fcac72862c4',
    ('log', 'float32', 'tail13'): '9984abd301984b4a62c6b2cecaa6ca828a417df8b4f08967421f00b9dc98237a',
    ('log', 'float32', 't'): '8536cef05190f82a75d7130fd33a4b587162383972c41b64b909b878c520d5f3',
    ('log', 'float64', 'all'): '027c42b67faaf94c6dab36baf874671a84641d0fdabc881503014eface78751f',
    ('log', 'float64', 'step3'): 'cc7a13475c3a7f6cc1c65692e81735a17d31f7b5f43cc1fea5350d76be5c4dfc',
    ('log', 'float64', 'tail13'): 'e11236e7911df3a881112310324eeb6b33fa5a6fe55aa59a4ec08ca63f7fa486',
    ('log', 'float64', 't'): 'ea5e9672c729d512c1903145503f1172e7a6334bf576a22c3fb1bfd909fde81e',
    ('log', 'bfloat16', 'all'): '8f047dfd34ac92635373d7079ced42b2aa28c9003b6bea3530f883976f337957',
    ('log', 'bfloat16', 'step3'): '5df87475279c5e93b4227e367981ea11f0e2d497518fe4245c968dfc132db46f',
    ('log', 'float32', 'scalar'): 'c10044a86401339b814cbc58bedb8ba4d3de9282a3031421511d4cb0ed8f0167',
    ('log', 'float32', 'special'): '8e3c0570f1812095401369481fcd4964b5dbfd4f8bbd78e95602383f57d2f61a',
    ('log', 'float64', 'special'): 'a571d86e3eeaf7752f16bb909e3c315bc788f6a2c64fe29cc742633f87be90aa',
}


@avx2
@pytest.mark.parametrize("fn, dtype, view", CASES)
def test_recorded(fn, dtype, view):
    assert digest(run(ctorch, fn, dtype, view)) == RECORDED[fn, dtype, view]


@pytest.mark.parametrize("fn, dtype, view", CASES)
def test_against_torch(torch_ref, fn, dtype, view):
    got = run(ctorch, fn, dtype, view)
    want = run(torch_ref, fn, dtype, view)
    if not _cpu_has_avx2():     # the plain loops agree to an ulp
        assert ctorch.allclose(got.double(), ctorch.from_numpy(want.double().numpy()),
                               rtol=1e-6 if dtype != "bfloat16" else 1e-2, equal_nan=True)
    else:
        assert digest(got) == digest(want)
