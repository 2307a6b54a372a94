/* A compressed slot damaged on disk is reported, never a crash: with
 * checksums, a flipped byte is a checksum mismatch naming the slot, the
 * block and the file; without, a damaged c-blosc header is a decode error
 * (EBB_ERR_CHECKSUM) naming the slot and the file; bytes flipped anywhere in
 * a lossless or lossy state read back as data or as that error, and the
 * pool goes on (other slots intact, buffers not lost). Both engines. */
#include "storage/codec_helpers.h"

static void flip(ebb_pool *d, int32_t slot, uint32_t block, size_t at, const char **name)
{
    int fd = -1;
    int64_t off = 0;
    cr_assert_eq(ebb_disk_debug_locate(d, slot, block, &fd, &off, name), EBB_OK, "%s",
                 ebb_last_error());
    /* the file is O_DIRECT: a whole aligned page around the byte */
    int64_t page = (off + (int64_t)at) / 4096 * 4096;
    unsigned char *buf = NULL;
    cr_assert_eq(posix_memalign((void **)&buf, 4096, 4096), 0);
    cr_assert_eq(pread(fd, buf, 4096, page), 4096);
    buf[off + (int64_t)at - page] ^= 0x5a;
    cr_assert_eq(pwrite(fd, buf, 4096, page), 4096);
    free(buf);
}

static ebb_status load(ebb_pool *h, ebb_pool *d, int32_t slot)
{
    ebb_ticket t;
    cr_assert_eq(ebb_move(h, 1, d, slot, &t), EBB_OK, "%s", ebb_last_error());
    return ebb_ticket_wait(&t);
}

static void corrupt(ebb_disk_backend backend, int checksum)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 768 * KiB;
    ebb_codec_options c = codec_opts(EBB_COMPRESSION_LOSSLESS, EBB_ELEMENT_FLOAT64);
    ebb_pool *h = host_pool(size, 2);
    ebb_pool *d = codec_disk(dirs, size, 4, backend, checksum, 64 * KiB, &c, 1, h);
    for (int32_t s = 0; s < 4; s++) {
        fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SPARSE, (uint64_t)s);
        store_load(h, d, 0, s, 1);
    }
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.stored_raw, 0);

    /* byte 5 of c-blosc's header (the chunk's length) of slot 2 */
    const char *name = NULL;
    flip(d, 2, 0, 5, &name);
    ebb_status s = load(h, d, 2);
    cr_assert_eq(s, EBB_ERR_CHECKSUM, "%s", ebb_last_error());
    const char *msg = ebb_last_error();
    if (checksum)
        cr_assert(strstr(msg, "checksum mismatch reading disk slot 2 (block 0: compressed bytes") !=
                      NULL,
                  "%s", msg);
    else
        cr_assert(strstr(msg, "disk slot 2 holds a lossless state") && strstr(msg, "does not decode"),
                  "%s", msg);
    cr_assert(strstr(msg, name) != NULL, "the file '%s' is not named: %s", name, msg);

    /* bytes flipped all over slot 3's compressed state: data or that error */
    fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SPARSE, 3);
    for (int k = 0; k < 40; k++) {
        flip(d, 3, 0, (size_t)(k * 997) % (16 * KiB), &name);
        s = load(h, d, 3);
        cr_assert(s == EBB_OK || s == EBB_ERR_CHECKSUM, "flip %d: %d %s", k, (int)s,
                  ebb_last_error());
        if (checksum)
            cr_assert_eq(s, EBB_ERR_CHECKSUM, "flip %d went unseen", k);
        flip(d, 3, 0, (size_t)(k * 997) % (16 * KiB), &name); /* back */
    }
    /* undamaged slots still load, and the pool still writes (no buffer lost) */
    for (int32_t s2 = 0; s2 < 4; s2++)
        if (s2 != 2) {
            fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SPARSE, (uint64_t)s2);
            cr_assert_eq(load(h, d, s2), EBB_OK, "%s", ebb_last_error());
            cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0, "slot %d", s2);
        }
    for (int k = 0; k < 6; k++) {
        fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT64, DATA_SMOOTH, (uint64_t)k);
        store_load(h, d, 0, 2, 1);
        cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0);
    }
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

/* zfp streams carry no check: damaged ones decode to other values, or
 * fail, but never crash or read past what was read. */
static void corrupt_lossy(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 512 * KiB;
    ebb_pool *h = host_pool(size, 2);
    for (int mode = 0; mode < 3; mode++) {
        ebb_codec_options c = codec_opts(mode == 0   ? EBB_COMPRESSION_FIXED_RATE
                                         : mode == 1 ? EBB_COMPRESSION_FIXED_PRECISION
                                                     : EBB_COMPRESSION_FIXED_ACCURACY,
                                         EBB_ELEMENT_FLOAT32);
        ebb_pool *d = codec_disk(dirs, size, 2, backend, 0, 64 * KiB, &c, 2, h);
        fill_data(slot_ptr(h, 0), size, EBB_ELEMENT_FLOAT32, DATA_SMOOTH, 11);
        store_load(h, d, 0, 0, 1);
        const char *name;
        for (int k = 0; k < 30; k++) {
            flip(d, 0, 0, (size_t)(k * 1531) % (24 * KiB), &name);
            ebb_status s = load(h, d, 0);
            cr_assert(s == EBB_OK || s == EBB_ERR_CHECKSUM, "flip %d: %s", k, ebb_last_error());
        }
        ebb_pool_destroy(d);
    }
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_codec_corrupt, io_uring_checksums_on) { corrupt(EBB_DISK_BACKEND_URING, 1); }
Test(disk_codec_corrupt, io_uring_checksums_off) { corrupt(EBB_DISK_BACKEND_URING, 0); }
Test(disk_codec_corrupt, threads_checksums_on) { corrupt(EBB_DISK_BACKEND_THREADS, 1); }
Test(disk_codec_corrupt, threads_checksums_off) { corrupt(EBB_DISK_BACKEND_THREADS, 0); }
Test(disk_codec_corrupt, lossy_io_uring) { corrupt_lossy(EBB_DISK_BACKEND_URING); }
Test(disk_codec_corrupt, lossy_threads) { corrupt_lossy(EBB_DISK_BACKEND_THREADS); }
