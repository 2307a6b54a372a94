/* States that do not shrink (random bytes under lossless compression, and
 * a state whose compressed length is below its size but not after rounding
 * up to the alignment) are stored raw, counted (stored_raw = writes, bytes
 * after = bytes before), and still round-trip bitwise; a later compressible
 * state in the same slot is compressed again, and only its compressed bytes
 * go to disk (the old state's bytes past them are still there). Both
 * engines, checksums on. */
#include "storage/codec_helpers.h"

static size_t up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* `n` bytes of disk slot `slot` from `at` (direct I/O: whole pages read). */
static void disk_bytes(ebb_pool *d, int32_t slot, size_t block, size_t at, unsigned char *out,
                       size_t n)
{
    unsigned char *page = NULL;
    cr_assert_eq(posix_memalign((void **)&page, 4096, 4096), 0);
    for (size_t i = 0; i < n; i++) {
        int fd = -1;
        int64_t off = 0;
        size_t pos = at + i;
        cr_assert_eq(ebb_disk_debug_locate(d, slot, (uint32_t)(pos / block), &fd, &off, NULL),
                     EBB_OK);
        off += (int64_t)(pos % block);
        cr_assert_eq(pread(fd, page, 4096, off / 4096 * 4096), 4096);
        out[i] = page[off % 4096];
    }
    free(page);
}

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
    /* on disk past its aligned length: the raw state's bytes, untouched */
    size_t len = up((size_t)st.bytes_after_compression, info.alignment);
    unsigned char got[64], old[64];
    fill_random(slot_ptr(h, 1), size, 1 + 77); /* what slot 1 held */
    disk_bytes(d, 1, 256 * KiB, len, got, sizeof got);
    memcpy(old, (unsigned char *)slot_ptr(h, 1) + len, sizeof old);
    cr_assert(memcmp(got, old, sizeof got) == 0,
              "bytes past the compressed state's %zu (aligned) were written", len);
    disk_bytes(d, 1, 256 * KiB, 0, got, sizeof got); /* and its first ones were */
    cr_assert(memcmp(got, (unsigned char *)slot_ptr(h, 1), sizeof got) != 0);

    /* random with a zero tail: shorter compressed, but not once aligned */
    ebb_pool_stats_reset(d);
    unsigned char *s0 = slot_ptr(h, 0);
    fill_random(s0, size, 5);
    memset(s0 + size - 2 * KiB, 0, 2 * KiB);
    ebb_codec *ref = NULL;
    cr_assert_eq(ebb_codec_create(&c, size, &ref), EBB_OK);
    unsigned char *packed = malloc(ebb_codec_bound(ref));
    size_t plen = 0;
    cr_assert_eq(ebb_codec_compress(ref, s0, packed, ebb_codec_bound(ref), &plen), EBB_OK);
    cr_assert(plen < size && up(plen, info.alignment) >= up(size, info.alignment),
              "the case is lost: %zu bytes compressed from %zu", plen, size);
    free(packed);
    ebb_codec_destroy(ref);
    store_load(h, d, 0, 0, 1);
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0);
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.stored_raw, 1, "%zu compressed bytes of %zu, aligned to %zu: stored so",
                 plen, size, info.alignment);
    cr_assert_eq(st.bytes_after_compression, size);
    /* and the raw ones beside it still read back */
    roundtrip(h, d, 0, 2, 1, 1234);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_stored_raw, io_uring) { stored_raw(EBB_DISK_BACKEND_URING); }
Test(disk_codec_stored_raw, threads) { stored_raw(EBB_DISK_BACKEND_THREADS); }
