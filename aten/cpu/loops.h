/* aten/cpu/loops.h -- stamps for typed 1-D loops (see aten/iter.h).
 *
 * CT_BINARY_LOOP(name, T, S, A, expr) defines `static int name(...)`, a
 * loop computing out = expr over a and b, which are the inputs loaded as
 * the compute type A (c10/convert.h's ct__load_S).  `cx` names the op's
 * context inside expr.  Contiguous operands and a broadcast scalar operand
 * get their own plain-indexed branches so the compiler vectorizes them
 * (NumPy's *_LOOP_FAST idea).
 */
#ifndef CTORCH_ATEN_CPU_LOOPS_H
#define CTORCH_ATEN_CPU_LOOPS_H

#include "aten/iter.h"
#include "c10/convert.h"

/* CT_UNARY_LOOP(name, T, S, A, expr): out = expr over a (loaded as A). */
#define CT_UNARY_LOOP(name, T, S, A, expr)                                    \
    static int name(char **data, const int64_t *st, int64_t n, void *ctx)     \
    {                                                                         \
        (void)ctx;                                                            \
        T *o = (T *)data[0];                                                  \
        const T *pa = (const T *)data[1];                                     \
        const int64_t z = (int64_t)sizeof(T);                                 \
        if (st[0] == z && st[1] == z) {                                       \
            for (int64_t i = 0; i < n; i++) {                                 \
                A a = ct__load_##S(pa + i);                                   \
                ct__store_##S(o + i, (expr));                                 \
            }                                                                 \
        }                                                                     \
        else {                                                                \
            for (int64_t i = 0; i < n; i++) {                                 \
                A a = ct__load_##S((const T *)(data[1] + i * st[1]));         \
                ct__store_##S((T *)(data[0] + i * st[0]), (expr));            \
            }                                                                 \
        }                                                                     \
        return 0;                                                             \
    }

/* CT_UNARY_LOOP_TO_BOOL(name, T, S, A, expr): bool out = expr over a. */
#define CT_UNARY_LOOP_TO_BOOL(name, T, S, A, expr)                            \
    static int name(char **data, const int64_t *st, int64_t n, void *ctx)     \
    {                                                                         \
        (void)ctx;                                                            \
        for (int64_t i = 0; i < n; i++) {                                     \
            A a = ct__load_##S((const T *)(data[1] + i * st[1]));             \
            *(bool *)(data[0] + i * st[0]) = (expr);                          \
        }                                                                     \
        return 0;                                                             \
    }

/* CT_BINARY_LOOP_TO_BOOL(name, T, S, A, expr): bool out = expr(a, b). */
#define CT_BINARY_LOOP_TO_BOOL(name, T, S, A, expr)                           \
    static int name(char **data, const int64_t *st, int64_t n, void *ctx)     \
    {                                                                         \
        (void)ctx;                                                            \
        const int64_t z = (int64_t)sizeof(T);                                 \
        if (st[0] == 1 && st[1] == z && st[2] == 0) {  /* t < scalar */       \
            bool *o = (bool *)data[0];                                        \
            const T *pa = (const T *)data[1];                                 \
            A b = ct__load_##S((const T *)data[2]);                           \
            for (int64_t i = 0; i < n; i++) {                                 \
                A a = ct__load_##S(pa + i);                                   \
                o[i] = (expr);                                                \
            }                                                                 \
            return 0;                                                         \
        }                                                                     \
        if (st[0] == 1 && st[1] == z && st[2] == z) {                         \
            bool *o = (bool *)data[0];                                        \
            const T *pa = (const T *)data[1], *pb = (const T *)data[2];       \
            for (int64_t i = 0; i < n; i++) {                                 \
                A a = ct__load_##S(pa + i), b = ct__load_##S(pb + i);         \
                o[i] = (expr);                                                \
            }                                                                 \
            return 0;                                                         \
        }                                                                     \
        for (int64_t i = 0; i < n; i++) {                                     \
            A a = ct__load_##S((const T *)(data[1] + i * st[1]));             \
            A b = ct__load_##S((const T *)(data[2] + i * st[2]));             \
            *(bool *)(data[0] + i * st[0]) = (expr);                          \
        }                                                                     \
        return 0;                                                             \
    }

/* CT_BINARY_LOOP_NONZERO(name, T, S, A, expr): like CT_BINARY_LOOP for
 * integer division-like ops: a zero divisor is PyTorch's RuntimeError
 * "ZeroDivisionError". */
#define CT_BINARY_LOOP_NONZERO(name, T, S, A, expr)                           \
    static int name(char **data, const int64_t *st, int64_t n, void *ctx)     \
    {                                                                         \
        (void)ctx;                                                            \
        for (int64_t i = 0; i < n; i++) {                                     \
            A a = ct__load_##S((const T *)(data[1] + i * st[1]));             \
            A b = ct__load_##S((const T *)(data[2] + i * st[2]));             \
            if (b == 0) {                                                     \
                return ct_error(CT_ERR_RUNTIME, "ZeroDivisionError");         \
            }                                                                 \
            ct__store_##S((T *)(data[0] + i * st[0]), (expr));                \
        }                                                                     \
        return 0;                                                             \
    }

#define CT_BINARY_LOOP(name, T, S, A, CTX, expr)                              \
    static int name(char **data, const int64_t *st, int64_t n, void *ctx)     \
    {                                                                         \
        const CTX *cx = ctx;                                                  \
        (void)cx;                                                             \
        T *o = (T *)data[0];                                                  \
        const T *pa = (const T *)data[1], *pb = (const T *)data[2];           \
        const int64_t z = (int64_t)sizeof(T);                                 \
        if (st[0] == z && st[1] == z && st[2] == z) {                         \
            for (int64_t i = 0; i < n; i++) {                                 \
                A a = ct__load_##S(pa + i), b = ct__load_##S(pb + i);          \
                ct__store_##S(o + i, (expr));                                 \
            }                                                                 \
        }                                                                     \
        else if (st[0] == z && st[1] == z && st[2] == 0) {                    \
            A b = ct__load_##S(pb);                                           \
            for (int64_t i = 0; i < n; i++) {                                 \
                A a = ct__load_##S(pa + i);                                   \
                ct__store_##S(o + i, (expr));                                 \
            }                                                                 \
        }                                                                     \
        else if (st[0] == z && st[1] == 0 && st[2] == z) {                    \
            A a = ct__load_##S(pa);                                           \
            for (int64_t i = 0; i < n; i++) {                                 \
                A b = ct__load_##S(pb + i);                                   \
                ct__store_##S(o + i, (expr));                                 \
            }                                                                 \
        }                                                                     \
        else {                                                                \
            for (int64_t i = 0; i < n; i++) {                                 \
                A a = ct__load_##S((const T *)(data[1] + i * st[1]));         \
                A b = ct__load_##S((const T *)(data[2] + i * st[2]));         \
                ct__store_##S((T *)(data[0] + i * st[0]), (expr));            \
            }                                                                 \
        }                                                                     \
        return 0;                                                             \
    }

#endif
