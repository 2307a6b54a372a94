/*
 * Where the runtime's actions come from: an offline or online schedule
 * (revolve/), or the asynchronous strategy's generator (async.c), which asks
 * the runtime whether a channel to a slower tier is free.
 */
#include "common/error_internal.h"
#include "runtime/run_internal.h"

/* Free: the last transfer into the tier below `level` completed (a gpu ->
 * host -> disk store counts until its disk write completed). */
static int channel_idle(void *ctx, int level)
{
    ebb_run *run = ctx;
    ebb_tier to = run->async_tier[level + 1];
    if (to == EBB_TIER_DISK && run->active_chains > 0) {
        if (rt_progress(run, 0) != EBB_OK || run->active_chains > 0)
            return 0;
    }
    ebb_ticket *t = &run->last_in[to];
    if (!t->pool)
        return 1;
    int done = 0;
    /* a failure is the buffer's to report, when it is settled */
    (void)ebb_ticket_test(t, &done);
    if (done)
        t->pool = NULL;
    return done;
}

ebb_status rt_source_next(void *ctx, ebb_action *out, size_t cap, size_t *count)
{
    ebb_run *run = ctx;
    if (run->async)
        return rt_async_next_batch(run->async, out, cap, count, channel_idle, run);
    return ebb_schedule_next_batch(run->schedule, out, cap, count);
}

ebb_status rt_source_set_steps(ebb_run *run, int64_t steps)
{
    if (run->async)
        return rt_async_set_steps(run->async, steps);
    return ebb_schedule_set_steps(run->schedule, steps);
}
