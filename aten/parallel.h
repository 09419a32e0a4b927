/* aten/parallel.h -- the thread pool behind aten/iter.c (internal).
 *
 * ct__parallel_run(n, fn, ctx) calls fn(ctx, tid, n) once for each tid =
 * 0..n-1, each on the caller or a pool worker, whichever takes it first
 * (Note [Parts taken in turn]), and returns when all are done.  A call
 * made while another is running (a second Python thread, or from inside a
 * worker) runs its n parts itself, one after another.
 */
#ifndef CTORCH_ATEN_PARALLEL_H
#define CTORCH_ATEN_PARALLEL_H

typedef void (*ct_parallel_fn)(void *ctx, int tid, int nthreads);

void ct__parallel_run(int nthreads, ct_parallel_fn fn, void *ctx);
/* Threads an op may use (ct_set_num_threads, else OMP_NUM_THREADS, else
 * the CPUs this process may run on). */
int ct__parallel_threads(void);

#endif
