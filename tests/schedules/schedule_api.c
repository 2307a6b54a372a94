/* The schedule object: batching, END, online protocol, option errors. */
#include <malloc.h>

#include "support/schedule_support.h"

/* Collects a whole stream pulling `cap` actions at a time. */
static ebb_action *collect(const ebb_schedule_options *o, size_t cap, size_t *len)
{
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(o, &s), EBB_OK, "%s", ebb_last_error());
    size_t n = 0, room = 1024;
    ebb_action *all = malloc(room * sizeof *all);
    ebb_action *buf = malloc(cap * sizeof *buf);
    for (;;) {
        size_t got = 0;
        cr_assert_eq(ebb_schedule_next_batch(s, buf, cap, &got), EBB_OK);
        cr_assert(got >= 1 && got <= cap);
        if (n + got > room) {
            room = 2 * (n + got);
            all = realloc(all, room * sizeof *all);
        }
        memcpy(all + n, buf, got * sizeof *buf);
        n += got;
        const ebb_action *last = &buf[got - 1];
        if (last->kind == EBB_ACT_END)
            break;
        if (o->strategy == EBB_STRATEGY_ONLINE && last->kind == EBB_ACT_ADVANCE && last->to == o->steps)
            cr_assert_eq(ebb_schedule_set_steps(s, o->steps), EBB_OK, "%s", ebb_last_error());
    }
    /* After END, END again. */
    ebb_action again;
    cr_assert_eq(ebb_schedule_next(s, &again), EBB_OK);
    cr_assert_eq(again.kind, EBB_ACT_END);
    free(buf);
    ebb_schedule_destroy(s);
    *len = n;
    return all;
}

Test(schedule_api, batch_size_never_changes_the_stream)
{
    for (int strat = 0; strat < EBB_STRATEGY_COUNT; strat++) {
        ebb_schedule_options o = opts((ebb_strategy)strat, 137, strat == EBB_STRATEGY_STORE_ALL ? 136 : 30);
        o.disk_slots = strat == EBB_STRATEGY_MULTISTAGE || strat == EBB_STRATEGY_H_REVOLVE ? 4 : -1;
        o.io_ratio = 20;
        size_t ref_len = 0;
        ebb_action *ref = collect(&o, 4096, &ref_len);
        const size_t caps[] = {1, 2, 3, 7, 8, 9, 64, 255, 256, 257};
        for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
            size_t len = 0;
            ebb_action *got = collect(&o, caps[i], &len);
            cr_assert_eq(len, ref_len, "%s, batches of %zu: %zu actions, %zu expected",
                         ebb_strategy_name(o.strategy), caps[i], len, ref_len);
            cr_assert(memcmp(got, ref, len * sizeof *got) == 0, "%s: stream differs with batches of %zu",
                      ebb_strategy_name(o.strategy), caps[i]);
            free(got);
        }
        free(ref);
    }
}

Test(schedule_api, online_yields_after_each_forward_step)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_ONLINE, 0, 3);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK);
    ebb_action buf[64];
    int64_t live = 0;
    for (int step = 0; step < 50; step++) {
        size_t got = 0;
        cr_assert_eq(ebb_schedule_next_batch(s, buf, 64, &got), EBB_OK);
        cr_assert_eq(buf[got - 1].kind, EBB_ACT_ADVANCE, "batch must stop at the advance");
        cr_assert_eq(buf[got - 1].step, live);
        live = buf[got - 1].to;
        cr_assert_eq(live, step + 1);
    }
    cr_assert_eq(ebb_schedule_set_steps(s, 49), EBB_ERR_STATE);
    cr_assert(strstr(ebb_last_error(), "live state x_50") != NULL, "%s", ebb_last_error());
    cr_assert_eq(ebb_schedule_set_steps(s, 50), EBB_OK);
    cr_assert_eq(ebb_schedule_set_steps(s, 50), EBB_ERR_STATE);
    ebb_schedule_destroy(s);
}

Test(schedule_api, set_steps_is_for_online_only)
{
    ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, 10, 3);
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK);
    cr_assert_eq(ebb_schedule_set_steps(s, 10), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "online") != NULL, "%s", ebb_last_error());
    ebb_schedule_destroy(s);
}

static void expect_create_error(ebb_schedule_options o, const char *text)
{
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_ERR_INVALID_ARG, "accepted; wanted '%s'", text);
    cr_assert_null(s);
    cr_assert(strstr(ebb_last_error(), text) != NULL, "'%s' lacks '%s'", ebb_last_error(), text);
}

Test(schedule_api, option_errors_say_what_is_wrong)
{
    expect_create_error(opts(EBB_STRATEGY_REVOLVE, 0, 3), "steps must be at least 1, got 0");
    expect_create_error(opts(EBB_STRATEGY_REVOLVE, 10, 0), "slots must be at least 1");
    expect_create_error(opts(EBB_STRATEGY_STORE_ALL, 10, 4), "store-all needs 9 slots for 10 steps, got 4");
    expect_create_error(opts(EBB_STRATEGY_PERIODIC, 10000, 4), "periodic needs at least");
    ebb_schedule_options o = opts(EBB_STRATEGY_MULTISTAGE, 10, 2);
    expect_create_error(o, "multistage needs the number of disk slots");
    o = opts(EBB_STRATEGY_DISK_REVOLVE, 10, 2);
    expect_create_error(o, "disk-revolve needs the io ratio");
    o.period = 2;
    o.disk_slots = 1;
    expect_create_error(o, "disk-revolve with period 2 needs 3 disk slots for 10 steps, got 1");
    o = opts(EBB_STRATEGY_MULTISTAGE, 10, 2);
    o.disk_slots = 1;
    o.slow_tier = EBB_TIER_HOST;
    expect_create_error(o, "needs two different tiers");
    o = opts((ebb_strategy)42, 10, 2);
    expect_create_error(o, "unknown strategy number 42");
    ebb_strategy st;
    cr_assert_eq(ebb_strategy_from_name("revolv", &st), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "unknown strategy 'revolv'") != NULL);
    for (int i = 0; i < EBB_STRATEGY_COUNT; i++) {
        cr_assert_eq(ebb_strategy_from_name(ebb_strategy_name((ebb_strategy)i), &st), EBB_OK);
        cr_assert_eq((int)st, i);
    }
}

Test(schedule_api, actions_format_as_one_line)
{
    char buf[128];
    ebb_action a = {.kind = EBB_ACT_PREFETCH, .tier = EBB_TIER_DISK, .slot = 3, .tier_to = EBB_TIER_HOST,
                    .slot_to = 1, .step = 17};
    ebb_action_format(&a, buf, sizeof buf);
    cr_assert_str_eq(buf, "prefetch 17 disk[3] -> host[1]");
    a = (ebb_action){.kind = EBB_ACT_ADVANCE, .step = 4, .to = 9};
    ebb_action_format(&a, buf, sizeof buf);
    cr_assert_str_eq(buf, "advance 4 -> 9");
    a = (ebb_action){.kind = EBB_ACT_RESTORE, .tier = EBB_TIER_GPU, .slot = 0, .step = 2};
    ebb_action_format(&a, buf, sizeof buf);
    cr_assert_str_eq(buf, "restore 2 gpu[0]");
    cr_assert_str_eq(ebb_action_kind_name(99), "?");
    cr_assert_str_eq(ebb_tier_name((ebb_tier)9), "?");
}

#ifndef __SANITIZE_ADDRESS__
/* An allocation counter: malloc and friends wrapped around glibc's, counting
 * the bytes the test's own thread holds while `counting` is set. */
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);

static _Thread_local int counting;
static _Thread_local int64_t live, peak;

static void counted(void *p, int sign)
{
    if (!p || !counting)
        return;
    live += sign * (int64_t)malloc_usable_size(p);
    if (live > peak)
        peak = live;
}

void *malloc(size_t size)
{
    void *p = __libc_malloc(size);
    counted(p, 1);
    return p;
}

void *calloc(size_t count, size_t size)
{
    void *p = __libc_calloc(count, size);
    counted(p, 1);
    return p;
}

void *realloc(void *old, size_t size)
{
    counted(old, -1);
    void *p = __libc_realloc(old, size);
    counted(p ? p : old, 1);
    return p;
}

void free(void *p)
{
    counted(p, -1);
    __libc_free(p);
}

/* The most heap a full generate-and-validate run holds at once. */
static int64_t replay_heap(const ebb_schedule_options *o)
{
    ebb_schedule_stats st;
    live = peak = 0;
    counting = 1;
    ebb_status s = ebb_schedule_validate(o, &st);
    counting = 0;
    cr_assert_eq(s, EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(st.reverse_steps, o->steps);
    cr_assert_eq(live, 0, "the replay leaks %lld bytes", (long long)live);
    return peak;
}
#endif

Test(schedule_api, memory_does_not_grow_with_n, .timeout = 300)
{
#ifdef __SANITIZE_ADDRESS__
    cr_skip_test("the allocation counter wraps glibc's malloc, which ASan replaces");
#else
    const ebb_strategy strategies[] = {EBB_STRATEGY_REVOLVE, EBB_STRATEGY_ONLINE,
                                       EBB_STRATEGY_MULTISTAGE};
    for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
        /* two ranges: streams of 2^16 steps and more are generated on a
         * second thread, with a ring of batches of its own */
        int64_t first = -1;
        for (int64_t n = 1000; n <= 10000000; n *= 10) {
            if (n == 100000)
                first = -1;
            ebb_schedule_options o = opts(strategies[i], n, 50);
            o.disk_slots = strategies[i] == EBB_STRATEGY_MULTISTAGE ? 4 : -1;
            int64_t bytes = replay_heap(&o);
            cr_assert_gt(bytes, 0);
            if (first < 0)
                first = bytes;
            /* Equal up to the allocator's rounding of the same requests. */
            cr_assert_leq(llabs(bytes - first), 256, "%s n=%lld: %lld bytes of heap, %lld at the range's first n",
                         ebb_strategy_name(strategies[i]), (long long)n, (long long)bytes,
                         (long long)first);
        }
    }
#endif
}
