/* CUDA's sticky errors: the codes the runtime documents as leaving the
 * context unusable ("any further CUDA work will return the same error",
 * until cudaDeviceReset). One list for the gpu tier (storage/cuda.c) and
 * the fake CUDA runtime of the tests (tests/cuda_mock), so that the test
 * double cannot drift from what the library treats as fatal. */
#ifndef EBB_STORAGE_CUDA_STICKY_H
#define EBB_STORAGE_CUDA_STICKY_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* The codes added after CUDA 11 are given by value so that older toolkits
 * still compile. */
static const int ebb_cuda_sticky_codes[] = {
    cudaErrorECCUncorrectable,
    cudaErrorIllegalAddress,
    cudaErrorLaunchTimeout,
    cudaErrorAssert,
    cudaErrorHardwareStackError,
    cudaErrorIllegalInstruction,
    cudaErrorMisalignedAddress,
    cudaErrorInvalidAddressSpace,
    cudaErrorInvalidPc,
    cudaErrorLaunchFailure,
    226, /* cudaErrorContained */
    721, /* cudaErrorTensorMemoryLeak */
    810, /* cudaErrorMpsClientTerminated */
    911, /* cudaErrorExternalDevice */
};

#define EBB_CUDA_STICKY_COUNT (sizeof ebb_cuda_sticky_codes / sizeof ebb_cuda_sticky_codes[0])

static inline int ebb_cuda_sticky_code(int e)
{
    for (size_t i = 0; i < EBB_CUDA_STICKY_COUNT; i++)
        if (ebb_cuda_sticky_codes[i] == e)
            return 1;
    return 0;
}

#endif
