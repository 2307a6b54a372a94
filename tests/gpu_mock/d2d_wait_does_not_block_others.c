/* A gpu -> gpu copy waits for its source slot's operation (held here); a
 * later, unrelated gpu -> gpu copy of the same destination pool still runs:
 * the wait does not sit in front of it on a shared stream. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 128 * KiB;

Test(d2d_wait_does_not_block_others, unrelated_copy_runs)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *a = gpu_pool(0, 1, SIZE, SIZE);
    ebb_pool *b = gpu_pool(0, 2, SIZE, SIZE);
    ebb_pool *c = gpu_pool(0, 1, SIZE, SIZE);
    fill_random(slot_ptr(h, 0), SIZE, 13);
    fill_random(slot_ptr(h, 1), SIZE, 14);
    ebb_ticket t, ta, tb0, tb1;
    cr_assert_eq(ebb_move(c, 0, h, 1, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "fill c");
    cuda_mock_hold_all();
    cr_assert_eq(ebb_move(a, 0, h, 0, &ta), EBB_OK, "%s", ebb_last_error());
    cudaStream_t sa = cuda_mock_last_stream();
    cuda_mock_release_all();
    cuda_mock_hold(sa);
    cr_assert_eq(ebb_move(b, 0, a, 0, &tb0), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(b, 1, c, 0, &tb1), EBB_OK, "%s", ebb_last_error());
    cuda_mock_run_all();
    cr_assert(!mock_done(&tb0, "b0 <- a0"), "the copy did not wait for its source");
    cr_assert(mock_done(&tb1, "b1 <- c0"), "an unrelated copy waited behind another's wait");
    cr_assert(memcmp(slot_ptr(b, 1), slot_ptr(h, 1), SIZE) == 0);
    cuda_mock_release(sa);
    mock_wait_ok(&tb0, "b0 <- a0");
    cr_assert(memcmp(slot_ptr(b, 0), slot_ptr(h, 0), SIZE) == 0);
    mock_wait_ok(&ta, "a0 <- h0");
    ebb_pool_destroy(c);
    ebb_pool_destroy(b);
    ebb_pool_destroy(a);
    ebb_pool_destroy(h);
}
