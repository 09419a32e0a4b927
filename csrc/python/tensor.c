/* csrc/python/tensor.c -- the Tensor type object (_C.TensorBase): lifetime,
 * properties, number and mapping slots.  Methods are in tensor_methods.c,
 * indexing in tensor_index.c.
 *
 * Note [PyObject preservation]
 * A ct_tensor keeps a borrowed pointer to its Python object (t->pyobj); the
 * object owns a reference to the tensor.  ctpy_wrap returns that object when
 * it exists, so `x.grad is x.grad` and subclass instances (nn.Parameter)
 * come back as themselves.  When the Python object dies, the pointer is
 * cleared; when the tensor dies first (it cannot, the object owns it) the
 * free hook would clear it.
 */
#include "argparse.h"

#include <structmember.h>

PyTypeObject *ctpy_tensor_class = &CtTensor_Type;
const char *ctpy_name_prefix = "torch";

PyObject *
ctpy_wrap_as(ct_tensor *t, PyTypeObject *type)
{
    if (t->pyobj != NULL) {
        return Py_NewRef((PyObject *)t->pyobj);
    }
    CtTensorObject *o = (CtTensorObject *)type->tp_alloc(type, 0);
    if (o == NULL) {
        return NULL;
    }
    ct_tensor_incref(t);
    o->t = t;
    t->pyobj = o;
    return (PyObject *)o;
}

PyObject *
ctpy_wrap(ct_tensor *t)
{
    return ctpy_wrap_as(t, ctpy_tensor_class);
}

static void
clear_back_pointer(ct_tensor *t)
{
    t->pyobj = NULL;
}

void
ctpy_init_tensor_hooks(void)
{
    ct_tensor_set_free_hook(clear_back_pointer);
}

static int
tensor_traverse(CtTensorObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int
tensor_clear(CtTensorObject *self)
{
    Py_CLEAR(self->dict);
    return 0;
}

static void
tensor_dealloc(CtTensorObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (self->weaklist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    tensor_clear(self);
    if (self->t != NULL) {
        if (self->t->pyobj == self) {
            self->t->pyobj = NULL;
        }
        ct_tensor_decref(self->t);
        self->t = NULL;
    }
    /* a heap subclass's type reference is dropped by subtype_dealloc */
    type->tp_free((PyObject *)self);
}

/* --- legacy constructor: Tensor(), Tensor(2, 3), Tensor(size), Tensor(data),
 *     Tensor(tensor) ----------------------------------------------------
 *
 * torch's legacy_tensor_generic_ctor_new for torch.Tensor (base_ctor: any
 * dtype may be aliased) and torch.FloatTensor & co. (dtype fixed).  Data
 * is neither copied nor type-inferred beyond what the dtype needs: an
 * ndarray of the same dtype is shared.  Returns a new reference. */
PyObject *
ctpy_legacy_new(PyTypeObject *type, ct_dtype dtype, bool base_ctor, PyObject *args,
                PyObject *kwargs)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    ct_tensor *t = NULL;
    int64_t sizes[CT_MAX_DIMS];

    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyObject *dev = PyDict_GetItemString(kwargs, "device");
        ct_device d;
        if (dev == NULL || PyDict_GET_SIZE(kwargs) > 1) {
            PyErr_SetString(PyExc_TypeError, "new() received an invalid combination "
                            "of arguments");
            return NULL;
        }
        int rc = dev == Py_None ? 0 : ctpy_to_device(dev, &d);
        if (rc != 0) {
            if (rc > 0) {
                PyErr_Format(PyExc_TypeError, "new(): argument 'device' must be "
                             "torch.device, not %s", Py_TYPE(dev)->tp_name);
            }
            return NULL;
        }
        if (dev != Py_None && d.type != CT_DEVICE_CPU) {
            PyErr_Format(PyExc_RuntimeError, "legacy constructor expects device type: "
                         "cpu but device type: %s was passed",
                         ct_device_type_name(d.type));
            return NULL;
        }
    }
    if (type == &CtTensor_Type) {
        type = ctpy_tensor_class;
    }
    if (n == 1 && ctpy_is_tensor(PyTuple_GET_ITEM(args, 0))) {
        ct_tensor *o = ctpy_tensor(PyTuple_GET_ITEM(args, 0));
        if (!base_ctor && o->dtype != dtype) {
            PyErr_Format(PyExc_TypeError, "expected %s (got %s)",
                         ct_dtype_table[dtype].legacy, ct_dtype_table[o->dtype].legacy);
            return NULL;
        }
        /* other.alias(): a view sharing everything, autograd flag included */
        t = ct_tensor_view_of(o, o->offset, o->ndim, o->sizes, o->strides);
        if (t == NULL) {
            return ctpy_raise();
        }
        t->flags |= o->flags & CT_TENSOR_REQUIRES_GRAD;
    }
    else if (n == 1 && Py_IS_TYPE(PyTuple_GET_ITEM(args, 0), &CtSize_Type)) {
        int nd;
        if (ctpy_to_intlist(PyTuple_GET_ITEM(args, 0), &nd, sizes, "new", "size") != 0) {
            return NULL;
        }
        t = ct_empty(nd, sizes, dtype, ct_device_cpu());
    }
    else if (n == 0) {
        int64_t zero = 0;
        t = ct_empty(1, &zero, dtype, ct_device_cpu());
    }
    else {
        /* sizes when the first argument is an int (then all must be) */
        int rc = ctpy_to_int64(PyTuple_GET_ITEM(args, 0), &sizes[0]);
        if (rc < 0) {
            return NULL;
        }
        if (rc == 0) {
            if (n > CT_MAX_DIMS) {
                PyErr_Format(PyExc_RuntimeError, "tensors may have at most %d "
                             "dimensions, got %zd", CT_MAX_DIMS, n);
                return NULL;
            }
            for (Py_ssize_t i = 1; i < n; i++) {
                PyObject *it = PyTuple_GET_ITEM(args, i);
                rc = ctpy_to_int64(it, &sizes[i]);
                if (rc != 0) {
                    if (rc > 0) {
                        PyErr_Format(PyExc_TypeError, "new(): argument 'size' must be "
                                     "tuple of ints, but found element of type %s at "
                                     "pos %zd", Py_TYPE(it)->tp_name, i + 1);
                    }
                    return NULL;
                }
            }
            t = ct_empty((int)n, sizes, dtype, ct_device_cpu());
        }
        else if (n == 1) {
            PyObject *data = PyTuple_GET_ITEM(args, 0);
            if (!PySequence_Check(data)) {
                PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)",
                             Py_TYPE(data)->tp_name);
                return NULL;
            }
            t = ctpy_tensor_from_data(data, dtype, false, false);
            if (t == NULL) {
                return NULL;
            }
        }
        else {
            PyErr_SetString(PyExc_TypeError, "new() received an invalid combination "
                            "of arguments");
            return NULL;
        }
    }
    if (t == NULL) {
        return ctpy_raise();
    }
    PyObject *r = ctpy_wrap_as(t, type);
    ct_tensor_decref(t);
    return r;
}

static PyObject *
tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    return ctpy_legacy_new(type, ct_default_dtype(), true, args, kwargs);
}

/* _C._legacy_new(dtype, *args, device=None): torch.FloatTensor(...) & co. */
PyObject *
ctpy_legacy_new_fn(PyObject *self, PyObject *args, PyObject *kwargs)
{
    ct_dtype dtype;
    (void)self;
    if (PyTuple_GET_SIZE(args) < 1 || ctpy_to_dtype(PyTuple_GET_ITEM(args, 0), &dtype)) {
        PyErr_SetString(PyExc_TypeError, "_legacy_new(dtype, *args)");
        return NULL;
    }
    PyObject *rest = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
    if (rest == NULL) {
        return NULL;
    }
    PyObject *r = ctpy_legacy_new(&CtTensor_Type, dtype, false, rest, kwargs);
    Py_DECREF(rest);
    return r;
}

/* --- properties --------------------------------------------------------- */
static PyObject *
get_shape(CtTensorObject *self, void *c)
{
    (void)c;
    return ctpy_size_new(self->t->ndim, self->t->sizes);
}

static PyObject *
get_dtype(CtTensorObject *self, void *c)
{
    (void)c;
    return Py_NewRef(ctpy_dtype_obj(self->t->dtype));
}

static PyObject *
get_device(CtTensorObject *self, void *c)
{
    (void)c;
    return ctpy_device_new(ct_tensor_device(self->t).type == CT_DEVICE_CPU
                               ? ct_device_cpu()
                               : ct_tensor_device(self->t));
}

static PyObject *
get_ndim(CtTensorObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(self->t->ndim);
}

static PyObject *
get_requires_grad(CtTensorObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(ct_requires_grad(self->t));
}

static PyObject *
get_is_leaf(CtTensorObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(ct_is_leaf(self->t));
}

static PyObject *
get_grad_fn(CtTensorObject *self, void *c)
{
    (void)c;
    return ctpy_node_wrap(ct_grad_fn(self->t));
}

int
ctpy_set_requires_grad(ct_tensor *t, bool value)
{
    if (!ct_is_leaf(t)) {
        if (value) {
            return 0;       /* it already requires grad */
        }
        PyErr_SetString(PyExc_RuntimeError, "you can only change requires_grad flags of "
                        "leaf variables. If you want to use a computed variable in a "
                        "subgraph that doesn't require differentiation use var_no_grad = "
                        "var.detach().");
        return -1;
    }
    if (value && !ct_dtype_is_floating(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "only Tensors of floating point and "
                        "complex dtype can require gradients");
        return -1;
    }
    if (value) {
        t->flags |= CT_TENSOR_REQUIRES_GRAD;
    }
    else {
        t->flags &= ~(unsigned)CT_TENSOR_REQUIRES_GRAD;
    }
    return 0;
}

static int
set_requires_grad(CtTensorObject *self, PyObject *v, void *c)
{
    (void)c;
    if (v == NULL || !PyBool_Check(v)) {
        PyErr_SetString(PyExc_RuntimeError, "requires_grad must be a bool");
        return -1;
    }
    return ctpy_set_requires_grad(self->t, v == Py_True);
}

static PyObject *
get_false(CtTensorObject *self, void *c)
{
    (void)self;
    (void)c;
    Py_RETURN_FALSE;
}

static PyObject *
get_is_cpu(CtTensorObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(ct_tensor_device(self->t).type == CT_DEVICE_CPU);
}

static PyObject *
get_is_cuda(CtTensorObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(ct_tensor_device(self->t).type == CT_DEVICE_CUDA);
}

static PyObject *
get_is_quantized(CtTensorObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(ct_dtype_table[self->t->dtype].is_quantized);
}

static PyObject *
get_grad(CtTensorObject *self, void *c)
{
    (void)c;
    if (!ct_is_leaf(self->t) && !ct_retains_grad(self->t) &&
        PyErr_WarnEx(PyExc_UserWarning, "The .grad attribute of a Tensor that is not a "
                     "leaf Tensor is being accessed. Its .grad attribute won't be populated "
                     "during autograd.backward(). If you indeed want the .grad field to be "
                     "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                     "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                     "access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/"
                     "30531 for more informations. (Triggered internally at  ./build/aten/"
                     "src/ATen/core/TensorBody.h:480.)", 1) < 0) {
        return NULL;
    }
    if (self->t->grad == NULL) {
        Py_RETURN_NONE;
    }
    return ctpy_wrap(self->t->grad);
}

static int
set_grad(CtTensorObject *self, PyObject *v, void *c)
{
    (void)c;
    if (v == NULL || v == Py_None) {
        ct_tensor_decref(self->t->grad);
        self->t->grad = NULL;
        return 0;
    }
    if (!ctpy_is_tensor(v)) {
        PyErr_SetString(PyExc_TypeError, "assigned grad expected to be a Tensor or None "
                        "but got grad of type %s");
        return -1;
    }
    ct_tensor *g = ctpy_tensor(v);
    if (g->dtype != self->t->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "assigned grad has data of a different type");
        return -1;
    }
    if (g->ndim != self->t->ndim ||
        memcmp(g->sizes, self->t->sizes, sizeof(int64_t) * (size_t)g->ndim) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "assigned grad has data of a different size");
        return -1;
    }
    ct_tensor_incref(g);
    ct_tensor_decref(self->t->grad);
    self->t->grad = g;
    return 0;
}

ct_tensor *
ctpy_alias(const ct_tensor *t)
{
    ct_tensor *r = ct_tensor_new(t->storage, t->offset, t->ndim, t->sizes,
                                 t->strides, t->dtype);
    if (r != NULL) {
        r->q_scale = t->q_scale;
        r->q_zero_point = t->q_zero_point;
    }
    return r;
}

static PyObject *
get_data(CtTensorObject *self, void *c)
{
    (void)c;
    return ctpy_result(ctpy_alias(self->t));
}

static int
set_data(CtTensorObject *self, PyObject *v, void *c)
{
    (void)c;
    if (v == NULL || !ctpy_is_tensor(v)) {
        PyErr_SetString(PyExc_TypeError, "Variable data has to be a tensor, but "
                        "got Variable");
        return -1;
    }
    ct_tensor *src = ctpy_tensor(v), *t = self->t;
    if (ct_tensor_set_geometry(t, src->ndim, src->sizes, src->strides) < 0) {
        return ctpy_raise_int();
    }
    ct_storage_incref(src->storage);
    ct_storage_decref(t->storage);
    t->storage = src->storage;
    t->offset = src->offset;
    t->dtype = src->dtype;
    t->q_scale = src->q_scale;
    t->q_zero_point = src->q_zero_point;
    return 0;
}

static PyObject *
get_base(CtTensorObject *self, void *c)
{
    (void)c;
    if (self->t->base == NULL) {
        Py_RETURN_NONE;
    }
    return ctpy_wrap(self->t->base);
}

static PyObject *
get_nbytes(CtTensorObject *self, void *c)
{
    (void)c;
    return PyLong_FromLongLong(self->t->numel *
                               (int64_t)ct_dtype_itemsize(self->t->dtype));
}

static PyObject *
get_itemsize(CtTensorObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(ct_dtype_itemsize(self->t->dtype));
}

static PyObject *
get_output_nr(CtTensorObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(ct_output_nr(self->t));
}

static PyObject *
get_version(CtTensorObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(atomic_load(&self->t->storage->version));
}

static PyGetSetDef tensor_getset[] = {
    {"shape", (getter)get_shape, NULL, NULL, NULL},
    {"dtype", (getter)get_dtype, NULL, NULL, NULL},
    {"device", (getter)get_device, NULL, NULL, NULL},
    {"ndim", (getter)get_ndim, NULL, NULL, NULL},
    {"requires_grad", (getter)get_requires_grad, (setter)set_requires_grad, NULL, NULL},
    {"is_leaf", (getter)get_is_leaf, NULL, NULL, NULL},
    {"grad_fn", (getter)get_grad_fn, NULL, NULL, NULL},
    {"grad", (getter)get_grad, (setter)set_grad, NULL, NULL},
    {"data", (getter)get_data, (setter)set_data, NULL, NULL},
    {"_base", (getter)get_base, NULL, NULL, NULL},
    {"is_quantized", (getter)get_is_quantized, NULL, NULL, NULL},
    {"is_cuda", (getter)get_is_cuda, NULL, NULL, NULL},
    {"is_cpu", (getter)get_is_cpu, NULL, NULL, NULL},
    {"is_sparse", (getter)get_false, NULL, NULL, NULL},
    {"is_mkldnn", (getter)get_false, NULL, NULL, NULL},
    {"is_meta", (getter)get_false, NULL, NULL, NULL},
    {"is_nested", (getter)get_false, NULL, NULL, NULL},
    {"nbytes", (getter)get_nbytes, NULL, NULL, NULL},
    {"itemsize", (getter)get_itemsize, NULL, NULL, NULL},
    {"output_nr", (getter)get_output_nr, NULL, NULL, NULL},
    {"_version", (getter)get_version, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* --- number slots -------------------------------------------------------- */
/* Operand as a tensor: borrowed when it is one, a new wrapped number when
 * it is a Python number, NULL (no exception) when it is neither. */
static ct_tensor *
operand(PyObject *o, bool *owned)
{
    *owned = false;
    if (ctpy_is_tensor(o)) {
        return ctpy_tensor(o);
    }
    ct_scalar s;
    int rc = ctpy_to_scalar(o, &s);
    if (rc != 0) {
        if (rc > 0) {
            PyErr_Clear();      /* not a number: NotImplemented */
        }
        return NULL;
    }
    *owned = true;
    return ct_scalar_tensor(s);
}

static PyObject *
binary_slot(ct_binary_op op, PyObject *a, PyObject *b, bool inplace)
{
    bool oa, ob;
    ct_tensor *ta = operand(a, &oa), *tb;
    if (ta == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    tb = operand(b, &ob);
    if (tb == NULL) {
        if (oa) {
            ct_tensor_decref(ta);
        }
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    ct_tensor *r;
    if (ta->numel + tb->numel > CTPY_GIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        r = ctag_binary(op, ta, tb, ct_scalar_int(1), inplace ? ta : NULL,
                      inplace ? CT_OUT_INPLACE : CT_OUT_NEW);
        Py_END_ALLOW_THREADS
    }
    else {
        r = ctag_binary(op, ta, tb, ct_scalar_int(1), inplace ? ta : NULL,
                      inplace ? CT_OUT_INPLACE : CT_OUT_NEW);
    }
    if (oa) {
        ct_tensor_decref(ta);
    }
    if (ob) {
        ct_tensor_decref(tb);
    }
    return ctpy_result(r);
}

/* a OP b and a OP= b for every binary operator */
#define SLOT(NAME, OP)                                                            \
    static PyObject *nb_##NAME(PyObject *a, PyObject *b)                         \
    {                                                                             \
        return binary_slot(OP, a, b, false);                                      \
    }                                                                             \
    static PyObject *nb_i##NAME(PyObject *a, PyObject *b)                        \
    {                                                                             \
        return binary_slot(OP, a, b, true);                                       \
    }
SLOT(add, CT_BINARY_ADD)
SLOT(sub, CT_BINARY_SUB)
SLOT(mul, CT_BINARY_MUL)
SLOT(div, CT_BINARY_DIV)
SLOT(floordiv, CT_BINARY_FLOOR_DIVIDE)
SLOT(rem, CT_BINARY_REMAINDER)
SLOT(and, CT_BINARY_BITWISE_AND)
SLOT(or, CT_BINARY_BITWISE_OR)
SLOT(xor, CT_BINARY_BITWISE_XOR)
SLOT(lshift, CT_BINARY_LSHIFT)
SLOT(rshift, CT_BINARY_RSHIFT)
#undef SLOT

/* a ** b; the modulo argument of pow() is refused as torch does */
static PyObject *
nb_pow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return binary_slot(CT_BINARY_POW, a, b, false);
}

static PyObject *
nb_ipow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return binary_slot(CT_BINARY_POW, a, b, true);
}

static PyObject *
nb_invert(PyObject *a)
{
    return ctpy_result(ctag_unary(CT_UNARY_BITWISE_NOT, ctpy_tensor(a), NULL, CT_OUT_NEW));
}

static PyObject *
nb_abs(PyObject *a)
{
    return ctpy_result(ctag_unary(CT_UNARY_ABS, ctpy_tensor(a), NULL, CT_OUT_NEW));
}

/* ==, !=, <, <=, >, >= : elementwise, bool tensors */
static PyObject *
tensor_richcompare(PyObject *a, PyObject *b, int op)
{
    static const ct_binary_op ops[] = {
        [Py_LT] = CT_BINARY_LT, [Py_LE] = CT_BINARY_LE, [Py_EQ] = CT_BINARY_EQ,
        [Py_NE] = CT_BINARY_NE, [Py_GT] = CT_BINARY_GT, [Py_GE] = CT_BINARY_GE,
    };
    return binary_slot(ops[op], a, b, false);
}

static PyObject *
nb_neg(PyObject *a)
{
    return ctpy_result(ctag_neg(ctpy_tensor(a)));
}

static PyObject *
nb_pos(PyObject *a)
{
    return Py_NewRef(a);
}

/* The value of a one-element t, read through a host copy when t lives on
 * a device (whose memory the host cannot read); -1 with a Python error. */
static int
host_value(const ct_tensor *t, ct_scalar *s)
{
    ct_tensor *h = NULL;
    if (ct_tensor_device(t).type != CT_DEVICE_CPU &&
        (t = h = ct_to_device(t, ct_device_cpu())) == NULL) {
        ctpy_raise();
        return -1;
    }
    *s = ct_tensor_item_at(t, 0);
    ct_tensor_decref(h);
    return 0;
}

/* int(t), float(t), bool(t), operator.index(t) */
static int
single_value(PyObject *self, ct_scalar *s, const char *what)
{
    ct_tensor *t = ctpy_tensor(self);
    if (t->numel != 1) {
        PyErr_SetString(PyExc_ValueError, what);
        return -1;
    }
    if (ct_dtype_table[t->dtype].is_quantized) {
        PyErr_SetString(PyExc_RuntimeError, "item() is not supported for quantized "
                        "tensors");
        return -1;
    }
    return host_value(t, s);
}

static PyObject *
nb_int(PyObject *self)
{
    ct_scalar s;
    if (single_value(self, &s, "only one element tensors can be converted to "
                     "Python scalars") < 0) {
        return NULL;
    }
    if (s.kind == CT_SCALAR_FLOAT) {
        PyObject *f = PyFloat_FromDouble(s.v.d);
        if (f == NULL) {
            return NULL;
        }
        PyObject *r = PyNumber_Long(f);
        Py_DECREF(f);
        return r;
    }
    return PyLong_FromLongLong(ct_scalar_to_int(s));
}

static PyObject *
nb_float(PyObject *self)
{
    ct_scalar s;
    if (single_value(self, &s, "only one element tensors can be converted to "
                     "Python scalars") < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(ct_scalar_to_double(s));
}

static PyObject *
nb_index(PyObject *self)
{
    ct_tensor *t = ctpy_tensor(self);
    if (t->numel != 1 || !ct_dtype_is_integral(t->dtype, true)) {
        PyErr_SetString(PyExc_TypeError, "only integer tensors of a single element "
                        "can be converted to an index");
        return NULL;
    }
    ct_scalar s;
    if (host_value(t, &s) < 0) {
        return NULL;
    }
    return PyLong_FromLongLong(ct_scalar_to_int(s));
}

static int
nb_bool(PyObject *self)
{
    ct_tensor *t = ctpy_tensor(self);
    if (t->numel == 0) {
        PyErr_SetString(PyExc_RuntimeError, "Boolean value of Tensor with no values "
                        "is ambiguous");
        return -1;
    }
    if (t->numel > 1) {
        PyErr_SetString(PyExc_RuntimeError, "Boolean value of Tensor with more than "
                        "one value is ambiguous");
        return -1;
    }
    ct_scalar s;
    if (host_value(t, &s) < 0) {
        return -1;
    }
    return ct_scalar_to_double(s) != 0.0;
}

static PyNumberMethods tensor_as_number = {
    .nb_add = nb_add,
    .nb_subtract = nb_sub,
    .nb_multiply = nb_mul,
    .nb_true_divide = nb_div,
    .nb_floor_divide = nb_floordiv,
    .nb_remainder = nb_rem,
    .nb_power = nb_pow,
    .nb_and = nb_and,
    .nb_or = nb_or,
    .nb_xor = nb_xor,
    .nb_lshift = nb_lshift,
    .nb_rshift = nb_rshift,
    .nb_invert = nb_invert,
    .nb_absolute = nb_abs,
    .nb_inplace_add = nb_iadd,
    .nb_inplace_subtract = nb_isub,
    .nb_inplace_multiply = nb_imul,
    .nb_inplace_true_divide = nb_idiv,
    .nb_inplace_floor_divide = nb_ifloordiv,
    .nb_inplace_remainder = nb_irem,
    .nb_inplace_power = nb_ipow,
    .nb_inplace_and = nb_iand,
    .nb_inplace_or = nb_ior,
    .nb_inplace_xor = nb_ixor,
    .nb_inplace_lshift = nb_ilshift,
    .nb_inplace_rshift = nb_irshift,
    .nb_negative = nb_neg,
    .nb_positive = nb_pos,
    .nb_bool = nb_bool,
    .nb_int = nb_int,
    .nb_float = nb_float,
    .nb_index = nb_index,
};

static Py_ssize_t
tensor_length(PyObject *self)
{
    ct_tensor *t = ctpy_tensor(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)t->sizes[0];
}

PyObject *ctpy_tensor_getitem(PyObject *self, PyObject *index);
int ctpy_tensor_setitem(PyObject *self, PyObject *index, PyObject *value);

static PyMappingMethods tensor_as_mapping = {
    .mp_length = tensor_length,
    .mp_subscript = ctpy_tensor_getitem,
    .mp_ass_subscript = ctpy_tensor_setitem,
};

PyTypeObject CtTensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torch._C._TensorBase",
    .tp_basicsize = sizeof(CtTensorObject),
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_as_number = &tensor_as_number,
    .tp_as_mapping = &tensor_as_mapping,
    .tp_richcompare = tensor_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)tensor_traverse,
    .tp_clear = (inquiry)tensor_clear,
    .tp_weaklistoffset = offsetof(CtTensorObject, weaklist),
    /* .tp_methods: merged at import (Note [Method tables]) */
    .tp_getset = tensor_getset,
    .tp_dictoffset = offsetof(CtTensorObject, dict),
    .tp_new = tensor_new,
};

int
ctpy_tensor_setup_type(void)
{
    return PyType_Ready(&CtTensor_Type);
}
