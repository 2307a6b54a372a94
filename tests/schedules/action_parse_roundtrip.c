/* ebb_action_parse reads back what ebb_action_format writes: for every
 * strategy and a few hundred random (n, C, D) cases, each action of the
 * schedule is formatted, parsed back to the same action, and the parsed stream
 * replayed through a second validator gives the same counts. And lines that
 * are not actions are refused with a message saying what is wrong. */
#include <stdio.h>

#include "support/schedule_support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

typedef struct {
    ebb_validator *v;
    int64_t actions;
} reparse;

/* The visitor: every validated batch goes through text and back. */
static ebb_status through_text(void *user, const ebb_action *a, size_t n)
{
    reparse *r = user;
    ebb_action back[256];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char line[128];
        int len = ebb_action_format(&a[i], line, sizeof line);
        cr_assert(len > 0 && (size_t)len < sizeof line, "action %lld: format gave %d",
                  (long long)(r->actions + (int64_t)i), len);
        cr_assert_eq(ebb_action_parse(line, &back[k]), EBB_OK, "'%s': %s", line, ebb_last_error());
        cr_assert(memcmp(&back[k], &a[i], sizeof a[i]) == 0, "'%s' parsed back to another action",
                  line);
        if (++k == COUNT(back) || i + 1 == n) {
            ebb_status st = ebb_validator_check(r->v, back, k);
            cr_assert_eq(st, EBB_OK, "the parsed stream: %s", ebb_last_error());
            k = 0;
        }
    }
    r->actions += (int64_t)n;
    return EBB_OK;
}

static void roundtrip(const ebb_schedule_options *o)
{
    ebb_schedule *probe = NULL;
    cr_assert_eq(ebb_schedule_create(o, &probe), EBB_OK, "%s", ebb_last_error());
    int32_t slots[EBB_TIER_COUNT];
    cr_assert_eq(ebb_schedule_tier_slots(probe, slots), EBB_OK);
    ebb_schedule_destroy(probe);

    reparse r = {NULL, 0};
    int online = o->strategy == EBB_STRATEGY_ONLINE;
    cr_assert_eq(ebb_validator_create(online ? 0 : o->steps, slots, &r.v), EBB_OK);
    ebb_schedule_stats want;
    memset(&want, 0, sizeof want);
    cr_assert_eq(ebb_schedule_replay(o, &want, through_text, &r), EBB_OK, "%s n=%lld C=%d D=%d: %s",
                 ebb_strategy_name(o->strategy), (long long)o->steps, o->slots, o->disk_slots,
                 ebb_last_error());
    cr_assert_eq(ebb_validator_finish(r.v), EBB_OK, "%s", ebb_last_error());
    ebb_schedule_stats got;
    cr_assert_eq(ebb_validator_stats(r.v, &got), EBB_OK);
    ebb_validator_destroy(r.v);
    cr_assert(memcmp(&got, &want, sizeof got) == 0,
              "%s n=%lld C=%d D=%d: the parsed stream counts differently (%lld actions, %lld "
              "forward vs %lld, %lld)",
              ebb_strategy_name(o->strategy), (long long)o->steps, o->slots, o->disk_slots,
              (long long)got.actions, (long long)got.forward_steps, (long long)want.actions,
              (long long)want.forward_steps);
    cr_assert_eq(r.actions, want.actions);
}

/* A random valid case of `strategy`. */
static ebb_schedule_options random_case(ebb_strategy strategy, uint64_t *seed)
{
    int64_t n = rng_range(seed, 1, 600);
    ebb_schedule_options o = opts(strategy, n, (int32_t)rng_range(seed, 1, 12));
    switch (strategy) {
    case EBB_STRATEGY_STORE_ALL: o.slots = (int32_t)(n > 1 ? n - 1 : 1); break;
    case EBB_STRATEGY_PERIODIC:
        o.slots = 100000;
        o.period = rng_range(seed, 1, n + 1);
        break;
    case EBB_STRATEGY_MULTISTAGE: o.disk_slots = (int32_t)rng_range(seed, 0, 8); break;
    case EBB_STRATEGY_H_REVOLVE:
        o.disk_slots = (int32_t)rng_range(seed, 0, 8);
        o.write_cost = (double)rng_range(seed, 0, 20) / 4.0;
        o.read_cost = (double)rng_range(seed, 0, 20) / 4.0;
        break;
    case EBB_STRATEGY_DISK_REVOLVE:
        if (rng_next(seed) % 2)
            o.period = rng_range(seed, 1, 80);
        else
            o.io_ratio = (double)rng_range(seed, 1, 4000) / 100.0;
        break;
    default: break;
    }
    return o;
}

Test(action_parse_roundtrip, every_strategy_through_text, .timeout = 300)
{
    uint64_t seed = 2024;
    int cases = 0;
    for (int s = 0; s < EBB_STRATEGY_COUNT; s++) {
        /* The smallest problems, then random ones. */
        for (int64_t n = 1; n <= 3; n++) {
            ebb_schedule_options o = random_case((ebb_strategy)s, &seed);
            o.steps = n;
            if (s == EBB_STRATEGY_STORE_ALL)
                o.slots = (int32_t)(n > 1 ? n - 1 : 1);
            if (s == EBB_STRATEGY_PERIODIC)
                o.period = 1;
            roundtrip(&o);
            cases++;
        }
        for (int i = 0; i < 60; i++) {
            ebb_schedule_options o = random_case((ebb_strategy)s, &seed);
            roundtrip(&o);
            cases++;
        }
    }
    cr_assert_geq(cases, 300);
}

Test(action_parse_roundtrip, every_kind_and_tier_and_extreme_numbers)
{
    const ebb_action all[] = {
        {.kind = EBB_ACT_ADVANCE, .step = 0, .to = INT64_MAX},
        {.kind = EBB_ACT_ADVANCE, .step = -1, .to = INT64_MIN},
        {.kind = EBB_ACT_STORE, .tier = EBB_TIER_GPU, .slot = INT32_MAX, .step = 12},
        {.kind = EBB_ACT_RESTORE, .tier = EBB_TIER_HOST, .slot = 0, .step = 9000000000000},
        {.kind = EBB_ACT_FREE, .tier = EBB_TIER_DISK, .slot = -3, .step = -1},
        {.kind = EBB_ACT_PREFETCH, .tier = EBB_TIER_DISK, .slot = 1, .tier_to = EBB_TIER_GPU,
         .slot_to = 7, .step = 3},
        {.kind = EBB_ACT_EVICT, .tier = EBB_TIER_GPU, .slot = 2, .tier_to = EBB_TIER_DISK,
         .slot_to = INT32_MIN, .step = 4},
        {.kind = EBB_ACT_TURN, .step = 8},
        {.kind = EBB_ACT_REVERSE, .step = 7},
        {.kind = EBB_ACT_END},
    };
    for (size_t i = 0; i < COUNT(all); i++) {
        char line[128];
        ebb_action_format(&all[i], line, sizeof line);
        ebb_action back;
        cr_assert_eq(ebb_action_parse(line, &back), EBB_OK, "'%s': %s", line, ebb_last_error());
        cr_assert(memcmp(&back, &all[i], sizeof back) == 0, "'%s' parsed back to another action",
                  line);
    }
}

Test(action_parse_roundtrip, blanks_and_line_ends_are_allowed)
{
    const char *lines[] = {"  restore 2 host[1]\n", "restore\t2\thost[1]\r\n", "restore 2 host [ 1 ] ",
                           "restore 2 host[1]"};
    for (size_t i = 0; i < COUNT(lines); i++) {
        ebb_action a;
        cr_assert_eq(ebb_action_parse(lines[i], &a), EBB_OK, "'%s': %s", lines[i], ebb_last_error());
        cr_assert_eq(a.kind, EBB_ACT_RESTORE);
        cr_assert_eq(a.step, 2);
        cr_assert_eq(a.tier, EBB_TIER_HOST);
        cr_assert_eq(a.slot, 1);
    }
    ebb_action a;
    cr_assert_eq(ebb_action_parse("advance 3->9", &a), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(a.step, 3);
    cr_assert_eq(a.to, 9);
}

static void expect_bad(const char *line, const char *text)
{
    ebb_action a;
    a.kind = 99;
    cr_assert_eq(ebb_action_parse(line, &a), EBB_ERR_INVALID_ARG, "'%s' parsed", line);
    cr_assert(strstr(ebb_last_error(), text) != NULL, "'%s': '%s' lacks '%s'", line,
              ebb_last_error(), text);
}

Test(action_parse_roundtrip, lines_that_are_not_actions_say_why)
{
    expect_bad("", "the line is empty");
    expect_bad("  \n", "the line is empty");
    expect_bad("xyz", "unknown action 'xyz': expected advance, store, restore");
    expect_bad("store3 host[0]", "unknown action 'store3");
    expect_bad("?", "unknown action '?'");
    expect_bad("restore", "expected the step (a decimal number), got the end of the line");
    expect_bad("restore two host[1]", "expected the step (a decimal number), got 'two'");
    expect_bad("restore 2x host[1]", "got '2x'");
    expect_bad("restore 2 ssd[1]", "tier gpu, host or disk (e.g. host[0]), got 'ssd[1]'");
    expect_bad("restore 2 host", "expected '[' after the tier 'host' of the slot, got the end");
    expect_bad("restore 2 host[x]", "expected the slot index (a decimal number), got 'x]'");
    expect_bad("restore 2 host[1", "expected ']' after the slot index of the slot");
    expect_bad("restore 2 host[5000000000]", "the slot index 5000000000 does not fit in 32 bits");
    expect_bad("reverse 99999999999999999999", "the step 99999999999999999999 does not fit in 64 bits");
    expect_bad("advance 0 -> 1234567890123456789012345678901234567890",
               "the step advance runs to 123456789012345678901234... does not fit in 64 bits");
    expect_bad("advance 0 4", "expected '->' after the first step of advance, got '4'");
    expect_bad("advance 0 ->", "expected the step advance runs to");
    expect_bad("prefetch 3 disk[1] host[0]", "expected '->' after the source slot, got 'host[0]'");
    expect_bad("evict 3 disk[1] -> tape[0]", "expected the destination slot as tier[slot]");
    expect_bad("end now", "unexpected 'now' after the end action (one action a line)");
    expect_bad("turn 8 9", "unexpected '9' after the turn action");
    expect_bad("reverse +7", "expected the step (a decimal number), got '+7'");
    ebb_action a;
    cr_assert_eq(ebb_action_parse(NULL, &a), EBB_ERR_INVALID_ARG);
    cr_assert_eq(ebb_action_parse("end", NULL), EBB_ERR_INVALID_ARG);
}
