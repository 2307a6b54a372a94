/*
 * Reading ahead in the reverse sweep: the next read of a disk slot in the
 * action stream (a RESTORE, or a PREFETCH into memory) is started as soon as
 * a host buffer is free and nothing before it writes that disk slot, so the
 * read runs while the steps before it compute, and the action finds its data
 * (or most of it) already there.
 *
 * One read ahead at a time, into a host buffer held for it (never the last
 * free one, so the steps keep a buffer to write). Only in the reverse sweep:
 * during the forward sweep an online schedule must not be asked for actions
 * ahead of time (it learns n after the ADVANCE that made x_n).
 */
#include <string.h>

#include "common/error_internal.h"
#include "runtime/run_internal.h"

ebb_status rt_lookahead(ebb_run *run)
{
    if (!run->disk || run->ahead_buf >= 0)
        return EBB_OK;
    ebb_status st = rt_window_refill(&run->win, 64, rt_source_next, run);
    if (st != EBB_OK)
        return st;
    int blocked;
    const ebb_action *a = rt_window_next_disk_read(&run->win, &blocked);
    if (!a || blocked)
        return EBB_OK; /* none in sight, or the slot changes first: try again later */
    int32_t s = a->slot;
    if (run->disk_cache[s] >= 0)
        return EBB_OK; /* still in a host buffer */
    rt_ticket *w = &run->disk_pending[s];
    if (w->pool) {
        int done = 0;
        st = rt_test(run, w, &done);
        if (!done)
            return EBB_OK; /* still being written */
        w->pool = NULL;
        if (st != EBB_OK)
            return st;
    }
    int32_t q;
    if ((st = rt_take_spare(run, &run->host, 1, &q)) != EBB_OK || q < 0)
        return st;
    rt_ticket t;
    if ((st = rt_move(run, run->host.pool, q, run->disk, s, &t)) != EBB_OK)
        return st;
    *w = t;
    if (run->trace.f)
        rt_trace_transfer(&run->trace, RT_TRACK_DISK_HOST, t, a->step, rt_clock(run));
    rt_remember(run, q, s);
    rt_set_ref(&run->host, &run->ahead_buf, q);
    if ((st = rt_mark(run, &run->host, q, t, EBB_TIER_DISK, 1)) != EBB_OK)
        return st;
    run->ahead_slot = s;
    run->ahead_step = a->step;
    run->stats.prefetches++;
    return EBB_OK;
}

int32_t rt_take_prefetched(ebb_run *run, int32_t slot, int64_t step)
{
    if (run->ahead_buf < 0 || run->ahead_slot != slot || run->ahead_step != step)
        return -1;
    int32_t q = run->ahead_buf;
    rt_set_ref(&run->host, &run->ahead_buf, -1);
    return q;
}
