/* Host slots of a state below a page (48 bytes: 64-byte slots, 64 to a
 * page) are pinned by whole pages: a pool made ready in extents registers
 * each extent from the first page that the slots below it do not share, up
 * to the end of the page holding its last slot (CUDA pins by pages), so
 * every byte of every page holding a ready slot lies in a registered range
 * and no range starts inside a page, and destroying the pool unregisters
 * each range once. Host -> gpu -> host moves of every slot give the state
 * back bitwise. */
#include "gpu_mock/mock_helpers.h"

enum { SIZE = 48, SLOTS = 300 };

Test(host_small_slots_pinned, extents_by_pages_and_moves_bitwise)
{
    cuda_mock_set_mode(CUDA_MOCK_LAZY);
    uint64_t refused = cuda_mock_unregister_refused();
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = SIZE;
    o.slots = SLOTS;
    o.device = 0;
    o.ready_slots = 3; /* extents start inside pages: 3, 6, 12, ... slots */
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(h, &info), EBB_OK);
    cr_assert_eq(info.pinned, 1, "%s", info.warnings);
    cr_assert_leq(info.slot_stride, 64);
    ebb_pool *g = gpu_pool(0, 2, SIZE, 0);
    unsigned char *base = slot_ptr(h, 0);
    static unsigned char want[SIZE];
    for (int32_t s = 0; s + 1 < SLOTS; s++) {
        /* host slot s -> gpu -> host slot s + 1: the extents grow, doubling */
        int32_t back = s + 1;
        fill_random(slot_ptr(h, s), SIZE, (uint64_t)s + 1);
        memcpy(want, slot_ptr(h, s), SIZE);
        ebb_ticket t;
        cr_assert_eq(ebb_move(g, s % 2, h, s, &t), EBB_OK, "slot %d: %s", (int)s,
                     ebb_last_error());
        mock_wait_ok(&t, "host -> gpu");
        cr_assert_eq(ebb_move(h, back, g, s % 2, &t), EBB_OK, "slot %d: %s", (int)back,
                     ebb_last_error());
        mock_wait_ok(&t, "gpu -> host");
        cr_assert(memcmp(slot_ptr(h, back), want, SIZE) == 0, "slot %d -> gpu -> slot %d",
                  (int)s, (int)back);
        cr_assert_eq(cuda_mock_registration(base + (size_t)back * info.slot_stride, NULL), 0,
                     "slot %d is not in a registered range", (int)back);
        /* the pages holding the ready slots, whole */
        ebb_host_debug dbg;
        cr_assert_eq(ebb_host_debug_get(h, &dbg), EBB_OK);
        size_t end = ((size_t)dbg.ready_slots * info.slot_stride + 4095) / 4096 * 4096;
        for (size_t at = 0; at < end; at += 4096) {
            cr_assert_eq(cuda_mock_registration(base + at, NULL), 0, "page at %zu", at);
            cr_assert_eq(cuda_mock_registration(base + at + 4095, NULL), 0,
                         "the end of the page at %zu (%d slots ready)", at,
                         (int)dbg.ready_slots);
        }
    }
    ebb_host_debug dbg;
    cr_assert_eq(ebb_host_debug_get(h, &dbg), EBB_OK);
    cr_assert_eq(dbg.ready_slots, SLOTS);
    cr_assert_geq(dbg.extents, 6, "made ready in %d extents", (int)dbg.extents);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
    for (int32_t s = 0; s < SLOTS; s++) /* every range unregistered */
        cr_assert_eq(cuda_mock_registration(base + (size_t)s * info.slot_stride, NULL), -1,
                     "slot %d", (int)s);
    cr_assert_eq(cuda_mock_unregister_refused(), refused, "an unregistration was refused");
}
