/* Disk tier, io_uring backend with registered buffers: random data survives a
 * round trip, for slots that are not a multiple of the block or the alignment. */
#include "storage/helpers.h"

Test(disk_uring, roundtrip_registered_buffers)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 1 * MiB + 4096 * 3 + 77; /* 5 blocks of 256 KiB, the last short */
    ebb_pool *h = host_pool(size, 4);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 6, EBB_DISK_BACKEND_URING);
    o.block = 256 * KiB;
    o.queue_depth = 8;
    o.staging = h;
    ebb_pool *d = NULL;
    ebb_status s = ebb_pool_create(&o, &d);
    if (s == EBB_ERR_UNSUPPORTED) {
        rm_tmpdir(dir);
        cr_skip_test("io_uring is refused here: %s", ebb_last_error());
    }
    cr_assert_eq(s, EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_str_eq(info.backend, "io_uring");
    cr_assert_eq(info.threads, 1);
    cr_assert_eq(info.queue_depth, 8);
    cr_assert_eq(info.block, 256 * KiB);
    cr_assert(info.registered_buffers || strstr(info.warnings, "registration failed"),
              "neither registered nor said why: '%s'", info.warnings);
    cr_assert(info.direct || strstr(info.warnings, "O_DIRECT refused"), "warnings: '%s'",
              info.warnings);
    cr_assert_geq(info.bytes, 6 * (uint64_t)size);

    for (int32_t ds = 0; ds < 6; ds++)
        roundtrip(h, d, ds % 2, ds, 2 + ds % 2, (uint64_t)ds + 10);

    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.writes, 6);
    cr_assert_eq(st.reads, 6);
    cr_assert_eq(st.bytes_written, 6 * size);
    cr_assert_geq(st.requests, 6 * 5 * 2, "every slot is 5 requests each way");
    cr_assert_eq(st.errors, 0);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_uring, roundtrip_from_a_host_pool_that_is_not_registered)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 512 * KiB;
    ebb_pool *staged = host_pool(size, 1);
    ebb_pool *other = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 2, EBB_DISK_BACKEND_URING);
    o.staging = staged;
    ebb_pool *d = NULL;
    ebb_status s = ebb_pool_create(&o, &d);
    if (s == EBB_ERR_UNSUPPORTED) {
        rm_tmpdir(dir);
        cr_skip_test("io_uring is refused here: %s", ebb_last_error());
    }
    cr_assert_eq(s, EBB_OK, "%s", ebb_last_error());
    roundtrip(other, d, 0, 1, 1, 99); /* unregistered I/O from a pool not staged */
    ebb_pool_destroy(d);
    ebb_pool_destroy(other);
    ebb_pool_destroy(staged);
    rm_tmpdir(dir);
}

Test(disk_uring, registration_refused_falls_back_and_says_why)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(64 * KiB, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 64 * KiB, 2, EBB_DISK_BACKEND_URING);
    o.staging = h;
    ebb_storage_fault f = {0};
    f.register_errno = ENOMEM;
    ebb_pool *d = NULL;
    ebb_status s = ebb_pool_create_with_faults(&o, &f, &d);
    if (s == EBB_ERR_UNSUPPORTED) {
        rm_tmpdir(dir);
        cr_skip_test("io_uring is refused here: %s", ebb_last_error());
    }
    cr_assert_eq(s, EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.registered_buffers, 0);
    cr_assert(strstr(info.warnings, "RLIMIT_MEMLOCK") != NULL, "warnings: '%s'", info.warnings);
    cr_assert(strstr(info.warnings, "unregistered I/O") != NULL, "warnings: '%s'", info.warnings);
    roundtrip(h, d, 0, 1, 1, 5);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
