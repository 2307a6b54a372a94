/* ebb_ticket_stream_wait: the caller's stream waits (on the device) for a
 * restore: with the restore's stream held, the caller's copy of the slot
 * does not run; released, it reads the restored data, not the old. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 128 * KiB;

Test(stream_waits_for_restore, callers_work_after_the_copy)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 1, SIZE);
    ebb_pool *g = gpu_pool(0, 1, SIZE, 32 * KiB);
    unsigned char *out = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&out, SIZE, cudaHostAllocPortable), cudaSuccess);
    cudaStream_t user;
    cr_assert_eq(cudaStreamCreateWithFlags(&user, cudaStreamNonBlocking), cudaSuccess);
    memset(slot_ptr(g, 0), 0, SIZE);
    fill_random(slot_ptr(h, 0), SIZE, 17);
    ebb_ticket t;
    cuda_mock_hold_all();
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    cudaStream_t copy = cuda_mock_last_stream();
    cuda_mock_release_all();
    cuda_mock_hold(copy);
    cr_assert_eq(ebb_ticket_stream_wait(&t, user), EBB_OK, "%s", ebb_last_error());
    /* the reverse step: reads the slot on the caller's stream */
    cr_assert_eq(cudaMemcpyAsync(out, slot_ptr(g, 0), SIZE, cudaMemcpyDeviceToHost, user),
                 cudaSuccess);
    cuda_mock_run_all();
    cr_assert_eq(cudaStreamQuery(user), cudaErrorNotReady, "the stream did not wait");
    cuda_mock_release(copy);
    cr_assert_eq(cudaStreamSynchronize(user), cudaSuccess);
    cr_assert(memcmp(out, slot_ptr(h, 0), SIZE) == 0, "the stream read the slot before the restore");
    mock_wait_ok(&t, "restore");
    cr_assert_eq(cudaStreamDestroy(user), cudaSuccess);
    cr_assert_eq(cudaFreeHost(out), cudaSuccess);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
