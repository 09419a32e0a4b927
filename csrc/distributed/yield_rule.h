/* csrc/distributed/yield_rule.h -- when slow yields turn yielding off
 * (Note [Slow yields] in transport_engine.c).  Header-only so that the C
 * tests check the rule without a process group. */
#ifndef CT_DISTRIBUTED_YIELD_RULE_H
#define CT_DISTRIBUTED_YIELD_RULE_H

#include <stdbool.h>
#include <stdint.h>

#define PG_YIELD_SLOW_NS 100000   /* a yield slower than this was slow */
#define PG_YIELD_SLOW_OF_16 4     /* slow ones among the last 16 to give up */
#define PG_YIELD_PAUSE_NS 50000000 /* the shortest time without yields */
#define PG_YIELD_BULK_BYTES (256 * 1024) /* an operation this large is bulk */

/* Record a yield that took `took` ns in *hist (a bit per yield, newest
 * lowest, 1 = slow); the time to stop yielding for after it, or 0.  In a
 * bulk operation (bulk true) the peers hold their cores for long stretches
 * of copying and reducing, so a slow yield there is them, not other work,
 * and counts as fast. */
static inline int64_t
pg_yield_pause(uint32_t *hist, int64_t took, bool bulk)
{
    int slow = took > PG_YIELD_SLOW_NS && !bulk;
    *hist = *hist << 1 | (uint32_t)slow;
    if (!slow || __builtin_popcount(*hist & 0xffff) < PG_YIELD_SLOW_OF_16) {
        return 0;
    }
    return 20 * took > PG_YIELD_PAUSE_NS ? 20 * took : PG_YIELD_PAUSE_NS;
}

#endif
