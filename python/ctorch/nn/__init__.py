"""ctorch.nn: torch.nn's module tree.  Modules live in nn/modules/ (one file
per family, as in PyTorch), their functional forms in nn/functional.py, and
the heavy kernels with their derivatives in C (aten/cpu/, csrc/autograd/)."""
from .modules import *  # noqa: F401,F403
from .parameter import Parameter  # noqa: F401
from . import functional, init, utils  # noqa: F401
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
