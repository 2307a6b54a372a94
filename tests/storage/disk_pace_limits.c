/* A disk pool with max_bandwidth = 100 MB/s: writing 48 MiB, reading them
 * back, and writing 24 MiB while reading 24 MiB (one budget for both
 * directions) each take at least what the limit allows: 48 MiB at 100 MB/s
 * is 0.50 s, less the one block (1 MiB, 10 ms) and 1 ms the pacing may send
 * ahead. Only that lower bound is asserted (a busy machine is slower, never
 * faster); the data is compared. Both engines, and the thread engine that
 * auto falls back to when io_uring is refused (the failed io_uring start
 * lifted the limit before: 48 MiB in 0.03 s). */
#include <errno.h>
#include <time.h>

#include "storage/fault.h"

#include "storage/helpers.h"

enum { SLOTS = 12 };
static const size_t SIZE = 4 * MiB; /* 12 slots: 48 MiB */
static const double RATE = 100e6;
static const double AT_LEAST = 0.45; /* seconds for 48 MiB */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Moves ops[i] = (to disk?, disk slot, host slot) all at once; seconds taken. */
static double moves(ebb_pool *d, ebb_pool *h, int n, const int (*ops)[3])
{
    ebb_ticket t[2 * SLOTS];
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        ebb_status s = ops[i][0] ? ebb_move(d, ops[i][1], h, ops[i][2], &t[i])
                                 : ebb_move(h, ops[i][2], d, ops[i][1], &t[i]);
        cr_assert_eq(s, EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_ticket_wait_all(t, (size_t)n), EBB_OK, "%s", ebb_last_error());
    return now_s() - t0;
}

static void run(ebb_disk_backend backend, const ebb_storage_fault *fault)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(SIZE, 2 * SLOTS);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, SIZE, SLOTS, backend);
    o.block = 1 * MiB;
    o.queue_depth = 8;
    o.max_bandwidth = RATE;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(fault ? ebb_pool_create_with_faults(&o, fault, &d) : ebb_pool_create(&o, &d),
                 EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    cr_assert_eq(info.max_bandwidth, RATE);
    for (int32_t s = 0; s < SLOTS; s++)
        fill_random(slot_ptr(h, s), SIZE, (uint64_t)s + 1);

    int ops[2 * SLOTS][3];
    for (int i = 0; i < SLOTS; i++)
        ops[i][0] = 1, ops[i][1] = i, ops[i][2] = i;
    double w = moves(d, h, SLOTS, (const int(*)[3])ops);
    cr_expect_geq(w, AT_LEAST, "48 MiB written in %.3f s through a 100 MB/s limit (%s)", w,
                  info.backend);

    for (int i = 0; i < SLOTS; i++)
        ops[i][0] = 0, ops[i][1] = i, ops[i][2] = SLOTS + i;
    double r = moves(d, h, SLOTS, (const int(*)[3])ops);
    cr_expect_geq(r, AT_LEAST, "48 MiB read in %.3f s through a 100 MB/s limit (%s)", r,
                  info.backend);
    for (int32_t s = 0; s < SLOTS; s++)
        cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, SLOTS + s), SIZE) == 0, "slot %d differs", s);

    /* Both directions at once share the one budget: 24 MiB each way. */
    for (int i = 0; i < SLOTS / 2; i++) {
        ops[2 * i][0] = 1, ops[2 * i][1] = i, ops[2 * i][2] = i;
        ops[2 * i + 1][0] = 0, ops[2 * i + 1][1] = SLOTS / 2 + i, ops[2 * i + 1][2] = SLOTS + i;
    }
    double m = moves(d, h, SLOTS, (const int(*)[3])ops);
    cr_expect_geq(m, AT_LEAST, "24 MiB written and 24 MiB read in %.3f s through a 100 MB/s "
                               "limit (%s)", m, info.backend);
    for (int32_t i = 0; i < SLOTS / 2; i++)
        cr_assert(memcmp(slot_ptr(h, SLOTS / 2 + i), slot_ptr(h, SLOTS + i), SIZE) == 0,
                  "slot %d differs", SLOTS / 2 + i);

    ebb_disk_debug dbg;
    cr_assert_eq(ebb_disk_debug_get(d, &dbg), EBB_OK);
    cr_expect_gt(dbg.paced_waits, 0, "the limit never held a request back");
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_pace, limits_io_uring, .timeout = 120)
{
    run(EBB_DISK_BACKEND_AUTO, NULL);
}

Test(disk_pace, limits_threads, .timeout = 120)
{
    run(EBB_DISK_BACKEND_THREADS, NULL);
}

Test(disk_pace, limits_after_falling_back_to_threads, .timeout = 120)
{
    ebb_storage_fault f = {.uring_errno = EPERM};
    run(EBB_DISK_BACKEND_AUTO, &f);
}
