/*
 * Each step's measured time (ebb_run_step_times): the forward callback's
 * time in the first sweep and the reverse step's, on the run's clock, kept
 * for runs whose n is known (up to EBB_CHAIN_MAX_STEPS, the most steps a
 * chain of costs may have) and whose state is in host memory: a GPU
 * state's callbacks only queue their work, so their host time is not the
 * step's. A later run of the same steps takes them as its costs.
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "common/populate.h"
#include "ebb/chain.h"
#include "runtime/runtime_internal.h"

static int kept(const ebb_run *run)
{
    return run->opt.steps > 0 && run->opt.steps <= EBB_CHAIN_MAX_STEPS &&
           run->opt.state_tier == EBB_TIER_HOST;
}

ebb_status rt_step_times_init(ebb_run *run)
{
    if (!kept(run))
        return EBB_OK;
    size_t bytes = 2 * (size_t)run->opt.steps * sizeof *run->step_s;
    run->step_s = calloc(1, bytes);
    if (!run->step_s)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the times of %lld steps",
                        (long long)run->opt.steps);
    /* faulted in now: the sweeps take no page fault for them */
    ebb_populate(run->step_s, bytes);
    return EBB_OK;
}

void rt_step_times_free(ebb_run *run)
{
    free(run->step_s);
    run->step_s = NULL;
}

void rt_step_forward_time(ebb_run *run, int64_t step, double seconds)
{
    if (run->step_s && step >= 0 && step < run->opt.steps)
        run->step_s[2 * step] = seconds;
}

void rt_step_reverse_time(ebb_run *run, int64_t step, double seconds)
{
    if (run->step_s && step >= 0 && step < run->opt.steps)
        run->step_s[2 * step + 1] = seconds;
}

ebb_status ebb_run_step_times(const ebb_run *run, double *forward_s, double *reverse_s,
                              int64_t count)
{
    if (!run)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_step_times: NULL run");
    if (!run->step_s)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "ebb_run_step_times: this run keeps no step times: they are kept "
                        "for n known and at most %d steps (n %s %lld) and a host state (a GPU "
                        "state's callbacks queue their work: their host time is not the "
                        "step's)",
                        EBB_CHAIN_MAX_STEPS, run->opt.steps > 0 ? "=" : "unknown:",
                        (long long)run->opt.steps);
    if (count < 0 || count > run->opt.steps)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_step_times: count %lld is outside 0 .. %lld (the run's steps)",
                        (long long)count, (long long)run->opt.steps);
    for (int64_t i = 0; i < count; i++) {
        if (forward_s)
            forward_s[i] = run->step_s[2 * i];
        if (reverse_s)
            reverse_s[i] = run->step_s[2 * i + 1];
    }
    return EBB_OK;
}
