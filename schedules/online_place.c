/* Online checkpoint placement; see online_place.h. */
#include "schedules/online_place.h"

#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "schedules/binomial.h"

/* Costs are compared, never reported: an overflow counts as "huge". */
enum { COST_HUGE_SHIFT = 60 };
static const int64_t COST_HUGE = (int64_t)1 << COST_HUGE_SHIFT;

/* T(l, c) (binomial.h); the placement asks mostly for short intervals, so
 * repetition numbers up to 3 are answered in closed form. */
static int64_t cost(int64_t l, int64_t c)
{
    if (l <= 1)
        return 0;
    if (c < ((int64_t)1 << 20)) {
        if (l <= c + 1)
            return l - 1;
        int64_t b2 = (c + 1) * (c + 2) / 2; /* beta(c, 2) */
        if (l <= b2)
            return 2 * l - (c + 2);
        if (l <= b2 * (c + 3) / 3) /* beta(c, 3) */
            return 3 * l - (c + 2) * (c + 3) / 2;
    }
    int64_t t = ebb_revolve_cost(l, c);
    return t < 0 || t > COST_HUGE ? COST_HUGE : t;
}

static int64_t add(int64_t a, int64_t b)
{
    return a >= COST_HUGE - b ? COST_HUGE : a + b;
}

ebb_status ebb_online_place_alloc(ebb_online_place *p, int32_t slots)
{
    memset(p, 0, sizeof *p);
    size_t c = (size_t)slots;
    p->slots = slots;
    p->pos = malloc(c * sizeof *p->pos);
    p->slot = malloc(c * sizeof *p->slot);
    p->anchor = calloc(c, 1);
    p->busy = calloc(c, 1);
    p->prefix = malloc((c + 1) * sizeof *p->prefix);
    p->suffix = malloc((c + 1) * sizeof *p->suffix);
    p->cand = malloc((c + 1) * sizeof *p->cand);
    p->next = malloc((c + 1) * sizeof *p->next);
    p->wide = malloc(7 * (c + 2) * sizeof *p->wide);
    if (!p->pos || !p->slot || !p->anchor || !p->busy || !p->prefix || !p->suffix || !p->cand ||
        !p->next || !p->wide) {
        ebb_online_place_free(p);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the placement of %d online slots",
                        slots);
    }
    /* Range 0: n <= C + 1, every state fits; its anchors are 0 .. C-1. */
    p->rho = 0;
    p->range_end = (int64_t)slots + 1;
    p->next_q = 1;
    p->next_anchor = slots > 1 ? 1 : -1;
    return EBB_OK;
}

void ebb_online_place_free(ebb_online_place *p)
{
    free(p->pos);
    free(p->slot);
    free(p->anchor);
    free(p->busy);
    free(p->prefix);
    free(p->suffix);
    free(p->cand);
    free(p->next);
    free(p->wide);
    p->cand = NULL;
    p->next = NULL;
    p->wide = NULL;
    p->pos = NULL;
    p->slot = NULL;
    p->anchor = NULL;
    p->busy = NULL;
    p->prefix = NULL;
    p->suffix = NULL;
}

/* The anchor after next_q, or -1: beta(C, rho+1) - beta(C-q, rho+1). */
static void next_anchor(ebb_online_place *p)
{
    p->next_q++;
    if (p->next_q >= p->slots || p->range_end == INT64_MAX) {
        p->next_anchor = -1; /* saturated: the range never ends in practice */
        return;
    }
    p->next_anchor = p->range_end - ebb_beta(p->slots - p->next_q, p->rho + 1);
}

/* Moves to the range holding stop m + 1; the old anchors lose their status
 * (the new range's end layout lies wholly beyond them). */
static void enter_range(ebb_online_place *p, int64_t m)
{
    while (m + 1 > p->range_end) {
        p->rho++;
        p->range_end = ebb_beta(p->slots, p->rho + 1);
        memset(p->anchor, 0, (size_t)p->slots);
        p->next_q = 0;
        next_anchor(p);
    }
}

/* For a layout pos[0..count) and a new last state m: the cost, for a stop
 * rho steps after m, of dropping each non-anchor j (into cost[j]; -1 for
 * anchors), less the terms common to all j. Returns the least, or -1 when
 * every checkpoint is an anchor. Intervals before the gap keep their slot
 * count, those after it gain one, so prefix and suffix sums make this O(C)
 * cost evaluations. */
static int64_t drop_costs(ebb_online_place *p, const int64_t *pos, const uint8_t *anchor,
                          int32_t count, int64_t m, int64_t *out)
{
    const int32_t k = count - 1, c = p->slots;
    int64_t *prefix = p->prefix, *suffix = p->suffix;
    prefix[0] = 0;
    for (int32_t q = 0; q < k; q++)
        prefix[q + 1] = add(prefix[q], cost(pos[q + 1] - pos[q], c - q));
    suffix[k] = 0;
    for (int32_t q = k - 1; q >= 1; q--)
        suffix[q] = add(suffix[q + 1], cost(pos[q + 1] - pos[q], c - q + 1));
    const int64_t tail = cost(m - pos[k], c - k + 1);
    int64_t best = -1;
    for (int32_t j = 1; j <= k; j++) {
        if (anchor[j]) {
            out[j] = -1;
            continue;
        }
        if (j < k)
            out[j] = add(add(prefix[j - 1], cost(pos[j + 1] - pos[j - 1], c - j + 1)),
                         add(suffix[j + 1], tail));
        else
            out[j] = add(prefix[k - 1], cost(m - pos[k - 1], c - k + 1));
        if (best < 0 || out[j] < best)
            best = out[j];
    }
    return best;
}

typedef __int128 wide; /* sums of up to C saturated costs */

static wide wmin(wide a, wide b)
{
    return a < b ? a : b;
}

/* For every first drop j (a candidate of drop_costs, the common terms left
 * out again), the least cost of the next paced store: x_m kept now and
 * x_m2 later, a second checkpoint dropped then. The second drop is x_m
 * itself, or one more of P, a < b the two dropped indices: the gaps before
 * a keep their index, those between a and b move one down (one slot more),
 * those after b two down, so with prefix sums S0, S1 and suffix sums S2 of
 * T(gap, C - q + shift) the cost splits into F(a) + G(b) when b > a + 1,
 * and the best partner of each j is a running minimum. O(C) in all. */
static void next_store_costs(ebb_online_place *p, int64_t m, int is_anchor, int64_t m2)
{
    const int32_t k = p->count - 1, c = p->slots;
    const int64_t *pos = p->pos;
    const uint8_t *anc = p->anchor;
    wide *s0 = p->wide, *s1 = s0 + (k + 2), *s2 = s1 + (k + 2), *f = s2 + (k + 2);
    wide *g = f + (k + 2), *fmin = g + (k + 2), *gmin = fmin + (k + 2);
    const wide none = (wide)1 << 100;
    /* s0[x + 1], s1[x + 1]: gaps 0 .. x with shift 0, 1; s2[x]: gaps x .. k-1, shift 2. */
    s0[0] = s1[0] = 0;
    for (int32_t q = 0; q < k; q++) {
        s0[q + 1] = s0[q] + cost(pos[q + 1] - pos[q], c - q);
        s1[q + 1] = s1[q] + cost(pos[q + 1] - pos[q], c - q + 1);
    }
    s2[k] = s2[k + 1] = 0;
    for (int32_t q = k - 1; q >= 0; q--)
        s2[q] = s2[q + 1] + cost(pos[q + 1] - pos[q], c - q + 2);
#define S0(x) ((x) < 0 ? (wide)0 : s0[(x) + 1])
#define S1(x) ((x) < 0 ? (wide)0 : s1[(x) + 1])
    const wide last = cost(m2 - m, c - k + 1);
    const wide tail = k >= 1 ? cost(m - pos[k], c - k + 2) : 0;
    /* F(a): what lies before a's merged gap, less the S1 it starts after. */
    for (int32_t a = 1; a <= k; a++) {
        f[a] = none;
        if (!anc[a] && a + 1 <= k)
            f[a] = S0(a - 2) + cost(pos[a + 1] - pos[a - 1], c - a + 1) - S1(a);
        fmin[a] = wmin(a > 1 ? fmin[a - 1] : none, f[a]);
    }
    /* G(b): from the S1 run to the end, x_m included. */
    for (int32_t b = k; b >= 1; b--) {
        g[b] = none;
        if (!anc[b] && b >= 2) {
            if (b < k)
                g[b] = S1(b - 2) + cost(pos[b + 1] - pos[b - 1], c - b + 2) + s2[b + 1] + tail;
            else
                g[b] = S1(k - 2) + cost(m - pos[k - 1], c - k + 2);
        }
        gmin[b] = wmin(b < k ? gmin[b + 1] : none, g[b]);
    }
    for (int32_t j = 1; j <= k; j++) {
        if (p->cand[j] < 0)
            continue;
        wide best = none;
        if (!is_anchor) { /* drop x_m again: j's own cost with x_m2 for x_m */
            wide t = j < k ? S0(j - 2) + cost(pos[j + 1] - pos[j - 1], c - j + 1) +
                                 (s1[k] - s1[j + 1]) + cost(m2 - pos[k], c - k + 1)
                           : S0(k - 2) + cost(m2 - pos[k - 1], c - k + 1);
            best = wmin(best, t);
        }
        if (j >= 3 && fmin[j - 2] < none && g[j] < none)
            best = wmin(best, fmin[j - 2] + g[j] + last);
        if (j + 2 <= k && f[j] < none && gmin[j + 2] < none)
            best = wmin(best, f[j] + gmin[j + 2] + last);
        for (int32_t a = j - 1; a <= j; a++) { /* adjacent pair a, a + 1 */
            int32_t b = a + 1;
            if (a < 1 || b > k || anc[a] || anc[b])
                continue;
            wide t = b < k ? S0(a - 2) + cost(pos[b + 1] - pos[a - 1], c - a + 1) + s2[b + 1] +
                                 tail
                           : S0(k - 3) + cost(m - pos[k - 2], c - k + 2);
            best = wmin(best, t + last);
        }
        p->next[j] = best;
    }
#undef S0
#undef S1
}

/* The checkpoint to drop for x_m: the cheapest as drop_costs says; among
 * equals, the one after which the next paced store (x_{m + pace}, its own
 * best drop) is cheapest, then the earliest. The look-ahead breaks the ties
 * that a one-stop view cannot: a short interval is harmless at its index but
 * too short once an earlier drop moves it one index down (one slot more).
 * Returns -1 if every checkpoint is an anchor. */
static int32_t choose_drop(ebb_online_place *p, int64_t m, int is_anchor, int64_t pace)
{
    const int32_t count = p->count;
    int64_t best = drop_costs(p, p->pos, p->anchor, count, m, p->cand);
    if (best < 0)
        return -1;
    int32_t pick = -1, ties = 0;
    for (int32_t j = 1; j < count; j++) {
        if (p->cand[j] != best)
            p->cand[j] = -1; /* out of the running */
        else if (ties++ == 0)
            pick = j;
    }
    if (ties == 1)
        return pick;
    next_store_costs(p, m, is_anchor, m + pace);
    wide best_next = 0;
    pick = -1;
    for (int32_t j = 1; j < count; j++)
        if (p->cand[j] >= 0 && (pick < 0 || p->next[j] < best_next)) {
            best_next = p->next[j];
            pick = j;
        }
    return pick;
}

static void keep(ebb_online_place *p, int64_t m, int is_anchor, ebb_online_move *move)
{
    int32_t s = 0;
    while (p->busy[s])
        s++;
    p->busy[s] = 1;
    p->pos[p->count] = m;
    p->slot[p->count] = s;
    p->anchor[p->count] = (uint8_t)is_anchor;
    p->count++;
    move->stored = 1;
    move->slot = s;
}

void ebb_online_place_step(ebb_online_place *p, int64_t m, ebb_online_move *move)
{
    memset(move, 0, sizeof *move);
    if (p->slots == 1 && p->count == 1)
        return; /* the one slot holds x_0; ranges of one slot last one step */
    enter_range(p, m);
    int is_anchor = m == p->next_anchor;
    if (is_anchor)
        next_anchor(p);
    if (p->count < p->slots) {
        keep(p, m, is_anchor, move);
        return;
    }
    /* Pace: rho + 1 steps up to beta(C, 3), rho + 2 beyond; none in range 0.
     * No paced store where the next anchor would come too soon after it (the
     * next step; beyond beta(C, 3), the next rho steps). */
    int64_t pace = p->rho + (p->rho == 0 || p->rho > 2 ? 2 : 1);
    int64_t clear = p->rho > 2 ? p->rho : 1;
    int anchor_near = p->next_anchor > m && p->next_anchor - m <= clear;
    if (!is_anchor && (m - p->pos[p->count - 1] < pace || anchor_near))
        return;
    int32_t j = choose_drop(p, m, is_anchor, pace);
    if (j < 0)
        return;
    move->dropped = 1;
    move->drop_pos = p->pos[j];
    move->drop_slot = p->slot[j];
    p->busy[p->slot[j]] = 0;
    size_t tail = (size_t)(p->count - 1 - j);
    memmove(p->pos + j, p->pos + j + 1, tail * sizeof *p->pos);
    memmove(p->slot + j, p->slot + j + 1, tail * sizeof *p->slot);
    memmove(p->anchor + j, p->anchor + j + 1, tail);
    p->count--;
    keep(p, m, is_anchor, move);
}
