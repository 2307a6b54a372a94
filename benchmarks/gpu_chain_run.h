/* A state's latency between a gpu slot and a disk slot: through a host slot
 * in two steps (gpu -> host, wait, host -> disk, wait; and back) against one
 * ebb_move_via, which pipelines the two legs by the disk's blocks; and each
 * channel alone. The same code runs on a GPU (benchmarks/gpu_chain) and
 * against the fake CUDA runtime (tests/gpu_mock/bench_chain.c, whose
 * figures are the mock's). */
#ifndef EBB_BENCHMARKS_GPU_CHAIN_RUN_H
#define EBB_BENCHMARKS_GPU_CHAIN_RUN_H

#include <stddef.h>

typedef struct gpu_chain_args {
    size_t state_size;
    size_t block;         /* the disk pool's block (0: its default) */
    int repeat;           /* measurements of each kind (medians reported) */
    const char *disk_dir;
    int device;
} gpu_chain_args;

typedef struct gpu_chain_result {
    /* medians, seconds per state */
    double d2h_s, disk_write_s, two_step_store_s, chained_store_s;
    double disk_read_s, h2d_s, two_step_restore_s, chained_restore_s;
    int exact; /* every restored state equals the stored one */
    char error[512];
} gpu_chain_result;

/* 0, or -1 with result->error set. */
int gpu_chain_run(const gpu_chain_args *args, gpu_chain_result *result);

#endif
