/* csrc/autograd/node.c -- graph nodes, saved tensors, a tensor's autograd
 * state and grad mode (see autograd.h). */
#include "functions.h"

#include <ctorch/cuda.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grad mode is per thread, on in every new thread, as in PyTorch. */
static _Thread_local bool grad_off;
static _Thread_local bool inference_on;
static atomic_ullong next_seq_nr;

bool
ct_grad_enabled(void)
{
    return !grad_off;
}

void
ct_set_grad_enabled(bool on)
{
    grad_off = !on;
}

bool
ct_inference_mode(void)
{
    return inference_on;
}

void
ct_set_inference_mode(bool on)
{
    inference_on = on;
}

/* --- hooks ----------------------------------------------------------------- */

static void
hooks_free(ct_hook *h)
{
    while (h != NULL) {
        ct_hook *next = h->next;
        if (h->release != NULL) {
            h->release(h->ctx);
        }
        free(h);
        h = next;
    }
}

/* Append (hooks run in registration order). */
static int64_t
hooks_add(ct_hook **list, int64_t *next_id, int kind, int index, void *fn, void *ctx,
          void (*release)(void *ctx))
{
    ct_hook *h = calloc(1, sizeof *h);
    if (h == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory adding a hook");
    }
    h->kind = kind;
    h->index = index;
    h->fn = fn;
    h->ctx = ctx;
    h->release = release;
    h->id = ++*next_id;
    while (*list != NULL) {
        list = &(*list)->next;
    }
    *list = h;
    return h->id;
}

static bool
hooks_remove(ct_hook **list, int64_t id)
{
    for (; *list != NULL; list = &(*list)->next) {
        if ((*list)->id == id) {
            ct_hook *h = *list;
            *list = h->next;
            h->next = NULL;
            hooks_free(h);
            return true;
        }
    }
    return false;
}

/* --- a tensor's autograd state ------------------------------------------ */

static void
meta_free(ct_tensor *t)
{
    ct_autograd_meta *m = t->ag;
    t->ag = NULL;
    if (m->retains_grad && m->grad_fn != NULL) {
        /* the retain hook points at t: take it off the node */
        for (ct_hook **h = &m->grad_fn->hooks; *h != NULL; h = &(*h)->next) {
            if ((*h)->kind == CT_HOOK_RETAIN && (*h)->ctx == (void *)t) {
                ct_hook *dead = *h;
                *h = dead->next;
                dead->next = NULL;
                hooks_free(dead);
                break;
            }
        }
    }
    hooks_free(m->hooks);
    if (m->grad_fn != NULL) {
        ct_node_decref(m->grad_fn);
    }
    free(m);
}

static ct_autograd_meta *
meta_of(ct_tensor *t)
{
    if (t->ag == NULL) {
        t->ag = calloc(1, sizeof *t->ag);
        if (t->ag == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
            return NULL;
        }
        ct__tensor_set_autograd_free(meta_free);
    }
    return t->ag;
}

ct_node *
ct_grad_fn(const ct_tensor *t)
{
    return t->ag != NULL ? t->ag->grad_fn : NULL;
}

int
ct_output_nr(const ct_tensor *t)
{
    return t->ag != NULL ? t->ag->output_nr : 0;
}

bool
ct_requires_grad(const ct_tensor *t)
{
    return (t->flags & CT_TENSOR_REQUIRES_GRAD) || ct_grad_fn(t) != NULL;
}

bool
ct_is_leaf(const ct_tensor *t)
{
    return ct_grad_fn(t) == NULL;
}

int
ct_set_requires_grad(ct_tensor *t, bool on)
{
    if (on) {
        t->flags |= CT_TENSOR_REQUIRES_GRAD;
    }
    else {
        t->flags &= ~(unsigned)CT_TENSOR_REQUIRES_GRAD;
    }
    return 0;
}

void
ct_set_history(ct_tensor *t, ct_node *fn, int output_nr)
{
    ct_autograd_meta *m = meta_of(t);
    CT_ASSERT(m != NULL);
    ct_node_incref(fn);
    if (m->grad_fn != NULL) {
        ct_node_decref(m->grad_fn);
    }
    m->grad_fn = fn;
    m->output_nr = output_nr;
    t->flags &= ~(unsigned)CT_TENSOR_REQUIRES_GRAD;
    ct_device d = ct_tensor_device(t);
    if (fn->stream_device < 0 && d.type == CT_DEVICE_CUDA) {
        if (ct_cuda_current_stream(d.index, &fn->stream) == 0) {
            fn->stream_device = d.index;
        }
        else {
            ct_error_clear();   /* the node runs on the caller's stream */
        }
    }
}

static void
accumulate_release(ct_node *n)
{
    ct_tensor *v = n->variable;
    if (v->ag != NULL && v->ag->grad_acc == n) {
        v->ag->grad_acc = NULL;
    }
    ct_tensor_decref(v);
}

static int accumulate_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

const ct_node_type ct_accumulate_grad_type = {"AccumulateGrad", accumulate_apply,
                                              accumulate_release};

ct_node *
ct_grad_accumulator(ct_tensor *t)
{
    ct_autograd_meta *m = meta_of(t);
    if (m == NULL) {
        return NULL;
    }
    if (m->grad_acc != NULL) {
        ct_node_incref(m->grad_acc);
        return m->grad_acc;
    }
    ct_node *n = ct_node_new(&ct_accumulate_grad_type, 0, 1);
    if (n == NULL) {
        return NULL;
    }
    ct_tensor_incref(t);
    n->variable = t;
    m->grad_acc = n;
    return n;
}

ct_edge
ct_gradient_edge(ct_tensor *t)
{
    ct_edge e = {NULL, 0};
    if (ct_grad_fn(t) != NULL) {
        e.fn = t->ag->grad_fn;
        e.input_nr = t->ag->output_nr;
        ct_node_incref(e.fn);
    }
    else if (t->flags & CT_TENSOR_REQUIRES_GRAD) {
        e.fn = ct_grad_accumulator(t);
    }
    return e;
}

ct_tensor *
ct_detach(const ct_tensor *t)
{
    ct_tensor *r = ct_tensor_new(t->storage, t->offset, t->ndim, t->sizes, t->strides,
                                 t->dtype);
    if (r != NULL) {
        /* no base: an in-place op on it must not rebase t's history */
        r->q_scale = t->q_scale;
        r->q_zero_point = t->q_zero_point;
    }
    return r;
}

int
ct_detach_(ct_tensor *t)
{
    if (t->ag != NULL && t->ag->grad_fn != NULL) {
        ct_node_decref(t->ag->grad_fn);
        t->ag->grad_fn = NULL;
        t->ag->output_nr = 0;
    }
    t->flags &= ~(unsigned)CT_TENSOR_REQUIRES_GRAD;
    return 0;
}

bool
ct_retains_grad(const ct_tensor *t)
{
    return t->ag != NULL && t->ag->retains_grad;
}

int
ct_retain_grad(ct_tensor *t)
{
    if (!ct_requires_grad(t)) {
        return ct_error(CT_ERR_RUNTIME, "can't retain_grad on Tensor that has "
                        "requires_grad=False");
    }
    if (ct_is_leaf(t) || t->ag->retains_grad) {
        return 0;
    }
    ct_node *fn = t->ag->grad_fn;
    /* ctx is t itself, unowned: meta_free takes the hook off first */
    if (hooks_add(&fn->hooks, &fn->next_hook_id, CT_HOOK_RETAIN, t->ag->output_nr,
                  NULL, t, NULL) < 0) {
        return -1;
    }
    t->ag->retains_grad = true;
    return 0;
}

int64_t
ct_tensor_add_hook(ct_tensor *t, ct_grad_hook_fn fn, void *ctx, void (*release)(void *ctx))
{
    if (!ct_requires_grad(t)) {
        return ct_error(CT_ERR_RUNTIME, "cannot register a hook on a tensor that "
                        "doesn't require gradient");
    }
    ct_autograd_meta *m = meta_of(t);
    if (m == NULL) {
        return -1;
    }
    if (m->grad_fn != NULL) {
        ct_node *n = m->grad_fn;
        return hooks_add(&n->hooks, &n->next_hook_id, CT_HOOK_TENSOR, m->output_nr,
                         (void *)fn, ctx, release);
    }
    return hooks_add(&m->hooks, &m->next_hook_id, CT_HOOK_TENSOR, 0, (void *)fn, ctx,
                     release);
}

int
ct_remove_hook(ct_tensor *t, ct_node *node, int64_t id)
{
    if (node != NULL) {
        return hooks_remove(&node->hooks, id) ? 1 : 0;
    }
    return t->ag != NULL && hooks_remove(&t->ag->hooks, id) ? 1 : 0;
}

int64_t
ct_node_add_hook(ct_node *n, int kind, void *fn, void *ctx, void (*release)(void *ctx))
{
    return hooks_add(&n->hooks, &n->next_hook_id, kind, -1, fn, ctx, release);
}

int
ct_check_inplace(const ct_tensor *t)
{
    if (!ct_grad_enabled()) {
        return 0;
    }
    if (ct_is_leaf(t) && (t->flags & CT_TENSOR_REQUIRES_GRAD)) {
        return ct_error(CT_ERR_RUNTIME, "a %sleaf Variable that requires grad is being "
                        "used in an in-place operation.", t->base != NULL ? "view of a " : "");
    }
    ct_node *fn = ct_grad_fn(t);
    if (t->base != NULL && fn != NULL && fn->n_outputs > 1) {
        /* one of several views (split, unbind): writing one would leave the
         * others' histories stale */
        return ct_error(CT_ERR_RUNTIME, "Output %d of %s is a view and is being modified "
                        "inplace. This view is the output of a function that returns "
                        "multiple views. Such functions do not allow the output views to be "
                        "modified inplace. You should replace the inplace operation by an "
                        "out-of-place one.", ct_output_nr(t), fn->type->name);
    }
    if (t->base != NULL && ct_is_leaf(t->base) &&
        (t->base->flags & CT_TENSOR_REQUIRES_GRAD)) {
        return ct_error(CT_ERR_RUNTIME, "a view of a leaf Variable that requires grad is "
                        "being used in an in-place operation.");
    }
    return 0;
}

/* --- nodes ----------------------------------------------------------------- */

ct_node *
ct_node_new(const ct_node_type *type, int n_edges, int n_outputs)
{
    ct_node *n = calloc(1, sizeof *n);
    if (n == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory allocating a graph node");
        return NULL;
    }
    atomic_init(&n->refcnt, 1);
    n->type = type;
    n->n_edges = n_edges;
    n->n_outputs = n_outputs;
    n->edges = n->inline_edges;
    if (n_edges > (int)(sizeof n->inline_edges / sizeof n->inline_edges[0])) {
        n->edges = calloc((size_t)n_edges, sizeof(ct_edge));
        if (n->edges == NULL) {
            free(n);
            ct_error(CT_ERR_NOMEM, "out of memory allocating a graph node");
            return NULL;
        }
    }
    n->seq_nr = atomic_fetch_add(&next_seq_nr, 1);
    n->stream_device = -1;
    return n;
}

void
ct_node_release_saved(ct_node *n)
{
    if (n->type == &ag_copy_slices_type && n->extra != NULL) {
        ag_copy_slices_release_saved(n);       /* the op node it holds */
    }
    for (int i = 0; i < n->n_saved; i++) {
        ct_tensor_decref(n->saved[i].data);
        n->saved[i].data = NULL;
    }
    n->released = true;
}

/* Freeing a node drops its edges, which may free the next nodes: a long
 * chain would recurse once per node.  Nodes whose count reaches zero while
 * one is being freed on this thread wait in a list instead. */
static _Thread_local ct_node *dying;
static _Thread_local bool freeing;

static void
node_free(ct_node *n)
{
    ct_node_release_saved(n);      /* may use the payload: before release */
    if (n->type->release != NULL) {
        n->type->release(n);
    }
    hooks_free(n->hooks);
    for (int i = 0; i < n->n_edges; i++) {
        if (n->edges[i].fn != NULL) {
            ct_node_decref(n->edges[i].fn);
        }
    }
    if (n->edges != n->inline_edges) {
        free(n->edges);
    }
    free(n);
}

void
ct_node_decref(ct_node *n)
{
    if (atomic_fetch_sub_explicit(&n->refcnt, 1, memory_order_acq_rel) != 1) {
        return;
    }
    if (freeing) {
        n->dead_next = dying;
        dying = n;
        return;
    }
    freeing = true;
    node_free(n);
    while (dying != NULL) {
        ct_node *next = dying;
        dying = next->dead_next;
        node_free(next);
    }
    freeing = false;
}

const char *
ct_node_name(const ct_node *n)
{
    return n->type->name;
}

int
ct_node_save(ct_node *n, int i, const ct_tensor *t, bool is_output)
{
    ct_saved *s = &n->saved[i];
    CT_ASSERT(i < CT_NODE_MAX_SAVED);
    if (i >= n->n_saved) {
        n->n_saved = i + 1;
    }
    if (t == NULL) {
        return 0;
    }
    s->is_output = is_output;
    s->version = atomic_load(&t->storage->version);
    if (is_output) {
        s->data = ct_detach(t);
        if (s->data == NULL) {
            return -1;
        }
        s->output_nr = ct_output_nr(t);
        s->fn_type = n->type;
        s->fn_output_nr = s->output_nr;
    }
    else {
        ct_tensor_incref((ct_tensor *)t);
        s->data = (ct_tensor *)t;
        if (ct_grad_fn(t) != NULL) {
            s->fn_type = ct_grad_fn(t)->type;
            s->fn_output_nr = ct_output_nr(t);
        }
    }
    return 0;
}

static int
freed_error(void)
{
    return ct_error(CT_ERR_RUNTIME, "Trying to backward through the graph a second "
                    "time (or directly access saved tensors after they have already "
                    "been freed). Saved intermediate values of the graph are freed "
                    "when you call .backward() or autograd.grad(). Specify "
                    "retain_graph=True if you need to backward through the graph a "
                    "second time or if you need to access saved tensors after "
                    "calling backward.");
}

ct_tensor *
ct_node_unpack(ct_node *n, int i)
{
    if (n->released) {
        freed_error();
        return NULL;
    }
    ct_saved *s = &n->saved[i];
    if (s->data == NULL) {
        return NULL;
    }
    int64_t now = atomic_load(&s->data->storage->version);
    if (now != s->version) {
        char sizes[256], which[160] = "";
        ct_format_sizes(s->data->ndim, s->data->sizes, sizes, sizeof sizes);
        /* an input names its grad_fn now (an in-place op may have rebased
         * it), an output the node that made it */
        const ct_node_type *ft = s->fn_type;
        int nr = s->fn_output_nr;
        if (!s->is_output && ct_grad_fn(s->data) != NULL) {
            ft = ct_grad_fn(s->data)->type;
            nr = ct_output_nr(s->data);
        }
        if (ft != NULL) {
            snprintf(which, sizeof which, ", which is output %d of %s,", nr, ft->name);
        }
        ct_error(CT_ERR_RUNTIME, "one of the variables needed for gradient computation "
                 "has been modified by an inplace operation: [torch.%sTensor %s]%s is "
                 "at version %lld; expected version %lld instead. Hint: enable anomaly "
                 "detection to find the operation that failed to compute its gradient, "
                 "with torch.autograd.set_detect_anomaly(True).",
                 ct_dtype_table[s->data->dtype].legacy, sizes, which, (long long)now,
                 (long long)s->version);
        return NULL;
    }
    if (s->is_output && ct_grad_enabled()) {
        /* create_graph: the output again, with this node as its history */
        ct_tensor *r = ct_detach(s->data);
        if (r != NULL) {
            ct_set_history(r, n, s->output_nr);
        }
        return r;
    }
    ct_tensor_incref(s->data);
    return s->data;
}

/* --- recording ------------------------------------------------------------ */

bool
ct_any_requires_grad(int n, const ct_tensor *const *ts)
{
    if (!ct_grad_enabled()) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (ts[i] != NULL && ct_requires_grad(ts[i])) {
            return true;
        }
    }
    return false;
}

static ct_node *
node_with_edges(const ct_node_type *type, int nin, const ct_tensor *const *ins, int nout)
{
    ct_node *n = ct_node_new(type, nin, nout);
    if (n == NULL) {
        return NULL;
    }
    for (int i = 0; i < nin; i++) {
        if (ins[i] != NULL) {
            n->edges[i] = ct_gradient_edge((ct_tensor *)ins[i]);
        }
    }
    return n;
}

ct_node *
ct_record(const ct_node_type *type, int nin, const ct_tensor *const *ins, int nout,
          ct_tensor *const *outs)
{
    if (!ct_any_requires_grad(nin, ins)) {
        return NULL;
    }
    ct_node *n = node_with_edges(type, nin, ins, nout);
    if (n == NULL) {
        return NULL;
    }
    for (int i = 0; i < nout; i++) {
        if (outs[i] != NULL) {
            ct_set_history(outs[i], n, i);
        }
    }
    ct_node_decref(n);      /* the outputs own it now */
    return n;
}

ct_node *
ct_record_inplace(const ct_node_type *type, int nin, const ct_tensor *const *ins,
                  ct_tensor *self)
{
    if (!ct_grad_enabled()) {
        return NULL;
    }
    if (ag_is_view_in_graph(self, nin, ins)) {
        return ag_rebase_view(type, nin, ins, self);    /* Note [In-place on a view] */
    }
    if (!ct_any_requires_grad(nin, ins)) {
        return NULL;
    }
    ct_node *n = node_with_edges(type, nin, ins, 1);
    if (n == NULL) {
        return NULL;
    }
    ct_set_history(self, n, 0);
    ct_node_decref(n);
    return n;
}

/* --- AccumulateGrad ------------------------------------------------------- */

static int
accumulate_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    (void)go;
    ct_tensor *v = n->variable, *g = gi[0];
    if (g == NULL) {
        return 0;
    }
    if (v->grad == NULL) {
        /* the first gradient is stored as is when nobody else holds it
         * and it has v's layout; else as a copy (grad of v is v-shaped) */
        if (atomic_load(&g->refcnt) == 1 && !ct_grad_enabled() &&
            ct_tensor_is_contiguous(g) && g->base == NULL && g->dtype == v->dtype) {
            ct_tensor_incref(g);
            v->grad = g;
        }
        else if (!ct_grad_enabled() && g->dtype == v->dtype &&
                 ct_tensor_is_contiguous(v)) {
            /* a transposed gradient (mm's backward) is stored in v's
             * layout, as PyTorch's layout contract does: the optimizer and
             * DDP then read .grad contiguously */
            v->grad = ct_contiguous(g);
            if (v->grad == NULL) {
                return -1;
            }
            if (v->grad == g) {
                /* ct_contiguous handed back g itself: copy it */
                ct_tensor_decref(v->grad);
                v->grad = ct_clone(g);
                if (v->grad == NULL) {
                    return -1;
                }
            }
        }
        else {
            v->grad = ct_grad_enabled() ? ctag_to_dtype(g, v->dtype, true)
                                        : ct_clone(g);
            if (v->grad == NULL) {
                return -1;
            }
        }
        return 0;
    }
    if (ct_grad_enabled()) {
        /* create_graph: grad = grad + g, a new tensor with history */
        ct_tensor *sum = ctag_add(v->grad, g, ct_scalar_int(1));
        if (sum == NULL) {
            return -1;
        }
        ct_tensor_decref(v->grad);
        v->grad = sum;
        return 0;
    }
    /* the in-place add returns a new reference to v->grad */
    ct_tensor *r = ct_binary(CT_BINARY_ADD, v->grad, g, ct_scalar_int(1), v->grad,
                             CT_OUT_INPLACE);
    if (r == NULL) {
        return -1;
    }
    ct_tensor_decref(r);
    ct_tensor_bump_version(v->grad);
    return 0;
}
