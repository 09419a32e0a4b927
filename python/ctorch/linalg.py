"""ctorch.linalg: torch.linalg's norms and singular values.

svdvals, matrix_norm and norm are the C functions (aten/cpu/linalg_svd.c,
linalg_norm.c), which take torch's arguments and give its results, dtypes
and messages; vector_norm wraps the C reduction, and cross is the
composition in _composite_math.py.  LinAlgError is what a numerical failure
raises (an SVD of a matrix with NaN), a RuntimeError.
"""

from . import _C

__all__ = ["LinAlgError", "cross", "matrix_norm", "norm", "svdvals", "vector_norm"]

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


# linalg.cross(input, other, *, dim=-1, out=None) -> Tensor
def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along dim (broadcasting the others)."""
    from ._composite_math import linalg_cross
    r = linalg_cross(input, other, dim=dim)
    if out is not None:
        out.resize_(r.shape)
        return out.copy_(r)
    return r
