/* csrc/python/random.c -- torch.Generator and the random sampling
 * functions and Tensor methods (include/ctorch/random.h), merged into _C
 * by module.c (Note [Method tables]).
 *
 * Every sampler takes `generator=`: a torch.Generator used for that call
 * only, or None for the default generator (_C.default_generator, which
 * wraps ct_default_generator()).  Parsed tensors and generators are
 * borrowed from the arguments; the C ops run with the GIL released on
 * large tensors, holding only the generator's own lock.
 */
#include "argparse.h"

#include <ctorch/cuda.h>

#define FASTCALL PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames
#define FN(name) static PyObject *name(PyObject *self, FASTCALL)

/* --- torch.Generator ------------------------------------------------------- */
static PyObject *default_generator_obj;     /* owned by the module */

/* The generator of a parsed `Generator? generator` argument (NULL: the
 * default one). */
static ct_generator *
gen_of(const ctpy_arg *a)
{
    return a->is_none ? NULL : ((CtGeneratorObject *)a->obj)->gen;
}

PyDoc_STRVAR(generator_doc,
"Generator(device='cpu') -> Generator\n\n"
"Creates and returns a generator object that manages the state of the\n"
"algorithm which produces pseudo random numbers (PyTorch's mt19937 CPU\n"
"generator, bit for bit).  A new generator is seeded with 67280421310721.");

static PyObject *
generator_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *dev = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > 1) {
        PyErr_Format(PyExc_TypeError, "Generator() takes at most 1 argument (%zd given)", n);
        return NULL;
    }
    if (n == 1) {
        dev = PyTuple_GET_ITEM(args, 0);
    }
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyObject *d = PyDict_GetItemString(kwargs, "device");
        if (d == NULL || PyDict_GET_SIZE(kwargs) > 1 || dev != NULL) {
            PyErr_SetString(PyExc_TypeError, "Generator() takes only the argument "
                            "'device'");
            return NULL;
        }
        dev = d;
    }
    ct_device d = ct_device_cpu();
    if (dev != NULL && dev != Py_None) {
        int rc = ctpy_to_device(dev, &d);
        if (rc != 0) {
            if (rc > 0) {
                PyErr_Format(PyExc_TypeError, "Generator(): argument 'device' must be "
                             "torch.device, not %s", Py_TYPE(dev)->tp_name);
            }
            return NULL;
        }
        if (d.type == CT_DEVICE_CUDA && ct_cuda_is_built()) {
            if (ctpy_device_ready(&d) < 0) {
                return NULL;
            }
        }
        else if (d.type != CT_DEVICE_CPU) {
            /* PyTorch names the type in capitals ("CUDA") */
            char name[32];
            const char *s = ct_device_type_name(d.type);
            size_t i;
            for (i = 0; s[i] != '\0' && i + 1 < sizeof name; i++) {
                name[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 'A' : s[i]);
            }
            name[i] = '\0';
            PyErr_Format(PyExc_RuntimeError, "Device type %s is not supported for "
                         "torch.Generator() api.", name);
            return NULL;
        }
    }
    CtGeneratorObject *self = (CtGeneratorObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->gen = ct_generator_new_on(d);
    if (self->gen == NULL) {
        Py_DECREF(self);
        return ctpy_raise();
    }
    return (PyObject *)self;
}

static void
generator_dealloc(CtGeneratorObject *self)
{
    ct_generator_free(self->gen);       /* default generators are left alone */
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* manual_seed(seed): a Python int in [-2^63, 2^64); a negative seed is
 * taken modulo 2^64.  Returns the generator. */
static PyObject *
generator_manual_seed(CtGeneratorObject *self, PyObject *seed)
{
    if (!PyLong_Check(seed) || PyBool_Check(seed)) {
        PyErr_Format(PyExc_RuntimeError, "manual_seed expected a long, but got %s",
                     Py_TYPE(seed)->tp_name);
        return NULL;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(seed);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
            return NULL;
        }
        PyErr_Clear();
        int overflow;
        long long s = PyLong_AsLongLongAndOverflow(seed, &overflow);
        if (overflow) {
            PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            return NULL;
        }
        if (s == -1 && PyErr_Occurred()) {
            return NULL;
        }
        v = (unsigned long long)s;
    }
    ct_generator_manual_seed(self->gen, v);
    return Py_NewRef(self);
}

static PyObject *
generator_seed(CtGeneratorObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(ct_generator_seed(self->gen));
}

static PyObject *
generator_initial_seed(CtGeneratorObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(ct_generator_initial_seed(self->gen));
}

static PyObject *
generator_get_state(CtGeneratorObject *self, PyObject *unused)
{
    (void)unused;
    return ctpy_result(ct_generator_state_tensor(self->gen));
}

static PyObject *
generator_set_state(CtGeneratorObject *self, PyObject *state)
{
    if (!ctpy_is_tensor(state)) {
        PyErr_Format(PyExc_TypeError, "expected a torch.ByteTensor, but got %s",
                     Py_TYPE(state)->tp_name);
        return NULL;
    }
    if (ct_generator_set_state_tensor(self->gen, ctpy_tensor(state)) < 0) {
        return ctpy_raise();
    }
    return Py_NewRef(self);
}

static PyObject *
generator_device(CtGeneratorObject *self, void *closure)
{
    (void)closure;
    return ctpy_device_new(ct_generator_device(self->gen));
}

static PyMethodDef generator_methods[] = {
    {"manual_seed", (PyCFunction)generator_manual_seed, METH_O,
     "manual_seed(seed) -> Generator\n\nSets the seed for generating random numbers."},
    {"seed", (PyCFunction)generator_seed, METH_NOARGS,
     "seed() -> int\n\nSeeds from the OS and returns the seed."},
    {"initial_seed", (PyCFunction)generator_initial_seed, METH_NOARGS,
     "initial_seed() -> int\n\nThe initial seed of the generator."},
    {"get_state", (PyCFunction)generator_get_state, METH_NOARGS,
     "get_state() -> Tensor\n\nThe state as a torch.ByteTensor."},
    {"set_state", (PyCFunction)generator_set_state, METH_O,
     "set_state(new_state) -> Generator\n\nRestores a state from get_state()."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef generator_getset[] = {
    {"device", (getter)generator_device, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject CtGenerator_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torch._C.Generator",
    .tp_basicsize = sizeof(CtGeneratorObject),
    .tp_dealloc = (destructor)generator_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = generator_doc,
    .tp_methods = generator_methods,
    .tp_getset = generator_getset,
    .tp_new = generator_new,
};

/* _cuda_default_generator(index): the default generator of a CUDA device
 * as a Generator that borrows it (torch.cuda.default_generators holds them). */
static PyObject *
cuda_default_generator(PyObject *self, PyObject *arg)
{
    (void)self;
    long index = PyLong_AsLong(arg);
    if (index == -1 && PyErr_Occurred()) {
        return NULL;
    }
    ct_generator *g = ct_cuda_default_generator((int)index);
    if (g == NULL) {
        return ctpy_raise();
    }
    CtGeneratorObject *o = PyObject_New(CtGeneratorObject, &CtGenerator_Type);
    if (o != NULL) {
        o->gen = g;
    }
    return (PyObject *)o;
}

static PyMethodDef random_functions[] = {
    {"_cuda_default_generator", cuda_default_generator, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int
ctpy_random_init(PyObject *m)
{
    if (PyType_Ready(&CtGenerator_Type) < 0 ||
        PyModule_AddObjectRef(m, "Generator", (PyObject *)&CtGenerator_Type) < 0) {
        return -1;
    }
    CtGeneratorObject *d = PyObject_New(CtGeneratorObject, &CtGenerator_Type);
    if (d == NULL) {
        return -1;
    }
    d->gen = ct_default_generator();
    default_generator_obj = (PyObject *)d;
    if (PyModule_AddFunctions(m, random_functions) < 0) {
        return -1;
    }
    return PyModule_AddObjectRef(m, "default_generator", default_generator_obj);
}

/* --- shared tails ---------------------------------------------------------- */
/* The factory keywords after size (and generator): six parameters. */
#define TAIL "Tensor? out=None, ScalarType? dtype=None, object? layout=None, " \
             "Device? device=None, bool pin_memory=False, bool requires_grad=False"
#define LIKE_TAIL "ScalarType? dtype=None, object? layout=None, Device? device=None, " \
                  "bool pin_memory=False, bool requires_grad=False, " \
                  "object? memory_format=None"

/* What a factory samples into its new tensor. */
typedef enum { SAMPLE_UNIFORM, SAMPLE_NORMAL, SAMPLE_RANGE } sample_kind;

typedef struct {
    sample_kind kind;
    double a, b;                /* uniform's from/to, normal's mean/std */
    int64_t low, high;          /* randint's bounds */
} sampler;

static int
sample(ct_tensor *t, const sampler *s, ct_generator *g)
{
    switch (s->kind) {
    case SAMPLE_UNIFORM:
        return ct_uniform_(t, s->a, s->b, g);
    case SAMPLE_NORMAL:
        return ct_normal_(t, s->a, s->b, g);
    case SAMPLE_RANGE:
        return ct_random_range_(t, s->low, &s->high, g);
    }
    return 0;
}

/* Run an in-place sampler with the GIL released on large tensors. */
static int
run_sample(ct_tensor *t, const sampler *s, ct_generator *g)
{
    int rc;
    CTPY_RUN(t->numel, rc = sample(t, s, g));
    return rc;
}

static bool
same_shape(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    if (t->ndim != ndim) {
        return false;
    }
    for (int d = 0; d < ndim; d++) {
        if (t->sizes[d] != sizes[d]) {
            return false;
        }
    }
    return true;
}

/* rand / randn / randint / normal(float, float, size): sample into a new
 * tensor, or into out= (resized) where it is given, so that out's own
 * layout decides the draw order as in PyTorch.  tail points at the six
 * TAIL parameters. */
static PyObject *
sample_factory(const sampler *s, int ndim, const int64_t *sizes, ct_dtype fallback,
               const ctpy_arg *gen, const ctpy_arg *tail)
{
    const ctpy_arg *out = &tail[0], *dtype = &tail[1], *device = &tail[3];
    ct_dtype d = ctpy_factory_dtype(out, dtype, fallback);
    ct_device dev = device->is_none ? ct_device_cpu() : device->device;
    ct_tensor *t;

    if (d == CT_DTYPE_COUNT || (dev.type != CT_DEVICE_CPU && ctpy_device_ready(&dev) < 0)) {
        return NULL;
    }
    if (!out->is_none) {
        /* resized only when its shape differs: out's strides decide the
         * order of the draws */
        t = out->t;
        if ((!same_shape(t, ndim, sizes) && ct_tensor_resize_(t, ndim, sizes) < 0) ||
            run_sample(t, s, gen_of(gen)) < 0) {
            return ctpy_raise();
        }
        ctpy_bump(t);
        ct_tensor_incref(t);
        return ctpy_result(t);
    }
    if ((t = ct_empty(ndim, sizes, d, dev)) == NULL) {
        return ctpy_raise();
    }
    if (run_sample(t, s, gen_of(gen)) < 0) {
        ct_tensor_decref(t);
        return ctpy_raise();
    }
    return ctpy_finish_factory(t, NULL, NULL, &tail[5]);
}

/* Copy an op's result into out= (resized to it) when out is given.  Takes
 * over the reference to res (NULL: raise); returns a new reference. */
static PyObject *
result_or_out(ct_tensor *res, const ctpy_arg *out)
{
    if (res == NULL) {
        return ctpy_raise();
    }
    if (out->is_none) {
        return ctpy_result(res);
    }
    int rc = same_shape(out->t, res->ndim, res->sizes)
                 ? 0 : ct_tensor_resize_(out->t, res->ndim, res->sizes);
    if (rc == 0) {
        rc = ct_copy_(out->t, res);
    }
    ct_tensor_decref(res);
    if (rc < 0) {
        return ctpy_raise();
    }
    ctpy_bump(out->t);
    return Py_NewRef(out->obj);
}

/* --- factories ------------------------------------------------------------- */
FN(fn_rand)
{
    static ctpy_sig sig = CTPY_SIG("rand(int[] size, *, Generator? generator=None, " TAIL
                                   ", object? names=None)");
    ctpy_arg v[9];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    sampler s = {SAMPLE_UNIFORM, 0, 1, 0, 0};
    return sample_factory(&s, v[0].n, v[0].list, ct_default_dtype(), &v[1], &v[2]);
}

FN(fn_randn)
{
    static ctpy_sig sig = CTPY_SIG("randn(int[] size, *, Generator? generator=None, " TAIL
                                   ", object? names=None)");
    ctpy_arg v[9];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    sampler s = {SAMPLE_NORMAL, 0, 1, 0, 0};
    return sample_factory(&s, v[0].n, v[0].list, ct_default_dtype(), &v[1], &v[2]);
}

/* torch takes only a sequence for a size that is not the sole positional
 * parameter: randint(3, 4) is an error, not randint(3, (4,)). */
static int
check_size_sequence(const char *fname, const ctpy_arg *size, int position)
{
    if (size->given && PyLong_Check(size->obj)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'size' (position %d) must be "
                     "tuple of ints, not int", fname, position);
        return -1;
    }
    return 0;
}

FN(fn_randint)
{
    static ctpy_sig s1 = CTPY_SIG("randint(int high, int[] size, *, "
                                  "Generator? generator=None, " TAIL ")");
    static ctpy_sig s2 = CTPY_SIG("randint(int low, int high, int[] size, *, "
                                  "Generator? generator=None, " TAIL ")");
    static ctpy_sig *sigs[] = {&s1, &s2};
    ctpy_arg v[10];
    (void)self;
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    int k = which;              /* v[k] high, v[k + 1] size */
    if (check_size_sequence("randint", &v[k + 1], k + 2) < 0) {
        return NULL;
    }
    sampler s = {SAMPLE_RANGE, 0, 0, which == 0 ? 0 : v[0].i, v[k].i};
    return sample_factory(&s, v[k + 1].n, v[k + 1].list, CT_DTYPE_INT64, &v[k + 2],
                          &v[k + 3]);
}

FN(fn_randperm)
{
    static ctpy_sig sig = CTPY_SIG("randperm(int n, *, Generator? generator=None, " TAIL
                                   ")");
    ctpy_arg v[8];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ctpy_arg *out = &v[2], *device = &v[5];
    ct_dtype d = ctpy_factory_dtype(out, &v[3], CT_DTYPE_INT64);
    if (d == CT_DTYPE_COUNT) {
        return NULL;
    }
    ct_device dev = device->is_none ? ct_device_cpu() : device->device;
    if (dev.type != CT_DEVICE_CPU && ctpy_device_ready(&dev) < 0) {
        return NULL;
    }
    ct_tensor *t;
    CTPY_RUN(v[0].i, t = ct_randperm_on(v[0].i, d, dev, gen_of(&v[1])));
    if (t == NULL || out->is_none) {
        return ctpy_finish_factory(t, NULL, NULL, &v[7]);
    }
    return result_or_out(t, out);
}

/* rand_like / randn_like / randint_like: a tensor shaped like input
 * (dense layouts kept, as empty_like), sampled.  No generator in 1.13. */
static PyObject *
like_factory(const sampler *s, const ctpy_arg *input, const ctpy_arg *tail,
             const char *fname)
{
    ct_tensor *in = input->t;
    ct_dtype d = tail[0].is_none ? in->dtype : tail[0].dtype;
    ctpy_memfmt fmt;
    int64_t strides[CT_MAX_DIMS];
    if (ctpy_to_memory_format(tail[5].obj, CTPY_MEMFMT_PRESERVE, fname, &fmt) < 0 ||
        ctpy_memfmt_strides(fmt, in, strides) < 0) {
        return NULL;
    }
    ct_device dev = tail[2].is_none ? ct_tensor_device(in) : tail[2].device;
    if (dev.type != CT_DEVICE_CPU && ctpy_device_ready(&dev) < 0) {
        return NULL;
    }
    ct_tensor *t = ct_empty_strided(in->ndim, in->sizes, strides, d, dev);
    if (t == NULL) {
        return ctpy_raise();
    }
    if (run_sample(t, s, NULL) < 0) {
        ct_tensor_decref(t);
        return ctpy_raise();
    }
    return ctpy_finish_factory(t, NULL, NULL, &tail[4]);
}

FN(fn_rand_like)
{
    static ctpy_sig sig = CTPY_SIG("rand_like(Tensor input, *, " LIKE_TAIL ")");
    ctpy_arg v[7];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    sampler s = {SAMPLE_UNIFORM, 0, 1, 0, 0};
    return like_factory(&s, &v[0], &v[1], "rand_like");
}

FN(fn_randn_like)
{
    static ctpy_sig sig = CTPY_SIG("randn_like(Tensor input, *, " LIKE_TAIL ")");
    ctpy_arg v[7];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    sampler s = {SAMPLE_NORMAL, 0, 1, 0, 0};
    return like_factory(&s, &v[0], &v[1], "randn_like");
}

FN(fn_randint_like)
{
    static ctpy_sig s1 = CTPY_SIG("randint_like(Tensor input, int high, *, " LIKE_TAIL ")");
    static ctpy_sig s2 = CTPY_SIG("randint_like(Tensor input, int low, int high, *, "
                                  LIKE_TAIL ")");
    static ctpy_sig *sigs[] = {&s1, &s2};
    ctpy_arg v[9];
    (void)self;
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    sampler s = {SAMPLE_RANGE, 0, 0, which == 0 ? 0 : v[1].i, v[1 + which].i};
    return like_factory(&s, &v[0], &v[2 + which], "randint_like");
}

/* torch.normal's four overloads (Note [normal with tensors]). */
FN(fn_normal)
{
    static ctpy_sig s1 = CTPY_SIG("normal(Tensor mean, Tensor std, *, "
                                  "Generator? generator=None, Tensor? out=None)");
    static ctpy_sig s2 = CTPY_SIG("normal(Tensor mean, float std=1, *, "
                                  "Generator? generator=None, Tensor? out=None)");
    static ctpy_sig s3 = CTPY_SIG("normal(float mean, Tensor std, *, "
                                  "Generator? generator=None, Tensor? out=None)");
    static ctpy_sig s4 = CTPY_SIG("normal(float mean, float std, int[] size, *, "
                                  "Generator? generator=None, " TAIL ")");
    static ctpy_sig *sigs[] = {&s1, &s2, &s3, &s4};
    ctpy_arg v[10];
    ct_tensor *r;
    (void)self;
    int which = ctpy_parse_overloads(sigs, 4, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    if (which == 3) {
        if (check_size_sequence("normal", &v[2], 3) < 0) {
            return NULL;
        }
        sampler s = {SAMPLE_NORMAL, v[0].d, v[1].d, 0, 0};
        return sample_factory(&s, v[2].n, v[2].list, ct_default_dtype(), &v[3], &v[4]);
    }
    const ct_tensor *mean_t = which != 2 ? v[0].t : NULL;
    const ct_tensor *std_t = which != 1 ? v[1].t : NULL;
    int64_t numel = (mean_t ? mean_t->numel : 0) + (std_t ? std_t->numel : 0);
    CTPY_RUN(numel, r = ct_normal(mean_t, v[0].d, std_t, v[1].d, gen_of(&v[2])));
    return result_or_out(r, &v[3]);
}

static PyObject *
impl_bernoulli(FASTCALL)
{
    static ctpy_sig s1 = CTPY_SIG("bernoulli(Tensor input, *, Generator? generator=None, "
                                  "Tensor? out=None)");
    static ctpy_sig s2 = CTPY_SIG("bernoulli(Tensor input, float p, *, "
                                  "Generator? generator=None)");
    static ctpy_sig *sigs[] = {&s1, &s2};
    ctpy_arg v[3];
    ct_tensor *r;
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    ct_tensor *in = v[0].t;
    if (which == 0) {
        CTPY_RUN(in->numel, r = ct_bernoulli(in, gen_of(&v[1])));
        return result_or_out(r, &v[2]);
    }
    r = ct_empty(in->ndim, in->sizes, in->dtype, ct_tensor_device(in));
    int rc = -1;
    if (r != NULL) {
        CTPY_RUN(in->numel, rc = ct_bernoulli_(r, v[1].d, gen_of(&v[2])));
    }
    if (rc < 0) {
        ct_tensor_decref(r);
        return ctpy_raise();
    }
    return ctpy_result(r);
}

FN(fn_bernoulli)
{
    (void)self;
    return impl_bernoulli(args, nargs, kwnames);
}

static PyObject *
impl_multinomial(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("multinomial(Tensor input, int num_samples, "
                                   "bool replacement=False, *, Generator? generator=None, "
                                   "Tensor? out=None)");
    ctpy_arg v[5];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    CTPY_RUN(v[0].t->numel + v[1].i,
             r = ct_multinomial(v[0].t, v[1].i, v[2].b, gen_of(&v[3])));
    return result_or_out(r, &v[4]);
}

FN(fn_multinomial)
{
    (void)self;
    return impl_multinomial(args, nargs, kwnames);
}

FN(fn_poisson)
{
    static ctpy_sig sig = CTPY_SIG("poisson(Tensor input, Generator? generator=None)");
    ctpy_arg v[2];
    ct_tensor *r;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    CTPY_RUN(v[0].t->numel, r = ct_poisson(v[0].t, gen_of(&v[1])));
    return ctpy_result(r);
}

/* --- in-place Tensor methods ----------------------------------------------- */
/* An in-place sampler on self: autograd's leaf check first; self is
 * returned, its version bumped. */
static int
inplace_begin(PyObject *self)
{
    return ct_check_inplace(ctpy_tensor(self)) < 0 ? ctpy_raise_int() : 0;
}

static PyObject *
inplace_done(PyObject *self, int rc)
{
    if (rc < 0) {
        return ctpy_raise();
    }
    ctpy_bump(ctpy_tensor(self));
    if (ct_warning_pending() && ctpy_flush_warnings() < 0) {
        return NULL;
    }
    return Py_NewRef(self);
}

/* A method with two float parameters and a generator: op(t, a, b, gen). */
typedef int (*two_float_op)(ct_tensor *t, double a, double b, ct_generator *gen);

static PyObject *
two_float_method(ctpy_sig *sig, two_float_op op, PyObject *self, FASTCALL)
{
    ctpy_arg v[3];
    int rc;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0 || inplace_begin(self) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self);
    CTPY_RUN(t->numel, rc = op(t, v[0].d, v[1].d, gen_of(&v[2])));
    return inplace_done(self, rc);
}

FN(t_uniform_)
{
    static ctpy_sig sig = CTPY_SIG("uniform_(float from=0, float to=1, *, "
                                   "Generator? generator=None)");
    return two_float_method(&sig, ct_uniform_, self, args, nargs, kwnames);
}

FN(t_normal_)
{
    static ctpy_sig sig = CTPY_SIG("normal_(float mean=0, float std=1, *, "
                                   "Generator? generator=None)");
    return two_float_method(&sig, ct_normal_, self, args, nargs, kwnames);
}

FN(t_log_normal_)
{
    static ctpy_sig sig = CTPY_SIG("log_normal_(float mean=1, float std=2, *, "
                                   "Generator? generator=None)");
    return two_float_method(&sig, ct_log_normal_, self, args, nargs, kwnames);
}

FN(t_cauchy_)
{
    static ctpy_sig sig = CTPY_SIG("cauchy_(float median=0, float sigma=1, *, "
                                   "Generator? generator=None)");
    return two_float_method(&sig, ct_cauchy_, self, args, nargs, kwnames);
}

/* A method with one float parameter and a generator. */
typedef int (*one_float_op)(ct_tensor *t, double a, ct_generator *gen);

static PyObject *
one_float_method(ctpy_sig *sig, one_float_op op, PyObject *self, FASTCALL)
{
    ctpy_arg v[2];
    int rc;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0 || inplace_begin(self) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self);
    CTPY_RUN(t->numel, rc = op(t, v[0].d, gen_of(&v[1])));
    return inplace_done(self, rc);
}

FN(t_exponential_)
{
    static ctpy_sig sig = CTPY_SIG("exponential_(float lambd=1, *, "
                                   "Generator? generator=None)");
    return one_float_method(&sig, ct_exponential_, self, args, nargs, kwnames);
}

FN(t_geometric_)
{
    static ctpy_sig sig = CTPY_SIG("geometric_(float p, *, Generator? generator=None)");
    return one_float_method(&sig, ct_geometric_, self, args, nargs, kwnames);
}

FN(t_random_)
{
    static ctpy_sig s1 = CTPY_SIG("random_(*, Generator? generator=None)");
    static ctpy_sig s2 = CTPY_SIG("random_(int from, int? to, *, "
                                  "Generator? generator=None)");
    static ctpy_sig s3 = CTPY_SIG("random_(int to, *, Generator? generator=None)");
    static ctpy_sig *sigs[] = {&s1, &s2, &s3};
    ctpy_arg v[3];
    int rc;
    int which = ctpy_parse_overloads(sigs, 3, args, nargs, kwnames, v);
    if (which < 0 || inplace_begin(self) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self);
    if (which == 0) {
        CTPY_RUN(t->numel, rc = ct_random_(t, gen_of(&v[0])));
    }
    else if (which == 1) {
        const int64_t *to = v[1].is_none ? NULL : &v[1].i;
        CTPY_RUN(t->numel, rc = ct_random_range_(t, v[0].i, to, gen_of(&v[2])));
    }
    else {
        CTPY_RUN(t->numel, rc = ct_random_range_(t, 0, &v[0].i, gen_of(&v[1])));
    }
    return inplace_done(self, rc);
}

FN(t_bernoulli_)
{
    static ctpy_sig s1 = CTPY_SIG("bernoulli_(Tensor p, *, Generator? generator=None)");
    static ctpy_sig s2 = CTPY_SIG("bernoulli_(float p=0.5, *, Generator? generator=None)");
    static ctpy_sig *sigs[] = {&s1, &s2};
    ctpy_arg v[2];
    int rc;
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0 || inplace_begin(self) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self);
    if (which == 0) {
        CTPY_RUN(t->numel, rc = ct_bernoulli_tensor_(t, v[0].t, gen_of(&v[1])));
    }
    else {
        CTPY_RUN(t->numel, rc = ct_bernoulli_(t, v[0].d, gen_of(&v[1])));
    }
    return inplace_done(self, rc);
}

/* Tensor.bernoulli and Tensor.multinomial: the functions with self first. */
FN(t_bernoulli)
{
    return ctpy_with_self(impl_bernoulli, self, args, nargs, kwnames);
}

FN(t_multinomial)
{
    return ctpy_with_self(impl_multinomial, self, args, nargs, kwnames);
}

#define ENTRY(name, fn, doc) CTPY_METH(name, fn, doc)

PyMethodDef ctpy_random_methods[] = {
    ENTRY("uniform_", t_uniform_, "uniform_(from=0, to=1, *, generator=None) -> Tensor"),
    ENTRY("normal_", t_normal_, "normal_(mean=0, std=1, *, generator=None) -> Tensor"),
    ENTRY("log_normal_", t_log_normal_, NULL),
    ENTRY("cauchy_", t_cauchy_, NULL),
    ENTRY("exponential_", t_exponential_, NULL),
    ENTRY("geometric_", t_geometric_, NULL),
    ENTRY("random_", t_random_, "random_(from=0, to=None, *, generator=None) -> Tensor"),
    ENTRY("bernoulli_", t_bernoulli_, NULL),
    ENTRY("bernoulli", t_bernoulli, NULL),
    ENTRY("multinomial", t_multinomial, NULL),
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_random_functions[] = {
    ENTRY("rand", fn_rand, "rand(*size, *, generator=None, dtype=None, ...) -> Tensor"),
    ENTRY("randn", fn_randn, "randn(*size, *, generator=None, dtype=None, ...) -> Tensor"),
    ENTRY("randint", fn_randint, "randint(low=0, high, size, *, generator=None, ...)"),
    ENTRY("randperm", fn_randperm, "randperm(n, *, generator=None, dtype=torch.int64, ...)"),
    ENTRY("rand_like", fn_rand_like, NULL),
    ENTRY("randn_like", fn_randn_like, NULL),
    ENTRY("randint_like", fn_randint_like, NULL),
    ENTRY("normal", fn_normal, "normal(mean, std, size=None, *, generator=None) -> Tensor"),
    ENTRY("bernoulli", fn_bernoulli, NULL),
    ENTRY("multinomial", fn_multinomial, NULL),
    ENTRY("poisson", fn_poisson, NULL),
    {NULL, NULL, 0, NULL},
};
