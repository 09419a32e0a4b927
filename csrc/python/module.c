/* csrc/python/module.c -- PyInit__C: types, functions, dtype objects. */
#include "argparse.h"

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctorch._C",
    .m_doc = "The C engine of ctorch.",
    .m_size = -1,
    .m_methods = ctpy_functions,
};

PyMODINIT_FUNC PyInit__C(void);

PyMODINIT_FUNC
PyInit__C(void)
{
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
        ctpy_dtype_add_to_module(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
