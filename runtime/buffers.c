/*
 * The physical buffers behind the schedule's memory slots, and the waits on
 * the transfers that touch them.
 *
 * A STORE to the tier the live state lives in only maps the schedule's slot
 * onto the live state's buffer, so keeping a state costs no copy; a buffer is
 * free again once no slot holds it, it is neither the live state nor x_{n-1}
 * kept for the turn, and no transfer reads or fills it. Every wait is timed
 * and charged to the tier at the transfer's other end ("stall").
 */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "runtime/run_internal.h"

ebb_status rt_mem_init(rt_mem *m, rt_pool *pool, ebb_tier tier, int32_t count, int32_t slots)
{
    m->pool = pool;
    m->tier = tier;
    m->count = count;
    m->slots = slots;
    m->buf = calloc((size_t)(count > 0 ? count : 1), sizeof *m->buf);
    m->map = malloc((size_t)(slots > 0 ? slots : 1) * sizeof *m->map);
    if (!m->buf || !m->map)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the runtime's %s buffer table",
                        ebb_tier_name(tier));
    for (int32_t s = 0; s < slots; s++)
        m->map[s] = -1;
    return EBB_OK;
}

void rt_mem_free(rt_mem *m)
{
    free(m->buf);
    free(m->map);
    m->buf = NULL;
    m->map = NULL;
}

void *rt_buf_ptr(const ebb_run *run, const rt_mem *m, int32_t b)
{
    return run->io->ops->slot_ptr(run->io, m->pool, b);
}

ebb_status rt_wait(ebb_run *run, const rt_ticket *t, int tier)
{
    int done = 0;
    ebb_status st = rt_test(run, t, &done);
    if (done)
        return st;
    double t0 = rt_clock(run);
    st = run->io->ops->wait(run->io, t);
    double t1 = rt_clock(run), dt = t1 - t0;
    if (run->trace.f)
        rt_trace_span(&run->trace, "stall", run->cur_step,
                      tier >= 0 && tier < EBB_TIER_COUNT ? ebb_tier_name((ebb_tier)tier) : NULL, t0,
                      t1);
    if (tier >= 0 && tier < EBB_TIER_COUNT)
        run->stats.stall_s[tier] += dt;
    run->stats.stall_total_s += dt;
    return st;
}

ebb_status rt_stream_wait(ebb_run *run, const rt_ticket *t, int tier)
{
    double held = 0.0;
    ebb_status st = run->io->ops->stream_wait(run->io, t, run->opt.stream, &held);
    if (held > 0 && tier >= 0 && tier < EBB_TIER_COUNT) {
        run->stats.stall_s[tier] += held;
        run->stats.stall_total_s += held;
    }
    return st;
}

ebb_status rt_settle(ebb_run *run, rt_mem *m, int32_t b)
{
    rt_buf *x = &m->buf[b];
    if (!x->pending.pool)
        return EBB_OK;
    ebb_status st = rt_wait(run, &x->pending, x->pending_tier);
    x->pending.pool = NULL;
    x->fills = 0;
    return st;
}

ebb_status rt_mark(ebb_run *run, rt_mem *m, int32_t b, rt_ticket t, int other_tier, int fills)
{
    rt_buf *x = &m->buf[b];
    if (x->pending.pool) {
        /* one ticket per buffer: the older transfer is waited for first */
        ebb_status st = rt_settle(run, m, b);
        if (st != EBB_OK)
            return st;
    }
    x->pending = t;
    x->pending_tier = other_tier;
    x->fills = fills;
    return EBB_OK;
}

int rt_reserved(const ebb_run *run, const rt_mem *m, int32_t b)
{
    const rt_buf *x = &m->buf[b];
    if (x->holders > 0)
        return 1;
    if (m == run->state && (b == run->live || b == run->prev || b == run->xn))
        return 1;
    return m->tier == EBB_TIER_HOST && b == run->scratch;
}

void rt_forget(ebb_run *run, rt_mem *m, int32_t b)
{
    rt_buf *x = &m->buf[b];
    if (x->cached) {
        run->disk_cache[x->cached - 1] = -1;
        x->cached = 0;
    }
}

void rt_remember(ebb_run *run, int32_t b, int32_t slot)
{
    if (run->disk_cache[slot] >= 0)
        run->host.buf[run->disk_cache[slot]].cached = 0;
    rt_forget(run, &run->host, b);
    run->disk_cache[slot] = b;
    run->host.buf[b].cached = slot + 1;
}

int rt_idle(ebb_run *run, rt_buf *x, ebb_status *st)
{
    *st = EBB_OK;
    if (!x->pending.pool)
        return 1;
    int done = 0;
    *st = rt_test(run, &x->pending, &done);
    if (!done)
        return 0;
    x->pending.pool = NULL;
    x->fills = 0;
    return 1;
}

/* Picks a free buffer: an idle one that caches no disk slot first (so the
 * cached copies live as long as possible), then an idle cached one, then a
 * busy one (waited for). */
static ebb_status pick(ebb_run *run, rt_mem *m, int for_user, int32_t *out)
{
    int32_t busy = -1, cached = -1;
    for (int32_t b = 0; b < m->count; b++) {
        if (rt_reserved(run, m, b))
            continue;
        ebb_status st;
        if (!rt_idle(run, &m->buf[b], &st)) {
            if (busy < 0)
                busy = b;
            continue;
        }
        if (st != EBB_OK)
            return st;
        if (!m->buf[b].cached) {
            *out = b;
            return EBB_OK;
        }
        if (cached < 0)
            cached = b;
    }
    if (cached >= 0) {
        *out = cached;
        return EBB_OK;
    }
    if (busy < 0) {
        *out = -1;
        return EBB_OK;
    }
    *out = busy;
    if (for_user && m->tier == EBB_TIER_GPU) /* the stream waits; the ticket stays */
        return rt_stream_wait(run, &m->buf[busy].pending, m->buf[busy].pending_tier);
    return rt_settle(run, m, busy);
}

ebb_status rt_take(ebb_run *run, rt_mem *m, int for_user, int32_t *out)
{
    ebb_status st = pick(run, m, for_user, out);
    if (st != EBB_OK)
        return st;
    if (*out < 0)
        return ebb_fail(EBB_ERR_INTERNAL,
                        "the runtime ran out of %s buffers (%d); please report this with the "
                        "strategy and slot counts",
                        ebb_tier_name(m->tier), m->count);
    if (m->tier == EBB_TIER_HOST && run->disk_cache)
        rt_forget(run, m, *out); /* the taker writes it */
    return EBB_OK;
}

ebb_status rt_disk_settle(ebb_run *run, int32_t slot)
{
    rt_ticket *t = &run->disk_pending[slot];
    if (!t->pool)
        return EBB_OK;
    ebb_status st = rt_wait(run, t, EBB_TIER_DISK);
    t->pool = NULL;
    return st;
}

/* Waits for every transfer; returns the first failure (all are waited for). */
ebb_status rt_drain(ebb_run *run)
{
    ebb_status first = EBB_OK;
    for (int32_t s = 0; s < run->disk_slots && run->disk_pending; s++) {
        ebb_status st = rt_disk_settle(run, s);
        if (first == EBB_OK)
            first = st;
    }
    rt_mem *mems[2] = {&run->host, &run->gpu};
    for (int k = 0; k < 2; k++)
        for (int32_t b = 0; mems[k]->buf && b < mems[k]->count; b++) {
            ebb_status st = rt_settle(run, mems[k], b);
            if (first == EBB_OK)
                first = st;
        }
    return first;
}
