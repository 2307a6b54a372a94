/* An I/O error in the middle of a run surfaces as EBB_ERR_IO, with the errno
 * text, the slot and the file, on the ticket of the operation it hit; the
 * other operations complete, nothing crashes, and the slot works again once
 * the failure was reported. Both backends. */
#include "storage/helpers.h"

static void run(ebb_disk_backend backend)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    const size_t size = 256 * KiB;
    ebb_pool *h = host_pool(size, 4);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, size, 4, backend);
    o.block = 64 * KiB; /* 4 requests per slot */
    o.queue_depth = 4;
    o.threads = 1;      /* one worker: requests are numbered in order */
    o.staging = h;
    ebb_storage_fault f = {0};
    f.io_nth = 10; /* slot 2, block 1 of the writes below */
    f.io_errno = EIO;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t[4];
    for (int32_t s = 0; s < 4; s++) {
        fill_random(slot_ptr(h, s), size, (uint64_t)s);
        cr_assert_eq(ebb_move(d, s, h, s, &t[s]), EBB_OK, "%s", ebb_last_error());
    }
    int failures = 0;
    for (int32_t s = 0; s < 4; s++) {
        ebb_status st = ebb_ticket_wait(&t[s]);
        if (st == EBB_OK)
            continue;
        failures++;
        cr_assert_eq(st, EBB_ERR_IO);
        const char *msg = ebb_last_error();
        cr_assert(strstr(msg, "Input/output error") != NULL, "%s", msg);
        cr_assert(strstr(msg, "writing disk slot") != NULL, "%s", msg);
        cr_assert(strstr(msg, dir) != NULL, "%s", msg);
    }
    cr_assert_eq(failures, 1, "exactly the operation hit fails");

    /* wait_all reports the failure too, naming the ticket. */
    cr_assert_eq(ebb_ticket_wait_all(t, 4), EBB_ERR_IO);
    cr_assert(strstr(ebb_last_error(), "ticket ") != NULL, "%s", ebb_last_error());

    /* The failed slot holds no data; writing it again works. */
    int32_t bad = -1;
    for (int32_t s = 0; s < 4; s++) {
        ebb_ticket r;
        ebb_status st = ebb_move(h, 0, d, s, &r);
        if (st == EBB_ERR_STATE) {
            cr_assert(strstr(ebb_last_error(), "holds no data") != NULL, "%s", ebb_last_error());
            bad = s;
            continue;
        }
        cr_assert_eq(st, EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait(&r), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_geq(bad, 0);
    roundtrip(h, d, 1, bad, 2, 77);
    ebb_pool_stats st;
    ebb_pool_stats_get(d, &st);
    cr_assert_eq(st.errors, 1);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}

Test(disk_io_error, injected_mid_run_io_uring)
{
    run(EBB_DISK_BACKEND_AUTO);
}

Test(disk_io_error, injected_mid_run_threads)
{
    run(EBB_DISK_BACKEND_THREADS);
}

/* A failure never tested blocks the slot's reuse with that failure's text. */
Test(disk_io_error, unreported_failure_is_not_lost)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(64 * KiB, 1);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 64 * KiB, 1, EBB_DISK_BACKEND_THREADS);
    ebb_storage_fault f = {0};
    f.io_nth = 1;
    f.io_errno = ENOSPC;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t;
    cr_assert_eq(ebb_move(d, 0, h, 0, &t), EBB_OK);
    int done = 0;
    for (int i = 0; i < 100000 && !done; i++) {
        ebb_status s = ebb_ticket_test(&t, &done);
        if (done) {
            cr_assert_eq(s, EBB_ERR_IO);
            cr_assert(strstr(ebb_last_error(), "No space left on device") != NULL, "%s",
                      ebb_last_error());
        } else {
            usleep(100);
        }
    }
    cr_assert_eq(done, 1);
    /* Reported once: the slot can be used again. */
    cr_assert_eq(ebb_move(d, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_ticket_wait(&t), EBB_OK, "%s", ebb_last_error());
    ebb_pool_destroy(d);

    /* Now without testing the failed ticket before reusing the slot. */
    cr_assert_eq(ebb_pool_create_with_faults(&o, &f, &d), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_move(d, 0, h, 0, &t), EBB_OK);
    ebb_status s;
    while ((s = ebb_move(d, 0, h, 0, &t)) == EBB_ERR_STATE &&
           strstr(ebb_last_error(), "still in flight"))
        usleep(100);
    cr_assert_eq(s, EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "previous operation failed") != NULL, "%s",
              ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "No space left on device") != NULL, "%s", ebb_last_error());
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
