/* Lag mode: two host -> device copies on two streams share the one h2d
 * copy engine: the second ends a copy's time after the first. */
#include "gpu_mock/mock_lag.h"

static const size_t N = 1 << 20;

Test(mock_lag, same_direction_serialises)
{
    lag_setup();
    cuda_mock_set_copy_model(CUDA_MOCK_H2D, (double)N / 0.040, 0); /* 40 ms a copy */
    unsigned char *h1 = lag_pinned(N), *h2 = lag_pinned(N);
    void *d1 = lag_device(N), *d2 = lag_device(N);
    cudaStream_t a = lag_stream(), b = lag_stream();
    cudaEvent_t start = lag_event(), ea = lag_event(), eb = lag_event();
    double t0 = lag_now();
    cr_assert_eq(cudaEventRecord(start, a), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d1, h1, N, cudaMemcpyHostToDevice, a), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ea, a), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d2, h2, N, cudaMemcpyHostToDevice, b), cudaSuccess);
    cr_assert_eq(cudaEventRecord(eb, b), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    double wall = lag_now() - t0;
    double ta = lag_elapsed(start, ea), tb = lag_elapsed(start, eb);
    cr_assert_geq(ta, 0.040 - 1e-6, "first done after %.3f ms", ta * 1e3);
    cr_assert_lt(ta, 0.040 + LAG_SLACK_S, "first done after %.3f ms", ta * 1e3);
    cr_assert_geq(tb, 0.080 - 1e-6, "second done after %.3f ms: the copies overlapped",
                  tb * 1e3);
    cr_assert_geq(wall, 0.080, "the device synchronize returned after %.3f ms", wall * 1e3);
}
