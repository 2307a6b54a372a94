/*
 * Periodic: keep x_0, x_k, x_2k, ...; reverse each interval by recomputing it
 * once from its start and keeping its k-1 inner states. Slots: ceil(n/k)
 * checkpoints + k-1 inner states. Forward steps: n + (k-1) per earlier interval.
 *
 * The same generator runs intervals of any lengths (ebb_intervals_create):
 * checkpoint j at position pos[j], 0 = pos[0] < pos[1] < ... < n.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "schedules/schedule_internal.h"

typedef enum { FORWARD, LAST_FORWARD, REVERSE_INNER, INTERVAL_START, DONE } phase;

typedef struct {
    struct ebb_schedule base;
    int64_t k;        /* period; 0: the checkpoints are pos[] */
    int64_t *pos;     /* checkpoint j's position (k == 0) */
    int64_t last;     /* index of the last interval */
    int64_t seg;      /* index of the interval being worked on */
    int64_t start;    /* its start */
    int64_t end;      /* its end (exclusive) */
    int64_t i;        /* cursor within the interval */
    phase ph;
} periodic;

static int64_t at(const periodic *p, int64_t j) { return p->k ? j * p->k : p->pos[j]; }
static int32_t ckpt_slot(const periodic *p) { return (int32_t)p->seg; }
/* Inner states follow the checkpoint slots; while an earlier interval is
 * recomputed, the last checkpoint's slot is already free and is reused. */
static int32_t inner_slot(const periodic *p, int64_t i)
{
    int64_t base = p->last + (p->seg == p->last);
    return (int32_t)(base + (i - p->start - 1));
}

static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    periodic *p = (periodic *)s;
    int64_t n = s->options.steps;
    int tier = s->options.fast_tier;
    ebb_action *a = out;
    (void)capacity; /* one group per call */
    switch (p->ph) {
    case FORWARD: /* keep x_start, run to the next checkpoint */
        a = ebb_emit(a, EBB_ACT_STORE, tier, ckpt_slot(p), p->start, 0);
        a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, p->start, at(p, p->seg + 1));
        p->start = at(p, ++p->seg);
        if (p->seg == p->last) {
            p->ph = LAST_FORWARD;
            p->i = p->start;
            p->end = n;
        }
        break;
    case LAST_FORWARD: /* keep every state of the interval, then turn */
        if (p->i == p->start && p->i < n - 1)
            a = ebb_emit(a, EBB_ACT_STORE, tier, ckpt_slot(p), p->i, 0);
        else if (p->i < n - 1)
            a = ebb_emit(a, EBB_ACT_STORE, tier, inner_slot(p, p->i), p->i, 0);
        if (p->i < n - 2) {
            a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, p->i, p->i + 1);
            p->i++;
        } else {
            a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, p->i, n);
            a = ebb_emit(a, EBB_ACT_TURN, 0, 0, n, 0);
            a = ebb_emit(a, EBB_ACT_REVERSE, 0, 0, n - 1, 0);
            p->i = n - 2;
            p->ph = REVERSE_INNER;
        }
        break;
    case INTERVAL_START: /* recompute [start, end) keeping its inner states */
        if (p->i == p->start)
            a = ebb_emit(a, EBB_ACT_RESTORE, tier, ckpt_slot(p), p->start, 0);
        else
            a = ebb_emit(a, EBB_ACT_STORE, tier, inner_slot(p, p->i), p->i, 0);
        a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, p->i, p->i + 1);
        if (++p->i == p->end - 1) {
            a = ebb_emit(a, EBB_ACT_REVERSE, 0, 0, p->i, 0);
            p->i--;
            p->ph = REVERSE_INNER;
        }
        break;
    case REVERSE_INNER: /* the interval's states are kept: reverse them */
        if (p->i < p->start) {
            /* interval complete; move to the previous one */
            p->end = p->start;
            if (p->end == 0) {
                a = ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0);
                p->ph = DONE;
                break;
            }
            p->start = at(p, --p->seg);
            if (p->end - p->start == 1) {
                int32_t slot = ckpt_slot(p);
                a = ebb_emit(a, EBB_ACT_RESTORE, tier, slot, p->start, 0);
                a = ebb_emit(a, EBB_ACT_REVERSE, 0, 0, p->start, 0);
                a = ebb_emit(a, EBB_ACT_FREE, tier, slot, p->start, 0);
                p->i = p->start - 1;
            } else {
                p->i = p->start;
                p->ph = INTERVAL_START;
                return fill(s, out, capacity); /* nothing written yet: start the interval now */
            }
            break;
        }
        {
            int32_t slot = p->i == p->start ? ckpt_slot(p) : inner_slot(p, p->i);
            a = ebb_emit(a, EBB_ACT_RESTORE, tier, slot, p->i, 0);
            a = ebb_emit(a, EBB_ACT_REVERSE, 0, 0, p->i, 0);
            a = ebb_emit(a, EBB_ACT_FREE, tier, slot, p->i, 0);
            p->i--;
        }
        break;
    case DONE:
        break;
    }
    return (size_t)(a - out);
}

static void destroy(ebb_schedule *s) { free(((periodic *)s)->pos); }

static const ebb_schedule_ops ops = {.fill = fill, .destroy = destroy};

/* Most slots periodic holds at once for n steps and period k: at the end of
 * the first sweep, or while an earlier interval is recomputed. */
static int64_t slots_needed(int64_t n, int64_t k)
{
    int64_t last = (n - 1) / k * k;
    int64_t first_sweep = last / k + (last < n - 1) + (n - last - 2 > 0 ? n - last - 2 : 0);
    int64_t interval = last > 0 ? last / k + (k - 2 > 0 ? k - 2 : 0) : 0;
    int64_t need = first_sweep > interval ? first_sweep : interval;
    return need > 0 ? need : 1;
}

/* Slots needed is floor((n-1)/k) + k - 2 or one more, so within 3 of
 * h(k) = (n-1)/k + k: a period that fits C has h(k) <= C + 3, i.e. k is at
 * least the lower root of k^2 - (C+3)k + (n-1). The search starts just below
 * that root instead of at 1, and the smallest need sits next to sqrt(n-1)
 * (h grows by about d^2/sqrt(n) a distance d from it, so a window of
 * 2 (n-1)^(1/4) + 3 holds every k that could be within 3 of the least). Both
 * are O(1) arithmetic and a scan over at most that window: O(n^(1/4)) in the
 * worst case (C at the very least that fits), a few steps otherwise. */
static int64_t least_need(int64_t n, int64_t *argmin)
{
    long double sq = sqrtl((long double)(n - 1));
    int64_t w = 2 * (int64_t)sqrtl(sq) + 3;
    int64_t mid = (int64_t)sq;
    int64_t best = INT64_MAX;
    for (int64_t k = mid - w > 1 ? mid - w : 1; k <= mid + w && k <= n; k++) {
        int64_t need = slots_needed(n, k);
        if (need < best) {
            best = need;
            *argmin = k;
        }
    }
    return best;
}

/* The smallest period whose slots fit C (fewest recomputations), 0 if none. */
static int64_t smallest_period(int64_t n, int32_t slots)
{
    int64_t kmin = 1;
    if (least_need(n, &kmin) > slots)
        return 0;
    long double a = (long double)slots + 3.0L, disc = a * a - 4.0L * (long double)(n - 1);
    int64_t k = 1;
    if (disc > 0) {
        long double root = (a - sqrtl(disc)) / 2.0L;
        k = (int64_t)root - 2; /* margin for rounding: the scan starts below the root */
    }
    if (k < 1)
        k = 1;
    /* Every k below the root needs more than C; kmin fits, so this stops. */
    while (k < kmin && slots_needed(n, k) > slots)
        k++;
    return k;
}

ebb_status ebb_periodic_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    int64_t n = o->steps, k = o->period;
    if (k < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "periodic: period must be >= 1 (0 = choose), got %lld",
                        (long long)k);
    if (k == 0) {
        k = smallest_period(n, o->slots);
        if (k == 0) {
            int64_t at = 1;
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "periodic needs at least %lld slots for %lld steps, got %d",
                            (long long)least_need(n, &at), (long long)n, o->slots);
        }
    }
    if (k > n)
        k = n;
    int64_t need = slots_needed(n, k);
    if (need > o->slots)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "periodic with period %lld needs %lld slots for %lld steps, got %d",
                        (long long)k, (long long)need, (long long)n, o->slots);
    ebb_status st = ebb_schedule_alloc(sizeof(periodic), &ops, o, out);
    if (st != EBB_OK)
        return st;
    periodic *p = (periodic *)*out;
    p->k = k;
    p->last = (n - 1) / k;
    p->ph = p->last == 0 ? LAST_FORWARD : FORWARD;
    p->end = n;
    (*out)->tier_slots[o->fast_tier] = (int32_t)need;
    (*out)->options.period = k;
    return EBB_OK;
}

ebb_status ebb_intervals_create(const ebb_schedule_options *o, const int64_t *pos, int64_t count,
                                ebb_schedule **out)
{
    int64_t n = o->steps;
    if (count < 1 || pos[0] != 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "intervals: the first checkpoint must be x_0");
    for (int64_t j = 1; j < count; j++)
        if (pos[j] <= pos[j - 1] || pos[j] >= n)
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "intervals: checkpoint %lld at x_%lld is not after x_%lld and before "
                            "x_%lld",
                            (long long)j, (long long)pos[j], (long long)pos[j - 1], (long long)n);
    int64_t *copy = malloc((size_t)count * sizeof *copy);
    if (!copy)
        return ebb_fail(EBB_ERR_NO_MEMORY, "intervals: out of memory for %lld checkpoints",
                        (long long)count);
    memcpy(copy, pos, (size_t)count * sizeof *copy);
    ebb_status st = ebb_schedule_alloc(sizeof(periodic), &ops, o, out);
    if (st != EBB_OK) {
        free(copy);
        return st;
    }
    periodic *p = (periodic *)*out;
    p->pos = copy;
    p->last = count - 1;
    p->ph = p->last == 0 ? LAST_FORWARD : FORWARD;
    p->end = n;
    /* slot numbers: the checkpoints' and the last interval's inner states
     * after them, or an earlier interval's inner states after the last
     * checkpoint's number (its slot is free by then) */
    int64_t last = count - 1, inner_last = n - pos[last] - 2;
    int64_t need = last + (inner_last >= 0) + (inner_last > 0 ? inner_last : 0);
    for (int64_t j = 0; j < last; j++) {
        int64_t inner = pos[j + 1] - pos[j] - 2;
        if (inner > 0 && last + inner > need)
            need = last + inner;
    }
    (*out)->tier_slots[o->fast_tier] = (int32_t)(need > 0 ? need : 1);
    return EBB_OK;
}
