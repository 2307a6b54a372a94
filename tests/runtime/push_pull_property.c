/* The push form of the first sweep (ebb_run_push) and the pull form of the
 * reverse sweep (ebb_run_reverse_next): over many random (n, strategy,
 * slots, slow slots, state size, forward form, n known or not) cases on
 * host + disk, with random delays in the disk's completions, the caller's
 * own loop pushing its states and pulling them back gives bitwise the
 * adjoint of the plain store-everything loop; so do push + the reverse
 * callback and the forward callback + pull. The forward callback runs only
 * to recompute when the sweep is pushed; the reverse callback never when it
 * is pulled. */
#include "workload.h"


enum { PUSH_PULL, PUSH_CALLBACK, CALLBACK_PULL };
static const char *const form_name[] = {"push + pull", "push + reverse callback",
                                        "forward callback + pull"};

/* Both sweeps of one case in `form`; the workload keeps the adjoint. */
static ebb_status run_forms(const ebb_run_options *o, const ebb_storage_fault *f, wl *w, int form,
                            int64_t n, uint64_t seed, ebb_run_stats *rs)
{
    unsigned char *x = malloc(w->size), *x_next = malloc(w->size);
    cr_assert(x && x_next);
    wl_x0(w, x, seed);
    ebb_run *run = NULL;
    ebb_status st = ebb_run_create_with_faults(o, f, &run);
    w->run = run;
    if (st == EBB_OK && form == CALLBACK_PULL) {
        st = ebb_run_forward(run, x, NULL);
    } else if (st == EBB_OK) {
        /* the caller's own time loop: it keeps its state, ebb gets copies */
        st = ebb_run_begin(run, x);
        for (int64_t k = 0; k < n && st == EBB_OK; k++) {
            wl_step(w, k, x, x_next);
            memset(x, 0x3c, w->size); /* the caller reuses its memory: ebb kept a copy */
            st = ebb_run_push(run, x_next);
            unsigned char *t = x;
            x = x_next;
            x_next = t;
        }
        void *xn = NULL;
        if (st == EBB_OK)
            st = ebb_run_finish_forward(run, &xn);
        if (st == EBB_OK)
            cr_assert_eq(memcmp(xn, x, w->size), 0, "x_n is not the last state pushed");
        cr_assert_eq(w->forward_calls, 0, "the forward callback ran in a pushed sweep");
    }
    if (st == EBB_OK && form == PUSH_CALLBACK) {
        st = ebb_run_reverse(run);
    } else if (st == EBB_OK) {
        int64_t i, want = n - 1;
        const void *xi;
        while ((st = ebb_run_reverse_next(run, &i, &xi)) == EBB_OK && i >= 0) {
            cr_assert_eq(i, want, "pulled x_%lld, expected x_%lld", (long long)i,
                         (long long)want);
            want--;
            wl_check_buffers(w);
            w->adjoint = XXH3_64bits_withSeed(xi, w->size, w->adjoint ^ (uint64_t)i);
        }
        if (st == EBB_OK) {
            cr_assert_eq(want, -1, "the pulled sweep ended at x_%lld", (long long)(want + 1));
            cr_assert_null(xi);
            cr_assert_eq(ebb_run_reverse_next(run, &i, &xi), EBB_ERR_STATE,
                         "a call after the end");
        }
    }
    if (st == EBB_OK)
        ebb_run_stats_get(run, rs);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    ebb_run_destroy(run);
    w->run = NULL;
    free(x);
    free(x_next);
    if (st != EBB_OK)
        ebb_callback_fail("%s", msg);
    return st;
}

static void run_cases(uint64_t seed, int cases, int inplace, uint32_t delay_us, int only)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    wl_rng r = {seed};
    int ran = 0, refused = 0, ran_form[3] = {0};
    int64_t recomputed = 0;
    for (int c = 0; c < cases; c++) {
        size_t size = (size_t)wl_pick(&r, 1, 600);
        int64_t n = wl_pick(&r, 1, (c % 10 == 0) ? 2000 : (c % 5 == 0) ? 600 : 120);
        ebb_config_strategy s = wl_pick_strategy(&r);
        if (only >= 0)
            s = (ebb_config_strategy)only;
        int form = (int)wl_pick(&r, 0, 2);
        ebb_run_options o;
        wl_random_options(&r, c, size, n, s, &cfg, &o);
        o.audit = c % 4 == 1 ? EBB_AUDIT_HASH : EBB_AUDIT_OFF; /* recomputed == pushed */
        if (s == EBB_CONFIG_STRATEGY_STORE_ALL)
            o.slots = (int32_t)(n > 1 ? n - 1 : 1);
        cfg.disk.max_bandwidth = 0;
        cfg.host.budget = 16ull << 20;
        cfg.disk.budget = 64ull << 20;
        if (s == EBB_CONFIG_STRATEGY_H_REVOLVE) {
            o.forward_seconds = (double)wl_pick(&r, 0, 3) * 1e-6;
            o.reverse_seconds = (double)wl_pick(&r, 0, 3) * 1e-6;
            cfg.disk.max_bandwidth = (uint64_t)1e12;
        }
        wl w;
        wl_init(&w, size);
        w.steps_known = n;
        w.check_buffers = 1;
        if ((s == EBB_CONFIG_STRATEGY_ONLINE || s == EBB_CONFIG_STRATEGY_ASYNC) && (c & 1)) {
            o.steps = 0; /* n unknown: the callback or the caller says where it ends */
            w.steps_known = 0;
            w.last_at = n - 1;
        }
        if (inplace)
            o.forward_inplace = wl_forward_inplace_cb;
        else
            o.forward = wl_forward_cb;
        /* pulled: the reverse callback is optional, and never called */
        o.reverse = form == PUSH_CALLBACK || (c & 2) ? wl_reverse_cb : NULL;
        o.user = &w;
        ebb_storage_fault f = {0};
        f.delay_us_max = delay_us;
        f.delay_seed = seed + (uint64_t)c;
        ebb_run_stats rs;
        memset(&rs, 0, sizeof rs);
        ebb_status st = run_forms(&o, &f, &w, form, n, seed + (uint64_t)c, &rs);
        if (st == EBB_ERR_INVALID_ARG || st == EBB_ERR_NO_MEMORY) {
            refused++;
            continue;
        }
        cr_assert_eq(st, EBB_OK, "case %d (%s): n %lld, %s, %d slots, %d slow: %s", c,
                     form_name[form], (long long)n, ebb_config_strategy_name(s), o.slots,
                     o.slow_slots, ebb_last_error());
        uint64_t want = wl_reference(size, n, seed + (uint64_t)c);
        cr_assert_eq(w.adjoint, want,
                     "case %d (%s): n %lld%s, size %zu, %s, %d slots, %d slow, %s: adjoint "
                     "%016llx, store-all %016llx",
                     c, form_name[form], (long long)n, o.steps ? "" : " (unknown)", size,
                     ebb_config_strategy_name(s), o.slots, o.slow_slots,
                     inplace ? "in place" : "out of place", (unsigned long long)w.adjoint,
                     (unsigned long long)want);
        cr_assert(w.order_ok, "case %d: reverse steps out of order", c);
        cr_assert_eq(w.buffer_faults, 0, "case %d: %s: the buffer lists were wrong: %s", c,
                     ebb_config_strategy_name(s), w.buffer_fault);
        cr_assert_eq(w.reverse_calls, form == PUSH_CALLBACK ? n : 0, "case %d", c);
        cr_assert_eq(rs.steps, n);
        cr_assert_eq(rs.reverse_steps, n, "case %d (%s)", c, form_name[form]);
        cr_assert_eq(rs.forward_steps, n + rs.recomputed_steps);
        /* pushed: the callback only recomputed */
        cr_assert_eq(w.forward_calls, form == CALLBACK_PULL ? rs.forward_steps : rs.recomputed_steps,
                     "case %d (%s)", c, form_name[form]);
        recomputed += rs.recomputed_steps;
        ran++;
        ran_form[form]++;
    }
    cr_assert_gt(ran, cases * 2 / 3, "only %d of %d cases ran (%d refused)", ran, cases, refused);
    for (int k = 0; k < 3; k++)
        cr_assert_gt(ran_form[k], 0, "no case of %s ran", form_name[k]);
    cr_assert_gt(recomputed, 0, "no case recomputed a state");
    cr_assert_eq(wl_dir_entries(dir), 0, "files left in %s", dir);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(push_pull_property, host_and_disk_out_of_place) { run_cases(101, 120, 0, 0, -1); }
Test(push_pull_property, host_and_disk_in_place) { run_cases(102, 80, 1, 0, -1); }
Test(push_pull_property, delayed_disk_completions) { run_cases(103, 60, 0, 300, -1); }
/* async: its store decisions follow the disk's completions */
Test(push_pull_property, async_delayed) { run_cases(104, 60, 0, 300, EBB_CONFIG_STRATEGY_ASYNC); }
Test(push_pull_property, async_in_place) { run_cases(105, 40, 1, 200, EBB_CONFIG_STRATEGY_ASYNC); }
Test(push_pull_property, online) { run_cases(106, 60, 0, 100, EBB_CONFIG_STRATEGY_ONLINE); }
