/* aten/cpu/sort_stl.c -- std::sort and std::nth_element as libstdc++
 * writes them, over int64 elements with a caller's comparator.
 *
 * Note [libstdc++ order]
 * A few torch 1.13 CPU kernels pick among equal values by whatever
 * libstdc++'s unstable algorithms leave where: mode (std::sort of (value,
 * position) pairs by value, then the last pair of the longest run),
 * nanmedian of an all-NaN line (std::nth_element with every element
 * equivalent) and unique(dim=) (std::sort of row numbers by a
 * lexicographic comparison that treats NaN as equal to anything, so its
 * "ties" are not even transitive).  To return torch's indices ctorch runs
 * the same steps: introsort (median of three moved to the front,
 * unguarded Hoare partition, cut-off 16, heapsort below depth 2 lg n,
 * then insertion sort) and introselect (cut-off 3).  Elements are int64
 * (positions, row numbers) and the comparator sees the elements, so one
 * copy serves every dtype.  The "unguarded" scans of libstdc++ rely on a
 * sentinel that a comparator that is not a strict weak order may not
 * provide; here they stop at the ends of the range instead, which changes
 * nothing whenever libstdc++ itself stays inside it.
 */
#include "aten/cpu/sort_impl.h"

#define THRESHOLD 16            /* libstdc++'s _S_threshold */

typedef struct {
    ct__stl_less_fn less;
    const void *ctx;
    int64_t *base, *end;        /* the whole array, for the guards */
} cmp;

static inline bool
lt(const cmp *c, int64_t x, int64_t y)
{
    return c->less(c->ctx, x, y);
}

static inline void
swap(int64_t *a, int64_t *b)
{
    int64_t t = *a;
    *a = *b;
    *b = t;
}

static int64_t
floor_lg(int64_t n)
{
    int64_t k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

/* --- heaps (bits/stl_heap.h) ------------------------------------------- */
static void
push_heap(const cmp *c, int64_t *a, int64_t hole, int64_t top, int64_t v)
{
    int64_t parent = (hole - 1) / 2;
    while (hole > top && lt(c, a[parent], v)) {
        a[hole] = a[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    a[hole] = v;
}

static void
adjust_heap(const cmp *c, int64_t *a, int64_t hole, int64_t len, int64_t v)
{
    int64_t top = hole, child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (lt(c, a[child], a[child - 1])) {
            child--;
        }
        a[hole] = a[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        a[hole] = a[child - 1];
        hole = child - 1;
    }
    push_heap(c, a, hole, top, v);
}

static void
make_heap(const cmp *c, int64_t *a, int64_t len)
{
    if (len < 2) {
        return;
    }
    for (int64_t parent = (len - 2) / 2;; parent--) {
        adjust_heap(c, a, parent, len, a[parent]);
        if (parent == 0) {
            return;
        }
    }
}

/* Move the top of heap a[0..len) to *result and *result's value into the
 * heap. */
static void
pop_heap(const cmp *c, int64_t *a, int64_t len, int64_t *result)
{
    int64_t v = *result;
    *result = a[0];
    adjust_heap(c, a, 0, len, v);
}

static void
heap_select(const cmp *c, int64_t *first, int64_t *middle, int64_t *last)
{
    make_heap(c, first, middle - first);
    for (int64_t *i = middle; i < last; i++) {
        if (lt(c, *i, *first)) {
            pop_heap(c, first, middle - first, i);
        }
    }
}

static void
sort_heap(const cmp *c, int64_t *first, int64_t *last)
{
    while (last - first > 1) {
        last--;
        pop_heap(c, first, last - first, last);
    }
}

/* --- partition and insertion (bits/stl_algo.h) ---------------------------- */
static void
move_median_to_first(const cmp *c, int64_t *result, int64_t *a, int64_t *b, int64_t *m)
{
    if (lt(c, *a, *b)) {
        if (lt(c, *b, *m)) {
            swap(result, b);
        }
        else if (lt(c, *a, *m)) {
            swap(result, m);
        }
        else {
            swap(result, a);
        }
    }
    else if (lt(c, *a, *m)) {
        swap(result, a);
    }
    else if (lt(c, *b, *m)) {
        swap(result, m);
    }
    else {
        swap(result, b);
    }
}

static int64_t *
unguarded_partition(const cmp *c, int64_t *first, int64_t *last, const int64_t *pivot)
{
    int64_t *lo = first;
    for (;;) {
        while (first < c->end - 1 && lt(c, *first, *pivot)) {
            first++;
        }
        last--;
        while (last > lo && lt(c, *pivot, *last)) {
            last--;
        }
        if (!(first < last)) {
            return first;
        }
        swap(first, last);
        first++;
    }
}

static int64_t *
partition_pivot(const cmp *c, int64_t *first, int64_t *last)
{
    int64_t *mid = first + (last - first) / 2;
    move_median_to_first(c, first, first + 1, mid, last - 1);
    return unguarded_partition(c, first + 1, last, first);
}

static void
unguarded_linear_insert(const cmp *c, int64_t *last)
{
    int64_t v = *last;
    int64_t *next = last - 1;
    while (next >= c->base && lt(c, v, *next)) {
        *last = *next;
        last = next;
        next--;
    }
    *last = v;
}

static void
insertion_sort(const cmp *c, int64_t *first, int64_t *last)
{
    if (first == last) {
        return;
    }
    for (int64_t *i = first + 1; i != last; i++) {
        if (lt(c, *i, *first)) {
            int64_t v = *i;
            memmove(first + 1, first, (size_t)(i - first) * sizeof *first);
            *first = v;
        }
        else {
            unguarded_linear_insert(c, i);
        }
    }
}

static void
introsort_loop(const cmp *c, int64_t *first, int64_t *last, int64_t depth)
{
    while (last - first > THRESHOLD) {
        if (depth == 0) {
            /* partial_sort(first, last, last) */
            heap_select(c, first, last, last);
            sort_heap(c, first, last);
            return;
        }
        depth--;
        int64_t *cut = partition_pivot(c, first, last);
        introsort_loop(c, cut, last, depth);
        last = cut;
    }
}

void
ct__stl_sort(int64_t *a, int64_t n, ct__stl_less_fn less, const void *ctx)
{
    cmp c = {less, ctx, a, a + n};
    if (n <= 0) {
        return;
    }
    introsort_loop(&c, a, a + n, 2 * floor_lg(n));
    if (n > THRESHOLD) {
        insertion_sort(&c, a, a + THRESHOLD);
        for (int64_t *i = a + THRESHOLD; i != a + n; i++) {
            unguarded_linear_insert(&c, i);
        }
    }
    else {
        insertion_sort(&c, a, a + n);
    }
}

void
ct__stl_nth_element(int64_t *a, int64_t nth, int64_t n, ct__stl_less_fn less,
                    const void *ctx)
{
    cmp c = {less, ctx, a, a + n};
    if (n <= 0 || nth == n) {
        return;
    }
    int64_t *first = a, *last = a + n, *pn = a + nth;
    int64_t depth = 2 * floor_lg(n);
    while (last - first > 3) {
        if (depth == 0) {
            heap_select(&c, first, pn + 1, last);
            swap(first, pn);
            return;
        }
        depth--;
        int64_t *cut = partition_pivot(&c, first, last);
        if (cut <= pn) {
            first = cut;
        }
        else {
            last = cut;
        }
    }
    insertion_sort(&c, first, last);
}
