"""ctorch.autograd.graph: the node type behind grad_fn."""
from .. import _C

Node = _C._Node
