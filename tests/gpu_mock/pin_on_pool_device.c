/* A host pool made for device 1 is pinned by device 1's context, whichever
 * device the caller has current (0 here), and the caller's current device
 * is left as it was. */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 128 * KiB;

Test(pin_on_pool_device, registered_by_the_pools_device)
{
    cr_assert_geq(ebb_gpu_count(), 2, "run with CUDA_MOCK_DEVICES=2");
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    ebb_pool *h = pinned_host_pool(1, 2, SIZE);
    cr_assert_eq(cuda_mock_registration(slot_ptr(h, 0), NULL), 1,
                 "pinned by device %d's context", cuda_mock_registration(slot_ptr(h, 0), NULL));
    int cur = -1;
    cr_assert_eq(cudaGetDevice(&cur), cudaSuccess);
    cr_assert_eq(cur, 0, "the caller's current device changed");
    ebb_pool_destroy(h);
}
