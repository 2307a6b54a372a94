/*
 * Reading ahead in the reverse sweep: the reads the coming actions need are
 * started in their order, many at a time, as soon as a buffer can hold them,
 * so they run while the steps before them compute and each action finds its
 * data there (or on its way).
 *
 * - A disk read (a RESTORE from disk, a PREFETCH or EVICT out of it) goes
 *   into a free host buffer; a state still in a host buffer (written from
 *   or read into it) is kept there instead, pinned like a read.
 * - For a gpu state, a RESTORE from a host slot is copied up into a free gpu
 *   buffer.
 *
 * Each read holds its buffer (a pin) until its action takes it; the reads
 * in flight are a queue in action order (the actions take them in the same
 * order). A read never takes the last free buffers the steps need (KEEP), and
 * waits while an earlier action writes its slot or, for a copy up, while its
 * host buffer is still being filled. The free buffers of a tier, the
 * staging ones and the slots the schedule freed, are the window: the read
 * ahead goes as deep as they allow. Called between actions and between the
 * steps of an ADVANCE. Only in the reverse sweep: during the forward sweep
 * an online schedule must not be asked for actions ahead of time (it learns
 * n after the ADVANCE that made x_n).
 */
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "runtime/runtime_internal.h"

/* Free buffers a read leaves to the steps: the output of the step being run
 * (never the last free one). */
enum { KEEP = 1 };

/* Actions kept in the window from the current one on (window.h's batch
 * holds 1024). */
enum { LOOK = 768 };

ebb_status rt_ahead_init(ebb_run *run)
{
    run->ahead_cap = run->host.count + (run->gpu.buf ? run->gpu.count : 0);
    run->ahead = calloc((size_t)(run->ahead_cap > 0 ? run->ahead_cap : 1), sizeof *run->ahead);
    if (!run->ahead)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the read-ahead queue");
    return EBB_OK;
}

void rt_ahead_free(ebb_run *run)
{
    free(run->ahead);
    run->ahead = NULL;
}

static rt_mem *ahead_mem(ebb_run *run, const rt_ahead *e)
{
    return e->from == EBB_TIER_DISK ? &run->host : &run->gpu;
}

static void push(ebb_run *run, int from, int32_t slot, int64_t step, int32_t buf, int hit)
{
    rt_ahead *e = &run->ahead[(run->ahead_first + run->ahead_len) % run->ahead_cap];
    e->from = (int8_t)from;
    e->slot = slot;
    e->step = step;
    e->buf = buf;
    run->ahead_len++;
    rt_mem *m = ahead_mem(run, e);
    m->ahead++;
    m->buf[buf].pins++;
    rt_buf_update(m, buf);
    if (hit)
        run->stats.cache_hits++;
    else
        run->stats.prefetches++;
}

int32_t rt_take_ahead(ebb_run *run, int from, int32_t slot, int64_t step)
{
    for (int32_t i = 0; i < run->ahead_len; i++) {
        int32_t k = (run->ahead_first + i) % run->ahead_cap;
        rt_ahead e = run->ahead[k];
        if (e.from != from || e.slot != slot || e.step != step)
            continue;
        /* normally the first; one further on closes the gap */
        for (int32_t j = i; j > 0; j--)
            run->ahead[(run->ahead_first + j) % run->ahead_cap] =
                run->ahead[(run->ahead_first + j - 1) % run->ahead_cap];
        run->ahead_first = (run->ahead_first + 1) % run->ahead_cap;
        run->ahead_len--;
        rt_mem *m = ahead_mem(run, &e);
        m->ahead--;
        m->buf[e.buf].pins--;
        rt_buf_update(m, e.buf);
        return e.buf;
    }
    return -1;
}

/* Starts reading disk slot a->slot into a free host buffer. *go = 0: not
 * now (its write still running, or no buffer). */
static ebb_status read_disk_ahead(ebb_run *run, const ebb_action *a, int *go)
{
    int32_t s = a->slot;
    *go = 1;
    int32_t c = rt_disk_cached(run, s);
    if (c >= 0) {
        /* still in a host buffer: kept there until its action, or the reads
         * ahead would take the buffer and read it back later (behind them) */
        if (!rt_may_pin_ahead(&run->host, KEEP)) {
            *go = 0;
            return EBB_OK;
        }
        push(run, EBB_TIER_DISK, s, a->step, c, 1);
        return EBB_OK;
    }
    rt_ticket *w = &run->disk_pending[s];
    if (w->pool) {
        int done = 0;
        ebb_status st = rt_test(run, w, &done);
        if (!done) {
            *go = 0; /* still being written */
            return EBB_OK;
        }
        w->pool = NULL;
        if (st != EBB_OK)
            return st;
    }
    int32_t q;
    ebb_status st = rt_take_spare(run, &run->host, KEEP, &q);
    if (st != EBB_OK || q < 0) {
        *go = 0;
        return st;
    }
    rt_ticket t;
    if ((st = rt_move(run, run->host.pool, q, run->disk, s, &t)) != EBB_OK)
        return st;
    *w = t;
    if (run->trace.f)
        rt_trace_transfer(&run->trace, RT_TRACK_DISK_HOST, t, a->step, rt_clock(run));
    rt_remember(run, q, s);
    push(run, EBB_TIER_DISK, s, a->step, q, 0);
    return rt_mark(run, &run->host, q, t, EBB_TIER_DISK, 1);
}

/* Starts copying host slot a->slot up into a free gpu buffer (a gpu state). */
static ebb_status copy_up_ahead(ebb_run *run, const ebb_action *a, int *go)
{
    rt_mem *h = &run->host, *g = &run->gpu;
    int32_t hb = rt_map_get(h, a->slot);
    *go = 0;
    ebb_status st = EBB_OK;
    if (hb < 0 || !rt_idle(run, h, hb, &st) || st != EBB_OK)
        return st; /* not there yet, or a transfer still touches it */
    int32_t b;
    if ((st = rt_take_spare(run, g, KEEP, &b)) != EBB_OK || b < 0)
        return st;
    *go = 1;
    push(run, EBB_TIER_HOST, a->slot, a->step, b, 0);
    return rt_copy_buf(run, g, b, h, hb, a->step);
}

ebb_status rt_lookahead(ebb_run *run)
{
    int up = run->state == &run->gpu && run->host.slots > 0;
    if (!run->disk && !up)
        return EBB_OK;
    ebb_status st = rt_window_refill(&run->win, LOOK, rt_source_next, run);
    while (st == EBB_OK && run->ahead_len < run->ahead_cap) {
        int blocked, go = 0;
        const ebb_action *a = rt_window_next_read(&run->win, up, &blocked);
        if (!a || blocked)
            return EBB_OK; /* none in sight, or its slot changes first: later */
        if (a->tier == EBB_TIER_DISK)
            st = read_disk_ahead(run, a, &go);
        else
            st = copy_up_ahead(run, a, &go);
        if (!go)
            return st;
        run->win.scan++;
    }
    return st;
}
