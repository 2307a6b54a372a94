/* Destroying a disk pool with operations in flight waits for them: every
 * queued and running operation finishes its I/O (the reads below fill their
 * host slots completely) and releases the host slots it held, and only then
 * is the pool freed (ASan sees no leak and nothing touches freed memory). */
#include "storage/helpers.h"

enum { N = 8 };
static const size_t SIZE = 1 * MiB;

static void run(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(SIZE, 2 * N);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, SIZE, N, backend);
    o.block = 128 * KiB;
    o.queue_depth = 4; /* fewer requests than the reads' blocks: some stay queued */
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t[N];
    for (int32_t s = 0; s < N; s++) {
        fill_random(slot_ptr(h, s), SIZE, (uint64_t)s + 1);
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());

    /* Reads into cleared slots, held back: surely in flight at destroy. */
    for (int32_t s = 0; s < N; s++)
        memset(slot_ptr(h, N + s), 0, SIZE);
    cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK);
    for (int32_t s = 0; s < N; s++)
        cr_assert_eq(ebb_move(h, N + s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    int pending = 0;
    for (int32_t s = 0; s < N; s++) {
        int done = 1;
        cr_assert_eq(ebb_ticket_test(&t[s], &done), EBB_OK);
        pending += !done;
    }
    cr_assert_eq(pending, N, "held reads completed");
    ebb_ticket u;
    cr_assert_eq(ebb_pool_put(h, N, slot_ptr(h, 0), &u), EBB_ERR_STATE,
                 "a host slot being filled by a read was writable");
    ebb_pool_destroy(d); /* no wait: destroy lets the held completions go and drains */

    /* Every read finished, whole, and let go of its host slot. */
    for (int32_t s = 0; s < N; s++) {
        cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, N + s), SIZE) == 0,
                  "read %d did not finish before destroy returned", s);
        cr_assert_eq(ebb_pool_put(h, N + s, slot_ptr(h, s), &u), EBB_OK,
                     "host slot %d still held after destroy: %s", N + s, ebb_last_error());
    }
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_destroy, in_flight_io_uring, .timeout = 60)
{
    run(EBB_DISK_BACKEND_AUTO);
}

Test(disk_destroy, in_flight_threads, .timeout = 60)
{
    run(EBB_DISK_BACKEND_THREADS);
}
