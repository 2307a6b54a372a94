/* Helpers shared by the H-Revolve tests (header-only). */
#ifndef EBB_TESTS_H_REVOLVE_SUPPORT_H
#define EBB_TESTS_H_REVOLVE_SUPPORT_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "ebb/ebb.h"
#include "revolve/h_revolve.h"
#include "revolve/stream_cost.h"

/* Deterministic generator, so a failure names a reproducible case. */
static inline uint64_t hr_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

static inline ebb_schedule_options hr_options(int64_t n, int32_t c, int32_t d)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.steps = n;
    o.slots = c;
    o.disk_slots = d;
    return o;
}

/* H-Revolve as the registered strategy: disk writes and reads cost w and r,
 * a reverse step b. */
static inline ebb_schedule_options hr_strategy(int64_t n, int32_t c, int32_t d, double w, double r,
                                               double b)
{
    ebb_schedule_options o = hr_options(n, c, d);
    o.strategy = EBB_STRATEGY_H_REVOLVE;
    o.write_cost = w;
    o.read_cost = r;
    o.reverse_cost = b;
    return o;
}

/* Disk writes and reads cost w and r, memory is free, a reverse step b. */
static inline ebb_stream_costs hr_stream_costs(const ebb_schedule_options *o, double w, double r,
                                               double b)
{
    ebb_stream_costs c;
    memset(&c, 0, sizeof c);
    c.write[o->slow_tier] = w;
    c.read[o->slow_tier] = r;
    c.reverse = b;
    return c;
}

/* Builds through the dispatcher (ebb_schedule_create), replays through the validator (failing the test on any broken
 * rule) and returns the stream's cost; *predicted gets the programme's. */
static inline double hr_cost(int64_t n, int32_t c, int32_t d, double w, double r, double b,
                             double *predicted)
{
    ebb_schedule_options o = hr_strategy(n, c, d, w, r, b);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK, "%s", ebb_last_error());
    ebb_stream_costs costs = hr_stream_costs(&o, w, r, b);
    ebb_schedule_stats st;
    double cost = 0;
    ebb_status rc = ebb_stream_cost_replay(s, &costs, &st, &cost);
    cr_assert_eq(rc, EBB_OK, "n=%lld C=%d D=%d W=%g R=%g B=%g: %s", (long long)n, c, d, w, r, b,
                 ebb_last_error());
    cr_assert(st.complete);
    cr_assert_eq(st.reverse_steps, n);
    if (predicted)
        *predicted = ebb_h_revolve_predicted_cost(s);
    ebb_schedule_destroy(s);
    return cost;
}

#endif
