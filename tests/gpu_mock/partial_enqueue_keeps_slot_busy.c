/* When queueing a copy fails part way (a later chunk's cudaMemcpyAsync is
 * refused), the call fails with EBB_ERR_IO, and the chunks already queued
 * still run: the slot stays busy until they completed, and then works. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 64 * KiB;

Test(partial_enqueue_keeps_slot_busy, put)
{
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 1, SIZE, 16 * KiB); /* 4 chunks */
    fill_random(slot_ptr(h, 0), SIZE, 1);
    cuda_mock_hold_all();
    cuda_mock_fail_call("cudaMemcpyAsync", 2, 1, cudaErrorInvalidValue);
    ebb_ticket t;
    cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 0), &t), EBB_ERR_IO, "the failure was lost");
    cr_assert(strstr(ebb_last_error(), "cudaErrorInvalidValue") != NULL, "%s", ebb_last_error());
    cr_assert_eq(cudaPeekAtLastError(), cudaSuccess, "the library left its error pending");
    cr_assert_eq(cuda_mock_pending_touching(slot_ptr(g, 0), SIZE), 2);
    /* the two chunks queued still write the slot: it is busy */
    cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 1), &t), EBB_ERR_STATE,
                 "a slot with chunks in flight accepted a put");
    cr_assert(strstr(ebb_last_error(), "gpu slot 0 is busy") != NULL, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_ERR_STATE, "a slot being written was read");
    cuda_mock_release_all();
    cuda_mock_run_all();
    /* the failure was returned already: nothing is reported again */
    cr_assert_eq(ebb_pool_put(g, 0, slot_ptr(h, 0), &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "put");
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu -> host");
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), SIZE) == 0);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}

/* The same for gpu -> host: the host slot stays tracked as well. */
Test(partial_enqueue_keeps_slot_busy, gpu_to_host)
{
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *g = gpu_pool(0, 1, SIZE, 16 * KiB);
    ebb_ticket t;
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu");
    cuda_mock_hold_all();
    cuda_mock_fail_call("cudaMemcpyAsync", 1, 1, cudaErrorInvalidValue);
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_ERR_IO);
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_ERR_STATE, "gpu slot looks idle");
    cr_assert_eq(ebb_pool_put(h, 1, slot_ptr(h, 0), &t), EBB_ERR_STATE, "host slot looks idle");
    cuda_mock_release_all();
    cuda_mock_run_all();
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu -> host");
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}
