"""Layout, memory format and quantization-scheme singletons (torch.strided,
torch.contiguous_format, torch.per_tensor_affine, ...)."""


class _Named:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name


class layout(_Named):
    __slots__ = ()


class memory_format(_Named):
    __slots__ = ()


class qscheme(_Named):
    __slots__ = ()


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
per_tensor_affine = qscheme("per_tensor_affine")

for _cls in (layout, memory_format, qscheme):
    _cls.__module__ = "torch"
