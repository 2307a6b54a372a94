/* Directories on one file system share its free space, counted once: the
 * check before preallocation adds up what all the pool's files there need
 * and compares it with the free space before any of them is allocated (a
 * file already allocated is not counted again against what is left).
 * Needs a small tmpfs: mounted as root, skipped where mounting is refused. */
#include <sys/mount.h>
#include <sys/stat.h>

#include "storage/helpers.h"

typedef struct small_fs {
    char root[256];
    char a[300], b[300];
} small_fs;

/* A 10 MiB tmpfs with two directories a and b. */
static void small_fs_mount(small_fs *fs)
{
    make_tmpdir(fs->root, sizeof fs->root);
    if (mount("ebb-test", fs->root, "tmpfs", 0, "size=10m") != 0) {
        int e = errno;
        rmdir(fs->root);
        cr_skip_test("cannot mount a tmpfs here (%s): run as root", strerror(e));
    }
    snprintf(fs->a, sizeof fs->a, "%s/a", fs->root);
    snprintf(fs->b, sizeof fs->b, "%s/b", fs->root);
    cr_assert_eq(mkdir(fs->a, 0700), 0);
    cr_assert_eq(mkdir(fs->b, 0700), 0);
}

static void small_fs_unmount(small_fs *fs)
{
    rm_tmpdir(fs->a);
    rm_tmpdir(fs->b);
    cr_assert_eq(umount(fs->root), 0, "umount %s: %s", fs->root, strerror(errno));
    rmdir(fs->root);
}

/* 8 MiB (two 4 MiB slots, 4 MiB blocks: one file of 4 MiB per directory)
 * fits a 10 MiB file system whether it is one directory or two. */
Test(disk_space_shared_fs, two_directories_fit_like_one)
{
    small_fs fs;
    small_fs_mount(&fs);
    ebb_pool *h = host_pool(4 * MiB, 2);
    ebb_pool_options o;
    const char *one[] = {fs.a};
    disk_options(&o, one, 1, 4 * MiB, 2, EBB_DISK_BACKEND_AUTO);
    o.block = 4 * MiB;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "one directory: %s", ebb_last_error());
    ebb_pool_destroy(d);

    const char *two[] = {fs.a, fs.b};
    disk_options(&o, two, 2, 4 * MiB, 2, EBB_DISK_BACKEND_AUTO);
    o.block = 4 * MiB;
    d = NULL;
    ebb_status s = ebb_pool_create(&o, &d);
    cr_assert_eq(s, EBB_OK, "two directories on one 10 MiB file system refused 8 MiB: %s",
                 ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.bytes, 8 * (uint64_t)MiB);
    roundtrip(h, d, 0, 0, 1, 1);
    roundtrip(h, d, 0, 1, 1, 2);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    small_fs_unmount(&fs);
}

/* 12 MiB over the two directories does not fit: refused before anything is
 * allocated, naming both directories, the bytes needed and the bytes free. */
Test(disk_space_shared_fs, too_much_is_refused_naming_both)
{
    small_fs fs;
    small_fs_mount(&fs);
    const char *two[] = {fs.a, fs.b};
    ebb_pool_options o;
    disk_options(&o, two, 2, 4 * MiB, 3, EBB_DISK_BACKEND_AUTO);
    o.block = 4 * MiB;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_ERR_NO_SPACE, "%s", ebb_last_error());
    cr_assert_null(d);
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, fs.a) != NULL, "%s", msg);
    cr_assert(strstr(msg, fs.b) != NULL, "%s", msg);
    cr_assert(strstr(msg, "12582912 bytes") != NULL, "needed bytes missing: %s", msg);
    cr_assert(strstr(msg, "free") != NULL, "%s", msg);
    small_fs_unmount(&fs); /* fails if a file was left behind */
}
