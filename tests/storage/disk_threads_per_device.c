/* The threads engine runs one queue and one set of workers per device:
 * directories on two file systems (the disk under $TMPDIR or /tmp, and the
 * tmpfs /dev/shm) give two groups of `threads` workers each (counted as the
 * process's "ebb-io" threads, not only as reported), two directories on one
 * file system share one group. With one worker per group, two requests are
 * in flight at once (one per device), never more. States striped over both
 * devices survive random round trips with and without checksums, and
 * destroy is clean with work outstanding. Skipped where /dev/shm is
 * missing or on the same file system as /tmp. */
#include <dirent.h>
#include <sys/stat.h>

#include "storage/helpers.h"

enum { SLOTS = 24 };

/* Threads of this process named "ebb-io" (the threads engine's workers). */
static int io_threads(void)
{
    DIR *dir = opendir("/proc/self/task");
    cr_assert(dir, "cannot list /proc/self/task");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(name, sizeof name, f) && strncmp(name, "ebb-io\n", 7) == 0)
            n++;
        fclose(f);
    }
    closedir(dir);
    return n;
}

static ebb_pool *disk(const char *const *dirs, int n, size_t size, int checksum, int threads,
                      ebb_pool *h)
{
    ebb_pool_options o;
    disk_options(&o, dirs, n, size, SLOTS, EBB_DISK_BACKEND_THREADS);
    o.block = 64 * KiB; /* several blocks per state: each state spans both devices */
    o.threads = threads;
    o.checksum = checksum;
    o.staging = h;
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(d, &info), EBB_OK);
    cr_assert_str_eq(info.backend, "threads");
    return d;
}

/* Workers started, checked against the pool's info. */
static int workers(ebb_pool *d)
{
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(d, &info), EBB_OK);
    int n = io_threads();
    cr_assert_eq(info.threads, n, "info.threads %d, ebb-io threads %d", info.threads, n);
    return n;
}


static uint32_t max_in_flight(ebb_pool *d)
{
    ebb_disk_debug dbg;
    cr_assert_eq(ebb_disk_debug_get(d, &dbg), EBB_OK);
    cr_assert_eq(dbg.rings, 0);
    return dbg.max_in_flight;
}

Test(disk_threads_groups, one_queue_per_device, .timeout = 120)
{
    char a[256], b[256], shm[256];
    make_tmpdir(a, sizeof a);
    shm_dir_or_skip(shm, sizeof shm, a);
    make_tmpdir(b, sizeof b);
    cr_assert_eq(io_threads(), 0);
    /* Sizes that end mid-block and states that fill a round unevenly. */
    const size_t sizes[] = {256 * KiB, 300 * KiB + 4096, 1 * MiB - 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t size = sizes[k];
        ebb_pool *h = host_pool(size, 2 * SLOTS);
        for (int checksum = 0; checksum < 2; checksum++) {
            const char *one[] = {a};
            ebb_pool *d = disk(one, 1, size, checksum, 3, h);
            cr_assert_eq(workers(d), 3);
            ebb_pool_destroy(d);
            cr_assert_eq(io_threads(), 0, "destroy joins every worker");

            const char *same[] = {a, b};
            d = disk(same, 2, size, checksum, 3, h);
            cr_assert_eq(workers(d), 3, "two directories on one file system: one group");
            all_slots_round_trip(h, d, SLOTS, size, 1000 * k + 10 * (uint64_t)checksum, 1);
            ebb_pool_destroy(d);

            const char *two[] = {a, shm, b};
            d = disk(two, 3, size, checksum, 3, h);
            cr_assert_eq(workers(d), 6, "%s and %s are on two devices: 3 workers each", a, shm);
            all_slots_round_trip(h, d, SLOTS, size, 5000 * k + 10 * (uint64_t)checksum, 3);
            cr_assert_leq(max_in_flight(d), 6);
            /* Destroy with reads held in flight on both groups. */
            ebb_ticket t[SLOTS];
            cr_assert_eq(ebb_disk_debug_hold(d, 1), EBB_OK);
            for (int32_t s = 0; s < SLOTS; s++)
                cr_assert_eq(ebb_move(h, SLOTS + s, d, s, &t[s]), EBB_OK, "%s",
                             ebb_last_error());
            ebb_pool_destroy(d);
            for (int32_t s = 0; s < SLOTS; s++)
                cr_assert(memcmp(slot_ptr(h, s), slot_ptr(h, SLOTS + s), size) == 0,
                          "read %d not finished by destroy", s);
            cr_assert_eq(io_threads(), 0, "destroy joins every worker");
        }
        ebb_pool_destroy(h);
    }
    rm_tmpdir(a);
    rm_tmpdir(b);
    rm_tmpdir(shm);
}

/* One worker per device: each device's worker keeps a request in flight
 * beside the other's, so two are in flight at some point (a single worker
 * for both would never exceed one), and never more than two. */
Test(disk_threads_groups, devices_in_parallel, .timeout = 120)
{
    char a[256], shm[256];
    make_tmpdir(a, sizeof a);
    shm_dir_or_skip(shm, sizeof shm, a);
    const size_t size = 1 * MiB;
    ebb_pool *h = host_pool(size, 2 * SLOTS);
    const char *two[] = {a, shm};
    ebb_pool *d = disk(two, 2, size, 0, 1, h);
    cr_assert_eq(workers(d), 2);
    for (int r = 0; r < 50 && max_in_flight(d) < 2; r++)
        all_slots_round_trip(h, d, SLOTS, size, 77 + (uint64_t)r, 1);
    cr_assert_eq(max_in_flight(d), 2, "one worker per device: 2 requests in flight at most and "
                                      "at some point");
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(a);
    rm_tmpdir(shm);
}
