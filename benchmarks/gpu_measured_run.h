/* A GPU state's step times measured on the device (ebb_run_options.
 * measure_costs): steps made of stream work only (device copies of the
 * state, one step in `dear_every` `dear_copies` times the others'), so the
 * same code runs on a GPU (benchmarks/gpu_measured) and against the fake
 * CUDA runtime (tests/gpu_mock/bench_measured.c). It times each forward
 * step of a plain loop with its own pair of events, runs online measuring
 * and not, and store-all for the gradient. */
#ifndef EBB_BENCHMARKS_GPU_MEASURED_RUN_H
#define EBB_BENCHMARKS_GPU_MEASURED_RUN_H

#include <stddef.h>
#include <stdint.h>

typedef struct gpu_measured_args {
    int64_t steps;
    size_t state_size;
    int copies;         /* device copies of the state per forward step */
    int dear_every;     /* step k with k % dear_every == 0 ... */
    int dear_copies;    /* ... makes this many */
    int reverse_copies; /* per reverse step */
    int32_t slots;      /* GPU slots */
    int device;
} gpu_measured_args;

typedef struct gpu_measured_result {
    /* each forward step's device time: ebb's (measure_costs) against the
     * plain loop's own events around the same work, as ratios ebb / plain */
    double ratio_min, ratio_median, ratio_max;
    double plain_cheap_s, plain_dear_s; /* the plain loop's medians */
    double host_forward_s;              /* ebb's forward callbacks on the host's clock */
    /* device seconds of the forward steps recomputed (the plain loop's
     * times), online measuring and not */
    double recomputed_measured_s, recomputed_plain_s;
    uint64_t gradient_measured, gradient_plain, reference; /* store-all's */
    char error[512];
} gpu_measured_result;

/* 0, or -1 with result->error set. */
int gpu_measured_run(const gpu_measured_args *args, gpu_measured_result *result);

#endif
