/* The planner told each state's size (ebb_plan_problem.state_sizes): over
 * random chains (n, sizes, the steps' times, the slots of the host tier)
 * its revolve is the run's, the same engine over the simulated io: the
 * forward steps it predicts are those a real run with the same sizes,
 * times as costs and budget (slots x the largest state, in bytes) runs,
 * and its time is the chain program's cost within those bytes, no more
 * than the time predicted for states all of the largest size. Store-all
 * fits where x_0 .. x_{n-1} do; the strategies that keep states of one
 * size do not fit, saying why; bad sizes are refused naming the entry. */
#include <math.h>

#include "ebb/chain.h"
#include "ebb/planner.h"
#include "workload.h"

typedef struct chain_case {
    int64_t n;
    size_t *size; /* n + 1 */
    double *f, *r;
    size_t largest;
    int64_t forward_calls;
} chain_case;

static int count_forward(void *user, int64_t k, const void *in, void *out)
{
    (void)k, (void)in, (void)out;
    ((chain_case *)user)->forward_calls++;
    return EBB_STEP_OK;
}

static int no_reverse(void *user, int64_t k, void *state)
{
    (void)user, (void)k, (void)state;
    return EBB_STEP_OK;
}

/* n up to 20, one in ten up to 40 (above 32 steps the chain program is
 * the hierarchy, not the exact one: faster, and another path) */
static void random_case(wl_rng *rng, chain_case *c, int k)
{
    c->n = wl_pick(rng, 2, k % 10 == 0 ? 40 : 20);
    c->size = malloc(sizeof *c->size * (size_t)(c->n + 1));
    c->f = malloc(sizeof *c->f * (size_t)c->n);
    c->r = malloc(sizeof *c->r * (size_t)c->n);
    cr_assert(c->size && c->f && c->r);
    c->largest = 0;
    for (int64_t i = 0; i <= c->n; i++) {
        c->size[i] = (size_t)(wl_pick(rng, 0, 3) == 0 ? wl_pick(rng, 2000, 9000)
                                                      : wl_pick(rng, 1, 800));
        c->largest = c->size[i] > c->largest ? c->size[i] : c->largest;
    }
    for (int64_t i = 0; i < c->n; i++) {
        c->f[i] = 1e-3 * (double)wl_pick(rng, 1, 9);
        c->r[i] = 1e-3 * (double)wl_pick(rng, 1, 9);
    }
}

static void free_case(chain_case *c)
{
    free(c->size);
    free(c->f);
    free(c->r);
}

static void problem_of(const chain_case *c, int32_t slots, ebb_plan_problem *p)
{
    ebb_plan_problem_init(p);
    p->steps = c->n;
    p->state_size = c->largest;
    p->slots[EBB_TIER_HOST] = slots;
    p->forward_step_s = c->f;
    p->reverse_step_s = c->r;
    p->state_sizes = c->size;
}

/* A real run of c (revolve over the sizes and the times as costs, the host
 * tier's budget `budget` bytes): its forward steps. */
static int64_t run_forward_steps(chain_case *c, ebb_config *cfg, uint64_t budget)
{
    cfg->host.budget = budget;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = c->largest;
    o.steps = c->n;
    o.config = cfg;
    o.forward = count_forward;
    o.reverse = no_reverse;
    o.user = c;
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.state_sizes = c->size;
    o.forward_costs = c->f;
    o.reverse_costs = c->r;
    o.audit = EBB_AUDIT_REPLAY;
    unsigned char *x0 = calloc(1, c->largest);
    cr_assert_not_null(x0);
    c->forward_calls = 0;
    ebb_run *run = wl_create(&o);
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    ebb_run_destroy(run);
    free(x0);
    return c->forward_calls;
}

Test(planner_state_sizes, revolve_is_the_runs)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.disk.enabled = 0;
    wl_rng rng = {0x9a5};
    int cases = 80, smaller = 0;
    for (int k = 0; k < cases; k++) {
        chain_case c;
        random_case(&rng, &c, k);
        int32_t slots = (int32_t)wl_pick(&rng, 1, c.n);
        uint64_t budget = (uint64_t)slots * c.largest;
        ebb_plan_problem p;
        problem_of(&c, slots, &p);
        ebb_plan_prediction got, uniform;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &got), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert(got.fits, "case %d: %s", k, got.why_not);
        int64_t ran = run_forward_steps(&c, &env.cfg, budget);
        cr_assert_eq(got.forward_steps, ran,
                     "case %d (n %lld, %d slots of %zu bytes): predicted %lld forward steps, "
                     "the run ran %lld",
                     k, (long long)c.n, (int)slots, c.largest, (long long)got.forward_steps,
                     (long long)ran);
        double cost = wl_chain_cost(c.n, c.f, c.r, c.size, 0, budget);
        cr_assert(fabs(got.predicted_s - cost) <= 1e-9 * cost,
                  "case %d: predicted %.9f s, the chain program's cost %.9f", k, got.predicted_s,
                  cost);
        p.state_sizes = NULL; /* every state the largest */
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &uniform), EBB_OK);
        cr_assert(uniform.fits);
        cr_assert_leq(got.predicted_s, uniform.predicted_s * (1 + 1e-12),
                      "case %d: %.6f s told the sizes, %.6f s not", k, got.predicted_s,
                      uniform.predicted_s);
        smaller += got.predicted_s < uniform.predicted_s * (1 - 1e-9);
        free_case(&c);
    }
    cr_log_info("%d of %d chains predicted faster told their sizes", smaller, cases);
    cr_assert_geq(smaller, cases / 4, "only %d of %d chains gained from their sizes", smaller,
                  cases);
    wl_setup_close(&env);
}

Test(planner_state_sizes, store_all_fits_where_the_states_do)
{
    wl_rng rng = {0x5a11};
    for (int k = 0; k < 40; k++) {
        chain_case c;
        random_case(&rng, &c, k);
        uint64_t all = 0;
        for (int64_t i = 0; i < c.n; i++)
            all += c.size[i];
        int32_t slots = (int32_t)wl_pick(&rng, 1, c.n);
        ebb_plan_problem p;
        problem_of(&c, slots, &p);
        ebb_plan_prediction got;
        cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_STORE_ALL, &got), EBB_OK, "%s",
                     ebb_last_error());
        int fits = all <= (uint64_t)slots * c.largest;
        cr_assert_eq(got.fits, fits, "case %d: %llu bytes of states, %d slots of %zu: %s", k,
                     (unsigned long long)all, (int)slots, c.largest, got.why_not);
        if (fits)
            cr_assert_eq(got.forward_steps, c.n);
        else
            cr_assert(strstr(got.why_not, "store-all keeps x_0 .. x_{n-1}") &&
                          strstr(got.why_not, "the problem's slots"),
                      "%s", got.why_not);
        free_case(&c);
    }
}

Test(planner_state_sizes, strategies_of_one_size_do_not_fit)
{
    wl_rng rng = {7};
    chain_case c;
    random_case(&rng, &c, 1);
    ebb_plan_problem p;
    problem_of(&c, 3, &p);
    ebb_plan_prediction all[EBB_PLAN_MAX];
    size_t count = 0;
    int best = -1;
    cr_assert_eq(ebb_plan_all(&p, all, &count, &best), EBB_OK, "%s", ebb_last_error());
    for (size_t i = 0; i < count; i++) {
        ebb_config_strategy s = all[i].strategy;
        cr_log_info("strategy %d: fits %d, schedule %s: %s", (int)s, all[i].fits,
                    all[i].fits ? ebb_strategy_name(all[i].schedule) : "-", all[i].why_not);
        if (s == EBB_CONFIG_STRATEGY_REVOLVE) {
            cr_assert(all[i].fits, "%s", all[i].why_not);
            cr_assert_eq((int)i, best, "revolve, the one that fits, is the best");
        } else if (s != EBB_CONFIG_STRATEGY_STORE_ALL) {
            cr_assert_not(all[i].fits, "strategy %d fits", (int)s);
            cr_assert(strstr(all[i].why_not, "keeps states of one size"), "%s",
                      all[i].why_not);
        }
    }
    free_case(&c);
}

Test(planner_state_sizes, bad_sizes_are_refused)
{
    wl_rng rng = {11};
    chain_case c;
    random_case(&rng, &c, 1);
    ebb_plan_problem p;
    problem_of(&c, 3, &p);
    ebb_plan_prediction got;
    size_t keep = c.size[2];
    c.size[2] = 0;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &got), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "problem.state_sizes[2] is 0"), "%s", ebb_last_error());
    c.size[2] = c.largest + 1;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &got), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "problem.state_sizes[2]"), "%s", ebb_last_error());
    c.size[2] = keep;
    p.state_tier = EBB_TIER_GPU;
    p.slots[EBB_TIER_GPU] = 3;
    cr_assert_eq(ebb_plan_predict(&p, EBB_CONFIG_STRATEGY_REVOLVE, &got), EBB_ERR_UNSUPPORTED);
    cr_assert(strstr(ebb_last_error(), "problem.state_sizes") &&
                  strstr(ebb_last_error(), "host state"),
              "%s", ebb_last_error());
    free_case(&c);
}
