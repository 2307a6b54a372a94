/*
 * Heterogeneous chains (ebb/chain.h): the schedule that the tables of
 * chain_tree.c describe (one exact program up to CHAIN_DP_MAX_STEPS steps),
 * generated one part at a time from a stack of pending parts, a group's
 * reverse expanded into its own program's parts when it is reached; or
 * Revolve's with the largest state's slots where that costs less. Slot
 * numbers are reused last-freed first, so they stay below the most states
 * held at once, which a dry run at creation counts.
 */
#include <math.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "ebb/chain.h"
#include "schedules/chain_tree.h"
#include "schedules/chain_check.h"
#include "schedules/chain_internal.h"
#include "schedules/schedule_internal.h"
#include "schedules/schedule_base.h"

enum { NONE = -1 };

/* How the schedule is made: the tree of programs (chain_tree.h; one node
 * of single steps, the exact program, up to CHAIN_DP_MAX_STEPS steps),
 * Revolve for a long uniform chain, or, where no group of the tree fits
 * its input beside x_0, every step recomputed from x_0. */
enum chain_mode { MODE_TREE, MODE_REVOLVE, MODE_FROM_X0 };

typedef struct part {
    int32_t depth, s, k, t, m; /* (s, k, t, m) of the node solved at depth */
    int16_t taped;             /* 1: reverse child s from its tape, then free x_s */
    int16_t slow;              /* x_s is in the slow tier */
} part;

typedef struct chain_schedule {
    struct ebb_schedule base;
    int mode;
    int32_t n;
    double *fwd, *rev; /* the chain's costs, n each */
    double *bwd;       /* NULL, or the reverse costs from tapes, n */
    int32_t *tape;     /* with bwd: the tapes in units, n */
    double *wr, *rd;   /* NULL, or moving x_i to and from the slow tier, n each */
    ebb_tier tier[2];  /* the fast tier and the slow one */
    double *pre;       /* pre[i] = fwd[0] + .. + fwd[i-1], n + 1 */
    int32_t *size;     /* its states in units, n */
    chain_tree tree;
    ebb_schedule *inner; /* MODE_REVOLVE: the uniform chain's schedule */
    ebb_chain_info info;
    part *stack;      /* parts still to do, the next on top */
    int32_t depth, stack_cap;
    int32_t *slot_of; /* the slot holding x_i, n */
    int8_t *tier_of;  /* 0: fast, 1: slow, n */
    int32_t *free_slots[2];
    int32_t nfree[2], next_slot[2];
    int x0_slow;      /* x_0 goes to the slow tier */
    int32_t live; /* the live state, NONE after a reverse step */
    int32_t next_step; /* MODE_FROM_X0: the step to reverse next */
    int tape_one;      /* n == 1: step 0 keeps its tape */
    int turned, started;
} chain_schedule;

static void reset(chain_schedule *c)
{
    c->depth = 0;
    c->nfree[0] = c->nfree[1] = 0;
    c->next_slot[0] = c->next_slot[1] = 0;
    c->live = 0;
    c->next_step = c->n - 1;
    c->turned = 0;
    c->started = 0;
    c->base.done = 0;
    c->base.queue_head = c->base.queue_len = 0;
}

static int32_t take_slot(chain_schedule *c, int v)
{
    return c->nfree[v] > 0 ? c->free_slots[v][--c->nfree[v]] : c->next_slot[v]++;
}

/* Stores the live x_i in the fast tier (v = 0) or the slow one. */
static ebb_action *store_in(chain_schedule *c, ebb_action *a, int32_t i, int v)
{
    int32_t slot = take_slot(c, v);
    c->slot_of[i] = slot;
    c->tier_of[i] = (int8_t)v;
    return ebb_emit(a, EBB_ACT_STORE, c->tier[v], slot, i, 0);
}

static ebb_action *store(chain_schedule *c, ebb_action *a, int32_t i)
{
    return store_in(c, a, i, 0);
}

static ebb_action *release(chain_schedule *c, ebb_action *a, int32_t i)
{
    int v = c->tier_of[i];
    c->free_slots[v][c->nfree[v]++] = c->slot_of[i];
    return ebb_emit(a, EBB_ACT_FREE, c->tier[v], c->slot_of[i], i, 0);
}

static ebb_action *restore(chain_schedule *c, ebb_action *a, int32_t i)
{
    if (c->live == i)
        return a;
    c->live = i;
    return ebb_emit(a, EBB_ACT_RESTORE, c->tier[c->tier_of[i]], c->slot_of[i], i, 0);
}

/* Moves x_i from its fast slot to a slow one. */
static ebb_action *evict(chain_schedule *c, ebb_action *a, int32_t i)
{
    int32_t from = c->slot_of[i], to = take_slot(c, 1);
    c->free_slots[0][c->nfree[0]++] = from;
    c->slot_of[i] = to;
    c->tier_of[i] = 1;
    a = ebb_emit(a, EBB_ACT_EVICT, c->tier[0], from, i, 0);
    a[-1].tier_to = (int16_t)c->tier[1];
    a[-1].slot_to = to;
    return a;
}

/* Runs x_s forward to x_to; reaching x_n for the first time is the turn,
 * which leaves x_{n-1} live. */
static ebb_action *advance(chain_schedule *c, ebb_action *a, int32_t s, int32_t to)
{
    int32_t n = c->n;
    if (to == n - 1 && !c->turned) {
        a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, s, n);
        a = ebb_emit(a, EBB_ACT_TURN, 0, 0, n, 0);
        c->turned = 1;
    } else if (to > s) {
        a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, s, to);
    }
    c->live = to;
    return a;
}

static ebb_action *reverse(chain_schedule *c, ebb_action *a, int32_t i)
{
    c->live = NONE;
    return ebb_emit(a, EBB_ACT_REVERSE, 0, 0, i, 0);
}

static void push_in(chain_schedule *c, int32_t depth, int32_t s, int32_t k, int32_t t,
                    int32_t m, int slow)
{
    c->stack[c->depth++] = (part){depth, s, k, t, m, 0, (int16_t)slow};
}

static void push(chain_schedule *c, int32_t depth, int32_t s, int32_t k, int32_t t, int32_t m)
{
    push_in(c, depth, s, k, t, m, 0);
}

/* Runs step i on the live x_i keeping its tape; reaching x_n for the
 * first time is the turn, which leaves x_{n-1} live. */
static ebb_action *tape(chain_schedule *c, ebb_action *a, int32_t i)
{
    a = ebb_emit(a, EBB_ACT_TAPE, 0, 0, i, 0);
    c->live = i + 1;
    if (i == c->n - 1 && !c->turned) {
        a = ebb_emit(a, EBB_ACT_TURN, 0, 0, c->n, 0);
        c->turned = 1;
        c->live = i;
    }
    return a;
}

/* Reverses child i of the node at `depth`, whose input x_at is live, with
 * M units free, x_at's included: one step, or the child's own program
 * from x_at, stored unless `stored` (then it is x_at's slot already, freed
 * by the child's program). */
static ebb_action *reverse_child(chain_schedule *c, ebb_action *a, int32_t depth, int32_t i,
                                 int32_t M, int stored)
{
    chain_tree *t = &c->tree;
    int32_t node = t->node_of[depth];
    int32_t x = t->cut[t->at[node] + node + i], kid = t->kid[t->at[node] + i];
    if (kid < 0) {
        a = reverse(c, a, x);
        return stored ? release(c, a, x) : a;
    }
    if (!stored)
        a = store(c, a, x);
    if (M > t->levels)
        M = t->levels;
    chain_tree_solve(t, depth + 1, kid);
    push(c, depth + 1, 0, 0, t->count[kid], M - c->size[x]);
    return a;
}

/* One part's actions (at most seven) and the parts it leaves. */
static ebb_action *do_part(chain_schedule *c, ebb_action *a, part p)
{
    chain_tree *t = &c->tree;
    const chain_dp *dp = &t->dp[p.depth];
    int32_t node = t->node_of[p.depth];
    const int32_t *x = &t->cut[t->at[node] + node]; /* the children's inputs */
    const int32_t *size = dp->in.size;
    const int32_t L = dp->levels;
    if (p.taped) {
        a = reverse(c, a, x[p.s]);
        return release(c, a, x[p.s]);
    }
    /* the fast units x_s takes, and those free once it is gone */
    int32_t own = p.slow ? 0 : size[p.s];
    int32_t freed = p.m + own < L ? p.m + own : L;
    chain_choice ch = chain_dp_choice_in(dp, p.s, p.k, p.t, p.m, p.slow);
    switch (ch.kind) {
    case CHAIN_NONE:
        return release(c, a, x[p.s]);
    case CHAIN_LAST:
        a = restore(c, a, x[p.s]);
        a = advance(c, a, x[p.s], x[p.t - 1]);
        if (p.t - 1 == p.s)
            return reverse_child(c, a, p.depth, p.s, p.m + own, 1);
        push_in(c, p.depth, p.s, p.k, p.t - 1, p.m, p.slow);
        return reverse_child(c, a, p.depth, p.t - 1, p.m, 0);
    case CHAIN_MOVE:
        a = restore(c, a, x[p.s]);
        a = release(c, a, x[p.s]);
        a = advance(c, a, x[p.s], x[p.k]);
        if (p.k == p.t - 1)
            return reverse_child(c, a, p.depth, p.k, p.m + own, 0);
        a = store_in(c, a, x[p.k], ch.slow);
        push_in(c, p.depth, p.k, p.k, p.t, ch.slow ? freed : freed - size[p.k], ch.slow);
        return a;
    case CHAIN_TAPE: {
        /* child s is one step, x[s] -> x[s] + 1 = x[s+1]; x_s is fast */
        int32_t left = p.m - c->tape[x[p.s]];
        a = restore(c, a, x[p.s]);
        a = tape(c, a, x[p.s]);
        if (p.t - 1 == p.s) {
            a = reverse(c, a, x[p.s]);
            return release(c, a, x[p.s]);
        }
        c->stack[c->depth++] = (part){p.depth, p.s, p.k, p.t, p.m, 1, 0};
        if (ch.j) { /* child s+1, the last left, from the live x[s+1] */
            a = advance(c, a, x[p.s + 1], x[p.s + 1]);
            return reverse_child(c, a, p.depth, p.s + 1, left, 0);
        }
        a = store_in(c, a, x[p.s + 1], ch.slow);
        push_in(c, p.depth, p.s + 1, p.s + 1, p.t, ch.slow ? left : left - size[p.s + 1],
                ch.slow);
        return a;
    }
    case CHAIN_PROMOTE:
        a = restore(c, a, x[p.s]);
        a = release(c, a, x[p.s]);
        a = store_in(c, a, x[p.s], 0);
        push_in(c, p.depth, p.s, p.k, p.t, p.m - size[p.s], 0);
        return a;
    case CHAIN_DEMOTE:
        a = evict(c, a, x[p.s]);
        push_in(c, p.depth, p.s, p.k, p.t, freed, 1);
        return a;
    default: /* CHAIN_SPLIT */
        a = restore(c, a, x[p.s]);
        if (ch.j == p.t - 1) {
            /* x_{t-1} stored for its part to tape step t-1: the first
             * sweep stops there, the tape reaches x_n */
            a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, x[p.s], x[ch.j]);
            c->live = x[ch.j];
        } else {
            a = advance(c, a, x[p.s], x[ch.j]);
        }
        a = store_in(c, a, x[ch.j], ch.slow);
        push_in(c, p.depth, p.s, p.k, ch.kk, p.m, p.slow);
        push_in(c, p.depth, ch.j, ch.kk, p.t, ch.slow ? p.m : p.m - size[ch.j], ch.slow);
        return a;
    }
}

/* MODE_FROM_X0: x_0 stored; each step, last first, from x_0. */
static ebb_action *from_x0(chain_schedule *c, ebb_action *a)
{
    int32_t i = c->next_step--;
    a = restore(c, a, 0);
    a = advance(c, a, 0, i);
    a = reverse(c, a, i);
    return i == 0 ? release(c, a, 0) : a;
}

static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    chain_schedule *c = (chain_schedule *)s;
    if (c->mode == MODE_REVOLVE)
        return c->inner->ops->fill(c->inner, out, capacity);
    int32_t n = c->n;
    ebb_action *a = out;
    if (!c->started) {
        c->started = 1;
        if (n == 1) {
            a = c->tape_one ? tape(c, a, 0) : advance(c, a, 0, 0);
            return (size_t)(reverse(c, a, 0) - out);
        }
        int slow = c->mode == MODE_TREE && c->x0_slow;
        a = store_in(c, a, 0, slow);
        if (c->mode == MODE_TREE) {
            chain_tree *t = &c->tree;
            if (t->node_of[0] != 0)
                chain_tree_solve(t, 0, 0);
            push_in(c, 0, 0, 0, t->count[0], t->levels - (slow ? 0 : c->size[0]), slow);
        }
    }
    if (c->mode == MODE_FROM_X0) {
        while (c->next_step >= 0 && (size_t)(a - out) + 5 <= capacity)
            a = from_x0(c, a);
        if (c->next_step < 0 && a - out < (ptrdiff_t)capacity)
            a = ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0);
        return (size_t)(a - out);
    }
    /* a part writes at most seven actions (a tape whose next step is
     * reversed at once, the turn between) */
    while (c->depth > 0 && (size_t)(a - out) + 7 <= capacity)
        a = do_part(c, a, c->stack[--c->depth]);
    if (c->depth == 0 && a - out < (ptrdiff_t)capacity)
        a = ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0);
    return (size_t)(a - out);
}

static void destroy(ebb_schedule *s)
{
    chain_schedule *c = (chain_schedule *)s;
    chain_tree_free(&c->tree);
    ebb_schedule_destroy(c->inner);
    free(c->fwd);
    free(c->rev);
    free(c->bwd);
    free(c->tape);
    free(c->wr);
    free(c->rd);
    free(c->pre);
    free(c->size);
    free(c->stack);
    free(c->slot_of);
    free(c->tier_of);
    free(c->free_slots[0]);
    free(c->free_slots[1]);
}

static const ebb_schedule_ops chain_ops = {.fill = fill, .destroy = destroy};

void ebb_chain_options_init(ebb_chain_options *o)
{
    if (o)
        *o = (ebb_chain_options){.memory_bytes = 0, .tier = EBB_TIER_HOST, .memory_levels = 0,
                                 .slow_tier = EBB_TIER_COUNT};
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static ebb_status check_chain(const ebb_chain *ch, const ebb_chain_options *o)
{
    if (ch->steps < 1 || ch->steps > EBB_CHAIN_MAX_STEPS)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "a chain takes 1 .. %d steps here, got %lld: cut it into chains "
                        "of at most that many, or use a schedule for uniform steps "
                        "(ebb/schedule.h)",
                        EBB_CHAIN_MAX_STEPS, (long long)ch->steps);
    ebb_status st = chain_check_steps(ch);
    if (st != EBB_OK)
        return st;
    if (o->tier < 0 || o->tier >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "the chain's tier %d is not a tier", (int)o->tier);
    if (o->slow_tier != EBB_TIER_COUNT) {
        if (o->slow_tier < 0 || o->slow_tier >= EBB_TIER_COUNT || o->slow_tier == o->tier)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "the chain's slow_tier %d must be a tier other than its tier (%s), "
                            "or EBB_TIER_COUNT for none", (int)o->slow_tier,
                            ebb_tier_name(o->tier));
        double w = o->write_cost_per_byte, r = o->read_cost_per_byte;
        if (!isfinite(w) || w < 0 || !isfinite(r) || r < 0)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "the slow tier's write_cost_per_byte and read_cost_per_byte must be "
                            "finite and >= 0, got %g and %g", w, r);
    }
    if (o->memory_levels < 0 || o->memory_levels > 1 << 16)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "memory_levels must be 0 (the default, 256) .. 65536, got %d",
                        o->memory_levels);
    if (ch->steps >= 2 && ch->state_bytes[0] > o->memory_bytes)
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "a budget of %llu bytes does not hold x_0 (%llu bytes), which a chain of "
                        "%lld steps keeps: raise memory_bytes",
                        (unsigned long long)o->memory_bytes,
                        (unsigned long long)ch->state_bytes[0], (long long)ch->steps);
    return EBB_OK;
}

/* The unit the budget is counted in, the budget and the sizes in units. */
static ebb_status count_units(const ebb_chain *ch, const ebb_chain_options *o, int32_t group,
                              int32_t tiers, int32_t *size, int32_t *tape, ebb_chain_info *info)
{
    int32_t n = (int32_t)ch->steps;
    uint64_t levels = o->memory_levels ? (uint64_t)o->memory_levels : 256;
    /* The exact program's table has C(n+3, 3) rows of levels + 1 cells; a
     * long chain's tree keeps levels + 1 costs per node (< n of them) and a
     * table of C(group+3, 3) rows per depth: at most CHAIN_DP_MAX_CELLS
     * cells each, whatever memory_levels asks. */
    uint64_t rows = n <= group ? chain_dp_rows(n) * (uint64_t)tiers
                               : (uint64_t)n + CHAIN_TREE_MAX_DEPTHS / 4 * chain_dp_rows(group);
    if (levels > CHAIN_DP_MAX_CELLS / rows - 1)
        levels = CHAIN_DP_MAX_CELLS / rows - 1;
    uint64_t unit = 0;
    for (int32_t i = 0; i < n; i++)
        unit = gcd(unit, ch->state_bytes[i]);
    if (tape)
        for (int32_t i = 0; i < n; i++)
            unit = gcd(unit, ch->tape_bytes[i]);
    if (o->memory_bytes / unit > levels)
        unit = o->memory_bytes / levels + (o->memory_bytes % levels != 0);
    info->unit_bytes = unit;
    info->units = (int32_t)(o->memory_bytes / unit);
    for (int32_t i = 0; i < n; i++) {
        uint64_t u = ch->state_bytes[i] / unit + (ch->state_bytes[i] % unit != 0);
        size[i] = u > (uint64_t)info->units ? info->units + 1 : (int32_t)u;
    }
    /* x_0 fits in bytes (check_chain) but its rounding may pass the units:
     * it then counts as all of them, which is safe, since nothing else is
     * stored beside it and a state that replaces it takes whole units. */
    if (size[0] > info->units)
        size[0] = info->units;
    if (tape)
        for (int32_t i = 0; i < n; i++) {
            uint64_t u = ch->tape_bytes[i] / unit + (ch->tape_bytes[i] % unit != 0);
            tape[i] = u > (uint64_t)info->units ? info->units + 1 : (int32_t)u;
        }
    return EBB_OK;
}

/* Generates the whole stream once to count the slots it holds at once. */
static ebb_status count_slots(chain_schedule *c)
{
    ebb_action buf[64];
    size_t got;
    do {
        got = fill(&c->base, buf, sizeof buf / sizeof *buf);
    } while (got > 0 && buf[got - 1].kind != EBB_ACT_END);
    c->base.tier_slots[c->tier[0]] = c->next_slot[0] > 0 ? c->next_slot[0] : 1;
    if (c->wr)
        c->base.tier_slots[c->tier[1]] = c->next_slot[1];
    c->base.options.slots = c->base.tier_slots[c->tier[0]];
    reset(c);
    return EBB_OK;
}

/* Every step alike: forward costs, reverse costs and sizes. */
static int uniform(const ebb_chain *ch)
{
    for (int64_t i = 1; i < ch->steps; i++)
        if (ch->forward_cost[i] != ch->forward_cost[0] ||
            ch->reverse_cost[i] != ch->reverse_cost[0] ||
            ch->state_bytes[i] != ch->state_bytes[0])
            return 0;
    return 1;
}

/* Revolve with the slots the budget holds of the largest state, made in
 * c->inner, and its cost with the chain's costs in *cost (HUGE_VAL, and no
 * schedule, where the budget holds none). */
static ebb_status make_revolve(chain_schedule *c, uint64_t largest, uint64_t budget,
                               double *cost)
{
    int32_t n = c->n;
    uint64_t slots = budget / largest;
    *cost = HUGE_VAL;
    if (slots < 1)
        return EBB_OK;
    ebb_schedule_options so = c->base.options;
    so.slots = slots < (uint64_t)n ? (int32_t)slots : n;
    ebb_status st = ebb_revolve_create(&so, &c->inner);
    if (st != EBB_OK)
        return st;
    double sum = 0;
    ebb_action buf[256];
    size_t got;
    do {
        got = c->inner->ops->fill(c->inner, buf, sizeof buf / sizeof *buf);
        for (size_t i = 0; i < got; i++)
            if (buf[i].kind == EBB_ACT_ADVANCE)
                sum += c->pre[buf[i].to] - c->pre[buf[i].step];
            else if (buf[i].kind == EBB_ACT_REVERSE)
                sum += c->rev[buf[i].step];
    } while (got > 0 && buf[got - 1].kind != EBB_ACT_END);
    /* the schedule anew, from its first action */
    ebb_schedule_destroy(c->inner);
    c->inner = NULL;
    if ((st = ebb_revolve_create(&so, &c->inner)) != EBB_OK)
        return st;
    *cost = sum;
    return EBB_OK;
}

/* Gives the schedule to c->inner, Revolve's. */
static void use_revolve(chain_schedule *c, double cost)
{
    c->mode = MODE_REVOLVE;
    c->info.cost = cost;
    for (int i = 0; i < EBB_TIER_COUNT; i++)
        c->base.tier_slots[i] = c->inner->tier_slots[i];
    c->base.options.slots = c->inner->options.slots;
}

ebb_status chain_schedule_create_grouped(const ebb_chain *chain, const ebb_chain_options *options,
                                         int32_t group, int with_revolve, ebb_schedule **out)
{
    if (!out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_chain_schedule_create: out is NULL");
    *out = NULL;
    if (!chain || !options)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_chain_schedule_create: NULL argument");
    ebb_status st = check_chain(chain, options);
    if (st != EBB_OK)
        return st;
    if (group != 0 && (group < 2 || group > CHAIN_DP_MAX_FORCED))
        return ebb_fail(EBB_ERR_INVALID_ARG, "a chain's program takes 2 .. %d children per "
                        "group, got %d", CHAIN_DP_MAX_FORCED, group);
    int32_t n = (int32_t)chain->steps;
    ebb_schedule_options so;
    ebb_schedule_options_init(&so);
    so.strategy = EBB_STRATEGY_REVOLVE;
    so.steps = n;
    so.slots = 1;
    so.disk_slots = 0;
    so.fast_tier = options->tier;
    if ((st = ebb_schedule_alloc(sizeof(chain_schedule), &chain_ops, &so, out)) != EBB_OK)
        return st;
    chain_schedule *c = (chain_schedule *)*out;
    c->n = n;
    c->size = malloc(sizeof *c->size * (size_t)n);
    c->fwd = malloc(sizeof *c->fwd * (size_t)n);
    c->rev = malloc(sizeof *c->rev * (size_t)n);
    c->pre = malloc(sizeof *c->pre * (size_t)(n + 1));
    if (!c->size || !c->fwd || !c->rev || !c->pre)
        return ebb_schedule_discard(out, ebb_fail(EBB_ERR_NO_MEMORY,
                                                  "cannot allocate a chain schedule of %d steps",
                                                  n));
    uint64_t largest = 0, all = 0;
    c->pre[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        c->fwd[i] = chain->forward_cost[i];
        c->rev[i] = chain->reverse_cost[i];
        c->pre[i + 1] = c->pre[i] + c->fwd[i];
        if (largest < chain->state_bytes[i])
            largest = chain->state_bytes[i];
        all = all + chain->state_bytes[i] < all ? UINT64_MAX : all + chain->state_bytes[i];
    }
    if (group == 0)
        group = n <= CHAIN_DP_MAX_STEPS ? n : CHAIN_TREE_GROUP;
    if (chain->tape_bytes) {
        c->bwd = malloc(sizeof *c->bwd * (size_t)n);
        c->tape = malloc(sizeof *c->tape * (size_t)n);
        if (!c->bwd || !c->tape)
            return ebb_schedule_discard(out, ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate "
                                                      "the tapes of a chain of %d steps", n));
        for (int32_t i = 0; i < n; i++)
            c->bwd[i] = chain->backward_cost[i];
    }
    /* a slow tier: for the exact program over the whole chain */
    c->tier[0] = options->tier;
    c->tier[1] = options->slow_tier;
    if (options->slow_tier != EBB_TIER_COUNT && n <= group) {
        c->wr = malloc(sizeof *c->wr * (size_t)n);
        c->rd = malloc(sizeof *c->rd * (size_t)n);
        if (!c->wr || !c->rd)
            return ebb_schedule_discard(out, ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate "
                                                      "the slow tier's costs of %d steps", n));
        for (int32_t i = 0; i < n; i++) {
            c->wr[i] = options->write_cost_per_byte * (double)chain->state_bytes[i];
            c->rd[i] = options->read_cost_per_byte * (double)chain->state_bytes[i];
        }
        c->base.options.slow_tier = options->slow_tier;
    }
    st = count_units(chain, options, group, c->wr ? 2 : 1, c->size, c->tape, &c->info);
    if (st != EBB_OK)
        return ebb_schedule_discard(out, st);
    /* Longer than one exact program, every state fitting: each kept, none
     * recomputed, the least cost there is (the hierarchy's units, rounded
     * up, may not hold them all) */
    if (with_revolve && n > group && all <= options->memory_bytes && !chain->tape_bytes &&
        options->slow_tier == EBB_TIER_COUNT) {
        double cost = HUGE_VAL;
        if ((st = make_revolve(c, 1, (uint64_t)n, &cost)) != EBB_OK)
            return ebb_schedule_discard(out, st);
        use_revolve(c, cost);
        return EBB_OK;
    }
    /* Longer than one exact program: Revolve with the largest state's
     * slots is a candidate too, and the schedule on a uniform chain. */
    double revolve_cost = HUGE_VAL;
    if (with_revolve && n > group &&
        (st = make_revolve(c, largest, options->memory_bytes, &revolve_cost)) != EBB_OK)
        return ebb_schedule_discard(out, st);
    if (c->inner && !c->tape && uniform(chain)) {
        use_revolve(c, revolve_cost);
        return EBB_OK;
    }
    int32_t depths = CHAIN_TREE_MAX_DEPTHS;
    c->stack_cap = depths * (2 * group + 4);
    c->stack = malloc(sizeof *c->stack * (size_t)c->stack_cap);
    c->slot_of = malloc(sizeof *c->slot_of * (size_t)n);
    c->tier_of = malloc(sizeof *c->tier_of * (size_t)n);
    c->free_slots[0] = malloc(sizeof *c->free_slots[0] * (size_t)n);
    c->free_slots[1] = malloc(sizeof *c->free_slots[1] * (size_t)n);
    if (!c->stack || !c->slot_of || !c->tier_of || !c->free_slots[0] || !c->free_slots[1])
        return ebb_schedule_discard(out, ebb_fail(EBB_ERR_NO_MEMORY,
                                                  "cannot allocate a chain schedule of %d steps",
                                                  n));
    st = chain_tree_build(&c->tree, n, c->fwd, c->rev, c->pre, c->size, c->bwd, c->tape,
                          c->wr, c->rd, c->info.units, group);
    if (st != EBB_OK)
        return ebb_schedule_discard(out, st);
    c->mode = MODE_TREE;
    c->info.cost = chain_tree_total(&c->tree, &c->x0_slow);
    c->tape_one = n == 1 && c->tape && (int64_t)c->tape[0] + c->size[0] <= c->info.units &&
                  c->bwd[0] < c->rev[0];
    if (c->inner && revolve_cost <= c->info.cost) {
        chain_tree_free(&c->tree);
        use_revolve(c, revolve_cost);
        return EBB_OK;
    }
    ebb_schedule_destroy(c->inner);
    c->inner = NULL;
    if (isinf(c->info.cost)) {
        /* neither a group's input nor the largest state fits beside x_0:
         * every step from x_0 */
        c->mode = MODE_FROM_X0;
        c->info.cost = c->fwd[n - 1];
        for (int32_t i = 0; i < n; i++)
            c->info.cost += c->pre[i] + c->rev[i];
    }
    reset(c);
    return count_slots(c);
}

ebb_status ebb_chain_schedule_create(const ebb_chain *chain, const ebb_chain_options *options,
                                     ebb_schedule **out)
{
    return chain_schedule_create_grouped(chain, options, 0, 1, out);
}

ebb_status ebb_chain_schedule_info(const ebb_schedule *s, ebb_chain_info *info)
{
    if (!s || !info)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_chain_schedule_info: NULL argument");
    if (s->ops != &chain_ops)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_chain_schedule_info: the schedule is not a chain's "
                        "(ebb_chain_schedule_create makes those)");
    *info = ((const chain_schedule *)s)->info;
    return EBB_OK;
}
