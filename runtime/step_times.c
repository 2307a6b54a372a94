/*
 * Each step's measured time (ebb_run_step_times): the forward callback's
 * time in the first sweep and the reverse step's, on the run's clock, kept
 * for runs whose n is known (up to EBB_CHAIN_MAX_STEPS, the most steps a
 * chain of costs may have) and whose state is in host memory. A later run
 * of the same steps takes them as its costs. A run that measures its costs
 * (ebb_run_options.measure_costs) keeps them for any n, the array growing
 * with the forward sweep where n is unknown, and hands the forward times
 * to its online schedule or async generator when the forward ends.
 *
 * A GPU state's callbacks only queue their work, so their host time is not
 * the step's: with measure_costs its steps are timed on the device, by two
 * events on the user's stream around each step's work (rt_step_timer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "common/populate.h"
#include "ebb/chain.h"
#include "runtime/runtime_internal.h"

/* Steps the array first holds where n is unknown; it doubles as needed. */
enum { RT_STEP_TIMES_FIRST = 1024 };

/* Steps a GPU state's host may run ahead of the device before it waits
 * for the oldest step's time. */
enum { RT_STEP_TIMER_ENTRIES = 256 };

static int on_device(const ebb_run *run)
{
    return run->opt.state_tier != EBB_TIER_HOST;
}

static int kept(const ebb_run *run)
{
    if (on_device(run))
        return run->opt.measure_costs;
    return run->opt.measure_costs ||
           (run->opt.steps > 0 && run->opt.steps <= EBB_CHAIN_MAX_STEPS);
}

static ebb_status timer_init(ebb_run *run)
{
    rt_step_timer *t = &run->timer;
    const rt_io_ops *ops = run->io->ops;
    if (!ops->timer_create)
        return EBB_OK;
    int32_t n = RT_STEP_TIMER_ENTRIES;
    void **events = calloc(2 * (size_t)n, sizeof *events);
    t->slot = malloc(sizeof *t->slot * (size_t)n);
    if (!events || !t->slot) {
        free(events);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the step timer's %d events",
                        2 * (int)n);
    }
    ebb_status st = ops->timer_create(run->io, run->gpu.pool, events, 2 * n, &t->device);
    if (st != EBB_OK) {
        free(events);
        return ebb_fail_context(st, "ebb_run_options.measure_costs with a GPU state");
    }
    for (int32_t e = 0; e < n; e++)
        t->slot[e] = -1;
    t->events = events;
    t->entries = n;
    return EBB_OK;
}

ebb_status rt_step_times_init(ebb_run *run)
{
    if (!kept(run))
        return EBB_OK;
    int64_t cap = run->opt.steps > 0 ? run->opt.steps : RT_STEP_TIMES_FIRST;
    size_t bytes = 2 * (size_t)cap * sizeof *run->step_s;
    run->step_s = calloc(1, bytes);
    if (!run->step_s)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the times of %lld steps",
                        (long long)cap);
    /* faulted in now: the sweeps take no page fault for them */
    ebb_populate(run->step_s, bytes);
    run->step_cap = cap;
    return on_device(run) ? timer_init(run) : EBB_OK;
}

static void timer_free(ebb_run *run)
{
    rt_step_timer *t = &run->timer;
    if (t->events)
        run->io->ops->timer_destroy(run->io, t->device, t->events, 2 * t->entries);
    free(t->events);
    free(t->slot);
    *t = (rt_step_timer){0};
}

/* The times cannot be kept: none are (the schedule's own reversal), and
 * ebb_run_step_times says why. */
static void times_lost(ebb_run *run, const char *why)
{
    snprintf(run->step_times_why, sizeof run->step_times_why, "%s", why);
    run->step_times_lost = 1;
    rt_step_times_free(run);
}

/* Entry e's time into its step's place; a device that cannot say loses
 * them all. */
static void harvest(ebb_run *run, int32_t e)
{
    rt_step_timer *t = &run->timer;
    int64_t at = t->slot[e];
    if (at < 0)
        return;
    t->slot[e] = -1;
    double s;
    if (run->io->ops->timer_elapsed(run->io, t->events[2 * e], t->events[2 * e + 1], &s) !=
        EBB_OK) {
        char why[sizeof run->step_times_why];
        snprintf(why, sizeof why, "%s", ebb_last_error());
        ebb_clear_error(); /* the run goes on, its schedule untold */
        times_lost(run, why);
        return;
    }
    if (at < 2 * run->step_cap)
        run->step_s[at] = s;
}

/* Records entry e's start or end event; a failure loses the times. */
static int timer_record(ebb_run *run, int32_t e, int end)
{
    rt_step_timer *t = &run->timer;
    if (run->io->ops->timer_record(run->io, t->device, t->events[2 * e + end],
                                   run->opt.stream) == EBB_OK)
        return 1;
    char why[sizeof run->step_times_why];
    snprintf(why, sizeof why, "%s", ebb_last_error());
    ebb_clear_error();
    times_lost(run, why);
    return 0;
}

void rt_step_device_begin(ebb_run *run)
{
    rt_step_timer *t = &run->timer;
    if (!t->events)
        return;
    /* an open start (set for a pushed step that did not come: the sweep
     * runs the callback) is recorded again, now */
    if (!t->open)
        harvest(run, t->next);
    if (t->events && timer_record(run, t->next, 0))
        t->open = 1;
}

void rt_step_device_end(ebb_run *run, int64_t step, int reverse)
{
    rt_step_timer *t = &run->timer;
    if (!t->events || !t->open)
        return;
    t->open = 0;
    if (!timer_record(run, t->next, 1))
        return;
    t->slot[t->next] = 2 * step + (reverse ? 1 : 0);
    t->next = (t->next + 1) % t->entries;
}

void rt_step_times_settle(ebb_run *run)
{
    rt_step_timer *t = &run->timer;
    for (int32_t k = 0; t->events && k < t->entries; k++)
        harvest(run, (t->next + k) % t->entries);
}

/* n unknown: room for step `step`, doubling. A run that cannot grow them
 * keeps none (ebb_run_step_times says so; the reverse sweep is then the
 * binomial one). */
static int room_for(ebb_run *run, int64_t step)
{
    if (step < run->step_cap)
        return 1;
    if (run->opt.steps > 0)
        return 0;
    int64_t cap = 2 * run->step_cap;
    double *grown = realloc(run->step_s, 2 * (size_t)cap * sizeof *grown);
    if (!grown) {
        char why[128];
        snprintf(why, sizeof why,
                 "the forward sweep could not grow the step times past %lld steps (out of "
                 "memory)", (long long)run->step_cap);
        times_lost(run, why);
        return 0;
    }
    ebb_populate(grown + 2 * run->step_cap, 2 * (size_t)(cap - run->step_cap) * sizeof *grown);
    run->step_s = grown;
    run->step_cap = cap;
    return 1;
}

void rt_step_times_free(ebb_run *run)
{
    timer_free(run);
    free(run->step_s);
    run->step_s = NULL;
    run->step_cap = 0;
}

void rt_step_forward_time(ebb_run *run, int64_t step, double seconds)
{
    if (run->step_s && step >= 0 && room_for(run, step))
        run->step_s[2 * step] = seconds;
}

void rt_step_reverse_time(ebb_run *run, int64_t step, double seconds)
{
    if (run->step_s && step >= 0 && step < run->step_cap)
        run->step_s[2 * step + 1] = seconds;
}

ebb_status rt_step_times_to_schedule(ebb_run *run, int64_t steps)
{
    if (!run->opt.measure_costs)
        return EBB_OK;
    rt_step_times_settle(run);
    int kept = run->step_s && steps <= run->step_cap;
    if (!kept && !run->agree)
        return EBB_OK; /* none kept: the schedule's own reversal */
    double *f = malloc(sizeof *f * (size_t)steps);
    if (!f)
        return run->agree ? ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the costs of %lld "
                                                        "steps to agree on", (long long)steps)
                          : EBB_OK; /* one process: a valid schedule, only dearer */
    for (int64_t i = 0; i < steps; i++)
        f[i] = kept ? run->step_s[2 * i] : 0; /* none kept here: the others' */
    ebb_status st = EBB_OK;
    /* the processes plan one reverse sweep: each step at its largest time */
    if (run->agree)
        st = run->agree->costs(run->agree, f, steps);
    if (st == EBB_OK)
        st = run->async ? rt_async_set_forward_costs(run->async, f, steps)
                        : ebb_schedule_set_forward_costs(run->schedule, f, steps);
    free(f);
    return st;
}

/* The steps the times cover: n, or where n was unknown the steps the
 * forward ran once it ended (0 before). */
static int64_t steps_timed(const ebb_run *run)
{
    return run->opt.steps > 0 ? run->opt.steps : run->info.steps;
}

ebb_status ebb_run_step_times(const ebb_run *run, double *forward_s, double *reverse_s,
                              int64_t count)
{
    if (!run)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_step_times: NULL run");
    /* a GPU state's times not read yet (the reverse sweep's): read now, the
     * host waiting for the device to reach them; the run is the caller's
     * own, only its times change */
    rt_step_times_settle((ebb_run *)(uintptr_t)run);
    if (run->step_times_lost)
        return ebb_fail(on_device(run) ? EBB_ERR_IO : EBB_ERR_NO_MEMORY,
                        "ebb_run_step_times: %s; none are kept", run->step_times_why);
    if (!run->step_s)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "ebb_run_step_times: this run keeps no step times: a host state's "
                        "are kept for n known and at most %d steps (n %s %lld), or with "
                        "ebb_run_options.measure_costs; a GPU state's (timed on the device: "
                        "its callbacks queue their work) with measure_costs",
                        EBB_CHAIN_MAX_STEPS, run->opt.steps > 0 ? "=" : "unknown:",
                        (long long)run->opt.steps);
    int64_t steps = steps_timed(run);
    if (count < 0 || count > steps)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_step_times: count %lld is outside 0 .. %lld (the run's steps%s)",
                        (long long)count, (long long)steps,
                        steps == 0 ? ": n is not known before the forward sweep ends" : "");
    for (int64_t i = 0; i < count; i++) {
        if (forward_s)
            forward_s[i] = run->step_s[2 * i];
        if (reverse_s)
            reverse_s[i] = run->step_s[2 * i + 1];
    }
    return EBB_OK;
}
