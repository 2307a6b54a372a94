/* Lag mode: an event recorded after a kernel completes no earlier than the
 * kernel's modelled end, and cudaEventElapsedTime gives its duration on
 * the device clock, however late the host looks. */
#include "gpu_mock/mock_lag.h"

Test(mock_lag, event_after_kernel_completes_at_its_end)
{
    lag_setup();
    cudaStream_t s = lag_stream();
    cudaEvent_t before = lag_event(), after = lag_event();
    double t0 = lag_now();
    cr_assert_eq(cudaEventRecord(before, s), cudaSuccess);
    cuda_mock_kernel(s, 0.030, NULL, NULL);
    cr_assert_eq(cudaEventRecord(after, s), cudaSuccess);
    double seen = 0;
    for (;;) { /* poll, as ebb does */
        cudaError_t q = cudaEventQuery(after);
        seen = lag_now() - t0;
        if (q == cudaSuccess)
            break;
        cr_assert_eq(q, cudaErrorNotReady);
        cr_assert_lt(seen, 10.0, "never completed");
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
    }
    cr_assert_geq(seen, 0.030, "complete after %.3f ms, before the kernel's end", seen * 1e3);
    double dev = lag_elapsed(before, after);
    cr_assert_geq(dev, 0.030 - 1e-6, "device time %.3f ms", dev * 1e3);
    cr_assert_lt(dev, 0.030 + LAG_SLACK_S, "device time %.3f ms", dev * 1e3);

    /* asked 150 ms after a 20 ms kernel: still 20 ms on the device */
    cudaEvent_t a = lag_event(), b = lag_event();
    cr_assert_eq(cudaEventRecord(a, s), cudaSuccess);
    cuda_mock_kernel(s, 0.020, NULL, NULL);
    cr_assert_eq(cudaEventRecord(b, s), cudaSuccess);
    struct timespec late = {0, 150000000};
    nanosleep(&late, NULL);
    dev = lag_elapsed(a, b);
    cr_assert_geq(dev, 0.020 - 1e-6, "device time %.3f ms", dev * 1e3);
    cr_assert_lt(dev, 0.020 + LAG_SLACK_S, "device time %.3f ms: the host's clock?", dev * 1e3);
}
