/*
 * `ebb bench`: measures the tiers the configuration describes, through ebb's
 * own pools, and what they mean for a forward sweep of a given step time.
 * The measurements are in bench_tiers.c, the --baseline loops in
 * bench_baseline.c, the report in bench_report.c; here the options and the
 * run.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebb/config.h"
#include "ebb/ebb.h"
#include "ebb/storage.h"
#include "tools/bench_cmd.h"
#include "tools/cli.h"
#include "tools/options.h"

static const char bench_help[] =
    "usage: ebb bench [options]\n"
    "\n"
    "Measures the store (write) and load (read) bandwidth of each tier through\n"
    "ebb's own tier code, and with --step-ms what it means for a forward sweep.\n"
    "\n"
    "  --config F         configuration file (default: the embedded default)\n"
    "  --tier T           gpu | host | disk | all (default all: every tier the\n"
    "                     configuration enables; gpu only where a device exists)\n"
    "  --size BYTES       state (slot) size, units allowed: 256MiB, \"8 MiB\"\n"
    "                     (default 256 MiB)\n"
    "  --block BYTES      disk: bytes per request (default tier.disk.block_size)\n"
    "  --depth N          disk: requests in flight (default tier.disk.queue_depth)\n"
    "  --backend B        disk: auto | uring | threads (default tier.disk.backend)\n"
    "  --max-bandwidth R  disk: pace the tier to this rate, reads and writes together:\n"
    "                     \"500 MB/s\", \"2GiB/s\", bytes per second, or none\n"
    "                     (default tier.disk.max_bandwidth; --baseline is not paced)\n"
    "  --total BYTES      bytes moved per measurement and direction (default\n"
    "                     host 4 GiB, disk 8 GiB, gpu 16 GiB; disk within its budget;\n"
    "                     at most 1 PiB)\n"
    "  --step-ms F        step time: compute/transfer ratio of each channel and how\n"
    "                     often a state can be stored to each tier for free\n"
    "  --baseline         also run the plain loops (no ebb code) and compare: for\n"
    "                     the disk tier an io_uring O_DIRECT loop on its directory\n"
    "                     with the same block, depth and bytes; for the gpu tier\n"
    "                     pinned cudaMemcpyAsync of the same size and bytes\n"
    "  --json             print one JSON object on stdout instead of the table\n"
    "  --compression M    measure a codec instead of the tiers (its own options:\n"
    "                     'ebb bench --compression lossless --help')\n"
    "\n"
    "GB/s are 10^9 bytes per second. A progress line goes to stderr when it is a\n"
    "terminal.\n";



/* --block: whole pages, as O_DIRECT wants, up to 1 GiB */
static int block_check(const cli_ctx *ctx, void *field)
{
    uint64_t v = *(uint64_t *)field;
    if (v % 4096 == 0 && v <= (UINT64_C(1) << 30))
        return 0;
    cli_error(ctx, "--block must be a multiple of 4096 bytes, at most 1 GiB, got '%s'",
              ctx->text);
    return -1;
}

/* --backend: auto, uring (or io_uring), threads */
static int backend_check(const cli_ctx *ctx, void *field)
{
    if (ebb_disk_backend_from_name(ctx->text, field) == EBB_OK)
        return 0;
    cli_error(ctx, "--backend must be auto, uring or threads, got '%s'", ctx->text);
    return -1;
}

/* --step-ms: a step takes some time */
static int step_check(const cli_ctx *ctx, void *field)
{
    if (*(double *)field > 0)
        return 0;
    cli_error(ctx, "--step-ms must be a number > 0, got '%s'", ctx->text);
    return -1;
}

enum { ALL_TIERS = TIER_BIT_GPU | TIER_BIT_HOST | TIER_BIT_DISK };
static const cli_name tier_names[] = {{"gpu", TIER_BIT_GPU}, {"host", TIER_BIT_HOST},
                                      {"disk", TIER_BIT_DISK}, {"all", ALL_TIERS}, {NULL, 0}};

#define OPT(n, k, f) CLI_OPT(bench_args, n, k, f)
static const cli_option bench_options[] = {
    {OPT("config", CLI_STRING, config)},
    {OPT("tier", CLI_ENUM, tiers), .names = tier_names},
    {OPT("size", CLI_SIZE, size), .min = 1},
    {OPT("block", CLI_SIZE, block), .min = 4096, .check = block_check},
    {OPT("depth", CLI_INT32, depth), .min = 1, .max = 4096},
    {OPT("backend", CLI_CUSTOM, backend), .check = backend_check},
    /* 1 PiB: hours at any bandwidth, and the byte counts stay far from overflow */
    {OPT("total", CLI_SIZE, total), .min = 1, .max = INT64_C(1) << 50},
    {OPT("step-ms", CLI_DOUBLE, step_ms), .check = step_check},
    {OPT("baseline", CLI_FLAG, baseline)},
    {OPT("json", CLI_FLAG, json)},
    {OPT("max-bandwidth", CLI_RATE, max_bandwidth)},
};
#undef OPT
static const cli_command bench_command = {"bench", bench_help, bench_options,
                                          sizeof bench_options / sizeof *bench_options, 0, NULL};

/* Parses the options into a; returns 0, 1 after --help, or 2 after printing why not. */
static int parse(int argc, char **argv, bench_args *a)
{
    cli_parsed parsed;
    int rc = cli_parse(&bench_command, argc, argv, a, &parsed);
    if (rc != CLI_OK)
        return rc;
    a->tier_all = a->tiers == ALL_TIERS;
    a->backend_set = cli_given(&bench_command, &parsed, "backend");
    a->max_bandwidth_set = cli_given(&bench_command, &parsed, "max-bandwidth");
    return 0;
}

/* ---- the command --------------------------------------------------------------- */

/* The configuration (a->config or the embedded default); 0, or 1 after printing why not. */
static int load_config(const bench_args *a, ebb_config *cfg)
{
    if (ebb_config_init_default(cfg) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s\n", ebb_last_error());
        return 1;
    }
    if (a->config && ebb_config_load_file(a->config, cfg) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s\n", ebb_last_error());
        ebb_config_dispose(cfg);
        return 1;
    }
    return 0;
}

/* The options over the configuration's disk settings. */
static void merge_params(const bench_args *a, const ebb_config *cfg, bench_params *p)
{
    memset(p, 0, sizeof *p);
    p->size = a->size;
    p->block = a->block ? (size_t)a->block : (size_t)cfg->disk.block_size;
    p->depth = a->depth ? a->depth : cfg->disk.queue_depth;
    p->backend = a->backend_set ? a->backend : cfg->disk.backend;
    p->total = a->total;
    p->max_bandwidth = a->max_bandwidth_set ? a->max_bandwidth : cfg->disk.max_bandwidth;
    p->progress = isatty(STDERR_FILENO);
}

/* Which tiers run: those asked for that the configuration enables (a tier
 * asked for by name must be there); the gpu only with a device. 0, or the
 * exit status after printing why not. */
static int choose_tiers(const bench_args *a, const ebb_config *cfg, int *run,
                        char skipped[EBB_TIER_COUNT][256])
{
    static const char *const keys[EBB_TIER_COUNT] = {
        [EBB_TIER_GPU] = "tier.gpu.enabled", [EBB_TIER_HOST] = "tier.host.enabled",
        [EBB_TIER_DISK] = "tier.disk.enabled"};
    int enabled[EBB_TIER_COUNT] = {[EBB_TIER_GPU] = cfg->gpu.enabled,
                                   [EBB_TIER_HOST] = cfg->host.enabled,
                                   [EBB_TIER_DISK] = cfg->disk.enabled};
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if (!(a->tiers & (1 << t)))
            continue;
        if (t == EBB_TIER_GPU && ebb_gpu_count() == 0) {
            /* asked for by name: bench_gpu says why it cannot */
            run[t] = !a->tier_all;
            if (a->tier_all)
                snprintf(skipped[t], 256, "no CUDA device");
        } else if (!enabled[t] && !a->tier_all) {
            fprintf(stderr, "ebb bench: the %s tier is disabled in the configuration (%s = "
                            "false)\n", ebb_tier_name((ebb_tier)t), keys[t]);
            return 1;
        } else if (!enabled[t]) {
            snprintf(skipped[t], 256, "disabled (%s = false)", keys[t]);
        } else {
            run[t] = 1;
        }
    }
    if (a->baseline && !run[EBB_TIER_DISK] && !run[EBB_TIER_GPU]) {
        fprintf(stderr, "ebb bench: --baseline compares the disk tier (with an io_uring loop) "
                        "and the gpu tier (with a cudaMemcpyAsync loop), and this run measures "
                        "neither (use --tier disk, gpu or all)\n");
        return 2;
    }
    if (!run[EBB_TIER_GPU] && !run[EBB_TIER_HOST] && !run[EBB_TIER_DISK]) {
        fprintf(stderr, "ebb bench: no tier to measure: the configuration enables none\n");
        return 1;
    }
    return 0;
}

/* The baseline loop of tier t, when asked for: 0, or -1 after printing why not. */
static int run_baseline(const bench_args *a, const ebb_config *cfg, const bench_params *p,
                        ebb_tier t, baseline_result *base, gpu_baseline_result *gbase)
{
    if (!a->baseline)
        return 0;
    if (t == EBB_TIER_DISK) {
        /* The same bytes as the disk tier will move (its default, or --total). */
        uint64_t total = p->total ? p->total : BENCH_TOTAL_DISK;
        uint64_t bytes = (total + p->size - 1) / p->size * p->size, budget = 0;
        if (ebb_config_budget(cfg, EBB_TIER_DISK, &budget) == EBB_OK && budget < bytes)
            bytes = budget / 4096 * 4096;
        return bench_run_baseline(cfg, p, bytes, base);
    }
    if (t == EBB_TIER_GPU && ebb_gpu_count() > 0)
        return bench_run_gpu_baseline(cfg, p, gbase);
    return 0;
}

/* --compression selects the codec's measurement (bench_codec.c). */
static int wants_codec(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--compression") || !strncmp(argv[i], "--compression=", 14))
            return 1;
    return 0;
}

int ebb_cmd_bench(int argc, char **argv)
{
    if (wants_codec(argc, argv))
        return bench_codec_main(argc, argv);
    bench_args a;
    memset(&a, 0, sizeof a);
    a.tiers = ALL_TIERS;
    a.size = UINT64_C(256) << 20;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    ebb_config cfg;
    if (load_config(&a, &cfg) != 0)
        return 1;
    bench_params p;
    merge_params(&a, &cfg, &p);
    char skipped[EBB_TIER_COUNT][256] = {{0}};
    int run[EBB_TIER_COUNT] = {0};
    rc = choose_tiers(&a, &cfg, run, skipped);

    bench_result res[EBB_TIER_COUNT];
    memset(res, 0, sizeof res);
    baseline_result base;
    memset(&base, 0, sizeof base);
    gpu_baseline_result gbase;
    memset(&gbase, 0, sizeof gbase);
    static int (*const measure[EBB_TIER_COUNT])(const ebb_config *, const bench_params *,
                                                bench_result *) = {
        [EBB_TIER_GPU] = bench_gpu, [EBB_TIER_HOST] = bench_host, [EBB_TIER_DISK] = bench_disk};
    for (int t = 0; t < EBB_TIER_COUNT && rc == 0; t++) {
        if (!run[t])
            continue;
        if (run_baseline(&a, &cfg, &p, (ebb_tier)t, &base, &gbase) != 0) {
            rc = 1;
            break;
        }
        if (measure[t](&cfg, &p, &res[t]) != 0) {
            fprintf(stderr, "ebb bench: %s tier: %s\n", ebb_tier_name((ebb_tier)t), res[t].error);
            rc = 1;
        }
    }
    if (rc == 0 && a.json)
        bench_print_json(&a, &p, res, (const char(*)[256])skipped, &base, &gbase);
    else if (rc == 0)
        bench_print_table(&a, &p, res, (const char(*)[256])skipped, &base, &gbase);
    ebb_config_dispose(&cfg);
    return rc;
}
