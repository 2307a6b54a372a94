/* Too little space is found when the pool is created, not mid-run: the
 * message names the directory, the bytes needed and the bytes free. */
#include <errno.h>
#include <sys/mount.h>

#include "storage/helpers.h"

Test(disk_enospc, budget_beyond_free_space)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, (size_t)1 << 44, 64, EBB_DISK_BACKEND_AUTO); /* 1 PiB */
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_ERR_NO_SPACE, "%s", ebb_last_error());
    cr_assert_null(d);
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, dir) != NULL, "%s", msg);
    cr_assert(strstr(msg, "1125899906842624 bytes") != NULL, "needed bytes missing: %s", msg);
    cr_assert(strstr(msg, "free") != NULL, "%s", msg);
    rm_tmpdir(dir);
}

Test(disk_enospc, small_tmpfs_or_injected_fallocate_failure)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 1 * MiB, 4, EBB_DISK_BACKEND_AUTO);
    ebb_pool *d = NULL;
    int mounted = mount("ebb-test", dir, "tmpfs", 0, "size=1m") == 0;
    if (mounted) {
        cr_assert_eq(ebb_pool_create(&o, &d), EBB_ERR_NO_SPACE, "%s", ebb_last_error());
        cr_assert(strstr(ebb_last_error(), "4194304 bytes") != NULL, "%s", ebb_last_error());
        cr_assert(strstr(ebb_last_error(), dir) != NULL, "%s", ebb_last_error());
        umount(dir);
    }
    /* Always: the fallocate path itself, by injection. */
    ebb_storage_fault f = {0};
    f.fallocate_errno = ENOSPC;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_ERR_NO_SPACE);
    cr_assert_null(d);
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, "cannot preallocate 4194304 bytes") != NULL, "%s", msg);
    cr_assert(strstr(msg, dir) != NULL, "%s", msg);
    cr_assert(strstr(msg, "No space left on device") != NULL, "%s", msg);
    rm_tmpdir(dir);
}
