/*
 * The physical buffers behind the schedule's memory slots, and the waits on
 * the transfers that touch them.
 *
 * A STORE to the tier the live state lives in only maps the schedule's slot
 * onto the live state's buffer, so keeping a state costs no copy; a buffer is
 * free again once no slot holds it, it is neither the live state nor x_{n-1}
 * kept for the turn, and no transfer reads or fills it. Every wait is timed
 * and charged to the tier at the transfer's other end ("stall").
 *
 * Each buffer sits in one of four lists by what it is free for (RT_HELD,
 * RT_BUSY, RT_CACHED, RT_IDLE), moved whenever one of its fields changes, so
 * taking a buffer costs the same whatever the slot count: an idle one, else
 * the oldest busy ones whose transfers ended, else a cached one, else the
 * oldest busy one, waited for. Transfers end in about the order they start
 * on a channel, so the oldest is the one to wait for.
 */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "common/populate.h"
#include "runtime/runtime_internal.h"

static void unlink_buf(rt_mem *m, int32_t b)
{
    rt_buf *x = &m->buf[b];
    int c = x->cls;
    if (x->prev >= 0)
        m->buf[x->prev].next = x->next;
    else
        m->head[c] = x->next;
    if (x->next >= 0)
        m->buf[x->next].prev = x->prev;
    else
        m->tail[c] = x->prev;
    x->next = x->prev = -1;
    m->size[c]--;
}

static void append_buf(rt_mem *m, int32_t b, int c)
{
    rt_buf *x = &m->buf[b];
    x->cls = (int8_t)c;
    x->next = -1;
    x->prev = m->tail[c];
    if (m->tail[c] >= 0)
        m->buf[m->tail[c]].next = b;
    else
        m->head[c] = b;
    m->tail[c] = b;
    m->size[c]++;
}

static int class_of(const rt_buf *x)
{
    if (x->holders > 0 || x->pins > 0)
        return RT_HELD;
    if (x->pending.pool)
        return RT_BUSY;
    return x->cached ? RT_CACHED : RT_IDLE;
}

/* b first in class c's list: taken next. */
static void prepend_buf(rt_mem *m, int32_t b, int c)
{
    rt_buf *x = &m->buf[b];
    x->cls = (int8_t)c;
    x->prev = -1;
    x->next = m->head[c];
    if (x->next >= 0)
        m->buf[x->next].prev = b;
    else
        m->tail[c] = b;
    m->head[c] = b;
    m->size[c]++;
}

/* A lazy pool's buffer b gives its pages from byte `from` back (a failure
 * costs memory, not data); all of them: it goes last among the idle ones. */
static void give_back(rt_mem *m, int32_t b, uint64_t from)
{
    (void)m->lazy->ops->discard(m->lazy, m->pool, b, from);
    m->held_total -= m->held[b] - from;
    m->held[b] = from;
    if (from == 0) {
        m->used[b] = 0;
        unlink_buf(m, b);
        append_buf(m, b, RT_IDLE);
    }
}

/* Pages back until the buffers hold no more than the limit: the idle
 * buffers' first (those that kept theirs lead their list), then what the
 * others hold past their states (`keep` is about to take `used` bytes). */
static void trim(rt_mem *m, int32_t keep)
{
    for (int32_t x = m->head[RT_IDLE]; x >= 0 && m->held_total > m->held_limit;) {
        int32_t next = m->buf[x].next;
        if (m->held[x] > 0 && x != keep)
            give_back(m, x, 0);
        else if (x != m->untaken && x != keep)
            break; /* the first without pages: the rest gave theirs back too */
        x = next;
    }
    for (int32_t x = 0; x < m->fresh && m->held_total > m->held_limit; x++)
        if (m->held[x] > m->used[x])
            give_back(m, x, m->used[x]);
}

/* A lazy pool's buffer became idle: nothing it holds is wanted. Within the
 * limit it keeps its pages and is taken first, so that the steps writing
 * one state after another reuse memory already taken (writing into pages
 * given back costs a fault and a page zeroed each); past it, they go back. */
static void lazy_idle(rt_mem *m, int32_t b)
{
    if (m->held_total > m->held_limit) {
        give_back(m, b, 0);
    } else if (m->held[b] > 0) {
        unlink_buf(m, b);
        prepend_buf(m, b, RT_IDLE);
    }
}

void rt_lazy_wrote(rt_mem *m, int32_t b, size_t bytes)
{
    if (!m->lazy)
        return;
    bytes = (bytes + m->unit - 1) / m->unit * m->unit;
    m->used[b] = bytes;
    if (bytes > m->held[b]) {
        m->held_total += bytes - m->held[b];
        m->held[b] = bytes;
    }
    if (m->held_total > m->held_limit)
        trim(m, b);
}

void rt_buf_update(rt_mem *m, int32_t b)
{
    int c = class_of(&m->buf[b]);
    if (c == m->buf[b].cls)
        return;
    unlink_buf(m, b);
    append_buf(m, b, c);
    if (c == RT_IDLE && m->lazy)
        lazy_idle(m, b);
}

/* A new transfer on b: a busy buffer goes to the end (the newest). */
static void requeue(rt_mem *m, int32_t b)
{
    unlink_buf(m, b);
    append_buf(m, b, class_of(&m->buf[b]));
}

/* Buffers up to b listed (idle) if they never were: a buffer's entry is
 * written when it is first taken or referred to, so that tables of millions
 * of buffers a run never uses take no memory. */
static void list_fresh(rt_mem *m, int32_t b)
{
    for (; m->fresh <= b && m->fresh < m->count; m->fresh++) {
        rt_buf *x = &m->buf[m->fresh];
        memset(x, 0, sizeof *x);
        append_buf(m, m->fresh, RT_IDLE);
    }
}

/* The next buffer never taken listed first in the idle list, where it
 * stood when every buffer started there. */
static void list_fresh_first(rt_mem *m)
{
    int32_t b = m->fresh++;
    rt_buf *x = &m->buf[b];
    /* the next one's line on its way: a run taking fresh buffers takes them
     * one a step, each a cache miss otherwise */
    if (m->fresh < m->count)
        __builtin_prefetch(&m->buf[m->fresh], 1);
    memset(x, 0, sizeof *x);
    prepend_buf(m, b, RT_IDLE);
}

void rt_set_ref(rt_mem *m, int32_t *ref, int32_t b)
{
    if (*ref == b)
        return;
    int32_t old = *ref;
    *ref = b;
    if (b >= 0) {
        list_fresh(m, b);
        m->buf[b].pins++;
        rt_buf_update(m, b);
    }
    if (old >= 0) {
        m->buf[old].pins--;
        rt_buf_update(m, old);
    }
}

ebb_status rt_mem_init(rt_mem *m, rt_pool *pool, ebb_tier tier, int32_t count, int32_t slots)
{
    m->pool = pool;
    m->tier = tier;
    m->count = count;
    m->slots = slots;
    m->buf = calloc((size_t)(count > 0 ? count : 1), sizeof *m->buf);
    m->map = calloc((size_t)(slots > 0 ? slots : 1), sizeof *m->map); /* all empty */
    if (!m->buf || !m->map)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the runtime's %s buffer table",
                        ebb_tier_name(tier));
    for (int c = 0; c < RT_CLASSES; c++) {
        m->head[c] = m->tail[c] = -1;
        m->size[c] = 0;
    }
    m->fresh = 0; /* listed as they are first taken (list_fresh) */
    m->untaken = -1;
    return EBB_OK;
}

void rt_mem_populate(rt_mem *m)
{
    ebb_populate(m->buf, (size_t)(m->count > 0 ? m->count : 1) * sizeof *m->buf);
    ebb_populate(m->map, (size_t)(m->slots > 0 ? m->slots : 1) * sizeof *m->map);
}

void rt_mem_free(rt_mem *m)
{
    free(m->buf);
    free(m->map);
    free(m->held);
    free(m->used);
    m->buf = NULL;
    m->map = NULL;
    m->held = m->used = NULL;
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
    rt_buf_update(m, b);
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
    if (b >= m->marked)
        m->marked = b + 1;
    requeue(m, b);
    return EBB_OK;
}

void rt_forget(ebb_run *run, rt_mem *m, int32_t b)
{
    rt_buf *x = &m->buf[b];
    if (x->cached) {
        run->disk_cache[x->cached - 1] = 0;
        x->cached = 0;
        rt_buf_update(m, b);
    }
}

void rt_remember(ebb_run *run, int32_t b, int32_t slot)
{
    int32_t old = rt_disk_cached(run, slot);
    if (old >= 0) {
        run->host.buf[old].cached = 0;
        rt_buf_update(&run->host, old);
    }
    rt_forget(run, &run->host, b);
    run->disk_cache[slot] = b + 1;
    run->host.buf[b].cached = slot + 1;
    rt_buf_update(&run->host, b);
}

int rt_idle(ebb_run *run, rt_mem *m, int32_t b, ebb_status *st)
{
    rt_buf *x = &m->buf[b];
    *st = EBB_OK;
    if (!x->pending.pool)
        return 1;
    int done = 0;
    *st = rt_test(run, &x->pending, &done);
    if (!done)
        return 0;
    x->pending.pool = NULL;
    x->fills = 0;
    rt_buf_update(m, b);
    return 1;
}

/* Moves the oldest busy buffers whose transfers ended to the idle or cached
 * list (stops at the first still running: amortised constant time). */
static ebb_status reap(ebb_run *run, rt_mem *m)
{
    while (m->head[RT_BUSY] >= 0) {
        ebb_status st;
        if (!rt_idle(run, m, m->head[RT_BUSY], &st))
            return EBB_OK;
        if (st != EBB_OK)
            return st;
    }
    return EBB_OK;
}

/* A buffer about to hold new data made ready (a host pool made ready in
 * extents grows to it); the failure names the step. */
static ebb_status make_ready(ebb_run *run, rt_mem *m, int32_t b)
{
    if (m->tier != EBB_TIER_HOST || !m->pool)
        return EBB_OK;
    ebb_status st = run->io->ops->ready(run->io, m->pool, b);
    if (st != EBB_OK)
        return ebb_fail_context(st, "step %lld: host buffer %d for a new state",
                                (long long)run->live_step, (int)b);
    return EBB_OK;
}

/* A free buffer, without waiting: idle (one never taken first, as when
 * every buffer started in the idle list in index order, then one freed),
 * else one whose transfer ended, else cached; -1 if none. */
static ebb_status pick_now(ebb_run *run, rt_mem *m, int32_t *out)
{
    ebb_status st = EBB_OK;
    if (m->untaken < 0 && m->fresh < m->count) {
        list_fresh_first(m);
        m->untaken = m->fresh - 1;
    }
    if (m->head[RT_IDLE] < 0)
        st = reap(run, m);
    *out = m->head[RT_IDLE] >= 0 ? m->head[RT_IDLE] : m->head[RT_CACHED];
    if (st == EBB_OK && *out >= 0)
        st = make_ready(run, m, *out);
    return st;
}

ebb_status rt_take(ebb_run *run, rt_mem *m, int for_user, int32_t *out)
{
    ebb_status st = pick_now(run, m, out);
    if (st != EBB_OK)
        return st;
    if (*out < 0 && m->head[RT_BUSY] >= 0) {
        int32_t b = *out = m->head[RT_BUSY];
        rt_buf *x = &m->buf[b];
        if (for_user && m->tier == EBB_TIER_GPU) /* the stream waits; the ticket stays */
            st = rt_stream_wait(run, &x->pending, x->pending_tier);
        else
            st = rt_settle(run, m, b);
        if (st != EBB_OK)
            return st;
    }
    if (*out < 0)
        return ebb_fail(EBB_ERR_INTERNAL,
                        "the runtime ran out of %s buffers (%d); please report this with the "
                        "strategy and slot counts",
                        ebb_tier_name(m->tier), m->count);
    rt_forget(run, m, *out); /* the taker writes it */
    if (*out == m->untaken)
        m->untaken = -1;
    return EBB_OK;
}

int rt_may_pin_ahead(const rt_mem *m, int32_t keep)
{
    /* the reads ahead hold spare buffers only; a host state's leave one
     * spare to the disk writes of recomputations (a gpu state's go through
     * a host buffer) */
    int32_t most = m->tier == EBB_TIER_HOST ? m->spare - 1 : m->spare;
    return m->count - m->size[RT_HELD] > keep && m->ahead < most;
}

ebb_status rt_take_spare(ebb_run *run, rt_mem *m, int32_t keep, int32_t *out)
{
    *out = -1;
    if (!rt_may_pin_ahead(m, keep))
        return EBB_OK;
    ebb_status st = pick_now(run, m, out);
    if (st == EBB_OK && *out >= 0)
        rt_forget(run, m, *out);
    if (st == EBB_OK && *out >= 0 && *out == m->untaken)
        m->untaken = -1;
    return st;
}

ebb_status rt_copy_buf(ebb_run *run, rt_mem *dst, int32_t db, rt_mem *src, int32_t sb,
                       int64_t step)
{
    ebb_status st = rt_settle(run, dst, db);
    if (st != EBB_OK)
        return st;
    if (dst->tier == EBB_TIER_HOST && src->tier == EBB_TIER_HOST) {
        /* a transfer that only reads the source (its disk write) may go on */
        if (src->buf[sb].fills && (st = rt_settle(run, src, sb)) != EBB_OK)
            return st;
        size_t bytes = rt_state_bytes(run, step);
        rt_lazy_wrote(dst, db, bytes);
        run->io->ops->copy_now(run->io, dst->pool, db, src->pool, sb, bytes);
        return EBB_OK;
    }
    if ((st = rt_settle(run, src, sb)) != EBB_OK)
        return st;
    /* the copy must not start before the user's stream produced (or stopped
     * reading) what it touches */
    st = rt_order_after(run, run->gpu.pool);
    rt_ticket t;
    if (st == EBB_OK)
        st = rt_move(run, dst->pool, db, src->pool, sb, &t);
    if (st != EBB_OK)
        return st;
    run->last_in[dst->tier] = t;
    if (run->trace.f)
        rt_trace_transfer(&run->trace, rt_trace_track(src->tier, dst->tier), t, run->cur_step,
                          rt_clock(run));
    st = rt_mark(run, dst, db, t, src->tier, 1);
    if (st == EBB_OK && (src != dst || sb != db))
        st = rt_mark(run, src, sb, t, dst->tier, 0);
    return st;
}

/* A slot's pending transfer waited for (a stall of `tier`) and forgotten. */
static ebb_status settle(ebb_run *run, rt_ticket *t, int tier)
{
    if (!t->pool)
        return EBB_OK;
    ebb_status st = rt_wait(run, t, tier);
    t->pool = NULL;
    return st;
}

ebb_status rt_disk_settle(ebb_run *run, int32_t slot)
{
    return settle(run, &run->disk_pending[slot], EBB_TIER_DISK);
}

/* The transfer into or out of compressed host slot `slot` (packed.c). */
ebb_status rt_packed_settle(ebb_run *run, int32_t slot)
{
    return settle(run, &run->packed_pending[slot], EBB_TIER_HOST);
}

void rt_disk_pending_set(ebb_run *run, int32_t slot, rt_ticket t)
{
    run->disk_pending[slot] = t;
    if (slot >= run->disk_high)
        run->disk_high = slot + 1;
}

/* Waits for every transfer; returns the first failure (all are waited for). */
ebb_status rt_drain(ebb_run *run)
{
    ebb_status first = EBB_OK;
    for (int32_t s = 0; s < run->disk_high && run->disk_pending; s++) {
        ebb_status st = rt_disk_settle(run, s);
        if (first == EBB_OK)
            first = st;
    }
    for (int32_t s = 0; s < run->packed_slots && run->packed_pending; s++) {
        ebb_status st = rt_packed_settle(run, s);
        if (first == EBB_OK)
            first = st;
    }
    rt_mem *mems[2] = {&run->host, &run->gpu};
    for (int k = 0; k < 2; k++)
        for (int32_t b = 0; mems[k]->buf && b < mems[k]->marked; b++) {
            ebb_status st = rt_settle(run, mems[k], b);
            if (first == EBB_OK)
                first = st;
        }
    return first;
}

int ebb_run_debug_check_buffers(ebb_run *run)
{
    rt_mem *mems[2] = {&run->host, &run->gpu};
    for (int k = 0; k < 2; k++) {
        rt_mem *m = mems[k];
        if (!m->buf)
            continue;
        int32_t seen = 0;
        for (int c = 0; c < RT_CLASSES; c++) {
            int32_t n = 0, prev = -1;
            for (int32_t b = m->head[c]; b >= 0; prev = b, b = m->buf[b].next, n++) {
                if (n > m->count || m->buf[b].cls != c || m->buf[b].prev != prev) {
                    ebb_fail(EBB_ERR_INTERNAL, "%s buffer %d: list %d broken",
                             ebb_tier_name(m->tier), b, c);
                    return -1;
                }
                if (class_of(&m->buf[b]) != c) {
                    ebb_fail(EBB_ERR_INTERNAL, "%s buffer %d is in list %d, its fields say %d",
                             ebb_tier_name(m->tier), b, c, class_of(&m->buf[b]));
                    return -1;
                }
            }
            if (n != m->size[c] || m->tail[c] != prev) {
                ebb_fail(EBB_ERR_INTERNAL, "%s list %d: %d buffers, size says %d",
                         ebb_tier_name(m->tier), c, n, m->size[c]);
                return -1;
            }
            seen += n;
        }
        if (seen != m->fresh || m->fresh > m->count) {
            ebb_fail(EBB_ERR_INTERNAL, "%s: %d buffers in the lists, %d taken so far of %d",
                     ebb_tier_name(m->tier), seen, m->fresh, m->count);
            return -1;
        }
        int32_t pins = 0;
        uint64_t held = 0;
        for (int32_t b = 0; b < m->fresh; b++) {
            pins += m->buf[b].pins;
            held += m->held ? m->held[b] : 0;
        }
        if (held != m->held_total) {
            ebb_fail(EBB_ERR_INTERNAL, "%s: the buffers hold %llu bytes, the count says %llu",
                     ebb_tier_name(m->tier), (unsigned long long)held,
                     (unsigned long long)m->held_total);
            return -1;
        }
        int32_t want = 0;
        if (m == run->state)
            want += (run->live >= 0) + (run->prev >= 0) + (run->xn >= 0);
        if (m->tier == EBB_TIER_HOST)
            want += run->scratch >= 0;
        want += m->ahead;
        if (pins != want) {
            ebb_fail(EBB_ERR_INTERNAL, "%s: %d pins, the run's references make %d",
                     ebb_tier_name(m->tier), pins, want);
            return -1;
        }
    }
    return 0;
}
