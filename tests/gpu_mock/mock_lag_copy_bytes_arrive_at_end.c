/* Lag mode: a copy's bytes are not at its destination before its modelled
 * end (memory read early is stale, as on a device), and are after it. */
#include "gpu_mock/mock_lag.h"

static const size_t N = 1 << 20;

Test(mock_lag, copy_bytes_arrive_at_its_end)
{
    lag_setup();
    cuda_mock_set_copy_model(CUDA_MOCK_H2D, (double)N / 0.100, 0); /* 100 ms */
    unsigned char *h = lag_pinned(N), *d = lag_device(N);
    memset(h, 0xAB, N);
    memset(d, 0x11, N);
    cudaStream_t s = lag_stream();
    double t0 = lag_now();
    cr_assert_eq(cudaMemcpyAsync(d, h, N, cudaMemcpyHostToDevice, s), cudaSuccess);
    cr_assert(mock_all_bytes(d, N, 0x11), "the bytes moved when the copy was queued");
    struct timespec nap = {0, 30000000};
    nanosleep(&nap, NULL);
    cr_assert_eq(cudaStreamQuery(s), cudaErrorNotReady);
    double at = lag_now() - t0;
    if (at < 0.100) /* else the host was late: nothing to see */
        cr_assert(mock_all_bytes(d, N, 0x11), "the bytes moved %.1f ms into a 100 ms copy",
                  at * 1e3);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_geq(lag_now() - t0, 0.100);
    cr_assert(mock_all_bytes(d, N, 0xAB), "the copy moved nothing");
}
