/*
 * Online checkpointing for an unknown n (adaptive time stepping).
 *
 * Forward sweep: the dynamic checkpointing algorithm of Q. Wang, P. Moin and
 * G. Iaccarino, "Minimal repetition dynamic checkpointing algorithm for
 * unsteady adjoint calculation", SIAM J. Sci. Comput. 31(4), 2009. Every new
 * state is kept while a slot is free; when none is, a "dispensable"
 * checkpoint (one with a later checkpoint of higher level) gives its slot to
 * the new state at level 0, or else the latest checkpoint is replaced by the
 * new state one level up. x_0 has infinite level and is never dropped.
 *
 * Reverse sweep: once the caller says the forward stopped at x_n, the
 * intervals between the kept checkpoints are known; each is reversed with
 * the optimal binomial schedule using the slots not held by earlier
 * checkpoints (the last interval first), so the only loss against offline
 * Revolve is where the forward placed its checkpoints (docs/online.md).
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "revolve/binomial.h"
#include "revolve/online.h"
#include "revolve/revolve_core.h"
#include "revolve/schedule_internal.h"

enum { LEVEL_INFINITE = INT32_MAX };

typedef struct {
    struct ebb_schedule base;
    ebb_revolve_core core;
    int32_t slots;     /* C */
    int32_t count;     /* checkpoints kept */
    int64_t *pos;      /* their states, increasing */
    int32_t *level;    /* their levels */
    int32_t *slot;     /* their slots */
    uint8_t *busy;     /* slot in use */
    int64_t live;      /* forward: the live state */
    int64_t n;         /* 0 until set_steps */
    int turned;        /* TURN emitted */
    int32_t interval;  /* reverse: index of the checkpoint starting the interval */
} online;

/* Index of the latest dispensable checkpoint, or -1. */
static int32_t find_dispensable(const online *p)
{
    int32_t later_max = -1;
    for (int32_t j = p->count - 1; j >= 0; j--) {
        if (p->level[j] < later_max)
            return j;
        if (p->level[j] > later_max)
            later_max = p->level[j];
    }
    return -1;
}

static int32_t free_slot(const online *p)
{
    for (int32_t s = 0; s < p->slots; s++)
        if (!p->busy[s])
            return s;
    return -1;
}

static void drop(online *p, int32_t j)
{
    p->busy[p->slot[j]] = 0;
    for (int32_t q = j; q + 1 < p->count; q++) {
        p->pos[q] = p->pos[q + 1];
        p->level[q] = p->level[q + 1];
        p->slot[q] = p->slot[q + 1];
    }
    p->count--;
}

static ebb_action *keep_live_state(online *p, ebb_action *a)
{
    int tier = p->base.options.fast_tier;
    int64_t i = p->live;
    int32_t level = 0;
    if (i == 0) {
        level = LEVEL_INFINITE;
    } else if (p->count == p->slots) {
        int32_t j = find_dispensable(p);
        if (j < 0) {
            j = p->count - 1;
            if (j == 0)
                return a; /* one slot: it keeps x_0, nothing else fits */
            level = p->level[j] + 1;
        }
        a = ebb_emit(a, EBB_ACT_FREE, tier, p->slot[j], p->pos[j], 0);
        drop(p, j);
    }
    int32_t s = free_slot(p);
    p->busy[s] = 1;
    p->pos[p->count] = i;
    p->level[p->count] = level;
    p->slot[p->count] = s;
    p->count++;
    return ebb_emit(a, EBB_ACT_STORE, tier, s, i, 0);
}

/* Sets up the binomial reversal of [pos[q], end): level 0 is the checkpoint's
 * slot, the other levels are the slots no earlier checkpoint holds. */
static void begin_interval(online *p, int32_t q, int64_t end)
{
    int tier = p->base.options.fast_tier;
    int32_t levels = p->slots - q;
    p->core.tier_of[0] = (int16_t)tier;
    p->core.slot_of[0] = p->slot[q];
    int32_t k = 1;
    for (int32_t s = 0; s < p->slots && k < levels; s++) {
        int held = 0;
        for (int32_t j = 0; j <= q && !held; j++)
            held = p->slot[j] == s;
        if (!held) {
            p->core.tier_of[k] = (int16_t)tier;
            p->core.slot_of[k++] = s;
        }
    }
    ebb_revolve_core_begin(&p->core, p->pos[q], end, levels, -1, 1, 0);
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
        p->interval = p->count - 1;
        int64_t last = p->pos[p->interval];
        if (last == n - 1) {
            /* x_{n-1} was kept before the forward knew it was the last. */
            a = ebb_emit(a, EBB_ACT_FREE, tier, p->slot[p->interval], last, 0);
            p->busy[p->slot[p->interval]] = 0;
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
    if (!ebb_revolve_core_done(&p->core))
        return (size_t)(ebb_revolve_core_fill(&p->core, a, out + capacity - EBB_GROUP_MAX) - out);
    int64_t end = p->pos[p->interval];
    p->busy[p->slot[p->interval]] = 0;
    p->interval--;
    if (p->interval < 0)
        return (size_t)(ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0) - out);
    begin_interval(p, p->interval, end);
    return (size_t)(ebb_revolve_core_fill(&p->core, a, out + capacity - EBB_GROUP_MAX) - out);
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

static void destroy(ebb_schedule *s)
{
    online *p = (online *)s;
    ebb_revolve_core_free(&p->core);
    free(p->pos);
    free(p->level);
    free(p->slot);
    free(p->busy);
}

static const ebb_schedule_ops ops = {.fill = fill, .set_steps = set_steps, .destroy = destroy};

ebb_status ebb_online_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    ebb_status st = ebb_schedule_alloc(sizeof(online), &ops, o, out);
    if (st != EBB_OK)
        return st;
    online *p = (online *)*out;
    size_t c = (size_t)o->slots;
    p->slots = o->slots;
    p->pos = malloc(c * sizeof *p->pos);
    p->level = malloc(c * sizeof *p->level);
    p->slot = malloc(c * sizeof *p->slot);
    p->busy = calloc(c, 1);
    st = ebb_revolve_core_alloc(&p->core, o->slots);
    if (st != EBB_OK || !p->pos || !p->level || !p->slot || !p->busy) {
        ebb_schedule_destroy(*out);
        *out = NULL;
        return st != EBB_OK ? st
                            : ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate %d online slots",
                                       o->slots);
    }
    (*out)->options.steps = 0;
    (*out)->tier_slots[o->fast_tier] = o->slots;
    return EBB_OK;
}

ebb_status ebb_online_forward_count(int64_t steps, int32_t slots, int64_t *count)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = EBB_STRATEGY_ONLINE;
    o.slots = slots;
    ebb_schedule *s = NULL;
    ebb_status st = ebb_schedule_create(&o, &s);
    if (st != EBB_OK)
        return st;
    ebb_action buf[EBB_GROUP_MAX * 2];
    online *p = (online *)s;
    while (p->live < steps) {
        size_t got = 0;
        if ((st = ebb_schedule_next_batch(s, buf, sizeof buf / sizeof *buf, &got)) != EBB_OK)
            goto out;
    }
    /* The reverse sweep as fill runs it: REVERSE(n-1) is free, then each
     * interval [pos[q], end) with slots - q levels, the last one first. */
    int64_t total = steps, end = steps - 1;
    for (int32_t q = p->count - 1; q >= 0; q--) {
        if (p->pos[q] < end) {
            int64_t t = ebb_revolve_cost(end - p->pos[q], slots - q);
            if (t < 0) {
                st = ebb_fail(EBB_ERR_INVALID_ARG, "online forward count overflows");
                goto out;
            }
            total += t;
        }
        end = p->pos[q];
    }
    *count = total;
out:
    ebb_schedule_destroy(s);
    return st;
}
