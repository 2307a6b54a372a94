/* Lag mode: a host -> device and a device -> host copy on two streams run
 * at once (two copy engines): both are done after about the longer one. */
#include "gpu_mock/mock_lag.h"

static const size_t N = 1 << 20;

Test(mock_lag, opposite_directions_overlap)
{
    lag_setup();
    /* 40 ms a copy, each way */
    cuda_mock_set_copy_model(CUDA_MOCK_H2D, (double)N / 0.040, 0);
    cuda_mock_set_copy_model(CUDA_MOCK_D2H, (double)N / 0.040, 0);
    unsigned char *h1 = lag_pinned(N), *h2 = lag_pinned(N);
    void *d1 = lag_device(N), *d2 = lag_device(N);
    cudaStream_t a = lag_stream(), b = lag_stream();
    cudaEvent_t start = lag_event(), ea = lag_event(), eb = lag_event();
    double t0 = lag_now();
    cr_assert_eq(cudaEventRecord(start, a), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d1, h1, N, cudaMemcpyHostToDevice, a), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ea, a), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(h2, d2, N, cudaMemcpyDeviceToHost, b), cudaSuccess);
    cr_assert_eq(cudaEventRecord(eb, b), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(ea), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(eb), cudaSuccess);
    double wall = lag_now() - t0;
    double ta = lag_elapsed(start, ea), tb = lag_elapsed(start, eb);
    cr_assert_geq(ta, 0.040 - 1e-6, "h2d done after %.3f ms", ta * 1e3);
    cr_assert_geq(wall, 0.040);
    /* serialised they would end at 80 ms */
    cr_assert_lt(tb, 0.060, "d2h done after %.3f ms: it waited for the h2d copy", tb * 1e3);
    cr_assert_lt(wall, 0.080 + LAG_SLACK_S, "both done after %.3f ms", wall * 1e3);
}
