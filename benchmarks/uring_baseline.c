/*
 * uring_baseline: the plain io_uring O_DIRECT write/read loop the disk tier
 * is judged against, as a standalone program with no ebb code.
 *
 *   uring_baseline [--dir D] [--bytes N] [--block N] [--depth N]
 *                  [--no-register] [--buffered] [--no-hugepages] [--json]
 *
 * Creates a private preallocated file in D (default $TMPDIR or /tmp), writes
 * N bytes (default 8 GiB) with `depth` requests of `block` bytes in flight
 * (default 8 MiB, 16), reads them back the same way, and prints both
 * bandwidths in GB/s (10^9 bytes per second). Sizes: plain bytes or with a
 * binary unit suffix K, M, G (KiB, MiB, GiB). The loop itself is
 * benchmarks/loops/uring_loop.c, which `ebb bench --baseline` runs too.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline_args.h"
#include "uring_loop.h"

static const char help[] =
    "usage: uring_baseline [--dir D] [--bytes N] [--block N] [--depth N]\n"
    "                      [--no-register] [--buffered] [--no-hugepages] [--json]\n"
    "\n"
    "Plain io_uring O_DIRECT loop: writes N bytes (default 8G) to a private\n"
    "preallocated file in D (default $TMPDIR or /tmp), depth requests of block\n"
    "bytes in flight (default 16 x 8M), reads them back, prints GB/s.\n"
    "Sizes take a K, M or G suffix (KiB, MiB, GiB).\n";

static void progress(void *user, int phase, uint64_t done, uint64_t total)
{
    (void)user;
    if (!isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\ruring_baseline: %s %5.1f%%", phase == 0 ? "write" : "read ",
            100.0 * (double)done / (double)total);
    if (done == total)
        fputs("\r                                   \r", stderr);
    fflush(stderr);
}

int main(int argc, char **argv)
{
    enum { O_DIR = 256, O_BYTES, O_BLOCK, O_DEPTH, O_NOREG, O_BUFFERED, O_NOHUGE, O_JSON, O_HELP };
    static const struct option longopts[] = {
        {"dir", required_argument, 0, O_DIR},      {"bytes", required_argument, 0, O_BYTES},
        {"block", required_argument, 0, O_BLOCK},  {"depth", required_argument, 0, O_DEPTH},
        {"no-register", no_argument, 0, O_NOREG},  {"buffered", no_argument, 0, O_BUFFERED},
        {"no-hugepages", no_argument, 0, O_NOHUGE}, {"json", no_argument, 0, O_JSON},
        {"help", no_argument, 0, O_HELP},          {0, 0, 0, 0}};
    bl_uring_options o;
    bl_uring_options_init(&o);
    const char *tmp = getenv("TMPDIR");
    o.dir = tmp && tmp[0] == '/' ? tmp : "/tmp";
    o.bytes = UINT64_C(8) << 30;
    int json = 0, c;
    uint64_t v;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_DIR: o.dir = optarg; break;
        case O_BYTES:
            if (baseline_parse_size("uring_baseline", "--bytes", optarg, &o.bytes))
                return 2;
            break;
        case O_BLOCK:
            if (baseline_parse_size("uring_baseline", "--block", optarg, &v))
                return 2;
            if (v % 4096 || v > (UINT64_C(1) << 30)) {
                fprintf(stderr, "uring_baseline: --block must be a multiple of 4096 up to 1G\n");
                return 2;
            }
            o.block = (size_t)v;
            break;
        case O_DEPTH:
        {
            char *end = NULL;
            long d = strtol(optarg, &end, 10);
            if (end == optarg || *end || d < 1 || d > 4096) {
                fprintf(stderr, "uring_baseline: --depth must be an integer in [1, 4096], got "
                                "'%s'\n",
                        optarg);
                return 2;
            }
            o.depth = (int)d;
            break;
        }
        case O_NOREG: o.register_buffers = 0; break;
        case O_BUFFERED: o.direct = 0; break;
        case O_NOHUGE: o.hugepages = 0; break;
        case O_JSON: json = 1; break;
        case O_HELP: fputs(help, stdout); return 0;
        default:
            fprintf(stderr, "uring_baseline: unknown or incomplete option '%s'\n%s",
                    argv[optind - 1], help);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "uring_baseline: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    o.progress = progress;
    bl_uring_result r;
    if (bl_uring_run(&o, &r) != 0) {
        fprintf(stderr, "uring_baseline: %s\n", r.error);
        return 1;
    }
    double w = (double)r.bytes / r.write_s / 1e9, rd = (double)r.bytes / r.read_s / 1e9;
    if (json)
        printf("{\"dir\": \"%s\", \"bytes\": %llu, \"block\": %zu, \"depth\": %d, "
               "\"direct\": %s, \"registered_buffers\": %s, \"write_GBps\": %.4f, "
               "\"read_GBps\": %.4f, \"retries\": %llu}\n",
               o.dir, (unsigned long long)r.bytes, o.block, o.depth, r.direct ? "true" : "false",
               r.registered ? "true" : "false", w, rd, (unsigned long long)r.retries);
    else
        printf("plain io_uring loop on %s: %.2f GiB, block %zu KiB, depth %d, %s, %s buffers\n"
               "  write %.3f GB/s (%.2f s)\n  read  %.3f GB/s (%.2f s)\n",
               o.dir, (double)r.bytes / (1 << 30), o.block >> 10, o.depth,
               r.direct ? "O_DIRECT" : "buffered", r.registered ? "registered" : "unregistered",
               w, r.write_s, rd, r.read_s);
    return 0;
}
