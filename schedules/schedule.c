/*
 * The public schedule object above the strategies: option checks, dispatch to
 * each strategy's constructor, and the action queue that calls their fill.
 * Allocation, release and the options' defaults live below the strategies
 * (schedule_base.c), the
 * replay driver in replay.c, Revolve's forward count in forward_count.c.
 */
#include <math.h>
#include <string.h>

#include "common/error_internal.h"
#include "schedules/h_revolve.h"
#include "schedules/schedule_internal.h"

static ebb_status check_common(const ebb_schedule_options *o)
{
    if (!o)
        return ebb_fail(EBB_ERR_INVALID_ARG, "schedule options are NULL");
    if (o->strategy == EBB_STRATEGY_ASYNC || o->strategy == EBB_STRATEGY_AUTO)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "\"%s\" is the runtime's strategy, not a schedule: run it with "
                        "ebb_run_create (ebb/runtime.h)",
                        ebb_strategy_name(o->strategy));
    if ((unsigned)o->strategy >= EBB_STRATEGY_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "unknown strategy number %d", (int)o->strategy);
    if (o->strategy != EBB_STRATEGY_ONLINE && o->steps < 1)
        return ebb_fail(EBB_ERR_INVALID_ARG, "steps must be at least 1, got %lld",
                        (long long)o->steps);
    if (o->slots < 1)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "slots must be at least 1 (the slot holding x_0), got %d", o->slots);
    if ((unsigned)o->fast_tier >= EBB_TIER_COUNT || (unsigned)o->slow_tier >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "fast_tier and slow_tier must be ebb_tier values");
    if (o->fast_tier == o->slow_tier &&
        (o->strategy == EBB_STRATEGY_MULTISTAGE || o->strategy == EBB_STRATEGY_DISK_REVOLVE ||
         o->strategy == EBB_STRATEGY_H_REVOLVE))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s needs two different tiers, got %s for both",
                        ebb_strategy_name(o->strategy), ebb_tier_name(o->fast_tier));
    return EBB_OK;
}

ebb_status ebb_schedule_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    if (!out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_schedule_create: out is NULL");
    *out = NULL;
    ebb_status st = check_common(o);
    if (st != EBB_OK)
        return st;
    switch (o->strategy) {
    case EBB_STRATEGY_STORE_ALL: return ebb_store_all_create(o, out);
    case EBB_STRATEGY_PERIODIC: return ebb_periodic_create(o, out);
    case EBB_STRATEGY_REVOLVE: return ebb_revolve_create(o, out);
    case EBB_STRATEGY_ONLINE: return ebb_online_create(o, out);
    case EBB_STRATEGY_MULTISTAGE: return ebb_multistage_create(o, out);
    case EBB_STRATEGY_DISK_REVOLVE: return ebb_disk_revolve_create(o, out);
    case EBB_STRATEGY_H_REVOLVE:
        return ebb_h_revolve_create(o, o->write_cost, o->read_cost, o->reverse_cost, out);
    default: /* async and auto: refused by check_common */
        break;
    }
    return ebb_fail(EBB_ERR_INTERNAL, "strategy %d has no constructor", (int)o->strategy);
}

/* Appends one group to the internal queue (which is empty when called). */
static void refill_queue(ebb_schedule *s)
{
    s->queue_head = 0;
    s->queue_len = 0;
    while (!s->done && s->queue_len + EBB_GROUP_MAX <= EBB_QUEUE_CAP) {
        s->yield = 0;
        size_t k = s->ops->fill(s, s->queue + s->queue_len, EBB_QUEUE_CAP - s->queue_len);
        s->queue_len += k;
        if (k == 0 || s->queue[s->queue_len - 1].kind == EBB_ACT_END)
            s->done = 1;
        if (s->yield)
            break;
    }
}

ebb_status ebb_schedule_next_batch(ebb_schedule *s, ebb_action *actions, size_t capacity,
                                   size_t *count)
{
    if (!s || !actions || !count)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_schedule_next_batch: NULL argument");
    size_t n = 0;
    for (;;) {
        /* Hand out what is queued first, so order is kept. */
        while (s->queue_len > 0 && n < capacity) {
            actions[n++] = s->queue[s->queue_head++];
            s->queue_len--;
            if (actions[n - 1].kind == EBB_ACT_END || (s->yield && s->queue_len == 0)) {
                *count = n;
                return EBB_OK;
            }
        }
        if (n == capacity || s->done)
            break;
        if (capacity - n >= EBB_GROUP_MAX) {
            /* Fast path: generate straight into the caller's buffer. */
            s->yield = 0;
            size_t k = s->ops->fill(s, actions + n, capacity - n);
            n += k;
            if (k == 0 || actions[n - 1].kind == EBB_ACT_END) {
                s->done = 1;
                break;
            }
            if (s->yield)
                break;
        } else {
            refill_queue(s);
            if (s->queue_len == 0)
                break;
        }
    }
    if (n == 0 && s->done) {
        /* After END, END again. */
        actions[0] = (ebb_action){.kind = EBB_ACT_END};
        n = 1;
    }
    *count = n;
    return EBB_OK;
}

ebb_status ebb_schedule_next(ebb_schedule *s, ebb_action *action)
{
    size_t n = 0;
    return ebb_schedule_next_batch(s, action, 1, &n);
}

ebb_status ebb_schedule_set_steps(ebb_schedule *s, int64_t steps)
{
    if (!s)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_schedule_set_steps: schedule is NULL");
    if (!s->ops->set_steps)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_schedule_set_steps is for online schedules; this one is %s "
                        "and knows n = %lld already",
                        ebb_strategy_name(s->options.strategy), (long long)s->options.steps);
    return s->ops->set_steps(s, steps);
}

ebb_status ebb_schedule_set_forward_costs(ebb_schedule *s, const double *costs, int64_t count)
{
    if (!s || (!costs && count > 0))
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_schedule_set_forward_costs: NULL argument");
    if (!s->ops->set_forward_costs)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_schedule_set_forward_costs is for online schedules; this one is "
                        "%s (give the costs to ebb_chain_schedule_create instead)",
                        ebb_strategy_name(s->options.strategy));
    for (int64_t i = 0; i < count; i++)
        if (!(costs[i] >= 0) || !isfinite(costs[i]))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "ebb_schedule_set_forward_costs: step %lld's cost must be finite "
                            "and >= 0, got %g",
                            (long long)i, costs[i]);
    return s->ops->set_forward_costs(s, costs, count);
}

ebb_status ebb_schedule_tier_slots(const ebb_schedule *s, int32_t slots[EBB_TIER_COUNT])
{
    if (!s || !slots)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_schedule_tier_slots: NULL argument");
    memcpy(slots, s->tier_slots, sizeof s->tier_slots);
    return EBB_OK;
}

ebb_status ebb_schedule_get_options(const ebb_schedule *s, ebb_schedule_options *options)
{
    if (!s || !options)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_schedule_get_options: NULL argument");
    *options = s->options;
    return EBB_OK;
}
