/* csrc/python/argparse.c -- see argparse.h. */
#include "argparse.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *text;
    ctpy_argtype type;
    const char *pretty;          /* as torch names it in messages */
} type_names[] = {
    {"Tensor", CTPY_TENSOR, "Tensor"},
    {"TensorN", CTPY_TENSOR_NUM, "Tensor"},
    {"Scalar", CTPY_SCALAR, "Number"},
    {"Number", CTPY_SCALAR, "Number"},
    {"int", CTPY_INT, "int"},
    {"float", CTPY_FLOAT, "float"},
    {"bool", CTPY_BOOL, "bool"},
    {"ScalarType", CTPY_DTYPE, "torch.dtype"},
    {"Device", CTPY_DEVICE, "torch.device"},
    {"Generator", CTPY_GENERATOR, "torch.Generator"},
    {"int[]", CTPY_INTLIST, "tuple of ints"},
    {"object", CTPY_OBJECT, "object"},
    {"str", CTPY_STRING, "str"},
};

static const char *
pretty_type(ctpy_argtype t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        if (type_names[i].type == t) {
            return type_names[i].pretty;
        }
    }
    return "object";
}

/* Parse "name(Type a, Type? b=def, *, Type c=def)" once. */
static int
sig_prepare(ctpy_sig *sig)
{
    const char *p = sig->text, *open = strchr(p, '(');
    bool kwonly = false;

    CT_ASSERT(open != NULL && (size_t)(open - p) < sizeof sig->fname);
    memcpy(sig->fname, p, (size_t)(open - p));
    sig->fname[open - p] = '\0';
    p = open + 1;
    sig->nparams = 0;
    sig->npositional = 0;
    while (*p && *p != ')') {
        char tok[96];
        size_t len = strcspn(p, ",)");
        CT_ASSERT(len < sizeof tok);
        memcpy(tok, p, len);
        tok[len] = '\0';
        p += len;
        if (*p == ',') {
            p++;
        }
        while (*p == ' ') {
            p++;
        }
        char *t = tok;
        while (*t == ' ') {
            t++;
        }
        if (strcmp(t, "*") == 0) {
            kwonly = true;
            continue;
        }
        CT_ASSERT(sig->nparams < CTPY_MAX_PARAMS);
        ctpy_param *pa = &sig->params[sig->nparams++];
        memset(pa, 0, sizeof *pa);
        char *space = strchr(t, ' ');
        CT_ASSERT(space != NULL);
        *space = '\0';
        size_t tl = strlen(t);
        if (t[tl - 1] == '?') {
            pa->optional = true;
            t[tl - 1] = '\0';
        }
        bool found = false;
        for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
            if (strcmp(t, type_names[i].text) == 0) {
                pa->type = type_names[i].type;
                found = true;
            }
        }
        CT_ASSERT(found);
        char *name = space + 1, *eq = strchr(name, '=');
        if (eq != NULL) {
            *eq = '\0';
            pa->has_default = true;
            snprintf(pa->defval, sizeof pa->defval, "%s", eq + 1);
            if (strcmp(pa->defval, "None") == 0) {
                pa->optional = true;
            }
        }
        snprintf(pa->name, sizeof pa->name, "%s", name);
        pa->kwonly = kwonly;
        if (!kwonly) {
            sig->npositional++;
        }
        pa->pyname = PyUnicode_InternFromString(pa->name);
        if (pa->pyname == NULL) {
            return -1;
        }
    }
    sig->ready = true;
    return 0;
}

int
ctpy_long_to_int64(PyObject *o, int64_t *out)
{
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
        return -1;
    }
    *out = v;
    return v == -1 && PyErr_Occurred() ? -1 : 0;
}

int
ctpy_to_int64(PyObject *o, int64_t *out)
{
    if (PyLong_CheckExact(o)) {
        return ctpy_long_to_int64(o, out);
    }
    if (PyFloat_Check(o) || PyBool_Check(o)) {
        return 1;               /* not an int for our purposes */
    }
    if (ctpy_is_tensor(o)) {
        ct_tensor *t = ctpy_tensor(o);
        if (t->numel != 1 || !ct_dtype_is_integral(t->dtype, false)) {
            return 1;
        }
        *out = ct_tensor_item_at(t, 0).v.i;
        return 0;
    }
    if (PyIndex_Check(o)) {
        PyObject *i = PyNumber_Index(o);
        if (i == NULL) {
            PyErr_Clear();
            return 1;
        }
        int rc = ctpy_to_int64(i, out);
        Py_DECREF(i);
        return rc;
    }
    return 1;
}

int
ctpy_to_dtype(PyObject *o, ct_dtype *out)
{
    if (Py_IS_TYPE(o, &CtDtype_Type)) {
        *out = ((CtDtypeObject *)o)->dtype;
        return 0;
    }
    if (o == (PyObject *)&PyFloat_Type) {
        *out = CT_DTYPE_FLOAT64;
        return 0;
    }
    if (o == (PyObject *)&PyLong_Type) {
        *out = CT_DTYPE_INT64;
        return 0;
    }
    if (o == (PyObject *)&PyBool_Type) {
        *out = CT_DTYPE_BOOL;
        return 0;
    }
    return 1;
}

int
ctpy_to_device(PyObject *o, ct_device *out)
{
    if (Py_IS_TYPE(o, &CtDevice_Type)) {
        *out = ((CtDeviceObject *)o)->device;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (s == NULL || ct_device_parse(s, out) < 0) {
            return s == NULL ? -1 : ctpy_raise_int();
        }
        return 0;
    }
    int64_t idx;
    if (ctpy_is_tensor(o)) {
        return 1;
    }
    int rc = ctpy_to_int64(o, &idx);
    if (rc < 0) {
        return -1;
    }
    if (rc == 0) {
        if (idx < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Device index must not be negative");
            return -1;
        }
        out->type = CT_DEVICE_CUDA;
        out->index = (int)idx;
        return 0;
    }
    return 1;
}

int
ctpy_to_intlist(PyObject *o, int *n, int64_t *list, const char *fname,
                const char *argname)
{
    int64_t v;
    int rc = ctpy_to_int64(o, &v);
    if (rc <= 0) {
        if (rc == 0) {
            *n = 1;
            list[0] = v;
        }
        return rc;
    }
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        return 1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(o);
    if (len > CT_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "tensors may have at most %d dimensions, "
                     "got %zd", CT_MAX_DIMS, len);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < len; i++) {
        rc = ctpy_to_int64(items[i], &list[i]);
        if (rc != 0) {
            if (rc > 0) {
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be tuple "
                             "of ints, but found element of type %s at pos %zd",
                             fname, argname, Py_TYPE(items[i])->tp_name, i + 1);
            }
            return -1;
        }
    }
    *n = (int)len;
    return 0;
}

/* Convert o for parameter pa into v.  0 ok, 1 type mismatch (no
 * exception), -1 exception set. */
static int
convert(const ctpy_sig *sig, const ctpy_param *pa, PyObject *o, ctpy_arg *v)
{
    v->given = true;
    v->obj = o;
    if (o == Py_None) {
        if (!pa->optional) {
            /* a plain `object` takes None as a value (torch.tensor(None)
             * fails later, in dtype inference, as in torch) */
            return pa->type == CTPY_OBJECT ? 0 : 1;
        }
        v->is_none = true;
        return 0;
    }
    switch (pa->type) {
    case CTPY_TENSOR:
        if (!ctpy_is_tensor(o)) {
            return 1;
        }
        v->t = ctpy_tensor(o);
        return 0;
    case CTPY_TENSOR_NUM:
        if (ctpy_is_tensor(o)) {
            v->t = ctpy_tensor(o);
            return 0;
        }
        {
            ct_scalar s;
            int rc = ctpy_to_scalar(o, &s);
            if (rc != 0) {
                return rc;
            }
            v->t = ct_scalar_tensor(s);
            if (v->t == NULL) {
                return ctpy_raise_int();
            }
            v->owned = true;
            return 0;
        }
    case CTPY_SCALAR:
        if (ctpy_is_tensor(o)) {
            if (ctpy_tensor(o)->numel != 1) {
                return 1;
            }
            v->s = ct_tensor_item_at(ctpy_tensor(o), 0);
            return 0;
        }
        return ctpy_to_scalar(o, &v->s);
    case CTPY_INT:
        return ctpy_to_int64(o, &v->i);
    case CTPY_FLOAT:
        if (PyFloat_Check(o)) {
            v->d = PyFloat_AS_DOUBLE(o);
            return 0;
        }
        {
            int64_t i;
            int rc = ctpy_to_int64(o, &i);
            if (rc == 0) {
                v->d = (double)i;
                return 0;
            }
            if (rc < 0) {
                return rc;
            }
            if (PyNumber_Check(o) && !PyBool_Check(o) && !ctpy_is_tensor(o)) {
                v->d = PyFloat_AsDouble(o);
                return v->d == -1.0 && PyErr_Occurred() ? -1 : 0;
            }
            return 1;
        }
    case CTPY_BOOL:
        if (!PyBool_Check(o)) {
            return 1;
        }
        v->b = o == Py_True;
        return 0;
    case CTPY_DTYPE:
        return ctpy_to_dtype(o, &v->dtype);
    case CTPY_DEVICE:
        return ctpy_to_device(o, &v->device);
    case CTPY_GENERATOR:
        return PyObject_TypeCheck(o, &CtGenerator_Type) ? 0 : 1;
    case CTPY_INTLIST:
        return ctpy_to_intlist(o, &v->n, v->list, sig->fname, pa->name);
    case CTPY_STRING:
        return PyUnicode_Check(o) ? 0 : 1;
    case CTPY_OBJECT:
        return 0;
    }
    return 1;
}

static int
apply_default(const ctpy_param *pa, ctpy_arg *v)
{
    const char *d = pa->defval;
    v->given = false;
    v->obj = NULL;
    if (strcmp(d, "None") == 0) {
        v->is_none = true;
        return 0;
    }
    switch (pa->type) {
    case CTPY_SCALAR:
        v->s = strchr(d, '.') ? ct_scalar_float(atof(d)) : ct_scalar_int(atoll(d));
        break;
    case CTPY_INT:
        v->i = atoll(d);
        break;
    case CTPY_FLOAT:
        v->d = atof(d);
        break;
    case CTPY_BOOL:
        v->b = strcmp(d, "True") == 0;
        break;
    case CTPY_INTLIST:
        v->n = 0;           /* only "[]" defaults are used */
        break;
    default:
        v->is_none = true;
        break;
    }
    return 0;
}

static void
release_vals(const ctpy_sig *sig, ctpy_arg *vals)
{
    for (int i = 0; i < sig->nparams; i++) {
        if (vals[i].owned) {
            ct_tensor_decref(vals[i].t);
            vals[i].owned = false;
        }
    }
}

/* The parse proper; `loud` decides whether a mismatch raises. */
static int
parse(ctpy_sig *sig, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
      ctpy_arg *vals, bool loud)
{
    bool filled[CTPY_MAX_PARAMS] = {false};
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int rc;

    if (!sig->ready && sig_prepare(sig) < 0) {
        return -1;
    }
    memset(vals, 0, sizeof(ctpy_arg) * (size_t)sig->nparams);

    /* zeros(2, 3): an int[] that is the only positional parameter takes all
     * positional ints (torch's allow_varargs_intlist) */
    if (sig->nparams > 0 && sig->params[0].type == CTPY_INTLIST && nargs >= 1 &&
        !sig->params[0].kwonly && sig->npositional == 1) {
        int64_t first;
        int r = ctpy_to_int64(args[0], &first);
        if (r < 0) {
            return -1;
        }
        if (r == 0) {
            ctpy_arg *v = &vals[0];
            v->given = true;
            v->obj = args[0];
            if (nargs > CT_MAX_DIMS) {
                PyErr_Format(PyExc_RuntimeError, "tensors may have at most %d "
                             "dimensions, got %zd", CT_MAX_DIMS, nargs);
                return -1;
            }
            for (Py_ssize_t i = 0; i < nargs; i++) {
                r = ctpy_to_int64(args[i], &v->list[i]);
                if (r != 0) {
                    if (r > 0 && loud) {
                        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be "
                                     "tuple of ints, but found element of type %s at "
                                     "pos %zd", sig->fname, sig->params[0].name,
                                     Py_TYPE(args[i])->tp_name, i + 1);
                        return -1;
                    }
                    return r < 0 ? -1 : 1;
                }
            }
            v->n = (int)nargs;
            filled[0] = true;
            args += nargs;
            nargs = 0;
        }
    }
    if (nargs > sig->npositional) {
        if (loud) {
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but "
                         "%zd were given", sig->fname, sig->npositional,
                         sig->npositional == 1 ? "" : "s", nargs);
        }
        return loud ? -1 : 1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        rc = convert(sig, &sig->params[i], args[i], &vals[i]);
        if (rc != 0) {
            if (rc > 0 && loud) {
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %zd) "
                             "must be %s, not %s", sig->fname, sig->params[i].name,
                             i + 1, pretty_type(sig->params[i].type),
                             Py_TYPE(args[i])->tp_name);
            }
            release_vals(sig, vals);
            return rc > 0 && !loud ? 1 : -1;
        }
        filled[i] = true;
    }
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int idx = -1;
        for (int i = 0; i < sig->nparams; i++) {
            if (key == sig->params[i].pyname) {
                idx = i;
                break;
            }
        }
        if (idx < 0) {
            for (int i = 0; i < sig->nparams; i++) {
                if (PyUnicode_Compare(key, sig->params[i].pyname) == 0) {
                    idx = i;
                    break;
                }
            }
        }
        if (idx < 0 || filled[idx]) {
            if (loud) {
                if (idx < 0) {
                    PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword "
                                 "argument '%U'", sig->fname, key);
                }
                else {
                    PyErr_Format(PyExc_TypeError, "%s() got multiple values for "
                                 "argument '%U'", sig->fname, key);
                }
            }
            release_vals(sig, vals);
            return loud ? -1 : 1;
        }
        rc = convert(sig, &sig->params[idx], args[nargs + k], &vals[idx]);
        if (rc != 0) {
            if (rc > 0 && loud) {
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, "
                             "not %s", sig->fname, sig->params[idx].name,
                             pretty_type(sig->params[idx].type),
                             Py_TYPE(args[nargs + k])->tp_name);
            }
            release_vals(sig, vals);
            return rc > 0 && !loud ? 1 : -1;
        }
        filled[idx] = true;
    }
    for (int i = 0; i < sig->nparams; i++) {
        if (filled[i]) {
            continue;
        }
        if (!sig->params[i].has_default) {
            if (loud) {
                PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional "
                             "arguments: \"%s\"", sig->fname, sig->params[i].name);
            }
            release_vals(sig, vals);
            return loud ? -1 : 1;
        }
        apply_default(&sig->params[i], &vals[i]);
    }
    return 0;
}

int
ctpy_parse(ctpy_sig *sig, PyObject *const *args, Py_ssize_t nargs,
           PyObject *kwnames, ctpy_arg *vals)
{
    return parse(sig, args, nargs, kwnames, vals, true);
}

int
ctpy_parse_overloads(ctpy_sig **sigs, int nsigs, PyObject *const *args,
                     Py_ssize_t nargs, PyObject *kwnames, ctpy_arg *vals)
{
    for (int i = 0; i < nsigs; i++) {
        int rc = parse(sigs[i], args, nargs, kwnames, vals, false);
        if (rc <= 0) {
            return rc < 0 ? -1 : i;
        }
    }
    return ctpy_overload_error(sigs, nsigs, args, nargs, kwnames);
}

int
ctpy_overload_error(ctpy_sig **sigs, int nsigs, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames)
{
    /* torch's message: what was given, and every signature */
    PyObject *got = PyUnicode_FromString("");
    for (Py_ssize_t i = 0; got && i < nargs; i++) {
        PyObject *n = PyUnicode_FromFormat("%U%s%s", got, i ? ", " : "",
                                           Py_TYPE(args[i])->tp_name);
        Py_SETREF(got, n);
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; got && k < nkw; k++) {
        PyObject *n = PyUnicode_FromFormat(
            "%U%s%U=%s", got, (nargs || k) ? ", " : "", PyTuple_GET_ITEM(kwnames, k),
            Py_TYPE(args[nargs + k])->tp_name);
        Py_SETREF(got, n);
    }
    PyObject *expected = PyUnicode_FromString("");
    for (int i = 0; expected && i < nsigs; i++) {
        const char *paren = strchr(sigs[i]->text, '(');
        PyObject *n = PyUnicode_FromFormat("%U\n * %s", expected, paren);
        Py_SETREF(expected, n);
    }
    if (got && expected) {
        PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of "
                     "arguments - got (%U), but expected one of:%U\n",
                     sigs[0]->fname, got, expected);
    }
    Py_XDECREF(got);
    Py_XDECREF(expected);
    return -1;
}

void
ctpy_release(ctpy_sig *sig, ctpy_arg *vals)
{
    release_vals(sig, vals);
}

/* --- memory formats -------------------------------------------------------- */
int
ctpy_to_memory_format(PyObject *o, ctpy_memfmt dflt, const char *fname,
                      ctpy_memfmt *out)
{
    static const struct {
        const char *name;
        ctpy_memfmt fmt;
    } names[] = {
        {"preserve_format", CTPY_MEMFMT_PRESERVE},
        {"contiguous_format", CTPY_MEMFMT_CONTIGUOUS},
        {"channels_last", CTPY_MEMFMT_CHANNELS_LAST},
    };

    if (o == NULL || o == Py_None) {
        *out = dflt;
        return 0;
    }
    if (strcmp(Py_TYPE(o)->tp_name, "memory_format") == 0) {
        PyObject *name = PyObject_GetAttrString(o, "_name");
        const char *s = name != NULL ? PyUnicode_AsUTF8(name) : NULL;
        for (size_t i = 0; s != NULL && i < sizeof names / sizeof names[0]; i++) {
            if (strcmp(s, names[i].name) == 0) {
                Py_DECREF(name);
                *out = names[i].fmt;
                return 0;
            }
        }
        Py_XDECREF(name);
        if (PyErr_Occurred()) {
            return -1;
        }
    }
    /* ctorch/_layouts.py's classes print as torch's (torch.layout) */
    const char *tn = Py_TYPE(o)->tp_name;
    bool ours = strcmp(tn, "layout") == 0 || strcmp(tn, "memory_format") == 0 ||
                strcmp(tn, "qscheme") == 0;
    PyErr_Format(PyExc_TypeError, "%s(): argument 'memory_format' must be "
                 "torch.memory_format, not %s%s", fname, ours ? "torch." : "", tn);
    return -1;
}

bool
ctpy_is_channels_last(const ct_tensor *t)
{
    static const int order[4] = {1, 3, 2, 0};
    int64_t expected = 1;
    if (t->ndim != 4) {
        return false;
    }
    for (int i = 0; i < 4; i++) {
        int d = order[i];
        if (t->sizes[d] != 1) {
            if (t->strides[d] != expected) {
                return false;
            }
            expected *= t->sizes[d];
        }
    }
    return true;
}

int
ctpy_memfmt_strides(ctpy_memfmt f, const ct_tensor *t, int64_t *strides)
{
    switch (f) {
    case CTPY_MEMFMT_PRESERVE:
        if (ct_tensor_is_non_overlapping_and_dense(t)) {
            memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
            return 0;
        }
        break;
    case CTPY_MEMFMT_CHANNELS_LAST: {
        if (t->ndim != 4) {
            PyErr_SetString(PyExc_RuntimeError, "required rank 4 tensor to use "
                            "channels_last format");
            return -1;
        }
        const int64_t *s = t->sizes;
        strides[1] = 1;
        strides[3] = s[1] > 1 ? s[1] : 1;
        strides[2] = strides[3] * (s[3] > 1 ? s[3] : 1);
        strides[0] = strides[2] * (s[2] > 1 ? s[2] : 1);
        return 0;
    }
    case CTPY_MEMFMT_CONTIGUOUS:
        break;
    }
    ct_contiguous_strides(t->ndim, t->sizes, strides);
    return 0;
}
