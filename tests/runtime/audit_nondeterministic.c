/* Audit: a forward step that is not deterministic is caught and named under
 * every strategy that recomputes (audit = hash), where without the audit it
 * silently changes the adjoint; audit = replay checks every action; the
 * environment variable EBB_AUDIT wins over the options. */
#include "workload.h"

typedef struct {
    wl w;
    int64_t *calls; /* forward calls per step */
} counting;

static int counting_forward(void *user, int64_t k, const void *in, void *out)
{
    counting *c = user;
    c->calls[k]++;
    return wl_forward_cb(&c->w, k, in, out);
}

static int counting_reverse(void *user, int64_t k, void *state)
{
    return wl_reverse_cb(&((counting *)user)->w, k, state);
}

static ebb_status run_one(ebb_config *cfg, ebb_config_strategy s, int audit, int64_t nondet_at,
                          counting *c, int64_t n)
{
    wl_init(&c->w, 1000);
    c->w.steps_known = n;
    c->w.nondet_at = nondet_at;
    memset(c->calls, 0, (size_t)n * sizeof *c->calls);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = 1000;
    o.steps = n;
    o.config = cfg;
    o.strategy = (int)s;
    o.slots = s == EBB_CONFIG_STRATEGY_PERIODIC ? 12 : 3;
    o.slow_slots = 12;
    o.io_ratio = 2;
    o.audit = audit;
    o.forward = counting_forward;
    o.reverse = counting_reverse;
    o.user = c;
    return wl_run(&o, NULL, &c->w, 11, NULL);
}

Test(audit, nondeterministic_forward_named_under_every_recomputing_strategy)
{
    static const ebb_config_strategy recomputing[] = {
        EBB_CONFIG_STRATEGY_PERIODIC, EBB_CONFIG_STRATEGY_REVOLVE, EBB_CONFIG_STRATEGY_ONLINE,
        EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_CONFIG_STRATEGY_DISK_REVOLVE};
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    const int64_t n = 40;
    int64_t calls[40];
    counting c = {.calls = calls};
    uint64_t want = wl_reference(1000, n, 11);
    for (size_t i = 0; i < sizeof recomputing / sizeof *recomputing; i++) {
        ebb_config_strategy s = recomputing[i];
        const char *name = ebb_config_strategy_name(s);
        cr_assert_eq(run_one(&cfg, s, EBB_AUDIT_OFF, -1, &c, n), EBB_OK, "%s: %s", name,
                     ebb_last_error());
        int64_t k = -1;
        for (int64_t j = n - 1; j >= 0 && k < 0; j--)
            if (calls[j] >= 2)
                k = j; /* a step this strategy recomputes */
        cr_assert_geq(k, 0, "%s recomputes no step with 3 slots", name);

        /* no audit: the wrong recomputation goes unnoticed into the adjoint */
        cr_assert_eq(run_one(&cfg, s, EBB_AUDIT_OFF, k, &c, n), EBB_OK);
        cr_assert_neq(c.w.adjoint, want, "%s: the perturbation did not reach the adjoint", name);

        cr_assert_eq(run_one(&cfg, s, EBB_AUDIT_HASH, k, &c, n), EBB_ERR_CALLBACK, "%s", name);
        char text[128];
        snprintf(text, sizeof text,
                 "forward step %lld is not deterministic: x_%lld differs from its first "
                 "computation",
                 (long long)k, (long long)(k + 1));
        cr_assert(strstr(ebb_last_error(), text), "%s: '%s'", name, ebb_last_error());

        /* and a deterministic step passes the audit with the exact adjoint */
        cr_assert_eq(run_one(&cfg, s, EBB_AUDIT_HASH, -1, &c, n), EBB_OK, "%s: %s", name,
                     ebb_last_error());
        cr_assert_eq(c.w.adjoint, want, "%s", name);
    }
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(audit, environment_variable_wins)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    int64_t calls[30];
    counting c = {.calls = calls};
    cr_assert_eq(setenv("EBB_AUDIT", "hash", 1), 0);
    cr_assert_eq(run_one(&cfg, EBB_CONFIG_STRATEGY_REVOLVE, EBB_AUDIT_OFF, 3, &c, 30),
                 EBB_ERR_CALLBACK);
    cr_assert(strstr(ebb_last_error(), "forward step 3 is not deterministic"), "%s",
              ebb_last_error());
    cr_assert_eq(setenv("EBB_AUDIT", "loud", 1), 0);
    cr_assert_eq(run_one(&cfg, EBB_CONFIG_STRATEGY_REVOLVE, EBB_AUDIT_OFF, -1, &c, 30),
                 EBB_ERR_CONFIG);
    cr_assert(strstr(ebb_last_error(), "EBB_AUDIT='loud': expected off, replay or hash"), "%s",
              ebb_last_error());
    cr_assert_eq(setenv("EBB_AUDIT", "replay", 1), 0);
    cr_assert_eq(run_one(&cfg, EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_AUDIT_OFF, -1, &c, 30), EBB_OK,
                 "%s", ebb_last_error());
    cr_assert_eq(c.w.adjoint, wl_reference(1000, 30, 11));
    unsetenv("EBB_AUDIT");
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(audit, info_reports_mode)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.audit = EBB_AUDIT_REPLAY;
    wl w;
    wl_init(&w, 64);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = 64;
    o.steps = 10;
    o.config = &cfg;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    ebb_run *run;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
    cr_assert_eq(info.audit, EBB_AUDIT_REPLAY);
    cr_assert_str_eq(ebb_audit_name(info.audit), "replay");
    ebb_run_destroy(run);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
