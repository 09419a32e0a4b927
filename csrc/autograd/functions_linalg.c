/* csrc/autograd/functions_linalg.c -- matrix products, matmul as PyTorch
 * composes it, the triangular / diagonal helpers and einsum, with their
 * derivatives.
 *
 * Products: saved[0] = the first operand, saved[1] = the second (each kept
 * only when the other one needs a gradient); for the addxx forms edge 0 is
 * self (its shape and dtype in ag_save_meta slot 0), s[0] = beta, s[1] =
 * alpha.  The formulas are derivatives.yaml's, alpha applied last. */
#include "functions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ct_tensor *
mT(const ct_tensor *t)
{
    return t == NULL ? NULL : ctag_transpose(t, -2, -1);
}

/* torch's error for an out= argument when an input requires grad. */
static int
out_check(int n, const ct_tensor *const *ins, const ct_tensor *out, const char *name)
{
    if (out != NULL && ct_any_requires_grad(n, ins)) {
        return ct_error(CT_ERR_RUNTIME, "%s(): functions with out=... arguments don't "
                        "support automatic differentiation, but one of the arguments "
                        "requires grad.", name);
    }
    return 0;
}

/* --- products ---------------------------------------------------------------- */
static int product_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

enum {
    P_MM, P_BMM, P_MV, P_DOT, P_VDOT,
    P_ADDMM, P_ADDMV, P_BADDBMM, P_ADDBMM, P_ADDR,   /* with self: beta * self + ... */
    P_COUNT
};

static const ct_node_type product_types[P_COUNT] = {
    [P_MM] = {"MmBackward0", product_apply, NULL},
    [P_BMM] = {"BmmBackward0", product_apply, NULL},
    [P_MV] = {"MvBackward0", product_apply, NULL},
    [P_DOT] = {"DotBackward0", product_apply, NULL},
    [P_VDOT] = {"VdotBackward0", product_apply, NULL},
    [P_ADDMM] = {"AddmmBackward0", product_apply, NULL},
    [P_ADDMV] = {"AddmvBackward0", product_apply, NULL},
    [P_BADDBMM] = {"BaddbmmBackward0", product_apply, NULL},
    [P_ADDBMM] = {"AddbmmBackward0", product_apply, NULL},
    [P_ADDR] = {"AddrBackward0", product_apply, NULL},
};

/* The gradient of the first operand (other = the second). */
static ct_tensor *
grad_first(int kind, ag_frame *f, const ct_tensor *g, const ct_tensor *other)
{
    switch (kind) {
    case P_MM:
    case P_ADDMM:
        return ctag_mm(g, ag_tmp(f, mT(other)), NULL);
    case P_BMM:
    case P_BADDBMM:
    case P_ADDBMM:
        return ctag_bmm(g, ag_tmp(f, mT(other)), NULL);
    case P_MV:
    case P_ADDMV:
        return ctag_outer(g, other, NULL);
    case P_ADDR:
        return ctag_mv(g, other, NULL);
    default:                        /* dot, vdot */
        return ctag_mul(g, other);
    }
}

/* The gradient of the second operand (other = the first). */
static ct_tensor *
grad_second(int kind, ag_frame *f, const ct_tensor *g, const ct_tensor *other)
{
    switch (kind) {
    case P_MM:
    case P_ADDMM:
        return ctag_mm(ag_tmp(f, mT(other)), g, NULL);
    case P_BMM:
    case P_BADDBMM:
    case P_ADDBMM:
        return ctag_bmm(ag_tmp(f, mT(other)), g, NULL);
    case P_MV:
    case P_ADDMV:
        return ctag_mv(ag_tmp(f, mT(other)), g, NULL);
    case P_ADDR:
        return ctag_mv(ag_tmp(f, mT(g)), other, NULL);
    default:
        return ctag_mul(g, other);
    }
}

/* Note [Gradient layout of mm's second operand]
 * Linear multiplies by weight.t(), a transposed view.  Its gradient
 * a^T g would be a contiguous [in, out] tensor, so the weight's gradient
 * (its transpose) would be column-major, and every later read of .grad
 * (accumulation, the optimizer, DDP's bucket copies) strided.  As
 * PyTorch's mm_mat2_backward does, a transposed operand gets (g^T a)^T
 * instead: the same product, laid out like the operand. */
static bool
transposed_2d(const ct_tensor *t)
{
    return t != NULL && t->ndim == 2 && t->sizes[0] > 1 && t->sizes[1] > 1 &&
           t->strides[0] == 1 && t->strides[1] == t->sizes[0];
}

static ct_tensor *
grad_second_transposed(ag_frame *f, const ct_tensor *g, const ct_tensor *other)
{
    ct_tensor *r = ag_tmp(f, ctag_mm(ag_tmp(f, mT(g)), other, NULL));
    return r != NULL ? mT(r) : NULL;
}

/* t in dtype (addr promotes its operands; the others share one dtype). */
static ct_tensor *
as_dtype(ag_frame *f, ct_tensor *t, ct_dtype dtype)
{
    if (t == NULL || t->dtype == dtype) {
        return t;
    }
    return ag_tmp(f, ctag_to_dtype(t, dtype, false));
}

static int
product_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    int kind = (int)(n->type - product_types);
    int ia = kind >= P_ADDMM ? 1 : 0;       /* edge of the first operand */
    double alpha = 1;
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *a = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *b = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *g = gi[0];

    if (ct_error_code() != CT_OK) {
        goto fail;
    }
    if (ia) {
        double beta = ct_scalar_to_double(n->s[0]);
        alpha = ct_scalar_to_double(n->s[1]);
        if (ct_node_needs(n, 0)) {
            ct_tensor *gs = beta == 1 ? (ct_tensor_incref(g), g) : ag_mul_s(g, beta);
            if ((go[0] = ag_to_input(n, 0, gs)) == NULL) {
                goto fail;
            }
        }
    }
    if (kind == P_ADDBMM) {
        /* g [n, p] -> [batch, n, p] */
        int64_t s[3] = {n->ints[CT_MAX_DIMS], g->sizes[0], g->sizes[1]};
        g = ag_tmp(&f, ctag_expand(ag_tmp(&f, ctag_unsqueeze(g, 0)), 3, s));
    }
    if (kind == P_ADDR) {
        a = as_dtype(&f, a, g->dtype);
        b = as_dtype(&f, b, g->dtype);
    }
    for (int k = 0; k < 2; k++) {
        int e = ia + k;
        if (!ct_node_needs(n, e)) {
            continue;
        }
        ct_tensor *r = k == 0 ? grad_first(kind, &f, g, b)
                     : (kind == P_MM || kind == P_ADDMM) && n->ints[CT_MAX_DIMS]
                         ? grad_second_transposed(&f, g, a)
                         : grad_second(kind, &f, g, a);
        if (r != NULL && alpha != 1) {
            ct_tensor *s = ag_mul_s(r, alpha);
            ct_tensor_decref(r);
            r = s;
        }
        if (r != NULL && kind == P_ADDR &&
            r->dtype != (ct_dtype)n->ints[CT_MAX_DIMS + k]) {
            ct_tensor *c = ctag_to_dtype(r, (ct_dtype)n->ints[CT_MAX_DIMS + k], false);
            ct_tensor_decref(r);
            r = c;
        }
        if ((go[e] = r) == NULL) {
            goto fail;
        }
    }
    ag_end(&f);
    return 0;
fail:
    ag_end(&f);
    return -1;
}

/* Record a product r of a and b (ins: [self,] a, b); r is consumed.  For
 * an in-place op r is self and the history is rebased (Note [In-place on
 * a view] in copy_slices.c). */
static ct_tensor *
record_product(int kind, int nin, const ct_tensor *const *ins, ct_tensor *r,
               bool inplace, ct_scalar beta, ct_scalar alpha)
{
    if (r == NULL || !ct_dtype_is_floating(r->dtype)) {
        return r;
    }
    ct_node *n;
    if (inplace) {
        ct_error_clear();
        n = ct_record_inplace(&product_types[kind], nin, ins, r);
        if (n == NULL) {
            if (ct_error_code() == CT_OK) {
                return r;
            }
            ct_tensor_decref(r);
            return NULL;
        }
    }
    else {
        if (!ct_any_requires_grad(nin, ins)) {
            return r;
        }
        n = ct_record(&product_types[kind], nin, ins, 1, &r);
    }
    int ia = nin - 2;
    const ct_tensor *a = ins[ia], *b = ins[ia + 1];
    if (n == NULL ||
        ct_node_save(n, 0, ct_node_needs(n, ia + 1) ? a : NULL, false) < 0 ||
        ct_node_save(n, 1, ct_node_needs(n, ia) ? b : NULL, false) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, ins[0]);
    n->s[0] = beta;
    n->s[1] = alpha;
    if (kind == P_ADDBMM) {
        n->ints[CT_MAX_DIMS] = a->sizes[0];
    }
    if (kind == P_MM || kind == P_ADDMM) {
        /* b itself is saved only when a needs a gradient */
        n->ints[CT_MAX_DIMS] = transposed_2d(b);
    }
    if (kind == P_ADDR) {
        n->ints[CT_MAX_DIMS] = a->dtype;
        n->ints[CT_MAX_DIMS + 1] = b->dtype;
    }
    return r;
}

typedef ct_tensor *(*product_kernel)(const ct_tensor *, const ct_tensor *, ct_tensor *);

static ct_tensor *
product(int kind, const char *name, product_kernel kernel, const ct_tensor *a,
        const ct_tensor *b, ct_tensor *out)
{
    AG_NULL_IF_ANY(a, b);
    const ct_tensor *ins[2] = {a, b};
    if (out_check(2, ins, out, name) < 0) {
        return NULL;
    }
    return record_product(kind, 2, ins, kernel(a, b, out), false, ct_scalar_int(1),
                          ct_scalar_int(1));
}

ct_tensor *
ctag_mm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    return product(P_MM, "mm", ct_mm, a, b, out);
}

ct_tensor *
ctag_bmm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    return product(P_BMM, "bmm", ct_bmm, a, b, out);
}

ct_tensor *
ctag_mv(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    return product(P_MV, "mv", ct_mv, a, b, out);
}

ct_tensor *
ctag_dot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    return product(P_DOT, "dot", ct_dot, a, b, out);
}

ct_tensor *
ctag_vdot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    return product(P_VDOT, "vdot", ct_vdot, a, b, out);
}

/* outer / ger: torch's self.reshape({n, 1}) * vec2 (ReshapeAliasBackward0,
 * MulBackward0). */
ct_tensor *
ctag_outer(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    AG_NULL_IF_ANY(a, b);
    const ct_tensor *ins[2] = {a, b};
    if (out != NULL || !ct_any_requires_grad(2, ins) || a->ndim != 1 || b->ndim != 1) {
        if (out_check(2, ins, out, "mul") < 0) {      /* torch's outer is a mul */
            return NULL;
        }
        return ct_outer(a, b, out);
    }
    int64_t col[2] = {a->sizes[0], 1};
    ct_tensor *c = ctag_reshape(a, 2, col);
    ct_tensor *r = c != NULL ? ctag_mul(c, b) : NULL;
    ct_tensor_decref(c);
    return r;
}

typedef ct_tensor *(*addprod_kernel)(const ct_tensor *, const ct_tensor *,
                                     const ct_tensor *, ct_scalar, ct_scalar,
                                     ct_tensor *, ct_out_mode);

static ct_tensor *
addprod(int kind, const char *name, addprod_kernel kernel, const ct_tensor *self,
        const ct_tensor *m1, const ct_tensor *m2, ct_scalar beta, ct_scalar alpha,
        ct_tensor *out, ct_out_mode mode)
{
    AG_NULL_IF_ANY(self, m1, m2);
    const ct_tensor *ins[3] = {self, m1, m2};
    if (mode == CT_OUT_INPLACE && ag_inplace_begin(out) < 0) {
        return NULL;
    }
    if (mode == CT_OUT_GIVEN && out_check(3, ins, out, name) < 0) {
        return NULL;
    }
    return record_product(kind, 3, ins, kernel(self, m1, m2, beta, alpha, out, mode),
                          mode == CT_OUT_INPLACE, beta, alpha);
}

ct_tensor *
ctag_addmm(const ct_tensor *self, const ct_tensor *m1, const ct_tensor *m2,
           ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    return addprod(P_ADDMM, "addmm", ct_addmm, self, m1, m2, beta, alpha, out, mode);
}

ct_tensor *
ctag_addmv(const ct_tensor *self, const ct_tensor *m, const ct_tensor *v,
           ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    return addprod(P_ADDMV, "addmv", ct_addmv, self, m, v, beta, alpha, out, mode);
}

ct_tensor *
ctag_baddbmm(const ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
             ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    return addprod(P_BADDBMM, "baddbmm", ct_baddbmm, self, b1, b2, beta, alpha, out,
                   mode);
}

ct_tensor *
ctag_addbmm(const ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
            ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    return addprod(P_ADDBMM, "addbmm", ct_addbmm, self, b1, b2, beta, alpha, out, mode);
}

ct_tensor *
ctag_addr(const ct_tensor *self, const ct_tensor *v1, const ct_tensor *v2,
          ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    return addprod(P_ADDR, "addr", ct_addr, self, v1, v2, beta, alpha, out, mode);
}

/* --- matmul -------------------------------------------------------------------- */
/* Note [matmul graph]
 * PyTorch 1.13's matmul, so the graph has its node names: 1-D . 1-D is
 * dot, 2-D @ 1-D mv, 1-D @ 2-D unsqueeze + mm + squeeze_ (SqueezeBackward3),
 * 2-D @ 2-D mm.  A tensor of 3 or more dims times a 1-D or 2-D one is
 * folded into one mm / mv (its batch dims reshaped into rows; the 2-D
 * @ N-D case transposed and made contiguous at the end) unless should_fold
 * says no; everything else broadcasts the batch dims, folds them into one
 * and runs bmm, the result an _unsafe_view. */
static bool
should_fold(const ct_tensor *t1, int dim2)
{
    if (t1->ndim < 3 || (dim2 != 1 && dim2 != 2)) {
        return false;
    }
    /* [b, n, m] with the last two dims transposed: bmm handles that
     * without the copy a fold would need */
    return !(t1->ndim == 3 && dim2 == 2 && t1->strides[2] != 1 &&
             t1->strides[0] == t1->sizes[1] * t1->sizes[2]);
}

static ct_tensor *
matmul_fold(const ct_tensor *a, const ct_tensor *b)
{
    ag_frame f = {0};
    bool transpose = b->ndim > a->ndim;
    const ct_tensor *t1 = transpose ? ag_tmp(&f, mT(b)) : a;
    const ct_tensor *t2 = !transpose ? b : a->ndim == 2 ? ag_tmp(&f, ctag_t(a)) : a;
    ct_tensor *r = NULL;
    if (t1 == NULL || t2 == NULL) {
        goto done;
    }
    int64_t shape[CT_MAX_DIMS], folded = 1;
    int ns = t1->ndim - 1;
    for (int i = 0; i < ns; i++) {
        shape[i] = t1->sizes[i];
        folded *= t1->sizes[i];
    }
    if (t2->ndim == 2) {
        shape[ns++] = t2->sizes[1];
    }
    int64_t two[2] = {folded, t1->sizes[t1->ndim - 1]};
    ct_tensor *t1f = ag_tmp(&f, ctag_reshape(t1, 2, two));
    ct_tensor *p = ag_tmp(
        &f, t2->ndim == 2 ? ctag_mm(t1f, t2, NULL) : ctag_mv(t1f, t2, NULL));
    r = ctag__unsafe_view(p, ns, shape);
    if (r != NULL && transpose && t2->ndim == 2) {
        ct_tensor *o = ag_tmp(&f, r);
        r = ctag_contiguous(ag_tmp(&f, mT(o)));
    }
done:
    ag_end(&f);
    return r;
}

static ct_tensor *
matmul_batched(const ct_tensor *x, const ct_tensor *y)
{
    ag_frame f = {0};
    ct_tensor *r = NULL;
    int64_t bx[CT_MAX_DIMS], by[CT_MAX_DIMS], batch[CT_MAX_DIMS];
    int nbx = x->ndim - 2, nby = y->ndim - 2, nb;
    memcpy(bx, x->sizes, sizeof(int64_t) * (size_t)nbx);
    memcpy(by, y->sizes, sizeof(int64_t) * (size_t)nby);
    if (ct_broadcast_shapes(nbx, bx, nby, by, &nb, batch) < 0) {
        return NULL;
    }
    int64_t nbatch = 1;
    for (int i = 0; i < nb; i++) {
        nbatch *= batch[i];
    }
    int64_t n = x->sizes[x->ndim - 2], k = x->sizes[x->ndim - 1];
    int64_t k2 = y->sizes[y->ndim - 2], m = y->sizes[y->ndim - 1];
    int64_t sx[CT_MAX_DIMS], sy[CT_MAX_DIMS];
    memcpy(sx, batch, sizeof(int64_t) * (size_t)nb);
    memcpy(sy, batch, sizeof(int64_t) * (size_t)nb);
    sx[nb] = n, sx[nb + 1] = k;
    sy[nb] = k2, sy[nb + 1] = m;
    int64_t fx[3] = {nbatch, n, k}, fy[3] = {nbatch, k2, m};
    ct_tensor *rx = ag_tmp(&f,
                           ctag_reshape(ag_tmp(&f, ctag_expand(x, nb + 2, sx)), 3, fx));
    ct_tensor *ry = ag_tmp(&f,
                           ctag_reshape(ag_tmp(&f, ctag_expand(y, nb + 2, sy)), 3, fy));
    ct_tensor *p = ag_tmp(&f, ctag_bmm(rx, ry, NULL));
    if (p != NULL) {
        batch[nb] = n;
        batch[nb + 1] = m;
        r = ctag__unsafe_view(p, nb + 2, batch);
    }
    ag_end(&f);
    return r;
}

ct_tensor *
ctag_matmul(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    AG_NULL_IF_ANY(a, b);
    const ct_tensor *ins[2] = {a, b};
    int d1 = a->ndim, d2 = b->ndim;
    if (out != NULL || !ct_any_requires_grad(2, ins) || d1 == 0 || d2 == 0) {
        /* out= fails in the product torch's matmul would run */
        bool fold = should_fold(a, d2) || should_fold(b, d1);
        int small = d1 < d2 ? d1 : d2;
        const char *name = d1 == 1 && d2 == 1 ? "dot"
                           : (d1 == 2 && d2 == 1) || (fold && small == 1) ? "mv"
                           : d1 <= 2 && d2 <= 2 ? "mm"
                           : fold ? "mm" : "bmm";
        if (out_check(2, ins, out, name) < 0) {
            return NULL;
        }
        return ct_matmul(a, b, out);
    }
    if (d1 == 1 && d2 == 1) {
        return ctag_dot(a, b, NULL);
    }
    if (d1 == 2 && d2 == 1) {
        return ctag_mv(a, b, NULL);
    }
    if (d1 == 2 && d2 == 2) {
        return ctag_mm(a, b, NULL);
    }
    if (d1 == 1 && d2 == 2) {
        ct_tensor *a2 = ctag_unsqueeze(a, 0);
        ct_tensor *p = a2 != NULL ? ctag_mm(a2, b, NULL) : NULL;
        ct_tensor_decref(a2);
        if (p != NULL && ctag_squeeze_(p, 0) < 0) {
            ct_tensor_decref(p);
            return NULL;
        }
        return p;
    }
    if (should_fold(a, d2) || should_fold(b, d1)) {
        return matmul_fold(a, b);
    }
    return matmul_batched(a, b);
}

/* --- tril, triu, diag, trace ------------------------------------------------- */
/* d[0]: the diagonal. */
static int tri_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type tril_type = {"TrilBackward0", tri_apply, NULL};
static const ct_node_type triu_type = {"TriuBackward0", tri_apply, NULL};

static int
tri_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    int64_t k = (int64_t)n->d[0];
    go[0] = n->type == &tril_type ? ctag_tril(gi[0], k, NULL, CT_OUT_NEW)
                                  : ctag_triu(gi[0], k, NULL, CT_OUT_NEW);
    return go[0] != NULL ? 0 : -1;
}

typedef ct_tensor *(*tri_kernel)(const ct_tensor *, int64_t, ct_tensor *, ct_out_mode);

static ct_tensor *
tri(const ct_node_type *type, const char *name, tri_kernel kernel, const ct_tensor *t,
    int64_t k, ct_tensor *out, ct_out_mode mode)
{
    AG_NULL_IF_ANY(t);
    if (mode == CT_OUT_INPLACE && ag_inplace_begin(out) < 0) {
        return NULL;
    }
    if (mode == CT_OUT_GIVEN && out_check(1, &t, out, name) < 0) {
        return NULL;
    }
    ct_tensor *r = kernel(t, k, out, mode);
    if (r == NULL || !ct_dtype_is_floating(r->dtype)) {
        return r;
    }
    ct_node *n;
    ct_error_clear();
    if (mode == CT_OUT_INPLACE) {
        n = ct_record_inplace(type, 1, &t, r);
    }
    else {
        n = ct_record(type, 1, &t, 1, &r);
    }
    if (n == NULL && ct_error_code() != CT_OK) {
        ct_tensor_decref(r);
        return NULL;
    }
    if (n != NULL) {
        n->d[0] = (double)k;
    }
    return r;
}

ct_tensor *
ctag_tril(const ct_tensor *t, int64_t diagonal, ct_tensor *out, ct_out_mode mode)
{
    return tri(&tril_type, "tril", ct_tril, t, diagonal, out, mode);
}

ct_tensor *
ctag_triu(const ct_tensor *t, int64_t diagonal, ct_tensor *out, ct_out_mode mode)
{
    return tri(&triu_type, "triu", ct_triu, t, diagonal, out, mode);
}

/* diag: of a vector, the diagonal of g; of a matrix, g put on the diagonal
 * of zeros (diagonal_backward).  trace: g on the whole main diagonal.
 * d[0]: the diagonal. */
static int
diag_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    int64_t k = (int64_t)n->d[0];
    if (ag_input_ndim(n, 0) == 1) {
        go[0] = ctag_diagonal(gi[0], k, 0, 1);
    }
    else {
        go[0] = ctag_diagonal_backward(gi[0], 2, ag_input_sizes(n, 0), k, 0, 1);
    }
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type diag_type = {"DiagBackward0", diag_apply, NULL};

ct_tensor *
ctag_diag(const ct_tensor *t, int64_t diagonal, ct_tensor *out)
{
    AG_NULL_IF_ANY(t);
    if (out_check(1, &t, out, "diag") < 0) {
        return NULL;
    }
    ct_tensor *r = ct_diag(t, diagonal, out);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_node *n = ct_record(&diag_type, 1, &t, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, t);
    n->d[0] = (double)diagonal;
    return r;
}

static int
trace_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    const int64_t *s = ag_input_sizes(n, 0);
    int64_t len = s[0] < s[1] ? s[0] : s[1];
    ct_tensor *e = ctag_expand(gi[0], 1, &len);
    go[0] = e != NULL ? ctag_diagonal_backward(e, 2, s, 0, 0, 1) : NULL;
    ct_tensor_decref(e);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type trace_type = {"TraceBackward0", trace_apply, NULL};

ct_tensor *
ctag_trace(const ct_tensor *t)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_trace(t);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_node *n = ct_record(&trace_type, 1, &t, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, t);
    return r;
}

/* --- einsum -------------------------------------------------------------------- */
/* Note [einsum derivative]
 * torch records einsum as the permutes, diagonals and bmm it runs; here it
 * is recorded as left-to-right steps of one or two operands, each an
 * einsum with explicit letters (every ellipsis spelled out with unused
 * letters) whose node is EinsumBackward0.  A step "A,B->K" is linear in
 * each operand: the gradient of A is einsum("K,B,...->A'", g, B, ...),
 * where a letter repeated in A (a diagonal) becomes a fresh letter tied
 * to the first by an identity matrix operand, and a letter of A found
 * nowhere else (summed away) comes from a ones vector operand; dims where
 * A broadcast (size 1) are summed back, dims the others broadcast are
 * expanded.  Being an einsum itself, the gradient records its own graph
 * under create_graph. */

#define EIN_LETTERS 52
#define EIN_TERM (CT_MAX_DIMS + 1)

static int
ein_letter(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return 26 + (c - 'a');
    }
    return -1;
}

static char
ein_char(int l)
{
    return (char)(l < 26 ? 'A' + l : 'a' + (l - 26));
}

/* The n x n identity in like's dtype, on like's device (made on the host
 * and copied there). */
static ct_tensor *
eye_on(int64_t n, const ct_tensor *like)
{
    ct_tensor *e = ct_eye(n, n, like->dtype);
    if (e == NULL || ct_tensor_device(like).type == CT_DEVICE_CPU) {
        return e;
    }
    ct_tensor *r = ct_to_device(e, ct_tensor_device(like));
    ct_tensor_decref(e);
    return r;
}

/* One step's letters: operand terms a, b ("" when a single operand) and
 * the result's k, NUL-terminated. */
typedef struct {
    int nops;
    char a[EIN_TERM], b[EIN_TERM], k[EIN_TERM];
} ein_step;

/* terms[i] (i < n) and terms[n] (the output) of an equation that ct_einsum
 * accepted, with ellipses spelled out: 0, or -1 with the error set. */
static int
ein_explicit(const char *eq, int n, const ct_tensor *const *ops,
             char (*terms)[EIN_TERM])
{
    int used[EIN_LETTERS] = {0}, count[EIN_LETTERS] = {0};
    char lt[CT_EINSUM_MAX_OPERANDS + 1][EIN_TERM];
    int nl[CT_EINSUM_MAX_OPERANDS + 1], ell[CT_EINSUM_MAX_OPERANDS + 1];
    int k = 0, ne = 0;
    const char *p = eq;
    bool explicit_out = false;

    for (;;) {
        nl[k] = 0;
        ell[k] = -1;
        for (; *p != '\0' && *p != ',' && *p != '-'; p++) {
            if (*p == '.') {
                ell[k] = nl[k];
                p += 2;
            }
            else if (ein_letter(*p) >= 0 && nl[k] < CT_MAX_DIMS) {
                int l = ein_letter(*p);
                lt[k][nl[k]++] = *p;
                if (k < n && l >= 0) {
                    used[l] = 1;
                    count[l]++;
                }
            }
        }
        if (k < n && ell[k] >= 0 && ops[k]->ndim - nl[k] > ne) {
            ne = ops[k]->ndim - nl[k];
        }
        k++;
        if (*p == ',' && k < n) {
            p++;
            continue;
        }
        if (*p == '-' && k == n) {
            p += 2;
            explicit_out = true;
            continue;
        }
        break;
    }
    if (k != n + (explicit_out ? 1 : 0)) {
        return ct_error(CT_ERR_RUNTIME, "einsum(): bad equation");
    }
    char fresh[CT_MAX_DIMS];
    for (int l = 0, i = 0; i < ne; l++) {
        if (l == EIN_LETTERS) {
            return ct_error(CT_ERR_RUNTIME, "einsum(): too many dimensions under the "
                            "ellipsis for autograd");
        }
        if (!used[l]) {
            fresh[i++] = ein_char(l);
        }
    }
    for (int t = 0; t < k; t++) {
        int m = 0, ne_t = t < n ? ops[t]->ndim - nl[t] : ne;
        for (int j = 0; j <= nl[t]; j++) {
            if (j == ell[t]) {
                for (int e = ne - ne_t; e < ne; e++) {
                    terms[t][m++] = fresh[e];
                }
            }
            if (j < nl[t]) {
                terms[t][m++] = lt[t][j];
            }
        }
        terms[t][m] = '\0';
    }
    if (!explicit_out) {
        int m = 0;
        for (int e = 0; e < ne; e++) {
            terms[n][m++] = fresh[e];
        }
        for (int l = 0; l < EIN_LETTERS; l++) {
            if (count[l] == 1) {
                terms[n][m++] = ein_char(l);
            }
        }
        terms[n][m] = '\0';
    }
    return 0;
}

static void
ein_release(ct_node *n)
{
    free(n->extra);
    n->extra = NULL;
}

static int einsum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type einsum_type = {"EinsumBackward0", einsum_apply, ein_release};

/* One step: einsum of x (and y) with the letters of s, recorded. */
static ct_tensor *
ein_run(const ein_step *s, const ct_tensor *x, const ct_tensor *y)
{
    char eq[3 * EIN_TERM + 4];
    const ct_tensor *ops[2] = {x, y};
    snprintf(eq, sizeof eq, s->nops == 2 ? "%s,%s->%s" : "%s->%s%s", s->a,
             s->nops == 2 ? s->b : s->k, s->nops == 2 ? s->k : "");
    ct_tensor *r = ct_einsum(eq, s->nops, ops);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) ||
        !ct_any_requires_grad(s->nops, ops)) {
        return r;
    }
    ein_step *keep = malloc(sizeof *keep);
    ct_node *n = keep != NULL ? ct_record(&einsum_type, s->nops, ops, 1, &r) : NULL;
    if (n == NULL) {
        free(keep);
        ct_tensor_decref(r);
        if (keep == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
        }
        return NULL;
    }
    *keep = *s;
    n->extra = keep;
    ag_save_meta(n, 0, x);
    if (s->nops == 2) {
        ag_save_meta(n, 1, y);
        /* each operand's gradient needs the other one */
        if (ct_node_save(n, 0, ct_node_needs(n, 1) ? x : NULL, false) < 0 ||
            ct_node_save(n, 1, ct_node_needs(n, 0) ? y : NULL, false) < 0) {
            ct_tensor_decref(r);
            return NULL;
        }
    }
    return r;
}

/* The gradient of an operand with letters lx and sizes sx (Note [einsum
 * derivative]); g has letters lk, the other operand (or NULL) letters ly. */
static ct_tensor *
ein_grad(const char *lx, const int64_t *sx, const char *lk, const ct_tensor *g,
         const char *ly, const ct_tensor *y)
{
    int nx = (int)strlen(lx), nops = 0;
    bool taken[EIN_LETTERS] = {false};
    const char *all[3] = {lx, lk, ly != NULL ? ly : ""};
    for (int t = 0; t < 3; t++) {
        for (const char *c = all[t]; *c != '\0'; c++) {
            taken[ein_letter(*c)] = true;
        }
    }
    const ct_tensor *ops[CT_EINSUM_MAX_OPERANDS];
    ct_tensor *owned[CT_EINSUM_MAX_OPERANDS];
    int nowned = 0;
    char eq[CT_EINSUM_MAX_OPERANDS * 4 + 3 * EIN_TERM], out[EIN_TERM];
    int len = snprintf(eq, sizeof eq, "%s", lk);
    ops[nops++] = g;
    if (y != NULL) {
        len += snprintf(eq + len, sizeof eq - (size_t)len, ",%s", ly);
        ops[nops++] = y;
    }
    ct_tensor *r = NULL;
    int next_fresh = 0;
    for (int j = 0; j < nx; j++) {
        out[j] = lx[j];
        const char *first = strchr(lx, lx[j]);
        bool repeat = first - lx < j;
        bool lonely = !repeat && strchr(lk, lx[j]) == NULL &&
                      (ly == NULL || strchr(ly, lx[j]) == NULL);
        if (!repeat && !lonely) {
            continue;
        }
        if (nops + 1 >= CT_EINSUM_MAX_OPERANDS) {
            ct_error(CT_ERR_RUNTIME, "einsum(): too many operands in its derivative");
            goto done;
        }
        ct_tensor *extra;
        if (repeat) {
            while (next_fresh < EIN_LETTERS && taken[next_fresh]) {
                next_fresh++;
            }
            if (next_fresh == EIN_LETTERS) {
                ct_error(CT_ERR_RUNTIME,
                         "einsum(): too many letters for its derivative");
                goto done;
            }
            taken[next_fresh] = true;
            out[j] = ein_char(next_fresh);
            extra = eye_on(sx[j], g);
            len += snprintf(eq + len, sizeof eq - (size_t)len, ",%c%c", lx[j], out[j]);
        }
        else {
            extra =
                ct_full_on(1, &sx[j], ct_scalar_int(1), g->dtype, ct_tensor_device(g));
            len += snprintf(eq + len, sizeof eq - (size_t)len, ",%c", lx[j]);
        }
        if (extra == NULL) {
            goto done;
        }
        owned[nowned++] = extra;
        ops[nops++] = extra;
    }
    out[nx] = '\0';
    snprintf(eq + len, sizeof eq - (size_t)len, "->%s", out);
    r = ctag_einsum(eq, nops, ops);
    /* broadcasting: sum where x had size 1, expand where the others did */
    int64_t sum_dims[CT_MAX_DIMS];
    int ns = 0;
    bool expand = false;
    for (int d = 0; r != NULL && d < nx; d++) {
        if (r->sizes[d] != sx[d]) {
            if (sx[d] == 1) {
                sum_dims[ns++] = d;
            }
            else {
                expand = true;
            }
        }
    }
    if (r != NULL && ns > 0) {
        ct_tensor *s = ctag_sum(r, ns, sum_dims, true, CT_DTYPE_COUNT);
        ct_tensor_decref(r);
        r = s;
    }
    if (r != NULL && expand) {
        ct_tensor *e = ctag_expand(r, nx, sx);
        ct_tensor_decref(r);
        r = e;
    }
done:
    for (int i = 0; i < nowned; i++) {
        ct_tensor_decref(owned[i]);
    }
    return r;
}

static int
einsum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    const ein_step *s = n->extra;
    ct_error_clear();
    ct_tensor *x = ct_node_unpack(n, 0), *y = ct_node_unpack(n, 1);
    int rc = -1;
    if (ct_error_code() != CT_OK) {
        goto done;
    }
    if (ct_node_needs(n, 0)) {
        go[0] = ein_grad(s->a, ag_input_sizes(n, 0), s->k, gi[0],
                         s->nops == 2 ? s->b : NULL, y);
        if (go[0] == NULL) {
            goto done;
        }
    }
    if (s->nops == 2 && ct_node_needs(n, 1)) {
        go[1] = ein_grad(s->b, ag_input_sizes(n, 1), s->k, gi[0], s->a, x);
        if (go[1] == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    ct_tensor_decref(x);
    ct_tensor_decref(y);
    return rc;
}

ct_tensor *
ctag_einsum(const char *equation, int n, const ct_tensor *const *ops)
{
    for (int i = 0; i < n; i++) {
        AG_NULL_IF_ANY(ops[i]);
    }
    ct_tensor *r = ct_einsum(equation, n, ops);      /* checks everything */
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(n, ops)) {
        return r;
    }
    ct_tensor_decref(r);
    char (*terms)[EIN_TERM] = malloc(sizeof(char[EIN_TERM]) * (size_t)(n + 1));
    if (terms == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (ein_explicit(equation, n, ops, terms) < 0) {
        free(terms);
        return NULL;
    }
    ein_step s;
    const char *out = terms[n];
    s.nops = n == 1 ? 1 : 2;
    memcpy(s.a, terms[0], EIN_TERM);
    s.b[0] = '\0';
    if (n == 1) {
        memcpy(s.k, out, EIN_TERM);
        r = ein_run(&s, ops[0], NULL);
    }
    ct_tensor_incref((ct_tensor *)ops[0]);
    ct_tensor *cur = (ct_tensor *)ops[0];
    for (int k = 1; k < n && cur != NULL; k++) {
        memcpy(s.b, terms[k], EIN_TERM);
        if (k == n - 1) {
            memcpy(s.k, out, EIN_TERM);
        }
        else {
            /* the letters still needed: in the output or a later operand */
            int m = 0;
            char both[2 * EIN_TERM];
            snprintf(both, sizeof both, "%s%s", s.a, s.b);
            for (const char *c = both; *c != '\0'; c++) {
                bool needed = strchr(out, *c) != NULL;
                for (int j = k + 1; j < n && !needed; j++) {
                    needed = strchr(terms[j], *c) != NULL;
                }
                if (needed && memchr(s.k, *c, (size_t)m) == NULL) {
                    s.k[m++] = *c;
                }
            }
            s.k[m] = '\0';
        }
        ct_tensor *next = ein_run(&s, cur, ops[k]);
        ct_tensor_decref(cur);
        cur = next;
        memcpy(s.a, s.k, EIN_TERM);
    }
    if (n > 1) {
        r = cur;
    }
    else {
        ct_tensor_decref(cur);
    }
    free(terms);
    return r;
}

/* --- singular values and matrix norms ----------------------------------------- */
/* Note [svd derivative]
 * torch.linalg.svdvals with a gradient runs the full SVD (U, S, Vh) and
 * records LinalgSvdBackward0 with three outputs, svdvals' result being S;
 * its backward is torch's svd_backward, written with ctag_ ops: U diag(gS)
 * Vh when only S got a gradient, the general formula (for double backward,
 * where U and Vh get gradients too) otherwise.  The kernel computes S; the
 * singular vectors come from LAPACK's ?gesdd with jobz='S' here. */

/* libopenblas's LAPACK (aten/cpu/linalg_svd.c declares them too). */
void sgesdd_(const char *jobz, const int *m, const int *n, float *a, const int *lda,
             float *s, float *u, const int *ldu, float *vt, const int *ldvt,
             float *work, const int *lwork, int *iwork, int *info, size_t jobz_len);
void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda,
             double *s, double *u, const int *ldu, double *vt, const int *ldvt,
             double *work, const int *lwork, int *iwork, int *info, size_t jobz_len);

/* A row-major [m, n] matrix is its transpose in LAPACK's column-major
 * order: A^T = U' S V'^T, so U = V' and Vh = U'^T, and those come out of
 * ?gesdd already laid out row-major: vt (k x m) is U, u (n x k) is Vh. */
#define GESDD_VECTORS(S, T)                                                    \
    static int gesdd_vectors_##S(T *a, T *u, T *vh, int m, int n, int64_t count) \
    {                                                                          \
        int k = m < n ? m : n, lda = n, ldu = n, ldvt = k, lwork = -1, info = 0; \
        T query = 0;                                                           \
        T *s = malloc(sizeof(T) * (size_t)k);                                  \
        int *iwork = malloc(sizeof(int) * 8 * (size_t)k);                      \
        T *work = NULL;                                                        \
        if (s == NULL || iwork == NULL) {                                      \
            goto nomem;                                                        \
        }                                                                      \
        S##gesdd_("S", &n, &m, a, &lda, s, vh, &ldu, u, &ldvt, &query, &lwork, \
                  iwork, &info, 1);                                            \
        lwork = (int)query;                                                    \
        if ((work = malloc(sizeof(T) * (size_t)(lwork > 1 ? lwork : 1))) == NULL) { \
            goto nomem;                                                        \
        }                                                                      \
        for (int64_t b = 0; b < count && info == 0; b++) {                     \
            S##gesdd_("S", &n, &m, a + b * m * n, &lda, s, vh + b * k * n, &ldu, \
                      u + b * m * k, &ldvt, work, &lwork, iwork, &info, 1);    \
        }                                                                      \
        free(work);                                                            \
        free(iwork);                                                           \
        free(s);                                                               \
        return info;                                                           \
    nomem:                                                                     \
        free(iwork);                                                           \
        free(s);                                                               \
        return ct_error(CT_ERR_NOMEM, "linalg.svd: out of memory");           \
    }
GESDD_VECTORS(s, float)
GESDD_VECTORS(d, double)
#undef GESDD_VECTORS

/* The singular vectors of A ([..., m, n], float32/64, numel > 0, already
 * checked by the svdvals kernel): *U [..., m, k], *Vh [..., k, n]. */
static int
svd_vectors(const ct_tensor *A, ct_tensor **U, ct_tensor **Vh)
{
    int nd = A->ndim;
    int64_t m = A->sizes[nd - 2], n = A->sizes[nd - 1], k = m < n ? m : n;
    int64_t sizes[CT_MAX_DIMS];
    ct_tensor *a = ct_empty(nd, A->sizes, A->dtype, ct_device_cpu());
    int rc = -1;
    *U = *Vh = NULL;
    if (a == NULL || ct_copy_(a, A) < 0) {
        goto done;
    }
    memcpy(sizes, A->sizes, sizeof(int64_t) * (size_t)nd);
    sizes[nd - 1] = k;
    if ((*U = ct_empty(nd, sizes, A->dtype, ct_device_cpu())) == NULL) {
        goto done;
    }
    sizes[nd - 2] = k;
    sizes[nd - 1] = n;
    if ((*Vh = ct_empty(nd, sizes, A->dtype, ct_device_cpu())) == NULL) {
        goto done;
    }
    int64_t count = A->numel / (m * n);
    int info = A->dtype == CT_DTYPE_FLOAT32
                   ? gesdd_vectors_s(
                         (float *)ct_tensor_data(a), (float *)ct_tensor_data(*U),
                         (float *)ct_tensor_data(*Vh), (int)m, (int)n, count)
                   : gesdd_vectors_d(
                         (double *)ct_tensor_data(a), (double *)ct_tensor_data(*U),
                         (double *)ct_tensor_data(*Vh), (int)m, (int)n, count);
    if (info > 0) {
        ct_error(CT_ERR_LINALG, "linalg.svd: The algorithm failed to converge because "
                 "the input matrix is ill-conditioned or has too many repeated "
                 "singular values (error code: %d).", info);
    }
    rc = info == 0 ? 0 : -1;
done:
    ct_tensor_decref(a);
    if (rc < 0) {
        ct_tensor_decref(*U);
        ct_tensor_decref(*Vh);
        *U = *Vh = NULL;
    }
    return rc;
}

/* torch's svd_backward for real matrices (Note [svd derivative]); gU,
 * gS, gVh may be NULL.  A new reference. */
static ct_tensor *
svd_backward(const ct_tensor *gU, const ct_tensor *gS, const ct_tensor *gVh,
             const ct_tensor *U, const ct_tensor *S, const ct_tensor *Vh)
{
    ag_frame f = {0};
    int64_t m = U->sizes[U->ndim - 2], n = Vh->sizes[Vh->ndim - 1];
    ct_tensor *r = NULL;
    if (gU == NULL && gVh == NULL) {
        if (m >= n) {
            r = ctag_matmul(
                U, ag_tmp(&f, ctag_mul(ag_tmp(&f, ctag_unsqueeze(gS, -1)), Vh)), NULL);
        }
        else {
            r = ctag_matmul(ag_tmp(&f, ctag_mul(U, ag_tmp(&f, ctag_unsqueeze(gS, -2)))),
                            Vh, NULL);
        }
        ag_end(&f);
        return r;
    }
    ct_tensor *Ut = ag_tmp(&f, mT(U)), *V = ag_tmp(&f, mT(Vh));
    ct_tensor *Srow = ag_tmp(&f, ctag_unsqueeze(S, -2)),
              *Scol = ag_tmp(&f, ctag_unsqueeze(S, -1));
    ct_tensor *UhgU = NULL, *VhgV = NULL, *ret;
    if (gU != NULL) {
        ct_tensor *p = ag_tmp(&f, ctag_matmul(Ut, gU, NULL));
        UhgU = ag_tmp(&f, ctag_sub(p, ag_tmp(&f, mT(p)), ct_scalar_int(1)));
    }
    if (gVh != NULL) {
        ct_tensor *p = ag_tmp(&f, ctag_matmul(Vh, ag_tmp(&f, mT(gVh)), NULL));
        VhgV = ag_tmp(&f, ctag_sub(p, ag_tmp(&f, mT(p)), ct_scalar_int(1)));
    }
    /* E = S_j^2 - S_i^2, with ones on the diagonal (0 / 1 there) */
    int64_t k = S->sizes[S->ndim - 1];
    ct_tensor *S2 = ag_tmp(&f, ctag_mul(S, S));
    ct_tensor *E = ag_tmp(
        &f, ctag_sub(ag_tmp(&f, ctag_unsqueeze(S2, -2)),
                     ag_tmp(&f, ctag_unsqueeze(S2, -1)), ct_scalar_int(1)));
    E = ag_tmp(&f, ctag_add(E, ag_tmp(&f, ct_eye(k, k, S->dtype)), ct_scalar_int(1)));
    if (gU != NULL && gVh != NULL) {
        ret = ag_tmp(&f, ctag_div(ag_tmp(&f, ctag_add(ag_tmp(&f, ctag_mul(UhgU, Srow)),
                                                      ag_tmp(&f, ctag_mul(Scol, VhgV)),
                                                      ct_scalar_int(1))),
                                  E));
    }
    else if (gU != NULL) {
        ret = ag_tmp(&f, ctag_mul(UhgU, ag_tmp(&f, ctag_div(Srow, E))));
    }
    else {
        ret = ag_tmp(&f, ctag_mul(Scol, ag_tmp(&f, ctag_div(VhgV, E))));
    }
    if (gS != NULL && ret != NULL) {
        int64_t sizes[CT_MAX_DIMS];
        memcpy(sizes, ret->sizes, sizeof(int64_t) * (size_t)ret->ndim);
        ret = ag_tmp(&f, ctag_add(ret,
                                  ag_tmp(&f, ctag_diagonal_backward(gS, ret->ndim,
                                                                    sizes, 0, -2, -1)),
                                  ct_scalar_int(1)));
    }
    ag_frame f2 = {0};      /* AG_FRAME_MAX is per frame */
    if (m > n && gU != NULL) {
        ct_tensor *gA = ag_tmp(&f2, ctag_matmul(U, ret, NULL));
        ct_tensor *gUS = ag_tmp(&f2, ctag_div(gU, Srow));
        ct_tensor *proj = ag_tmp(
            &f2, ctag_matmul(U, ag_tmp(&f2, ctag_matmul(Ut, gUS, NULL)), NULL));
        gA = ag_tmp(&f2, ctag_sub(ag_tmp(&f2, ctag_add(gA, gUS, ct_scalar_int(1))),
                                  proj, ct_scalar_int(1)));
        r = ctag_matmul(gA, Vh, NULL);
    }
    else if (m < n && gVh != NULL) {
        ct_tensor *gA = ag_tmp(&f2, ctag_matmul(ret, Vh, NULL));
        ct_tensor *SgVh = ag_tmp(&f2, ctag_div(gVh, Scol));
        ct_tensor *proj = ag_tmp(
            &f2, ctag_matmul(ag_tmp(&f2, ctag_matmul(SgVh, V, NULL)), Vh, NULL));
        gA = ag_tmp(&f2, ctag_sub(ag_tmp(&f2, ctag_add(gA, SgVh, ct_scalar_int(1))),
                                  proj, ct_scalar_int(1)));
        r = ctag_matmul(U, gA, NULL);
    }
    else if (m >= n) {
        r = ctag_matmul(U, ag_tmp(&f2, ctag_matmul(ret, Vh, NULL)), NULL);
    }
    else {
        r = ctag_matmul(ag_tmp(&f2, ctag_matmul(U, ret, NULL)), Vh, NULL);
    }
    ag_end(&f2);
    ag_end(&f);
    return r;
}

/* saved: 0 U, 1 S, 2 Vh (the node's own outputs); outputs U, S, Vh. */
static int
svd_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor *U = ct_node_unpack(n, 0), *S = ct_node_unpack(n, 1);
    ct_tensor *Vh = ct_node_unpack(n, 2);
    if (U != NULL && S != NULL && Vh != NULL) {
        ct_tensor *g = svd_backward(gi[0], gi[1], gi[2], U, S, Vh);
        go[0] = g != NULL ? ag_to_input(n, 0, g) : NULL;
    }
    ct_tensor_decref(U);
    ct_tensor_decref(S);
    ct_tensor_decref(Vh);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type svd_type = {"LinalgSvdBackward0", svd_apply, NULL};

ct_tensor *
ctag_linalg_svdvals(const ct_tensor *A, ct_tensor *out)
{
    AG_NULL_IF_ANY(A);
    if (out_check(1, &A, out, "_linalg_svd") < 0) {
        return NULL;
    }
    ct_tensor *S = ct_linalg_svdvals(A, out);
    if (S == NULL || out != NULL || A->numel == 0 || !ct_any_requires_grad(1, &A)) {
        return S;
    }
    ct_tensor *U, *Vh;
    if (svd_vectors(A, &U, &Vh) < 0) {
        ct_tensor_decref(S);
        return NULL;
    }
    ct_tensor *outs[3] = {U, S, Vh};
    ct_node *n = ct_record(&svd_type, 1, &A, 3, outs);
    int rc = n == NULL ? -1 : 0;
    for (int i = 0; i < 3 && rc == 0; i++) {
        rc = ct_node_save(n, i, outs[i], true);
    }
    if (n != NULL) {
        ag_save_meta(n, 0, A);
    }
    ct_tensor_decref(U);
    ct_tensor_decref(Vh);
    if (rc < 0) {
        ct_tensor_decref(S);
        return NULL;
    }
    return S;
}

/* The permutation torch's matrix norms move dims d0, d1 to the end with. */
static void
backshift(int nd, int d0, int d1, int64_t *perm)
{
    int j = 0;
    for (int i = 0; i < nd; i++) {
        if (i != d0 && i != d1) {
            perm[j++] = i;
        }
    }
    perm[j++] = d0;
    perm[j] = d1;
}

/* torch.linalg.matrix_norm composed as torch 1.13 does: 'fro' a vector
 * 2-norm over both dims (LinalgVectorNormBackward0), +-1 / +-inf a vector
 * 1-norm over one dim then amax / amin over the other, 2 / -2 / 'nuc' the
 * amax / amin / sum of svdvals over the dims moved to the end.  The kernel
 * runs first for the checks and messages. */
ct_tensor *
ctag_linalg_matrix_norm(const ct_tensor *A, ct_norm_ord ord, int ndims,
                        const int64_t *dims, bool keepdim, ct_dtype dtype,
                        ct_tensor *out)
{
    AG_NULL_IF_ANY(A);
    if (out_check(1, &A, out, "linalg_vector_norm") < 0) {
        return NULL;
    }
    ct_tensor *r = ct_linalg_matrix_norm(A, ord, ndims, dims, keepdim, dtype, out);
    if (r == NULL || out != NULL || !ct_dtype_is_floating(r->dtype) ||
        !ct_any_requires_grad(1, &A)) {
        return r;
    }
    ct_tensor_decref(r);
    r = NULL;
    int nd = A->ndim, d0 = ct_wrap_dim(dims[0], nd), d1 = ct_wrap_dim(dims[1], nd);
    bool fro = ord.str != NULL && strcmp(ord.str, "fro") == 0;
    bool nuc = ord.str != NULL && !fro;
    ag_frame f = {0};
    if (fro) {
        int64_t both[2] = {d0, d1};
        r = ctag_vector_norm(A, 2, 2, both, keepdim, dtype, NULL);
    }
    else if (!nuc && ord.p != 2 && ord.p != -2) {
        /* +-1, +-inf: inf is the 1-norm of the transposed matrix */
        int64_t a = d0, b = d1;
        if (ord.p == INFINITY || ord.p == -INFINITY) {
            a = d1, b = d0;
        }
        if (!keepdim && a < b) {
            b--;
        }
        ct_tensor *v = ag_tmp(&f, ctag_vector_norm(A, 1, 1, &a, keepdim, dtype, NULL));
        r = ctag_reduce(ord.p > 0 ? CT_REDUCE_AMAX : CT_REDUCE_AMIN, v, 1, &b, keepdim,
                        CT_DTYPE_COUNT, NULL, NULL);
    }
    else {
        int64_t perm[CT_MAX_DIMS], last = -1;
        backshift(nd, d0, d1, perm);
        const ct_tensor *Ad = A;
        if (dtype != CT_DTYPE_COUNT && dtype != A->dtype) {
            Ad = ag_tmp(&f, ctag_to_dtype(A, dtype, false));
        }
        ct_tensor *sv = ag_tmp(
            &f, ctag_linalg_svdvals(ag_tmp(&f, ctag_permute(Ad, nd, perm)), NULL));
        ct_tensor *red = ag_tmp(
            &f, nuc ? ctag_sum(sv, 1, &last, keepdim, CT_DTYPE_COUNT)
                    : ctag_reduce(ord.p > 0 ? CT_REDUCE_AMAX : CT_REDUCE_AMIN, sv, 1,
                                  &last, keepdim, CT_DTYPE_COUNT, NULL, NULL));
        if (keepdim && red != NULL) {
            int64_t inv[CT_MAX_DIMS];
            for (int i = 0; i < nd; i++) {
                inv[perm[i]] = i;
            }
            r = ctag_permute(ag_tmp(&f, ctag_unsqueeze(red, -1)), nd, inv);
        }
        else if (red != NULL) {
            ct_tensor_incref(red);
            r = red;
        }
    }
    ag_end(&f);
    return r;
}

/* torch.linalg.norm: a matrix norm when ord is given and there are two
 * dims (given, or a 2-D input without dims), else a vector norm. */
ct_tensor *
ctag_linalg_norm(const ct_tensor *A, const ct_norm_ord *ord, int ndims,
                 const int64_t *dims, bool keepdim, ct_dtype dtype, ct_tensor *out)
{
    AG_NULL_IF_ANY(A);
    if (out_check(1, &A, out, "linalg_vector_norm") < 0) {
        return NULL;
    }
    ct_tensor *r = ct_linalg_norm(A, ord, ndims, dims, keepdim, dtype, out);
    if (r == NULL || out != NULL || !ct_dtype_is_floating(r->dtype) ||
        !ct_any_requires_grad(1, &A)) {
        return r;
    }
    ct_tensor_decref(r);
    static const int64_t first_two[2] = {0, 1};
    if (ord != NULL && (ord->str != NULL || (dims != NULL && ndims == 2) ||
                        (dims == NULL && A->ndim == 2))) {
        return ctag_linalg_matrix_norm(A, *ord, 2, dims != NULL ? dims : first_two,
                                       keepdim, dtype, NULL);
    }
    return ctag_vector_norm(A, ord != NULL ? ord->p : 2, dims != NULL ? ndims : 0, dims,
                            keepdim, dtype, NULL);
}
