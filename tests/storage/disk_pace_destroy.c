/* Destroying a paced disk pool with operations queued returns promptly:
 * the limit is lifted, so the queued reads and writes run at the disk's
 * speed instead of the seconds the limit would give them, and each
 * finishes properly: the reads fill their host slots whole, every host slot
 * is released. Both engines. */
#include <time.h>

#include "storage/helpers.h"

enum { N = 4 };
static const size_t SIZE = 128 * KiB;    /* two blocks of 64 KiB */
static const double RATE = 256.0 * 1024; /* 256 KiB/s: 2 s to write the 4 slots */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(SIZE, 3 * N);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, SIZE, 2 * N, backend);
    o.block = 64 * KiB;
    o.queue_depth = 2;
    o.max_bandwidth = RATE;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t[2 * N];
    for (int32_t s = 0; s < N; s++) {
        fill_random(slot_ptr(h, s), SIZE, (uint64_t)s + 1);
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());

    /* 4 reads and 4 writes queued: 1 MiB, 4 s at the limit. */
    for (int32_t s = 0; s < N; s++) {
        memset(slot_ptr(h, N + s), 0, SIZE);
        fill_random(slot_ptr(h, 2 * N + s), SIZE, (uint64_t)s + 50);
        cr_assert_eq(ebb_move(h, N + s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_move(d, N + s, h, 2 * N + s, &t[N + s]), EBB_OK, "%s", ebb_last_error());
    }
    double t0 = now_s();
    ebb_pool_destroy(d);
    double took = now_s() - t0;
    /* 4 s paced; unpaced it is milliseconds: 1.5 s tells the two apart on
     * any machine. */
    cr_expect_lt(took, 1.5, "destroy took %.3f s: the limit still paced the queued work", took);

    ebb_ticket u;
    for (int32_t s = 0; s < N; s++) {
        cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, N + s), SIZE) == 0,
                  "read %d did not finish before destroy returned", s);
        cr_assert_eq(ebb_pool_put(h, N + s, slot_ptr(h, s), &u), EBB_OK,
                     "host slot %d (read into) still held after destroy: %s", N + s,
                     ebb_last_error());
        cr_assert_eq(ebb_pool_put(h, 2 * N + s, slot_ptr(h, s), &u), EBB_OK,
                     "host slot %d (written from) still held after destroy: %s", 2 * N + s,
                     ebb_last_error());
    }
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_pace_destroy, queued_io_uring, .timeout = 60)
{
    run(EBB_DISK_BACKEND_AUTO);
}

Test(disk_pace_destroy, queued_threads, .timeout = 60)
{
    run(EBB_DISK_BACKEND_THREADS);
}
