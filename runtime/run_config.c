/*
 * A real run's arguments (engine.h) from its options and the configuration:
 * the strategy, the audit and the trace file (their environment variables
 * win), what each tier's budget holds, h-revolve's disk pace. The planner
 * fills the same arguments from its problem instead, so the setup that
 * follows (run_setup.c) is one for both.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/chain.h"
#include "runtime/runtime_internal.h"

ebb_status rt_check_step_costs(const double *f, const double *r, int64_t n, const char *f_name,
                               const char *r_name)
{
    if (!f != !r)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s and %s go together: give both (steps of different costs) or "
                        "neither", f_name, r_name);
    for (int64_t i = 0; f && i < n; i++)
        if (!(f[i] >= 0) || !isfinite(f[i]) || !(r[i] >= 0) || !isfinite(r[i]))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "step %lld: %s and %s must be finite and >= 0, got %g and %g",
                            (long long)i, f_name, r_name, f[i], r[i]);
    return EBB_OK;
}

ebb_status rt_check_state_sizes(const size_t *sizes, int64_t n, size_t state_size,
                                const char *name)
{
    if (sizes && n == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s need n: set steps (n unknown cannot have a size for each state)",
                        name);
    if (sizes && n > EBB_CHAIN_MAX_STEPS)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s: states of different sizes are scheduled for up to %d steps, not "
                        "%lld",
                        name, EBB_CHAIN_MAX_STEPS, (long long)n);
    for (int64_t i = 0; sizes && i <= n; i++)
        if (sizes[i] == 0 || sizes[i] > state_size)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "%s[%lld] is %zu: expected 1 .. state_size (%zu, the largest state)",
                            name, (long long)i, sizes[i], state_size);
    return EBB_OK;
}

static ebb_status check_options(const ebb_run_options *o)
{
    if (o->state_size == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_options.state_size must be > 0");
    if (o->state_tier != EBB_TIER_HOST && o->state_tier != EBB_TIER_GPU)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.state_tier must be EBB_TIER_HOST or EBB_TIER_GPU");
    if (!o->forward == !o->forward_inplace)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "give exactly one of ebb_run_options.forward (out of place) and "
                        "forward_inplace");
    if (o->steps < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.steps must be >= 1, or 0 when n is unknown; got %lld",
                        (long long)o->steps);
    if (o->slots < 0 || o->slow_slots < 0 || o->period < 0 || o->io_ratio < 0 || o->staging < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options: slots, slow_slots, period, io_ratio and staging must "
                        "be >= 0 (0 = derived)");
    if ((int)o->strategy < EBB_STRATEGY_FROM_CONFIG || (int)o->strategy >= EBB_STRATEGY_ALL)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.strategy %d is not an ebb_strategy (or "
                        "EBB_STRATEGY_FROM_CONFIG)",
                        (int)o->strategy);
    if (o->steps == 0 && o->strategy != EBB_STRATEGY_FROM_CONFIG &&
        o->strategy != EBB_STRATEGY_AUTO && o->strategy != EBB_STRATEGY_ONLINE &&
        o->strategy != EBB_STRATEGY_ASYNC)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "n unknown (steps = 0) needs strategy \"online\", \"async\" or "
                        "\"auto\", not \"%s\"",
                        ebb_strategy_name(o->strategy));
    ebb_status cst = rt_check_step_costs(o->forward_costs, o->reverse_costs, o->steps,
                                         "ebb_run_options.forward_costs", "reverse_costs");
    if (cst != EBB_OK)
        return cst;
    if (o->measure_costs != 0 && o->measure_costs != 1)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.measure_costs is %d: expected 0 or 1", o->measure_costs);
    if (o->measure_costs && o->forward_costs)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.measure_costs and forward_costs: the costs are either "
                        "given or measured; set one");
    if (o->forward_costs && o->steps == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.forward_costs need n: set steps (n unknown cannot "
                        "have a cost for each step)");
    if ((cst = rt_check_state_sizes(o->state_sizes, o->steps, o->state_size,
                                    "ebb_run_options.state_sizes")) != EBB_OK)
        return cst;
    if (o->state_sizes && o->measure_costs)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.state_sizes and measure_costs: states of different "
                        "sizes run the chain program over given costs (strategy \"revolve\"); "
                        "give forward_costs and reverse_costs, or none");
    if (o->audit < EBB_RUN_FROM_CONFIG || o->audit > EBB_AUDIT_HASH)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_options.audit must be an ebb_audit or -1");
    if (o->error_samples < EBB_RUN_FROM_CONFIG || o->error_samples > EBB_ERROR_SAMPLES_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.error_samples is %d: expected 0 (off) .. %d states to "
                        "keep exact for the error estimate, or -1 (EBB_ERROR_SAMPLES, else "
                        "run.error_samples)",
                        (int)o->error_samples, EBB_ERROR_SAMPLES_MAX);
    if (o->element < -1 || o->element >= EBB_ELEMENT_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_run_options.element is %d: expected an ebb_element (bytes 0, "
                        "float32 1, float64 2) or -1 (tier.disk.element, tier.host.element)",
                        o->element);
    if (o->dims < 0 || o->dims > EBB_CODEC_MAX_DIMS)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_options.dims is %d: expected 0 .. %d",
                        (int)o->dims, EBB_CODEC_MAX_DIMS);
    return EBB_OK;
}

/* EBB_AUDIT, else the options', else run.audit. */
static ebb_status resolve_audit(const ebb_run_options *o, const ebb_config *cfg, int *out)
{
    const char *env = getenv("EBB_AUDIT");
    if (env && *env) {
        ebb_audit a;
        if (ebb_audit_from_name(env, &a) != EBB_OK)
            return ebb_fail(EBB_ERR_CONFIG,
                            "environment variable EBB_AUDIT='%s': expected off, replay or hash",
                            env);
        *out = (int)a;
    } else {
        *out = o->audit >= 0 ? o->audit : (int)cfg->audit;
    }
    return EBB_OK;
}

/* EBB_ERROR_SAMPLES, else the options', else run.error_samples. */
static ebb_status resolve_error_samples(const ebb_run_options *o, const ebb_config *cfg,
                                        int32_t *out)
{
    const char *env = getenv("EBB_ERROR_SAMPLES");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end || v < 0 || v > EBB_ERROR_SAMPLES_MAX)
            return ebb_fail(EBB_ERR_CONFIG,
                            "environment variable EBB_ERROR_SAMPLES='%s': expected an integer "
                            "from 0 (off) to %d (states kept exact for the error estimate)",
                            env, EBB_ERROR_SAMPLES_MAX);
        *out = (int32_t)v;
    } else {
        *out = o->error_samples >= 0 ? o->error_samples : cfg->error_samples;
    }
    return EBB_OK;
}

void rt_config_for_state(const ebb_config *config, const ebb_run_options *o, ebb_config *out)
{
    *out = *config;
    rt_codec_for_state(&out->disk.compression, o);
    rt_codec_for_state(&out->host.compression, o);
}

/* With n unknown and tier.disk.budget "auto", the disk tier's slots: at most
 * this many bytes of them (RT_DISK_UNKNOWN_MIN_SLOTS at least, never beyond
 * the budget), so that a short run does not create, preallocate and keep
 * records for a share of the file system it never fills. A budget that is
 * set is used whole. */
#define RT_DISK_UNKNOWN_BYTES ((uint64_t)1 << 30)
#define RT_DISK_UNKNOWN_MIN_SLOTS 64

static int32_t disk_unknown_cap(size_t state, int32_t slots)
{
    uint64_t stride = ebb_slot_stride(EBB_TIER_DISK, state, 0);
    uint64_t cap = stride > 0 ? RT_DISK_UNKNOWN_BYTES / stride : (uint64_t)slots;
    if (cap < RT_DISK_UNKNOWN_MIN_SLOTS)
        cap = RT_DISK_UNKNOWN_MIN_SLOTS;
    return (uint64_t)slots > cap ? (int32_t)cap : slots;
}

/* What each enabled tier's budget holds for this state; an error is kept
 * for the strategy that needs the tier. The disk's and the host's
 * compression with the element type and shape the options give (a fixed
 * rate's slots are smaller: run_setup.c makes the pools with the same). */
static void budgets(const ebb_config *config, const ebb_run_options *o, rt_tiers *t)
{
    ebb_config c; /* a shallow copy, read only: it owns nothing */
    rt_config_for_state(config, o, &c);
    const ebb_config *cfg = &c;
    size_t state = o->state_size;
    const int enabled[EBB_TIER_COUNT] = {cfg->gpu.enabled, cfg->host.enabled, cfg->disk.enabled};
    memset(t, 0, sizeof *t);
    for (int k = 0; k < EBB_TIER_COUNT; k++) {
        t->enabled[k] = enabled[k];
        if (!enabled[k])
            continue;
        ebb_pool_options po;
        t->status[k] = ebb_config_pool_options(cfg, (ebb_tier)k, state, &po);
        if (t->status[k] != EBB_OK) {
            snprintf(t->why[k], sizeof t->why[k], "%s", ebb_last_error());
            continue;
        }
        t->slots[k] = po.slots;
        if (k == EBB_TIER_DISK && o->steps == 0 && cfg->disk.budget == EBB_BUDGET_AUTO)
            t->slots[k] = disk_unknown_cap(state, t->slots[k]);
    }
}

ebb_status rt_args_from_config(const ebb_run_options *o, const ebb_config *cfg, rt_create_args *a)
{
    memset(a, 0, sizeof *a);
    if (!o || !cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_create: NULL argument");
    ebb_status st = check_options(o);
    if (st != EBB_OK)
        return st;
    a->options = *o;
    if (o->strategy == EBB_STRATEGY_FROM_CONFIG)
        a->options.strategy = cfg->strategy;
    ebb_strategy s = a->options.strategy;
    if (o->steps == 0 && s != EBB_STRATEGY_AUTO && s != EBB_STRATEGY_ONLINE &&
        s != EBB_STRATEGY_ASYNC) {
        char where[300] = "";
        if (cfg->line[EBB_KEY_RUN_STRATEGY] > 0 && cfg->source)
            snprintf(where, sizeof where, ", %s:%d", cfg->source,
                     (int)cfg->line[EBB_KEY_RUN_STRATEGY]);
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "n unknown (steps = 0) needs strategy \"online\", \"async\" or \"auto\", "
                        "not \"%s\" (run.strategy of the configuration%s); give the number of "
                        "steps (ebb_run_options.steps) or one of those strategies",
                        ebb_strategy_name(s), where);
    }
    if ((st = resolve_audit(o, cfg, &a->options.audit)) != EBB_OK ||
        (st = resolve_error_samples(o, cfg, &a->options.error_samples)) != EBB_OK)
        return st;
    if (a->options.error_samples > 0 && o->state_tier == EBB_TIER_GPU)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "error_samples = %d: the lossy error estimate is for a host state only "
                        "(this run's state is in GPU memory); set ebb_run_options.error_samples "
                        "= 0 (and run.error_samples, EBB_ERROR_SAMPLES to 0 or unset)",
                        (int)a->options.error_samples);
    const char *trace = getenv("EBB_TRACE");
    a->trace = trace && *trace ? trace : o->trace && *o->trace ? o->trace : NULL;
    a->config = cfg;
    a->io = rt_io_storage();
    budgets(cfg, o, &a->tiers);
    /* (the planner's problem type; no planner call: the planner sits above) */
    a->costs.state_size = o->state_size;
    a->costs.state_tier = o->state_tier;
    a->costs.forward_s = o->forward_seconds;
    a->costs.reverse_s = o->reverse_seconds > 0 ? o->reverse_seconds : 0.0;
    a->costs.disk_pace = cfg->disk.max_bandwidth > 0 ? (double)cfg->disk.max_bandwidth : 0.0;
    return EBB_OK;
}
