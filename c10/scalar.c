/* c10/scalar.c -- checked conversion of a Python-like number to a dtype. */
#include <math.h>

#include <ctorch/error.h>
#include <ctorch/scalar.h>
#include <ctorch/tensor.h>

/* The C++ type names PyTorch's messages use, and each type's range. */
static const struct {
    const char *name;
    double lo, hi;
} limits[CT_DTYPE_COUNT] = {
    [CT_DTYPE_UINT8] = {"uint8_t", 0, 255},
    [CT_DTYPE_INT8] = {"int8_t", -128, 127},
    [CT_DTYPE_INT16] = {"int16_t", -32768, 32767},
    [CT_DTYPE_INT32] = {"int", -2147483648.0, 2147483647.0},
    [CT_DTYPE_INT64] = {"int64_t", -9223372036854775808.0, 9223372036854775807.0},
    [CT_DTYPE_FLOAT16] = {"at::Half", -65504.0, 65504.0},
    [CT_DTYPE_FLOAT32] = {"float", -3.4028234663852886e38, 3.4028234663852886e38},
    [CT_DTYPE_FLOAT64] = {"double", -1.7976931348623157e308, 1.7976931348623157e308},
    [CT_DTYPE_BOOL] = {"bool", 0, 1},
    [CT_DTYPE_BFLOAT16] = {"c10::BFloat16", -3.3895313892515355e38, 3.3895313892515355e38},
};

/* c10's checked_convert: bool sources and bool targets never overflow;
 * infinities fit floating types; NaN fits only floating types; unsigned
 * targets accept negative integers that wrap (uint8 takes -255..255). */
int
ct_scalar_check(ct_scalar s, int dtype)
{
    ct_dtype d = (ct_dtype)dtype;
    if (s.kind == CT_SCALAR_BOOL || d == CT_DTYPE_BOOL ||
        ct_dtype_table[d].is_quantized) {
        return 0;
    }
    bool floating = ct_dtype_is_floating(d);
    bool bad;
    if (s.kind == CT_SCALAR_INT) {
        int64_t v = s.v.i;
        if (floating || d == CT_DTYPE_INT64) {
            bad = false;
        }
        else if (d == CT_DTYPE_UINT8) {
            bad = v > 255 || v < -255;
        }
        else {
            bad = (double)v < limits[d].lo || (double)v > limits[d].hi;
        }
    }
    else {
        double v = s.v.d;
        if (isinf(v)) {
            bad = !floating;
        }
        else if (isnan(v)) {
            bad = !floating;
        }
        else {
            bad = v < limits[d].lo || v > limits[d].hi ||
                  (d == CT_DTYPE_INT64 && v >= 9223372036854775808.0);
        }
    }
    if (bad) {
        return ct_error(CT_ERR_RUNTIME, "value cannot be converted to type %s "
                        "without overflow", limits[d].name);
    }
    return 0;
}
