/* ebb_pool_slot_order_after: a restore into a gpu slot waits for the
 * caller's work on that slot (queued before the call), and only for it: a
 * restore into another slot goes ahead while the stream is held. The slot
 * ends with the restored data, not the kernel's. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 256 * KiB;

Test(restore_waits_for_slot_use, write_after_the_callers_use)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 2, SIZE, 64 * KiB);
    cudaStream_t user;
    cr_assert_eq(cudaStreamCreateWithFlags(&user, cudaStreamNonBlocking), cudaSuccess);
    fill_random(slot_ptr(h, 0), SIZE, 5);
    fill_random(slot_ptr(h, 1), SIZE, 6);
    cuda_mock_kernel_fill(user, slot_ptr(g, 0), SIZE, 0x11); /* the step that used slot 0 */
    cr_assert_eq(ebb_pool_slot_order_after(g, 0, user), EBB_OK, "%s", ebb_last_error());
    cuda_mock_hold(user);
    cr_assert_eq(ebb_pool_order_after(g, user), EBB_OK, "%s", ebb_last_error());
    ebb_ticket into0, into1;
    cr_assert_eq(ebb_move(g, 0, h, 0, &into0), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(g, 1, h, 1, &into1), EBB_OK, "%s", ebb_last_error());
    cuda_mock_run_all();
    cr_assert(mock_done(&into1, "restore into slot 1"), "an unrelated restore waited");
    cr_assert(!mock_done(&into0, "restore into slot 0"),
              "the restore did not wait for the caller's use of its slot");
    cuda_mock_release(user);
    mock_wait_ok(&into0, "restore into slot 0");
    cr_assert_eq(cudaStreamSynchronize(user), cudaSuccess);
    cr_assert(memcmp(slot_ptr(g, 0), slot_ptr(h, 0), SIZE) == 0, "the kernel overwrote it");
    cr_assert_eq(ebb_pool_slot_order_after(g, 2, user), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_pool_slot_order_after(h, 0, user), EBB_ERR_INVALID_ARG);
    cr_assert_eq(cudaStreamDestroy(user), cudaSuccess);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
