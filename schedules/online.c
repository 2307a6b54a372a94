/*
 * Online checkpointing for an unknown n (adaptive time stepping).
 *
 * Forward sweep: each live state is kept or not as the placement in
 * online_place.c decides (the layouts of offline Revolve, reached online
 * where possible; docs/online.md has the rule and its measured gap).
 *
 * Reverse sweep: once the caller says the forward stopped at x_n, the
 * intervals between the kept checkpoints are known; each is reversed with
 * the optimal binomial schedule using the slots not held by earlier
 * checkpoints (the last interval first), so the only loss against offline
 * Revolve is where the forward placed its checkpoints. Given the forward
 * steps' costs (ebb_schedule_set_forward_costs: measured in the forward,
 * say), each interval of a few steps or more is reversed instead by the
 * chain program over its costs (chain_interval.h), which costs no more over
 * them than the binomial schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/chain.h"
#include "schedules/binomial.h"
#include "schedules/chain_interval.h"
#include "schedules/online.h"
#include "schedules/online_place.h"
#include "schedules/revolve_core.h"
#include "schedules/schedule_internal.h"

typedef struct {
    struct ebb_schedule base;
    ebb_revolve_core core;
    ebb_online_place place; /* the checkpoints: pos, slot, count */
    int64_t live;      /* forward: the live state */
    int64_t n;         /* 0 until set_steps */
    int turned;        /* TURN emitted */
    int32_t interval;  /* reverse: index of the checkpoint starting the interval */
    double *costs;     /* NULL, or the n forward steps' costs */
    chain_interval ci; /* the interval being reversed by the chain program, if any */
} online;

static ebb_action *keep_live_state(online *p, ebb_action *a)
{
    int tier = p->base.options.fast_tier;
    ebb_online_move mv;
    ebb_online_place_step(&p->place, p->live, &mv);
    if (mv.dropped)
        a = ebb_emit(a, EBB_ACT_FREE, tier, mv.drop_slot, mv.drop_pos, 0);
    if (mv.stored)
        a = ebb_emit(a, EBB_ACT_STORE, tier, mv.slot, p->live, 0);
    return a;
}

/* Sets up the binomial reversal of [pos[q], end): level 0 is the checkpoint's
 * slot, the other levels are the slots no earlier checkpoint holds. An
 * interval of L steps stores at most L states at once, and with a level for
 * each the reversal is the same whatever the levels beyond (every split is
 * 1): at most L levels are looked for, so that a run with n unknown and a
 * budget of millions of slots does not scan them all for every interval. */
static void begin_interval(online *p, int32_t q, int64_t end)
{
    int tier = p->base.options.fast_tier;
    const ebb_online_place *pl = &p->place;
    int32_t levels = pl->slots - q;
    if (end - pl->pos[q] < levels)
        levels = (int32_t)(end - pl->pos[q]);
    p->core.tier_of[0] = (int16_t)tier;
    p->core.slot_of[0] = pl->slot[q];
    int32_t k = 1;
    for (int32_t s = 0; s < pl->slots && k < levels; s++) {
        int held = 0;
        for (int32_t j = 0; j <= q && !held; j++)
            held = pl->slot[j] == s;
        if (!held) {
            p->core.tier_of[k] = (int16_t)tier;
            p->core.slot_of[k++] = s;
        }
    }
    int64_t L = end - pl->pos[q];
    if (p->costs && chain_interval_takes(L, levels)) {
        if (chain_interval_begin(&p->ci, p->costs + pl->pos[q], pl->pos[q], L, tier,
                                 p->core.slot_of, levels, 1) == EBB_OK)
            return;
        ebb_clear_error(); /* a chain that could not be made: the binomial schedule */
    }
    ebb_revolve_core_begin(&p->core, pl->pos[q], end, levels, -1, 1, 0);
}

/* The current interval's next actions, from whichever reverses it. */
static ebb_action *interval_fill(online *p, ebb_action *a, const ebb_action *limit)
{
    if (!chain_interval_done(&p->ci))
        return chain_interval_fill(&p->ci, a, limit);
    return ebb_revolve_core_fill(&p->core, a, limit);
}

static int interval_done(const online *p)
{
    return chain_interval_done(&p->ci) && ebb_revolve_core_done(&p->core);
}

static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    online *p = (online *)s;
    int tier = s->options.fast_tier;
    ebb_action *a = out;
    if (p->n == 0) {
        /* Forward, n unknown: keep x_i as the algorithm says, run one step. */
        a = keep_live_state(p, a);
        a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, p->live, p->live + 1);
        p->live++;
        s->yield = 1;
        return (size_t)(a - out);
    }
    if (!p->turned) {
        int64_t n = p->n;
        a = ebb_emit(a, EBB_ACT_TURN, 0, 0, n, 0);
        a = ebb_emit(a, EBB_ACT_REVERSE, 0, 0, n - 1, 0);
        p->turned = 1;
        p->interval = p->place.count - 1;
        int64_t last = p->place.pos[p->interval];
        if (last == n - 1) {
            /* x_{n-1} was kept before the forward knew it was the last. */
            a = ebb_emit(a, EBB_ACT_FREE, tier, p->place.slot[p->interval], last, 0);
            p->interval--;
            if (p->interval >= 0)
                begin_interval(p, p->interval, last);
        } else {
            begin_interval(p, p->interval, n - 1);
        }
        return (size_t)(a - out);
    }
    if (p->interval < 0)
        return (size_t)(ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0) - out);
    if (!interval_done(p)) {
        a = interval_fill(p, a, out + capacity - EBB_GROUP_MAX);
        if (a > out)
            return (size_t)(a - out);
        /* a chain's last call ended it without an action: the next interval */
    }
    int64_t end = p->place.pos[p->interval];
    p->interval--;
    if (p->interval < 0)
        return (size_t)(ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0) - out);
    begin_interval(p, p->interval, end);
    return (size_t)(interval_fill(p, a, out + capacity - EBB_GROUP_MAX) - out);
}

static ebb_status set_steps(ebb_schedule *s, int64_t steps)
{
    online *p = (online *)s;
    if (p->n != 0)
        return ebb_fail(EBB_ERR_STATE, "the forward already stopped at x_%lld", (long long)p->n);
    if (steps != p->live || steps < 1)
        return ebb_fail(EBB_ERR_STATE,
                        "the forward can only stop at the live state x_%lld, not x_%lld "
                        "(call ebb_schedule_set_steps right after the ADVANCE that made it)",
                        (long long)p->live, (long long)steps);
    p->n = steps;
    s->options.steps = steps;
    return EBB_OK;
}

static ebb_status set_forward_costs(ebb_schedule *s, const double *costs, int64_t count)
{
    online *p = (online *)s;
    if (p->n == 0)
        return ebb_fail(EBB_ERR_STATE, "ebb_schedule_set_forward_costs: n is not known yet "
                                       "(call ebb_schedule_set_steps first)");
    if (p->turned)
        return ebb_fail(EBB_ERR_STATE, "ebb_schedule_set_forward_costs: the reverse sweep "
                                       "began already");
    if (count != p->n)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_schedule_set_forward_costs: %lld costs for %lld steps (one a step)",
                        (long long)count, (long long)p->n);
    double *c = malloc(sizeof *c * (size_t)count);
    if (!c)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the costs of %lld steps",
                        (long long)count);
    memcpy(c, costs, sizeof *c * (size_t)count);
    free(p->costs);
    p->costs = c;
    return EBB_OK;
}

static void destroy(ebb_schedule *s)
{
    online *p = (online *)s;
    free(p->costs);
    chain_interval_free(&p->ci);
    ebb_revolve_core_free(&p->core);
    ebb_online_place_free(&p->place);
}

static const ebb_schedule_ops ops = {.fill = fill, .set_steps = set_steps,
                                     .set_forward_costs = set_forward_costs,
                                     .destroy = destroy};

ebb_status ebb_online_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    ebb_status st = ebb_schedule_alloc(sizeof(online), &ops, o, out);
    if (st != EBB_OK)
        return st;
    online *p = (online *)*out;
    st = ebb_online_place_alloc(&p->place, o->slots);
    if (st == EBB_OK)
        st = ebb_revolve_core_alloc(&p->core, o->slots);
    if (st != EBB_OK)
        return ebb_schedule_discard(out, st);
    (*out)->options.steps = 0;
    (*out)->tier_slots[o->fast_tier] = o->slots;
    return EBB_OK;
}

ebb_status ebb_online_forward_count(int64_t steps, int32_t slots, int64_t *count)
{
    if (steps < 1 || slots < 1 || !count)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "online forward count needs steps >= 1 and slots >= 1, got %lld and %d",
                        (long long)steps, slots);
    ebb_online_place pl;
    ebb_status st = ebb_online_place_alloc(&pl, slots);
    if (st != EBB_OK)
        return st;
    /* The forward placement exactly as the generator makes it ... */
    ebb_online_move mv;
    for (int64_t m = 0; m < steps; m++)
        ebb_online_place_step(&pl, m, &mv);
    /* ... then the reverse sweep as fill runs it: REVERSE(n-1) is free, then
     * each interval [pos[q], end) with slots - q levels, the last one first. */
    int64_t total = steps, end = steps - 1;
    for (int32_t q = pl.count - 1; q >= 0; q--) {
        if (pl.pos[q] < end) {
            int64_t t = ebb_revolve_cost(end - pl.pos[q], slots - q);
            if (t < 0 || total > INT64_MAX - t) {
                st = ebb_fail(EBB_ERR_INVALID_ARG,
                              "online forward count for %lld steps and %d slots overflows 64 bits",
                              (long long)steps, slots);
                break;
            }
            total += t;
        }
        end = pl.pos[q];
    }
    ebb_online_place_free(&pl);
    if (st == EBB_OK)
        *count = total;
    return st;
}
