/* Heterogeneous chains: on random chains of up to 14 steps the schedule's
 * cost, replayed and checked in bytes, equals the least cost an exhaustive
 * search over every schedule finds. */
#include <math.h>

#include "support/chain_search.h"
#include "support/schedule_support.h"

/*
 * The search: Dijkstra over every situation a schedule can be in, the set
 * of stored states (a bitmask of x_0 .. x_{t-1}), the live state, t (the
 * adjoint is at x_t) and whether the forward sweep has reached x_n. From
 * each: advance the live state one step, store it (if the bytes fit), make
 * a stored state live, free one, or reverse step t-1 when x_{t-1} is live.
 * Nothing of the library's program is used.
 */
enum { MAXN = 14, NOLIVE = MAXN + 1 };

static uint32_t key_of(uint32_t mask, int live, int t, int turned)
{
    return ((mask * (MAXN + 2) + (uint32_t)live) * (MAXN + 1) + (uint32_t)t) * 2 + (uint32_t)turned;
}

static void relax(search *s, double d, uint32_t mask, int live, int t, int turned)
{
    search_relax(s, d, key_of(mask, live, t, turned));
}

static double exhaustive(search *s, const test_chain *c)
{
    const int n = c->n;
    search_start(s, key_of(0, 0, n, 0));
    double d;
    uint32_t k;
    while (search_next(s, &d, &k)) {
        int turned = (int)(k % 2);
        k /= 2;
        int t = (int)(k % (MAXN + 1));
        k /= MAXN + 1;
        int live = (int)(k % (MAXN + 2));
        uint32_t mask = k / (MAXN + 2);
        if (turned && t == 0)
            return d;
        uint64_t held = 0;
        for (int i = 0; i < n; i++)
            if (mask >> i & 1)
                held += c->bytes[i];
        if (live != NOLIVE) {
            if (!turned && live == n - 1)
                relax(s, d + c->fwd[live], mask, n - 1, n, 1); /* reach x_n, turn */
            else if (!turned || live + 1 <= t - 1)
                relax(s, d + c->fwd[live], mask, live + 1, t, turned);
            if (turned && live == t - 1)
                relax(s, d + c->rev[live], mask & ((1u << (t - 1)) - 1), NOLIVE, t - 1, 1);
            if (!(mask >> live & 1) && held + c->bytes[live] <= c->budget)
                relax(s, d, mask | 1u << live, live, t, turned);
        }
        for (int i = 0; i < n; i++)
            if (mask >> i & 1) {
                if (i != live)
                    relax(s, d, mask, i, t, turned);
                relax(s, d, mask & ~(1u << i), live, t, turned);
            }
    }
    return HUGE_VAL;
}

static void random_chain(uint64_t *seed, test_chain *c, int case_no)
{
    c->n = (int)rng_range(seed, 1, MAXN);
    int shape = case_no % 4;
    uint64_t total = 0;
    for (int i = 0; i < c->n; i++) {
        c->fwd[i] = (double)rng_range(seed, 1, 10);
        c->rev[i] = (double)rng_range(seed, 0, 10);
        if (shape == 0) /* a few large states among small ones */
            c->bytes[i] = rng_range(seed, 0, 3) == 0 ? (uint64_t)rng_range(seed, 8, 24) : 1;
        else if (shape == 1) /* one size: Revolve's setting with other costs */
            c->bytes[i] = 3;
        else
            c->bytes[i] = (uint64_t)rng_range(seed, 1, 8);
        total += c->bytes[i];
    }
    /* x_0 always fits (n >= 2 needs it); up to every state */
    c->budget = (uint64_t)rng_range(seed, (int64_t)c->bytes[0], (int64_t)total);
}

Test(chain_exhaustive, random_chains_cost_the_optimum, .timeout = 600)
{
    chains_cost_the_optimum(key_of(1u << MAXN, 0, 0, 0), random_chain, exhaustive, 320,
                            0x2545f4914f6cdd1dull, MAXN, NULL, NULL);
}

/* The chain where nested schedules are dearer: x_1 is small, and freeing it
 * once x_2 is needed (x_1 then recomputed from x_0) saves a unit. */
Test(chain_exhaustive, freeing_a_moved_checkpoint_pays)
{
    test_chain c = {.n = 6, .fwd = {1, 4, 2, 5, 4, 9}, .rev = {9, 3, 6, 4, 9, 5},
                    .bytes = {2, 1, 4, 5, 3, 3}, .budget = 6};
    search s = search_make(key_of(1u << MAXN, 0, 0, 0));
    cr_assert_eq(exhaustive(&s, &c), 68);
    cr_assert_eq(chain_replayed(&c).cost, 68);
    search_free(&s);
}
