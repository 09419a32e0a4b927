"""torch.finfo and torch.iinfo: every field, printed form and error of
PyTorch 1.13, against values recorded from it and, with torch installed,
against torch itself."""
import ctorch


def limits(M):
    out = []
    for d in (M.float16, M.bfloat16, M.float32, M.float64, M.half, M.double):
        f = M.finfo(d)
        out.append((f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution,
                    f.dtype, str(f), repr(f)))
    for d in (M.uint8, M.int8, M.int16, M.int32, M.int64, M.long):
        f = M.iinfo(d)
        out.append((f.bits, f.max, f.min, f.dtype, str(f)))
    for fn, a in ((M.iinfo, M.bool), (M.iinfo, M.float32), (M.iinfo, "x"), (M.iinfo, 3),
                  (M.finfo, M.bool), (M.finfo, M.int8)):
        try:
            fn(a)
            out.append("no error")
        except Exception as e:      # noqa: BLE001 - the error is the result
            out.append((type(e).__name__, str(e)))
    out.append((M.finfo(M.float16) == M.finfo(M.half),
                M.finfo(M.float16) == M.finfo(M.float32), M.finfo().dtype))
    old = M.get_default_dtype()
    M.set_default_dtype(M.float64)
    try:
        out.append(M.finfo().dtype)
    finally:
        M.set_default_dtype(old)
    return out


RECORDED = [(16,
  0.0009765625,
  65504.0,
  -65504.0,
  6.103515625e-05,
  6.103515625e-05,
  0.001,
  'float16',
  'finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, '
  'smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)',
  'finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, '
  'smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)'),
 (16,
  0.0078125,
  3.3895313892515355e+38,
  -3.3895313892515355e+38,
  1.1754943508222875e-38,
  1.1754943508222875e-38,
  0.01,
  'bfloat16',
  'finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, '
  'smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=bfloat16)',
  'finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, '
  'smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=bfloat16)'),
 (32,
  1.1920928955078125e-07,
  3.4028234663852886e+38,
  -3.4028234663852886e+38,
  1.1754943508222875e-38,
  1.1754943508222875e-38,
  1e-06,
  'float32',
  'finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, '
  'smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)',
  'finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, '
  'smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)'),
 (64,
  2.220446049250313e-16,
  1.7976931348623157e+308,
  -1.7976931348623157e+308,
  2.2250738585072014e-308,
  2.2250738585072014e-308,
  1e-15,
  'float64',
  'finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, '
  'smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)',
  'finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, '
  'smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)'),
 (16,
  0.0009765625,
  65504.0,
  -65504.0,
  6.103515625e-05,
  6.103515625e-05,
  0.001,
  'float16',
  'finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, '
  'smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)',
  'finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, '
  'smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)'),
 (64,
  2.220446049250313e-16,
  1.7976931348623157e+308,
  -1.7976931348623157e+308,
  2.2250738585072014e-308,
  2.2250738585072014e-308,
  1e-15,
  'float64',
  'finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, '
  'smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)',
  'finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, '
  'smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)'),
 (8, 255, 0, 'uint8', 'iinfo(min=0, max=255, dtype=uint8)'),
 (8, 127, -128, 'int8', 'iinfo(min=-128, max=127, dtype=int8)'),
 (16, 32767, -32768, 'int16', 'iinfo(min=-32768, max=32767, dtype=int16)'),
 (32,
  2147483647,
  -2147483648,
  'int32',
  'iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)'),
 (64,
  9223372036854775807,
  -9223372036854775808,
  'int64',
  'iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)'),
 (64,
  9223372036854775807,
  -9223372036854775808,
  'int64',
  'iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)'),
 ('TypeError', 'torch.bool is not supported by torch.iinfo'),
 ('TypeError',
  "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"),
 ('TypeError', "iinfo(): argument 'type' (position 1) must be torch.dtype, not str"),
 ('TypeError', "iinfo(): argument 'type' (position 1) must be torch.dtype, not int"),
 ('TypeError',
  'torch.finfo() requires a floating point input type. Use torch.iinfo to handle '
  "'torch.finfo'"),
 ('TypeError',
  'torch.finfo() requires a floating point input type. Use torch.iinfo to handle '
  "'torch.finfo'"),
 (True, False, 'float32'),
 'float64']


def test_recorded():
    assert limits(ctorch) == RECORDED


def test_against_torch(torch_ref):
    assert limits(ctorch) == limits(torch_ref)


def test_limits_are_the_dtypes_own():
    # the bounds round-trip through tensors of the dtype
    for d in (ctorch.uint8, ctorch.int8, ctorch.int16, ctorch.int32, ctorch.int64):
        i = ctorch.iinfo(d)
        assert ctorch.tensor([i.min, i.max], dtype=d).tolist() == [i.min, i.max]
    for d in (ctorch.float16, ctorch.bfloat16, ctorch.float32, ctorch.float64):
        f = ctorch.finfo(d)
        t = ctorch.tensor([f.max, f.tiny, 1 + f.eps], dtype=d)
        assert t.tolist() == [f.max, f.tiny, 1 + f.eps]
        assert ctorch.tensor([1 + f.eps / 2], dtype=d).item() == 1.0
