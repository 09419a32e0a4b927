"""ctorch.linalg: torch.linalg's norms over the C reductions.

Only vector norms are implemented here (matrix norms such as ord=2 or
'nuc' over two dims raise NotImplementedError); vector_norm and norm accept
torch's arguments and produce torch's results, dtypes and messages.
"""

from . import _C

__all__ = ["norm", "vector_norm"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ord-norm of x over dim (all elements when None)."""
    if isinstance(dim, int):
        dim = (dim,)
    return _C._linalg_vector_norm(x, float(ord), dim, keepdim, dtype=dtype, out=out)


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """torch.linalg.norm for vector norms: ord None is the 2-norm of the
    flattened input (the Frobenius norm of a matrix), 'fro' the 2-norm over
    two dims; a numeric ord needs a 1-D input or a single dim."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, out=out)
    if isinstance(ord, str):
        if ord != "fro":
            raise NotImplementedError("ctorch.linalg.norm: ord=%r (matrix norm) is not "
                                      "supported" % (ord,))
        if dim is None and A.dim() != 2:
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the "
                               "input must be 1D or 2D. Got %dD." % A.dim())
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, out=out)
    ndims = A.dim() if dim is None else len(dim)
    if ndims == 1 or (dim is None and A.dim() <= 1):
        return vector_norm(A, ord, dim, keepdim, dtype=dtype, out=out)
    if dim is None and A.dim() > 2:
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input "
                           "must be 1D or 2D. Got %dD." % A.dim())
    raise NotImplementedError("ctorch.linalg.norm: matrix norms (ord=%r over two "
                              "dims) are not supported" % (ord,))


