/* c10/error.c -- thread-local error slot and warning queue. */
#include <ctorch/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local ct_error_state err;

static const char *const error_names[CT_ERR_COUNT] = {
    [CT_OK] = "OK",
#define X(N, P) [CT_ERR_##N] = P,
    CT_ERROR_MAP(X)
#undef X
};

int
ct_error(ct_errcode code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
    err.code = code;
    return -1;
}

bool
ct_error_occurred(void)
{
    return err.code != CT_OK;
}

ct_errcode
ct_error_code(void)
{
    return err.code;
}

const char *
ct_error_message(void)
{
    return err.message;
}

void
ct_error_clear(void)
{
    err.code = CT_OK;
    err.message[0] = '\0';
}

const char *
ct_error_name(ct_errcode code)
{
    return (code >= 0 && code < CT_ERR_COUNT) ? error_names[code] : "RuntimeError";
}

void
ct_error_fetch(ct_error_state *st)
{
    *st = err;
    ct_error_clear();
}

void
ct_error_restore(const ct_error_state *st)
{
    err = *st;
}

/* A small ring of pending warnings per thread; a burst beyond it keeps the
 * oldest ones (the first warning is what users act on). */
#define WARN_SLOTS 8
static _Thread_local char warnings[WARN_SLOTS][512];
static _Thread_local int warn_head, warn_count;

void
ct_warn(const char *fmt, ...)
{
    if (warn_count == WARN_SLOTS) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warnings[(warn_head + warn_count) % WARN_SLOTS], 512, fmt, ap);
    va_end(ap);
    warn_count++;
}

bool
ct_warning_pending(void)
{
    return warn_count > 0;
}

bool
ct_warning_pop(char *buf, int size)
{
    if (warn_count == 0) {
        return false;
    }
    snprintf(buf, (size_t)size, "%s", warnings[warn_head]);
    warn_head = (warn_head + 1) % WARN_SLOTS;
    warn_count--;
    return true;
}

void
ct__assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "ctorch: internal assertion failed: %s at %s:%d\n", expr,
            file, line);
    abort();
}
