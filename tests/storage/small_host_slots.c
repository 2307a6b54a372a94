/* A host slot of a state below a page is the state rounded up to a cache
 * line (EBB_HOST_SMALL_ALIGN), through the one rule ebb_slot_stride: a
 * 48-byte state takes 64 bytes, so that a 1 MiB budget holds 16,384 of them
 * (the configuration's count and the pool made from it agree); from a page
 * on a slot is whole pages. Small slots share pages with their neighbours:
 * a disk pool moves them through the page cache, the state's bytes only,
 * so a read into one slot leaves the slots beside it as they were. */
#include "storage/helpers.h"

Test(small_host_slots, a_48_byte_state_takes_a_cache_line)
{
    cr_expect_leq(ebb_slot_stride(EBB_TIER_HOST, 48, 0), 64);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, 8, 0), EBB_HOST_SMALL_ALIGN);
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, 65, 0), 128);
    long page = sysconf(_SC_PAGESIZE);
    size_t p = page >= 4096 ? (size_t)page : 4096;
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, p - 64, 0), p - 64, "the last small one");
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, p - 63, 0), p, "a page");
    cr_expect_eq(ebb_slot_stride(EBB_TIER_HOST, p + 1, 0), 2 * p, "whole pages");
    ebb_pool *h = host_pool(48, 3);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(h, &info), EBB_OK);
    cr_expect_leq(info.slot_stride, 64);
    cr_expect_eq((char *)slot_ptr(h, 2) - (char *)slot_ptr(h, 1), (ptrdiff_t)info.slot_stride);
    ebb_pool_destroy(h);
}

Test(small_host_slots, a_mebibyte_holds_16384_states_of_48_bytes)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.host.budget = MiB;
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 48, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_geq(o.slots, 16384, "1 MiB holds %d slots of a 48-byte state", (int)o.slots);
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(h, &info), EBB_OK);
    cr_expect_eq(info.slots, o.slots);
    cr_expect_leq(info.bytes, (uint64_t)MiB, "the pool takes %llu bytes of its 1 MiB",
                  (unsigned long long)info.bytes);
    ebb_pool_destroy(h);
    ebb_config_dispose(&cfg);
}

/* Host slots 0 .. SLOTS - 1 hold the states; above them the copies read
 * back from disk alternate with slots of a pattern that no move may touch. */
static void round_trip_keeps_neighbours(size_t size, ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    enum { SLOTS = 70 }; /* more than a page of 48-byte slots */
    ebb_pool *h = host_pool(size, 3 * SLOTS);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, SLOTS, backend);
    ebb_pool *d = create_or_skip(&o, NULL);
    for (int32_t s = 0; s < SLOTS; s++)
        memset(slot_ptr(h, SLOTS + 2 * s + 1), 0xA5, size);
    ebb_ticket *t = calloc(SLOTS, sizeof *t);
    cr_assert_not_null(t);
    for (int round = 0; round < 3; round++) {
        for (int32_t s = 0; s < SLOTS; s++) {
            fill_random(slot_ptr(h, s), size, (uint64_t)(round * SLOTS + s + 1));
            cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait_all(t, SLOTS), EBB_OK, "%s", ebb_last_error());
        for (int32_t s = 0; s < SLOTS; s++) {
            memset(slot_ptr(h, SLOTS + 2 * s), 0, size);
            cr_assert_eq(ebb_move(h, SLOTS + 2 * s, d, s, &t[s]), EBB_OK, "%s",
                         ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait_all(t, SLOTS), EBB_OK, "%s", ebb_last_error());
        for (int32_t s = 0; s < SLOTS; s++)
            cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, SLOTS + 2 * s), size) == 0,
                      "%zu-byte state in slot %d differs after the disk round trip (round %d)",
                      size, (int)s, round);
        for (int32_t s = SLOTS + 1; s < 3 * SLOTS; s += 2) {
            const unsigned char *p = slot_ptr(h, s);
            for (size_t i = 0; i < size; i++)
                cr_assert_eq(p[i], 0xA5, "slot %d, byte %zu changed by the moves of others",
                             (int)s, i);
        }
    }
    free(t);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(small_host_slots, disk_round_trips_keep_neighbours_threads)
{
    round_trip_keeps_neighbours(48, EBB_DISK_BACKEND_THREADS);
    round_trip_keeps_neighbours(8, EBB_DISK_BACKEND_THREADS);
    round_trip_keeps_neighbours(1000, EBB_DISK_BACKEND_THREADS);
}

Test(small_host_slots, disk_round_trips_keep_neighbours_uring)
{
    round_trip_keeps_neighbours(48, EBB_DISK_BACKEND_URING);
    round_trip_keeps_neighbours(8, EBB_DISK_BACKEND_URING);
    round_trip_keeps_neighbours(1000, EBB_DISK_BACKEND_URING);
}
