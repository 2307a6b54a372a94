/* Disk tier, thread-pool backend (pread/pwrite): round trips, and io_uring
 * refused (ENOSYS/EPERM) falls back to it under "auto". */
#include <errno.h>

#include "storage/helpers.h"

Test(disk_threads, roundtrip)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 2 * MiB + 5000;
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 4, EBB_DISK_BACKEND_THREADS);
    o.block = 512 * KiB;
    o.threads = 3;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_str_eq(info.backend, "threads");
    cr_assert_eq(info.threads, 3);
    cr_assert_eq(info.registered_buffers, 0);
    for (int32_t ds = 0; ds < 4; ds++)
        roundtrip(h, d, 0, ds, 1, (uint64_t)ds + 100);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.writes, 4);
    cr_assert_eq(st.reads, 4);
    cr_assert_geq(st.requests, 4 * 5 * 2);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_threads, uring_refused_falls_back_under_auto)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(128 * KiB, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 128 * KiB, 2, EBB_DISK_BACKEND_AUTO);
    ebb_storage_fault f = {0};
    f.uring_errno = EPERM;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_str_eq(info.backend, "threads");
    cr_assert_eq(info.threads, 16, "threads default to the queue depth");
    cr_assert(strstr(info.warnings, "io_uring unavailable") != NULL, "warnings: '%s'",
              info.warnings);
    cr_assert(strstr(info.warnings, "Operation not permitted") != NULL, "warnings: '%s'",
              info.warnings);
    roundtrip(h, d, 0, 1, 1, 7);
    ebb_pool_destroy(d);

    /* Asking for io_uring explicitly is an error, not a silent fallback. */
    o.backend = EBB_DISK_BACKEND_URING;
    f.uring_errno = ENOSYS;
    d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_ERR_UNSUPPORTED);
    cr_assert_null(d);
    cr_assert(strstr(ebb_last_error(), "io_uring cannot be used here") != NULL, "%s",
              ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "threads backend") != NULL, "%s", ebb_last_error());
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
