/* tests/c/test_yield_rule.c -- the rule that turns a waiting rank's yields
 * off when other work holds the cores (Note [Slow yields]): a burst of
 * hypervisor hiccups among fast yields keeps yielding on, a CPU hog per
 * core turns it off within a few yields and again at once after the
 * pause; a bulk operation's slow yields do not count. */
#include "csrc/distributed/yield_rule.h"

#include "tests/c/test.h"

#define FAST 3000     /* a yield that handed the core to a peer: 3 us */
#define SLOW 3000000  /* one that waited out a hog's time slice: 3 ms */

TEST_IMPL(yield_rule)
{
    uint32_t h = 0;
    /* quiet cores: hiccups, even three close together, pause nothing */
    for (int round = 0; round < 100; round++) {
        for (int i = 0; i < 40; i++) {
            CT_ASSERT_EQ_INT(pg_yield_pause(&h, FAST, false), 0);
        }
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, 11000000, false), 0);
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, FAST, false), 0);
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, 200000, false), 0);
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, PG_YIELD_SLOW_NS, false), 0); /* not over */
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, 150000, false), 0);
    }
    /* a hog per core: the fourth slow yield in a row pauses, for 20 times
     * that yield but at least PG_YIELD_PAUSE_NS */
    h = 0;
    for (int i = 0; i < PG_YIELD_SLOW_OF_16 - 1; i++) {
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, SLOW, false), 0);
    }
    CT_ASSERT_EQ_INT(pg_yield_pause(&h, SLOW, false), 20 * (int64_t)SLOW);
    /* after the pause the history still holds them: one more pauses */
    CT_ASSERT_EQ_INT(pg_yield_pause(&h, 1000000, false), PG_YIELD_PAUSE_NS);
    /* four slow among sixteen, spread out, also pause */
    h = 0;
    int64_t got = 0;
    for (int i = 0; i < 16; i++) {
        got = pg_yield_pause(&h, i % 4 == 3 ? SLOW : FAST, false);
        if (i < 15) {
            CT_ASSERT_EQ_INT(got, 0);
        }
    }
    CT_ASSERT_EQ_INT(got, 20 * (int64_t)SLOW);
    /* sixteen fast ones wash the history out */
    for (int i = 0; i < 16; i++) {
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, FAST, false), 0);
    }
    CT_ASSERT_EQ_INT(pg_yield_pause(&h, SLOW, false), 0);
    /* in a bulk operation slow yields are the peers at work: never a pause,
     * and they count as fast ones */
    h = 0;
    for (int i = 0; i < 40; i++) {
        CT_ASSERT_EQ_INT(pg_yield_pause(&h, SLOW, true), 0);
    }
    CT_ASSERT_EQ_INT(h & 0xffff, 0);
}
