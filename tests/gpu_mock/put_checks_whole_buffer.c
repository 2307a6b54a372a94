/* ebb_pool_put / ebb_pool_get check the whole of the caller's buffer: a
 * pinned buffer shorter than a slot is refused (EBB_ERR_INVALID_ARG naming
 * its last byte), not copied past its end (the fake runtime aborts on such
 * a copy, as a GPU would read or write pageable memory). */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 128 * KiB;

Test(put_checks_whole_buffer, short_buffers_refused)
{
    ebb_pool *g = gpu_pool(0, 1, SIZE, SIZE);
    unsigned char *half = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&half, SIZE / 2, cudaHostAllocPortable), cudaSuccess);
    void *dhalf = NULL;
    cr_assert_eq(cudaMalloc(&dhalf, SIZE / 2), cudaSuccess);
    ebb_ticket t;
    cr_assert_eq(ebb_pool_put(g, 0, half, &t), EBB_ERR_INVALID_ARG, "short pinned put accepted");
    cr_assert(strstr(ebb_last_error(), "last byte") != NULL, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_get(g, 0, half, &t), EBB_ERR_INVALID_ARG, "short pinned get accepted");
    cr_assert_eq(ebb_pool_put(g, 0, dhalf, &t), EBB_ERR_INVALID_ARG, "short device put accepted");
    cr_assert_eq(ebb_pool_get(g, 0, dhalf, &t), EBB_ERR_INVALID_ARG, "short device get accepted");
    cr_assert_eq(cuda_mock_pending(), 0);
    ebb_pool_destroy(g);
    cr_assert_eq(cudaFree(dhalf), cudaSuccess);
    cr_assert_eq(cudaFreeHost(half), cudaSuccess);
}
