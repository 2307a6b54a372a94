/* The reaction-diffusion example's gradient does not depend on how ebb keeps
 * the states: for 20 random (n, slots) pairs, J, dJ/du0 and dJ/dr of every
 * strategy (store-all, periodic, revolve, online with n unknown, multistage,
 * disk-revolve), host-only and disk-only, are bitwise the store-all run's,
 * which is bitwise a plain loop that keeps every state in memory. */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "examples/reaction_diffusion/adjoint.c"
#include "examples/reaction_diffusion/model.c"

enum { POINTS = 100, PAIRS = 20, MAX_STEPS = 300, BUDGET_STATES = 512 };

#include "tmpdir.h"

/* The adjoint with every state in memory: the reference, no ebb. */
typedef struct reference {
    double *lambda, objective, grad_r;
} reference;

static void plain_adjoint(const rd_params *p, const double *target, const double *u0,
                          reference *ref)
{
    size_t np = (size_t)p->points;
    double *u = malloc((size_t)(p->steps + 1) * np * sizeof(double));
    double *next = malloc(np * sizeof(double));
    cr_assert(u && next);
    memcpy(u, u0, np * sizeof(double));
    ref->objective = 0.0;
    ref->grad_r = 0.0;
    for (int64_t i = 0; i < p->steps; i++) {
        ref->objective += rd_running_cost(p, u + (size_t)i * np);
        rd_step(p, u + (size_t)i * np, u + (size_t)(i + 1) * np);
    }
    const double *un = u + (size_t)p->steps * np;
    ref->objective += rd_final_cost(p, target, un);
    rd_final_adjoint(p, target, un, ref->lambda);
    for (int64_t i = p->steps - 1; i >= 0; i--) {
        memcpy(next, ref->lambda, np * sizeof(double));
        rd_adjoint_step(p, u + (size_t)i * np, next, ref->lambda, &ref->grad_r);
    }
    free(u);
    free(next);
}

static uint64_t rng = 20240607;
static uint64_t next_random(void) { return mix(rng++); }

/* The fewest slots >= c that periodic accepts for n steps (it needs about
 * 2 sqrt(n)). */
static int32_t periodic_slots(int64_t n, int32_t c)
{
    for (;; c++) {
        ebb_schedule_options o;
        ebb_schedule_options_init(&o);
        o.strategy = EBB_STRATEGY_PERIODIC;
        o.steps = n;
        o.slots = c;
        ebb_schedule *s;
        if (ebb_schedule_create(&o, &s) == EBB_OK) {
            ebb_schedule_destroy(s);
            return c;
        }
    }
}

static void config(ebb_config *cfg, int host, int disk)
{
    cr_assert_eq(ebb_config_init_default(cfg), EBB_OK);
    const char *paths[] = {dir};
    cr_assert_eq(ebb_config_set_disk_paths(cfg, paths, 1), EBB_OK, "%s", ebb_last_error());
    cfg->gpu.enabled = 0;
    cfg->host.enabled = host;
    cfg->disk.enabled = disk;
    cfg->host.budget = BUDGET_STATES * 4096; /* a state rounds up to one 4 KiB slot */
    cfg->disk.budget = BUDGET_STATES * 4096;
}

/* One run; its gradient must be the reference's, bit for bit. */
static void expect_same(const char *what, const rd_params *p, const double *u0, rd_adjoint *a,
                        const ebb_run_options *o, const reference *ref)
{
    rd_result res;
    ebb_status s = rd_gradient(a, u0, o, &res);
    cr_assert_eq(s, EBB_OK, "%s, n = %lld, slots %d + %d: %s", what, (long long)p->steps,
                 o->slots, o->slow_slots, ebb_last_error());
    cr_expect_eq(a->next_reverse, -1, "%s: every reverse step ran", what);
    cr_expect_eq(a->unknown_steps, o->strategy == EBB_CONFIG_STRATEGY_ONLINE,
                 "%s: only online runs without knowing n", what);
    cr_expect_eq(res.stats.reverse_steps, p->steps, "%s", what);
    cr_expect_eq((int)res.info.fast_tier, o->fast_tier < 0 ? (int)EBB_TIER_HOST : o->fast_tier,
                 "%s", what);
    cr_expect(memcmp(a->lambda, ref->lambda, (size_t)p->points * sizeof(double)) == 0,
              "%s, n = %lld, slots %d + %d: dJ/du0 differs from store-all's (every state "
              "kept in memory)", what,
              (long long)p->steps, o->slots, o->slow_slots);
    cr_expect(memcmp(&a->grad_r, &ref->grad_r, sizeof(double)) == 0,
              "%s, n = %lld: dJ/dr %.17g, store-all %.17g", what, (long long)p->steps, a->grad_r,
              ref->grad_r);
    cr_expect(memcmp(&a->objective, &ref->objective, sizeof(double)) == 0,
              "%s, n = %lld: J %.17g, store-all %.17g", what, (long long)p->steps, a->objective,
              ref->objective);
}

/* One run: its strategy, tiers and slots (-1, 0: from the configuration). */
typedef struct run_case {
    const char *what;
    const ebb_config *cfg;
    int strategy, fast_tier;
    int32_t slots, slow_slots;
} run_case;

Test(reaction_diffusion, every_strategy_gives_the_store_all_gradient_bitwise)
{
    ebb_config both, host_only, disk_only;
    config(&both, 1, 1);
    config(&host_only, 1, 0);
    config(&disk_only, 0, 1);
    double u0[POINTS], target[POINTS], lambda[POINTS];

    for (int pair = 0; pair < PAIRS; pair++) {
        /* The edges first (one step, one slot, the longest n with one slot),
         * then random pairs. */
        int64_t n = pair == 0 ? 1 : pair == 1 ? 2 : pair == 2 ? MAX_STEPS
                                   : 1 + (int64_t)(next_random() % MAX_STEPS);
        int32_t c = pair < 3 ? 1 : 1 + (int32_t)(next_random() % 12);
        int32_t d = 1 + (int32_t)(next_random() % 6);
        rd_params p;
        rd_params_default(&p, POINTS, n);
        rd_initial(&p, u0);
        rd_target(&p, target);
        reference ref = {.lambda = lambda};
        plain_adjoint(&p, target, u0, &ref);

        rd_adjoint a;
        cr_assert_eq(rd_adjoint_init(&a, &p, target), 0);
        int32_t all = n > 1 ? (int32_t)(n - 1) : 1;
        const run_case cases[] = {
            {"store-all, host only", &host_only, EBB_CONFIG_STRATEGY_STORE_ALL, -1, all, 0},
            {"store-all, disk only", &disk_only, EBB_CONFIG_STRATEGY_STORE_ALL, EBB_TIER_DISK, all, 0},
            {"periodic", &both, EBB_CONFIG_STRATEGY_PERIODIC, -1, periodic_slots(n, c), 0},
            {"revolve, host only", &host_only, EBB_CONFIG_STRATEGY_REVOLVE, -1, c, 0},
            {"revolve, disk only", &disk_only, EBB_CONFIG_STRATEGY_REVOLVE, EBB_TIER_DISK, c, 0},
            {"online (n unknown)", &host_only, EBB_CONFIG_STRATEGY_ONLINE, -1, c, 0},
            {"online, disk only", &disk_only, EBB_CONFIG_STRATEGY_ONLINE, EBB_TIER_DISK, c, 0},
            {"multistage", &both, EBB_CONFIG_STRATEGY_MULTISTAGE, -1, c, d},
            {"disk-revolve", &both, EBB_CONFIG_STRATEGY_DISK_REVOLVE, -1, c, 0},
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            ebb_run_options o;
            ebb_run_options_init(&o);
            o.config = cases[k].cfg;
            o.strategy = cases[k].strategy;
            o.fast_tier = cases[k].fast_tier;
            o.slots = cases[k].slots;
            o.slow_slots = cases[k].slow_slots;
            expect_same(cases[k].what, &p, u0, &a, &o, &ref);
        }
        rd_adjoint_free(&a);
    }
    ebb_config_dispose(&both);
    ebb_config_dispose(&host_only);
    ebb_config_dispose(&disk_only);
}
