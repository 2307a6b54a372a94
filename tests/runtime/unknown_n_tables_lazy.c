/* A run with n unknown is given every slot of its host budget: with small
 * states, tens of millions of buffers. The runtime's tables of them
 * (buffers.c: the buffers, and the schedule's slots' map) are written only
 * for the slots and buffers the run takes, so a short run costs memory for
 * what it uses: here a 2 GiB budget of 64-byte slots (33,554,430 buffers;
 * the map alone is 128 MiB once written) and 50 steps, with the host pool
 * made ready from 8 slots, raise the resident memory by less than 16 MiB.
 * The adjoint is the oracle's. */
#include <unistd.h>

#include "storage/fault.h"
#include "workload.h"

enum { STEPS = 50, SIZE = 64 };

typedef struct seen {
    wl w;
    uint64_t rss0, rise;
} seen;

static int reverse_cb(void *user, int64_t k, void *state)
{
    seen *s = user;
    uint64_t r = wl_resident_bytes();
    if (r > s->rss0 && r - s->rss0 > s->rise)
        s->rise = r - s->rss0;
    return wl_reverse_cb(&s->w, k, state);
}

Test(unknown_n_tables_lazy, online)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.enabled = 0;
    cfg.host.budget = (uint64_t)2 << 30;
    static seen s;
    wl_init(&s.w, SIZE);
    s.w.last_at = STEPS - 1;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_ONLINE;
    o.steps = 0;
    o.forward = wl_forward_cb;
    o.reverse = reverse_cb;
    o.user = &s;
    ebb_storage_fault f = {0};
    f.ready_slots = 8;
    unsigned char x0[SIZE];
    wl_x0(&s.w, x0, 4);
    s.rss0 = wl_resident_bytes();
    ebb_run *r = NULL;
    cr_assert_eq(ebb_run_create_with_faults(&o, &f, &r), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(r, &info), EBB_OK);
    cr_assert_eq(ebb_run_forward(r, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    ebb_run_destroy(r);
    cr_log_info("%d host buffers; resident memory rose by %llu bytes", info.buffers[EBB_TIER_HOST],
                (unsigned long long)s.rise);
    cr_assert_gt(info.buffers[EBB_TIER_HOST], 500000, "%d buffers", info.buffers[EBB_TIER_HOST]);
    cr_assert_lt(s.rise, (uint64_t)16 << 20, "resident memory rose by %llu bytes",
                 (unsigned long long)s.rise);
    cr_assert_eq(s.w.reverse_calls, STEPS);
    cr_assert_eq(s.w.adjoint, wl_reference(SIZE, STEPS, 4));
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
