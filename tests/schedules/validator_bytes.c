/* A validator told the states' sizes refuses a stream whose stored states
 * pass a tier's budget in bytes, counts transfers in and out, and reports
 * the peak. */
#include "support/schedule_support.h"

static ebb_validator *sized(uint64_t budget)
{
    static const uint64_t bytes[4] = {100, 40, 300, 60};
    int32_t slots[EBB_TIER_COUNT] = {0, 4, 4};
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(4, slots, &v), EBB_OK);
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_HOST, bytes, 4, budget), EBB_OK);
    return v;
}

static ebb_action act(int32_t kind, int tier, int32_t slot, int64_t step, int64_t to)
{
    return (ebb_action){.kind = kind, .tier = (int16_t)tier, .slot = slot, .step = step, .to = to};
}

Test(validator_bytes, a_store_past_the_budget_is_refused)
{
    ebb_validator *v = sized(439);
    ebb_action a[] = {act(EBB_ACT_STORE, EBB_TIER_HOST, 0, 0, 0),
                      act(EBB_ACT_ADVANCE, 0, 0, 0, 1), act(EBB_ACT_STORE, EBB_TIER_HOST, 1, 1, 0),
                      act(EBB_ACT_ADVANCE, 0, 0, 1, 2), act(EBB_ACT_STORE, EBB_TIER_HOST, 2, 2, 0)};
    cr_assert_eq(ebb_validator_check(v, a, 4), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_validator_check(v, a + 4, 1), EBB_ERR_SCHEDULE);
    cr_assert(strstr(ebb_last_error(), "x_2 (300 bytes) does not fit: host holds 140 of its 439 "
                                       "bytes"), "%s", ebb_last_error());
    ebb_validator_destroy(v);
}

Test(validator_bytes, freed_and_moved_states_give_their_bytes_back)
{
    ebb_validator *v = sized(440);
    ebb_action a[] = {
        act(EBB_ACT_STORE, EBB_TIER_HOST, 0, 0, 0), act(EBB_ACT_ADVANCE, 0, 0, 0, 1),
        act(EBB_ACT_STORE, EBB_TIER_HOST, 1, 1, 0), act(EBB_ACT_ADVANCE, 0, 0, 1, 2),
        act(EBB_ACT_STORE, EBB_TIER_HOST, 2, 2, 0), /* 440 of 440 */
        {.kind = EBB_ACT_EVICT, .tier = EBB_TIER_HOST, .slot = 2, .tier_to = EBB_TIER_DISK,
         .slot_to = 0, .step = 2},                  /* 140: the disk is not sized */
        act(EBB_ACT_FREE, EBB_TIER_HOST, 1, 1, 0),  /* 100 */
        act(EBB_ACT_ADVANCE, 0, 0, 2, 3), act(EBB_ACT_STORE, EBB_TIER_HOST, 1, 3, 0),
        {.kind = EBB_ACT_PREFETCH, .tier = EBB_TIER_DISK, .slot = 0, .tier_to = EBB_TIER_HOST,
         .slot_to = 2, .step = 2}};                 /* 100 + 60 + 300 = 460: refused */
    size_t count = sizeof a / sizeof *a;
    cr_assert_eq(ebb_validator_check(v, a, count - 1), EBB_OK, "%s", ebb_last_error());
    uint64_t peak = 0;
    cr_assert_eq(ebb_validator_peak_bytes(v, EBB_TIER_HOST, &peak), EBB_OK);
    cr_assert_eq(peak, 440);
    cr_assert_eq(ebb_validator_check(v, a + count - 1, 1), EBB_ERR_SCHEDULE);
    cr_assert(strstr(ebb_last_error(), "host holds 160 of its 440 bytes"), "%s",
              ebb_last_error());
    ebb_validator_destroy(v);
}

Test(validator_bytes, sizes_come_before_the_first_action)
{
    int32_t slots[EBB_TIER_COUNT] = {0, 2, 0};
    uint64_t bytes[2] = {1, 1};
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(2, slots, &v), EBB_OK);
    ebb_action a = act(EBB_ACT_STORE, EBB_TIER_HOST, 0, 0, 0);
    cr_assert_eq(ebb_validator_check(v, &a, 1), EBB_OK);
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_HOST, bytes, 2, 10), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "set the sizes before the first"), "%s", ebb_last_error());
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_COUNT, bytes, 2, 10), EBB_ERR_INVALID_ARG);
    ebb_validator_destroy(v);
}
