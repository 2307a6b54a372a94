/* One test per rule of the replay validator (schedules/validator.c): a small
 * hand-made stream that breaks it, fed both as one batch (the fast loop sees
 * every action) and one action at a time. Each must be refused with
 * EBB_ERR_SCHEDULE at the expected action, and the message must name the rule.
 * The streams from the soundness review (a state revived from nothing, a FREE
 * of an empty slot hiding a leak...) are whole streams that the validator used
 * to accept to the end. */
#include <stdio.h>

#include "support/schedule_support.h"

#define A(K, ...) ((ebb_action){.kind = EBB_ACT_##K, __VA_ARGS__})
#define N(arr) (sizeof(arr) / sizeof *(arr))

enum { GPU = EBB_TIER_GPU, HOST = EBB_TIER_HOST, DISK = EBB_TIER_DISK };

/* 1 gpu slot, 4 host slots, 2 disk slots. */
static const int32_t budget[EBB_TIER_COUNT] = {1, 4, 2};

static void expect_message(const char *mode, size_t bad, const char *text)
{
    char where[48];
    snprintf(where, sizeof where, "invalid schedule: action %zu (", bad);
    const char *msg = ebb_last_error();
    cr_assert(strstr(msg, where) != NULL, "%s: '%s' does not name action %zu", mode, msg, bad);
    cr_assert(strstr(msg, text) != NULL, "%s: '%s' lacks '%s'", mode, msg, text);
}

/* Action `bad` of the n in `a` breaks the rule named by `text`; every action
 * before it is fine. Whatever follows it must not matter. */
static void expect_rule(int64_t steps, const ebb_action *a, size_t n, size_t bad, const char *text)
{
    cr_assert_lt(bad, n);
    /* One batch: the fast loop runs over the whole stream. */
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(steps, budget, &v), EBB_OK);
    cr_assert_eq(ebb_validator_check(v, a, n), EBB_ERR_SCHEDULE,
                 "batch: accepted a stream that breaks '%s'", text);
    expect_message("batch", bad, text);
    ebb_schedule_stats st;
    cr_assert_eq(ebb_validator_stats(v, &st), EBB_OK);
    cr_assert_eq(st.actions, (int64_t)bad + 1, "batch: stopped after %lld actions, not %zu",
                 (long long)st.actions, bad + 1);
    cr_assert_eq(ebb_validator_finish(v), EBB_ERR_SCHEDULE);
    ebb_validator_destroy(v);

    /* One action at a time: the state goes through the struct between calls. */
    cr_assert_eq(ebb_validator_create(steps, budget, &v), EBB_OK);
    for (size_t i = 0; i < bad; i++)
        cr_assert_eq(ebb_validator_check(v, &a[i], 1), EBB_OK, "one at a time: action %zu: %s", i,
                     ebb_last_error());
    cr_assert_eq(ebb_validator_check(v, &a[bad], 1), EBB_ERR_SCHEDULE,
                 "one at a time: accepted action %zu, which breaks '%s'", bad, text);
    expect_message("one at a time", bad, text);
    ebb_validator_destroy(v);
}

/* The last action breaks the rule. */
#define EXPECT_LAST(steps, arr, text) expect_rule(steps, arr, N(arr), N(arr) - 1, text)

/* ---- the review's streams: each was accepted to its END ------------------ */

Test(validator_rules, review_advance_revives_a_state_from_nothing)
{
    /* After REVERSE(2) the live state is undefined (NONE = -1); ADVANCE(-1 ->
     * 1) matched it and "recomputed" x_1 without any checkpoint. */
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 3), A(TURN, .step = 3), A(REVERSE, .step = 2),
                            A(ADVANCE, .step = -1, .to = 1), A(REVERSE, .step = 1),
                            A(ADVANCE, .step = -1, .to = 0), A(REVERSE, .step = 0), A(END)};
    expect_rule(3, a, N(a), 3, "step -1 is outside 0 .. n = 3");
    expect_rule(0, a, N(a), 3, "step -1 is outside 0 .. n = 3"); /* n learnt at the turn */
}

Test(validator_rules, review_free_of_an_empty_slot_hides_a_leak)
{
    /* host[0] keeps x_0 to the end; FREE(-1) of the empty host[1] lowered the
     * in-use count to 0, so END passed. */
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(ADVANCE, .step = 0, .to = 1), A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(FREE, .tier = HOST, .slot = 1, .step = -1), A(END)};
    expect_rule(1, a, N(a), 4, "step -1 is outside 0 .. n = 1");
    /* The same with n unknown while the stream runs: refused as soon as it is seen. */
    const ebb_action b[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(FREE, .tier = HOST, .slot = 1, .step = -1),
                            A(ADVANCE, .step = 0, .to = 1), A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(END)};
    expect_rule(0, b, N(b), 1, "step -1 is negative");
}

Test(validator_rules, review_restore_of_step_minus_1)
{
    /* The fast loop compared the empty slot's marker (-1) with the step. */
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2), A(REVERSE, .step = 1),
                            A(RESTORE, .tier = HOST, .slot = 2, .step = -1)};
    EXPECT_LAST(2, a, "step -1 is outside 0 .. n = 2");
}

Test(validator_rules, review_store_of_step_minus_1_after_a_reverse)
{
    /* The live state (-1) "equalled" the step; the slot stayed marked empty
     * but counted as used. */
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2), A(REVERSE, .step = 1),
                            A(STORE, .tier = HOST, .slot = 0, .step = -1)};
    EXPECT_LAST(2, a, "step -1 is outside 0 .. n = 2");
}

Test(validator_rules, review_evict_of_an_empty_slot_moves_a_leak_between_tiers)
{
    /* EVICT(-1) from the empty host[1] lowered the host count (x_0 leaks in
     * host[0]); FREE(-1) then emptied the disk slot it "filled". */
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(ADVANCE, .step = 0, .to = 1),
                            A(TURN, .step = 1),
                            A(REVERSE, .step = 0),
                            A(EVICT, .tier = HOST, .slot = 1, .tier_to = DISK, .slot_to = 0, .step = -1),
                            A(FREE, .tier = DISK, .slot = 0, .step = -1),
                            A(END)};
    expect_rule(1, a, N(a), 4, "step -1 is outside 0 .. n = 1");
}

Test(validator_rules, review_reverse_of_step_minus_1_after_step_0)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 1), A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(REVERSE, .step = -1)};
    EXPECT_LAST(1, a, "step -1 is outside 0 .. n = 1");
}

/* ---- every step names x_0 .. x_n ---------------------------------------- */

Test(validator_rules, step_above_n)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 4)};
    EXPECT_LAST(3, a, "step 4 is outside 0 .. n = 3");
}

Test(validator_rules, negative_step_while_n_is_unknown)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 5),
                            A(RESTORE, .tier = HOST, .slot = 3, .step = -1)};
    EXPECT_LAST(0, a, "step -1 is negative");
}

/* ---- the stream's order ------------------------------------------------- */

Test(validator_rules, nothing_after_end)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 1), A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(END), A(END)};
    EXPECT_LAST(1, a, "the stream already ended");
    /* x_0 is live after END: a STORE of it would pass every other rule. */
    const ebb_action b[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),  A(ADVANCE, .step = 0, .to = 1),
                            A(TURN, .step = 1),
                            A(REVERSE, .step = 0),
                            A(RESTORE, .tier = HOST, .slot = 0, .step = 0),
                            A(FREE, .tier = HOST, .slot = 0, .step = 0),
                            A(END),
                            A(STORE, .tier = HOST, .slot = 1, .step = 0)};
    EXPECT_LAST(1, b, "the stream already ended");
}

Test(validator_rules, unknown_action_kind)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 1), {.kind = 42}};
    EXPECT_LAST(1, a, "unknown action kind 42");
}

/* ---- ADVANCE ------------------------------------------------------------ */

Test(validator_rules, advance_from_a_state_not_live)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(ADVANCE, .step = 1, .to = 3)};
    EXPECT_LAST(9, a, "the live state is x_2, not x_1");
}

Test(validator_rules, advance_from_the_undefined_state_after_a_reverse)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 3),
                            A(TURN, .step = 3), A(REVERSE, .step = 2), A(ADVANCE, .step = 0, .to = 1)};
    EXPECT_LAST(3, a, "the live state is undefined (after a reverse step), not x_0");
}

Test(validator_rules, advance_of_no_step)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(ADVANCE, .step = 2, .to = 2)};
    EXPECT_LAST(9, a, "an advance must run at least one step");
    const ebb_action b[] = {A(ADVANCE, .step = 0, .to = -3)};
    EXPECT_LAST(9, b, "an advance must run at least one step");
}

Test(validator_rules, advance_past_n)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 4), A(ADVANCE, .step = 4, .to = 10)};
    EXPECT_LAST(9, a, "advances past x_n, n = 9");
}

Test(validator_rules, advance_past_the_state_the_next_reverse_needs)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 4),
                            A(TURN, .step = 4), A(REVERSE, .step = 3),
                            A(RESTORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 3)};
    EXPECT_LAST(4, a, "advances past x_2, the state the next reverse step needs");
}

Test(validator_rules, advance_once_every_step_is_reversed)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(RESTORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 1)};
    EXPECT_LAST(1, a, "every step is reversed already");
}

Test(validator_rules, advance_overflows_the_forward_count)
{
    /* n unknown: nothing bounds one advance, but the count must not wrap. */
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(ADVANCE, .step = 0, .to = INT64_MAX),
                            A(RESTORE, .tier = HOST, .slot = 0, .step = 0),
                            A(ADVANCE, .step = 0, .to = 1)};
    EXPECT_LAST(0, a, "the forward step count overflows 64 bits");
}

/* ---- TURN --------------------------------------------------------------- */

Test(validator_rules, turn_twice)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 3), A(TURN, .step = 3), A(TURN, .step = 3)};
    EXPECT_LAST(3, a, "the forward sweep already turned");
}

Test(validator_rules, turn_not_right_after_the_advance)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 3), A(STORE, .tier = HOST, .slot = 0, .step = 3),
                            A(TURN, .step = 3)};
    EXPECT_LAST(3, a, "a turn must follow the advance that reached x_3");
    const ebb_action b[] = {A(TURN, .step = 0)};
    EXPECT_LAST(0, b, "a turn must follow the advance that reached x_0");
}

Test(validator_rules, turn_before_x_n)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2)};
    EXPECT_LAST(3, a, "the forward sweep must end at x_n, n = 3");
}

Test(validator_rules, turn_behind_a_state_already_reached)
{
    /* n unknown: the sweep went to x_10, then turns at x_5. */
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 10),
                            A(RESTORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 5),
                            A(TURN, .step = 5)};
    EXPECT_LAST(0, a, "the forward sweep already reached x_10, past x_n");
}

/* ---- slots -------------------------------------------------------------- */

Test(validator_rules, tier_that_does_not_exist)
{
    const ebb_action a[] = {A(STORE, .tier = 7, .slot = 0, .step = 0)};
    EXPECT_LAST(9, a, "tier 7 does not exist");
    const ebb_action b[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(PREFETCH, .tier = HOST, .slot = 0, .tier_to = -1, .slot_to = 0, .step = 0)};
    EXPECT_LAST(9, b, "tier -1 does not exist");
}

Test(validator_rules, slot_outside_the_budget)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 4, .step = 0)};
    EXPECT_LAST(9, a, "slot 4 is outside the 4 host slots");
    const ebb_action b[] = {A(RESTORE, .tier = DISK, .slot = -1, .step = 0)};
    EXPECT_LAST(9, b, "slot -1 is outside the 2 disk slots");
    const ebb_action c[] = {A(STORE, .tier = GPU, .slot = 1, .step = 0)};
    EXPECT_LAST(9, c, "slot 1 is outside the 1 gpu slots");
}

/* ---- STORE -------------------------------------------------------------- */

Test(validator_rules, store_of_a_state_not_live)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(STORE, .tier = HOST, .slot = 0, .step = 1)};
    EXPECT_LAST(9, a, "the live state is x_2");
    const ebb_action b[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2), A(REVERSE, .step = 1),
                            A(STORE, .tier = HOST, .slot = 0, .step = 1)};
    EXPECT_LAST(2, b, "the live state is undefined (after a reverse step)");
}

Test(validator_rules, store_into_an_occupied_slot)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 1, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(STORE, .tier = HOST, .slot = 1, .step = 1)};
    EXPECT_LAST(9, a, "the slot still holds x_0");
}

/* ---- RESTORE ------------------------------------------------------------ */

Test(validator_rules, restore_from_an_empty_slot)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(RESTORE, .tier = HOST, .slot = 1, .step = 0)};
    EXPECT_LAST(9, a, "the slot is empty");
}

Test(validator_rules, restore_of_a_state_the_slot_does_not_hold)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 4),
                            A(RESTORE, .tier = HOST, .slot = 0, .step = 4)};
    EXPECT_LAST(9, a, "the slot holds x_0");
}

/* ---- FREE --------------------------------------------------------------- */

Test(validator_rules, free_of_an_empty_slot)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 1), A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(FREE, .tier = HOST, .slot = 1, .step = 0)};
    EXPECT_LAST(1, a, "the slot is empty");
}

Test(validator_rules, free_of_a_state_the_slot_does_not_hold)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(FREE, .tier = HOST, .slot = 0, .step = 1)};
    EXPECT_LAST(9, a, "the slot holds x_0, not x_1");
}

/* ---- PREFETCH / EVICT --------------------------------------------------- */

Test(validator_rules, transfer_from_an_empty_slot)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(PREFETCH, .tier = HOST, .slot = 1, .tier_to = DISK, .slot_to = 0, .step = 0)};
    EXPECT_LAST(9, a, "the source slot is empty");
    const ebb_action b[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(EVICT, .tier = DISK, .slot = 0, .tier_to = HOST, .slot_to = 1, .step = 0)};
    EXPECT_LAST(9, b, "the source slot is empty");
}

Test(validator_rules, transfer_of_a_state_the_source_does_not_hold)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(EVICT, .tier = HOST, .slot = 0, .tier_to = DISK, .slot_to = 1, .step = 1)};
    EXPECT_LAST(9, a, "the source slot holds x_0, not x_1");
}

Test(validator_rules, transfer_into_an_occupied_slot)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(STORE, .tier = DISK, .slot = 1, .step = 1),
                            A(PREFETCH, .tier = HOST, .slot = 0, .tier_to = DISK, .slot_to = 1, .step = 0)};
    EXPECT_LAST(9, a, "the destination slot still holds x_1");
    /* A slot onto itself: the destination is the source, which is not empty. */
    const ebb_action b[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0),
                            A(EVICT, .tier = HOST, .slot = 0, .tier_to = HOST, .slot_to = 0, .step = 0)};
    EXPECT_LAST(9, b, "the destination slot still holds x_0");
}

/* ---- REVERSE ------------------------------------------------------------ */

Test(validator_rules, reverse_before_the_turn)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(REVERSE, .step = 2)};
    EXPECT_LAST(2, a, "reverse before the forward sweep turned");
}

Test(validator_rules, reverse_once_every_step_is_reversed)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(TURN, .step = 1), A(REVERSE, .step = 0),
                            A(RESTORE, .tier = HOST, .slot = 0, .step = 0), A(REVERSE, .step = 0)};
    EXPECT_LAST(1, a, "every step is reversed already");
}

Test(validator_rules, reverse_out_of_order)
{
    const ebb_action a[] = {A(STORE, .tier = HOST, .slot = 0, .step = 0), A(ADVANCE, .step = 0, .to = 2),
                            A(TURN, .step = 2), A(RESTORE, .tier = HOST, .slot = 0, .step = 0),
                            A(REVERSE, .step = 0)};
    EXPECT_LAST(2, a, "the next step to reverse is 1");
}

Test(validator_rules, reverse_without_its_state_live)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2), A(REVERSE, .step = 1),
                            A(REVERSE, .step = 0)};
    EXPECT_LAST(2, a, "the live state is undefined (after a reverse step)");
}

/* ---- END ---------------------------------------------------------------- */

Test(validator_rules, end_before_every_step_is_reversed)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 3), A(TURN, .step = 3), A(REVERSE, .step = 2),
                            A(END)};
    EXPECT_LAST(3, a, "steps 1 .. 0 are not reversed yet");
    const ebb_action b[] = {A(ADVANCE, .step = 0, .to = 2), A(END)};
    EXPECT_LAST(2, b, "steps 1 .. 0 are not reversed yet");
}

Test(validator_rules, end_before_an_unknown_n_turned)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(END)};
    EXPECT_LAST(0, a, "the forward sweep never turned, so no step is reversed yet");
}

Test(validator_rules, end_with_slots_still_held)
{
    const ebb_action a[] = {A(STORE, .tier = DISK, .slot = 1, .step = 0), A(ADVANCE, .step = 0, .to = 1),
                            A(TURN, .step = 1), A(REVERSE, .step = 0), A(END)};
    EXPECT_LAST(1, a, "1 disk slots still hold states");
}

/* ---- ebb_validator_finish ----------------------------------------------- */

static void expect_unfinished(int64_t steps, const ebb_action *a, size_t n, const char *text)
{
    for (int mode = 0; mode < 2; mode++) {
        ebb_validator *v = NULL;
        cr_assert_eq(ebb_validator_create(steps, budget, &v), EBB_OK);
        if (mode == 0)
            cr_assert_eq(ebb_validator_check(v, a, n), EBB_OK, "%s", ebb_last_error());
        else
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(ebb_validator_check(v, &a[i], 1), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_validator_finish(v), EBB_ERR_SCHEDULE);
        cr_assert(strstr(ebb_last_error(), text) != NULL, "'%s' lacks '%s'", ebb_last_error(), text);
        ebb_validator_destroy(v);
    }
}

Test(validator_rules, stream_without_end)
{
    const ebb_action a[] = {A(ADVANCE, .step = 0, .to = 2), A(TURN, .step = 2), A(REVERSE, .step = 1)};
    expect_unfinished(2, a, N(a), "the stream stopped after 3 actions without END (1 of 2 steps");
    expect_unfinished(0, a, N(a), "the stream stopped after 3 actions without END (1 of 2 steps");
    const ebb_action b[] = {A(ADVANCE, .step = 0, .to = 2)};
    expect_unfinished(0, b, N(b), "without END (the forward sweep never turned");
}

/* ---- and what the rules must still let through -------------------------- */

Test(validator_rules, accepts_a_stream_whose_n_is_learnt_at_the_turn)
{
    const ebb_action ok[] = {
        A(STORE, .tier = HOST, .slot = 0, .step = 0),
        A(ADVANCE, .step = 0, .to = 2),
        A(STORE, .tier = DISK, .slot = 0, .step = 2),
        A(ADVANCE, .step = 2, .to = 4),
        A(TURN, .step = 4),
        A(REVERSE, .step = 3),
        A(PREFETCH, .tier = DISK, .slot = 0, .tier_to = GPU, .slot_to = 0, .step = 2),
        A(FREE, .tier = DISK, .slot = 0, .step = 2),
        A(RESTORE, .tier = GPU, .slot = 0, .step = 2),
        A(REVERSE, .step = 2),
        A(FREE, .tier = GPU, .slot = 0, .step = 2),
        A(RESTORE, .tier = HOST, .slot = 0, .step = 0),
        A(ADVANCE, .step = 0, .to = 1),
        A(REVERSE, .step = 1),
        A(RESTORE, .tier = HOST, .slot = 0, .step = 0),
        A(REVERSE, .step = 0),
        A(FREE, .tier = HOST, .slot = 0, .step = 0),
        A(END),
    };
    for (int64_t steps = 0; steps <= 4; steps += 4) {
        for (int mode = 0; mode < 2; mode++) {
            ebb_validator *v = NULL;
            cr_assert_eq(ebb_validator_create(steps, budget, &v), EBB_OK);
            for (size_t i = 0; i < N(ok); i += mode ? 1 : N(ok))
                cr_assert_eq(ebb_validator_check(v, &ok[i], mode ? 1 : N(ok)), EBB_OK, "%s",
                             ebb_last_error());
            cr_assert_eq(ebb_validator_finish(v), EBB_OK, "%s", ebb_last_error());
            ebb_schedule_stats st;
            ebb_validator_stats(v, &st);
            cr_assert_eq(st.steps, 4);
            cr_assert_eq(st.forward_steps, 5);
            cr_assert_eq(st.reverse_steps, 4);
            cr_assert_eq(st.actions, (int64_t)N(ok));
            cr_assert_eq(st.peak_slots[GPU], 1);
            cr_assert_eq(st.peak_slots[DISK], 1);
            ebb_validator_destroy(v);
        }
    }
}
