/* The public schedule object: option checks, dispatch, action queue. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error_internal.h"
#include "revolve/binomial.h"
#include "revolve/schedule_internal.h"

void ebb_schedule_options_init(ebb_schedule_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = EBB_STRATEGY_REVOLVE;
    o->steps = 0;
    o->slots = 0;
    o->disk_slots = -1;
    o->period = 0;
    o->io_ratio = 0.0;
    o->fast_tier = EBB_TIER_HOST;
    o->slow_tier = EBB_TIER_DISK;
}

ebb_status ebb_schedule_alloc(size_t size, const ebb_schedule_ops *ops,
                              const ebb_schedule_options *o, ebb_schedule **out)
{
    ebb_schedule *s = calloc(1, size);
    if (!s)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate a %s schedule",
                        ebb_strategy_name(o->strategy));
    s->ops = ops;
    s->options = *o;
    *out = s;
    return EBB_OK;
}

static ebb_status check_common(const ebb_schedule_options *o)
{
    if (!o)
        return ebb_fail(EBB_ERR_INVALID_ARG, "schedule options are NULL");
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
        (o->strategy == EBB_STRATEGY_MULTISTAGE || o->strategy == EBB_STRATEGY_DISK_REVOLVE))
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
    }
    return ebb_fail(EBB_ERR_INTERNAL, "strategy %d has no constructor", (int)o->strategy);
}

void ebb_schedule_destroy(ebb_schedule *s)
{
    if (!s)
        return;
    if (s->ops->destroy)
        s->ops->destroy(s);
    free(s);
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

ebb_status ebb_revolve_forward_count(int64_t steps, int32_t slots, int64_t *count)
{
    if (steps < 1 || slots < 1 || !count)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "revolve forward count needs steps >= 1 and slots >= 1, got %lld and %d",
                        (long long)steps, slots);
    int64_t t = ebb_revolve_cost(steps, slots);
    if (t < 0 || t == INT64_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "revolve forward count for %lld steps and %d slots overflows 64 bits",
                        (long long)steps, slots);
    *count = t + 1;
    return EBB_OK;
}

enum { VALIDATE_BATCH = 4096 };

ebb_status ebb_schedule_validate(const ebb_schedule_options *o, ebb_schedule_stats *stats)
{
    return ebb_schedule_replay(o, stats, NULL, NULL);
}

ebb_status ebb_schedule_replay(const ebb_schedule_options *o, ebb_schedule_stats *stats,
                               ebb_action_visitor visit, void *user)
{
    ebb_schedule *s = NULL;
    ebb_validator *v = NULL;
    ebb_action *buf = NULL;
    ebb_status st = ebb_schedule_create(o, &s);
    if (st != EBB_OK)
        return st;
    int online = o->strategy == EBB_STRATEGY_ONLINE;
    if (online && o->steps < 1) {
        st = ebb_fail(EBB_ERR_INVALID_ARG,
                      "validating an online schedule needs the steps at which to stop (>= 1)");
        goto out;
    }
    st = ebb_validator_create(online ? 0 : o->steps, s->tier_slots, &v);
    if (st != EBB_OK)
        goto out;
    buf = malloc(VALIDATE_BATCH * sizeof *buf);
    if (!buf) {
        st = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the validation buffer");
        goto out;
    }
    for (;;) {
        size_t n = 0;
        st = ebb_schedule_next_batch(s, buf, VALIDATE_BATCH, &n);
        if (st != EBB_OK)
            goto out;
        st = ebb_validator_check(v, buf, n);
        if (st == EBB_OK && visit)
            st = visit(user, buf, n);
        if (st != EBB_OK)
            goto out;
        const ebb_action *last = &buf[n - 1];
        if (last->kind == EBB_ACT_END)
            break;
        if (online && last->kind == EBB_ACT_ADVANCE && last->to == o->steps) {
            st = ebb_schedule_set_steps(s, o->steps);
            if (st != EBB_OK)
                goto out;
        }
    }
    st = ebb_validator_finish(v);
out:
    if (stats && v) {
        /* Partial counts on failure too: they say how far the stream got. */
        ebb_status keep = st;
        ebb_validator_stats(v, stats);
        st = keep;
    }
    free(buf);
    ebb_validator_destroy(v);
    ebb_schedule_destroy(s);
    return st;
}
