"""torch.save / torch.load in PyTorch's file formats.

The zip format (PyTorch >= 1.6, what torch.save writes): a zip archive,
stored (not compressed), of

    <archive>/data.pkl      the object, pickled with protocol 2; every
                            storage is a persistent id
                            ('storage', torch.FloatStorage, key, 'cpu', numel)
    <archive>/data/<key>    the bytes of each storage, once per storage
    <archive>/version       b'3\\n'

where <archive> is the file's name without directory and extension, or
'archive' for file objects.  Records start on 64-byte boundaries (an 'FB'
extra field pads the local headers) and the archive ends with zip64 end
records, byte for byte as PyTorch 1.13's writer makes them, so the files
ctorch writes load in PyTorch and the reverse.

Names: the pickle always names torch's objects
(torch._utils._rebuild_tensor_v2, torch.FloatStorage,
torch.nn.parameter.Parameter, ...), whether ctorch runs as `ctorch` or as
`torch` under ctorchrun, and loading maps every torch.X back to ctorch.X.
The pickler is pickle's Python implementation with save_global taught the
renaming; the unpickler is pickle's C one with find_class taught it.

Reading trusts nothing in the file: the zip structures, record sizes and
CRCs are checked (PyTorch's messages where it has them), and a tensor's
geometry must lie inside its storage (torch's setStorage check).  The
legacy format (PyTorch < 1.6: magic number, pickles, raw storages) is read
and, with _use_new_zipfile_serialization=False, written.
"""
import io
import os
import pathlib
import pickle
import struct
import sys
import warnings
import zlib
from collections import OrderedDict

from . import _C
from .storage import TypedStorage, UntypedStorage, _storage_classes

__all__ = ["save", "load", "DEFAULT_PROTOCOL", "default_restore_location", "location_tag",
           "register_package", "SourceChangeWarning"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950a86a20f9469cfc6c
PROTOCOL_VERSION = 1001
# the file format version PyTorch 1.13 writes, and the newest it reads
_FILE_FORMAT_VERSION = 3
_MAX_FILE_FORMAT_VERSION = 10
_ALIGNMENT = 64
_ZIP64_LIMIT = 0xFFFFFFFF      # sizes and offsets from here on need zip64 fields
_FFFF = 0xFFFFFFFF             # the 32-bit field value that says "see zip64"

UNSAFE_MESSAGE = (
    "Weights only load failed. Re-running `torch.load` with `weights_only` set to `False`"
    " will likely succeed, but it can result in arbitrary code execution."
    "Do it only if you get the file from a trusted source. WeightsUnpickler error: "
)


class SourceChangeWarning(Warning):
    pass


# --- storage locations ------------------------------------------------------------

_package_registry = []


def register_package(priority, tagger, deserializer):
    """Register a device's location tagger and deserializer (torch's API)."""
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda e: e[0])


def _cpu_tag(obj):
    if obj.device.type == "cpu":
        return "cpu"


def _cuda_tag(obj):
    if obj.device.type == "cuda":
        return "cuda:" + str(obj.device.index)


def _cpu_deserialize(obj, location):
    if location == "cpu":
        return obj


def _cuda_available():
    cuda = getattr(sys.modules.get("ctorch"), "cuda", None)
    try:
        return bool(cuda is not None and cuda.is_available())
    except Exception:  # noqa: BLE001 - no usable CUDA
        return False


def _cuda_deserialize(obj, location):
    if location.startswith("cuda"):
        if not _cuda_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA "
                               "device but torch.cuda.is_available() is False. "
                               "If you are running on a CPU-only machine, "
                               "please use torch.load with map_location=torch.device('cpu') "
                               "to map your storages to the CPU.")
        moved = obj._ref._as_tensor(_C.uint8).to(location)
        return UntypedStorage._from_ref(moved._storage_ref())


register_package(10, _cpu_tag, _cpu_deserialize)
register_package(20, _cuda_tag, _cuda_deserialize)


def location_tag(storage):
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError("don't know how to determine data location of "
                       + type(storage).__name__)


def default_restore_location(storage, location):
    for _, _, fn in _package_registry:
        result = fn(storage, location)
        if result is not None:
            return result
    raise RuntimeError("don't know how to restore data location of "
                       + "torch.storage.UntypedStorage (tagged with " + location + ")")


def _get_restore_location(map_location):
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        def restore_location(storage, location):
            location = map_location.get(location, location)
            return default_restore_location(storage, location)
    elif isinstance(map_location, str):
        def restore_location(storage, location):
            return default_restore_location(storage, map_location)
    elif isinstance(map_location, _C.device):
        def restore_location(storage, location):
            return default_restore_location(storage, str(map_location))
    else:
        def restore_location(storage, location):
            result = map_location(storage, location)
            if result is None:
                result = default_restore_location(storage, location)
            return result
    return restore_location


# --- layouts pickle as torch's do -------------------------------------------------

def _get_layout(name):
    """torch.serialization._get_layout: a layout from its printed name."""
    from . import _layouts
    return getattr(_layouts, name.split(".")[-1])


# --- names: ctorch objects written as torch's ------------------------------------

def _torch_module_name(module):
    """'ctorch.x' -> 'torch.x'; None for modules that are not ctorch's."""
    if module == "ctorch" or module.startswith("ctorch."):
        return "torch" + module[len("ctorch"):]
    if module == "torch" or module.startswith("torch."):
        return module
    return None


def _special_names():
    """ctorch objects whose torch name is not their own module + name."""
    out = {id(_C._rebuild_device): ("torch", "device"),
           id(_C._rebuild_size): ("torch", "Size")}
    return out


class _Pickler(pickle._Pickler):
    """pickle's Python pickler, writing torch's names for ctorch's objects
    and tensors as torch reduces them."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol, persistent_id=None):
        super().__init__(file, protocol)
        self._pid = persistent_id
        self._special = _special_names()

    def persistent_id(self, obj):
        return self._pid(obj) if self._pid is not None else None

    def reducer_override(self, obj):
        from ._layouts import layout
        from ._tensor import Tensor
        if isinstance(obj, Tensor):
            return _reduce_for_save(obj)
        if isinstance(obj, layout):
            return (_get_layout, (repr(obj),))
        return NotImplemented

    def save_global(self, obj, name=None):
        special = self._special.get(id(obj))
        if special is not None:
            module, name = special
        else:
            if name is None:
                name = getattr(obj, "__qualname__", None) or obj.__name__
            module = getattr(obj, "__module__", None)
            if module is None:
                module = pickle.whichmodule(obj, name)
            module = _torch_module_name(module)
            if module is None:
                return super().save_global(obj, name)
        write = self.write
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            write(pickle.STACK_GLOBAL)
        elif self.proto >= 3:
            write(pickle.GLOBAL + bytes(module, "utf-8") + b"\n" +
                  bytes(name, "utf-8") + b"\n")
        else:
            write(pickle.GLOBAL + bytes(module, "ascii") + b"\n" +
                  bytes(name, "ascii") + b"\n")
        self.memoize(obj)

    def _save_function(self, obj):
        self.save_global(obj)

    dispatch[type(_get_layout)] = _save_function


def _reduce_for_save(t):
    """A tensor (or Parameter, or subclass) reduced as torch does."""
    from ._tensor import Tensor, _rebuild_from_type_v2
    from ._utils import _rebuild_parameter, _reduce_tensor
    try:
        from .nn.parameter import Parameter
    except ImportError:  # pragma: no cover - nn not built
        Parameter = None
    if Parameter is not None and type(t) is Parameter:
        return (_rebuild_parameter, (t.data, t.requires_grad, OrderedDict()))
    if type(t) is Tensor:
        return _reduce_tensor(t)
    return t.__reduce_ex__(DEFAULT_PROTOCOL)


def _storage_identity(obj):
    """(untyped ref, dtype, torch storage type, numel) of a storage object."""
    if isinstance(obj, TypedStorage):
        name = obj.pickle_storage_type()
        return obj._ref, obj.dtype, _storage_classes[name], obj.size()
    return obj._ref, _C.uint8, UntypedStorage, obj.nbytes()


def _check_one_dtype(dtypes, ptr, dtype):
    """torch.save's refusal of one data pointer saved as two dtypes; dtypes maps
    each nonzero data pointer met so far to its dtype."""
    if ptr == 0:
        return
    if dtypes.setdefault(ptr, dtype) != dtype:
        raise RuntimeError("Cannot save multiple tensors or storages that "
                           "view the same data as different types")


def _storage_bytes(ref):
    """A memoryview of a storage's bytes (no copy)."""
    if ref.nbytes() == 0:
        return memoryview(b"")
    t = ref._as_tensor(_C.uint8)
    if t.device.type != "cpu":
        t = t.cpu()
    return memoryview(t.numpy()).cast("B")


# --- the zip container --------------------------------------------------------------

def _archive_name(f):
    """PyTorch's record prefix: the file's base name without extension."""
    if not isinstance(f, (str, os.PathLike)):
        return "archive"
    name = os.fspath(f)
    if isinstance(name, bytes):
        name = name.decode()
    start = name.rfind("/") + 1
    end = len(name)
    for i in range(len(name), start, -1):
        if name[i - 1] == ".":
            end = i - 1
            break
    return name[start:end] or "archive"


class _ZipWriter:
    """The zip archive of PyTorch's writer (miniz as caffe2's
    PyTorchStreamWriter drives it): stored records aligned to 64 bytes by
    an 'FB' extra field, data descriptors, zip64 end records."""

    def __init__(self, f, archive_name):
        self.f = f
        self.prefix = archive_name + "/"
        self.pos = 0
        self.entries = []

    def _write(self, b):
        self.f.write(b)
        self.pos += len(b)

    def write_record(self, name, data):
        data = memoryview(data).cast("B")
        size = data.nbytes
        fname = (self.prefix + name).encode("utf-8")
        offset = self.pos
        # zip64 extra field: the sizes when they need 64 bits, the offset
        # when it does (miniz puts both in the local header too, with the
        # compressed size not known yet: 0)
        fields = ([size, 0] if size >= _ZIP64_LIMIT else []) + \
                 ([offset] if offset >= _ZIP64_LIMIT else [])
        big = bool(fields)
        z64 = b""
        if big:
            z64 = struct.pack("<HH%dQ" % len(fields), 1, 8 * len(fields), *fields)
        start = offset + 30 + len(fname) + len(z64) + 4
        pad = (-start) % _ALIGNMENT
        extra = z64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        crc = zlib.crc32(data)
        # an empty record has no data descriptor (miniz's way)
        flags = 0x0808 if size else 0x0800
        self._write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 0, flags, 0, 0, 0, 0, 0, 0,
                                len(fname), len(extra)))
        self._write(fname)
        self._write(extra)
        if size:
            self._write(data)
            if big:
                self._write(struct.pack("<4sIQQ", b"PK\x07\x08", crc, size, size))
            else:
                self._write(struct.pack("<4sIII", b"PK\x07\x08", crc, size, size))
        self.entries.append((fname, crc, size, offset, flags))

    def finish(self):
        cd_start = self.pos
        for fname, crc, size, offset, flags in self.entries:
            fields = []
            csize = usize = size
            off = offset
            if size >= _ZIP64_LIMIT:
                fields += [size, size]
                csize = usize = _FFFF
            if offset >= _ZIP64_LIMIT:
                fields.append(offset)
                off = _FFFF
            extra = (struct.pack("<HH", 1, 8 * len(fields)) +
                     struct.pack("<%dQ" % len(fields), *fields)) if fields else b""
            self._write(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 0, 0,
                                    flags, 0, 0, 0, crc, csize, usize,
                                    len(fname), len(extra), 0, 0, 0, 0, off))
            self._write(fname)
            self._write(extra)
        cd_size = self.pos - cd_start
        n = len(self.entries)
        eocd64 = self.pos
        self._write(struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 0x031e, 0x002d, 0, 0,
                                n, n, cd_size, cd_start))
        self._write(struct.pack("<4sIQI", b"PK\x06\x07", 0, eocd64, 1))
        self._write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, min(n, 0xFFFF),
                                min(n, 0xFFFF), min(cd_size, _FFFF),
                                min(cd_start, _FFFF), 0))


def _zip_error(what):
    return RuntimeError("PytorchStreamReader failed reading zip archive: " + what)


class _ZipReader:
    """A reader of the zip archives PyTorch writes (and of any stored or
    deflated zip), over a seekable binary file.  Checks every structure it
    relies on; records are read on demand."""

    def __init__(self, f):
        self.f = f
        f.seek(0, io.SEEK_END)
        self.size = size = f.tell()
        if size < 22:
            raise _zip_error("not a ZIP archive")
        tail_len = min(size, 22 + 0xFFFF)
        f.seek(size - tail_len)
        tail = f.read(tail_len)
        at = tail.rfind(b"PK\x05\x06")
        while at >= 0 and at + 22 > len(tail):
            at = tail.rfind(b"PK\x05\x06", 0, at)
        if at < 0:
            raise _zip_error("failed finding central directory")
        eocd_pos = size - tail_len + at
        (_, disk, cd_disk, n_disk, n, cd_size, cd_off, _) = struct.unpack(
            "<4sHHHHIIH", tail[at:at + 22])
        # zip64: the locator sits just before the end record
        if eocd_pos >= 20:
            f.seek(eocd_pos - 20)
            loc = f.read(20)
            if loc[:4] == b"PK\x06\x07":
                z64_pos = struct.unpack("<Q", loc[8:16])[0]
                if z64_pos + 56 > eocd_pos:
                    raise _zip_error("invalid header or archive is corrupted")
                f.seek(z64_pos)
                rec = f.read(56)
                if rec[:4] != b"PK\x06\x06":
                    raise _zip_error("invalid header or archive is corrupted")
                (_, _, _, _, disk, cd_disk, n_disk, n, cd_size, cd_off) = struct.unpack(
                    "<4sQHHIIQQQQ", rec)
        if disk != 0 or cd_disk != 0 or n_disk != n:
            raise _zip_error("unsupported multidisk archive")
        if cd_off + cd_size > eocd_pos or cd_size < 46 * n:
            raise _zip_error("invalid header or archive is corrupted")
        f.seek(cd_off)
        cd = f.read(cd_size)
        if len(cd) != cd_size:
            raise _zip_error("invalid header or archive is corrupted")
        self.records = {}
        self.order = []
        p = 0
        for _ in range(n):
            if p + 46 > len(cd) or cd[p:p + 4] != b"PK\x01\x02":
                raise _zip_error("invalid header or archive is corrupted")
            (flags, method, crc, csize, usize, nlen, elen, clen, off) = struct.unpack(
                "<8xHH4xIIIHHH8xI", cd[p:p + 46])
            name = cd[p + 46:p + 46 + nlen]
            extra = cd[p + 46 + nlen:p + 46 + nlen + elen]
            if p + 46 + nlen + elen + clen > len(cd):
                raise _zip_error("invalid header or archive is corrupted")
            p += 46 + nlen + elen + clen
            if _FFFF in (csize, usize, off):
                usize, csize, off = self._zip64_fields(extra, usize, csize, off)
            if method not in (0, 8) or flags & 1:
                raise _zip_error("unsupported compression method or encryption")
            if off + 30 > cd_off or (method == 0 and csize != usize):
                raise _zip_error("invalid header or archive is corrupted")
            name = name.decode("utf-8", "replace")
            self.records[name] = (off, csize, usize, crc, method)
            self.order.append(name)
        if not self.order:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: "
                               "archive has no records")
        first = self.order[0]
        slash = first.find("/")
        if slash < 0:
            raise RuntimeError("file in archive is not in a subdirectory: " + first)
        self.prefix = first[:slash + 1]

    @staticmethod
    def _zip64_fields(extra, usize, csize, off):
        p = 0
        while p + 4 <= len(extra):
            hid, hlen = struct.unpack("<HH", extra[p:p + 4])
            body = extra[p + 4:p + 4 + hlen]
            if hid == 1:
                vals = list(struct.unpack("<%dQ" % (len(body) // 8), body[:len(body) // 8 * 8]))
                if usize == _FFFF and vals:
                    usize = vals.pop(0)
                if csize == _FFFF and vals:
                    csize = vals.pop(0)
                if off == _FFFF and vals:
                    off = vals.pop(0)
                return usize, csize, off
            p += 4 + hlen
        raise _zip_error("invalid header or archive is corrupted")

    def has_record(self, name):
        return self.prefix + name in self.records

    def all_records(self):
        return [n[len(self.prefix):] for n in self.order if n.startswith(self.prefix)]

    def record_size(self, name):
        return self._entry(name)[2]

    def _entry(self, name):
        entry = self.records.get(self.prefix + name)
        if entry is None:
            raise RuntimeError("PytorchStreamReader failed locating file %s: file not found"
                               % name)
        return entry

    def _data_offset(self, name, off, csize):
        f = self.f
        f.seek(off)
        hdr = f.read(30)
        if len(hdr) != 30 or hdr[:4] != b"PK\x03\x04":
            raise RuntimeError("PytorchStreamReader failed reading file %s: invalid header "
                               "or archive is corrupted" % name)
        nlen, elen = struct.unpack("<HH", hdr[26:30])
        start = off + 30 + nlen + elen
        if start + csize > self.size:
            raise RuntimeError("PytorchStreamReader failed reading file %s: file read "
                               "failed" % name)
        return start

    def read_into(self, name, buf):
        """Read record `name` into the writable buffer buf (of its size)."""
        off, csize, usize, crc, method = self._entry(name)
        start = self._data_offset(name, off, csize)
        view = memoryview(buf).cast("B")
        if view.nbytes != usize:
            raise RuntimeError("PytorchStreamReader failed reading file %s: size mismatch"
                               % name)
        self.f.seek(start)
        if method == 0:
            got = 0
            while got < usize:
                k = self.f.readinto(view[got:])
                if not k:
                    raise RuntimeError("PytorchStreamReader failed reading file %s: file "
                                       "read failed" % name)
                got += k
        else:
            data = zlib.decompressobj(-15).decompress(self.f.read(csize), usize)
            if len(data) != usize:
                raise RuntimeError("PytorchStreamReader failed reading file %s: "
                                   "decompression failed" % name)
            view[:] = data
        if zlib.crc32(view) != crc:
            raise RuntimeError("PytorchStreamReader failed reading file %s: CRC-32 check "
                               "failed" % name)

    def get_record(self, name):
        buf = bytearray(self.record_size(name))
        self.read_into(name, buf)
        return bytes(buf)


# --- save -------------------------------------------------------------------------

def _is_path(f):
    return isinstance(f, (str, pathlib.PurePath))


class _StorageCollector:
    """persistent_id for torch.save: each storage once, keyed '0', '1', ...
    in the order the pickle meets them."""

    def __init__(self):
        self.keys = {}          # untyped ref -> key
        self.storages = {}      # key -> untyped ref
        self.dtypes = {}        # data_ptr -> dtype

    def __call__(self, obj):
        if not isinstance(obj, (TypedStorage, UntypedStorage)):
            return None
        ref, dtype, storage_type, numel = _storage_identity(obj)
        _check_one_dtype(self.dtypes, ref.data_ptr(), dtype)
        key = self.keys.setdefault(ref, str(len(self.keys)))
        self.storages[key] = ref
        return ("storage", storage_type, key, location_tag(obj), numel)


def _pickler_for(pickle_module, file, protocol, persistent_id):
    if pickle_module is pickle:
        return _Pickler(file, protocol, persistent_id)
    p = pickle_module.Pickler(file, protocol=protocol)
    p.persistent_id = persistent_id
    return p


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True):
    """save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization=True)

    Saves an object to a disk file (a path or a writable file object) in
    PyTorch's format; PyTorch loads it.  Storage sharing is preserved."""
    def write(fh, archive_name):
        if _use_new_zipfile_serialization:
            _save_zip(obj, fh, archive_name, pickle_module, pickle_protocol)
        else:
            _legacy_save(obj, fh, pickle_module, pickle_protocol)

    if _is_path(f):
        with open(f, "wb") as fh:
            write(fh, _archive_name(f))
    else:
        write(f, "archive")
        f.flush()


def _save_zip(obj, f, archive_name, pickle_module, pickle_protocol):
    collector = _StorageCollector()
    data_buf = io.BytesIO()
    _pickler_for(pickle_module, data_buf, pickle_protocol, collector).dump(obj)
    writer = _ZipWriter(f, archive_name)
    writer.write_record("data.pkl", data_buf.getvalue())
    for key in sorted(collector.storages):
        writer.write_record("data/" + key, _storage_bytes(collector.storages[key]))
    writer.write_record("version", b"%d\n" % _FILE_FORMAT_VERSION)
    writer.finish()


def _legacy_save(obj, f, pickle_module, pickle_protocol):
    """PyTorch < 1.6's format: magic number, protocol version, system info,
    the object's pickle, the storage keys, then each storage as its element
    count (int64) and bytes."""
    storages = {}
    dtypes = {}

    def persistent_id(o):
        if not isinstance(o, (TypedStorage, UntypedStorage)):
            return None
        ref, dtype, storage_type, numel = _storage_identity(o)
        ptr = ref.data_ptr()
        _check_one_dtype(dtypes, ptr, dtype)
        key = str(ptr if ptr != 0 else id(ref))
        storages.setdefault(key, (ref, dtype))
        return ("storage", storage_type, key, location_tag(o), numel, None)

    sys_info = dict(protocol_version=PROTOCOL_VERSION,
                    little_endian=sys.byteorder == "little",
                    type_sizes=dict(short=2, int=4, long=8))
    for v in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        _pickler_for(pickle_module, f, pickle_protocol, None).dump(v)
    _pickler_for(pickle_module, f, pickle_protocol, persistent_id).dump(obj)
    keys = sorted(storages)
    _pickler_for(pickle_module, f, pickle_protocol, None).dump(keys)
    f.flush()
    for key in keys:
        ref, dtype = storages[key]
        data = _storage_bytes(ref)
        f.write(struct.pack("<q", data.nbytes // dtype.itemsize))
        f.write(data)


# --- load -------------------------------------------------------------------------

def _torch_global(module, name):
    """The ctorch object named torch.<module>.<name> in a pickle."""
    import importlib
    if module == "torch.tensor":
        module = "torch._tensor"
    if name in _storage_classes and module == "torch":
        return _storage_classes[name]
    cmod = "ctorch" + module[len("torch"):]
    try:
        mod = importlib.import_module(cmod)
    except ImportError:
        raise ModuleNotFoundError("No module named '%s'" % module) from None
    obj = mod
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError("Can't get attribute '%s' on <module '%s'>"
                                 % (name, module)) from None
    return obj


def _maybe_decode_ascii(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


def _storage_dtype(storage_type):
    if storage_type is UntypedStorage:
        return _C.uint8
    dtype = getattr(storage_type, "dtype", None)
    if not isinstance(dtype, _C.dtype):
        raise RuntimeError("Unknown storage type in persistent id: %r" % (storage_type,))
    return dtype


def _read_record_storage(zip_reader, name):
    """A new storage holding record `name` (an UntypedStorage)."""
    n = zip_reader.record_size(name)
    t = _C.empty(n, dtype=_C.uint8)
    if n:
        zip_reader.read_into(name, t.numpy())
    else:
        zip_reader.read_into(name, bytearray(0))
    return UntypedStorage._from_ref(t._storage_ref())


class _Unpickler(pickle.Unpickler):
    """pickle's C unpickler, finding torch's names as ctorch's objects."""

    def find_class(self, module, name):
        if module == "torch" or module.startswith("torch."):
            return _torch_global(module, name)
        return super().find_class(module, name)


def _make_unpickler(pickle_module, data_file, persistent_load, **pickle_load_args):
    # persistent_load is an instance attribute, never a method of a class
    # made here: a class lives in a reference cycle and would keep the
    # loaded storages until the garbage collector runs
    cls = _Unpickler if pickle_module is pickle else pickle_module.Unpickler
    u = cls(data_file, **pickle_load_args)
    if persistent_load is not None:
        u.persistent_load = persistent_load
    return u


def _load_zip(zip_reader, map_location, pickle_module, pickle_file="data.pkl",
              **pickle_load_args):
    if zip_reader.has_record("version"):
        text = zip_reader.get_record("version").strip()
        try:
            version = int(text)
        except ValueError:
            raise RuntimeError("PytorchStreamReader failed reading file version: invalid "
                               "version record %r" % text) from None
        if version > _MAX_FILE_FORMAT_VERSION:
            raise RuntimeError("Attempted to read a PyTorch file with version %d, but the "
                               "maximum supported version for reading is %d. Your PyTorch "
                               "installation may be too old."
                               % (version, _MAX_FILE_FORMAT_VERSION))
    restore_location = _get_restore_location(map_location)
    loaded = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or len(saved_id) < 1:
            raise RuntimeError("Unsupported persistent id: %r" % (saved_id,))
        typename = _maybe_decode_ascii(saved_id[0])
        data = saved_id[1:]
        assert typename == "storage", \
            f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'"
        if len(data) != 4:
            raise RuntimeError("Invalid storage persistent id: %r" % (saved_id,))
        storage_type, key, location, numel = data
        dtype = _storage_dtype(storage_type)
        key = _maybe_decode_ascii(key)
        if key not in loaded:
            untyped = _read_record_storage(zip_reader, "data/%s" % key)
            untyped = restore_location(untyped, _maybe_decode_ascii(location))
            if isinstance(untyped, TypedStorage):
                untyped = untyped.untyped()
            loaded[key] = TypedStorage._from_ref(untyped._ref, dtype)
        return loaded[key]

    data_file = io.BytesIO(zip_reader.get_record(pickle_file))
    return _make_unpickler(pickle_module, data_file, persistent_load,
                           **pickle_load_args).load()


def _legacy_load(f, map_location, pickle_module, **pickle_load_args):
    """PyTorch < 1.6's format (see _legacy_save); the older tar format is
    refused with a clear error."""
    restore_location = _get_restore_location(map_location)
    start = f.tell()
    head = f.read(512)
    f.seek(start)
    if len(head) >= 262 and head[257:262] == b"ustar":
        raise RuntimeError("ctorch.load: this file is in PyTorch's tar serialization format "
                           "(PyTorch <= 0.3), which ctorch does not read; load it with "
                           "PyTorch and save it again")

    def load_one():
        return _make_unpickler(pickle_module, f, None, **pickle_load_args).load()

    magic_number = load_one()
    if magic_number != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = load_one()
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError("Invalid protocol version: %s" % protocol_version)
    load_one()      # system info
    deserialized = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise RuntimeError("Unsupported persistent id: %r" % (saved_id,))
        typename = _maybe_decode_ascii(saved_id[0])
        data = saved_id[1:]
        if typename == "module":
            return data[0]
        if typename != "storage":
            raise RuntimeError("Unknown saved id type: %s" % saved_id[0])
        storage_type, root_key, location, numel, view_metadata = data
        dtype = _storage_dtype(storage_type)
        location = _maybe_decode_ascii(location)
        if root_key not in deserialized:
            nbytes = numel * dtype.itemsize
            t = _C.empty(nbytes, dtype=_C.uint8)
            deserialized[root_key] = (TypedStorage._from_ref(t._storage_ref(), dtype),
                                      location)
        typed = deserialized[root_key][0]
        if view_metadata is not None:
            # written by PyTorch < 1.0 only (1.x writes None)
            raise RuntimeError("ctorch.load: this file holds storage views (PyTorch < 1.0), "
                               "which ctorch does not read; load it with PyTorch and save "
                               "it again")
        return typed

    unpickler = _make_unpickler(pickle_module, f, persistent_load, **pickle_load_args)
    result = unpickler.load()
    keys = load_one()
    for key in keys:
        if key not in deserialized:
            raise RuntimeError("corrupt file: storage %r is not used by the pickle" % key)
        typed, location = deserialized[key]
        hdr = f.read(8)
        if len(hdr) != 8:
            raise RuntimeError("unexpected EOF, expected 8 more bytes. The file might be "
                               "corrupted.")
        numel = struct.unpack("<q", hdr)[0]
        nbytes = typed.nbytes()
        if numel * typed.dtype.itemsize != nbytes:
            raise RuntimeError("storage has wrong byte size: expected %d got %d"
                               % (nbytes, numel * typed.dtype.itemsize))
        if nbytes:
            buf = memoryview(typed._ref._as_tensor(_C.uint8).numpy()).cast("B")
            got = 0
            while got < nbytes:
                k = f.readinto(buf[got:])
                if not k:
                    raise RuntimeError("unexpected EOF, expected %d more bytes. The file "
                                       "might be corrupted." % (nbytes - got))
                got += k
        if location != "cpu":
            restore_location(typed.untyped(), location)
    return result


def _is_zipfile(f):
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def _check_seekable(f):
    try:
        f.seek(f.tell())
        return True
    except (io.UnsupportedOperation, AttributeError) as e:
        for p in ("seek", "tell"):
            if p in str(e):
                raise type(e)(str(e) + ". You can only torch.load from a file that is "
                              "seekable. Please pre-load the data into a buffer like "
                              "io.BytesIO and try to load from it instead.") from None
        raise


def load(f, map_location=None, pickle_module=None, *, weights_only=False,
         **pickle_load_args):
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=False,
    **pickle_load_args)

    Loads an object saved with torch.save (by PyTorch or ctorch) from a path
    or a seekable binary file object.  map_location remaps storage locations
    (a str, torch.device, dict or callable, as in PyTorch); weights_only
    restricts unpickling to tensors, primitive types and containers."""
    if os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in ["1", "y", "yes", "true"]:
        weights_only = True
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when expiclit picke_module is "
                               "specified")
        from . import _weights_only_unpickler
        unpickler_module = _weights_only_unpickler
    else:
        unpickler_module = pickle if pickle_module is None else pickle_module
    if "encoding" not in pickle_load_args:
        pickle_load_args["encoding"] = "utf-8"

    if _is_path(f):
        with open(f, "rb") as fh:
            return _load_file(fh, map_location, unpickler_module, weights_only,
                              pickle_load_args)
    _check_seekable(f)
    return _load_file(f, map_location, unpickler_module, weights_only, pickle_load_args)


def _load_file(f, map_location, unpickler_module, weights_only, pickle_load_args):
    if _is_zipfile(f):
        reader = _ZipReader(f)
        if reader.has_record("constants.pkl"):
            raise RuntimeError("ctorch.load: this is a TorchScript archive "
                               "(torch.jit.save), which ctorch cannot load")
        load_fn, source = _load_zip, reader
    else:
        load_fn, source = _legacy_load, f
    if not weights_only:
        return load_fn(source, map_location, unpickler_module, **pickle_load_args)
    try:
        return load_fn(source, map_location, unpickler_module, **pickle_load_args)
    except RuntimeError as e:
        # as torch: what the restricted unpickler refuses, and any other
        # RuntimeError while loading, comes back as an UnpicklingError
        raise pickle.UnpicklingError(UNSAFE_MESSAGE + str(e)) from None

