/* Engine errors end in reported failures and a clean destroy, never in a
 * spin or a hang: io_uring_enter failing for good fails every operation in
 * flight and queued (and the later ones), with the errno text; a transient
 * io_uring_enter EAGAIN is retried; requests that keep completing with
 * -EAGAIN are retried a bounded number of times with a backoff, then fail.
 * The timeouts turn a hang into a failure. */
#include <errno.h>
#include <time.h>

#include "storage/helpers.h"

enum { N = 4 };
static const size_t SIZE = 256 * KiB;

typedef struct rig {
    char dir[256];
    ebb_pool *h, *d;
    ebb_ticket t[N];
} rig;

static void rig_open(rig *r, ebb_disk_backend backend, const ebb_storage_fault *f)
{
    make_tmpdir(r->dir, sizeof r->dir);
    const char *dirs[] = {r->dir};
    r->h = host_pool(SIZE, N);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, SIZE, N, backend);
    o.block = 64 * KiB;
    o.queue_depth = 8;
    o.staging = r->h;
    r->d = create_or_skip(&o, f);
}

static void rig_close(rig *r)
{
    ebb_pool_destroy(r->d); /* must return: the test times out otherwise */
    ebb_pool_destroy(r->h);
    rm_tmpdir(r->dir);
}

/* Waits until the engine sits in its first io_uring_enter (with nothing to
 * submit but its eventfd read), so that the stores started next are
 * submitted by the second one, whatever the timing. */
static void wait_first_enter(rig *r)
{
    ebb_disk_debug dbg = {0};
    for (int i = 0; i < 10000 && dbg.enter_calls < 1; i++) {
        ebb_disk_debug_get(r->d, &dbg);
        usleep(100);
    }
    cr_assert_geq(dbg.enter_calls, 1, "the engine never called io_uring_enter");
    usleep(10 * 1000);
}

/* Starts N stores; returns how many of their tickets failed (each failure's
 * message must contain `want`). */
static int store_all(rig *r, const char *want)
{
    for (int32_t s = 0; s < N; s++) {
        fill_random(slot_ptr(r->h, s), SIZE, (uint64_t)s + 1);
        cr_assert_eq(ebb_move(r->d, s, r->h, s, &r->t[s]), EBB_OK, "%s", ebb_last_error());
    }
    int failed = 0;
    for (int32_t s = 0; s < N; s++) {
        ebb_status st = ebb_ticket_wait(&r->t[s]);
        if (st == EBB_OK)
            continue;
        failed++;
        cr_assert_eq(st, EBB_ERR_IO, "%s", ebb_last_error());
        cr_assert(strstr(ebb_last_error(), want) != NULL, "expected '%s' in: %s", want,
                  ebb_last_error());
    }
    return failed;
}

/* io_uring_enter fails with ENOMEM from its second call on, for good: the
 * requests prepared for it are dropped and their operations fail, as do the
 * queued ones. */
Test(disk_engine_errors, enter_fails_for_good, .timeout = 60)
{
    rig r;
    ebb_storage_fault f = {0};
    f.enter_nth = 2;
    f.enter_errno = ENOMEM;
    rig_open(&r, EBB_DISK_BACKEND_URING, &f);
    wait_first_enter(&r);
    cr_assert_eq(store_all(&r, "io_uring_enter"), N, "every store must fail");
    cr_assert(strstr(ebb_last_error(), "Cannot allocate memory") != NULL, "%s",
              ebb_last_error());
    /* Later operations fail too, at once or through their ticket. */
    ebb_ticket t;
    ebb_status s = ebb_move(r.d, 0, r.h, 0, &t);
    if (s == EBB_OK)
        s = ebb_ticket_wait(&t);
    cr_assert_eq(s, EBB_ERR_IO, "%s", ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "io_uring") != NULL, "%s", ebb_last_error());
    ebb_disk_debug dbg;
    ebb_disk_debug_get(r.d, &dbg);
    cr_assert_lt(dbg.enter_calls, 1000, "the engine spun: %llu io_uring_enter calls",
                 (unsigned long long)dbg.enter_calls);
    ebb_pool_stats st;
    ebb_pool_stats_get(r.d, &st);
    cr_assert_geq(st.errors, N);
    rig_close(&r);
}

/* io_uring_enter says EAGAIN (the kernel is short of resources) five times,
 * then works: retried, every store succeeds. */
Test(disk_engine_errors, enter_eagain_is_retried, .timeout = 60)
{
    rig r;
    ebb_storage_fault f = {0};
    f.enter_nth = 2;
    f.enter_errno = EAGAIN;
    f.enter_count = 5;
    rig_open(&r, EBB_DISK_BACKEND_URING, &f);
    cr_assert_eq(store_all(&r, "-"), 0, "%s", ebb_last_error());
    for (int32_t s = 0; s < N; s++)
        roundtrip(r.h, r.d, s, s, (s + 1) % N, (uint64_t)s + 50);
    rig_close(&r);
}

/* io_uring_enter says EAGAIN for good: the retries are bounded, then every
 * operation fails and destroy returns. */
Test(disk_engine_errors, enter_eagain_for_good_is_bounded, .timeout = 60)
{
    rig r;
    ebb_storage_fault f = {0};
    f.enter_nth = 2;
    f.enter_errno = EAGAIN;
    rig_open(&r, EBB_DISK_BACKEND_URING, &f);
    wait_first_enter(&r);
    cr_assert_eq(store_all(&r, "Resource temporarily unavailable"), N);
    ebb_disk_debug dbg;
    ebb_disk_debug_get(r.d, &dbg);
    cr_assert_lt(dbg.enter_calls, 1000, "unbounded retries: %llu io_uring_enter calls",
                 (unsigned long long)dbg.enter_calls);
    rig_close(&r);
}

/* Every request completes with -EAGAIN: each block is retried a bounded
 * number of times with a growing pause, then its operation fails saying so. */
static void requests_eagain_for_good(ebb_disk_backend backend)
{
    rig r;
    ebb_storage_fault f = {0};
    f.io_nth = 1;
    f.io_count = 1000000;
    f.io_errno = EAGAIN;
    rig_open(&r, backend, &f);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert_eq(store_all(&r, "Resource temporarily unavailable"), N);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert(strstr(ebb_last_error(), "attempts") != NULL, "no retry count: %s",
              ebb_last_error());
    /* 10 pauses doubling from 100 us (capped at 50 ms) add up to ~0.1 s. */
    cr_assert_geq(took, 0.05, "gave up after %.3f s: no pause between the retries", took);
    ebb_pool_stats st;
    ebb_pool_stats_get(r.d, &st);
    cr_assert_gt(st.retries, 0);
    cr_assert_lt(st.retries, 10000, "unbounded: %llu retries", (unsigned long long)st.retries);
    rig_close(&r);
}

Test(disk_engine_errors, requests_eagain_for_good_io_uring, .timeout = 60)
{
    requests_eagain_for_good(EBB_DISK_BACKEND_URING);
}

Test(disk_engine_errors, requests_eagain_for_good_threads, .timeout = 60)
{
    requests_eagain_for_good(EBB_DISK_BACKEND_THREADS);
}

/* A few -EAGAIN completions in a row are retried (with the pause) and the
 * data is intact. */
Test(disk_engine_errors, requests_eagain_a_few_times, .timeout = 60)
{
    for (int b = 0; b < 2; b++) {
        rig r;
        ebb_storage_fault f = {0};
        f.io_nth = 3;
        f.io_count = 4; /* requests 3 to 6 */
        f.io_errno = EAGAIN;
        /* threads first: where io_uring is refused that half still runs */
        rig_open(&r, b ? EBB_DISK_BACKEND_URING : EBB_DISK_BACKEND_THREADS, &f);
        cr_assert_eq(store_all(&r, "-"), 0, "%s", ebb_last_error());
        for (int32_t s = 0; s < N; s++)
            roundtrip(r.h, r.d, s, s, (s + 1) % N, (uint64_t)s + 60);
        ebb_pool_stats st;
        ebb_pool_stats_get(r.d, &st);
        cr_assert_geq(st.retries, 4);
        cr_assert_eq(st.errors, 0);
        rig_close(&r);
    }
}
