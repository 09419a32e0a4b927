/* csrc/autograd/functions_conv.c -- convolution, pooling, sliding blocks
 * and upsampling with their derivatives (ctorch/autograd_conv.h).
 *
 * Payloads: a node keeps its op's parameters in n->ints (conv_put /
 * pool_put below), its input's sizes where it needs them in
 * n->ints[CT_MAX_DIMS..] with n->ndim[0], and the tensors PyTorch saves
 * (derivatives.yaml) in its saved slots.
 */
#include "functions.h"

#include <string.h>

#include <ctorch/autograd_conv.h>

/* --- payload helpers ---------------------------------------------------- */
enum { C_NSP, C_STRIDE, C_PAD = 3, C_DIL = 5, C_OPAD = 7, C_TRANS = 9, C_GROUPS,
       C_COUNT };

static void
conv_put(ct_node *n, const ct_conv_params *p)
{
    n->ints[C_NSP] = p->nsp;
    for (int i = 0; i < 2; i++) {
        n->ints[C_STRIDE + i] = p->stride[i];
        n->ints[C_PAD + i] = p->padding[i];
        n->ints[C_DIL + i] = p->dilation[i];
        n->ints[C_OPAD + i] = p->output_padding[i];
    }
    n->ints[C_TRANS] = p->transposed;
    n->ints[C_GROUPS] = p->groups;
    n->n_ints = C_COUNT;
}

static ct_conv_params
conv_get(const ct_node *n)
{
    ct_conv_params p = {.nsp = (int)n->ints[C_NSP], .transposed = n->ints[C_TRANS] != 0,
                        .groups = n->ints[C_GROUPS]};
    for (int i = 0; i < 2; i++) {
        p.stride[i] = n->ints[C_STRIDE + i];
        p.padding[i] = n->ints[C_PAD + i];
        p.dilation[i] = n->ints[C_DIL + i];
        p.output_padding[i] = n->ints[C_OPAD + i];
    }
    return p;
}

enum { P_KERNEL, P_STRIDE = 2, P_PAD = 4, P_DIL = 6, P_CEIL = 8, P_CIP, P_DIV, P_COUNT };

static void
pool_put(ct_node *n, const ct_pool_params *p)
{
    for (int i = 0; i < 2; i++) {
        n->ints[P_KERNEL + i] = p->kernel[i];
        n->ints[P_STRIDE + i] = p->stride[i];
        n->ints[P_PAD + i] = p->padding[i];
        n->ints[P_DIL + i] = p->dilation[i];
    }
    n->ints[P_CEIL] = p->ceil_mode;
    n->ints[P_CIP] = p->count_include_pad;
    n->ints[P_DIV] = p->divisor_override;
    n->n_ints = P_COUNT;
}

static ct_pool_params
pool_get(const ct_node *n)
{
    ct_pool_params p = {.ceil_mode = n->ints[P_CEIL] != 0,
                        .count_include_pad = n->ints[P_CIP] != 0,
                        .divisor_override = n->ints[P_DIV]};
    for (int i = 0; i < 2; i++) {
        p.kernel[i] = n->ints[P_KERNEL + i];
        p.stride[i] = n->ints[P_STRIDE + i];
        p.padding[i] = n->ints[P_PAD + i];
        p.dilation[i] = n->ints[P_DIL + i];
    }
    return p;
}

/* t's sizes into the node's second half of ints (for ops that need only
 * their input's shape). */
static void
sizes_put(ct_node *n, const ct_tensor *t)
{
    n->ndim[0] = t->ndim;
    memcpy(n->ints + CT_MAX_DIMS, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
}

static const int64_t *
sizes_get(const ct_node *n)
{
    return n->ints + CT_MAX_DIMS;
}

/* The gradients of a node come back through a frame; an error in one
 * leaves the others NULL. */
static int
apply_end(ag_frame *f, int rc)
{
    ag_end(f);
    return rc;
}

/* --- convolution --------------------------------------------------------- */
/* Note [Convolution double backward]
 * Under create_graph the gradients are computed with differentiable ops:
 * grad_input as the adjoint convolution (a transposed convolution with
 * the output_padding that restores the input's size, or for a transposed
 * convolution a plain one), grad_weight through unfold:
 *     dW[g] = sum_n dY[n, g] @ unfold(X[n, g])^T
 * (for a transposed convolution X and dY trade places), and grad_bias as
 * a sum.  Their graphs then carry ConvolutionBackward0, Im2ColBackward0,
 * BmmBackward0... nodes rather than torch's
 * ConvolutionBackwardBackward0, with the same values. */

/* t with a height-1 dim inserted for a 1-D convolution (a new reference). */
static ct_tensor *
as_2d(ag_frame *f, const ct_tensor *t, int nsp)
{
    return ag_tmp(f, nsp == 2 ? ctag_alias(t) : ctag_unsqueeze(t, 2));
}

static ct_tensor *
conv_grad_weight(ag_frame *f, const ct_conv_params *p, const ct_tensor *x,
                 const ct_tensor *w, const ct_tensor *gy)
{
    /* wide: the side that is unfolded; narrow: the other */
    const ct_tensor *wide = p->transposed ? gy : x, *narrow = p->transposed ? x : gy;
    ct_tensor *wide2 = as_2d(f, wide, p->nsp);
    int64_t k[2] = {1, 1}, d[2] = {1, 1}, pd[2] = {0, 0}, s[2] = {1, 1};
    for (int i = 0; i < p->nsp; i++) {
        int j = i + 2 - p->nsp;
        k[j] = w->sizes[2 + i];
        d[j] = p->dilation[i];
        pd[j] = p->padding[i];
        s[j] = p->stride[i];
    }
    ct_tensor *cols = ag_tmp(f, ctag_im2col(wide2, k, d, pd, s));
    if (cols == NULL) {
        return NULL;
    }
    int64_t N = narrow->sizes[0], G = p->groups, L = cols->sizes[2];
    int64_t cs[4] = {N, G, cols->sizes[1] / G, L};
    int64_t ns[4] = {N, G, narrow->sizes[1] / G, L};
    ct_tensor *c4 = ag_tmp(f, ctag_reshape(cols, 4, cs));
    ct_tensor *n4 = ag_tmp(f, ctag_reshape(narrow, 4, ns));
    ct_tensor *ct = ag_tmp(f, ctag_transpose(c4, 2, 3));
    ct_tensor *prod = ag_tmp(f, ctag_matmul(n4, ct, NULL));
    int64_t d0 = 0;
    ct_tensor *sum = ag_tmp(f, ctag_sum(prod, 1, &d0, false, CT_DTYPE_COUNT));
    return sum == NULL ? NULL : ctag_reshape(sum, w->ndim, w->sizes);
}

static ct_tensor *
conv_grad_input(ag_frame *f, const ct_conv_params *p, const ct_tensor *x,
                const ct_tensor *w, const ct_tensor *gy)
{
    ct_conv_params q = *p;
    q.transposed = !p->transposed;
    for (int i = 0; i < p->nsp; i++) {
        q.output_padding[i] = 0;
        if (!p->transposed) {
            /* what the transposed convolution needs to reach x's size */
            int64_t k = w->sizes[2 + i], out = gy->sizes[2 + i];
            q.output_padding[i] = x->sizes[2 + i] -
                                  ((out - 1) * p->stride[i] - 2 * p->padding[i] +
                                   p->dilation[i] * (k - 1) + 1);
        }
    }
    ct_tensor *r = ctag_convolution(gy, w, NULL, &q);
    for (int i = 0; r != NULL && i < p->nsp; i++) {
        if (r->sizes[2 + i] != x->sizes[2 + i]) {
            ct_tensor *c = ctag_narrow(r, 2 + i, 0, x->sizes[2 + i]);
            ct_tensor_decref(r);
            r = c;
        }
    }
    (void)f;
    return r;
}

static int
conv_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_conv_params p = conv_get(n);
    ct_error_clear();
    ct_tensor *x = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *w = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *g = gi[0];
    if (x == NULL || w == NULL) {
        return apply_end(&f, -1);
    }
    if (g == NULL) {
        return apply_end(&f, 0);
    }
    const ct_tensor *ts[3] = {g, x, w};
    if (!ct_any_requires_grad(3, ts)) {
        bool mask[3] = {ct_node_needs(n, 0), ct_node_needs(n, 1), ct_node_needs(n, 2)};
        ct_tensor *gc = g->dtype == x->dtype ? NULL : ct_to_dtype(g, x->dtype, false);
        int rc = ct_convolution_backward(gc != NULL ? gc : g, x, w, &p, mask, &go[0],
                                         &go[1], &go[2]);
        ct_tensor_decref(gc);
        return apply_end(&f, rc);
    }
    if (ct_node_needs(n, 0) && (go[0] = conv_grad_input(&f, &p, x, w, g)) == NULL) {
        return apply_end(&f, -1);
    }
    if (ct_node_needs(n, 1) && (go[1] = conv_grad_weight(&f, &p, x, w, g)) == NULL) {
        return apply_end(&f, -1);
    }
    if (ct_node_needs(n, 2)) {
        int64_t dims[3] = {0, 2, 3};
        if ((go[2] = ctag_sum(g, p.nsp + 1, dims, false, CT_DTYPE_COUNT)) == NULL) {
            return apply_end(&f, -1);
        }
    }
    return apply_end(&f, 0);
}

static const ct_node_type conv_type = {"ConvolutionBackward0", conv_apply, NULL};

ct_tensor *
ctag_convolution(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
                 const ct_conv_params *p)
{
    AG_NULL_IF_ANY(input, weight);
    ct_tensor *r = ct_convolution(input, weight, bias, p);
    const ct_tensor *ins[3] = {input, weight, bias};
    if (r == NULL || !ct_any_requires_grad(3, ins)) {
        return r;
    }
    ct_node *n = ct_record(&conv_type, 3, ins, 1, &r);
    if (n == NULL || ct_node_save(n, 0, input, false) < 0 ||
        ct_node_save(n, 1, weight, false) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    conv_put(n, p);
    return r;
}

/* --- linear ops and their adjoints ---------------------------------------- */
/* Note [Adjoint pairs]
 * avg_pool2d, adaptive_avg_pool2d, upsampling, im2col and col2im are
 * linear in their input, so a backward is the adjoint op applied to the
 * gradient, and the adjoint's own derivative is the forward op again.
 * Each pair is a node type per direction sharing one payload (the
 * parameters, plus the input's sizes); the backward ops are recorded only
 * under create_graph, when the incoming gradient requires grad. */
enum {
    L_AVG, L_AVG_BWD, L_AAVG, L_AAVG_BWD, L_IM2COL, L_COL2IM,
    L_UP_N1, L_UP_N2, L_UP_L1, L_UP_L2,
    L_UP_N1_BWD, L_UP_N2_BWD, L_UP_L1_BWD, L_UP_L2_BWD,
    L_COUNT
};

static int linear_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type linear_types[L_COUNT] = {
    [L_AVG] = {"AvgPool2DBackward0", linear_apply, NULL},
    [L_AVG_BWD] = {"AvgPool2DBackwardBackward0", linear_apply, NULL},
    [L_AAVG] = {"AdaptiveAvgPool2DBackward0", linear_apply, NULL},
    [L_AAVG_BWD] = {"AdaptiveAvgPool2DBackwardBackward0", linear_apply, NULL},
    [L_IM2COL] = {"Im2ColBackward0", linear_apply, NULL},
    [L_COL2IM] = {"Col2ImBackward0", linear_apply, NULL},
    [L_UP_N1] = {"UpsampleNearest1DBackward1", linear_apply, NULL},
    [L_UP_N2] = {"UpsampleNearest2DBackward1", linear_apply, NULL},
    [L_UP_L1] = {"UpsampleLinear1DBackward1", linear_apply, NULL},
    [L_UP_L2] = {"UpsampleBilinear2DBackward1", linear_apply, NULL},
    [L_UP_N1_BWD] = {"UpsampleNearest1DBackwardBackward1", linear_apply, NULL},
    [L_UP_N2_BWD] = {"UpsampleNearest2DBackwardBackward1", linear_apply, NULL},
    [L_UP_L1_BWD] = {"UpsampleLinear1DBackwardBackward1", linear_apply, NULL},
    [L_UP_L2_BWD] = {"UpsampleBilinear2DBackwardBackward1", linear_apply, NULL},
};

/* Upsampling payload: ints[0] mode, [1] nsp, [2..3] output size, [4]
 * align_corners; d[0..1] scales. */
static int
up_kind(ct_upsample_mode mode, int nsp, bool backward)
{
    int k = mode == CT_UPSAMPLE_NEAREST ? (nsp == 1 ? L_UP_N1 : L_UP_N2)
                                        : (nsp == 1 ? L_UP_L1 : L_UP_L2);
    return backward ? k + (L_UP_N1_BWD - L_UP_N1) : k;
}

/* Record kind for r (consumed on error) from `in`, with the payload of
 * `like` (a node of the paired kind, or NULL to fill from the params). */
static ct_tensor *
record_linear(int kind, const ct_tensor *in, ct_tensor *r, const ct_node *like,
              const ct_tensor *shape_of)
{
    if (r == NULL || !ct_any_requires_grad(1, &in)) {
        return r;
    }
    ct_node *n = ct_record(&linear_types[kind], 1, &in, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    if (like != NULL) {
        memcpy(n->ints, like->ints, sizeof n->ints);
        n->n_ints = like->n_ints;
        n->ndim[0] = like->ndim[0];
        n->d[0] = like->d[0];
        n->d[1] = like->d[1];
    }
    if (shape_of != NULL) {
        sizes_put(n, shape_of);
    }
    return r;
}

/* The backward op of pair `kind` (its adjoint) on g, recorded when g
 * requires grad.  n is the forward node holding the payload. */
static ct_tensor *
adjoint(ct_node *n, int kind, const ct_tensor *g)
{
    const int64_t *sz = sizes_get(n);
    int nd = n->ndim[0];
    ct_tensor *r = NULL;
    switch (kind) {
    case L_AVG: {
        ct_pool_params p = pool_get(n);
        ct_tensor *shape = ct_empty(nd, sz, g->dtype, ct_device_cpu());
        r = shape != NULL ? ct_avg_pool2d_backward(g, shape, &p) : NULL;
        ct_tensor_decref(shape);
        return record_linear(L_AVG_BWD, g, r, n, NULL);
    }
    case L_AVG_BWD: {
        ct_pool_params p = pool_get(n);
        return ctag_avg_pool2d(g, &p);
    }
    case L_AAVG: {
        ct_tensor *shape = ct_empty(nd, sz, g->dtype, ct_device_cpu());
        r = shape != NULL ? ct_adaptive_avg_pool2d_backward(g, shape) : NULL;
        ct_tensor_decref(shape);
        return record_linear(L_AAVG_BWD, g, r, n, NULL);
    }
    case L_AAVG_BWD: {
        /* pool back to the forward's output size */
        int64_t o2[2] = {n->ints[0], n->ints[1]};
        return ctag_adaptive_avg_pool2d(g, o2);
    }
    case L_IM2COL:
        return ctag_col2im(g, n->ints + 8, n->ints, n->ints + 2, n->ints + 4, n->ints + 6);
    case L_COL2IM:
        return ctag_im2col(g, n->ints, n->ints + 2, n->ints + 4, n->ints + 6);
    default:
        break;
    }
    /* upsampling */
    ct_upsample_mode mode = (ct_upsample_mode)n->ints[0];
    int nsp = (int)n->ints[1];
    bool align = n->ints[4] != 0;
    if (kind < L_UP_N1_BWD) {
        r = ct_upsample_backward(g, mode, nsp, sz, align, n->d);
        return record_linear(up_kind(mode, nsp, true), g, r, n, NULL);
    }
    return ctag_upsample(g, mode, nsp, n->ints + 2, align, n->d);
}

static int
linear_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    int kind = (int)(n->type - linear_types);
    if ((kind == L_AVG || kind == L_AAVG) && n->released) {
        /* torch saves the input of these two: a second backward fails */
        ct_node_unpack(n, 0);
        return -1;
    }
    if (gi[0] == NULL || !ct_node_needs(n, 0)) {
        return 0;
    }
    ct_tensor *g = gi[0];
    go[0] = adjoint(n, kind, g);
    return go[0] == NULL ? -1 : 0;
}

/* --- pooling -------------------------------------------------------------- */
ct_tensor *
ctag_avg_pool2d(const ct_tensor *input, const ct_pool_params *p)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *r = ct_avg_pool2d(input, p);
    if (r == NULL || !ct_any_requires_grad(1, &input)) {
        return r;
    }
    ct_node *n = ct_record(&linear_types[L_AVG], 1, &input, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    pool_put(n, p);
    sizes_put(n, input);
    return r;
}

ct_tensor *
ctag_adaptive_avg_pool2d(const ct_tensor *input, const int64_t *output_size)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *r = ct_adaptive_avg_pool2d(input, output_size);
    if (r == NULL || !ct_any_requires_grad(1, &input)) {
        return r;
    }
    ct_node *n = ct_record(&linear_types[L_AAVG], 1, &input, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    /* the backward-backward pools back to the forward's output size */
    n->ints[0] = output_size[0];
    n->ints[1] = output_size[1];
    n->n_ints = 2;
    sizes_put(n, input);
    return r;
}

/* Record im2col / col2im (kind) for r, which it returns (NULL, r released,
 * on failure); ints: kernel, dilation, padding, stride, then hw, the H, W
 * of the side the backward must rebuild. */
static ct_tensor *
record_fold(int kind, const ct_tensor *input, ct_tensor *r, const int64_t *kernel,
            const int64_t *dilation, const int64_t *padding, const int64_t *stride,
            const int64_t *hw)
{
    ct_node *n = ct_record(&linear_types[kind], 1, &input, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        n->ints[i] = kernel[i];
        n->ints[2 + i] = dilation[i];
        n->ints[4 + i] = padding[i];
        n->ints[6 + i] = stride[i];
        n->ints[8 + i] = hw[i];
    }
    n->n_ints = 10;
    return r;
}

ct_tensor *
ctag_im2col(const ct_tensor *input, const int64_t *kernel, const int64_t *dilation,
            const int64_t *padding, const int64_t *stride)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *r = ct_im2col(input, kernel, dilation, padding, stride);
    if (r == NULL || !ct_any_requires_grad(1, &input)) {
        return r;
    }
    return record_fold(L_IM2COL, input, r, kernel, dilation, padding, stride,
                       input->sizes + input->ndim - 2);
}

ct_tensor *
ctag_col2im(const ct_tensor *input, const int64_t *output_size, const int64_t *kernel,
            const int64_t *dilation, const int64_t *padding, const int64_t *stride)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *r = ct_col2im(input, output_size, kernel, dilation, padding, stride);
    if (r == NULL || !ct_any_requires_grad(1, &input)) {
        return r;
    }
    return record_fold(L_COL2IM, input, r, kernel, dilation, padding, stride,
                       output_size);
}

ct_tensor *
ctag_upsample(const ct_tensor *input, ct_upsample_mode mode, int nsp,
              const int64_t *output_size, bool align_corners, const double *scales)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *r = ct_upsample(input, mode, nsp, output_size, align_corners, scales);
    if (r == NULL || !ct_any_requires_grad(1, &input)) {
        return r;
    }
    ct_node *n = ct_record(&linear_types[up_kind(mode, nsp, false)], 1, &input, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    n->ints[0] = mode;
    n->ints[1] = nsp;
    n->ints[2] = output_size[0];
    n->ints[3] = nsp == 2 ? output_size[1] : 0;
    n->ints[4] = align_corners;
    n->n_ints = 5;
    n->d[0] = scales[0];
    n->d[1] = nsp == 2 ? scales[1] : 0;
    sizes_put(n, input);
    return r;
}

/* --- max pooling ----------------------------------------------------------- */
/* MaxPool2DWithIndicesBackward0 / AdaptiveMaxPool2DBackward0 keep the
 * input (for its shape) and the indices; their backward scatters the
 * gradient to the indices.  Under create_graph that scatter is recorded
 * (...BackwardBackward0) and differentiates to a gather of the indices. */
enum { M_MAX, M_AMAX, M_MAX_BWD, M_AMAX_BWD, M_COUNT };

static int max_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type max_types[M_COUNT] = {
    [M_MAX] = {"MaxPool2DWithIndicesBackward0", max_apply, NULL},
    [M_AMAX] = {"AdaptiveMaxPool2DBackward0", max_apply, NULL},
    [M_MAX_BWD] = {"MaxPool2DWithIndicesBackwardBackward0", max_apply, NULL},
    [M_AMAX_BWD] = {"AdaptiveMaxPool2DBackwardBackward0", max_apply, NULL},
};

/* gg gathered at the indices: [.., H, W] -> indices' shape. */
static ct_tensor *
gather_at(const ct_tensor *gg, const ct_tensor *idx)
{
    ag_frame f = {0};
    int nd = gg->ndim;
    int64_t fs[4], is[4];
    memcpy(fs, gg->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(is, idx->sizes, sizeof(int64_t) * (size_t)nd);
    fs[nd - 2] = gg->sizes[nd - 2] * gg->sizes[nd - 1];
    is[nd - 2] = idx->sizes[nd - 2] * idx->sizes[nd - 1];
    ct_tensor *gf = ag_tmp(&f, ctag_reshape(gg, nd - 1, fs));
    ct_tensor *xf = ag_tmp(&f, ct_reshape(idx, nd - 1, is));
    ct_tensor *r = ag_tmp(&f, ctag_gather(gf, nd - 2, xf));
    ct_tensor *out = r != NULL ? ctag_reshape(r, nd, idx->sizes) : NULL;
    ag_end(&f);
    return out;
}

static int
max_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    int kind = (int)(n->type - max_types);
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *x = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *idx = ag_tmp(&f, ct_node_unpack(n, 1));
    if (x == NULL || idx == NULL) {
        return apply_end(&f, -1);
    }
    if (gi[0] == NULL || !ct_node_needs(n, 0)) {
        return apply_end(&f, 0);
    }
    ct_tensor *g = gi[0];
    if (kind >= M_MAX_BWD) {
        go[0] = gather_at(g, idx);
        return apply_end(&f, go[0] == NULL ? -1 : 0);
    }
    ct_tensor *r = ct_max_pool_backward(g, x, idx);
    const ct_tensor *in = g;
    if (r != NULL && ct_any_requires_grad(1, &in)) {
        ct_node *m = ct_record(&max_types[kind + M_MAX_BWD], 1, &in, 1, &r);
        if (m == NULL || ct_node_save(m, 0, x, false) < 0 ||
            ct_node_save(m, 1, idx, false) < 0) {
            ct_tensor_decref(r);
            r = NULL;
        }
    }
    go[0] = r;
    return apply_end(&f, r == NULL ? -1 : 0);
}

static int
record_max(int kind, const ct_tensor *input, ct_tensor **out, ct_tensor **indices)
{
    if (!ct_any_requires_grad(1, &input)) {
        return 0;
    }
    ct_node *n = ct_record(&max_types[kind], 1, &input, 1, out);
    if (n == NULL || ct_node_save(n, 0, input, false) < 0 ||
        ct_node_save(n, 1, *indices, false) < 0) {
        ct_tensor_decref(*out);
        ct_tensor_decref(*indices);
        *out = *indices = NULL;
        return -1;
    }
    return 0;
}

int
ctag_max_pool2d_with_indices(const ct_tensor *input, const ct_pool_params *p,
                             ct_tensor **out, ct_tensor **indices)
{
    *out = *indices = NULL;
    if (input == NULL || ct_max_pool2d_with_indices(input, p, out, indices) < 0) {
        return -1;
    }
    return record_max(M_MAX, input, out, indices);
}

int
ctag_adaptive_max_pool2d(const ct_tensor *input, const int64_t *output_size,
                         ct_tensor **out, ct_tensor **indices)
{
    *out = *indices = NULL;
    if (input == NULL || ct_adaptive_max_pool2d(input, output_size, out, indices) < 0) {
        return -1;
    }
    return record_max(M_AMAX, input, out, indices);
}
