/* A disk pool's per-slot records are written only for the slots it uses:
 * a pool of 1,048,576 slots (4 GiB of 4 KiB slots, preallocation refused
 * so that no space is taken) made and destroyed unused raises the peak
 * resident memory by less than 16 MiB (walking every slot's record at
 * destruction would touch them all). */
#include <errno.h>
#include <sys/statvfs.h>

#include "storage/fault.h"
#include "support/process_memory.h"
#include "storage/helpers.h"

enum { SLOTS = 1 << 20, SLOT = 4096 };

Test(disk_bookkeeping_bounded, large_pool_small_use, .timeout = 60)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    struct statvfs vfs;
    cr_assert_eq(statvfs(dir, &vfs), 0);
    if ((uint64_t)vfs.f_bavail * vfs.f_frsize < (uint64_t)SLOTS * SLOT * 2) {
        rm_tmpdir(dir);
        cr_skip_test("%s has less than 8 GiB free: the pool's space check would refuse it", dir);
    }
    const char *dirs[] = {dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, SLOT, SLOTS, EBB_DISK_BACKEND_AUTO);
    o.direct = 0;
    ebb_storage_fault f = {0};
    f.fallocate_errno = EOPNOTSUPP; /* a sparse file: the test takes no space */
    long before = ebb_test_peak_kib();
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(d, &info), EBB_OK);
    cr_assert_eq(info.slots, SLOTS);
    ebb_pool_destroy(d);
    long rise = ebb_test_peak_kib() - before;
    cr_log_info("peak resident memory rose by %ld KiB for %d slots", rise, SLOTS);
    if (!EBB_TEST_ASAN) /* its shadow is written at each allocation */
        cr_assert_lt(rise, 16 * 1024, "peak resident memory rose by %ld KiB for a pool of %d slots "
                 "with one used", rise, SLOTS);
    rm_tmpdir(dir);
}
