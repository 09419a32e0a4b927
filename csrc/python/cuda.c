/* csrc/python/cuda.c -- torch._C's CUDA entry points over
 * include/ctorch/cuda.h (private names, as torch.cuda calls them); streams
 * and events travel as integer handles.  ctorch.cuda builds the public
 * API on these.  Calls that wait on the device release the GIL. */
#include "ctpy.h"

#include <ctorch/cuda.h>

static PyObject *
ok_or_raise(int rc)
{
    if (rc < 0) {
        return ctpy_raise();
    }
    Py_RETURN_NONE;
}

static void *
handle(PyObject *o)
{
    return PyLong_AsVoidPtr(o);
}

static int
device_arg(PyObject *o, int *out)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (int)v;
    return 0;
}

static PyObject *
cuda_is_built(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyBool_FromLong(ct_cuda_is_built());
}

static PyObject *
cuda_device_count(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyLong_FromLong(ct_cuda_device_count());
}

static PyObject *
cuda_init(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return ok_or_raise(ct_cuda_init());
}

static PyObject *
cuda_get_device(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    int d;
    return ct_cuda_current_device(&d) < 0 ? ctpy_raise() : PyLong_FromLong(d);
}

static PyObject *
cuda_set_device(PyObject *self, PyObject *arg)
{
    (void)self;
    int d;
    return device_arg(arg, &d) < 0 ? NULL : ok_or_raise(ct_cuda_set_device(d));
}

static PyObject *
cuda_synchronize(PyObject *self, PyObject *arg)
{
    (void)self;
    int d, rc;
    if (device_arg(arg, &d) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = ct_cuda_synchronize(d);
    Py_END_ALLOW_THREADS
    return ok_or_raise(rc);
}

/* (name, major, minor, total_memory, multi_processor_count) */
static PyObject *
cuda_get_device_properties(PyObject *self, PyObject *arg)
{
    (void)self;
    int d;
    ct_cuda_properties p;
    if (device_arg(arg, &d) < 0) {
        return NULL;
    }
    if (ct_cuda_get_properties(d, &p) < 0) {
        return ctpy_raise();
    }
    return Py_BuildValue("(siiKi)", p.name, p.major, p.minor,
                         (unsigned long long)p.total_memory, p.multi_processor_count);
}

static PyObject *
cuda_mem_get_info(PyObject *self, PyObject *arg)
{
    (void)self;
    int d;
    size_t free_b, total_b;
    if (device_arg(arg, &d) < 0) {
        return NULL;
    }
    if (ct_cuda_mem_get_info(d, &free_b, &total_b) < 0) {
        return ctpy_raise();
    }
    return Py_BuildValue("(KK)", (unsigned long long)free_b, (unsigned long long)total_b);
}

static PyObject *
cuda_memory_stats(PyObject *self, PyObject *arg)
{
    (void)self;
    int d;
    ct_device_cache_stats st;
    if (device_arg(arg, &d) < 0) {
        return NULL;
    }
    if (ct_cuda_memory_stats(d, &st) < 0) {
        return ctpy_raise();
    }
    return Py_BuildValue("{sLsLsLsLsLsLsL}", "allocated_bytes.all.current",
                         (long long)st.allocated, "allocated_bytes.all.peak",
                         (long long)st.max_allocated, "reserved_bytes.all.current",
                         (long long)st.reserved, "reserved_bytes.all.peak",
                         (long long)st.max_reserved, "allocation.all.allocated",
                         (long long)st.allocations, "num_alloc_retries",
                         (long long)st.retries, "num_ooms", (long long)st.ooms);
}

static PyObject *
cuda_reset_peak(PyObject *self, PyObject *arg)
{
    (void)self;
    int d;
    return device_arg(arg, &d) < 0 ? NULL
                                   : ok_or_raise(ct_cuda_reset_peak_memory_stats(d));
}

static PyObject *
cuda_empty_cache(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return ok_or_raise(ct_cuda_empty_cache());
}

static PyObject *
cuda_stream_new(PyObject *self, PyObject *args)
{
    (void)self;
    int d, prio;
    void *s;
    if (!PyArg_ParseTuple(args, "ii", &d, &prio)) {
        return NULL;
    }
    return ct_cuda_stream_new(d, prio, &s) < 0 ? ctpy_raise() : PyLong_FromVoidPtr(s);
}

static PyObject *
cuda_event_new(PyObject *self, PyObject *args)
{
    (void)self;
    int d, timing, blocking;
    void *e;
    if (!PyArg_ParseTuple(args, "ipp", &d, &timing, &blocking)) {
        return NULL;
    }
    return ct_cuda_event_new(d, timing, blocking, &e) < 0 ? ctpy_raise()
                                                          : PyLong_FromVoidPtr(e);
}

/* (device, stream handle): the stream waits, or is asked, on its device */
static int
device_and_handle(PyObject *args, int *d, void **h)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "iO", d, &o)) {
        return -1;
    }
    *h = handle(o);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *
cuda_stream_synchronize(PyObject *self, PyObject *args)
{
    (void)self;
    int d, rc;
    void *h;
    if (device_and_handle(args, &d, &h) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = ct_cuda_stream_synchronize(d, h);
    Py_END_ALLOW_THREADS
    return ok_or_raise(rc);
}

static PyObject *
cuda_stream_query(PyObject *self, PyObject *args)
{
    (void)self;
    int d;
    void *h;
    bool done = false;
    if (device_and_handle(args, &d, &h) < 0) {
        return NULL;
    }
    return ct_cuda_stream_query(d, h, &done) < 0 ? ctpy_raise() : PyBool_FromLong(done);
}

/* (device, a, b): f(device, a, b) -> None */
static PyObject *
on_device_pair(PyObject *args, int (*f)(int, void *, void *))
{
    PyObject *x, *y;
    int d;
    if (!PyArg_ParseTuple(args, "iOO", &d, &x, &y)) {
        return NULL;
    }
    void *a = handle(x), *b = handle(y);
    if (PyErr_Occurred()) {
        return NULL;
    }
    return ok_or_raise(f(d, a, b));
}

static PyObject *
cuda_stream_wait_event(PyObject *self, PyObject *args)
{
    (void)self;
    return on_device_pair(args, ct_cuda_stream_wait_event);
}

static PyObject *
cuda_event_record(PyObject *self, PyObject *args)
{
    (void)self;
    return on_device_pair(args, ct_cuda_event_record);
}

/* _cuda_setStream(device, handle): the thread's current stream there,
 * where kernels on that device's tensors are queued. */
static PyObject *
cuda_set_stream(PyObject *self, PyObject *args)
{
    (void)self;
    int d;
    PyObject *x;
    if (!PyArg_ParseTuple(args, "iO", &d, &x)) {
        return NULL;
    }
    void *h = handle(x);
    if (PyErr_Occurred()) {
        return NULL;
    }
    return ok_or_raise(ct_cuda_set_current_stream(d, h));
}

/* f(handle) -> None, with the GIL released (it may wait). */
static PyObject *
on_handle(PyObject *arg, int (*f)(void *))
{
    void *h = handle(arg);
    int rc;
    if (h == NULL && PyErr_Occurred()) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = f(h);
    Py_END_ALLOW_THREADS
    return ok_or_raise(rc);
}

static PyObject *
cuda_stream_free(PyObject *self, PyObject *arg)
{
    (void)self;
    return on_handle(arg, ct_cuda_stream_free);
}

static PyObject *
cuda_event_free(PyObject *self, PyObject *arg)
{
    (void)self;
    return on_handle(arg, ct_cuda_event_free);
}

static PyObject *
cuda_event_synchronize(PyObject *self, PyObject *arg)
{
    (void)self;
    return on_handle(arg, ct_cuda_event_synchronize);
}

static PyObject *
cuda_event_query(PyObject *self, PyObject *arg)
{
    (void)self;
    void *h = handle(arg);
    bool done = false;
    if (h == NULL && PyErr_Occurred()) {
        return NULL;
    }
    return ct_cuda_event_query(h, &done) < 0 ? ctpy_raise() : PyBool_FromLong(done);
}

/* Two handles from args; 0 or -1 with the exception set. */
static int
two_handles(PyObject *args, void **a, void **b)
{
    PyObject *x, *y;
    if (!PyArg_ParseTuple(args, "OO", &x, &y)) {
        return -1;
    }
    *a = handle(x);
    *b = handle(y);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *
cuda_event_elapsed(PyObject *self, PyObject *args)
{
    (void)self;
    void *a, *b;
    float ms;
    if (two_handles(args, &a, &b) < 0) {
        return NULL;
    }
    return ct_cuda_event_elapsed_ms(a, b, &ms) < 0 ? ctpy_raise() : PyFloat_FromDouble(ms);
}

/* _pin_memory(t), _is_pinned(t): Tensor.pin_memory() / is_pinned() */
static PyObject *
cuda_pin_memory(PyObject *self, PyObject *t)
{
    (void)self;
    if (!ctpy_is_tensor(t)) {
        PyErr_SetString(PyExc_TypeError, "_pin_memory() expects a tensor");
        return NULL;
    }
    ct_tensor *p;
    Py_BEGIN_ALLOW_THREADS
    p = ct_pin_memory(ctpy_tensor(t));
    Py_END_ALLOW_THREADS
    return ctpy_result(p);
}

static PyObject *
cuda_is_pinned(PyObject *self, PyObject *t)
{
    (void)self;
    if (!ctpy_is_tensor(t)) {
        PyErr_SetString(PyExc_TypeError, "_is_pinned() expects a tensor");
        return NULL;
    }
    return PyBool_FromLong(ct_is_pinned(ctpy_tensor(t)));
}

PyMethodDef ctpy_cuda_functions[] = {
    {"_pin_memory", cuda_pin_memory, METH_O, NULL},
    {"_is_pinned", cuda_is_pinned, METH_O, NULL},
    {"_cuda_is_built", cuda_is_built, METH_NOARGS, NULL},
    {"_cuda_getDeviceCount", cuda_device_count, METH_NOARGS, NULL},
    {"_cuda_init", cuda_init, METH_NOARGS, NULL},
    {"_cuda_getDevice", cuda_get_device, METH_NOARGS, NULL},
    {"_cuda_setDevice", cuda_set_device, METH_O, NULL},
    {"_cuda_synchronize", cuda_synchronize, METH_O, NULL},
    {"_cuda_getDeviceProperties", cuda_get_device_properties, METH_O, NULL},
    {"_cuda_memGetInfo", cuda_mem_get_info, METH_O, NULL},
    {"_cuda_memoryStats", cuda_memory_stats, METH_O, NULL},
    {"_cuda_resetPeakMemoryStats", cuda_reset_peak, METH_O, NULL},
    {"_cuda_emptyCache", cuda_empty_cache, METH_NOARGS, NULL},
    {"_cuda_streamNew", cuda_stream_new, METH_VARARGS, NULL},
    {"_cuda_setStream", cuda_set_stream, METH_VARARGS, NULL},
    {"_cuda_streamFree", cuda_stream_free, METH_O, NULL},
    {"_cuda_streamSynchronize", cuda_stream_synchronize, METH_VARARGS, NULL},
    {"_cuda_streamQuery", cuda_stream_query, METH_VARARGS, NULL},
    {"_cuda_streamWaitEvent", cuda_stream_wait_event, METH_VARARGS, NULL},
    {"_cuda_eventNew", cuda_event_new, METH_VARARGS, NULL},
    {"_cuda_eventFree", cuda_event_free, METH_O, NULL},
    {"_cuda_eventRecord", cuda_event_record, METH_VARARGS, NULL},
    {"_cuda_eventSynchronize", cuda_event_synchronize, METH_O, NULL},
    {"_cuda_eventQuery", cuda_event_query, METH_O, NULL},
    {"_cuda_eventElapsedTime", cuda_event_elapsed, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
