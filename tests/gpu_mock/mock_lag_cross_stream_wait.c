/* Lag mode: a stream that waits for an event of another stream starts its
 * next copy when the event's work ends, not before; a stream that does not
 * wait copies at once. */
#include "gpu_mock/mock_lag.h"

static const size_t N = 1 << 20;

Test(mock_lag, cross_stream_event_wait)
{
    lag_setup();
    /* 10 ms each way, on separate engines so that only the wait orders them */
    cuda_mock_set_copy_model(CUDA_MOCK_H2D, (double)N / 0.010, 0);
    cuda_mock_set_copy_model(CUDA_MOCK_D2H, (double)N / 0.010, 0);
    unsigned char *h1 = lag_pinned(N), *h2 = lag_pinned(N);
    unsigned char *d1 = lag_device(N), *d2 = lag_device(N);
    memset(h1, 0x33, N);
    memset(d2, 0x44, N);
    cudaStream_t a = lag_stream(), b = lag_stream(), c = lag_stream();
    cudaEvent_t start = lag_event(), kernel = lag_event(), eb = lag_event(), ec = lag_event();
    cr_assert_eq(cudaEventRecord(start, a), cudaSuccess);
    cuda_mock_kernel(a, 0.040, NULL, NULL);
    cr_assert_eq(cudaEventRecord(kernel, a), cudaSuccess);
    cr_assert_eq(cudaStreamWaitEvent(b, kernel, 0), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d1, h1, N, cudaMemcpyHostToDevice, b), cudaSuccess);
    cr_assert_eq(cudaEventRecord(eb, b), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(h2, d2, N, cudaMemcpyDeviceToHost, c), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ec, c), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(ec), cudaSuccess);
    cr_assert(mock_all_bytes(h2, N, 0x44));
    cr_assert_eq(cudaEventQuery(kernel), cudaErrorNotReady, "the kernel ended early");
    cr_assert_eq(cudaEventQuery(eb), cudaErrorNotReady);
    cr_assert_eq(cudaEventSynchronize(eb), cudaSuccess);
    cr_assert(mock_all_bytes(d1, N, 0x33));
    double tc = lag_elapsed(start, ec), tb = lag_elapsed(start, eb);
    cr_assert_lt(tc, 0.010 + LAG_SLACK_S, "the stream that waits for nothing ended at %.3f ms",
                 tc * 1e3);
    cr_assert_geq(tb, 0.050 - 1e-6, "the waiting stream's copy ended %.3f ms in: it did not "
                  "wait for the kernel", tb * 1e3);
    cr_assert_lt(tb, 0.050 + LAG_SLACK_S, "the waiting copy ended %.3f ms in", tb * 1e3);
}
