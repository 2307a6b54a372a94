/* A bad chain or budget is refused with a message that says which and why. */
#include <math.h>

#include "support/chain_support.h"
#include "support/schedule_support.h"

static ebb_status create(const test_chain *c, ebb_schedule **s)
{
    ebb_chain ch = test_chain_view(c);
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = c->budget;
    return ebb_chain_schedule_create(&ch, &o, s);
}

static test_chain three(void)
{
    return (test_chain){.n = 3, .fwd = {1, 1, 1}, .rev = {1, 1, 1}, .bytes = {8, 8, 8},
                        .budget = 16};
}

Test(chain_errors, each_bad_input_names_itself)
{
    ebb_schedule *s = NULL;
    test_chain c = three();
    c.n = 0;
    cr_assert_eq(create(&c, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "1 .. 100000 steps here, got 0"), "%s", ebb_last_error());
    c = three();
    c.fwd[1] = -1;
    cr_assert_eq(create(&c, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "step 1's costs must be finite and >= 0"), "%s",
              ebb_last_error());
    c = three();
    c.bytes[2] = 0;
    cr_assert_eq(create(&c, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "x_2's size is 0 bytes"), "%s", ebb_last_error());
    c = three();
    c.budget = 7;
    cr_assert_eq(create(&c, &s), EBB_ERR_NO_MEMORY);
    cr_assert(strstr(ebb_last_error(), "7 bytes does not hold x_0 (8 bytes)"), "%s",
              ebb_last_error());
    cr_assert_null(s);
    ebb_chain_info info;
    cr_assert_eq(ebb_chain_schedule_info(NULL, &info), EBB_ERR_INVALID_ARG);
}

Test(chain_errors, one_step_needs_no_memory)
{
    test_chain c = {.n = 1, .fwd = {2}, .rev = {3}, .bytes = {8}, .budget = 0};
    chain_replay r = chain_replayed(&c);
    cr_assert_eq(r.cost, 5);
    cr_assert_eq(r.peak_bytes, 0);
}

Test(chain_errors, info_refuses_another_schedule)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, 10, 3);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK);
    ebb_chain_info info;
    cr_assert_eq(ebb_chain_schedule_info(s, &info), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "not a chain's"), "%s", ebb_last_error());
    ebb_schedule_destroy(s);
}

/* Tapes and a slow tier: each bad one named. */
Test(chain_errors, bad_tapes_and_slow_tiers_name_themselves)
{
    ebb_schedule *s = NULL;
    test_chain c = three();
    ebb_chain ch = test_chain_view(&c);
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = c.budget;
    ch.tape_bytes = c.tape;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "tape_bytes and backward_cost go together"), "%s",
              ebb_last_error());
    ch.backward_cost = c.bwd;
    c.bwd[2] = NAN;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "step 2's backward cost must be finite and >= 0"), "%s",
              ebb_last_error());
    ch = test_chain_view(&c);
    o.slow_tier = EBB_TIER_HOST;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "slow_tier 1 must be a tier other than its tier (host)"),
              "%s", ebb_last_error());
    o.slow_tier = (ebb_tier)7;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_ERR_INVALID_ARG);
    o.slow_tier = EBB_TIER_DISK;
    o.read_cost_per_byte = -1;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "read_cost_per_byte must be finite and >= 0"), "%s",
              ebb_last_error());
    o.read_cost_per_byte = 0;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_OK, "%s", ebb_last_error());
    ebb_schedule_destroy(s);
}
