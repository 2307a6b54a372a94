/* The GPU end-to-end case of the asynchronous strategy: a state in device memory, GPU slots for
 * a few percent of the states, pinned host and disk below, the asynchronous
 * strategy; the steps are stream work only (device copies, no kernels), so
 * the same code runs on a GPU (benchmarks/gpu_async) and against the fake
 * CUDA runtime (tests/gpu_mock/async_end_to_end.c). */
#ifndef EBB_BENCHMARKS_GPU_ASYNC_RUN_H
#define EBB_BENCHMARKS_GPU_ASYNC_RUN_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpu_async_args {
    int64_t steps;
    size_t state_size;
    int copies_forward;   /* device copies of the state per forward step (its compute) */
    int copies_reverse;   /* ... per reverse step */
    double gpu_fraction;  /* GPU slots = this fraction of n (at least 2) */
    int32_t host_slots;   /* pinned host slots */
    const char *disk_dir; /* NULL: no disk tier */
    const char *strategy; /* "async" (default) or another ebb strategy */
} gpu_async_args;

typedef struct gpu_async_result {
    int32_t gpu_slots, host_slots;
    double ideal_s;       /* n forward + n reverse steps, plain loop, nothing kept */
    double wall_s, forward_s, reverse_s, stall_s; /* ebb's own figures (the host's clock) */
    double device_wall_s; /* from ebb_run_forward to the stream synchronized after the reverse */
    int64_t forward_steps, recomputed, host_stores;
    /* the plain loop's step times and the pinned copy rates, measured; the
     * planner's prediction for the run from them (ebb_plan_predict) */
    double forward_step_s, reverse_step_s, d2h_bps, h2d_bps;
    double predicted_s;
    int64_t predicted_recomputed, predicted_host_stores;
    uint64_t gradient, reference; /* the run's and store-all's (all states on the GPU) */
    uint64_t bytes_host, bytes_disk; /* bytes written to host and disk slots */
    char error[512];
} gpu_async_result;

/* 0, or -1 with result->error set. */
int gpu_async_run(const gpu_async_args *args, gpu_async_result *result);

#endif
