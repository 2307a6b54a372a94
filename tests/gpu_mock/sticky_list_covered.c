/* ebb and the fake CUDA runtime agree on CUDA's sticky errors: every code
 * in the one list (storage/cuda_sticky.h) is one the library treats as
 * fatal, and injected as a copy fault into the mock it kills the context
 * until cudaDeviceReset; an error that is not in the list does not. */
#include "gpu_mock/mock_helpers.h"
#include "storage/cuda.h"
#include "storage/cuda_sticky.h"

enum { N = 4096 };

/* A copy on device 0 that fails with `code` when it runs; the context's
 * sticky error afterwards, the context reset again. */
static cudaError_t sticky_after(int code)
{
    static unsigned char host[N]; /* static: reachable for LeakSanitizer */
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    cudaStream_t s;
    void *dev;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaMalloc(&dev, N), cudaSuccess);
    cr_assert_eq(cudaHostRegister(host, N, 0), cudaSuccess);
    cuda_mock_fail_async(0, (cudaError_t)code);
    cr_assert_eq(cudaMemcpyAsync(dev, host, N, cudaMemcpyHostToDevice, s), cudaSuccess);
    cuda_mock_run_all();
    cudaError_t sticky = cuda_mock_sticky_error(0);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess, "code %d", code);
    cr_assert_eq(cuda_mock_sticky_error(0), cudaSuccess, "code %d: reset keeps it", code);
    (void)cudaGetLastError();
    return sticky;
}

Test(sticky_list, every_code_kills_the_mock_context_and_is_fatal_to_ebb)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* the failing copy runs at run_all */
    for (size_t i = 0; i < EBB_CUDA_STICKY_COUNT; i++) {
        int code = ebb_cuda_sticky_codes[i];
        cr_assert(ebb_cuda_sticky((cudaError_t)code), "ebb: code %d is not sticky", code);
        cr_assert_eq((int)sticky_after(code), code, "mock: code %d did not kill the context",
                     code);
    }
}

Test(sticky_list, other_errors_leave_the_context_alive)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY);
    const cudaError_t others[] = {cudaErrorUnknown, cudaErrorInvalidValue,
                                  cudaErrorMemoryAllocation};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        cr_assert(!ebb_cuda_sticky(others[i]), "ebb: code %d is sticky", (int)others[i]);
        cr_assert_eq(sticky_after((int)others[i]), cudaSuccess, "mock: code %d killed it",
                     (int)others[i]);
    }
}
