"""ctorch.linalg: torch.linalg's norms and singular values.

svdvals, matrix_norm and norm are the C functions (aten/cpu/linalg_svd.c,
linalg_norm.c), which take torch's arguments and give its results, dtypes
and messages; vector_norm wraps the C reduction.  LinAlgError is what a
numerical failure raises (an SVD of a matrix with NaN), a RuntimeError.
"""

from . import _C

__all__ = ["LinAlgError", "matrix_norm", "norm", "svdvals", "vector_norm"]

LinAlgError = _C._LinAlgError

# linalg.svdvals(A, *, driver=None, out=None) -> Tensor
svdvals = _C._linalg_svdvals
# linalg.matrix_norm(input, ord='fro', dim=(-2, -1), keepdim=False, *,
#                    dtype=None, out=None) -> Tensor
matrix_norm = _C._linalg_matrix_norm
# linalg.norm(input, ord=None, dim=None, keepdim=False, *, out=None,
#             dtype=None) -> Tensor
norm = _C._linalg_norm


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ord-norm of x over dim (all elements when None)."""
    if isinstance(dim, int):
        dim = (dim,)
    return _C._linalg_vector_norm(x, float(ord), dim, keepdim, dtype=dtype, out=out)
