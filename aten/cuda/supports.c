/* aten/cuda/supports.c -- which device kernels exist (c10/cuda/backend.h).
 * Plain C, compiled into every CUDA part (the real one and the tests'
 * pretend one), so the host refuses exactly what the kernels lack.  The
 * pointwise answers come from aten/cuda/op_groups.h, the lists the kernels'
 * switches are stamped from. */
#include "c10/cuda/backend.h"

#include "aten/cuda/op_groups.h"

typedef enum { GROUP_FLOAT, GROUP_INT, GROUP_BOOL, GROUP_NONE } dtype_group;

static dtype_group
group_of(ct_dtype dtype)
{
    switch (dtype) {
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return GROUP_FLOAT;
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return GROUP_INT;
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    case CT_DTYPE_BOOL:
        return GROUP_BOOL;
    default:
        return GROUP_NONE;
    }
}

#define BINARY_CASE(OP, op, A) case CT_BINARY_##OP:
#define UNARY_CASE(OP, op, A) case CT_UNARY_##OP:

static bool
binary_supported(ct_binary_op op, dtype_group g)
{
    if (op == CT_BINARY_ADD || op == CT_BINARY_MUL) {
        return true;
    }
    if (op == CT_BINARY_SUB) {
        return g != GROUP_BOOL;
    }
    if (op == CT_BINARY_DIV) {
        return g == GROUP_FLOAT;
    }
    switch (op) {
        CT_CUDA_COMPARE_OPS(BINARY_CASE, _)
        return true;
    default:
        break;
    }
    if (g == GROUP_FLOAT) {
        switch (op) {
            CT_CUDA_FLOAT_BINARY_OPS(BINARY_CASE, _)
            return true;
        default:
            return false;
        }
    }
    if (g == GROUP_INT) {
        switch (op) {
            CT_CUDA_INT_BINARY_OPS(BINARY_CASE, _)
            return true;
        default:
            return false;
        }
    }
    switch (op) {
        CT_CUDA_BOOL_BINARY_OPS(BINARY_CASE, _)
        return true;
    default:
        return false;
    }
}

static bool
unary_supported(ct_unary_op op, dtype_group g)
{
    switch (op) {
        CT_CUDA_TO_BOOL_UNARY_OPS(UNARY_CASE, _)
        return true;
    default:
        break;
    }
    if (g == GROUP_FLOAT) {
        switch (op) {
            CT_CUDA_FLOAT_UNARY_OPS(UNARY_CASE, _)
            return true;
        default:
            return false;
        }
    }
    if (g == GROUP_INT) {
        switch (op) {
            CT_CUDA_INT_UNARY_OPS(UNARY_CASE, _)
            return true;
        default:
            return false;
        }
    }
    switch (op) {
        CT_CUDA_BOOL_UNARY_OPS(UNARY_CASE, _)
        return true;
    default:
        return false;
    }
}

/* Every reduction of every numeric dtype, less what PyTorch 1.13's CPU
 * lacks too (aten/cpu/reduce.c): prod of float16 and bfloat16, argmax
 * and argmin of bool. */
static bool
reduce_supported(ct_cuda_reduce_op op, ct_dtype dtype)
{
    bool half = dtype == CT_DTYPE_FLOAT16 || dtype == CT_DTYPE_BFLOAT16;
    switch (op) {
    case CT_CUDA_REDUCE_PROD:
        return !half;
    case CT_CUDA_REDUCE_ARGMAX:
    case CT_CUDA_REDUCE_ARGMIN:
        return dtype != CT_DTYPE_BOOL;
    default:
        return true;
    }
}

bool
ct_cuda_supports(ct_cuda_family family, int op, ct_dtype dtype)
{
    dtype_group g = group_of(dtype);
    if (g == GROUP_NONE) {
        return false;
    }
    switch (family) {
    case CT_CUDA_UNARY:
        return op >= 0 && op < CT_UNARY_COUNT && unary_supported((ct_unary_op)op, g);
    case CT_CUDA_BINARY:
        return op >= 0 && op < CT_BINARY_COUNT && binary_supported((ct_binary_op)op, g);
    case CT_CUDA_REDUCE:
        return op >= 0 && op < CT_CUDA_REDUCE_COUNT &&
               reduce_supported((ct_cuda_reduce_op)op, dtype);
    case CT_CUDA_GEMM:
        return dtype == CT_DTYPE_FLOAT16 || dtype == CT_DTYPE_BFLOAT16 ||
               dtype == CT_DTYPE_FLOAT32 || dtype == CT_DTYPE_FLOAT64;
    default:
        return false;
    }
}
