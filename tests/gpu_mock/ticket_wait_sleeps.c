/* A ticket wait sleeps instead of polling: a store waits for a long kernel
 * (1000 steps of the fake device) and the fake runtime counts a handful of
 * polls at most, and one sleep. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 256 * KiB;

Test(ticket_wait_sleeps, long_wait_does_not_spin)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    cuda_mock_set_kernel_pieces(1000);
    ebb_pool *h = pinned_host_pool(0, 1, SIZE);
    ebb_pool *g = gpu_pool(0, 1, SIZE, 64 * KiB);
    cudaStream_t user;
    cr_assert_eq(cudaStreamCreateWithFlags(&user, cudaStreamNonBlocking), cudaSuccess);
    cuda_mock_kernel_fill(user, slot_ptr(g, 0), SIZE, 0x77);
    cr_assert_eq(ebb_pool_order_after(g, user), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t;
    cr_assert_eq(ebb_move(h, 0, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    uint64_t p0 = cuda_mock_polls(), s0 = cuda_mock_sleeps();
    mock_wait_ok(&t, "store");
    uint64_t polls = cuda_mock_polls() - p0, sleeps = cuda_mock_sleeps() - s0;
    cr_assert_leq(polls, 4, "the wait polled %llu times", (unsigned long long)polls);
    cr_assert_geq(sleeps, 1);
    cr_assert(mock_all_bytes(slot_ptr(h, 0), SIZE, 0x77));
    cr_assert_eq(cudaStreamDestroy(user), cudaSuccess);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
