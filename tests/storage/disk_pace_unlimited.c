/* A disk pool without max_bandwidth (the default 0), or with a limit far
 * above any disk, is never held back by the pacing: the engine's counter of
 * requests the limit delayed stays 0 after 48 MiB each way, and the data
 * comes back whole. Both engines. */
#include "storage/helpers.h"

enum { SLOTS = 12 };
static const size_t SIZE = 4 * MiB;

static void run(ebb_disk_backend backend, double rate)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(SIZE, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, SIZE, SLOTS, backend);
    cr_assert_eq(o.max_bandwidth, 0.0, "not unlimited by default");
    o.block = 1 * MiB;
    o.max_bandwidth = rate;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.max_bandwidth, rate);
    for (int32_t s = 0; s < SLOTS; s++)
        roundtrip(h, d, 0, s, 1, (uint64_t)s + 7);
    ebb_disk_debug dbg;
    cr_assert_eq(ebb_disk_debug_get(d, &dbg), EBB_OK);
    cr_expect_eq(dbg.paced_waits, 0, "%llu requests held back (%s, max_bandwidth %g)",
                 (unsigned long long)dbg.paced_waits, info.backend, rate);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_pace_unlimited, io_uring)
{
    run(EBB_DISK_BACKEND_AUTO, 0);
}

Test(disk_pace_unlimited, threads)
{
    run(EBB_DISK_BACKEND_THREADS, 0);
}

Test(disk_pace_unlimited, limit_far_above_the_disk)
{
    run(EBB_DISK_BACKEND_AUTO, 1e18);
    run(EBB_DISK_BACKEND_THREADS, 1e18);
}

/* Values that are not a rate are refused at creation, naming the option. */
Test(disk_pace_unlimited, bad_values_refused)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const double bad[] = {-1.0, 0.5, 2e18, 1.0 / 0.0, 0.0 / 0.0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ebb_pool_options o;
        disk_options(&o, dirs, 1, SIZE, 1, EBB_DISK_BACKEND_AUTO);
        o.max_bandwidth = bad[i];
        ebb_pool *d = NULL;
        cr_expect_eq(ebb_pool_create(&o, &d), EBB_ERR_INVALID_ARG, "%g accepted", bad[i]);
        cr_expect_null(d);
        cr_expect(strstr(ebb_last_error(), "max_bandwidth") != NULL &&
                      strstr(ebb_last_error(), "expected 0 (no limit) or 1 .. 1e18") != NULL,
                  "%s", ebb_last_error());
    }
    rm_tmpdir(dir);
}
