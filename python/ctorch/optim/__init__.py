"""ctorch.optim: optimizers and learning-rate schedulers (torch.optim)."""
import os as _os

from . import lr_scheduler  # noqa: F401
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]

# Printed names follow PyTorch's under ctorchrun (<class 'torch.optim.sgd.SGD'>,
# <torch.optim.lr_scheduler.StepLR object at ...>).
if _os.environ.get("CTORCH_TORCH_NAMES") == "1":
    for _cls in [Adagrad, Adam, AdamW, Optimizer, RMSprop, SGD] + [
            v for v in vars(lr_scheduler).values()
            if isinstance(v, type) and v.__module__ == lr_scheduler.__name__]:
        _cls.__module__ = "torch" + _cls.__module__[len("ctorch"):]
