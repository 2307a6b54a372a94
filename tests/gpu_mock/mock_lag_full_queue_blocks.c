/* Lag mode with a queue depth: queuing onto a stream whose queue is full
 * sleeps until the device completes a command, as a launch into a GPU's
 * full command queue blocks; below the depth it returns at once. */
#include "gpu_mock/mock_lag.h"

Test(mock_lag, full_queue_blocks_the_host)
{
    lag_setup();
    cuda_mock_set_queue_depth(3);
    cudaStream_t s = lag_stream();
    double t0 = lag_now();
    for (int i = 0; i < 3; i++)
        cuda_mock_kernel(s, 0.040, NULL, NULL);
    double three = lag_now() - t0;
    cr_assert_lt(three, 0.040, "the first three waited (%.1f ms)", three * 1e3);
    cuda_mock_kernel(s, 0.040, NULL, NULL);
    double four = lag_now() - t0;
    cr_assert_geq(four, 0.040, "the fourth was queued %.1f ms in, before the first kernel ended",
                  four * 1e3);
    cr_assert_lt(four, 0.040 + LAG_SLACK_S, "the fourth was queued %.1f ms in, long after the "
                 "first kernel ended", four * 1e3);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_geq(lag_now() - t0, 0.160);
}
