/* csrc/python/autograd.c -- autograd's Python face: grad_fn objects,
 * tensor and node hooks, the engine entry, grad mode, and custom
 * autograd.Function nodes.  The engine (csrc/autograd/) never sees Python:
 * hooks and Function backwards reach it as C callbacks defined here, which
 * take the GIL themselves (backward runs with the GIL released).
 *
 * Note [Node objects]
 * A C node's Python object (MulBackward0, ...) owns a reference to the
 * node and the node points back at it (borrowed), so grad_fn is the same
 * object while it lives.  A custom Function's node is the other way round:
 * the node owns its ctx object (the Python grad_fn, which holds the saved
 * tensors and the backward), and ctx->node is borrowed, cleared when the
 * node goes (PyTorch's PyNode / THPFunction arrangement).
 */
#include "ctpy.h"
#include "argparse.h"

#include <string.h>

typedef struct {
    PyObject_HEAD
    ct_node *node;          /* owned for C nodes, borrowed for Functions */
    bool owns;
    PyObject *dict;
    PyObject *weaklist;
} CtNodeObject;

static PyObject *node_types;        /* name -> Python type */
static PyObject *handle_class;      /* ctorch.utils.hooks.RemovableHandle */

static int
node_traverse(CtNodeObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int
node_clear(CtNodeObject *self)
{
    Py_CLEAR(self->dict);
    return 0;
}

static void
node_dealloc(CtNodeObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (self->weaklist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    if (self->node != NULL && self->owns) {
        self->node->pyobj = NULL;
        ct_node_decref(self->node);
    }
    node_clear(self);
    /* a heap subclass's subtype_dealloc drops the type reference itself */
    tp->tp_free((PyObject *)self);
}

static ct_node *
node_of(PyObject *self)
{
    ct_node *n = ((CtNodeObject *)self)->node;
    if (n == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the graph node behind this object was "
                        "already freed");
    }
    return n;
}

static PyTypeObject CtNode_Type;

/* The Python class for nodes called `name` (made on first use). */
static PyObject *
node_type_for(const char *name)
{
    PyObject *tp = PyDict_GetItemString(node_types, name);
    if (tp != NULL) {
        return tp;
    }
    tp = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){s:s}", name,
                               (PyObject *)&CtNode_Type, "__module__", "builtins");
    if (tp == NULL || PyDict_SetItemString(node_types, name, tp) < 0) {
        Py_XDECREF(tp);
        return NULL;
    }
    Py_DECREF(tp);
    return tp;
}

PyObject *
ctpy_node_wrap(ct_node *n)
{
    if (n == NULL) {
        Py_RETURN_NONE;
    }
    if (n->pyobj != NULL) {
        return Py_NewRef((PyObject *)n->pyobj);
    }
    PyTypeObject *tp = (PyTypeObject *)node_type_for(ct_node_name(n));
    if (tp == NULL) {
        return NULL;
    }
    CtNodeObject *o = (CtNodeObject *)tp->tp_alloc(tp, 0);
    if (o == NULL) {
        return NULL;
    }
    ct_node_incref(n);
    o->node = n;
    o->owns = true;
    n->pyobj = o;
    return (PyObject *)o;
}

static PyObject *
node_name(PyObject *self, PyObject *unused)
{
    (void)unused;
    ct_node *n = node_of(self);
    return n != NULL ? PyUnicode_FromString(ct_node_name(n)) : NULL;
}

static PyObject *
node_next_functions(PyObject *self, void *c)
{
    (void)c;
    ct_node *n = node_of(self);
    if (n == NULL) {
        return NULL;
    }
    PyObject *t = PyTuple_New(n->n_edges);
    for (int i = 0; t != NULL && i < n->n_edges; i++) {
        PyObject *fn = ctpy_node_wrap(n->edges[i].fn);
        PyObject *pair = fn != NULL ? Py_BuildValue("(Ni)", fn, n->edges[i].input_nr) : NULL;
        if (pair == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, pair);
    }
    return t;
}

static PyObject *
node_variable(PyObject *self, void *c)
{
    (void)c;
    ct_node *n = node_of(self);
    if (n == NULL) {
        return NULL;
    }
    if (n->variable == NULL) {
        PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute 'variable'",
                     ct_node_name(n));
        return NULL;
    }
    return ctpy_wrap(n->variable);
}

static PyObject *
node_metadata(PyObject *self, void *c)
{
    (void)c;
    CtNodeObject *o = (CtNodeObject *)self;
    if (o->dict == NULL && (o->dict = PyDict_New()) == NULL) {
        return NULL;
    }
    PyObject *md = PyDict_GetItemString(o->dict, "__metadata");
    if (md == NULL) {
        md = PyDict_New();
        if (md == NULL || PyDict_SetItemString(o->dict, "__metadata", md) < 0) {
            Py_XDECREF(md);
            return NULL;
        }
        return md;
    }
    return Py_NewRef(md);
}

/* --- hooks: C callbacks that call Python -------------------------------- */

static void
release_pyobj(void *ctx)
{
    PyGILState_STATE st = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(st);
}

/* Set the ct error from the Python exception (the engine reports it; the
 * binding turns it back into the same exception). */
static PyObject *pending_type, *pending_value, *pending_tb;

static int
hook_failed(void)
{
    Py_CLEAR(pending_type);
    Py_CLEAR(pending_value);
    Py_CLEAR(pending_tb);
    PyErr_Fetch(&pending_type, &pending_value, &pending_tb);
    return ct_error(CT_ERR_RUNTIME, "error in a Python hook");
}

static PyObject *
tuple_of(int n, ct_tensor *const *ts)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++) {
        PyObject *o = ts[i] != NULL ? ctpy_wrap(ts[i]) : Py_NewRef(Py_None);
        if (o == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, o);
    }
    return t;
}

/* Replace ts[0..n-1] from a sequence r of tensors / None. */
static int
replace_from(PyObject *r, int n, ct_tensor **ts, const char *what)
{
    PyObject *seq = PySequence_Fast(r, "hook must return a tuple");
    if (seq == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_RuntimeError, "%s hook returned an incorrect number of "
                     "gradients (expected %d, got %zd)", what, n,
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
        ct_tensor *t = NULL;
        if (o != Py_None) {
            if (!ctpy_is_tensor(o)) {
                PyErr_Format(PyExc_TypeError, "expected a Tensor or None from a %s hook",
                             what);
                Py_DECREF(seq);
                return -1;
            }
            t = ctpy_tensor(o);
            ct_tensor_incref(t);
        }
        ct_tensor_decref(ts[i]);
        ts[i] = t;
    }
    Py_DECREF(seq);
    return 0;
}

static int
tensor_hook(void *ctx, const ct_tensor *grad, ct_tensor **replace)
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = 0;
    PyObject *g = ctpy_wrap((ct_tensor *)grad);
    PyObject *r = g != NULL ? PyObject_CallOneArg((PyObject *)ctx, g) : NULL;
    Py_XDECREF(g);
    if (r == NULL) {
        rc = hook_failed();
    }
    else if (r != Py_None) {
        if (!ctpy_is_tensor(r)) {
            PyErr_SetString(PyExc_TypeError, "hook returned a non-Tensor");
            rc = hook_failed();
        }
        else {
            *replace = ctpy_tensor(r);
            ct_tensor_incref(*replace);
        }
    }
    Py_XDECREF(r);
    PyGILState_Release(st);
    return rc;
}

static int
node_prehook(void *ctx, int n, ct_tensor **grads)
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = 0;
    PyObject *args = tuple_of(n, grads);
    PyObject *r = args != NULL ? PyObject_CallOneArg((PyObject *)ctx, args) : NULL;
    Py_XDECREF(args);
    if (r == NULL || (r != Py_None && replace_from(r, n, grads, "prehook") < 0)) {
        rc = hook_failed();
    }
    Py_XDECREF(r);
    PyGILState_Release(st);
    return rc;
}

static int
node_posthook(void *ctx, int n_res, ct_tensor **results, int n_in, ct_tensor *const *grads_in)
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = 0;
    PyObject *a = tuple_of(n_res, results), *b = tuple_of(n_in, grads_in);
    PyObject *r = a != NULL && b != NULL
                      ? PyObject_CallFunctionObjArgs((PyObject *)ctx, a, b, NULL) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    if (r == NULL || (r != Py_None && replace_from(r, n_res, results, "hook") < 0)) {
        rc = hook_failed();
    }
    Py_XDECREF(r);
    PyGILState_Release(st);
    return rc;
}

/* A RemovableHandle(owner, id): owner._remove_hook(id) undoes it. */
static PyObject *
make_handle(PyObject *owner, int64_t id)
{
    if (handle_class == NULL) {
        return PyLong_FromLongLong(id);
    }
    return PyObject_CallFunction(handle_class, "OL", owner, (long long)id);
}

static PyObject *
node_register(PyObject *self, PyObject *fn, int kind, void *cfn)
{
    ct_node *n = node_of(self);
    if (n == NULL) {
        return NULL;
    }
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "hook must be callable");
        return NULL;
    }
    Py_INCREF(fn);
    int64_t id = ct_node_add_hook(n, kind, cfn, fn, release_pyobj);
    if (id < 0) {
        Py_DECREF(fn);
        return ctpy_raise();
    }
    return make_handle(self, id);
}

static PyObject *
node_register_hook(PyObject *self, PyObject *fn)
{
    return node_register(self, fn, CT_HOOK_NODE_POST, (void *)node_posthook);
}

static PyObject *
node_register_prehook(PyObject *self, PyObject *fn)
{
    return node_register(self, fn, CT_HOOK_NODE_PRE, (void *)node_prehook);
}

static PyObject *
node_remove_hook(PyObject *self, PyObject *id)
{
    ct_node *n = node_of(self);
    if (n == NULL) {
        return NULL;
    }
    ct_remove_hook(NULL, n, PyLong_AsLongLong(id));
    Py_RETURN_NONE;
}

static PyObject *
node_repr(PyObject *self)
{
    return PyUnicode_FromFormat("<%s object at %p>", Py_TYPE(self)->tp_name, self);
}

static PyMethodDef node_methods[] = {
    {"name", node_name, METH_NOARGS, NULL},
    {"register_hook", node_register_hook, METH_O, NULL},
    {"register_prehook", node_register_prehook, METH_O, NULL},
    {"_remove_hook", node_remove_hook, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef node_getset[] = {
    {"next_functions", node_next_functions, NULL, NULL, NULL},
    {"variable", node_variable, NULL, NULL, NULL},
    {"metadata", node_metadata, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CtNode_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctorch._C._Node",
    .tp_basicsize = sizeof(CtNodeObject),
    .tp_dealloc = (destructor)node_dealloc,
    .tp_repr = node_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)node_traverse,
    .tp_clear = (inquiry)node_clear,
    .tp_methods = node_methods,
    .tp_getset = node_getset,
    .tp_dictoffset = offsetof(CtNodeObject, dict),
    .tp_weaklistoffset = offsetof(CtNodeObject, weaklist),
    .tp_new = PyType_GenericNew,
};

/* --- tensor side ------------------------------------------------------------ */

static PyObject *
t_register_hook_c(PyObject *self, PyObject *fn)
{
    ct_tensor *t = ctpy_tensor(self);
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "hook must be callable");
        return NULL;
    }
    Py_INCREF(fn);
    int64_t id = ct_tensor_add_hook(t, tensor_hook, fn, release_pyobj);
    if (id < 0) {
        Py_DECREF(fn);
        return ctpy_raise();
    }
    return make_handle(self, id);
}

static PyObject *
t_remove_hook(PyObject *self, PyObject *id)
{
    ct_tensor *t = ctpy_tensor(self);
    long long k = PyLong_AsLongLong(id);
    if (!(ct_grad_fn(t) != NULL && ct_remove_hook(t, ct_grad_fn(t), k))) {
        ct_remove_hook(t, NULL, k);
    }
    Py_RETURN_NONE;
}

static PyObject *
t_retain_grad(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (ct_retain_grad(ctpy_tensor(self)) < 0) {
        return ctpy_raise();
    }
    Py_RETURN_NONE;
}

static PyObject *
t_retains_grad(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(ct_retains_grad(ctpy_tensor(self)));
}

PyMethodDef ctpy_autograd_methods[] = {
    {"register_hook", t_register_hook_c, METH_O, NULL},
    {"_remove_hook", t_remove_hook, METH_O, NULL},
    {"retain_grad", t_retain_grad, METH_NOARGS, NULL},
    {"_retains_grad", t_retains_grad, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* --- the engine entry --------------------------------------------------------- */

/* A sequence of tensors (or one tensor) as a new array of borrowed
 * pointers; allow_none keeps None entries as NULL. */
static int
tensor_seq(PyObject *o, const char *what, bool allow_none, Py_ssize_t *n, ct_tensor ***out)
{
    PyObject *seq = ctpy_is_tensor(o) ? PyTuple_Pack(1, o)
                                      : PySequence_Tuple(o);
    if (seq == NULL) {
        return -1;
    }
    *n = PyTuple_GET_SIZE(seq);
    *out = PyMem_Calloc((size_t)*n + 1, sizeof(ct_tensor *));
    if (*out == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *x = PyTuple_GET_ITEM(seq, i);
        if (x == Py_None && allow_none) {
            continue;
        }
        if (!ctpy_is_tensor(x)) {
            PyErr_Format(PyExc_TypeError, "%s must be tensors, got %s", what,
                         Py_TYPE(x)->tp_name);
            PyMem_Free(*out);
            *out = NULL;
            Py_DECREF(seq);
            return -1;
        }
        (*out)[i] = ctpy_tensor(x);
    }
    Py_DECREF(seq);     /* the caller keeps the objects alive */
    return 0;
}

static PyObject *
raise_engine_error(void)
{
    if (pending_type != NULL) {
        ct_error_clear();
        PyErr_Restore(pending_type, pending_value, pending_tb);
        pending_type = pending_value = pending_tb = NULL;
        return NULL;
    }
    return ctpy_raise();
}

/* _run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs,
 * allow_unused, accumulate_grad) -> tuple of input grads, or None. */
static PyObject *
fn_run_backward(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *tensors, *grads, *inputs;
    int keep, create, allow_unused, accumulate;
    Py_ssize_t n, ng, ni = 0;
    ct_tensor **roots = NULL, **gs = NULL, **ins = NULL, **res = NULL;
    PyObject *out = NULL;

    if (!PyArg_ParseTuple(args, "OOppOpp", &tensors, &grads, &keep, &create, &inputs,
                          &allow_unused, &accumulate)) {
        return NULL;
    }
    if (tensor_seq(tensors, "tensors", false, &n, &roots) < 0 ||
        tensor_seq(grads, "grad_tensors", true, &ng, &gs) < 0 ||
        (inputs != Py_None && tensor_seq(inputs, "inputs", false, &ni, &ins) < 0)) {
        goto done;
    }
    if (ng != n) {
        PyErr_Format(PyExc_RuntimeError, "got %zd tensors and %zd gradients", n, ng);
        goto done;
    }
    if (!accumulate && (res = PyMem_Calloc((size_t)ni + 1, sizeof(ct_tensor *))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ct_autograd_run((int)n, roots, gs, keep, create, (int)ni, ins, res, allow_unused);
    Py_END_ALLOW_THREADS
    if (ctpy_flush_warnings() < 0) {
        rc = -1;
    }
    if (rc < 0) {
        if (!PyErr_Occurred()) {
            raise_engine_error();
        }
        goto done;
    }
    if (accumulate) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    out = PyTuple_New(ni);
    for (Py_ssize_t i = 0; out != NULL && i < ni; i++) {
        PyObject *o = res[i] != NULL ? ctpy_wrap(res[i]) : Py_NewRef(Py_None);
        if (o == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, o);
    }
done:
    for (Py_ssize_t i = 0; res != NULL && i < ni; i++) {
        ct_tensor_decref(res[i]);
    }
    PyMem_Free(res);
    PyMem_Free(roots);
    PyMem_Free(gs);
    PyMem_Free(ins);
    return out;
}

static PyObject *
fn_is_grad_enabled(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyBool_FromLong(ct_grad_enabled());
}

static PyObject *
fn_set_grad_enabled(PyObject *self, PyObject *on)
{
    (void)self;
    if (!PyBool_Check(on)) {
        PyErr_Format(PyExc_TypeError, "enabled must be a bool (got %s)",
                     Py_TYPE(on)->tp_name);
        return NULL;
    }
    ct_set_grad_enabled(on == Py_True);
    Py_RETURN_NONE;
}

static PyObject *
fn_is_inference_mode_enabled(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyBool_FromLong(ct_inference_mode());
}

static PyObject *
fn_set_inference_mode(PyObject *self, PyObject *on)
{
    (void)self;
    ct_set_inference_mode(PyObject_IsTrue(on));
    Py_RETURN_NONE;
}

static PyObject *
fn_set_hook_handle_class(PyObject *self, PyObject *cls)
{
    (void)self;
    Py_XSETREF(handle_class, Py_NewRef(cls));
    Py_RETURN_NONE;
}

/* --- custom Functions ---------------------------------------------------- */
/* The node of a Function: extra = its ctx (owned); the type, one per
 * Function class, is kept for the life of the process (its name is the
 * class name + "Backward", as PyTorch names it). */

static int
py_function_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = 0;
    PyObject *ctx = n->extra;
    PyObject *grads = tuple_of(n->n_outputs, gi);
    PyObject *r = grads != NULL ? PyObject_CallMethod(ctx, "_do_backward", "(O)", grads)
                                : NULL;
    Py_XDECREF(grads);
    if (r == NULL || replace_from(r, n->n_edges, go, "function") < 0) {
        rc = hook_failed();
    }
    Py_XDECREF(r);
    PyGILState_Release(st);
    return rc;
}

static void
py_function_release(ct_node *n)
{
    PyGILState_STATE st = PyGILState_Ensure();
    CtNodeObject *ctx = n->extra;
    ctx->node = NULL;
    n->pyobj = NULL;
    Py_DECREF(ctx);
    PyGILState_Release(st);
}

static PyObject *function_types;    /* class name -> capsule(ct_node_type) */

/* 1 when the sequence holds o itself (tensors compare elementwise, so
 * `in` cannot be used), 0 if not, -1 on error. */
static int
contains_identical(PyObject *seq, PyObject *o)
{
    PyObject *f = PySequence_Fast(seq, "expected a sequence");
    if (f == NULL) {
        return -1;
    }
    int found = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(f) && !found; i++) {
        found = PySequence_Fast_GET_ITEM(f, i) == o;
    }
    Py_DECREF(f);
    return found;
}

static const ct_node_type *
function_type(PyObject *ctx)
{
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(ctx), "__name__");
    if (name == NULL) {
        return NULL;
    }
    PyObject *cap = PyDict_GetItemWithError(function_types, name);
    if (cap != NULL) {
        Py_DECREF(name);
        return PyCapsule_GetPointer(cap, NULL);
    }
    ct_node_type *t = PyMem_RawCalloc(1, sizeof *t);
    const char *s = PyUnicode_AsUTF8(name);
    char *copy = s != NULL ? PyMem_RawMalloc(strlen(s) + 1) : NULL;
    if (t == NULL || copy == NULL) {
        Py_DECREF(name);
        PyErr_NoMemory();
        return NULL;
    }
    strcpy(copy, s);
    t->name = copy;
    t->apply = py_function_apply;
    t->release = py_function_release;
    cap = PyCapsule_New(t, NULL, NULL);
    if (cap == NULL || PyDict_SetItem(function_types, name, cap) < 0) {
        Py_XDECREF(cap);
        Py_DECREF(name);
        return NULL;
    }
    Py_DECREF(cap);
    Py_DECREF(name);
    return t;
}

/* _function_record(ctx, inputs, outputs, dirty, non_differentiable) ->
 * outputs: ctx (an instance of a _Node subclass) becomes the grad_fn of the
 * outputs, with edges to the tensor inputs.  An output that is an input not
 * marked dirty is returned as a new alias; a dirty one keeps its object and
 * has its history rebased. */
static PyObject *
fn_function_record(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ctx, *inputs, *outputs, *dirty, *nondiff;
    if (!PyArg_ParseTuple(args, "OO!O!OO", &ctx, &PyTuple_Type, &inputs, &PyTuple_Type,
                          &outputs, &dirty, &nondiff)) {
        return NULL;
    }
    if (!PyObject_TypeCheck(ctx, &CtNode_Type)) {
        PyErr_SetString(PyExc_TypeError, "ctx must be a graph node");
        return NULL;
    }
    Py_ssize_t nin = PyTuple_GET_SIZE(inputs), nout = PyTuple_GET_SIZE(outputs);
    const ct_tensor **ins = PyMem_Calloc((size_t)nin + 1, sizeof *ins);
    PyObject *result = PyTuple_New(nout);
    ct_node *node = NULL;
    if (ins == NULL || result == NULL) {
        PyMem_Free(ins);
        Py_XDECREF(result);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nin; i++) {
        PyObject *x = PyTuple_GET_ITEM(inputs, i);
        ins[i] = ctpy_is_tensor(x) ? ctpy_tensor(x) : NULL;
    }
    bool rec = ct_any_requires_grad((int)nin, ins);
    if (rec) {
        const ct_node_type *type = function_type(ctx);
        if (type == NULL) {
            goto fail;
        }
        node = ct_node_new(type, (int)nin, (int)nout);
        if (node == NULL) {
            ctpy_raise();
            goto fail;
        }
        for (Py_ssize_t i = 0; i < nin; i++) {
            if (ins[i] != NULL && ct_requires_grad(ins[i])) {
                node->edges[i] = ct_gradient_edge((ct_tensor *)ins[i]);
            }
        }
        Py_INCREF(ctx);
        node->extra = ctx;
        node->pyobj = ctx;
        ((CtNodeObject *)ctx)->node = node;
        ((CtNodeObject *)ctx)->owns = false;
    }
    for (Py_ssize_t i = 0; i < nout; i++) {
        PyObject *o = PyTuple_GET_ITEM(outputs, i);
        if (!ctpy_is_tensor(o)) {
            PyTuple_SET_ITEM(result, i, Py_NewRef(o));
            continue;
        }
        ct_tensor *t = ctpy_tensor(o);
        bool is_input = false;
        for (Py_ssize_t j = 0; j < nin; j++) {
            is_input |= ins[j] == t;
        }
        int is_dirty = contains_identical(dirty, o);
        int is_nondiff = contains_identical(nondiff, o);
        if (is_dirty < 0 || is_nondiff < 0) {
            goto fail;
        }
        PyObject *res;
        if (is_input && !is_dirty) {
            /* an input returned as is: a new view of it */
            ct_tensor *alias = ct_tensor_view_of(t, t->offset, t->ndim, t->sizes, t->strides);
            res = alias != NULL ? ctpy_result(alias) : ctpy_raise();
        }
        else {
            res = Py_NewRef(o);
        }
        if (res == NULL) {
            goto fail;
        }
        PyTuple_SET_ITEM(result, i, res);
        if (rec && !is_nondiff && ct_dtype_is_floating(ctpy_tensor(res)->dtype)) {
            if (is_dirty && ct_is_leaf(t) && (t->flags & CT_TENSOR_REQUIRES_GRAD)) {
                PyErr_SetString(PyExc_RuntimeError, "a leaf Variable that requires grad "
                                "has been used in an in-place operation.");
                goto fail;
            }
            ct_set_history(ctpy_tensor(res), node, (int)i);
        }
    }
    if (node != NULL) {
        ct_node_decref(node);   /* the outputs own it (or nobody: it goes) */
    }
    PyMem_Free(ins);
    return result;
fail:
    if (node != NULL) {
        ct_node_decref(node);
    }
    PyMem_Free(ins);
    Py_DECREF(result);
    return NULL;
}

/* ctx.saved tensors come back through the node's saved slots, so the
 * version checks apply: _save_for_backward(ctx, tensors, is_output). */
static PyObject *
fn_function_saved(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ctx;
    if (!PyArg_ParseTuple(args, "O", &ctx) || !PyObject_TypeCheck(ctx, &CtNode_Type)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "ctx must be a graph node");
        }
        return NULL;
    }
    ct_node *n = ((CtNodeObject *)ctx)->node;
    PyObject *stash = PyObject_GetAttrString(ctx, "_to_save");
    if (stash == NULL) {
        return NULL;
    }
    if (n == NULL || stash == Py_None) {
        /* no graph was recorded: the tensors as given */
        PyObject *r = stash == Py_None ? PyTuple_New(0) : PySequence_Tuple(stash);
        Py_DECREF(stash);
        return r;
    }
    Py_DECREF(stash);
    if (n->released) {
        ct_node_unpack(n, 0);
        return ctpy_raise();
    }
    PyObject *r = PyTuple_New(n->n_saved);
    for (int i = 0; r != NULL && i < n->n_saved; i++) {
        ct_error_clear();
        ct_tensor *t = ct_node_unpack(n, i);
        if (t == NULL && ct_error_occurred()) {
            Py_DECREF(r);
            return ctpy_raise();
        }
        PyTuple_SET_ITEM(r, i, t != NULL ? ctpy_result(t) : Py_NewRef(Py_None));
    }
    return r;
}

/* After _function_record: move ctx._to_save into the node's slots
 * (outputs saved as outputs, so there is no cycle). */
static PyObject *
fn_function_commit_saved(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ctx, *tensors, *outputs;
    if (!PyArg_ParseTuple(args, "OOO", &ctx, &tensors, &outputs) ||
        !PyObject_TypeCheck(ctx, &CtNode_Type)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "ctx must be a graph node");
        }
        return NULL;
    }
    ct_node *n = ((CtNodeObject *)ctx)->node;
    if (n == NULL) {
        Py_RETURN_NONE;
    }
    Py_ssize_t k = PySequence_Size(tensors);
    if (k > CT_NODE_MAX_SAVED) {
        /* more than the node holds: keep them in the ctx instead */
        return PyLong_FromLong(0);
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *o = PySequence_GetItem(tensors, i);
        if (o == NULL) {
            return NULL;
        }
        int out = o != Py_None ? contains_identical(outputs, o) : 0;
        int rc = out < 0 ? -1 : ct_node_save(n, (int)i, o != Py_None ? ctpy_tensor(o) : NULL,
                                             out == 1);
        Py_DECREF(o);
        if (rc < 0) {
            return out < 0 ? NULL : ctpy_raise();
        }
    }
    n->n_saved = (int)k;
    return PyLong_FromLong(1);
}

static PyObject *
fn_node_needs_input_grad(PyObject *self, PyObject *ctx)
{
    (void)self;
    if (!PyObject_TypeCheck(ctx, &CtNode_Type)) {
        PyErr_SetString(PyExc_TypeError, "ctx must be a graph node");
        return NULL;
    }
    ct_node *n = ((CtNodeObject *)ctx)->node;
    if (n == NULL) {
        Py_RETURN_NONE;
    }
    PyObject *t = PyTuple_New(n->n_edges);
    for (int i = 0; t != NULL && i < n->n_edges; i++) {
        PyTuple_SET_ITEM(t, i, PyBool_FromLong(ct_node_needs(n, i)));
    }
    return t;
}

/* A queued final callback: call it with the GIL (the engine runs without). */
static int
final_callback_call(void *ctx)
{
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *r = PyObject_CallNoArgs((PyObject *)ctx);
    int rc = r != NULL ? 0 : hook_failed();
    Py_XDECREF(r);
    PyGILState_Release(st);
    return rc;
}

/* _queue_callback(fn): Variable._execution_engine.queue_callback. */
static PyObject *
fn_queue_callback(PyObject *self, PyObject *fn)
{
    (void)self;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the callback must be callable");
        return NULL;
    }
    Py_INCREF(fn);
    if (ct_autograd_queue_callback(final_callback_call, fn, release_pyobj) < 0) {
        Py_DECREF(fn);
        return ctpy_raise();
    }
    Py_RETURN_NONE;
}

PyMethodDef ctpy_autograd_functions[] = {
    {"_run_backward", fn_run_backward, METH_VARARGS, NULL},
    {"_queue_callback", fn_queue_callback, METH_O, NULL},
    {"is_grad_enabled", fn_is_grad_enabled, METH_NOARGS, NULL},
    {"_set_grad_enabled", fn_set_grad_enabled, METH_O, NULL},
    {"is_inference_mode_enabled", fn_is_inference_mode_enabled, METH_NOARGS, NULL},
    {"_set_inference_mode", fn_set_inference_mode, METH_O, NULL},
    {"_set_hook_handle_class", fn_set_hook_handle_class, METH_O, NULL},
    {"_function_record", fn_function_record, METH_VARARGS, NULL},
    {"_function_commit_saved", fn_function_commit_saved, METH_VARARGS, NULL},
    {"_function_saved", fn_function_saved, METH_VARARGS, NULL},
    {"_function_needs_input_grad", fn_node_needs_input_grad, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int
ctpy_autograd_init(PyObject *m)
{
    if (PyType_Ready(&CtNode_Type) < 0) {
        return -1;
    }
    node_types = PyDict_New();
    function_types = PyDict_New();
    if (node_types == NULL || function_types == NULL) {
        return -1;
    }
    return PyModule_AddObjectRef(m, "_Node", (PyObject *)&CtNode_Type);
}
