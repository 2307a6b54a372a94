/* The C side of tests/fortran/bitwise.f90: the C example's gradient
 * (examples/reaction_diffusion/adjoint.c) for the same options, the C
 * compiler's layout of the structs the Fortran module mirrors, and the
 * values of the ebb_config_key constants it mirrors. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reaction_diffusion/adjoint.h"

int rdtest_c_gradient(int64_t points, int64_t steps, const ebb_run_options *base, double *lambda,
                      double *grad_r, double *objective);
size_t rdtest_run_options_layout(size_t *offsets);
size_t rdtest_run_stats_layout(size_t *offsets);
size_t rdtest_config_keys(int *keys);

/* J, dJ/du0 and dJ/dr of the C example; its status (ebb_last_error: why). */
int rdtest_c_gradient(int64_t points, int64_t steps, const ebb_run_options *base, double *lambda,
                      double *grad_r, double *objective)
{
    rd_params p;
    rd_params_default(&p, points, steps);
    double *u0 = malloc((size_t)points * sizeof(double));
    double *target = malloc((size_t)points * sizeof(double));
    rd_adjoint a;
    if (!u0 || !target || rd_adjoint_init(&a, &p, target) != 0) {
        free(u0);
        free(target);
        return EBB_ERR_NO_MEMORY;
    }
    rd_initial(&p, u0);
    rd_target(&p, target);
    ebb_status s = rd_gradient(&a, u0, base, NULL);
    if (s == EBB_OK) {
        memcpy(lambda, a.lambda, (size_t)points * sizeof(double));
        *grad_r = a.grad_r;
        *objective = a.objective;
    }
    rd_adjoint_free(&a);
    free(u0);
    free(target);
    return s;
}

#define OFF(type, field) offsetof(type, field)

/* Offsets of every field, in declaration order; returns sizeof. */
size_t rdtest_run_options_layout(size_t *o)
{
    size_t i = 0;
    o[i++] = OFF(ebb_run_options, state_size);
    o[i++] = OFF(ebb_run_options, state_tier);
    o[i++] = OFF(ebb_run_options, device);
    o[i++] = OFF(ebb_run_options, stream);
    o[i++] = OFF(ebb_run_options, forward);
    o[i++] = OFF(ebb_run_options, forward_inplace);
    o[i++] = OFF(ebb_run_options, reverse);
    o[i++] = OFF(ebb_run_options, user);
    o[i++] = OFF(ebb_run_options, steps);
    o[i++] = OFF(ebb_run_options, config);
    o[i++] = OFF(ebb_run_options, strategy);
    o[i++] = OFF(ebb_run_options, fast_tier);
    o[i++] = OFF(ebb_run_options, slow_tier);
    o[i++] = OFF(ebb_run_options, slots);
    o[i++] = OFF(ebb_run_options, slow_slots);
    o[i++] = OFF(ebb_run_options, period);
    o[i++] = OFF(ebb_run_options, io_ratio);
    o[i++] = OFF(ebb_run_options, audit);
    o[i++] = OFF(ebb_run_options, staging);
    o[i++] = OFF(ebb_run_options, trace);
    o[i++] = OFF(ebb_run_options, forward_seconds);
    o[i++] = OFF(ebb_run_options, reverse_seconds);
    o[i++] = OFF(ebb_run_options, element);
    o[i++] = OFF(ebb_run_options, dims);
    o[i++] = OFF(ebb_run_options, shape);
    o[i++] = OFF(ebb_run_options, error_samples);
    o[i++] = OFF(ebb_run_options, forward_costs);
    o[i++] = OFF(ebb_run_options, reverse_costs);
    o[i++] = OFF(ebb_run_options, measure_costs);
    o[i++] = OFF(ebb_run_options, state_sizes);
    return sizeof(ebb_run_options);
}

size_t rdtest_run_stats_layout(size_t *o)
{
    size_t i = 0;
    o[i++] = OFF(ebb_run_stats, steps);
    o[i++] = OFF(ebb_run_stats, forward_steps);
    o[i++] = OFF(ebb_run_stats, recomputed_steps);
    o[i++] = OFF(ebb_run_stats, reverse_steps);
    o[i++] = OFF(ebb_run_stats, stores);
    o[i++] = OFF(ebb_run_stats, restores);
    o[i++] = OFF(ebb_run_stats, copies);
    o[i++] = OFF(ebb_run_stats, prefetches);
    o[i++] = OFF(ebb_run_stats, cache_hits);
    o[i++] = OFF(ebb_run_stats, bytes_written);
    o[i++] = OFF(ebb_run_stats, bytes_read);
    o[i++] = OFF(ebb_run_stats, peak_slots);
    o[i++] = OFF(ebb_run_stats, stall_s);
    o[i++] = OFF(ebb_run_stats, stall_total_s);
    o[i++] = OFF(ebb_run_stats, forward_callback_s);
    o[i++] = OFF(ebb_run_stats, reverse_callback_s);
    o[i++] = OFF(ebb_run_stats, copy_s);
    o[i++] = OFF(ebb_run_stats, forward_sweep_s);
    o[i++] = OFF(ebb_run_stats, reverse_sweep_s);
    o[i++] = OFF(ebb_run_stats, wall_s);
    o[i++] = OFF(ebb_run_stats, bytes_before_compression);
    o[i++] = OFF(ebb_run_stats, bytes_after_compression);
    o[i++] = OFF(ebb_run_stats, stored_raw);
    o[i++] = OFF(ebb_run_stats, codec_s);
    o[i++] = OFF(ebb_run_stats, stored_raw_slower);
    o[i++] = OFF(ebb_run_stats, codec_ratio);
    o[i++] = OFF(ebb_run_stats, compress_bps);
    o[i++] = OFF(ebb_run_stats, decompress_bps);
    o[i++] = OFF(ebb_run_stats, bytes_before_compression_tier);
    o[i++] = OFF(ebb_run_stats, bytes_after_compression_tier);
    o[i++] = OFF(ebb_run_stats, codec_s_tier);
    o[i++] = OFF(ebb_run_stats, compressions);
    o[i++] = OFF(ebb_run_stats, decompressions);
    o[i++] = OFF(ebb_run_stats, host_compress_bps);
    o[i++] = OFF(ebb_run_stats, host_decompress_bps);
    o[i++] = OFF(ebb_run_stats, error_samples);
    o[i++] = OFF(ebb_run_stats, error_samples_differ);
    o[i++] = OFF(ebb_run_stats, state_rel_error_max);
    o[i++] = OFF(ebb_run_stats, state_rel_error_rms);
    o[i++] = OFF(ebb_run_stats, gradient_rel_error_estimate);
    return sizeof(ebb_run_stats);
}

/* The EBB_KEY_* the Fortran module names, in its order; returns how many. */
size_t rdtest_config_keys(int *k)
{
    size_t i = 0;
    k[i++] = EBB_KEY_RUN_STRATEGY;
    k[i++] = EBB_KEY_RUN_AUDIT;
    k[i++] = EBB_KEY_RUN_ERROR_SAMPLES;
    k[i++] = EBB_KEY_GPU_ENABLED;
    k[i++] = EBB_KEY_GPU_BUDGET;
    k[i++] = EBB_KEY_GPU_DEVICE;
    k[i++] = EBB_KEY_GPU_CHUNK_SIZE;
    k[i++] = EBB_KEY_HOST_ENABLED;
    k[i++] = EBB_KEY_HOST_BUDGET;
    k[i++] = EBB_KEY_HOST_NUMA;
    k[i++] = EBB_KEY_HOST_PIN;
    k[i++] = EBB_KEY_HOST_PREFAULT;
    k[i++] = EBB_KEY_HOST_STAGING;
    k[i++] = EBB_KEY_DISK_ENABLED;
    k[i++] = EBB_KEY_DISK_PATH;
    k[i++] = EBB_KEY_DISK_BUDGET;
    return i;
}
