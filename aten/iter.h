/* aten/iter.h -- the pointwise iteration engine (ctorch's TensorIterator).
 *
 * An op supplies a typed 1-D strided loop; the engine does everything else:
 * broadcasting inputs to the output's shape, ordering dimensions so the
 * innermost one is the fastest in memory, coalescing dimensions that are
 * laid out back to back, and splitting the work across threads above
 * CT_GRAIN_SIZE elements (on the pool of aten/parallel.c).  Only the
 * engine knows threads.
 *
 * A loop gets data[op] (op 0 is the output), the inner-dimension byte
 * strides[op], the element count n and the op's context.  It returns 0, or
 * -1 with the ct error set (e.g. integer division by zero); the engine
 * carries an error raised on a worker thread back to the caller.
 */
#ifndef CTORCH_ATEN_ITER_H
#define CTORCH_ATEN_ITER_H

#include <ctorch/ctorch.h>

#define CT_ITER_MAX_OPS 4
#define CT_GRAIN_SIZE 32768

typedef int (*ct_loop)(char **data, const int64_t *strides, int64_t n,
                       void *ctx);

/* Run loop over ops[0] (written) and ops[1..nops-1] (read, broadcast to
 * ops[0]'s shape).  Every operand already has the dtype the loop expects. */
int ct_iter_run(int nops, ct_tensor *const *ops, ct_loop loop, void *ctx);

/* The geometry ct_iter_run would walk for ops, for kernels elsewhere (a
 * device's): its dim count (>= 1); shape[d] and strides[d][op], in
 * elements, innermost dim first, ordered by memory and coalesced. */
int ct_iter_geometry(int nops, ct_tensor *const *ops, int64_t *shape,
                     int64_t (*strides)[CT_ITER_MAX_OPS]);

/* A new uninitialised output of the given shape and dtype whose memory
 * order follows the inputs' (so that a transposed input gives a transposed
 * output, as in PyTorch).  Inputs are broadcast to shape. */
ct_tensor *ct_iter_new_output(int nin, const ct_tensor *const *ins, int ndim,
                              const int64_t *shape, ct_dtype dtype);

/* Check (and for CT_OUT_GIVEN, resize with PyTorch's warning) an output
 * against the shape an op produces; a resized output is laid out in the
 * memory order of the op's inputs ins[0..nin-1]. */
int ct_iter_check_out(ct_tensor *out, ct_out_mode mode, int ndim,
                      const int64_t *shape, int nin, const ct_tensor *const *ins);

/* True when a and b share memory in a way an elementwise op cannot run
 * in place (same storage, overlapping ranges, different layout). */
bool ct_iter_partial_overlap(const ct_tensor *a, const ct_tensor *b);
/* PyTorch's overlap errors for writing `out` while reading `in` (NULL:
 * only out's own overlap); see Note [Memory overlap]. */
int ct_iter_check_overlap(const ct_tensor *out, const ct_tensor *in);

#endif
