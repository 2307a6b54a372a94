/* Cost of an action stream on one scale (see stream_cost.h). */
#include "schedules/stream_cost.h"

#include "common/error_internal.h"

ebb_status ebb_stream_cost(const ebb_schedule_stats *st, const ebb_stream_costs *c, double *cost)
{
    if (!st || !c || !cost)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_stream_cost: NULL argument");
    double sum = (double)st->forward_steps + (double)st->reverse_steps * c->reverse;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        sum += (double)(st->stores[t] + st->transfers_in[t]) * c->write[t] +
               (double)(st->restores[t] + st->transfers_out[t]) * c->read[t];
    *cost = sum;
    return EBB_OK;
}

enum { BATCH = 4096 };

ebb_status ebb_stream_cost_replay(ebb_schedule *s, const ebb_stream_costs *c,
                                  ebb_schedule_stats *stats, double *cost)
{
    if (!s || !c)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_stream_cost_replay: NULL argument");
    int32_t slots[EBB_TIER_COUNT];
    ebb_schedule_options o;
    ebb_status st = ebb_schedule_tier_slots(s, slots);
    if (st == EBB_OK)
        st = ebb_schedule_get_options(s, &o);
    if (st != EBB_OK)
        return st;
    ebb_validator *v = NULL;
    st = ebb_validator_create(o.steps, slots, &v);
    if (st != EBB_OK)
        return st;
    ebb_action buf[BATCH];
    for (;;) {
        size_t got = 0;
        st = ebb_schedule_next_batch(s, buf, BATCH, &got);
        if (st == EBB_OK)
            st = ebb_validator_check(v, buf, got);
        if (st != EBB_OK || (got > 0 && buf[got - 1].kind == EBB_ACT_END))
            break;
    }
    if (st == EBB_OK)
        st = ebb_validator_finish(v);
    ebb_schedule_stats local;
    if (st == EBB_OK)
        st = ebb_validator_stats(v, &local);
    ebb_validator_destroy(v);
    if (st != EBB_OK)
        return st;
    if (stats)
        *stats = local;
    return cost ? ebb_stream_cost(&local, c, cost) : EBB_OK;
}
