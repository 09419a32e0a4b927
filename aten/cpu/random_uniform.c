/* aten/cpu/random_uniform.c -- uniform_ and rand (specs/rng.md section 2).
 *
 * Each element is fma(U, to - from, from) in the dtype's compute type,
 * with U the dtype's unit uniform and from/to first rounded to the dtype:
 * the fused multiply-add is what PyTorch's AVX2 build computes (one
 * rounding, not two).  One 32-bit draw per element, two for float64.
 */
#include "aten/device.h"
#include "aten/random_impl.h"

typedef struct {
    double from, to;
} uniform_ctx;

/* from, to and their difference as the dtype holds them, then one fma per
 * element; the clone for FMA CPUs lets the compiler vectorize the loop. */
#define X(E, T, S, A)                                                         \
    static inline A uniform_lo_##S(const uniform_ctx *c)                      \
    {                                                                         \
        T lo = ct__##S##_from_f64(c->from);                                   \
        return ct__load_##S(&lo);                                             \
    }                                                                         \
    static inline A uniform_w_##S(const uniform_ctx *c)                       \
    {                                                                         \
        T lo = ct__##S##_from_f64(c->from), hi = ct__##S##_from_f64(c->to), w; \
        ct__store_##S(&w, ct__load_##S(&hi) - ct__load_##S(&lo));             \
        return ct__load_##S(&w);                                              \
    }                                                                         \
    __attribute__((target_clones("arch=x86-64-v3", "default")))                 \
    CT__DRAW_LOOP(uniform_##S, T, S, CT__DRAW_##S, uniform_ctx,               \
                  CT__FMA(CT__UNIT_##S(r), uniform_w_##S(cx), uniform_lo_##S(cx)))
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const ct__draw_fn uniform_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = uniform_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

int
ct_uniform_(ct_tensor *t, double from, double to, ct_generator *gen)
{
    if (ct__check_floating(t, "check_uniform_bounds") < 0) {
        return -1;
    }
    double max = ct__floating_max(t->dtype);
    const char *tn = ct__cpp_type_name(t->dtype);
    if (!(from >= -max && from <= max)) {
        return ct_error(CT_ERR_RUNTIME, "from is out of bounds for %s", tn);
    }
    if (!(to >= -max && to <= max)) {
        return ct_error(CT_ERR_RUNTIME, "to is out of bounds for %s", tn);
    }
    if (!(from <= to)) {
        return ct_error(CT_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, "
                        "but found from=%g > to=%g", from, to);
    }
    if (!(to - from <= max)) {
        return ct_error(CT_ERR_RUNTIME, "uniform_ expects to-from <= std::numeric_limits<"
                        "%s>::max(), but found to=%g and from=%g which result in to-from "
                        "to exceed the limit", ct_dtype_table[t->dtype].legacy, to, from);
    }
    if (ct__is_device(t)) {
        return ct__device_random(t, gen, CT_CUDA_RANDOM_UNIFORM, from, to, 0, 0);
    }
    uniform_ctx cx = {from, to};
    return ct__draw_into(t, gen, uniform_loops, "uniform_kernel_cpu", &cx);
}

ct_tensor *
ct_rand(int ndim, const int64_t *sizes, ct_dtype dtype, ct_generator *gen)
{
    ct_tensor *t = ct_empty(ndim, sizes, dtype, ct_device_cpu());
    if (t != NULL && ct_uniform_(t, 0, 1, gen) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}
