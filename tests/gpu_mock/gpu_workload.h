/* The workload of tests/runtime/workload.h with its states on the fake GPU,
 * for the gpu_mock tests that run a whole run (a header: only *.c files are
 * tests). Each callback first waits for the run's stream (the state's copies
 * are on it), then steps or hashes the state as workload.h does (the mock's
 * device memory is host memory); `observe`, when set, records what a test
 * wants to see at each reverse step, while the run is alive. */
#ifndef EBB_TESTS_GPU_MOCK_GPU_WORKLOAD_H
#define EBB_TESTS_GPU_MOCK_GPU_WORKLOAD_H

#include <cuda_runtime_api.h>

#include "runtime/workload.h"

typedef struct gpu_wl {
    wl w;
    cudaStream_t stream;
    void (*observe)(struct gpu_wl *g);
} gpu_wl;

static inline int gpu_wl_forward(void *user, int64_t k, const void *in, void *out)
{
    gpu_wl *g = user;
    g->w.forward_calls++;
    if (cudaStreamSynchronize(g->stream) != cudaSuccess)
        return 98;
    wl_step(&g->w, k, in, out);
    return g->w.last_at == k ? EBB_STEP_LAST : EBB_STEP_OK;
}

static inline int gpu_wl_reverse(void *user, int64_t k, void *state)
{
    gpu_wl *g = user;
    g->w.reverse_calls++;
    if (cudaStreamSynchronize(g->stream) != cudaSuccess)
        return 98;
    if (g->observe)
        g->observe(g);
    g->w.adjoint = XXH3_64bits_withSeed(state, g->w.size, g->w.adjoint ^ (uint64_t)k);
    return EBB_STEP_OK;
}

#endif
