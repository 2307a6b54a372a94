/* `ebb bench`: the measurements of each tier (bench_tiers.c), shared with the
 * command itself (bench.c). */
#ifndef EBB_TOOLS_BENCH_H
#define EBB_TOOLS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/config.h"
#include "ebb/storage.h"

/* What to measure, after the configuration and the options are merged. */
typedef struct bench_params {
    uint64_t size;            /* bytes of one state (slot) */
    size_t block;             /* disk: bytes per request */
    int32_t depth;            /* disk: requests in flight */
    ebb_disk_backend backend; /* disk: engine asked for */
    uint64_t total;           /* bytes moved per measurement; 0: the tier's default */
    uint64_t max_bandwidth;   /* disk: bytes per second it is paced to; 0: no limit */
    int progress;             /* 1: progress line on stderr */
} bench_params;

/* Default bytes moved per measurement and direction. */
#define BENCH_TOTAL_HOST (UINT64_C(4) << 30)
#define BENCH_TOTAL_DISK (UINT64_C(8) << 30)
#define BENCH_TOTAL_GPU (UINT64_C(16) << 30)

/* One tier's figures. Bandwidths are GB/s = 10^9 bytes per second. */
typedef struct bench_result {
    int ran;
    double write_GBps, read_GBps; /* store into / load from the tier's slots */
    double write_s, read_s;       /* seconds of each measurement */
    double d2h_GBps, h2d_GBps;    /* gpu: device -> host, host -> device, each alone */
    double both_GBps;             /* gpu: both directions at once, bytes of both / time */
    uint64_t moved;               /* bytes per measurement */
    int64_t ops;                  /* operations per measurement */
    int32_t slots;                /* slots in the measured pool */
    int32_t in_flight;            /* operations kept in flight */
    int32_t staging_slots;        /* disk, gpu: host slots used */
    size_t slot_stride;           /* bytes a slot occupies */
    char backend[32];             /* "memory", "cuda", "io_uring", "threads" */
    int direct, registered_buffers, registered_files, pinned, numa_node, checksum, device;
    uint64_t registered_bytes;    /* disk: staging bytes registered as io_uring fixed buffers */
    uint64_t staging_bytes;       /* disk: bytes of the staging host pool */
    int32_t depth, threads, path_count;
    size_t block, alignment;
    double max_bandwidth;         /* disk: the pool's limit, bytes per second (0: none) */
    uint64_t requests, retries;   /* disk requests / gpu chunks, resubmissions (last phase) */
    char path[1024];              /* disk: the first directory */
    char warnings[1024];          /* fallbacks the pools took */
    char error[1024];             /* why it failed */
} bench_result;

/* Each measures one tier: 0 on success, -1 with r->error set. */
int bench_host(const ebb_config *cfg, const bench_params *p, bench_result *r);
int bench_disk(const ebb_config *cfg, const bench_params *p, bench_result *r);
int bench_gpu(const ebb_config *cfg, const bench_params *p, bench_result *r);

/* The progress line (stderr, overwritten with \r); done == total ends it. */
void bench_progress(const bench_params *p, const char *label, uint64_t done, uint64_t total,
                    double t0);

#endif
