/* The validator's rules for tapes (EBB_ACT_TAPE): a tape runs one step from
 * the live state and holds its bytes until its reverse step, which then
 * needs no live state; a tape twice, past the budget, for a step reversed
 * already, of x_n or before n is known is refused. (Every tape is used by
 * then: a tape is only made for a step still to reverse, whose reverse
 * takes it.) */
#include "support/schedule_support.h"

static const uint64_t bytes[3] = {10, 20, 30}, tapes[3] = {5, 50, 7};

static ebb_validator *sized(int64_t steps, uint64_t budget)
{
    int32_t slots[EBB_TIER_COUNT] = {0, 4, 0};
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(steps, slots, &v), EBB_OK);
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_HOST, bytes, 3, budget), EBB_OK);
    cr_assert_eq(ebb_validator_set_tape_bytes(v, EBB_TIER_HOST, tapes, 3), EBB_OK);
    return v;
}

static ebb_action act(int32_t kind, int32_t slot, int64_t step, int64_t to)
{
    return (ebb_action){.kind = kind, .tier = (int16_t)(kind == EBB_ACT_STORE ||
                                                        kind == EBB_ACT_RESTORE ||
                                                        kind == EBB_ACT_FREE
                                                        ? EBB_TIER_HOST : 0),
                        .slot = slot, .step = step, .to = to};
}

static void expect_refused(ebb_validator *v, const ebb_action *a, size_t ok, const char *why)
{
    cr_assert_eq(ebb_validator_check(v, a, ok), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_validator_check(v, a + ok, 1), EBB_ERR_SCHEDULE);
    cr_assert(strstr(ebb_last_error(), why), "%s", ebb_last_error());
    ebb_validator_destroy(v);
}

/* store 0, tape 0, tape 1, tape 2, turn: every step runs once and is
 * reversed from its tape with no state live; the peak counts the tapes. */
Test(validator_tapes, every_step_taped)
{
    ebb_validator *v = sized(3, 10 + 5 + 50 + 7);
    ebb_action a[] = {act(EBB_ACT_STORE, 0, 0, 0), act(EBB_ACT_TAPE, 0, 0, 0),
                      act(EBB_ACT_TAPE, 0, 1, 0),  act(EBB_ACT_TAPE, 0, 2, 0),
                      act(EBB_ACT_TURN, 0, 3, 0),  act(EBB_ACT_REVERSE, 0, 2, 0),
                      act(EBB_ACT_REVERSE, 0, 1, 0), act(EBB_ACT_REVERSE, 0, 0, 0),
                      act(EBB_ACT_FREE, 0, 0, 0),  act(EBB_ACT_END, 0, 0, 0)};
    cr_assert_eq(ebb_validator_check(v, a, sizeof a / sizeof *a), EBB_OK, "%s",
                 ebb_last_error());
    cr_assert_eq(ebb_validator_finish(v), EBB_OK);
    ebb_schedule_stats st;
    cr_assert_eq(ebb_validator_stats(v, &st), EBB_OK);
    cr_assert_eq(st.forward_steps, 3);
    cr_assert_eq(st.reverse_steps, 3);
    uint64_t peak = 0;
    cr_assert_eq(ebb_validator_peak_bytes(v, EBB_TIER_HOST, &peak), EBB_OK);
    cr_assert_eq(peak, 72);
    ebb_validator_destroy(v);
}

Test(validator_tapes, a_tape_past_the_budget_is_refused)
{
    ebb_action a[] = {act(EBB_ACT_STORE, 0, 0, 0), act(EBB_ACT_TAPE, 0, 0, 0),
                      act(EBB_ACT_TAPE, 0, 1, 0)};
    expect_refused(sized(3, 64), a, 2, "step 1's tape (50 bytes) does not fit: host holds 15 "
                                       "of its 64 bytes");
}

Test(validator_tapes, a_tape_needs_its_step_live)
{
    ebb_action a[] = {act(EBB_ACT_TAPE, 0, 1, 0)};
    expect_refused(sized(3, 100), a, 0, "the live state is x_0, not x_1");
}

Test(validator_tapes, a_tape_held_twice_is_refused)
{
    ebb_action a[] = {act(EBB_ACT_STORE, 0, 0, 0), act(EBB_ACT_TAPE, 0, 0, 0),
                      act(EBB_ACT_RESTORE, 0, 0, 0), act(EBB_ACT_TAPE, 0, 0, 0)};
    expect_refused(sized(3, 100), a, 3, "step 0's tape is held already");
}

Test(validator_tapes, a_tape_of_a_reversed_step_is_refused)
{
    ebb_action a[] = {act(EBB_ACT_STORE, 0, 0, 0), act(EBB_ACT_ADVANCE, 0, 0, 2),
                      act(EBB_ACT_STORE, 1, 2, 0), act(EBB_ACT_ADVANCE, 0, 2, 3),
                      act(EBB_ACT_TURN, 0, 3, 0),  act(EBB_ACT_REVERSE, 0, 2, 0),
                      act(EBB_ACT_RESTORE, 1, 2, 0), act(EBB_ACT_TAPE, 0, 2, 0)};
    expect_refused(sized(3, 100), a, 7, "step 2 is reversed already");
}

Test(validator_tapes, x_n_has_no_step_to_tape)
{
    ebb_action a[] = {act(EBB_ACT_STORE, 0, 0, 0), act(EBB_ACT_ADVANCE, 0, 0, 3),
                      act(EBB_ACT_TAPE, 0, 3, 0)};
    expect_refused(sized(3, 100), a, 2, "x_n has no step after it to tape");
}

Test(validator_tapes, a_tape_needs_n_known)
{
    int32_t slots[EBB_TIER_COUNT] = {0, 4, 0};
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(0, slots, &v), EBB_OK);
    ebb_action a[] = {act(EBB_ACT_TAPE, 0, 0, 0)};
    expect_refused(v, a, 0, "a tape needs n known");
}

Test(validator_tapes, the_text_form_round_trips)
{
    ebb_action a = {0}, b = {0};
    cr_assert_eq(ebb_action_parse("tape 5\n", &a), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(a.kind, EBB_ACT_TAPE);
    cr_assert_eq(a.step, 5);
    char buf[64];
    ebb_action_format(&a, buf, sizeof buf);
    cr_assert_str_eq(buf, "tape 5");
    cr_assert_eq(ebb_action_parse(buf, &b), EBB_OK);
    cr_assert(memcmp(&a, &b, sizeof a) == 0);
}

Test(validator_tapes, tape_sizes_come_before_the_first_action)
{
    int32_t slots[EBB_TIER_COUNT] = {0, 4, 0};
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(3, slots, &v), EBB_OK);
    cr_assert_eq(ebb_validator_set_tape_bytes(v, (ebb_tier)9, tapes, 3), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "ebb_validator_set_tape_bytes: tier 9 is not a tier"),
              "%s", ebb_last_error());
    cr_assert_eq(ebb_validator_set_tape_bytes(v, EBB_TIER_HOST, NULL, 3), EBB_ERR_INVALID_ARG);
    ebb_action a = act(EBB_ACT_STORE, 0, 0, 0);
    cr_assert_eq(ebb_validator_check(v, &a, 1), EBB_OK);
    cr_assert_eq(ebb_validator_set_tape_bytes(v, EBB_TIER_HOST, tapes, 3), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "has seen 1 actions; set the sizes before the first"),
              "%s", ebb_last_error());
    ebb_validator_destroy(v);
}
