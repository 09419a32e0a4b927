/* csrc/python/module.c -- PyInit__C: types, functions, dtype objects. */
#include "argparse.h"

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctorch._C",
    .m_doc = "The C engine of ctorch.",
    .m_size = -1,
};

/* Concatenate NULL-terminated method tables (Note [Method tables]); the
 * result lives for the whole process, as type and module tables must. */
static PyMethodDef *
merge_tables(PyMethodDef *const *tables, int n)
{
    Py_ssize_t total = 0;
    for (int i = 0; i < n; i++) {
        for (PyMethodDef *m = tables[i]; m != NULL && m->ml_name != NULL; m++) {
            total++;
        }
    }
    PyMethodDef *all = PyMem_RawCalloc((size_t)total + 1, sizeof(PyMethodDef));
    if (all == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_ssize_t k = 0;
    for (int i = 0; i < n; i++) {
        for (PyMethodDef *m = tables[i]; m != NULL && m->ml_name != NULL; m++) {
            all[k++] = *m;
        }
    }
    return all;
}

PyMODINIT_FUNC PyInit__C(void);

PyMODINIT_FUNC
PyInit__C(void)
{
    PyMethodDef *methods[] = {
        ctpy_tensor_methods,
#define X(F) ctpy_##F##_methods,
        CTPY_FORALL_FAMILIES(X)
#undef X
    };
    PyMethodDef *functions[] = {
        ctpy_functions,
#define X(F) ctpy_##F##_functions,
        CTPY_FORALL_FAMILIES(X)
#undef X
    };
    CtTensor_Type.tp_methods = merge_tables(methods, sizeof methods / sizeof methods[0]);
    module_def.m_methods = merge_tables(functions, sizeof functions / sizeof functions[0]);
    if (CtTensor_Type.tp_methods == NULL || module_def.m_methods == NULL) {
        return NULL;
    }
    CtSize_Type.tp_base = &PyTuple_Type;
    if (ctpy_tensor_setup_type() < 0 || PyType_Ready(&CtDtype_Type) < 0 ||
        PyType_Ready(&CtDevice_Type) < 0 || PyType_Ready(&CtSize_Type) < 0 ||
        PyType_Ready(&CtStorage_Type) < 0) {
        return NULL;
    }
    if (ctpy_numpy_init() < 0) {
        return NULL;
    }
    ctpy_init_tensor_hooks();
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "TensorBase", (PyObject *)&CtTensor_Type) < 0 ||
        PyModule_AddObjectRef(m, "dtype", (PyObject *)&CtDtype_Type) < 0 ||
        PyModule_AddObjectRef(m, "device", (PyObject *)&CtDevice_Type) < 0 ||
        PyModule_AddObjectRef(m, "Size", (PyObject *)&CtSize_Type) < 0 ||
        PyModule_AddObjectRef(m, "StorageBase", (PyObject *)&CtStorage_Type) < 0 ||
        ctpy_dtype_add_to_module(m) < 0 || ctpy_errors_add_to_module(m) < 0 ||
        ctpy_autograd_init(m) < 0 || ctpy_random_init(m) < 0 ||
        ctpy_dist_store_init(m) < 0 || ctpy_dist_pg_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
