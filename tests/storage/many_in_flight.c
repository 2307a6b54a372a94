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
    for (int32_t s = 0; s < N; s++) {
        fill_random(slot_ptr(h, s), size, (uint64_t)s * 7 + 1);
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    }
    /* A second operation on a slot in flight is refused, not queued behind it. */
    int busy_seen = 0;
    {
        ebb_ticket x;
        ebb_status st = ebb_move(d, N - 1, h, 0, &x);
        if (st == EBB_ERR_STATE) {
            busy_seen = 1;
            cr_assert(strstr(ebb_last_error(), "disk slot 47 is busy") != NULL, "%s",
                      ebb_last_error());
        } else {
            cr_assert_eq(st, EBB_OK);
            cr_assert_eq(ebb_ticket_wait(&x), EBB_OK);
            /* slot 47 now holds slot 0's data: restore the expectation */
            memcpy(slot_ptr(h, N - 1), slot_ptr(h, 0), size);
        }
    }
    (void)busy_seen;
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());
    for (int32_t s = 0; s < N; s++)
        cr_assert_eq(ebb_move(h, N + s, d, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait_all(t, N), EBB_OK, "%s", ebb_last_error());
    for (int32_t s = 0; s < N; s++)
        cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, N + s), size) == 0, "slot %d differs", s);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_geq(st.writes, N);
    cr_assert_eq(st.reads, N);
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
