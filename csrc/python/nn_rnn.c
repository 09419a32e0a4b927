/* csrc/python/nn_rnn.c -- the binding of the recurrent layers
 * (include/ctorch/autograd_rnn.h), merged into _C by module.c (Note
 * [Method tables] in ctpy.h).
 *
 * nn.RNN / LSTM / GRU and the cells (python/ctorch/nn/modules/rnn.py)
 * compute the input side of the gates themselves and call one private
 * entry per layer direction:
 *     _C._rnn_layer(mode, gx, w_hh, b_hh, w_hr, h0, c0, batch_sizes,
 *                   nsteps, reverse) -> (out, h_n, c_n or None)
 * with mode torch's mode name ('LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU') and
 * batch_sizes a PackedSequence's (None: nsteps steps of h0's batch).
 */
#include "argparse.h"

#include <ctorch/autograd_rnn.h>

#define FASTCALL PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

static ct_tensor *
opt(const ctpy_arg *a)
{
    return a->is_none ? NULL : a->t;
}

static int
parse_mode(PyObject *name, ct_rnn_mode *mode)
{
    for (int k = 0; k < CT_RNN_MODE_COUNT; k++) {
        if (PyUnicode_CompareWithASCIIString(name, ct_rnn_mode_names[k]) == 0) {
            *mode = (ct_rnn_mode)k;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "Unrecognized RNN mode: %U", name);
    return -1;
}

/* The step sizes of a PackedSequence: a 1-D int64 cpu tensor, copied into
 * a new array (PyMem_Free it); *n its length. */
static int64_t *
read_batch_sizes(const ct_tensor *t, int64_t *n)
{
    if (t->ndim != 1 || t->dtype != CT_DTYPE_INT64 ||
        ct_tensor_device(t).type != CT_DEVICE_CPU) {
        PyErr_SetString(PyExc_RuntimeError,
                        "batch_sizes should be a 1D CPU int64 tensor");
        return NULL;
    }
    *n = t->sizes[0];
    int64_t *bs = PyMem_Malloc(sizeof(int64_t) * (size_t)(*n > 0 ? *n : 1));
    if (bs == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    const char *p = ct_tensor_data(t);
    for (int64_t i = 0; i < *n; i++) {
        bs[i] = *(const int64_t *)(p + i * t->strides[0] * (int64_t)sizeof(int64_t));
    }
    return bs;
}

/* (out, h_n, c_n or None); drops the references. */
static PyObject *
triple(ct_tensor *out, ct_tensor *hn, ct_tensor *cn)
{
    PyObject *po = ctpy_result(out), *ph = ctpy_result(hn);
    PyObject *pc = Py_None;
    if (cn != NULL) {
        pc = ctpy_result(cn);
    }
    else {
        Py_INCREF(pc);
    }
    PyObject *r = NULL;
    if (po != NULL && ph != NULL && pc != NULL) {
        r = PyTuple_Pack(3, po, ph, pc);
    }
    Py_XDECREF(po);
    Py_XDECREF(ph);
    Py_XDECREF(pc);
    return r;
}

static PyObject *
fn_rnn_layer(PyObject *mod, FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "_rnn_layer(str mode, Tensor gx, Tensor w_hh, Tensor? b_hh, Tensor? w_hr, "
        "Tensor h0, Tensor? c0, Tensor? batch_sizes, int nsteps, bool reverse)");
    ctpy_arg v[10];
    ct_rnn_steps s = {0};
    int64_t *bs = NULL;
    ct_tensor *out = NULL, *hn = NULL, *cn = NULL;
    int rc;
    (void)mod;

    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        parse_mode(v[0].obj, &s.mode) < 0) {
        return NULL;
    }
    s.nsteps = v[8].i;
    s.reverse = v[9].b;
    if (!v[7].is_none) {
        if ((bs = read_batch_sizes(v[7].t, &s.nsteps)) == NULL) {
            return NULL;
        }
        s.batch_sizes = bs;
    }
    const ct_tensor *gx = v[1].t, *w_hh = v[2].t;
    CTPY_RUN(gx->numel + w_hh->numel * s.nsteps,
             rc = ctag_rnn_layer(&s, gx, w_hh, opt(&v[3]), opt(&v[4]), v[5].t,
                                 opt(&v[6]), &out, &hn, &cn));
    PyMem_Free(bs);
    if (rc < 0) {
        return ctpy_raise();
    }
    return triple(out, hn, cn);
}

PyMethodDef ctpy_nn_rnn_functions[] = {
    CTPY_METH("_rnn_layer", fn_rnn_layer, NULL),
    {NULL, NULL, 0, NULL},
};
