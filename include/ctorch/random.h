/* ctorch/random.h -- random number generators and the sampling ops.
 *
 * A ct_generator is PyTorch's CPU generator, bit for bit (specs/rng.md):
 * a 32-bit Mersenne Twister (mt19937) plus the cached second value of a
 * Box-Muller pair.  After the same seed, the same sequence of calls gives
 * the same values as torch 1.13 on x86-64 (AVX2 build).
 *
 * Ownership: ct_generator_new() returns a generator the caller owns and
 * releases with ct_generator_free().  ct_default_generator() is borrowed
 * and lives for the process; it is seeded from the OS on first use, so an
 * unseeded program is not reproducible (as in PyTorch).  Every sampling op
 * takes a `gen` argument: NULL means the default generator.  Tensors
 * follow ops.h: arguments are borrowed, results are new references or
 * NULL with the error set; in-place ops return 0 or -1.
 *
 * Thread-safety: each generator has a mutex held for the whole of one op,
 * so concurrent ops on one generator never corrupt it (their draws are
 * then interleaved op by op, in some order).  Ops draw serially, in the
 * memory order of the tensor they fill; the thread count never changes a
 * result.  fork() waits for an op on the default generator to finish, so
 * a child never inherits it locked.
 *
 * CUDA generators (ct_generator_new_on, ct_cuda_default_generator) are
 * PyTorch's Philox generators: a seed and an offset, which sampling into a
 * tensor on that device reads and moves on, the draws being made there as
 * PyTorch's CUDA kernels make them.  A generator samples only into tensors
 * of its device type; giving one to the other raises PyTorch's "Expected a
 * 'cuda' device type for generator but found 'cpu'" (or the reverse).
 */
#ifndef CTORCH_RANDOM_H
#define CTORCH_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

#include "tensor.h"

typedef struct ct_generator ct_generator;

/* The seed of a new generator (torch.Generator()); only its low 32 bits
 * reach the engine. */
#define CT_GENERATOR_DEFAULT_SEED UINT64_C(67280421310721)
/* Byte sizes of a serialized state (torch.get_rng_state()): the current
 * layout, and the legacy one set_state still accepts. */
#define CT_RNG_STATE_SIZE 5056
#define CT_RNG_STATE_SIZE_LEGACY 5048
/* A CUDA generator's state (PyTorch 2's): the seed and the offset as
 * little-endian 64-bit integers; set_state also takes the seed alone (the
 * offset then 0).  PyTorch 1.x put 800 bytes of 0xFF before them. */
#define CT_CUDA_RNG_STATE_SIZE 16

/* --- generators (aten/generator.c) ------------------------------------ */
/* A new generator seeded with CT_GENERATOR_DEFAULT_SEED; NULL on OOM. */
ct_generator *ct_generator_new(void);
void ct_generator_free(ct_generator *g);        /* NULL is a no-op */
/* The process-wide default generator (borrowed). */
ct_generator *ct_default_generator(void);
/* A new generator of device: ct_generator_new() for the CPU; for a CUDA
 * device (CUDA started, the index valid) a Philox generator seeded with
 * CT_GENERATOR_DEFAULT_SEED.  NULL with the error set. */
ct_generator *ct_generator_new_on(ct_device device);
/* The device g samples for (NULL: the default CPU generator's). */
ct_device ct_generator_device(const ct_generator *g);
/* The default generator of CUDA device `device` (borrowed, for the
 * process), seeded from the OS when first asked for; NULL with the error
 * set when CUDA cannot start or there is no such device. */
ct_generator *ct_cuda_default_generator(int device);
/* Reseed and clear the normal caches (manual_seed). */
void ct_generator_manual_seed(ct_generator *g, uint64_t seed);
/* Reseed with 64 bits from the OS; returns them. */
uint64_t ct_generator_seed(ct_generator *g);
/* The 64-bit value last given to manual_seed (or a state's). */
uint64_t ct_generator_initial_seed(ct_generator *g);
/* The byte size of g's state: CT_RNG_STATE_SIZE, or
 * CT_CUDA_RNG_STATE_SIZE for a CUDA generator. */
int64_t ct_generator_state_size(const ct_generator *g);
/* The state in PyTorch's byte layout: ct_generator_state_size bytes into
 * out. */
void ct_generator_get_state(ct_generator *g, uint8_t *out);
/* Restore a state of CT_RNG_STATE_SIZE or CT_RNG_STATE_SIZE_LEGACY
 * bytes (a CUDA generator: CT_CUDA_RNG_STATE_SIZE, or 8 fewer); -1 with
 * torch's RuntimeError for other sizes or an invalid engine state (the
 * generator is then unchanged). */
int ct_generator_set_state(ct_generator *g, const uint8_t *state, int64_t nbytes);
/* Make dst a copy of src (engine and normal caches; a CUDA generator's
 * seed and offset); -1 with PyTorch's device-type error when the two are
 * not of one device type. */
int ct_generator_copy(ct_generator *dst, ct_generator *src);
/* Single draws, for callers that need raw bits (one lock each). */
uint32_t ct_generator_random32(ct_generator *g);
uint64_t ct_generator_random64(ct_generator *g);

/* The state as a new uint8 tensor (torch.get_rng_state()). */
ct_tensor *ct_generator_state_tensor(ct_generator *g);
/* Restore from a uint8 tensor, with torch's type and layout checks. */
int ct_generator_set_state_tensor(ct_generator *g, const ct_tensor *state);

/* --- in-place sampling ------------------------------------------------- */
/* Each fills t (every element, in memory order) and bumps nothing: the
 * caller decides about version counters.  Floating dtypes only, except
 * where noted. */
/* U[from, to) (aten/cpu/random_uniform.c). */
int ct_uniform_(ct_tensor *t, double from, double to, ct_generator *gen);
/* N(mean, std^2) (aten/cpu/random_normal.c). */
int ct_normal_(ct_tensor *t, double mean, double std, ct_generator *gen);
/* exp(N(mean, std^2)). */
int ct_log_normal_(ct_tensor *t, double mean, double std, ct_generator *gen);
/* Integers (aten/cpu/random_int.c), every dtype but quantized:
 * random_() spans [0, 2^digits] for floats and [0, max] for integers;
 * random_range_ spans [from, *to), or [from, the dtype's max] when to is
 * NULL (from == INT64_MIN and to NULL: every int64). */
int ct_random_(ct_tensor *t, ct_generator *gen);
int ct_random_range_(ct_tensor *t, int64_t from, const int64_t *to, ct_generator *gen);
/* 1 with probability p (aten/cpu/random_dist.c), every dtype. */
int ct_bernoulli_(ct_tensor *t, double p, ct_generator *gen);
/* 1 with probability p[i], p broadcast to t (floating p). */
int ct_bernoulli_tensor_(ct_tensor *t, const ct_tensor *p, ct_generator *gen);
int ct_exponential_(ct_tensor *t, double lambd, ct_generator *gen);
int ct_cauchy_(ct_tensor *t, double median, double sigma, ct_generator *gen);
/* Every dtype but bool. */
int ct_geometric_(ct_tensor *t, double p, ct_generator *gen);

/* --- sampling factories ------------------------------------------------ */
ct_tensor *ct_rand(int ndim, const int64_t *sizes, ct_dtype dtype, ct_generator *gen);
ct_tensor *ct_randn(int ndim, const int64_t *sizes, ct_dtype dtype, ct_generator *gen);
/* Values in [low, high). */
ct_tensor *ct_randint(int64_t low, int64_t high, int ndim, const int64_t *sizes,
                      ct_dtype dtype, ct_generator *gen);
/* A random permutation of 0 .. n-1; _on makes it on device (a CUDA
 * device: with that device's generator). */
ct_tensor *ct_randperm(int64_t n, ct_dtype dtype, ct_generator *gen);
ct_tensor *ct_randperm_on(int64_t n, ct_dtype dtype, ct_device device,
                          ct_generator *gen);
/* torch.normal's tensor overloads: a NULL tensor stands for the number
 * beside it (mean_t NULL: mean; std_t NULL: std).  Not both NULL. */
ct_tensor *ct_normal(const ct_tensor *mean_t, double mean, const ct_tensor *std_t,
                     double std, ct_generator *gen);
/* torch.bernoulli(p): a contiguous tensor of p's dtype. */
ct_tensor *ct_bernoulli(const ct_tensor *p, ct_generator *gen);
/* Row-wise samples of category indices (int64), probs 1-D or 2-D. */
ct_tensor *ct_multinomial(const ct_tensor *probs, int64_t num_samples, bool replacement,
                          ct_generator *gen);
/* Poisson counts for each rate, in the rates' dtype. */
ct_tensor *ct_poisson(const ct_tensor *rates, ct_generator *gen);

#endif
