"""ctorch.save / ctorch.load: PyTorch's zip format (and the legacy one),
against files written by PyTorch 1.13 (data/serialization/, made by
data/gen_serialization_data.py) -- loaded by ctorch, and written again by
ctorch byte for byte -- round trips, storage sharing, map_location,
weights_only, torch's names in the pickle, corrupt and truncated files,
and, where torch is installed, files passed between the two both ways."""
import collections
import copy
import io
import os
import pathlib
import pickle
import pickletools
import subprocess
import sys
import zipfile

import pytest

import ctorch
from ctorch import serialization
from ctorch._utils import _rebuild_tensor_v2

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "serialization")
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "data"))
import serialization_cases as sc  # noqa: E402


def saved(obj, **kwargs):
    b = io.BytesIO()
    ctorch.save(obj, b, **kwargs)
    return b.getvalue()


def loaded(data, **kwargs):
    return ctorch.load(io.BytesIO(data), **kwargs)


def roundtrip(obj, **kwargs):
    return loaded(saved(obj), **kwargs)


def same_storage(a, b):
    return a._storage_ref() == b._storage_ref()


# --- files written by PyTorch 1.13 ----------------------------------------------

@pytest.mark.parametrize("name", sorted(sc.FILES))
def test_load_recorded_file(name):
    build, _, _ = sc.FILES[name]
    got = ctorch.load(os.path.join(DATA, name))
    assert sc.describe(got, ctorch) == sc.describe(build(ctorch), ctorch)


@pytest.mark.parametrize("name", [n for n, (_, kw, _) in sorted(sc.FILES.items()) if not kw])
def test_save_matches_recorded_bytes(name, tmp_path):
    """ctorch.save writes what torch.save wrote, byte for byte."""
    build, kwargs, how = sc.FILES[name]
    with open(os.path.join(DATA, name), "rb") as f:
        want = f.read()
    if how == "path":
        path = tmp_path / name
        ctorch.save(build(ctorch), str(path), **kwargs)
        got = path.read_bytes()
    else:
        got = saved(build(ctorch), **kwargs)
    assert got == want


@pytest.mark.parametrize("name", ["tensors.pt", "tensors_legacy.pt"])
def test_recorded_views_share_storage(name):
    d = ctorch.load(os.path.join(DATA, name))
    base = d["f32"]
    for k in ("view_t", "row", "col", "block"):
        assert same_storage(base, d[k])
    assert d["nested"]["list"][0] is base
    assert d["block"].storage_offset() == 8 and d["block"].stride() == (6, 1)
    assert d["col"].stride() == (6,) and d["view_t"].stride() == (1, 6)
    base[2, 3] = -1.0
    assert d["row"][3].item() == -1.0 and d["col"][2].item() == -1.0
    assert not same_storage(base, d["f64"])


def test_recorded_parameters_and_buffers():
    d = ctorch.load(os.path.join(DATA, "state_dict.pt"))
    assert type(d) is collections.OrderedDict
    assert list(d) == ["fc1.weight", "fc1.bias", "bn.running_mean", "bn.num_batches_tracked",
                       "fc2.weight"]
    assert type(d["fc1.weight"]) is ctorch.nn.Parameter and d["fc1.weight"].requires_grad
    assert type(d["bn.running_mean"]) is ctorch.Tensor
    assert not d["bn.running_mean"].requires_grad
    assert d["bn.num_batches_tracked"].dtype == ctorch.int64
    t = ctorch.load(os.path.join(DATA, "tensors.pt"))
    assert type(t["frozen"]) is ctorch.nn.Parameter and not t["frozen"].requires_grad
    assert t["rg"].requires_grad and t["rg"].is_leaf


def test_recorded_optimizer_state_continues():
    """Load torch's optimizer state into ctorch optimizers; three more steps
    land where the same steps land from ctorch's own state."""
    rec = ctorch.load(os.path.join(DATA, "optimizer.pt"))
    own = sc.optimizer_state(ctorch)
    assert sc.describe(rec, ctorch) == sc.describe(own, ctorch)
    results = []
    for src in (rec, own):
        w, c = (p.clone().requires_grad_() for p in src["params"])
        adam = ctorch.optim.Adam([w, c], lr=0.1, amsgrad=True)
        sgd = ctorch.optim.SGD([{"params": [w]}, {"params": [c], "lr": 0.01}], lr=0.1,
                               momentum=0.9)
        adam.load_state_dict(src["adam"])
        sgd.load_state_dict(src["sgd"])
        for _ in range(3):
            for opt in (adam, sgd):
                with ctorch.no_grad():
                    w.grad = w * w * w - w
                    c.grad = c * 2
                opt.step()
        results.append((w.tolist(), c.tolist()))
    assert results[0] == results[1]


def test_recorded_archive_names():
    assert zipfile.ZipFile(os.path.join(DATA, "tensors.pt")).namelist()[0] == \
        "archive/data.pkl"
    names = zipfile.ZipFile(os.path.join(DATA, "named_by_path.pt")).namelist()
    assert names[0] == "named_by_path/data.pkl" and names[-1] == "named_by_path/version"


# --- round trips --------------------------------------------------------------------

def test_roundtrip_every_kind():
    obj = sc.tensors(ctorch)
    got = roundtrip(obj)
    assert sc.describe(got, ctorch) == sc.describe(obj, ctorch)
    assert got["nested"]["list"][0] is got["f32"]
    assert same_storage(got["f32"], got["block"])


def test_roundtrip_paths_and_files(tmp_path):
    t = ctorch.arange(5.0)
    for dest in (str(tmp_path / "a.pt"), tmp_path / "b.pth", str(tmp_path / "noext")):
        ctorch.save(t, dest)
        assert ctorch.load(dest).tolist() == t.tolist()
        assert ctorch.load(pathlib.Path(dest)).tolist() == t.tolist()
    names = zipfile.ZipFile(tmp_path / "b.pth").namelist()
    assert names == ["b/data.pkl", "b/data/0", "b/version"]
    assert zipfile.ZipFile(tmp_path / "noext").namelist()[0] == "noext/data.pkl"
    with open(tmp_path / "c.pt", "wb") as f:
        ctorch.save({"t": t}, f)
    with open(tmp_path / "c.pt", "rb") as f:
        assert ctorch.load(f)["t"].tolist() == t.tolist()
    # a file holding other data before the archive
    with open(tmp_path / "d.bin", "wb") as f:
        f.write(b"header")
        ctorch.save(t, f)


def test_load_from_offset_in_file_object():
    b = io.BytesIO()
    b.write(b"xyz")
    ctorch.save(ctorch.tensor([1, 2]), b)
    b.seek(3)
    with pytest.raises(RuntimeError):     # zip offsets are from the file start
        ctorch.load(b)


def test_roundtrip_geometry_and_values():
    base = ctorch.arange(60, dtype=ctorch.float64).reshape(3, 4, 5)
    views = [base.permute(2, 0, 1), base[:, 1:3, ::2], base[1], base[..., 4], base[2:, 3:],
             base.reshape(60)[7:19]]
    got = roundtrip(views)
    for v, g in zip(views, got):
        assert g.tolist() == v.tolist() and g.stride() == v.stride()
        assert g.storage_offset() == v.storage_offset()
        assert same_storage(g, got[0])
    assert len(saved(views)) < len(saved([v.clone() for v in views]))


def test_storage_saved_once():
    t = ctorch.zeros(1000)
    data = saved([t, t[10:20], t.view(10, 100)])
    assert len([n for n in zipfile.ZipFile(io.BytesIO(data)).namelist() if "/data/" in n]) == 1


def test_storages_and_untyped_storages():
    t = ctorch.arange(4, dtype=ctorch.int16)
    s = roundtrip(t.storage())
    assert isinstance(s, ctorch.TypedStorage) and s.dtype == ctorch.int16
    assert s.tolist() == [0, 1, 2, 3]
    assert isinstance(s, ctorch.ShortStorage)
    # an untyped storage comes back as bytes (a uint8 TypedStorage, as in torch)
    u = roundtrip(t.untyped_storage())
    assert isinstance(u, ctorch.ByteStorage) and len(u) == 8
    both = roundtrip([t, t.storage()])
    assert both[0]._storage_ref() == both[1]._ref


def test_different_dtype_views_refused():
    t = ctorch.zeros(4)
    with pytest.raises(RuntimeError, match="^Cannot save multiple tensors or storages that "
                       "view the same data as different types$"):
        saved([t, t.view(ctorch.int32)])


def test_parameters_and_subclasses():
    p = ctorch.nn.Parameter(ctorch.ones(2, 2))
    got = roundtrip({"p": p, "again": p, "data": p.data})
    assert type(got["p"]) is ctorch.nn.Parameter and got["p"].requires_grad
    assert got["again"] is got["p"]
    assert same_storage(got["p"], got["data"]) and type(got["data"]) is ctorch.Tensor

    class Tagged(ctorch.Tensor):
        pass

    t = ctorch.Tensor._make_subclass(Tagged, ctorch.tensor([1.0, 2.0]), False)
    t.tag = "hello"
    globals()["Tagged"] = Tagged        # picklable by name
    Tagged.__qualname__ = "Tagged"
    try:
        g = roundtrip(t)
    finally:
        del globals()["Tagged"]
    assert type(g) is Tagged and g.tag == "hello" and g.tolist() == [1.0, 2.0]


def test_optimizer_state_dict_roundtrip():
    w = ctorch.tensor([1.0, -2.0], requires_grad=True)
    opt = ctorch.optim.AdamW([w], lr=0.1, amsgrad=True)
    w.grad = ctorch.tensor([0.5, 0.25])
    opt.step()
    sd = roundtrip(opt.state_dict())
    assert sd["param_groups"][0]["betas"] == (0.9, 0.999)
    w2 = w.detach().clone().requires_grad_()
    opt2 = ctorch.optim.AdamW([w2], lr=0.1, amsgrad=True)
    opt2.load_state_dict(sd)
    for o, p in ((opt, w), (opt2, w2)):
        p.grad = ctorch.tensor([0.5, 0.25])
        o.step()
    assert w.tolist() == w2.tolist()


def test_plain_pickle():
    t = ctorch.arange(6.0).reshape(2, 3).t()
    for proto in (2, 4, pickle.HIGHEST_PROTOCOL):
        g = pickle.loads(pickle.dumps(t, proto))
        assert g.tolist() == t.tolist() and g.stride() == t.stride()
    p = pickle.loads(pickle.dumps(ctorch.nn.Parameter(ctorch.ones(2))))
    assert type(p) is ctorch.nn.Parameter and p.requires_grad
    q = ctorch.quantize_per_tensor(ctorch.tensor([1.0, -0.5]), 0.25, 1, ctorch.qint8)
    g = pickle.loads(pickle.dumps(q))
    assert g.int_repr().tolist() == q.int_repr().tolist() and g.q_scale() == 0.25
    c = copy.copy(t)
    assert same_storage(c, t)
    d = copy.deepcopy({"a": t, "b": t})
    assert d["a"] is d["b"] and not same_storage(d["a"], t)


def test_zip64_records():
    """Records past the 4 GiB marks get zip64 fields (tried with a small
    threshold): ctorch and Python's zipfile read them."""
    obj = {"a": ctorch.arange(50.0), "b": ctorch.arange(3.0), "c": ctorch.arange(70.0)}
    old = serialization._ZIP64_LIMIT
    serialization._ZIP64_LIMIT = 100
    try:
        data = saved(obj)
    finally:
        serialization._ZIP64_LIMIT = old
    z = zipfile.ZipFile(io.BytesIO(data))
    assert z.testzip() is None
    assert z.getinfo("archive/data/2").file_size == 280
    got = loaded(data)
    assert got["c"].tolist() == obj["c"].tolist() and got["b"].tolist() == [0.0, 1.0, 2.0]


# --- torch's names ---------------------------------------------------------------

def _globals_in(data):
    z = zipfile.ZipFile(io.BytesIO(data))
    pkl = z.read(z.namelist()[0])
    return sorted({arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"})


def test_pickle_names_are_torchs():
    obj = {"t": ctorch.ones(2), "p": ctorch.nn.Parameter(ctorch.zeros(1)),
           "q": ctorch.quantize_per_tensor(ctorch.ones(1), 0.5, 0, ctorch.quint8),
           "od": collections.OrderedDict(a=1), "size": ctorch.Size([1]),
           "dtype": ctorch.bool, "device": ctorch.device("cpu"), "layout": ctorch.strided,
           "h": ctorch.tensor([1.0], dtype=ctorch.float16)}
    data = saved(obj)
    assert _globals_in(data) == [
        "collections OrderedDict", "torch FloatStorage",
        "torch HalfStorage", "torch QUInt8Storage", "torch Size", "torch bool",
        "torch device", "torch per_tensor_affine", "torch._utils _rebuild_parameter",
        "torch._utils _rebuild_qtensor", "torch._utils _rebuild_tensor_v2",
        "torch.serialization _get_layout"]
    got = loaded(data)
    assert got["layout"] is ctorch.strided and got["device"] == ctorch.device("cpu")
    assert got["dtype"] is ctorch.bool and got["size"] == ctorch.Size([1])


def test_pickle_names_under_ctorchrun(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "import sys, torch, collections\n"
        "m = collections.OrderedDict(w=torch.nn.Parameter(torch.ones(2)), b=torch.zeros(1))\n"
        "torch.save({'m': m, 'd': torch.device('cpu'), 's': torch.Size([2])}, sys.argv[1])\n"
        "print(type(torch.load(sys.argv[1])['m']['w']).__name__)\n")
    out = tmp_path / "out.pt"
    r = subprocess.run([os.path.join(ROOT, "bin", "ctorchrun"), str(script), str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Parameter\n"
    data = out.read_bytes()
    assert _globals_in(data) == ["collections OrderedDict", "torch FloatStorage", "torch Size",
                                 "torch device", "torch._utils _rebuild_parameter",
                                 "torch._utils _rebuild_tensor_v2"]
    got = ctorch.load(str(out))
    assert type(got["m"]["w"]) is ctorch.nn.Parameter


# --- map_location ----------------------------------------------------------------

def test_map_location_cpu_forms():
    data = saved({"t": ctorch.arange(3.0)})
    for ml in ("cpu", ctorch.device("cpu"), {"cpu": "cpu"}, None):
        assert loaded(data, map_location=ml)["t"].tolist() == [0.0, 1.0, 2.0]
    calls = []

    def keep(storage, location):
        calls.append((type(storage).__name__, location, len(storage)))
        return storage

    assert loaded(data, map_location=keep)["t"].tolist() == [0.0, 1.0, 2.0]
    assert calls == [("UntypedStorage", "cpu", 12)]
    assert loaded(data, map_location=lambda s, loc: None)["t"].tolist() == [0.0, 1.0, 2.0]


CUDA_MESSAGE = ("Attempting to deserialize object on a CUDA device but "
                "torch.cuda.is_available() is False. If you are running on a CPU-only "
                "machine, please use torch.load with map_location=torch.device('cpu') to "
                "map your storages to the CPU.")


def _cuda_tagged_file(monkeypatch):
    monkeypatch.setattr(serialization, "location_tag", lambda s: "cuda:0")
    data = saved({"t": ctorch.arange(3.0)})
    monkeypatch.undo()
    return data


def test_map_location_from_cuda(monkeypatch):
    if serialization._cuda_available():
        pytest.skip("CUDA is available")
    data = _cuda_tagged_file(monkeypatch)
    assert _err(data) == ("RuntimeError", CUDA_MESSAGE)
    with pytest.raises(RuntimeError, match="CUDA device but torch.cuda.is_available"):
        loaded(saved(ctorch.ones(1)), map_location="cuda")
    for ml in ("cpu", ctorch.device("cpu"), {"cuda:0": "cpu"}, lambda s, loc: s):
        assert loaded(data, map_location=ml)["t"].tolist() == [0.0, 1.0, 2.0]
    seen = []
    loaded(data, map_location=lambda s, loc: seen.append(loc) or s)
    assert seen == ["cuda:0"]


def test_map_location_callable_none_falls_back(monkeypatch):
    if serialization._cuda_available():
        pytest.skip("CUDA is available")
    data = _cuda_tagged_file(monkeypatch)
    with pytest.raises(RuntimeError, match="CUDA device"):
        loaded(data, map_location=lambda s, loc: None)


# --- weights_only ------------------------------------------------------------------

WEIGHTS_PREFIX = ("Weights only load failed. Re-running `torch.load` with `weights_only` set "
                  "to `False` will likely succeed, but it can result in arbitrary code "
                  "execution.Do it only if you get the file from a trusted source. "
                  "WeightsUnpickler error: ")


def test_weights_only_accepts_state():
    obj = {"sd": sc.state_dict(ctorch), "opt": sc.optimizer_state(ctorch), "n": [1, -7, 2 ** 70],
           "s": ("x", None, True, 0.5), "size": ctorch.Size([2]), "dt": ctorch.float16}
    got = loaded(saved(obj), weights_only=True)
    assert sc.describe(got, ctorch) == sc.describe(obj, ctorch)
    for name in ("state_dict.pt", "optimizer.pt"):
        build = sc.FILES[name][0]
        got = ctorch.load(os.path.join(DATA, name), weights_only=True)
        assert sc.describe(got, ctorch) == sc.describe(build(ctorch), ctorch)


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize("obj,msg", [
    (collections.Counter([1]), "Unsupported class collections.Counter"),
    (_Evil(), "Unsupported class posix.system"),
    ({1, 2}, "Unsupported class __builtin__.set"),
    (b"bytes", "Unsupported class _codecs.encode"),
])
def test_weights_only_refuses(obj, msg):
    with pytest.raises(pickle.UnpicklingError) as e:
        loaded(saved(obj), weights_only=True)
    assert str(e.value) == WEIGHTS_PREFIX + msg


def test_weights_only_options(monkeypatch):
    with pytest.raises(RuntimeError, match="^Can not safely load weights when expiclit "
                       "picke_module is specified$"):
        loaded(saved(1), weights_only=True, pickle_module=pickle)
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError, match="Unsupported class collections.Counter"):
        loaded(saved(collections.Counter()))


# --- bad files -------------------------------------------------------------------

def _sample():
    with open(os.path.join(DATA, "state_dict.pt"), "rb") as f:
        return f.read()


def _err(data, **kw):
    try:
        loaded(data, **kw)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def _corruptions():
    data = _sample()
    out = {}
    for cut in (len(data) // 2, len(data) - 10, len(data) - 21, 100, 30, 23):
        out["truncated_%d" % cut] = data[:cut]
    out["four_bytes"] = data[:4]
    out["empty"] = b""
    out["garbage"] = b"hello world this is garbage"
    cd = data.rfind(b"PK\x01\x02")
    out["cd_signature"] = data[:cd] + b"XX" + data[cd + 2:]
    d = bytearray(data)
    d[cd + 20] ^= 0xFF              # a record's size in the central directory
    out["cd_size"] = bytes(d)
    out["missing_record"] = data.replace(b"archive/data/0", b"archive/data/9")
    return out


EXPECTED_ERRORS = {
    "truncated_%d": ("RuntimeError", "PytorchStreamReader failed reading zip archive: failed "
                     "finding central directory"),
    "four_bytes": ("RuntimeError", "PytorchStreamReader failed reading zip archive: not a ZIP "
                   "archive"),
    "empty": ("EOFError", "Ran out of input"),
    "garbage": ("UnpicklingError", "Memo value not found at index 101"),
    "cd_signature": ("RuntimeError", "PytorchStreamReader failed reading zip archive: invalid "
                     "header or archive is corrupted"),
    "cd_size": ("RuntimeError", "PytorchStreamReader failed reading zip archive: invalid "
                "header or archive is corrupted"),
    "missing_record": ("RuntimeError", "PytorchStreamReader failed locating file data/0: file "
                       "not found"),
}


@pytest.mark.parametrize("case", sorted(_corruptions()))
def test_bad_files_recorded(case):
    key = "truncated_%d" if case.startswith("truncated_") else case
    assert _err(_corruptions()[case]) == EXPECTED_ERRORS[key]


@pytest.mark.parametrize("case", sorted(_corruptions()))
def test_bad_files_against_torch(torch_ref, case):
    data = _corruptions()[case]
    try:
        torch_ref.load(io.BytesIO(data))
        want = None
    except Exception as e:  # noqa: BLE001
        want = (type(e).__name__, str(e))
    assert _err(data) == want


def test_corrupt_data_caught_by_crc():
    data = bytearray(_sample())
    at = data.find(b"PK\x03\x04", 10)        # the first storage record
    start = at + 30 + int.from_bytes(data[at + 26:at + 28], "little") + \
        int.from_bytes(data[at + 28:at + 30], "little")
    data[start + 1] ^= 0x40
    assert _err(bytes(data)) == ("RuntimeError", "PytorchStreamReader failed reading file "
                                 "data/0: CRC-32 check failed")


def test_every_truncation_fails_cleanly():
    data = _sample()
    for cut in range(0, len(data), 7):
        e = _err(data[:cut])
        assert e is not None and e[0] in ("RuntimeError", "EOFError", "UnpicklingError"), (cut, e)


def test_geometry_out_of_bounds():
    s = ctorch.arange(6.0).storage()

    class Bad:
        def __init__(self, *args):
            self.args = args

        def __reduce__(self):
            return (_rebuild_tensor_v2, self.args)

    hooks = collections.OrderedDict()
    assert loaded(saved(Bad(s, 2, (2, 2), (2, 1), False, hooks))).tolist() == \
        [[2.0, 3.0], [4.0, 5.0]]
    cases = [
        ((s, 0, (7,), (1,), False, hooks),
         "setStorage: sizes [7], strides [1], storage offset 0, and itemsize 4 requiring a "
         "storage size of 28 are out of bounds for storage of size 24"),
        ((s, 5, (2,), (1,), False, hooks),
         "setStorage: sizes [2], strides [1], storage offset 5, and itemsize 4 requiring a "
         "storage size of 28 are out of bounds for storage of size 24"),
        ((s, -1, (1,), (1,), False, hooks), "Tensor: invalid storage offset -1"),
        ((s, 0, (2,), (-1,), False, hooks),
         "as_strided: Negative strides are not supported at the moment, got strides: [-1]"),
        ((s, 0, (-2,), (1,), False, hooks),
         "Trying to create tensor with negative dimension -2: [-2]"),
        ((s, 0, (2 ** 40, 2 ** 40), (2 ** 40, 1), False, hooks), None),
    ]
    for args, msg in cases:
        e = _err(saved(Bad(*args)))
        assert e[0] == "RuntimeError" and (msg is None or e[1] == msg)
    # an empty tensor may sit anywhere
    assert loaded(saved(Bad(s, 100, (0, 5), (5, 1), False, hooks))).shape == (0, 5)


def test_unknown_persistent_id():
    class P(serialization._Pickler):
        def persistent_id(self, obj):
            return ("module", 1) if obj == "x" else None

    b = io.BytesIO()
    P(b, 2).dump(["x"])
    w = serialization._ZipWriter(io.BytesIO(), "archive")
    w.write_record("data.pkl", b.getvalue())
    w.write_record("version", b"3\n")
    w.finish()
    with pytest.raises(AssertionError, match="Unknown typename for persistent_load, expected "
                       "'storage' but got 'module'"):
        loaded(w.f.getvalue())


def _archive(version):
    w = serialization._ZipWriter(io.BytesIO(), "archive")
    w.write_record("data.pkl", pickle.dumps(1, 2))
    w.write_record("version", version)
    w.finish()
    return w.f.getvalue()


def test_file_versions():
    assert loaded(_archive(b"9\n")) == 1
    with pytest.raises(RuntimeError, match="Attempted to read a PyTorch file with version 11, "
                       "but the maximum supported version for reading is 10"):
        loaded(_archive(b"11\n"))
    with pytest.raises(RuntimeError, match="invalid version record"):
        loaded(_archive(b"x\n"))


def test_not_seekable():
    class Pipe(io.RawIOBase):
        def readable(self):
            return True

        def seekable(self):
            return False

        def tell(self):
            raise io.UnsupportedOperation("tell")

    with pytest.raises(io.UnsupportedOperation, match="You can only torch.load from a file "
                       "that is seekable"):
        ctorch.load(Pipe())


def test_legacy_roundtrip():
    obj = sc.tensors(ctorch)
    got = loaded(saved(obj, _use_new_zipfile_serialization=False))
    assert sc.describe(got, ctorch) == sc.describe(obj, ctorch)
    assert same_storage(got["f32"], got["view_t"])


def test_legacy_tar_format_refused(tmp_path):
    import tarfile
    path = tmp_path / "old.tar"
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("storages")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(RuntimeError, match="tar serialization format"):
        ctorch.load(str(path))


# --- against torch -----------------------------------------------------------------

@pytest.mark.parametrize("build", [sc.tensors, sc.state_dict, sc.optimizer_state])
@pytest.mark.parametrize("legacy", [False, True])
def test_both_ways_with_torch(torch_ref, build, legacy):
    kw = {"_use_new_zipfile_serialization": False} if legacy else {}
    # ctorch -> torch
    got = torch_ref.load(io.BytesIO(saved(build(ctorch), **kw)))
    assert sc.describe(got, torch_ref) == sc.describe(build(torch_ref), torch_ref)
    # torch -> ctorch
    b = io.BytesIO()
    torch_ref.save(build(torch_ref), b, **kw)
    got = loaded(b.getvalue())
    assert sc.describe(got, ctorch) == sc.describe(build(ctorch), ctorch)
    if not legacy:
        assert saved(build(ctorch)) == b.getvalue()


def test_torch_sees_shared_storage(torch_ref):
    base = ctorch.arange(12.0).reshape(3, 4)
    got = torch_ref.load(io.BytesIO(saved({"a": base, "b": base.t()[1:], "p":
                                           ctorch.nn.Parameter(base[0])})))
    assert got["a"].storage().data_ptr() == got["b"].storage().data_ptr()
    assert type(got["p"]) is torch_ref.nn.Parameter
    got["a"][1, 1] = 100
    assert got["b"][0, 1].item() == 100


def test_weights_only_against_torch(torch_ref):
    for obj in (sc.state_dict, lambda m: collections.Counter([1]), lambda m: [1, "a", (2,)]):
        b = io.BytesIO()
        torch_ref.save(obj(torch_ref), b)
        try:
            want = sc.describe(torch_ref.load(io.BytesIO(b.getvalue()), weights_only=True),
                               torch_ref)
        except pickle.UnpicklingError as e:
            want = str(e)
        try:
            got = sc.describe(loaded(b.getvalue(), weights_only=True), ctorch)
        except pickle.UnpicklingError as e:
            got = str(e)
        assert got == want


def test_map_location_against_torch(torch_ref):
    b = io.BytesIO()
    torch_ref.save({"t": torch_ref.arange(3.0)}, b)
    for ml in ("cpu", {"cpu": "cpu"}):
        assert loaded(b.getvalue(), map_location=ml)["t"].tolist() == \
            torch_ref.load(io.BytesIO(b.getvalue()), map_location=ml)["t"].tolist()


def test_no_leaks():
    """save/load, plain pickle and the error paths leave no tensor or
    storage alive (nothing waits for the garbage collector)."""
    def work():
        obj = sc.tensors(ctorch)
        loaded(saved(obj))
        loaded(saved(obj, _use_new_zipfile_serialization=False))
        loaded(saved(sc.state_dict(ctorch)), weights_only=True)
        pickle.loads(pickle.dumps(obj["f32"]))
        for data in _corruptions().values():
            _err(data)
        del obj

    work()
    live = ctorch._C._live_counts()
    for _ in range(3):
        work()
    assert ctorch._C._live_counts() == live
