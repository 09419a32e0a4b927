/* csrc/distributed/pg_ops.c -- the operations' entry points: argument
 * checks with ProcessGroupGloo's wording (ProcessGroupMPI's messages carry
 * that name instead), then a work for the driver or the backend.
 *
 * Everything that can be checked on one rank is checked here, at once, on
 * the caller's thread (torch raises these from the call too); what needs
 * the peers (sizes that differ across ranks, ...) is checked by the
 * collective itself (pg_collectives.c).  Ownership: the works keep their
 * own references to the tensors; the arguments stay borrowed.
 */
#include "pg_impl.h"

#include <ctorch/ops.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* c10's TypeMeta names, as TensorOptions prints them. */
static const char *const cpp_names[CT_DTYPE_COUNT] = {
    [CT_DTYPE_UINT8] = "unsigned char",    [CT_DTYPE_INT8] = "signed char",
    [CT_DTYPE_INT16] = "short int",        [CT_DTYPE_INT32] = "int",
    [CT_DTYPE_INT64] = "long int",         [CT_DTYPE_FLOAT16] = "c10::Half",
    [CT_DTYPE_FLOAT32] = "float",          [CT_DTYPE_FLOAT64] = "double",
    [CT_DTYPE_BFLOAT16] = "c10::BFloat16", [CT_DTYPE_BOOL] = "bool",
    [CT_DTYPE_QINT8] = "c10::qint8",       [CT_DTYPE_QUINT8] = "c10::quint8",
    [CT_DTYPE_QINT32] = "c10::qint32",
};

static int
fail(const ct_pg *pg, pg_op_kind op, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ct_error(CT_ERR_RUNTIME, "%s::%s: %s", pg_name(pg), pg_op_names[op], msg);
}

static void
options_str(ct_dtype d, char *buf, size_t n)
{
    snprintf(buf, n,
             "TensorOptions(dtype=%s, device=cpu, layout=Strided, requires_grad=false "
             "(default), pinned_memory=false (default), memory_format=(nullopt))",
             cpp_names[d]);
}

/* c10d's toString(IntArrayRef): "(2, 3)" */
static void
sizes_str(const ct_tensor *t, char *buf, size_t n)
{
    size_t off = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < t->ndim && off < n; i++) {
        off += (size_t)snprintf(buf + off, n - off, "%s%lld", i ? ", " : "",
                                (long long)t->sizes[i]);
    }
    if (off < n) {
        snprintf(buf + off, n - off, ")");
    }
}

static bool
same_sizes(const ct_tensor *a, const ct_tensor *b)
{
    if (a->ndim != b->ndim) {
        return false;
    }
    for (int i = 0; i < a->ndim; i++) {
        if (a->sizes[i] != b->sizes[i]) {
            return false;
        }
    }
    return true;
}

/* The devices an operation's tensors may be on.  gloo and MPI: the CPU,
 * and for collectives CUDA too, through host copies (Note [Device tensors
 * in gloo], pg_work.c).  NCCL: CUDA only, with PyTorch's message. */
static int
check_devices(const ct_pg *pg, pg_op_kind op, ct_tensor *const *t, int n)
{
    bool nccl = pg->be != NULL && pg->be->device_tensors;
    bool device_ok = op != PG_OP_SEND && op != PG_OP_RECV;
    for (int i = 0; i < n; i++) {
        if (t[i] == NULL) {
            return fail(pg, op, "expected a tensor at index %d", i);
        }
        ct_device d = ct_tensor_device(t[i]);
        if (nccl && d.type != CT_DEVICE_CUDA) {
            return ct_error(CT_ERR_RUNTIME, "Tensors must be CUDA and dense");
        }
        if (!nccl && d.type != CT_DEVICE_CPU && !(device_ok && d.type == CT_DEVICE_CUDA)) {
            return fail(pg, op, "unsupported device type %s",
                        ct_device_type_name(d.type));
        }
        if (ct_dtype_table[t[i]->dtype].is_quantized) {
            return ct_error(CT_ERR_RUNTIME, "Invalid scalar type");
        }
    }
    return 0;
}

/* c10d's assertTypeAndSizesMatch against (like): `base` is added to the
 * index in the message (torch compares tensors[1:] with tensors[0] and
 * counts from the slice). */
static int
check_match(const ct_pg *pg, pg_op_kind op, const ct_tensor *like, ct_tensor *const *t,
            int n, int base)
{
    for (int i = 0; i < n; i++) {
        if (t[i]->dtype != like->dtype) {
            char a[256], b[256];
            options_str(like->dtype, a, sizeof a);
            options_str(t[i]->dtype, b, sizeof b);
            return fail(pg, op, "invalid tensor type at index %d (expected %s, got %s)",
                        i + base, a, b);
        }
        if (!same_sizes(t[i], like)) {
            char a[256], b[256];
            sizes_str(like, a, sizeof a);
            sizes_str(t[i], b, sizeof b);
            return fail(pg, op, "invalid tensor size at index %d (expected %s, got %s)",
                        i + base, a, b);
        }
    }
    return 0;
}

static int
reduce_check(const ct_pg *pg, ct_dtype d, ct_redop op)
{
    return pg_reduce_check_for(pg->be != NULL ? pg->be->kind : "Gloo", d, op);
}

static int
check_root(pg_op_kind op, const ct_pg *pg, int root)
{
    if (root < 0 || root >= pg->size) {
        return fail(pg, op, "invalid root rank: %d", root);
    }
    return 0;
}

static ct_work *
make(ct_pg *pg, pg_op_kind kind, unsigned flags, ct_tensor *const *in, int nin,
     ct_tensor *const *out, int nout)
{
    ct_work *w = pg_work_new(pg, kind, flags);
    if (w == NULL) {
        return NULL;
    }
    if (pg_work_set_tensors(w, in, nin, out, nout) < 0) {
        ct_work_decref(w);
        return NULL;
    }
    return w;
}

/* Flatten list-of-lists into one array (borrowed pointers); NULL on OOM. */
static ct_tensor **
flatten(const ct_pg_tensors *lists, int n, int *total)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        k += lists[i].n;
    }
    ct_tensor **a = malloc((size_t)(k > 0 ? k : 1) * sizeof *a);
    if (a == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    k = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < lists[i].n; j++) {
            a[k++] = lists[i].t[j];
        }
    }
    *total = k;
    return a;
}

/* --- collectives ---------------------------------------------------------------- */

ct_work *
ct_pg_broadcast(ct_pg *pg, ct_tensor *const *t, int n, int root, unsigned flags)
{
    const pg_op_kind op = PG_OP_BROADCAST;
    if (check_root(op, pg, root) < 0) {
        return NULL;
    }
    if (n < 1) {
        fail(pg, op, "invalid root tensor: 0");
        return NULL;
    }
    if (check_devices(pg, op, t, n) < 0 || check_match(pg, op, t[0], t + 1, n - 1, 0) < 0) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, t, n, NULL, 0);
    if (w == NULL) {
        return NULL;
    }
    w->root = root;
    w->result = w->in;
    w->nresult = n;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_allreduce(ct_pg *pg, ct_tensor *const *t, int n, ct_redop rop, unsigned flags)
{
    const pg_op_kind op = PG_OP_ALLREDUCE;
    if (n < 1) {
        fail(pg, op, "requires non-empty tensor list");
        return NULL;
    }
    if (check_devices(pg, op, t, n) < 0 || check_match(pg, op, t[0], t + 1, n - 1, 0) < 0 ||
        reduce_check(pg, t[0]->dtype, rop) < 0) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, t, n, NULL, 0);
    if (w == NULL) {
        return NULL;
    }
    w->rop = rop;
    w->result = w->in;
    w->nresult = n;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_reduce(ct_pg *pg, ct_tensor *const *t, int n, int root, ct_redop rop,
             unsigned flags)
{
    const pg_op_kind op = PG_OP_REDUCE;
    if (check_root(op, pg, root) < 0) {
        return NULL;
    }
    if (n < 1) {
        fail(pg, op, "invalid root tensor: 0");
        return NULL;
    }
    if (n != 1) {
        fail(pg, op, "requires a single-element tensor list");
        return NULL;
    }
    if (check_devices(pg, op, t, n) < 0 || reduce_check(pg, t[0]->dtype, rop) < 0) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, t, n, NULL, 0);
    if (w == NULL) {
        return NULL;
    }
    w->root = root;
    w->rop = rop;
    w->result = w->in;
    w->nresult = n;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_allgather(ct_pg *pg, const ct_pg_tensors *outputs, int nout, ct_tensor *const *in,
                int nin, unsigned flags)
{
    const pg_op_kind op = PG_OP_ALLGATHER;
    if (nin < 1) {
        fail(pg, op, "requires non-empty input tensor list");
        return NULL;
    }
    if (nin != nout) {
        fail(pg, op, "requires input/output tensor lists to have the same length");
        return NULL;
    }
    for (int i = 0; i < nout; i++) {
        if (outputs[i].n != nin * pg->size) {
            fail(pg, op,
                 "invalid output tensor list at index %d (expected length %d, got %d)",
                 i, nin * pg->size, outputs[i].n);
            return NULL;
        }
    }
    if (check_devices(pg, op, in, nin) < 0 || check_match(pg, op, in[0], in, nin, 0) < 0) {
        return NULL;
    }
    for (int i = 0; i < nout; i++) {
        if (check_devices(pg, op, outputs[i].t, outputs[i].n) < 0 ||
            check_match(pg, op, in[0], outputs[i].t, outputs[i].n, 0) < 0) {
            return NULL;
        }
    }
    int total;
    ct_tensor **flat = flatten(outputs, nout, &total);
    if (flat == NULL) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, in, nin, flat, total);
    free(flat);
    if (w == NULL) {
        return NULL;
    }
    w->result = w->out;
    w->nresult = total / (nout > 0 ? nout : 1);
    return pg_submit(pg, w);
}

ct_work *
ct_pg_allgather_base(ct_pg *pg, ct_tensor *out, ct_tensor *in, unsigned flags)
{
    const pg_op_kind op = PG_OP_ALLGATHER_BASE;
    ct_tensor *both[2] = {out, in};
    if (check_devices(pg, op, both, 2) < 0) {
        return NULL;
    }
    if (in->dtype != out->dtype) {
        fail(pg, op, "output tensor must have the same type as input tensor");
        return NULL;
    }
    if (out->numel != in->numel * pg->size) {
        fail(pg, op,
             "output tensor size must be equal to world_size times input tensor size");
        return NULL;
    }
    ct_work *w = make(pg, op, flags, &in, 1, &out, 1);
    if (w == NULL) {
        return NULL;
    }
    w->result = w->out;
    w->nresult = 1;
    return pg_submit(pg, w);
}

/* The root's list of gather's outputs or scatter's inputs: on the root one
 * list of `size` tensors like `like` (into *flat, *nflat), elsewhere none. */
static int
root_list(const ct_pg *pg, pg_op_kind op, const ct_pg_tensors *lists, int n, int root,
          const ct_tensor *like, ct_tensor *const **flat, int *nflat)
{
    const bool gather = op == PG_OP_GATHER;
    const char *dir = gather ? "output" : "input";
    *flat = NULL;
    *nflat = 0;
    if (pg->rank != root) {
        return n != 0 ? fail(pg, op, "requires empty %s on non-root", dir) : 0;
    }
    if (n != 1) {
        /* sic: only gather's message ends with a full stop */
        return fail(pg, op,
                    "requires a single-element %s list containing a list with %d "
                    "tensors%s",
                    dir, pg->size, gather ? "." : "");
    }
    if (lists[0].n != pg->size) {
        return fail(pg, op,
                    "Incorrect %s list size %d. %s list size should be %d, same as "
                    "size of the process group.",
                    dir, lists[0].n, gather ? "Output" : "Input", pg->size);
    }
    if (check_devices(pg, op, lists[0].t, pg->size) < 0 ||
        check_match(pg, op, like, lists[0].t, pg->size, 0) < 0) {
        return -1;
    }
    *flat = lists[0].t;
    *nflat = pg->size;
    return 0;
}

ct_work *
ct_pg_gather(ct_pg *pg, const ct_pg_tensors *outputs, int nout, ct_tensor *const *in,
             int nin, int root, unsigned flags)
{
    const pg_op_kind op = PG_OP_GATHER;
    if (check_root(op, pg, root) < 0) {
        return NULL;
    }
    if (nin != 1) {
        fail(pg, op, "requires a single-element input tensor list");
        return NULL;
    }
    if (check_devices(pg, op, in, 1) < 0) {
        return NULL;
    }
    ct_tensor *const *out;
    int nflat;
    if (root_list(pg, op, outputs, nout, root, in[0], &out, &nflat) < 0) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, in, 1, out, nflat);
    if (w == NULL) {
        return NULL;
    }
    w->root = root;
    w->result = w->out;
    w->nresult = nflat;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_scatter(ct_pg *pg, ct_tensor *const *out, int nout, const ct_pg_tensors *inputs,
              int nin, int root, unsigned flags)
{
    const pg_op_kind op = PG_OP_SCATTER;
    if (check_root(op, pg, root) < 0) {
        return NULL;
    }
    if (nout != 1) {
        fail(pg, op, "requires a single-element output tensor list");
        return NULL;
    }
    if (check_devices(pg, op, out, 1) < 0) {
        return NULL;
    }
    ct_tensor *const *in;
    int nflat;
    if (root_list(pg, op, inputs, nin, root, out[0], &in, &nflat) < 0) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, in, nflat, out, 1);
    if (w == NULL) {
        return NULL;
    }
    w->root = root;
    w->result = w->out;
    w->nresult = 1;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_reduce_scatter(ct_pg *pg, ct_tensor *const *out, int nout,
                     const ct_pg_tensors *inputs, int nin, ct_redop rop, unsigned flags)
{
    const pg_op_kind op = PG_OP_REDUCE_SCATTER;
    if (nout != 1) {
        fail(pg, op, "requires a single-element output tensor list");
        return NULL;
    }
    if (nin != 1) {
        fail(pg, op, "requires input/output tensor lists to have the same length");
        return NULL;
    }
    if (inputs[0].n != pg->size) {
        fail(pg, op, "invalid input tensor list at index 0 (expected length %d, got %d)",
             pg->size, inputs[0].n);
        return NULL;
    }
    if (check_devices(pg, op, out, 1) < 0 || check_devices(pg, op, inputs[0].t, pg->size) < 0 ||
        check_match(pg, op, out[0], inputs[0].t, pg->size, 0) < 0 ||
        reduce_check(pg, out[0]->dtype, rop) < 0) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, inputs[0].t, pg->size, out, 1);
    if (w == NULL) {
        return NULL;
    }
    w->rop = rop;
    w->result = w->out;
    w->nresult = 1;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_reduce_scatter_base(ct_pg *pg, ct_tensor *out, ct_tensor *in, ct_redop rop,
                          unsigned flags)
{
    const pg_op_kind op = PG_OP_REDUCE_SCATTER_BASE;
    ct_tensor *both[2] = {out, in};
    if (check_devices(pg, op, both, 2) < 0) {
        return NULL;
    }
    if (in->dtype != out->dtype) {
        fail(pg, op, "output tensor must have the same type as input tensor");
        return NULL;
    }
    if (in->numel != out->numel * pg->size) {
        fail(pg, op, "input tensor must be the same size as output size times world size");
        return NULL;
    }
    if (reduce_check(pg, out->dtype, rop) < 0) {
        return NULL;
    }
    ct_work *w = make(pg, op, flags, &in, 1, &out, 1);
    if (w == NULL) {
        return NULL;
    }
    w->rop = rop;
    w->result = w->out;
    w->nresult = 1;
    return pg_submit(pg, w);
}

/* c10d::checkSplitSizes; fills rows[size]. */
static int
split_sizes(const ct_pg *pg, const int64_t *splits, int n, const ct_tensor *t,
            int64_t *rows)
{
    int64_t dim0 = t->ndim > 0 ? t->sizes[0] : 1;
    if (n == 0) {
        if (dim0 % pg->size != 0) {
            return ct_error(CT_ERR_RUNTIME,
                            "Tensor's dim 0 does not divide equally across group size");
        }
        for (int q = 0; q < pg->size; q++) {
            rows[q] = dim0 / pg->size;
        }
        return 0;
    }
    if (n != pg->size) {
        return ct_error(CT_ERR_RUNTIME,
                        "Number of tensor splits not equal to group size");
    }
    int64_t sum = 0;
    for (int q = 0; q < n; q++) {
        if (splits[q] < 0) {
            return ct_error(CT_ERR_RUNTIME,
                            "Split sizes doesn't match total dim 0 size");
        }
        sum += splits[q];
        rows[q] = splits[q];
    }
    if (sum != dim0) {
        return ct_error(CT_ERR_RUNTIME, "Split sizes doesn't match total dim 0 size");
    }
    return 0;
}

ct_work *
ct_pg_alltoall_base(ct_pg *pg, ct_tensor *out, ct_tensor *in, const int64_t *out_splits,
                    int nout_splits, const int64_t *in_splits, int nin_splits,
                    unsigned flags)
{
    const pg_op_kind op = PG_OP_ALLTOALL_BASE;
    ct_tensor *both[2] = {out, in};
    if (check_devices(pg, op, both, 2) < 0) {
        return NULL;
    }
    if (in->dtype != out->dtype) {
        fail(pg, op, "output tensor must have the same type as input tensor");
        return NULL;
    }
    int64_t *rows = malloc(2 * (size_t)pg->size * sizeof *rows);
    if (rows == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (split_sizes(pg, in_splits, nin_splits, in, rows + pg->size) < 0 ||
        split_sizes(pg, out_splits, nout_splits, out, rows) < 0) {
        free(rows);
        return NULL;
    }
    int64_t in_row = 1, out_row = 1;
    for (int i = 1; i < in->ndim; i++) {
        in_row *= in->sizes[i];
    }
    for (int i = 1; i < out->ndim; i++) {
        out_row *= out->sizes[i];
    }
    if (in_row != out_row) {
        free(rows);
        fail(pg, op,
             "input and output tensors must have the same number of elements per row "
             "(%lld and %lld)",
             (long long)in_row, (long long)out_row);
        return NULL;
    }
    ct_work *w = make(pg, op, flags, &in, 1, &out, 1);
    if (w == NULL) {
        free(rows);
        return NULL;
    }
    w->splits = rows;
    w->result = w->out;
    w->nresult = 1;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_alltoall(ct_pg *pg, ct_tensor *const *out, int nout, ct_tensor *const *in,
               int nin, unsigned flags)
{
    const pg_op_kind op = PG_OP_ALLTOALL;
    if (nout != pg->size || nin != pg->size) {
        fail(
            pg, op,
            "requires input and output tensor lists of length %d (the group size), got "
            "%d and %d",
            pg->size, nin, nout);
        return NULL;
    }
    if (check_devices(pg, op, in, nin) < 0 || check_devices(pg, op, out, nout) < 0) {
        return NULL;
    }
    for (int q = 0; q < pg->size; q++) {
        if (in[q]->dtype != in[0]->dtype || out[q]->dtype != in[0]->dtype) {
            char a[256], b[256];
            const ct_tensor *bad = in[q]->dtype != in[0]->dtype ? in[q] : out[q];
            options_str(in[0]->dtype, a, sizeof a);
            options_str(bad->dtype, b, sizeof b);
            fail(pg, op, "invalid tensor type at index %d (expected %s, got %s)", q, a, b);
            return NULL;
        }
    }
    ct_work *w = make(pg, op, flags, in, nin, out, nout);
    if (w == NULL) {
        return NULL;
    }
    w->result = w->out;
    w->nresult = nout;
    return pg_submit(pg, w);
}

ct_work *
ct_pg_barrier(ct_pg *pg, unsigned flags)
{
    ct_work *w = make(pg, PG_OP_BARRIER, flags, NULL, 0, NULL, 0);
    return w ? pg_submit(pg, w) : NULL;
}

/* --- point to point -------------------------------------------------------------- */

static ct_work *
p2p(ct_pg *pg, pg_op_kind op, ct_tensor *const *t, int n, int peer, int64_t tag,
    unsigned flags)
{
    if (n != 1) {
        /* sic: PyTorch's check says "send" for both */
        ct_error(CT_ERR_RUNTIME, "%s::send takes a single tensor", pg_name(pg));
        return NULL;
    }
    if (check_devices(pg, op, t, 1) < 0) {
        return NULL;
    }
    const char *what = op == PG_OP_SEND ? "destination" : "source";
    if (peer == pg->rank) {
        fail(pg, op,
             "Invalid %s rank: %s rank should not be the same as the rank of the "
             "current "
             "process.",
             what, what);
        return NULL;
    }
    if (peer >= pg->size || (peer < 0 && op == PG_OP_SEND) || peer < -1) {
        fail(pg, op, "invalid %s rank: %d (the group has %d ranks)", what, peer,
             pg->size);
        return NULL;
    }
    ct_work *w = make(pg, op, flags, t, 1, NULL, 0);
    if (w == NULL) {
        return NULL;
    }
    w->root = peer;
    w->tag = tag;
    w->result = w->in;
    w->nresult = 1;
    ct_tensor *x = t[0];
    /* a send takes a snapshot of a strided tensor; a receive lands in a
     * contiguous buffer copied out at the end */
    if (ct_tensor_is_contiguous(x)) {
        w->p2p_buf = x;
        ct_tensor_incref(x);
    }
    else {
        w->p2p_buf = op == PG_OP_SEND
                         ? ct_contiguous(x)
                         : ct_empty(x->ndim, x->sizes, x->dtype, ct_device_cpu());
    }
    size_t mlen = sizeof(pg_meta) + (size_t)x->ndim * sizeof(int64_t);
    w->p2p_meta = malloc(mlen);
    if (w->p2p_buf == NULL || w->p2p_meta == NULL) {
        if (!ct_error_occurred()) {
            ct_error(CT_ERR_NOMEM, "out of memory");
        }
        ct_work_decref(w);
        return NULL;
    }
    pg_meta h = {(uint32_t)op, (int32_t)x->dtype, 0, 0, x->numel, x->ndim, 0};
    memcpy(w->p2p_meta, &h, sizeof h);
    memcpy(w->p2p_meta + sizeof h, x->sizes, (size_t)x->ndim * sizeof(int64_t));
    return pg_submit(pg, w);
}

ct_work *
ct_pg_send(ct_pg *pg, ct_tensor *const *t, int n, int dst, int64_t tag, unsigned flags)
{
    return p2p(pg, PG_OP_SEND, t, n, dst, tag, flags);
}

ct_work *
ct_pg_recv(ct_pg *pg, ct_tensor *const *t, int n, int src, int64_t tag, unsigned flags)
{
    return p2p(pg, PG_OP_RECV, t, n, src, tag, flags);
}
