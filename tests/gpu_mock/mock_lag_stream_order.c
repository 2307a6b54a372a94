/* Lag mode: a stream's commands run in order even on different engines: a
 * copy queued after a kernel starts when the kernel ends, and a host
 * function after both sees both done. */
#include "gpu_mock/mock_lag.h"

static const size_t N = 1 << 20;

typedef struct seen {
    const unsigned char *d;
    int kernel_done;
    int copy_done_at_kernel; /* the copy's bytes were there when the kernel ended */
    int order_ok;            /* the host function ran after the kernel and the copy */
} seen;

static void kernel_end(void *p)
{
    seen *s = p;
    s->kernel_done = 1;
    s->copy_done_at_kernel = mock_all_bytes(s->d, N, 0x5A);
}

static void after_both(void *p)
{
    seen *s = p;
    s->order_ok = s->kernel_done && mock_all_bytes(s->d, N, 0x5A);
}

Test(mock_lag, stream_order_across_engines)
{
    lag_setup();
    cuda_mock_set_copy_model(CUDA_MOCK_H2D, (double)N / 0.020, 0); /* 20 ms */
    unsigned char *h = lag_pinned(N), *d = lag_device(N);
    memset(h, 0x5A, N);
    memset(d, 0, N);
    seen sn = {.d = d};
    cudaStream_t s = lag_stream();
    cudaEvent_t start = lag_event(), copied = lag_event();
    cr_assert_eq(cudaEventRecord(start, s), cudaSuccess);
    cuda_mock_kernel(s, 0.030, kernel_end, &sn);
    cr_assert_eq(cudaMemcpyAsync(d, h, N, cudaMemcpyHostToDevice, s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(copied, s), cudaSuccess);
    cr_assert_eq(cudaLaunchHostFunc(s, after_both, &sn), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(sn.kernel_done, 1);
    cr_assert_eq(sn.copy_done_at_kernel, 0, "the copy ran before the kernel ended");
    cr_assert_eq(sn.order_ok, 1, "the host function ran before the work queued before it");
    double t = lag_elapsed(start, copied);
    cr_assert_geq(t, 0.050 - 1e-6, "the copy ended %.3f ms in: it overlapped the kernel",
                  t * 1e3);
    cr_assert_lt(t, 0.050 + LAG_SLACK_S, "the copy ended %.3f ms in", t * 1e3);
}
