/* Lag mode: cudaStreamSynchronize, cudaEventSynchronize and
 * cudaDeviceSynchronize sleep until the modelled end of what they wait
 * for and return soon after it. */
#include "gpu_mock/mock_lag.h"

static const double K = 0.100; /* the kernel */

static void check(double took, const char *what)
{
    cr_assert_geq(took, K, "%s returned %.3f ms in, before the end", what, took * 1e3);
    cr_assert_lt(took, K + LAG_SLACK_S, "%s returned %.3f ms in, long after the end", what,
                 took * 1e3);
}

Test(mock_lag, stream_synchronize_returns_at_the_end)
{
    lag_setup();
    cudaStream_t s = lag_stream();
    double t0 = lag_now();
    cuda_mock_kernel(s, K, NULL, NULL);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    check(lag_now() - t0, "cudaStreamSynchronize");
}

Test(mock_lag, event_synchronize_returns_at_the_end)
{
    lag_setup();
    cudaStream_t s = lag_stream();
    cudaEvent_t e;
    cr_assert_eq(cudaEventCreateWithFlags(&e, cudaEventBlockingSync), cudaSuccess);
    double t0 = lag_now();
    cuda_mock_kernel(s, K, NULL, NULL);
    cr_assert_eq(cudaEventRecord(e, s), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(e), cudaSuccess);
    check(lag_now() - t0, "cudaEventSynchronize");
}

Test(mock_lag, device_synchronize_returns_at_the_end)
{
    lag_setup();
    cudaStream_t a = lag_stream(), b = lag_stream();
    double t0 = lag_now();
    cuda_mock_kernel(a, K / 2, NULL, NULL);
    cuda_mock_kernel(b, K / 2, NULL, NULL); /* after a's: one compute engine */
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    check(lag_now() - t0, "cudaDeviceSynchronize");
    cr_assert_eq(cudaStreamQuery(a), cudaSuccess);
    cr_assert_eq(cudaStreamQuery(b), cudaSuccess);
}
