/* The H-Revolve tests' helpers (h_revolve_support.h), built once into
 * ebb_test_support. */
#include "support/h_revolve_support.h"

uint64_t hr_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

ebb_schedule_options hr_options(int64_t n, int32_t c, int32_t d)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.steps = n;
    o.slots = c;
    o.disk_slots = d;
    return o;
}

ebb_schedule_options hr_strategy(int64_t n, int32_t c, int32_t d, double w, double r, double b)
{
    ebb_schedule_options o = hr_options(n, c, d);
    o.strategy = EBB_STRATEGY_H_REVOLVE;
    o.write_cost = w;
    o.read_cost = r;
    o.reverse_cost = b;
    return o;
}

ebb_stream_costs hr_stream_costs(const ebb_schedule_options *o, double w, double r, double b)
{
    ebb_stream_costs c;
    memset(&c, 0, sizeof c);
    c.write[o->slow_tier] = w;
    c.read[o->slow_tier] = r;
    c.reverse = b;
    return c;
}

double hr_cost(int64_t n, int32_t c, int32_t d, double w, double r, double b, double *predicted)
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
