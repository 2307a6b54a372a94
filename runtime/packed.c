/*
 * The host tier's compressed slots (tier.host.compression = "fixed-rate"):
 * the schedule's host slots live in a compressed host pool (run->packed),
 * not in buffers, so a STORE to the host tier compresses the live state's
 * buffer into its slot and a RESTORE decompresses the slot into a free
 * buffer, each a transfer run on the pool's codec threads, never on the
 * compute thread. A store's buffer is busy until its compression ended (the
 * forward sweep goes on meanwhile); a restore waits for its state, timed and
 * charged to the host tier ("stall"). (A PREFETCH or EVICT with a host end
 * is execute.c's: it goes through a buffer with these.)
 */
#include <stdio.h>

#include "common/error_internal.h"
#include "runtime/runtime_internal.h"

ebb_status rt_packed_store(ebb_run *run, int32_t slot, rt_mem *src, int32_t b)
{
    /* the slot's last transfer (a restore reading it) ends first, and so
     * does one still filling the buffer (a read from disk) */
    ebb_status st = rt_packed_settle(run, slot);
    if (st == EBB_OK && src->buf[b].fills)
        st = rt_settle(run, src, b);
    rt_ticket t;
    if (st == EBB_OK)
        st = rt_move(run, run->packed, slot, src->pool, b, &t);
    if (st != EBB_OK)
        return st;
    run->packed_pending[slot] = t;
    if (run->trace.f) /* no track of its own: its codec span's step */
        rt_trace_transfer(&run->trace, 0, t, run->cur_step, rt_clock(run));
    return rt_mark(run, src, b, t, EBB_TIER_HOST, 0);
}

ebb_status rt_packed_restore(ebb_run *run, int32_t slot, rt_mem *dst, int32_t *out)
{
    int32_t q;
    ebb_status st = rt_packed_settle(run, slot); /* its store ends first */
    if (st == EBB_OK)
        st = rt_take(run, dst, 0, &q);
    rt_ticket t;
    if (st == EBB_OK)
        st = rt_move(run, dst->pool, q, run->packed, slot, &t);
    if (st != EBB_OK)
        return st;
    run->packed_pending[slot] = t;
    if (run->trace.f)
        rt_trace_transfer(&run->trace, 0, t, run->cur_step, rt_clock(run));
    st = rt_mark(run, dst, q, t, EBB_TIER_HOST, 1);
    if (st == EBB_OK)
        st = rt_settle(run, dst, q);
    run->packed_pending[slot].pool = NULL; /* the wait above was this ticket's */
    *out = q;
    return st;
}
