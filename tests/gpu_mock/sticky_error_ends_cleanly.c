/* A copy fault with a sticky error kills the context. ebb then ends
 * cleanly: every ticket fails naming the real cause, a host slot whose gpu
 * copy cannot be known to have ended is not reported free, new operations
 * fail with the cause, destroy returns (nothing waits forever), and after
 * cudaDeviceReset the fake runtime holds nothing of ebb's. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 128 * KiB;

static void fails_with_cause(ebb_status s, ebb_status want, const char *what)
{
    cr_assert_eq(s, want, "%s: got %d (%s)", what, (int)s, ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "cudaErrorIllegalAddress") != NULL,
              "%s: '%s' does not name the cause", what, ebb_last_error());
}

Test(sticky_error_ends_cleanly, every_ticket_fails_and_nothing_leaks)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 3, SIZE);
    ebb_pool *g = gpu_pool(0, 3, SIZE, SIZE);
    fill_random(slot_ptr(h, 0), SIZE, 16);
    ebb_ticket t0, t1, t2, u;
    cuda_mock_hold_all();
    cuda_mock_fail_async(0, cudaErrorIllegalAddress);
    cr_assert_eq(ebb_move(g, 0, h, 0, &t0), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 1, g, 1, &t1), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(g, 2, h, 2, &t2), EBB_OK, "%s", ebb_last_error());
    cuda_mock_release_all();
    cuda_mock_run_all();
    cr_assert_eq(cuda_mock_sticky_error(0), cudaErrorIllegalAddress);
    fails_with_cause(ebb_ticket_wait(&t0), EBB_ERR_IO, "the failed copy's ticket");
    fails_with_cause(ebb_ticket_wait(&t1), EBB_ERR_IO, "a ticket of a copy that never ran");
    int done = 0;
    fails_with_cause(ebb_ticket_test(&t2, &done), EBB_ERR_IO, "ticket test");
    cr_assert_eq(done, 1);
    /* host slot 1 waits for a gpu -> host copy that never ran */
    fails_with_cause(ebb_pool_put(h, 1, slot_ptr(h, 0), &u), EBB_ERR_IO, "put into host slot 1");
    fails_with_cause(ebb_move(g, 1, h, 0, &u), EBB_ERR_IO, "a new copy");
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cuda_mock_pending(), 0);
    cr_assert_eq(cudaPeekAtLastError(), cudaSuccess);
}
