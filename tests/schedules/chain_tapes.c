/* Heterogeneous chains with tapes: on random chains of up to 8 steps whose
 * steps may keep their tapes, the schedule's cost, replayed and checked in
 * bytes (tapes included), equals the least cost an exhaustive search over
 * every schedule with tapes finds; a chain whose tapes never fit gets the
 * schedule it gets without them; with room for every tape and backward
 * steps cheaper than reverse steps, the schedule is store-all's with every
 * step taped. */
#include <math.h>
#include <string.h>

#include "support/chain_search.h"
#include "support/schedule_support.h"

/*
 * The search: Dijkstra over every situation a schedule can be in: the
 * stored states (a bitmask), the tapes held (a bitmask), the live state, t
 * (the adjoint is at x_t) and whether the forward sweep has reached x_n.
 * A tape of step i holds x_i and tape[i] bytes; x_i counts once when it is
 * stored too. From each situation: advance the live state one step, run
 * it keeping its tape, store it, make a stored state live, free one,
 * reverse step t-1 from its tape or from the live x_{t-1}. Nothing of the
 * library's program is used.
 */
enum { MAXN = SITU_MAXN, NOLIVE = SITU_NOLIVE };

static void relax(search *s, double d, uint32_t mask, uint32_t tapes, int live, int t, int turned)
{
    search_relax(s, d, situ_key(mask, tapes, live, t, turned));
}

static uint64_t held_bytes(const test_chain *c, uint32_t mask, uint32_t tapes)
{
    uint64_t held = 0;
    for (int i = 0; i < c->n; i++) {
        if ((mask | tapes) >> i & 1)
            held += c->bytes[i];
        if (tapes >> i & 1)
            held += c->tape[i];
    }
    return held;
}

static double exhaustive(search *s, const test_chain *c)
{
    const int n = c->n;
    search_start(s, situ_key(0, 0, 0, n, 0));
    double d;
    uint32_t k;
    while (search_next(s, &d, &k)) {
        situ at = situ_of(k);
        int turned = at.turned, t = at.t, live = at.live;
        uint32_t mask = at.a, tapes = at.b;
        if (turned && t == 0)
            return d;
        uint64_t held = held_bytes(c, mask, tapes);
        uint32_t below = (1u << (t > 0 ? t - 1 : 0)) - 1; /* x_0 .. x_{t-2} */
        if (turned && (tapes >> (t - 1) & 1)) /* reverse t-1 from its tape */
            relax(s, d + c->bwd[t - 1], mask & below, tapes & below, NOLIVE, t - 1, 1);
        if (live != NOLIVE) {
            if (!turned && live == n - 1)
                relax(s, d + c->fwd[live], mask, tapes, n - 1, n, 1); /* reach x_n, turn */
            else if (!turned || live + 1 <= t - 1)
                relax(s, d + c->fwd[live], mask, tapes, live + 1, t, turned);
            if (!(tapes >> live & 1) && (!turned || live <= t - 1) &&
                held + c->tape[live] + ((mask >> live & 1) ? 0 : c->bytes[live]) <= c->budget) {
                uint32_t with = tapes | 1u << live;
                if (!turned && live == n - 1)
                    relax(s, d + c->fwd[live], mask, with, n - 1, n, 1);
                else
                    relax(s, d + c->fwd[live], mask, with,
                          turned && live + 1 == t ? NOLIVE : live + 1, t, turned);
            }
            if (turned && live == t - 1 && !(tapes >> live & 1))
                relax(s, d + c->rev[live], mask & below, tapes & below, NOLIVE, t - 1, 1);
            if (!(mask >> live & 1) &&
                held + ((tapes >> live & 1) ? 0 : c->bytes[live]) <= c->budget)
                relax(s, d, mask | 1u << live, tapes, live, t, turned);
        }
        for (int i = 0; i < n; i++)
            if (mask >> i & 1) {
                if (i != live)
                    relax(s, d, mask, tapes, i, t, turned);
                relax(s, d, mask & ~(1u << i), tapes, live, t, turned);
            }
    }
    return HUGE_VAL;
}

static void random_chain(uint64_t *seed, test_chain *c, int case_no)
{
    c->n = (int)rng_range(seed, 1, MAXN);
    c->taped = 1;
    int shape = case_no % 3;
    uint64_t total = 0;
    for (int i = 0; i < c->n; i++) {
        c->fwd[i] = (double)rng_range(seed, 1, 10);
        c->bwd[i] = (double)rng_range(seed, 0, 10);
        /* a reverse step from x_i runs the step again and its backward, or
         * any cost */
        c->rev[i] = shape == 2 ? (double)rng_range(seed, 0, 20) : c->fwd[i] + c->bwd[i];
        c->bytes[i] = shape == 1 ? 2 : (uint64_t)rng_range(seed, 1, 8);
        c->tape[i] = (uint64_t)rng_range(seed, 0, 3) * c->bytes[i] + (uint64_t)rng_range(seed, 0, 2);
        total += c->bytes[i] + c->tape[i];
    }
    /* x_0 always fits (n >= 2 needs it); up to every state and tape */
    c->budget = (uint64_t)rng_range(seed, (int64_t)c->bytes[0], (int64_t)total);
}

static void count_taping(int case_no, const test_chain *c, const chain_replay *r, void *ctx)
{
    (void)case_no;
    (void)c;
    *(int *)ctx += r->tapes > 0;
}

Test(chain_tapes, random_chains_cost_the_optimum, .timeout = 900)
{
    int taping = 0;
    chains_cost_the_optimum(SITU_KEYS, random_chain, exhaustive, 300, 0x9e3779b97f4a7c15ull, MAXN,
                            count_taping, &taping);
    /* the cases exercise tapes, and not only tapes */
    cr_assert_gt(taping, 30, "only %d of 300 schedules kept a tape", taping);
    cr_assert_lt(taping, 270, "%d of 300 schedules kept a tape", taping);
}

/* Tapes larger than the budget: the schedule without them, action for
 * action. */
Test(chain_tapes, tapes_that_never_fit_change_nothing)
{
    uint64_t seed = 0x7f4a7c159e3779b9ull;
    for (int i = 0; i < 100; i++) {
        test_chain c = {0};
        random_chain(&seed, &c, i);
        test_chain plain = c;
        plain.taped = 0;
        for (int k = 0; k < c.n; k++)
            c.tape[k] = c.budget + 1;
        ebb_chain a = test_chain_view(&c), b = test_chain_view(&plain);
        ebb_chain_options o;
        ebb_chain_options_init(&o);
        o.memory_bytes = c.budget;
        o.memory_levels = 65536;
        ebb_schedule *sa = NULL, *sb = NULL;
        cr_assert_eq(ebb_chain_schedule_create(&a, &o, &sa), EBB_OK);
        cr_assert_eq(ebb_chain_schedule_create(&b, &o, &sb), EBB_OK);
        ebb_action x, y;
        do {
            cr_assert_eq(ebb_schedule_next(sa, &x), EBB_OK);
            cr_assert_eq(ebb_schedule_next(sb, &y), EBB_OK);
            cr_assert(memcmp(&x, &y, sizeof x) == 0, "case %d: %s against %s", i,
                      ebb_action_kind_name(x.kind), ebb_action_kind_name(y.kind));
        } while (x.kind != EBB_ACT_END);
        ebb_schedule_destroy(sa);
        ebb_schedule_destroy(sb);
    }
}

/* Room for every state and tape, and backward steps cheaper than reverse
 * steps: every step runs once, keeping its tape, as autograd does. */
Test(chain_tapes, room_for_every_tape_runs_each_step_once)
{
    uint64_t seed = 0x3c6ef372fe94f82bull;
    for (int i = 0; i < 100; i++) {
        test_chain c = {0};
        random_chain(&seed, &c, i);
        uint64_t total = 0;
        double least = 0;
        for (int k = 0; k < c.n; k++) {
            c.rev[k] = c.fwd[k] + c.bwd[k] + 1;
            total += c.bytes[k] + c.tape[k];
            least += c.fwd[k] + c.bwd[k];
        }
        c.budget = total;
        chain_replay r = chain_replayed(&c);
        cr_assert_eq(r.tapes, c.n, "case %d: %lld of %d steps taped", i, (long long)r.tapes,
                     c.n);
        cr_assert_eq(r.forward_steps, c.n, "case %d", i);
        cr_assert_eq(r.cost, least, "case %d: %g against %g", i, r.cost, least);
    }
}
