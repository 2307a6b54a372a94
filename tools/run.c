/*
 * `ebb run`: runs a synthetic workload (tools/workload.c) through the
 * runtime under one strategy or all of them, and prints what checkpointing
 * cost: forward steps recomputed, wall time against the ideal (every step
 * once, nothing stored), time stalled on transfers, slots used. The gradient
 * (the final adjoint) must be the same under every strategy; with a lossy
 * tier it is not, and each run's error is measured against an exact run
 * (run_exact.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebb/ebb.h"
#include "tools/cli.h"
#include "tools/json.h"
#include "tools/options.h"
#include "tools/run_estimate.h"
#include "tools/run_exact.h"
#include "tools/state_data.h"
#include "tools/workload.h"
#ifdef EBB_HAVE_MPI
#include "tools/run_mpi.h"
#endif

static const char run_help[] =
    "usage: ebb run [options]\n"
    "\n"
    "Runs a synthetic workload forward and in reverse under a checkpointing\n"
    "strategy, over the tiers the configuration describes, and measures what\n"
    "checkpointing costs: recomputed steps, wall time against the ideal (each\n"
    "step once), stalls on transfers, slots used.\n"
    "\n"
    "  --config F         configuration file (default: the embedded default)\n"
    "  --strategy S       auto | store-all | periodic | revolve | online |\n"
    "                     multistage | disk-revolve | h-revolve | async | all\n"
    "                     (default: run.strategy); all runs every strategy that\n"
    "                     fits, then auto, and compares them (auto>X: auto\n"
    "                     picked X)\n"
    "  --steps N          steps (n >= 1, default 100)\n"
    "  --slots C          slots in the fast tier (default: as its budget holds)\n"
    "  --disk-slots D     slots in the slow tier (default: as its budget holds)\n"
    "  --period K         periodic: store every K-th state; disk-revolve: the period\n"
    "  --io-ratio R       disk-revolve: (write + read time of a state) / step time\n"
    "  --state-size B     bytes of a state, units allowed: 16MiB (default 16 MiB)\n"
    "  --forward-ms F     compute time of a forward step, 0 to 3600000 (default 0:\n"
    "                     one pass over the state)\n"
    "  --reverse-ms B     compute time of a reverse step, 0 to 3600000 (default 0: a\n"
    "                     hash of it)\n"
    "  --audit            check every action and hash every state (run.audit = hash)\n"
    "  --inplace          use the in-place forward form\n"
    "  --json             print one JSON object on stdout ({\"runs\": [...]} with all)\n"
    "  --trace FILE       write the timeline (Chrome trace-event JSON: open it in\n"
    "                     Perfetto); with all, one file per strategy: FILE.<strategy>.\n"
    "                     FILE (absent, or a regular file: not a link) is replaced\n"
    "                     when the run ends, and left as it was if the run fails,\n"
    "                     is interrupted or a write fails\n"
    "  --seed S           x_0's seed (default 0); with --mpi rank r uses S + r\n"
    "  --data D           what the states hold: random (default: pseudo-random bytes),\n"
    "                     smooth (a smooth field), sparse (95 %% zeros) or rough\n"
    "                     (uniform values, no two neighbours alike: lossless\n"
    "                     compression barely shrinks them), for compression\n"
    "                     (tier.disk.compression); smooth, sparse and rough\n"
    "                     states are arrays of --element values\n"
    "  --element E        float64 (default) or float32, with --data smooth|sparse|rough\n"
    "  --no-exact         with a lossy tier (tier.host.compression or\n"
    "                     tier.disk.compression fixed-rate, fixed-precision or\n"
    "                     fixed-accuracy): skip the exact run, the gradient's\n"
    "                     relative error is then not measured\n"
    "  --error-samples K  keep exact copies of K states of the first sweep and compare\n"
    "                     the reverse sweep's states with them: the lossy error\n"
    "                     estimate, printed beside the gradient relative error\n"
    "                     (default: run.error_samples; 0: off)\n"
    "  --mpi              under mpirun: every rank runs the workload with its own x_0\n"
    "                     and configuration (mpirun's MPMD form: -np 1 ebb run --mpi\n"
    "                     --config a.toml : -np 3 ebb run --mpi --config b.toml), the\n"
    "                     schedule decisions agreed; rank 0 prints each rank's action\n"
    "                     hash, gradient, wall and stall times (one JSON object with\n"
    "                     --json). Not with all. Needs ebb built with MPI.\n"
    "  --fail-at-step K   tests: the forward step K fails (a callback error)\n"
    "  --fail-rank R      with --mpi and --fail-at-step: only rank R fails (default 0)\n"
    "\n"
    "A strategy the fast tier is too small for (its budget, or --slots C) is retried\n"
    "with its slots on disk. The gradient is a hash of every state the reverse steps\n"
    "saw, in order: equal gradients mean every strategy gave each reverse step its\n"
    "exact state.\n"
    "With a lossy tier the states come back changed, and with float --data\n"
    "the run also computes a numeric gradient (of 1/2 sum |x_i|^2 with respect to\n"
    "x_0), then runs the same workload once more with compression off on every\n"
    "tier (the exact run: the same strategy, or the first of all's order that fits\n"
    "uncompressed) and prints the gradient relative error |g - g_exact| / |g_exact|\n"
    "(--json: gradient_rel_error; 0 without a lossy tier). Lossy needs --data\n"
    "smooth|sparse|rough, and --no-exact with --mpi.\n"
    "On a terminal a progress line goes to stderr, rewritten in place; to a file or\n"
    "a pipe, a plain line every 10 s of a long run (none from a short one).\n";

typedef struct run_args {
    const char *config;
    cli_strategy pick; /* strategy -1: the configuration's */
    int64_t steps;
    int32_t slots, disk_slots;
    int64_t period;
    double io_ratio;
    uint64_t state_size;
    double forward_ms, reverse_ms;
    int audit, inplace, json;
    const char *trace;
    int64_t seed;
    int mpi;
    int32_t fail_rank;
    int64_t fail_step;
    int data, element; /* --data (a state_data), --element (an ebb_element) */
    int no_exact;
    int32_t error_samples; /* -1: run.error_samples */
} run_args;

static const cli_name data_names[] = {{"random", STATE_DATA_RANDOM},
                                      {"smooth", STATE_DATA_SMOOTH},
                                      {"sparse", STATE_DATA_SPARSE},
                                      {"rough", STATE_DATA_ROUGH}, {NULL, 0}};
static const cli_name element_names[] = {{"float32", EBB_ELEMENT_FLOAT32},
                                         {"float64", EBB_ELEMENT_FLOAT64}, {NULL, 0}};

#define OPT(n, k, f) CLI_OPT(run_args, n, k, f)
static const cli_option run_options[] = {
    {OPT("config", CLI_STRING, config)},
    {OPT("strategy", CLI_STRATEGY, pick), .hint = " (or \"all\" for every one)"},
    {OPT("steps", CLI_INT64, steps), .min = 1, .max = INT64_MAX / 4},
    {OPT("slots", CLI_INT32, slots), .min = 1, .max = INT32_MAX},
    {OPT("disk-slots", CLI_INT32, disk_slots), .min = 1, .max = INT32_MAX},
    {OPT("period", CLI_INT64, period), .min = 1, .max = INT64_MAX / 4},
    {OPT("io-ratio", CLI_DOUBLE, io_ratio)},
    /* the workload's buffers hold a few states, sizes in size_t */
    {OPT("state-size", CLI_SIZE, state_size), .min = 1, .max = INT64_MAX},
    {OPT("forward-ms", CLI_DOUBLE, forward_ms), .most = CLI_STEP_MS_MAX},
    {OPT("reverse-ms", CLI_DOUBLE, reverse_ms), .most = CLI_STEP_MS_MAX},
    {OPT("audit", CLI_FLAG, audit), .value = EBB_AUDIT_HASH},
    {OPT("inplace", CLI_FLAG, inplace)},
    {OPT("json", CLI_FLAG, json)},
    {OPT("trace", CLI_STRING, trace)},
    {OPT("seed", CLI_INT64, seed), .min = 0, .max = INT64_MAX / 2},
    {OPT("mpi", CLI_FLAG, mpi)},
    {OPT("fail-at-step", CLI_INT64, fail_step), .min = 0, .max = INT64_MAX / 4},
    {OPT("fail-rank", CLI_INT32, fail_rank), .min = 0, .max = INT32_MAX},
    {OPT("data", CLI_ENUM, data), .names = data_names},
    {OPT("element", CLI_ENUM, element), .names = element_names},
    {OPT("no-exact", CLI_FLAG, no_exact)},
    {OPT("error-samples", CLI_INT32, error_samples), .min = 0, .max = EBB_ERROR_SAMPLES_MAX},
};
#undef OPT
static const cli_command run_command = {"run", run_help, run_options,
                                        sizeof run_options / sizeof *run_options, 0, NULL};

/* ---- figures ------------------------------------------------------------------- */

/* steps x (mean forward step + mean reverse step), as measured in the run. */
static double ideal_s(const workload_result *r)
{
    const ebb_run_stats *st = &r->stats;
    double f = st->forward_steps > 0 ? st->forward_callback_s / (double)st->forward_steps : NAN;
    double b = st->reverse_steps > 0 ? st->reverse_callback_s / (double)st->reverse_steps : NAN;
    return (double)st->steps * (f + b);
}

static double ratio(double a, double b) { return b > 0 ? a / b : NAN; }

static const char *tier_str(int t) { return t >= 0 && t < EBB_TIER_COUNT ? ebb_tier_name((ebb_tier)t) : "none"; }

static char *hex64(uint64_t v, char buf[17])
{
    snprintf(buf, 17, "%016llx", (unsigned long long)v);
    return buf;
}

/* ---- output ------------------------------------------------------------------ */

static void json_tiers_i32(json_writer *w, const char *key, const int32_t *v)
{
    json_object(w, key);
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), v[t]);
    json_close(w);
}

static void json_tiers_u64(json_writer *w, const char *key, const uint64_t *v)
{
    json_object(w, key);
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), (int64_t)v[t]);
    json_close(w);
}

/* The members of one run's object. */
static void json_run(json_writer *w, const workload_plan *p, const workload_result *r,
                     double error)
{
    json_string(w, "strategy", r->strategy);
    if (!r->ran) {
        json_string(w, "asked", r->asked);
        json_string(w, "skipped", r->error);
        return;
    }
    const ebb_run_stats *st = &r->stats;
    const ebb_run_info *in = &r->info;
    char hex[17];
    json_int(w, "steps", st->steps);
    json_int(w, "state_size", (int64_t)p->size);
    json_int(w, "forward_steps", st->forward_steps);
    json_int(w, "recomputed_steps", st->recomputed_steps);
    json_int(w, "reverse_steps", st->reverse_steps);
    json_double(w, "wall_s", st->wall_s);
    json_double(w, "forward_sweep_s", st->forward_sweep_s);
    json_double(w, "reverse_sweep_s", st->reverse_sweep_s);
    json_double(w, "forward_callback_s", st->forward_callback_s);
    json_double(w, "reverse_callback_s", st->reverse_callback_s);
    json_double(w, "first_sweep_callback_s", r->first_sweep_callback_s);
    json_int(w, "first_sweep_forward_steps", r->first_sweep_steps);
    json_double(w, "forward_sweep_over_callbacks",
                ratio(st->forward_sweep_s, r->first_sweep_callback_s));
    json_double(w, "ideal_s", ideal_s(r));
    json_double(w, "overhead", ratio(st->wall_s, ideal_s(r)));
    json_double(w, "stall_s", st->stall_total_s);
    json_object(w, "stall_tier_s");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_double(w, ebb_tier_name((ebb_tier)t), st->stall_s[t]);
    json_close(w);
    /* tier.*.compression: the sums over the tiers, then per tier (0 when off) */
    json_int(w, "bytes_before_compression", (int64_t)st->bytes_before_compression);
    json_int(w, "bytes_after_compression", (int64_t)st->bytes_after_compression);
    json_int(w, "stored_raw", st->stored_raw);
    json_double(w, "codec_s", st->codec_s);
    json_int(w, "stored_raw_slower", st->stored_raw_slower);
    json_double(w, "codec_ratio", st->codec_ratio);
    json_double(w, "compress_Bps", st->compress_bps);
    json_double(w, "decompress_Bps", st->decompress_bps);
    json_tiers_u64(w, "bytes_before_compression_tier", st->bytes_before_compression_tier);
    json_tiers_u64(w, "bytes_after_compression_tier", st->bytes_after_compression_tier);
    json_object(w, "compression_ratio_tier");
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        double after = (double)st->bytes_after_compression_tier[t];
        json_double(w, ebb_tier_name((ebb_tier)t),
                    after > 0 ? (double)st->bytes_before_compression_tier[t] / after : 0.0);
    }
    json_close(w);
    json_object(w, "codec_s_tier");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_double(w, ebb_tier_name((ebb_tier)t), st->codec_s_tier[t]);
    json_close(w);
    json_object(w, "compressions");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), st->compressions[t]);
    json_close(w);
    json_object(w, "decompressions");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), st->decompressions[t]);
    json_close(w);
    /* tier.host.compression's codec threads: 0 when off */
    json_double(w, "host_compress_Bps", st->host_compress_bps);
    json_double(w, "host_decompress_Bps", st->host_decompress_bps);
    json_int(w, "copies", st->copies);
    json_double(w, "copy_s", st->copy_s);
    json_string(w, "gradient", hex64(r->gradient, hex));
    json_double(w, "gradient_rel_error", error); /* null: not measured */
    run_estimate_json(w, &r->info, st);
    json_string(w, "asked", r->asked);
    json_string(w, "reason", r->reason);
    json_string(w, "fast_tier", tier_str(in->fast_tier));
    json_string(w, "slow_tier", tier_str(in->slow_tier));
    json_bool(w, "fast_tier_on_disk_retry", r->on_disk);
    json_tiers_i32(w, "slots", in->slots);
    json_tiers_i32(w, "buffers", in->buffers);
    json_tiers_u64(w, "bytes_reserved", in->bytes);
    json_tiers_i32(w, "peak_slots", st->peak_slots);
    json_object(w, "stores");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), st->stores[t]);
    json_close(w);
    json_object(w, "restores");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        json_int(w, ebb_tier_name((ebb_tier)t), st->restores[t]);
    json_close(w);
    json_tiers_u64(w, "bytes_written", st->bytes_written);
    json_tiers_u64(w, "bytes_read", st->bytes_read);
    json_string(w, "audit", ebb_audit_name(in->audit));
    json_bool(w, "inplace", in->inplace);
    json_int(w, "forward_passes", p->forward_passes);
    json_int(w, "reverse_passes", p->reverse_passes);
    json_double(w, "pass_s", p->pass_s);
    json_string(w, "warnings", r->warnings);
}

static void print_json(const run_args *a, const workload_plan *p, const workload_result *res,
                       int count, int equal, const run_exact *x, const double *error)
{
    json_writer w;
    if (!a->pick.all) {
        json_begin(&w, stdout);
        json_run(&w, p, &res[0], error[0]);
        if (res[0].ran)
            run_exact_json(&w, x);
        json_end(&w);
        return;
    }
    /* json.h has no arrays: the array's brackets and commas are written here. */
    fputs("{\"runs\": [", stdout);
    for (int i = 0; i < count; i++) {
        if (i)
            fputs(", ", stdout);
        json_begin(&w, stdout);
        json_run(&w, p, &res[i], error[i]);
        fputc('}', stdout);
    }
    printf("], \"gradients_equal\": %s", equal ? "true" : "false");
    /* the exact run's members, in the top-level object */
    w.out = stdout;
    w.depth = 0;
    w.count[0] = 1; /* after gradients_equal */
    run_exact_json(&w, x);
    fputs("}\n", stdout);
}

/* A run's compression, a line per tier that compressed (and their sums
 * when both did). */
static void print_compression(const workload_result *r)
{
    const ebb_run_stats *st = &r->stats;
    const uint64_t *before = st->bytes_before_compression_tier;
    const uint64_t *after = st->bytes_after_compression_tier;
    if (before[EBB_TIER_HOST] > 0)
        printf("%s: compressed %.1f MB to %.1f MB in host slots (fixed rate, ratio %.3f), "
               "%lld compressions and %lld decompressions, %.3f s in the codec threads; "
               "measured: a thread compresses %.3g GB/s, decompresses %.3g GB/s\n",
               r->strategy, (double)before[EBB_TIER_HOST] / 1e6,
               (double)after[EBB_TIER_HOST] / 1e6,
               ratio((double)before[EBB_TIER_HOST], (double)after[EBB_TIER_HOST]),
               (long long)st->compressions[EBB_TIER_HOST],
               (long long)st->decompressions[EBB_TIER_HOST], st->codec_s_tier[EBB_TIER_HOST],
               st->host_compress_bps / 1e9, st->host_decompress_bps / 1e9);
    if (before[EBB_TIER_DISK] > 0)
        printf("%s: compressed %.1f MB to %.1f MB on disk (ratio %.3f), %lld of the states "
               "stored raw (%lld because compressing would have been slower), %lld "
               "compressions and %lld decompressions, %.3f s in the codec threads; measured: "
               "ratio %.3f, a thread compresses %.3g GB/s, decompresses %.3g GB/s\n",
               r->strategy, (double)before[EBB_TIER_DISK] / 1e6,
               (double)after[EBB_TIER_DISK] / 1e6,
               ratio((double)before[EBB_TIER_DISK], (double)after[EBB_TIER_DISK]),
               (long long)st->stored_raw, (long long)st->stored_raw_slower,
               (long long)st->compressions[EBB_TIER_DISK],
               (long long)st->decompressions[EBB_TIER_DISK], st->codec_s_tier[EBB_TIER_DISK],
               st->codec_ratio, st->compress_bps / 1e9, st->decompress_bps / 1e9);
    if (before[EBB_TIER_HOST] > 0 && before[EBB_TIER_DISK] > 0)
        printf("%s: compressed %.1f MB to %.1f MB in all (ratio %.3f), %.3f s in the codec "
               "threads\n",
               r->strategy, (double)st->bytes_before_compression / 1e6,
               (double)st->bytes_after_compression / 1e6,
               ratio((double)st->bytes_before_compression, (double)st->bytes_after_compression),
               st->codec_s);
}

static void print_table(const run_args *a, const workload_plan *p, const workload_result *res,
                        int count, int ran, int equal, const run_exact *x)
{
    char size[32], hex[17];
    ebb_format_size(p->size, size, sizeof size);
    const workload_result *any = NULL;
    for (int i = 0; i < count && !any; i++)
        any = res[i].ran ? &res[i] : NULL;
    if (strspn(size, "0123456789") == strlen(size))
        snprintf(size + strlen(size), sizeof size - strlen(size), " bytes");
    /* the step times asked, else what the passes over the state take */
    double fwd_ms = p->forward_s > 0 ? p->forward_s * 1e3
                                     : (double)p->forward_passes * p->pass_s * 1e3;
    double rev_ms = p->reverse_s > 0 ? p->reverse_s * 1e3
                                     : (double)(p->reverse_passes + 1) * p->pass_s * 1e3;
    printf("ebb run: %lld steps, state %s; forward step %.3g ms, reverse step %.3g ms; "
           "audit %s%s\n\n",
           (long long)p->steps, size, fwd_ms, rev_ms,
           any ? ebb_audit_name(any->info.audit) : "?", a->inplace ? "; in-place forward" : "");
    printf("%-17s %-9s %8s %10s %9s %8s %8s %7s %5s %5s %5s  %s\n", "strategy", "tiers",
           "forward", "recomputed", "wall s", "overhead", "stall s", "fwd/cb", "gpu", "host",
           "disk", "gradient");
    for (int i = 0; i < count; i++) {
        const workload_result *r = &res[i];
        if (!r->ran) {
            printf("%-17s skipped: %s\n", r->strategy, r->error);
            continue;
        }
        const ebb_run_stats *st = &r->stats;
        char tiers[32];
        /* the slow tier where the run has slots there (as ebb plan's table) */
        int slow = r->info.slow_tier >= 0 && r->info.slow_tier < EBB_TIER_COUNT &&
                   r->info.slow_tier != r->info.fast_tier && r->info.slots[r->info.slow_tier] > 0;
        snprintf(tiers, sizeof tiers, "%s%s%s", tier_str(r->info.fast_tier), slow ? "/" : "",
                 slow ? tier_str(r->info.slow_tier) : "");
        char name[64]; /* auto: what it picked */
        snprintf(name, sizeof name, "%s%s%s", strcmp(r->asked, r->strategy) ? r->asked : "",
                 strcmp(r->asked, r->strategy) ? ">" : "", r->strategy);
        printf("%-17s %-9s %8lld %10lld %9.3f %8.3f %8.3f %7.3f %5d %5d %5d  %s\n", name, tiers, (long long)st->forward_steps, (long long)st->recomputed_steps, st->wall_s,
               ratio(st->wall_s, ideal_s(r)), st->stall_total_s,
               ratio(st->forward_sweep_s, r->first_sweep_callback_s),
               (int)st->peak_slots[EBB_TIER_GPU], (int)st->peak_slots[EBB_TIER_HOST],
               (int)st->peak_slots[EBB_TIER_DISK], hex64(r->gradient, hex));
    }
    printf("\noverhead: wall time / (steps x (mean forward + mean reverse step)); fwd/cb: forward\n"
           "sweep / its forward steps' compute; gpu, host, disk: peak slots in use.\n");
    for (int i = 0; i < count; i++)
        if (res[i].ran && strcmp(res[i].asked, "auto") == 0)
            printf("%s\n", res[i].reason);
    for (int i = 0; i < count; i++)
        if (res[i].ran && res[i].on_disk)
            printf("%s: slots on disk, as the fast tier could not hold them: %s\n",
                   res[i].strategy, res[i].on_disk_why);
    for (int i = 0; i < count; i++)
        if (res[i].ran)
            print_compression(&res[i]);
    /* The pools' warnings, once for the runs that share them. */
    for (int i = 0; i < count; i++) {
        if (!res[i].ran || !res[i].warnings[0])
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = res[j].ran && strcmp(res[j].warnings, res[i].warnings) == 0;
        if (seen)
            continue;
        printf("warnings (");
        for (int j = i, k = 0; j < count; j++)
            if (res[j].ran && strcmp(res[j].warnings, res[i].warnings) == 0)
                printf("%s%s", k++ ? ", " : "", res[j].asked); /* each run once */
        printf("): %s\n", res[i].warnings);
    }
    if (a->pick.all && ran > 1)
        printf("gradients: %s\n", equal ? "all equal"
                                   : x->ran ? "differ (lossy: their relative errors below)"
                                   : x->key ? "differ (lossy)"
                                            : "DIFFER");
}

/* The disk tier's "... or lower tier.disk.budget" where --disk-slots D, not
 * the budget, set how many slots it has: the flag is the one to lower. */
static void name_disk_slots(char *error, size_t len, int32_t disk_slots)
{
    static const char budget[] = "lower tier.disk.budget";
    char *at = strstr(error, budget);
    if (!at || disk_slots <= 0)
        return;
    char tail[512];
    snprintf(tail, sizeof tail, "lower --disk-slots %d (the slots it asked for, whatever "
             "tier.disk.budget holds)%s", (int)disk_slots, at + sizeof budget - 1);
    snprintf(at, len - (size_t)(at - error), "%s", tail);
}

/* ---- the command --------------------------------------------------------------- */

static const int every_strategy[] = {
    EBB_CONFIG_STRATEGY_STORE_ALL,  EBB_CONFIG_STRATEGY_PERIODIC,     EBB_CONFIG_STRATEGY_REVOLVE,
    EBB_CONFIG_STRATEGY_ONLINE,     EBB_CONFIG_STRATEGY_MULTISTAGE,   EBB_CONFIG_STRATEGY_DISK_REVOLVE,
    EBB_CONFIG_STRATEGY_H_REVOLVE,  EBB_CONFIG_STRATEGY_ASYNC,        EBB_CONFIG_STRATEGY_AUTO};
enum { MAX_RUNS = sizeof every_strategy / sizeof *every_strategy };

/* Parses the options into a; returns 0, 1 after --help, or 2 after printing why not. */
static int parse(int argc, char **argv, run_args *a, int *fail)
{
    cli_parsed parsed;
    int rc = cli_parse(&run_command, argc, argv, a, &parsed);
    if (rc != CLI_OK)
        return rc;
    *fail = cli_given(&run_command, &parsed, "fail-at-step");
#ifndef EBB_HAVE_MPI
    if (a->mpi) {
        fprintf(stderr, "ebb run: --mpi: this ebb was built without MPI; install Open MPI "
                        "(Debian: libopenmpi-dev) and rebuild, or set EBB_WITH_MPI=ON to make "
                        "its absence an error\n");
        return 2;
    }
#else
    if (a->mpi && a->pick.all) {
        fprintf(stderr, "ebb run: --mpi runs one strategy, not all\n");
        return 2;
    }
#endif
    return 0;
}

/* The configuration (a->config or the embedded default), checked for states
 * of --state-size on this machine; 0, or 1 after printing why not. */
static int load_config(const run_args *a, ebb_config *cfg)
{
    if (ebb_config_init_default(cfg) != EBB_OK) {
        fprintf(stderr, "ebb run: %s\n", ebb_last_error());
        return 1;
    }
    /* what the machine cannot hold (a budget above its memory, a GPU tier
     * without a device) is refused as `ebb demo` refuses it */
    if ((a->config && ebb_config_load_file(a->config, cfg) != EBB_OK) ||
        ebb_config_check(cfg, (size_t)a->state_size) != EBB_OK) {
        fprintf(stderr, "ebb run: %s\n", ebb_last_error());
        ebb_config_dispose(cfg);
        return 1;
    }
    return 0;
}

/* A lossy tier needs float states, whose numeric gradient the exact run
 * measures, and --mpi (which makes no exact run) needs --no-exact with it;
 * 0, or 1 after printing why not. */
static int check_lossy(const run_args *a, const ebb_config *cfg)
{
    run_exact x;
    run_exact_init(&x, cfg, a->no_exact);
    if (!x.key)
        return 0;
    if (a->data == STATE_DATA_RANDOM) {
        fprintf(stderr, "ebb run: --data random with %s = \"%s\" (%s): a lossy code is for "
                "float values, and random bytes are none (nor is there a gradient whose error "
                "could be measured); use --data smooth or --data sparse\n",
                x.key, x.mode, a->config ? a->config : "the configuration");
        return 1;
    }
    if (a->mpi && x.measure) {
        fprintf(stderr, "ebb run: --mpi with %s = \"%s\" (%s): --mpi makes no exact run, so "
                "the gradient's error against one would not be measured; add --no-exact to "
                "run without it, or run without --mpi\n",
                x.key, x.mode, a->config ? a->config : "the configuration");
        return 1;
    }
    return 0;
}

/* workload_run with its timeline in `trace` (NULL: none): the library writes
 * it (runtime/trace.h: FILE replaced only by a complete timeline). */
static int run_traced(const workload_plan *plan, workload_request *req, const char *trace,
                      workload_result *r)
{
    req->trace = trace;
    int out = workload_run(plan, req, r);
    req->trace = NULL;
    return out;
}

/* Runs each strategy asked for into res; the exit status (0: at least one
 * ran). */
static int run_each(const run_args *a, const workload_plan *plan, workload_request *req,
                    workload_result *res, int count, int *ran)
{
    for (int i = 0; i < count; i++) {
        char trace[4096];
        if (a->pick.all)
            req->strategy = every_strategy[i];
        const char *path = a->trace;
        if (a->trace && a->pick.all) {
            snprintf(trace, sizeof trace, "%s.%s", a->trace,
                     ebb_config_strategy_name((ebb_config_strategy)req->strategy));
            path = trace;
        }
        int out = run_traced(plan, req, path, &res[i]);
        if (out == WORKLOAD_OK) {
            (*ran)++;
            continue;
        }
        name_disk_slots(res[i].error, sizeof res[i].error, a->disk_slots);
        fprintf(stderr, "ebb run: %s: %s%s\n", res[i].strategy,
                out == WORKLOAD_SKIPPED && a->pick.all ? "skipped: " : "", res[i].error);
        if (out == WORKLOAD_FAILED || !a->pick.all)
            return 1;
    }
    if (*ran == 0) {
        fprintf(stderr, "ebb run: no strategy fits: give more slots (--slots, --disk-slots) or "
                        "larger budgets in the configuration\n");
        return 1;
    }
    return 0;
}

/* Whether every run that ran reached the same gradient. */
static int gradients_equal(const workload_result *res, int count)
{
    const workload_result *first = NULL;
    for (int i = 0; i < count; i++) {
        if (!res[i].ran)
            continue;
        if (first && res[i].gradient != first->gradient)
            return 0;
        if (!first)
            first = &res[i];
    }
    return 1;
}

/* Runs (then, with a lossy tier, the exact run, so that a run refused is
 * refused at once), compares and prints; the exit status. */
static int run_and_report(const run_args *a, const workload_plan *plan, workload_request *req)
{
    workload_result res[MAX_RUNS];
    double error[MAX_RUNS];
    int count = a->pick.all ? MAX_RUNS : 1, ran = 0;
    memset(res, 0, sizeof res); /* no numeric gradients to free yet */
    run_exact x;
    run_exact_init(&x, req->config, a->no_exact);
    req->field_gradient = x.measure;
    int rc = run_each(a, plan, req, res, count, &ran);
    if (a->pick.all) /* all: one exact run, with the configuration's strategy first */
        req->strategy = -1;
    char err[2048];
    if (rc == 0 && x.measure &&
        run_exact_run(&x, req->config, plan, req, every_strategy, MAX_RUNS, err,
                      sizeof err) != 0) {
        fprintf(stderr, "ebb run: %s\n", err);
        rc = 1;
    }
    for (int i = 0; i < count; i++) /* and frees the numeric gradients */
        error[i] = run_exact_error(&x, &res[i]);
    if (rc != 0) {
        run_exact_free(&x);
        return 1;
    }
    int equal = gradients_equal(res, count);
    if (a->json) {
        print_json(a, plan, res, count, equal, &x, error);
    } else {
        print_table(a, plan, res, count, ran, equal, &x);
        run_exact_print(&x, req->config, res, error, count);
        run_estimate_print(res, count);
    }
    run_exact_free(&x);
    /* lossy runs differ by their errors, printed above */
    if (!equal && !x.key) {
        fprintf(stderr, "ebb run: the gradients differ between strategies: some reverse step was "
                        "given a wrong state (an engine bug; rerun with --audit to find it)\n");
        return 1;
    }
    return 0;
}

#ifdef EBB_HAVE_MPI
/* `--mpi`: one strategy on every rank, rank 0 reporting; the exit status. MPI
 * starts once this rank's own arguments are known good. */
static int run_on_ranks(const run_args *a, const workload_plan *plan, workload_request *req)
{
    char rank_trace[4096];
    int rank = 0, ranks = 1;
    run_mpi *mpi = run_mpi_begin(&rank, &ranks);
    if (!mpi)
        return 1;
    req->seed = (uint64_t)a->seed + (uint64_t)rank;
    req->fail = req->fail && a->fail_rank == rank;
    req->progress = 0;
    run_mpi_request(mpi, req);
    req->trace = NULL;
    if (a->trace) /* one timeline per rank */
        snprintf(rank_trace, sizeof rank_trace, "%s.%d", a->trace, rank);
    workload_result res;
    int out = run_traced(plan, req, a->trace ? rank_trace : NULL, &res);
    return run_mpi_end(mpi, plan, req, &res, out, a->json);
}
#endif

int ebb_cmd_run(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    a.pick.strategy = -1;
    a.steps = 100;
    a.state_size = UINT64_C(16) << 20;
    a.audit = -1;
    a.data = STATE_DATA_RANDOM;
    a.element = EBB_ELEMENT_FLOAT64;
    a.error_samples = -1;
    int fail = 0;
    int rc = parse(argc, argv, &a, &fail);
    if (rc)
        return rc == 1 ? 0 : rc;
    ebb_config cfg;
    if (load_config(&a, &cfg) != 0)
        return 1;
    if (check_lossy(&a, &cfg) != 0) {
        ebb_config_dispose(&cfg);
        return 2;
    }
    workload_plan plan;
    char err[256];
    if (workload_calibrate((size_t)a.state_size, a.steps, a.forward_ms, a.reverse_ms, a.data,
                           a.element, &plan, err, sizeof err) != 0) {
        fprintf(stderr, "ebb run: %s\n", err);
        ebb_config_dispose(&cfg);
        return 1;
    }
    workload_request req = {
        .config = &cfg, .strategy = a.pick.strategy, .slots = a.slots,
        .slow_slots = a.disk_slots, .period = a.period, .io_ratio = a.io_ratio,
        .audit = a.audit, .inplace = a.inplace, .progress = isatty(STDERR_FILENO) ? 1 : 2,
        .seed = (uint64_t)a.seed, .fail = fail, .fail_step = a.fail_step,
        .error_samples = a.error_samples};
#ifdef EBB_HAVE_MPI
    if (a.mpi)
        rc = run_on_ranks(&a, &plan, &req);
    else
#endif
        rc = run_and_report(&a, &plan, &req);
    ebb_config_dispose(&cfg);
    return rc;
}
