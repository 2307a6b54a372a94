/*
 * The public run's lifetime: ebb_run_create resolves the options and the
 * configuration into the engine's arguments, with auto's choice, and hands
 * them to the engine (runtime/run.c's rt_run_create); ebb_run_destroy ends
 * it. They live here, above the runtime, because strategy = "auto" asks
 * the planner; the runtime's other public calls are in runtime/run.c.
 */
#include <string.h>

#include "common/error_internal.h"
#include "ebb/planner.h"
#include "planner/auto.h"
#include "planner/create.h"

/* h-revolve asked with the step times: its write and read costs come from
 * the disk measured on the spot, as auto's would, so that it runs the
 * schedule the planner predicts for it (a paced disk is its pace). */
static ebb_status measure_for_h_revolve(const ebb_config *cfg, rt_create_args *a)
{
    if (a->options.strategy != EBB_STRATEGY_H_REVOLVE || !(a->options.forward_seconds > 0) ||
        !cfg->disk.enabled || cfg->disk.max_bandwidth > 0)
        return EBB_OK;
    ebb_plan_problem p = a->costs;
    ebb_status st = ebb_plan_channels_measure(&p, cfg);
    if (st != EBB_OK)
        return st;
    if (a->agree) { /* the processes on this node share its disk */
        p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth /= a->agree->ranks_per_node;
        p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth /= a->agree->ranks_per_node;
    }
    memcpy(a->costs.channel, p.channel, sizeof p.channel);
    a->disk_measured = 1;
    return EBB_OK;
}

/* A real run: the configuration (or the embedded default) resolved into the
 * engine's arguments, with auto's choice (auto.c). */
static ebb_status create(const ebb_run_options *o, const ebb_storage_fault *fault,
                         rt_agree *agree, ebb_run **out)
{
    if (!o || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_create: NULL argument");
    *out = NULL;
    ebb_config own;
    const ebb_config *cfg = o->config;
    ebb_status st;
    if (!cfg) {
        if ((st = ebb_config_init_default(&own)) != EBB_OK)
            return st;
        cfg = &own;
    }
    rt_create_args a;
    if ((st = rt_args_from_config(o, cfg, &a)) == EBB_OK) {
        a.choose = planner_auto_choose;
        a.choose_ctx = (void *)cfg;
        a.fault = fault;
        a.agree = agree;
        if ((st = measure_for_h_revolve(cfg, &a)) == EBB_OK)
            st = rt_run_create(&a, out);
    }
    if (!o->config)
        ebb_config_dispose(&own);
    return st;
}

ebb_status ebb_run_create(const ebb_run_options *o, ebb_run **out)
{
    return create(o, NULL, NULL, out);
}

ebb_status ebb_run_create_with_faults(const ebb_run_options *o, const ebb_storage_fault *fault,
                                      ebb_run **out)
{
    return create(o, fault, NULL, out);
}

ebb_status ebb_run_create_agreed(const ebb_run_options *o, rt_agree *agree, ebb_run **out)
{
    return create(o, NULL, agree, out);
}

void ebb_run_destroy(ebb_run *run)
{
    rt_run_destroy(run);
}
