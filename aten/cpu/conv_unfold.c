/* aten/cpu/conv_unfold.c -- sliding blocks: im2col (F.unfold) and col2im
 * (F.fold), on the column loops of conv.c (one group, every channel);
 * device tensors go to aten/device_conv.c after the checks.
 *
 * Ownership as in ops.h.  Thread-safety: nothing shared; samples are
 * split across the pool of aten/parallel.h.
 */
#include "aten/device.h"
#include <stdio.h>
#include <string.h>

#include "aten/cpu/conv_impl.h"
#include "aten/parallel.h"

/* torch's im2col_shape_check / col2im_shape_check on the four pairs. */
static int
check_params(const int64_t *k, const int64_t *d, const int64_t *pd, const int64_t *s)
{
    if (k[0] <= 0 || k[1] <= 0) {
        return ct_error(CT_ERR_RUNTIME, "kernel size should be greater than zero, but "
                        "got kernel_height: %lld kernel_width: %lld", (long long)k[0],
                        (long long)k[1]);
    }
    if (d[0] <= 0 || d[1] <= 0) {
        return ct_error(CT_ERR_RUNTIME, "dilation should be greater than zero, but got "
                        "dilation_height: %lld dilation_width: %lld", (long long)d[0],
                        (long long)d[1]);
    }
    if (pd[0] < 0 || pd[1] < 0) {
        return ct_error(CT_ERR_RUNTIME, "padding should be non-negative, but got "
                        "pad_height: %lld pad_width: %lld", (long long)pd[0],
                        (long long)pd[1]);
    }
    if (s[0] <= 0 || s[1] <= 0) {
        return ct_error(CT_ERR_RUNTIME, "stride should be greater than zero, but got "
                        "stride_height: %lld stride_width: %lld", (long long)s[0],
                        (long long)s[1]);
    }
    return 0;
}

static int64_t
floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The number of sliding blocks per dim, as torch computes it (rounding
 * down; it may come out 0 or negative). */
static void
blocks(conv_geom *g)
{
    g->oh = floor_div(g->ih + 2 * g->ph - (g->dh * (g->kh - 1) + 1), g->sh) + 1;
    g->ow = floor_div(g->iw + 2 * g->pw - (g->dw * (g->kw - 1) + 1), g->sw) + 1;
}

static bool
floating_ok(ct_dtype d)
{
    return d == CT_DTYPE_FLOAT16 || d == CT_DTYPE_FLOAT32 || d == CT_DTYPE_FLOAT64 ||
           d == CT_DTYPE_BFLOAT16;
}

typedef struct {
    const conv_geom *g;
    bool to_cols;
    const char *src;
    char *dst;
} unfold_job;

static void
unfold_part(void *ctx, int tid, int nthreads)
{
    unfold_job *j = ctx;
    const conv_geom *g = j->g;
    size_t z = ct_dtype_itemsize(g->dtype);
    int64_t plane = g->c * g->ih * g->iw, cols = g->c * g->kh * g->kw * g->oh * g->ow;
    int64_t lo = g->n * tid / nthreads, hi = g->n * (tid + 1) / nthreads;
    for (int64_t n = lo; n < hi; n++) {
        if (j->to_cols) {
            ct__conv_im2col(g, j->src + (size_t)(n * plane) * z,
                            j->dst + (size_t)(n * cols) * z, g->oh * g->ow);
        }
        else {
            char *x = j->dst + (size_t)(n * plane) * z;
            memset(x, 0, (size_t)plane * z);
            ct__conv_col2im(g, j->src + (size_t)(n * cols) * z, x, g->oh * g->ow);
        }
    }
}

static void
unfold_run(const conv_geom *g, bool to_cols, const char *src, char *dst)
{
    unfold_job j = {g, to_cols, src, dst};
    int64_t work = g->n * g->c * g->kh * g->kw * g->oh * g->ow;
    int nthreads = ct__parallel_threads();
    if (nthreads > g->n) {
        nthreads = (int)g->n;
    }
    if (nthreads > 1 && work >= 32768) {
        ct__parallel_run(nthreads, unfold_part, &j);
    }
    else if (g->n > 0) {
        unfold_part(&j, 0, 1);
    }
}

/* im2col (unfold true) or col2im of a checked input into a new tensor of
 * the nd sizes given (batch first), on the input's device; without a
 * batch dim (batched false) the result drops it. */
static ct_tensor *
unfold_result(const conv_geom *g, bool unfold, const ct_tensor *input, int nd,
              const int64_t *sizes, bool batched)
{
    ct_tensor *out = NULL;
    if (ct__is_device(input)) {
        out = unfold ? ct__device_im2col(g, input) : ct__device_col2im(g, input);
    }
    else {
        ct_tensor *x = ct_contiguous(input);
        out = x != NULL ? ct_empty(nd, sizes, input->dtype, ct_device_cpu()) : NULL;
        if (out != NULL) {
            unfold_run(g, unfold, ct_tensor_data(x), ct_tensor_data(out));
        }
        ct_tensor_decref(x);
    }
    if (out != NULL && !batched) {
        ct_tensor *r = ct_view(out, nd - 1, sizes + 1);
        ct_tensor_decref(out);
        out = r;
    }
    return out;
}

ct_tensor *
ct_im2col(const ct_tensor *input, const int64_t *kernel, const int64_t *dilation,
          const int64_t *padding, const int64_t *stride)
{
    char buf[160];
    if (check_params(kernel, dilation, padding, stride) < 0) {
        return NULL;
    }
    bool batched = input->ndim == 4;
    bool bad = input->ndim != 3 && input->ndim != 4;
    for (int i = batched ? 1 : 0; !bad && i < input->ndim; i++) {
        bad = input->sizes[i] == 0;
    }
    if (bad) {
        ct_error(CT_ERR_RUNTIME, "Expected 3D or 4D (batch mode) tensor with "
                 "possibly 0 batch size and other non-zero dimensions for input, "
                 "but got: %s", ct_format_sizes(input->ndim, input->sizes, buf,
                                                sizeof buf));
        return NULL;
    }
    int b = batched ? 1 : 0;
    conv_geom g = {
        .dtype = input->dtype, .n = batched ? input->sizes[0] : 1, .groups = 1,
        .c = input->sizes[b], .o = 1, .ih = input->sizes[b + 1], .iw = input->sizes[b + 2],
        .kh = kernel[0], .kw = kernel[1], .dh = dilation[0], .dw = dilation[1],
        .ph = padding[0], .pw = padding[1], .sh = stride[0], .sw = stride[1],
    };
    /* the input height printed twice: what
     * torch 1.13's im2col_shape_check prints */
    blocks(&g);
    if (g.oh < 1 || g.ow < 1) {
        ct_error(CT_ERR_RUNTIME, "Given input with spatial size (%lld, %lld), "
                 "kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, "
                 "%lld), calculated shape of the array of sliding blocks as (%lld, "
                 "%lld), but its components must be at least one.",
                 (long long)g.ih, (long long)g.ih, (long long)g.kh, (long long)g.kw,
                 (long long)g.dh, (long long)g.dw, (long long)g.ph, (long long)g.pw,
                 (long long)g.oh, (long long)g.ow);
        return NULL;
    }
    if (!floating_ok(input->dtype)) {
        ct_error(CT_ERR_RUNTIME, "\"im2col_out_cpu\" not implemented for '%s'",
                 ct_dtype_table[input->dtype].legacy);
        return NULL;
    }
    ct__conv_geom_finish(&g);
    int64_t sizes[3] = {g.n, g.c * g.kh * g.kw, g.oh * g.ow};
    return unfold_result(&g, true, input, 3, sizes, batched);
}

ct_tensor *
ct_col2im(const ct_tensor *input, const int64_t *output_size, const int64_t *kernel,
          const int64_t *dilation, const int64_t *padding, const int64_t *stride)
{
    char buf[160];
    if (check_params(kernel, dilation, padding, stride) < 0) {
        return NULL;
    }
    bool batched = input->ndim == 3;
    bool bad = input->ndim != 2 && input->ndim != 3;
    for (int i = batched ? 1 : 0; !bad && i < input->ndim; i++) {
        bad = input->sizes[i] == 0;
    }
    if (bad) {
        ct_error(CT_ERR_RUNTIME, "Expected 2D or 3D (batch mode) tensor for input "
                 "with possibly 0 batch size and non-zero dimensions for input, but "
                 "got: %s", ct_format_sizes(input->ndim, input->sizes, buf,
                                            sizeof buf));
        return NULL;
    }
    int b = batched ? 1 : 0;
    int64_t ck = input->sizes[b], L = input->sizes[b + 1];
    int64_t kk = kernel[0] * kernel[1];
    if (ck % kk != 0) {
        ct_error(CT_ERR_RUNTIME, "Expected size of input's dimension 1 to be "
                 "divisible by the product of kernel_size, but got "
                 "input.size(1)=%lld and kernel_size=(%lld, %lld).", (long long)ck,
                 (long long)kernel[0], (long long)kernel[1]);
        return NULL;
    }
    conv_geom g = {
        .dtype = input->dtype, .n = batched ? input->sizes[0] : 1, .groups = 1,
        .c = ck / kk, .o = 1, .ih = output_size[0], .iw = output_size[1],
        .kh = kernel[0], .kw = kernel[1], .dh = dilation[0], .dw = dilation[1],
        .ph = padding[0], .pw = padding[1], .sh = stride[0], .sw = stride[1],
    };
    blocks(&g);
    if (g.oh * g.ow != L) {
        ct_error(CT_ERR_RUNTIME, "Given output_size=(%lld, %lld), kernel_size=(%lld, "
                 "%lld), dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, "
                 "%lld), expected size of input's dimension 2 to match the calculated "
                 "number of sliding blocks %lld * %lld = %lld, but got "
                 "input.size(2)=%lld.", (long long)g.ih, (long long)g.iw,
                 (long long)g.kh, (long long)g.kw, (long long)g.dh, (long long)g.dw,
                 (long long)g.ph, (long long)g.pw, (long long)g.sh, (long long)g.sw,
                 (long long)g.oh, (long long)g.ow, (long long)(g.oh * g.ow),
                 (long long)L);
        return NULL;
    }
    if (!floating_ok(input->dtype)) {
        ct_error(CT_ERR_RUNTIME, "\"col2im_out_cpu\" not implemented for '%s'",
                 ct_dtype_table[input->dtype].legacy);
        return NULL;
    }
    ct__conv_geom_finish(&g);
    int64_t sizes[4] = {g.n, g.c, g.ih, g.iw};
    return unfold_result(&g, false, input, 4, sizes, batched);
}
