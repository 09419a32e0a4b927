/* csrc/python/ctpy.h -- shared declarations of the _C extension.
 *
 * Only csrc/python/ includes Python.h.  Conventions are CPython's: new
 * references are returned, arguments are borrowed, NULL / -1 means an
 * exception is set.  A ct_tensor and its Python object point at each other:
 * the Python object owns one reference to the tensor, the tensor keeps a
 * borrowed back-pointer (t->pyobj) so the same object is returned every
 * time the tensor reaches Python (PyTorch's PyObject preservation).
 */
#ifndef CTORCH_CTPY_H
#define CTORCH_CTPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ctorch/ctorch.h>

typedef struct {
    PyObject_HEAD
    ct_tensor *t;               /* owned */
    PyObject *dict;
    PyObject *weaklist;
} CtTensorObject;

typedef struct {
    PyObject_HEAD
    ct_dtype dtype;
} CtDtypeObject;

typedef struct {
    PyObject_HEAD
    ct_device device;
} CtDeviceObject;

extern PyTypeObject CtTensor_Type;  /* _C.TensorBase */
extern PyTypeObject CtDtype_Type;
extern PyTypeObject CtDevice_Type;
extern PyTypeObject CtSize_Type;
extern PyTypeObject CtStorage_Type;

/* Ops on more elements than this release the GIL while they run. */
#define CTPY_GIL_NUMEL 65536

/* Run stmt with the GIL released when an op touches more than
 * CTPY_GIL_NUMEL elements (releasing costs more than a small op). */
#define CTPY_RUN(numel, stmt)                \
    do {                                     \
        if ((numel) > CTPY_GIL_NUMEL) {      \
            Py_BEGIN_ALLOW_THREADS           \
            stmt;                            \
            Py_END_ALLOW_THREADS             \
        }                                    \
        else {                               \
            stmt;                            \
        }                                    \
    } while (0)

/* The signature of a METH_FASTCALL | METH_KEYWORDS method, and its entry. */
#define CTPY_FASTCALL_ARGS PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                           PyObject *kwnames
#define CTPY_METH(name, fn, doc) \
    {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc}

/* The Python class used for new tensors (ctorch.Tensor, set at import). */
extern PyTypeObject *ctpy_tensor_class;
/* The name prefix for dtype reprs ("torch"). */
extern const char *ctpy_name_prefix;

static inline int
ctpy_is_tensor(PyObject *o)
{
    return PyObject_TypeCheck(o, &CtTensor_Type);
}

static inline ct_tensor *
ctpy_tensor(PyObject *o)
{
    return ((CtTensorObject *)o)->t;
}

/* An in-place write seen by Python bumps the version counter (autograd's
 * check of saved tensors), as PyTorch's binding layer does. */
static inline void
ctpy_bump(ct_tensor *t)
{
    ct_tensor_bump_version(t);
}

/* div's rounding_mode (None, 'trunc', 'floor') as the op that computes it;
 * -1 with torch's error for other strings.  rounding_mode is NULL or str. */
int ctpy_div_op(PyObject *rounding_mode, ct_binary_op *op);

/* errors.c */
PyObject *ctpy_raise(void);         /* ct error -> exception; returns NULL */
int ctpy_raise_int(void);           /* same, returns -1 */
/* Add the exception classes of the ct error codes that are not builtins
 * (_LinAlgError) to module m; 0 or -1. */
int ctpy_errors_add_to_module(PyObject *m);
int ctpy_flush_warnings(void);      /* ct warnings -> UserWarning; -1 on error */
/* Steal-free wrap of an op result: NULL -> raise; else wrap, drop our ref. */
PyObject *ctpy_result(ct_tensor *t);
/* AssertionError("Torch not compiled with CUDA enabled"); returns NULL. */
int ctpy_device_ready(ct_device *d);
/* The callable a __reduce__ names for pickle (new reference): `type`
 * itself when torch.<name> is that type (under ctorchrun), else
 * ctorch._C.<fallback>, since pickle finds a type by its printed name and
 * torch.<name> is a different object, or missing, next to plain ctorch. */
PyObject *ctpy_pickle_constructor(PyTypeObject *type, const char *name,
                                  const char *fallback);
/* 1 when torch is imported and torch.<name> is obj, 0 if not, -1 on error. */
int ctpy_torch_has(const char *name, PyObject *obj);

/* tensor.c */
PyObject *ctpy_wrap(ct_tensor *t);  /* new reference to t's Python object */
PyObject *ctpy_wrap_as(ct_tensor *t, PyTypeObject *type);
void ctpy_init_tensor_hooks(void);
int ctpy_set_requires_grad(ct_tensor *t, bool value);
/* A detached alias: same storage and geometry, no autograd state. */
ct_tensor *ctpy_alias(const ct_tensor *t);
int ctpy_tensor_setup_type(void);
/* The legacy constructors (torch.Tensor(2, 3), torch.FloatTensor([1])). */
PyObject *ctpy_legacy_new(PyTypeObject *type, ct_dtype dtype, bool base_ctor,
                          PyObject *args, PyObject *kwargs);
PyObject *ctpy_legacy_new_fn(PyObject *self, PyObject *args, PyObject *kwargs);
extern PyMethodDef ctpy_tensor_methods[];

/* dtype.c / device.c / size.c */
PyObject *ctpy_dtype_obj(ct_dtype d);   /* borrowed singleton */
int ctpy_dtype_add_to_module(PyObject *m);
PyObject *ctpy_device_new(ct_device d);
PyObject *ctpy_size_new(int ndim, const int64_t *sizes);

/* numpy.c */
int ctpy_numpy_init(void);
bool ctpy_numpy_available(void);
PyObject *ctpy_from_numpy(PyObject *self, PyObject *arr);
PyObject *ctpy_tensor_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames);
bool ctpy_is_ndarray(PyObject *o);
bool ctpy_is_numpy_scalar(PyObject *o);
/* numpy dtype of an array / scalar as a ct dtype; -1 with TypeError. */
int ctpy_numpy_dtype(PyObject *arr_or_scalar, ct_dtype *out);
/* Copy of an ndarray in dtype (CT_DTYPE_COUNT: the array's own). */
ct_tensor *ctpy_tensor_from_ndarray(PyObject *arr, ct_dtype dtype, bool copy);

/* tensor_new.c */
ct_tensor *ctpy_tensor_from_data(PyObject *data, ct_dtype dtype, bool copy_numpy,
                                 bool infer_default_float);
PyObject *ctpy_tensor_tolist(PyObject *self, PyObject *unused);
PyObject *ctpy_scalar_to_py(ct_scalar s);
/* Python number -> ct_scalar; -1 with TypeError when o is not a number. */
int ctpy_to_scalar(PyObject *o, ct_scalar *out);

/* storage.c */
PyObject *ctpy_storage_new(ct_storage *s);
ct_storage *ctpy_storage_of(PyObject *o);

/* dlpack.c */
PyObject *ctpy_to_dlpack(PyObject *self, PyObject *tensor);
PyObject *ctpy_from_dlpack_capsule(PyObject *self, PyObject *capsule);

/* return_types.c */
/* torch.return_types.<name> (values, indices) for a C result: rc < 0
 * raises the ct error.  Drops the references to both tensors whatever
 * happens; returns a new reference or NULL. */
PyObject *ctpy_return_pair(const char *name, int rc, ct_tensor *values,
                           ct_tensor *indices);
/* _C._return_types(module): every pair type, by op name, with __module__
 * set to `module` (Note [Pickling return types]); a new dict. */
PyObject *ctpy_return_types(PyObject *mod, PyObject *module);
/* A torch function's implementation called as a method: self goes first. */
typedef PyObject *(*ctpy_impl_fn)(PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames);
PyObject *ctpy_with_self(ctpy_impl_fn impl, PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames);

/* functions.c */
extern PyMethodDef ctpy_functions[];
/* The common tail of factory functions (ctpy_arg from argparse.h): the
 * device check, out= (t copied into it), requires_grad.  Takes over the
 * reference to t, which may be NULL on error; returns a new reference. */
struct ctpy_arg_s;
PyObject *ctpy_finish_factory(ct_tensor *t, const struct ctpy_arg_s *out,
                              const struct ctpy_arg_s *device,
                              const struct ctpy_arg_s *requires_grad);
/* The dtype a factory with out= computes in: dtype= when given (and then
 * it must be out's), else out's, else the fallback.  CT_DTYPE_COUNT with
 * torch's RuntimeError on a mismatch. */
ct_dtype ctpy_factory_dtype(const struct ctpy_arg_s *out, const struct ctpy_arg_s *dtype,
                            ct_dtype fallback);

/* random.c: torch.Generator objects (_C.Generator, _C.default_generator) */
typedef struct {
    PyObject_HEAD
    ct_generator *gen;          /* owned, unless it is the default generator */
} CtGeneratorObject;
extern PyTypeObject CtGenerator_Type;
int ctpy_random_init(PyObject *m);

/* dist_store.c: the c10d stores (_C.Store, TCPStore, FileStore, HashStore,
 * PrefixStore).  ctpy_store_ref: the C store behind a _C.Store object (a new
 * reference; a proxy calling the methods of a Store subclass written in
 * Python), or NULL with TypeError. */
extern PyTypeObject CtStore_Type;
int ctpy_dist_store_init(PyObject *m);
struct ct_store *ctpy_store_ref(PyObject *o);
int ctpy_dist_pg_init(PyObject *m);     /* dist_pg.c: ProcessGroupGloo, Work */

/* autograd.c */
int ctpy_autograd_init(PyObject *m);
PyObject *ctpy_node_wrap(ct_node *n);       /* grad_fn objects (None for NULL) */

/* Note [Method tables]
 * Op families keep their Tensor methods and torch functions in their own
 * files (pointwise.c, reduce.c, linalg.c, shape.c, index.c, sort.c), each
 * defining the tables below; module.c merges whichever exist (the
 * declarations are weak, so a family not written yet is simply absent). */
#define CTPY_FORALL_FAMILIES(X) \
    X(pointwise)                \
    X(reduce)                   \
    X(linalg)                   \
    X(shape)                    \
    X(index)                    \
    X(sort)                     \
    X(autograd)                 \
    X(random)                   \
    X(pointwise_ternary)        \
    X(nn_loss)                  \
    X(nn_norm)                  \
    X(nn_conv)                  \
    X(nn_activation)            \
    X(nn_rnn)                   \
    X(cuda)

#define X(F)                                                               \
    extern PyMethodDef ctpy_##F##_methods[] __attribute__((weak));         \
    extern PyMethodDef ctpy_##F##_functions[] __attribute__((weak));
CTPY_FORALL_FAMILIES(X)
#undef X

#endif
