/* Where O_DIRECT is refused (at open, or at the first write), the disk tier
 * falls back to buffered I/O, says so, and still round-trips. /dev/shm is a
 * tmpfs (which refused O_DIRECT before Linux 6.6); the refusals themselves
 * are injected so the test means the same on every kernel. */
#include <sys/stat.h>

#include "storage/helpers.h"

static void check_fallback(const char *dir, const ebb_storage_fault *f, const char *expect)
{
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(300 * KiB + 1, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 300 * KiB + 1, 3, EBB_DISK_BACKEND_AUTO);
    o.block = 64 * KiB;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, f, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    if (expect) {
        cr_assert_eq(info.direct, 0);
        cr_assert(strstr(info.warnings, expect) != NULL, "warnings: '%s'", info.warnings);
        cr_assert(strstr(info.warnings, "buffered I/O") != NULL, "warnings: '%s'", info.warnings);
    } else {
        /* Real tmpfs: either O_DIRECT works, or its refusal is reported. */
        cr_assert(info.direct || strstr(info.warnings, "O_DIRECT refused"), "warnings: '%s'",
                  info.warnings);
    }
    for (int32_t s = 0; s < 3; s++)
        roundtrip(h, d, 0, s, 1, (uint64_t)s + 1);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
}

Test(disk_odirect, refused_at_open_falls_back_to_buffered)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    ebb_storage_fault f = {0};
    f.odirect_open = 1;
    check_fallback(dir, &f, "O_DIRECT refused by the file system of");
    check_fallback(dir, &f, "at open");
    rm_tmpdir(dir);
}

Test(disk_odirect, refused_at_first_write_falls_back_to_buffered)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    ebb_storage_fault f = {0};
    f.odirect_write = 1;
    check_fallback(dir, &f, "at write (Invalid argument)");
    rm_tmpdir(dir);
}

Test(disk_odirect, tmpfs_dev_shm_roundtrips)
{
    struct stat st;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode) || access("/dev/shm", W_OK) != 0)
        cr_skip_test("no writable /dev/shm here");
    char dir[] = "/dev/shm/ebb-odirect-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    check_fallback(dir, NULL, NULL);
    ebb_storage_fault f = {0};
    f.odirect_open = 1;
    check_fallback(dir, &f, "O_DIRECT refused");
    rm_tmpdir(dir);
}
