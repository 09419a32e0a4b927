/* aten/cpu/linalg_einsum.c -- torch.einsum over views and ct_matmul.
 *
 * Note [einsum]
 * The equation is parsed into labels (A-Z are 0..25, a-z 26..51, the
 * order of torch's implicit output) plus the dims an ellipsis covers.
 * Every operand becomes an "aligned" view with one dim per label of the
 * whole equation (size 1, stride 0 where it lacks the label; repeated
 * labels become a diagonal by adding strides).  Operands are then
 * combined left to right: labels still needed (in the output or a later
 * operand) present in both are batch dims, in one only are rows / columns,
 * and every other label is contracted: one broadcast batched matmul per
 * step, or a broadcast mul when nothing is contracted.  A lone operand is
 * summed by a product with a ones vector (integers promote to int64, as
 * torch's sum does); without sums the result is a view, as in torch.
 *
 * Ownership as in ops.h.
 */
#include <string.h>

#include "aten/cpu/loops.h"

#define NLETTERS 52
#define MAX_LABELS (NLETTERS + CT_MAX_DIMS)

typedef struct {
    int nops;
    int ne;                             /* dims under the ellipsis */
    int nlab;                           /* aligned dims: ne + used letters */
    int pos[NLETTERS];                  /* letter -> aligned dim, or -1 */
    char name[MAX_LABELS];              /* printable label of an aligned dim */
    int nout;
    int out[MAX_LABELS];                /* aligned dim of each output dim */
    bool in_out[MAX_LABELS];
} einsum_plan;

static int
letter_index(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return 26 + (c - 'a');
    }
    return -1;
}

/* One term (an operand's or the output's subscripts): letters in
 * `labels`, and where the ellipsis stands (-1: none). */
typedef struct {
    int n;
    int labels[CT_MAX_DIMS + 1];
    int ellipsis_at;
} einsum_term;

/* Parse eq[*i..] up to ',' '-' or the end into t; `output` / `op` name
 * the term in the ellipsis error.  0, or -1 with torch's RuntimeError. */
static int
parse_term(const char *eq, size_t *i, einsum_term *t, bool output, int op)
{
    t->n = 0;
    t->ellipsis_at = -1;
    for (; eq[*i] != '\0' && eq[*i] != ',' && eq[*i] != '-'; (*i)++) {
        char c = eq[*i];
        if (c == ' ') {
            continue;
        }
        if (c == '.') {
            if (t->ellipsis_at >= 0 || strncmp(eq + *i, "...", 3) != 0) {
                if (output) {
                    return ct_error(CT_ERR_RUNTIME, "einsum(): found '.' for output "
                                    "but it is not part of any ellipsis");
                }
                return ct_error(CT_ERR_RUNTIME, "einsum(): found '.' for operand %d "
                                "that is not part of any ellipsis", op);
            }
            t->ellipsis_at = t->n;
            *i += 2;
            continue;
        }
        int l = letter_index(c);
        if (l < 0) {
            return ct_error(CT_ERR_RUNTIME, "einsum(): invalid subscript given at "
                            "index %zu in the equation string, subscripts must be in "
                            "[a-zA-Z]", *i);
        }
        if (t->n >= CT_MAX_DIMS) {
            return ct_error(CT_ERR_RUNTIME, "einsum(): too many subscripts");
        }
        t->labels[t->n++] = l;
    }
    return 0;
}

/* Parse the equation and build the aligned operand views into al[] (new
 * references).  0, or -1 with the error set. */
static int
einsum_parse(const char *eq, int n, const ct_tensor *const *ops, einsum_plan *p,
             ct_tensor **al, int64_t *label_size)
{
    einsum_term terms[CT_EINSUM_MAX_OPERANDS];
    size_t i = 0;
    int count[NLETTERS] = {0};
    int op = 0;

    memset(p, 0, sizeof *p);
    p->nops = n;
    if (n == 0) {
        return ct_error(CT_ERR_RUNTIME, "einsum(): must provide at least one operand");
    }
    if (n > CT_EINSUM_MAX_OPERANDS) {
        return ct_error(CT_ERR_RUNTIME, "einsum(): at most %d operands are supported",
                        CT_EINSUM_MAX_OPERANDS);
    }
    for (;;) {
        if (parse_term(eq, &i, &terms[op], false, op) < 0) {
            return -1;
        }
        if (eq[i] != ',') {
            break;
        }
        if (op + 1 >= n) {
            return ct_error(CT_ERR_RUNTIME, "einsum(): fewer operands were provided "
                            "than specified in the equation");
        }
        op++;
        i++;
    }
    if (op + 1 != n) {
        return ct_error(CT_ERR_RUNTIME, "einsum(): more operands were provided than "
                        "specified in the equation");
    }
    /* dims under the ellipsis, and the letters used */
    for (int k = 0; k < n; k++) {
        einsum_term *t = &terms[k];
        int nd = ops[k]->ndim;
        if (t->ellipsis_at < 0 && t->n != nd) {
            return ct_error(CT_ERR_RUNTIME, "einsum(): the number of subscripts in the "
                            "equation (%d) does not match the number of dimensions "
                            "(%d) for operand %d and no ellipsis was given", t->n, nd,
                            k);
        }
        if (t->ellipsis_at >= 0 && t->n > nd) {
            return ct_error(CT_ERR_RUNTIME, "einsum(): the number of subscripts in the "
                            "equation (%d) is more than the number of dimensions (%d) "
                            "for operand %d", t->n, nd, k);
        }
        if (t->ellipsis_at >= 0 && nd - t->n > p->ne) {
            p->ne = nd - t->n;
        }
        for (int j = 0; j < t->n; j++) {
            count[t->labels[j]]++;
        }
    }
    p->nlab = p->ne;
    for (int l = 0; l < NLETTERS; l++) {
        p->pos[l] = -1;
        if (count[l] > 0) {
            p->name[p->nlab] = (char)(l < 26 ? 'A' + l : 'a' + (l - 26));
            p->pos[l] = p->nlab++;
        }
    }
    for (int e = 0; e < p->ne; e++) {
        p->name[e] = '.';
    }
    /* the output: explicit after "->", else the ellipsis dims and then the
     * letters seen once, in label order */
    if (eq[i] == '-') {
        if (eq[i + 1] != '>') {
            return ct_error(CT_ERR_RUNTIME, "einsum(): invalid subscript given at "
                            "index %zu in the equation string, subscripts must be in "
                            "[a-zA-Z]", i);
        }
        i += 2;
        einsum_term t;
        if (parse_term(eq, &i, &t, true, 0) < 0) {
            return -1;
        }
        if (eq[i] != '\0') {
            return ct_error(CT_ERR_RUNTIME, "einsum(): invalid subscript given at "
                            "index %zu in the equation string, subscripts must be in "
                            "[a-zA-Z]", i);
        }
        for (int j = 0; j <= t.n; j++) {
            if (j == t.ellipsis_at) {
                for (int e = 0; e < p->ne; e++) {
                    p->out[p->nout++] = e;
                    p->in_out[e] = true;
                }
            }
            if (j == t.n) {
                break;
            }
            int l = t.labels[j];
            char c = (char)(l < 26 ? 'A' + l : 'a' + (l - 26));
            if (p->pos[l] < 0) {
                return ct_error(CT_ERR_RUNTIME, "einsum(): output subscript %c does "
                                "not appear in the equation for any input operand", c);
            }
            if (p->in_out[p->pos[l]]) {
                return ct_error(CT_ERR_RUNTIME, "einsum(): output subscript %c appears "
                                "more than once in the output", c);
            }
            p->in_out[p->pos[l]] = true;
            p->out[p->nout++] = p->pos[l];
        }
    }
    else {
        for (int e = 0; e < p->ne; e++) {
            p->out[p->nout++] = e;
            p->in_out[e] = true;
        }
        for (int l = 0; l < NLETTERS; l++) {
            if (count[l] == 1) {
                p->in_out[p->pos[l]] = true;
                p->out[p->nout++] = p->pos[l];
            }
        }
    }
    /* aligned views */
    for (int d = 0; d < p->nlab; d++) {
        label_size[d] = 1;
    }
    for (int k = 0; k < n; k++) {
        const ct_tensor *t = ops[k];
        einsum_term *tm = &terms[k];
        int64_t sizes[MAX_LABELS], strides[MAX_LABELS];
        bool seen[MAX_LABELS] = {false};
        int ell = t->ndim - tm->n;
        for (int d = 0; d < p->nlab; d++) {
            sizes[d] = 1;
            strides[d] = 0;
        }
        for (int d = 0; d < t->ndim; d++) {
            int a;
            bool in_ellipsis = tm->ellipsis_at >= 0 && d >= tm->ellipsis_at &&
                               d < tm->ellipsis_at + ell;
            if (in_ellipsis) {
                a = p->ne - ell + (d - tm->ellipsis_at);
            }
            else {
                int j = d < tm->ellipsis_at || tm->ellipsis_at < 0 ? d : d - ell;
                a = p->pos[tm->labels[j]];
            }
            if (seen[a]) {
                if (sizes[a] != t->sizes[d]) {
                    return ct_error(CT_ERR_RUNTIME, "einsum(): subscript %c is "
                                    "repeated for operand %d but the sizes don't "
                                    "match, %lld != %lld", p->name[a], k,
                                    (long long)t->sizes[d], (long long)sizes[a]);
                }
                strides[a] += t->strides[d];
                continue;
            }
            seen[a] = true;
            sizes[a] = t->sizes[d];
            strides[a] = t->strides[d];
        }
        for (int d = 0; d < p->nlab; d++) {
            if (sizes[d] == 1) {
                strides[d] = 0;
                continue;
            }
            if (label_size[d] != 1 && label_size[d] != sizes[d]) {
                return ct_error(CT_ERR_RUNTIME, "einsum(): subscript %c has size "
                                "%lld for operand %d which does not broadcast with "
                                "previously seen size %lld", p->name[d],
                                (long long)sizes[d], k, (long long)label_size[d]);
            }
            label_size[d] = sizes[d];
        }
        al[k] = ct_as_strided(t, p->nlab, sizes, strides, t->offset);
        if (al[k] == NULL) {
            return -1;
        }
    }
    return 0;
}

/* A view of aligned t with dims `dims` (sizes expanded to the label sizes
 * where `expand`), reshaped to `nd` dims `shape`.  New reference. */
static ct_tensor *
gather_dims(const ct_tensor *t, int n, const int *dims, const int64_t *label_size,
            int nd, const int64_t *shape)
{
    int64_t sizes[MAX_LABELS], strides[MAX_LABELS];
    for (int i = 0; i < n; i++) {
        sizes[i] = t->sizes[dims[i]];
        strides[i] = t->strides[dims[i]];
        if (sizes[i] == 1 && label_size[dims[i]] != 1) {
            sizes[i] = label_size[dims[i]];
            strides[i] = 0;
        }
    }
    ct_tensor *v = ct_as_strided(t, n, sizes, strides, t->offset);
    if (v == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_reshape(v, nd, shape);
    ct_tensor_decref(v);
    return r;
}

/* One step of Note [einsum]: a (aligned, labels in has_a) with b; the
 * labels in `needed` survive.  Returns the aligned product (new ref) and
 * updates has_a to its labels. */
static ct_tensor *
contract_pair(const einsum_plan *p, const ct_tensor *a, bool *has_a, const ct_tensor *b,
              const bool *has_b, const bool *needed, const int64_t *label_size)
{
    int batch[MAX_LABELS], mdims[MAX_LABELS], ndims[MAX_LABELS], kdims[MAX_LABELS];
    int nbatch = 0, nm = 0, nn = 0, nk = 0;
    int64_t M = 1, N = 1, K = 1;
    for (int d = 0; d < p->nlab; d++) {
        if (!has_a[d] && !has_b[d]) {
            continue;
        }
        if (!needed[d]) {
            kdims[nk++] = d;
            K *= label_size[d];
        }
        else if (has_a[d] && has_b[d]) {
            batch[nbatch++] = d;
        }
        else if (has_a[d]) {
            mdims[nm++] = d;
            M *= label_size[d];
        }
        else {
            ndims[nn++] = d;
            N *= label_size[d];
        }
    }
    if (nk == 0) {
        for (int d = 0; d < p->nlab; d++) {
            has_a[d] = has_a[d] || has_b[d];
        }
        return ct_mul(a, b);
    }
    int dims[MAX_LABELS];
    int64_t shape[MAX_LABELS];
    ct_tensor *a2 = NULL, *b2 = NULL, *c = NULL, *res = NULL;
    /* a as [batch..., M, K], b as [batch..., K, N] */
    for (int i = 0; i < nbatch; i++) {
        dims[i] = batch[i];
        shape[i] = a->sizes[batch[i]];
    }
    memcpy(dims + nbatch, mdims, sizeof(int) * (size_t)nm);
    memcpy(dims + nbatch + nm, kdims, sizeof(int) * (size_t)nk);
    shape[nbatch] = M;
    shape[nbatch + 1] = K;
    a2 = gather_dims(a, nbatch + nm + nk, dims, label_size, nbatch + 2, shape);
    for (int i = 0; i < nbatch; i++) {
        shape[i] = b->sizes[batch[i]];
    }
    memcpy(dims + nbatch, kdims, sizeof(int) * (size_t)nk);
    memcpy(dims + nbatch + nk, ndims, sizeof(int) * (size_t)nn);
    shape[nbatch] = K;
    shape[nbatch + 1] = N;
    if (a2 != NULL) {
        b2 = gather_dims(b, nbatch + nk + nn, dims, label_size, nbatch + 2, shape);
    }
    c = b2 ? ct_matmul(a2, b2, NULL) : NULL;
    if (c != NULL) {
        /* c is contiguous [batch..., M, N]: give it back its labels */
        int64_t sizes[MAX_LABELS], strides[MAX_LABELS];
        for (int d = 0; d < p->nlab; d++) {
            sizes[d] = 1;
            strides[d] = 0;
            has_a[d] = false;
        }
        for (int i = 0; i < nbatch; i++) {
            sizes[batch[i]] = c->sizes[i];
            strides[batch[i]] = c->strides[i];
            has_a[batch[i]] = true;
        }
        int64_t st = c->strides[nbatch];
        for (int i = nm - 1; i >= 0; i--) {
            sizes[mdims[i]] = label_size[mdims[i]];
            strides[mdims[i]] = st;
            st *= label_size[mdims[i]];
            has_a[mdims[i]] = true;
        }
        st = c->strides[nbatch + 1];
        for (int i = nn - 1; i >= 0; i--) {
            sizes[ndims[i]] = label_size[ndims[i]];
            strides[ndims[i]] = st;
            st *= label_size[ndims[i]];
            has_a[ndims[i]] = true;
        }
        res = ct_as_strided(c, p->nlab, sizes, strides, c->offset);
    }
    ct_tensor_decref(a2);
    ct_tensor_decref(b2);
    ct_tensor_decref(c);
    return res;
}

/* The output of aligned r: its output dims as a view, after summing the
 * other labels r has (a product with ones; integers sum in int64). */
static ct_tensor *
finish_output(const einsum_plan *p, const ct_tensor *r, const bool *has,
              const int64_t *label_size)
{
    int dims[MAX_LABELS], n = 0;
    int64_t shape[MAX_LABELS], S = 1, OUT = 1;
    for (int i = 0; i < p->nout; i++) {
        dims[n] = p->out[i];
        shape[n++] = label_size[p->out[i]];
        OUT *= label_size[p->out[i]];
    }
    int nsum = 0;
    for (int d = 0; d < p->nlab; d++) {
        if (!p->in_out[d] && has[d]) {
            dims[n + nsum++] = d;
            S *= label_size[d];
        }
    }
    if (nsum == 0) {
        return gather_dims(r, n, dims, label_size, n, shape);
    }
    ct_tensor *conv = NULL, *mat = NULL, *ones = NULL, *vec = NULL, *res = NULL;
    ct_dtype dt = ct_dtype_is_floating(r->dtype) ? r->dtype : CT_DTYPE_INT64;
    int64_t two[2] = {OUT, S};
    conv = ct_to_dtype(r, dt, false);
    mat = conv ? gather_dims(conv, n + nsum, dims, label_size, 2, two) : NULL;
    ones = mat ? ct_full_on(1, &S, ct_scalar_int(1), dt, ct_tensor_device(r)) : NULL;
    vec = ones ? ct_mv(mat, ones, NULL) : NULL;
    res = vec ? ct_reshape(vec, n, shape) : NULL;
    ct_tensor_decref(conv);
    ct_tensor_decref(mat);
    ct_tensor_decref(ones);
    ct_tensor_decref(vec);
    return res;
}

ct_tensor *
ct_einsum(const char *equation, int n, const ct_tensor *const *ops)
{
    einsum_plan p;
    int64_t label_size[MAX_LABELS];
    ct_tensor *al[CT_EINSUM_MAX_OPERANDS];
    bool has[MAX_LABELS], has_b[MAX_LABELS], needed[MAX_LABELS];
    ct_tensor *r = NULL, *res = NULL;

    for (int k = 0; k < CT_EINSUM_MAX_OPERANDS; k++) {
        al[k] = NULL;
    }
    if (einsum_parse(equation, n, ops, &p, al, label_size) < 0) {
        goto done;
    }
    for (int d = 0; d < p.nlab; d++) {
        has[d] = al[0]->sizes[d] != 1 || al[0]->strides[d] != 0;
    }
    r = al[0];
    ct_tensor_incref(r);
    for (int k = 1; k < n; k++) {
        for (int d = 0; d < p.nlab; d++) {
            has_b[d] = al[k]->sizes[d] != 1 || al[k]->strides[d] != 0;
            needed[d] = p.in_out[d];
            for (int j = k + 1; j < n && !needed[d]; j++) {
                needed[d] = al[j]->sizes[d] != 1 || al[j]->strides[d] != 0;
            }
        }
        ct_tensor *next = contract_pair(&p, r, has, al[k], has_b, needed, label_size);
        ct_tensor_decref(r);
        r = next;
        if (r == NULL) {
            goto done;
        }
    }
    res = finish_output(&p, r, has, label_size);
    if (res != NULL && n > 1 && !ct_tensor_is_contiguous(res)) {
        ct_tensor *c = ct_contiguous(res);
        ct_tensor_decref(res);
        res = c;
    }
done:
    ct_tensor_decref(r);
    for (int k = 0; k < CT_EINSUM_MAX_OPERANDS; k++) {
        ct_tensor_decref(al[k]);
    }
    return res;
}
