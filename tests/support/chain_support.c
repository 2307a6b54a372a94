/* Replaying chain schedules for the tests (chain_support.h). */
#include "support/chain_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>

ebb_chain test_chain_view(const test_chain *c)
{
    return (ebb_chain){.steps = c->n, .forward_cost = c->fwd, .reverse_cost = c->rev,
                       .state_bytes = c->bytes, .tape_bytes = c->taped ? c->tape : NULL,
                       .backward_cost = c->taped ? c->bwd : NULL};
}

chain_replay chain_replay_schedule(ebb_schedule *s, const ebb_chain *ch, uint64_t budget)
{
    return chain_replay_schedule_tiers(s, ch, budget, EBB_TIER_COUNT, 0, 0);
}

chain_replay chain_replay_schedule_tiers(ebb_schedule *s, const ebb_chain *ch, uint64_t budget,
                                         ebb_tier slow_tier, double write_per_byte,
                                         double read_per_byte)
{
    int n = (int)ch->steps;
    ebb_chain_info info;
    cr_assert_eq(ebb_chain_schedule_info(s, &info), EBB_OK);
    int32_t slots[EBB_TIER_COUNT];
    cr_assert_eq(ebb_schedule_tier_slots(s, slots), EBB_OK);
    ebb_validator *v = NULL;
    cr_assert_eq(ebb_validator_create(n, slots, &v), EBB_OK);
    cr_assert_eq(ebb_validator_set_state_bytes(v, EBB_TIER_HOST, ch->state_bytes, n, budget),
                 EBB_OK);
    if (ch->tape_bytes)
        cr_assert_eq(ebb_validator_set_tape_bytes(v, EBB_TIER_HOST, ch->tape_bytes, n), EBB_OK);
    char *taped = calloc((size_t)n, 1);
    cr_assert_not_null(taped);
    chain_replay r = {.predicted = info.cost};
    int64_t next_reverse = n - 1;
    ebb_action batch[37];
    size_t got = 0;
    do {
        cr_assert_eq(ebb_schedule_next_batch(s, batch, sizeof batch / sizeof *batch, &got),
                     EBB_OK);
        cr_assert_eq(ebb_validator_check(v, batch, got), EBB_OK, "n=%d budget %llu: %s", n,
                     (unsigned long long)budget, ebb_last_error());
        for (size_t i = 0; i < got; i++) {
            const ebb_action *a = &batch[i];
            double bytes = (double)ch->state_bytes[a->step < n ? a->step : 0];
            const int slow = (int)slow_tier;
            if ((a->kind == EBB_ACT_STORE && a->tier == slow) ||
                (a->kind == EBB_ACT_EVICT && a->tier_to == slow))
                r.cost += write_per_byte * bytes;
            if ((a->kind == EBB_ACT_RESTORE && a->tier == slow) ||
                (a->kind == EBB_ACT_PREFETCH && a->tier == slow))
                r.cost += read_per_byte * bytes;
            if (a->kind == EBB_ACT_ADVANCE) {
                for (int64_t k = a->step; k < a->to; k++)
                    r.cost += ch->forward_cost[k];
            } else if (a->kind == EBB_ACT_TAPE) {
                cr_assert_not_null(ch->tape_bytes, "n=%d: a tape on a chain without tapes", n);
                r.cost += ch->forward_cost[a->step];
                taped[a->step] = 1;
                r.tapes++;
            } else if (a->kind == EBB_ACT_REVERSE) {
                cr_assert_eq(a->step, next_reverse, "n=%d: reversed step %lld, expected %lld",
                             n, (long long)a->step, (long long)next_reverse);
                next_reverse--;
                int from_tape = ch->tape_bytes && taped[a->step];
                r.cost += from_tape ? ch->backward_cost[a->step] : ch->reverse_cost[a->step];
                if (from_tape)
                    taped[a->step] = 0;
            }
        }
    } while (got > 0 && batch[got - 1].kind != EBB_ACT_END);
    cr_assert_eq(next_reverse, -1, "n=%d: steps 0 .. %lld were never reversed", n,
                 (long long)next_reverse);
    cr_assert_eq(ebb_validator_finish(v), EBB_OK, "n=%d: %s", n, ebb_last_error());
    ebb_schedule_stats st;
    cr_assert_eq(ebb_validator_stats(v, &st), EBB_OK);
    cr_assert_leq(st.peak_slots[EBB_TIER_HOST], slots[EBB_TIER_HOST]);
    r.forward_steps = st.forward_steps;
    cr_assert_eq(ebb_validator_peak_bytes(v, EBB_TIER_HOST, &r.peak_bytes), EBB_OK);
    cr_assert_leq(r.peak_bytes, budget, "n=%d: peak %llu bytes", n,
                  (unsigned long long)r.peak_bytes);
    ebb_validator_destroy(v);
    ebb_schedule_destroy(s);
    free(taped);
    return r;
}

chain_replay chain_replayed(const test_chain *c)
{
    ebb_chain ch = test_chain_view(c);
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = c->budget;
    o.memory_levels = 65536;
    if (c->slow) {
        o.slow_tier = EBB_TIER_DISK;
        o.write_cost_per_byte = c->write_per_byte;
        o.read_cost_per_byte = c->read_per_byte;
    }
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_chain_schedule_create(&ch, &o, &s), EBB_OK, "n=%d budget %llu: %s", c->n,
                 (unsigned long long)c->budget, ebb_last_error());
    return chain_replay_schedule_tiers(s, &ch, c->budget, o.slow_tier, c->write_per_byte,
                                       c->read_per_byte);
}
