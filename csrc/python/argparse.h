/* csrc/python/argparse.h -- the signature-driven argument parser.
 *
 * A method declares its torch-style signature once:
 *     static ctpy_sig sig = CTPY_SIG("add(TensorN other, *, Scalar alpha=1, "
 *                                    "Tensor? out=None)");
 * and calls ctpy_parse(&sig, args, nargs, kwnames, vals) from a
 * METH_FASTCALL | METH_KEYWORDS function.  The text is parsed on first use
 * and the keyword names interned (NumPy's npy_parse_arguments idea); each
 * call then only matches objects.  vals[i] holds parameter i.  Tensors in
 * vals are BORROWED from the arguments, except numbers wrapped for a
 * `TensorN` parameter, which ctpy_release() drops.
 *
 * Types: Tensor, TensorN (a tensor, or a number as a 0-dim tensor), Scalar,
 * int, float, bool, ScalarType (torch.dtype), Device, Generator
 * (torch.Generator, kept in `obj`), int[] (a sequence of
 * ints, one int, or -- for the first parameter -- all positional ints,
 * as in zeros(2, 3)), object, str.  `?` admits None; `*` starts keyword-only
 * parameters.
 */
#ifndef CTORCH_ARGPARSE_H
#define CTORCH_ARGPARSE_H

#include "ctpy.h"

#define CTPY_MAX_PARAMS 12

typedef enum {
    CTPY_TENSOR,
    CTPY_TENSOR_NUM,
    CTPY_SCALAR,
    CTPY_INT,
    CTPY_FLOAT,
    CTPY_BOOL,
    CTPY_DTYPE,
    CTPY_DEVICE,
    CTPY_GENERATOR,
    CTPY_INTLIST,
    CTPY_OBJECT,
    CTPY_STRING,
} ctpy_argtype;

typedef struct {
    ctpy_argtype type;
    bool optional;
    bool kwonly;
    bool has_default;
    char name[32];
    char defval[32];
    PyObject *pyname;           /* interned, owned for the process */
} ctpy_param;

typedef struct {
    const char *text;
    char fname[48];
    int nparams;
    int npositional;
    bool ready;
    ctpy_param params[CTPY_MAX_PARAMS];
} ctpy_sig;

#define CTPY_SIG(s) {.text = (s)}

typedef struct ctpy_arg_s {
    bool given;                 /* passed by the caller (not defaulted) */
    bool is_none;               /* None (given or default) */
    ct_tensor *t;
    bool owned;
    ct_scalar s;
    int64_t i;
    double d;
    bool b;
    ct_dtype dtype;
    ct_device device;
    int n;
    int64_t list[CT_MAX_DIMS];
    PyObject *obj;
} ctpy_arg;

/* 0, or -1 with TypeError (torch's wording). */
int ctpy_parse(ctpy_sig *sig, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames, ctpy_arg *vals);
/* Try several overloads in order; returns the index that matched, or -1
 * with a TypeError listing them all. */
int ctpy_parse_overloads(ctpy_sig **sigs, int nsigs, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames, ctpy_arg *vals);
/* The TypeError of ctpy_parse_overloads when no overload matches (for a
 * binding that rejects a match by its own rule); returns -1. */
int ctpy_overload_error(ctpy_sig **sigs, int nsigs, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames);
void ctpy_release(ctpy_sig *sig, ctpy_arg *vals);

/* Converters, usable on their own. */
int ctpy_to_dtype(PyObject *o, ct_dtype *out);
int ctpy_to_device(PyObject *o, ct_device *out);
/* A sequence of ints (or one int) into list; -1 with TypeError. */
int ctpy_to_intlist(PyObject *o, int *n, int64_t *list, const char *fname,
                    const char *argname);
int ctpy_to_int64(PyObject *o, int64_t *out);
/* A Python int as int64; -1 with torch's RuntimeError on overflow. */
int ctpy_long_to_int64(PyObject *o, int64_t *out);

/* torch.memory_format values (the objects live in ctorch/_layouts.py). */
typedef enum {
    CTPY_MEMFMT_PRESERVE,
    CTPY_MEMFMT_CONTIGUOUS,
    CTPY_MEMFMT_CHANNELS_LAST,
} ctpy_memfmt;

/* o (a torch.memory_format, or None for `dflt`) as a ctpy_memfmt; -1 with
 * TypeError naming fname's memory_format argument otherwise. */
int ctpy_to_memory_format(PyObject *o, ctpy_memfmt dflt, const char *fname,
                          ctpy_memfmt *out);
/* Strides for a new tensor shaped like t in format f: preserve keeps t's
 * strides when t is non-overlapping and dense; channels_last needs 4 dims
 * (-1 with torch's RuntimeError otherwise). */
int ctpy_memfmt_strides(ctpy_memfmt f, const ct_tensor *t, int64_t *strides);
/* torch's is_contiguous(memory_format=torch.channels_last). */
bool ctpy_is_channels_last(const ct_tensor *t);

#endif
