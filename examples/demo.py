"""ctorch demo: creation, arithmetic, NumPy sharing, printing.

Run with `make demo` (or PYTHONPATH=python /usr/bin/python3 examples/demo.py).
"""
import numpy as np

import ctorch as torch

print("ctorch", torch.__version__)

# creation
a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
b = torch.linspace(0, 1, steps=3)
print("a =", a)
print("b =", b)
print("zeros:", torch.zeros(2, 2, dtype=torch.int64))
print("full:", torch.full((2,), 7))
print("eye:", torch.eye(2, 3))

# arithmetic with broadcasting and type promotion
print("a + b =", a + b)
print("a * 2 - 1 =", a * 2 - 1)
print("int / int ->", torch.tensor([1, 2, 3]) / 2)
print("uint8 + int8 ->", (torch.tensor([250], dtype=torch.uint8) +
                          torch.tensor([10], dtype=torch.int8)).dtype)
a += 100
print("a after a += 100:", a)

# NumPy: from_numpy and .numpy() share memory
arr = np.ones((2, 2))
t = torch.from_numpy(arr)
t.add_(1.0)
print("numpy array after t.add_(1):", arr.tolist())
back = t.numpy()
back[0, 0] = 42.0
print("tensor after writing through .numpy():", t)
print("same memory:", back.ctypes.data == t.data_ptr())

# views share storage
v = a.view(6)
print("view shares storage:", v.storage().data_ptr() == a.storage().data_ptr())

# a large tensor prints summarized, like PyTorch
print(torch.arange(1_000_000).reshape(1000, 1000) * 0.5)

# errors are PyTorch's
try:
    torch.zeros(2, 3) + torch.zeros(4)
except RuntimeError as e:
    print("RuntimeError:", e)
