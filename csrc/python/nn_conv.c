/* csrc/python/nn_conv.c -- Python bindings of convolution, pooling,
 * unfold / fold and upsampling (include/ctorch/autograd_conv.h), merged
 * into _C by module.c (Note [Method tables]).
 *
 * Public names are torch's top-level functions (torch.conv2d,
 * torch.max_pool1d, torch.avg_pool1d, ...); what torch keeps in
 * torch._C._nn is private here (_max_pool2d_with_indices, _avg_pool2d,
 * _adaptive_avg_pool2d, _adaptive_max_pool2d, _im2col, _col2im,
 * _upsample) and python/ctorch/nn/_functional_conv.py calls it.  The
 * unbatched forms and the 1-D pools are unsqueeze / squeeze around the
 * batched 2-D ops, recorded as in torch (UnsqueezeBackward0,
 * SqueezeBackward1).
 */
#include "argparse.h"

#define FASTCALL PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                 PyObject *kwnames

static const ct_tensor *
opt(const ctpy_arg *a)
{
    return a->is_none ? NULL : a->t;
}

/* The int objects that stand for an `object` parameter's int default
 * (borrowed; made once and kept for the process). */
static PyObject *
small_int(long v)
{
    static PyObject *ints[2];
    if (ints[v] == NULL) {
        ints[v] = PyLong_FromLong(v);
    }
    return ints[v];
}

/* An `object` argument, or dflt (may be NULL) when not given or None. */
static PyObject *
or_default(const ctpy_arg *a, PyObject *dflt)
{
    return a->given && !a->is_none && a->obj != NULL ? a->obj : dflt;
}

static PyObject *
runtime_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyErr_FormatV(PyExc_RuntimeError, fmt, ap);
    va_end(ap);
    return NULL;
}

static void
format_list(const int64_t *v, int n, char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = 0;
    for (int i = 0; i < n && off < size; i++) {
        off += (size_t)snprintf(buf + off, size - off, "%s%lld", i ? ", " : "",
                                (long long)v[i]);
    }
}

/* An int or a sequence of ints: *is_int tells which.  -1 with TypeError. */
static int
int_list(PyObject *o, const char *fname, const char *argname, int *n, int64_t *vals,
         bool *is_int)
{
    *is_int = PyLong_Check(o) && !PyBool_Check(o);
    int rc = ctpy_to_intlist(o, n, vals, fname, argname);
    if (rc > 0) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be tuple of ints, not %s",
                     fname, argname, Py_TYPE(o)->tp_name);
        return -1;
    }
    return rc;
}

/* --- convolution --------------------------------------------------------- */
/* A convolution parameter as torch's parser and expand_param_if_needed see
 * it: a single int fills the function's `nominal` dims; then one value
 * fills the weight's k spatial dims, any other count but k is an error. */
static int
conv_param(PyObject *o, const char *fname, const char *name, int nominal, int k,
           int64_t *out)
{
    int n;
    int64_t v[CT_MAX_DIMS];
    bool is_int;
    char buf[256];
    if (int_list(o, fname, name, &n, v, &is_int) < 0) {
        return -1;
    }
    if (is_int) {
        for (int i = 1; i < nominal; i++) {
            v[i] = v[0];
        }
        n = nominal;
    }
    if (n != 1 && n != k) {
        format_list(v, n, buf, sizeof buf);
        runtime_error("expected %s to be a single integer value or a list of %d values "
                      "to match the convolution dimensions, but got %s=[%s]", name, k,
                      name, buf);
        return -1;
    }
    for (int i = 0; i < k && i < 2; i++) {
        out[i] = v[n == 1 ? 0 : i];
    }
    return 0;
}

/* Fill p from the Python parameters (output_padding may be NULL). */
static int
conv_params(const char *fname, int nominal, const ct_tensor *weight, PyObject *stride,
            PyObject *padding, PyObject *dilation, PyObject *output_padding,
            bool transposed, int64_t groups, ct_conv_params *p)
{
    int k = weight->ndim - 2;
    memset(p, 0, sizeof *p);
    if (k < 1) {
        runtime_error("weight should have at least three dimensions");
        return -1;
    }
    if (conv_param(stride, fname, "stride", nominal, k, p->stride) < 0 ||
        (padding != NULL && conv_param(padding, fname, "padding", nominal, k,
                                       p->padding) < 0) ||
        conv_param(dilation, fname, "dilation", nominal, k, p->dilation) < 0 ||
        (output_padding != NULL &&
         conv_param(output_padding, fname, "output_padding", nominal, k,
                    p->output_padding) < 0)) {
        return -1;
    }
    if (k > 2) {
        runtime_error("%s: only 1-D and 2-D convolutions are supported, got a %d-D "
                      "weight", fname, k);
        return -1;
    }
    p->nsp = k;
    p->transposed = transposed;
    p->groups = groups;
    return 0;
}

/* ctag_convolution on an unbatched input: unsqueeze(0), squeeze(0). */
static ct_tensor *
conv_maybe_unbatched(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                     const ct_conv_params *p, bool batched)
{
    if (batched) {
        return ctag_convolution(x, w, b, p);
    }
    ct_tensor *u = ctag_unsqueeze(x, 0);
    ct_tensor *r = u != NULL ? ctag_convolution(u, w, b, p) : NULL;
    int64_t d = 0;
    ct_tensor *s = r != NULL ? ctag_squeeze(r, &d) : NULL;
    ct_tensor_decref(u);
    ct_tensor_decref(r);
    return s;
}

/* conv1d / conv2d / conv_transpose1d / conv_transpose2d */
static PyObject *
conv_nd(const char *fname, int nsp, bool transposed, PyObject *const *args,
        Py_ssize_t nargs, PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[8];
    char buf[160];
    ct_conv_params p;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ct_tensor *x = v[0].t, *w = v[1].t, *b = opt(&v[2]);
    PyObject *stride = or_default(&v[3], small_int(1));
    PyObject *padding = or_default(&v[4], small_int(0));
    PyObject *opad = transposed ? or_default(&v[5], small_int(0)) : NULL;
    int64_t groups = v[6].i;
    PyObject *dilation = or_default(transposed ? &v[7] : &v[5], small_int(1));
    if (stride == NULL || padding == NULL || dilation == NULL ||
        (transposed && opad == NULL)) {
        return NULL;
    }
    if (x->ndim != nsp + 1 && x->ndim != nsp + 2) {
        ct_format_sizes(x->ndim, x->sizes, buf, sizeof buf);
        return runtime_error("Expected %dD (unbatched) or %dD (batched) input to %s, but "
                             "got input of size: %s", nsp + 1, nsp + 2, fname, buf);
    }
    bool batched = x->ndim == nsp + 2;
    bool same = false;
    if (!transposed && PyUnicode_Check(padding)) {
        const char *s = PyUnicode_AsUTF8(padding);
        if (s == NULL) {
            return NULL;
        }
        if (strcmp(s, "valid") == 0) {
            padding = NULL;
        }
        else if (strcmp(s, "same") == 0) {
            padding = NULL;
            same = true;
        }
        else {
            return runtime_error("Invalid padding string: '%s'", s);
        }
    }
    if (conv_params(fname, nsp, w, stride, padding, dilation, opad, transposed, groups,
                    &p) < 0) {
        return NULL;
    }
    /* padding='same': total d (k - 1) per dim, total / 2 on the left; an
     * odd total puts one more zero on the right, which torch pads onto a
     * copy of the input (ConstantPadNdBackward0): here a concatenated
     * slab of zeros (CatBackward0) */
    bool extra[2] = {false, false};
    if (same) {
        for (int i = 0; i < p.nsp; i++) {
            if (p.stride[i] != 1) {
                return runtime_error("padding='same' is not supported for strided "
                                     "convolutions");
            }
        }
        bool warned = false;
        for (int i = 0; i < p.nsp; i++) {
            int64_t total = p.dilation[i] * (w->sizes[2 + i] - 1);
            p.padding[i] = total / 2;
            extra[i] = total % 2 != 0;
            if (extra[i] && !warned) {
                warned = true;
                if (PyErr_WarnEx(PyExc_UserWarning, "Using padding='same' with even kernel "
                                 "lengths and odd dilation may require a zero-padded copy "
                                 "of the input be created", 1) < 0) {
                    return NULL;
                }
            }
        }
    }
    ct_tensor *xp = NULL, *r = NULL;
    for (int i = 0; i < p.nsp; i++) {
        if (extra[i]) {
            const ct_tensor *cur = xp != NULL ? xp : x;
            int64_t d = x->ndim - p.nsp + i, sz[4];
            memcpy(sz, cur->sizes, sizeof(int64_t) * (size_t)cur->ndim);
            sz[d] = 1;
            ct_tensor *zeros = ct_zeros(cur->ndim, sz, cur->dtype);
            const ct_tensor *parts[2] = {cur, zeros};
            ct_tensor *c = zeros != NULL ? ctag_cat(2, parts, d, NULL) : NULL;
            ct_tensor_decref(zeros);
            ct_tensor_decref(xp);
            if ((xp = c) == NULL) {
                return ctpy_raise();
            }
        }
    }
    const ct_tensor *xin = xp != NULL ? xp : x;
    CTPY_RUN(xin->numel + w->numel, r = conv_maybe_unbatched(xin, w, b, &p, batched));
    ct_tensor_decref(xp);
    return ctpy_result(r);
}

#define CONV_SIG(name)                                                           \
    name "(Tensor input, Tensor weight, Tensor? bias=None, object stride=1, "   \
         "object padding=0, object dilation=1, int groups=1)"
#define CONVT_SIG(name)                                                          \
    name "(Tensor input, Tensor weight, Tensor? bias=None, object stride=1, "   \
         "object padding=0, object output_padding=0, int groups=1, "            \
         "object dilation=1)"

static PyObject *
conv_call(const char *fname, int nsp, bool transposed, const char *sigtext,
          ctpy_sig *sig, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)sigtext;
    return conv_nd(fname, nsp, transposed, args, nargs, kwnames, sig);
}

static ctpy_sig conv1d_sig = CTPY_SIG(CONV_SIG("conv1d"));
static ctpy_sig conv2d_sig = CTPY_SIG(CONV_SIG("conv2d"));
static ctpy_sig convt1d_sig = CTPY_SIG(CONVT_SIG("conv_transpose1d"));
static ctpy_sig convt2d_sig = CTPY_SIG(CONVT_SIG("conv_transpose2d"));

static PyObject *
fn_conv1d(FASTCALL)
{
    (void)self;
    return conv_call("conv1d", 1, false, NULL, &conv1d_sig, args, nargs, kwnames);
}

static PyObject *
fn_conv2d(FASTCALL)
{
    (void)self;
    return conv_call("conv2d", 2, false, NULL, &conv2d_sig, args, nargs, kwnames);
}

static PyObject *
fn_conv_transpose1d(FASTCALL)
{
    (void)self;
    return conv_call("conv_transpose1d", 1, true, NULL, &convt1d_sig, args, nargs,
                     kwnames);
}

static PyObject *
fn_conv_transpose2d(FASTCALL)
{
    (void)self;
    return conv_call("conv_transpose2d", 2, true, NULL, &convt2d_sig, args, nargs,
                     kwnames);
}

/* torch.convolution(input, weight, bias, stride, padding, dilation,
 * transposed, output_padding, groups): batched only. */
static PyObject *
fn_convolution(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "convolution(Tensor input, Tensor weight, Tensor? bias, object stride, "
        "object padding, object dilation, bool transposed, object output_padding, "
        "int groups)");
    ctpy_arg v[9];
    ct_conv_params p;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ct_tensor *x = v[0].t, *w = v[1].t;
    if (conv_params("convolution", w->ndim - 2, w, v[3].obj, v[4].obj, v[5].obj,
                    v[7].obj, v[6].b, v[8].i, &p) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(x->numel + w->numel, r = ctag_convolution(x, w, opt(&v[2]), &p));
    return ctpy_result(r);
}

/* --- pooling ------------------------------------------------------------- */
/* A 2-D pooling parameter: an int or one or two ints; `empty_ok`: None or
 * () mean "not given" (*given false).  The messages are torch's. */
static int
pool_pair(PyObject *o, const char *fname, const char *what, const char *msg,
          bool empty_ok, int64_t *out, bool *given)
{
    int n;
    int64_t v[CT_MAX_DIMS];
    bool is_int;
    *given = true;
    if (o == NULL || o == Py_None) {
        if (empty_ok) {
            *given = false;
            return 0;
        }
    }
    if (o == NULL || int_list(o, fname, what, &n, v, &is_int) < 0) {
        return -1;
    }
    if (n == 0 && empty_ok) {
        *given = false;
        return 0;
    }
    if (n != 1 && n != 2) {
        runtime_error("%s: %s", fname, msg);
        return -1;
    }
    out[0] = v[0];
    out[1] = v[n - 1];
    return 0;
}

/* kernel_size, stride, padding (, dilation) of max_pool2d / avg_pool2d */
static int
pool2d_params(const char *fname, bool is_max, PyObject *kernel, PyObject *stride,
              PyObject *padding, PyObject *dilation, ct_pool_params *p)
{
    bool given;
    memset(p, 0, sizeof *p);
    p->dilation[0] = p->dilation[1] = 1;
    if (pool_pair(kernel, fname, "kernel_size", "kernel_size must either be a single "
                  "int, or a tuple of two ints", false, p->kernel, &given) < 0 ||
        pool_pair(stride, fname, "stride", "stride must either be omitted, a single "
                  "int, or a tuple of two ints", true, p->stride, &given) < 0) {
        return -1;
    }
    if (!given) {
        p->stride[0] = p->kernel[0];
        p->stride[1] = p->kernel[1];
    }
    if (pool_pair(padding, fname, "padding", is_max
                  ? "padding must be either be a single int, or a tuple of two ints"
                  : "padding must either be a single int, or a tuple of two ints",
                  false, p->padding, &given) < 0) {
        return -1;
    }
    if (dilation != NULL &&
        pool_pair(dilation, fname, "dilation", "dilation must be either a single int, "
                  "or a tuple of two ints", false, p->dilation, &given) < 0) {
        return -1;
    }
    return 0;
}

static PyObject *
pair_result(int rc, ct_tensor *a, ct_tensor *b)
{
    if (rc < 0) {
        ct_tensor_decref(a);
        ct_tensor_decref(b);
        return ctpy_raise();
    }
    PyObject *pa = ctpy_wrap(a), *pb = ctpy_wrap(b);
    ct_tensor_decref(a);
    ct_tensor_decref(b);
    PyObject *r = pa != NULL && pb != NULL ? PyTuple_Pack(2, pa, pb) : NULL;
    Py_XDECREF(pa);
    Py_XDECREF(pb);
    return r;
}

#define MAXPOOL_SIG(name)                                                        \
    name "(Tensor input, object kernel_size, object stride=None, "              \
         "object padding=0, object dilation=1, bool ceil_mode=False)"

/* max_pool2d (torch.max_pool2d) and _max_pool2d_with_indices. */
static PyObject *
max_pool2d_common(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                  ctpy_sig *sig, bool with_indices)
{
    ctpy_arg v[6];
    ct_pool_params p;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (pool2d_params("max_pool2d", true, v[1].obj, or_default(&v[2], NULL),
                      or_default(&v[3], small_int(0)), or_default(&v[4], small_int(1)), &p) < 0) {
        return NULL;
    }
    p.ceil_mode = v[5].b;
    ct_tensor *out, *idx;
    int rc;
    CTPY_RUN(v[0].t->numel, rc = ctag_max_pool2d_with_indices(v[0].t, &p, &out, &idx));
    if (with_indices) {
        return pair_result(rc, out, idx);
    }
    ct_tensor_decref(idx);
    return rc < 0 ? ctpy_raise() : ctpy_result(out);
}

static PyObject *
fn_max_pool2d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(MAXPOOL_SIG("max_pool2d"));
    (void)self;
    return max_pool2d_common(args, nargs, kwnames, &sig, false);
}

static PyObject *
fn__max_pool2d_with_indices(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(MAXPOOL_SIG("max_pool2d_with_indices"));
    (void)self;
    return max_pool2d_common(args, nargs, kwnames, &sig, true);
}

/* A 1-D parameter of the int[1] kind: "should contain one int". */
static int
one_int(PyObject *o, const char *fname, const char *argname, bool empty_ok,
        int64_t *out, bool *given)
{
    int n;
    int64_t v[CT_MAX_DIMS];
    bool is_int;
    *given = true;
    if (o == NULL || o == Py_None) {
        *given = false;
        if (empty_ok) {
            return 0;
        }
    }
    if (o == NULL || int_list(o, fname, argname, &n, v, &is_int) < 0) {
        return -1;
    }
    if (n == 0 && empty_ok) {
        *given = false;
        return 0;
    }
    if (n != 1) {
        runtime_error("%s() argument '%s' should contain one int (got %d)", fname, argname,
                      n);
        return -1;
    }
    *out = v[0];
    return 0;
}

/* x with a height-1 dim before the last (a new reference). */
static ct_tensor *
unsqueeze_h(const ct_tensor *x)
{
    return ctag_unsqueeze(x, -2);
}

static ct_tensor *
squeeze_h(ct_tensor *x, bool autograd)
{
    int64_t d = -2;
    ct_tensor *r = x == NULL ? NULL : autograd ? ctag_squeeze(x, &d) : ct_squeeze(x, &d);
    ct_tensor_decref(x);
    return r;
}

static int
check_1d_dims(const ct_tensor *x, const char *fname)
{
    if (x->ndim != 2 && x->ndim != 3) {
        runtime_error("Expected 2 to 3 dimensions, but got %d-dimensional tensor for "
                      "argument #1 'self' (while checking arguments for %s)", x->ndim,
                      fname);
        return -1;
    }
    return 0;
}

static int
check_maxpool1d_dims(const ct_tensor *x)
{
    char buf[160];
    bool bad = x->ndim != 2 && x->ndim != 3;
    for (int i = x->ndim == 3 ? 1 : 0; !bad && i < x->ndim; i++) {
        bad = x->sizes[i] == 0;
    }
    if (bad) {
        ct_format_sizes(x->ndim, x->sizes, buf, sizeof buf);
        runtime_error("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                      "dim batch size for input, but got:%s", buf);
        return -1;
    }
    return 0;
}

/* max_pool1d via max_pool2d_with_indices on [.., 1, L] (MaxPool2D...,
 * SqueezeBackward1). */
static int
max_pool1d_2d(const ct_tensor *x, int64_t k, int64_t s, int64_t pd, int64_t d,
              bool ceil, ct_tensor **out, ct_tensor **idx)
{
    ct_pool_params p = {.kernel = {1, k}, .stride = {1, s}, .padding = {0, pd},
                        .dilation = {1, d}, .ceil_mode = ceil};
    ct_tensor *u = unsqueeze_h(x), *o = NULL, *i = NULL;
    int rc = u == NULL ? -1 : ctag_max_pool2d_with_indices(u, &p, &o, &i);
    ct_tensor_decref(u);
    *out = squeeze_h(o, true);
    *idx = squeeze_h(i, false);
    if (rc < 0 || *out == NULL || *idx == NULL) {
        ct_tensor_decref(*out);
        ct_tensor_decref(*idx);
        *out = *idx = NULL;
        return -1;
    }
    return 0;
}

/* max_pool1d_with_indices's parameters (int[1] each) and its result. */
static int
max_pool1d_indices_impl(const ctpy_arg *v, ct_tensor **out, ct_tensor **idx)
{
    int64_t k, s, pd = 0, d = 1;
    bool given;
    const char *fn = "max_pool1d";
    *out = *idx = NULL;
    if (one_int(v[1].obj, fn, "kernel_size", false, &k, &given) < 0 ||
        one_int(or_default(&v[2], NULL), fn, "stride", true, &s, &given) < 0) {
        return -2;
    }
    if (!given) {
        s = k;
    }
    if (one_int(or_default(&v[3], small_int(0)), fn, "padding", false, &pd, &given) < 0 ||
        one_int(or_default(&v[4], small_int(1)), fn, "dilation", false, &d, &given) < 0 ||
        check_maxpool1d_dims(v[0].t) < 0) {
        return -2;
    }
    int rc;
    CTPY_RUN(v[0].t->numel, rc = max_pool1d_2d(v[0].t, k, s, pd, d, v[5].b, out, idx));
    return rc;
}

static PyObject *
fn_max_pool1d_with_indices(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(MAXPOOL_SIG("max_pool1d_with_indices"));
    ctpy_arg v[6];
    ct_tensor *out, *idx;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    int rc = max_pool1d_indices_impl(v, &out, &idx);
    return rc == -2 ? NULL : pair_result(rc, out, idx);
}

/* torch.max_pool1d: without autograd, torch checks with max_pool1d's own
 * messages (and allows an empty result); with it, max_pool1d_with_indices. */
static PyObject *
fn_max_pool1d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(MAXPOOL_SIG("max_pool1d"));
    ctpy_arg v[6];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ct_tensor *x = v[0].t;
    if (ct_grad_enabled() && ct_requires_grad(x)) {
        ct_tensor *out, *idx;
        int rc = max_pool1d_indices_impl(v, &out, &idx);
        if (rc == -2) {
            return NULL;
        }
        ct_tensor_decref(idx);
        return rc < 0 ? ctpy_raise() : ctpy_result(out);
    }
    int n[4];
    int64_t val[4][CT_MAX_DIMS];
    bool is_int;
    PyObject *objs[4] = {v[1].obj, or_default(&v[2], NULL), or_default(&v[3], small_int(0)),
                         or_default(&v[4], small_int(1))};
    static const char *const names[4] = {"kernel_size", "stride", "padding", "dilation"};
    static const char *const msgs[4] = {
        "kernel_size must be an int, list of ints or tuple of ints of size 1",
        "stride must be None, an int, list of ints, or tuple of ints of size 1",
        "padding must be an int, list of ints, or tuple of ints of size 1",
        "dilation must be an int, list of ints or tuple of ints of size 1"};
    for (int i = 0; i < 4; i++) {
        n[i] = 0;
        if (objs[i] == NULL) {
            continue;
        }
        if (int_list(objs[i], "max_pool1d", names[i], &n[i], val[i], &is_int) < 0) {
            return NULL;
        }
        if (n[i] != 1 && !(i == 1 && n[i] == 0)) {
            return runtime_error("max_pool1d() %s but got size %d", msgs[i], n[i]);
        }
    }
    if (check_maxpool1d_dims(x) < 0) {
        return NULL;
    }
    int64_t k = val[0][0], s = n[1] ? val[1][0] : k, pd = val[2][0], d = val[3][0];
    if (k <= 0) {
        return runtime_error("max_pool1d() kernel_size must be greater than zero, but got "
                             "%lld", (long long)k);
    }
    if (s <= 0) {
        return runtime_error("max_pool1d() stride must be greater than zero, but got %lld",
                             (long long)s);
    }
    if (pd < 0) {
        return runtime_error("max_pool1d() padding must be non-negative, but got %lld",
                             (long long)pd);
    }
    if (pd > k / 2) {
        return runtime_error("max_pool1d() padding should be at most half of kernel "
                             "size, but got padding=%lld and kernel_size=%lld",
                             (long long)pd, (long long)k);
    }
    if (d <= 0) {
        return runtime_error("max_pool1d() dilation must be greater than zero, but got "
                             "%lld", (long long)d);
    }
    int64_t L = x->sizes[x->ndim - 1];
    int64_t num = L + 2 * pd - d * (k - 1) - 1 + (v[5].b ? s - 1 : 0);
    int64_t ol = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (v[5].b && (ol - 1) * s >= L + pd) {
        ol--;
    }
    if (ol < 0) {
        return runtime_error("max_pool1d() Invalid computed output size: %lld",
                             (long long)ol);
    }
    ct_tensor *out, *idx;
    int rc;
    if (ol == 0) {
        int64_t sz[3];
        memcpy(sz, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
        sz[x->ndim - 1] = 0;
        return ctpy_result(ct_empty(x->ndim, sz, x->dtype, ct_device_cpu()));
    }
    CTPY_RUN(x->numel, rc = max_pool1d_2d(x, k, s, pd, d, v[5].b, &out, &idx));
    ct_tensor_decref(idx);
    return rc < 0 ? ctpy_raise() : ctpy_result(out);
}

static PyObject *
fn__avg_pool2d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "avg_pool2d(Tensor input, object kernel_size, object stride=None, "
        "object padding=0, bool ceil_mode=False, bool count_include_pad=True, "
        "int? divisor_override=None)");
    ctpy_arg v[7];
    ct_pool_params p;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ct_tensor *x = v[0].t;
    if (pool2d_params("avg_pool2d", false, v[1].obj, or_default(&v[2], NULL),
                      or_default(&v[3], small_int(0)), NULL, &p) < 0) {
        return NULL;
    }
    if (x->ndim < 3) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range "
                     "of [%d, %d], but got -3)", x->ndim ? -x->ndim : -1,
                     x->ndim ? x->ndim - 1 : 0);
        return NULL;
    }
    p.ceil_mode = v[4].b;
    p.count_include_pad = v[5].b;
    if (!v[6].is_none) {
        if (v[6].i == 0) {
            return runtime_error("divisor must be not zero");
        }
        p.divisor_override = v[6].i;
    }
    ct_tensor *r;
    CTPY_RUN(x->numel, r = ctag_avg_pool2d(x, &p));
    return ctpy_result(r);
}

static PyObject *
fn_avg_pool1d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "avg_pool1d(Tensor input, object kernel_size, object stride=None, "
        "object padding=0, bool ceil_mode=False, bool count_include_pad=True)");
    ctpy_arg v[6];
    int64_t k, s, pd;
    bool given;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const char *fn = "avg_pool1d";
    if (one_int(v[1].obj, fn, "kernel_size", false, &k, &given) < 0 ||
        one_int(or_default(&v[2], NULL), fn, "stride", true, &s, &given) < 0) {
        return NULL;
    }
    if (!given) {
        s = k;
    }
    if (one_int(or_default(&v[3], small_int(0)), fn, "padding", false, &pd, &given) < 0 ||
        check_1d_dims(v[0].t, fn) < 0) {
        return NULL;
    }
    ct_pool_params p = {.kernel = {1, k}, .stride = {1, s}, .padding = {0, pd},
                        .dilation = {1, 1}, .ceil_mode = v[4].b,
                        .count_include_pad = v[5].b};
    ct_tensor *u = unsqueeze_h(v[0].t), *r = NULL;
    if (u != NULL) {
        CTPY_RUN(u->numel, r = ctag_avg_pool2d(u, &p));
    }
    ct_tensor_decref(u);
    return ctpy_result(squeeze_h(r, true));
}

/* adaptive output sizes: two ints (the Python layer resolves None) */
static int
adaptive_size(PyObject *o, const char *fname, int want, int64_t *out)
{
    int n;
    int64_t v[CT_MAX_DIMS];
    bool is_int;
    if (int_list(o, fname, "output_size", &n, v, &is_int) < 0) {
        return -1;
    }
    if (want == 1) {
        if (n != 1) {
            runtime_error("%s() argument 'output_size' should contain one int (got %d)",
                          fname, n);
            return -1;
        }
        out[0] = v[0];
        return 0;
    }
    if (is_int) {
        v[1] = v[0];
        n = 2;
    }
    if (n != 2) {
        if (strcmp(fname, "adaptive_max_pool2d") == 0) {
            runtime_error("adaptive_max_pool2d(): internal error: output_size.size() must "
                          "be 2");
        }
        else {
            runtime_error("adaptive_avg_pool2d: output_size must be 2");
        }
        return -1;
    }
    out[0] = v[0];
    out[1] = v[1];
    return 0;
}

/* adaptive_avg_pool2d: torch takes the mean for a 1x1 output
 * (MeanBackward1). */
static ct_tensor *
adaptive_avg(const ct_tensor *x, const int64_t *os)
{
    if (os[0] == 1 && os[1] == 1 && (x->ndim == 3 || x->ndim == 4)) {
        int64_t dims[2] = {-1, -2};
        return ctag_mean(x, 2, dims, true, CT_DTYPE_COUNT);
    }
    return ctag_adaptive_avg_pool2d(x, os);
}

static PyObject *
fn__adaptive_avg_pool2d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("adaptive_avg_pool2d(Tensor input, object output_size)");
    ctpy_arg v[2];
    int64_t os[2];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        adaptive_size(v[1].obj, "adaptive_avg_pool2d", 2, os) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = adaptive_avg(v[0].t, os));
    return ctpy_result(r);
}

static PyObject *
fn_adaptive_avg_pool1d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("adaptive_avg_pool1d(Tensor input, object output_size)");
    ctpy_arg v[2];
    int64_t os[2] = {1, 1};
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        adaptive_size(v[1].obj, "adaptive_avg_pool1d", 1, os + 1) < 0 ||
        check_1d_dims(v[0].t, "adaptive_avg_pool1d") < 0) {
        return NULL;
    }
    ct_tensor *u = unsqueeze_h(v[0].t), *r = NULL;
    if (u != NULL) {
        CTPY_RUN(u->numel, r = adaptive_avg(u, os));
    }
    ct_tensor_decref(u);
    return ctpy_result(squeeze_h(r, true));
}

static PyObject *
fn__adaptive_max_pool2d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("adaptive_max_pool2d(Tensor input, object output_size)");
    ctpy_arg v[2];
    int64_t os[2];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        adaptive_size(v[1].obj, "adaptive_max_pool2d", 2, os) < 0) {
        return NULL;
    }
    ct_tensor *out, *idx;
    int rc;
    CTPY_RUN(v[0].t->numel, rc = ctag_adaptive_max_pool2d(v[0].t, os, &out, &idx));
    return pair_result(rc, out, idx);
}

static PyObject *
fn_adaptive_max_pool1d(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("adaptive_max_pool1d(Tensor input, object output_size)");
    ctpy_arg v[2];
    int64_t os[2] = {1, 1};
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        adaptive_size(v[1].obj, "adaptive_max_pool1d", 1, os + 1) < 0 ||
        check_1d_dims(v[0].t, "adaptive_max_pool1d") < 0) {
        return NULL;
    }
    ct_tensor *u = unsqueeze_h(v[0].t), *out = NULL, *idx = NULL;
    int rc = -1;
    if (u != NULL) {
        CTPY_RUN(u->numel, rc = ctag_adaptive_max_pool2d(u, os, &out, &idx));
    }
    ct_tensor_decref(u);
    if (rc == 0) {
        out = squeeze_h(out, true);
        idx = squeeze_h(idx, false);
        rc = out != NULL && idx != NULL ? 0 : -1;
    }
    return pair_result(rc, out, idx);
}

/* --- unfold / fold -------------------------------------------------------- */
static int
two_ints(PyObject *o, const char *fname, const char *name, int64_t *out)
{
    int n;
    int64_t v[CT_MAX_DIMS];
    bool is_int;
    if (int_list(o, fname, name, &n, v, &is_int) < 0) {
        return -1;
    }
    if (is_int) {
        v[1] = v[0];
        n = 2;
    }
    if (n != 2) {
        runtime_error("It is expected %s equals to 2, but got size %d", name, n);
        return -1;
    }
    out[0] = v[0];
    out[1] = v[1];
    return 0;
}

static PyObject *
fn__im2col(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("im2col(Tensor input, object kernel_size, "
                                   "object dilation, object padding, object stride)");
    ctpy_arg v[5];
    int64_t k[2], d[2], pd[2], s[2];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        two_ints(v[1].obj, "im2col", "kernel_size", k) < 0 ||
        two_ints(v[2].obj, "im2col", "dilation", d) < 0 ||
        two_ints(v[3].obj, "im2col", "padding", pd) < 0 ||
        two_ints(v[4].obj, "im2col", "stride", s) < 0) {
        return NULL;
    }
    const ct_tensor *x = v[0].t;
    if (x->ndim < 3) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range "
                     "of [%d, %d], but got 2)", x->ndim ? -x->ndim : -1,
                     x->ndim ? x->ndim - 1 : 0);
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(x->numel, r = ctag_im2col(x, k, d, pd, s));
    return ctpy_result(r);
}

static PyObject *
fn__col2im(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("col2im(Tensor input, object output_size, "
                                   "object kernel_size, object dilation, object padding, "
                                   "object stride)");
    ctpy_arg v[6];
    int64_t os[2], k[2], d[2], pd[2], s[2];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        two_ints(v[1].obj, "col2im", "output_size", os) < 0 ||
        two_ints(v[2].obj, "col2im", "kernel_size", k) < 0 ||
        two_ints(v[3].obj, "col2im", "dilation", d) < 0 ||
        two_ints(v[4].obj, "col2im", "padding", pd) < 0 ||
        two_ints(v[5].obj, "col2im", "stride", s) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = ctag_col2im(v[0].t, os, k, d, pd, s));
    return ctpy_result(r);
}

/* --- upsampling ------------------------------------------------------------ */
/* _upsample(input, mode, output_size, align_corners, scales): mode
 * "nearest" or "linear" (bilinear for 2 dims); scales None or a sequence
 * with None or a float per dim. */
static PyObject *
fn__upsample(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("upsample(Tensor input, str mode, object output_size, "
                                   "bool align_corners=False, object scales=None)");
    ctpy_arg v[5];
    int n;
    int64_t os[CT_MAX_DIMS];
    bool is_int;
    double scales[2] = {0, 0};
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        int_list(v[2].obj, "upsample", "output_size", &n, os, &is_int) < 0) {
        return NULL;
    }
    const char *m = PyUnicode_AsUTF8(v[1].obj);
    if (m == NULL) {
        return NULL;
    }
    ct_upsample_mode mode = strcmp(m, "nearest") == 0 ? CT_UPSAMPLE_NEAREST
                                                      : CT_UPSAMPLE_LINEAR;
    if (n < 1 || n > 2) {
        return runtime_error("upsample: output_size must have 1 or 2 elements");
    }
    PyObject *so = v[4].given ? v[4].obj : Py_None;
    if (so != Py_None) {
        PyObject *seq = PySequence_Fast(so, "upsample: scales must be a sequence");
        if (seq == NULL) {
            return NULL;
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && i < 2; i++) {
            PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
            if (it != Py_None) {
                scales[i] = PyFloat_AsDouble(it);
                if (scales[i] == -1.0 && PyErr_Occurred()) {
                    Py_DECREF(seq);
                    return NULL;
                }
            }
        }
        Py_DECREF(seq);
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = ctag_upsample(v[0].t, mode, n, os, v[3].b, scales));
    return ctpy_result(r);
}

PyMethodDef ctpy_nn_conv_methods[] = {
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_nn_conv_functions[] = {
    CTPY_METH("conv1d", fn_conv1d, NULL),
    CTPY_METH("conv2d", fn_conv2d, NULL),
    CTPY_METH("conv_transpose1d", fn_conv_transpose1d, NULL),
    CTPY_METH("conv_transpose2d", fn_conv_transpose2d, NULL),
    CTPY_METH("convolution", fn_convolution, NULL),
    CTPY_METH("max_pool1d", fn_max_pool1d, NULL),
    CTPY_METH("max_pool2d", fn_max_pool2d, NULL),
    CTPY_METH("max_pool1d_with_indices", fn_max_pool1d_with_indices, NULL),
    CTPY_METH("_max_pool2d_with_indices", fn__max_pool2d_with_indices, NULL),
    CTPY_METH("avg_pool1d", fn_avg_pool1d, NULL),
    CTPY_METH("_avg_pool2d", fn__avg_pool2d, NULL),
    CTPY_METH("adaptive_avg_pool1d", fn_adaptive_avg_pool1d, NULL),
    CTPY_METH("_adaptive_avg_pool2d", fn__adaptive_avg_pool2d, NULL),
    CTPY_METH("adaptive_max_pool1d", fn_adaptive_max_pool1d, NULL),
    CTPY_METH("_adaptive_max_pool2d", fn__adaptive_max_pool2d, NULL),
    CTPY_METH("_im2col", fn__im2col, NULL),
    CTPY_METH("_col2im", fn__col2im, NULL),
    CTPY_METH("_upsample", fn__upsample, NULL),
    {NULL, NULL, 0, NULL},
};
