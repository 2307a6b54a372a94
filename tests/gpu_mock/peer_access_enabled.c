/* A gpu -> gpu copy between pools on two devices enables peer access first,
 * so that it goes directly (the fake runtime counts copies staged through
 * host memory), and the caller's current device is left alone. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 128 * KiB;

Test(peer_access_enabled, cross_device_copy_direct)
{
    cr_assert_geq(ebb_gpu_count(), 2, "run with CUDA_MOCK_DEVICES=2");
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g0 = gpu_pool(0, 1, SIZE, SIZE);
    ebb_pool *g1 = gpu_pool(1, 1, SIZE, SIZE);
    fill_random(slot_ptr(h, 0), SIZE, 15);
    ebb_ticket t;
    cr_assert_eq(ebb_move(g0, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu 0");
    uint64_t s0 = cuda_mock_staged_copies();
    cr_assert_eq(ebb_move(g1, 0, g0, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu 0 -> gpu 1");
    cr_assert_eq(ebb_move(g0, 0, g1, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu 1 -> gpu 0");
    cr_assert_eq(cuda_mock_staged_copies(), s0, "copies between devices were staged");
    cr_assert_eq(cudaPeekAtLastError(), cudaSuccess, "an error was left pending");
    cr_assert(memcmp(slot_ptr(g1, 0), slot_ptr(h, 0), SIZE) == 0);
    int cur = -1;
    cr_assert_eq(cudaGetDevice(&cur), cudaSuccess);
    cr_assert_eq(cur, 0);
    ebb_pool_destroy(g1);
    ebb_pool_destroy(g0);
    ebb_pool_destroy(h);
}
