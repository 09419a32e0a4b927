/* aten/generator.c -- the CPU generator: mt19937 engine, seeding, the
 * default generator, and PyTorch's byte layout of a state (specs/rng.md
 * section 1); and the CUDA generators' seeds, offsets and states (Note
 * [CUDA generators]).  Kernels lock a generator with ct__gen_acquire and
 * draw through random_impl.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "aten/random_impl.h"

#include <ctorch/cuda.h>

/* --- the engine ---------------------------------------------------------- */
#define MT_MATRIX 0x9908B0DFu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7FFFFFFFu

static inline uint32_t
twist(uint32_t u, uint32_t v)
{
    uint32_t y = (u & MT_UPPER) | (v & MT_LOWER);
    return (y >> 1) ^ ((uint32_t)-(int32_t)(v & 1) & MT_MATRIX);
}

/* Both loops vectorize: the first reads words it has not written yet,
 * the second reads words written 227 iterations before. */
__attribute__((target_clones("avx2", "default"))) void
ct__mt_twist(ct__mt *mt)
{
    uint32_t *s = mt->state;
    int i;
    for (i = 0; i < CT__MT_N - CT__MT_M; i++) {
        s[i] = s[i + CT__MT_M] ^ twist(s[i], s[i + 1]);
    }
    for (; i < CT__MT_N - 1; i++) {
        s[i] = s[i + CT__MT_M - CT__MT_N] ^ twist(s[i], s[i + 1]);
    }
    s[CT__MT_N - 1] = s[CT__MT_M - 1] ^ twist(s[CT__MT_N - 1], s[0]);
    mt->next = 0;
}

static void
mt_seed(ct__mt *mt, uint64_t seed)
{
    mt->seed = seed;
    mt->state[0] = (uint32_t)seed;      /* only the low 32 bits are used */
    for (uint32_t j = 1; j < CT__MT_N; j++) {
        uint32_t p = mt->state[j - 1];
        mt->state[j] = 1812433253u * (p ^ (p >> 30)) + j;
    }
    memset(mt->state + CT__MT_N, 0, sizeof(uint32_t) * CT__MT_N);
    mt->left = 1;
    mt->next = 0;
}

/* Note [Bulk draws]
 * A run of draws between two twists is the tempered words
 * state[next .. next + left - 2]; taking them a block at a time gives the
 * same values as one call each, with a loop the compiler vectorizes.
 * While inside, `left` is one more than PyTorch's after a twist (625), so
 * that it again equals PyTorch's after the first word is taken. */
__attribute__((target_clones("avx2", "default"))) void
ct__random32_fill(ct__mt *mt, uint32_t *out, int64_t n)
{
    while (n > 0) {
        if (mt->left == 1) {
            ct__mt_twist(mt);
            mt->left = CT__MT_N + 1;
        }
        int64_t k = mt->left - 1 < n ? mt->left - 1 : n;
        const uint32_t *s = mt->state + mt->next;
        for (int64_t i = 0; i < k; i++) {
            out[i] = ct__mt_temper(s[i]);
        }
        mt->next += (uint32_t)k;
        mt->left -= (int32_t)k;
        out += k;
        n -= k;
    }
}

void
ct__random64_fill(ct__mt *mt, uint64_t *out, int64_t n)
{
    uint32_t buf[2 * CT__CHUNK];
    while (n > 0) {
        int64_t k = n < CT__CHUNK ? n : CT__CHUNK;
        ct__random32_fill(mt, buf, 2 * k);
        for (int64_t i = 0; i < k; i++) {
            out[i] = (uint64_t)buf[2 * i] << 32 | buf[2 * i + 1];
        }
        out += k;
        n -= k;
    }
}

/* --- generators ---------------------------------------------------------- */
static void
gen_init(ct_generator *g, uint64_t seed)
{
    pthread_mutex_init(&g->lock, NULL);
    g->device = ct_device_cpu();
    g->philox_offset = 0;
    g->borrowed = false;
    mt_seed(&g->mt, seed);
    g->has_double_normal = false;
    g->double_normal = 0;
    g->has_float_normal = false;
    g->float_normal = 0;
}

/* 64 bits from the OS (getrandom, else /dev/urandom, else the clock). */
static uint64_t
os_random64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) == (ssize_t)sizeof v) {
        return v;
    }
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t got = read(fd, &v, sizeof v);
        close(fd);
        if (got == (ssize_t)sizeof v) {
            return v;
        }
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
           (uint64_t)getpid() << 40;
}

static ct_generator default_gen;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

/* A fork while another thread samples from the default generator would
 * leave the child's copy locked forever; holding the lock across fork()
 * hands the child a consistent, unlocked generator. */
static void
fork_prepare(void)
{
    pthread_mutex_lock(&default_gen.lock);
}

static void
fork_done(void)
{
    pthread_mutex_unlock(&default_gen.lock);
}

static void
default_init(void)
{
    gen_init(&default_gen, os_random64());
    default_gen.borrowed = true;
    pthread_atfork(fork_prepare, fork_done, fork_done);
}

ct_generator *
ct_default_generator(void)
{
    pthread_once(&default_once, default_init);
    return &default_gen;
}

ct_generator *
ct_generator_new(void)
{
    ct_generator *g = malloc(sizeof *g);
    if (g == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory allocating a Generator");
        return NULL;
    }
    gen_init(g, CT_GENERATOR_DEFAULT_SEED);
    return g;
}

void
ct_generator_free(ct_generator *g)
{
    if (g == NULL || g->borrowed) {
        return;
    }
    pthread_mutex_destroy(&g->lock);
    free(g);
}

ct_generator *
ct__gen_acquire(ct_generator *gen)
{
    ct_generator *g = gen != NULL ? gen : ct_default_generator();
    pthread_mutex_lock(&g->lock);
    return g;
}

void
ct__gen_release(ct_generator *g)
{
    pthread_mutex_unlock(&g->lock);
}

ct_device
ct_generator_device(const ct_generator *g)
{
    return g != NULL ? g->device : ct_device_cpu();
}

int
ct__gen_check_device(const ct_generator *gen, ct_device_type want)
{
    ct_device_type have = ct_generator_device(gen).type;
    if (have != want) {
        return ct_error(CT_ERR_RUNTIME, "Expected a '%s' device type for generator but "
                        "found '%s'", ct_device_type_name(want), ct_device_type_name(have));
    }
    return 0;
}

int
ct__gen_check_cpu(const ct_generator *gen)
{
    return ct__gen_check_device(gen, CT_DEVICE_CPU);
}

/* Reseed; the lock is held.  A CUDA generator starts its offset over. */
static void
reseed(ct_generator *g, uint64_t seed)
{
    if (g->device.type != CT_DEVICE_CPU) {
        g->mt.seed = seed;
        g->philox_offset = 0;
        return;
    }
    mt_seed(&g->mt, seed);
    g->has_double_normal = false;
    g->has_float_normal = false;
}

void
ct_generator_manual_seed(ct_generator *g, uint64_t seed)
{
    g = ct__gen_acquire(g);
    reseed(g, seed);
    ct__gen_release(g);
}

uint64_t
ct_generator_seed(ct_generator *g)
{
    /* PyTorch keeps a CUDA generator's OS seed below 2^53 */
    uint64_t s = os_random64() & (ct_generator_device(g).type != CT_DEVICE_CPU
                                      ? (UINT64_C(1) << 53) - 1 : UINT64_MAX);
    ct_generator_manual_seed(g, s);
    return s;
}

uint64_t
ct_generator_initial_seed(ct_generator *g)
{
    g = ct__gen_acquire(g);
    uint64_t s = g->mt.seed;
    ct__gen_release(g);
    return s;
}

uint32_t
ct_generator_random32(ct_generator *g)
{
    g = ct__gen_acquire(g);
    uint32_t r = ct__random32(&g->mt);
    ct__gen_release(g);
    return r;
}

uint64_t
ct_generator_random64(ct_generator *g)
{
    g = ct__gen_acquire(g);
    uint64_t r = ct__random64(&g->mt);
    ct__gen_release(g);
    return r;
}

int
ct_generator_copy(ct_generator *dst, ct_generator *src)
{
    if (ct__gen_check_device(src, ct_generator_device(dst).type) < 0) {
        return -1;
    }
    if (dst == src) {
        return 0;
    }
    /* copy through a snapshot so that only one lock is held at a time */
    ct_generator snap;
    src = ct__gen_acquire(src);
    snap.philox_offset = src->philox_offset;
    snap.mt = src->mt;
    snap.has_double_normal = src->has_double_normal;
    snap.double_normal = src->double_normal;
    snap.has_float_normal = src->has_float_normal;
    snap.float_normal = src->float_normal;
    ct__gen_release(src);
    dst = ct__gen_acquire(dst);
    dst->philox_offset = snap.philox_offset;
    dst->mt = snap.mt;
    dst->has_double_normal = snap.has_double_normal;
    dst->double_normal = snap.double_normal;
    dst->has_float_normal = snap.has_float_normal;
    dst->float_normal = snap.float_normal;
    ct__gen_release(dst);
    return 0;
}

/* --- the byte layout of a state (specs/rng.md 1.3) ----------------------- */
/* Offsets in PyTorch's CPUGeneratorImplState (C struct alignment). */
enum {
    OFF_SEED = 0,
    OFF_LEFT = 8,
    OFF_SEEDED = 12,
    OFF_NEXT = 16,
    OFF_STATE = 24,
    OFF_NORMAL_X = OFF_STATE + 8 * CT__MT_N,    /* 5016 */
    OFF_NORMAL_Y = OFF_NORMAL_X + 8,
    OFF_NORMAL_RHO = OFF_NORMAL_Y + 8,
    OFF_NORMAL_VALID = OFF_NORMAL_RHO + 8,
    OFF_FLOAT_NORMAL = OFF_NORMAL_VALID + 8,    /* after 4 bytes of padding */
    OFF_FLOAT_VALID = OFF_FLOAT_NORMAL + 4,
};
_Static_assert(OFF_FLOAT_NORMAL == CT_RNG_STATE_SIZE_LEGACY, "legacy state size");
_Static_assert(OFF_FLOAT_VALID + 4 == CT_RNG_STATE_SIZE, "state size");

static void
put_le(uint8_t *p, uint64_t v, int nbytes)
{
    for (int i = 0; i < nbytes; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t
get_le(const uint8_t *p, int nbytes)
{
    uint64_t v = 0;
    for (int i = 0; i < nbytes; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static void
put_f64(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put_le(p, u, 8);
}

static double
get_f64(const uint8_t *p)
{
    uint64_t u = get_le(p, 8);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int64_t
ct_generator_state_size(const ct_generator *g)
{
    return g != NULL && g->device.type != CT_DEVICE_CPU ? CT_CUDA_RNG_STATE_SIZE
                                                        : CT_RNG_STATE_SIZE;
}

/* A CUDA generator's state (CT_CUDA_RNG_STATE_SIZE in ctorch/random.h). */
enum { CUDA_OFF_SEED = 0, CUDA_OFF_OFFSET = 8 };

void
ct_generator_get_state(ct_generator *g, uint8_t *out)
{
    if (g != NULL && g->device.type != CT_DEVICE_CPU) {
        g = ct__gen_acquire(g);
        put_le(out + CUDA_OFF_SEED, g->mt.seed, 8);
        put_le(out + CUDA_OFF_OFFSET, g->philox_offset, 8);
        ct__gen_release(g);
        return;
    }
    memset(out, 0, CT_RNG_STATE_SIZE);
    g = ct__gen_acquire(g);
    put_le(out + OFF_SEED, g->mt.seed, 8);
    put_le(out + OFF_LEFT, (uint32_t)g->mt.left, 4);
    put_le(out + OFF_SEEDED, 1, 4);
    put_le(out + OFF_NEXT, g->mt.next, 8);
    for (int i = 0; i < CT__MT_N; i++) {
        put_le(out + OFF_STATE + 8 * i, g->mt.state[i], 8);
    }
    if (g->has_double_normal) {
        put_f64(out + OFF_NORMAL_Y, g->double_normal);
        put_le(out + OFF_NORMAL_VALID, 1, 4);
    }
    if (g->has_float_normal) {
        uint32_t u = ct_float_to_bits(g->float_normal);
        put_le(out + OFF_FLOAT_NORMAL, u, 4);
        out[OFF_FLOAT_VALID] = 1;
    }
    ct__gen_release(g);
}

/* The offset must stay a multiple of 4 (a Philox block is four draws). */
static int
set_cuda_state(ct_generator *g, const uint8_t *st, int64_t nbytes)
{
    if (nbytes != CT_CUDA_RNG_STATE_SIZE && nbytes != CT_CUDA_RNG_STATE_SIZE - 8) {
        return ct_error(CT_ERR_RUNTIME, "RNG state is wrong size");
    }
    uint64_t offset = nbytes == CT_CUDA_RNG_STATE_SIZE ? get_le(st + CUDA_OFF_OFFSET, 8) : 0;
    if (offset % 4 != 0) {
        return ct_error(CT_ERR_RUNTIME, "offset must be a multiple of 4");
    }
    g = ct__gen_acquire(g);
    g->mt.seed = get_le(st + CUDA_OFF_SEED, 8);
    g->philox_offset = offset;
    ct__gen_release(g);
    return 0;
}

int
ct_generator_set_state(ct_generator *g, const uint8_t *st, int64_t nbytes)
{
    if (g != NULL && g->device.type != CT_DEVICE_CPU) {
        return set_cuda_state(g, st, nbytes);
    }
    if (nbytes != CT_RNG_STATE_SIZE && nbytes != CT_RNG_STATE_SIZE_LEGACY) {
        return ct_error(CT_ERR_RUNTIME, "Expected either a CPUGeneratorImplStateLegacy "
                        "of size %d or a CPUGeneratorImplState of size %d but found the "
                        "input RNG state size to be %lld", CT_RNG_STATE_SIZE_LEGACY,
                        CT_RNG_STATE_SIZE, (long long)nbytes);
    }
    int32_t left = (int32_t)get_le(st + OFF_LEFT, 4);
    /* PyTorch reads `next` as a uint32 */
    bool seeded = get_le(st + OFF_SEEDED, 4) != 0;
    uint32_t next = (uint32_t)get_le(st + OFF_NEXT, 4);
    if (!seeded || left <= 0 || left > CT__MT_N || next > CT__MT_N) {
        return ct_error(CT_ERR_RUNTIME, "Invalid mt19937 state");
    }
    bool has_double = false, has_float = false;
    double dn = 0;
    float fn = 0;
    if (get_le(st + OFF_NORMAL_VALID, 4) != 0) {
        has_double = true;
        if (nbytes == CT_RNG_STATE_SIZE) {
            dn = get_f64(st + OFF_NORMAL_Y);
        }
        else {
            /* the legacy layout kept Box-Muller's inputs, not its output */
            double x = get_f64(st + OFF_NORMAL_X), rho = get_f64(st + OFF_NORMAL_RHO);
            dn = rho * sin(2.0 * M_PI * x);
        }
    }
    if (nbytes == CT_RNG_STATE_SIZE && st[OFF_FLOAT_VALID] != 0) {
        has_float = true;
        fn = ct_bits_to_float((uint32_t)get_le(st + OFF_FLOAT_NORMAL, 4));
    }
    g = ct__gen_acquire(g);
    g->mt.seed = get_le(st + OFF_SEED, 8);
    g->mt.left = left;
    g->mt.next = next;
    for (int i = 0; i < CT__MT_N; i++) {
        g->mt.state[i] = (uint32_t)get_le(st + OFF_STATE + 8 * i, 8);
    }
    memset(g->mt.state + CT__MT_N, 0, sizeof(uint32_t) * CT__MT_N);
    g->has_double_normal = has_double;
    g->double_normal = dn;
    g->has_float_normal = has_float;
    g->float_normal = fn;
    ct__gen_release(g);
    return 0;
}

ct_tensor *
ct_generator_state_tensor(ct_generator *g)
{
    int64_t n = ct_generator_state_size(g);
    ct_tensor *t = ct_empty(1, &n, CT_DTYPE_UINT8, ct_device_cpu());
    if (t != NULL) {
        ct_generator_get_state(g, (uint8_t *)ct_tensor_data(t));
    }
    return t;
}

int
ct_generator_set_state_tensor(ct_generator *g, const ct_tensor *state)
{
    if (state->dtype != CT_DTYPE_UINT8 || ct_tensor_device(state).type != CT_DEVICE_CPU) {
        return ct_error(CT_ERR_TYPE, "RNG state must be a torch.ByteTensor");
    }
    if (!ct_tensor_is_contiguous(state)) {
        return ct_error(CT_ERR_RUNTIME, "RNG state must be contiguous");
    }
    return ct_generator_set_state(g, (const uint8_t *)ct_tensor_data(state), state->numel);
}

/* --- CUDA generators (Note [CUDA generators]) ------------------------------ */

static ct_generator *
cuda_gen_new(int device, uint64_t seed)
{
    ct_generator *g = malloc(sizeof *g);
    if (g == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory allocating a Generator");
        return NULL;
    }
    gen_init(g, 0);
    g->device = (ct_device){CT_DEVICE_CUDA, device};
    reseed(g, seed);
    return g;
}

/* 0, or -1 with PyTorch's errors when CUDA cannot start or device is not
 * one of its devices. */
static int
check_cuda_device(int device)
{
    if (ct_cuda_init() < 0) {
        return -1;
    }
    int n = ct_cuda_device_count();
    if (device < 0 || device >= n) {
        return ct_error(CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    }
    return 0;
}

ct_generator *
ct_generator_new_on(ct_device device)
{
    if (device.type == CT_DEVICE_CPU) {
        return ct_generator_new();
    }
    int index = device.index;
    if (index < 0 && ct_cuda_init() == 0 && ct_cuda_current_device(&index) < 0) {
        return NULL;
    }
    if (check_cuda_device(index) < 0) {
        return NULL;
    }
    return cuda_gen_new(index, CT_GENERATOR_DEFAULT_SEED);
}

/* Made on first use, each seeded from the OS as PyTorch's are; they live
 * for the process. */
#define CUDA_MAX_DEVICES 64
static ct_generator *_Atomic cuda_defaults[CUDA_MAX_DEVICES];
static pthread_mutex_t cuda_defaults_lock = PTHREAD_MUTEX_INITIALIZER;

ct_generator *
ct_cuda_default_generator(int device)
{
    if (device >= 0 && device < CUDA_MAX_DEVICES && cuda_defaults[device] != NULL) {
        return cuda_defaults[device];
    }
    if (check_cuda_device(device) < 0) {
        return NULL;
    }
    if (device >= CUDA_MAX_DEVICES) {
        ct_error(CT_ERR_RUNTIME, "ctorch: at most %d CUDA devices have generators",
                 CUDA_MAX_DEVICES);
        return NULL;
    }
    pthread_mutex_lock(&cuda_defaults_lock);
    ct_generator *g = cuda_defaults[device];
    if (g == NULL &&
        (g = cuda_gen_new(device, os_random64() & ((UINT64_C(1) << 53) - 1))) != NULL) {
        g->borrowed = true;
        cuda_defaults[device] = g;
    }
    pthread_mutex_unlock(&cuda_defaults_lock);
    return g;
}

void
ct__philox_reserve(ct_generator *gen, uint64_t increment, uint64_t *seed, uint64_t *offset)
{
    ct_generator *g = ct__gen_acquire(gen);
    *seed = g->mt.seed;
    *offset = g->philox_offset;
    g->philox_offset += (increment + 3) / 4 * 4;
    ct__gen_release(g);
}
