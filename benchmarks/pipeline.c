/*
 * pipeline: the pipeline's acceptance figures, each a ratio of two measurements
 * made in the same process run. Three parts (--part, default all):
 *
 *  disk     Disk-bound store-all. For states of 32 KiB, 1 MiB and 16 MiB,
 *           n = --total / state (default 4 GiB): strategy store-all, host
 *           budget 256 MiB, the schedule's n-1 slots on the disk tier
 *           (fast_tier = disk: 256 MiB cannot hold them, and `ebb run`
 *           retries so), disk budget n states, callbacks that only tag the
 *           state (the forward writes i+1 into the first 8 bytes of its
 *           output, the reverse checks that they hold i: "exact"). The wall
 *           of ebb_run_forward gives ebb's write GB/s (bytes_written[disk]),
 *           the wall of ebb_run_reverse its read GB/s (bytes_read[disk]);
 *           then the plain io_uring O_DIRECT loop (benchmarks/loops,
 *           bl_uring_run) moves the same total with block = the state
 *           (rounded up to 4 KiB) and depth = tier.disk.queue_depth.
 *           Target: ebb / loop >= 0.90 both ways.
 *  reverse  Reverse sweep with cheap steps: 4 MiB states, n = 500, forward
 *           and reverse steps of 1 ms (busy-waits on CLOCK_MONOTONIC), host
 *           budget 16 states; store-all (slots on disk) and disk-revolve
 *           (16 host slots, the rest on disk; R from the loop's bandwidths
 *           unless --io-ratio). Per strategy: the reverse sweep's wall, its
 *           stall (stall_total_s at the end less that after the forward
 *           sweep), stall / reverse sweep, and the read
 *           bandwidth it reached (bytes_read[disk] / reverse wall) against
 *           the plain loop's (block 4 MiB, the same depth, n states).
 *           Targets: stall / reverse <= 0.05 where the loop reads faster
 *           than the steps consume states x 1.1 (4 MiB / 1 ms x 1.1 = 4.61
 *           GB/s), else read bandwidth / loop's >= 0.90. The one that
 *           applies is printed.
 *  actions  Cost per action: 8-byte states, the same tagging callbacks (no
 *           step time), the host tier alone; revolve with C = 10, 1,000 and
 *           100,000 slots at n = 10^6, store-all at n = 10^4 and 10^6 (each
 *           repeated until its sweeps took 0.2 s, at least 3 times; the
 *           median repeat counts; pool creation not timed). Actions per
 *           run: the schedule's, counted by replaying it
 *           (ebb_schedule_validate) with the run's slots, whose forward and
 *           reverse steps, stores and restores are checked against the
 *           run's statistics ("counts match"); and ops per run, the unit
 *           actions (forward steps + reverse steps + stores + restores: an
 *           ADVANCE of k steps counts k). Target: max / min ns per op
 *           <= 1.3. Per schedule action the figure follows the steps an
 *           ADVANCE runs (3.6 on average for revolve with C = 10), not the
 *           engine's cost, so it is printed but not the target.

 * Commands (Release build):
 *
 *   build/release/benchmarks/pipeline --dir /var/tmp           # all three parts
 *   build/release/benchmarks/pipeline --dir /var/tmp --json    # one JSON object
 *   build/release/benchmarks/pipeline --part disk --dir /var/tmp       # ~45 s
 *   build/release/benchmarks/pipeline --part reverse --dir /var/tmp    # ~6 s
 *   build/release/benchmarks/pipeline --part actions --store-all-n 10000,100000
 *   build/release/benchmarks/pipeline --quick --dir /tmp       # smoke test, ~2 s
 *
 * Part 3's defaults are the acceptance sizes, not a quick run (store-all at
 * n = 10^6 and its slots); --store-all-n and --slots choose smaller ones.
 *
 * Options: --part disk|reverse|actions|all, --dir DIR (default $TMPDIR or
 * /tmp), --json, --total BYTES (part 1 per state size, default 4GiB),
 * --steps N (part 2, default 500), --step-ms MS (part 2, default 1),
 * --io-ratio R (part 2's disk-revolve), --min-time S (part 3, default 0.2),
 * --revolve-n N (part 3, default 10^6), --slots C1,C2,C3 (part 3's revolve,
 * default 10,1000,100000), --store-all-n N1,N2 (default 10000,1000000),
 * --quick (64 MiB per size; 20 steps; revolve n = 20,000 with C = 10,
 * 1,000, 10,000, store-all n = 1,000 and 20,000; 0.01 s). Sizes as
 * ebb_parse_size reads them ("4GiB", "64 MiB"). GB/s = 10^9 bytes/s.
 * Exit 0 when every run was exact, 1 on an error (ebb_last_error printed)
 * or an inexact run, 2 on a bad option, 77 when io_uring is refused here.
 * Only ebb's public API (include/ebb) and benchmarks/loops.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

enum { PART_DISK = 1, PART_REVERSE = 2, PART_ACTIONS = 4 };

static const char help[] =
    "usage: pipeline [--part disk|reverse|actions|all] [--dir DIR] [--json] [--quick]\n"
    "                [--total BYTES] [--steps N] [--step-ms MS] [--io-ratio R] [--min-time S]\n"
    "                [--revolve-n N] [--slots C1,C2,C3] [--store-all-n N1,N2]\n";

/* ---- options ---- */

static int parse_size(const char *opt, const char *text, uint64_t *out)
{
    if (ebb_parse_size(text, out) != EBB_OK || *out == 0) {
        fprintf(stderr, "pipeline: %s must be a positive size (e.g. 4GiB), got '%s': %s\n", opt,
                text, ebb_last_error());
        return -1;
    }
    return 0;
}

static int parse_double(const char *opt, const char *text, double *out)
{
    char *end = NULL;
    *out = strtod(text, &end);
    if (end == text || *end || !(*out > 0)) {
        fprintf(stderr, "pipeline: %s must be a positive number, got '%s'\n", opt, text);
        return -1;
    }
    return 0;
}

/* "A,B,C": `count` integers from 2 to INT32_MAX (count 1: "A"). */
static int parse_list(const char *opt, const char *text, int count, int64_t *out)
{
    const char *p = text;
    for (int i = 0; i < count; i++) {
        char *end = NULL;
        long long x = strtoll(p, &end, 10);
        if (end == p || x < 2 || x > INT32_MAX || (i + 1 < count ? *end != ',' : *end != 0)) {
            if (count == 1)
                fprintf(stderr, "pipeline: %s takes an integer from 2 to %d, got '%s'\n", opt,
                        INT32_MAX, text);
            else
                fprintf(stderr, "pipeline: %s takes %d integers from 2 to %d, comma-separated, "
                                "got '%s'\n",
                        opt, count, INT32_MAX, text);
            return -1;
        }
        out[i] = x;
        p = end + 1;
    }
    return 0;
}

static void defaults(pl_args *a, int quick)
{
    const char *tmp = getenv("TMPDIR");
    a->dir = tmp && tmp[0] == '/' ? tmp : "/tmp";
    a->quick = quick;
    a->total = quick ? UINT64_C(64) << 20 : UINT64_C(4) << 30;
    a->disk_sizes[0] = 32u << 10;
    a->disk_sizes[1] = 1u << 20;
    a->disk_sizes[2] = 16u << 20;
    a->disk_count = 3;
    a->host_budget = UINT64_C(256) << 20;
    a->rev_state = 4u << 20;
    a->rev_steps = quick ? 20 : 500;
    a->step_s = 1e-3;
    a->rev_host_states = 16;
    a->revolve_n = quick ? 20000 : 1000000;
    a->revolve_slots[0] = 10;
    a->revolve_slots[1] = 1000;
    a->revolve_slots[2] = quick ? 10000 : 100000;
    a->store_all_n[0] = quick ? 1000 : 10000;
    a->store_all_n[1] = quick ? 20000 : 1000000;
    a->min_time = quick ? 0.01 : 0.2;
}

int main(int argc, char **argv)
{
    enum { O_PART = 256, O_DIR, O_JSON, O_QUICK, O_TOTAL, O_STEPS, O_STEPMS, O_IORATIO, O_MINTIME,
           O_REVOLVE_N, O_SLOTS, O_STORE_ALL_N, O_HELP };
    static const struct option longopts[] = {
        {"part", required_argument, 0, O_PART},     {"dir", required_argument, 0, O_DIR},
        {"json", no_argument, 0, O_JSON},           {"quick", no_argument, 0, O_QUICK},
        {"total", required_argument, 0, O_TOTAL},   {"steps", required_argument, 0, O_STEPS},
        {"step-ms", required_argument, 0, O_STEPMS},
        {"io-ratio", required_argument, 0, O_IORATIO},
        {"min-time", required_argument, 0, O_MINTIME},
        {"revolve-n", required_argument, 0, O_REVOLVE_N},
        {"slots", required_argument, 0, O_SLOTS},
        {"store-all-n", required_argument, 0, O_STORE_ALL_N},
        {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0}};
    /* --quick sets the defaults the other options then override */
    int quick = 0;
    for (int i = 1; i < argc; i++)
        quick = quick || strcmp(argv[i], "--quick") == 0;
    pl_args a;
    memset(&a, 0, sizeof a);
    defaults(&a, quick);
    int parts = PART_DISK | PART_REVERSE | PART_ACTIONS, c;
    double d;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_PART:
            if (!strcmp(optarg, "disk"))
                parts = PART_DISK;
            else if (!strcmp(optarg, "reverse"))
                parts = PART_REVERSE;
            else if (!strcmp(optarg, "actions"))
                parts = PART_ACTIONS;
            else if (!strcmp(optarg, "all"))
                parts = PART_DISK | PART_REVERSE | PART_ACTIONS;
            else {
                fprintf(stderr, "pipeline: --part must be disk, reverse, actions or all, got "
                                "'%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_DIR: a.dir = optarg; break;
        case O_JSON: a.json = 1; break;
        case O_QUICK: break;
        case O_TOTAL:
            if (parse_size("--total", optarg, &a.total))
                return 2;
            break;
        case O_STEPS:
            if (parse_list("--steps", optarg, 1, &a.rev_steps))
                return 2;
            break;
        case O_STEPMS:
            if (parse_double("--step-ms", optarg, &d))
                return 2;
            a.step_s = d / 1e3;
            break;
        case O_IORATIO:
            if (parse_double("--io-ratio", optarg, &a.io_ratio))
                return 2;
            break;
        case O_MINTIME:
            if (parse_double("--min-time", optarg, &a.min_time))
                return 2;
            break;
        case O_REVOLVE_N:
            if (parse_list("--revolve-n", optarg, 1, &a.revolve_n))
                return 2;
            break;
        case O_SLOTS:
        {
            int64_t x[3];
            if (parse_list("--slots", optarg, 3, x))
                return 2;
            for (int i = 0; i < 3; i++)
                a.revolve_slots[i] = (int32_t)x[i];
            break;
        }
        case O_STORE_ALL_N:
            if (parse_list("--store-all-n", optarg, 2, a.store_all_n))
                return 2;
            break;
        case O_HELP: fputs(help, stdout); return 0;
        default:
            fprintf(stderr, "pipeline: unknown or incomplete option '%s'\n%s", argv[optind - 1],
                    help);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "pipeline: unexpected argument '%s'\n%s", argv[optind], help);
        return 2;
    }

    static pl_disk_row disk[3];
    static pl_rev rev;
    static pl_act_row act[5];
    int act_count = 0, rc = 0;
    if ((parts & PART_DISK) && (rc = pl_disk_part(&a, disk)))
        return rc;
    if ((parts & PART_REVERSE) && (rc = pl_reverse_part(&a, &rev)))
        return rc;
    if ((parts & PART_ACTIONS) && (rc = pl_actions_part(&a, act, &act_count)))
        return rc;

    int exact = 1;
    for (int i = 0; (parts & PART_DISK) && i < a.disk_count; i++)
        exact = exact && disk[i].exact;
    for (int i = 0; (parts & PART_REVERSE) && i < 2; i++)
        exact = exact && rev.rows[i].exact;
    for (int i = 0; i < act_count; i++)
        exact = exact && act[i].exact;
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) != 3)
        load[0] = load[1] = load[2] = -1;
    char dir[600];
    if (a.json)
        printf("{\"ebb\": \"%s\", \"dir\": \"%s\", \"quick\": %s, \"load\": [%.2f, %.2f, %.2f]",
               ebb_version(), pl_json_text(a.dir, dir, sizeof dir), a.quick ? "true" : "false",
               load[0], load[1], load[2]);
    else
        printf("pipeline: ebb %s, disk files in %s%s, load average %.2f %.2f %.2f at the end\n",
               ebb_version(), a.dir, a.quick ? ", --quick" : "", load[0], load[1], load[2]);
    if (parts & PART_DISK)
        pl_print_disk(&a, disk, a.json);
    if (parts & PART_REVERSE)
        pl_print_reverse(&a, &rev, a.json);
    if (parts & PART_ACTIONS)
        pl_print_actions(act, act_count, a.json);
    if (a.json)
        printf(", \"exact\": %s}\n", exact ? "true" : "false");
    else
        printf("\nall runs exact: %s\n", exact ? "yes" : "NO");
    return exact ? 0 : 1;
}
