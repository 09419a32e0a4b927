/* tests/c/test_cuda_kernel_math.c -- the CUDA kernels' scalar math
 * (aten/cuda/kernel_math.h) run on the host against ctorch's CPU results,
 * bit for bit: element offsets of packed views against a naive unravel,
 * half and bfloat16 rounding against include/ctorch/dtype.h, every
 * dtype-to-dtype cast against ct_to_dtype, and add / sub / mul / div
 * against ct_add / ct_sub / ct_mul / ct_div.  No GPU is needed; the same
 * functions are what nvcc compiles into the kernels. */
#include "tests/c/test.h"

#include "aten/cuda/kernel_math.h"

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
 * two NaNs match whatever their sign and payload (see cuda_kernel_binary) */
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
kernel_binary(ct_cuda_binary_op op, ct_dtype d, double falpha, int64_t ialpha,
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
        ct_k_store_##S(out, op == CT_CUDA_ADD   ? ADD(S)                              \
                            : op == CT_CUDA_SUB ? SUB(S)                              \
                            : op == CT_CUDA_MUL ? ct_k_mul_##S(a, b)                  \
                                                : ct_k_div_##S(a, b));                \
        return;                                                                       \
    }
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                                 \
    case E: {                                                                         \
        A a = ct_k_load_##S(pa), b = ct_k_load_##S(pb);                               \
        A al = ct_k_scalar_##S(falpha, ialpha);                                       \
        ct_k_store_##S(out, op == CT_CUDA_ADD   ? ADD(S)                              \
                            : op == CT_CUDA_SUB ? SUB(S)                              \
                                                : ct_k_mul_##S(a, b));                \
        return;                                                                       \
    }
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    case CT_DTYPE_BOOL: {
        bool a = ct_k_load_b8(pa), b = ct_k_load_b8(pb);
        bool al = ct_k_scalar_b8(falpha, ialpha);
        ct_k_store_b8(out, op == CT_CUDA_ADD ? ADD(b8) : ct_k_mul_b8(a, b));
        return;
    }
#undef ADD
#undef SUB
    default:
        return;
    }
}

static ct_tensor *
cpu_binary(ct_cuda_binary_op op, const ct_tensor *a, const ct_tensor *b,
           ct_scalar alpha)
{
    switch (op) {
    case CT_CUDA_ADD:
        return ct_add(a, b, alpha);
    case CT_CUDA_SUB:
        return ct_sub(a, b, alpha);
    case CT_CUDA_MUL:
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
        for (int op = CT_CUDA_ADD; op <= CT_CUDA_DIV; op++) {
            if ((op == CT_CUDA_SUB && is_bool) || (op == CT_CUDA_DIV && !floating)) {
                continue;   /* the CPU refuses or promotes: no kernel */
            }
            bool takes_alpha = op == CT_CUDA_ADD || op == CT_CUDA_SUB;
            for (int k = 0; k < (takes_alpha ? n_alphas : 1); k++) {
                ct_scalar alpha = alphas[k];
                ct_tensor *r = cpu_binary((ct_cuda_binary_op)op, a, b, alpha);
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
                    kernel_binary((ct_cuda_binary_op)op, d, falpha, ialpha,
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
