/* ctorch/autograd.h -- reverse-mode automatic differentiation.
 *
 * The graph: a tensor produced by a differentiable op while grad mode is on
 * and some input requires grad gets a grad_fn, a node (MulBackward0, ...)
 * whose edges point at the nodes that produced its inputs: their grad_fn,
 * an AccumulateGrad node for a leaf that requires grad, or nothing (NULL)
 * for an input that needs no gradient.  Nodes are refcounted; a tensor owns
 * its grad_fn, a node owns the nodes its edges name, AccumulateGrad owns
 * its leaf and the leaf only points back weakly.
 *
 * The differentiable ops are ctag_xxx (csrc/autograd/): the aten kernel
 * ct_xxx plus the recording.  Their backward formulas are written with
 * ctag_ ops as well, so a backward run with create_graph records a graph
 * of its own (double backward).  Plain ct_xxx never records.
 *
 * Errors: as everywhere in libctorch, -1 / NULL with the ct error set.
 */
#ifndef CTORCH_AUTOGRAD_H
#define CTORCH_AUTOGRAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops.h"
#include "ops_families.h"
#include "tensor.h"

typedef struct ct_node ct_node;

typedef struct {
    ct_node *fn;        /* owned; NULL: that input needs no gradient */
    int input_nr;       /* which of fn's inputs (= which output of its op) */
} ct_edge;

/* A hook on gradients: called with a borrowed gradient (NULL when
 * undefined); returns 0 leaving *replace NULL to keep it, or a new
 * gradient in *replace, or -1 with the ct error set. */
typedef int (*ct_grad_hook_fn)(void *ctx, const ct_tensor *grad, ct_tensor **replace);
/* Node hooks.  A pre hook sees the gradients coming into the node (one per
 * output of the op) and may replace entries (dropping the old reference);
 * a post hook sees the node's results (one per input of the op, which it
 * may replace the same way) and the gradients that came in.  Entries may
 * be NULL (no gradient). */
typedef int (*ct_node_prehook_fn)(void *ctx, int n, ct_tensor **grads);
typedef int (*ct_node_posthook_fn)(void *ctx, int n_res, ct_tensor **results, int n_in,
                                   ct_tensor *const *grads_in);

typedef struct ct_hook {
    struct ct_hook *next;
    int kind;               /* CT_HOOK_* */
    int index;              /* tensor hooks: the output number they watch */
    void *fn;
    void *ctx;
    void (*release)(void *ctx);
    int64_t id;
} ct_hook;

enum { CT_HOOK_TENSOR, CT_HOOK_NODE_PRE, CT_HOOK_NODE_POST, CT_HOOK_RETAIN };

/* A saved tensor and the version its storage had.  An input is kept by
 * reference (unpacking it gives the tensor with its own history); the op's
 * own output is kept as a detached alias, so the node does not own the
 * tensor that owns it, and unpacking it re-attaches the node. */
typedef struct {
    ct_tensor *data;        /* owned, NULL when None or released */
    int64_t version;
    bool is_output;
    int output_nr;
    const struct ct_node_type *fn_type; /* whose output it was, for messages */
    int fn_output_nr;
} ct_saved;

typedef struct ct_node_type {
    const char *name;                   /* "MulBackward0" */
    /* gi[i] for i < n_grads: the gradients of the op's outputs (NULL:
     * zero); set go[j] (j < n_edges) to new tensors for the inputs whose
     * edges are set, leave NULL where no gradient flows */
    int (*apply)(ct_node *node, ct_tensor **gi, ct_tensor **go);
    void (*release)(ct_node *node);     /* extra payload, may be NULL */
} ct_node_type;

#define CT_NODE_MAX_SAVED 4
#define CT_NODE_MAX_INTS 2 * CT_MAX_DIMS

struct ct_node {
    atomic_long refcnt;
    const ct_node_type *type;
    uint64_t seq_nr;            /* creation order: later nodes run first */
    int n_edges;                /* the op's inputs */
    int n_outputs;              /* the op's outputs (gradients in) */
    ct_edge *edges;             /* inline_edges or heap */
    ct_edge inline_edges[3];
    ct_saved saved[CT_NODE_MAX_SAVED];
    int n_saved;
    bool released;              /* saved tensors freed by a backward */
    /* the payload most formulas need: shapes, dims, dtypes, scalars */
    int ndim[2];
    int64_t ints[CT_NODE_MAX_INTS];
    int n_ints;
    double d[2];
    ct_scalar s[2];
    ct_dtype dtype[2];
    ct_device device[2];        /* with ndim/dtype: the inputs' (ag_save_meta) */
    /* the stream current for its CUDA outputs' device when it was made;
     * its backward runs there (Note [Backward in stream order]) */
    void *stream;
    int stream_device;          /* -1: no CUDA output */
    void *extra;                /* type-specific, freed by type->release */
    ct_tensor *variable;        /* AccumulateGrad: the leaf (owned) */
    ct_hook *hooks;
    int64_t next_hook_id;
    void *pyobj;                /* borrowed back-pointer kept by _C */
    ct_node *dead_next;         /* ct_node_decref's list of nodes to free */
};

/* A tensor's autograd state (ct_tensor.ag), made when it first needs one. */
typedef struct ct_autograd_meta {
    ct_node *grad_fn;           /* owned; NULL for leaves */
    int output_nr;
    ct_node *grad_acc;          /* weak: a leaf's AccumulateGrad, if alive */
    bool retains_grad;
    ct_hook *hooks;             /* a leaf's gradient hooks */
    int64_t next_hook_id;
} ct_autograd_meta;

/* --- grad mode ----------------------------------------------------------- */
bool ct_grad_enabled(void);
void ct_set_grad_enabled(bool on);
bool ct_inference_mode(void);
void ct_set_inference_mode(bool on);

/* --- tensors ------------------------------------------------------------- */
bool ct_requires_grad(const ct_tensor *t);
/* t's grad_fn, borrowed (NULL for leaves and plain tensors). */
ct_node *ct_grad_fn(const ct_tensor *t);
int ct_output_nr(const ct_tensor *t);
bool ct_is_leaf(const ct_tensor *t);
int ct_set_requires_grad(ct_tensor *t, bool on);
/* The AccumulateGrad node of a leaf that requires grad (new reference). */
ct_node *ct_grad_accumulator(ct_tensor *t);
/* The edge a gradient for t flows into (fn: new reference or NULL). */
ct_edge ct_gradient_edge(ct_tensor *t);
/* Set t's history (t takes a reference to fn). */
void ct_set_history(ct_tensor *t, ct_node *fn, int output_nr);
/* A new tensor sharing t's data with no autograd history. */
ct_tensor *ct_detach(const ct_tensor *t);
int ct_detach_(ct_tensor *t);
int ct_retain_grad(ct_tensor *t);
bool ct_retains_grad(const ct_tensor *t);
/* Hooks on t's gradient; returns an id (> 0) or -1. */
int64_t ct_tensor_add_hook(ct_tensor *t, ct_grad_hook_fn fn, void *ctx,
                           void (*release)(void *ctx));
int ct_remove_hook(ct_tensor *t, ct_node *node, int64_t id);
/* PyTorch's check before an in-place op on t. */
int ct_check_inplace(const ct_tensor *t);

/* --- nodes --------------------------------------------------------------- */
ct_node *ct_node_new(const ct_node_type *type, int n_edges, int n_outputs);
static inline void
ct_node_incref(ct_node *n)
{
    atomic_fetch_add_explicit(&n->refcnt, 1, memory_order_relaxed);
}
void ct_node_decref(ct_node *n);
const char *ct_node_name(const ct_node *n);
int64_t ct_node_add_hook(ct_node *n, int kind, void *fn, void *ctx,
                         void (*release)(void *ctx));
/* Save t (may be NULL) in slot i; is_output for the op's own result. */
int ct_node_save(ct_node *n, int i, const ct_tensor *t, bool is_output);
/* The saved tensor of slot i with the checks PyTorch does (freed graph,
 * changed version); a new reference, NULL with no error when it was None. */
ct_tensor *ct_node_unpack(ct_node *n, int i);
/* True when the op's input i needs a gradient. */
static inline bool
ct_node_needs(const ct_node *n, int i)
{
    return n->edges[i].fn != NULL;
}
void ct_node_release_saved(ct_node *n);
extern const ct_node_type ct_accumulate_grad_type;

/* Record: if grad mode is on and an input requires grad, a node of `type`
 * with edges to ins[0..nin-1] (NULL entries allowed), attached to
 * outs[0..nout-1] as their grad_fn.  Returns the new node (borrowed; the
 * outputs own it), NULL when nothing was recorded. */
bool ct_any_requires_grad(int n, const ct_tensor *const *ts);
ct_node *ct_record(const ct_node_type *type, int nin, const ct_tensor *const *ins,
                   int nout, ct_tensor *const *outs);
/* The same for an in-place op on self (its history is rebased). */
ct_node *ct_record_inplace(const ct_node_type *type, int nin,
                           const ct_tensor *const *ins, ct_tensor *self);

/* --- the engine ---------------------------------------------------------- */
/* Backpropagate from roots[0..n-1] with gradients grads (NULL entries:
 * ones for one-element roots).  With inputs (n_inputs > 0) and
 * results != NULL: autograd.grad, the gradients of the inputs go to
 * results (new references, NULL if unused), nothing is accumulated;
 * with inputs and results == NULL: backward(inputs=...), only those leaves
 * accumulate. */
int ct_autograd_run(int n, ct_tensor *const *roots, ct_tensor *const *grads,
                    bool keep_graph, bool create_graph, int n_inputs,
                    ct_tensor *const *inputs, ct_tensor **results, bool allow_unused);

/* Queue fn(ctx) to run when the innermost backward running on this thread
 * finishes without error (PyTorch's queue_callback); release(ctx) runs
 * once it ran or was dropped.  Callbacks may queue more.  Outside a
 * backward: -1 with PyTorch's RuntimeError (release is not called). */
typedef int (*ct_final_callback_fn)(void *ctx);
int ct_autograd_queue_callback(ct_final_callback_fn fn, void *ctx,
                               void (*release)(void *ctx));

/* --- differentiable ops (csrc/autograd/functions_*.c) -------------------- */
ct_tensor *ctag_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b,
                       ct_scalar alpha, ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_unary(ct_unary_op op, const ct_tensor *t, ct_tensor *out,
                      ct_out_mode mode);
ct_tensor *ctag_add(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
ct_tensor *ctag_sub(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
ct_tensor *ctag_mul(const ct_tensor *a, const ct_tensor *b);
ct_tensor *ctag_div(const ct_tensor *a, const ct_tensor *b);
ct_tensor *ctag_neg(const ct_tensor *t);
ct_tensor *ctag_mul_scalar(const ct_tensor *a, double s);
ct_tensor *ctag_pow_scalar(const ct_tensor *a, double e);
ct_tensor *ctag_where(const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b);
ct_tensor *ctag_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max,
                      ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_round_decimals(const ct_tensor *t, int64_t decimals);
ct_tensor *ctag_nan_to_num(const ct_tensor *t, const double *nan, const double *posinf,
                           const double *neginf);
ct_tensor *ctag_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight);
ct_tensor *ctag_to_dtype(const ct_tensor *t, ct_dtype dtype, bool copy);
ct_tensor *ctag_to_device(const ct_tensor *t, ct_device device);
ct_tensor *ctag_clone(const ct_tensor *t);
ct_tensor *ctag_contiguous(const ct_tensor *t);
int ctag_copy_(ct_tensor *dst, const ct_tensor *src);
int ctag_fill_(ct_tensor *t, ct_scalar value);
int ctag_masked_fill_(ct_tensor *t, const ct_tensor *mask, ct_scalar value);

ct_tensor *ctag_reduce(ct_reduce_op op, const ct_tensor *t, int ndims,
                       const int64_t *dims, bool keepdim, ct_dtype dtype,
                       const ct_reduce_args *args, ct_tensor **indices);
ct_tensor *ctag_sum(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim,
                    ct_dtype dtype);
ct_tensor *ctag_mean(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim,
                     ct_dtype dtype);
/* Sum a gradient of a broadcast result back to `sizes`. */
ct_tensor *ctag_sum_to(const ct_tensor *t, int ndim, const int64_t *sizes);

ct_tensor *ctag_matmul(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ctag_mm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ctag_addmm(const ct_tensor *self, const ct_tensor *m1, const ct_tensor *m2,
                      ct_scalar beta, ct_scalar alpha, ct_tensor *out,
                      ct_out_mode mode);

ct_tensor *ctag_view(const ct_tensor *t, int ndim, const int64_t *sizes);
ct_tensor *ctag_reshape(const ct_tensor *t, int ndim, const int64_t *sizes);
ct_tensor *ctag_alias(const ct_tensor *t);
ct_tensor *ctag_expand(const ct_tensor *t, int ndim, const int64_t *sizes);
ct_tensor *ctag_transpose(const ct_tensor *t, int64_t d0, int64_t d1);
ct_tensor *ctag_t(const ct_tensor *t);
ct_tensor *ctag_permute(const ct_tensor *t, int ndim, const int64_t *dims);
ct_tensor *ctag_select(const ct_tensor *t, int64_t dim, int64_t index);
ct_tensor *ctag_slice(const ct_tensor *t, int64_t dim, int64_t start, int64_t stop,
                      int64_t step);
ct_tensor *ctag_narrow(const ct_tensor *t, int64_t dim, int64_t start, int64_t length);
ct_tensor *ctag_unsqueeze(const ct_tensor *t, int64_t dim);
ct_tensor *ctag_squeeze(const ct_tensor *t, const int64_t *dim);
ct_tensor *ctag_index(const ct_tensor *t, int n, ct_tensor *const *indices);
int ctag_index_put_(ct_tensor *t, int n, ct_tensor *const *indices, const ct_tensor *values,
                    bool accumulate);
ct_tensor *ctag_cat(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out);
ct_tensor *ctag_stack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out);

/* --- indexing (csrc/autograd/functions_index.c) ------------------------- */
/* Readers; t[indices] is ctag_index above. */
ct_tensor *ctag_index_select(const ct_tensor *t, int64_t dim, const ct_tensor *index);
ct_tensor *ctag_gather(const ct_tensor *t, int64_t dim, const ct_tensor *index);
ct_tensor *ctag_take(const ct_tensor *t, const ct_tensor *index);
ct_tensor *ctag_masked_select(const ct_tensor *t, const ct_tensor *mask);
/* Writers: ctag_xxx returns a new tensor (self copied, then written),
 * ctag_xxx_ writes self in place (PyTorch's leaf check, version bump,
 * history rebased).  index_put's in-place form is ctag_index_put_ above. */
ct_tensor *ctag_index_put(const ct_tensor *t, int n, ct_tensor *const *indices,
                          const ct_tensor *values, bool accumulate);
/* put: source's elements to the row-major positions index names. */
ct_tensor *ctag_put(const ct_tensor *t, const ct_tensor *index, const ct_tensor *source,
                    bool accumulate);
int ctag_put_(ct_tensor *t, const ct_tensor *index, const ct_tensor *source,
              bool accumulate);
/* src, or value where src is NULL; reduce NULL, "add" or "multiply" (a
 * reduce= result has a NotImplemented grad_fn, as in PyTorch). */
ct_tensor *ctag_scatter(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                        const ct_tensor *src, ct_scalar value, const char *reduce);
int ctag_scatter_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
                  ct_scalar value, const char *reduce);
ct_tensor *ctag_scatter_add(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                            const ct_tensor *src);
int ctag_scatter_add_(ct_tensor *t, int64_t dim, const ct_tensor *index,
                      const ct_tensor *src);
ct_tensor *ctag_index_add(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                          const ct_tensor *source, ct_scalar alpha);
int ctag_index_add_(ct_tensor *t, int64_t dim, const ct_tensor *index,
                    const ct_tensor *source, ct_scalar alpha);
ct_tensor *ctag_index_copy(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                           const ct_tensor *source);
int ctag_index_copy_(ct_tensor *t, int64_t dim, const ct_tensor *index,
                     const ct_tensor *source);
/* The fill value is value_t (a 0-dim tensor, which gets a gradient) when
 * not NULL, else value. */
ct_tensor *ctag_index_fill(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                           const ct_tensor *value_t, ct_scalar value);
int ctag_index_fill_(ct_tensor *t, int64_t dim, const ct_tensor *index,
                     const ct_tensor *value_t, ct_scalar value);
/* The new tensor has the shape of t broadcast with mask. */
ct_tensor *ctag_masked_scatter(const ct_tensor *t, const ct_tensor *mask,
                               const ct_tensor *source);
int ctag_masked_scatter_(ct_tensor *t, const ct_tensor *mask, const ct_tensor *source);

/* --- reductions, scans, sorting (functions_reduce.c, functions_sort.c) --- */
/* ctag_reduce records sum, mean, prod, amax, amin, max and min (all dims;
 * with one dim the values picked at the indices, which it then also
 * needs), var and std (with `indices`: var_mean / std_mean, whose mean
 * goes there), norm (args->name "norm": torch.norm's nodes, else
 * linalg.vector_norm's) and logsumexp; the others are not differentiable.
 * ctag_scan does the same for ct_scan's ops. */
ct_tensor *ctag_prod(const ct_tensor *t, const int64_t *dim, bool keepdim, ct_dtype dtype);
/* ct_vector_norm recorded: name "norm" gives torch.norm's nodes (the
 * bindings of torch.norm), others LinalgVectorNormBackward0. */
ct_tensor *ctag_vector_norm(const ct_tensor *t, double p, int ndims, const int64_t *dims,
                            bool keepdim, ct_dtype dtype, const char *name);
ct_tensor *ctag_frobenius_norm(const ct_tensor *t, int ndims, const int64_t *dims,
                               bool keepdim);
ct_tensor *ctag_scan(ct_scan_op op, const ct_tensor *t, int64_t dim, bool keepdim,
                     ct_dtype dtype, ct_tensor **indices);
ct_tensor *ctag_cumsum(const ct_tensor *t, int64_t dim, ct_dtype dtype);
ct_tensor *ctag_cumprod(const ct_tensor *t, int64_t dim, ct_dtype dtype);
ct_tensor *ctag_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype);
ct_tensor *ctag_log_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype);
/* median() / nanmedian() of all elements. */
ct_tensor *ctag_median_all(const ct_tensor *t, bool ignore_nan);
int ctag_sort(const ct_tensor *t, int64_t dim, bool descending, bool stable,
              ct_tensor **values, ct_tensor **indices);
int ctag_topk(const ct_tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
              ct_tensor **values, ct_tensor **indices);
int ctag_kthvalue(const ct_tensor *t, int64_t k, int64_t dim, bool keepdim,
                  ct_tensor **values, ct_tensor **indices);

/* --- linear algebra and shapes (functions_linalg.c, functions_shape*.c) -- */
/* Products as derivatives.yaml has them (ctag_mm, ctag_addmm and
 * ctag_matmul are above); ger is outer. */
ct_tensor *ctag_bmm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ctag_mv(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ctag_dot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ctag_vdot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ctag_outer(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ctag_addmv(const ct_tensor *self, const ct_tensor *m, const ct_tensor *v,
                      ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_baddbmm(const ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
                        ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_addbmm(const ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
                       ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_addr(const ct_tensor *self, const ct_tensor *v1, const ct_tensor *v2,
                     ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_tril(const ct_tensor *t, int64_t diagonal, ct_tensor *out,
                     ct_out_mode mode);
ct_tensor *ctag_triu(const ct_tensor *t, int64_t diagonal, ct_tensor *out,
                     ct_out_mode mode);
ct_tensor *ctag_diag(const ct_tensor *t, int64_t diagonal, ct_tensor *out);
ct_tensor *ctag_trace(const ct_tensor *t);
/* Recorded as steps of one or two operands (EinsumBackward0). */
ct_tensor *ctag_einsum(const char *equation, int n, const ct_tensor *const *ops);
/* svdvals records the full SVD (LinalgSvdBackward0, S its output 1); the
 * norms are composed of vector norms, amax / amin and svdvals as in torch. */
ct_tensor *ctag_linalg_svdvals(const ct_tensor *A, ct_tensor *out);
ct_tensor *ctag_linalg_matrix_norm(const ct_tensor *A, ct_norm_ord ord, int ndims,
                                   const int64_t *dims, bool keepdim, ct_dtype dtype,
                                   ct_tensor *out);
ct_tensor *ctag_linalg_norm(const ct_tensor *A, const ct_norm_ord *ord, int ndims,
                            const int64_t *dims, bool keepdim, ct_dtype dtype,
                            ct_tensor *out);

/* Views. */
ct_tensor *ctag_diagonal(const ct_tensor *t, int64_t offset, int64_t dim1, int64_t dim2);
/* g put on the (offset, dim1, dim2) diagonal of zeros of the given shape:
 * diagonal's derivative, differentiable itself. */
ct_tensor *ctag_diagonal_backward(const ct_tensor *g, int ndim, const int64_t *sizes,
                                  int64_t offset, int64_t dim1, int64_t dim2);
ct_tensor *ctag_as_strided(const ct_tensor *t, int ndim, const int64_t *sizes,
                           const int64_t *strides, int64_t offset);
ct_tensor *ctag_unflatten(const ct_tensor *t, int64_t dim, int n, const int64_t *sizes);
ct_tensor *ctag_broadcast_to(const ct_tensor *t, int ndim, const int64_t *sizes);
ct_tensor *ctag_movedim(const ct_tensor *t, int nsrc, const int64_t *src, int ndst,
                        const int64_t *dst);
/* t itself (a new reference) when it has k dims or more. */
ct_tensor *ctag_atleast(const ct_tensor *t, int k);
/* In place, on a tensor that is not a view (SqueezeBackward3). */
int ctag_squeeze_(ct_tensor *t, int64_t dim);
/* Several outputs: one node for all of them (SplitBackward0, ...), or a
 * SliceBackward0 each for tensor_split and the axis splits.  The unsafe
 * forms give tensors that are not views.  0, or -1 with out empty. */
int ctag_split(const ct_tensor *t, int64_t split_size, int64_t dim, ct_tensor_list *out);
int ctag_split_with_sizes(const ct_tensor *t, int n, const int64_t *sizes, int64_t dim,
                          ct_tensor_list *out);
int ctag_unsafe_split(const ct_tensor *t, int64_t split_size, int64_t dim,
                      ct_tensor_list *out);
int ctag_unsafe_split_with_sizes(const ct_tensor *t, int n, const int64_t *sizes,
                                 int64_t dim, ct_tensor_list *out);
int ctag_chunk(const ct_tensor *t, int64_t chunks, int64_t dim, ct_tensor_list *out);
int ctag_unsafe_chunk(const ct_tensor *t, int64_t chunks, int64_t dim, ct_tensor_list *out);
int ctag_unbind(const ct_tensor *t, int64_t dim, ct_tensor_list *out);
int ctag_tensor_split(const ct_tensor *t, int64_t sections, int64_t dim,
                      ct_tensor_list *out);
int ctag_tensor_split_indices(const ct_tensor *t, int n, const int64_t *indices,
                              int64_t dim, ct_tensor_list *out);
int ctag_axis_split(const ct_tensor *t, ct_split_axis axis, int64_t sections, int n,
                    const int64_t *indices, ct_tensor_list *out);
/* Tensors that already have the common shape come back as themselves. */
int ctag_broadcast_tensors(int64_t n, const ct_tensor *const *ts, ct_tensor_list *out);

/* Copies. */
ct_tensor *ctag_repeat(const ct_tensor *t, int n, const int64_t *repeats);
ct_tensor *ctag_tile(const ct_tensor *t, int n, const int64_t *reps);
ct_tensor *ctag_flip(const ct_tensor *t, int n, const int64_t *dims);
ct_tensor *ctag_fliplr(const ct_tensor *t);
ct_tensor *ctag_flipud(const ct_tensor *t);
ct_tensor *ctag_roll(const ct_tensor *t, int nshifts, const int64_t *shifts, int ndims,
                     const int64_t *dims);
ct_tensor *ctag_rot90(const ct_tensor *t, int64_t k, int ndims, const int64_t *dims);
/* index_select with the repeated indices (IndexSelectBackward0). */
ct_tensor *ctag_repeat_interleave(const ct_tensor *t, int64_t repeats, const int64_t *dim,
                                  int64_t output_size);
ct_tensor *ctag_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats,
                                         const int64_t *dim, int64_t output_size);
ct_tensor *ctag_hstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);
ct_tensor *ctag_vstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);
ct_tensor *ctag_dstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);
ct_tensor *ctag_column_stack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);

/* The activations of torch.nn (functions_activation.c). */
#include "autograd_activation.h"

/* Convolution, pooling, unfold / fold, upsampling (functions_conv.c). */
#include "autograd_conv.h"

/* The losses, normalization layers and embedding of torch.nn (functions_nn.c). */
#include "autograd_nn.h"

#endif
