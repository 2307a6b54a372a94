/*
 * `ebb plan --state-size BYTES --forward-ms F --reverse-ms B ...`: the
 * planner's predictions (ebb/planner.h) for one strategy or all, and the
 * sizing answer for a target overhead. Slots come from the configuration's
 * budgets (or --slots, --disk-slots); channel figures from --disk-bandwidth,
 * a bench file, or a short measurement of the configured disk.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "ebb/planner.h"
#include "tools/bench_file.h"
#include "tools/chain_file.h"
#include "tools/cli.h"
#include "tools/json.h"
#include "tools/options.h"
#include "tools/plan_predict.h"

static const char predict_help[] =
    "usage: ebb plan --steps N --state-size BYTES --forward-ms F --reverse-ms B [options]\n"
    "       ebb plan --step-file FILE [options]\n"
    "\n"
    "Predicts, with a simulation of the runtime and its transfer channels, what\n"
    "each strategy costs: wall time, both sweeps, time stalled on transfers,\n"
    "forward steps and peak slots per tier (docs/planner.md).\n"
    "\n"
    "  --steps N             steps (n >= 1)\n"
    "  --state-size BYTES    bytes of a state, units allowed: 16MiB\n"
    "  --forward-ms F        time of a forward step, 0 to 3600000\n"
    "  --reverse-ms B        time of a reverse step, 0 to 3600000\n"
    "  --step-file FILE      each step's own times and input state's size, one step a\n"
    "                        line: FORWARD_MS REVERSE_MS SIZE ('COUNT x ...' for COUNT\n"
    "                        such steps, '#' a comment, '-' standard input), in place of\n"
    "                        --steps, --forward-ms, --reverse-ms (and --state-size: the\n"
    "                        largest size, x_n's too); states of different sizes are\n"
    "                        run by revolve and store-all on the host tier\n"
    "  --config F            budgets (slots per tier) and tier.disk.max_bandwidth\n"
    "                        (default: the embedded default)\n"
    "  --slots C             host slots (default: as tier.host.budget holds)\n"
    "  --disk-slots D        disk slots, 0 = no disk (default: as its budget holds)\n"
    "  --state-tier T        host | gpu (default host)\n"
    "  --gpu-slots G         gpu slots for a gpu state (default: as tier.gpu.budget holds)\n"
    "  --disk-bandwidth R    both disk directions, a rate: \"1 GB/s\" (default: from\n"
    "                        --bench, else measured on the spot, < 1 s)\n"
    "  --disk-latency-ms L   added to every disk transfer (default 0)\n"
    "  --pcie-bandwidth R    both gpu <-> host directions (default: --bench, else infinite)\n"
    "  --bench FILE          channel figures from 'ebb bench --json > FILE'\n"
    "  --step-slowdown K     a step overlapping a disk transfer takes 1 + K times as long\n"
    "                        for the overlap (default: measured with the disk, else 0)\n"
    "  --compression-ratio X states compressed on the disk channel, state bytes over\n"
    "                        stored bytes (as 'ebb run' or 'ebb bench --compression' show;\n"
    "                        default: --config's tier.disk.codec_ratio or fixed rate,\n"
    "                        else raw)\n"
    "  --compress-rate R     one codec thread's compression, state bytes a second\n"
    "                        (default: tier.disk.compress_rate, else no time)\n"
    "  --decompress-rate R   one codec thread's decompression (default:\n"
    "                        tier.disk.decompress_rate, else the compress rate)\n"
    "  --codec-threads K     codec threads (default: tier.disk.codec_threads)\n"
    "  --host-compress-rate R, --host-decompress-rate R, --host-codec-threads K\n"
    "                        the same for the host tier's compressed slots (--config's\n"
    "                        tier.host.compression = \"fixed-rate\": its ratio is the\n"
    "                        rate's; default: tier.host.compress_rate, decompress_rate,\n"
    "                        codec_threads). A restore waits for its decompression;\n"
    "                        the budget's uncompressed slots are predicted too\n"
    "  --staging K           host buffers for disk transfers (default 2, as the runtime)\n"
    "  --period K            periodic: k; disk-revolve: m (default: as the runtime derives)\n"
    "  --io-ratio R          disk-revolve's ratio (default 1, as the runtime)\n"
    "  --strategy S          auto | async | store-all | periodic | revolve | online |\n"
    "                        multistage | disk-revolve | h-revolve | all (default all)\n"
    "  --target-overhead X   also print the least disk bandwidth and the fewest host\n"
    "                        slots for which the strategy (all: the best) predicts\n"
    "                        wall <= X * n * (F + B)\n"
    "  --ratios R1,R2,...    instead: every strategy's predicted overhead at each\n"
    "                        compute/transfer ratio F / (time to write a state), set\n"
    "                        through the disk pace (tier.disk.max_bandwidth)\n"
    "  --json                one JSON object ({\"plans\": [...]} with all)\n";

typedef struct ratio_list {
    double v[64];
    int count;
} ratio_list;

typedef struct predict_args {
    const char *config, *bench, *step_file;
    int64_t steps;
    uint64_t size;
    double forward_ms, reverse_ms;
    int32_t slots, disk_slots, gpu_slots; /* -1: the budget's */
    int state_tier;                       /* an ebb_tier */
    uint64_t disk_bw, pcie_bw;            /* bytes per second, 0: not given */
    double disk_lat_ms;
    double slowdown;                      /* -1: measured with the disk, else 0 */
    double codec_ratio;                   /* 0: not given */
    uint64_t compress_bps, decompress_bps; /* 0: not given */
    int32_t codec_threads;                /* 0: not given */
    uint64_t host_compress_bps, host_decompress_bps; /* the host tier's; 0: not given */
    int32_t host_codec_threads;
    int32_t staging;
    int64_t period;
    double io_ratio;
    cli_strategy pick;
    double target;
    ratio_list ratios;
    int json;
} predict_args;

/* --state-size 0 */
static int size_check(const cli_ctx *ctx, void *field)
{
    if (*(uint64_t *)field > 0)
        return 0;
    cli_error(ctx, "--%s: must be at least 1 byte", ctx->option->name);
    return -1;
}

/* --disk-bandwidth none */
static int rate_check(const cli_ctx *ctx, void *field)
{
    if (*(uint64_t *)field > 0)
        return 0;
    cli_error(ctx, "--%s: a rate > 0 is needed (\"1 GB/s\"), got '%s'", ctx->option->name,
              ctx->text);
    return -1;
}

/* --ratios "0.25,0.5,1": up to 64 numbers > 0. */
static int ratios_check(const cli_ctx *ctx, void *field)
{
    ratio_list *r = field;
    r->count = 0;
    const char *p = ctx->text;
    while (*p) {
        char *end = NULL;
        double v = strtod(p, &end);
        if (end == p || !(v > 0) || !isfinite(v) || (*end && *end != ',') || r->count == 64) {
            cli_error(ctx, "--ratios must be up to 64 numbers > 0 separated by commas, got '%s'",
                      ctx->text);
            return -1;
        }
        r->v[r->count++] = v;
        p = *end ? end + 1 : end;
    }
    if (r->count == 0) {
        cli_error(ctx, "--ratios needs at least one number");
        return -1;
    }
    return 0;
}

static const cli_name state_tiers[] = {{"host", EBB_TIER_HOST}, {"gpu", EBB_TIER_GPU}, {NULL, 0}};

#define OPT(n, k, f) CLI_OPT(predict_args, n, k, f)
static const cli_option predict_options[] = {
    {OPT("steps", CLI_INT64, steps), .min = 1, .max = INT64_MAX / 4},
    {OPT("state-size", CLI_SIZE, size), .check = size_check},
    {OPT("forward-ms", CLI_DOUBLE, forward_ms), .most = CLI_STEP_MS_MAX},
    {OPT("reverse-ms", CLI_DOUBLE, reverse_ms), .most = CLI_STEP_MS_MAX},
    {OPT("step-file", CLI_STRING, step_file)},
    {OPT("config", CLI_STRING, config)},
    {OPT("slots", CLI_INT32, slots), .min = 1, .max = INT32_MAX},
    {OPT("disk-slots", CLI_INT32, disk_slots), .min = 0, .max = INT32_MAX},
    {OPT("state-tier", CLI_ENUM, state_tier), .names = state_tiers},
    {OPT("gpu-slots", CLI_INT32, gpu_slots), .min = 0, .max = INT32_MAX},
    {OPT("disk-bandwidth", CLI_RATE, disk_bw), .check = rate_check},
    {OPT("disk-latency-ms", CLI_DOUBLE, disk_lat_ms)},
    {OPT("pcie-bandwidth", CLI_RATE, pcie_bw), .check = rate_check},
    {OPT("bench", CLI_STRING, bench)},
    {OPT("step-slowdown", CLI_DOUBLE, slowdown), .least = 0.0},
    {OPT("compression-ratio", CLI_DOUBLE, codec_ratio), .least = 1.0},
    {OPT("compress-rate", CLI_RATE, compress_bps), .check = rate_check},
    {OPT("decompress-rate", CLI_RATE, decompress_bps), .check = rate_check},
    {OPT("codec-threads", CLI_INT32, codec_threads), .min = 1, .max = EBB_CODEC_THREADS_MAX},
    {OPT("host-compress-rate", CLI_RATE, host_compress_bps), .check = rate_check},
    {OPT("host-decompress-rate", CLI_RATE, host_decompress_bps), .check = rate_check},
    {OPT("host-codec-threads", CLI_INT32, host_codec_threads), .min = 1,
     .max = EBB_CODEC_THREADS_MAX},
    {OPT("staging", CLI_INT32, staging), .min = 1, .max = 1024},
    {OPT("period", CLI_INT64, period), .min = 1, .max = INT64_MAX / 4},
    {OPT("io-ratio", CLI_DOUBLE, io_ratio)},
    {OPT("strategy", CLI_STRATEGY, pick), .hint = " (or \"all\")"},
    {OPT("target-overhead", CLI_DOUBLE, target), .least = 1.0},
    {OPT("ratios", CLI_CUSTOM, ratios), .check = ratios_check},
    {OPT("json", CLI_FLAG, json)},
};
#undef OPT
static const cli_command predict_command = {
    "plan", predict_help, predict_options, sizeof predict_options / sizeof *predict_options, 0,
    NULL};

static int parse(int argc, char **argv, predict_args *a)
{
    cli_parsed parsed;
    int rc = cli_parse(&predict_command, argc, argv, a, &parsed);
    if (rc != CLI_OK)
        return rc;
    int times = cli_given(&predict_command, &parsed, "forward-ms") ||
                cli_given(&predict_command, &parsed, "reverse-ms");
    if (a->step_file && times) {
        fprintf(stderr, "ebb plan: --step-file gives each step's times: drop --forward-ms and "
                        "--reverse-ms\n");
        return 2;
    }
    if (!a->step_file &&
        (!a->steps || !a->size || !cli_given(&predict_command, &parsed, "forward-ms") ||
         !cli_given(&predict_command, &parsed, "reverse-ms"))) {
        fprintf(stderr, "ebb plan: predicting needs --steps N, --state-size BYTES, --forward-ms F "
                        "and --reverse-ms B, or --step-file FILE (see 'ebb plan --help')\n");
        return 2;
    }
    return 0;
}

/* The steps of --step-file (their times in milliseconds, their input
 * states' sizes), held for the problem to point at. */
typedef struct step_file {
    chain_data d;
    double f_s[EBB_CHAIN_MAX_STEPS], r_s[EBB_CHAIN_MAX_STEPS];
    size_t sizes[EBB_CHAIN_MAX_STEPS + 1];
} step_file;

/* Reads a->step_file into *sf and the problem's steps, times and sizes
 * (state_sizes only where they differ; the mean times as forward_s and
 * reverse_s, so that n (F + B) is the steps' own total); 0, or 1 after
 * printing why not. */
static int read_step_file(const predict_args *a, step_file *sf, ebb_plan_problem *p)
{
    chain_data *d = &sf->d;
    if (chain_file_read(a->step_file, d) != 0)
        return 1;
    if (d->tapes > 0) {
        fprintf(stderr, "ebb plan: %s: the planner takes no tapes (BACKWARD TAPE): give each "
                        "line FORWARD_MS REVERSE_MS SIZE\n", a->step_file);
        return 1;
    }
    if (a->steps > 0 && a->steps != d->n) {
        fprintf(stderr, "ebb plan: --steps %lld, but %s holds %lld steps: drop --steps\n",
                (long long)a->steps, a->step_file, (long long)d->n);
        return 1;
    }
    uint64_t largest = 0;
    int differ = 0;
    double f = 0, r = 0;
    for (int64_t i = 0; i < d->n; i++) {
        if (d->f[i] > CLI_STEP_MS_MAX || d->r[i] > CLI_STEP_MS_MAX) {
            fprintf(stderr, "ebb plan: %s: step %lld takes %g ms forward, %g reverse: at most "
                            "%g each\n", a->step_file, (long long)i, d->f[i], d->r[i],
                    (double)CLI_STEP_MS_MAX);
            return 1;
        }
        sf->f_s[i] = d->f[i] * 1e-3;
        sf->r_s[i] = d->r[i] * 1e-3;
        f += sf->f_s[i];
        r += sf->r_s[i];
        largest = d->b[i] > largest ? d->b[i] : largest;
        differ |= d->b[i] != d->b[0];
    }
    if (a->size > 0 && a->size < largest) {
        fprintf(stderr, "ebb plan: --state-size %llu is below the largest state of %s (%llu "
                        "bytes): drop --state-size or raise it\n", (unsigned long long)a->size,
                a->step_file, (unsigned long long)largest);
        return 1;
    }
    if (a->size > largest) {
        largest = a->size;
        differ = 1;
    }
    for (int64_t i = 0; i < d->n; i++)
        sf->sizes[i] = (size_t)d->b[i];
    sf->sizes[d->n] = (size_t)largest; /* x_n: handed out, never stored */
    p->steps = d->n;
    p->state_size = (size_t)largest;
    p->forward_step_s = sf->f_s;
    p->reverse_step_s = sf->r_s;
    p->forward_s = f / (double)d->n;
    p->reverse_s = r / (double)d->n;
    p->state_sizes = differ ? sf->sizes : NULL;
    return 0;
}

/* A codec channel's figures given on the command line (0: not given),
 * over the configuration's; the disk's and the host tier's alike. */
static void codec_given(ebb_codec_rates *k, uint64_t compress, uint64_t decompress,
                        int32_t threads)
{
    if (compress > 0)
        k->compress_bps = (double)compress;
    if (decompress > 0)
        k->decompress_bps = (double)decompress;
    else if (compress > 0) /* as the runtime before its first read */
        k->decompress_bps = (double)compress;
    if (threads > 0)
        k->threads = threads;
}

/* The problem from the configuration and the options; 0, or 1 after printing why not. */
/* The host slots the budget holds uncompressed, where the configuration
 * compresses them and no --slots is given: the alternative auto weighs
 * (docs/compression.md, *The host tier*); 0 otherwise. */
static int32_t plain_host_slots(const predict_args *a, const ebb_config *cfg,
                                const ebb_plan_problem *p)
{
    if (!(p->host_codec.ratio > 0) || a->slots > 0)
        return 0;
    ebb_config plain = *cfg; /* shallow, only read */
    plain.host.compression.mode = EBB_COMPRESSION_OFF;
    ebb_pool_options po;
    if (ebb_config_pool_options(&plain, EBB_TIER_HOST, p->state_size, &po) != EBB_OK) {
        ebb_clear_error(); /* not one whole state */
        return 0;
    }
    return po.slots;
}

static int build_problem(const predict_args *a, step_file *sf, ebb_plan_problem *p,
                         const char **source, int32_t *plain_slots)
{
    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK ||
        (a->config && ebb_config_load_file(a->config, &cfg) != EBB_OK)) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        ebb_config_dispose(&cfg);
        return 1;
    }
    ebb_plan_problem_init(p);
    p->steps = a->steps;
    p->state_size = (size_t)a->size;
    p->state_tier = (ebb_tier)a->state_tier;
    p->forward_s = a->forward_ms * 1e-3;
    p->reverse_s = a->reverse_ms * 1e-3;
    p->staging = a->staging;
    p->period = a->period;
    p->io_ratio = a->io_ratio;
    int rc = 0;
    if (a->step_file && read_step_file(a, sf, p) != 0) {
        rc = 1;
        goto out;
    }
    if (ebb_plan_problem_from_config(p, &cfg) != EBB_OK) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        rc = 1;
        goto out;
    }
    *plain_slots = plain_host_slots(a, &cfg, p);
    if (a->slots > 0)
        p->slots[EBB_TIER_HOST] = a->slots;
    if (a->disk_slots >= 0)
        p->slots[EBB_TIER_DISK] = a->disk_slots;
    if (a->gpu_slots >= 0 && a->state_tier == EBB_TIER_GPU)
        p->slots[EBB_TIER_GPU] = a->gpu_slots;
    *source = "none";
    if (a->bench) {
        char why[512];
        if (bench_file_channels(p, a->bench, why, sizeof why) != 0) {
            fprintf(stderr, "ebb plan: --bench: %s\n", why);
            rc = 1;
            goto out;
        }
        *source = "bench";
    }
    if (a->disk_bw > 0) {
        p->channel[EBB_PLAN_HOST_TO_DISK].bandwidth = (double)a->disk_bw;
        p->channel[EBB_PLAN_DISK_TO_HOST].bandwidth = (double)a->disk_bw;
        *source = "options";
    } else if (!a->bench && p->slots[EBB_TIER_DISK] > 0) {
        if (ebb_plan_channels_measure(p, &cfg) != EBB_OK) {
            fprintf(stderr, "ebb plan: %s (give --disk-bandwidth or --bench)\n", ebb_last_error());
            rc = 1;
            goto out;
        }
        *source = "measured";
    }
    ebb_plan_cap_disk(p, (double)cfg.disk.max_bandwidth);
    p->channel[EBB_PLAN_HOST_TO_DISK].latency = a->disk_lat_ms * 1e-3;
    p->channel[EBB_PLAN_DISK_TO_HOST].latency = a->disk_lat_ms * 1e-3;
    if (a->pcie_bw > 0) {
        p->channel[EBB_PLAN_GPU_TO_HOST].bandwidth = (double)a->pcie_bw;
        p->channel[EBB_PLAN_HOST_TO_GPU].bandwidth = (double)a->pcie_bw;
    }
    if (a->slowdown >= 0)
        p->step_slowdown = a->slowdown;
    if (a->codec_ratio > 0)
        p->codec.ratio = a->codec_ratio;
    codec_given(&p->codec, a->compress_bps, a->decompress_bps, a->codec_threads);
    codec_given(&p->host_codec, a->host_compress_bps, a->host_decompress_bps,
                a->host_codec_threads);
out:
    ebb_config_dispose(&cfg);
    return rc;
}

static double ideal_s(const ebb_plan_problem *p)
{
    return (double)p->steps * (p->forward_s + p->reverse_s);
}

static void json_tiers(json_writer *w, const char *key, const int32_t *v32, const int64_t *v64)
{
    json_object(w, key);
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), v32 ? v32[t] : v64[t]);
    json_close(w);
}

static void json_plan(json_writer *w, const ebb_plan_problem *p, const ebb_plan_prediction *r)
{
    json_string(w, "strategy", ebb_config_strategy_name(r->strategy));
    json_bool(w, "fits", r->fits);
    if (!r->fits) {
        json_string(w, "why_not", r->why_not);
        return;
    }
    json_string(w, "schedule", ebb_strategy_name(r->schedule));
    json_string(w, "fast_tier", ebb_tier_name(r->fast_tier));
    json_string(w, "slow_tier", ebb_tier_name(r->slow_tier));
    json_bool(w, "on_disk", r->on_disk);
    json_int(w, "steps", p->steps);
    json_int(w, "state_size", (int64_t)p->state_size);
    if (r->period > 0)
        json_int(w, "period", r->period);
    json_double(w, "predicted_s", r->predicted_s);
    json_double(w, "predicted_forward_s", r->forward_s);
    json_double(w, "predicted_reverse_s", r->reverse_s);
    json_double(w, "predicted_stall_s", r->stall_s);
    json_double(w, "ideal_s", ideal_s(p));
    json_double(w, "predicted_overhead", ideal_s(p) > 0 ? r->predicted_s / ideal_s(p) : NAN);
    json_int(w, "forward_steps", r->forward_steps);
    json_int(w, "recomputed_steps", r->recomputed_steps);
    json_int(w, "reverse_steps", r->reverse_steps);
    json_tiers(w, "slots", r->slots, NULL);
    json_tiers(w, "peak_slots", r->peak_slots, NULL);
    json_tiers(w, "stores", NULL, r->stores);
    json_tiers(w, "restores", NULL, r->restores);
    json_int(w, "prefetches", r->prefetches);
    json_int(w, "cache_hits", r->cache_hits);
    json_bool(w, "best", r->best);
    if (r->picked)
        json_bool(w, "picked", 1);
}

static void json_context(json_writer *w, const ebb_plan_problem *p, const char *source)
{
    json_object(w, "channels");
    for (int c = 0; c < EBB_PLAN_CHANNEL_COUNT; c++) {
        json_object(w, ebb_plan_channel_name((ebb_plan_channel_id)c));
        json_double(w, "bandwidth_Bps", p->channel[c].bandwidth > 0 ? p->channel[c].bandwidth
                                                                    : INFINITY);
        json_double(w, "latency_s", p->channel[c].latency);
        json_close(w);
    }
    json_close(w);
    json_string(w, "disk_figures", source);
    json_double(w, "step_slowdown", p->step_slowdown);
    json_double(w, "forward_s", p->forward_s);
    json_double(w, "reverse_s", p->reverse_s);
    json_bool(w, "state_sizes", p->state_sizes != NULL);
    json_tiers(w, "tier_slots", p->slots, NULL);
    if (p->codec.ratio > 0) { /* the compressed disk channel (docs/compression.md) */
        json_object(w, "codec");
        json_double(w, "ratio", p->codec.ratio);
        json_double(w, "compress_Bps",
                    p->codec.compress_bps > 0 ? p->codec.compress_bps : INFINITY);
        json_double(w, "decompress_Bps",
                    p->codec.decompress_bps > 0 ? p->codec.decompress_bps : INFINITY);
        json_int(w, "threads", p->codec.threads > 0 ? p->codec.threads : 2);
        json_bool(w, "compressed", ebb_plan_disk_compressed(p));
        json_close(w);
    }
    if (p->host_codec.ratio > 0) { /* the host tier's compressed slots */
        const ebb_codec_rates *k = &p->host_codec;
        json_object(w, "host_codec");
        json_double(w, "ratio", k->ratio);
        json_double(w, "compress_Bps", k->compress_bps > 0 ? k->compress_bps : INFINITY);
        json_double(w, "decompress_Bps", k->decompress_bps > 0 ? k->decompress_bps : INFINITY);
        json_int(w, "threads", k->threads > 0 ? k->threads : 2);
        json_close(w);
    }
}

typedef struct sizing {
    int asked, bw_ok, slots_ok;
    double bw;
    int32_t slots;
    char bw_error[512], slots_error[512];
} sizing;

static void size_it(const predict_args *a, const ebb_plan_problem *p, int strategy, sizing *z)
{
    memset(z, 0, sizeof z[0]);
    if (a->target <= 0)
        return;
    z->asked = 1;
    z->bw_ok = ebb_plan_size_disk_bandwidth(p, (ebb_config_strategy)strategy, a->target,
                                            &z->bw) == EBB_OK;
    if (!z->bw_ok)
        snprintf(z->bw_error, sizeof z->bw_error, "%s", ebb_last_error());
    z->slots_ok = ebb_plan_size_host_slots(p, (ebb_config_strategy)strategy, a->target,
                                           &z->slots) == EBB_OK;
    if (!z->slots_ok)
        snprintf(z->slots_error, sizeof z->slots_error, "%s", ebb_last_error());
}

static void json_sizing(json_writer *w, const predict_args *a, int strategy, const sizing *z)
{
    if (!z->asked)
        return;
    json_object(w, "sizing");
    json_double(w, "target_overhead", a->target);
    json_string(w, "strategy", ebb_config_strategy_name((ebb_config_strategy)strategy));
    if (z->bw_ok)
        json_double(w, "disk_bandwidth_Bps", z->bw);
    else
        json_string(w, "disk_bandwidth_error", z->bw_error);
    if (z->slots_ok)
        json_int(w, "host_slots", z->slots);
    else
        json_string(w, "host_slots_error", z->slots_error);
    json_close(w);
}

static void print_row(const ebb_plan_problem *p, const ebb_plan_prediction *r)
{
    const char *name = ebb_config_strategy_name(r->strategy);
    if (!r->fits) {
        printf("  %-12s does not fit: %s\n", name, r->why_not);
        return;
    }
    char tiers[24];
    snprintf(tiers, sizeof tiers, "%s%s%s", ebb_tier_name(r->fast_tier),
             r->slots[r->slow_tier] > 0 && r->slow_tier != r->fast_tier ? "/" : "",
             r->slots[r->slow_tier] > 0 && r->slow_tier != r->fast_tier
                 ? ebb_tier_name(r->slow_tier) : "");
    double ideal = ideal_s(p);
    printf("%c %-12s %-9s %9lld %10.3f %9.3f %9.3f %8.3f %8.3f %5d %5d %5d\n",
           r->best || r->picked ? '*' : ' ', name, tiers, (long long)r->forward_steps,
           r->predicted_s, r->forward_s, r->reverse_s, r->stall_s,
           ideal > 0 ? r->predicted_s / ideal : NAN, r->peak_slots[EBB_TIER_GPU],
           r->peak_slots[EBB_TIER_HOST], r->peak_slots[EBB_TIER_DISK]);
}

static void print_text(const predict_args *a, const ebb_plan_problem *p, const char *source,
                       const ebb_plan_prediction *r, size_t count, int strategy, const sizing *z)
{
    char size[32];
    ebb_format_size(p->state_size, size, sizeof size);
    const char *each = a->step_file ? " (the largest)" : "";
    const char *mean = a->step_file ? " (means of each step's)" : "";
    printf("ebb plan: %lld steps, state %s%s, forward %.3g ms, reverse %.3g ms%s; slots gpu %d, "
           "host %d, disk %d\n",
           (long long)p->steps, size, each, p->forward_s * 1e3, p->reverse_s * 1e3, mean,
           p->slots[EBB_TIER_GPU], p->slots[EBB_TIER_HOST], p->slots[EBB_TIER_DISK]);
    if (p->state_sizes)
        printf("states of different sizes (%s): slots count states of the largest\n",
               a->step_file);
    printf("channels (GB/s):");
    for (int c = 0; c < EBB_PLAN_CHANNEL_COUNT; c++) {
        double bw = p->channel[c].bandwidth;
        if (bw > 0)
            printf(" %s %.3g", ebb_plan_channel_name((ebb_plan_channel_id)c), bw / 1e9);
        else
            printf(" %s inf", ebb_plan_channel_name((ebb_plan_channel_id)c));
    }
    printf(" (disk: %s); step slowdown beside the disk %.3g\n", source, p->step_slowdown);
    if (p->codec.ratio > 0)
        printf("disk states %s: ratio %.3g, a codec thread compresses %.3g GB/s and decompresses "
               "%.3g GB/s (0: no time), %d threads\n",
               ebb_plan_disk_compressed(p) ? "compressed" : "raw (compressing would be slower)",
               p->codec.ratio, p->codec.compress_bps / 1e9, p->codec.decompress_bps / 1e9,
               p->codec.threads > 0 ? (int)p->codec.threads : 2);
    if (p->host_codec.ratio > 0)
        printf("host slots compressed: ratio %.3g, a codec thread compresses %.3g GB/s and "
               "decompresses %.3g GB/s (0: no time), %d threads; a restore waits for it\n",
               p->host_codec.ratio, p->host_codec.compress_bps / 1e9,
               p->host_codec.decompress_bps / 1e9,
               p->host_codec.threads > 0 ? (int)p->host_codec.threads : 2);
    printf("\n");
    printf("  %-12s %-9s %9s %10s %9s %9s %8s %8s %5s %5s %5s\n", "strategy", "tiers", "forward",
           "predicted", "fwd s", "rev s", "stall s", "overhead", "gpu", "host", "disk");
    for (size_t i = 0; i < count; i++)
        print_row(p, &r[i]);
    printf("\npredicted wall time in s; overhead = predicted / (n x (F + B)); gpu, host, disk:\n"
           "peak slots; * the fastest that fits.\n");
    if (z->asked) {
        const char *name = ebb_config_strategy_name((ebb_config_strategy)strategy);
        if (z->bw_ok)
            printf("overhead %g with %s needs a disk bandwidth of at least %.3g GB/s\n", a->target,
                   name, z->bw / 1e9);
        else
            printf("disk bandwidth: %s\n", z->bw_error);
        if (z->slots_ok)
            printf("overhead %g with %s needs at least %d host slot%s (%.3g GiB)\n", a->target,
                   name, z->slots, z->slots == 1 ? "" : "s",
                   (double)z->slots * (double)p->state_size / 1073741824.0);
        else
            printf("host slots: %s\n", z->slots_error);
    }
}

int ebb_cmd_plan_predict(int argc, char **argv)
{
    predict_args a;
    memset(&a, 0, sizeof a);
    a.slots = -1;
    a.disk_slots = a.gpu_slots = -1;
    a.state_tier = EBB_TIER_HOST;
    a.slowdown = -1;
    a.pick.all = 1;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    ebb_plan_problem p;
    const char *source = "none";
    int32_t plain_slots = 0;
    static step_file sf; /* EBB_CHAIN_MAX_STEPS steps: not on the stack */
    if (build_problem(&a, &sf, &p, &source, &plain_slots))
        return 1;
    if (a.ratios.count > 0)
        return plan_sweep_print(&p, a.ratios.v, a.ratios.count, a.json);
    ebb_plan_prediction r[EBB_PLAN_MAX];
    size_t count = 1;
    int best = -1;
    ebb_status st = a.pick.all ? ebb_plan_all(&p, r, &count, &best)
                          : ebb_plan_predict(&p, (ebb_config_strategy)a.pick.strategy, &r[0]);
    if (st != EBB_OK) {
        fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
        return 1;
    }
    int strategy = a.pick.all ? EBB_CONFIG_STRATEGY_AUTO : a.pick.strategy;
    /* compressed host slots: the same with the budget's uncompressed ones */
    ebb_plan_prediction plain;
    plain.fits = 0;
    if (plain_slots > 0) {
        ebb_plan_problem q = p;
        q.host_codec = (ebb_codec_rates){0};
        q.slots[EBB_TIER_HOST] = plain_slots;
        if (ebb_plan_predict(&q, (ebb_config_strategy)strategy, &plain) != EBB_OK) {
            fprintf(stderr, "ebb plan: %s\n", ebb_last_error());
            return 1;
        }
    }
    sizing z;
    size_it(&a, &p, strategy, &z);
    if (!a.json) {
        print_text(&a, &p, source, r, count, strategy, &z);
        if (plain.fits)
            printf("with the budget's %d host slots uncompressed instead: %s predicted %.3f s "
                   "(auto runs the faster)\n",
                   plain_slots, ebb_config_strategy_name(plain.strategy), plain.predicted_s);
        return 0;
    }
    json_writer w;
    if (!a.pick.all) {
        json_begin(&w, stdout);
        json_plan(&w, &p, &r[0]);
    } else {
        /* json.h has no arrays: the brackets and commas are written here */
        fputs("{\"plans\": [", stdout);
        for (size_t i = 0; i < count; i++) {
            fputs(i ? ", " : "", stdout);
            json_begin(&w, stdout);
            json_plan(&w, &p, &r[i]);
            fputc('}', stdout);
        }
        fputc(']', stdout);
        w.out = stdout;
        w.depth = 0;
        w.count[0] = 1;
        json_string(&w, "best", best >= 0 ? ebb_config_strategy_name(r[best].strategy) : "");
    }
    json_context(&w, &p, source);
    json_sizing(&w, &a, strategy, &z);
    if (plain.fits) {
        json_object(&w, "uncompressed_host");
        json_int(&w, "slots", plain_slots);
        json_string(&w, "strategy", ebb_config_strategy_name(plain.strategy));
        json_double(&w, "predicted_s", plain.predicted_s);
        json_close(&w);
    }
    json_end(&w);
    return 0;
}
