/* One interval of a sweep reversed by the chain program (chain_interval.h). */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/chain.h"
#include "schedules/chain_interval.h"
#include "schedules/schedule_base.h"

ebb_status chain_interval_begin(chain_interval *ci, const double *costs, int64_t start,
                                int64_t steps, int tier, const int32_t *slot_of, int32_t levels,
                                int start_stored)
{
    chain_interval_free(ci);
    double *rev = malloc(sizeof *rev * (size_t)steps);
    uint64_t *bytes = malloc(sizeof *bytes * (size_t)steps);
    ci->slot_of = malloc(sizeof *ci->slot_of * (size_t)levels);
    ebb_status st = EBB_OK;
    if (!rev || !bytes || !ci->slot_of)
        st = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the chain of %lld steps from x_%lld",
                      (long long)steps, (long long)start);
    if (st == EBB_OK) {
        /* every step is reversed once whatever the schedule: the reverse
         * costs choose nothing; every state takes one slot */
        for (int64_t i = 0; i < steps; i++) {
            rev[i] = 0;
            bytes[i] = 1;
        }
        ebb_chain chain = {.steps = steps, .forward_cost = costs, .reverse_cost = rev,
                           .state_bytes = bytes};
        ebb_chain_options co;
        ebb_chain_options_init(&co);
        co.memory_bytes = (uint64_t)levels;
        co.memory_levels = levels < 65536 ? levels : 65536;
        co.tier = (ebb_tier)tier;
        st = ebb_chain_schedule_create(&chain, &co, &ci->chain);
    }
    free(rev);
    free(bytes);
    if (st != EBB_OK) {
        chain_interval_free(ci);
        return st;
    }
    for (int32_t k = 0; k < levels; k++)
        ci->slot_of[k] = slot_of ? slot_of[k] : k;
    ci->start = start;
    ci->steps = steps;
    ci->tier = tier;
    ci->levels = levels;
    ci->x0_slot = -1;
    ci->start_stored = start_stored;
    ci->head = ci->len = 0;
    return EBB_OK;
}

/* The caller's slot for the chain's slot z: x_0's is slot_of[0], the
 * others follow in the chain's order. */
static int32_t caller_slot(const chain_interval *ci, int32_t z)
{
    if (z == ci->x0_slot)
        return ci->slot_of[0];
    int32_t k = 1 + (z < ci->x0_slot ? z : z - 1);
    return ci->slot_of[k < ci->levels ? k : ci->levels - 1];
}

ebb_action *chain_interval_fill(chain_interval *ci, ebb_action *out, const ebb_action *limit)
{
    ebb_action *a = out;
    while (ci->chain && a <= limit) {
        if (ci->len == 0) {
            /* the chain's own groups, straight from its strategy (below the
             * dispatcher, as chain.c takes Revolve's) */
            ci->head = 0;
            ci->len = ci->chain->ops->fill(ci->chain, ci->buf, EBB_GROUP_MAX);
        }
        if (ci->len == 0 || ci->buf[ci->head].kind == EBB_ACT_END) {
            chain_interval_free(ci);
            break;
        }
        ebb_action c = ci->buf[ci->head++];
        ci->len--;
        int64_t L = ci->steps, s = ci->start;
        switch (c.kind) {
        case EBB_ACT_STORE:
            if (ci->x0_slot < 0 && c.step == 0) {
                /* x_start stored already: made live instead; live: stored */
                ci->x0_slot = c.slot;
                a = ebb_emit(a, ci->start_stored ? EBB_ACT_RESTORE : EBB_ACT_STORE, ci->tier,
                             ci->slot_of[0], s, 0);
                break;
            }
            /* fall through */
        case EBB_ACT_RESTORE:
        case EBB_ACT_FREE:
            *a = c;
            a->tier = (int16_t)ci->tier;
            a->slot = caller_slot(ci, c.slot);
            a->step = c.step + s;
            a++;
            break;
        case EBB_ACT_ADVANCE: {
            /* the first sweep stops at x_{L-1}: the adjoint is at x_L already */
            int64_t to = c.to == L ? L - 1 : c.to;
            if (to > c.step) {
                *a = c;
                a->step = c.step + s;
                a->to = to + s;
                a++;
            }
            break;
        }
        case EBB_ACT_TURN:
            break;
        default: /* REVERSE: one tier, no tapes */
            *a = c;
            a->step = c.step + s;
            a++;
            break;
        }
    }
    return a;
}

void chain_interval_free(chain_interval *ci)
{
    ebb_schedule_destroy(ci->chain);
    ci->chain = NULL;
    free(ci->slot_of);
    ci->slot_of = NULL;
}
