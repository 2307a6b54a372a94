/* ebb_chain_least_peak_create: over random chains, its peak in bytes equals
 * the least peak of every choice of checkpoints (each tried through the
 * intervals generator and measured by the validator in bytes), its own
 * stream reaches exactly that peak, and no step runs more than twice. */
#include <math.h>

#include "schedules/schedule_internal.h"
#include "support/schedule_support.h"

enum { MAX_N = 14 };

/* Replays s through a validator that knows the sizes; returns the peak in
 * bytes and counts each step's forward runs into runs[] (may be NULL). */
static uint64_t replay_peak(ebb_schedule *s, int64_t n, const uint64_t *bytes, int *runs)
{
    int32_t slots[EBB_TIER_COUNT];
    cr_assert_eq(ebb_schedule_tier_slots(s, slots), EBB_OK);
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(n, slots, &v), EBB_OK);
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_HOST, bytes, n, UINT64_MAX), EBB_OK);
    ebb_action batch[64];
    size_t got = 0;
    do {
        cr_assert_eq(ebb_schedule_next_batch(s, batch, 64, &got), EBB_OK);
        cr_assert_eq(ebb_validator_check(v, batch, got), EBB_OK, "%s", ebb_last_error());
        for (size_t i = 0; runs && i < got; i++)
            if (batch[i].kind == EBB_ACT_ADVANCE)
                for (int64_t k = batch[i].step; k < batch[i].to; k++)
                    runs[k]++;
    } while (got > 0 && batch[got - 1].kind != EBB_ACT_END);
    cr_assert_eq(ebb_validator_finish(v), EBB_OK, "%s", ebb_last_error());
    uint64_t peak = 0;
    cr_assert_eq(ebb_validator_peak_bytes(v, EBB_TIER_HOST, &peak), EBB_OK);
    ebb_validator_destroy(v);
    return peak;
}

/* The least peak over every set of checkpoints (x_0 always one). */
static uint64_t least_over_subsets(int64_t n, const uint64_t *bytes)
{
    uint64_t best = UINT64_MAX;
    int64_t pos[MAX_N];
    for (uint32_t mask = 0; mask < (1u << (n - 1)); mask++) {
        int64_t count = 0;
        pos[count++] = 0;
        for (int64_t i = 1; i < n; i++)
            if (mask & (1u << (i - 1)))
                pos[count++] = i;
        ebb_schedule_options o = opts(EBB_STRATEGY_PERIODIC, n, 0);
        ebb_schedule *s = NULL;
        cr_assert_eq(ebb_intervals_create(&o, pos, count, &s), EBB_OK, "%s", ebb_last_error());
        uint64_t peak = replay_peak(s, n, bytes, NULL);
        ebb_schedule_destroy(s);
        if (peak < best)
            best = peak;
    }
    return best;
}

Test(chain_least_peak, equals_the_least_over_every_set_of_checkpoints)
{
    uint64_t seed = 0x5eed1ea57;
    for (int c = 0; c < 300; c++) {
        int64_t n = rng_range(&seed, 1, MAX_N);
        uint64_t bytes[MAX_N];
        double fwd[MAX_N], rev[MAX_N];
        int64_t top = c % 3 == 0 ? 4 : c % 3 == 1 ? 100 : 1000000;
        for (int64_t i = 0; i < n; i++) {
            bytes[i] = (uint64_t)rng_range(&seed, 1, top);
            fwd[i] = (double)rng_range(&seed, 0, 9);
            rev[i] = (double)rng_range(&seed, 0, 9);
        }
        ebb_chain ch = {.steps = n, .forward_cost = fwd, .reverse_cost = rev,
                        .state_bytes = bytes};
        ebb_schedule *s = NULL;
        uint64_t peak = 0;
        cr_assert_eq(ebb_chain_least_peak_create(&ch, EBB_TIER_HOST, &peak, &s), EBB_OK, "%s",
                     ebb_last_error());
        int runs[MAX_N] = {0};
        uint64_t measured = replay_peak(s, n, bytes, runs);
        ebb_schedule_destroy(s);
        uint64_t want = least_over_subsets(n, bytes);
        cr_assert_eq(peak, want, "case %d, n = %lld: reported %llu, least %llu", c, (long long)n,
                     (unsigned long long)peak, (unsigned long long)want);
        cr_assert_eq(measured, peak, "case %d: the stream holds %llu, reported %llu", c,
                     (unsigned long long)measured, (unsigned long long)peak);
        for (int64_t i = 0; i < n; i++)
            cr_assert_leq(runs[i], 2, "case %d: step %lld ran %d times", c, (long long)i,
                          runs[i]);
    }
}

Test(chain_least_peak, long_chains_and_the_periodic_shape)
{
    /* uniform states: the least peak is periodic's at its best period, and
     * a long chain takes well under a second */
    enum { N = 100000 };
    uint64_t *bytes = malloc(N * sizeof *bytes);
    double *cost = malloc(N * sizeof *cost);
    cr_assert(bytes && cost);
    for (int i = 0; i < N; i++) {
        bytes[i] = 7;
        cost[i] = 1;
    }
    int64_t ns[] = {2, 3, 10, 101, 1000, N};
    for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
        int64_t n = ns[t];
        ebb_chain ch = {.steps = n, .forward_cost = cost, .reverse_cost = cost,
                        .state_bytes = bytes};
        ebb_schedule *s = NULL;
        uint64_t peak = 0;
        cr_assert_eq(ebb_chain_least_peak_create(&ch, EBB_TIER_HOST, &peak, &s), EBB_OK);
        cr_assert_eq(replay_peak(s, n, bytes, NULL), peak);
        ebb_schedule_destroy(s);
        /* periodic's least slots over every period, in states of 7 bytes */
        int64_t least = INT64_MAX;
        for (int64_t k = 1; k <= n; k++) {
            ebb_schedule_options o = opts(EBB_STRATEGY_PERIODIC, n, INT32_MAX);
            o.period = k;
            if (ebb_schedule_create(&o, &s) != EBB_OK)
                continue;
            int32_t slots[EBB_TIER_COUNT];
            cr_assert_eq(ebb_schedule_tier_slots(s, slots), EBB_OK);
            ebb_schedule_destroy(s);
            if (slots[EBB_TIER_HOST] < least)
                least = slots[EBB_TIER_HOST];
            if (n > 1000 && k > 2000)
                break;
        }
        cr_assert_leq(peak, (uint64_t)least * 7, "n = %lld: %llu bytes, periodic %lld states",
                      (long long)n, (unsigned long long)peak, (long long)least);
    }
    free(bytes);
    free(cost);
}

Test(chain_least_peak, bad_chains_are_named)
{
    double f[2] = {1, NAN}, r[2] = {1, 1};
    uint64_t b[2] = {4, 4};
    ebb_chain ch = {.steps = 2, .forward_cost = f, .reverse_cost = r, .state_bytes = b};
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_chain_least_peak_create(&ch, EBB_TIER_HOST, NULL, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "step 1's costs must be finite"), "%s", ebb_last_error());
    cr_assert_null(s);
    f[1] = 1;
    b[0] = 0;
    cr_assert_eq(ebb_chain_least_peak_create(&ch, EBB_TIER_HOST, NULL, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "x_0's size is 0 bytes"), "%s", ebb_last_error());
    b[0] = 4;
    cr_assert_eq(ebb_chain_least_peak_create(&ch, EBB_TIER_COUNT, NULL, &s), EBB_ERR_INVALID_ARG);
    ch.steps = 0;
    cr_assert_eq(ebb_chain_least_peak_create(&ch, EBB_TIER_HOST, NULL, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "at least 1 step"), "%s", ebb_last_error());
}
