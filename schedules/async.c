/*
 * The asynchronous strategy as an action generator (see async.h).
 *
 * Stored states are kept in a list ordered by step, all in the slower tiers
 * (level 1, then 2), x_0 first: the fast slots stay free for the reverse
 * sweep, where each interval between two entries is reversed by Revolve over
 * all of them (one binomial engine, revolve_core.h, begun again for each
 * interval and shifted onto its steps), or, told the steps' costs, by the
 * chain program over the interval's costs (chain_interval.h).
 *
 * Cost per action, whatever the slot count and n: a free slot is popped from
 * a stack per level; the middle tier's oldest state is the first entry after
 * those already moved down (they are a prefix of the list); a thinning is
 * one pass over the list that frees half of it, one FREE per entry passed
 * over. Memory: 20 bytes per slow slot (the list and the free stacks),
 * allocated at creation, and the engine's stack, grown (doubled) when an
 * interval needs more fast slots than any before: no allocation per
 * interval. Told the costs: 8 bytes a step, and each interval's chain
 * program, made as its reversal begins (its time is in
 * docs/heterogeneous.md).
 */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "schedules/chain_interval.h"
#include "schedules/revolve_core.h"
#include "schedules/schedule_base.h"
#include "schedules/async.h"

typedef struct entry {
    int64_t step;
    int level; /* 1, 2: the slower tiers */
    int32_t slot;
} entry;

typedef enum phase { P_FORWARD, P_TURN, P_REVERSE, P_END } phase;

/* Actions of the interval's Revolve made but not yet handed out. */
enum { SUB_BUF = 64 };

struct rt_async {
    rt_async_options o;
    int64_t n;          /* 0 while unknown */
    phase ph;
    int64_t live;       /* forward: the step of the live state */
    int started;        /* forward: x_0 stored and the first step emitted */
    int64_t gap;        /* least spacing of stored states */
    entry *list;        /* stored states, by step; after a thinning the
                           dropped ones follow them (list[count .. count+ndrops-1]) */
    int64_t count, cap;
    int64_t ndrops;     /* thinned out, their FREE not emitted yet */
    int64_t nlow;       /* list[0 .. nlow-1] are at level 2, the rest at level 1 */
    int32_t *free[3];   /* per slower level: a stack of the slots given back */
    int64_t nfree[3];
    int32_t fresh[3];   /* per slower level: slots fresh .. its count - 1 never taken
                           (taken after the stack's, in order: no table walked
                           for slots a short run never uses) */

    /* reverse */
    int64_t top;        /* steps top .. n-1 are reversed */
    int64_t j;          /* the interval being reversed starts at list[j] */
    int sub_on;         /* an interval is being reversed */
    int64_t sub_len;
    ebb_revolve_core core; /* its Revolve, over the fast slots */
    int32_t core_levels;   /* levels the core's arrays hold */
    ebb_action sub_buf[SUB_BUF];
    int32_t sub_head, sub_count;
    double *costs;         /* NULL, or the n forward steps' costs */
    chain_interval ci;     /* the interval, where the chain program reverses it */
    int sub_chain;         /* the interval is the chain program's */
};

static void put(ebb_action *out, size_t *k, ebb_action a)
{
    out[(*k)++] = a;
}

static ebb_action act(int kind, int tier, int32_t slot, int64_t step)
{
    ebb_action a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.tier = (int16_t)tier;
    a.slot = slot;
    a.step = step;
    return a;
}

static ebb_action advance(int64_t from, int64_t to)
{
    ebb_action a = act(EBB_ACT_ADVANCE, 0, 0, from);
    a.to = to;
    return a;
}

void rt_async_options_init(rt_async_options *o, int64_t steps, ebb_tier fast, int32_t slots)
{
    memset(o, 0, sizeof *o);
    o->steps = steps;
    o->tiers = 1;
    o->tier[0] = fast;
    o->slots[0] = steps > 0 && slots > steps ? (int32_t)steps : slots;
}

int rt_async_add_tier(rt_async_options *o, ebb_tier tier, int32_t slots)
{
    if (o->steps > 0) {
        /* n known: x_0 .. x_{n-1} at most are stored; n unknown: every slot
         * given, thinning keeps any n within them */
        int64_t room = o->steps;
        for (int l = 1; l < o->tiers; l++)
            room -= o->slots[l];
        if (slots > room)
            slots = (int32_t)room;
    }
    if (slots <= 0 || o->tiers >= 3)
        return 0;
    o->tier[o->tiers] = tier;
    o->slots[o->tiers++] = slots;
    return 1;
}

ebb_status rt_async_create(const rt_async_options *o, rt_async **out)
{
    *out = NULL;
    if (o->tiers < 2 || o->tiers > 3)
        return ebb_fail(EBB_ERR_INVALID_ARG, "async needs 2 or 3 tiers, got %d", o->tiers);
    for (int l = 0; l < o->tiers; l++)
        if (o->slots[l] < 1)
            return ebb_fail(EBB_ERR_NO_MEMORY,
                            "async needs at least 1 slot in tier.%s, the budget gives %d",
                            ebb_tier_name(o->tier[l]), o->slots[l]);
    rt_async *a = calloc(1, sizeof *a);
    if (!a)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the async strategy");
    a->o = *o;
    a->n = o->steps;
    int64_t slow = 0;
    for (int l = 1; l < o->tiers; l++)
        slow += o->slots[l];
    a->cap = slow;
    size_t bytes = (size_t)slow * (sizeof *a->list + sizeof(int32_t));
    a->list = malloc((size_t)a->cap * sizeof *a->list);
    int ok = a->list != NULL;
    for (int l = 1; l < o->tiers; l++) {
        a->free[l] = malloc((size_t)o->slots[l] * sizeof *a->free[l]);
        ok = ok && a->free[l];
    }
    if (!ok) {
        rt_async_destroy(a);
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "cannot allocate the async strategy's tables for %lld slow slots "
                        "(%zu bytes)",
                        (long long)slow, bytes);
    }
    /* taken in order: slot 0 first */
    for (int l = 1; l < o->tiers; l++) {
        a->nfree[l] = 0;
        a->fresh[l] = 0;
    }
    /* n known: space the states so that the slow slots reach the end */
    a->gap = a->n > 1 ? (a->n + slow - 1) / slow : 1;
    if (a->gap < 1)
        a->gap = 1;
    *out = a;
    return EBB_OK;
}

void rt_async_destroy(rt_async *a)
{
    if (!a)
        return;
    ebb_revolve_core_free(&a->core);
    chain_interval_free(&a->ci);
    free(a->costs);
    free(a->list);
    for (int l = 0; l < 3; l++)
        free(a->free[l]);
    free(a);
}

void rt_async_tier_slots(const rt_async *a, int32_t slots[EBB_TIER_COUNT])
{
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        slots[t] = 0;
    for (int l = 0; l < a->o.tiers; l++)
        slots[a->o.tier[l]] += a->o.slots[l];
}

ebb_status rt_async_set_steps(rt_async *a, int64_t steps)
{
    if (a->n > 0)
        return ebb_fail(EBB_ERR_STATE, "async: n was already set to %lld", (long long)a->n);
    if (a->ph != P_FORWARD || steps != a->live || steps < 1)
        return ebb_fail(EBB_ERR_STATE, "async: the forward is at x_%lld, not x_%lld",
                        (long long)a->live, (long long)steps);
    a->n = steps;
    return EBB_OK;
}

ebb_status rt_async_set_forward_costs(rt_async *a, const double *costs, int64_t count)
{
    if (a->n == 0)
        return ebb_fail(EBB_ERR_STATE, "async: the steps' costs are taken once n is known");
    if (a->ph == P_REVERSE || a->ph == P_END)
        return ebb_fail(EBB_ERR_STATE, "async: the steps' costs come after the reverse began");
    if (count != a->n)
        return ebb_fail(EBB_ERR_INVALID_ARG, "async: %lld costs for %lld steps (one a step)",
                        (long long)count, (long long)a->n);
    double *c = malloc(sizeof *c * (size_t)count);
    if (!c)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the costs of %lld steps",
                        (long long)count);
    memcpy(c, costs, sizeof *c * (size_t)count);
    free(a->costs);
    a->costs = c;
    return EBB_OK;
}

/* The slot the next store to `level` takes (not taken yet), or -1. */
static int32_t free_slot(const rt_async *a, int level)
{
    if (a->nfree[level] > 0)
        return a->free[level][a->nfree[level] - 1];
    return a->fresh[level] < a->o.slots[level] ? a->fresh[level] : -1;
}

/* Takes free_slot(a, level). */
static void take_slot(rt_async *a, int level, int32_t s)
{
    (void)s;
    if (a->nfree[level] > 0)
        a->nfree[level]--;
    else
        a->fresh[level]++;
}

static void drop_slot(rt_async *a, int level, int32_t s)
{
    if (level > 0)
        a->free[level][a->nfree[level]++] = s;
}

/* Every slow slot is full: every other stored state (x_0 stays) is dropped
 * and the spacing doubles. The kept ones move to the front in order, the
 * dropped ones after them, whose FREEs go out in the next batches, before
 * any store reuses a slot or a list entry. */
static void thin(rt_async *a)
{
    int64_t w = 1, low = a->list[0].level == 2;
    for (int64_t i = 1; i < a->count; i++) {
        if (i % 2)
            continue;
        entry keep = a->list[i];
        a->list[i] = a->list[w];
        a->list[w++] = keep;
        low += keep.level == 2;
    }
    a->ndrops = a->count - w;
    a->count = w;
    a->nlow = low;
    a->gap *= 2;
}

/* The oldest stored state of the middle tier (level 1): states move down
 * oldest first and are dropped in order, so those at level 2 come first. */
static int64_t oldest_middle(const rt_async *a)
{
    return a->nlow;
}

/* The store decision at x_i (1 <= i < n): emits what it decides (at most
 * two actions). One `idle` question: the channel down from the fast tier,
 * and the one below the middle tier when that must evict to make room. */
static ebb_status decide(rt_async *a, int64_t i, ebb_action *out, size_t *k,
                         rt_async_idle_fn idle, void *ctx)
{
    int64_t last = a->list[a->count - 1].step;
    if (i - last < a->gap)
        return EBB_OK;
    int32_t s = free_slot(a, 1);
    int32_t d = s < 0 && a->o.tiers == 3 ? free_slot(a, 2) : -1;
    int mask = 1 | (d >= 0 ? 2 : 0), free_now = 0;
    ebb_status st = idle(ctx, mask, i, &free_now);
    if (st != EBB_OK || !free_now)
        return st;
    if (s < 0 && d < 0) {
        /* every slow slot is full */
        thin(a);
        return EBB_OK;
    }
    if (s < 0) {
        /* the middle tier is full: its oldest state moves down */
        int64_t e = oldest_middle(a);
        ebb_action ev = act(EBB_ACT_EVICT, a->o.tier[1], a->list[e].slot, a->list[e].step);
        ev.tier_to = (int16_t)a->o.tier[2];
        ev.slot_to = d;
        put(out, k, ev);
        s = a->list[e].slot;
        drop_slot(a, 1, s);
        take_slot(a, 2, d);
        a->list[e].level = 2;
        a->list[e].slot = d;
        a->nlow++;
    }
    put(out, k, act(EBB_ACT_STORE, a->o.tier[1], s, i));
    take_slot(a, 1, s);
    a->list[a->count++] = (entry){.step = i, .level = 1, .slot = s};
    return EBB_OK;
}

static ebb_status forward(rt_async *a, ebb_action *out, size_t cap, size_t *k,
                          rt_async_idle_fn idle, void *ctx)
{
    if (a->ndrops > 0) {
        /* thinned states first: one batch of FREEs at a time */
        while (a->ndrops > 0 && *k < cap) {
            entry e = a->list[a->count + --a->ndrops];
            put(out, k, act(EBB_ACT_FREE, a->o.tier[e.level], e.slot, e.step));
            drop_slot(a, e.level, e.slot);
        }
        return EBB_OK;
    }
    if (cap < 4)
        return ebb_fail(EBB_ERR_INVALID_ARG, "async: a batch of %zu actions is too small", cap);
    if (!a->started) {
        /* x_0 goes down first, whatever the channel: it is always needed */
        a->started = 1;
        int32_t s = free_slot(a, 1);
        put(out, k, act(EBB_ACT_STORE, a->o.tier[1], s, 0));
        take_slot(a, 1, s);
        a->list[a->count++] = (entry){.step = 0, .level = 1, .slot = s};
    } else if (a->n > 0 && a->live == a->n) {
        put(out, k, act(EBB_ACT_TURN, 0, 0, a->n));
        a->ph = P_TURN;
        return EBB_OK;
    } else {
        ebb_status st = decide(a, a->live, out, k, idle, ctx);
        if (st != EBB_OK)
            return st;
        if (a->ndrops > 0)
            return forward(a, out, cap, k, idle, ctx);
    }
    /* steps that cannot end in a store run as one ADVANCE */
    int64_t to = a->live + 1;
    int64_t next_store = a->list[a->count - 1].step + a->gap;
    if (next_store > to)
        to = next_store;
    if (a->n > 0 && to > a->n)
        to = a->n;
    if (a->n == 0)
        to = a->live + 1; /* n unknown: every step may be the last */
    put(out, k, advance(a->live, to));
    a->live = to;
    return EBB_OK;
}

/* The interval's Revolve over `levels` fast slots (slot k for level k): the
 * engine's arrays grow when an interval needs more levels than any before. */
static ebb_status begin_core(rt_async *a, int64_t len)
{
    int32_t levels = ebb_useful_levels(len, a->o.slots[0]);
    a->sub_head = a->sub_count = 0;
    a->sub_on = 1;
    a->sub_chain = 0;
    if (a->costs && chain_interval_takes(len, levels)) {
        int64_t start = a->list[a->j].step;
        a->sub_chain = chain_interval_begin(&a->ci, a->costs + start, start, len, a->o.tier[0],
                                            NULL, levels, 0) == EBB_OK;
        if (a->sub_chain)
            return EBB_OK;
        ebb_clear_error(); /* a chain that could not be made: Revolve */
    }
    if (levels > a->core_levels) {
        int32_t grow = a->core_levels > 0 ? a->core_levels : 8;
        while (grow < levels)
            grow = grow > INT32_MAX / 2 ? levels : grow * 2;
        if (grow > a->o.slots[0])
            grow = a->o.slots[0];
        ebb_revolve_core_free(&a->core);
        a->core_levels = 0;
        ebb_status st = ebb_revolve_core_alloc(&a->core, grow);
        if (st != EBB_OK)
            return st;
        for (int32_t l = 0; l < grow; l++) {
            a->core.tier_of[l] = (int16_t)a->o.tier[0];
            a->core.slot_of[l] = l;
        }
        a->core_levels = grow;
    }
    ebb_revolve_core_begin(&a->core, 0, len, levels, 0, 0, 1);
    a->sub_len = len;
    return EBB_OK;
}

/* Starts reversing the interval that begins at list[j]. */
static ebb_status begin_interval(rt_async *a, ebb_action *out, size_t *k)
{
    entry e = a->list[a->j];
    int64_t len = a->top - e.step;
    ebb_tier t = a->o.tier[e.level];
    if (len <= 0) {
        put(out, k, act(EBB_ACT_FREE, t, e.slot, e.step));
        drop_slot(a, e.level, e.slot);
        return EBB_OK;
    }
    put(out, k, act(EBB_ACT_RESTORE, t, e.slot, e.step));
    put(out, k, act(EBB_ACT_FREE, t, e.slot, e.step));
    drop_slot(a, e.level, e.slot);
    return begin_core(a, len);
}

/* The next action of the interval's reversal; *done once it has reversed
 * every step. The chain program's come shifted onto the interval already;
 * Revolve's are shifted onto its steps and slots here, its forward sweep
 * stopping at x_{len-1}, the last step it reverses (x_len is the next
 * interval's, already reversed). */
static ebb_status sub_next(rt_async *a, ebb_action *out, size_t *k, int *done)
{
    *done = 0;
    if (a->sub_head == a->sub_count) {
        ebb_action *limit = a->sub_buf + SUB_BUF - EBB_GROUP_MAX, *end = a->sub_buf;
        if (a->sub_chain)
            end = chain_interval_fill(&a->ci, a->sub_buf, limit);
        else if (!ebb_revolve_core_done(&a->core))
            end = ebb_revolve_core_fill(&a->core, a->sub_buf, limit);
        a->sub_head = 0;
        a->sub_count = (int32_t)(end - a->sub_buf);
        if (a->sub_count == 0) {
            *done = 1;
            return EBB_OK;
        }
    }
    ebb_action s = a->sub_buf[a->sub_head++];
    if (a->sub_chain) {
        put(out, k, s);
        return EBB_OK;
    }
    int64_t off = a->list[a->j].step;
    switch (s.kind) {
    case EBB_ACT_TURN:
        return EBB_OK;
    case EBB_ACT_ADVANCE:
        if (s.to == a->sub_len)
            s.to--;
        if (s.to > s.step)
            put(out, k, advance(s.step + off, s.to + off));
        return EBB_OK;
    case EBB_ACT_STORE:
    case EBB_ACT_RESTORE:
    case EBB_ACT_FREE:
    case EBB_ACT_REVERSE:
        s.step += off;
        put(out, k, s);
        return EBB_OK;
    default:
        return ebb_fail(EBB_ERR_INTERNAL, "async: Revolve emitted a %s",
                        ebb_action_kind_name(s.kind));
    }
}

static ebb_status reverse(rt_async *a, ebb_action *out, size_t cap, size_t *k)
{
    if (a->ph == P_TURN) {
        put(out, k, act(EBB_ACT_REVERSE, 0, 0, a->n - 1));
        a->top = a->n - 1;
        a->j = a->count - 1;
        a->ph = P_REVERSE;
    }
    while (*k + 3 <= cap && a->ph == P_REVERSE) {
        if (!a->sub_on) {
            if (a->j < 0) {
                put(out, k, act(EBB_ACT_END, 0, 0, 0));
                a->ph = P_END;
                break;
            }
            ebb_status st = begin_interval(a, out, k);
            if (st != EBB_OK)
                return st;
            if (!a->sub_on) {
                a->top = a->list[a->j--].step;
                continue;
            }
        }
        int done = 0;
        ebb_status st = sub_next(a, out, k, &done);
        if (st != EBB_OK)
            return st;
        if (done) {
            a->sub_on = 0;
            a->top = a->list[a->j--].step;
        }
    }
    return EBB_OK;
}

ebb_status rt_async_next_batch(rt_async *a, ebb_action *out, size_t cap, size_t *count,
                               rt_async_idle_fn idle, void *ctx)
{
    *count = 0;
    if (a->ph == P_END) {
        out[0] = act(EBB_ACT_END, 0, 0, 0);
        *count = 1;
        return EBB_OK;
    }
    if (a->ph == P_FORWARD)
        return forward(a, out, cap, count, idle, ctx);
    return reverse(a, out, cap, count);
}
