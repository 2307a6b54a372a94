/* -EAGAIN completions are retried and short reads/writes are finished, not
 * ignored: the data still round-trips and the retries are counted. */
#include "storage/helpers.h"

static void run(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 512 * KiB;
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 2, backend);
    o.block = 128 * KiB;
    o.staging = h;
    ebb_storage_fault f = {0};
    f.io_nth = 2;
    f.io_errno = EAGAIN;
    f.short_nth = 6;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_OK, "%s", ebb_last_error());
    roundtrip(h, d, 0, 1, 1, 3);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_geq(st.retries, 2, "retries %llu", (unsigned long long)st.retries);
    cr_assert_geq(st.requests, 4 * 2 + 2);
    cr_assert_eq(st.errors, 0);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_retry, eagain_and_short_io_uring)
{
    run(EBB_DISK_BACKEND_AUTO);
}

Test(disk_retry, eagain_and_short_threads)
{
    run(EBB_DISK_BACKEND_THREADS);
}
