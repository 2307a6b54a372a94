/* A host pool's memory is pinned with cudaHostRegisterPortable, so gpu pools
 * on every device copy it as pinned memory (without the flag, the memory is
 * pinned only for the registering device's context: another device's copies
 * are slow and synchronous, which the fake runtime counts). */
#include "gpu_mock/mock_helpers.h"

static const size_t SIZE = 128 * KiB;

Test(pin_portable, other_devices_copy_it_pinned)
{
    cr_assert_geq(ebb_gpu_count(), 2, "run with CUDA_MOCK_DEVICES=2");
    cuda_mock_set_mode(CUDA_MOCK_LAZY); /* holds decide the interleaving */
    cuda_mock_set_step_probability(0);
    ebb_pool *h = pinned_host_pool(0, 2, SIZE);
    int portable = 0;
    cr_assert_geq(cuda_mock_registration(slot_ptr(h, 0), &portable), 0);
    cr_assert_eq(portable, 1, "registered without cudaHostRegisterPortable");
    ebb_pool *g1 = gpu_pool(1, 1, SIZE, SIZE);
    fill_random(slot_ptr(h, 0), SIZE, 12);
    uint64_t u0 = cuda_mock_unportable_copies();
    ebb_ticket t;
    cr_assert_eq(ebb_move(g1, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host -> gpu on device 1");
    cr_assert_eq(ebb_move(h, 1, g1, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu on device 1 -> host");
    cr_assert_eq(cuda_mock_unportable_copies(), u0, "device 1 copied it as pageable memory");
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), SIZE) == 0);
    ebb_pool_destroy(g1);
    ebb_pool_destroy(h);
}
