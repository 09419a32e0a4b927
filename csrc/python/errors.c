/* csrc/python/errors.c -- the ct error slot and warnings, as Python sees
 * them.  The exception class for each code comes from CT_ERROR_MAP. */
#include "ctpy.h"

#include <ctorch/cuda.h>

/* torch._C._LinAlgError, made by ctpy_errors_add_to_module. */
static PyObject *linalg_error;

static PyObject *
exception_for(ct_errcode code)
{
    static PyObject **table[CT_ERR_COUNT] = {
        [CT_OK] = &PyExc_RuntimeError,
        [CT_ERR_RUNTIME] = &PyExc_RuntimeError,
        [CT_ERR_TYPE] = &PyExc_TypeError,
        [CT_ERR_VALUE] = &PyExc_ValueError,
        [CT_ERR_INDEX] = &PyExc_IndexError,
        [CT_ERR_NOMEM] = &PyExc_MemoryError,
        [CT_ERR_NOTIMPL] = &PyExc_NotImplementedError,
        [CT_ERR_OVERFLOW] = &PyExc_OverflowError,
        [CT_ERR_ZERODIV] = &PyExc_ZeroDivisionError,
        [CT_ERR_LINALG] = &linalg_error,
    };
    PyObject *exc = *table[code];
    return exc != NULL ? exc : PyExc_RuntimeError;
}

PyDoc_STRVAR(linalg_error_doc,
             "Error raised by torch.linalg function when the cause of error is a "
             "numerical inconsistency in the data.");

int
ctpy_errors_add_to_module(PyObject *m)
{
    if (linalg_error == NULL) {
        linalg_error = PyErr_NewExceptionWithDoc("ctorch._C._LinAlgError",
                                                 linalg_error_doc,
                                                 PyExc_RuntimeError, NULL);
        if (linalg_error == NULL) {
            return -1;
        }
    }
    return PyModule_AddObjectRef(m, "_LinAlgError", linalg_error);
}

int
ctpy_flush_warnings(void)
{
    char buf[512];
    while (ct_warning_pop(buf, sizeof buf)) {
        if (PyErr_WarnEx(PyExc_UserWarning, buf, 1) < 0) {
            while (ct_warning_pop(buf, sizeof buf)) {
            }
            return -1;
        }
    }
    return 0;
}

PyObject *
ctpy_raise(void)
{
    ct_errcode code = ct_error_code();
    /* a MemoryError subclass check is not needed: the code decides */
    PyErr_SetString(exception_for(code), ct_error_message());
    ct_error_clear();
    char buf[512];
    while (ct_warning_pop(buf, sizeof buf)) {
    }
    return NULL;
}

int
ctpy_raise_int(void)
{
    ctpy_raise();
    return -1;
}

PyObject *
ctpy_result(ct_tensor *t)
{
    if (t == NULL) {
        return ctpy_raise();
    }
    if (ct_warning_pending() && ctpy_flush_warnings() < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    PyObject *r = ctpy_wrap(t);
    ct_tensor_decref(t);
    return r;
}

/* A tensor on device d was asked for.  A build without the CUDA part
 * raises what CPU-only PyTorch raises (from torch.cuda's lazy init); one
 * with it, what starting CUDA raises (no driver, no GPU) or CUDA's error
 * for an index past the devices.  "cuda" alone becomes the current
 * device.  0, or -1 with the exception set. */
int
ctpy_device_ready(ct_device *d)
{
    if (d->type != CT_DEVICE_CUDA) {
        return 0;
    }
    if (!ct_cuda_is_built()) {
        PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
        return -1;
    }
    if (ct_cuda_init() < 0 || (d->index < 0 && ct_cuda_current_device(&d->index) < 0)) {
        ctpy_raise();
        return -1;
    }
    /* as PyTorch's cuda_lazy_init: torch.cuda learns that CUDA started */
    static bool told;
    if (!told) {
        PyObject *m = PyImport_ImportModule("ctorch.cuda");
        PyObject *r = m != NULL ? PyObject_CallMethod(m, "_lazy_init", NULL) : NULL;
        Py_XDECREF(m);
        if (r == NULL) {
            return -1;
        }
        Py_DECREF(r);
        told = true;
    }
    if (d->index >= ct_cuda_device_count()) {
        PyErr_SetString(PyExc_RuntimeError, "CUDA error: invalid device ordinal\n"
                        "CUDA kernel errors might be asynchronously reported at some "
                        "other API call,so the stacktrace below might be incorrect.\n"
                        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.");
        return -1;
    }
    return 0;
}

int
ctpy_torch_has(const char *name, PyObject *obj)
{
    PyObject *torch_name = PyUnicode_FromString("torch");
    if (torch_name == NULL) {
        return -1;
    }
    PyObject *torch = PyImport_GetModule(torch_name);
    Py_DECREF(torch_name);
    if (torch == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *attr = PyObject_GetAttrString(torch, name);
    Py_DECREF(torch);
    if (attr == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(attr);
    return attr == obj;
}

PyObject *
ctpy_pickle_constructor(PyTypeObject *type, const char *name, const char *fallback)
{
    int rc = ctpy_torch_has(name, (PyObject *)type);
    if (rc != 0) {
        return rc < 0 ? NULL : Py_NewRef((PyObject *)type);
    }
    PyObject *mod = PyImport_ImportModule("ctorch._C");
    if (mod == NULL) {
        return NULL;
    }
    PyObject *fn = PyObject_GetAttrString(mod, fallback);
    Py_DECREF(mod);
    return fn;
}
