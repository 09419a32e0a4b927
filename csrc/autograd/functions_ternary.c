/* csrc/autograd/functions_ternary.c -- addcmul and addcdiv with their
 * derivatives (PyTorch 1.13's derivatives.yaml):
 *
 *   addcmul: self: grad   tensor1: grad * tensor2 * value
 *            tensor2: grad * tensor1 * value
 *   addcdiv: self: grad   tensor1: grad * (value / tensor2)
 *            tensor2: -grad * ((value * tensor1) / (tensor2 * tensor2))
 *
 * Slot use: saved[0] = tensor1 when tensor2 needs a gradient, saved[1] =
 * tensor2 when tensor1 needs one (addcdiv: or tensor2), as torch's
 * generated code saves only what a needed formula reads; s[0] = value;
 * extra = the three inputs' shapes and dtypes (ternary_meta). */
#include "functions.h"

#include <ctorch/ops_pointwise_ternary.h>
#include <stdlib.h>
#include <string.h>

static int addcmul_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int addcdiv_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static void meta_release(ct_node *n);

static const ct_node_type addcmul_type = {"AddcmulBackward0", addcmul_apply,
                                          meta_release};
static const ct_node_type addcdiv_type = {"AddcdivBackward0", addcdiv_apply,
                                          meta_release};

/* The shapes and dtypes of self, tensor1 and tensor2 (node->extra). */
typedef struct {
    int ndim[3];
    ct_dtype dtype[3];
    int64_t sizes[3][CT_MAX_DIMS];
} ternary_meta;

static void
meta_release(ct_node *n)
{
    free(n->extra);
    n->extra = NULL;
}

/* g (borrowed) summed to input k's shape and cast to its dtype; a new
 * reference. */
static ct_tensor *
to_input(ct_node *n, int k, ct_tensor *g)
{
    const ternary_meta *m = n->extra;
    ct_tensor *r = ctag_sum_to(g, m->ndim[k], m->sizes[k]);
    if (r != NULL && r->dtype != m->dtype[k]) {
        ct_tensor *c = ctag_to_dtype(r, m->dtype[k], false);
        ct_tensor_decref(r);
        r = c;
    }
    return r;
}

/* The gradient of self, shared by both ops. */
static int
self_grad(ct_node *n, ct_tensor *g, ct_tensor **go)
{
    if (!ct_node_needs(n, 0)) {
        return 0;
    }
    return (go[0] = to_input(n, 0, g)) == NULL ? -1 : 0;
}

static int
addcmul_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *t1 = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *t2 = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *g = gi[0];
    double value = ct_scalar_to_double(n->s[0]);
    int rc = -1;
    if (ct_error_code() != CT_OK || self_grad(n, g, go) < 0) {
        goto done;
    }
    if (ct_node_needs(n, 1)) {
        ct_tensor *k = ag_tmp(&f, ag_mul_s(t2, value));
        if ((go[1] = to_input(n, 1, ag_tmp(&f, ctag_mul(g, k)))) == NULL) {
            goto done;
        }
    }
    if (ct_node_needs(n, 2)) {
        ct_tensor *k = ag_tmp(&f, ag_mul_s(t1, value));
        if ((go[2] = to_input(n, 2, ag_tmp(&f, ctag_mul(g, k)))) == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    ag_end(&f);
    return rc;
}

static int
addcdiv_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *t1 = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *t2 = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *g = gi[0];
    double value = ct_scalar_to_double(n->s[0]);
    int rc = -1;
    if (ct_error_code() != CT_OK || self_grad(n, g, go) < 0) {
        goto done;
    }
    if (ct_node_needs(n, 1)) {
        ct_tensor *k = ag_tmp(&f, ag_scalar(value));
        ct_tensor *q = ag_tmp(&f, ctag_div(k, t2));
        if ((go[1] = to_input(n, 1, ag_tmp(&f, ctag_mul(g, q)))) == NULL) {
            goto done;
        }
    }
    if (ct_node_needs(n, 2)) {
        ct_tensor *num = ag_tmp(&f, ag_mul_s(t1, value));
        ct_tensor *den = ag_tmp(&f, ctag_mul(t2, t2));
        ct_tensor *q = ag_tmp(&f, ctag_div(num, den));
        ct_tensor *ng = ag_tmp(&f, ctag_neg(g));
        if ((go[2] = to_input(n, 2, ag_tmp(&f, ctag_mul(ng, q)))) == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    ag_end(&f);
    return rc;
}

/* The out= error of PyTorch for an input that requires grad. */
static int
out_error(const char *name)
{
    return ct_error(CT_ERR_RUNTIME, "%s(): functions with out=... arguments don't "
                    "support automatic differentiation, but one of the arguments "
                    "requires grad.", name);
}

typedef ct_tensor *(*ternary_fn)(const ct_tensor *, const ct_tensor *,
                                 const ct_tensor *, ct_scalar, ct_tensor *,
                                 ct_out_mode);

static ct_tensor *
record(const char *name, const ct_node_type *type, ternary_fn fn, const ct_tensor *self,
       const ct_tensor *t1, const ct_tensor *t2, ct_scalar value, ct_tensor *out,
       ct_out_mode mode)
{
    AG_NULL_IF_ANY(self, t1, t2);
    const ct_tensor *ins[3] = {self, t1, t2};
    bool rec = ct_grad_enabled() && ct_any_requires_grad(3, ins);

    if (mode == CT_OUT_INPLACE && ag_inplace_begin(out) < 0) {
        return NULL;
    }
    if (rec && mode == CT_OUT_GIVEN) {
        out_error(name);
        return NULL;
    }
    /* the inputs' shapes and dtypes, taken before an in-place write (the
     * formulas need no value of self) */
    ternary_meta *meta = NULL;
    if (rec) {
        if ((meta = malloc(sizeof *meta)) == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
            return NULL;
        }
        for (int k = 0; k < 3; k++) {
            meta->ndim[k] = ins[k]->ndim;
            meta->dtype[k] = ins[k]->dtype;
            memcpy(meta->sizes[k], ins[k]->sizes,
                   sizeof(int64_t) * (size_t)ins[k]->ndim);
        }
    }

    ct_tensor *r = fn(self, t1, t2, value, out, mode);
    if (r == NULL) {
        free(meta);
        return NULL;
    }
    if (mode != CT_OUT_NEW) {
        ct_tensor_bump_version(r);
    }
    if (rec && ct_dtype_is_floating(r->dtype)) {
        ct_node *n = mode == CT_OUT_INPLACE ? ct_record_inplace(type, 3, ins, r)
                                            : ct_record(type, 3, ins, 1, &r);
        if (n == NULL) {
            goto fail;
        }
        n->extra = meta;
        meta = NULL;
        n->s[0] = value;
        /* only what a needed gradient reads (as torch's generated code
         * does): a later in-place write to an unneeded input is no error */
        bool is_div = type == &addcdiv_type;
        const ct_tensor *keep1 = ct_node_needs(n, 2) ? t1 : NULL;
        const ct_tensor *keep2 = ct_node_needs(n, 1) || (is_div && ct_node_needs(n, 2))
                                     ? t2 : NULL;
        if (ct_node_save(n, 0, keep1, false) < 0 ||
            ct_node_save(n, 1, keep2, false) < 0) {
            goto fail;
        }
    }
    free(meta);
    return r;
fail:
    free(meta);
    ct_tensor_decref(r);
    return NULL;
}

ct_tensor *
ctag_addcmul(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
             ct_scalar value, ct_tensor *out, ct_out_mode mode)
{
    return record("addcmul", &addcmul_type, ct_addcmul, self, t1, t2, value, out, mode);
}

ct_tensor *
ctag_addcdiv(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
             ct_scalar value, ct_tensor *out, ct_out_mode mode)
{
    return record("addcdiv", &addcdiv_type, ct_addcdiv, self, t1, t2, value, out, mode);
}
