/* csrc/autograd/functions_linalg.c -- matrix products and their
 * derivatives.  saved[0] = first operand, saved[1] = second; s[0], s[1]:
 * addmm's beta and alpha. */
#include "functions.h"

#include <string.h>

static ct_tensor *
mT(const ct_tensor *t)
{
    return t == NULL ? NULL : ctag_transpose(t, -2, -1);
}

static int product_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

enum { P_MM, P_BMM, P_ADDMM, P_MV, P_DOT, P_COUNT };

static const ct_node_type product_types[P_COUNT] = {
    [P_MM] = {"MmBackward0", product_apply, NULL},
    [P_BMM] = {"BmmBackward0", product_apply, NULL},
    [P_ADDMM] = {"AddmmBackward0", product_apply, NULL},
    [P_MV] = {"MvBackward0", product_apply, NULL},
    [P_DOT] = {"DotBackward0", product_apply, NULL},
};

static int
product_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    int kind = (int)(n->type - product_types);
    int ia = kind == P_ADDMM ? 1 : 0;       /* edge of the first operand */
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *a = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *b = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *g = gi[0];
    int rc = -1;

    if (ct_error_code() != CT_OK) {
        goto done;
    }
    if (kind == P_ADDMM) {
        double alpha = ct_scalar_to_double(n->s[1]), beta = ct_scalar_to_double(n->s[0]);
        if (ct_node_needs(n, 0)) {
            ct_tensor *gs = beta == 1 ? (ct_tensor_incref(g), g) : ag_mul_s(g, beta);
            if ((go[0] = ag_to_input(n, 0, gs)) == NULL) {
                goto done;
            }
        }
        if (alpha != 1) {
            g = ag_tmp(&f, ag_mul_s(g, alpha));
        }
    }
    if (ct_node_needs(n, ia)) {
        switch (kind) {
        case P_MV: go[ia] = ctag_mul(ag_tmp(&f, ctag_unsqueeze(g, 1)),
                                     ag_tmp(&f, ctag_unsqueeze(b, 0))); break;
        case P_DOT: go[ia] = ctag_mul(g, b); break;
        case P_BMM: go[ia] = ct_bmm(g, ag_tmp(&f, mT(b)), NULL); break;
        default: go[ia] = ctag_mm(g, ag_tmp(&f, mT(b)), NULL); break;
        }
        if (go[ia] == NULL) {
            goto done;
        }
    }
    if (ct_node_needs(n, ia + 1)) {
        switch (kind) {
        case P_MV: go[ia + 1] = ctag_matmul(ag_tmp(&f, mT(a)), g, NULL); break;
        case P_DOT: go[ia + 1] = ctag_mul(g, a); break;
        case P_BMM: go[ia + 1] = ct_bmm(ag_tmp(&f, mT(a)), g, NULL); break;
        default: go[ia + 1] = ctag_mm(ag_tmp(&f, mT(a)), g, NULL); break;
        }
        if (go[ia + 1] == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    ag_end(&f);
    return rc;
}

static ct_tensor *
record_product(int kind, int nin, const ct_tensor *const *ins, const ct_tensor *a,
               const ct_tensor *b, ct_tensor *r)
{
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(nin, ins)) {
        return r;
    }
    ct_node *n = ct_record(&product_types[kind], nin, ins, 1, &r);
    int ia = nin - 2;
    if (n == NULL || ct_node_save(n, 0, ct_node_needs(n, ia + 1) ? a : NULL, false) < 0 ||
        ct_node_save(n, 1, ct_node_needs(n, ia) ? b : NULL, false) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, ins[0]);
    return r;
}

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

ct_tensor *
ctag_mm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    AG_NULL_IF_ANY(a, b);
    const ct_tensor *ins[2] = {a, b};
    if (out_check(2, ins, out, "mm") < 0) {
        return NULL;
    }
    return record_product(P_MM, 2, ins, a, b, ct_mm(a, b, out));
}

ct_tensor *
ctag_addmm(const ct_tensor *self, const ct_tensor *m1, const ct_tensor *m2, ct_scalar beta,
           ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    AG_NULL_IF_ANY(self, m1, m2);
    const ct_tensor *ins[3] = {self, m1, m2};
    if (mode == CT_OUT_INPLACE && ag_inplace_begin(out) < 0) {
        return NULL;
    }
    if (mode == CT_OUT_GIVEN && out_check(3, ins, out, "addmm") < 0) {
        return NULL;
    }
    ct_tensor *r = record_product(P_ADDMM, 3, ins, m1, m2,
                                  ct_addmm(self, m1, m2, beta, alpha, out, mode));
    if (r != NULL && ct_grad_fn(r) != NULL && ct_grad_fn(r)->type == &product_types[P_ADDMM]) {
        ct_grad_fn(r)->s[0] = beta;
        ct_grad_fn(r)->s[1] = alpha;
    }
    return r;
}

/* matmul as PyTorch composes it, so the graph has its node names: dot,
 * mv, mm, a vector operand unsqueezed and squeezed, batches through bmm
 * (with the batch dims broadcast and folded). */
ct_tensor *
ctag_matmul(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    AG_NULL_IF_ANY(a, b);
    const ct_tensor *ins[2] = {a, b};
    if (out != NULL || !ct_any_requires_grad(2, ins)) {
        if (out_check(2, ins, out, "matmul") < 0) {
            return NULL;
        }
        return ct_matmul(a, b, out);
    }
    if (a->ndim == 1 && b->ndim == 1) {
        return record_product(P_DOT, 2, ins, a, b, ct_dot(a, b, NULL));
    }
    if (a->ndim == 2 && b->ndim == 1) {
        return record_product(P_MV, 2, ins, a, b, ct_mv(a, b, NULL));
    }
    if (a->ndim == 2 && b->ndim == 2) {
        return ctag_mm(a, b, NULL);
    }
    if (a->ndim == 1 && b->ndim == 2) {
        ct_tensor *a2 = ctag_unsqueeze(a, 0);
        ct_tensor *p = ctag_mm(a2, b, NULL);
        int64_t d = 0;
        ct_tensor *r = p != NULL ? ctag_squeeze(p, &d) : NULL;
        ct_tensor_decref(a2);
        ct_tensor_decref(p);
        return r;
    }
    /* batched: broadcast the batch dims, fold them into one, bmm, unfold */
    ag_frame f = {0};
    const ct_tensor *x = a, *y = b;
    bool va = a->ndim == 1, vb = b->ndim == 1;
    if (va) {
        x = ag_tmp(&f, ctag_unsqueeze(a, 0));
    }
    if (vb) {
        y = ag_tmp(&f, ctag_unsqueeze(b, 1));
    }
    ct_tensor *r = NULL;
    if (x == NULL || y == NULL) {
        goto done;
    }
    int64_t bx[CT_MAX_DIMS], by[CT_MAX_DIMS], batch[CT_MAX_DIMS];
    int nbx = x->ndim - 2, nby = y->ndim - 2, nb;
    for (int i = 0; i < nbx; i++) {
        bx[i] = x->sizes[i];
    }
    for (int i = 0; i < nby; i++) {
        by[i] = y->sizes[i];
    }
    if (ct_broadcast_shapes(nbx, bx, nby, by, &nb, batch) < 0) {
        goto done;
    }
    int64_t nbatch = 1;
    for (int i = 0; i < nb; i++) {
        nbatch *= batch[i];
    }
    int64_t n_ = x->sizes[x->ndim - 2], k = x->sizes[x->ndim - 1];
    int64_t k2 = y->sizes[y->ndim - 2], m = y->sizes[y->ndim - 1];
    int64_t sx[CT_MAX_DIMS], sy[CT_MAX_DIMS];
    memcpy(sx, batch, sizeof(int64_t) * (size_t)nb);
    memcpy(sy, batch, sizeof(int64_t) * (size_t)nb);
    sx[nb] = n_, sx[nb + 1] = k;
    sy[nb] = k2, sy[nb + 1] = m;
    ct_tensor *ex = ag_tmp(&f, ctag_expand(x, nb + 2, sx));
    ct_tensor *ey = ag_tmp(&f, ctag_expand(y, nb + 2, sy));
    int64_t fx[3] = {nbatch, n_, k}, fy[3] = {nbatch, k2, m};
    ct_tensor *rx = ag_tmp(&f, ctag_reshape(ex, 3, fx));
    ct_tensor *ry = ag_tmp(&f, ctag_reshape(ey, 3, fy));
    ct_tensor *p = NULL;
    if (rx != NULL && ry != NULL) {
        const ct_tensor *pin[2] = {rx, ry};
        p = ag_tmp(&f, record_product(P_BMM, 2, pin, rx, ry, ct_bmm(rx, ry, NULL)));
    }
    int64_t so[CT_MAX_DIMS];
    int no = 0;
    for (int i = 0; i < nb; i++) {
        so[no++] = batch[i];
    }
    if (!va) {
        so[no++] = n_;
    }
    if (!vb) {
        so[no++] = m;
    }
    r = p != NULL ? ctag__unsafe_view(p, no, so) : NULL;
done:
    ag_end(&f);
    return r;
}
