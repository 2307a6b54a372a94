/* Helpers shared by the schedule tests (header-only, one per test program). */
#ifndef EBB_TESTS_SCHEDULE_SUPPORT_H
#define EBB_TESTS_SCHEDULE_SUPPORT_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"

static inline ebb_schedule_options opts(ebb_strategy strategy, int64_t n, int32_t c)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = strategy;
    o.steps = n;
    o.slots = c;
    return o;
}

/* Generates and validates; fails the test with the library's message. */
static inline ebb_schedule_stats validated(const ebb_schedule_options *o)
{
    ebb_schedule_stats st;
    memset(&st, 0, sizeof st);
    ebb_status s = ebb_schedule_validate(o, &st);
    cr_assert_eq(s, EBB_OK, "%s n=%lld C=%d D=%d k=%lld R=%g: %s", ebb_strategy_name(o->strategy),
                 (long long)o->steps, o->slots, o->disk_slots, (long long)o->period, o->io_ratio,
                 ebb_last_error());
    cr_assert(st.complete);
    cr_assert_eq(st.reverse_steps, o->steps);
    return st;
}

/* Revolve's optimal forward count, first sweep included. */
static inline int64_t revolve_count(int64_t n, int32_t c)
{
    int64_t count = 0;
    cr_assert_eq(ebb_revolve_forward_count(n, c, &count), EBB_OK, "%s", ebb_last_error());
    return count;
}

/* A tiny deterministic generator (xorshift) for sampled cases. */
static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static inline int64_t rng_range(uint64_t *state, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(state) % (uint64_t)(hi - lo + 1));
}

#endif
