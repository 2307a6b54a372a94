/* A pinned host pool made ready in extents (ready_slots) registers each
 * extent with CUDA on its own, when it is made ready: a slot above the
 * ready ones is not registered, and a copy to or from it is never queued
 * before its extent is (the fake runtime aborts on a copy from pageable
 * memory). When registration fails (injected) the move is refused with
 * EBB_ERR_NO_MEMORY, no copy queued, nothing left registered or faulted
 * in; a later move registers it. Destroying the pool unregisters every
 * extent by its base address, and nothing else (the fake runtime counts
 * the unregistrations it refuses, as CUDA does). */
#include "gpu_mock/mock_helpers.h"

enum { SIZE = 64 * 1024, SLOTS = 40 };

static ebb_pool *lazy_pinned(int32_t ready)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = SIZE;
    o.slots = SLOTS;
    o.device = 0;
    o.ready_slots = ready;
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(h, &info), EBB_OK);
    cr_assert_eq(info.pinned, 1, "%s", info.warnings);
    return h;
}

static int32_t ready_of(ebb_pool *h)
{
    ebb_host_debug d;
    cr_assert_eq(ebb_host_debug_get(h, &d), EBB_OK);
    return d.ready_slots;
}

Test(host_pinned_by_extents, registered_before_copied)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY);
    uint64_t refused = cuda_mock_unregister_refused();
    ebb_pool *h = lazy_pinned(2);
    ebb_pool *g = gpu_pool(0, 4, SIZE, 16 * 1024); /* 4 copy chunks a state */
    unsigned char *base = slot_ptr(h, 0);
    size_t stride = SIZE; /* a whole number of pages */
    cr_assert_eq(cuda_mock_registration(base + 1 * stride, NULL), 0);
    cr_assert_eq(cuda_mock_registration(base + 2 * stride, NULL), -1, "not ready, not pinned");
    /* gpu -> host slot 5: slots 2 .. 5 made ready and registered first */
    static unsigned char a[SIZE], b[SIZE];
    fill_random(a, SIZE, 3);
    void *gslot = NULL;
    cr_assert_eq(ebb_pool_slot_ptr(g, 0, &gslot), EBB_OK);
    memcpy(gslot, a, SIZE); /* the mock's device memory is host memory */
    ebb_ticket t;
    cr_assert_eq(ebb_move(h, 5, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu -> host slot 5");
    cr_assert_eq(ready_of(h), 6);
    cr_assert_eq(cuda_mock_registration(base + 5 * stride, NULL), 0);
    cr_assert(memcmp(base + 5 * stride, a, SIZE) == 0);
    /* registration refused: no copy, nothing registered, the slot not ready */
    cuda_mock_fail_call("cudaHostRegister", 0, 1, cudaErrorMemoryAllocation);
    size_t pending = cuda_mock_pending();
    ebb_status st = ebb_move(g, 1, h, 7, &t);
    cr_assert_eq(st, EBB_ERR_NO_MEMORY, "%s: %s", ebb_status_name(st), ebb_last_error());
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, "slot 7 is beyond the 6 slots") && strstr(msg, "cudaHostRegister"),
              "%s", msg);
    cr_assert_eq(cuda_mock_pending(), pending, "a copy was queued");
    cr_assert_eq(cuda_mock_registration(base + 7 * stride, NULL), -1);
    cr_assert_eq(cuda_mock_registration(base + 6 * stride, NULL), -1);
    cr_assert_eq(ready_of(h), 6);
    (void)cudaGetLastError();
    /* then it works: host slot 7 (12 slots ready) -> gpu slot 1 -> host slot 39 (all 40) */
    fill_random(base + 3 * stride, SIZE, 9);
    cr_assert_eq(ebb_move(h, 7, h, 3, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ready_of(h), 12);
    cr_assert_eq(ebb_move(g, 1, h, 7, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "host slot 7 -> gpu");
    cr_assert_eq(ebb_move(h, 39, g, 1, &t), EBB_OK, "%s", ebb_last_error());
    mock_wait_ok(&t, "gpu -> host slot 39");
    cr_assert_eq(ready_of(h), SLOTS);
    cr_assert_eq(cuda_mock_registration(base + 39 * stride, NULL), 0);
    fill_random(b, SIZE, 9);
    cr_assert(memcmp(base + 39 * stride, b, SIZE) == 0);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
    for (int32_t s = 0; s < SLOTS; s++) /* every extent unregistered */
        cr_assert_eq(cuda_mock_registration(base + (size_t)s * stride, NULL), -1, "slot %d", (int)s);
    cr_assert_eq(cuda_mock_unregister_refused(), refused, "an unregistration was refused");
}

/* A pool made ready whole is one registration, as before. */
Test(host_pinned_by_extents, whole_pool_one_registration)
{
    uint64_t refused = cuda_mock_unregister_refused();
    ebb_pool *h = lazy_pinned(0);
    unsigned char *base = slot_ptr(h, 0);
    cr_assert_eq(cuda_mock_registration(base + (size_t)(SLOTS - 1) * SIZE, NULL), 0);
    cr_assert_eq(ready_of(h), SLOTS);
    /* one range: registering a part of it again is refused */
    cr_assert_eq(cudaHostRegister(base + SIZE, SIZE, 0), cudaErrorHostMemoryAlreadyRegistered);
    (void)cudaGetLastError();
    ebb_pool_destroy(h);
    cr_assert_eq(cuda_mock_registration(base, NULL), -1);
    cr_assert_eq(cuda_mock_unregister_refused(), refused);
}
