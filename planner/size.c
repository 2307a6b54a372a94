/*
 * Sizing with the planner: the least disk bandwidth, or the fewest host
 * slots, for which a strategy's predicted wall time stays within a target
 * overhead, found by bisection over the simulation (docs/planner.md). The
 * predicted time falls as either grows; where it does not quite (a schedule
 * that changes shape with the slots), the answer is the bisection's.
 */
#include <math.h>
#include <stdio.h>

#include "common/error_internal.h"
#include "ebb/planner.h"

/* The predicted overhead, or INFINITY when the strategy does not fit. */
static ebb_status ratio(const ebb_plan_problem *p, ebb_config_strategy cs, double *out)
{
    ebb_plan_prediction pr;
    ebb_status st = ebb_plan_predict(p, cs, &pr);
    if (st != EBB_OK)
        return st;
    double ideal = (double)p->steps * (p->forward_s + p->reverse_s);
    *out = !pr.fits ? INFINITY : ideal > 0 ? pr.predicted_s / ideal : 1.0;
    return EBB_OK;
}

static void set_disk(ebb_plan_problem *p, double write_bw, double read_per_write)
{
    p->channel[EBB_PLAN_HOST_TO_DISK].bandwidth = write_bw;
    p->channel[EBB_PLAN_DISK_TO_HOST].bandwidth = write_bw * read_per_write;
    p->disk_pace = 0; /* the answer is the disk's rate, paced or not */
}

static ebb_status check_target(double target)
{
    if (!(target >= 1.0) || !isfinite(target))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the target overhead must be a number >= 1 (wall / (n x (f + b))), got %g",
                        target);
    return EBB_OK;
}

ebb_status ebb_plan_size_disk_bandwidth(const ebb_plan_problem *problem, ebb_config_strategy cs,
                                        double target, double *bytes_per_s)
{
    if (!problem || !bytes_per_s)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_plan_size_disk_bandwidth: NULL argument");
    ebb_status st = check_target(target);
    if (st != EBB_OK)
        return st;
    ebb_plan_problem p = *problem;
    double w = p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth;
    double r = p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth;
    double rpw = w > 0 && r > 0 ? r / w : 1.0;
    double lo = 1e3, hi = 1e13, got;
    set_disk(&p, hi, rpw);
    if ((st = ratio(&p, cs, &got)) != EBB_OK)
        return st;
    if (got > target)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "no disk bandwidth up to 10 TB/s meets the overhead %g with %s: the best "
                        "predicted is %g%s",
                        target, ebb_config_strategy_name(cs), got,
                        isinf(got) ? " (it does not fit the slots)" : "");
    /* bisect on a log scale to 0.1 % */
    while (hi / lo > 1.001) {
        double mid = sqrt(lo * hi);
        set_disk(&p, mid, rpw);
        if ((st = ratio(&p, cs, &got)) != EBB_OK)
            return st;
        if (got <= target)
            hi = mid;
        else
            lo = mid;
    }
    *bytes_per_s = hi;
    return EBB_OK;
}

ebb_status ebb_plan_size_host_slots(const ebb_plan_problem *problem, ebb_config_strategy cs,
                                    double target, int32_t *slots)
{
    if (!problem || !slots)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_plan_size_host_slots: NULL argument");
    ebb_status st = check_target(target);
    if (st != EBB_OK)
        return st;
    ebb_plan_problem p = *problem;
    int64_t top = p.steps < INT32_MAX ? p.steps : INT32_MAX;
    int32_t lo = 0, hi = (int32_t)top;
    double got;
    p.slots[EBB_TIER_HOST] = hi;
    if ((st = ratio(&p, cs, &got)) != EBB_OK)
        return st;
    if (got > target)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "no host slot count up to n = %lld meets the overhead %g with %s: the "
                        "best predicted is %g",
                        (long long)p.steps, target, ebb_config_strategy_name(cs), got);
    while (hi - lo > 1) {
        int32_t mid = lo + (hi - lo) / 2;
        p.slots[EBB_TIER_HOST] = mid;
        if ((st = ratio(&p, cs, &got)) != EBB_OK)
            return st;
        if (got <= target)
            hi = mid;
        else
            lo = mid;
    }
    *slots = hi;
    return EBB_OK;
}
