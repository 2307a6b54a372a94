/* ebb_pool_mark / ebb_pool_mark_reached on a device that lags the host
 * (lag mode): the mark recorded after a 50 ms kernel is not reached while
 * the kernel runs, and is once it ended; a new mark replaces the last; no
 * mark reads as reached; a host pool or a NULL argument is refused. */
#include "gpu_mock/mock_lag.h"

static void refused(ebb_status s, const char *want, const char *what)
{
    cr_assert_eq(s, EBB_ERR_INVALID_ARG, "%s: expected EBB_ERR_INVALID_ARG, got %d", what, (int)s);
    cr_assert(strstr(ebb_last_error(), want) != NULL, "%s: '%s' lacks '%s'", what,
              ebb_last_error(), want);
}

Test(pool_mark, follows_the_device)
{
    lag_setup();
    cudaStream_t s = lag_stream();
    ebb_pool *g = gpu_pool(0, 2, 4096, 0);
    int reached = 0;
    cr_assert_eq(ebb_pool_mark_reached(g, &reached), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(reached, 1, "no mark was recorded: nothing to wait for");

    cuda_mock_kernel(s, 0.050, NULL, NULL);
    cr_assert_eq(ebb_pool_mark(g, s), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_mark_reached(g, &reached), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(reached, 0, "the mark after a running kernel read as reached");
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(ebb_pool_mark_reached(g, &reached), EBB_OK);
    cr_assert_eq(reached, 1, "the kernel ended, the mark did not");

    /* a later mark, after another kernel, is the one asked about */
    cuda_mock_kernel(s, 0.050, NULL, NULL);
    cr_assert_eq(ebb_pool_mark(g, s), EBB_OK);
    cr_assert_eq(ebb_pool_mark_reached(g, &reached), EBB_OK);
    cr_assert_eq(reached, 0, "the old mark was asked about");
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(ebb_pool_mark_reached(g, &reached), EBB_OK);
    cr_assert_eq(reached, 1);
    ebb_pool_destroy(g);
    cudaStreamDestroy(s);
}

Test(pool_mark, refuses_what_has_no_stream)
{
    ebb_pool *h = host_pool(4096, 1);
    int reached = 0;
    refused(ebb_pool_mark(h, NULL), "no CUDA streams", "a host pool's mark");
    refused(ebb_pool_mark_reached(h, &reached), "no CUDA streams", "a host pool's mark");
    refused(ebb_pool_mark(NULL, NULL), "pool is NULL", "a NULL pool");
    ebb_pool *g = gpu_pool(0, 1, 4096, 0);
    refused(ebb_pool_mark_reached(g, NULL), "reached is NULL", "a NULL result");
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
