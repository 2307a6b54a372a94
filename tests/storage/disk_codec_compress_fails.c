/* A compression that fails (the library's failure, injected) fails its
 * write with EBB_ERR_IO naming the slot, leaves the slot without data, and
 * gives its compressed buffer back: with one codec thread (two buffers)
 * three failures among writes in flight, and every write after them
 * succeeds. Both engines. A try on a copy that fails loses nothing: its
 * state is on disk raw and reads back whole. */
#include <time.h>

#include "storage/codec_helpers.h"

static void compress_fails(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 300 * KiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 12);
    ebb_pool_options o;
    codec_disk_options(&o, dirs, size, 6, backend, &c, 1, h);
    o.block = 64 * KiB;
    ebb_storage_fault f = {0};
    f.codec_fail_nth = 2;
    f.codec_fail_count = 3; /* compressions 2, 3 and 4 */
    f.codec_always_pays = 1; /* every state tried, whatever the machine's speed */
    ebb_pool *d = create_or_skip(&o, &f);
    ebb_ticket t[6];
    for (int32_t s = 0; s < 6; s++) {
        fill_data(slot_ptr(h, s), size, EBB_ELEMENT_FLOAT64, DATA_SPARSE, (uint64_t)s);
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    }
    int failed = 0;
    for (int32_t s = 0; s < 6; s++) {
        ebb_status st = ebb_ticket_wait(&t[s]);
        if (st == EBB_OK)
            continue;
        failed++;
        cr_assert_eq(st, EBB_ERR_IO);
        char want[64];
        snprintf(want, sizeof want, "compressing the state for disk slot %d failed", (int)s);
        cr_assert(strstr(ebb_last_error(), want) && strstr(ebb_last_error(), "injected"), "%s",
                  ebb_last_error());
        cr_assert_eq(ebb_move(h, 6 + s, d, s, &t[s]), EBB_ERR_STATE, "slot %d holds data", s);
    }
    cr_assert_eq(failed, 3);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.errors, 3);
    cr_assert_eq(st.writes, 3);
    /* the buffers all came back: rounds of writes in flight still run */
    for (int r = 0; r < 3; r++) {
        for (int32_t s = 0; s < 6; s++)
            cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait_all(t, 6), EBB_OK, "%s", ebb_last_error());
    }
    for (int32_t s = 0; s < 6; s++)
        cr_assert_eq(ebb_move(h, 6 + s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait_all(t, 6), EBB_OK, "%s", ebb_last_error());
    for (int32_t s = 0; s < 6; s++)
        cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, 6 + s), size) == 0, "slot %d", s);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_compress_fails, io_uring) { compress_fails(EBB_DISK_BACKEND_URING); }
Test(disk_codec_compress_fails, threads) { compress_fails(EBB_DISK_BACKEND_THREADS); }

Test(disk_codec_compress_fails, a_try_on_a_copy_that_fails_loses_nothing)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 128 * KiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    codec_disk_options(&o, dirs, size, 1, EBB_DISK_BACKEND_THREADS, &c, 1, h);
    o.max_bandwidth = 1e9; /* the disk's rate known: the first state is tried */
    ebb_storage_fault f = {0};
    f.codec_fail_nth = 1; /* the first compression: the first state's try, on a copy */
    ebb_pool *d = create_or_skip(&o, &f);
    fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SPARSE, 3);
    ebb_ticket t;
    cr_assert_eq(ebb_move(d, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(h, 1, d, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0, "the state came back changed");
    ebb_pool_stats st;
    for (int k = 0; k < 500; k++) { /* the try runs after the write: wait for it */
        ebb_pool_stats_get(d, &st);
        if (st.compressions == 1)
            break;
        struct timespec ms = {0, 10000000};
        nanosleep(&ms, NULL);
    }
    cr_assert_eq(st.compressions, 1, "the try on a copy did not run");
    cr_assert_eq(st.errors, 0, "a failed try on a copy failed a write");
    cr_assert_eq(st.stored_raw, 1);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
