/* ctorch/ops_reduce.h -- reductions, scans and softmax (aten/cpu/reduce*.c).
 *
 * Conventions of ops.h: results are NEW references (or NULL with the ct
 * error set); tensor arguments are borrowed; two-result ops (max with a
 * dim, median, mode, cummax, ...) store two new references in *values and
 * *indices and return 0, or -1 with both left NULL.
 *
 * A reduction takes `dims` (ndims entries, negative allowed, duplicates an
 * error) or dims == NULL / ndims == 0 for "every dim"; keepdim keeps the
 * reduced dims with size 1.  `dtype` is CT_DTYPE_COUNT for PyTorch's
 * default result dtype (sum/prod of bool and integers: int64; mean, var,
 * norm: the input's floating dtype), else the input is converted to it
 * first, as torch's dtype= does.  Messages follow PyTorch 1.13.
 *
 * Accuracy: float32 / float64 sums and means of contiguous data reproduce
 * PyTorch 1.13's CPU cascade sum bit for bit; other floating reductions
 * accumulate in double and round once (within an ulp of PyTorch).
 * Thread-safety: none needed (no shared state).
 */
#ifndef CTORCH_OPS_REDUCE_H
#define CTORCH_OPS_REDUCE_H

#include "tensor.h"

/* X(ENUM, "name") -- the reductions of ct_reduce. */
#define CT_FORALL_REDUCE_OPS(X)                 \
    X(CT_REDUCE_SUM, "sum")                     \
    X(CT_REDUCE_PROD, "prod")                   \
    X(CT_REDUCE_MEAN, "mean")                   \
    X(CT_REDUCE_AMAX, "amax")                   \
    X(CT_REDUCE_AMIN, "amin")                   \
    X(CT_REDUCE_MAX, "max")                     \
    X(CT_REDUCE_MIN, "min")                     \
    X(CT_REDUCE_ARGMAX, "argmax")               \
    X(CT_REDUCE_ARGMIN, "argmin")               \
    X(CT_REDUCE_ALL, "all")                     \
    X(CT_REDUCE_ANY, "any")                     \
    X(CT_REDUCE_COUNT_NONZERO, "count_nonzero") \
    X(CT_REDUCE_VAR, "var")                     \
    X(CT_REDUCE_STD, "std")                     \
    X(CT_REDUCE_NORM, "norm")                   \
    X(CT_REDUCE_LOGSUMEXP, "logsumexp")

typedef enum {
#define X(E, N) E,
    CT_FORALL_REDUCE_OPS(X)
#undef X
    CT_REDUCE_COUNT
} ct_reduce_op;

/* Parameters of the reductions that take one. */
typedef struct {
    double p;               /* norm: the order (INFINITY, -INFINITY allowed) */
    double correction;      /* var/std: divisor is N - correction */
    const char *name;       /* name in messages (NULL: the op's own) */
} ct_reduce_args;

/* The shared entry point: every reduction with a tensor result.
 * `indices` (may be NULL) receives the int64 positions for MAX/MIN. */
ct_tensor *ct_reduce(ct_reduce_op op, const ct_tensor *t, int ndims,
                     const int64_t *dims, bool keepdim, ct_dtype dtype,
                     const ct_reduce_args *args, ct_tensor **indices);

ct_tensor *ct_sum(const ct_tensor *t, int ndims, const int64_t *dims,
                  bool keepdim, ct_dtype dtype);
ct_tensor *ct_mean(const ct_tensor *t, int ndims, const int64_t *dims,
                   bool keepdim, ct_dtype dtype);
/* dim == NULL: over all elements. */
ct_tensor *ct_prod(const ct_tensor *t, const int64_t *dim, bool keepdim,
                   ct_dtype dtype);
ct_tensor *ct_amax(const ct_tensor *t, int ndims, const int64_t *dims,
                   bool keepdim);
ct_tensor *ct_amin(const ct_tensor *t, int ndims, const int64_t *dims,
                   bool keepdim);
/* Full max/min: a 0-dim tensor (NaN wins). */
ct_tensor *ct_max(const ct_tensor *t);
ct_tensor *ct_min(const ct_tensor *t);
/* max/min along one dim: values and first-occurrence indices. */
int ct_max_dim(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
               ct_tensor **indices);
int ct_min_dim(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
               ct_tensor **indices);
/* dim == NULL: index into the flattened tensor. */
ct_tensor *ct_argmax(const ct_tensor *t, const int64_t *dim, bool keepdim);
ct_tensor *ct_argmin(const ct_tensor *t, const int64_t *dim, bool keepdim);
ct_tensor *ct_all(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim);
ct_tensor *ct_any(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim);
ct_tensor *ct_count_nonzero(const ct_tensor *t, int ndims, const int64_t *dims);
ct_tensor *ct_var(const ct_tensor *t, int ndims, const int64_t *dims,
                  double correction, bool keepdim);
ct_tensor *ct_std(const ct_tensor *t, int ndims, const int64_t *dims,
                  double correction, bool keepdim);
/* *var_or_std and *mean: new references. */
int ct_var_mean(const ct_tensor *t, int ndims, const int64_t *dims,
                double correction, bool keepdim, bool take_sqrt,
                ct_tensor **var_or_std, ct_tensor **mean);
/* Vector p-norm (torch.linalg.vector_norm); `name` for messages. */
ct_tensor *ct_vector_norm(const ct_tensor *t, double p, int ndims,
                          const int64_t *dims, bool keepdim, ct_dtype dtype,
                          const char *name);
ct_tensor *ct_logsumexp(const ct_tensor *t, int ndims, const int64_t *dims,
                        bool keepdim);

/* --- along one dim (aten/cpu/reduce_scan.c) ---------------------------- */
/* X(ENUM, "name") */
#define CT_FORALL_SCAN_OPS(X)                   \
    X(CT_SCAN_CUMSUM, "cumsum")                 \
    X(CT_SCAN_CUMPROD, "cumprod")               \
    X(CT_SCAN_CUMMAX, "cummax")                 \
    X(CT_SCAN_CUMMIN, "cummin")                 \
    X(CT_SCAN_SOFTMAX, "softmax")               \
    X(CT_SCAN_LOG_SOFTMAX, "log_softmax")       \
    X(CT_SCAN_MEDIAN, "median")                 \
    X(CT_SCAN_MODE, "mode")                     \
    X(CT_SCAN_NANMEDIAN, "nanmedian")

typedef enum {
#define X(E, N) E,
    CT_FORALL_SCAN_OPS(X)
#undef X
    CT_SCAN_COUNT
} ct_scan_op;

/* Runs a scan op along dim; indices (may be NULL) for cummax/cummin,
 * median, nanmedian and mode, which drop dim unless keepdim. */
ct_tensor *ct_scan(ct_scan_op op, const ct_tensor *t, int64_t dim, bool keepdim,
                   ct_dtype dtype, ct_tensor **indices);
ct_tensor *ct_cumsum(const ct_tensor *t, int64_t dim, ct_dtype dtype);
ct_tensor *ct_cumprod(const ct_tensor *t, int64_t dim, ct_dtype dtype);
int ct_cummax(const ct_tensor *t, int64_t dim, ct_tensor **values,
              ct_tensor **indices);
int ct_cummin(const ct_tensor *t, int64_t dim, ct_tensor **values,
              ct_tensor **indices);
ct_tensor *ct_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype);
ct_tensor *ct_log_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype);
/* torch's _softmax_backward_data / _log_softmax_backward_data (log): the
 * input gradient from grad and the forward's output (same shape and
 * dtype) along dim (aten/cpu/softmax.c). */
ct_tensor *ct_softmax_backward_data(const ct_tensor *grad, const ct_tensor *output,
                                    int64_t dim, bool log);
/* Lower median of all elements (NaN if any is NaN); nanmedian: of the
 * non-NaN ones (NaN if all are).  The _dim forms and mode return torch
 * 1.13's index among equal values (Note [libstdc++ order]). */
ct_tensor *ct_median(const ct_tensor *t);
ct_tensor *ct_nanmedian(const ct_tensor *t);
int ct_median_dim(const ct_tensor *t, int64_t dim, bool keepdim,
                  ct_tensor **values, ct_tensor **indices);
int ct_nanmedian_dim(const ct_tensor *t, int64_t dim, bool keepdim,
                     ct_tensor **values, ct_tensor **indices);
int ct_mode(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
            ct_tensor **indices);

#endif
