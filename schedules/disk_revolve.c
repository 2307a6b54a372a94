/*
 * Periodic Disk-Revolve (Aupy & Herrmann, "Periodicity in optimal hierarchical
 * checkpointing schemes for adjoint computations", Optim. Methods Softw. 32(3),
 * 2017): write x_0, x_m, x_2m, ... to disk during the forward sweep; reverse
 * the last period with Revolve in memory straight away, then each earlier
 * period by reading its start from disk once (PREFETCH into memory slot 0)
 * and running Revolve with the M memory slots. The period is
 * m = beta(M, t) = binom(M+t, t), t the least with beta(M+1, t) > R, R =
 * (write + read time) / step time: the asymptotically optimal period.
 * Disk transfers are synchronous: they sit on the critical path.
 *
 * The last, incomplete period is chosen, not left over: with k periods on
 * disk the tail [k m, n) is reversed in memory with the first sweep turning
 * at x_n, and k is the one that needs the fewest forward steps (ties: fewer
 * disk checkpoints). n - 1 a multiple of m would otherwise leave a tail of
 * one step behind a whole period read back from disk.
 */
#include <math.h>

#include "common/error_internal.h"
#include "schedules/binomial.h"
#include "schedules/revolve_core.h"
#include "schedules/schedule_internal.h"

typedef struct {
    struct ebb_schedule base;
    ebb_revolve_core core;
    int64_t m;       /* period */
    int64_t last;    /* start of the last period */
    int64_t next;    /* forward: next period start to write to disk */
    int64_t period;  /* reverse: start of the period being reversed, -1 = last */
    int32_t levels;  /* memory levels used */
    int forward;     /* still writing periods to disk */
} disk_revolve;

ebb_status ebb_disk_revolve_period(int32_t memory_slots, double io_ratio, int64_t *period)
{
    if (memory_slots < 1 || !(io_ratio >= 0) || isinf(io_ratio) || !period)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk-revolve period needs memory slots >= 1 and a finite io ratio >= 0, "
                        "got %d and %g",
                        memory_slots, io_ratio);
    int64_t t = 0;
    while ((double)ebb_beta(memory_slots + 1, t) <= io_ratio) {
        if (ebb_beta(memory_slots + 1, t) == INT64_MAX) /* saturated: no t is enough */
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "disk-revolve: io ratio %g needs a period beyond 2^63 steps with %d "
                            "memory slots; give a ratio below %.3g (or the period itself)",
                            io_ratio, memory_slots, (double)INT64_MAX);
        t++;
    }
    *period = ebb_beta(memory_slots, t);
    return EBB_OK;
}

/* Forward steps with k periods on disk, less those common to every k:
 * k (m + T(m)) + T(n - k m), T the binomial cost (binomial.h); -1 on
 * overflow. */
static int64_t tail_cost(int64_t n, int64_t m, int64_t k, int32_t slots)
{
    int64_t period = ebb_revolve_cost(m, slots), tail = ebb_revolve_cost(n - k * m, slots);
    if (period < 0 || tail < 0)
        return -1;
    __int128 total = (__int128)k * (m + period) + tail;
    return total > INT64_MAX ? -1 : (int64_t)total;
}

/* The number of periods on disk: the least k in 0 .. (n - 1) / m (a tail of
 * at least one step) of least cost. The cost is convex in k (T's slope grows
 * with the length), so that k is the first whose successor costs no less: a
 * bisection, O(log n) cost evaluations. An overflowing cost counts as
 * infinite (only long tails, small k, overflow). */
static int64_t choose_periods(int64_t n, int64_t m, int32_t slots)
{
    int64_t lo = 0, hi = (n - 1) / m; /* the answer lies in [lo, hi] */
    while (lo < hi) {
        int64_t k = lo + (hi - lo) / 2;
        int64_t here = tail_cost(n, m, k, slots), next = tail_cost(n, m, k + 1, slots);
        if (here >= 0 && (next < 0 || next >= here))
            hi = k;
        else
            lo = k + 1;
    }
    return lo;
}

static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    disk_revolve *p = (disk_revolve *)s;
    const ebb_schedule_options *o = &s->options;
    ebb_action *a = out;
    if (p->forward) {
        int32_t slot = (int32_t)(p->next / p->m);
        a = ebb_emit(a, EBB_ACT_STORE, o->slow_tier, slot, p->next, 0);
        a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, p->next, p->next + p->m);
        p->next += p->m;
        if (p->next == p->last) {
            p->forward = 0;
            ebb_revolve_core_begin(&p->core, p->last, o->steps, p->levels, p->last, 0, 1);
        }
        return (size_t)(a - out);
    }
    if (!ebb_revolve_core_done(&p->core))
        return (size_t)(ebb_revolve_core_fill(&p->core, a, out + capacity - EBB_GROUP_MAX) - out);
    int64_t start = p->core.start - p->m;
    if (start < 0)
        return (size_t)(ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0) - out);
    /* One read per period: disk -> memory level 0, then Revolve in memory. */
    int32_t slot = (int32_t)(start / p->m);
    a = ebb_emit_move(a, EBB_ACT_PREFETCH, start, o->slow_tier, slot, p->core.tier_of[0],
                      p->core.slot_of[0]);
    a = ebb_emit(a, EBB_ACT_FREE, o->slow_tier, slot, start, 0);
    ebb_revolve_core_begin(&p->core, start, start + p->m, p->levels, -1, 1, 0);
    return (size_t)(a - out);
}

static void destroy(ebb_schedule *s) { ebb_revolve_core_free(&((disk_revolve *)s)->core); }

static const ebb_schedule_ops ops = {.fill = fill, .destroy = destroy};

ebb_status ebb_disk_revolve_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    int64_t n = o->steps, m = o->period;
    if (m < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk-revolve: period must be >= 1 (0 = from the io ratio), got %lld",
                        (long long)m);
    if (m == 0) {
        if (!(o->io_ratio > 0))
            return ebb_fail(EBB_ERR_INVALID_ARG,
                            "disk-revolve needs the io ratio R = (write + read time) / step time "
                            "(> 0, --io-ratio R) or an explicit period (--period m)");
        ebb_status st = ebb_disk_revolve_period(o->slots, o->io_ratio, &m);
        if (st != EBB_OK)
            return st;
    }
    if (m > n)
        m = n;
    int64_t last = choose_periods(n, m, o->slots) * m; /* [last, n) stays in memory */
    int64_t disk_needed = last / m;
    if (disk_needed > INT32_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk-revolve with period %lld needs %lld disk slots: too many; "
                        "use a longer period",
                        (long long)m, (long long)disk_needed);
    if (o->disk_slots >= 0 && o->disk_slots < disk_needed)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "disk-revolve with period %lld needs %lld disk slots for %lld steps, got %d",
                        (long long)m, (long long)disk_needed, (long long)n, o->disk_slots);
    ebb_status st = ebb_schedule_alloc(sizeof(disk_revolve), &ops, o, out);
    if (st != EBB_OK)
        return st;
    disk_revolve *p = (disk_revolve *)*out;
    int64_t span = m > n - last ? m : n - last;
    p->levels = ebb_useful_levels(span + 1, o->slots);
    st = ebb_revolve_core_alloc(&p->core, p->levels);
    if (st != EBB_OK)
        return ebb_schedule_discard(out, st);
    for (int32_t k = 0; k < p->levels; k++) {
        p->core.tier_of[k] = (int16_t)o->fast_tier;
        p->core.slot_of[k] = k;
    }
    p->m = m;
    p->last = last;
    p->next = 0;
    p->forward = last > 0;
    if (!p->forward)
        ebb_revolve_core_begin(&p->core, 0, n, p->levels, 0, 0, 1);
    (*out)->tier_slots[o->fast_tier] = p->levels;
    (*out)->tier_slots[o->slow_tier] = (int32_t)(o->disk_slots >= 0 ? o->disk_slots : disk_needed);
    (*out)->options.period = m;
    return EBB_OK;
}
