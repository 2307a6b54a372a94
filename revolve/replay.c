/*
 * The replay driver: generates a schedule's stream batch by batch and checks
 * every action with the validator (ebb_schedule_validate, `ebb plan`), handing
 * each checked batch to an optional visitor.
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "revolve/replay.h"
#include "revolve/schedule_base.h"

enum { VALIDATE_BATCH = 4096 };

ebb_status ebb_schedule_validate(const ebb_schedule_options *o, ebb_schedule_stats *stats)
{
    return ebb_schedule_replay(o, stats, NULL, NULL);
}

ebb_status ebb_schedule_replay(const ebb_schedule_options *o, ebb_schedule_stats *stats,
                               ebb_action_visitor visit, void *user)
{
    ebb_schedule *s = NULL;
    ebb_status st = ebb_schedule_create(o, &s);
    if (st != EBB_OK)
        return st;
    st = ebb_schedule_replay_own(s, o->steps, stats, visit, user);
    ebb_schedule_destroy(s);
    return st;
}

ebb_status ebb_schedule_replay_own(ebb_schedule *s, int64_t steps, ebb_schedule_stats *stats,
                                   ebb_action_visitor visit, void *user)
{
    ebb_validator *v = NULL;
    ebb_action *buf = NULL;
    ebb_status st = EBB_OK;
    int online = s->options.strategy == EBB_STRATEGY_ONLINE;
    if (online && steps < 1) {
        st = ebb_fail(EBB_ERR_INVALID_ARG,
                      "validating an online schedule needs the steps at which to stop (>= 1)");
        goto out;
    }
    st = ebb_validator_create(online ? 0 : s->options.steps, s->tier_slots, &v);
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
        if (online && last->kind == EBB_ACT_ADVANCE && last->to == steps) {
            st = ebb_schedule_set_steps(s, steps);
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
    return st;
}
