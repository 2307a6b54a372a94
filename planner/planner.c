/*
 * The planner's public calls: a problem, the prediction of one strategy,
 * of all of them, and the pick of the best (docs/planner.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "planner/sim_io.h"
#include "runtime/engine.h"
#include "runtime/h_costs.h"

const char *ebb_plan_channel_name(ebb_plan_channel_id c)
{
    static const char *const names[] = {"gpu->host", "host->gpu", "host->disk", "disk->host"};
    return (int)c >= 0 && c < EBB_PLAN_CHANNEL_COUNT ? names[c] : "?";
}

void ebb_plan_problem_init(ebb_plan_problem *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->state_tier = EBB_TIER_HOST;
    p->disk_fallback = 1;
}

int ebb_plan_disk_compressed(const ebb_plan_problem *p)
{
    return p && rt_disk_compressed(p);
}

void ebb_plan_cap_disk(ebb_plan_problem *p, double bytes_per_s)
{
    if (p)
        p->disk_pace = bytes_per_s > 0 ? bytes_per_s : 0.0;
}

/* One tier's codec for the planner, the disk's and the host's alike: its
 * threads, and with compression on the figures the configuration gives
 * (decompress taken as compress when not given; the runtime measures them
 * as it goes, the planner cannot), and *fixed the size of a fixed rate's
 * states (0: not a fixed rate, or its element unknown). */
static void tier_codec(const ebb_codec_options *c, int enabled, int32_t threads, double ratio,
                       uint64_t compress, uint64_t decompress, size_t state,
                       ebb_codec_rates *out, size_t *fixed)
{
    *fixed = 0;
    out->threads = threads;
    if (!enabled || c->mode == EBB_COMPRESSION_OFF)
        return;
    out->ratio = ratio;
    out->compress_bps = (double)compress;
    out->decompress_bps = (double)(decompress ? decompress : compress);
    if (c->mode != EBB_COMPRESSION_FIXED_RATE || c->element == EBB_ELEMENT_BYTES)
        return;
    ebb_codec *k = NULL;
    if (ebb_codec_create(c, state, &k) == EBB_OK)
        *fixed = ebb_codec_fixed_size(k);
    else
        ebb_clear_error(); /* the run says why when it makes its pool */
    ebb_codec_destroy(k);
}

ebb_status ebb_plan_problem_from_config(ebb_plan_problem *p, const ebb_config *cfg)
{
    if (!p || !cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_plan_problem_from_config: NULL argument");
    if (p->state_size == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_plan_problem_from_config: set problem->state_size first");
    const int enabled[EBB_TIER_COUNT] = {cfg->gpu.enabled, cfg->host.enabled, cfg->disk.enabled};
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        p->slots[t] = 0;
        if (!enabled[t] || (t == EBB_TIER_GPU && p->state_tier != EBB_TIER_GPU))
            continue;
        ebb_pool_options po;
        ebb_status st = ebb_config_pool_options(cfg, (ebb_tier)t, p->state_size, &po);
        if (st != EBB_OK)
            return st;
        p->slots[t] = po.slots;
    }
    ebb_plan_cap_disk(p, (double)cfg->disk.max_bandwidth);
    p->disk_block = (size_t)cfg->disk.block_size;
    size_t fixed = 0;
    tier_codec(&cfg->disk.compression, cfg->disk.enabled, cfg->disk.codec_threads,
               cfg->disk.codec_ratio, cfg->disk.compress_rate, cfg->disk.decompress_rate,
               p->state_size, &p->codec, &fixed);
    p->codec_fixed = fixed > 0 && fixed < p->state_size; /* else raw where it does not pay */
    if (p->codec_fixed)
        p->codec.ratio = (double)p->state_size / (double)fixed;
    /* the host tier's slots: a fixed rate whose element is known, always
     * compressed (config_pool.c counts its slots the same way) */
    tier_codec(&cfg->host.compression, cfg->host.enabled, cfg->host.codec_threads, 0,
               cfg->host.compress_rate, cfg->host.decompress_rate, p->state_size,
               &p->host_codec, &fixed);
    if (fixed > 0)
        p->host_codec.ratio = (double)p->state_size / (double)fixed;
    else
        p->host_codec = (ebb_codec_rates){0};
    return EBB_OK;
}

static ebb_status check_problem(const ebb_plan_problem *p)
{
    if (!p)
        return ebb_fail(EBB_ERR_INVALID_ARG, "the planner's problem is NULL");
    if (p->steps < 1)
        return ebb_fail(EBB_ERR_INVALID_ARG, "problem.steps must be >= 1, got %lld",
                        (long long)p->steps);
    if (p->state_size == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "problem.state_size must be > 0");
    if (p->state_tier != EBB_TIER_HOST && p->state_tier != EBB_TIER_GPU)
        return ebb_fail(EBB_ERR_INVALID_ARG, "problem.state_tier must be host or gpu");
    if (!(p->forward_s >= 0) || !(p->reverse_s >= 0) || !isfinite(p->forward_s) ||
        !isfinite(p->reverse_s))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "problem.forward_s and reverse_s must be finite and >= 0, got %g and %g",
                        p->forward_s, p->reverse_s);
    ebb_status st = rt_check_step_costs(p->forward_step_s, p->reverse_step_s, p->steps,
                                        "problem.forward_step_s", "reverse_step_s");
    if (st == EBB_OK)
        st = rt_check_state_sizes(p->state_sizes, p->steps, p->state_size,
                                  "problem.state_sizes");
    if (st != EBB_OK)
        return st;
    if (p->state_sizes && p->state_tier != EBB_TIER_HOST)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "problem.state_sizes: states of different sizes are planned for a host "
                        "state; a GPU state's are all state_size bytes (set state_sizes NULL)");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (p->slots[t] < 0)
            return ebb_fail(EBB_ERR_INVALID_ARG, "problem.slots[%s] must be >= 0, got %d",
                            ebb_tier_name((ebb_tier)t), p->slots[t]);
    for (int c = 0; c < EBB_PLAN_CHANNEL_COUNT; c++) {
        const ebb_plan_channel *ch = &p->channel[c];
        if (!(ch->bandwidth >= 0) || !(ch->latency >= 0) || !isfinite(ch->latency) ||
            isnan(ch->bandwidth))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "channel %s: bandwidth and latency must be >= 0, got %g B/s and %g s",
                            ebb_plan_channel_name((ebb_plan_channel_id)c), ch->bandwidth,
                            ch->latency);
    }
    if (!(p->disk_pace >= 0) || isinf(p->disk_pace))
        return ebb_fail(EBB_ERR_INVALID_ARG, "the disk's bandwidth limit (problem.disk_pace, bytes/s) must be finite and >= 0, got %g",
                        p->disk_pace);
    for (int h = 0; h < 2; h++) {
        const ebb_codec_rates *k = h ? &p->host_codec : &p->codec;
        if (!(k->ratio >= 0) || !isfinite(k->ratio) || !(k->compress_bps >= 0) ||
            !isfinite(k->compress_bps) || !(k->decompress_bps >= 0) ||
            !isfinite(k->decompress_bps) || k->threads < 0 || k->threads > EBB_CODEC_THREADS_MAX)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "problem.%s: ratio, compress_bps and decompress_bps must be finite "
                            "and >= 0 (0: %s, no time), threads 0 .. %d; got %g, %g, %g, %d",
                            h ? "host_codec" : "codec", h ? "uncompressed" : "raw",
                            EBB_CODEC_THREADS_MAX, k->ratio,
                            k->compress_bps, k->decompress_bps, (int)k->threads);
    }
    if (!(p->step_slowdown >= 0) || !isfinite(p->step_slowdown))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "problem.step_slowdown must be finite and >= 0, got %g", p->step_slowdown);
    if (p->staging < 0 || p->period < 0 || !(p->io_ratio >= 0))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "problem.staging, period and io_ratio must be >= 0 (0 = derived)");
    return EBB_OK;
}

static ebb_status predict_one(const ebb_plan_problem *p, ebb_config_strategy cs,
                              ebb_plan_prediction *out)
{
    return sim_predict(p, cs, out);
}

static const ebb_config_strategy every[EBB_PLAN_MAX] = {
    EBB_CONFIG_STRATEGY_STORE_ALL, EBB_CONFIG_STRATEGY_PERIODIC,   EBB_CONFIG_STRATEGY_REVOLVE,
    EBB_CONFIG_STRATEGY_ONLINE,    EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_CONFIG_STRATEGY_DISK_REVOLVE,
    EBB_CONFIG_STRATEGY_ASYNC,     EBB_CONFIG_STRATEGY_H_REVOLVE};

ebb_status ebb_plan_all(const ebb_plan_problem *p, ebb_plan_prediction *out, size_t *count,
                        int *best)
{
    if (best)
        *best = -1;
    if (count)
        *count = 0;
    if (!out || !count)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_plan_all: NULL argument");
    ebb_status st = check_problem(p);
    if (st != EBB_OK)
        return st;
    int b = -1;
    for (int i = 0; i < EBB_PLAN_MAX; i++) {
        if ((st = predict_one(p, every[i], &out[i])) != EBB_OK)
            return ebb_fail_context(st, "planning %s", ebb_config_strategy_name(every[i]));
        /* ties go to the earlier (simpler) strategy */
        if (out[i].fits && (b < 0 || out[i].predicted_s < out[b].predicted_s))
            b = i;
    }
    *count = EBB_PLAN_MAX;
    if (b >= 0)
        out[b].best = 1;
    if (best)
        *best = b;
    return EBB_OK;
}

ebb_status ebb_plan_predict(const ebb_plan_problem *p, ebb_config_strategy cs,
                            ebb_plan_prediction *out)
{
    if (!out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_plan_predict: NULL prediction");
    ebb_status st = check_problem(p);
    if (st != EBB_OK)
        return st;
    if (cs != EBB_CONFIG_STRATEGY_AUTO)
        return predict_one(p, cs, out);
    ebb_plan_prediction all[EBB_PLAN_MAX];
    size_t count;
    int best;
    if ((st = ebb_plan_all(p, all, &count, &best)) != EBB_OK)
        return st;
    if (best < 0) {
        memset(out, 0, sizeof *out);
        out->strategy = EBB_CONFIG_STRATEGY_AUTO;
        snprintf(out->why_not, sizeof out->why_not, "no strategy fits the slots given");
        return EBB_OK;
    }
    *out = all[best];
    out->picked = 1;
    return EBB_OK;
}
