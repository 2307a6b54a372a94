/* Host slots used by gpu copies are tracked: while a gpu -> host copy fills
 * a host slot nothing may use it (put, get, host -> host, host -> disk,
 * disk -> host, another gpu -> host), and while a host -> gpu copy reads one
 * it may be read (get, host -> host, host -> disk, another host -> gpu) but
 * not written. Refusals are EBB_ERR_STATE naming the copy; once the ticket
 * completed everything works and the data is intact.
 *
 * On a real GPU a copy may finish before the next call (256 MiB slots make
 * that unlikely: a copy takes milliseconds, a call microseconds), so each
 * attempt must be refused with the message or, if accepted, the copy must
 * have completed already; at least one attempt must have been refused.
 * Without a GPU (or without CUDA) the gpu tests skip and nothing changes. */
#include "storage/helpers.h"

#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static const size_t BIG = 256 * MiB;

#define NEED_GPU(n)                                                                               \
    do {                                                                                          \
        if (ebb_gpu_count() < (n))                                                                \
            cr_skip_test("needs %d CUDA device(s), this machine has %d", (n), ebb_gpu_count());   \
    } while (0)

typedef struct rig {
    char dir[256];
    ebb_pool *h;   /* pinned host pool: 3 slots */
    ebb_pool *g;   /* gpu pool: 2 slots */
    ebb_pool *g2;  /* another gpu pool (another stream): 1 slot */
    ebb_pool *dk;  /* disk pool: 2 slots, staging through h */
    unsigned char *x;       /* the state: random bytes */
    unsigned char *scratch; /* pageable, for get */
} rig;

static void wait_ok(const ebb_ticket *t, const char *what)
{
    cr_assert_eq(ebb_ticket_wait(t), EBB_OK, "%s: %s", what, ebb_last_error());
}

static void same(const void *a, const void *b, const char *what)
{
    cr_assert(memcmp(a, b, BIG) == 0, "%s: the data differs", what);
}

/* Pools, and the state x in host slot 0, both gpu slots, g2's slot and disk
 * slot 1. */
static void rig_open(rig *r)
{
    memset(r, 0, sizeof *r);
    make_tmpdir(r->dir, sizeof r->dir);
    const char *dirs[] = {r->dir};
    r->h = pinned_host_pool(0, 3, BIG);
    r->g = gpu_pool(0, 2, BIG, 0);
    r->g2 = gpu_pool(0, 1, BIG, 0);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, BIG, 2, EBB_DISK_BACKEND_AUTO);
    o.staging = r->h;
    cr_assert_eq(ebb_pool_create(&o, &r->dk), EBB_OK, "disk pool: %s", ebb_last_error());
    r->x = malloc(BIG);
    r->scratch = malloc(BIG);
    cr_assert(r->x && r->scratch);
    fill_random(r->x, BIG, 42);
    memcpy(slot_ptr(r->h, 0), r->x, BIG);
    ebb_ticket t;
    cr_assert_eq(ebb_move(r->g, 0, r->h, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host 0 -> gpu 0");
    cr_assert_eq(ebb_move(r->g, 1, r->h, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host 0 -> gpu 1");
    cr_assert_eq(ebb_move(r->g2, 0, r->h, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host 0 -> gpu2 0");
    cr_assert_eq(ebb_move(r->dk, 1, r->h, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host 0 -> disk 1");
}

static void rig_close(rig *r)
{
    ebb_pool_destroy(r->dk);
    ebb_pool_destroy(r->g2);
    ebb_pool_destroy(r->g);
    ebb_pool_destroy(r->h);
    free(r->x);
    free(r->scratch);
    rm_tmpdir(r->dir);
}

/* An attempt made while the copies `inflight` may still run: refused with
 * `want` in the message (returns 1), or accepted because they had all
 * completed already (returns 0; an accepted asynchronous operation `t` is
 * waited for at once, so that it cannot get in the way of the next attempt). */
static int refused_or_done(ebb_status s, const ebb_ticket *inflight, int n, const char *want,
                           const ebb_ticket *t, const char *what)
{
    if (s == EBB_ERR_STATE) {
        cr_assert(strstr(ebb_last_error(), want) != NULL, "%s: refused, but '%s' lacks '%s'",
                  what, ebb_last_error(), want);
        cr_assert(strstr(ebb_last_error(), "wait for its ticket first") != NULL, "%s: %s", what,
                  ebb_last_error());
        return 1;
    }
    cr_assert_eq(s, EBB_OK, "%s: %s", what, ebb_last_error());
    for (int i = 0; i < n; i++) {
        int done = 0;
        cr_assert_eq(ebb_ticket_test(&inflight[i], &done), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(done, 1, "%s was accepted while gpu copy %d was still in flight", what, i);
    }
    if (t)
        wait_ok(t, what);
    return 0;
}

Test(gpu_host_slot_busy, gpu_to_host_in_flight_blocks_every_use)
{
    NEED_GPU(1);
    rig r;
    rig_open(&r);
    const char *want = "host slot 1 is in use by a gpu -> host copy still in flight";
    int refused = 0;
    for (int round = 0; round < 5 && refused == 0; round++) {
        memset(slot_ptr(r.h, 1), 0, BIG);
        ebb_ticket d2h, t;
        cr_assert_eq(ebb_move(r.h, 1, r.g, 0, &d2h), EBB_OK, "%s", ebb_last_error());
        /* Every attempt either is refused or finds the copy done; an accepted
         * one stores x where x already is (or will be), so the data check
         * below holds either way. */
        refused += refused_or_done(ebb_pool_put(r.h, 1, r.x, &t), &d2h, 1, want, NULL, "put");
        refused += refused_or_done(ebb_pool_get(r.h, 1, r.scratch, &t), &d2h, 1, want, NULL,
                                   "get");
        refused += refused_or_done(ebb_move(r.h, 2, r.h, 1, &t), &d2h, 1, want, NULL,
                                   "host -> host from the slot");
        refused += refused_or_done(ebb_move(r.dk, 0, r.h, 1, &t), &d2h, 1, want, &t,
                                   "host -> disk from the slot");
        refused += refused_or_done(ebb_move(r.h, 1, r.dk, 1, &t), &d2h, 1, want, &t,
                                   "disk -> host into the slot");
        /* another gpu -> host copy, from another (idle) gpu slot */
        refused += refused_or_done(ebb_move(r.h, 1, r.g, 1, &t), &d2h, 1, want, &t,
                                   "gpu -> host from another gpu slot");
        /* ... and from another gpu pool */
        refused += refused_or_done(ebb_move(r.h, 1, r.g2, 0, &t), &d2h, 1, want, &t,
                                   "gpu -> host from another gpu pool");
        wait_ok(&d2h, "gpu 0 -> host 1");
        same(slot_ptr(r.h, 1), r.x, "host slot 1 after gpu -> host");
    }
    cr_assert_gt(refused, 0, "no attempt was refused in 5 rounds: every 256 MiB copy had "
                             "finished before the next call, or host slots are not tracked");

    /* The copy completed: everything works, and the data round-trips. */
    ebb_ticket t;
    cr_assert_eq(ebb_pool_get(r.h, 1, r.scratch, &t), EBB_OK, "%s", ebb_last_error());
    same(r.scratch, r.x, "get");
    memset(slot_ptr(r.h, 2), 0, BIG);
    cr_assert_eq(ebb_move(r.h, 2, r.h, 1, &t), EBB_OK, "%s", ebb_last_error());
    same(slot_ptr(r.h, 2), r.x, "host -> host");
    cr_assert_eq(ebb_move(r.dk, 0, r.h, 1, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host -> disk");
    memset(slot_ptr(r.h, 2), 0, BIG);
    cr_assert_eq(ebb_move(r.h, 2, r.dk, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "disk -> host");
    same(slot_ptr(r.h, 2), r.x, "host -> disk -> host");
    memset(slot_ptr(r.h, 1), 0, BIG);
    cr_assert_eq(ebb_move(r.h, 1, r.dk, 1, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "disk -> host into slot 1");
    same(slot_ptr(r.h, 1), r.x, "disk -> host into slot 1");
    memset(slot_ptr(r.h, 1), 0, BIG);
    cr_assert_eq(ebb_move(r.h, 1, r.g, 1, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "gpu 1 -> host 1");
    same(slot_ptr(r.h, 1), r.x, "gpu 1 -> host 1");
    memset(slot_ptr(r.h, 1), 0, BIG);
    cr_assert_eq(ebb_pool_put(r.h, 1, r.x, &t), EBB_OK, "%s", ebb_last_error());
    same(slot_ptr(r.h, 1), r.x, "put");
    rig_close(&r);
}

Test(gpu_host_slot_busy, host_to_gpu_in_flight_allows_reads_only)
{
    NEED_GPU(1);
    rig r;
    rig_open(&r);
    const char *want = "host slot 0 is in use by a host -> gpu copy still in flight";
    int refused = 0;
    for (int round = 0; round < 5 && refused == 0; round++) {
        ebb_ticket h2d[2], t, td;
        cr_assert_eq(ebb_move(r.g, 0, r.h, 0, &h2d[0]), EBB_OK, "%s", ebb_last_error());
        /* writing the slot is refused while the copy reads it (an accepted
         * put stores x, which the slot already holds) */
        refused += refused_or_done(ebb_pool_put(r.h, 0, r.x, &t), h2d, 1, want, NULL, "put");
        /* reading it is allowed */
        cr_assert_eq(ebb_pool_get(r.h, 0, r.scratch, &t), EBB_OK, "get: %s", ebb_last_error());
        same(r.scratch, r.x, "get while host -> gpu reads");
        cr_assert_eq(ebb_move(r.h, 2, r.h, 0, &t), EBB_OK, "host -> host: %s", ebb_last_error());
        same(slot_ptr(r.h, 2), r.x, "host -> host while host -> gpu reads");
        /* a second reader, on another gpu pool's stream: the slot stays
         * protected until both copies completed */
        cr_assert_eq(ebb_move(r.g2, 0, r.h, 0, &h2d[1]), EBB_OK, "second host -> gpu: %s",
                     ebb_last_error());
        refused += refused_or_done(ebb_pool_put(r.h, 0, r.x, &t), h2d, 2, want, NULL,
                                   "put with two readers");
        /* gpu -> host into it (from an idle gpu slot) writes it: refused */
        refused += refused_or_done(ebb_move(r.h, 0, r.g, 1, &t), h2d, 2, want, &t,
                                   "gpu -> host into the slot");
        /* a disk write reads it: allowed */
        cr_assert_eq(ebb_move(r.dk, 0, r.h, 0, &td), EBB_OK, "host -> disk: %s",
                     ebb_last_error());
        wait_ok(&td, "host -> disk");
        wait_ok(&h2d[0], "host 0 -> gpu 0");
        wait_ok(&h2d[1], "host 0 -> gpu2 0");
    }
    cr_assert_gt(refused, 0, "no attempt was refused in 5 rounds: every 256 MiB copy had "
                             "finished before the next call, or host slots are not tracked");

    /* Completed: the slot can be written again, and every copy is intact. */
    ebb_ticket t;
    cr_assert_eq(ebb_pool_put(r.h, 0, r.x, &t), EBB_OK, "%s", ebb_last_error());
    memset(slot_ptr(r.h, 1), 0, BIG);
    cr_assert_eq(ebb_move(r.h, 1, r.g, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "gpu 0 -> host 1");
    same(slot_ptr(r.h, 1), r.x, "host -> gpu 0 -> host");
    memset(slot_ptr(r.h, 1), 0, BIG);
    cr_assert_eq(ebb_move(r.h, 1, r.g2, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "gpu2 0 -> host 1");
    same(slot_ptr(r.h, 1), r.x, "host -> gpu2 0 -> host");
    memset(slot_ptr(r.h, 1), 0, BIG);
    cr_assert_eq(ebb_move(r.h, 1, r.dk, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "disk 0 -> host 1");
    same(slot_ptr(r.h, 1), r.x, "host -> disk -> host");
    rig_close(&r);
}

/* Destroying the host pool first waits for a tracked copy still filling it
 * (its memory is unpinned and unmapped only afterwards). */
Test(gpu_host_slot_busy, host_pool_destroyed_first_waits_for_its_copies)
{
    NEED_GPU(1);
    ebb_pool *h = pinned_host_pool(0, 1, BIG);
    ebb_pool *g = gpu_pool(0, 1, BIG, 0);
    ebb_ticket t;
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host -> gpu");
    cr_assert_eq(ebb_move(h, 0, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    ebb_pool_destroy(h);
    wait_ok(&t, "gpu -> host after the host pool was destroyed");
    ebb_pool_destroy(g);
}

/* A host pool whose events cannot be created (made for a device that does
 * not exist) is still pinned and usable; it says its slots are not tracked,
 * and leaves no CUDA error behind. */
Test(gpu_host_slot_busy, events_refused_is_a_warning)
{
    NEED_GPU(1);
    const size_t size = 1 * MiB + 4096;
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = size;
    o.slots = 2;
    o.device = ebb_gpu_count(); /* no such device */
    ebb_pool *h = NULL;
    cr_assert_eq(ebb_pool_create(&o, &h), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    ebb_pool_info_get(h, &info);
    cr_assert_eq(info.pinned, 1, "%s", info.warnings);
    cr_assert(strstr(info.warnings, "not tracked") != NULL, "warnings: '%s'", info.warnings);
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
    cr_assert_eq(cudaPeekAtLastError(), cudaSuccess, "a CUDA error was left pending: %s",
                 cudaGetErrorString(cudaPeekAtLastError()));
    int cur = -1;
    cr_assert_eq(cudaGetDevice(&cur), cudaSuccess);
    cr_assert_eq(cur, 0, "the current device changed");
#endif
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = size;
    o.slots = 1;
    ebb_pool *g = NULL;
    cr_assert_eq(ebb_pool_create(&o, &g), EBB_OK, "%s", ebb_last_error());
    fill_random(slot_ptr(h, 0), size, 9);
    memset(slot_ptr(h, 1), 0, size);
    ebb_ticket t;
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host -> gpu");
    cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "gpu -> host");
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), size) == 0);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}

/* With two devices: a host pool made for device 1 tracks copies of a gpu pool
 * on device 1, while device 0 stays current. */
Test(gpu_host_slot_busy, tracks_on_the_host_pools_device)
{
    NEED_GPU(2);
    ebb_pool *h = pinned_host_pool(1, 2, BIG);
    ebb_pool *g = gpu_pool(1, 1, BIG, 0);
    const char *want = "host slot 1 is in use by a gpu -> host copy still in flight";
    unsigned char *x = malloc(BIG);
    cr_assert_not_null(x);
    fill_random(x, BIG, 3);
    memcpy(slot_ptr(h, 0), x, BIG);
    ebb_ticket t, u;
    cr_assert_eq(ebb_move(g, 0, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    wait_ok(&t, "host -> gpu");
    int refused = 0;
    for (int round = 0; round < 5 && refused == 0; round++) {
        cr_assert_eq(ebb_move(h, 1, g, 0, &t), EBB_OK, "%s", ebb_last_error());
        refused += refused_or_done(ebb_pool_put(h, 1, x, &u), &t, 1, want, NULL, "put");
        wait_ok(&t, "gpu -> host");
    }
    cr_assert_gt(refused, 0, "no put was refused in 5 rounds");
    same(slot_ptr(h, 1), x, "gpu -> host on device 1");
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
    int cur = -1;
    cr_assert_eq(cudaGetDevice(&cur), cudaSuccess);
    cr_assert_eq(cur, 0, "the current device changed");
#endif
    free(x);
    ebb_pool_destroy(g);
    ebb_pool_destroy(h);
}

/* Without a GPU nothing changes: host pools are unpinned, make no events,
 * and their slots answer only to disk operations. */
Test(gpu_host_slot_busy, nothing_changes_without_gpu)
{
    if (ebb_gpu_count() > 0)
        cr_skip_test("a CUDA device is present: the other tests cover it");
    ebb_pool *h = host_pool(64 * KiB, 2);
    ebb_pool_info info;
    ebb_pool_info_get(h, &info);
    cr_assert_eq(info.pinned, 0);
    cr_assert(strstr(info.warnings, "not tracked") == NULL, "warnings: '%s'", info.warnings);
    fill_random(slot_ptr(h, 0), 64 * KiB, 1);
    ebb_ticket t;
    cr_assert_eq(ebb_move(h, 1, h, 0, &t), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_put(h, 0, slot_ptr(h, 1), &t), EBB_OK, "%s", ebb_last_error());
    cr_assert(memcmp(slot_ptr(h, 0), slot_ptr(h, 1), 64 * KiB) == 0);
    ebb_pool_destroy(h);
}
