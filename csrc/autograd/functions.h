/* csrc/autograd/functions.h -- what the derivative formulas share.
 *
 * Formulas are written with ctag_ ops (so create_graph records them).
 * Every ctag_ op returns NULL, with the error already set, when one of its
 * tensor arguments is NULL; a formula can chain calls and check once.  An
 * ag_frame holds the temporaries of one formula and drops them at the end:
 *
 *     ag_frame f = {0};
 *     ct_tensor *r = ag_keep(&f, ctag_mul(g, F(ctag_unary(CT_UNARY_COS, a, ...))));
 *     ag_end(&f);      // r survives: ag_keep took a reference for the caller
 */
#ifndef CTORCH_AUTOGRAD_FUNCTIONS_H
#define CTORCH_AUTOGRAD_FUNCTIONS_H

#include <ctorch/autograd.h>
#include <ctorch/error.h>

#define AG_FRAME_MAX 24

typedef struct {
    ct_tensor *t[AG_FRAME_MAX];
    int n;
} ag_frame;

/* Register a temporary (NULL passes through). */
static inline ct_tensor *
ag_tmp(ag_frame *f, ct_tensor *t)
{
    if (t != NULL) {
        CT_ASSERT(f->n < AG_FRAME_MAX);
        f->t[f->n++] = t;
    }
    return t;
}

/* A result that outlives the frame (a new reference, or NULL). */
static inline ct_tensor *
ag_keep(ag_frame *f, ct_tensor *t)
{
    (void)f;
    return t;
}

static inline void
ag_end(ag_frame *f)
{
    for (int i = 0; i < f->n; i++) {
        ct_tensor_decref(f->t[i]);
    }
    f->n = 0;
}

/* A Python-number-like 0-dim tensor (it does not promote tensors). */
ct_tensor *ag_scalar(double v);
/* a * s, as a differentiable op. */
ct_tensor *ag_mul_s(const ct_tensor *a, double s);
ct_tensor *ag_add_s(const ct_tensor *a, double s);
ct_tensor *ag_unary(ct_unary_op op, const ct_tensor *a);
/* Remember input k's shape and dtype (k < 2) for ag_to_input. */
void ag_save_meta(ct_node *n, int k, const ct_tensor *t);
/* g summed to input k's shape and cast to its dtype; consumes g. */
ct_tensor *ag_to_input(ct_node *n, int k, ct_tensor *g);
/* zeros shaped like input k. */
ct_tensor *ag_zeros_input(const ct_node *n, int k);
int ag_input_ndim(const ct_node *n, int k);
const int64_t *ag_input_sizes(const ct_node *n, int k);

/* Note [In-place on a view] (copy_slices.c): whether an in-place op on
 * self must rebase self's base, and doing it (returns the op's node, owned
 * by the base's new CopySlices node). */
bool ag_is_view_in_graph(const ct_tensor *self, int nin, const ct_tensor *const *ins);
ct_node *ag_rebase_view(const ct_node_type *type, int nin, const ct_tensor *const *ins,
                        ct_tensor *self);
extern const ct_node_type ag_copy_slices_type;
void ag_copy_slices_release_saved(ct_node *n);

/* A view recorded as UnsafeViewBackward0 (functions_shape.c). */
ct_tensor *ctag__unsafe_view(const ct_tensor *t, int ndim, const int64_t *sizes);

/* In-place bookkeeping shared by the in-place ctag_ ops: the checks
 * before (leaf, overlap with autograd) and the version bump after. */
int ag_inplace_begin(const ct_tensor *self);

#define AG_NULL_IF_ANY(...)                                                  \
    do {                                                                     \
        const ct_tensor *ag_args_[] = {__VA_ARGS__};                         \
        for (size_t ag_i_ = 0; ag_i_ < sizeof ag_args_ / sizeof *ag_args_;   \
             ag_i_++) {                                                      \
            if (ag_args_[ag_i_] == NULL) {                                   \
                return NULL;                                                 \
            }                                                                \
        }                                                                    \
    } while (0)

#endif
