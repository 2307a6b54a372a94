/*
 * H-Revolve's action stream: a walk of the programme's table (h_revolve_dp.c)
 * with an explicit stack of frames, one per nested sub-chain, so the state
 * is O(C + D) beyond the table. A frame stands for a sub-chain [s, s + l]
 * whose first state x_s is live:
 *   OPT    x_s not stored: store it at the level (or hand the sub-chain to
 *          memory), run P, free the slot;
 *   P      x_s stored: advance j, solve [s + j, s + l] one slot lower,
 *          restore x_s, continue with [s, s + j - 1]; or the fallback;
 *   QUAD   memory fallback: re-run from x_s for every reverse step.
 * Adjacent advances are merged, so the one that reaches x_n runs the whole
 * first sweep and TURN follows it.
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "schedules/h_revolve.h"
#include "schedules/schedule_base.h"

enum { F_OPT, F_P, F_QUAD };

typedef struct {
    int kind, level, phase;
    int32_t m, j;
    int64_t s, l, i;
} frame;

typedef struct {
    struct ebb_schedule base;
    ebb_h_revolve_dp *dp;
    frame *stack;
    int32_t depth, cap;
    int64_t pend_from, pend_to; /* advance not yet written; pend_to < 0: none */
    int ended;
} h_revolve;

static ebb_action *flush(h_revolve *p, ebb_action *a)
{
    if (p->pend_to >= 0)
        a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, p->pend_from, p->pend_to);
    p->pend_to = -1;
    return a;
}

static ebb_action *advance(h_revolve *p, ebb_action *a, int64_t from, int64_t to)
{
    if (p->pend_to == from) {
        p->pend_to = to;
        return a;
    }
    a = flush(p, a);
    p->pend_from = from;
    p->pend_to = to;
    return a;
}

static ebb_action *act(h_revolve *p, ebb_action *a, int32_t kind, int tier, int32_t slot,
                       int64_t step)
{
    a = flush(p, a);
    return ebb_emit(a, kind, tier, slot, step, 0);
}

/* The reverse step of x_i; x_{n-1} first needs the sweep's last step and TURN. */
static ebb_action *reverse(h_revolve *p, ebb_action *a, int64_t i)
{
    int64_t n = p->base.options.steps;
    if (i == n - 1) {
        a = advance(p, a, n - 1, n);
        a = act(p, a, EBB_ACT_TURN, 0, 0, n);
    }
    return act(p, a, EBB_ACT_REVERSE, 0, 0, i);
}

static void push(h_revolve *p, int kind, int level, int32_t m, int64_t s, int64_t l)
{
    frame *f = &p->stack[p->depth++];
    *f = (frame){.kind = kind, .level = level, .m = m, .s = s, .l = l};
}

static int tier_of(const h_revolve *p, int level)
{
    return level == 0 ? p->base.options.fast_tier : p->base.options.slow_tier;
}

static int32_t slot_of(const h_revolve *p, const frame *f)
{
    const ebb_schedule_options *o = &p->base.options;
    return (f->level == 0 ? o->slots : o->disk_slots) - f->m;
}

/* Advances the top frame by one move; writes at most 5 actions. */
static ebb_action *step(h_revolve *p, ebb_action *a)
{
    frame *f = &p->stack[p->depth - 1];
    int tier = tier_of(p, f->level);
    if (f->kind == F_OPT) {
        if (f->phase == 1) {
            a = act(p, a, EBB_ACT_FREE, tier, slot_of(p, f), f->s);
            p->depth--;
        } else if (f->l == 0) {
            a = reverse(p, a, f->s);
            p->depth--;
        } else if (f->level == 1 && !ebb_h_revolve_dp_use_disk(p->dp, f->m, f->l)) {
            f->level = 0;
            f->m = p->base.options.slots;
        } else {
            a = act(p, a, EBB_ACT_STORE, tier, slot_of(p, f), f->s);
            f->phase = 1;
            push(p, F_P, f->level, f->m, f->s, f->l);
        }
        return a;
    }
    if (f->kind == F_QUAD) {
        if (f->i < f->s + f->l)
            a = act(p, a, EBB_ACT_RESTORE, tier, slot_of(p, f), f->s);
        if (f->i > f->s)
            a = advance(p, a, f->s, f->i);
        a = reverse(p, a, f->i);
        if (f->i-- == f->s)
            p->depth--;
        return a;
    }
    /* F_P */
    if (f->phase == 1) {
        a = act(p, a, EBB_ACT_RESTORE, tier, slot_of(p, f), f->s);
        f->l = f->j - 1;
        f->phase = 0;
        return a;
    }
    if (f->l == 0) {
        a = reverse(p, a, f->s);
        p->depth--;
        return a;
    }
    int32_t j = ebb_h_revolve_dp_split(p->dp, f->level, f->m, f->l);
    if (j == 0) {
        if (f->level == 0) {
            f->kind = F_QUAD;
            f->i = f->s + f->l;
        } else {
            /* Memory alone from here; x_s stays on disk until OPT frees it. */
            *f = (frame){.kind = F_OPT, .level = 0, .m = p->base.options.slots, .s = f->s,
                         .l = f->l};
        }
        return a;
    }
    a = advance(p, a, f->s, f->s + j);
    f->j = j;
    f->phase = 1;
    push(p, F_OPT, f->level, f->m - 1, f->s + j, f->l - j);
    return a;
}

static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    h_revolve *p = (h_revolve *)s;
    ebb_action *a = out, *end = out + capacity;
    if (p->ended)
        return 0;
    while (a == out || a + EBB_GROUP_MAX <= end) {
        if (p->depth == 0) {
            a = act(p, a, EBB_ACT_END, 0, 0, 0);
            p->ended = 1;
            break;
        }
        a = step(p, a);
    }
    return (size_t)(a - out);
}

static void destroy(ebb_schedule *s)
{
    h_revolve *p = (h_revolve *)s;
    ebb_h_revolve_dp_destroy(p->dp);
    free(p->stack);
}

static const ebb_schedule_ops ops = {.fill = fill, .destroy = destroy};

ebb_status ebb_h_revolve_create_costs(const ebb_schedule_options *o,
                                      const ebb_h_revolve_costs *costs, ebb_schedule **out)
{
    if (!o || !costs || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_h_revolve_create: NULL argument");
    *out = NULL;
    if (o->disk_slots < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "h-revolve needs the number of disk slots (disk_slots >= 0, "
                        "--disk-slots D), got %d",
                        o->disk_slots);
    if (o->fast_tier == o->slow_tier || (unsigned)o->fast_tier >= EBB_TIER_COUNT ||
        (unsigned)o->slow_tier >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "h-revolve needs two different valid tiers");
    ebb_h_revolve_dp *dp = NULL;
    ebb_status st = ebb_h_revolve_dp_create(o->steps, o->slots, o->disk_slots, costs, 0, &dp);
    if (st != EBB_OK)
        return st;
    st = ebb_schedule_alloc(sizeof(h_revolve), &ops, o, out);
    if (st != EBB_OK) {
        ebb_h_revolve_dp_destroy(dp);
        return st;
    }
    h_revolve *p = (h_revolve *)*out;
    p->dp = dp;
    /* a frame pair per slot taken, and a sub-chain of l < n steps takes at
     * most n of a level's slots */
    int64_t n = o->steps,
            cap = 2 * ((o->slots < n ? o->slots : n) + (o->disk_slots < n ? o->disk_slots : n)) + 4;
    if (cap > INT32_MAX)
        return ebb_schedule_discard(out, ebb_fail(EBB_ERR_INVALID_ARG,
                                                  "h-revolve: %lld frames for %lld steps exceed "
                                                  "its stack's %d; use fewer steps or slots",
                                                  (long long)cap, (long long)n, INT32_MAX));
    p->cap = (int32_t)cap;
    p->stack = malloc((size_t)p->cap * sizeof *p->stack);
    if (!p->stack)
        return ebb_schedule_discard(out, ebb_fail(EBB_ERR_NO_MEMORY,
                                                  "h-revolve: cannot allocate %d frames", p->cap));
    p->pend_to = -1;
    push(p, F_OPT, o->disk_slots > 0 ? 1 : 0, o->disk_slots > 0 ? o->disk_slots : o->slots, 0,
         o->steps - 1);
    (*out)->tier_slots[o->fast_tier] = o->slots;
    (*out)->tier_slots[o->slow_tier] = o->disk_slots;
    return EBB_OK;
}

ebb_status ebb_h_revolve_create(const ebb_schedule_options *o, double write_cost,
                                double read_cost, double reverse_cost, ebb_schedule **out)
{
    ebb_h_revolve_costs c = {.write = {0.0, write_cost}, .read = {0.0, read_cost},
                             .reverse = reverse_cost};
    return ebb_h_revolve_create_costs(o, &c, out);
}

double ebb_h_revolve_predicted_cost(const ebb_schedule *s)
{
    return ebb_h_revolve_dp_cost(((const h_revolve *)s)->dp);
}
