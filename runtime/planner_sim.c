/*
 * The planner's model of the runtime's buffers and channels: one action at a
 * time, in simulated time. Each function mirrors the one of execute.c or
 * buffers.c with the same name (rt_ -> ps_), taking the same decisions:
 * which buffer a step writes, which transfer is waited for and when. A
 * ticket is the end time of its transfer; waiting moves the clock there and
 * counts the difference as a stall of the tier at the transfer's other end.
 *
 * Not modelled: copies on the compute thread (the in-place form, host ->
 * host transfers), the audit, the CPU that transfers take from the steps.
 */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "runtime/planner_internal.h"

/* The disk pacer's lateness that is made up for (storage/disk.h). */
#define PACE_SLACK_S 0.001

/* A chained move's other leg (ebb_move_via), block by block: a write's
 * block k may go once `ready0` + its end offset / `ready_bw` has passed
 * (it crossed from the gpu); a read's block is copied on to the gpu over
 * `then` (HOST_TO_GPU) as soon as the device returned it, and *then_end is
 * when the last copy ends. */
typedef struct ps_chain_leg {
    double ready0, ready_bw; /* write: bytes crossing from the gpu (ready_bw 0: none) */
    int then;                /* read: 1 copies each block on to the gpu */
    double then_end;
} ps_chain_leg;

/* A disk transfer: its blocks pass the pacer (storage/disk_pace.c: each
 * block starts no earlier than the last one's start + its bytes / the rate)
 * and then the device, one block after the other. */
static double disk_blocks(ps_sim *s, ebb_plan_channel_id c, ps_chain_leg *leg)
{
    const ebb_plan_problem *p = s->p;
    double bw = p->channel[c].bandwidth;
    const ebb_plan_channel *h2g = &p->channel[EBB_PLAN_HOST_TO_GPU];
    size_t block = p->disk_block > 0 ? p->disk_block : (size_t)8 << 20;
    double t = s->now;
    for (size_t done = 0; done < p->state_size; done += block) {
        double len = (double)(p->state_size - done < block ? p->state_size - done : block);
        double send = t;
        if (leg && leg->ready_bw > 0) {
            double ready = leg->ready0 + ((double)done + len) / leg->ready_bw;
            if (send < ready)
                send = ready;
        }
        if (p->disk_pace > 0) {
            if (send < s->pace_next)
                send = s->pace_next;
            double from = send - s->pace_next > PACE_SLACK_S ? send - PACE_SLACK_S : s->pace_next;
            s->pace_next = from + len / p->disk_pace;
        }
        double start = s->free_at[EBB_PLAN_HOST_TO_DISK] > send ? s->free_at[EBB_PLAN_HOST_TO_DISK]
                                                                 : send;
        s->free_at[EBB_PLAN_HOST_TO_DISK] = start + (bw > 0 ? len / bw : 0.0);
        t = send;
        if (leg && leg->then) {
            double got = s->free_at[EBB_PLAN_HOST_TO_DISK] + p->channel[c].latency;
            double from = s->free_at[EBB_PLAN_HOST_TO_GPU] > got ? s->free_at[EBB_PLAN_HOST_TO_GPU]
                                                                  : got;
            s->free_at[EBB_PLAN_HOST_TO_GPU] = from + (h2g->bandwidth > 0 ? len / h2g->bandwidth
                                                                          : 0.0);
            leg->then_end = s->free_at[EBB_PLAN_HOST_TO_GPU] + h2g->latency;
        }
    }
    return s->free_at[EBB_PLAN_HOST_TO_DISK];
}

ps_ticket ps_submit(ps_sim *s, ebb_plan_channel_id c)
{
    const ebb_plan_channel *ch = &s->p->channel[c];
    if (c == EBB_PLAN_HOST_TO_DISK || c == EBB_PLAN_DISK_TO_HOST)
        return (ps_ticket){.busy = 1, .end = disk_blocks(s, c, NULL) + ch->latency};
    double start = s->free_at[c] > s->now ? s->free_at[c] : s->now;
    double service = ch->bandwidth > 0 ? (double)s->p->state_size / ch->bandwidth : 0.0;
    s->free_at[c] = start + service;
    return (ps_ticket){.busy = 1, .end = start + service + ch->latency};
}

int ps_done(const ps_sim *s, const ps_ticket *t)
{
    return !t->busy || t->end <= s->now;
}

static void wait(ps_sim *s, ps_ticket *t, int tier)
{
    if (t->busy && t->end > s->now) {
        double dt = t->end - s->now;
        if (tier >= 0 && tier < EBB_TIER_COUNT)
            s->out->stall_tier_s[tier] += dt;
        s->out->stall_s += dt;
        s->now = t->end;
    }
    t->busy = 0;
}

ebb_status ps_mem_init(ps_mem *m, ebb_tier tier, int32_t count, int32_t slots)
{
    m->tier = tier;
    m->count = count;
    m->slots = slots;
    m->buf = calloc((size_t)(count > 0 ? count : 1), sizeof *m->buf);
    m->map = malloc((size_t)(slots > 0 ? slots : 1) * sizeof *m->map);
    if (!m->buf || !m->map)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the planner's %s buffer table",
                        ebb_tier_name(tier));
    for (int32_t i = 0; i < slots; i++)
        m->map[i] = -1;
    return EBB_OK;
}

void ps_mem_free(ps_mem *m)
{
    free(m->buf);
    free(m->map);
    m->buf = NULL;
    m->map = NULL;
}

static void settle(ps_sim *s, ps_mem *m, int32_t b)
{
    ps_buf *x = &m->buf[b];
    if (!x->pending.busy)
        return;
    wait(s, &x->pending, x->pending_tier);
    x->fills = 0;
}

static void mark(ps_sim *s, ps_mem *m, int32_t b, ps_ticket t, int other, int fills)
{
    ps_buf *x = &m->buf[b];
    if (x->pending.busy)
        settle(s, m, b); /* one ticket per buffer */
    x->pending = t;
    x->pending_tier = other;
    x->fills = fills;
}

int ps_reserved(const ps_sim *s, const ps_mem *m, int32_t b)
{
    const ps_buf *x = &m->buf[b];
    if (x->holders > 0)
        return 1;
    return m == s->state && (b == s->live || b == s->prev || b == s->xn);
}

static void forget(ps_sim *s, ps_mem *m, int32_t b)
{
    ps_buf *x = &m->buf[b];
    if (x->cached) {
        s->disk_cache[x->cached - 1] = -1;
        x->cached = 0;
    }
}

void ps_remember(ps_sim *s, int32_t b, int32_t slot)
{
    if (s->disk_cache[slot] >= 0)
        s->host.buf[s->disk_cache[slot]].cached = 0;
    forget(s, &s->host, b);
    s->disk_cache[slot] = b;
    s->host.buf[b].cached = slot + 1;
}

int ps_idle(const ps_sim *s, ps_buf *x)
{
    if (!x->pending.busy)
        return 1;
    if (x->pending.end > s->now)
        return 0;
    x->pending.busy = 0;
    x->fills = 0;
    return 1;
}

/* buffers.c's pick: an idle uncached buffer, an idle cached one, the first busy one. */
static int32_t pick(ps_sim *s, ps_mem *m)
{
    int32_t busy = -1, cached = -1;
    for (int32_t b = 0; b < m->count; b++) {
        if (ps_reserved(s, m, b))
            continue;
        if (!ps_idle(s, &m->buf[b])) {
            if (busy < 0)
                busy = b;
            continue;
        }
        if (!m->buf[b].cached)
            return b;
        if (cached < 0)
            cached = b;
    }
    if (cached >= 0)
        return cached;
    if (busy >= 0)
        settle(s, m, busy);
    return busy;
}

ebb_status ps_take(ps_sim *s, ps_mem *m, int32_t *out)
{
    *out = pick(s, m);
    if (*out < 0)
        return ebb_fail(EBB_ERR_INTERNAL, "the planner ran out of %s buffers (%d)",
                        ebb_tier_name(m->tier), m->count);
    if (m->tier == EBB_TIER_HOST && s->disk_cache)
        forget(s, m, *out);
    return EBB_OK;
}

static void disk_settle(ps_sim *s, int32_t slot)
{
    wait(s, &s->disk_pending[slot], EBB_TIER_DISK);
}

void ps_drain(ps_sim *s)
{
    for (int32_t d = 0; d < s->disk_slots; d++)
        disk_settle(s, d);
    ps_mem *mems[2] = {&s->host, &s->gpu};
    for (int k = 0; k < 2; k++)
        for (int32_t b = 0; mems[k]->buf && b < mems[k]->count; b++)
            settle(s, mems[k], b);
}

static ps_mem *mem_of(ps_sim *s, int tier)
{
    if (tier == EBB_TIER_HOST)
        return &s->host;
    if (tier == EBB_TIER_GPU && s->gpu.buf)
        return &s->gpu;
    return NULL;
}

/* host <-> gpu on the gpu channels; host -> host costs nothing here. */
static void copy_buf(ps_sim *s, ps_mem *dst, int32_t db, ps_mem *src, int32_t sb)
{
    settle(s, dst, db);
    if (dst->tier == EBB_TIER_HOST && src->tier == EBB_TIER_HOST) {
        if (src->buf[sb].fills)
            settle(s, src, sb);
        return;
    }
    settle(s, src, sb);
    ps_ticket t = {0, 0};
    if (dst->tier == EBB_TIER_HOST)
        t = ps_submit(s, EBB_PLAN_GPU_TO_HOST);
    else if (src->tier == EBB_TIER_HOST)
        t = ps_submit(s, EBB_PLAN_HOST_TO_GPU);
    else
        t = (ps_ticket){1, s->now}; /* gpu -> gpu: device bandwidth, not modelled */
    s->last_in[dst->tier] = t;
    mark(s, dst, db, t, src->tier, 1);
    if (src != dst || sb != db)
        mark(s, src, sb, t, dst->tier, 0);
}

static void stream_ready(ps_sim *s, ps_mem *m, int32_t b)
{
    if (m->buf[b].pending.busy && m->buf[b].fills)
        settle(s, m, b);
}

/* execute.c's write_disk_via_host: the copy over GPU_TO_HOST, each disk
 * block sent once it crossed; the disk leg ends after the copy. */
static ebb_status write_disk_via_host(ps_sim *s, int32_t slot, ps_mem *src, int32_t b)
{
    int32_t q;
    ebb_status st = ps_take(s, &s->host, &q);
    if (st != EBB_OK)
        return st;
    settle(s, &s->host, q);
    settle(s, src, b);
    const ebb_plan_channel *g2h = &s->p->channel[EBB_PLAN_GPU_TO_HOST];
    double start = s->free_at[EBB_PLAN_GPU_TO_HOST] > s->now ? s->free_at[EBB_PLAN_GPU_TO_HOST]
                                                             : s->now;
    ps_ticket t0 = ps_submit(s, EBB_PLAN_GPU_TO_HOST);
    /* (an infinite gpu channel: every block has crossed at once) */
    ps_chain_leg leg = {start + g2h->latency, g2h->bandwidth, 0, 0.0};
    double end = disk_blocks(s, EBB_PLAN_HOST_TO_DISK, &leg) +
                 s->p->channel[EBB_PLAN_HOST_TO_DISK].latency;
    ps_ticket t1 = {1, end > t0.end ? end : t0.end};
    s->last_in[EBB_TIER_HOST] = t0;
    s->last_in[EBB_TIER_DISK] = t1;
    s->disk_pending[slot] = t1;
    mark(s, &s->host, q, t1, EBB_TIER_DISK, 1);
    mark(s, src, b, t0, EBB_TIER_HOST, 0);
    return EBB_OK;
}

static ebb_status write_disk(ps_sim *s, int32_t slot, ps_mem *src, int32_t b)
{
    disk_settle(s, slot);
    if (s->disk_cache[slot] >= 0)
        forget(s, &s->host, s->disk_cache[slot]);
    if (src->tier == EBB_TIER_GPU)
        return write_disk_via_host(s, slot, src, b);
    settle(s, src, b);
    ps_ticket t = ps_submit(s, EBB_PLAN_HOST_TO_DISK);
    s->disk_pending[slot] = t;
    s->last_in[EBB_TIER_DISK] = t;
    ps_remember(s, b, slot);
    mark(s, src, b, t, EBB_TIER_DISK, 0);
    return EBB_OK;
}

static int32_t take_prefetched(ps_sim *s, int32_t slot, int64_t step)
{
    if (s->ahead_buf < 0 || s->ahead_slot != slot || s->ahead_step != step)
        return -1;
    int32_t q = s->ahead_buf;
    s->host.buf[q].holders--;
    s->ahead_buf = -1;
    return q;
}

/* execute.c's read_disk_via_host: each block copied on over HOST_TO_GPU
 * as it is read; the host waits for the read, the gpu buffer for the copies. */
static ebb_status read_disk_via_host(ps_sim *s, int32_t slot, ps_mem *dst, int32_t *out)
{
    int32_t q, r;
    disk_settle(s, slot);
    ebb_status st = ps_take(s, &s->host, &q);
    if (st == EBB_OK)
        st = ps_take(s, dst, &r);
    if (st != EBB_OK)
        return st;
    settle(s, &s->host, q);
    settle(s, dst, r);
    ps_chain_leg leg = {0, 0, 1, s->now};
    ps_ticket t0 = {1, disk_blocks(s, EBB_PLAN_DISK_TO_HOST, &leg) +
                           s->p->channel[EBB_PLAN_DISK_TO_HOST].latency};
    ps_ticket t1 = {1, leg.then_end > t0.end ? leg.then_end : t0.end};
    s->last_in[dst->tier] = t1;
    ps_remember(s, q, slot);
    mark(s, &s->host, q, t1, EBB_TIER_DISK, 1);
    mark(s, dst, r, t1, EBB_TIER_DISK, 1);
    wait(s, &t0, EBB_TIER_DISK);
    *out = r;
    return EBB_OK;
}

static ebb_status read_disk(ps_sim *s, int32_t slot, int64_t step, ps_mem *dst, int wait_data,
                            int32_t *out)
{
    int32_t q = take_prefetched(s, slot, step);
    if (q < 0 && s->disk_cache[slot] >= 0) {
        q = s->disk_cache[slot];
        s->out->cache_hits++;
    } else if (q < 0 && dst->tier == EBB_TIER_GPU) {
        return read_disk_via_host(s, slot, dst, out);
    } else if (q < 0) {
        disk_settle(s, slot);
        ebb_status st = ps_take(s, &s->host, &q);
        if (st != EBB_OK)
            return st;
        ps_ticket t = ps_submit(s, EBB_PLAN_DISK_TO_HOST);
        s->disk_pending[slot] = t;
        mark(s, &s->host, q, t, EBB_TIER_DISK, 1);
        ps_remember(s, q, slot);
    }
    if ((wait_data || dst->tier == EBB_TIER_GPU) && s->host.buf[q].fills) {
        settle(s, &s->host, q);
        if (ps_done(s, &s->disk_pending[slot]))
            s->disk_pending[slot].busy = 0;
    }
    if (dst->tier == EBB_TIER_HOST) {
        *out = q;
        return EBB_OK;
    }
    int32_t r;
    ebb_status st = ps_take(s, dst, &r);
    if (st == EBB_OK)
        copy_buf(s, dst, r, &s->host, q);
    *out = r;
    return st;
}

static void hold(ps_mem *m, int32_t slot, int32_t b)
{
    m->map[slot] = b;
    m->buf[b].holders++;
}

static void occupy(ps_sim *s, int tier)
{
    if (++s->in_use[tier] > s->out->peak_slots[tier])
        s->out->peak_slots[tier] = s->in_use[tier];
}

static void release(ps_sim *s, int tier, int32_t slot)
{
    ps_mem *m = mem_of(s, tier);
    if (m && m->map[slot] >= 0) {
        m->buf[m->map[slot]].holders--;
        m->map[slot] = -1;
    }
    s->in_use[tier]--;
}

static ebb_status do_store(ps_sim *s, const ebb_action *a)
{
    ps_mem *m = s->state;
    ebb_status st = EBB_OK;
    if (a->tier == (int)m->tier) {
        hold(m, a->slot, s->live);
    } else if (a->tier == EBB_TIER_DISK) {
        st = write_disk(s, a->slot, m, s->live);
    } else {
        ps_mem *dst = mem_of(s, a->tier);
        int32_t q;
        if (!dst)
            return ebb_fail(EBB_ERR_INTERNAL, "the planner has no %s memory", ebb_tier_name(a->tier));
        st = ps_take(s, dst, &q);
        if (st == EBB_OK) {
            copy_buf(s, dst, q, m, s->live);
            hold(dst, a->slot, q);
        }
    }
    if (st == EBB_OK) {
        occupy(s, a->tier);
        s->out->stores[a->tier]++;
    }
    return st;
}

static ebb_status do_restore(ps_sim *s, const ebb_action *a)
{
    ps_mem *m = s->state;
    ebb_status st = EBB_OK;
    int32_t b;
    if (a->tier == (int)m->tier) {
        b = m->map[a->slot];
    } else if (a->tier == EBB_TIER_DISK) {
        st = read_disk(s, a->slot, a->step, m, 1, &b);
    } else {
        ps_mem *src = mem_of(s, a->tier);
        st = ps_take(s, m, &b);
        if (st == EBB_OK)
            copy_buf(s, m, b, src, src->map[a->slot]);
    }
    if (st != EBB_OK)
        return st;
    stream_ready(s, m, b);
    s->live = b;
    s->live_step = a->step;
    s->out->restores[a->tier]++;
    return EBB_OK;
}

static ebb_status do_transfer(ps_sim *s, const ebb_action *a)
{
    ps_mem *src = mem_of(s, a->tier), *dst = mem_of(s, a->tier_to);
    ebb_status st = EBB_OK;
    int32_t b;
    if (src && dst) {
        int32_t sb = src->map[a->slot];
        b = sb;
        if (src != dst && (st = ps_take(s, dst, &b)) == EBB_OK)
            copy_buf(s, dst, b, src, sb);
        if (st == EBB_OK)
            hold(dst, a->slot_to, b);
    } else if (src) {
        st = write_disk(s, a->slot_to, src, src->map[a->slot]);
    } else if (dst) {
        st = read_disk(s, a->slot, a->step, dst, 0, &b);
        if (st == EBB_OK)
            hold(dst, a->slot_to, b);
    } else {
        return ebb_fail(EBB_ERR_UNSUPPORTED, "a transfer from disk to disk is not supported");
    }
    if (st != EBB_OK)
        return st;
    occupy(s, a->tier_to);
    if (a->kind == EBB_ACT_EVICT)
        release(s, a->tier, a->slot);
    return EBB_OK;
}

ebb_status ps_execute(ps_sim *s, const ebb_action *a)
{
    switch (a->kind) {
    case EBB_ACT_ADVANCE:
        return EBB_OK;
    case EBB_ACT_STORE:
        return do_store(s, a);
    case EBB_ACT_RESTORE:
        return do_restore(s, a);
    case EBB_ACT_PREFETCH:
    case EBB_ACT_EVICT:
        return do_transfer(s, a);
    case EBB_ACT_FREE:
        release(s, a->tier, a->slot);
        return EBB_OK;
    case EBB_ACT_TURN:
        s->live = s->prev;
        s->live_step = a->step - 1;
        s->prev = -1;
        s->xn = -1;
        return EBB_OK;
    case EBB_ACT_REVERSE:
        s->now += s->p->reverse_s;
        s->out->reverse_steps++;
        s->live = -1;
        return EBB_OK;
    case EBB_ACT_END:
        ps_drain(s);
        return EBB_OK;
    default:
        return ebb_fail(EBB_ERR_INTERNAL, "the planner cannot execute action kind %d", a->kind);
    }
}

ebb_status ps_forward_step(ps_sim *s, int64_t k, int keep_prev)
{
    ps_mem *m = s->state;
    int32_t in = s->live, out;
    s->prev = -1;
    ebb_status st = ps_take(s, m, &out);
    if (st != EBB_OK)
        return st;
    s->now += s->p->forward_s;
    s->out->forward_steps++;
    s->prev = keep_prev ? in : -1;
    s->live = out;
    s->live_step = k + 1;
    if (k + 1 > s->computed)
        s->computed = k + 1;
    return EBB_OK;
}
