"""torch.TypedStorage / torch.UntypedStorage over a C storage handle."""
from . import _C


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
