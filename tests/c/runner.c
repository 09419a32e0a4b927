/* tests/c/runner.c -- a tiny in-process test runner (after libuv's).
 *
 * Runs every test of CT_TEST_LIST in order (or only those named on the
 * command line), prints one line per test and a last line
 * "N passed, N failed"; exits 1 when any test failed.  Around each test it
 * checks that the test left no live tensors, storages or allocator bytes
 * behind and no error or warning pending, so every test is also a leak
 * test.  A crash prints the name of the test that crashed.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/c/test.h"

typedef struct {
    const char *name;
    void (*fn)(void);
} test_entry;

static const test_entry tests[] = {
#define TEST_ENTRY(name) {#name, test_##name},
    CT_TEST_LIST(TEST_ENTRY)
#undef TEST_ENTRY
};

static int current_failures;
static const char *current_name = "(none)";

void
ct_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    printf("    %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    current_failures++;
}

ct_tensor *
ct_test_tensor(ct_dtype dtype, int ndim, const int64_t *sizes, const double *vals)
{
    ct_tensor *d = ct_empty(ndim, sizes, CT_DTYPE_FLOAT64, ct_device_cpu());
    if (d == NULL) {
        return NULL;
    }
    memcpy(ct_tensor_data(d), vals, (size_t)d->numel * sizeof(double));
    ct_tensor *r = ct_to_dtype(d, dtype, false);
    ct_tensor_decref(d);
    return r;
}

ct_tensor *
ct_test_iota(ct_dtype dtype, int ndim, const int64_t *sizes)
{
    int64_t n = ct_check_sizes(ndim, sizes);
    if (n < 0) {
        return NULL;
    }
    ct_tensor *a = ct_arange(ct_scalar_int(0), ct_scalar_int(n), ct_scalar_int(1),
                             CT_DTYPE_INT64);
    ct_tensor *v = a ? ct_view(a, ndim, sizes) : NULL;
    ct_tensor *r = v ? ct_to_dtype(v, dtype, true) : NULL;
    ct_tensor_decref(a);
    ct_tensor_decref(v);
    return r;
}

static void
on_crash(int sig)
{
    static const char msg[] = "\ncrashed in test: ";
    ssize_t rc = write(2, msg, sizeof msg - 1);
    rc = write(2, current_name, strlen(current_name));
    rc = write(2, "\n", 1);
    (void)rc;
    signal(sig, SIG_DFL);
    raise(sig);
}

static bool
selected(int argc, char **argv, const char *name)
{
    if (argc <= 1) {
        return true;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return true;
        }
    }
    return false;
}

/* Checks made after every test: balance of the live counters, and no
 * error or warning left behind (which would leak into the next test). */
static void
check_after(int64_t tensors, int64_t storages, int64_t bytes)
{
    char buf[512];

    if (ct_live_tensors() != tensors || ct_live_storages() != storages ||
        ct_live_bytes() != bytes) {
        printf("    leak: live tensors %lld -> %lld, storages %lld -> %lld, "
               "bytes %lld -> %lld\n", (long long)tensors,
               (long long)ct_live_tensors(), (long long)storages,
               (long long)ct_live_storages(), (long long)bytes,
               (long long)ct_live_bytes());
        current_failures++;
    }
    if (ct_error_occurred()) {
        printf("    error left set: %s: %s\n", ct_error_name(ct_error_code()),
               ct_error_message());
        ct_error_clear();
        current_failures++;
    }
    while (ct_warning_pop(buf, sizeof buf)) {
        printf("    warning left pending: %s\n", buf);
        current_failures++;
    }
}

int
main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    char buf[512];
    size_t ntests = sizeof tests / sizeof tests[0];

    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    for (size_t i = 0; i < ntests; i++) {
        if (!selected(argc, argv, tests[i].name)) {
            continue;
        }
        ct_error_clear();
        while (ct_warning_pop(buf, sizeof buf)) {
        }
        int64_t tensors = ct_live_tensors(), storages = ct_live_storages();
        int64_t bytes = ct_live_bytes();
        current_name = tests[i].name;
        current_failures = 0;
        tests[i].fn();
        check_after(tensors, storages, bytes);
        if (current_failures == 0) {
            passed++;
            printf("ok %d - %s\n", passed + failed, tests[i].name);
        }
        else {
            failed++;
            printf("not ok %d - %s\n", passed + failed, tests[i].name);
        }
        fflush(stdout);
    }
    if (passed + failed == 0 && argc > 1) {
        fprintf(stderr, "no test matches the names given\n");
        return 2;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
