/* A disk pool created with ready_slots preallocates its files for those
 * slots only, and the next extent (doubling the slots with space, at least
 * to the slot) before a write to a slot above them: the file grows as the
 * slots are first written, every slot's data comes back over one and three
 * files, and a disk that fills mid-run fails that write with
 * EBB_ERR_NO_SPACE, naming the slot, the slots below kept. */
#include <sys/stat.h>

#include "storage/helpers.h"

enum { SIZE = 4096, SLOTS = 256, FIRST = 4 };

static int64_t file_size(ebb_pool *disk)
{
    int fd = -1;
    cr_assert_eq(ebb_disk_debug_locate(disk, 0, 0, &fd, NULL, NULL), EBB_OK, "%s",
                 ebb_last_error());
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    return (int64_t)st.st_size;
}

static ebb_pool *disk_pool(const char *const *dirs, int n, int32_t slots, int32_t ready,
                           const ebb_storage_fault *f)
{
    ebb_pool_options o;
    disk_options(&o, dirs, n, SIZE, slots, EBB_DISK_BACKEND_THREADS);
    o.ready_slots = ready;
    return create_or_skip(&o, f);
}

static ebb_status store(ebb_pool *disk, int32_t ds, ebb_pool *host, int32_t hs)
{
    ebb_ticket t;
    ebb_status s = ebb_move(disk, ds, host, hs, &t);
    return s == EBB_OK ? ebb_ticket_wait(&t) : s;
}

Test(disk_space_in_extents, file_grows_as_slots_are_written)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *host = host_pool(SIZE, 2);
    ebb_pool *disk = disk_pool(dirs, 1, SLOTS, FIRST, NULL);
    cr_expect_eq(file_size(disk), (int64_t)FIRST * SIZE, "at creation");
    for (int32_t s = 0; s < FIRST; s++)
        cr_assert_eq(store(disk, s, host, 0), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(file_size(disk), (int64_t)FIRST * SIZE, "the first slots written");
    cr_assert_eq(store(disk, 20, host, 0), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(file_size(disk), (int64_t)21 * SIZE, "slot 20 written");
    cr_assert_eq(store(disk, 30, host, 0), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(file_size(disk), (int64_t)42 * SIZE, "slot 30 written: doubled");
    roundtrip(host, disk, 0, SLOTS - 1, 1, 7);
    cr_expect_eq(file_size(disk), (int64_t)SLOTS * SIZE, "the last slot written");
    roundtrip(host, disk, 0, 25, 1, 8);
    ebb_pool_destroy(disk);
    ebb_pool_destroy(host);
    rm_tmpdir(dir);
}

Test(disk_space_in_extents, without_ready_slots_whole_at_creation)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *disk = disk_pool(dirs, 1, SLOTS, 0, NULL);
    cr_expect_eq(file_size(disk), (int64_t)SLOTS * SIZE);
    ebb_pool_destroy(disk);
    rm_tmpdir(dir);
}

/* Three files (slots striped in rounds over them, the last round packed):
 * every slot written in order from 1 ready, twice, comes back. */
Test(disk_space_in_extents, three_files_every_slot_comes_back)
{
    char d[3][256];
    const char *dirs[3];
    for (int i = 0; i < 3; i++) {
        make_tmpdir(d[i], sizeof d[i]);
        dirs[i] = d[i];
    }
    enum { N = 47 };
    ebb_pool *host = host_pool(SIZE, 2 * N);
    ebb_pool *disk = disk_pool(dirs, 3, N, 1, NULL);
    all_slots_round_trip(host, disk, N, SIZE, 11, 2);
    ebb_pool_destroy(disk);
    ebb_pool_destroy(host);
    for (int i = 0; i < 3; i++)
        rm_tmpdir(d[i]);
}

Test(disk_space_in_extents, full_disk_mid_run_fails_that_write)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_storage_fault f = {0};
    f.fallocate_errno = ENOSPC;
    f.fallocate_nth = 2; /* the creation's succeeds, the first extent after it fails */
    ebb_pool *host = host_pool(SIZE, 2);
    ebb_pool *disk = disk_pool(dirs, 1, SLOTS, FIRST, &f);
    roundtrip(host, disk, 0, FIRST - 1, 1, 3);
    ebb_status s = store(disk, FIRST, host, 0);
    cr_assert_eq(s, EBB_ERR_NO_SPACE, "got %s: %s", ebb_status_name(s), ebb_last_error());
    cr_expect(strstr(ebb_last_error(), "disk slot 4"), "%s", ebb_last_error());
    cr_expect(strstr(ebb_last_error(), "free space"), "%s", ebb_last_error());
    cr_expect_eq(file_size(disk), (int64_t)FIRST * SIZE);
    /* the slots below are kept, and the pool goes on */
    ebb_ticket t;
    memset(slot_ptr(host, 1), 0, SIZE);
    cr_assert_eq(ebb_move(host, 1, disk, FIRST - 1, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    cr_expect(memcmp(slot_ptr(host, 0), slot_ptr(host, 1), SIZE) == 0);
    ebb_pool_destroy(disk);
    ebb_pool_destroy(host);
    rm_tmpdir(dir);
}
