/* Destroying a disk pool with operations in flight waits for them and frees
 * everything (ASan/valgrind see no leak, nothing touches freed memory). */
#include "storage/helpers.h"

static void run(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(1 * MiB, 8);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 1 * MiB, 8, backend);
    o.block = 128 * KiB;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t;
    for (int32_t s = 0; s < 8; s++)
        cr_assert_eq(ebb_move(d, s, h, s, &t), EBB_OK, "%s", ebb_last_error());
    ebb_pool_destroy(d); /* no wait: destroy drains */
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_destroy, in_flight_io_uring)
{
    run(EBB_DISK_BACKEND_AUTO);
}

Test(disk_destroy, in_flight_threads)
{
    run(EBB_DISK_BACKEND_THREADS);
}
