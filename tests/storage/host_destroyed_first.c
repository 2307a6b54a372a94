/* Destroying a host pool while disk operations still use its slots is safe,
 * whichever order the caller destroys the pools in: the host pool waits for
 * those operations (their I/O and their completion, which touch its memory
 * and its slot counters) before freeing anything, and a disk pool that
 * stages through a destroyed host pool keeps working with other host pools
 * (its registered buffers are never taken for another pool's memory). Both
 * engines. */
#include <pthread.h>
#include <time.h>

#include "storage/helpers.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *release_later(void *arg)
{
    usleep(200 * 1000);
    ebb_disk_debug_hold(arg, 0);
    return NULL;
}

static void reads_in_flight(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    enum { N = 4 };
    const size_t size = 1 * MiB;
    ebb_pool *h = host_pool(size, N);
    ebb_pool *keep = host_pool(size, 1);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, N, backend);
    o.block = 256 * KiB;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t[N];
    for (int32_t s = 0; s < N; s++) {
        fill_random(slot_ptr(h, s), size, (uint64_t)s + 5);
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());

    /* Reads into every host slot, held back so that they are surely in
     * flight when the host pool is destroyed. */
    cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK);
    for (int32_t s = 0; s < N; s++)
        cr_assert_eq(ebb_move(h, s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    int done = 1;
    cr_assert_eq(ebb_ticket_test(&t[0], &done), EBB_OK);
    cr_assert_eq(done, 0, "the held read completed");
    pthread_t releaser;
    cr_assert_eq(pthread_create(&releaser, NULL, release_later, d), 0);
    double t0 = now_s();
    ebb_pool_destroy(h); /* must wait for the reads */
    double waited = now_s() - t0;
    /* The reads were held until release_later let them go: a destroy that
     * did not wait for them returns at once. (A ticket may report complete a
     * moment after the read's last touch of the host pool, so the tickets
     * are waited for, not tested.) */
    cr_assert_geq(waited, 0.15, "destroy returned after %.3f s, before the reads completed",
                  waited);
    for (int32_t s = 0; s < N; s++)
        cr_assert_eq(ebb_ticket_wait(&t[s]), EBB_OK, "read %d: %s", s, ebb_last_error());
    pthread_join(releaser, NULL);

    /* The disk pool goes on with another host pool. */
    roundtrip(keep, d, 0, 1, 0, 77);
    ebb_pool_destroy(d);
    ebb_pool_destroy(keep);
    rm_tmpdir(dir);
}

Test(host_destroyed_first, waits_for_reads_io_uring)
{
    reads_in_flight(EBB_DISK_BACKEND_AUTO);
}

Test(host_destroyed_first, waits_for_reads_threads)
{
    reads_in_flight(EBB_DISK_BACKEND_THREADS);
}

/* The staging pool (registered with io_uring) destroyed before its disk
 * pool: host pools made afterwards, wherever their memory and their handle
 * land, use plain I/O and keep their data; the disk pool is destroyed last
 * without touching the freed pool. */
Test(host_destroyed_first, staging_pool_destroyed_first)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 512 * KiB;
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 4, EBB_DISK_BACKEND_URING);
    o.block = 128 * KiB;
    o.staging = h;
    ebb_pool *d = create_or_skip(&o, NULL);
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    roundtrip(h, d, 0, 0, 1, 1);
    ebb_pool_destroy(h);

    ebb_disk_debug before, after;
    ebb_disk_debug_get(d, &before);
    for (int round = 0; round < 4; round++) {
        ebb_pool *h2 = host_pool(size, 2); /* same size: may reuse the freed handle */
        roundtrip(h2, d, 0, 1 + round % 3, 1, 10 + (uint64_t)round);
        ebb_pool_destroy(h2);
    }
    ebb_disk_debug_get(d, &after);
    cr_assert_eq(after.fixed_requests, before.fixed_requests,
                 "a pool that is not the staging pool used registered buffers");
    ebb_pool_destroy(d);
    rm_tmpdir(dir);
}
