/* aten/cpu/pointwise_ternary.c -- addcmul and addcdiv (self op value * t1
 * op t2): one expression per op and dtype, one driver for the promotion,
 * broadcasting and out= rules; aten/iter.c runs the loops.
 *
 * Note [addcmul rounding]: PyTorch's AVX2 kernels compute
 * `self + value * t1 * t2`, which GCC contracts into fma(value * t1, t2,
 * self) in both the vector and the scalar (tail, strided) loops; addcdiv's
 * `self + value * t1 / t2` has nothing to contract.  bfloat16 computes in
 * float and rounds once.  The optimizers' trajectories depend on this, so
 * the loops say it explicitly (the build uses -ffp-contract=off).
 */
#include "aten/device.h"
#include <math.h>
#include <string.h>

#include "aten/cpu/loops.h"

/* value converted once to every compute type */
typedef struct {
#define X(E, T, S, A) A S;
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
} value_ctx;

#define FMA(x, y, z) _Generic((x), float: fmaf, default: fma)((x), (y), (z))

/* The loops are built twice: for x86-64-v3 (AVX2 + FMA), where fma is one
 * instruction and the loops vectorize, and for any x86-64, where fma is
 * glibc's (exact either way, so results do not depend on the CPU). */
#if defined(__x86_64__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

/* TERNARY_LOOP(name, T, S, A, expr): out = expr over s (self), a (t1) and
 * b (t2), loaded as A, with v the value; contiguous operands get a
 * plain-indexed branch the compiler can vectorize. */
#define TERNARY_LOOP(name, T, S, A, expr)                                     \
    CLONES static int name(char **data, const int64_t *st, int64_t n,         \
                           void *ctx)                                         \
    {                                                                         \
        const A v = ((const value_ctx *)ctx)->S;                              \
        const int64_t z = (int64_t)sizeof(T);                                 \
        if (st[0] == z && st[1] == z && st[2] == z && st[3] == z) {           \
            T *o = (T *)data[0];                                              \
            const T *ps = (const T *)data[1], *pa = (const T *)data[2];       \
            const T *pb = (const T *)data[3];                                 \
            for (int64_t i = 0; i < n; i++) {                                 \
                A s = ct__load_##S(ps + i), a = ct__load_##S(pa + i);         \
                A b = ct__load_##S(pb + i);                                   \
                ct__store_##S(o + i, (expr));                                 \
            }                                                                 \
            return 0;                                                         \
        }                                                                     \
        for (int64_t i = 0; i < n; i++) {                                     \
            A s = ct__load_##S((const T *)(data[1] + i * st[1]));             \
            A a = ct__load_##S((const T *)(data[2] + i * st[2]));             \
            A b = ct__load_##S((const T *)(data[3] + i * st[3]));             \
            ct__store_##S((T *)(data[0] + i * st[0]), (expr));                \
        }                                                                     \
        return 0;                                                             \
    }

/* integers wrap like PyTorch's (the build has -fwrapv) */
#define X(E, T, S, A) TERNARY_LOOP(addcmul_##S, T, S, A, (A)(s + v * a * b))
CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
/* Note [addcmul rounding] */
TERNARY_LOOP(addcmul_f32, float, f32, float, FMA(v * a, b, s))
TERNARY_LOOP(addcmul_f64, double, f64, double, FMA(v * a, b, s))
TERNARY_LOOP(addcmul_bf16, ct_bfloat16, bf16, float, FMA(v * a, b, s))
TERNARY_LOOP(addcdiv_f32, float, f32, float, s + v * a / b)
TERNARY_LOOP(addcdiv_f64, double, f64, double, s + v * a / b)
TERNARY_LOOP(addcdiv_bf16, ct_bfloat16, bf16, float, s + v * a / b)

/* float16 has neither on PyTorch 1.13's CPU */
static const ct_loop addcmul_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = addcmul_##S,
    CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    [CT_DTYPE_FLOAT32] = addcmul_f32,
    [CT_DTYPE_FLOAT64] = addcmul_f64,
    [CT_DTYPE_BFLOAT16] = addcmul_bf16,
};

static const ct_loop addcdiv_loops[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT32] = addcdiv_f32,
    [CT_DTYPE_FLOAT64] = addcdiv_f64,
    [CT_DTYPE_BFLOAT16] = addcdiv_bf16,
};

static void
fill_value(value_ctx *c, ct_scalar value)
{
#define X(E, T, S, A)                                    \
    {                                                    \
        T w = CT_FROM_SCALAR(S, value);                  \
        c->S = ct__load_##S(&w);                         \
    }
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    /* bfloat16 computes with value as a float, not rounded to bfloat16 */
    c->bf16 = (float)ct_scalar_to_double(value);
}

/* An input in the common dtype; when out is that input and is about to be
 * resized, a view with its present geometry (the resize cannot change). */
static ct_tensor *
input_operand(const ct_tensor *t, ct_dtype common, const ct_tensor *out, bool resizing)
{
    if (t->dtype != common) {
        return ct_to_dtype(t, common, true);
    }
    if (t == out && resizing) {
        return ct_tensor_new(t->storage, t->offset, t->ndim, t->sizes, t->strides,
                             t->dtype);
    }
    ct_tensor_incref((ct_tensor *)t);
    return (ct_tensor *)t;
}

/* On a device: self + value * t1 * t2 (or / t2) from the device's binary
 * kernels, in the order the CPU's expression rounds (value * t1 first);
 * operands already in the common dtype.  Half and bfloat16 round after
 * each step, where the CPU rounds once.  A new reference. */
static ct_tensor *
device_ternary(bool div, const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
               ct_scalar value)
{
    ct_tensor *v = ct_scalar_tensor(value);
    ct_tensor *vt = v != NULL ? ct_binary(CT_BINARY_MUL, t1, v, ct_scalar_int(1), NULL,
                                          CT_OUT_NEW) : NULL;
    ct_tensor *q = vt != NULL ? ct_binary(div ? CT_BINARY_DIV : CT_BINARY_MUL, vt, t2,
                                          ct_scalar_int(1), NULL, CT_OUT_NEW) : NULL;
    ct_tensor *r = q != NULL ? ct_add(self, q, ct_scalar_int(1)) : NULL;
    ct_tensor *c = r != NULL ? ct_to_dtype(r, self->dtype, false) : NULL;
    ct_tensor_decref(v);
    ct_tensor_decref(vt);
    ct_tensor_decref(q);
    ct_tensor_decref(r);
    return c;
}

/* The driver of both ops: promote, broadcast, check out=, run `loops`.
 * Returns a new reference (out itself when given). */
static ct_tensor *
ternary(const char *name, const ct_loop *loops, const ct_tensor *self,
        const ct_tensor *t1, const ct_tensor *t2, ct_scalar value, ct_tensor *out,
        ct_out_mode mode)
{
    const ct_tensor *ins[3] = {self, t1, t2};
    ct_tensor *ops[4] = {NULL, NULL, NULL, NULL};
    ct_tensor *res = NULL;
    ct_dtype common;
    int n1, ndim;
    int64_t s1[CT_MAX_DIMS], shape[CT_MAX_DIMS];
    value_ctx vctx;
    ct_device dev;

    if (ct__op_device(4, 1, (const ct_tensor *const[]){out, self, t1, t2}, &dev) < 0 ||
        ct_result_type_n(3, ins, &common) < 0 ||
        ct_broadcast_shapes(self->ndim, self->sizes, t1->ndim, t1->sizes, &n1, s1) <
            0 ||
        ct_broadcast_shapes(n1, s1, t2->ndim, t2->sizes, &ndim, shape) < 0) {
        return NULL;
    }
    if (out != NULL && !ct_dtype_can_cast(common, out->dtype)) {
        ct_error(CT_ERR_RUNTIME, "result type %s can't be cast to the desired output "
                 "type %s", ct_dtype_table[common].legacy,
                 ct_dtype_table[out->dtype].legacy);
        return NULL;
    }
    if (loops[common] == NULL) {
        ct_error(CT_ERR_RUNTIME, "\"%s_cpu_out\" not implemented for '%s'", name,
                 ct_dtype_table[common].legacy);
        return NULL;
    }
    if (ct_scalar_check(value, common) < 0) {
        return NULL;
    }
    if (out != NULL && (ct_iter_check_overlap(out, self) < 0 ||
                        ct_iter_check_overlap(out, t1) < 0 ||
                        ct_iter_check_overlap(out, t2) < 0)) {
        return NULL;
    }
    bool resizing = out != NULL &&
                    (out->ndim != ndim ||
                     memcmp(out->sizes, shape, sizeof(int64_t) * (size_t)ndim) != 0);
    for (int i = 0; i < 3; i++) {
        if ((ops[i + 1] = input_operand(ins[i], common, out, resizing)) == NULL) {
            goto done;
        }
    }
    const ct_tensor *const *inputs = (const ct_tensor *const *)ops + 1;
    if (out != NULL && ct_iter_check_out(out, mode, ndim, shape, 3, inputs) < 0) {
        goto done;
    }
    if (dev.type != CT_DEVICE_CPU) {
        res = device_ternary(loops == addcdiv_loops, ops[1], ops[2], ops[3], value);
        if (res != NULL && out != NULL) {
            /* (the inputs were taken before out= was resized) */
            int rc = ct_copy_(out, res);
            ct_tensor_decref(res);
            res = rc < 0 ? NULL : out;
            if (res != NULL) {
                ct_tensor_incref(out);
            }
        }
        goto done;
    }
    if (out != NULL && out->dtype == common) {
        ct_tensor_incref(out);
        res = out;
    }
    else if ((res = ct_iter_new_output(3, inputs, ndim, shape, common)) == NULL) {
        goto done;
    }
    fill_value(&vctx, value);
    ops[0] = res;
    if (ct_iter_run(4, ops, loops[common], &vctx) < 0) {
        goto fail;
    }
    if (out != NULL && res != out) {
        /* computed in the common dtype, written out in out's */
        if (ct_copy_(out, res) < 0) {
            goto fail;
        }
        ct_tensor_decref(res);
        ct_tensor_incref(out);
        res = out;
    }
    goto done;
fail:
    ct_tensor_decref(res);
    res = NULL;
done:
    for (int i = 1; i < 4; i++) {
        ct_tensor_decref(ops[i]);
    }
    return res;
}

ct_tensor *
ct_addcmul(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
           ct_scalar value, ct_tensor *out, ct_out_mode mode)
{
    return ternary("addcmul", addcmul_loops, self, t1, t2, value, out, mode);
}

ct_tensor *
ct_addcdiv(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
           ct_scalar value, ct_tensor *out, ct_out_mode mode)
{
    if (ct_dtype_is_integral(t1->dtype, true) &&
        ct_dtype_is_integral(t2->dtype, true)) {
        ct_error(CT_ERR_RUNTIME,
                 "Integer division with addcdiv is no longer supported, and in a "
                 "future  release addcdiv will perform a true division of tensor1 and "
                 "tensor2. The historic addcdiv behavior can be implemented as (input "
                 "+ value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                 "integer inputs and as (input + value * tensor1 / tensor2) for float "
                 "inputs. The future addcdiv behavior is just the latter "
                 "implementation: (input + value * tensor1 / tensor2), for all "
                 "dtypes.");
        return NULL;
    }
    return ternary("addcdiv", addcdiv_loops, self, t1, t2, value, out, mode);
}
