/*
 * Where the runtime's actions come from: an offline or online schedule
 * (schedules/), or the asynchronous strategy's generator (async.c), which asks
 * the runtime whether a channel to a slower tier is free. Under agreement
 * between processes (agree.h) the answer is agreed, and every action is
 * folded into a running hash, so that the processes can compare streams.
 */
#include <sched.h>
#include <xxhash.h>

#include "common/error_internal.h"
#include "runtime/runtime_internal.h"

/* Whether the device has finished the step just queued (a host state's
 * step is done when its callback returns); *marked: the stream's mark is
 * recorded after it (once per decision, and only where a transfer is
 * pending). */
static int step_done(ebb_run *run, int *marked)
{
    if (run->state != &run->gpu)
        return 1;
    rt_io *io = run->io;
    int reached = 1;
    if (!*marked && io->ops->mark(io, run->gpu.pool, run->opt.stream) != EBB_OK)
        return 1; /* the stream's failure shows at the next wait */
    *marked = 1;
    if (io->ops->mark_reached(io, run->gpu.pool, &reached) != EBB_OK)
        return 1;
    return reached;
}

/* Free: the last transfer into the tier below `level` completed (for a gpu
 * -> host -> disk store, its disk write) before the step that produced the
 * state to store. With a gpu state the host runs ahead of the device, so
 * the answer is the device's: the first of the transfer and the step to
 * complete, waited for. */
static int channel_idle(ebb_run *run, int level, int *marked)
{
    ebb_tier to = run->async_tier[level + 1];
    rt_ticket *t = &run->last_in[to];
    for (int spins = 0; t->pool; spins++) {
        int done = 0;
        /* a failure is the buffer's to report, when it is settled */
        (void)rt_test(run, t, &done);
        if (done)
            t->pool = NULL;
        else if (step_done(run, marked))
            return 0;
        else if (spins > 64)
            sched_yield();
    }
    return 1;
}

/* This process's answer: the levels in order, the first busy one ends it. */
static ebb_status local_idle(void *ctx, int mask, int64_t step, int *idle)
{
    (void)step;
    int marked = 0;
    *idle = 1;
    for (int l = 0; l < 2 && *idle; l++)
        if (mask & 1 << l)
            *idle = channel_idle(ctx, l, &marked);
    return EBB_OK;
}

static ebb_status agreed_idle(void *ctx, int mask, int64_t step, int *idle)
{
    ebb_run *run = ctx;
    return run->agree->idle(run->agree, local_idle, run, mask, step, idle);
}

/* The fields of each action, not its padding. */
static uint64_t hash_actions(uint64_t h, const ebb_action *a, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        int64_t f[7] = {a[i].kind, a[i].tier,    a[i].tier_to, a[i].slot,
                        a[i].slot_to, a[i].step, a[i].to};
        h = XXH3_64bits_withSeed(f, sizeof f, h);
    }
    return h;
}

ebb_status rt_source_next(void *ctx, ebb_action *out, size_t cap, size_t *count)
{
    ebb_run *run = ctx;
    ebb_status st;
    run->clock.t = -1; /* the schedule's time is not the next callback's */
    if (run->async)
        st = rt_async_next_batch(run->async, out, cap, count,
                                 run->agree ? agreed_idle : local_idle, run);
    else
        st = ebb_schedule_next_batch(run->schedule, out, cap, count);
    if (st == EBB_OK && run->agree)
        run->actions_hash = hash_actions(run->actions_hash, out, *count);
    return st;
}

ebb_status rt_source_set_steps(ebb_run *run, int64_t steps)
{
    ebb_status st = EBB_OK;
    if (!run->async)
        st = ebb_schedule_set_steps(run->schedule, steps);
    else if (run->opt.steps == 0) /* async knew a given n from the start */
        st = rt_async_set_steps(run->async, steps);
    return st == EBB_OK ? rt_step_times_to_schedule(run, steps) : st;
}
