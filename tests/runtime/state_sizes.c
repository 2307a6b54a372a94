/* States of different sizes in a run (ebb_run_options.state_sizes): over
 * random chains (n, each state's size, costs, the host budget in bytes)
 * every reverse step gets x_i's bytes bitwise the plain loop's, x_0 and
 * the pushed states are read no further than their sizes (ASan sees an
 * overread: each is allocated at its size), and the forward steps the run
 * ran cost, with the reverse steps, exactly what ebb_chain_schedule_create
 * says for the same chain within the same bytes. The host tier takes the
 * memory of what it holds, not of as many largest states. Bad sizes and
 * what cannot take them are refused saying why. */
#include "workload.h"

/* A chain of states of different sizes and its callbacks: x_{k+1} is
 * x_k's bytes hashed with k, spread over x_{k+1}'s size; the adjoint
 * folds each x_i's hash in the order the reverse steps come. */
typedef struct sized {
    int64_t n;
    const size_t *size;  /* n + 1 */
    const double *f;     /* n forward costs, or NULL: 1 each */
    double spent;        /* the forward calls' costs */
    int64_t forward_calls;
    uint64_t adjoint;
    int64_t expect;      /* the next reverse step */
    int order_ok;
    uint64_t baseline;   /* resident bytes before the run */
    uint64_t peak;       /* resident bytes beyond baseline, the most seen in a callback */
    int measure;
    ebb_run *run;        /* set: its buffer lists checked in every callback */
    char fault[256];     /* the first fault they showed */
} sized;

static void fill(int64_t k, const unsigned char *in, size_t in_bytes, unsigned char *out,
                 size_t out_bytes)
{
    uint64_t h = XXH3_64bits_withSeed(in, in_bytes, (uint64_t)k);
    size_t words = out_bytes / 8;
    for (size_t j = 0; j < words; j++) {
        uint64_t v = wl_mix(h ^ (j * 0x9e3779b97f4a7c15ULL));
        memcpy(out + 8 * j, &v, 8);
    }
    for (size_t j = words * 8; j < out_bytes; j++)
        out[j] = (unsigned char)wl_mix(h + j);
}

static void seen_memory(sized *s)
{
    if (s->run && !s->fault[0] && ebb_run_debug_check_buffers(s->run) != 0)
        snprintf(s->fault, sizeof s->fault, "%s", ebb_last_error());
    if (!s->measure)
        return;
    uint64_t now = wl_resident_bytes();
    if (now > s->baseline && now - s->baseline > s->peak)
        s->peak = now - s->baseline;
}

static int sized_forward(void *user, int64_t k, const void *in, void *out)
{
    sized *s = user;
    s->spent += s->f ? s->f[k] : 1;
    s->forward_calls++;
    fill(k, in, s->size[k], out, s->size[k + 1]);
    seen_memory(s);
    return EBB_STEP_OK;
}

/* In place: the state's bytes hashed before x_{k+1}'s are written. */
static int sized_forward_inplace(void *user, int64_t k, void *state)
{
    return sized_forward(user, k, state, state);
}

static int sized_reverse(void *user, int64_t k, void *state)
{
    sized *s = user;
    if (k != s->expect)
        s->order_ok = 0;
    s->expect = k - 1;
    s->adjoint = wl_mix(s->adjoint ^ XXH3_64bits_withSeed(state, s->size[k], (uint64_t)k));
    seen_memory(s);
    return EBB_STEP_OK;
}

/* x_0 of `bytes`, allocated at that size. */
static unsigned char *x0_of(size_t bytes, uint64_t seed)
{
    unsigned char *x = malloc(bytes);
    cr_assert_not_null(x);
    for (size_t j = 0; j < bytes; j++)
        x[j] = (unsigned char)wl_mix(seed + j);
    return x;
}

/* The plain loop's adjoint: every state computed, folded in reverse. */
static uint64_t reference(const sized *s, uint64_t seed)
{
    unsigned char **x = malloc(sizeof *x * (size_t)(s->n + 1));
    cr_assert_not_null(x);
    x[0] = x0_of(s->size[0], seed);
    for (int64_t k = 0; k < s->n; k++) {
        x[k + 1] = malloc(s->size[k + 1]);
        cr_assert_not_null(x[k + 1]);
        fill(k, x[k], s->size[k], x[k + 1], s->size[k + 1]);
    }
    uint64_t a = 0x5eed;
    for (int64_t k = s->n - 1; k >= 0; k--)
        a = wl_mix(a ^ XXH3_64bits_withSeed(x[k], s->size[k], (uint64_t)k));
    for (int64_t k = 0; k <= s->n; k++)
        free(x[k]);
    free(x);
    return a;
}

static ebb_run_options sized_options(sized *s, ebb_config *cfg, size_t largest)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = largest;
    o.steps = s->n;
    o.config = cfg;
    o.forward = sized_forward;
    o.reverse = sized_reverse;
    o.user = s;
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.state_sizes = s->size;
    return o;
}

/* Runs o (the forward callback, or every state pushed); the adjoint
 * checked against the plain loop's and the order of the reverse steps. */
static void run_checked(sized *s, const ebb_run_options *o, uint64_t seed, int push,
                        ebb_run_stats *stats, const char *what)
{
    s->spent = 0;
    s->forward_calls = 0;
    s->adjoint = 0x5eed;
    s->expect = s->n - 1;
    s->order_ok = 1;
    s->peak = 0;
    unsigned char *x0 = x0_of(s->size[0], seed);
    ebb_run *run = wl_create(o);
    if (s->measure) /* from create: the host tier takes memory as states are written */
        s->baseline = wl_resident_bytes();
    s->run = run;
    s->fault[0] = '\0';
    if (!push) {
        void *xn = NULL;
        cr_assert_eq(ebb_run_forward(run, x0, &xn), EBB_OK, "%s: %s", what, ebb_last_error());
    } else {
        /* the caller's states, each allocated at its size */
        cr_assert_eq(ebb_run_begin(run, x0), EBB_OK, "%s: %s", what, ebb_last_error());
        unsigned char *prev = x0;
        for (int64_t k = 0; k < s->n; k++) {
            unsigned char *next = malloc(s->size[k + 1]);
            cr_assert_not_null(next);
            fill(k, prev, s->size[k], next, s->size[k + 1]);
            cr_assert_eq(ebb_run_push(run, next), EBB_OK, "%s: step %lld: %s", what,
                         (long long)k, ebb_last_error());
            if (prev != x0)
                free(prev);
            prev = next;
        }
        if (prev != x0)
            free(prev);
        cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_OK, "%s: %s", what,
                     ebb_last_error());
        s->spent = 0; /* the pushed sweep ran no forward callback */
        s->forward_calls = 0;
    }
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s: %s", what, ebb_last_error());
    cr_assert_eq(ebb_run_stats_get(run, stats), EBB_OK);
    ebb_run_destroy(run);
    s->run = NULL;
    free(x0);
    cr_assert(!s->fault[0], "%s: %s", what, s->fault);
    cr_assert(s->order_ok, "%s: the reverse steps came out of order", what);
    cr_assert_eq(s->adjoint, reference(s, seed), "%s: the adjoint differs from the plain loop's",
                 what);
}

Test(state_sizes, the_run_follows_the_chain_program_bitwise)
{
    wl_setup env;
    wl_setup_open(&env);
    wl_rng rng = {0x51e5};
    int cases = 48;
    for (int k = 0; k < cases; k++) {
        int64_t n = wl_pick(&rng, 1, k % 10 == 0 ? 80 : 20);
        size_t *size = malloc(sizeof *size * (size_t)(n + 1));
        double *f = malloc(sizeof *f * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
        cr_assert(size && f && r);
        size_t largest = 0;
        uint64_t total = 0;
        for (int64_t i = 0; i <= n; i++) {
            /* a few dear states among cheap ones, any byte count */
            size[i] = (size_t)(wl_pick(&rng, 0, 3) == 0 ? wl_pick(&rng, 2000, 9000)
                                                       : wl_pick(&rng, 1, 800));
            largest = size[i] > largest ? size[i] : largest;
            total += i < n ? size[i] : 0;
        }
        for (int64_t i = 0; i < n; i++) {
            f[i] = (double)wl_pick(&rng, 1, 9);
            r[i] = (double)wl_pick(&rng, 1, 9);
        }
        uint64_t budget = size[0] + (uint64_t)wl_pick(&rng, 0, (int64_t)(total - size[0]) + 1);
        int store_all = k % 8 == 7; /* every state kept, in a budget of them all */
        if (store_all)
            budget = total;
        int costs = k % 4 != 0;
        sized s = {.n = n, .size = size, .f = costs ? f : NULL};
        env.cfg.host.budget = budget;
        env.cfg.disk.enabled = k % 2;
        ebb_run_options o = sized_options(&s, &env.cfg, largest);
        if (costs) {
            o.forward_costs = f;
            o.reverse_costs = r;
        }
        o.strategy = store_all ? EBB_STRATEGY_STORE_ALL
                     : k % 3 == 0 ? EBB_STRATEGY_AUTO
                                  : EBB_STRATEGY_REVOLVE;
        o.audit = k % 5 == 0 ? EBB_AUDIT_HASH : EBB_AUDIT_REPLAY;
        if (k % 7 == 3) { /* the in-place form copies a kept state's bytes */
            o.forward = NULL;
            o.forward_inplace = sized_forward_inplace;
        }
        char what[96];
        snprintf(what, sizeof what, "case %d (n %lld, budget %llu of %llu)", k, (long long)n,
                 (unsigned long long)budget, (unsigned long long)total);
        ebb_run_stats st;
        run_checked(&s, &o, (uint64_t)k, 0, &st, what);
        double rev = 0;
        for (int64_t i = 0; i < n; i++)
            rev += costs ? r[i] : 1;
        double want = 0; /* store-all: each step once */
        for (int64_t i = 0; store_all && i < n; i++)
            want += (costs ? f[i] : 1) + (costs ? r[i] : 1);
        if (!store_all)
            want = wl_chain_cost(s.n, costs ? f : NULL, costs ? r : NULL, s.size, 0, budget);
        cr_assert_eq(s.spent + rev, want, "%s: the run cost %g, the chain program %g", what,
                     s.spent + rev, want);
        cr_assert_eq(st.forward_steps, s.forward_calls, "%s", what);
        if (k % 6 == 5) { /* every state pushed, each read at its size */
            run_checked(&s, &o, (uint64_t)k, 1, &st, what);
            cr_assert_eq(st.forward_steps - n, s.forward_calls, "%s", what);
        }
        free(size);
        free(f);
        free(r);
    }
    wl_setup_close(&env);
}

/* Resident memory: the run holds more states at once than the budget holds
 * of the largest, yet its memory stays within the budget and the two
 * working states (measured
 * in every callback, over what the process held after create, its pools mapped); a run
 * whose states all take the largest size recomputes more within the same
 * bytes. */
Test(state_sizes, the_host_tier_takes_what_it_holds)
{
    wl_setup env;
    wl_setup_open(&env);
    enum { N = 48 };
    const size_t big = (size_t)4 << 20, small = (size_t)96 << 10;
    size_t size[N + 1];
    for (int i = 0; i <= N; i++)
        size[i] = i % 6 == 3 ? big : small + (size_t)i * 4096;
    uint64_t budget = (uint64_t)10 << 20;
    env.cfg.host.budget = budget;
    env.cfg.disk.enabled = 0;
    sized s = {.n = N, .size = size, .measure = 1};
    ebb_run_options o = sized_options(&s, &env.cfg, big);
    ebb_run_stats st;
    run_checked(&s, &o, 7, 0, &st, "sized");
    /* ASan's shadow takes 1/8 more */
    uint64_t bound = (budget + 2 * big) * 9 / 8 + ((uint64_t)2 << 20);
    cr_assert_gt((uint64_t)st.peak_slots[EBB_TIER_HOST] * big, bound,
                 "the run held %d states at once: no more than the budget's largest",
                 st.peak_slots[EBB_TIER_HOST]);
    cr_assert_leq(s.peak, bound, "resident %llu bytes beyond create, above %llu (%d states held)",
                  (unsigned long long)s.peak, (unsigned long long)bound,
                  st.peak_slots[EBB_TIER_HOST]);
    int64_t sized_runs = st.forward_steps;
    /* every state the largest: budget / largest slots */
    size_t same[N + 1];
    for (int i = 0; i <= N; i++)
        same[i] = big;
    sized u = {.n = N, .size = same};
    o = sized_options(&u, &env.cfg, big);
    o.state_sizes = NULL;
    o.slots = (int32_t)(budget / big);
    run_checked(&u, &o, 7, 0, &st, "uniform");
    cr_assert_lt(sized_runs, st.forward_steps, "%lld forward steps, uniform %lld",
                 (long long)sized_runs, (long long)st.forward_steps);
    cr_log_info("n %d, budget %llu: peak resident %llu, %lld forward steps against %lld",
                N, (unsigned long long)budget, (unsigned long long)s.peak,
                (long long)sized_runs, (long long)st.forward_steps);
    wl_setup_close(&env);
}

/* What cannot take states of different sizes says so, and why. */
Test(state_sizes, refusals_say_why)
{
    wl_setup env;
    wl_setup_open(&env);
    size_t size[5] = {64, 8, 128, 16, 32};
    sized s = {.n = 4, .size = size};
    ebb_run *run = NULL;
    ebb_run_options o = sized_options(&s, &env.cfg, 128);
    o.state_size = 100;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "state_sizes[2] is 128: expected 1 .. state_size (100");
    size[2] = 0;
    o.state_size = 128;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "state_sizes[2] is 0");
    size[2] = 128;
    o.steps = 0;
    o.strategy = EBB_STRATEGY_ONLINE;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "state_sizes need n");
    o = sized_options(&s, &env.cfg, 128);
    o.strategy = EBB_STRATEGY_ONLINE;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "strategy \"online\" keeps states of one size");
    o.strategy = EBB_STRATEGY_ONLINE;
    o.measure_costs = 1;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_INVALID_ARG, "state_sizes and measure_costs");
    o = sized_options(&s, &env.cfg, 128);
    o.state_tier = EBB_TIER_GPU;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_UNSUPPORTED, "for a host state");
    o = sized_options(&s, &env.cfg, 128);
    o.fast_tier = EBB_TIER_DISK;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_CONFIG, "enable tier.host (fast tier disk given)");
    o = sized_options(&s, &env.cfg, 128);
    env.cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_CONFIG, "tier.host.compression fixes every");
    env.cfg.host.compression.mode = EBB_COMPRESSION_OFF;
    /* store-all: x_0 .. x_3 take 216 bytes */
    env.cfg.host.budget = 215;
    o = sized_options(&s, &env.cfg, 128);
    o.strategy = EBB_STRATEGY_STORE_ALL;
    wl_says(ebb_run_create(&o, &run), EBB_ERR_NO_MEMORY,
            "store-all keeps x_0 .. x_{n-1} of ebb_run_options.state_sizes: 216 bytes, beyond "
            "the 215 of tier.host (its budget)");
    env.cfg.host.budget = 216;
    run = wl_create(&o);
    ebb_run_destroy(run);
    run = NULL;
    env.cfg.host.budget = 32; /* x_0 alone takes 64 */
    o = sized_options(&s, &env.cfg, 128);
    ebb_status st = ebb_run_create(&o, &run);
    cr_assert_neq(st, EBB_OK);
    cr_assert(strstr(ebb_last_error(), "32 bytes of tier.host"), "%s", ebb_last_error());
    cr_assert_null(run);
    cr_log_info("%s", ebb_last_error());
    wl_setup_close(&env);
}
