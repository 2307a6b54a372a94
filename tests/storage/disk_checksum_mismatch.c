/* A slot corrupted on disk is caught on read (XXH3 per block), with a message
 * naming the slot, the block and the file; both backends. */
#include "storage/helpers.h"

static void corrupt_and_read(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 1 * MiB;
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 4, backend);
    o.block = 256 * KiB;
    o.checksum = 1;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.checksum, 1);

    roundtrip(h, d, 0, 2, 1, 42); /* intact data verifies */

    /* Flip bytes inside block 3 of slot 2, behind the pool's back. */
    int fd = -1;
    int64_t off = 0;
    const char *name = NULL;
    cr_assert_eq(ebb_disk_debug_locate(d, 2, 3, &fd, &off, &name), EBB_OK, "%s", ebb_last_error());
    void *junk = NULL;
    cr_assert_eq(posix_memalign(&junk, 4096, 4096), 0);
    cr_assert_eq(pread(fd, junk, 4096, off), 4096);
    ((unsigned char *)junk)[100] ^= 0xff;
    cr_assert_eq(pwrite(fd, junk, 4096, off), 4096);
    free(junk);

    ebb_ticket t;
    cr_assert_eq(ebb_move(h, 1, d, 2, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_ERR_CHECKSUM);
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, "checksum mismatch reading disk slot 2 (block 3") != NULL, "%s", msg);
    cr_assert(strstr(msg, name) != NULL, "message does not name the file '%s': %s", name, msg);
    cr_assert(strstr(msg, dir) != NULL, "%s", msg);
    /* Testing again gives the same answer. */
    int done = 0;
    cr_assert_eq(ebb_ticket_test(&t, &done), EBB_ERR_CHECKSUM);
    cr_assert_eq(done, 1);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.errors, 1);

    /* Other slots still verify. */
    roundtrip(h, d, 0, 3, 1, 43);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_checksum, mismatch_detected_io_uring)
{
    corrupt_and_read(EBB_DISK_BACKEND_AUTO);
}

Test(disk_checksum, mismatch_detected_threads)
{
    corrupt_and_read(EBB_DISK_BACKEND_THREADS);
}
