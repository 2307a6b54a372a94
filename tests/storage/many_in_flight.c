/* Many slots in flight at once: every store is started before any is waited
 * for, then every load; all data comes back intact. Both backends. */
#include "storage/helpers.h"

static void run(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    enum { N = 48 };
    const size_t size = 1 * MiB + 4096;
    ebb_pool *h = host_pool(size, 2 * N);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, N, backend);
    o.block = 256 * KiB;
    o.queue_depth = 16;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t[N];
    /* Completions are held back until every store has started, so that the
     * busy check below meets a store surely in flight. */
    cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK);
    for (int32_t s = 0; s < N; s++) {
        fill_random(slot_ptr(h, s), size, (uint64_t)s * 7 + 1);
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    }
    /* A second operation on a slot in flight is refused, not queued behind
     * it, and the first one goes on untouched. */
    {
        ebb_ticket x;
        cr_assert_eq(ebb_move(d, N - 1, h, 0, &x), EBB_ERR_STATE, "a second store into a "
                                                                 "slot in flight was accepted");
        cr_assert(strstr(ebb_last_error(), "disk slot 47 is busy") != NULL, "%s",
                  ebb_last_error());
        cr_assert_eq(ebb_move(h, 0, d, N - 1, &x), EBB_ERR_STATE,
                     "a load from a slot whose store is in flight was accepted");
    }
    cr_assert_eq(ebb_disk_debug_hold(d, 0), EBB_OK);
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());
    for (int32_t s = 0; s < N; s++)
        cr_assert_eq(ebb_move(h, N + s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());
    for (int32_t s = 0; s < N; s++)
        cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, N + s), size) == 0, "slot %d differs", s);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.writes, N);
    cr_assert_eq(st.reads, N);
    /* The engine kept several requests in flight at once (a depth-1 engine
     * would pass everything above): io_uring fills its whole queue from the
     * 48 operations queued; 16 worker threads overlap their requests. */
    ebb_disk_debug dbg;
    ebb_disk_debug_get(d, &dbg);
    ebb_pool_info info;
    ebb_pool_info_get(d, &info);
    if (strcmp(info.backend, "io_uring") == 0)
        cr_assert_eq(dbg.max_in_flight, 16, "at most %u requests were in flight at once",
                     dbg.max_in_flight);
    else
        cr_assert_geq(dbg.max_in_flight, 2, "at most %u requests were in flight at once",
                      dbg.max_in_flight);
    cr_assert_leq(dbg.max_in_flight, 16, "more requests in flight than the queue depth");
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(many_in_flight, io_uring)
{
    run(EBB_DISK_BACKEND_AUTO);
}

Test(many_in_flight, threads)
{
    run(EBB_DISK_BACKEND_THREADS);
}

/* A host slot a disk read is filling cannot be touched until it completes. */
Test(many_in_flight, host_slot_in_use_is_protected)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 8 * MiB;
    ebb_pool *h = host_pool(size, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 1, EBB_DISK_BACKEND_THREADS);
    o.block = 64 * KiB;
    o.threads = 1; /* slow enough to catch it in flight */
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t;
    cr_assert_eq(ebb_move(d, 0, h, 0, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    int caught = 0;
    for (int attempt = 0; attempt < 20 && !caught; attempt++) {
        cr_assert_eq(ebb_move(h, 1, d, 0, &t), EBB_OK, "%s", ebb_last_error());
        ebb_ticket u;
        ebb_status s = ebb_pool_put(h, 1, slot_ptr(h, 0), &u);
        if (s == EBB_ERR_STATE) {
            caught = 1;
            cr_assert(strstr(ebb_last_error(), "host slot 1 is being filled by a disk read") !=
                          NULL,
                      "%s", ebb_last_error());
        }
        cr_assert_eq(ebb_ticket_wait(&t), EBB_OK);
    }
    cr_assert(caught, "never caught the read in flight in 20 tries");
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
