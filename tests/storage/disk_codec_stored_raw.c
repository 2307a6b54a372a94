/* States that do not shrink (random bytes under lossless compression) are
 * stored raw, counted (stored_raw = writes, bytes after = bytes before), and
 * still round-trip bitwise; a later compressible state in the same slot is
 * compressed again. Both engines, checksums on. */
#include "storage/codec_helpers.h"

static void stored_raw(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 1 * MiB + 4 * KiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_BYTES);
    ebb_pool *h = host_pool(size, 2);
    ebb_pool *d = codec_disk(dirs, size, 3, backend, 1, 256 * KiB, &c, 0, h);
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.codec_threads, 2, "codec_threads 0 means 2");
    for (int32_t s = 0; s < 3; s++)
        roundtrip(h, d, 0, s, 1, (uint64_t)s + 77); /* random bytes */
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.writes, 3);
    cr_assert_eq(st.stored_raw, 3, "%llu of 3 random states stored raw",
                 (unsigned long long)st.stored_raw);
    cr_assert_eq(st.bytes_before_compression, 3 * size);
    cr_assert_eq(st.bytes_after_compression, 3 * size);

    /* slot 1 again, now sparse: compressed this time, and read back exact */
    ebb_pool_stats_reset(d);
    fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_BYTES, DATA_SPARSE, 9);
    memset(slot_ptr(h, 1), 0, size);
    store_load(h, d, 0, 1, 1);
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0);
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.stored_raw, 0);
    cr_assert_lt(st.bytes_after_compression, size / 2);
    /* and the raw ones beside it still read back */
    roundtrip(h, d, 0, 2, 1, 1234);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_stored_raw, io_uring) { stored_raw(EBB_DISK_BACKEND_URING); }
Test(disk_codec_stored_raw, threads) { stored_raw(EBB_DISK_BACKEND_THREADS); }
