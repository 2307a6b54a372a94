/* The reverse sweep reads the next disk RESTORE ahead: with reverse steps
 * longer than a read, most disk restores find their state already read (or
 * still in a host buffer), across many refills of the action batch. */
#include <time.h>

#include "workload.h"

static int slow_reverse(void *user, int64_t k, void *state)
{
    struct timespec ts = {0, 300 * 1000}; /* longer than a 64 KiB read */
    nanosleep(&ts, NULL);
    return wl_reverse_cb(user, k, state);
}

static void run_one(ebb_config_strategy strategy, int32_t slots, int32_t slow)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.budget = 512ull << 20;
    wl w;
    wl_init(&w, 64 << 10);
    w.steps_known = 600;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = w.size;
    o.steps = 600;
    o.config = &cfg;
    o.strategy = (int)strategy;
    o.slots = slots;
    o.slow_slots = slow;
    o.io_ratio = 2;
    o.forward = wl_forward_cb;
    o.reverse = slow_reverse;
    o.user = &w;
    ebb_run_stats st;
    cr_assert_eq(wl_run(&o, NULL, &w, 3, &st), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(w.adjoint, wl_reference(w.size, 600, 3));
    /* every read of a disk slot: RESTOREs, and PREFETCHes into memory */
    int64_t disk = (int64_t)(st.bytes_read[EBB_TIER_DISK] / w.size);
    cr_assert_gt(disk, 100);
    /* not all: a read is not started while its slot's write is in flight,
     * which a loaded machine makes more likely (a scan that stops after the
     * first batch refill reads ahead about 1 in 9) */
    cr_assert_geq(st.prefetches + st.cache_hits, disk / 2,
                  "%s: %lld of %lld disk reads read ahead or cached",
                  ebb_config_strategy_name(strategy),
                  (long long)(st.prefetches + st.cache_hits), (long long)disk);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(prefetch, disk_restores_are_read_ahead)
{
    run_one(EBB_CONFIG_STRATEGY_MULTISTAGE, 4, 595);
}

Test(prefetch, disk_revolve_prefetches_are_read_ahead)
{
    /* disk-revolve reads its disk slots with PREFETCH actions, not RESTOREs */
    run_one(EBB_CONFIG_STRATEGY_DISK_REVOLVE, 4, 0);
}

/* The states still in host buffers at the turn (the last ones written) are
 * kept there for their RESTOREs: the reads ahead take other buffers, not
 * these (they would read them back later, behind the reads ahead). */
Test(prefetch, states_still_in_memory_are_kept_for_their_restores)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.budget = 512ull << 20;
    wl w;
    wl_init(&w, 64 << 10);
    const int64_t n = 300;
    const int32_t staging = 12;
    w.steps_known = n;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = w.size;
    o.steps = n;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_STORE_ALL;
    o.fast_tier = EBB_TIER_DISK;
    o.staging = staging;
    o.forward = wl_forward_cb;
    o.reverse = slow_reverse;
    o.user = &w;
    ebb_run_stats st;
    cr_assert_eq(wl_run(&o, NULL, &w, 3, &st), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(w.adjoint, wl_reference(w.size, n, 3));
    /* each of the n-1 stored states from memory or read ahead: none read
     * on demand (a stall) */
    cr_assert_eq(st.restores[EBB_TIER_DISK], n - 1);
    cr_assert_eq(st.prefetches + st.cache_hits, n - 1, "%lld read ahead, %lld from memory",
                 (long long)st.prefetches, (long long)st.cache_hits);
    /* the staging buffers hold the last states written (but the one the
     * step being run needs as its output) */
    cr_assert_geq(st.cache_hits, staging - 2, "only %lld of the last %d states from memory",
                  (long long)st.cache_hits, staging);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
