/* The caller's stream may be one of CUDA's special handles:
 * cudaStreamPerThread (ordering a store after a kernel on it) and
 * cudaStreamLegacy (waiting there for a restore) work like any stream. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 64 * KiB;

Test(special_stream_handles, per_thread_and_legacy)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 2, SIZE, SIZE);
    cuda_mock_kernel_fill(cudaStreamPerThread, slot_ptr(g, 0), SIZE, 0x44);
    cuda_mock_hold(cudaStreamPerThread);
    cr_assert_eq(ebb_pool_order_after(g, cudaStreamPerThread), EBB_OK, "%s", ebb_last_error());
    ebb_ticket store, restore;
    cr_assert_eq(ebb_move(h, 0, g, 0, &store), EBB_OK, "%s", ebb_last_error());
    cuda_mock_run_all();
    cr_assert(!mock_done(&store, "store"), "the store did not wait for cudaStreamPerThread");
    cuda_mock_release(cudaStreamPerThread);
    mock_wait_ok(&store, "store");
    cr_assert(mock_all_bytes(slot_ptr(h, 0), SIZE, 0x44));
    fill_random(slot_ptr(h, 1), SIZE, 18);
    cr_assert_eq(ebb_move(g, 1, h, 1, &restore), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_stream_wait(&restore, cudaStreamLegacy), EBB_OK, "%s",
                 ebb_last_error());
    cr_assert_eq(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
    cr_assert(mock_done(&restore, "restore"), "the legacy stream did not wait for the restore");
    cr_assert(memcmp(slot_ptr(g, 1), slot_ptr(h, 1), SIZE) == 0);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
