/* tests/c/test_store.c -- the c10d stores through the C API, as a program
 * embedding libctorch uses them (no Python): HashStore, PrefixStore,
 * FileStore and a TCPStore master with a client, including a get that
 * another thread satisfies and the timeout errors. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <ctorch/c10d_store.h>

#include "tests/c/test.h"

/* get as a NUL-terminated string in buf (the value is freed). */
static int
get_str(ct_store *s, const char *key, char *buf, size_t cap)
{
    uint8_t *val;
    size_t n;
    if (ct_store_get(s, key, &val, &n) < 0) {
        return -1;
    }
    n = n < cap - 1 ? n : cap - 1;
    memcpy(buf, val, n);
    buf[n] = '\0';
    free(val);
    return 0;
}

static int
set_str(ct_store *s, const char *key, const char *val)
{
    return ct_store_set(s, key, (const uint8_t *)val, strlen(val));
}

/* Every operation of a fresh store; c10d's semantics. */
static void
check_ops(ct_store *s, bool file_delete)
{
    char buf[64];
    int64_t v;
    bool b;
    uint8_t *out;
    size_t n;
    CT_ASSERT_RC_OK(set_str(s, "a", "x"));
    CT_ASSERT_RC_OK(get_str(s, "a", buf, sizeof buf));
    CT_ASSERT_STR_EQ(buf, "x");
    CT_ASSERT_RC_OK(ct_store_add(s, "c", 3, &v));
    CT_ASSERT_EQ_INT(v, 3);
    CT_ASSERT_RC_OK(ct_store_add(s, "c", -10, &v));
    CT_ASSERT_EQ_INT(v, -7);
    CT_ASSERT_RC_OK(get_str(s, "c", buf, sizeof buf));
    CT_ASSERT_STR_EQ(buf, "-7");
    CT_ASSERT_EQ_INT(ct_store_add(s, "a", 1, &v), -1);
    CT_ASSERT_ERROR(CT_ERR_VALUE, "stoll");
    CT_ASSERT_RC_OK(ct_store_compare_set(s, "k", NULL, 0, (const uint8_t *)"v", 1, &out,
                                         &n));
    CT_ASSERT_TRUE(n == 1 && out[0] == 'v');
    free(out);
    CT_ASSERT_RC_OK(ct_store_compare_set(s, "k", (const uint8_t *)"x", 1,
                                         (const uint8_t *)"w", 1, &out, &n));
    CT_ASSERT_TRUE(n == 1 && out[0] == 'v');
    free(out);
    const char *keys[] = {"a", "c", "nope"};
    CT_ASSERT_RC_OK(ct_store_check(s, keys, 2, &b));
    CT_ASSERT_TRUE(b);
    CT_ASSERT_RC_OK(ct_store_check(s, keys, 3, &b));
    CT_ASSERT_TRUE(!b);
    CT_ASSERT_RC_OK(ct_store_wait(s, keys, 2, -1));
    CT_ASSERT_RC_OK(ct_store_num_keys(s, &v));
    CT_ASSERT_EQ_INT(v, 3);
    CT_ASSERT_RC_OK(ct_store_delete_key(s, "k", &b));
    CT_ASSERT_TRUE(b);
    CT_ASSERT_RC_OK(ct_store_delete_key(s, "k", &b));
    CT_ASSERT_TRUE(b == file_delete);
    CT_ASSERT_RC_OK(ct_store_num_keys(s, &v));
    CT_ASSERT_EQ_INT(v, 2);
}

TEST_IMPL(store_hash)
{
    ct_store *s = ct_hash_store_new();
    CT_ASSERT_OK(s);
    CT_ASSERT_EQ_INT(ct_store_timeout(s), 300000);
    check_ops(s, false);
    ct_store_set_timeout(s, 50);
    uint8_t *val;
    size_t n;
    CT_ASSERT_EQ_INT(ct_store_get(s, "missing", &val, &n), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Wait timeout: Connection timed out");
    ct_store_decref(s);
}

TEST_IMPL(store_prefix)
{
    ct_store *base = ct_hash_store_new();
    CT_ASSERT_OK(base);
    ct_store *a = ct_prefix_store_new("a", base);
    ct_store *ab = ct_prefix_store_new("b", a);
    ct_store_decref(a);             /* ab keeps it */
    CT_ASSERT_OK(ab);
    check_ops(ab, false);
    char buf[16];
    CT_ASSERT_RC_OK(get_str(base, "a/b/c", buf, sizeof buf));
    CT_ASSERT_STR_EQ(buf, "-7");
    ct_store_set_timeout(ab, 1234);
    CT_ASSERT_EQ_INT(ct_store_timeout(base), 1234);
    ct_store_set_timeout(base, 99);
    CT_ASSERT_EQ_INT(ct_store_timeout(ab), 99);
    ct_store_decref(ab);
    ct_store_decref(base);
}

TEST_IMPL(store_file)
{
    char path[] = "/tmp/ct_test_storeXXXXXX";
    int fd = mkstemp(path);
    CT_ASSERT_TRUE(fd >= 0);
    close(fd);
    ct_store *s = ct_file_store_new(path, 2, 300000);
    ct_store *t = ct_file_store_new(path, 2, 300000);
    CT_ASSERT_OK(s);
    CT_ASSERT_OK(t);
    check_ops(s, true);
    char buf[16];
    CT_ASSERT_RC_OK(get_str(t, "c", buf, sizeof buf));
    CT_ASSERT_STR_EQ(buf, "-7");
    ct_store_set_timeout(t, 50);
    uint8_t *val;
    size_t n;
    CT_ASSERT_EQ_INT(ct_store_get(t, "missing", &val, &n), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Timeout waiting for key: missing after 50 ms");
    ct_store_decref(s);
    CT_ASSERT_TRUE(access(path, F_OK) == 0);
    ct_store_decref(t);
    CT_ASSERT_TRUE(access(path, F_OK) != 0);       /* the last of 2 removed it */
    CT_ASSERT_TRUE(ct_file_store_new("/nonexistent/dir/f", 1, 1000) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "open(/nonexistent/dir/f): No such file or directory");
}

static void *
set_later(void *arg)
{
    usleep(100000);
    set_str(arg, "late", "here");
    return NULL;
}

TEST_IMPL(store_tcp)
{
    ct_store *m = ct_tcp_store_new("127.0.0.1", 0, -1, true, 30000, true);
    CT_ASSERT_OK(m);
    int port = ct_tcp_store_port(m);
    CT_ASSERT_TRUE(port > 0);
    ct_store *c = ct_tcp_store_new("127.0.0.1", port, -1, false, 30000, true);
    CT_ASSERT_OK(c);
    check_ops(c, false);
    char buf[16];
    CT_ASSERT_RC_OK(get_str(m, "c", buf, sizeof buf));
    CT_ASSERT_STR_EQ(buf, "-7");
    /* a get on the client, satisfied by the master in another thread */
    pthread_t th;
    pthread_create(&th, NULL, set_later, m);
    CT_ASSERT_RC_OK(get_str(c, "late", buf, sizeof buf));
    pthread_join(th, NULL);
    CT_ASSERT_STR_EQ(buf, "here");
    const char *keys[] = {"missing"};
    CT_ASSERT_EQ_INT(ct_store_wait(c, keys, 1, 50), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Socket Timeout");
    CT_ASSERT_EQ_INT(ct_store_wait(m, keys, 1, 50), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Socket Timeout");
    CT_ASSERT_RC_OK(set_str(c, "after", "ok"));     /* still usable */
    CT_ASSERT_RC_OK(get_str(m, "after", buf, sizeof buf));
    CT_ASSERT_STR_EQ(buf, "ok");
    /* the same port again: c10d's bind error */
    CT_ASSERT_TRUE(ct_tcp_store_new("127.0.0.1", port, -1, true, 1000, false) == NULL);
    CT_ASSERT_TRUE(strstr(ct_error_message(), "(errno: 98 - Address already in use)")
                   != NULL);
    ct_error_clear();
    ct_store_decref(c);
    ct_store_decref(m);
    /* nobody there now: the client gives up after its timeout */
    CT_ASSERT_TRUE(ct_tcp_store_new("127.0.0.1", port, -1, false, 100, false) == NULL);
    CT_ASSERT_TRUE(strncmp(ct_error_message(), CT_STORE_CONNECT_TIMEOUT_TEXT,
                           strlen(CT_STORE_CONNECT_TIMEOUT_TEXT)) == 0);
    ct_error_clear();
}
