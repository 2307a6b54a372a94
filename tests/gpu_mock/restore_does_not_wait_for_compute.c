/* ebb_pool_order_after orders only the copies that read the caller's
 * product: with the caller's stream held (its kernel writing gpu slot 1 not
 * done), a host -> gpu restore into slot 0 issued after the call completes,
 * while a gpu -> host store of slot 1 waits until the stream is released,
 * and then holds the kernel's whole output. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 256 * KiB;

Test(restore_does_not_wait_for_compute, restore_runs_store_waits)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 2, SIZE, 64 * KiB);
    cudaStream_t user;
    cr_assert_eq(cudaStreamCreate(&user), cudaSuccess);
    fill_random(slot_ptr(h, 0), SIZE, 3);
    memset(slot_ptr(h, 1), 0, SIZE);
    memset(slot_ptr(g, 1), 0, SIZE);
    cuda_mock_kernel_fill(user, slot_ptr(g, 1), SIZE, 0x5a); /* the forward step */
    cuda_mock_hold(user);
    cr_assert_eq(ebb_pool_order_after(g, user), EBB_OK, "%s", ebb_last_error());
    ebb_ticket restore, store;
    cr_assert_eq(ebb_move(g, 0, h, 0, &restore), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 1, g, 1, &store), EBB_OK, "%s", ebb_last_error());
    cuda_mock_run_all();
    cr_assert(mock_done(&restore, "restore"), "the restore waited for the caller's stream");
    cr_assert(memcmp(slot_ptr(g, 0), slot_ptr(h, 0), SIZE) == 0);
    cr_assert(!mock_done(&store, "store"), "the store did not wait for the caller's stream");
    cuda_mock_release(user);
    mock_wait_ok(&store, "store");
    cr_assert(mock_all_bytes(slot_ptr(h, 1), SIZE, 0x5a), "the store read a half-written state");
    cr_assert_eq(cudaStreamSynchronize(user), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(user), cudaSuccess);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
