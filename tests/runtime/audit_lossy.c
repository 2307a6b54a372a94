/* audit = "hash" with a lossy tier (tier.host.compression = "fixed-rate",
 * tier.disk.compression = "fixed-rate"): a restored state is its copy's
 * round trip, so the audit checks each forward step against its first
 * computation from the same input and each restore against what the same
 * copy gave back before (runtime/audit.c).
 * - lossy runs of random sizes, budgets and strategies pass it, with the
 *   audit-off run's gradient bitwise (the audit changes nothing), which
 *   differs from the exact run's (the restores were lossy);
 * - a forward step that is not deterministic (its output perturbed on its
 *   second and later calls) is named, at a step that is recomputed twice
 *   from the same lossy restore;
 * - a compressed copy changed after its first restore (a byte flipped in
 *   every disk slot's file, or in every compressed host slot) is named. */
#include "storage/storage_internal.h"
#include "workload.h"

#include <math.h>

typedef struct lf {
    size_t values;
    uint64_t adjoint;
    int64_t n;
    /* non-determinism: step nondet_at's output changes from its second call on */
    int64_t nondet_at;
    int64_t nondet_calls;
    /* recording: the hash of every input step k was given (audit off) */
    uint64_t (*inputs)[16];
    int *ninputs;
    /* changing stored copies: at reverse step change_at, tier change_tier */
    int64_t change_at;
    ebb_tier change_tier;
    int changed;
    /* x_0 .. x_n of the plain loop: the reverse sweep counts the states it
     * is handed bitwise equal to them */
    double **exact;
    int64_t exact_seen;
    ebb_run *run;
} lf;

static int lf_forward(void *user, int64_t k, const void *in, void *out)
{
    lf *f = user;
    const double *x = in;
    double *y = out;
    if (f->inputs && f->ninputs[k] < 16)
        f->inputs[k][f->ninputs[k]++] = XXH3_64bits(in, f->values * sizeof(double));
    for (size_t i = 0; i < f->values; i++)
        y[i] = 0.9 * x[i] + 0.1 * sin(0.001 * (double)i + 0.01 * (double)k);
    if (k == f->nondet_at && ++f->nondet_calls >= 2)
        y[f->values / 2] += 1e-6 * (double)f->nondet_calls;
    return EBB_STEP_OK;
}

static void change_copies(lf *f)
{
    if (f->change_tier == EBB_TIER_DISK) {
        ebb_pool *disk = ebb_run_debug_pool(f->run, EBB_TIER_DISK);
        cr_assert_not_null(disk);
        void *block = NULL; /* aligned: the file is open with O_DIRECT */
        cr_assert_eq(posix_memalign(&block, 4096, 4096), 0);
        for (int32_t s = 0; s < f->run->disk_slots; s++) {
            int fd;
            int64_t off;
            const char *name;
            cr_assert_eq(ebb_disk_debug_locate(disk, s, 0, &fd, &off, &name), EBB_OK);
            cr_assert_eq(pread(fd, block, 4096, off), 4096);
            ((unsigned char *)block)[100] ^= 0x5a;
            cr_assert_eq(pwrite(fd, block, 4096, off), 4096);
            f->changed++;
        }
        free(block);
    } else {
        cr_assert_not_null(f->run->packed);
        for (int32_t s = 0; s < f->run->packed_slots; s++) {
            ebb_host_slot_addr((const struct ebb_pool *)(void *)f->run->packed, s)[100] ^= 0x5a;
            f->changed++;
        }
    }
}

static int lf_reverse(void *user, int64_t k, void *state)
{
    lf *f = user;
    if (k == f->change_at && !f->changed)
        change_copies(f);
    if (f->exact && memcmp(state, f->exact[k], f->values * sizeof(double)) == 0)
        f->exact_seen++;
    f->adjoint = XXH3_64bits_withSeed(state, f->values * sizeof(double), f->adjoint ^ (uint64_t)k);
    return EBB_STEP_OK;
}

/* One run of n steps; its status (the message kept), stats in *stats. */
static ebb_status lf_run(lf *f, ebb_config *cfg, ebb_config_strategy s, int audit,
                         ebb_run_stats *stats)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = f->values * sizeof(double);
    o.steps = f->n;
    o.config = cfg;
    o.strategy = (int)s;
    o.audit = audit;
    o.io_ratio = 2; /* disk-revolve: a disk slot costs 2 steps */
    o.forward = lf_forward;
    o.reverse = lf_reverse;
    o.user = f;
    o.element = EBB_ELEMENT_FLOAT64;
    f->adjoint = 0x5eed;
    f->nondet_calls = 0;
    f->changed = 0;
    f->exact_seen = 0;
    double *x0 = malloc(o.state_size);
    cr_assert_not_null(x0);
    for (size_t i = 0; i < f->values; i++)
        x0[i] = cos(0.002 * (double)i);
    ebb_status st = ebb_run_create(&o, &f->run);
    if (st == EBB_OK) {
        void *xn;
        st = ebb_run_forward(f->run, x0, &xn);
        if (st == EBB_OK)
            st = ebb_run_reverse(f->run);
        if (stats)
            ebb_run_stats_get(f->run, stats);
    }
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    ebb_run_destroy(f->run);
    f->run = NULL;
    free(x0);
    if (st != EBB_OK)
        ebb_callback_fail("%s", msg);
    return st;
}

/* tier: the lossy one; budgets in states (the host's uncompressed). */
static void lossy_config(ebb_config *cfg, ebb_tier tier, size_t state, int64_t host,
                         int64_t disk)
{
    cfg->host.budget = (uint64_t)host * state;
    cfg->disk.budget = (uint64_t)disk * state;
    ebb_codec_options *c =
        tier == EBB_TIER_HOST ? &cfg->host.compression : &cfg->disk.compression;
    c->mode = EBB_COMPRESSION_FIXED_RATE;
    c->rate = 16;
}

Test(audit_lossy, lossy_runs_pass_with_the_unaudited_gradient)
{
    static const ebb_config_strategy strategies[] = {
        EBB_CONFIG_STRATEGY_REVOLVE,      EBB_CONFIG_STRATEGY_MULTISTAGE,
        EBB_CONFIG_STRATEGY_DISK_REVOLVE, EBB_CONFIG_STRATEGY_ONLINE,
        EBB_CONFIG_STRATEGY_H_REVOLVE,    EBB_CONFIG_STRATEGY_ASYNC,
        EBB_CONFIG_STRATEGY_AUTO};
    const int count = (int)(sizeof strategies / sizeof *strategies);
    wl_rng r = {0xa0d17};
    int lossy = 0;
    for (int trial = 0; trial < 4 * count; trial++) {
        ebb_config_strategy s = strategies[trial % count];
        ebb_tier tier = trial / count % 2 ? EBB_TIER_DISK : EBB_TIER_HOST;
        lf f = {.values = 1024 * (size_t)wl_pick(&r, 1, 4), .n = wl_pick(&r, 20, 120),
                .nondet_at = -1, .change_at = -1};
        size_t state = f.values * sizeof(double);
        char dir[256];
        ebb_config cfg;
        wl_config(&cfg, dir, sizeof dir);
        const char *name = ebb_config_strategy_name(s);
        ebb_run_stats exact, off, on;
        /* disk: few host slots, so that states go down */
        int64_t disk = s == EBB_CONFIG_STRATEGY_DISK_REVOLVE ? f.n : wl_pick(&r, 2, 8);
        lossy_config(&cfg, EBB_TIER_HOST, state, wl_pick(&r, 1, 5), disk);
        cfg.host.compression.mode = EBB_COMPRESSION_OFF;
        cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_OFF, &exact), EBB_OK, "%s", ebb_last_error());
        uint64_t exact_adjoint = f.adjoint;
        if (tier == EBB_TIER_DISK) {
            cfg.disk.compression.mode = EBB_COMPRESSION_FIXED_RATE;
            cfg.disk.compression.rate = 16;
        } else {
            cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
            cfg.host.compression.rate = 16;
        }
        cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_OFF, &off), EBB_OK, "%s", ebb_last_error());
        uint64_t off_adjoint = f.adjoint;
        cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_HASH, &on), EBB_OK,
                     "trial %d (%s, %s tier lossy, n %lld, %zu values): %s", trial, name,
                     ebb_tier_name(tier), (long long)f.n, f.values, ebb_last_error());
        if (on.decompressions[tier] > 0) { /* the restores were lossy */
            cr_assert_neq(f.adjoint, exact_adjoint, "trial %d (%s)", trial, name);
            lossy++;
        }
        /* (async and auto decide by the clock) */
        if (s != EBB_CONFIG_STRATEGY_ASYNC && s != EBB_CONFIG_STRATEGY_AUTO)
            cr_assert_eq(f.adjoint, off_adjoint, "trial %d (%s): the audit changed the gradient",
                         trial, name);
        rmdir(dir);
        ebb_config_dispose(&cfg);
    }
    cr_assert_geq(lossy, 3 * count, "%d of %d trials restored a lossy copy", lossy, 4 * count);
}

/* The step whose calls (audit off) had the same input twice, that input
 * not the exact x_k (a lossy restore's descendant); -1 if none. */
static int64_t repeated_lossy_input(lf *f, const uint64_t (*exact)[16])
{
    for (int64_t k = f->n - 1; k >= 0; k--)
        for (int i = 0; i < f->ninputs[k]; i++)
            for (int j = i + 1; j < f->ninputs[k]; j++)
                if (f->inputs[k][i] == f->inputs[k][j] && f->inputs[k][i] != exact[k][0])
                    return k;
    return -1;
}

Test(audit_lossy, nondeterministic_step_named)
{
    /* the strategies that restore a lossy copy more than once here (revolve
     * and online keep to the host; disk-revolve restores each once) */
    static const struct {
        ebb_config_strategy s;
        ebb_tier tier;
    } cases[] = {{EBB_CONFIG_STRATEGY_REVOLVE, EBB_TIER_HOST},
                 {EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_TIER_HOST},
                 {EBB_CONFIG_STRATEGY_ONLINE, EBB_TIER_HOST},
                 {EBB_CONFIG_STRATEGY_H_REVOLVE, EBB_TIER_HOST},
                 {EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_TIER_DISK},
                 {EBB_CONFIG_STRATEGY_H_REVOLVE, EBB_TIER_DISK}};
    const int64_t n = 100;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            ebb_config_strategy s = cases[i].s;
            ebb_tier tier = cases[i].tier;
            const char *name = ebb_config_strategy_name(s);
            static uint64_t inputs[100][16], exact[100][16];
            int ninputs[100];
            lf f = {.values = 2048, .n = n, .nondet_at = -1, .change_at = -1,
                    .inputs = exact, .ninputs = ninputs};
            size_t state = f.values * sizeof(double);
            char dir[256];
            ebb_config cfg;
            wl_config(&cfg, dir, sizeof dir);
            /* few slots, so that each is restored often */
            lossy_config(&cfg, tier, state, 1, 2);
            /* the exact inputs: the plain loop's x_k */
            memset(ninputs, 0, sizeof ninputs);
            double *x = malloc(2 * state);
            cr_assert_not_null(x);
            for (size_t v = 0; v < f.values; v++)
                x[v] = cos(0.002 * (double)v);
            for (int64_t j = 0; j < n; j++)
                lf_forward(&f, j, x + (j % 2) * f.values, x + (1 - j % 2) * f.values);
            free(x);
            memset(ninputs, 0, sizeof ninputs);
            f.inputs = inputs;
            cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_OFF, NULL), EBB_OK, "%s",
                         ebb_last_error());
            uint64_t clean = f.adjoint;
            int64_t k = repeated_lossy_input(&f, (const uint64_t(*)[16])exact);
            cr_assert_geq(k, 0, "%s, %s lossy: no step recomputed twice from a lossy restore",
                          name, ebb_tier_name(tier));
            f.inputs = NULL;
            f.nondet_at = k;
            /* unaudited, the perturbation reaches the gradient */
            cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_OFF, NULL), EBB_OK, "%s",
                         ebb_last_error());
            cr_assert_neq(f.adjoint, clean, "%s: the perturbation did not reach the gradient",
                          name);
            cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_HASH, NULL), EBB_ERR_CALLBACK, "%s, %s",
                         name, ebb_tier_name(tier));
            char text[160];
            snprintf(text, sizeof text,
                     "forward step %lld is not deterministic: x_%lld differs from its first "
                     "computation from the same x_%lld",
                     (long long)k, (long long)(k + 1), (long long)k);
            cr_assert(strstr(ebb_last_error(), text), "%s, %s: '%s'", name,
                      ebb_tier_name(tier), ebb_last_error());
            cr_assert_eq(wl_dir_entries(dir), 0);
            rmdir(dir);
            ebb_config_dispose(&cfg);
        }
}

/* A byte of every compressed copy flipped halfway through the reverse
 * sweep (the disk checksum off, so that the audit is what sees it): a copy
 * restored before and after is named. */
static void expect_changed_named(ebb_tier tier, ebb_config_strategy s)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.checksum = 0;
    lf f = {.values = 4096, .n = 60, .nondet_at = -1, .change_at = -1, .change_tier = tier};
    lossy_config(&cfg, tier, f.values * sizeof(double), 1, 2); /* few slots, restored often */
    cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_OFF, NULL), EBB_OK, "%s", ebb_last_error());
    uint64_t clean = f.adjoint;
    f.change_at = f.n / 2;
    cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_OFF, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_gt(f.changed, 0);
    cr_assert_neq(f.adjoint, clean, "the change did not reach the gradient");
    cr_assert_eq(lf_run(&f, &cfg, s, EBB_AUDIT_HASH, NULL), EBB_ERR_CHECKSUM, "%s",
                 ebb_last_error());
    char text[64];
    snprintf(text, sizeof text, "restored from %s slot", ebb_tier_name(tier));
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, text) &&
                  strstr(msg, "differs from what the same compressed copy gave back at its "
                              "first restore") &&
                  strstr(msg, "the stored copy was changed"),
              "%s", msg);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(audit_lossy, changed_disk_copy_named)
{
    expect_changed_named(EBB_TIER_DISK, EBB_CONFIG_STRATEGY_MULTISTAGE);
}

Test(audit_lossy, changed_host_copy_named)
{
    expect_changed_named(EBB_TIER_HOST, EBB_CONFIG_STRATEGY_REVOLVE);
}

/* A lossy disk gives back the round trip of every state stored there, also
 * where the buffer the state was written from still holds it (the disk's
 * cache of written buffers would give the exact state, or the round trip,
 * as the buffers' reuse fell out): a disk that holds every state, so the
 * reverse sweep is handed each x_i from it, but x_{n-1} (the live one) and
 * the one host slot's. */
Test(audit_lossy, lossy_disk_restores_are_round_trips)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    lf f = {.values = 2048, .n = 40, .nondet_at = -1, .change_at = -1};
    size_t state = f.values * sizeof(double);
    f.exact = malloc((size_t)(f.n + 1) * sizeof *f.exact);
    cr_assert_not_null(f.exact);
    for (int64_t k = 0; k <= f.n; k++) {
        f.exact[k] = malloc(state);
        cr_assert_not_null(f.exact[k]);
        if (k == 0)
            for (size_t v = 0; v < f.values; v++)
                f.exact[0][v] = cos(0.002 * (double)v);
        else
            lf_forward(&f, k - 1, f.exact[k - 1], f.exact[k]);
    }
    lossy_config(&cfg, EBB_TIER_DISK, state, 1, f.n);
    ebb_run_stats st;
    for (int audit = EBB_AUDIT_OFF; audit <= EBB_AUDIT_HASH; audit += EBB_AUDIT_HASH) {
        cr_assert_eq(lf_run(&f, &cfg, EBB_CONFIG_STRATEGY_MULTISTAGE, audit, &st), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert_eq(st.forward_steps, f.n, "recomputed %lld", (long long)(st.forward_steps - f.n));
        /* x_{n-1}, live at the turn, and the one host slot's */
        cr_assert_leq(f.exact_seen, 2, "%s: %lld states of %lld handed back exact",
                     ebb_audit_name((ebb_audit)audit), (long long)f.exact_seen, (long long)f.n);
    }
    for (int64_t k = 0; k <= f.n; k++)
        free(f.exact[k]);
    free(f.exact);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
