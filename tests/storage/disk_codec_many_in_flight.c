/* Many compressed moves in flight with far fewer compressed buffers than
 * operations (one codec thread: two buffers, 24 writes at once): no
 * deadlock, every state exact, the buffers all come back (the pool writes
 * on after rounds of it), under a shallow queue and a bandwidth limit too;
 * and a pool destroyed with writes and reads still in the codec stage
 * returns. Both engines. */
#include "storage/codec_helpers.h"

#define SLOTS 24

static void many(ebb_disk_backend backend, int checksum, double bandwidth)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 200 * KiB + 8;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 2 * SLOTS);
    ebb_pool_options o;
    codec_disk_options(&o, dirs, size, SLOTS, backend, &c, 1, h);
    o.block = 64 * KiB;
    o.checksum = checksum;
    o.queue_depth = 3;
    o.max_bandwidth = bandwidth;
    ebb_storage_fault f = {0};
    f.codec_always_pays = 1; /* every state that shrinks compressed */
    ebb_pool *d = create_or_skip(&o, &f);
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.codec_threads, 1);
    ebb_ticket t[SLOTS];
    for (int r = 0; r < 3; r++) {
        for (int32_t s = 0; s < SLOTS; s++) {
            fill_data(slot_ptr(h, s), size, EBB_ELEMENT_FLOAT64, (data_kind)((s + r) % 3),
                      (uint64_t)(r * SLOTS + s));
            cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait_all(t, SLOTS), EBB_OK, "%s", ebb_last_error());
        for (int32_t s = 0; s < SLOTS; s++) {
            memset(slot_ptr(h, SLOTS + s), 0, size);
            cr_assert_eq(ebb_move(h, SLOTS + s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait_all(t, SLOTS), EBB_OK, "%s", ebb_last_error());
        for (int32_t s = 0; s < SLOTS; s++)
            cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, SLOTS + s), size) == 0,
                      "slot %d differs (round %d)", s, r);
    }
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.writes, 3 * SLOTS);
    cr_assert_eq(st.errors, 0);
    cr_assert_lt(st.bytes_after_compression, st.bytes_before_compression);

    /* destroyed with everything in flight: half reads, half writes */
    for (int32_t s = 0; s < SLOTS; s++)
        cr_assert_eq(s % 2 ? ebb_move(d, s, h, s, &t[s]) : ebb_move(h, SLOTS + s, d, s, &t[s]),
                     EBB_OK, "%s", ebb_last_error());
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_many_in_flight, io_uring) { many(EBB_DISK_BACKEND_URING, 0, 0); }
Test(disk_codec_many_in_flight, io_uring_checksums) { many(EBB_DISK_BACKEND_URING, 1, 0); }
Test(disk_codec_many_in_flight, threads) { many(EBB_DISK_BACKEND_THREADS, 0, 0); }
Test(disk_codec_many_in_flight, threads_checksums) { many(EBB_DISK_BACKEND_THREADS, 1, 0); }
Test(disk_codec_many_in_flight, io_uring_paced) { many(EBB_DISK_BACKEND_URING, 1, 400e6); }
Test(disk_codec_many_in_flight, threads_paced) { many(EBB_DISK_BACKEND_THREADS, 0, 400e6); }
