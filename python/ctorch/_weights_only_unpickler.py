"""torch.load(..., weights_only=True): an unpickler that builds only state
dicts -- tensors, parameters, storages, primitive values and containers.

It follows PyTorch 1.13's torch/_weights_only_unpickler.py: GLOBAL resolves
only names in an allow-list (torch's names, mapped to ctorch's objects),
REDUCE calls only those, BUILD applies only to tensors, parameters and
OrderedDicts, APPEND(S) only to lists, persistent ids only name storages.
Beyond 1.13 (as PyTorch 2.x): floats (BINFLOAT), the bool, uint8 and
bfloat16 dtypes, torch.device, and per-tensor quantized tensors.  Anything
else raises RuntimeError, which torch.load reports as an UnpicklingError.
"""
import functools
from collections import OrderedDict
from pickle import (
    APPEND, APPENDS, BINFLOAT, BINGET, BININT, BININT1, BININT2, BINPERSID, BINPUT,
    BINUNICODE, BUILD, EMPTY_DICT, EMPTY_LIST, EMPTY_SET, EMPTY_TUPLE, GLOBAL, LONG1,
    LONG_BINGET, LONG_BINPUT, MARK, NEWFALSE, NEWOBJ, NEWTRUE, NONE, PROTO, REDUCE,
    SETITEM, SETITEMS, SHORT_BINSTRING, STOP, TUPLE, TUPLE1, TUPLE2, TUPLE3,
    UnpicklingError, bytes_types, decode_long,
)
from struct import unpack
from sys import maxsize


@functools.lru_cache(maxsize=1)
def _get_allowed_globals():
    """torch's name -> the ctorch object a pickle may use."""
    import ctorch
    from . import _legacy, _utils, serialization, storage
    from ._layouts import per_tensor_affine
    from .nn.parameter import Parameter
    rc = {
        "collections.OrderedDict": OrderedDict,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": serialization._get_layout,
        "torch.Size": ctorch.Size,
        "torch.Tensor": ctorch.Tensor,
        "torch.device": ctorch.device,
        "torch.per_tensor_affine": per_tensor_affine,
    }
    for name in ["float16", "float32", "float64", "bfloat16", "int8", "int16", "int32",
                 "int64", "uint8", "bool"]:
        rc["torch." + name] = getattr(ctorch, name)
    for name in ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
                 "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]:
        rc["torch." + name] = getattr(_legacy, name)
    for name, cls in storage._storage_classes.items():
        rc["torch." + name] = cls
    for name in ["UntypedStorage", "TypedStorage"]:
        rc["torch." + name] = getattr(storage, name)
        rc["torch.storage." + name] = getattr(storage, name)
    for fn in [_utils._rebuild_parameter, _utils._rebuild_tensor, _utils._rebuild_tensor_v2,
               _utils._rebuild_qtensor]:
        rc["torch._utils." + fn.__name__] = fn
    return rc


class Unpickler:
    def __init__(self, file, *, encoding: str = "bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo = {}

    def load(self):
        """Read a pickled object representation from the open file.

        Return the reconstituted object hierarchy specified in the file.
        """
        from ._tensor import Tensor
        from .nn.parameter import Parameter
        allowed = _get_allowed_globals()
        allowed_values = list(allowed.values())
        self.metastack = []
        self.stack = []
        self.append = self.stack.append
        read = self.read
        readline = self.readline
        while True:
            key = read(1)
            if not key:
                raise EOFError
            assert isinstance(key, bytes_types)
            k = key[0]
            # Risky operators
            if k == GLOBAL[0]:
                module = readline()[:-1].decode("utf-8")
                name = readline()[:-1].decode("utf-8")
                full_path = f"{module}.{name}"
                if full_path in allowed:
                    self.append(allowed[full_path])
                else:
                    raise RuntimeError(f"Unsupported class {full_path}")
            elif k == NEWOBJ[0]:
                args = self.stack.pop()
                cls = self.stack.pop()
                if cls is not Parameter:
                    raise RuntimeError(f"Trying to instantiate unsupported class {cls}")
                self.append(Parameter(*args))
            elif k == REDUCE[0]:
                args = self.stack.pop()
                func = self.stack[-1]
                if not any(func is v for v in allowed_values):
                    raise RuntimeError(
                        f"Trying to call reduce for unrecognized function {func}")
                self.stack[-1] = func(*args)
            elif k == BUILD[0]:
                state = self.stack.pop()
                inst = self.stack[-1]
                if type(inst) is Tensor or type(inst) is Parameter:
                    if not isinstance(state, dict):
                        raise RuntimeError("Can only build Tensor, parameter or dict "
                                           f"objects, but got {type(inst)}")
                    for sk, sv in state.items():
                        setattr(inst, sk, sv)
                elif type(inst) is OrderedDict:
                    inst.__dict__.update(state)
                else:
                    raise RuntimeError("Can only build Tensor, parameter or dict objects, "
                                       f"but got {type(inst)}")
            # Stack manipulation
            elif k == APPEND[0]:
                item = self.stack.pop()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise RuntimeError(f"Can only append to lists, but got {type(list_obj)}")
                list_obj.append(item)
            elif k == APPENDS[0]:
                items = self.pop_mark()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise RuntimeError(f"Can only extend lists, but got {type(list_obj)}")
                list_obj.extend(items)
            elif k == SETITEM[0]:
                (v, key_) = (self.stack.pop(), self.stack.pop())
                self.stack[-1][key_] = v
            elif k == SETITEMS[0]:
                items = self.pop_mark()
                for i in range(0, len(items), 2):
                    self.stack[-1][items[i]] = items[i + 1]
            elif k == MARK[0]:
                self.metastack.append(self.stack)
                self.stack = []
                self.append = self.stack.append
            elif k == TUPLE[0]:
                items = self.pop_mark()
                self.append(tuple(items))
            elif k == TUPLE1[0]:
                self.stack[-1] = (self.stack[-1],)
            elif k == TUPLE2[0]:
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif k == TUPLE3[0]:
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            # Basic types construction
            elif k == NONE[0]:
                self.append(None)
            elif k == NEWFALSE[0]:
                self.append(False)
            elif k == NEWTRUE[0]:
                self.append(True)
            elif k == EMPTY_TUPLE[0]:
                self.append(())
            elif k == EMPTY_LIST[0]:
                self.append([])
            elif k == EMPTY_DICT[0]:
                self.append({})
            elif k == EMPTY_SET[0]:
                self.append(set())
            elif k == BININT[0]:
                self.append(unpack("<i", read(4))[0])
            elif k == BININT1[0]:
                self.append(self.read(1)[0])
            elif k == BININT2[0]:
                self.append(unpack("<H", read(2))[0])
            elif k == BINFLOAT[0]:
                self.append(unpack(">d", read(8))[0])
            elif k == BINUNICODE[0]:
                strlen = unpack("<I", read(4))[0]
                if strlen > maxsize:
                    raise RuntimeError("String is too long")
                strval = str(read(strlen), "utf-8", "surrogatepass")
                self.append(strval)
            elif k == SHORT_BINSTRING[0]:
                strlen = read(1)[0]
                strdata = read(strlen)
                if self.encoding != "bytes":
                    strdata = strdata.decode(self.encoding, "strict")
                self.append(strdata)
            elif k == BINPERSID[0]:
                pid = self.stack.pop()
                # Only allow persistent load of storage
                if type(pid) is not tuple and type(pid) is not int:
                    raise RuntimeError(
                        f"persistent_load id must be tuple or int, but got {type(pid)}")
                if (type(pid) is tuple and len(pid) > 0 and
                        (pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0])
                        != "storage"):
                    raise RuntimeError(
                        f"Only persistent_load of storage is allowed, but got {pid[0]}")
                self.append(self.persistent_load(pid))
            elif k in (BINGET[0], LONG_BINGET[0]):
                idx = (read(1)[0] if k == BINGET[0] else unpack("<I", read(4))[0])
                if idx not in self.memo:
                    raise RuntimeError(f"Memo value not found at index {idx}")
                self.append(self.memo[idx])
            elif k in (BINPUT[0], LONG_BINPUT[0]):
                i = (read(1)[0] if k == BINPUT[0] else unpack("<I", read(4))[0])
                self.memo[i] = self.stack[-1]
            elif k == LONG1[0]:
                n = read(1)[0]
                data = read(n)
                self.append(decode_long(data))
            # First and last deserializer ops
            elif k == PROTO[0]:
                # Read and ignore proto version
                read(1)[0]
            elif k == STOP[0]:
                rc = self.stack.pop()
                return rc
            else:
                raise RuntimeError(f"Unsupported operand {k}")

    # Return a list of items pushed in the stack after last MARK instruction.
    def pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")


def load(file, *, encoding: str = "ASCII"):
    return Unpickler(file, encoding=encoding).load()
