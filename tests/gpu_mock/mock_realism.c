/* The fake CUDA runtime models what the runtime documents, including what
 * goes wrong: stream flags and the legacy default stream's implicit
 * synchronisation, kernels that take time, the special stream handles,
 * events across devices, sticky errors, blocking-sync events and polling,
 * the Portable flag, contexts, and peer access. */
#include "gpu_mock/mock_helpers.h"

static const size_t N = 4096;

static void *dev_alloc(size_t n)
{
    void *p = NULL;
    cr_assert_eq(cudaMalloc(&p, n), cudaSuccess);
    return p;
}

static unsigned char *pinned(size_t n)
{
    unsigned char *p = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&p, n, cudaHostAllocPortable), cudaSuccess);
    return p;
}

static int all_bytes(const void *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != (unsigned char)v)
            return 0;
    return 1;
}

/* A kernel on the legacy stream: a blocking stream's later copy waits for it,
 * a non-blocking stream's copy does not. */
Test(mock_realism, legacy_stream_blocks_only_blocking_streams)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    unsigned char *dev = dev_alloc(N), *h1 = pinned(N), *h2 = pinned(N);
    memset(dev, 1, N);
    cudaStream_t blk, nb;
    cr_assert_eq(cudaStreamCreate(&blk), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cuda_mock_stream_blocking(blk), 1);
    cr_assert_eq(cuda_mock_stream_blocking(nb), 0);
    cuda_mock_kernel_fill(NULL, dev, N, 7);
    cuda_mock_hold(NULL);
    cr_assert_eq(cudaMemcpyAsync(h1, dev, N, cudaMemcpyDeviceToHost, blk), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(h2, dev, N, cudaMemcpyDeviceToHost, nb), cudaSuccess);
    cuda_mock_run_all();
    cr_assert_eq(cudaStreamQuery(nb), cudaSuccess, "the non-blocking copy waited");
    cr_assert(all_bytes(h2, N, 1), "it ran before the kernel");
    cr_assert_eq(cudaStreamQuery(blk), cudaErrorNotReady, "the blocking copy did not wait");
    cuda_mock_release(NULL);
    cr_assert_eq(cudaStreamSynchronize(blk), cudaSuccess);
    cr_assert(all_bytes(h1, N, 7), "the blocking copy read before the kernel finished");
}

/* Work on the legacy stream waits for the earlier work of blocking streams. */
Test(mock_realism, legacy_stream_waits_for_blocking_streams)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    unsigned char *dev = dev_alloc(N), *h = pinned(N);
    cudaStream_t blk;
    cr_assert_eq(cudaStreamCreate(&blk), cudaSuccess);
    cuda_mock_kernel_fill(blk, dev, N, 3);
    cuda_mock_hold(blk);
    cr_assert_eq(cudaMemcpyAsync(h, dev, N, cudaMemcpyDeviceToHost, cudaStreamLegacy), cudaSuccess);
    cuda_mock_run_all();
    cr_assert_eq(cudaStreamQuery(NULL), cudaErrorNotReady);
    cuda_mock_release(blk);
    cr_assert_eq(cudaStreamSynchronize(NULL), cudaSuccess);
    cr_assert(all_bytes(h, N, 3));
}

/* A kernel writes its buffer in pieces as the mock advances. */
Test(mock_realism, kernel_writes_over_time)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    cuda_mock_set_kernel_pieces(4);
    unsigned char *dev = dev_alloc(N);
    memset(dev, 0, N);
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    cuda_mock_set_step_probability(1);
    cuda_mock_kernel_fill(s, dev, N, 9);
    cr_assert_eq(cudaStreamQuery(s), cudaErrorNotReady); /* one piece ran */
    cr_assert(all_bytes(dev, N / 4, 9) && all_bytes(dev + N / 4, N - N / 4, 0));
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert(all_bytes(dev, N, 9));
}

/* cudaStreamPerThread is a blocking stream; cudaStreamLegacy is NULL's. */
Test(mock_realism, special_stream_handles)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    unsigned char *dev = dev_alloc(N), *h = pinned(N);
    cuda_mock_kernel_fill(cudaStreamLegacy, dev, N, 5);
    cuda_mock_hold(NULL);
    cr_assert_eq(cuda_mock_stream_blocking(cudaStreamPerThread), 1);
    cr_assert_eq(cudaMemcpyAsync(h, dev, N, cudaMemcpyDeviceToHost, cudaStreamPerThread),
                 cudaSuccess);
    cuda_mock_run_all();
    cr_assert_eq(cudaStreamQuery(cudaStreamPerThread), cudaErrorNotReady);
    cuda_mock_release(cudaStreamLegacy);
    cr_assert_eq(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    cr_assert(all_bytes(h, N, 5));
}

/* A stream may wait for an event of another device; an event cannot be
 * recorded on another device's stream. */
Test(mock_realism, events_across_devices)
{
    cuda_mock_set_devices(2);
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    cr_assert_eq(cudaSetDevice(1), cudaSuccess);
    cudaEvent_t ev1;
    cudaStream_t s1;
    cr_assert_eq(cudaEventCreateWithFlags(&ev1, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    unsigned char *d1 = dev_alloc(N);
    cuda_mock_kernel_fill(s1, d1, N, 4);
    cr_assert_eq(cudaEventRecord(ev1, s1), cudaSuccess);
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    cudaStream_t s0;
    cr_assert_eq(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ev1, s0), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    cuda_mock_hold(s1);
    cr_assert_eq(cudaStreamWaitEvent(s0, ev1, 0), cudaSuccess);
    unsigned char *h = pinned(N);
    cr_assert_eq(cudaMemcpyAsync(h, d1, N, cudaMemcpyDefault, s0), cudaSuccess);
    cuda_mock_run_all();
    cr_assert_eq(cudaStreamQuery(s0), cudaErrorNotReady, "the cross-device wait was ignored");
    cuda_mock_release(s1);
    cr_assert_eq(cudaStreamSynchronize(s0), cudaSuccess);
    cr_assert(all_bytes(h, N, 4));
}

/* A copy fault with a sticky error: every later call in the context fails
 * with it (cudaGetLastError cannot clear it) until cudaDeviceReset; the
 * other device's context is unaffected. */
Test(mock_realism, sticky_error_until_reset)
{
    cuda_mock_set_devices(2);
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* the failing copy runs at run_all */
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    unsigned char *dev = dev_alloc(N), *h = pinned(N);
    cudaEvent_t before, after;
    cr_assert_eq(cudaEventCreateWithFlags(&before, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaEventCreateWithFlags(&after, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaEventRecord(before, s), cudaSuccess);
    cuda_mock_fail_async(0, cudaErrorIllegalAddress);
    cr_assert_eq(cudaMemcpyAsync(dev, h, N, cudaMemcpyHostToDevice, s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(after, s), cudaSuccess);
    cuda_mock_run_all();
    cr_assert_eq(cuda_mock_sticky_error(0), cudaErrorIllegalAddress);
    cr_assert_eq(cudaEventQuery(before), cudaErrorIllegalAddress, "sticky for every event");
    cr_assert_eq(cudaMemcpyAsync(dev, h, N, cudaMemcpyHostToDevice, s), cudaErrorIllegalAddress);
    void *p;
    cr_assert_eq(cudaMalloc(&p, N), cudaErrorIllegalAddress);
    cr_assert_eq(cudaGetLastError(), cudaErrorIllegalAddress);
    cr_assert_eq(cudaGetLastError(), cudaErrorIllegalAddress, "a sticky error was cleared");
    cr_assert_eq(cudaFree(dev), cudaErrorIllegalAddress);
    cr_assert_eq(cudaSetDevice(1), cudaSuccess);
    cr_assert_eq(cudaMalloc(&p, N), cudaSuccess, "device 1 is not affected");
    cr_assert_eq(cudaFree(p), cudaSuccess);
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(cudaMalloc(&p, N), cudaSuccess);
    cr_assert_eq(cudaFree(p), cudaSuccess);
    cr_assert_eq(cuda_mock_contexts_created(0), 2, "reset destroys the context");
}

/* Waiting on an event without cudaEventBlockingSync spins (a poll per step
 * of the device); with it the thread sleeps. Queries count as polls. */
Test(mock_realism, blocking_sync_sleeps)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    cuda_mock_set_kernel_pieces(100);
    unsigned char *dev = dev_alloc(N);
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t spin, sleep;
    cr_assert_eq(cudaEventCreateWithFlags(&spin, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaEventCreateWithFlags(&sleep, cudaEventDisableTiming | cudaEventBlockingSync),
                 cudaSuccess);
    uint64_t p0 = cuda_mock_polls();
    cuda_mock_kernel_fill(s, dev, N, 1);
    cr_assert_eq(cudaEventRecord(spin, s), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(spin), cudaSuccess);
    cr_assert_geq(cuda_mock_polls() - p0, 100, "a spinning wait polled %llu times",
                  (unsigned long long)(cuda_mock_polls() - p0));
    p0 = cuda_mock_polls();
    uint64_t s0 = cuda_mock_sleeps();
    cuda_mock_kernel_fill(s, dev, N, 2);
    cr_assert_eq(cudaEventRecord(sleep, s), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(sleep), cudaSuccess);
    cr_assert_eq(cuda_mock_polls() - p0, 0);
    cr_assert_eq(cuda_mock_sleeps() - s0, 1);
    cr_assert_eq(cudaEventQuery(sleep), cudaSuccess);
    cr_assert_eq(cuda_mock_polls() - p0, 1);
}

/* Pinned memory registered by device 0's context without the Portable flag
 * is pageable to device 1 (counted), with it is not; the registration
 * creates a context on the current device. */
Test(mock_realism, portable_flag_and_contexts)
{
    cuda_mock_set_devices(2);
    cr_assert_eq(cuda_mock_contexts_created(0), 0);
    unsigned char *a = malloc(N), *b = malloc(N);
    cr_assert(a && b);
    cr_assert_eq(cudaHostRegister(a, N, 0), cudaSuccess);
    cr_assert_eq(cuda_mock_contexts_created(0), 1);
    cr_assert_eq(cuda_mock_contexts_created(1), 0);
    cr_assert_eq(cudaSetDevice(1), cudaSuccess);
    cr_assert_eq(cuda_mock_contexts_created(1), 1, "cudaSetDevice creates the context");
    cr_assert_eq(cudaHostRegister(b, N, cudaHostRegisterPortable), cudaSuccess);
    int portable = -1;
    cr_assert_eq(cuda_mock_registration(a, &portable), 0);
    cr_assert_eq(portable, 0);
    cr_assert_eq(cuda_mock_registration(b, &portable), 1);
    cr_assert_eq(portable, 1);
    unsigned char *d1 = dev_alloc(N);
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    uint64_t u0 = cuda_mock_unportable_copies();
    cr_assert_eq(cudaMemcpyAsync(d1, b, N, cudaMemcpyHostToDevice, s), cudaSuccess);
    cr_assert_eq(cuda_mock_unportable_copies(), u0);
    cr_assert_eq(cudaMemcpyAsync(d1, a, N, cudaMemcpyHostToDevice, s), cudaSuccess);
    cr_assert_eq(cuda_mock_unportable_copies(), u0 + 1);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(cudaHostUnregister(b), cudaSuccess);
    cr_assert_eq(cudaHostUnregister(a), cudaSuccess);
    free(a);
    free(b);
}

/* A cross-device copy is staged through the host unless peer access is
 * enabled from the stream's device. */
Test(mock_realism, peer_access)
{
    cuda_mock_set_devices(2);
    unsigned char *d0 = dev_alloc(N);
    cr_assert_eq(cudaSetDevice(1), cudaSuccess);
    unsigned char *d1 = dev_alloc(N);
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    uint64_t st0 = cuda_mock_staged_copies();
    cr_assert_eq(cudaMemcpyAsync(d1, d0, N, cudaMemcpyDefault, s), cudaSuccess);
    cr_assert_eq(cuda_mock_staged_copies(), st0 + 1);
    int can = 0;
    cr_assert_eq(cudaDeviceCanAccessPeer(&can, 1, 0), cudaSuccess);
    cr_assert_eq(can, 1);
    cr_assert_eq(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    cr_assert_eq(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessAlreadyEnabled);
    cr_assert_eq(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
    cr_assert_eq(cudaMemcpyAsync(d1, d0, N, cudaMemcpyDefault, s), cudaSuccess);
    cr_assert_eq(cuda_mock_staged_copies(), st0 + 1);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
}
