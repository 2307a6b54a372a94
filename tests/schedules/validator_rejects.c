/* The validator refuses each kind of broken stream and says why. */
#include "support/schedule_support.h"

#define A(K, ...) ((ebb_action){.kind = EBB_ACT_##K, __VA_ARGS__})

static const int32_t host4[EBB_TIER_COUNT] = {0, 4, 2};

/* Replays `n` actions for `steps` steps; returns the status, message in ebb_last_error. */
static ebb_status replay(int64_t steps, const ebb_action *a, size_t n)
{
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(steps, host4, &v), EBB_OK);
    ebb_status s = ebb_validator_check(v, a, n);
    if (s == EBB_OK)
        s = ebb_validator_finish(v);
    ebb_validator_destroy(v);
    return s;
}

static void expect_refusal(int64_t steps, const ebb_action *a, size_t n, const char *text)
{
    cr_assert_eq(replay(steps, a, n), EBB_ERR_SCHEDULE, "accepted a stream that should fail with '%s'",
                 text);
    cr_assert(strstr(ebb_last_error(), text) != NULL, "message '%s' lacks '%s'", ebb_last_error(),
              text);
}

#define N(arr) (sizeof(arr) / sizeof *(arr))

Test(validator, accepts_a_correct_hand_written_stream)
{
    const ebb_action ok[] = {
        A(STORE, .tier = EBB_TIER_HOST, .slot = 0, .step = 0),
        A(ADVANCE, .step = 0, .to = 3),
        A(TURN, .step = 3),
        A(REVERSE, .step = 2),
        A(RESTORE, .tier = EBB_TIER_HOST, .slot = 0, .step = 0),
        A(ADVANCE, .step = 0, .to = 1),
        A(REVERSE, .step = 1),
        A(RESTORE, .tier = EBB_TIER_HOST, .slot = 0, .step = 0),
        A(REVERSE, .step = 0),
        A(FREE, .tier = EBB_TIER_HOST, .slot = 0, .step = 0),
        A(END),
    };
    cr_assert_eq(replay(3, ok, N(ok)), EBB_OK, "%s", ebb_last_error());
}

Test(validator, reverse_sees_the_wrong_state)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2), A(REVERSE, .step = 1),
                            A(REVERSE, .step = 0)};
    expect_refusal(2, a, N(a), "action 3 (reverse 0): the live state is undefined");
}

Test(validator, reverse_out_of_order)
{
    const ebb_action a[] = {A(STORE, .tier = 1, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 2),
                            A(TURN, .step = 2), A(RESTORE, .tier = 1, .slot = 0, .step = 0),
                            A(REVERSE, .step = 0)};
    expect_refusal(2, a, N(a), "the next step to reverse is 1");
}

Test(validator, restore_from_an_empty_slot)
{
    const ebb_action a[] = {A(RESTORE, .tier = 1, .slot = 2, .step = 0)};
    expect_refusal(2, a, N(a), "the slot is empty");
}

Test(validator, restore_of_the_wrong_state)
{
    const ebb_action a[] = {A(STORE, .tier = 1, .slot = 0, .step = 0),
                            A(RESTORE, .tier = 1, .slot = 0, .step = 5)};
    expect_refusal(9, a, N(a), "the slot holds x_0");
}

Test(validator, store_over_an_occupied_slot)
{
    const ebb_action a[] = {A(STORE, .tier = 1, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(STORE, .tier = 1, .slot = 0, .step = 1)};
    expect_refusal(9, a, N(a), "the slot still holds x_0");
}

Test(validator, store_beyond_the_tier_budget)
{
    const ebb_action a[] = {A(STORE, .tier = 1, .slot = 4, .step = 0)};
    expect_refusal(9, a, N(a), "slot 4 is outside the 4 host slots");
    const ebb_action b[] = {A(STORE, .tier = 0, .slot = 0, .step = 0)};
    expect_refusal(9, b, N(b), "outside the 0 gpu slots");
    const ebb_action c[] = {A(STORE, .tier = 7, .slot = 0, .step = 0)};
    expect_refusal(9, c, N(c), "tier 7 does not exist");
}

Test(validator, store_of_a_state_not_live)
{
    const ebb_action a[] = {A(STORE, .tier = 1, .slot = 0, .step = 3)};
    expect_refusal(9, a, N(a), "the live state is x_0");
}

Test(validator, advance_from_the_wrong_state_or_past_n)
{
    const ebb_action a[] = {A(ADVANCE, .step = 1, .to = 2)};
    expect_refusal(9, a, N(a), "the live state is x_0, not x_1");
    const ebb_action b[] = {A(ADVANCE, .step = 0, .to = 10)};
    expect_refusal(9, b, N(b), "advances past x_n, n = 9");
    const ebb_action c[] = {A(ADVANCE, .step = 0, .to = 0)};
    expect_refusal(9, c, N(c), "at least one step");
}

Test(validator, advance_past_the_state_to_reverse)
{
    const ebb_action a[] = {A(STORE, .tier = 1, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 3),
                            A(TURN, .step = 3), A(REVERSE, .step = 2),
                            A(RESTORE, .tier = 1, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 2)};
    expect_refusal(3, a, N(a), "advances past x_1");
}

Test(validator, turn_rules)
{
    const ebb_action a[] = {A(TURN, .step = 0)};
    expect_refusal(3, a, N(a), "a turn must follow the advance");
    const ebb_action b[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2)};
    expect_refusal(3, b, N(b), "must end at x_n, n = 3");
    const ebb_action c[] = {A(ADVANCE, .step = 0, .to = 3), A(TURN, .step = 3), A(TURN, .step = 3)};
    expect_refusal(3, c, N(c), "already turned");
    const ebb_action d[] = {A(REVERSE, .step = 0)};
    expect_refusal(1, d, N(d), "reverse before the forward sweep turned");
}

Test(validator, end_too_early_or_with_slots_held)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2), A(REVERSE, .step = 1),
                            A(END)};
    expect_refusal(2, a, N(a), "steps 0 .. 0 are not reversed yet");
    const ebb_action b[] = {A(STORE, .tier = 1, .slot = 1, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(TURN, .step = 1), A(REVERSE, .step = 0), A(END)};
    expect_refusal(1, b, N(b), "1 host slots still hold states");
    const ebb_action c[] = {A(ADVANCE, .step = 0, .to = 1), A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(END), A(END)};
    expect_refusal(1, c, N(c), "the stream already ended");
}

Test(validator, stream_without_end)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 1), A(TURN, .step = 1), A(REVERSE, .step = 0)};
    cr_assert_eq(replay(1, a, N(a)), EBB_ERR_SCHEDULE);
    cr_assert(strstr(ebb_last_error(), "without END") != NULL, "%s", ebb_last_error());
}

Test(validator, transfers_between_tiers)
{
    const ebb_action ok[] = {
        A(STORE, .tier = 1, .slot = 0, .step = 0),
        A(EVICT, .tier = 1, .slot = 0, .tier_to = 2, .slot_to = 1, .step = 0),
        A(ADVANCE, .step = 0, .to = 2),
        A(TURN, .step = 2),
        A(REVERSE, .step = 1),
        A(PREFETCH, .tier = 2, .slot = 1, .tier_to = 1, .slot_to = 3, .step = 0),
        A(FREE, .tier = 2, .slot = 1, .step = 0),
        A(RESTORE, .tier = 1, .slot = 3, .step = 0),
        A(REVERSE, .step = 0),
        A(FREE, .tier = 1, .slot = 3, .step = 0),
        A(END),
    };
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(2, host4, &v), EBB_OK);
    cr_assert_eq(ebb_validator_check(v, ok, N(ok)), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_validator_finish(v), EBB_OK);
    ebb_schedule_stats st;
    ebb_validator_stats(v, &st);
    cr_assert_eq(st.transfers_in[EBB_TIER_DISK], 1);
    cr_assert_eq(st.transfers_out[EBB_TIER_DISK], 1);
    cr_assert_eq(st.peak_slots[EBB_TIER_DISK], 1);
    cr_assert_eq(st.forward_steps, 2);
    ebb_validator_destroy(v);

    const ebb_action bad[] = {A(STORE, .tier = 1, .slot = 0, .step = 0),
                              A(EVICT, .tier = 1, .slot = 0, .tier_to = 2, .slot_to = 1, .step = 0),
                              A(RESTORE, .tier = 1, .slot = 0, .step = 0)};
    expect_refusal(2, bad, N(bad), "the slot is empty");
}

Test(validator, refuses_everything_after_a_failure)
{
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(3, host4, &v), EBB_OK);
    const ebb_action bad[] = {A(REVERSE, .step = 2)};
    const ebb_action fine[] = {A(ADVANCE, .step = 0, .to = 1)};
    cr_assert_eq(ebb_validator_check(v, bad, 1), EBB_ERR_SCHEDULE);
    cr_assert_eq(ebb_validator_check(v, fine, 1), EBB_ERR_SCHEDULE);
    cr_assert(strstr(ebb_last_error(), "reverse before") != NULL, "%s", ebb_last_error());
    ebb_validator_destroy(v);
    const int32_t neg[EBB_TIER_COUNT] = {0, -1, 0};
    cr_assert_eq(ebb_validator_create(3, neg, &v), EBB_ERR_INVALID_ARG);
}
