/* Lossless compression on the disk tier gives back every byte: states of
 * random sizes (float64 fields and odd-sized byte states; smooth, sparse and
 * random data) stored through the codec threads and loaded back bitwise
 * equal, with both engines, checksums on and off, several moves in flight;
 * the statistics count what went through the codec. */
#include "storage/codec_helpers.h"

static void sizes_round_trip(ebb_disk_backend backend, int checksum)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    uint64_t rng = 20 + (uint64_t)backend * 2 + (uint64_t)checksum;
    for (int round = 0; round < 7; round++) {
        int bytes_elem = round % 3 == 2;
        size_t size = bytes_elem ? 1 + (size_t)(rng_next(&rng) % (3 * MiB))
                                 : 8 * (1 + (size_t)(rng_next(&rng) % 400000));
        if (round == 0)
            size = 8; /* one value: cannot shrink */
        ebb_element e = bytes_elem ? EBB_ELEMENT_BYTES : EBB_ELEMENT_FLOAT64;
        ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, e);
        ebb_pool *h = host_pool(size, 6);
        ebb_pool *d = codec_disk(dirs, size, 3, backend, checksum, 256 * KiB, &c, 2, h);
        ebb_pool_info info;
        ebb_pool_info_get(d, &info);
        cr_assert_str_eq(info.compression, "lossless");
        cr_assert_eq(info.codec_threads, 2);
        cr_assert_gt(info.codec_buffer_bytes, 0);
        ebb_ticket t[3];
        for (int k = 0; k < 3; k++) {
            fill_data(slot_ptr(h, k), size, e, (data_kind)k, rng_next(&rng));
            memset(slot_ptr(h, 3 + k), 0xee, size);
            cr_assert_eq(ebb_move(d, k, h, k, &t[k]), EBB_OK, "%s", ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait_all(t, 3), EBB_OK, "store (%zu bytes): %s", size,
                     ebb_last_error());
        for (int k = 0; k < 3; k++)
            cr_assert_eq(ebb_move(h, 3 + k, d, k, &t[k]), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait_all(t, 3), EBB_OK, "load (%zu bytes): %s", size,
                     ebb_last_error());
        for (int k = 0; k < 3; k++)
            cr_assert(memcmp(slot_ptr(h, k), slot_ptr(h, 3 + k), size) == 0,
                      "%s state of %zu bytes differs after the disk round trip",
                      data_name((data_kind)k), size);
        ebb_pool_stats st;
        ebb_pool_stats_get(d, &st);
        cr_assert_eq(st.writes, 3);
        cr_assert_eq(st.reads, 3);
        cr_assert_eq(st.errors, 0);
        cr_assert_eq(st.bytes_before_compression, 3 * size);
        cr_assert_leq(st.bytes_after_compression, st.bytes_before_compression);
        if (size >= 64 * KiB) /* the sparse state shrinks */
            cr_assert_lt(st.stored_raw, 3, "%zu bytes: every state stored raw", size);
        else if (size == 8)
            cr_assert_eq(st.stored_raw, 3);
        cr_assert_gt(st.codec_s, 0);
        ebb_pool_destroy(d);
        ebb_pool_destroy(h);
    }
    rm_tmpdir(dir);
}

Test(disk_codec_lossless, io_uring_checksums_off) { sizes_round_trip(EBB_DISK_BACKEND_URING, 0); }
Test(disk_codec_lossless, io_uring_checksums_on) { sizes_round_trip(EBB_DISK_BACKEND_URING, 1); }
Test(disk_codec_lossless, threads_checksums_off) { sizes_round_trip(EBB_DISK_BACKEND_THREADS, 0); }
Test(disk_codec_lossless, threads_checksums_on) { sizes_round_trip(EBB_DISK_BACKEND_THREADS, 1); }
