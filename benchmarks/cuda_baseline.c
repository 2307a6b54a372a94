/*
 * cuda_baseline: the pinned cudaMemcpyAsync bandwidth the GPU tier is judged
 * against, with no ebb code: host -> device alone, device -> host
 * alone, and both directions at once on two streams.
 *
 *   cuda_baseline [--device N] [--size BYTES] [--total BYTES] [--chunk BYTES]
 *                 [--host-alloc] [--json]
 *
 * Each copy moves `size` bytes (default 256 MiB) as cudaMemcpyAsync calls of
 * `chunk` bytes (default: the whole size); copies repeat until `total` bytes
 * (default 16 GiB) moved per direction. Host memory is page-aligned mmap
 * memory pinned with cudaHostRegister (what ebb's host tier uses), or
 * cudaHostAlloc memory with --host-alloc. Timed with CUDA events; GB/s is
 * 10^9 bytes per second. Sizes take a K, M or G suffix (KiB, MiB, GiB).
 * The loop itself is benchmarks/loops/cuda_loop.c, which
 * `ebb bench --tier gpu --baseline` runs too. Built only where CMake finds
 * the CUDA toolkit.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "baseline_args.h"
#include "cuda_loop.h"

static const char help[] =
    "usage: cuda_baseline [--device N] [--size BYTES] [--total BYTES] [--chunk BYTES]\n"
    "                     [--host-alloc] [--json]\n"
    "\n"
    "Pinned cudaMemcpyAsync bandwidth: H2D alone, D2H alone, both at once.\n"
    "Defaults: device 0, size 256M per copy, 16G per direction, one call per copy.\n";

static void progress(void *user, int phase, uint64_t done, uint64_t total)
{
    (void)user;
    (void)done;
    (void)total;
    static const char *names[] = {"H2D", "D2H", "both"};
    if (!isatty(STDERR_FILENO))
        return;
    if (phase < 3)
        fprintf(stderr, "\rcuda_baseline: %-4s", names[phase]);
    else
        fprintf(stderr, "\r%40s\r", "");
}

int main(int argc, char **argv)
{
    enum { O_DEVICE = 256, O_SIZE, O_TOTAL, O_CHUNK, O_HOSTALLOC, O_JSON, O_HELP };
    static const struct option longopts[] = {
        {"device", required_argument, 0, O_DEVICE}, {"size", required_argument, 0, O_SIZE},
        {"total", required_argument, 0, O_TOTAL},   {"chunk", required_argument, 0, O_CHUNK},
        {"host-alloc", no_argument, 0, O_HOSTALLOC}, {"json", no_argument, 0, O_JSON},
        {"help", no_argument, 0, O_HELP},           {0, 0, 0, 0}};
    bl_cuda_options o;
    bl_cuda_options_init(&o);
    int json = 0, c;
    uint64_t size = o.size, chunk = 0;
    char *end;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_DEVICE:
            o.device = (int)strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || o.device < 0) {
                fprintf(stderr, "cuda_baseline: --device must be a device ordinal, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_SIZE:
            if (baseline_parse_size("cuda_baseline", "--size", optarg, &size))
                return 2;
            break;
        case O_TOTAL:
            if (baseline_parse_size("cuda_baseline", "--total", optarg, &o.total))
                return 2;
            break;
        case O_CHUNK:
            if (baseline_parse_size("cuda_baseline", "--chunk", optarg, &chunk))
                return 2;
            break;
        case O_HOSTALLOC: o.host_alloc = 1; break;
        case O_JSON: json = 1; break;
        case O_HELP: fputs(help, stdout); return 0;
        default:
            fprintf(stderr, "cuda_baseline: unknown or incomplete option '%s'\n%s",
                    argv[optind - 1], help);
            return 2;
        }
    }
    o.size = (size_t)size;
    o.chunk = (size_t)chunk;
    o.progress = progress;
    bl_cuda_result r;
    if (bl_cuda_run(&o, &r) != 0) {
        fprintf(stderr, "cuda_baseline: %s\n", r.error);
        return 1;
    }
    double moved = (double)r.bytes;
    double h2d = moved / r.h2d_s / 1e9, d2h = moved / r.d2h_s / 1e9;
    double both = 2.0 * moved / r.both_s / 1e9;
    const char *mem = o.host_alloc ? "cudaHostAlloc" : "mmap+cudaHostRegister";
    if (json)
        printf("{\"device\": \"%s\", \"size\": %zu, \"chunk\": %zu, \"bytes_per_direction\": "
               "%.0f, \"host_memory\": \"%s\", \"h2d_GBps\": %.3f, \"d2h_GBps\": %.3f, "
               "\"both_GBps\": %.3f}\n",
               r.device_name, o.size, r.chunk, moved, mem, h2d, d2h, both);
    else
        printf("pinned cudaMemcpyAsync on %s (%s host memory), %zu MiB copies in %zu MiB "
               "calls, %.1f GiB per direction\n"
               "  H2D  %.2f GB/s\n  D2H  %.2f GB/s\n  both %.2f GB/s (sum of the two directions)\n",
               r.device_name, mem, o.size >> 20, r.chunk >> 20, moved / (1 << 30), h2d, d2h,
               both);
    return 0;
}
