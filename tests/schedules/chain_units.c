/* Budgets counted in units coarser than the sizes' common divisor: the
 * schedule still fits in bytes, never costs less than the exact one, and
 * costs the same when the unit divides every size. */
#include "support/chain_support.h"
#include "support/schedule_support.h"

static ebb_schedule *create(const test_chain *c, int32_t levels, ebb_chain_info *info)
{
    ebb_chain ch = test_chain_view(c);
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = c->budget;
    o.memory_levels = levels;
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_chain_schedule_info(s, info), EBB_OK);
    return s;
}

/* The stream's peak in bytes, checked against the budget by a validator. */
static uint64_t peak_bytes(ebb_schedule *s, const test_chain *c)
{
    int32_t slots[EBB_TIER_COUNT];
    ebb_schedule_tier_slots(s, slots);
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(c->n, slots, &v), EBB_OK);
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_HOST, c->bytes, c->n, c->budget),
                 EBB_OK);
    ebb_action a[16];
    size_t got;
    do {
        cr_assert_eq(ebb_schedule_next_batch(s, a, 16, &got), EBB_OK);
        cr_assert_eq(ebb_validator_check(v, a, got), EBB_OK, "%s", ebb_last_error());
    } while (got > 0 && a[got - 1].kind != EBB_ACT_END);
    cr_assert_eq(ebb_validator_finish(v), EBB_OK);
    uint64_t peak;
    ebb_validator_peak_bytes(v, EBB_TIER_HOST, &peak);
    ebb_validator_destroy(v);
    return peak;
}

Test(chain_units, coarse_units_fit_in_bytes_and_cost_no_less)
{
    uint64_t seed = 77;
    for (int i = 0; i < 200; i++) {
        test_chain c = {.n = (int)rng_range(&seed, 2, 12)};
        uint64_t total = 0;
        for (int k = 0; k < c.n; k++) {
            c.fwd[k] = (double)rng_range(&seed, 1, 9);
            c.rev[k] = (double)rng_range(&seed, 1, 9);
            c.bytes[k] = (uint64_t)rng_range(&seed, 300, 1500); /* sizes with no common divisor */
            total += c.bytes[k];
        }
        c.budget = (uint64_t)rng_range(&seed, (int64_t)c.bytes[0], (int64_t)total);
        int32_t levels = (int32_t)rng_range(&seed, 4, 64);
        ebb_chain_info coarse, fine;
        ebb_schedule *s = create(&c, levels, &coarse);
        cr_assert_leq(coarse.units, levels);
        cr_assert_leq(peak_bytes(s, &c), c.budget, "case %d", i);
        ebb_schedule_destroy(s);
        s = create(&c, 65536, &fine);
        for (int k = 0; k < c.n; k++) /* exact: the unit divides every size */
            cr_assert_eq(c.bytes[k] % fine.unit_bytes, 0, "case %d: %llu %% %llu, budget %llu", i, (unsigned long long)c.bytes[k], (unsigned long long)fine.unit_bytes, (unsigned long long)c.budget);
        cr_assert_geq(coarse.cost, fine.cost, "case %d: %d levels cost %g, exact %g", i, levels,
                      coarse.cost, fine.cost);
        ebb_schedule_destroy(s);
    }
}

Test(chain_units, a_unit_that_divides_every_size_is_exact)
{
    test_chain c = {.n = 6, .fwd = {1, 4, 2, 5, 4, 9}, .rev = {9, 3, 6, 4, 9, 5},
                    .bytes = {2000, 1000, 4000, 5000, 3000, 3000}, .budget = 6000};
    ebb_chain_info info;
    ebb_schedule *s = create(&c, 6, &info);
    cr_assert_eq(info.unit_bytes, 1000);
    cr_assert_eq(info.units, 6);
    cr_assert_eq(info.cost, 68);
    ebb_schedule_destroy(s);
}

Test(chain_units, x0_that_fits_in_bytes_but_not_in_whole_units_is_kept)
{
    /* unit 334 bytes: x_0 rounds to 3 units of the budget's 2; it counts as
     * both, and the schedule recomputes from it, within 1000 bytes */
    test_chain c = {.n = 4, .fwd = {1, 1, 1, 1}, .rev = {1, 1, 1, 1},
                    .bytes = {950, 10, 10, 10}, .budget = 1000};
    ebb_chain_info info;
    ebb_schedule *s = create(&c, 3, &info);
    cr_assert_eq(info.units, 2);
    cr_assert_leq(peak_bytes(s, &c), 1000);
    ebb_schedule_destroy(s);
}

/* memory_levels as high as allowed on the longest chain: the table stays
 * within 2^24 cells (the units are capped), and the schedule fits. */
Test(chain_units, the_table_is_capped_for_long_chains, .timeout = 600)
{
    test_chain c = {.n = TEST_CHAIN_MAX};
    uint64_t total = 0;
    for (int k = 0; k < c.n; k++) {
        c.fwd[k] = 1 + k % 5;
        c.rev[k] = 2 + k % 3;
        c.bytes[k] = 1000 + 7 * (uint64_t)k; /* no common divisor: units from the levels */
        total += c.bytes[k];
    }
    c.budget = total / 3;
    ebb_chain_info info;
    ebb_schedule *s = create(&c, 65536, &info);
    uint64_t rows = (uint64_t)(c.n + 1) * (c.n + 2) * (c.n + 3) / 6;
    cr_assert_leq(rows * (uint64_t)(info.units + 1), (uint64_t)1 << 24, "%d units", info.units);
    cr_assert_gt(info.units, 2000);
    cr_assert_leq(peak_bytes(s, &c), c.budget);
    ebb_schedule_destroy(s);
}
