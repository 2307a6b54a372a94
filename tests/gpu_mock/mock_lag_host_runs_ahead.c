/* Lag mode: queuing a 50 ms kernel returns at once; until its modelled end
 * the stream and an event after it are not ready and its fn has not run. */
#include "gpu_mock/mock_lag.h"

Test(mock_lag, host_runs_ahead_of_a_kernel)
{
    lag_setup();
    cudaStream_t s = lag_stream();
    cudaEvent_t after = lag_event();
    int ran = 0;
    double t0 = lag_now();
    cuda_mock_kernel(s, 0.050, lag_count, &ran);
    cr_assert_eq(cudaEventRecord(after, s), cudaSuccess);
    double queued = lag_now() - t0;
    cr_assert_eq(cudaStreamQuery(s), cudaErrorNotReady);
    cr_assert_eq(cudaEventQuery(after), cudaErrorNotReady);
    cr_assert_eq(ran, 0, "the kernel's fn ran when it was queued");
    double asked = lag_now() - t0;
    cr_assert_lt(queued, 0.010, "queuing took %.1f ms", queued * 1e3);
    cr_assert_lt(asked, 0.050, "the host was held up (%.1f ms): the check says nothing",
                 asked * 1e3);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(ran, 1);
    cr_assert_eq(cudaEventQuery(after), cudaSuccess);
}
