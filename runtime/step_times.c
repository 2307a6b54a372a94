/*
 * Each step's measured time (ebb_run_step_times): the forward callback's
 * time in the first sweep and the reverse step's, on the run's clock, kept
 * for runs whose n is known (up to EBB_CHAIN_MAX_STEPS, the most steps a
 * chain of costs may have) and whose state is in host memory: a GPU
 * state's callbacks only queue their work, so their host time is not the
 * step's. A later run of the same steps takes them as its costs. A run that
 * measures its costs (ebb_run_options.measure_costs) keeps them for any n,
 * the array growing with the forward sweep where n is unknown, and hands
 * the forward times to its online schedule or async generator when the
 * forward ends.
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "common/populate.h"
#include "ebb/chain.h"
#include "runtime/runtime_internal.h"

/* Steps the array first holds where n is unknown; it doubles as needed. */
enum { RT_STEP_TIMES_FIRST = 1024 };

static int kept(const ebb_run *run)
{
    if (run->opt.state_tier != EBB_TIER_HOST)
        return 0;
    return run->opt.measure_costs ||
           (run->opt.steps > 0 && run->opt.steps <= EBB_CHAIN_MAX_STEPS);
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
    return EBB_OK;
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
        rt_step_times_free(run);
        run->step_times_lost = 1;
        return 0;
    }
    ebb_populate(grown + 2 * run->step_cap, 2 * (size_t)(cap - run->step_cap) * sizeof *grown);
    run->step_s = grown;
    run->step_cap = cap;
    return 1;
}

void rt_step_times_free(ebb_run *run)
{
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
    if (run->step_times_lost)
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "ebb_run_step_times: the forward sweep could not grow the step times "
                        "past %lld steps (out of memory); none are kept",
                        (long long)run->live_step);
    if (!run->step_s)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "ebb_run_step_times: this run keeps no step times: they are kept "
                        "for n known and at most %d steps (n %s %lld), or with "
                        "ebb_run_options.measure_costs, and a host state (a GPU state's "
                        "callbacks queue their work: their host time is not the step's)",
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
