/* csrc/python/tensor_index.c -- t[index] and t[index] = value.
 *
 * Basic indices (ints, slices with positive steps, None, Ellipsis) make a
 * view.  Advanced indices (integer or bool tensors, lists, arrays) keep
 * their dimensions in that view and are recorded per dimension; the view
 * is then gathered (ct_index) or scattered into (ct_index_put_), with
 * PyTorch's placement of the broadcast index dimensions. */
#include "argparse.h"

static bool
is_basic_int(PyObject *o)
{
    return PyLong_Check(o) && !PyBool_Check(o);
}

/* Does item take up a dimension of the tensor? */
static int
consumes_dim(PyObject *o)
{
    return o != Py_None && o != Py_Ellipsis && !PyBool_Check(o);
}

/* A 0-d tensor of a (non-bool, non-uint8) integer dtype indexes like an int;
 * other tensors are masks or index lists (advanced indexing). */
static bool
is_int_tensor_index(PyObject *o)
{
    if (!ctpy_is_tensor(o)) {
        return false;
    }
    ct_tensor *t = ctpy_tensor(o);
    return t->ndim == 0 && ct_dtype_is_integral(t->dtype, false) &&
           t->dtype != CT_DTYPE_UINT8;
}

/* 0 when `it` is a basic index that takes up a dimension (an int, a slice,
 * a 0-d integer tensor, anything else with __index__); -1 with torch's
 * error otherwise.  Advanced indices raise NotImplementedError. */
static int
check_basic_index(PyObject *it)
{
    if (is_basic_int(it) || PySlice_Check(it) || is_int_tensor_index(it)) {
        return 0;
    }
    if (ctpy_is_tensor(it)) {
        if (!ct_dtype_is_integral(ctpy_tensor(it)->dtype, true)) {
            PyErr_SetString(PyExc_IndexError, "tensors used as indices must be long, "
                            "byte or bool tensors");
            return -1;
        }
    }
    else if (ctpy_is_ndarray(it)) {
        /* a 0-d integer array is an int, any other array an index tensor */
        PyObject *i = PyNumber_Index(it);
        if (i != NULL) {
            Py_DECREF(i);
            return 0;
        }
        PyErr_Clear();
    }
    else if (PyUnicode_Check(it) || PyBytes_Check(it)) {
        /* torch tries to make an index tensor of it */
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'",
                     Py_TYPE(it)->tp_name);
        return -1;
    }
    else if (!PySequence_Check(it)) {
        if (PyIndex_Check(it)) {
            return 0;
        }
        PyErr_Format(PyExc_IndexError, "only integers, slices (`:`), ellipsis (`...`), "
                     "None and long or byte Variables are valid indices (got %s)",
                     Py_TYPE(it)->tp_name);
        return -1;
    }
    return 1;       /* a sequence: an advanced index */
}

/* An advanced index item as a tensor (new reference): tensors as they are,
 * sequences and arrays converted (a list of bools is a mask). */
static ct_tensor *
advanced_tensor(PyObject *it)
{
    if (ctpy_is_tensor(it)) {
        ct_tensor *t = ctpy_tensor(it);
        if (!ct_dtype_is_integral(t->dtype, true)) {
            PyErr_SetString(PyExc_IndexError, "tensors used as indices must be long, "
                            "byte or bool tensors");
            return NULL;
        }
        ct_tensor_incref(t);
        return t;
    }
    ct_tensor *t = ctpy_tensor_from_data(it, CT_DTYPE_COUNT, true, false);
    if (t != NULL && !ct_dtype_is_integral(t->dtype, true)) {
        ct_tensor_decref(t);
        PyErr_SetString(PyExc_IndexError, "tensors used as indices must be long, byte or "
                        "bool tensors");
        return NULL;
    }
    return t;
}

static bool
is_mask(const ct_tensor *t)
{
    return t->dtype == CT_DTYPE_BOOL || t->dtype == CT_DTYPE_UINT8;
}

/* The view that the basic part of `index` selects (new reference, or NULL
 * with an exception).  Advanced items leave their dims in the view and
 * are returned in adv[dim] (new references, *nadv: one past the last
 * indexed dim, 0 when there are none). */
static ct_tensor *
basic_view(ct_tensor *t, PyObject *index, ct_tensor **adv, int *nadv)
{
    PyObject *items;
    int dim = 0, consumed = 0, ellipsis = 0;
    ct_tensor *conv[CT_MAX_DIMS + 8] = {NULL};

    *nadv = 0;
    if (PyTuple_Check(index)) {
        items = Py_NewRef(index);
    }
    else {
        items = PyTuple_Pack(1, index);
        if (items == NULL) {
            return NULL;
        }
    }
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n > CT_MAX_DIMS + 8) {
        Py_DECREF(items);
        PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %d",
                     t->ndim);
        return NULL;
    }
    ct_tensor *cur = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        if (it == Py_Ellipsis) {
            if (++ellipsis > 1) {
                PyErr_SetString(PyExc_IndexError, "an index can only have a single "
                                "ellipsis ('...')");
                goto fail;
            }
        }
        else if (consumes_dim(it)) {
            int rc = check_basic_index(it);
            if (rc < 0) {
                goto fail;
            }
            if (rc > 0 || ctpy_is_tensor(it) ||
                (ctpy_is_ndarray(it) && !is_int_tensor_index(it))) {
                if (!is_int_tensor_index(it) && (conv[i] = advanced_tensor(it)) == NULL) {
                    goto fail;
                }
            }
            consumed += conv[i] != NULL && is_mask(conv[i]) ? conv[i]->ndim : 1;
        }
    }
    if (consumed > t->ndim) {
        if (t->ndim == 0 && consumed == 1 && !(conv[0] && is_mask(conv[0]))) {
            PyErr_SetString(PyExc_IndexError, "invalid index of a 0-dim tensor. Use "
                            "`tensor.item()` in Python or `tensor.item<T>()` in C++ "
                            "to convert a 0-dim tensor to a number");
        }
        else {
            PyErr_Format(PyExc_IndexError, "too many indices for tensor of "
                         "dimension %d", t->ndim);
        }
        goto fail;
    }
    /* the views below chain from t itself, so they carry its history */
    ct_tensor_incref((ct_tensor *)t);
    cur = (ct_tensor *)t;
    for (Py_ssize_t i = 0; i < n && cur != NULL; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        ct_tensor *next = NULL;
        if (conv[i] != NULL) {
            ct_tensor *x = conv[i];
            if (is_mask(x)) {
                /* a mask over x->ndim dims: its nonzero coordinates, one
                 * index tensor per dim */
                for (int k = 0; k < x->ndim; k++) {
                    if (x->sizes[k] != cur->sizes[dim + k]) {
                        char b1[256], b2[256];
                        PyErr_Format(PyExc_IndexError, "The shape of the mask %s at index "
                                     "%d does not match the shape of the indexed tensor %s "
                                     "at index %d",
                                     ct_format_sizes(x->ndim, x->sizes, b1, sizeof b1), k,
                                     ct_format_sizes(cur->ndim, cur->sizes, b2, sizeof b2),
                                     dim + k);
                        goto fail;
                    }
                }
                if (x->ndim == 0) {
                    /* a 0-d mask adds a dim of size 1 or 0, like True/False
                     * (ct_tensor_item reads a device mask through a copy) */
                    ct_scalar mv;
                    if (ct_tensor_item(x, &mv) < 0) {
                        ctpy_raise();
                        goto fail;
                    }
                    bool keep = ct_scalar_to_int(mv) != 0;
                    next = ctag_unsqueeze(cur, dim);
                    if (next != NULL && !keep) {
                        ct_tensor *empty = ct_narrow(next, dim, 0, 0);
                        ct_tensor_decref(next);
                        next = empty;
                    }
                    dim++;
                    ct_tensor_decref(cur);
                    cur = next;
                    continue;
                }
                ct_tensor *nz = ct_nonzero(x);
                if (nz == NULL) {
                    ctpy_raise();
                    goto fail;
                }
                for (int k = 0; k < x->ndim; k++) {
                    adv[dim + k] = ct_select(nz, 1, k);
                }
                ct_tensor_decref(nz);
                dim += x->ndim;
            }
            else {
                ct_tensor_incref(x);
                adv[dim++] = x;
            }
            *nadv = dim;
            continue;
        }
        if (it == Py_None || PyBool_Check(it)) {
            next = ctag_unsqueeze(cur, dim);
            if (next != NULL && it == Py_False) {
                ct_tensor *empty = ct_narrow(next, dim, 0, 0);
                ct_tensor_decref(next);
                next = empty;
            }
            dim++;
        }
        else if (it == Py_Ellipsis) {
            dim += t->ndim - consumed;
            continue;
        }
        else if (PySlice_Check(it)) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(it, &start, &stop, &step) < 0) {
                goto fail;
            }
            if (step <= 0) {
                PyErr_SetString(PyExc_ValueError, "step must be greater than zero");
                goto fail;
            }
            next = ctag_slice(cur, dim, start, stop, step);
            dim++;
        }
        else {
            int64_t idx;
            if (ctpy_to_int64(it, &idx) != 0) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_IndexError, "only integers, slices (`:`), "
                                    "ellipsis (`...`), None and long or byte "
                                    "Variables are valid indices");
                }
                goto fail;
            }
            int64_t size = cur->sizes[dim];
            if (idx < -size || idx >= size) {
                PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for "
                             "dimension %d with size %lld", (long long)idx, dim,
                             (long long)size);
                goto fail;
            }
            /* selecting removes a dim: recorded advanced dims after it
             * cannot exist yet (they are recorded as we go) */
            next = ctag_select(cur, dim, idx);
        }
        ct_tensor_decref(cur);
        cur = next;
    }
    Py_DECREF(items);
    for (Py_ssize_t i = 0; i < n; i++) {
        ct_tensor_decref(conv[i]);
    }
    if (cur == NULL) {
        for (int d = 0; d < *nadv; d++) {
            ct_tensor_decref(adv[d]);
            adv[d] = NULL;
        }
        return (ct_tensor *)ctpy_raise();
    }
    return cur;
fail:
    Py_DECREF(items);
    for (Py_ssize_t i = 0; i < n; i++) {
        ct_tensor_decref(conv[i]);
    }
    for (int d = 0; d < CT_MAX_DIMS; d++) {
        ct_tensor_decref(adv[d]);
        adv[d] = NULL;
    }
    ct_tensor_decref(cur);
    return NULL;
}

static void
release_adv(ct_tensor **adv, int n)
{
    for (int d = 0; d < n; d++) {
        ct_tensor_decref(adv[d]);
        adv[d] = NULL;
    }
}

PyObject *ctpy_tensor_getitem(PyObject *self, PyObject *index);
int ctpy_tensor_setitem(PyObject *self, PyObject *index, PyObject *value);

PyObject *
ctpy_tensor_getitem(PyObject *self, PyObject *index)
{
    ct_tensor *adv[CT_MAX_DIMS] = {NULL};
    int nadv;
    ct_tensor *v = basic_view(ctpy_tensor(self), index, adv, &nadv);
    if (v == NULL) {
        return NULL;
    }
    if (v == ctpy_tensor(self) && nadv == 0) {
        /* x[...] and x[()]: a new alias of x */
        ct_tensor_decref(v);
        return ctpy_result(ctag_alias(ctpy_tensor(self)));
    }
    if (nadv > 0) {
        ct_tensor *r = ctag_index(v, nadv, adv);
        ct_tensor_decref(v);
        release_adv(adv, nadv);
        if (r == NULL) {
            return ctpy_raise();
        }
        v = r;
    }
    PyObject *r = ctpy_wrap(v);
    ct_tensor_decref(v);
    return r;
}

/* torch's valueToTensor for a non-tensor value: ints (numpy's too) and
 * floats; anything else is "can't assign a list to a torch.FloatTensor".
 * 0, or -1 with an exception set. */
static int
setitem_scalar(PyObject *value, ct_dtype dtype, ct_scalar *out)
{
    ct_dtype nd;
    bool np_int = false;

    if (ctpy_is_numpy_scalar(value) && !PyFloat_Check(value)) {
        if (ctpy_numpy_dtype(value, &nd) == 0) {
            np_int = ct_dtype_is_integral(nd, false);
        }
        PyErr_Clear();
    }
    if (PyLong_Check(value) || np_int) {
        int64_t v;
        if (ctpy_long_to_int64(value, &v) < 0) {
            return -1;
        }
        *out = ct_scalar_int(v);
        return 0;
    }
    if (PyFloat_Check(value)) {
        *out = ct_scalar_float(PyFloat_AS_DOUBLE(value));
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "can't assign a %s to a torch.%sTensor",
                 Py_TYPE(value)->tp_name, ct_dtype_table[dtype].legacy);
    return -1;
}

/* t[index] = tensor: the value loses its leading size-1 dims, then is
 * expanded to the destination's shape (torch's copy_to), so the errors
 * are expand's. */
static int
setitem_tensor(ct_tensor *dst, const ct_tensor *value)
{
    int skip = 0;
    while (skip < value->ndim && value->sizes[skip] == 1) {
        skip++;
    }
    /* views only where needed, so the graph is PyTorch's */
    ct_tensor *src = skip > 0 ? ctag_view(value, value->ndim - skip, value->sizes + skip)
                              : (ct_tensor_incref((ct_tensor *)value), (ct_tensor *)value);
    if (src == NULL) {
        return -1;
    }
    bool same = src->ndim == dst->ndim &&
                memcmp(src->sizes, dst->sizes, sizeof(int64_t) * (size_t)src->ndim) == 0;
    ct_tensor *e = same ? (ct_tensor_incref(src), src) : ctag_expand(src, dst->ndim, dst->sizes);
    ct_tensor_decref(src);
    if (e == NULL) {
        return -1;
    }
    int rc = ctag_copy_(dst, e);      /* records CopySlices when dst is a view */
    ct_tensor_decref(e);
    return rc;
}

int
ctpy_tensor_setitem(PyObject *self, PyObject *index, PyObject *value)
{
    ct_scalar s;
    int rc;

    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    if (!ctpy_is_tensor(value) && setitem_scalar(value, ctpy_tensor(self)->dtype, &s) < 0) {
        return -1;
    }
    ct_tensor *adv[CT_MAX_DIMS] = {NULL};
    int nadv;
    ct_tensor *v = basic_view(ctpy_tensor(self), index, adv, &nadv);
    if (v == NULL) {
        return -1;
    }
    if (nadv > 0) {
        /* scatter into the view at the advanced indices */
        ct_tensor *val = ctpy_is_tensor(value) ? ctpy_tensor(value) : ct_full(0, NULL, s, v->dtype);
        rc = val ? ctag_index_put_(v, nadv, adv, val, false) : -1;
        if (!ctpy_is_tensor(value)) {
            ct_tensor_decref(val);
        }
        release_adv(adv, nadv);
    }
    else if (ctpy_is_tensor(value)) {
        rc = setitem_tensor(v, ctpy_tensor(value));
    }
    else {
        /* a number is copied in as a tensor, as PyTorch does (CopySlices
         * then has the number's empty edge, as in PyTorch) */
        ct_tensor *val = ct_full(0, NULL, s, v->dtype);
        rc = val != NULL ? ctag_copy_(v, val) : -1;
        ct_tensor_decref(val);
    }
    ct_tensor_decref(v);
    return rc < 0 ? ctpy_raise_int() : 0;
}
