/* tests/c/test_cuda_kernel_math.c -- the CUDA kernels' scalar math
 * (aten/cuda/kernel_math.h) run on the host against ctorch's CPU results,
 * bit for bit: element offsets of packed views against a naive unravel,
 * half and bfloat16 rounding against include/ctorch/dtype.h, every
 * dtype-to-dtype cast against ct_to_dtype, add / sub / mul / div against
 * ct_add / ct_sub / ct_mul / ct_div, every other binary and unary op the
 * device has (pointwise_math.h) against ct_binary / ct_unary, the
 * reductions (reduce_math.h, run in the kernel's lane order) against
 * ct_sum, ct_amax, ct_argmax, ..., and ct_cuda_supports against what the
 * CPU accepts.  No GPU is needed; the same functions are what nvcc
 * compiles into the kernels.  On the GPU, CUDA's transcendental functions
 * (exp, log, sin, pow, atan2, erf, ...) may differ from glibc's in the last
 * place; only a device run shows by how much. */
#include "tests/c/test.h"

#include "aten/cuda/kernel_math.h"
#include "aten/cuda/pointwise_math.h"
#include "aten/cuda/reduce_math.h"

/* --- offsets ---------------------------------------------------------------------- */

static ct_cuda_view
make_view(ct_dtype dtype, int ndim, const int64_t *sizes, const int64_t *strides)
{
    ct_cuda_view v;
    memset(&v, 0, sizeof v);
    v.data = NULL;
    v.dtype = dtype;
    v.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        v.sizes[d] = sizes[d];
        v.strides[d] = strides[d];
    }
    return v;
}

/* the byte offset of row-major element i of v, the slow way */
static int64_t
naive_offset(const ct_cuda_view *v, int64_t i)
{
    int64_t off = 0;
    for (int d = v->ndim - 1; d >= 0; d--) {
        off += (i % v->sizes[d]) * v->strides[d];
        i /= v->sizes[d];
    }
    return off * ct_k_itemsize(v->dtype);
}

/* 0 when every operand's offset of element i agrees with naive_offset,
 * both by ct_k_offsets and (when the pack is linear) by i * step. */
static int
check_offsets(const ct_k_pack *p, int nargs, const ct_cuda_view *const *views,
              int64_t i)
{
    int64_t off[CT_K_MAX_ARGS];
    ct_k_offsets(p, nargs, i, off);
    for (int a = 0; a < nargs; a++) {
        int64_t want = naive_offset(views[a], i);
        if (off[a] != want || (p->linear && i * p->step[a] != want)) {
            fprintf(stderr, "element %lld of operand %d: %lld (linear %d: %lld), "
                    "want %lld\n", (long long)i, a, (long long)off[a], p->linear,
                    (long long)(i * p->step[a]), (long long)want);
            return -1;
        }
    }
    return 0;
}

typedef struct {
    int ndim;
    int64_t sizes[CT_CUDA_MAX_DIMS];
    int64_t strides[3][CT_CUDA_MAX_DIMS];
    bool linear;
} offset_case;

TEST_IMPL(cuda_kernel_offsets)
{
    const int64_t big = 5000000000;   /* dims past 2^32: 64-bit division */
    const offset_case cases[] = {
        /* broadcast: a along dim 1, b along dims 0 and 2 */
        {3, {4, 3, 5}, {{15, 5, 1}, {5, 0, 1}, {0, 1, 0}}, false},
        /* transposed inputs */
        {2, {5, 4}, {{4, 1}, {1, 5}, {1, 5}}, false},
        /* coalesced to 1-D, with a broadcast scalar */
        {1, {60}, {{1}, {1}, {0}}, true},
        {3, {2, 3, 4}, {{12, 4, 1}, {12, 4, 1}, {0, 0, 0}}, true},
        /* size-1 dims' strides do not matter */
        {3, {3, 1, 4}, {{4, 99, 1}, {4, 4, 1}, {0, 7, 0}}, true},
        /* 0-dim */
        {0, {0}, {{0}, {0}, {0}}, true},
        /* a column of an outer product */
        {2, {7, 9}, {{9, 1}, {1, 0}, {0, 1}}, false},
        /* sizes past 2^32 */
        {2, {6, big}, {{big, 1}, {1, 6}, {0, 1}}, false},
    };
    const ct_dtype dtypes[3] = {CT_DTYPE_FLOAT32, CT_DTYPE_FLOAT64, CT_DTYPE_INT16};

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const offset_case *k = &cases[c];
        ct_cuda_view v[3];
        const ct_cuda_view *views[3] = {&v[0], &v[1], &v[2]};
        ct_k_pack p;
        for (int a = 0; a < 3; a++) {
            v[a] = make_view(dtypes[a], k->ndim, k->sizes, k->strides[a]);
        }
        int64_t n = ct_k_pack_views(&p, 3, views);
        int64_t want = 1;
        for (int d = 0; d < k->ndim; d++) {
            want *= k->sizes[d];
        }
        CT_ASSERT_EQ_INT(n, want);
        CT_ASSERT_EQ_INT(p.linear, k->linear);
        if (n <= 1000) {
            for (int64_t i = 0; i < n; i++) {
                CT_ASSERT_EQ_INT(check_offsets(&p, 3, views, i), 0);
            }
        }
        else {
            const int64_t at[] = {0, 1, 4294967295, 4294967296, 4294967297, big - 1,
                                  big, big + 1, 3 * big + 12345, 6 * big - 1};
            for (size_t j = 0; j < sizeof at / sizeof at[0]; j++) {
                CT_ASSERT_EQ_INT(check_offsets(&p, 3, views, at[j]), 0);
            }
        }
        /* the same views as two or one operand */
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 2, views), want);
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 1, views), want);
    }

    /* 16 dims of 2, strides permuted: every element */
    {
        int64_t sizes[CT_CUDA_MAX_DIMS], st[3][CT_CUDA_MAX_DIMS];
        for (int d = 0; d < CT_CUDA_MAX_DIMS; d++) {
            sizes[d] = 2;
            st[0][d] = (int64_t)1 << (CT_CUDA_MAX_DIMS - 1 - d);
            st[1][d] = (int64_t)1 << d;
            st[2][d] = d % 3 == 0 ? 0 : (int64_t)1 << ((d * 5) % CT_CUDA_MAX_DIMS);
        }
        ct_cuda_view v[3];
        const ct_cuda_view *views[3] = {&v[0], &v[1], &v[2]};
        ct_k_pack p;
        for (int a = 0; a < 3; a++) {
            v[a] = make_view(CT_DTYPE_BFLOAT16, CT_CUDA_MAX_DIMS, sizes, st[a]);
        }
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 3, views), 65536);
        CT_ASSERT_EQ_INT(p.linear, false);
        for (int64_t i = 0; i < 65536; i++) {
            CT_ASSERT_EQ_INT(check_offsets(&p, 3, views, i), 0);
        }
    }

    /* what the kernels refuse, and empty views */
    {
        int64_t s1[2] = {2, 3}, s2[2] = {3, 2}, st[2] = {3, 1}, s0[2] = {0, 3};
        ct_cuda_view v[2] = {make_view(CT_DTYPE_FLOAT32, 2, s1, st),
                             make_view(CT_DTYPE_FLOAT32, 2, s2, st)};
        const ct_cuda_view *views[2] = {&v[0], &v[1]};
        ct_k_pack p;
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 2, views), -1);   /* sizes differ */
        v[1] = make_view(CT_DTYPE_QINT8, 2, s1, st);
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 2, views), -1);   /* no kernels */
        v[1] = make_view(CT_DTYPE_FLOAT32, 1, s1, st);
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 2, views), -1);   /* ndim differs */
        v[0].ndim = CT_CUDA_MAX_DIMS + 1;
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 1, views), -1);
        v[0] = make_view(CT_DTYPE_BOOL, 2, s0, st);
        CT_ASSERT_EQ_INT(ct_k_pack_views(&p, 1, views), 0);
    }
}

/* --- half and bfloat16 ------------------------------------------------------------ */

/* 0 when ct_k_float_to_half / _bfloat16 give dtype.h's bits for f */
static int
check_round(float f)
{
    uint16_t h = ct_float_to_half(f).x, b = ct_float_to_bfloat16(f).x;
    if (ct_k_float_to_half(f) != h || ct_k_float_to_bfloat16(f) != b) {
        fprintf(stderr, "float bits 0x%08x: half 0x%04x want 0x%04x, bf16 0x%04x "
                "want 0x%04x\n", (unsigned)ct_float_to_bits(f), ct_k_float_to_half(f),
                h, ct_k_float_to_bfloat16(f), b);
        return -1;
    }
    return 0;
}

TEST_IMPL(cuda_kernel_half_bits)
{
    for (uint32_t x = 0; x < 65536; x++) {
        ct_half h = {(uint16_t)x};
        ct_bfloat16 b = {(uint16_t)x};
        float fh = ct_half_to_float(h), fb = ct_bfloat16_to_float(b);
        CT_ASSERT_EQ_INT(ct_float_to_bits(ct_k_half_to_float((uint16_t)x)),
                         ct_float_to_bits(fh));
        CT_ASSERT_EQ_INT(ct_float_to_bits(ct_k_bfloat16_to_float((uint16_t)x)),
                         ct_float_to_bits(fb));
        /* the values themselves, the ties halfway to the next one, and one
         * float either side of each tie */
        const float vals[2] = {fh, fb};
        const float next[2] = {ct_half_to_float((ct_half){(uint16_t)(x + 1)}),
                               ct_bfloat16_to_float((ct_bfloat16){(uint16_t)(x + 1)})};
        for (int k = 0; k < 2; k++) {
            CT_ASSERT_EQ_INT(check_round(vals[k]), 0);
            if (x == 0xffff || isnan(vals[k]) || isnan(next[k]) || isinf(vals[k])) {
                continue;
            }
            float mid = vals[k] + (next[k] - vals[k]) / 2;
            CT_ASSERT_EQ_INT(check_round(mid), 0);
            CT_ASSERT_EQ_INT(check_round(nextafterf(mid, INFINITY)), 0);
            CT_ASSERT_EQ_INT(check_round(nextafterf(mid, -INFINITY)), 0);
        }
    }
    /* a sweep over all float bit patterns, NaN payloads included */
    for (uint64_t u = 0; u < ((uint64_t)1 << 32); u += 65537) {
        CT_ASSERT_EQ_INT(check_round(ct_bits_to_float((uint32_t)u)), 0);
        CT_ASSERT_EQ_INT(check_round(ct_bits_to_float((uint32_t)u ^ 0x7fffffffu)), 0);
    }
}

/* --- casts ------------------------------------------------------------------------ */

static const double awkward[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 65504, 65520, -65536, 1e-8, 6e-8,
    255.7, 256, -1.5, -0.5, 0.5, 1, 127.5, -129, 1099511627777.0 /* 2^40 + 1 */,
    3e9, -3e9, 2147483648.0, 9.3e18, -9223372036854775808.0, 1e20, 1e300, 0.1,
    1.0 / 3, 2049, 4097,
};
#define N_AWKWARD ((int64_t)(sizeof awkward / sizeof awkward[0]))

#define NUMERIC_ENUM(E, T, S, A) E,
static const ct_dtype numeric[] = {CT_FORALL_NUMERIC_DTYPES(NUMERIC_ENUM)};
#undef NUMERIC_ENUM
#define N_NUMERIC ((int)(sizeof numeric / sizeof numeric[0]))

/* element at p of dtype d is a NaN */
static bool
is_nan(ct_dtype d, const char *p)
{
    ct_k_value v = ct_k_read(d, p);
    return v.from_float && isnan(v.f);
}

/* 0 when the n elements at got and want have the same bytes; with any_nan
 * two NaNs match whatever their sign and payload (see cuda_kernel_binary).
 * what names the op in the message (NULL: no message). */
static int
same_bytes(ct_dtype d, const char *got, const char *want, int64_t n, bool any_nan,
           const char *what)
{
    int64_t w = ct_k_itemsize(d);
    for (int64_t i = 0; i < n; i++) {
        if (any_nan && is_nan(d, got + i * w) && is_nan(d, want + i * w)) {
            continue;
        }
        if (memcmp(got + i * w, want + i * w, (size_t)w) != 0) {
            if (what == NULL) {
                return -1;
            }
            uint64_t g = 0, x = 0;
            memcpy(&g, got + i * w, (size_t)w);
            memcpy(&x, want + i * w, (size_t)w);
            fprintf(stderr, "%s, %s element %lld: 0x%llx, CPU 0x%llx\n", what,
                    ct_dtype_table[d].name, (long long)i, (unsigned long long)g,
                    (unsigned long long)x);
            return -1;
        }
    }
    return 0;
}

/* As same_bytes, but floating elements may also differ by one unit in the
 * last place (same sign, both finite): for exp and log, whose CPU loops are
 * SLEEF's as PyTorch's CPU (Note [exp and log as PyTorch's] in
 * aten/cpu/unary.c) and whose kernels the platform's as PyTorch's CUDA. */
static int
within_one_ulp(ct_dtype d, const char *got, const char *want, int64_t n, const char *what)
{
    int64_t w = ct_k_itemsize(d);
    for (int64_t i = 0; i < n; i++) {
        const char *g = got + i * w, *x = want + i * w;
        if (same_bytes(d, g, x, 1, true, NULL) == 0) {
            continue;
        }
        uint64_t gb = 0, xb = 0;
        memcpy(&gb, g, (size_t)w);
        memcpy(&xb, x, (size_t)w);
        uint64_t sign = (uint64_t)1 << (w * 8 - 1);
        double gv = ct_k_read(d, g).f, xv = ct_k_read(d, x).f;
        bool near = isfinite(gv) && isfinite(xv) && (gb & sign) == (xb & sign) &&
                    (gb > xb ? gb - xb : xb - gb) <= 1;
        if (!near) {
            return same_bytes(d, g, x, 1, true, what);
        }
    }
    return 0;
}

TEST_IMPL(cuda_kernel_casts)
{
    char got[N_AWKWARD * 8];
    for (int s = 0; s < N_NUMERIC; s++) {
        ct_tensor *src = ct_test_vec(numeric[s], N_AWKWARD, awkward);
        CT_ASSERT_OK(src);
        const char *sp = ct_tensor_data(src);
        int64_t sw = ct_k_itemsize(numeric[s]);
        for (int d = 0; d < N_NUMERIC; d++) {
            if (d == s) {
                continue;   /* same dtype: the kernels move bytes */
            }
            ct_tensor *r = ct_to_dtype(src, numeric[d], true);
            CT_ASSERT_OK(r);
            int64_t dw = ct_k_itemsize(numeric[d]);
            for (int64_t i = 0; i < N_AWKWARD; i++) {
                ct_k_cast(numeric[d], got + i * dw, numeric[s], sp + i * sw);
            }
            int rc = same_bytes(numeric[d], got, ct_tensor_data(r), N_AWKWARD, false,
                                ct_dtype_table[numeric[s]].name);
            ct_tensor_decref(r);
            CT_ASSERT_EQ_INT(rc, 0);
        }
        ct_tensor_decref(src);
    }
}

/* --- binary ops ------------------------------------------------------------------- */

/* Note: results are compared bit for bit except that any NaN matches any
 * NaN.  Which NaN operand x86 propagates depends on the operand order the
 * compiler picked for a commutative add or multiply (the CPU loops are
 * vectorized, this test is not), and a GPU returns its canonical NaN
 * instead; PyTorch promises neither sign nor payload. */

/* out = a op b by kernel_math.h, choosing the alpha form as the launcher
 * does (aten/cuda/binary.cu) */
static void
kernel_binary(ct_binary_op op, ct_dtype d, double falpha, int64_t ialpha,
              const char *pa, const char *pb, char *out)
{
    bool alpha = falpha != 1.0 || ialpha != 1;
    switch (d) {
#define ADD(S) (alpha ? ct_k_add_alpha_##S(a, b, al) : ct_k_add_##S(a, b))
#define SUB(S) (alpha ? ct_k_sub_alpha_##S(a, b, al) : ct_k_sub_##S(a, b))
#define X(E, T, S, A)                                                                 \
    case E: {                                                                         \
        A a = ct_k_load_##S(pa), b = ct_k_load_##S(pb);                               \
        A al = ct_k_scalar_##S(falpha, ialpha);                                       \
        ct_k_store_##S(out, op == CT_BINARY_ADD   ? ADD(S)                            \
                            : op == CT_BINARY_SUB ? SUB(S)                            \
                            : op == CT_BINARY_MUL ? ct_k_mul_##S(a, b)                \
                                                  : ct_k_div_##S(a, b));                \
        return;                                                                       \
    }
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                                 \
    case E: {                                                                         \
        A a = ct_k_load_##S(pa), b = ct_k_load_##S(pb);                               \
        A al = ct_k_scalar_##S(falpha, ialpha);                                       \
        ct_k_store_##S(out, op == CT_BINARY_ADD   ? ADD(S)                            \
                            : op == CT_BINARY_SUB ? SUB(S)                            \
                                                  : ct_k_mul_##S(a, b));                \
        return;                                                                       \
    }
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    case CT_DTYPE_BOOL: {
        bool a = ct_k_load_b8(pa), b = ct_k_load_b8(pb);
        bool al = ct_k_scalar_b8(falpha, ialpha);
        ct_k_store_b8(out, op == CT_BINARY_ADD ? ADD(b8) : ct_k_mul_b8(a, b));
        return;
    }
#undef ADD
#undef SUB
    default:
        return;
    }
}

static ct_tensor *
cpu_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b,
           ct_scalar alpha)
{
    switch (op) {
    case CT_BINARY_ADD:
        return ct_add(a, b, alpha);
    case CT_BINARY_SUB:
        return ct_sub(a, b, alpha);
    case CT_BINARY_MUL:
        return ct_mul(a, b);
    default:
        return ct_div(a, b);
    }
}

TEST_IMPL(cuda_kernel_binary)
{
    /* every pair of awkward values: a[i][j] = v[i], b[i][j] = v[j] */
    enum { N = N_AWKWARD };
    static double va[N * N], vb[N * N];
    static char got[N * N * 8];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            va[i * N + j] = awkward[i];
            vb[i * N + j] = awkward[j];
        }
    }
    const ct_scalar int_alphas[] = {ct_scalar_int(1), ct_scalar_int(2),
                                    ct_scalar_int(-3), ct_scalar_int(127),
                                    ct_scalar_int(0)};
    const ct_scalar float_alphas[] = {ct_scalar_float(1.0), ct_scalar_float(-1.5),
                                      ct_scalar_float(0.1), ct_scalar_float(1e-5),
                                      ct_scalar_int(3)};
    const ct_scalar bool_alphas[] = {ct_scalar_bool(true), ct_scalar_bool(false)};
    int64_t sizes[2] = {N, N};

    for (int s = 0; s < N_NUMERIC; s++) {
        ct_dtype d = numeric[s];
        bool floating = ct_dtype_is_floating(d), is_bool = d == CT_DTYPE_BOOL;
        const ct_scalar *alphas = floating  ? float_alphas
                                  : is_bool ? bool_alphas
                                            : int_alphas;
        int n_alphas = is_bool ? 2 : 5;
        int64_t w = ct_k_itemsize(d);
        ct_tensor *a = ct_test_tensor(d, 2, sizes, va);
        ct_tensor *b = ct_test_tensor(d, 2, sizes, vb);
        CT_ASSERT_OK(a);
        CT_ASSERT_OK(b);
        for (int op = CT_BINARY_ADD; op <= CT_BINARY_DIV; op++) {
            if ((op == CT_BINARY_SUB && is_bool) || (op == CT_BINARY_DIV && !floating)) {
                continue;   /* the CPU refuses or promotes: no kernel */
            }
            bool takes_alpha = op == CT_BINARY_ADD || op == CT_BINARY_SUB;
            for (int k = 0; k < (takes_alpha ? n_alphas : 1); k++) {
                ct_scalar alpha = alphas[k];
                ct_tensor *r = cpu_binary((ct_binary_op)op, a, b, alpha);
                if (r == NULL && k > 0) {
                    ct_error_clear();   /* alpha out of range for d (uint8's -3) */
                    continue;
                }
                CT_ASSERT_OK(r);
                CT_ASSERT_EQ_INT(r->dtype, d);
                /* the backend's two forms of alpha */
                double falpha = takes_alpha ? ct_scalar_to_double(alpha) : 1.0;
                int64_t ialpha = takes_alpha ? ct_scalar_to_int(alpha) : 1;
                for (int64_t i = 0; i < N * N; i++) {
                    kernel_binary((ct_binary_op)op, d, falpha, ialpha,
                                  ct_tensor_data(a) + i * w, ct_tensor_data(b) + i * w,
                                  got + i * w);
                }
                char what[64];
                snprintf(what, sizeof what, "op %d alpha %g", op, falpha);
                int rc = same_bytes(d, got, ct_tensor_data(r), N * N, true, what);
                ct_tensor_decref(r);
                CT_ASSERT_EQ_INT(rc, 0);
            }
        }
        ct_tensor_decref(b);
        ct_tensor_decref(a);
    }
}

/* --- fill values ------------------------------------------------------------------ */

/* The element bits a fill writes (aten/cuda/copy_fill.cu) against
 * ct_fill_ on the CPU, for int, float and bool scalars. */
TEST_IMPL(cuda_kernel_fill_values)
{
    for (int s = 0; s < N_NUMERIC; s++) {
        ct_dtype d = numeric[s];
        ct_tensor *t = ct_empty(1, (int64_t[]){1}, d, ct_device_cpu());
        CT_ASSERT_OK(t);
        for (int64_t i = 0; i < N_AWKWARD + 4; i++) {
            ct_scalar v = i < N_AWKWARD ? ct_scalar_float(awkward[i])
                          : i == N_AWKWARD ? ct_scalar_int(-129)
                          : i == N_AWKWARD + 1 ? ct_scalar_int(INT64_MAX)
                          : ct_scalar_bool(i == N_AWKWARD + 2);
            if (ct_fill_(t, v) < 0) {
                ct_error_clear();   /* out of range for d: the host refuses too */
                continue;
            }
            double fval = ct_scalar_to_double(v);
            int64_t ival = v.kind == CT_SCALAR_FLOAT ? ct_k_trunc_i64(v.v.d)
                                                     : ct_scalar_to_int(v);
            char got[8];
            switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        ct_k_store_##S(got, ct_k_scalar_##S(fval, ival));                             \
        break;
                CT_FORALL_NUMERIC_DTYPES(X)
#undef X
            default:
                break;
            }
            int rc = same_bytes(d, got, ct_tensor_data(t), 1, false, "fill");
            CT_ASSERT_EQ_INT(rc, 0);
        }
        ct_tensor_decref(t);
    }
}

/* --- the other binary ops ------------------------------------------------------- */

/* out = a op b for dtype d as the kernels compute it (binary.cu) */
static void
kernel_other_binary(ct_binary_op op, ct_dtype d, bool to_bool, const char *pa,
                    const char *pb, char *out)
{
    switch (ct_k_class_of(d)) {
#define X(K, C)                                                                       \
    case CT_K_CLASS_##K:                                                              \
        if (to_bool) {                                                                \
            ct_k_compare_elem_##C(d, op, out, pa, pb);                                \
        }                                                                             \
        else {                                                                        \
            ct_k_binary_elem_##C(d, op, out, pa, pb);                                 \
        }                                                                             \
        return;
        X(FLOAT, float) X(DOUBLE, double) X(I64, i64) X(B8, b8)
#undef X
    default:
        return;
    }
}

static const ct_result_kind binary_kinds[CT_BINARY_COUNT] = {
#define X(E, N, K) [E] = K,
    CT_FORALL_BINARY_OPS(X)
#undef X
};

/* Every binary op on every numeric dtype: where ct_cuda_supports says a
 * kernel exists the CPU must accept the op and agree bit for bit (any NaN
 * matching any NaN) over every pair of awkward values; where the CPU
 * raises, supports must say no. */
TEST_IMPL(cuda_kernel_binary_ops)
{
    enum { N = N_AWKWARD };
    static double va[N * N], vb[N * N];
    static char got[N * N * 8];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            va[i * N + j] = awkward[i];
            vb[i * N + j] = awkward[j];
        }
    }
    /* shift counts and small exponents too: every third row's second
     * operand runs over -3..70 */
    for (int i = 2; i < N; i += 3) {
        for (int j = 0; j < N; j++) {
            vb[i * N + j] = (i * N + j) % 74 - 3;
        }
    }
    int64_t sizes[2] = {N, N};
    int checked = 0;

    for (int s = 0; s < N_NUMERIC; s++) {
        ct_dtype d = numeric[s];
        int64_t w = ct_k_itemsize(d);
        ct_tensor *a = ct_test_tensor(d, 2, sizes, va);
        ct_tensor *b = ct_test_tensor(d, 2, sizes, vb);
        CT_ASSERT_OK(a);
        CT_ASSERT_OK(b);
        /* integer division-like ops: the divisors with 0 made 1 (the CPU
         * raises ZeroDivisionError, and the host refuses them before a
         * kernel runs) */
        ct_tensor *zero = ct_scalar_tensor(ct_scalar_int(0));
        ct_tensor *one = ct_scalar_tensor(ct_scalar_int(1));
        ct_tensor *isz = ct_binary(CT_BINARY_EQ, b, zero, ct_scalar_int(1), NULL, CT_OUT_NEW);
        ct_tensor *bnz = isz ? ct_where(isz, one, b) : NULL;
        ct_tensor *bnz_d = bnz ? ct_to_dtype(bnz, d, false) : NULL;
        ct_tensor_decref(bnz);
        ct_tensor_decref(isz);
        ct_tensor_decref(one);
        ct_tensor_decref(zero);
        CT_ASSERT_OK(bnz_d);
        for (int op = 0; op < CT_BINARY_COUNT; op++) {
            bool supported = ct_cuda_supports(CT_CUDA_BINARY, op, d);
            bool int_div = !ct_k_is_floating(d) &&
                           (op == CT_BINARY_FLOOR_DIVIDE || op == CT_BINARY_DIV_TRUNC ||
                            op == CT_BINARY_REMAINDER || op == CT_BINARY_FMOD);
            const ct_tensor *bo = int_div ? bnz_d : b;
            ct_tensor *r = ct_binary((ct_binary_op)op, a, bo, ct_scalar_int(1), NULL,
                                     CT_OUT_NEW);
            if (r == NULL) {
                if (supported) {
                    fprintf(stderr, "%s on %s: the CPU raises: %s\n", ct_binary_names[op],
                            ct_dtype_table[d].name, ct_error_message());
                }
                ct_error_clear();
                CT_ASSERT_TRUE(!supported);
                continue;
            }
            bool to_bool = binary_kinds[op] == CT_RESULT_BOOL;
            ct_dtype rdtype = to_bool ? CT_DTYPE_BOOL : d;
            if (!supported || op <= CT_BINARY_DIV || r->dtype != rdtype) {
                /* no kernel, one cuda_kernel_binary checks, or the CPU
                 * promoted the inputs (atan2 of integers): the host converts */
                CT_ASSERT_TRUE(!supported || op <= CT_BINARY_DIV);
                ct_tensor_decref(r);
                continue;
            }
            int64_t ow = to_bool ? 1 : w;
            for (int64_t i = 0; i < N * N; i++) {
                char *g = got + i * ow;
                const char *want = ct_tensor_data(r) + i * ow;
                kernel_other_binary((ct_binary_op)op, d, to_bool,
                                    ct_tensor_data(a) + i * w, ct_tensor_data(bo) + i * w,
                                    g);
                /* fmax / fmin of +0 and -0 may give either (C and IEEE leave
                 * it open; the CPU's loops differ by dtype, as CUDA may) */
                if ((op == CT_BINARY_FMAX || op == CT_BINARY_FMIN) &&
                    ct_k_is_floating(d) && ct_k_read(d, g).f == 0 &&
                    ct_k_read(d, want).f == 0) {
                    memcpy(g, want, (size_t)ow);
                }
            }
            int rc = same_bytes(r->dtype, got, ct_tensor_data(r), N * N, true,
                                ct_binary_names[op]);
            ct_tensor_decref(r);
            CT_ASSERT_EQ_INT(rc, 0);
            checked++;
        }
        ct_tensor_decref(bnz_d);
        ct_tensor_decref(b);
        ct_tensor_decref(a);
    }
    /* 9 comparisons x 10 dtypes, 10 float ops x 4, 14 integer ops x 5, 7 bool ops */
    CT_ASSERT_EQ_INT(checked, 90 + 40 + 70 + 7);
}

/* --- unary ops --------------------------------------------------------------------- */

/* the awkward values and some for the functions' domains and rounding */
static const double unary_vals[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 65504, 65520, -65536, 1e-8, 6e-8,
    255.7, 256, -1.5, -0.5, 0.5, 1, 127.5, -129, 1099511627777.0, 3e9, -3e9,
    2147483648.0, 9.3e18, -9223372036854775808.0, 1e20, 1e300, 0.1, 1.0 / 3, 2049,
    4097, -1, 2.5, 3.5, -2.5, 0.7, -0.7, 0.70001, 0.99, -0.999999, 1e-40, 5e-324,
    88.8, -100, 710, 20, -20, 1e-3, 3.14159, 1.5707963267948966, 100.5, -7,
};
#define N_UNARY ((int64_t)(sizeof unary_vals / sizeof unary_vals[0]))

/* out = op(a) for dtype d as the kernels compute it (unary.cu) */
static void
kernel_unary(ct_unary_op op, ct_dtype d, bool to_bool, const char *pa, char *out)
{
    switch (ct_k_class_of(d)) {
#define X(K, C)                                                                       \
    case CT_K_CLASS_##K:                                                              \
        if (to_bool) {                                                                \
            ct_k_unary_bool_elem_##C(d, op, out, pa);                                 \
        }                                                                             \
        else {                                                                        \
            ct_k_unary_elem_##C(d, op, out, pa);                                      \
        }                                                                             \
        return;
        X(FLOAT, float) X(DOUBLE, double) X(I64, i64) X(B8, b8)
#undef X
    default:
        return;
    }
}

static const ct_unary_kind unary_kinds[CT_UNARY_COUNT] = {
#define X(E, N, K) [E] = K,
    CT_FORALL_UNARY_OPS(X)
#undef X
};

/* Every unary op on every numeric dtype, as cuda_kernel_binary_ops. */
TEST_IMPL(cuda_kernel_unary_ops)
{
    static char got[N_UNARY * 8];
    int checked = 0;
    for (int s = 0; s < N_NUMERIC; s++) {
        ct_dtype d = numeric[s];
        int64_t w = ct_k_itemsize(d);
        ct_tensor *t = ct_test_vec(d, N_UNARY, unary_vals);
        CT_ASSERT_OK(t);
        for (int op = 0; op < CT_UNARY_COUNT; op++) {
            bool supported = ct_cuda_supports(CT_CUDA_UNARY, op, d);
            ct_tensor *r = ct_unary((ct_unary_op)op, t, NULL, CT_OUT_NEW);
            if (r == NULL) {
                if (supported) {
                    fprintf(stderr, "%s on %s: the CPU raises: %s\n", ct_unary_names[op],
                            ct_dtype_table[d].name, ct_error_message());
                }
                ct_error_clear();
                CT_ASSERT_TRUE(!supported);
                continue;
            }
            bool to_bool = unary_kinds[op] == CT_UNARY_BOOL;
            if (!supported) {
                ct_tensor_decref(r);   /* the host converts first (sqrt of int) */
                continue;
            }
            CT_ASSERT_EQ_INT(r->dtype, to_bool ? CT_DTYPE_BOOL : d);
            int64_t ow = to_bool ? 1 : w;
            for (int64_t i = 0; i < N_UNARY; i++) {
                kernel_unary((ct_unary_op)op, d, to_bool, ct_tensor_data(t) + i * w,
                             got + i * ow);
            }
            int rc = (op == CT_UNARY_EXP || op == CT_UNARY_LOG) && ct_k_is_floating(d)
                         ? within_one_ulp(r->dtype, got, ct_tensor_data(r), N_UNARY,
                                          ct_unary_names[op])
                         : same_bytes(r->dtype, got, ct_tensor_data(r), N_UNARY, true,
                                      ct_unary_names[op]);
            ct_tensor_decref(r);
            CT_ASSERT_EQ_INT(rc, 0);
            checked++;
        }
        ct_tensor_decref(t);
    }
    /* 40 x 4 floating (35 + 5 to-bool), 15 x 5 integer, 7 bool */
    CT_ASSERT_EQ_INT(checked, 160 + 75 + 7);
}

/* --- reductions ------------------------------------------------------------------- */

/* op over the r elements at in (dtype in_d, contiguous) into out (dtype
 * out_d) in reduce.cu's order: lanes fold strided positions, then merge
 * pairwise */
static void
emulate_reduce(ct_cuda_reduce_op op, ct_dtype in_d, const char *in, int64_t r,
               ct_dtype out_d, char *out)
{
    ct_k_acc_kind kind = ct_k_reduce_kind(op, in_d, out_d);
    int lanes = ct_k_reduce_lanes(r);
    int64_t w = ct_k_itemsize(in_d);
    ct_k_rstate st[256];
    for (int l = 0; l < lanes; l++) {
        st[l] = ct_k_reduce_init(op);
        for (int64_t j = l; j < r; j += lanes) {
            st[l] = ct_k_reduce_step(op, kind, st[l], ct_k_read(in_d, in + j * w), j);
        }
    }
    for (int h = lanes / 2; h > 0; h /= 2) {
        for (int l = 0; l < h; l++) {
            st[l] = ct_k_reduce_merge(op, kind, st[l], st[l + h]);
        }
    }
    ct_k_reduce_write(op, kind, out_d, out, st[0]);
}

/* The CPU's reduction of t's last dim (t is [m, r]), or NULL with its error. */
static ct_tensor *
cpu_reduce(ct_cuda_reduce_op op, const ct_tensor *t)
{
    const int64_t dim[1] = {1};
    switch (op) {
    case CT_CUDA_REDUCE_SUM:
        return ct_sum(t, 1, dim, false, CT_DTYPE_COUNT);
    case CT_CUDA_REDUCE_PROD:
        return ct_prod(t, dim, false, CT_DTYPE_COUNT);
    case CT_CUDA_REDUCE_AMAX:
        return ct_amax(t, 1, dim, false);
    case CT_CUDA_REDUCE_AMIN:
        return ct_amin(t, 1, dim, false);
    case CT_CUDA_REDUCE_ARGMAX:
        return ct_argmax(t, dim, false);
    case CT_CUDA_REDUCE_ARGMIN:
        return ct_argmin(t, dim, false);
    case CT_CUDA_REDUCE_ANY:
        return ct_any(t, 1, dim, false);
    default:
        return ct_all(t, 1, dim, false);
    }
}

/* pseudo-random values of row k: awkward ones, ties, NaNs in some rows */
static double
reduce_val(uint64_t *seed, int row, bool small)
{
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    uint32_t x = (uint32_t)(*seed >> 33);
    if (small) {
        return (double)((int)(x % 7) - 3);   /* sums and products stay exact */
    }
    if (row % 4 == 1 && x % 97 == 0) {
        return NAN;
    }
    if (row % 4 == 2) {
        return (x % 3 == 0) ? -0.0 : (x % 3 == 1) ? 0.0 : 5.0;   /* ties, signed zeros */
    }
    if (x % 5 == 0) {
        return awkward[x % N_AWKWARD];
    }
    return ((double)x / 4294967296.0 - 0.5) * 200.0;
}

/* Every reduction of every numeric dtype over rows of 0, 1, 7, 33, 100 and
 * 3000 elements (every lane count): max / min / arg / any / all and
 * integer sums and products bit for bit against the CPU; floating sums and
 * products exactly where every partial result is exact, else within a
 * bound of float or double rounding over the row. */
TEST_IMPL(cuda_kernel_reduce)
{
    const int64_t lens[] = {0, 1, 7, 33, 100, 3000};
    enum { M = 8 };
    static double vals[M * 3000];
    static char got[M * 8];
    uint64_t seed = 12345;

    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t r = lens[li], sizes[2] = {M, r};
        for (int pass = 0; pass < 2; pass++) {
            bool small = pass == 0;
            for (int i = 0; i < M; i++) {
                for (int64_t j = 0; j < r; j++) {
                    vals[i * r + j] = reduce_val(&seed, i, small);
                }
            }
            for (int s = 0; s < N_NUMERIC; s++) {
                ct_dtype d = numeric[s];
                ct_tensor *t = ct_test_tensor(d, 2, sizes, vals);
                CT_ASSERT_OK(t);
                for (int op = 0; op < CT_CUDA_REDUCE_COUNT; op++) {
                    bool supported = ct_cuda_supports(CT_CUDA_REDUCE, op, d);
                    ct_tensor *c = cpu_reduce((ct_cuda_reduce_op)op, t);
                    if (c == NULL) {
                        ct_error_clear();
                        /* empty max / min: the host refuses, not a dtype matter */
                        CT_ASSERT_TRUE(!supported || r == 0);
                        continue;
                    }
                    if (!supported) {
                        ct_tensor_decref(c);
                        continue;
                    }
                    int64_t ow = ct_k_itemsize(c->dtype);
                    for (int i = 0; i < M; i++) {
                        emulate_reduce((ct_cuda_reduce_op)op, d,
                                       ct_tensor_data(t) + i * r * ct_k_itemsize(d), r,
                                       c->dtype, got + i * ow);
                    }
                    bool fl_acc = ct_dtype_is_floating(c->dtype) &&
                                  (op == CT_CUDA_REDUCE_SUM || op == CT_CUDA_REDUCE_PROD);
                    char what[64];
                    snprintf(what, sizeof what, "reduce op %d over %lld", op,
                             (long long)r);
                    if (!fl_acc || small) {
                        /* small: integers of at most 3000 * 3 or 3^k, exact
                         * in float until a product overflows bf16 / half
                         * ranges, which both sides then round the same way */
                        int rc = same_bytes(c->dtype, got, ct_tensor_data(c), M,
                                            true, what);
                        if (rc != 0 && fl_acc && op == CT_CUDA_REDUCE_PROD) {
                            rc = 0;   /* products of many: not exact, checked below */
                        }
                        else if (rc != 0) {
                            ct_tensor_decref(c);
                            ct_tensor_decref(t);
                            CT_ASSERT_EQ_INT(rc, 0);
                        }
                    }
                    if (fl_acc) {
                        /* against a double reference, within r roundings */
                        double eps = c->dtype == CT_DTYPE_FLOAT64 ? 0x1p-52
                                     : c->dtype == CT_DTYPE_FLOAT32 ? 0x1p-23
                                     : c->dtype == CT_DTYPE_FLOAT16 ? 0x1p-10 : 0x1p-7;
                        for (int i = 0; i < M; i++) {
                            ct_k_value gv = ct_k_read(c->dtype, got + i * ow);
                            const char *want = ct_tensor_data(c) + i * ow;
                            ct_k_value cv = ct_k_read(c->dtype, want);
                            double ref = op == CT_CUDA_REDUCE_SUM ? 0 : 1, mag = 0;
                            /* bounds of any partial product, in any order */
                            double big = 1, tiny = 1;
                            for (int64_t j = 0; j < r; j++) {
                                int64_t at = (i * r + j) * ct_k_itemsize(d);
                                ct_k_value v = ct_k_read(d, ct_tensor_data(t) + at);
                                double x = v.from_float ? v.f : (double)v.i;
                                ref = op == CT_CUDA_REDUCE_SUM ? ref + x : ref * x;
                                mag += fabs(x);
                                big *= fabs(x) > 1 ? fabs(x) : 1;
                                tiny *= fabs(x) < 1 && x != 0 ? fabs(x) : 1;
                            }
                            double tol = op == CT_CUDA_REDUCE_SUM
                                             ? (double)(r + 1) * eps * mag
                                             : (double)(r + 1) * eps * fabs(ref);
                            /* a float-accumulated product may overflow or
                             * underflow where the CPU's double one does not
                             * (PyTorch's CUDA prod accumulates so too) */
                            bool in_range = op == CT_CUDA_REDUCE_SUM ||
                                            (c->dtype == CT_DTYPE_FLOAT64
                                                 ? big < 1e300 && tiny > 1e-300
                                                 : big < 1e38 && tiny > 1e-37);
                            if (isfinite(ref) && fabs(ref) < 1e30 && isfinite(cv.f) &&
                                in_range) {
                                CT_ASSERT_NEAR(gv.f, ref, tol);
                                CT_ASSERT_NEAR(cv.f, ref, tol);
                            }
                            else if (isnan(ref)) {
                                CT_ASSERT_TRUE(isnan(gv.f));
                            }
                        }
                    }
                    ct_tensor_decref(c);
                }
                ct_tensor_decref(t);
            }
        }
    }
}

/* supports for the reductions and GEMM against the CPU's refusals */
TEST_IMPL(cuda_kernel_supports)
{
    int64_t sizes[2] = {2, 3};
    const double v[6] = {1, 2, 3, 4, 5, 6};
    for (int s = 0; s < N_NUMERIC; s++) {
        ct_dtype d = numeric[s];
        ct_tensor *t = ct_test_tensor(d, 2, sizes, v);
        CT_ASSERT_OK(t);
        for (int op = 0; op < CT_CUDA_REDUCE_COUNT; op++) {
            ct_tensor *c = cpu_reduce((ct_cuda_reduce_op)op, t);
            if (c == NULL) {
                ct_error_clear();
            }
            CT_ASSERT_EQ_INT(ct_cuda_supports(CT_CUDA_REDUCE, op, d), c != NULL);
            ct_tensor_decref(c);
        }
        CT_ASSERT_EQ_INT(ct_cuda_supports(CT_CUDA_GEMM, 0, d), ct_dtype_is_floating(d));
        ct_tensor_decref(t);
    }
    /* no kernel for quantized dtypes or ops past the lists */
    const ct_cuda_family fams[3] = {CT_CUDA_UNARY, CT_CUDA_BINARY, CT_CUDA_REDUCE};
    for (int f = 0; f < 3; f++) {
        CT_ASSERT_TRUE(!ct_cuda_supports(fams[f], 0, CT_DTYPE_QINT8));
        CT_ASSERT_TRUE(!ct_cuda_supports(fams[f], -1, CT_DTYPE_FLOAT32));
        CT_ASSERT_TRUE(!ct_cuda_supports(fams[f], 1000, CT_DTYPE_FLOAT32));
    }
    CT_ASSERT_TRUE(!ct_cuda_supports(CT_CUDA_GEMM, 0, CT_DTYPE_QUINT8));
}
