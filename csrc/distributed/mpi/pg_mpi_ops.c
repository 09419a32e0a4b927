/* csrc/distributed/mpi/pg_mpi_ops.c -- each operation as one non-blocking
 * MPI call: its datatype and reduction, the contiguous buffers it needs,
 * and what is left to do once MPI is done (copies back into strided or
 * listed tensors, AVG's division, a receive's size check).
 *
 * Datatypes: the predefined MPI type where one matches the dtype; float16,
 * bfloat16 (and the quantized types, which never get this far) travel as
 * 2-byte types of their own, so a user-defined reduction can tell them
 * apart.  Reductions: MPI's own where its result is ctorch's (sums and
 * products, integer min/max and bit ops, bool's logical ops); the others
 * (half types, float min/max, which must propagate NaN as gloo's do) run
 * pg_reduce.c's loops through MPI_Op_create.
 */
#include "pg_mpi.h"

#include <ctorch/ops.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Datatype types[CT_DTYPE_COUNT];
static MPI_Op user_ops[CT_REDOP_COUNT];

static MPI_Datatype
predefined(ct_dtype d)
{
    switch (d) {
    case CT_DTYPE_UINT8:
        return MPI_UINT8_T;
    case CT_DTYPE_INT8:
        return MPI_INT8_T;
    case CT_DTYPE_INT16:
        return MPI_INT16_T;
    case CT_DTYPE_INT32:
        return MPI_INT32_T;
    case CT_DTYPE_INT64:
        return MPI_INT64_T;
    case CT_DTYPE_FLOAT32:
        return MPI_FLOAT;
    case CT_DTYPE_FLOAT64:
        return MPI_DOUBLE;
    case CT_DTYPE_BOOL:
        return MPI_C_BOOL;
    default:
        return MPI_DATATYPE_NULL;
    }
}

/* MPI's own op for (d, op), or MPI_OP_NULL. */
static MPI_Op
predefined_op(ct_dtype d, ct_redop op)
{
    if (d == CT_DTYPE_BOOL) {
        /* bool sums and maxima are or, products and minima and */
        switch (op) {
        case CT_REDOP_SUM:
        case CT_REDOP_MAX:
        case CT_REDOP_BOR:
            return MPI_LOR;
        case CT_REDOP_PRODUCT:
        case CT_REDOP_MIN:
        case CT_REDOP_BAND:
            return MPI_LAND;
        case CT_REDOP_BXOR:
            return MPI_LXOR;
        default:
            return MPI_OP_NULL;
        }
    }
    bool half = d == CT_DTYPE_FLOAT16 || d == CT_DTYPE_BFLOAT16;
    bool floating = ct_dtype_table[d].is_floating;
    switch (op) {
    case CT_REDOP_SUM:
        return half ? MPI_OP_NULL : MPI_SUM;
    case CT_REDOP_PRODUCT:
        return half ? MPI_OP_NULL : MPI_PROD;
    case CT_REDOP_MIN:
        return floating ? MPI_OP_NULL : MPI_MIN;
    case CT_REDOP_MAX:
        return floating ? MPI_OP_NULL : MPI_MAX;
    case CT_REDOP_BAND:
        return MPI_BAND;
    case CT_REDOP_BOR:
        return MPI_BOR;
    case CT_REDOP_BXOR:
        return MPI_BXOR;
    default:
        return MPI_OP_NULL;
    }
}

/* A user-defined reduction: find the dtype behind the MPI type, then run
 * inout[i] = inout[i] op in[i] (every op here commutes). */
static void
user_reduce(ct_redop op, void *in, void *inout, const int *len, const MPI_Datatype *dt)
{
    for (int d = 0; d < CT_DTYPE_COUNT; d++) {
        if (types[d] == *dt) {
            pg_reduce_fn f = pg_reduce_fn_for((ct_dtype)d, op);
            if (f != NULL) {
                f(inout, in, (size_t)*len);
            }
            return;
        }
    }
}

#define X(N, V)                                                                   \
    static void user_##N(void *in, void *inout, int *len, MPI_Datatype *dt)       \
    {                                                                             \
        user_reduce(CT_REDOP_##N, in, inout, len, dt);                            \
    }
CT_FORALL_REDOPS(X)
#undef X

int
pg_mpi_types_init(void)
{
    static MPI_User_function *const fns[CT_REDOP_COUNT] = {
#define X(N, V) [CT_REDOP_##N] = user_##N,
        CT_FORALL_REDOPS(X)
#undef X
    };
    for (int d = 0; d < CT_DTYPE_COUNT; d++) {
        types[d] = predefined((ct_dtype)d);
        if (types[d] == MPI_DATATYPE_NULL) {
            int bytes = (int)ct_dtype_itemsize((ct_dtype)d);
            if (MPI_Type_contiguous(bytes, MPI_BYTE, &types[d]) != MPI_SUCCESS ||
                MPI_Type_commit(&types[d]) != MPI_SUCCESS) {
                return ct_error(CT_ERR_RUNTIME, "ProcessGroupMPI: cannot make a datatype");
            }
        }
    }
    for (int op = 0; op < CT_REDOP_COUNT; op++) {
        if (MPI_Op_create(fns[op], 1, &user_ops[op]) != MPI_SUCCESS) {
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupMPI: cannot make a reduction");
        }
    }
    return 0;
}

static MPI_Op
op_for(ct_dtype d, ct_redop op)
{
    ct_redop r = op == CT_REDOP_AVG ? CT_REDOP_SUM : op; /* AVG: divided after */
    MPI_Op m = predefined_op(d, r);
    return m != MPI_OP_NULL ? m : user_ops[r];
}

const char *
pg_mpi_error_text(int code, char *buf, size_t n)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) {
        snprintf(buf, n, "MPI error %d", code);
    }
    else {
        snprintf(buf, n, "%.*s", len, text);
    }
    return buf;
}

void
pg_mpi_error(ct_error_state *st, const ct_work *w, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    st->code = CT_ERR_RUNTIME;
    snprintf(st->message, sizeof st->message, "ProcessGroupMPI::%s: %s",
             pg_op_names[w->kind], pg_mpi_error_text(code, text, sizeof text));
}

static int
fail_ct(ct_error_state *st)
{
    ct_error_fetch(st);
    return -1;
}

static void
fail_msg(ct_error_state *st, const ct_work *w, const char *what)
{
    st->code = CT_ERR_RUNTIME;
    snprintf(st->message, sizeof st->message, "ProcessGroupMPI::%s: %s",
             pg_op_names[w->kind], what);
}

/* --- buffers ------------------------------------------------------------------ */

/* t itself when contiguous, else a contiguous copy (copy_in) or an empty
 * tensor of its shape; NULL with the error set. */
static ct_tensor *
contig(ct_tensor *t, bool copy_in)
{
    if (ct_tensor_is_contiguous(t)) {
        ct_tensor_incref(t);
        return t;
    }
    return copy_in ? ct_contiguous(t) : ct_empty(t->ndim, t->sizes, t->dtype, ct_device_cpu());
}

/* `like`'s shape over the elements of `flat` from element `at` on. */
static ct_tensor *
view_at(const ct_tensor *flat, int64_t at, const ct_tensor *like)
{
    int64_t strides[CT_MAX_DIMS];
    ct_contiguous_strides(like->ndim, like->sizes, strides);
    return ct_tensor_new(flat->storage, flat->offset + at, like->ndim, like->sizes, strides,
                         flat->dtype);
}

/* A 1-d tensor of n elements of dtype d. */
static ct_tensor *
flat_new(int64_t n, ct_dtype d)
{
    return ct_empty(1, &n, d, ct_device_cpu());
}

/* t[0..n) packed one after another into a new flat tensor. */
static ct_tensor *
pack_list(ct_tensor *const *t, int n, ct_dtype d)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        total += t[i]->numel;
    }
    ct_tensor *flat = flat_new(total, d);
    int64_t at = 0;
    for (int i = 0; flat != NULL && i < n; i++) {
        ct_tensor *v = view_at(flat, at, t[i]);
        int rc = v != NULL ? ct_copy_(v, t[i]) : -1;
        ct_tensor_decref(v);
        if (rc < 0) {
            ct_tensor_decref(flat);
            return NULL;
        }
        at += t[i]->numel;
    }
    return flat;
}

/* The slices of flat copied out into t[0..n). */
static int
unpack_list(const ct_tensor *flat, ct_tensor *const *t, int n)
{
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        ct_tensor *v = view_at(flat, at, t[i]);
        int rc = v != NULL ? ct_copy_(t[i], v) : -1;
        ct_tensor_decref(v);
        if (rc < 0) {
            return -1;
        }
        ct_tensor_bump_version(t[i]);
        at += t[i]->numel;
    }
    return 0;
}

static int
copy_back(ct_tensor *user, ct_tensor *stage)
{
    if (user == NULL) {
        return 0;
    }
    if (stage != user && ct_copy_(user, stage) < 0) {
        return -1;
    }
    ct_tensor_bump_version(user);
    return 0;
}

/* An element count as MPI's int. */
static int
count_of(int64_t n, int *out, ct_error_state *st, const ct_work *w)
{
    if (n > INT_MAX) {
        fail_msg(st, w, "tensors of more than 2147483647 elements do not fit an MPI count");
        return -1;
    }
    *out = (int)n;
    return 0;
}

/* e->io (and e->io_user) for an operation on t in place. */
static int
stage_io(pg_mpi_entry *e, ct_tensor *t, bool copy_in)
{
    e->io = contig(t, copy_in);
    e->io_user = t;
    ct_tensor_incref(t);
    return e->io != NULL ? 0 : -1;
}

static int
stage_out(pg_mpi_entry *e, ct_tensor *t)
{
    e->out = contig(t, false);
    e->out_user = t;
    ct_tensor_incref(t);
    return e->out != NULL ? 0 : -1;
}

/* alltoall's counts and displacements, in elements: send [0, size),
 * send displacements [size, 2 size), receive ..., receive displacements. */
static int
alltoall_counts(pg_mpi_entry *e, const int64_t *send, const int64_t *recv, int64_t srow,
                int64_t rrow, ct_error_state *st)
{
    int size = e->w->pg->size;
    e->counts = malloc(4 * (size_t)size * sizeof *e->counts);
    if (e->counts == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return fail_ct(st);
    }
    int64_t sat = 0, rat = 0;
    for (int q = 0; q < size; q++) {
        if (count_of(send[q] * srow, &e->counts[q], st, e->w) < 0 ||
            count_of(sat, &e->counts[size + q], st, e->w) < 0 ||
            count_of(recv[q] * rrow, &e->counts[2 * size + q], st, e->w) < 0 ||
            count_of(rat, &e->counts[3 * size + q], st, e->w) < 0) {
            return -1;
        }
        sat += send[q] * srow;
        rat += recv[q] * rrow;
    }
    return 0;
}

static int64_t
row_elems(const ct_tensor *t)
{
    int64_t r = 1;
    for (int i = 1; i < t->ndim; i++) {
        r *= t->sizes[i];
    }
    return r;
}

/* --- start ------------------------------------------------------------------------ */

static void *
ptr(const ct_tensor *t)
{
    return t != NULL ? ct_tensor_data(t) : NULL;
}

/* Whether reducing count elements of d runs as a ring (Note [MPI ring]):
 * large enough, and a block for every rank. */
static bool
ring_worth(const ct_work *w, int64_t count, ct_dtype d)
{
    return w->pg->size > 1 && count >= w->pg->size &&
           (size_t)count * ct_dtype_itemsize(d) >= pg_mpi_ring_bytes();
}

/* Reduce count elements at data (in owner) as a ring (root >= 0: reduce;
 * scatter_only: reduce_scatter; copy_in: leave data as it was); with
 * e->blocking run it to the end.  MPI's code. */
static int
ring_run(pg_mpi_entry *e, ct_tensor *owner, int64_t count, int root, bool scatter_only,
         bool copy_in)
{
    ct_work *w = e->w;
    mpi_group *g = w->pg->be_data;
    pg_mpi_ring_spec spec = {
        .comm = g->ring_comm, .seq = g->rings++, .rank = w->pg->rank,
        .size = w->pg->size, .data = ptr(owner), .owner = owner, .count = count,
        .dtype = owner->dtype, .op = w->rop, .root = root,
        .scatter_only = scatter_only, .copy_in = copy_in,
    };
    int rc;
    e->ring = pg_mpi_ring_start(&spec, &rc);
    if (e->ring == NULL) {
        return MPI_ERR_NO_MEM;
    }
    bool done = false, moved;
    while (rc == MPI_SUCCESS && e->blocking && !done) {
        rc = pg_mpi_ring_advance(e->ring, true, &done, &moved);
    }
    return rc;
}

int
pg_mpi_start(pg_mpi_entry *e, ct_error_state *st)
{
    ct_work *w = e->w;
    const bool bl = e->blocking;
    const int me = w->pg->rank, size = w->pg->size;
    const ct_tensor *first = w->nin > 0 ? w->in[0] : w->nout > 0 ? w->out[0] : NULL;
    const ct_dtype d = first != NULL ? first->dtype : CT_DTYPE_UINT8;
    const MPI_Datatype T = types[d];
    MPI_Op op = first != NULL ? op_for(d, w->rop) : MPI_OP_NULL;
    MPI_Comm c = e->comm;
    MPI_Request *r = &e->req;
    int n = 0, rc;
    e->count = first != NULL ? first->numel : 0;
    if (count_of(e->count, &n, st, w) < 0) {
        return -1;
    }
    switch (w->kind) {
    case PG_OP_BROADCAST:
        if (stage_io(e, w->in[0], me == w->root) < 0) {
            return fail_ct(st);
        }
        rc = bl ? MPI_Bcast(ptr(e->io), n, T, w->root, c)
                : MPI_Ibcast(ptr(e->io), n, T, w->root, c, r);
        break;
    case PG_OP_ALLREDUCE:
        if (stage_io(e, w->in[0], true) < 0) {
            return fail_ct(st);
        }
        if (ring_worth(w, n, d)) {
            rc = ring_run(e, e->io, n, -1, false, false);
            break;
        }
        rc = bl ? MPI_Allreduce(MPI_IN_PLACE, ptr(e->io), n, T, op, c)
                : MPI_Iallreduce(MPI_IN_PLACE, ptr(e->io), n, T, op, c, r);
        break;
    case PG_OP_REDUCE:
        if (stage_io(e, w->in[0], true) < 0) {
            return fail_ct(st);
        }
        if (ring_worth(w, n, d)) {
            rc = ring_run(e, e->io, n, w->root, false, me != w->root);
        }
        else {
            void *sb = me == w->root ? MPI_IN_PLACE : ptr(e->io);
            void *rb = me == w->root ? ptr(e->io) : NULL;
            rc = bl ? MPI_Reduce(sb, rb, n, T, op, w->root, c)
                    : MPI_Ireduce(sb, rb, n, T, op, w->root, c, r);
        }
        if (me != w->root) {
            ct_tensor_decref(e->io_user); /* a non-root's tensor is only read */
            e->io_user = NULL;
        }
        break;
    case PG_OP_ALLGATHER:
    case PG_OP_GATHER: {
        bool gets = w->kind == PG_OP_ALLGATHER || me == w->root;
        e->io = contig(w->in[0], true);
        e->pack = gets ? flat_new((int64_t)size * e->count, d) : NULL;
        if (e->io == NULL || (gets && e->pack == NULL)) {
            return fail_ct(st);
        }
        if (w->kind == PG_OP_ALLGATHER) {
            rc = bl ? MPI_Allgather(ptr(e->io), n, T, ptr(e->pack), n, T, c)
                    : MPI_Iallgather(ptr(e->io), n, T, ptr(e->pack), n, T, c, r);
        }
        else {
            rc = bl ? MPI_Gather(ptr(e->io), n, T, ptr(e->pack), n, T, w->root, c)
                    : MPI_Igather(ptr(e->io), n, T, ptr(e->pack), n, T, w->root, c, r);
        }
        break;
    }
    case PG_OP_ALLGATHER_BASE:
        e->io = contig(w->in[0], true);
        if (e->io == NULL || stage_out(e, w->out[0]) < 0) {
            return fail_ct(st);
        }
        rc = bl ? MPI_Allgather(ptr(e->io), n, T, ptr(e->out), n, T, c)
                : MPI_Iallgather(ptr(e->io), n, T, ptr(e->out), n, T, c, r);
        break;
    case PG_OP_SCATTER: {
        if (count_of(w->out[0]->numel, &n, st, w) < 0) {
            return -1;
        }
        if (stage_out(e, w->out[0]) < 0 ||
            (me == w->root && (e->pack = pack_list(w->in, w->nin, d)) == NULL)) {
            return fail_ct(st);
        }
        rc = bl ? MPI_Scatter(ptr(e->pack), n, T, ptr(e->out), n, T, w->root, c)
                : MPI_Iscatter(ptr(e->pack), n, T, ptr(e->out), n, T, w->root, c, r);
        break;
    }
    case PG_OP_REDUCE_SCATTER:
    case PG_OP_REDUCE_SCATTER_BASE:
        if (count_of(w->out[0]->numel, &n, st, w) < 0) {
            return -1;
        }
        e->pack = w->kind == PG_OP_REDUCE_SCATTER ? pack_list(w->in, w->nin, d)
                                                  : contig(w->in[0], true);
        if (e->pack == NULL || stage_out(e, w->out[0]) < 0) {
            return fail_ct(st);
        }
        if (ring_worth(w, e->pack->numel, d)) {
            /* the tensor form's input is the caller's own when contiguous:
             * reduce a copy, as MPI_Reduce_scatter_block leaves it */
            rc = ring_run(e, e->pack, e->pack->numel, -1, true, e->pack == w->in[0]);
            break;
        }
        rc = bl ? MPI_Reduce_scatter_block(ptr(e->pack), ptr(e->out), n, T, op, c)
                : MPI_Ireduce_scatter_block(ptr(e->pack), ptr(e->out), n, T, op, c, r);
        break;
    case PG_OP_ALLTOALL_BASE:
        e->io = contig(w->in[0], true);
        if (e->io == NULL || stage_out(e, w->out[0]) < 0) {
            return fail_ct(st);
        }
        if (alltoall_counts(e, w->splits + size, w->splits, row_elems(w->in[0]),
                            row_elems(w->out[0]), st) < 0) {
            return -1;
        }
        goto alltoallv;
    case PG_OP_ALLTOALL: {
        int64_t *sn = malloc(2 * (size_t)size * sizeof *sn), *rn = sn + size;
        if (sn == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
            return fail_ct(st);
        }
        int64_t total = 0;
        for (int q = 0; q < size; q++) {
            sn[q] = w->in[q]->numel;
            rn[q] = w->out[q]->numel;
            total += rn[q];
        }
        int crc = alltoall_counts(e, sn, rn, 1, 1, st);
        free(sn);
        if (crc < 0) {
            return -1;
        }
        e->io = pack_list(w->in, w->nin, d);
        e->pack = flat_new(total, d);
        if (e->io == NULL || e->pack == NULL) {
            return fail_ct(st);
        }
        goto alltoallv;
    }
    case PG_OP_BARRIER:
        rc = bl ? MPI_Barrier(c) : MPI_Ibarrier(c, r);
        break;
    case PG_OP_SEND:
    case PG_OP_RECV: {
        /* a tag beyond int is one MPI cannot carry: -1 gets MPI's own error */
        int tag = w->tag >= INT_MIN && w->tag <= INT_MAX ? (int)w->tag : -1;
        void *p = ptr(w->p2p_buf);
        rc = w->kind == PG_OP_SEND
                 ? MPI_Isend(p, n, T, w->root, tag, c, r)
                 : MPI_Irecv(p, n, T, w->root < 0 ? MPI_ANY_SOURCE : w->root, tag, c, r);
        break;
    }
    default: /* every kind is above */
        st->code = CT_ERR_RUNTIME;
        snprintf(st->message, sizeof st->message, "ProcessGroupMPI: unknown operation");
        return -1;
    }
    goto started;
alltoallv: {
    ct_tensor *dst = w->kind == PG_OP_ALLTOALL ? e->pack : e->out;
    int *k = e->counts;
    rc = bl ? MPI_Alltoallv(ptr(e->io), k, k + size, T, ptr(dst), k + 2 * size,
                            k + 3 * size, T, c)
            : MPI_Ialltoallv(ptr(e->io), k, k + size, T, ptr(dst), k + 2 * size,
                             k + 3 * size, T, c, r);
}
started:
    if (rc != MPI_SUCCESS) {
        pg_mpi_error(st, w, rc);
        return -1;
    }
    e->started = true;
    e->status.MPI_ERROR = MPI_SUCCESS;
    return 0;
}

/* --- finish -------------------------------------------------------------------- */

/* AVG: the sum over the group, divided by its size. */
static int
average(const ct_work *w, ct_tensor *t)
{
    if (w->rop != CT_REDOP_AVG) {
        return 0;
    }
    ct_tensor *k = ct_scalar_tensor(ct_scalar_int(w->pg->size));
    ct_tensor *r = k != NULL ? ct_binary(CT_BINARY_DIV, t, k, ct_scalar_int(1), t,
                                         CT_OUT_INPLACE)
                             : NULL;
    ct_tensor_decref(k);
    ct_tensor_decref(r);
    return r != NULL ? 0 : -1;
}

int
pg_mpi_finish(pg_mpi_entry *e, ct_error_state *st)
{
    ct_work *w = e->w;
    if (e->status.MPI_ERROR != MPI_SUCCESS) {
        pg_mpi_error(st, w, e->status.MPI_ERROR);
        return -1;
    }
    switch (w->kind) {
    case PG_OP_ALLREDUCE:
    case PG_OP_REDUCE:
        if (e->io_user != NULL && average(w, e->io) < 0) {
            return fail_ct(st);
        }
        break;
    case PG_OP_REDUCE_SCATTER:
    case PG_OP_REDUCE_SCATTER_BASE:
        if (e->ring != NULL) {
            /* the ring left this rank's reduced block in place in the pack */
            size_t bytes = (size_t)e->out->numel * ct_dtype_itemsize(e->out->dtype);
            memcpy(ptr(e->out), pg_mpi_ring_result(e->ring) + (size_t)w->pg->rank * bytes,
                   bytes);
        }
        if (average(w, e->out) < 0) {
            return fail_ct(st);
        }
        break;
    case PG_OP_ALLGATHER:
    case PG_OP_GATHER:
    case PG_OP_ALLTOALL:
        if (e->pack != NULL && unpack_list(e->pack, w->out, w->nout) < 0) {
            return fail_ct(st);
        }
        break;
    case PG_OP_RECV: {
        int got = 0;
        MPI_Get_count(&e->status, types[w->in[0]->dtype], &got);
        if (got != e->count) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "rank %d sent %d elements, but the receiving tensor has %lld",
                     e->status.MPI_SOURCE, got, (long long)e->count);
            fail_msg(st, w, msg);
            return -1;
        }
        w->source_rank = e->status.MPI_SOURCE;
        if (copy_back(w->in[0], w->p2p_buf) < 0) {
            return fail_ct(st);
        }
        break;
    }
    default:
        break;
    }
    if (copy_back(e->io_user, e->io) < 0 || copy_back(e->out_user, e->out) < 0) {
        return fail_ct(st);
    }
    return 0;
}

void
pg_mpi_entry_free(pg_mpi_entry *e)
{
    pg_mpi_ring_free(e->ring);
    ct_tensor_decref(e->io);
    ct_tensor_decref(e->io_user);
    ct_tensor_decref(e->out);
    ct_tensor_decref(e->out_user);
    ct_tensor_decref(e->pack);
    free(e->counts);
    free(e);
}
