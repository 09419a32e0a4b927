"""The normalization layers and embedding of torch.nn.functional, as
torch 1.13 writes them: argument checks here, the work in C
(torch.batch_norm, torch.layer_norm, torch.group_norm, torch.embedding and
embedding_renorm_ of csrc/python/nn_norm.c, each recording torch's node)."""
from typing import List, Optional

import ctorch

Tensor = ctorch.Tensor

__all__ = ["batch_norm", "embedding", "group_norm", "layer_norm"]


def _verify_batch_size(size: List[int]) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         "size {}".format(size))


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization over the channel dim (1).  See BatchNorm1d."""
    if training:
        _verify_batch_size(input.size())
    return ctorch.batch_norm(input, weight, bias, running_mean, running_var, training,
                             momentum, eps, False)


def layer_norm(input: Tensor, normalized_shape: List[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Layer normalization over the last dims.  See LayerNorm."""
    return ctorch.layer_norm(input, normalized_shape, weight, bias, eps, False)


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Group normalization.  See GroupNorm."""
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + list(input.size()[2:]))
    return ctorch.group_norm(input, num_groups, weight, bias, eps, False)


def _no_grad_embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float,
                               norm_type: float) -> None:
    ctorch.embedding_renorm_(weight.detach(), input, max_norm, norm_type)


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None,
              max_norm: Optional[float] = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of weight that input's indices name.  See Embedding.
    sparse=True gives a dense gradient (ctorch has no sparse tensors)."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        # embedding_renorm_ reads the indices contiguously; so does embedding
        input = input.contiguous()
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    return ctorch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
