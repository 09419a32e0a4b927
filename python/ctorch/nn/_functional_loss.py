"""The losses of torch.nn.functional, as torch 1.13 writes them: the
argument handling (legacy size_average / reduce, the shape checks and
warnings) is here, the arithmetic in C (the _C functions of
csrc/python/nn_loss.c: fused kernels with their own backward nodes, and
cross entropy composed of log_softmax and nll_loss exactly as torch
composes it).  l1_loss is a composite in torch too and is written here
with tensor ops, so its graph has torch's nodes."""
import warnings
from typing import Optional

import ctorch
from ctorch import _C

from . import _reduction as _Reduction

Tensor = ctorch.Tensor

__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
    "huber_loss", "kl_div", "l1_loss", "mse_loss", "nll_loss", "smooth_l1_loss",
]


def _warn_broadcast(input, target):
    if not (target.size() == input.size()):
        warnings.warn(
            "Using a target size ({}) that is different to the input size ({}). "
            "This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.".format(target.size(), input.size()),
            stacklevel=3,
        )


def _infer_size(a, b):
    """torch._C._infer_size: the broadcast of two sizes."""
    return ctorch.broadcast_shapes(tuple(a), tuple(b))


def _apply_loss_reduction(loss, reduction_enum):
    if reduction_enum == 1:
        return loss.mean()
    if reduction_enum == 2:
        return loss.sum()
    return loss


def mse_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
             reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Measures the element-wise mean squared error.  See MSELoss."""
    _warn_broadcast(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = ctorch.broadcast_tensors(input, target)
    return _C._mse_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
            reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """The mean element-wise absolute difference.  See L1Loss."""
    _warn_broadcast(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = ctorch.broadcast_tensors(input, target)
    # torch: apply_loss_reduction((input - target).abs(), reduction)
    return _apply_loss_reduction((expanded_input - expanded_target).abs(),
                                 _Reduction.get_enum(reduction))


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
                   reduce: Optional[bool] = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """A squared term below beta, an L1 term above.  See SmoothL1Loss."""
    _warn_broadcast(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = ctorch.broadcast_tensors(input, target)
    return _C._smooth_l1_loss(expanded_input, expanded_target,
                              _Reduction.get_enum(reduction), beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = 'mean',
               delta: float = 1.0) -> Tensor:
    """A squared term below delta, a delta-scaled L1 term above.  See HuberLoss."""
    _warn_broadcast(input, target)
    expanded_input, expanded_target = ctorch.broadcast_tensors(input, target)
    return _C._huber_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction),
                          delta)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                         size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross entropy between target and input probabilities.  See BCELoss."""
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = _Reduction.get_enum(reduction)
    if target.size() != input.size():
        raise ValueError(
            "Using a target size ({}) that is different to the input size ({}) is deprecated. "
            "Please ensure they have the same size.".format(target.size(), input.size())
        )
    if weight is not None:
        new_size = _infer_size(target.size(), weight.size())
        weight = weight.expand(new_size)
    return _C._binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Optional[Tensor] = None,
                                     size_average: Optional[bool] = None,
                                     reduce: Optional[bool] = None,
                                     reduction: str = "mean",
                                     pos_weight: Optional[Tensor] = None) -> Tensor:
    """Binary cross entropy between target and the sigmoid of input logits.
    See BCEWithLogitsLoss."""
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = _Reduction.get_enum(reduction)
    if not (target.size() == input.size()):
        raise ValueError("Target size ({}) must be the same as input size ({})".format(
            target.size(), input.size()))
    return _C.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                               reduction_enum)


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
             size_average: Optional[bool] = None, ignore_index: int = -100,
             reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """The negative log likelihood loss.  See NLLLoss."""
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _C._nll_loss_nd(input, target, weight, _Reduction.get_enum(reduction),
                           ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                  size_average: Optional[bool] = None, ignore_index: int = -100,
                  reduce: Optional[bool] = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between input logits and target class indices or class
    probabilities.  See CrossEntropyLoss."""
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _C._cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction),
                                  ignore_index, label_smoothing)


def kl_div(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
           reduce: Optional[bool] = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence of target from input (log
    probabilities).  See KLDivLoss."""
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release."
            )
        # special case for batchmean
        if reduction == "batchmean":
            reduction_enum = _Reduction.get_enum("sum")
        else:
            reduction_enum = _Reduction.get_enum(reduction)
    reduced = ctorch.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced
