/* The schedule tests' helpers (schedule_support.h), built once into
 * ebb_test_support. */
#include "support/schedule_support.h"

ebb_schedule_options opts(ebb_strategy strategy, int64_t n, int32_t c)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = strategy;
    o.steps = n;
    o.slots = c;
    return o;
}

ebb_schedule_stats validated(const ebb_schedule_options *o)
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

int64_t revolve_count(int64_t n, int32_t c)
{
    int64_t count = 0;
    cr_assert_eq(ebb_revolve_forward_count(n, c, &count), EBB_OK, "%s", ebb_last_error());
    return count;
}

uint64_t rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

int64_t rng_range(uint64_t *state, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(state) % (uint64_t)(hi - lo + 1));
}
