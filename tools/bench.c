/*
 * `ebb bench`: measures the tiers the configuration describes, through ebb's
 * own pools, and what they mean for a forward sweep of a given step time.
 * The measurements are in bench_tiers.c, the --baseline loops in
 * bench_baseline.c, the report in bench_report.c; here the options and the
 * run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebb/config.h"
#include "ebb/ebb.h"
#include "ebb/storage.h"
#include "tools/bench_cmd.h"
#include "tools/cli.h"

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
    "                     host 4 GiB, disk 8 GiB, gpu 16 GiB; disk within its budget)\n"
    "  --step-ms F        step time: compute/transfer ratio of each channel and how\n"
    "                     often a state can be stored to each tier for free\n"
    "  --baseline         also run the plain loops (no ebb code) and compare: for\n"
    "                     the disk tier an io_uring O_DIRECT loop on its directory\n"
    "                     with the same block, depth and bytes; for the gpu tier\n"
    "                     pinned cudaMemcpyAsync of the same size and bytes\n"
    "  --json             print one JSON object on stdout instead of the table\n"
    "\n"
    "GB/s are 10^9 bytes per second. A progress line goes to stderr when it is a\n"
    "terminal.\n";



/* Parses a size option; 0 or 2 after printing why not. */
static int parse_size_opt(const char *option, const char *text, uint64_t min, uint64_t *out)
{
    uint64_t v;
    if (ebb_parse_size(text, &v) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s: %s\n", option, ebb_last_error());
        return 2;
    }
    if (v < min) {
        fprintf(stderr, "ebb bench: %s must be at least %llu byte%s, got '%s'\n", option,
                (unsigned long long)min, min == 1 ? "" : "s", text);
        return 2;
    }
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, bench_args *a)
{
    enum { O_CONFIG = 256, O_TIER, O_SIZE, O_BLOCK, O_DEPTH, O_BACKEND, O_TOTAL, O_STEP,
           O_BASELINE, O_JSON, O_HELP, O_MAX_BW };
    static const struct option longopts[] = {
        {"config", required_argument, 0, O_CONFIG}, {"tier", required_argument, 0, O_TIER},
        {"size", required_argument, 0, O_SIZE},     {"block", required_argument, 0, O_BLOCK},
        {"depth", required_argument, 0, O_DEPTH},   {"backend", required_argument, 0, O_BACKEND},
        {"total", required_argument, 0, O_TOTAL},   {"step-ms", required_argument, 0, O_STEP},
        {"baseline", no_argument, 0, O_BASELINE},   {"json", no_argument, 0, O_JSON},
        {"help", no_argument, 0, O_HELP},
        {"max-bandwidth", required_argument, 0, O_MAX_BW}, {0, 0, 0, 0}};
    int c;
    int64_t v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_CONFIG: a->config = optarg; break;
        case O_TIER:
            if (strcmp(optarg, "gpu") == 0)
                a->tiers = TIER_BIT_GPU, a->tier_all = 0;
            else if (strcmp(optarg, "host") == 0)
                a->tiers = TIER_BIT_HOST, a->tier_all = 0;
            else if (strcmp(optarg, "disk") == 0)
                a->tiers = TIER_BIT_DISK, a->tier_all = 0;
            else if (strcmp(optarg, "all") == 0)
                a->tiers = TIER_BIT_GPU | TIER_BIT_HOST | TIER_BIT_DISK, a->tier_all = 1;
            else {
                fprintf(stderr, "ebb bench: --tier must be gpu, host, disk or all, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_SIZE:
            if (parse_size_opt("--size", optarg, 1, &a->size))
                return 2;
            break;
        case O_BLOCK:
            if (parse_size_opt("--block", optarg, 4096, &a->block))
                return 2;
            if (a->block % 4096 || a->block > (UINT64_C(1) << 30)) {
                fprintf(stderr,
                        "ebb bench: --block must be a multiple of 4096 bytes, at most 1 GiB, "
                        "got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_DEPTH:
            if (cli_parse_int("bench", "--depth", optarg, 1, 4096, &v))
                return 2;
            a->depth = (int32_t)v;
            break;
        case O_BACKEND:
            if (ebb_disk_backend_from_name(optarg, &a->backend) != EBB_OK) {
                fprintf(stderr, "ebb bench: --backend must be auto, uring or threads, got '%s'\n",
                        optarg);
                return 2;
            }
            a->backend_set = 1;
            break;
        case O_TOTAL:
            if (parse_size_opt("--total", optarg, 1, &a->total))
                return 2;
            break;
        case O_MAX_BW:
            if (ebb_parse_rate(optarg, &a->max_bandwidth) != EBB_OK) {
                fprintf(stderr, "ebb bench: --max-bandwidth: %s\n", ebb_last_error());
                return 2;
            }
            a->max_bandwidth_set = 1;
            break;
        case O_STEP:
            if (cli_parse_double("bench", "--step-ms", optarg, 0.0, &a->step_ms))
                return 2;
            if (!(a->step_ms > 0)) {
                fprintf(stderr, "ebb bench: --step-ms must be a number > 0, got '%s'\n", optarg);
                return 2;
            }
            break;
        case O_BASELINE: a->baseline = 1; break;
        case O_JSON: a->json = 1; break;
        case O_HELP: fputs(bench_help, stdout); return 1;
        default:
            fprintf(stderr,
                    "ebb bench: unknown or incomplete option '%s' (see 'ebb bench --help')\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ebb bench: unexpected argument '%s' (see 'ebb bench --help')\n",
                argv[optind]);
        return 2;
    }
    return 0;
}

/* ---- the command --------------------------------------------------------------- */

int ebb_cmd_bench(int argc, char **argv)
{
    bench_args a;
    memset(&a, 0, sizeof a);
    a.tiers = TIER_BIT_GPU | TIER_BIT_HOST | TIER_BIT_DISK;
    a.tier_all = 1;
    a.size = UINT64_C(256) << 20;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;

    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s\n", ebb_last_error());
        return 1;
    }
    if (a.config && ebb_config_load_file(a.config, &cfg) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s\n", ebb_last_error());
        ebb_config_dispose(&cfg);
        return 1;
    }
    bench_params p;
    memset(&p, 0, sizeof p);
    p.size = a.size;
    p.block = a.block ? (size_t)a.block : (size_t)cfg.disk.block_size;
    p.depth = a.depth ? a.depth : cfg.disk.queue_depth;
    p.backend = a.backend_set ? a.backend : cfg.disk.backend;
    p.total = a.total;
    p.max_bandwidth = a.max_bandwidth_set ? a.max_bandwidth : cfg.disk.max_bandwidth;
    p.progress = isatty(STDERR_FILENO);

    /* Which tiers: those asked for that the configuration enables (a tier
     * asked for by name must be there); the gpu only with a device. */
    static const struct { ebb_tier tier; const char *key; } names[] = {
        {EBB_TIER_GPU, "tier.gpu.enabled"},
        {EBB_TIER_HOST, "tier.host.enabled"},
        {EBB_TIER_DISK, "tier.disk.enabled"}};
    int enabled[EBB_TIER_COUNT] = {cfg.gpu.enabled, cfg.host.enabled, cfg.disk.enabled};
    char skipped[EBB_TIER_COUNT][256] = {{0}};
    int run[EBB_TIER_COUNT] = {0};
    for (int k = 0; k < 3; k++) {
        ebb_tier t = names[k].tier;
        if (!(a.tiers & (1 << t)))
            continue;
        if (t == EBB_TIER_GPU && ebb_gpu_count() == 0) {
            if (!a.tier_all) { /* asked for by name: bench_gpu says why it cannot */
                run[t] = 1;
                continue;
            }
            snprintf(skipped[t], sizeof skipped[t], "no CUDA device");
            continue;
        }
        if (!enabled[t]) {
            if (!a.tier_all) {
                fprintf(stderr, "ebb bench: the %s tier is disabled in the configuration (%s = "
                                "false)\n",
                        ebb_tier_name(t), names[k].key);
                ebb_config_dispose(&cfg);
                return 1;
            }
            snprintf(skipped[t], sizeof skipped[t], "disabled (%s = false)", names[k].key);
            continue;
        }
        run[t] = 1;
    }
    if (a.baseline && !run[EBB_TIER_DISK] && !run[EBB_TIER_GPU]) {
        fprintf(stderr, "ebb bench: --baseline compares the disk tier (with an io_uring loop) "
                        "and the gpu tier (with a cudaMemcpyAsync loop), and this run measures "
                        "neither (use --tier disk, gpu or all)\n");
        ebb_config_dispose(&cfg);
        return 2;
    }
    if (!run[0] && !run[1] && !run[2]) {
        fprintf(stderr, "ebb bench: no tier to measure: the configuration enables none\n");
        ebb_config_dispose(&cfg);
        return 1;
    }

    bench_result res[EBB_TIER_COUNT];
    memset(res, 0, sizeof res);
    baseline_result base;
    memset(&base, 0, sizeof base);
    gpu_baseline_result gbase;
    memset(&gbase, 0, sizeof gbase);
    static int (*const measure[EBB_TIER_COUNT])(const ebb_config *, const bench_params *,
                                                bench_result *) = {bench_gpu, bench_host,
                                                                   bench_disk};
    static const ebb_tier order[] = {EBB_TIER_GPU, EBB_TIER_HOST, EBB_TIER_DISK};
    for (int k = 0; k < 3 && rc == 0; k++) {
        ebb_tier t = order[k];
        if (!run[t])
            continue;
        if (t == EBB_TIER_DISK && a.baseline) {
            /* The same bytes as the disk tier will move (its default, or --total). */
            uint64_t total = p.total ? p.total : BENCH_TOTAL_DISK;
            uint64_t bytes = (total + p.size - 1) / p.size * p.size, budget = 0;
            if (ebb_config_budget(&cfg, EBB_TIER_DISK, &budget) == EBB_OK && budget < bytes)
                bytes = budget / 4096 * 4096;
            if (bench_run_baseline(&cfg, &p, bytes, &base) != 0) {
                rc = 1;
                break;
            }
        }
        if (t == EBB_TIER_GPU && a.baseline && ebb_gpu_count() > 0 &&
            bench_run_gpu_baseline(&cfg, &p, &gbase) != 0) {
            rc = 1;
            break;
        }
        if (measure[t](&cfg, &p, &res[t]) != 0) {
            fprintf(stderr, "ebb bench: %s tier: %s\n", ebb_tier_name(t), res[t].error);
            rc = 1;
        }
    }
    if (rc == 0) {
        if (a.json)
            bench_print_json(&a, &p, res, (const char(*)[256])skipped, &base, &gbase);
        else
            bench_print_table(&a, &p, res, (const char(*)[256])skipped, &base, &gbase);
    }
    ebb_config_dispose(&cfg);
    return rc;
}
