/* The binomial reversal engine; see revolve_core.h. */
#include "schedules/revolve_core.h"

#include <stdlib.h>

#include "common/error_internal.h"
#include "schedules/binomial.h"
#include "schedules/schedule_base.h"

ebb_status ebb_revolve_core_alloc(ebb_revolve_core *core, int32_t levels)
{
    size_t n = levels > 0 ? (size_t)levels : 1;
    core->stack = malloc(n * sizeof *core->stack);
    core->tier_of = malloc(n * sizeof *core->tier_of);
    core->slot_of = malloc(n * sizeof *core->slot_of);
    if (!core->stack || !core->tier_of || !core->slot_of) {
        ebb_revolve_core_free(core);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate a schedule stack of %d levels",
                        levels);
    }
    return EBB_OK;
}

void ebb_revolve_core_free(ebb_revolve_core *core)
{
    free(core->stack);
    free(core->tier_of);
    free(core->slot_of);
    core->stack = NULL;
    core->tier_of = NULL;
    core->slot_of = NULL;
}

void ebb_revolve_core_begin(ebb_revolve_core *core, int64_t start, int64_t end, int32_t levels,
                            int64_t live, int start_stored, int turn)
{
    core->start = start;
    core->cur = start;
    core->end = end;
    core->live = live;
    core->levels = levels;
    core->depth = 0;
    core->turn_pending = turn;
    if (start_stored) {
        core->stack[0] = start;
        core->depth = 1;
    }
}

ebb_action *ebb_revolve_core_fill(ebb_revolve_core *core, ebb_action *out, const ebb_action *limit)
{
    /* The hot loop keeps the state in locals and writes it back once: one
     * group per call made the next call's loads wait on this call's stores. */
    int64_t cur = core->cur, end = core->end, live = core->live;
    const int64_t start = core->start;
    int32_t depth = core->depth;
    int turn_pending = core->turn_pending;
    int64_t *stack = core->stack;
    const int16_t *tier_of = core->tier_of;
    const int32_t *slot_of = core->slot_of;

    while (end > start && out <= limit) {
        int64_t l = end - cur;
        int top = depth - 1;
        int stored = top >= 0 && stack[top] == cur;

        if (l == 1) {
            if (turn_pending) {
                /* The first sweep reaches x_end; x_{end-1} is still at hand. */
                out = ebb_emit(out, EBB_ACT_ADVANCE, 0, 0, cur, end);
                out = ebb_emit(out, EBB_ACT_TURN, 0, 0, end, 0);
                turn_pending = 0;
                live = cur;
            } else if (live != cur) {
                out = ebb_emit(out, EBB_ACT_RESTORE, tier_of[top], slot_of[top], cur, 0);
                live = cur;
            }
            out = ebb_emit(out, EBB_ACT_REVERSE, 0, 0, cur, 0);
            end = cur;
            live = -1; /* the reverse step may consume the state */
            if (stored) {
                out = ebb_emit(out, EBB_ACT_FREE, tier_of[top], slot_of[top], cur, 0);
                depth = top;
                top--;
            }
            cur = top >= 0 ? stack[top] : start;
            continue;
        }

        /* l >= 2: keep x_cur, then advance to the optimal split point. */
        if (!stored) {
            top = depth++;
            stack[top] = cur;
            out = ebb_emit(out, EBB_ACT_STORE, tier_of[top], slot_of[top], cur, 0);
        } else if (live != cur) {
            out = ebb_emit(out, EBB_ACT_RESTORE, tier_of[top], slot_of[top], cur, 0);
        }
        /* With a slot for every state left (the common leaf case) the split
         * is 1: decided here, without the call. */
        int64_t c = core->levels - top;
        int64_t m = cur + (l <= c + 1 ? 1 : ebb_revolve_split(l, c));
        if (turn_pending && m == end - 1) {
            out = ebb_emit(out, EBB_ACT_ADVANCE, 0, 0, cur, end);
            out = ebb_emit(out, EBB_ACT_TURN, 0, 0, end, 0);
            turn_pending = 0;
        } else {
            out = ebb_emit(out, EBB_ACT_ADVANCE, 0, 0, cur, m);
        }
        live = m;
        cur = m;
    }
    core->cur = cur;
    core->end = end;
    core->live = live;
    core->depth = depth;
    core->turn_pending = turn_pending;
    return out;
}

int32_t ebb_useful_levels(int64_t steps, int64_t levels)
{
    int64_t cap = steps > 1 ? steps - 1 : 1;
    return (int32_t)(levels < cap ? levels : cap);
}

ebb_status ebb_revolve_core_level_uses(int64_t steps, int32_t levels, int64_t budget,
                                       int64_t *uses, int *counted)
{
    *counted = 0;
    ebb_revolve_core core;
    ebb_status st = ebb_revolve_core_alloc(&core, levels);
    if (st != EBB_OK)
        return st;
    for (int32_t k = 0; k < levels; k++) {
        core.tier_of[k] = 0;
        core.slot_of[k] = k;
        uses[k] = 0;
    }
    ebb_revolve_core_begin(&core, 0, steps, levels, 0, 0, 1);
    ebb_action buf[256];
    int64_t seen = 0;
    while (!ebb_revolve_core_done(&core) && seen <= budget) {
        ebb_action *end = ebb_revolve_core_fill(&core, buf, buf + 256 - EBB_GROUP_MAX);
        for (ebb_action *a = buf; a < end; a++)
            if (a->kind == EBB_ACT_STORE || a->kind == EBB_ACT_RESTORE)
                uses[a->slot]++;
        seen += end - buf;
    }
    *counted = ebb_revolve_core_done(&core);
    ebb_revolve_core_free(&core);
    return EBB_OK;
}

