/*
 * Long streams (>= 2^16 steps) are generated on a second thread while the
 * caller's validates: every action still reaches the visitor once, in
 * order, and a failure on either side ends the replay without a hang.
 */
#include "support/schedule_support.h"

typedef struct seen {
    int64_t actions, reverses, next_reverse, fail_at;
    int64_t advanced;
} seen;

/* Checks the order independently of the validator: the reverse steps come
 * n-1, n-2, ..., 0, and the ADVANCEs add up to the forward count. */
static ebb_status visit(void *user, const ebb_action *a, size_t count)
{
    seen *s = user;
    for (size_t i = 0; i < count; i++) {
        if (a[i].kind == EBB_ACT_REVERSE) {
            if (a[i].step != s->next_reverse)
                return EBB_ERR_INTERNAL;
            s->next_reverse--;
            s->reverses++;
        } else if (a[i].kind == EBB_ACT_ADVANCE) {
            s->advanced += a[i].to - a[i].step;
        }
    }
    s->actions += (int64_t)count;
    if (s->fail_at > 0 && s->actions >= s->fail_at)
        return ebb_callback_fail("visitor stops at action %lld", (long long)s->actions);
    return EBB_OK;
}

Test(replay_long_streams, every_action_once_in_order, .timeout = 120)
{
    const int strategies[] = {EBB_STRATEGY_REVOLVE, EBB_STRATEGY_PERIODIC,
                              EBB_STRATEGY_MULTISTAGE, EBB_STRATEGY_DISK_REVOLVE};
    for (size_t k = 0; k < sizeof strategies / sizeof *strategies; k++) {
        for (int64_t n = 65536; n <= 300000; n += 78901) {
            ebb_schedule_options o = opts(strategies[k], n, 12);
            if (strategies[k] == EBB_STRATEGY_PERIODIC)
                o.slots = 2000;
            if (strategies[k] == EBB_STRATEGY_MULTISTAGE ||
                strategies[k] == EBB_STRATEGY_DISK_REVOLVE)
                o.disk_slots = 40;
            if (strategies[k] == EBB_STRATEGY_DISK_REVOLVE)
                o.io_ratio = 2, o.disk_slots = (int32_t)n;
            seen s = {.next_reverse = n - 1};
            ebb_schedule_stats st;
            ebb_status rc = ebb_schedule_replay(&o, &st, visit, &s);
            cr_assert_eq(rc, EBB_OK, "%s n=%lld: %s", ebb_strategy_name(o.strategy),
                         (long long)n, ebb_last_error());
            cr_assert_eq(s.reverses, n, "%lld reverse steps of %lld", (long long)s.reverses,
                         (long long)n);
            cr_assert_eq(s.actions, st.actions);
            cr_assert_eq(s.advanced, st.forward_steps);
            if (strategies[k] == EBB_STRATEGY_REVOLVE)
                cr_assert_eq(st.forward_steps, revolve_count(n, 12));
        }
    }
}

Test(replay_long_streams, visitor_failure_ends_it, .timeout = 60)
{
    for (int64_t stop = 1; stop < 2000000; stop *= 7) {
        ebb_schedule_options o = opts(EBB_STRATEGY_REVOLVE, 1000000, 10);
        seen s = {.next_reverse = o.steps - 1, .fail_at = stop};
        ebb_status rc = ebb_schedule_replay(&o, NULL, visit, &s);
        cr_assert_eq(rc, EBB_ERR_CALLBACK, "stop at %lld: %s", (long long)stop,
                     ebb_status_name(rc));
        cr_assert(strstr(ebb_last_error(), "visitor stops") != NULL, "%s", ebb_last_error());
        cr_assert_lt(s.actions, stop + 4096 + 1, "the replay went on after the failure");
    }
}

Test(replay_long_streams, generator_failure_is_reported, .timeout = 60)
{
    /* disk-revolve with too few disk slots for its periods fails inside
     * its generator or constructor: either way the message survives */
    ebb_schedule_options o = opts(EBB_STRATEGY_DISK_REVOLVE, 1000000, 4);
    o.disk_slots = 1;
    o.period = 5;
    ebb_status rc = ebb_schedule_replay(&o, NULL, NULL, NULL);
    cr_assert_neq(rc, EBB_OK);
    cr_assert_neq(ebb_last_error()[0], '\0');
}
