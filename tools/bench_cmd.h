/* `ebb bench`, the command's own parts: its arguments (bench.c), the plain
 * loops of --baseline (bench_baseline.c) and the report (bench_report.c). */
#ifndef EBB_TOOLS_BENCH_CMD_H
#define EBB_TOOLS_BENCH_CMD_H

#include <stdint.h>

#include "ebb/config.h"
#include "ebb/storage.h"
#include "tools/bench.h"

enum { TIER_BIT_GPU = 1 << EBB_TIER_GPU, TIER_BIT_HOST = 1 << EBB_TIER_HOST,
       TIER_BIT_DISK = 1 << EBB_TIER_DISK };

typedef struct bench_args {
    const char *config;
    int tiers;     /* TIER_BIT_* asked for */
    int tier_all;  /* --tier all (or none given) */
    uint64_t size;
    uint64_t block; /* 0: the configuration's */
    int32_t depth;  /* 0: the configuration's */
    int backend_set;
    ebb_disk_backend backend;
    uint64_t total;
    int max_bandwidth_set;
    uint64_t max_bandwidth; /* bytes per second, 0: none */
    double step_ms; /* 0: none */
    int json, baseline;
} bench_args;

typedef struct baseline_result {
    int ran;
    double write_GBps, read_GBps;
    uint64_t bytes;
    int registered, direct;
    char dir[1024];
} baseline_result;

/* The gpu tier's baseline: pinned cudaMemcpyAsync, whole-state calls. */
typedef struct gpu_baseline_result {
    int ran;
    double h2d_GBps, d2h_GBps, both_GBps;
    uint64_t bytes; /* per direction */
    char device_name[256];
} gpu_baseline_result;

/* The disk tier's baseline: the plain io_uring loop of
 * benchmarks/uring_loop.c over `bytes` in the first disk directory; the gpu
 * tier's: the plain cudaMemcpyAsync loop of benchmarks/cuda_loop.c. 0, or -1
 * after printing why. */
int bench_run_baseline(const ebb_config *cfg, const bench_params *p, uint64_t bytes,
                       baseline_result *b);
int bench_run_gpu_baseline(const ebb_config *cfg, const bench_params *p, gpu_baseline_result *b);

/* `ebb bench --compression ...` (bench_codec.c): the codec's measurement
 * instead of the tiers'; the process exit status. */
int bench_codec_main(int argc, char **argv);

/* The report on stdout: JSON (--json) or the table with the compute/transfer
 * ratios. skipped[t]: why tier t was not measured ("" when it was or was
 * not asked for). */
void bench_print_json(const bench_args *a, const bench_params *p, const bench_result *res,
                      const char skipped[EBB_TIER_COUNT][256], const baseline_result *b,
                      const gpu_baseline_result *gb);
void bench_print_table(const bench_args *a, const bench_params *p, const bench_result *res,
                       const char skipped[EBB_TIER_COUNT][256], const baseline_result *b,
                       const gpu_baseline_result *gb);

#endif
