"""Objects saved by gen_serialization_data.py (with real PyTorch) into
data/serialization/*.pt and rebuilt by test_serialization.py with ctorch:
each builder takes the module `m` (torch or ctorch)."""
from collections import OrderedDict


def tensors(m):
    """Every dtype; views sharing one storage (transposed, a row, a column,
    an offset block); a 0-dim, an empty and a grad-requiring tensor; a
    Parameter; a quantized tensor; nested containers and torch objects."""
    base = m.arange(24, dtype=m.float32).reshape(4, 6)
    return OrderedDict([
        ("f32", base), ("view_t", base.t()), ("row", base[2]), ("col", base[:, 3]),
        ("block", base[1:3, 2:5]),
        ("f64", m.tensor([1.5, -2.25, 1e-300], dtype=m.float64)),
        ("f16", m.tensor([1.5, -2.25, 65504.0], dtype=m.float16)),
        ("bf16", m.tensor([1.5, -2.25, 3e38], dtype=m.bfloat16)),
        ("i64", m.tensor([2 ** 40, -1])),
        ("i32", m.tensor([7, -8], dtype=m.int32)),
        ("i16", m.tensor([7, -8], dtype=m.int16)),
        ("i8", m.tensor([7, -8], dtype=m.int8)),
        ("u8", m.tensor([7, 250], dtype=m.uint8)),
        ("bool", m.tensor([True, False, True])),
        ("scalar", m.tensor(3.5)),
        ("empty", m.zeros(0, 3)),
        ("param", m.nn.Parameter(m.tensor([[1.0, 2.0], [3.0, 4.0]]))),
        ("frozen", m.nn.Parameter(m.tensor([5.0]), requires_grad=False)),
        ("rg", m.tensor([0.25, 0.5], requires_grad=True)),
        ("q", m.quantize_per_tensor(m.tensor([0.5, 1.0, -2.0]), 0.25, 3, m.quint8)),
        ("qi8", m.quantize_per_tensor(m.tensor([0.5, -1.0]), 0.5, -2, m.qint8)),
        ("nested", {"list": [base, (1, 2.5, "x", None, b"by", True)],
                    "size": m.Size([2, 3]), "dtype": m.float16,
                    "device": m.device("cpu"), "big": 2 ** 70, "neg": -5}),
    ])


def state_dict(m):
    """A model-like state dict: Parameters keep requires_grad, buffers
    (a running mean, an int64 counter) do not."""
    return OrderedDict([
        ("fc1.weight", m.nn.Parameter(m.arange(12, dtype=m.float32).reshape(3, 4) / 10)),
        ("fc1.bias", m.nn.Parameter(m.tensor([0.1, -0.2, 0.3]))),
        ("bn.running_mean", m.tensor([0.5, 0.25, 0.125])),
        ("bn.num_batches_tracked", m.tensor(7)),
        ("fc2.weight", m.nn.Parameter(m.tensor([[1.0, -1.0, 0.5]]))),
    ])


def optimizer_state(m):
    """state_dicts of Adam (amsgrad) and SGD (momentum) after three steps,
    with the parameters they optimized."""
    w = m.tensor([0.5, -1.25, 2.0], requires_grad=True)
    c = m.tensor([[0.3, -0.2], [0.9, 1.1]], requires_grad=True)
    adam = m.optim.Adam([w, c], lr=0.1, amsgrad=True)
    sgd = m.optim.SGD([{"params": [w]}, {"params": [c], "lr": 0.01}], lr=0.1, momentum=0.9)
    for _ in range(3):
        for opt in (adam, sgd):
            with m.no_grad():
                w.grad = w * w * w - w
                c.grad = c * 2
            opt.step()
    return {"params": [w.detach(), c.detach()], "adam": adam.state_dict(),
            "sgd": sgd.state_dict()}


# file name -> (builder, save keywords, how the file is opened)
FILES = {
    "tensors.pt": (tensors, {}, "fileobj"),
    "tensors_legacy.pt": (tensors, {"_use_new_zipfile_serialization": False}, "fileobj"),
    "state_dict.pt": (state_dict, {}, "fileobj"),
    "optimizer.pt": (optimizer_state, {}, "fileobj"),
    "named_by_path.pt": (state_dict, {}, "path"),
}


def describe(obj, m):
    """A comparable plain description of a loaded object (type names,
    dtypes, geometry, values, requires_grad; containers recursively)."""
    if isinstance(obj, m.Tensor):
        if obj.is_quantized:
            return ("qtensor", str(obj.dtype), tuple(obj.shape), obj.int_repr().tolist(),
                    obj.q_scale(), obj.q_zero_point())
        return (type(obj).__name__, str(obj.dtype), tuple(obj.shape), tuple(obj.stride()),
                obj.storage_offset(), obj.tolist(), obj.requires_grad)
    if isinstance(obj, dict):
        return (type(obj).__name__, [(k, describe(v, m)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)) and not isinstance(obj, m.Size):
        return (type(obj).__name__, [describe(v, m) for v in obj])
    return repr(obj)
