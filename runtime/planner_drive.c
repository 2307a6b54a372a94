/*
 * The planner's sweeps: the control flow of run.c (ebb_run_begin, _advance,
 * _finish_forward, _reverse) and the read ahead of prefetch.c, over the
 * model of planner_sim.c. The batches are fetched as the runtime fetches
 * them, so the asynchronous strategy's `idle` questions come at the same
 * points of the forward sweep and see the simulated channels.
 */
#include <string.h>

#include "common/error_internal.h"
#include "runtime/planner_internal.h"

/* source.c's channel_idle, on the simulated tickets. */
static int channel_idle(ps_sim *s, int level)
{
    ebb_tier to = s->async_tier[level + 1];
    return ps_done(s, &s->last_in[to]);
}

/* source.c's channels_idle: the levels in order, the first busy one ends it. */
static ebb_status channels_idle(void *ctx, int mask, int64_t step, int *idle)
{
    (void)step;
    *idle = 1;
    for (int l = 0; l < 2 && *idle; l++)
        if (mask & 1 << l)
            *idle = channel_idle(ctx, l);
    return EBB_OK;
}

ebb_status ps_source_next(void *sim, ebb_action *out, size_t cap, size_t *count)
{
    ps_sim *s = sim;
    if (s->async)
        return rt_async_next_batch(s->async, out, cap, count, channels_idle, s);
    return ebb_schedule_next_batch(s->schedule, out, cap, count);
}

static ebb_status source_set_steps(ps_sim *s, int64_t n)
{
    if (s->async)
        return rt_async_set_steps(s->async, n);
    return ebb_schedule_set_steps(s->schedule, n);
}

static ebb_status peek(ps_sim *s, const ebb_action **a)
{
    return rt_window_peek(&s->win, ps_source_next, s, a);
}

/* ---- prefetch.c ---------------------------------------------------------- */

static int32_t spare_host_buffer(ps_sim *s)
{
    ps_mem *m = &s->host;
    int32_t free_count = 0, q = -1;
    for (int32_t b = 0; b < m->count && free_count < 2; b++) {
        if (ps_reserved(s, m, b) || !ps_idle(s, &m->buf[b]))
            continue;
        free_count++;
        if (q < 0)
            q = b;
    }
    return free_count < 2 ? -1 : q;
}

static ebb_status lookahead(ps_sim *s)
{
    if (s->disk_slots == 0 || s->ahead_buf >= 0)
        return EBB_OK;
    ebb_status st = rt_window_refill(&s->win, 64, ps_source_next, s);
    if (st != EBB_OK)
        return st;
    int blocked;
    const ebb_action *a = rt_window_next_disk_read(&s->win, &blocked);
    if (!a || blocked)
        return EBB_OK;
    int32_t d = a->slot;
    if (s->disk_cache[d] >= 0)
        return EBB_OK;
    if (!ps_done(s, &s->disk_pending[d]))
        return EBB_OK;
    s->disk_pending[d].busy = 0;
    int32_t q = spare_host_buffer(s);
    if (q < 0)
        return EBB_OK;
    ps_ticket t = ps_submit(s, EBB_PLAN_DISK_TO_HOST);
    s->disk_pending[d] = t;
    ps_remember(s, q, d);
    s->host.buf[q].pending = t;
    s->host.buf[q].pending_tier = EBB_TIER_DISK;
    s->host.buf[q].fills = 1;
    s->host.buf[q].holders++;
    s->ahead_buf = q;
    s->ahead_slot = d;
    s->ahead_step = a->step;
    s->out->prefetches++;
    return EBB_OK;
}

/* ---- run.c ----------------------------------------------------------------- */

/* rt_run_steps: the steps of an ADVANCE; *last: n unknown and x_n reached. */
static ebb_status run_steps(ps_sim *s, int64_t to, int *last)
{
    *last = 0;
    while (s->advance_at < to) {
        int64_t k = s->advance_at;
        int unknown = s->online;
        int keep = k + 1 == to && s->phase == PS_FORWARD && (unknown || to == s->steps);
        ebb_status st = ps_forward_step(s, k, keep);
        if (st != EBB_OK)
            return st;
        s->advance_at++;
        if (unknown && s->phase == PS_FORWARD && k + 1 == s->steps) {
            *last = 1;
            break;
        }
    }
    return EBB_OK;
}

static ebb_status forward(ps_sim *s)
{
    int32_t b;
    ebb_status st = ps_take(s, s->state, &b);
    if (st != EBB_OK)
        return st;
    s->live = b;
    s->live_step = 0;
    s->computed = 0;
    int last = 0;
    while (!last) {
        const ebb_action *a = NULL;
        if ((st = peek(s, &a)) != EBB_OK)
            return st;
        if (a->kind == EBB_ACT_TURN)
            break;
        if (a->kind != EBB_ACT_ADVANCE) {
            s->win.pos++;
            if ((st = ps_execute(s, a)) != EBB_OK)
                return st;
            continue;
        }
        if (s->advance_at <= a->step) {
            s->advance_at = a->step;
            if ((st = ps_execute(s, a)) != EBB_OK)
                return st;
        }
        int64_t to = a->to;
        if ((st = run_steps(s, to, &last)) != EBB_OK)
            return st;
        if (s->advance_at == to)
            s->win.pos++;
    }
    if (s->online && (st = source_set_steps(s, s->live_step)) != EBB_OK)
        return st;
    const ebb_action *a = NULL;
    if ((st = peek(s, &a)) != EBB_OK)
        return st;
    while (a->kind != EBB_ACT_TURN) {
        if (a->kind == EBB_ACT_ADVANCE)
            return ebb_fail(EBB_ERR_INTERNAL, "the planned forward ended before x_n");
        s->win.pos++;
        if ((st = ps_execute(s, a)) != EBB_OK || (st = peek(s, &a)) != EBB_OK)
            return st;
    }
    s->xn = s->live;
    s->phase = PS_TURNED;
    return EBB_OK;
}

static ebb_status reverse(ps_sim *s)
{
    ebb_status st;
    for (;;) {
        const ebb_action *a = NULL;
        if ((st = peek(s, &a)) != EBB_OK)
            return st;
        s->win.pos++;
        const ebb_action act = *a;
        if ((st = ps_execute(s, &act)) != EBB_OK)
            return st;
        if (act.kind == EBB_ACT_END)
            return EBB_OK;
        if ((st = lookahead(s)) != EBB_OK)
            return st;
        if (act.kind == EBB_ACT_ADVANCE) {
            int last;
            s->advance_at = act.step;
            if ((st = run_steps(s, act.to, &last)) != EBB_OK)
                return st;
        }
    }
}

ebb_status ps_drive(ps_sim *s)
{
    s->now = 0.0;
    s->phase = PS_FORWARD;
    ebb_status st = forward(s);
    if (st != EBB_OK)
        return st;
    ebb_plan_prediction *o = s->out;
    o->forward_s = s->now;
    if ((st = reverse(s)) != EBB_OK)
        return st;
    o->reverse_s = s->now - o->forward_s;
    o->predicted_s = s->now;
    o->recomputed_steps = o->forward_steps > s->steps ? o->forward_steps - s->steps : 0;
    return EBB_OK;
}
