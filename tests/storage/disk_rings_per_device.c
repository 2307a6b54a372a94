/* The io_uring engine runs one ring per device: directories on two file
 * systems (the disk under $TMPDIR or /tmp, and the tmpfs /dev/shm) give two
 * rings, two directories on one file system share one. States striped over
 * both devices survive random round trips, many in flight at once, with and
 * without checksums, and destroy is clean with work outstanding. Skipped
 * where /dev/shm is missing or on the same file system as /tmp. */
#include <sys/stat.h>

#include "storage/helpers.h"

enum { SLOTS = 24 };

/* A fresh directory under /dev/shm, or "" when there is none on another
 * device than `other`. */
static ebb_pool *disk(const char *const *dirs, int n, size_t size, int checksum, ebb_pool *h)
{
    ebb_pool_options o;
    disk_options(&o, dirs, n, size, SLOTS, EBB_DISK_BACKEND_URING);
    o.block = 64 * KiB; /* several blocks per state: each state spans both devices */
    o.queue_depth = 8;
    o.checksum = checksum;
    o.staging = h;
    return create_or_skip(&o, NULL);
}

static uint32_t rings(ebb_pool *d)
{
    ebb_disk_debug dbg;
    cr_assert_eq(ebb_disk_debug_get(d, &dbg), EBB_OK);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(d, &info), EBB_OK);
    cr_assert_eq((uint32_t)info.threads, dbg.rings, "info.threads %d, rings %u", info.threads,
                 dbg.rings);
    return dbg.rings;
}


Test(disk_rings, one_ring_per_device, .timeout = 120)
{
    char a[256], b[256], shm[256];
    make_tmpdir(a, sizeof a);
    shm_dir_or_skip(shm, sizeof shm, a);
    make_tmpdir(b, sizeof b);
    /* Sizes that end mid-block and states that fill a round unevenly. */
    const size_t sizes[] = {256 * KiB, 300 * KiB + 4096, 1 * MiB - 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t size = sizes[k];
        ebb_pool *h = host_pool(size, 2 * SLOTS);
        for (int checksum = 0; checksum < 2; checksum++) {
            const char *one[] = {a};
            ebb_pool *d = disk(one, 1, size, checksum, h);
            cr_assert_eq(rings(d), 1);
            ebb_pool_destroy(d);

            const char *same[] = {a, b};
            d = disk(same, 2, size, checksum, h);
            cr_assert_eq(rings(d), 1, "two directories on one file system: one ring");
            all_slots_round_trip(h, d, SLOTS, size, 1000 * k + 10 * (uint64_t)checksum, 1);
            ebb_pool_destroy(d);

            const char *two[] = {a, shm, b};
            d = disk(two, 3, size, checksum, h);
            cr_assert_eq(rings(d), 2, "%s and %s are on two devices: two rings", a, shm);
            all_slots_round_trip(h, d, SLOTS, size, 5000 * k + 10 * (uint64_t)checksum, 3);
            /* Each ring registered the staging pool: where every ring could
             * register all of it (root here), every request used it. */
            ebb_pool_info info;
            ebb_pool_info_get(d, &info);
            if (geteuid() == 0) {
                ebb_disk_debug dbg;
                ebb_pool_stats st;
                ebb_disk_debug_get(d, &dbg);
                ebb_pool_stats_get(d, &st);
                cr_assert_eq(info.registered_buffers, 1, "%s", info.warnings);
                cr_assert_eq(dbg.fixed_requests, st.requests, "%llu of %llu requests fixed",
                             (unsigned long long)dbg.fixed_requests,
                             (unsigned long long)st.requests);
            }
            /* Destroy with reads held in flight on both rings. */
            ebb_ticket t[SLOTS];
            cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK);
            for (int32_t s = 0; s < SLOTS; s++)
                cr_assert_eq(ebb_move(h, SLOTS + s, d, s, &t[s]), EBB_OK, "%s",
                             ebb_last_error());
            ebb_pool_destroy(d);
            for (int32_t s = 0; s < SLOTS; s++)
                cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, SLOTS + s), size) == 0,
                          "read %d not finished by destroy", s);
        }
        ebb_pool_destroy(h);
    }
    rm_tmpdir(a);
    rm_tmpdir(b);
    rm_tmpdir(shm);
}
