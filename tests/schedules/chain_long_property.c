/* Long heterogeneous chains (n from 33 to a few hundred, random costs,
 * sizes and budgets): the stream passes the validator in bytes within the
 * budget, reverses every step once, n-1 first, and costs, counted from the
 * stream, what ebb_chain_schedule_info says. */
#include "support/chain_long_support.h"
#include "support/schedule_support.h"

Test(chain_long_property, random_long_chains_replay_within_the_budget, .timeout = 600)
{
    uint64_t seed = 0x51ed2701a3b5c7d9ull;
    for (int i = 0; i < 60; i++) {
        int n = (int)rng_range(&seed, 33, i % 10 == 0 ? 400 : 150);
        long_chain c = long_chain_alloc(n);
        uint64_t total = 0, largest = 0;
        int shape = i % 3;
        for (int k = 0; k < n; k++) {
            c.fwd[k] = (double)rng_range(&seed, 1, 10);
            c.rev[k] = (double)rng_range(&seed, 0, 20);
            if (shape == 0) /* a few large states among small ones */
                c.bytes[k] = rng_range(&seed, 0, 3) == 0 ? (uint64_t)rng_range(&seed, 8, 24) * 1024
                                                          : 1024;
            else
                c.bytes[k] = (uint64_t)rng_range(&seed, 1, 64) * 1024 + (uint64_t)rng_range(&seed, 0, 7);
            total += c.bytes[k];
            if (c.bytes[k] > largest)
                largest = c.bytes[k];
        }
        /* from x_0 and a largest state to a quarter of every state */
        c.budget = c.bytes[0] + largest + (uint64_t)rng_range(&seed, 0, (int64_t)(total / 4));
        int32_t levels = i % 4 == 0 ? (int32_t)rng_range(&seed, 8, 64) : 0;
        chain_replay r = chain_replayed_grouped(&c, levels, 0, 1);
        cr_assert_eq(r.cost, r.predicted, "case %d, n=%d budget %llu: the stream costs %g, "
                     "info says %g", i, n, (unsigned long long)c.budget, r.cost, r.predicted);
        long_chain_free(&c);
    }
}

/* A budget of x_0 alone: no group's input fits, and every step runs from
 * x_0. */
Test(chain_long_property, a_budget_of_x0_alone_recomputes_from_x0)
{
    long_chain c = long_chain_alloc(40);
    for (int k = 0; k < c.n; k++) {
        c.fwd[k] = 1 + k % 3;
        c.rev[k] = 2;
        c.bytes[k] = 1000 + (uint64_t)k;
    }
    c.budget = 1000;
    chain_replay r = chain_replayed_grouped(&c, 0, 0, 1);
    cr_assert_eq(r.cost, r.predicted);
    cr_assert_eq(r.peak_bytes, 1000);
    long_chain_free(&c);
}

/* A budget that holds every state: each kept, none recomputed (the
 * hierarchy's units, rounded up, would not hold them all here), whatever
 * the sizes; a byte less and something is recomputed. */
Test(chain_long_property, a_budget_of_every_state_recomputes_nothing)
{
    uint64_t seed = 0x5a11ull;
    for (int i = 0; i < 12; i++) {
        long_chain c = long_chain_alloc((int)rng_range(&seed, 33, 300));
        double run_once = 0;
        uint64_t total = 0;
        for (int k = 0; k < c.n; k++) {
            c.fwd[k] = (double)rng_range(&seed, 1, 10);
            c.rev[k] = (double)rng_range(&seed, 0, 20);
            c.bytes[k] = (uint64_t)rng_range(&seed, 1, 64) * 1000 + (uint64_t)rng_range(&seed, 0, 7);
            run_once += c.fwd[k] + c.rev[k];
            total += c.bytes[k];
        }
        c.budget = total;
        chain_replay r = chain_replayed_grouped(&c, 0, 0, 1);
        cr_assert_eq(r.cost, r.predicted);
        cr_assert_eq(r.cost, run_once, "case %d, n=%d: costs %g, each step once %g", i, c.n,
                     r.cost, run_once);
        cr_assert_leq(r.peak_bytes, total);
        c.budget = total - 1;
        r = chain_replayed_grouped(&c, 0, 0, 1);
        cr_assert_gt(r.cost, run_once, "case %d: a byte short of every state", i);
        long_chain_free(&c);
    }
}

/* Long chains whose steps may keep tapes: the stream, tapes counted in the
 * budget, replays within it at the cost info says, and never costs more
 * than the same chain without tapes. */
Test(chain_long_property, long_chains_with_tapes_replay_within_the_budget, .timeout = 600)
{
    uint64_t seed = 0x2f1e0d4c3b5a6978ull;
    int taping = 0;
    for (int i = 0; i < 40; i++) {
        int n = (int)rng_range(&seed, 33, 150);
        long_chain c = long_chain_alloc(n);
        long_chain_add_tapes(&c);
        uint64_t total = 0, largest = 0;
        for (int k = 0; k < n; k++) {
            c.fwd[k] = (double)rng_range(&seed, 1, 10);
            c.bwd[k] = (double)rng_range(&seed, 1, 10);
            c.rev[k] = c.fwd[k] + c.bwd[k];
            c.bytes[k] = (uint64_t)rng_range(&seed, 1, 64) * 1024;
            c.tape[k] = (uint64_t)rng_range(&seed, 0, 3) * c.bytes[k];
            total += c.bytes[k];
            if (c.bytes[k] > largest)
                largest = c.bytes[k];
        }
        c.budget = c.bytes[0] + largest + (uint64_t)rng_range(&seed, 0, (int64_t)(total / 2));
        chain_replay r = chain_replayed_grouped(&c, 0, 0, 1);
        cr_assert_eq(r.cost, r.predicted, "case %d, n=%d budget %llu: the stream costs %g, "
                     "info says %g", i, n, (unsigned long long)c.budget, r.cost, r.predicted);
        double *bwd = c.bwd;
        uint64_t *tape = c.tape;
        c.bwd = NULL;
        c.tape = NULL;
        chain_replay plain = chain_replayed_grouped(&c, 0, 0, 1);
        c.bwd = bwd;
        c.tape = tape;
        cr_assert_leq(r.cost, plain.cost, "case %d: %g with tapes, %g without", i, r.cost,
                      plain.cost);
        taping += r.tapes > 0;
        long_chain_free(&c);
    }
    cr_assert_gt(taping, 20, "only %d of 40 schedules kept a tape", taping);
}
