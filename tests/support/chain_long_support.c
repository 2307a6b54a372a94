/* Replaying long chain schedules for the tests (chain_long_support.h). */
#include "support/chain_long_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "schedules/chain_internal.h"

long_chain long_chain_alloc(int n)
{
    long_chain c = {.n = n};
    c.fwd = malloc(sizeof *c.fwd * (size_t)n);
    c.rev = malloc(sizeof *c.rev * (size_t)n);
    c.bytes = malloc(sizeof *c.bytes * (size_t)n);
    cr_assert(c.fwd && c.rev && c.bytes);
    return c;
}

void long_chain_free(long_chain *c)
{
    free(c->fwd);
    free(c->rev);
    free(c->bytes);
}

chain_replay chain_replayed_grouped(const long_chain *c, int32_t levels, int32_t group,
                                    int with_revolve)
{
    ebb_chain ch = {.steps = c->n, .forward_cost = c->fwd, .reverse_cost = c->rev,
                    .state_bytes = c->bytes};
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = c->budget;
    o.memory_levels = levels;
    ebb_schedule *s = NULL;
    cr_assert_eq(chain_schedule_create_grouped(&ch, &o, group, with_revolve, &s), EBB_OK,
                 "n=%d budget %llu: %s", c->n, (unsigned long long)c->budget, ebb_last_error());
    ebb_chain_info info;
    cr_assert_eq(ebb_chain_schedule_info(s, &info), EBB_OK);
    int32_t slots[EBB_TIER_COUNT];
    cr_assert_eq(ebb_schedule_tier_slots(s, slots), EBB_OK);
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(c->n, slots, &v), EBB_OK);
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_HOST, c->bytes, c->n, c->budget),
                 EBB_OK);
    chain_replay r = {.predicted = info.cost};
    int64_t next_reverse = c->n - 1;
    ebb_action batch[37];
    size_t got = 0;
    do {
        cr_assert_eq(ebb_schedule_next_batch(s, batch, sizeof batch / sizeof *batch, &got),
                     EBB_OK);
        cr_assert_eq(ebb_validator_check(v, batch, got), EBB_OK, "n=%d budget %llu: %s", c->n,
                     (unsigned long long)c->budget, ebb_last_error());
        for (size_t i = 0; i < got; i++) {
            const ebb_action *a = &batch[i];
            if (a->kind == EBB_ACT_ADVANCE) {
                for (int64_t k = a->step; k < a->to; k++)
                    r.cost += c->fwd[k];
            } else if (a->kind == EBB_ACT_REVERSE) {
                cr_assert_eq(a->step, next_reverse, "n=%d: reversed step %lld, expected %lld",
                             c->n, (long long)a->step, (long long)next_reverse);
                next_reverse--;
                r.cost += c->rev[a->step];
            }
        }
    } while (got > 0 && batch[got - 1].kind != EBB_ACT_END);
    cr_assert_eq(next_reverse, -1, "n=%d: steps 0 .. %lld were never reversed", c->n,
                 (long long)next_reverse);
    cr_assert_eq(ebb_validator_finish(v), EBB_OK, "n=%d: %s", c->n, ebb_last_error());
    ebb_schedule_stats st;
    cr_assert_eq(ebb_validator_stats(v, &st), EBB_OK);
    cr_assert_leq(st.peak_slots[EBB_TIER_HOST], slots[EBB_TIER_HOST]);
    r.forward_steps = st.forward_steps;
    cr_assert_eq(ebb_validator_peak_bytes(v, EBB_TIER_HOST, &r.peak_bytes), EBB_OK);
    cr_assert_leq(r.peak_bytes, c->budget, "n=%d: peak %llu bytes", c->n,
                  (unsigned long long)r.peak_bytes);
    ebb_validator_destroy(v);
    ebb_schedule_destroy(s);
    return r;
}
