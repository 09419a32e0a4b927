/* ctorch/scalar.h -- a Python-like number (bool, int or float), by value. */
#ifndef CTORCH_SCALAR_H
#define CTORCH_SCALAR_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { CT_SCALAR_BOOL, CT_SCALAR_INT, CT_SCALAR_FLOAT } ct_scalar_kind;

typedef struct {
    ct_scalar_kind kind;
    union {
        bool b;
        int64_t i;
        double d;
    } v;
} ct_scalar;

static inline ct_scalar
ct_scalar_int(int64_t i)
{
    ct_scalar s;
    s.kind = CT_SCALAR_INT;
    s.v.i = i;
    return s;
}

static inline ct_scalar
ct_scalar_float(double d)
{
    ct_scalar s;
    s.kind = CT_SCALAR_FLOAT;
    s.v.d = d;
    return s;
}

static inline ct_scalar
ct_scalar_bool(bool b)
{
    ct_scalar s;
    s.kind = CT_SCALAR_BOOL;
    s.v.b = b;
    return s;
}

static inline double
ct_scalar_to_double(ct_scalar s)
{
    return s.kind == CT_SCALAR_FLOAT ? s.v.d
           : s.kind == CT_SCALAR_INT ? (double)s.v.i : (double)s.v.b;
}

static inline int64_t
ct_scalar_to_int(ct_scalar s)
{
    return s.kind == CT_SCALAR_FLOAT ? (int64_t)s.v.d
           : s.kind == CT_SCALAR_INT ? s.v.i : (int64_t)s.v.b;
}

/* 0 when s fits dtype d (an enum ct_dtype value) by PyTorch's rules, else
 * -1 with "value cannot be converted to type ... without overflow". */
int ct_scalar_check(ct_scalar s, int d);

#endif
