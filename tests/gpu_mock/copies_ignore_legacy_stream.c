/* The pool's copy streams are non-blocking: with a kernel in flight on the
 * legacy default stream (held), a restore and a store of another slot still
 * complete. Blocking copy streams would wait for it (and on a GPU lose all
 * overlap with PyTorch-style default-stream compute). */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 256 * KiB;

Test(copies_ignore_legacy_stream, copies_progress)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 3, SIZE, 64 * KiB);
    fill_random(slot_ptr(h, 0), SIZE, 8);
    fill_random(slot_ptr(g, 1), SIZE, 9);
    cuda_mock_kernel_fill(NULL, slot_ptr(g, 2), SIZE, 0x33);
    cuda_mock_hold(NULL);
    ebb_ticket restore, store;
    cr_assert_eq(ebb_move(g, 0, h, 0, &restore), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 1, g, 1, &store), EBB_OK, "%s", ebb_last_error());
    cuda_mock_run_all();
    cr_assert(mock_done(&restore, "restore"), "a copy waited for the legacy stream");
    cr_assert(mock_done(&store, "store"), "a copy waited for the legacy stream");
    cr_assert(memcmp(slot_ptr(g, 0), slot_ptr(h, 0), SIZE) == 0);
    cr_assert(memcmp(slot_ptr(h, 1), slot_ptr(g, 1), SIZE) == 0);
    cuda_mock_release(NULL);
    cr_assert_eq(cudaStreamSynchronize(NULL), cudaSuccess);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
