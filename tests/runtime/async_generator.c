/* The asynchronous strategy's generator (schedules/async.c), without a run:
 * over many random (n, fast slots, slow slots, tiers, channel timings, n
 * known or not), every stream it emits passes the replay validator, and its
 * decisions follow the rule: with the channel always free and room for every
 * state nothing is recomputed; with the channel never free only x_0 is kept
 * and the rest is Revolve's. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "schedules/async.h"

/* A channel that is busy for `busy` decisions after each transfer it starts
 * (busy < 0: never free). */
typedef struct chan {
    int busy[2];
    int left[2];
    int64_t stores, evicts;
} chan;

static int level_idle(chan *c, int level)
{
    if (c->busy[level] < 0)
        return 0;
    if (c->left[level] > 0) {
        c->left[level]--;
        return 0;
    }
    return 1;
}

/* Asked once per decision: the levels in order, the first busy one ends it. */
static ebb_status idle(void *ctx, int mask, int64_t step, int *out)
{
    (void)step;
    *out = 1;
    for (int l = 0; l < 2 && *out; l++)
        if (mask & 1 << l)
            *out = level_idle(ctx, l);
    return EBB_OK;
}

typedef struct outcome {
    ebb_schedule_stats stats;
    int64_t stores, evicts;
} outcome;

static void run_case(int64_t n, int known, int tiers, const int32_t slots[3], const int busy[2],
                     outcome *out)
{
    rt_async_options o = {.steps = known ? n : 0, .tiers = tiers};
    o.tier[0] = EBB_TIER_HOST;
    o.tier[1] = tiers == 3 ? EBB_TIER_HOST : EBB_TIER_DISK;
    o.tier[2] = EBB_TIER_DISK;
    if (tiers == 3) { /* gpu state: gpu slots, then host, then disk */
        o.tier[0] = EBB_TIER_GPU;
    }
    for (int l = 0; l < tiers; l++)
        o.slots[l] = slots[l];
    rt_async *a;
    cr_assert_eq(rt_async_create(&o, &a), EBB_OK, "%s", ebb_last_error());
    int32_t ts[EBB_TIER_COUNT];
    rt_async_tier_slots(a, ts);
    ebb_validator *v;
    cr_assert_eq(ebb_validator_create(known ? n : 0, ts, &v), EBB_OK);
    chan c = {.busy = {busy[0], busy[1]}};
    ebb_action batch[256];
    int64_t live = 0, told = 0;
    for (int64_t guard = 0;; guard++) {
        cr_assert_lt(guard, 100000000, "the generator does not end");
        size_t k = 0;
        cr_assert_eq(rt_async_next_batch(a, batch, 256, &k, idle, &c), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert_gt(k, 0);
        ebb_status st = ebb_validator_check(v, batch, k);
        cr_assert_eq(st, EBB_OK, "n=%lld known=%d tiers=%d slots=%d/%d/%d busy=%d/%d: %s",
                     (long long)n, known, tiers, slots[0], slots[1], slots[2], busy[0], busy[1],
                     ebb_last_error());
        int end = 0;
        for (size_t i = 0; i < k; i++) {
            const ebb_action *x = &batch[i];
            if (x->kind == EBB_ACT_ADVANCE)
                live = x->to;
            if (x->kind == EBB_ACT_STORE && x->tier != (int)o.tier[0]) {
                c.stores++;
                c.left[0] = c.busy[0];
            }
            if (x->kind == EBB_ACT_EVICT) {
                c.evicts++;
                c.left[1] = c.busy[1];
            }
            end |= x->kind == EBB_ACT_END;
        }
        if (end)
            break;
        if (!known && !told && live == n) {
            cr_assert_eq(rt_async_set_steps(a, n), EBB_OK, "%s", ebb_last_error());
            told = 1;
        }
    }
    cr_assert_eq(ebb_validator_finish(v), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_validator_stats(v, &out->stats), EBB_OK);
    out->stores = c.stores;
    out->evicts = c.evicts;
    ebb_validator_destroy(v);
    rt_async_destroy(a);
}

Test(async_generator, random_cases_validate)
{
    srand(20261123);
    for (int it = 0; it < 600; it++) {
        int64_t n = 1 + rand() % (it < 300 ? 60 : 3000);
        int tiers = 2 + rand() % 2;
        int32_t slots[3] = {1 + rand() % 6, 1 + rand() % 40, 1 + rand() % 40};
        int busy[2] = {rand() % 5 - 1, rand() % 5 - 1};
        outcome out;
        run_case(n, rand() % 2, tiers, slots, busy, &out);
        cr_assert_eq(out.stats.reverse_steps, n);
    }
}

Test(async_generator, free_channel_and_room_recompute_nothing)
{
    for (int64_t n = 1; n <= 200; n += 7) {
        int32_t slots[3] = {2, (int32_t)n, 1};
        int busy[2] = {0, 0};
        for (int known = 0; known < 2; known++) {
            outcome out;
            run_case(n, known, 2, slots, busy, &out);
            cr_assert_eq(out.stats.forward_steps, n, "n=%lld known=%d: %lld forward steps",
                         (long long)n, known, (long long)out.stats.forward_steps);
            cr_assert_eq(out.stores, n, "x_0 .. x_{n-1} stored");
        }
    }
}

Test(async_generator, busy_channel_is_revolve_over_the_rest)
{
    for (int64_t n = 2; n <= 300; n += 11)
        for (int32_t c = 1; c <= 6; c++) {
            int32_t slots[3] = {c, 10, 1};
            int busy[2] = {-1, -1};
            outcome out;
            run_case(n, 1, 2, slots, busy, &out);
            int64_t rev;
            cr_assert_eq(ebb_revolve_forward_count(n - 1, c, &rev), EBB_OK);
            /* the first sweep, then Revolve over x_0 .. x_{n-2} with every
             * fast slot, without its last step (x_{n-1} was reversed at the
             * turn) */
            cr_assert_eq(out.stats.forward_steps, n + rev - 1, "n=%lld c=%d", (long long)n, c);
            cr_assert_eq(out.stores, 1, "only x_0 stored");
        }
}

Test(async_generator, spacing_follows_the_channel)
{
    /* a channel busy for b decisions after each store: one state in b + 1 */
    for (int b = 0; b < 6; b++) {
        int32_t slots[3] = {4, 1000, 1};
        int busy[2] = {b, 0};
        outcome out;
        run_case(601, 1, 2, slots, busy, &out);
        cr_assert_eq(out.stores, 1 + 600 / (b + 1), "busy %d: %lld stores", b,
                     (long long)out.stores);
    }
}

Test(async_generator, full_slow_tier_thins_for_unknown_n)
{
    /* 8 slow slots for n = 5000, n unknown: the spacing doubles as they fill */
    int32_t slots[3] = {3, 8, 1};
    int busy[2] = {0, 0};
    outcome out;
    run_case(5000, 0, 2, slots, busy, &out);
    cr_assert_eq(out.stats.peak_slots[EBB_TIER_DISK], 8);
    cr_assert_gt(out.stores, 8);
    /* 8 at spacing 1, then 4 more at each doubling: about 8 + 4 log2(5000/8) */
    cr_assert_lt(out.stores, 60, "%lld stores: the spacing did not double",
                 (long long)out.stores);
}

Test(async_generator, middle_tier_evicts_its_oldest_down)
{
    int32_t slots[3] = {3, 4, 100};
    int busy[2] = {0, 0};
    outcome out;
    run_case(60, 1, 3, slots, busy, &out);
    cr_assert_eq(out.stores, 60);
    cr_assert_eq(out.evicts, 56, "%lld evictions", (long long)out.evicts);
    cr_assert_eq(out.stats.forward_steps, 60);
}

Test(async_generator, refuses_too_few_slots)
{
    rt_async_options o = {.steps = 10, .tiers = 2, .tier = {EBB_TIER_HOST, EBB_TIER_DISK},
                          .slots = {0, 5}};
    rt_async *a = NULL;
    cr_assert_eq(rt_async_create(&o, &a), EBB_ERR_NO_MEMORY);
    cr_assert_null(a);
    cr_assert(strstr(ebb_last_error(), "at least 1 slot in tier.host"), "%s", ebb_last_error());
    o.slots[0] = 3;
    o.slots[1] = 0;
    cr_assert_eq(rt_async_create(&o, &a), EBB_ERR_NO_MEMORY);
    cr_assert(strstr(ebb_last_error(), "at least 1 slot in tier.disk"), "%s", ebb_last_error());
}

static ebb_status always_idle(void *ctx, int mask, int64_t step, int *out)
{
    (void)ctx;
    (void)mask;
    (void)step;
    *out = 1;
    return EBB_OK;
}

Test(async_generator, refuses_misuse)
{
    rt_async_options o = {.steps = 3, .tiers = 1, .tier = {EBB_TIER_HOST}, .slots = {2}};
    rt_async *a = NULL;
    cr_assert_eq(rt_async_create(&o, &a), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "2 or 3 tiers, got 1"), "%s", ebb_last_error());
    o.tiers = 2;
    o.tier[1] = EBB_TIER_DISK;
    o.slots[1] = 4;
    cr_assert_eq(rt_async_create(&o, &a), EBB_OK, "%s", ebb_last_error());
    ebb_action b[8];
    size_t k;
    cr_assert_eq(rt_async_next_batch(a, b, 3, &k, always_idle, NULL), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "batch of 3 actions is too small"), "%s",
              ebb_last_error());
    cr_assert_eq(rt_async_set_steps(a, 1), EBB_ERR_STATE, "n was given at creation");
    cr_assert(strstr(ebb_last_error(), "already set to 3"), "%s", ebb_last_error());
    for (int guard = 0; guard < 100; guard++) {
        cr_assert_eq(rt_async_next_batch(a, b, 8, &k, always_idle, NULL), EBB_OK, "%s",
                     ebb_last_error());
        if (b[k - 1].kind == EBB_ACT_END)
            break;
    }
    cr_assert_eq(rt_async_next_batch(a, b, 8, &k, always_idle, NULL), EBB_OK);
    cr_assert_eq(k, 1);
    cr_assert_eq(b[0].kind, EBB_ACT_END, "after END, END again");
    rt_async_destroy(a);

    o.steps = 0; /* n unknown: set_steps must name the live state */
    cr_assert_eq(rt_async_create(&o, &a), EBB_OK);
    cr_assert_eq(rt_async_next_batch(a, b, 8, &k, always_idle, NULL), EBB_OK);
    cr_assert_eq(rt_async_set_steps(a, 5), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "at x_1, not x_5"), "%s", ebb_last_error());
    cr_assert_eq(rt_async_set_steps(a, 1), EBB_OK, "%s", ebb_last_error());
    rt_async_destroy(a);
}

Test(async_generator, unknown_n_is_given_every_slot)
{
    /* n unknown: every slot given, in each slower tier (thinning keeps any n
     * within them); n known: no more than x_0 .. x_{n-1} */
    rt_async_options o;
    rt_async_options_init(&o, 0, EBB_TIER_GPU, 4);
    cr_assert_eq(rt_async_add_tier(&o, EBB_TIER_HOST, 2000000), 1);
    cr_assert_eq(rt_async_add_tier(&o, EBB_TIER_DISK, INT32_MAX), 1);
    cr_assert_eq(o.slots[1], 2000000);
    cr_assert_eq(o.slots[2], INT32_MAX);
    rt_async_options_init(&o, 1000, EBB_TIER_GPU, 4);
    cr_assert_eq(rt_async_add_tier(&o, EBB_TIER_HOST, 600), 1);
    cr_assert_eq(rt_async_add_tier(&o, EBB_TIER_DISK, 2000000), 1);
    cr_assert_eq(o.slots[1], 600);
    cr_assert_eq(o.slots[2], 400);
}

Test(async_generator, unknown_n_fills_a_large_budget)
{
    /* 100,000 slow slots (20,000 host, 80,000 disk) for n = 150,000, the
     * channels always free: n unknown fills them all, thins once, and ends
     * with every second state stored, as n known spaces them from the start */
    int32_t slots[3] = {4, 20000, 80000};
    int busy[2] = {0, 0};
    outcome unknown, known;
    run_case(150000, 0, 3, slots, busy, &unknown);
    run_case(150000, 1, 3, slots, busy, &known);
    cr_assert_eq(unknown.stats.peak_slots[EBB_TIER_HOST], 20000);
    cr_assert_eq(unknown.stats.peak_slots[EBB_TIER_DISK], 80000);
    cr_assert_eq(unknown.stores, 125000, "%lld stores", (long long)unknown.stores);
    cr_assert_eq(known.stores, 75000, "%lld stores", (long long)known.stores);
    cr_assert_eq(unknown.stats.forward_steps, known.stats.forward_steps,
                 "forward steps: %lld with n unknown, %lld with n known",
                 (long long)unknown.stats.forward_steps, (long long)known.stats.forward_steps);
}

Test(async_generator, cost_per_action_does_not_grow_with_the_slots, .timeout = 60)
{
    /* a million slow slots, n = 2,000,000 known and not: a store decision
     * that scanned the slots for a free one would take an hour here, as
     * would an eviction that searched the list for the middle tier's oldest
     * state; each action costs the same whatever the slot count
     * (docs/async.md) */
    int32_t slots[3] = {4, 200000, 800000};
    int busy[2] = {0, 0};
    for (int known = 0; known < 2; known++) {
        outcome out;
        run_case(2000000, known, 3, slots, busy, &out);
        cr_assert_eq(out.stats.forward_steps, 2999999, "known %d: %lld forward steps", known,
                     (long long)out.stats.forward_steps);
        cr_assert_eq(out.stats.reverse_steps, 2000000);
    }
}
