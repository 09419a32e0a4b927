"""torch.TypedStorage / torch.UntypedStorage over a C storage handle."""
import sys

from . import _C


def _strategy_kind():
    """0 for file_descriptor, 1 for file_system: ctorch.multiprocessing's
    strategy, or the default before that module is loaded."""
    mp = sys.modules.get(__package__ + ".multiprocessing")
    return 1 if mp is not None and mp.get_sharing_strategy() == "file_system" else 0


_cleanup_registered = False


def _register_cleanup():
    """Named segments (file_system): at this process's exit (normal, or the
    end of a multiprocessing child), unlink the names it created and those
    left by processes that died.  Only reached once ctorch.multiprocessing
    chose that strategy, so multiprocessing is loaded already."""
    global _cleanup_registered
    if not _cleanup_registered:
        from multiprocessing import util
        _cleanup_registered = True
        _C.StorageBase._shm_cleanup(False)
        util.Finalize(None, _C.StorageBase._shm_cleanup, args=(True,), exitpriority=-100)


def _share(ref, kind):
    """Move a storage handle into shared memory of that kind (0 or 1)."""
    if kind == 1:
        _register_cleanup()
    ref._share_(kind)


def _share_memory(ref):
    """share_memory_: into shared memory of the current strategy, unless
    the storage is shared already."""
    if not ref.is_shared():
        _share(ref, _strategy_kind())


def _shared_empty(size, dtype):
    """A new contiguous tensor of that size and dtype in fresh shared memory
    (torch's storage._new_shared + resize_): a DataLoader worker collates
    into one, so the batch crosses to the main process without a copy."""
    size = tuple(size)
    n = 1
    for d in size:
        n *= d
    kind = _strategy_kind()
    if kind == 1:
        _register_cleanup()
    ref = _C.StorageBase._new_shared(n * dtype.itemsize, kind)
    stride, step = [], 1
    for d in reversed(size):
        stride.append(step)
        step *= max(d, 1)
    return ref._tensor(dtype, 0, size, tuple(reversed(stride)))


class UntypedStorage:
    """The bytes under one or more tensors."""

    @classmethod
    def _from_ref(cls, ref):
        self = cls.__new__(cls)
        self._ref = ref
        return self

    def data_ptr(self):
        return self._ref.data_ptr()

    def nbytes(self):
        return self._ref.nbytes()

    def size(self):
        return self._ref.nbytes()

    def __len__(self):
        return self._ref.nbytes()

    @property
    def device(self):
        return self._ref.device

    def element_size(self):
        return 1

    def is_shared(self):
        return self._ref.is_shared()

    def share_memory_(self):
        _share_memory(self._ref)
        return self

    def tolist(self):
        return self._ref._as_tensor(_C.uint8).tolist()

    def __getitem__(self, idx):
        v = self._ref._as_tensor(_C.uint8)[idx]
        return v.item() if isinstance(idx, int) else v

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and self._ref == other._ref

    def __hash__(self):
        return hash(self._ref)

    def __repr__(self):
        body = "\n".join(" " + str(v) for v in self.tolist())
        head = body + "\n" if body else ""
        return "%s[torch.storage.UntypedStorage(device=%s) of size %d]" % (
            head, self.device, len(self))


class TypedStorage:
    """A storage seen as elements of one dtype (what Tensor.storage() gives)."""

    @classmethod
    def _from_ref(cls, ref, dtype):
        self = cls.__new__(cls)
        self._ref = ref
        self.dtype = dtype
        return self

    def _elements(self):
        return self._ref._as_tensor(self.dtype)

    def data_ptr(self):
        return self._ref.data_ptr()

    def nbytes(self):
        return self._ref.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def size(self):
        return self._ref.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    @property
    def device(self):
        return self._ref.device

    def is_shared(self):
        return self._ref.is_shared()

    def share_memory_(self):
        _share_memory(self._ref)
        return self

    def tolist(self):
        return self._elements().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, idx):
        v = self._elements()[idx]
        return v.item() if isinstance(idx, int) else v

    def __setitem__(self, idx, value):
        self._elements()[idx] = value

    def untyped(self):
        return UntypedStorage._from_ref(self._ref)

    _untyped_storage = property(untyped)

    def __eq__(self, other):
        return isinstance(other, TypedStorage) and self._ref == other._ref

    def __hash__(self):
        return hash(self._ref)

    def __repr__(self):
        body = "\n".join(" " + str(v) for v in self.tolist())
        head = body + "\n" if body else ""
        return "%s[torch.storage.TypedStorage(dtype=%s, device=%s) of size %d]" % (
            head, self.dtype, self.device, len(self))


for _cls in (UntypedStorage, TypedStorage):
    _cls.__module__ = "torch.storage"


def _load_from_bytes(b):
    """pickle's way back to a storage (TypedStorage.__reduce__)."""
    import io
    from .serialization import load
    return load(io.BytesIO(b))


def _typed_reduce(self):
    # as torch: the storage travels as a saved file of its own
    import io
    from .serialization import save
    b = io.BytesIO()
    save(self, b)
    return (_load_from_bytes, (b.getvalue(),))


# torch's legacy storage type names, which name storages in saved files
_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage", "qint8": "QInt8Storage", "quint8": "QUInt8Storage",
    "qint32": "QInt32Storage",
}


def _pickle_storage_type(self):
    """'FloatStorage' for a float32 TypedStorage (its name in saved files)."""
    return _STORAGE_NAMES[str(self.dtype).split(".")[-1]]


TypedStorage.__reduce__ = _typed_reduce
TypedStorage.pickle_storage_type = _pickle_storage_type
TypedStorage._pickle_storage_type = _pickle_storage_type
UntypedStorage.__reduce__ = _typed_reduce


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype == cls.dtype


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """torch.FloatStorage and friends: a TypedStorage of one dtype.
    FloatStorage(n) has n uninitialised elements, FloatStorage(seq) the
    values of seq."""

    def __new__(cls, *args, **kwargs):
        from . import _C
        if kwargs or len(args) > 1:
            raise TypeError("%s(): expected a size or a sequence" % cls.__name__)
        if not args:
            t = _C.empty(0, dtype=cls.dtype)
        elif isinstance(args[0], int):
            t = _C.empty(args[0], dtype=cls.dtype)
        else:
            t = _C.tensor(list(args[0]), dtype=cls.dtype)
        self = object.__new__(cls)
        self._ref = t._storage_ref()
        return self

    @classmethod
    def _from_ref(cls, ref, dtype=None):
        self = object.__new__(cls)
        self._ref = ref
        return self


def _make_storage_classes():
    from . import _C
    out = {}
    for name, cls_name in _STORAGE_NAMES.items():
        cls = _LegacyStorageMeta(cls_name, (_LegacyStorage,), {"dtype": getattr(_C, name)})
        cls.__module__ = "torch"
        out[cls_name] = cls
    return out


_storage_classes = _make_storage_classes()
globals().update(_storage_classes)
