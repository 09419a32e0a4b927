/* ctorch/error.h -- error state, CPython style.
 *
 * A function that creates something returns a pointer or NULL; a function
 * that acts returns 0 or -1.  On failure the reason is left in a
 * thread-local (code, message) slot by ct_error(), which itself returns -1
 * so that `return ct_error(...)` is a one-liner.  Kernels may fail on any
 * thread; the caller (e.g. the Python layer, after re-taking the GIL) reads
 * the slot of its own thread.
 *
 * Warnings follow the same pattern: ct_warn() appends to a thread-local
 * queue that the embedding layer drains (ct_warning_pop) after a call.
 *
 * CT_ASSERT is for ctorch bugs only: it aborts with file:line.  User input
 * never reaches an assert.
 */
#ifndef CTORCH_ERROR_H
#define CTORCH_ERROR_H

#include <stdbool.h>

/* X(NAME, python_exception_name); LINALG is torch.linalg.LinAlgError, a
 * RuntimeError raised on numerical failures (a matrix with NaN for an SVD). */
#define CT_ERROR_MAP(X)                   \
    X(RUNTIME, "RuntimeError")            \
    X(TYPE, "TypeError")                  \
    X(VALUE, "ValueError")                \
    X(INDEX, "IndexError")                \
    X(NOMEM, "MemoryError")               \
    X(NOTIMPL, "NotImplementedError")     \
    X(OVERFLOW, "OverflowError")          \
    X(ZERODIV, "ZeroDivisionError")       \
    X(LINALG, "LinAlgError")

typedef enum {
    CT_OK = 0,
#define X(N, P) CT_ERR_##N,
    CT_ERROR_MAP(X)
#undef X
    CT_ERR_COUNT
} ct_errcode;

/* Set the error of this thread; always returns -1. */
int ct_error(ct_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool ct_error_occurred(void);
ct_errcode ct_error_code(void);
/* Borrowed; valid until the next ct_error* call on this thread. */
const char *ct_error_message(void);
void ct_error_clear(void);
/* Name of the Python exception that matches a code ("RuntimeError"). */
const char *ct_error_name(ct_errcode code);

/* Move an error between threads: fetch clears this thread's slot. */
typedef struct {
    ct_errcode code;
    char message[1024];
} ct_error_state;
void ct_error_fetch(ct_error_state *st);
void ct_error_restore(const ct_error_state *st);

/* Queue a UserWarning for the embedding layer. */
void ct_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Copy the oldest queued warning into buf and drop it; false when none. */
bool ct_warning_pop(char *buf, int size);
bool ct_warning_pending(void);

void ct__assert_fail(const char *expr, const char *file, int line)
    __attribute__((noreturn));
#define CT_ASSERT(cond) \
    ((cond) ? (void)0 : ct__assert_fail(#cond, __FILE__, __LINE__))

#endif
