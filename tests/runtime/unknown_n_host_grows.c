/* A run with n unknown is given the whole host budget in slots, but only
 * what it fills is made ready (faulted in, pinned): its host pool is made
 * ready in extents as buffers are first needed. Here a 1 GiB budget, 1 MiB
 * states and 20 steps, online (host only) and async (host and disk): the
 * pool is given about 1,000 slots, makes a few extents ready, and the
 * process's resident memory rises by far less than the budget (a pool
 * prefaulted at creation would take all of it). The adjoint is the oracle's. */
#include <unistd.h>

#include "storage/fault.h"
#include "workload.h"

enum { STEPS = 20, SIZE = 1 << 20 };

typedef struct seen {
    wl w;
    uint64_t rss0;           /* before the run was created */
    uint64_t rss_peak;       /* the most seen at a reverse step, over rss0 */
    ebb_host_debug host;     /* the host pool at the last reverse step */
} seen;

static int reverse_cb(void *user, int64_t k, void *state)
{
    seen *s = user;
    uint64_t r = wl_resident_bytes();
    if (r > s->rss0 && r - s->rss0 > s->rss_peak)
        s->rss_peak = r - s->rss0;
    ebb_pool *host = ebb_run_debug_pool(s->w.run, EBB_TIER_HOST);
    cr_assert_not_null(host);
    cr_assert_eq(ebb_host_debug_get(host, &s->host), EBB_OK, "%s", ebb_last_error());
    return wl_reverse_cb(&s->w, k, state);
}

static void run(ebb_config_strategy strategy)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.host.budget = (uint64_t)1 << 30;
    cfg.disk.budget = (uint64_t)64 << 20;
    cfg.disk.direct = 0;
    static seen s;
    memset(&s, 0, sizeof s);
    wl_init(&s.w, SIZE);
    s.w.last_at = STEPS - 1; /* n unknown: the forward says which step is the last */
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.config = &cfg;
    o.strategy = (int)strategy;
    o.steps = 0;
    o.forward = wl_forward_cb;
    o.reverse = reverse_cb;
    o.user = &s;
    s.rss0 = wl_resident_bytes();
    ebb_run_stats rs;
    ebb_run *r = NULL;
    unsigned char *x0 = malloc(SIZE);
    cr_assert_not_null(x0);
    wl_x0(&s.w, x0, 5);
    cr_assert_eq(ebb_run_create_with_faults(&o, NULL, &r), EBB_OK, "%s", ebb_last_error());
    s.w.run = r;
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(r, &info), EBB_OK);
    void *xn = NULL;
    cr_assert_eq(ebb_run_forward(r, x0, &xn), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_stats_get(r, &rs), EBB_OK);
    ebb_run_destroy(r);
    free(x0);
    cr_log_info("%s: %d host buffers (%llu bytes) given; %d ready in %d extents (%llu bytes); "
                "resident memory rose by at most %llu bytes",
                ebb_config_strategy_name(strategy), info.buffers[EBB_TIER_HOST],
                (unsigned long long)info.bytes[EBB_TIER_HOST], s.host.ready_slots,
                s.host.extents, (unsigned long long)s.host.ready_bytes,
                (unsigned long long)s.rss_peak);
    cr_assert_eq(info.strategy, strategy == EBB_CONFIG_STRATEGY_ASYNC ? EBB_STRATEGY_ASYNC
                                                                        : EBB_STRATEGY_ONLINE);
    /* the budget in slots: far more than 20 steps fill */
    cr_assert_gt(info.buffers[EBB_TIER_HOST], 500, "%d host buffers",
                 info.buffers[EBB_TIER_HOST]);
    /* a few extents (from 8 buffers, doubling: async's stores depend on the
     * disk's pace), an eighth of the budget at most */
    cr_assert_leq(s.host.extents, 5, "%d extents", s.host.extents);
    cr_assert_leq(s.host.ready_bytes, cfg.host.budget / 8, "%llu bytes ready",
                  (unsigned long long)s.host.ready_bytes);
    cr_assert_geq(s.host.ready_slots, 2, "the live state and the step's output are ready");
    cr_assert_lt(s.rss_peak, cfg.host.budget / 4, "resident memory rose by %llu bytes",
                 (unsigned long long)s.rss_peak);
    cr_assert_eq(s.w.reverse_calls, STEPS);
    cr_assert(s.w.order_ok);
    cr_assert_eq(s.w.adjoint, wl_reference(SIZE, STEPS, 5));
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(unknown_n_host_grows, online) { run(EBB_CONFIG_STRATEGY_ONLINE); }

Test(unknown_n_host_grows, async) { run(EBB_CONFIG_STRATEGY_ASYNC); }
