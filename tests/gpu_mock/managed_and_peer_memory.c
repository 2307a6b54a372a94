/* put / get with managed memory, or with memory of another device, copy
 * with cudaMemcpyDefault (unified addressing picks the direction): the mock
 * aborts on cudaMemcpyDeviceToDevice for memory that is not device memory of
 * the copy's own device. gpu -> gpu moves across devices too. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 64 * KiB + 17;

static void put_get_roundtrip(ebb_pool *g, void *mem, void *back)
{
    fill_random(mem, SIZE, 5);
    ebb_ticket t;
    cr_assert_eq(ebb_pool_put(g, 0, mem, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "put");
    cr_assert_eq(ebb_pool_get(g, 0, back, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "get");
    cr_assert(memcmp(mem, back, SIZE) == 0);
}

Test(managed_and_peer_memory, managed)
{
    ebb_pool *g = gpu_pool(0, 1, SIZE, 16 * KiB);
    void *m = NULL, *back = NULL;
    cr_assert_eq(cudaMallocManaged(&m, SIZE, cudaMemAttachGlobal), cudaSuccess);
    cr_assert_eq(cudaMallocManaged(&back, SIZE, cudaMemAttachGlobal), cudaSuccess);
    put_get_roundtrip(g, m, back);
    ebb_pool_destroy(g);
    cr_assert_eq(cudaFree(m), cudaSuccess);
    cr_assert_eq(cudaFree(back), cudaSuccess);
}

Test(managed_and_peer_memory, another_devices_memory)
{
    cuda_mock_set_devices(2);
    ebb_pool *g = gpu_pool(0, 1, SIZE, 16 * KiB);
    void *m = NULL, *back = NULL;
    cr_assert_eq(cudaSetDevice(1), cudaSuccess);
    cr_assert_eq(cudaMalloc(&m, SIZE), cudaSuccess);
    cr_assert_eq(cudaMalloc(&back, SIZE), cudaSuccess);
    put_get_roundtrip(g, m, back);
    int cur = -1;
    cr_assert_eq(cudaGetDevice(&cur), cudaSuccess);
    cr_assert_eq(cur, 1, "the caller's current device changed");
    ebb_pool_destroy(g);
    cr_assert_eq(cudaFree(m), cudaSuccess);
    cr_assert_eq(cudaFree(back), cudaSuccess);
}

Test(managed_and_peer_memory, gpu_to_gpu_across_devices)
{
    cuda_mock_set_devices(2);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    ebb_pool *a = gpu_pool(0, 1, SIZE, 16 * KiB);
    ebb_pool *b = gpu_pool(1, 1, SIZE, 16 * KiB);
    fill_random(slot_ptr(h, 0), SIZE, 6);
    ebb_ticket t;
    cr_assert_eq(ebb_move(a, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(b, 0, a, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu 0 -> gpu 1");
    cr_assert_eq(ebb_move(a, 0, b, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu 1 -> gpu 0");
    cr_assert_eq(ebb_move(h, 1, a, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu 0 -> host");
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), SIZE) == 0);
    ebb_pool_destroy(b);
    ebb_pool_destroy(a);
    ebb_pool_destroy(h);
}
