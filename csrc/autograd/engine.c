/* csrc/autograd/engine.c -- running a graph backward (autograd.h).
 *
 * Note [Engine]
 * 1. From the roots' gradient edges, find every reachable node.
 * 2. Decide which nodes run: with no `inputs` every node; with `inputs`
 *    only those on a path to an input's edge (an input's edge is its
 *    grad_fn and output number, or its AccumulateGrad).  Nodes whose
 *    gradient is only captured (autograd.grad) do not run.
 * 3. Count, for each node, the edges into it from nodes that run; a node
 *    is ready when that count reaches zero, and the ready node created
 *    last runs first (a heap on seq_nr, AccumulateGrad first of all), which
 *    is PyTorch's order on one thread.
 * 4. Gradients flowing into a node are summed in its input buffer; hooks
 *    run before and after it; without keep_graph its saved tensors are
 *    freed once it ran.
 * Grad mode is create_graph while the formulas run, so with create_graph
 * they record a graph of their own.
 */
#include "aten/device.h"

#include <ctorch/autograd.h>
#include <ctorch/cuda.h>
#include <ctorch/error.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
    ct_node *node;
    ct_tensor **buf;        /* n_outputs > 1: the gradients summed so far */
    ct_tensor *one;         /* n_outputs == 1: the same, without an allocation */
    int deps;
    bool runs;
    bool seen;              /* discovery, then "on the heap" */
    int capture;            /* first inputs[] index captured here, or -1 */
} slot;

/* Small graphs (a training step of a small model) live in the inline
 * arrays; bigger ones move to the heap as they grow. */
#define INLINE_SLOTS 32
#define INLINE_TABLE 64

/* Note [Backward in stream order]
 * A node that made CUDA outputs remembers the stream current for their
 * device then (ct_set_history), and its backward runs with that stream
 * current, as in PyTorch's engine.  The engine runs one node at a time, so
 * it keeps, per device, the stream the last node used there: a node on
 * another stream first waits for that one (an event), so the gradients it
 * reads are ready.  A CUDA leaf's AccumulateGrad runs on the caller's
 * current stream, and at the end the caller's current stream waits for
 * the last one used, so the gradients are ready for what the caller queues
 * next. */
#define STREAM_DEVICES 16
typedef struct {
    void *last[STREAM_DEVICES];     /* the stream the last node used */
    void *caller[STREAM_DEVICES];   /* the caller's current stream */
    bool used[STREAM_DEVICES];
} stream_order;

typedef struct {
    stream_order streams;
    slot *slots;
    int n, cap;
    int *table;             /* open addressing: node -> slot index + 1 */
    int table_cap;
    int *heap;
    int heap_n;
    slot inline_slots[INLINE_SLOTS];
    int inline_table[INLINE_TABLE];
    int inline_heap[INLINE_SLOTS + 1];
} graph;

/* The gradients that came into slot sl so far (NULL: none yet). */
static ct_tensor **
slot_grads(slot *sl)
{
    return sl->node->n_outputs == 1 ? &sl->one : sl->buf;
}

static size_t
hash_ptr(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 20);
}

static int
find_slot(const graph *g, const ct_node *n)
{
    size_t mask = (size_t)g->table_cap - 1;
    for (size_t i = hash_ptr(n) & mask;; i = (i + 1) & mask) {
        int s = g->table[i];
        if (s == 0) {
            return -1;
        }
        if (g->slots[s - 1].node == n) {
            return s - 1;
        }
    }
}

static int
grow_table(graph *g)
{
    int cap = g->table_cap ? g->table_cap * 2 : INLINE_TABLE;
    int *t = cap == INLINE_TABLE ? g->inline_table : calloc((size_t)cap, sizeof(int));
    if (t == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory in backward");
    }
    memset(t, 0, sizeof(int) * (size_t)cap);
    if (g->table != g->inline_table) {
        free(g->table);
    }
    g->table = t;
    g->table_cap = cap;
    for (int s = 0; s < g->n; s++) {
        size_t mask = (size_t)cap - 1, i = hash_ptr(g->slots[s].node) & mask;
        while (t[i] != 0) {
            i = (i + 1) & mask;
        }
        t[i] = s + 1;
    }
    return 0;
}

/* The slot of n, added if new (-1 on failure). */
static int
add_slot(graph *g, ct_node *n)
{
    int s = g->table_cap ? find_slot(g, n) : -1;
    if (s >= 0) {
        return s;
    }
    if (g->n == g->cap) {
        if (g->cap == 0) {
            g->slots = g->inline_slots;
            g->cap = INLINE_SLOTS;
        }
        else {
            int cap = 2 * g->cap;
            slot *ns = g->slots == g->inline_slots ? malloc((size_t)cap * sizeof(slot))
                                                   : realloc(g->slots, (size_t)cap * sizeof(slot));
            if (ns == NULL) {
                return ct_error(CT_ERR_NOMEM, "out of memory in backward");
            }
            if (g->slots == g->inline_slots) {
                memcpy(ns, g->inline_slots, sizeof g->inline_slots);
            }
            g->slots = ns;
            g->cap = cap;
        }
    }
    if (2 * (g->n + 1) > g->table_cap && grow_table(g) < 0) {
        return -1;
    }
    s = g->n++;
    memset(&g->slots[s], 0, sizeof(slot));
    g->slots[s].node = n;
    g->slots[s].capture = -1;
    size_t mask = (size_t)g->table_cap - 1, i = hash_ptr(n) & mask;
    while (g->table[i] != 0) {
        i = (i + 1) & mask;
    }
    g->table[i] = s + 1;
    return s;
}

static uint64_t
priority(const graph *g, int s)
{
    const ct_node *n = g->slots[s].node;
    return n->type == &ct_accumulate_grad_type ? UINT64_MAX : n->seq_nr;
}

static void
heap_push(graph *g, int s)
{
    int i = g->heap_n++;
    g->heap[i] = s;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (priority(g, g->heap[p]) >= priority(g, g->heap[i])) {
            break;
        }
        int t = g->heap[p];
        g->heap[p] = g->heap[i];
        g->heap[i] = t;
        i = p;
    }
}

static int
heap_pop(graph *g)
{
    int top = g->heap[0];
    g->heap[0] = g->heap[--g->heap_n];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < g->heap_n && priority(g, g->heap[l]) > priority(g, g->heap[m])) {
            m = l;
        }
        if (r < g->heap_n && priority(g, g->heap[r]) > priority(g, g->heap[m])) {
            m = r;
        }
        if (m == i) {
            break;
        }
        int t = g->heap[m];
        g->heap[m] = g->heap[i];
        g->heap[i] = t;
        i = m;
    }
    return top;
}

static void
graph_free(graph *g)
{
    for (int s = 0; s < g->n; s++) {
        ct_tensor **grads = slot_grads(&g->slots[s]);
        for (int i = 0; grads != NULL && i < g->slots[s].node->n_outputs; i++) {
            ct_tensor_decref(grads[i]);
        }
        free(g->slots[s].buf);
    }
    if (g->slots != g->inline_slots) {
        free(g->slots);
    }
    if (g->table != g->inline_table) {
        free(g->table);
    }
    if (g->heap != g->inline_heap) {
        free(g->heap);
    }
}

/* Add grad (a new reference, consumed) into slot s's buffer entry i. */
static int
accumulate_into(graph *g, int s, int i, ct_tensor *grad, bool create_graph)
{
    slot *sl = &g->slots[s];
    if (slot_grads(sl) == NULL) {
        sl->buf = calloc((size_t)sl->node->n_outputs, sizeof(ct_tensor *));
        if (sl->buf == NULL) {
            ct_tensor_decref(grad);
            return ct_error(CT_ERR_NOMEM, "out of memory in backward");
        }
    }
    ct_tensor **buf = slot_grads(sl);
    if (buf[i] == NULL) {
        buf[i] = grad;
        return 0;
    }
    ct_tensor *sum = create_graph ? ctag_add(buf[i], grad, ct_scalar_int(1))
                                  : ct_add(buf[i], grad, ct_scalar_int(1));
    ct_tensor_decref(grad);
    if (sum == NULL) {
        return -1;
    }
    ct_tensor_decref(buf[i]);
    buf[i] = sum;
    return 0;
}

/* Push slot c on the discovery stack (inline while small). */
static int
push(int **stack, int *top, int *cap, int *inline_stack, int c)
{
    if (*top == *cap) {
        int ncap = 2 * *cap;
        int *ns = *stack == inline_stack ? malloc((size_t)ncap * sizeof(int))
                                         : realloc(*stack, (size_t)ncap * sizeof(int));
        if (ns == NULL) {
            return ct_error(CT_ERR_NOMEM, "out of memory in backward");
        }
        if (*stack == inline_stack) {
            memcpy(ns, inline_stack, (size_t)*cap * sizeof(int));
        }
        *stack = ns;
        *cap = ncap;
    }
    (*stack)[(*top)++] = c;
    return 0;
}

/* Discovery: every node reachable from the roots gets a slot. */
static int
discover(graph *g, int nroots, const ct_edge *roots)
{
    int inline_stack[64], *stack = inline_stack, top = 0, cap = 64;
    int rc = 0;
    for (int r = 0; r < nroots && rc == 0; r++) {
        if (roots[r].fn == NULL) {
            continue;
        }
        int s = add_slot(g, roots[r].fn);
        if (s < 0) {
            rc = -1;
            break;
        }
        if (!g->slots[s].seen) {
            g->slots[s].seen = true;
            rc = push(&stack, &top, &cap, inline_stack, s);
        }
        while (top > 0 && rc == 0) {
            ct_node *n = g->slots[stack[--top]].node;
            for (int e = 0; e < n->n_edges && rc == 0; e++) {
                if (n->edges[e].fn == NULL) {
                    continue;
                }
                int c = add_slot(g, n->edges[e].fn);
                if (c < 0) {
                    rc = -1;
                }
                else if (!g->slots[c].seen) {
                    g->slots[c].seen = true;
                    rc = push(&stack, &top, &cap, inline_stack, c);
                }
            }
        }
    }
    if (stack != inline_stack) {
        free(stack);
    }
    return rc;
}

/* Which nodes run (Note [Engine], 2).  Slots are in discovery order, a
 * node before its children except across shared subgraphs, so iterate to
 * a fixed point. */
static void
mark_runs(graph *g, bool all, bool accumulate_targets)
{
    for (int s = 0; s < g->n; s++) {
        slot *sl = &g->slots[s];
        bool acc = sl->node->type == &ct_accumulate_grad_type;
        sl->runs = all || (acc && accumulate_targets && sl->capture >= 0);
    }
    if (all) {
        return;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int s = g->n - 1; s >= 0; s--) {
            slot *sl = &g->slots[s];
            if (sl->runs) {
                continue;
            }
            ct_node *n = sl->node;
            for (int e = 0; e < n->n_edges && !sl->runs; e++) {
                if (n->edges[e].fn != NULL) {
                    slot *c = &g->slots[find_slot(g, n->edges[e].fn)];
                    if (c->runs || c->capture >= 0) {
                        sl->runs = changed = true;
                    }
                }
            }
        }
    }
}

static int
run_tensor_hooks(ct_hook *h, int index, ct_tensor **grad)
{
    for (; h != NULL; h = h->next) {
        if (h->kind != CT_HOOK_TENSOR || h->index != index || *grad == NULL) {
            continue;
        }
        ct_tensor *rep = NULL;
        if (((ct_grad_hook_fn)h->fn)(h->ctx, *grad, &rep) < 0) {
            return -1;
        }
        if (rep != NULL) {
            ct_tensor_decref(*grad);
            *grad = rep;
        }
    }
    return 0;
}

/* retain_grad(): the tensor's .grad gets a copy, or the sum. */
static int
run_retain_hooks(ct_hook *h, int index, ct_tensor *grad, bool create_graph)
{
    for (; h != NULL; h = h->next) {
        if (h->kind != CT_HOOK_RETAIN || h->index != index || grad == NULL) {
            continue;
        }
        ct_tensor *t = h->ctx, *g;
        if (t->grad == NULL) {
            g = create_graph ? ctag_clone(grad) : ct_clone(grad);
        }
        else {
            g = create_graph ? ctag_add(t->grad, grad, ct_scalar_int(1))
                             : ct_add(t->grad, grad, ct_scalar_int(1));
        }
        if (g == NULL) {
            return -1;
        }
        ct_tensor_decref(t->grad);
        t->grad = g;
    }
    return 0;
}

/* `waiter` waits on device dev for what is queued on `on` so far. */
static int
stream_wait(int dev, void *waiter, void *on)
{
    void *ev;
    if (ct_cuda_event_new(dev, false, false, &ev) < 0) {
        return -1;
    }
    int rc = ct_cuda_event_record(dev, ev, on) < 0 ||
                     ct_cuda_stream_wait_event(dev, waiter, ev) < 0
                 ? -1
                 : 0;
    ct_cuda_event_free(ev);
    return rc;
}

/* The device whose stream n's backward runs on (-1: none), and whether it
 * has its own recorded stream (else the caller's). */
static int
node_stream_device(const ct_node *n, bool *own)
{
    *own = n->stream_device >= 0;
    if (*own) {
        return n->stream_device < STREAM_DEVICES ? n->stream_device : -1;
    }
    if (n->type == &ct_accumulate_grad_type && n->variable != NULL) {
        ct_device d = ct_tensor_device(n->variable);
        if (d.type == CT_DEVICE_CUDA && d.index >= 0 && d.index < STREAM_DEVICES) {
            return d.index;
        }
    }
    return -1;
}

/* Make the stream of n current on dev, after the last one used there. */
static int
stream_enter(graph *g, int dev, bool own, void *stream)
{
    stream_order *o = &g->streams;
    if (!o->used[dev]) {
        if (ct_cuda_current_stream(dev, &o->caller[dev]) < 0) {
            return -1;
        }
        o->last[dev] = o->caller[dev];
        o->used[dev] = true;
    }
    void *want = own ? stream : o->caller[dev];
    if (want != o->last[dev] && stream_wait(dev, want, o->last[dev]) < 0) {
        return -1;
    }
    o->last[dev] = want;
    return ct_cuda_set_current_stream(dev, want);
}

/* At the end: the caller's streams again, after the last ones used. */
static int
streams_finish(graph *g)
{
    stream_order *o = &g->streams;
    int rc = 0;
    for (int dev = 0; dev < STREAM_DEVICES; dev++) {
        if (o->used[dev] && o->last[dev] != o->caller[dev] &&
            stream_wait(dev, o->caller[dev], o->last[dev]) < 0) {
            rc = -1;
        }
    }
    return rc;
}

/* Run one node: hooks, formula, hooks; results go into the children. */
static int
run_node(graph *g, int s, bool keep_graph, bool create_graph, ct_tensor **results)
{
    ct_node *n = g->slots[s].node;
    ct_tensor *none[1] = {NULL};
    ct_tensor **gi = slot_grads(&g->slots[s]) != NULL ? slot_grads(&g->slots[s]) : none;
    int rc = 0;

    for (int i = 0; i < n->n_outputs; i++) {
        if (run_tensor_hooks(n->hooks, i, &gi[i]) < 0 ||
            run_retain_hooks(n->hooks, i, gi[i], create_graph) < 0) {
            return -1;
        }
    }
    if (n->type == &ct_accumulate_grad_type && n->variable->ag != NULL &&
        run_tensor_hooks(n->variable->ag->hooks, 0, &gi[0]) < 0) {
        return -1;
    }
    for (ct_hook *h = n->hooks; h != NULL; h = h->next) {
        if (h->kind == CT_HOOK_NODE_PRE &&
            ((ct_node_prehook_fn)h->fn)(h->ctx, n->n_outputs, gi) < 0) {
            return -1;
        }
    }
    (void)results;
    if (!g->slots[s].runs) {
        return 0;
    }
    bool any = false;
    for (int i = 0; i < n->n_outputs; i++) {
        any |= gi[i] != NULL;
    }
    ct_tensor *stack_go[8] = {NULL}, **go = stack_go;
    if (n->n_edges > 8 && (go = calloc((size_t)n->n_edges, sizeof *go)) == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory in backward");
    }
    bool own;
    int dev = any ? node_stream_device(n, &own) : -1;
    if (dev >= 0 && stream_enter(g, dev, own, n->stream) < 0) {
        rc = -1;
        goto done;
    }
    if (any && n->type->apply(n, gi, go) < 0) {
        rc = -1;
    }
    if (dev >= 0) {
        ct_cuda_set_current_stream(dev, g->streams.caller[dev]);
    }
    if (rc < 0) {
        goto done;
    }
    for (ct_hook *h = n->hooks; h != NULL; h = h->next) {
        if (h->kind == CT_HOOK_NODE_POST &&
            ((ct_node_posthook_fn)h->fn)(h->ctx, n->n_edges, go, n->n_outputs, gi) < 0) {
            rc = -1;
            goto done;
        }
    }
    if (!keep_graph) {
        ct_node_release_saved(n);
    }
    for (int e = 0; e < n->n_edges; e++) {
        ct_edge *edge = &n->edges[e];
        if (edge->fn == NULL) {
            continue;
        }
        int c = find_slot(g, edge->fn);
        if (go[e] != NULL) {
            rc = accumulate_into(g, c, edge->input_nr, go[e], create_graph);
            go[e] = NULL;
            if (rc < 0) {
                goto done;
            }
        }
        if (--g->slots[c].deps == 0) {
            heap_push(g, c);
        }
    }
done:
    for (int e = 0; e < n->n_edges; e++) {
        ct_tensor_decref(go[e]);
    }
    if (go != stack_go) {
        free(go);
    }
    return rc;
}

static bool
same_shape(const ct_tensor *a, const ct_tensor *b)
{
    return a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

/* The implicit or given gradient of root i (new reference). */
static ct_tensor *
root_grad(const ct_tensor *root, const ct_tensor *grad, int i)
{
    if (grad == NULL) {
        if (root->numel != 1) {
            ct_error(CT_ERR_RUNTIME, "grad can be implicitly created only for scalar "
                     "outputs");
            return NULL;
        }
        /* ones on the root's device */
        ct_tensor *one = ct_empty(root->ndim, root->sizes, root->dtype,
                                  ct_tensor_device(root));
        if (one != NULL && ct_fill_(one, ct_scalar_int(1)) < 0) {
            ct_tensor_decref(one);
            one = NULL;
        }
        return one;
    }
    if (!same_shape(root, grad)) {
        char a[256], b[256];
        ct_error(CT_ERR_RUNTIME, "Mismatch in shape: grad_output[%d] has a shape of "
                 "torch.Size(%s) and output[%d] has a shape of torch.Size(%s).", i,
                 ct_format_sizes(grad->ndim, grad->sizes, a, sizeof a), i,
                 ct_format_sizes(root->ndim, root->sizes, b, sizeof b));
        return NULL;
    }
    if (!ct_device_eq(ct_tensor_device(grad), ct_tensor_device(root))) {
        /* PyTorch's validate_outputs: a 0-dim gradient is moved over */
        if (grad->ndim == 0) {
            return ct_to_device(grad, ct_tensor_device(root));
        }
        char a[32], b[32];
        ct_error(CT_ERR_RUNTIME, "invalid gradient at index %d - expected device %s but "
                 "got %s", i, ct__device_text(ct_tensor_device(root), a, sizeof a),
                 ct__device_text(ct_tensor_device(grad), b, sizeof b));
        return NULL;
    }
    ct_tensor_incref((ct_tensor *)grad);
    return (ct_tensor *)grad;
}

/* Note [Final callbacks]
 * queue_callback's callbacks live in a per-thread list; each run remembers
 * where the list stood when it started and, on success, runs and drops the
 * ones queued since (so a backward started inside a hook runs its own
 * callbacks, as PyTorch's per-graph-task list does).  A callback may queue
 * more; they run in the same pass.  On failure the run's callbacks are
 * dropped unrun. */
typedef struct {
    ct_final_callback_fn fn;
    void *ctx;
    void (*release)(void *ctx);
} final_callback;

static _Thread_local final_callback *final_cbs;
static _Thread_local int final_n, final_cap, run_depth;

int
ct_autograd_queue_callback(ct_final_callback_fn fn, void *ctx, void (*release)(void *ctx))
{
    if (run_depth == 0) {
        return ct_error(CT_ERR_RUNTIME,
                        "Final callbacks can only be installed during backward pass.");
    }
    if (final_n == final_cap) {
        int cap = final_cap == 0 ? 8 : 2 * final_cap;
        final_callback *p = realloc(final_cbs, (size_t)cap * sizeof *p);
        if (p == NULL) {
            return ct_error(CT_ERR_NOMEM, "out of memory queueing a callback");
        }
        final_cbs = p;
        final_cap = cap;
    }
    final_cbs[final_n++] = (final_callback){fn, ctx, release};
    return 0;
}

/* Run (when rc == 0) and drop the callbacks queued since `base`; returns
 * rc, or -1 when a callback failed (the later ones are dropped). */
static int
finish_callbacks(int base, int rc)
{
    for (int i = base; i < final_n; i++) {
        final_callback cb = final_cbs[i];
        if (rc == 0 && cb.fn(cb.ctx) < 0) {
            rc = -1;
        }
        /* the entry may have moved if the callback queued more */
        if (cb.release != NULL) {
            cb.release(cb.ctx);
        }
    }
    final_n = base;
    if (base == 0) {
        free(final_cbs);
        final_cbs = NULL;
        final_cap = 0;
    }
    return rc;
}

int
ct_autograd_run(int n, ct_tensor *const *roots, ct_tensor *const *grads,
                bool keep_graph, bool create_graph, int n_inputs,
                ct_tensor *const *inputs, ct_tensor **results, bool allow_unused)
{
    graph g = {0};
    ct_edge inline_edges[8] = {{NULL, 0}};
    ct_edge *edges = n + n_inputs <= 8 ? inline_edges
                                       : calloc((size_t)(n + n_inputs), sizeof(ct_edge));
    ct_edge *in_edges = edges + n;
    bool mode = ct_grad_enabled();
    int rc = -1;
    int cb_base = final_n;

    run_depth++;

    if (edges == NULL) {
        run_depth--;
        return ct_error(CT_ERR_NOMEM, "out of memory in backward");
    }
    for (int i = 0; i < n; i++) {
        if (!ct_requires_grad(roots[i])) {
            ct_error(CT_ERR_RUNTIME, "element %d of tensors does not require grad and "
                     "does not have a grad_fn", i);
            goto done;
        }
        edges[i] = ct_gradient_edge(roots[i]);
    }
    for (int i = 0; i < n_inputs; i++) {
        if (!ct_requires_grad(inputs[i])) {
            ct_error(CT_ERR_RUNTIME, "One of the differentiated Tensors does not "
                     "require grad");
            goto done;
        }
        in_edges[i] = ct_gradient_edge(inputs[i]);
    }
    if (discover(&g, n, edges) < 0) {
        goto done;
    }
    for (int i = 0; i < n_inputs; i++) {
        int s = find_slot(&g, in_edges[i].fn);
        if (s >= 0 && g.slots[s].capture < 0) {
            g.slots[s].capture = i;
        }
    }
    mark_runs(&g, n_inputs == 0, results == NULL);
    for (int s = 0; s < g.n; s++) {
        ct_node *node = g.slots[s].node;
        if (!g.slots[s].runs) {
            continue;
        }
        for (int e = 0; e < node->n_edges; e++) {
            if (node->edges[e].fn != NULL) {
                g.slots[find_slot(&g, node->edges[e].fn)].deps++;
            }
        }
    }
    g.heap = g.n + 1 <= (int)(sizeof g.inline_heap / sizeof(int))
                 ? g.inline_heap : malloc((size_t)(g.n + 1) * sizeof(int));
    if (g.heap == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in backward");
        goto done;
    }
    ct_set_grad_enabled(create_graph);
    for (int i = 0; i < n; i++) {
        ct_tensor *rg = root_grad(roots[i], grads != NULL ? grads[i] : NULL, i);
        if (rg == NULL) {
            goto done;
        }
        int s = find_slot(&g, edges[i].fn);
        if (accumulate_into(&g, s, edges[i].input_nr, rg, create_graph) < 0) {
            goto done;
        }
    }
    for (int s = 0; s < g.n; s++) {
        g.slots[s].seen = false;
    }
    for (int i = 0; i < n; i++) {
        int s = find_slot(&g, edges[i].fn);
        if (g.slots[s].deps == 0 && !g.slots[s].seen) {
            g.slots[s].seen = true;
            heap_push(&g, s);
        }
    }
    while (g.heap_n > 0) {
        int s = heap_pop(&g);
        if (run_node(&g, s, keep_graph, create_graph, results) < 0) {
            goto done;
        }
    }
    for (int i = 0; i < n_inputs && results == NULL; i++) {
        /* backward(inputs=) with a non-leaf input: its .grad accumulates */
        int s = find_slot(&g, in_edges[i].fn);
        ct_tensor **got = s >= 0 ? slot_grads(&g.slots[s]) : NULL;
        ct_tensor *r = got != NULL ? got[in_edges[i].input_nr] : NULL;
        if (r != NULL && !ct_is_leaf(inputs[i])) {
            ct_tensor *sum = inputs[i]->grad == NULL
                                 ? ct_clone(r) : ct_add(inputs[i]->grad, r, ct_scalar_int(1));
            if (sum == NULL) {
                goto done;
            }
            ct_tensor_decref(inputs[i]->grad);
            inputs[i]->grad = sum;
        }
    }
    if (results != NULL) {
        for (int i = 0; i < n_inputs; i++) {
            int s = find_slot(&g, in_edges[i].fn);
            ct_tensor *r = NULL;
            ct_tensor **got = s >= 0 ? slot_grads(&g.slots[s]) : NULL;
            if (got != NULL) {
                r = got[in_edges[i].input_nr];
            }
            if (r == NULL && !allow_unused) {
                for (int j = 0; j < i; j++) {
                    ct_tensor_decref(results[j]);
                    results[j] = NULL;
                }
                ct_error(CT_ERR_RUNTIME, "One of the differentiated Tensors appears to "
                         "not have been used in the graph. Set allow_unused=True if "
                         "this is the desired behavior.");
                goto done;
            }
            if (r != NULL) {
                ct_tensor_incref(r);
            }
            results[i] = r;
        }
    }
    rc = 0;
done:
    if (streams_finish(&g) < 0 && rc == 0) {
        rc = -1;
    }
    ct_set_grad_enabled(mode);
    graph_free(&g);
    for (int i = 0; i < n + n_inputs; i++) {
        if (edges[i].fn != NULL) {
            ct_node_decref(edges[i].fn);
        }
    }
    if (edges != inline_edges) {
        free(edges);
    }
    rc = finish_callbacks(cb_base, rc);
    run_depth--;
    return rc;
}
