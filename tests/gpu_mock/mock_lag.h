/* Shared helpers for the tests of the fake runtime's lag mode (a header:
 * only *.c files are tests). Their times are lower bounds checked strictly
 * and upper bounds checked loosely: the host may be late on a loaded
 * machine, the device never early. */
#ifndef EBB_TESTS_GPU_MOCK_LAG_H
#define EBB_TESTS_GPU_MOCK_LAG_H

#include <time.h>

#include "gpu_mock/mock_helpers.h"

/* Slack for the host being late (a loaded 2-core machine). */
#define LAG_SLACK_S 0.05

static inline double lag_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void lag_setup(void)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAG);
}

static inline cudaStream_t lag_stream(void)
{
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    return s;
}

static inline cudaEvent_t lag_event(void)
{
    cudaEvent_t e;
    cr_assert_eq(cudaEventCreate(&e), cudaSuccess);
    return e;
}

static inline void *lag_device(size_t n)
{
    void *p = NULL;
    cr_assert_eq(cudaMalloc(&p, n), cudaSuccess);
    return p;
}

static inline unsigned char *lag_pinned(size_t n)
{
    unsigned char *p = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&p, n, cudaHostAllocDefault), cudaSuccess);
    return p;
}

/* Device time from a to b (both complete), in seconds. */
static inline double lag_elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    return (double)ms * 1e-3;
}

/* A host function or kernel body that counts its runs. */
static inline void lag_count(void *p) { ++*(int *)p; }

#endif
