/*
 * The least-peak-memory checkpoints of a heterogeneous chain when each step
 * is recomputed at most once (ebb_chain_least_peak_create, ebb/chain.h).
 *
 * Checkpoints 0 = c_0 < c_1 < ... < c_m; interval j = [c_j, c_{j+1}) is
 * reversed by recomputing it once from x_{c_j} and keeping its inner states
 * x_{c_j+1} .. x_{c_{j+1}-2} (the last one is in hand when its step is
 * reversed; the last interval's are kept in the first sweep). While interval
 * j is reversed the stored bytes are C_j + I_j: the checkpoints up to c_j
 * and the interval's inner states. The least peak P* = min over subsets of
 * max_j (C_j + I_j).
 *
 * For a peak P, f(c) = the least C of a prefix whose last checkpoint is c
 * and whose intervals all fit P: f(c) = b_c + min f(i) over i < c with
 * f(i) + inner(i, c) <= P (smallest C is best: later intervals only see C).
 * inner(i, c) = pre[c-1] - pre[i+1] for c >= i + 2, so the condition is
 * f(i) - pre[i+1] <= P - pre[c-1], whose right side only falls as c grows:
 * an i that fails once fails for good. A heap on f with those dropped as
 * they surface gives each f(c) in O(log n); a bisection over P (an integer
 * number of bytes) finds P*. O(n log n log(total bytes)) time, O(n) memory.
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "ebb/chain.h"
#include "schedules/chain_check.h"
#include "schedules/schedule_internal.h"

typedef struct {
    int64_t n;
    const uint64_t *b;
    uint64_t *pre;   /* pre[t] = b_0 + .. + b_{t-1} */
    uint64_t *f;     /* UINT64_MAX: no prefix fits */
    int64_t *from;   /* the checkpoint before c */
    int64_t *heap;   /* candidates i, least f first */
    int64_t size;
} peak_dp;

static void heap_push(peak_dp *d, int64_t i)
{
    int64_t k = d->size++;
    while (k > 0 && d->f[d->heap[(k - 1) / 2]] > d->f[i]) {
        d->heap[k] = d->heap[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    d->heap[k] = i;
}

static void heap_pop(peak_dp *d)
{
    int64_t last = d->heap[--d->size], k = 0;
    for (;;) {
        int64_t c = 2 * k + 1;
        if (c >= d->size)
            break;
        if (c + 1 < d->size && d->f[d->heap[c + 1]] < d->f[d->heap[c]])
            c++;
        if (d->f[last] <= d->f[d->heap[c]])
            break;
        d->heap[k] = d->heap[c];
        k = c;
    }
    d->heap[k] = last;
}

/* The last interval [c, n) holds its checkpoint (unless c = n - 1: then
 * x_{n-1} is in hand) and x_{c+1} .. x_{n-2}. */
static uint64_t last_interval(const peak_dp *d, int64_t c)
{
    uint64_t inner = c + 2 <= d->n ? d->pre[d->n - 1] - d->pre[c + 1] : 0;
    return d->f[c] - (c == d->n - 1 ? d->b[c] : 0) + inner;
}

/* Whether some checkpoints keep every moment within P; if so the last
 * checkpoint of the best is returned in *last. */
static int fits(peak_dp *d, uint64_t P, int64_t *last)
{
    int64_t n = d->n;
    d->size = 0;
    d->f[0] = d->b[0] <= P || n == 1 ? d->b[0] : UINT64_MAX;
    d->from[0] = -1;
    for (int64_t c = 1; c < n; c++) {
        if (c >= 2 && d->f[c - 2] != UINT64_MAX)
            heap_push(d, c - 2);
        /* drop for good the i whose interval up to c no longer fits (i <= c - 2) */
        while (d->size > 0) {
            int64_t i = d->heap[0];
            if (d->f[i] + (d->pre[c - 1] - d->pre[i + 1]) <= P)
                break;
            heap_pop(d);
        }
        uint64_t best = UINT64_MAX;
        int64_t arg = -1;
        if (d->size > 0) {
            best = d->f[d->heap[0]];
            arg = d->heap[0];
        }
        if (d->f[c - 1] != UINT64_MAX && d->f[c - 1] < best) { /* interval of one step */
            best = d->f[c - 1];
            arg = c - 1;
        }
        /* x_{n-1} is never stored (last_interval takes it off again) */
        int ok = best != UINT64_MAX && (best + d->b[c] <= P || c == n - 1);
        d->f[c] = ok ? best + d->b[c] : UINT64_MAX;
        d->from[c] = arg;
    }
    for (int64_t c = n - 1; c >= 0; c--)
        if (d->f[c] != UINT64_MAX && last_interval(d, c) <= P) {
            *last = c;
            return 1;
        }
    return 0;
}

ebb_status ebb_chain_least_peak_create(const ebb_chain *chain, ebb_tier tier,
                                       uint64_t *peak_bytes, ebb_schedule **out)
{
    if (!chain || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_chain_least_peak_create: chain and out must be "
                                             "set");
    *out = NULL;
    ebb_status st = chain_check_steps(chain);
    if (st != EBB_OK)
        return st;
    if (tier < 0 || tier >= EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG, "the chain's tier %d is not a tier", (int)tier);
    int64_t n = chain->steps;
    peak_dp d = {.n = n, .b = chain->state_bytes};
    d.pre = malloc((size_t)(n + 1) * sizeof *d.pre);
    d.f = malloc((size_t)n * sizeof *d.f);
    d.from = malloc((size_t)n * sizeof *d.from);
    d.heap = malloc((size_t)n * sizeof *d.heap);
    int64_t *pos = NULL;
    if (!d.pre || !d.f || !d.from || !d.heap) {
        st = ebb_fail(EBB_ERR_NO_MEMORY, "least peak: out of memory for %lld steps",
                      (long long)n);
        goto done;
    }
    d.pre[0] = 0;
    for (int64_t t = 0; t < n; t++) {
        if (chain->state_bytes[t] > UINT64_MAX / 2 - d.pre[t]) {
            st = ebb_fail(EBB_ERR_INVALID_ARG, "the chain's states add up to more than 2^63 "
                                               "bytes");
            goto done;
        }
        d.pre[t + 1] = d.pre[t] + chain->state_bytes[t];
    }
    /* store-all (every state but x_{n-1}) always fits; x_0 alone is the floor */
    uint64_t lo = n >= 2 ? chain->state_bytes[0] : 0, hi = n >= 2 ? d.pre[n - 1] : 0;
    int64_t last = 0;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (fits(&d, mid, &last))
            hi = mid;
        else
            lo = mid + 1;
    }
    if (!fits(&d, lo, &last)) {
        st = ebb_fail(EBB_ERR_INVALID_ARG, "least peak: no checkpoints fit %llu bytes (a bug)",
                      (unsigned long long)lo);
        goto done;
    }
    int64_t count = 0;
    for (int64_t c = last; c >= 0; c = d.from[c])
        count++;
    pos = malloc((size_t)count * sizeof *pos);
    if (!pos) {
        st = ebb_fail(EBB_ERR_NO_MEMORY, "least peak: out of memory for %lld checkpoints",
                      (long long)count);
        goto done;
    }
    int64_t k = count;
    for (int64_t c = last; c >= 0; c = d.from[c])
        pos[--k] = c;
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = EBB_STRATEGY_PERIODIC;
    o.steps = n;
    o.fast_tier = tier;
    o.slots = 0;
    st = ebb_intervals_create(&o, pos, count, out);
    if (st == EBB_OK) {
        (*out)->options.slots = (*out)->tier_slots[tier];
        if (peak_bytes)
            *peak_bytes = lo;
    }
done:
    free(pos);
    free(d.pre);
    free(d.f);
    free(d.from);
    free(d.heap);
    return st;
}
