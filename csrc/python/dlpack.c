/* csrc/python/dlpack.c -- DLPack capsules (names "dltensor" and, once
 * consumed, "used_dltensor", per the protocol). */
#include "argparse.h"

static void
capsule_destructor(PyObject *cap)
{
    /* an unconsumed capsule still owns its DLManagedTensor */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m != NULL && m->deleter != NULL) {
            m->deleter(m);
        }
    }
    else {
        PyErr_Clear();
    }
}

PyObject *
ctpy_to_dlpack(PyObject *self, PyObject *tensor)
{
    (void)self;
    if (!ctpy_is_tensor(tensor)) {
        PyErr_SetString(PyExc_RuntimeError, "data must be a Tensor");
        return NULL;
    }
    DLManagedTensor *m = ct_tensor_to_dlpack(ctpy_tensor(tensor));
    if (m == NULL) {
        return ctpy_raise();
    }
    PyObject *cap = PyCapsule_New(m, "dltensor", capsule_destructor);
    if (cap == NULL) {
        m->deleter(m);
    }
    return cap;
}

PyObject *
ctpy_from_dlpack_capsule(PyObject *self, PyObject *cap)
{
    (void)self;
    if (!PyCapsule_IsValid(cap, "dltensor")) {
        PyErr_SetString(PyExc_RuntimeError, "from_dlpack received an invalid capsule. "
                        "Note that DLTensor capsules can be consumed only once, so you "
                        "might have already constructed a tensor from it once.");
        return NULL;
    }
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    ct_tensor *t = ct_tensor_from_dlpack(m);
    if (t == NULL) {
        return ctpy_raise();
    }
    /* the tensor owns m now: the capsule must not delete it */
    if (PyCapsule_SetName(cap, "used_dltensor") < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    PyObject *r = ctpy_wrap(t);
    ct_tensor_decref(t);
    return r;
}
