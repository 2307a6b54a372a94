/* Heterogeneous chains over two tiers: on random chains of up to 8 steps
 * whose states may also go to a slower tier (unbudgeted, a write and a
 * read costing per byte), the schedule's cost, replayed with the fast
 * tier's budget checked in bytes and each move costed, equals the least
 * cost an exhaustive search over every schedule finds; with moves that cost
 * nothing it is never above store-all's forward count; with moves dearer
 * than any recomputation it is the one-tier schedule's cost. */
#include <math.h>
#include <string.h>

#include "support/chain_search.h"
#include "support/schedule_support.h"

/*
 * The search: Dijkstra over every situation a schedule can be in: the
 * states in the fast tier and in the slow one (two bitmasks), the live
 * state, t (the adjoint is at x_t) and whether the forward sweep has
 * reached x_n. From each: advance the live state one step, store it in
 * either tier (the fast one if the bytes fit), make a stored state live
 * (from the slow tier at its read), copy one between the tiers (a write or
 * a read), free one, or reverse step t-1 when x_{t-1} is live. Nothing of
 * the library's program is used.
 */
enum { MAXN = SITU_MAXN, NOLIVE = SITU_NOLIVE };

static void relax(search *s, double d, uint32_t fast, uint32_t slow, int live, int t, int turned)
{
    search_relax(s, d, situ_key(fast, slow, live, t, turned));
}

static double exhaustive(search *s, const test_chain *c)
{
    const int n = c->n;
    double wr[MAXN], rd[MAXN];
    for (int i = 0; i < n; i++) {
        wr[i] = c->write_per_byte * (double)c->bytes[i];
        rd[i] = c->read_per_byte * (double)c->bytes[i];
    }
    search_start(s, situ_key(0, 0, 0, n, 0));
    double d;
    uint32_t k;
    while (search_next(s, &d, &k)) {
        situ at = situ_of(k);
        int turned = at.turned, t = at.t, live = at.live;
        uint32_t fast = at.a, slow = at.b;
        if (turned && t == 0)
            return d;
        uint64_t held = 0;
        for (int i = 0; i < n; i++)
            if (fast >> i & 1)
                held += c->bytes[i];
        if (live != NOLIVE) {
            if (!turned && live == n - 1)
                relax(s, d + c->fwd[live], fast, slow, n - 1, n, 1); /* reach x_n, turn */
            else if (!turned || live + 1 <= t - 1)
                relax(s, d + c->fwd[live], fast, slow, live + 1, t, turned);
            if (turned && live == t - 1) {
                uint32_t below = (1u << (t - 1)) - 1;
                relax(s, d + c->rev[live], fast & below, slow & below, NOLIVE, t - 1, 1);
            }
            if (!(fast >> live & 1) && held + c->bytes[live] <= c->budget)
                relax(s, d, fast | 1u << live, slow, live, t, turned);
            if (!(slow >> live & 1))
                relax(s, d + wr[live], fast, slow | 1u << live, live, t, turned);
        }
        for (int i = 0; i < n; i++) {
            if (fast >> i & 1) {
                if (i != live)
                    relax(s, d, fast, slow, i, t, turned);
                relax(s, d, fast & ~(1u << i), slow, live, t, turned);
                if (!(slow >> i & 1))
                    relax(s, d + wr[i], fast, slow | 1u << i, live, t, turned);
            }
            if (slow >> i & 1) {
                if (i != live)
                    relax(s, d + rd[i], fast, slow, i, t, turned);
                relax(s, d, fast, slow & ~(1u << i), live, t, turned);
                if (!(fast >> i & 1) && held + c->bytes[i] <= c->budget)
                    relax(s, d + rd[i], fast | 1u << i, slow, live, t, turned);
            }
        }
    }
    return HUGE_VAL;
}

static void random_chain(uint64_t *seed, test_chain *c, int case_no)
{
    c->n = (int)rng_range(seed, 1, MAXN);
    c->slow = 1;
    /* a move per byte from free to dearer than most recomputations */
    c->write_per_byte = (double)rng_range(seed, 0, 3);
    c->read_per_byte = (double)rng_range(seed, 0, 3);
    uint64_t total = 0;
    for (int i = 0; i < c->n; i++) {
        c->fwd[i] = (double)rng_range(seed, 1, 10);
        c->rev[i] = case_no % 2 ? (double)rng_range(seed, 0, 20)
                                : c->fwd[i] + (double)rng_range(seed, 0, 10);
        c->bytes[i] = case_no % 3 == 0 ? 2 : (uint64_t)rng_range(seed, 1, 6);
        total += c->bytes[i];
    }
    /* x_0 always fits (n >= 2 needs it); up to every state */
    c->budget = (uint64_t)rng_range(seed, (int64_t)c->bytes[0], (int64_t)total);
}

/* never dearer than the same chain in one tier; counts where it is cheaper */
static void against_one_tier(int case_no, const test_chain *c, const chain_replay *r, void *ctx)
{
    test_chain one = *c;
    one.slow = 0;
    double alone = chain_replayed(&one).cost;
    cr_assert_leq(r->cost, alone, "case %d, write %g read %g a byte", case_no, c->write_per_byte,
                  c->read_per_byte);
    *(int *)ctx += r->cost < alone;
}

Test(chain_two_tiers, random_chains_cost_the_optimum, .timeout = 900)
{
    int cheaper = 0;
    chains_cost_the_optimum(SITU_KEYS, random_chain, exhaustive, 300, 0x6a09e667f3bcc908ull, MAXN,
                            against_one_tier, &cheaper);
    /* the slow tier pays in some cases, not in all */
    cr_assert_gt(cheaper, 30, "the slow tier paid in only %d of 300 chains", cheaper);
    cr_assert_lt(cheaper, 270, "the slow tier paid in %d of 300 chains", cheaper);
}

/* Above the exact program's 32 steps the slow tier is not used: the same
 * schedule as without it. */
Test(chain_two_tiers, a_long_chain_keeps_to_its_tier)
{
    enum { N = 40 };
    double f[N], r[N];
    uint64_t b[N];
    for (int i = 0; i < N; i++) {
        f[i] = 1 + i % 3;
        r[i] = 2 + i % 5;
        b[i] = 1000 + 10 * (uint64_t)(i % 7);
    }
    ebb_chain ch = {.steps = N, .forward_cost = f, .reverse_cost = r, .state_bytes = b};
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = 6000;
    ebb_schedule *plain = NULL, *two = NULL;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &plain), EBB_OK);
    o.slow_tier = EBB_TIER_DISK;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &two), EBB_OK);
    ebb_action x, y;
    do {
        cr_assert_eq(ebb_schedule_next(plain, &x), EBB_OK);
        cr_assert_eq(ebb_schedule_next(two, &y), EBB_OK);
        cr_assert(memcmp(&x, &y, sizeof x) == 0);
    } while (x.kind != EBB_ACT_END);
    ebb_schedule_destroy(plain);
    ebb_schedule_destroy(two);
}
