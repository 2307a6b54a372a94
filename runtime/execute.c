/*
 * Executes one action of a schedule over the pools, and the forward steps of
 * an ADVANCE with the user's callbacks.
 *
 * Transfers are started and left running: a STORE to disk returns once the
 * write is queued, and the buffer it reads is not reused until the write
 * completed (buffers.c). Only a RESTORE waits, for the data it needs. For a
 * GPU state every copy that reads a buffer is ordered after the work queued
 * on the user's stream (ebb_pool_order_after), a copy into a buffer after
 * the steps that used it (ebb_pool_slot_order_after, slot_used), and the
 * stream waits for every copy that fills a
 * buffer it will read (ebb_ticket_stream_wait), so the host thread waits
 * for a gpu transfer only where a buffer's one ticket must be freed for a
 * second transfer (buffers.c), and for data read back from disk.
 */
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "runtime/runtime_internal.h"

static rt_mem *mem_of(ebb_run *run, int tier)
{
    if (tier == EBB_TIER_HOST)
        return &run->host;
    if (tier == EBB_TIER_GPU && run->gpu.pool)
        return &run->gpu;
    return NULL;
}

static ebb_status callback_failed(const char *what, int64_t step, int rc, int recomputed)
{
    char msg[768];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    const char *again = recomputed ? " (recomputation)" : "";
    if (msg[0])
        return ebb_fail(EBB_ERR_CALLBACK, "%s step %lld%s failed: %s", what, (long long)step, again,
                        msg);
    return ebb_fail(EBB_ERR_CALLBACK, "%s step %lld%s failed: the callback returned %d", what,
                    (long long)step, again, rc);
}

/* Makes the user's stream wait for whatever fills buffer b of a gpu state. */
static ebb_status stream_ready(ebb_run *run, rt_mem *m, int32_t b)
{
    rt_buf *x = &m->buf[b];
    if (!x->pending.pool || !x->fills)
        return EBB_OK;
    if (m->tier == EBB_TIER_GPU)
        return rt_stream_wait(run, &x->pending, x->pending_tier);
    return rt_settle(run, m, b);
}

/* The user's stream was given work on buffer b of a gpu state: later copies
 * into b (restores do not wait for the whole stream) wait for that work. */
static ebb_status slot_used(ebb_run *run, rt_mem *m, int32_t b)
{
    if (m->tier != EBB_TIER_GPU || b < 0)
        return EBB_OK;
    return run->io->ops->slot_order_after(run->io, m->pool, b, run->opt.stream);
}

/* gpu buffer b -> a host buffer -> disk slot `slot`, the disk write
 * following the copy block by block (ebb_move_via). */
static ebb_status write_disk_via_host(ebb_run *run, int32_t slot, rt_mem *src, int32_t b)
{
    int32_t q;
    ebb_status st = rt_take(run, &run->host, 0, &q);
    if (st == EBB_OK)
        st = rt_settle(run, &run->host, q);
    if (st == EBB_OK)
        st = rt_settle(run, src, b);
    /* the copy reads what the user's stream produced */
    if (st == EBB_OK)
        st = rt_order_after(run, run->gpu.pool);
    rt_ticket t[2];
    if (st == EBB_OK)
        st = run->io->ops->move_via(run->io, run->disk, slot, run->host.pool, q, src->pool, b, t);
    if (st != EBB_OK)
        return st;
    run->last_in[EBB_TIER_HOST] = t[0];
    run->last_in[EBB_TIER_DISK] = t[1];
    rt_disk_pending_set(run, slot, t[1]);
    if (run->trace.f) {
        double now = rt_clock(run);
        rt_trace_transfer(&run->trace, rt_trace_track(EBB_TIER_GPU, EBB_TIER_HOST), t[0],
                          run->cur_step, now);
        rt_trace_transfer(&run->trace, RT_TRACK_HOST_DISK, t[1], run->cur_step, now);
    }
    /* q is filled, then read, until the disk leg completes (which follows
     * the whole copy) */
    st = rt_mark(run, &run->host, q, t[1], EBB_TIER_DISK, 1);
    if (st == EBB_OK)
        st = rt_mark(run, src, b, t[0], EBB_TIER_HOST, 0);
    return st;
}

/* Starts writing buffer b of `src` to disk slot `slot`. */
static ebb_status write_disk(ebb_run *run, int32_t slot, rt_mem *src, int32_t b)
{
    ebb_status st = rt_disk_settle(run, slot);
    if (st != EBB_OK)
        return st;
    if (rt_disk_cached(run, slot) >= 0) /* the slot's old state is gone */
        rt_forget(run, &run->host, rt_disk_cached(run, slot));
    if (src->tier == EBB_TIER_GPU)
        return write_disk_via_host(run, slot, src, b);
    st = rt_settle(run, src, b);
    rt_ticket t;
    if (st == EBB_OK)
        st = rt_move(run, run->disk, slot, src->pool, b, &t);
    if (st != EBB_OK)
        return st;
    rt_disk_pending_set(run, slot, t);
    run->last_in[EBB_TIER_DISK] = t;
    if (run->trace.f)
        rt_trace_transfer(&run->trace, RT_TRACK_HOST_DISK, t, run->cur_step, rt_clock(run));
    /* a lossy disk gives back its round trip, not the buffer's bytes: every
     * restore of the slot reads it, so that each gives the same state */
    if (!rt_tier_lossy(run, EBB_TIER_DISK))
        rt_remember(run, b, slot);
    return rt_mark(run, src, b, t, EBB_TIER_DISK, 0);
}

/* Disk slot `slot` -> a host buffer -> a buffer of gpu `dst`, each block
 * copied on as it arrives (ebb_move_via); waits, timed and charged to the
 * disk, until the read ended, as a restore to the gpu always has. */
static ebb_status read_disk_via_host(ebb_run *run, int32_t slot, int64_t step, rt_mem *dst,
                                     int32_t *out)
{
    int32_t q, r;
    ebb_status st = rt_disk_settle(run, slot);
    if (st == EBB_OK)
        st = rt_take(run, &run->host, 0, &q);
    if (st == EBB_OK)
        st = rt_take(run, dst, 0, &r);
    if (st == EBB_OK)
        st = rt_settle(run, &run->host, q);
    if (st == EBB_OK)
        st = rt_settle(run, dst, r);
    rt_ticket t[2];
    if (st == EBB_OK)
        st = run->io->ops->move_via(run->io, dst->pool, r, run->host.pool, q, run->disk, slot, t);
    if (st != EBB_OK)
        return st;
    run->last_in[dst->tier] = t[1];
    if (run->trace.f) {
        double now = rt_clock(run);
        rt_trace_transfer(&run->trace, RT_TRACK_DISK_HOST, t[0], step, now);
        rt_trace_transfer(&run->trace, rt_trace_track(EBB_TIER_HOST, dst->tier), t[1], step,
                          now);
    }
    rt_remember(run, q, slot);
    /* both are filled until the gpu leg, which ends after the read, completes */
    st = rt_mark(run, &run->host, q, t[1], EBB_TIER_DISK, 1);
    if (st == EBB_OK)
        st = rt_mark(run, dst, r, t[1], EBB_TIER_DISK, 1);
    if (st == EBB_OK)
        st = rt_wait(run, &t[0], EBB_TIER_DISK);
    *out = r;
    return st;
}

/* Reads disk slot `slot` into a buffer of `dst` (through a host buffer for a
 * gpu); waits for the data when `wait` or when it must cross to the gpu. */
static ebb_status read_disk(ebb_run *run, int32_t slot, int64_t step, rt_mem *dst, int wait,
                            int32_t *out)
{
    ebb_status st = EBB_OK;
    int32_t q = rt_take_ahead(run, EBB_TIER_DISK, slot, step);
    if (q < 0 && rt_disk_cached(run, slot) >= 0) {
        q = rt_disk_cached(run, slot); /* still in the buffer it was written from or read into */
        run->stats.cache_hits++;
    } else if (q < 0 && dst->tier == EBB_TIER_GPU) {
        return read_disk_via_host(run, slot, step, dst, out);
    } else if (q < 0) {
        rt_ticket t;
        st = rt_disk_settle(run, slot);
        if (st == EBB_OK)
            st = rt_take(run, &run->host, 0, &q);
        if (st == EBB_OK)
            st = rt_move(run, run->host.pool, q, run->disk, slot, &t);
        if (st != EBB_OK)
            return st;
        rt_disk_pending_set(run, slot, t);
        if (run->trace.f)
            rt_trace_transfer(&run->trace, RT_TRACK_DISK_HOST, t, step, rt_clock(run));
        st = rt_mark(run, &run->host, q, t, EBB_TIER_DISK, 1);
        rt_remember(run, q, slot);
    }
    if (st == EBB_OK && (wait || dst->tier == EBB_TIER_GPU) && run->host.buf[q].fills) {
        /* the data is still arriving (a transfer that only reads q, such as
         * the write it came from, need not be waited for) */
        int done = 0;
        st = rt_settle(run, &run->host, q);
        rt_ticket *w = &run->disk_pending[slot];
        if (st == EBB_OK && w->pool && rt_test(run, w, &done) == EBB_OK && done)
            w->pool = NULL;
    }
    if (st != EBB_OK || dst->tier == EBB_TIER_HOST) {
        *out = q;
        return st;
    }
    int32_t r;
    st = rt_take(run, dst, 0, &r);
    if (st == EBB_OK)
        st = rt_copy_buf(run, dst, r, &run->host, q, step);
    *out = r;
    return st;
}

static void hold(ebb_run *run, rt_mem *m, int32_t slot, int32_t b)
{
    rt_map_set(m, slot, b);
    m->buf[b].holders++;
    rt_buf_update(m, b);
    (void)run;
}

static void occupy(ebb_run *run, int tier)
{
    if (++run->in_use[tier] > run->stats.peak_slots[tier])
        run->stats.peak_slots[tier] = run->in_use[tier];
}

static void release(ebb_run *run, int tier, int32_t slot)
{
    rt_mem *m = tier == EBB_TIER_HOST && run->packed ? NULL : mem_of(run, tier);
    if (m && rt_map_get(m, slot) >= 0) {
        int32_t b = rt_map_get(m, slot);
        m->buf[b].holders--;
        rt_map_set(m, slot, -1);
        rt_buf_update(m, b);
    }
    run->in_use[tier]--;
}

static ebb_status do_store(ebb_run *run, const ebb_action *a)
{
    rt_mem *m = run->state;
    ebb_status st = EBB_OK;
    if (a->tier == EBB_TIER_HOST && run->packed) {
        st = rt_packed_store(run, a->slot, m, run->live);
    } else if (a->tier == (int)m->tier) {
        hold(run, m, a->slot, run->live);
    } else if (a->tier == EBB_TIER_DISK) {
        st = write_disk(run, a->slot, m, run->live);
    } else {
        rt_mem *dst = mem_of(run, a->tier);
        int32_t q;
        st = rt_take(run, dst, 0, &q);
        if (st == EBB_OK)
            st = rt_copy_buf(run, dst, q, m, run->live, run->live_step);
        if (st == EBB_OK)
            hold(run, dst, a->slot, q);
    }
    if (st == EBB_OK) {
        occupy(run, a->tier);
        run->stats.stores[a->tier]++;
        if (a->tier != (int)m->tier)
            run->stats.bytes_written[a->tier] += rt_state_bytes(run, run->live_step);
    }
    return st;
}

static ebb_status do_restore(ebb_run *run, const ebb_action *a)
{
    rt_mem *m = run->state;
    ebb_status st = EBB_OK;
    int32_t b;
    if (a->tier == EBB_TIER_HOST && run->packed) {
        st = rt_packed_restore(run, a->slot, m, &b);
    } else if (a->tier == (int)m->tier) {
        b = rt_map_get(m, a->slot);
    } else if (a->tier == EBB_TIER_DISK) {
        st = read_disk(run, a->slot, a->step, m, 1, &b);
    } else if ((b = rt_take_ahead(run, a->tier, a->slot, a->step)) < 0) {
        rt_mem *src = mem_of(run, a->tier);
        st = rt_take(run, m, 0, &b);
        if (st == EBB_OK)
            st = rt_copy_buf(run, m, b, src, rt_map_get(src, a->slot), a->step);
    }
    if (st == EBB_OK)
        st = stream_ready(run, m, b);
    if (st != EBB_OK)
        return st;
    rt_set_ref(m, &run->live, b);
    run->live_step = a->step;
    run->stats.restores[a->tier]++;
    if (a->tier != (int)m->tier)
        run->stats.bytes_read[a->tier] += rt_state_bytes(run, a->step);
    return rt_audit_restored(run, a, b);
}

/* A PREFETCH or EVICT with a compressed host slot at one end (packed.c):
 * between host slots the compressed state is copied as it is; to disk it is
 * decompressed into a buffer, then written; from disk it is read into a
 * buffer, then compressed into its slot. */
static ebb_status packed_transfer(ebb_run *run, const ebb_action *a)
{
    ebb_status st;
    int32_t q;
    if (a->tier == EBB_TIER_HOST && a->tier_to == EBB_TIER_HOST) {
        if (a->slot == a->slot_to)
            return EBB_OK;
        rt_ticket t;
        if ((st = rt_packed_settle(run, a->slot)) == EBB_OK &&
            (st = rt_packed_settle(run, a->slot_to)) == EBB_OK)
            st = rt_move(run, run->packed, a->slot_to, run->packed, a->slot, &t);
        return st;
    }
    if (a->tier == EBB_TIER_HOST && a->tier_to == EBB_TIER_DISK) {
        if ((st = rt_packed_restore(run, a->slot, &run->host, &q)) != EBB_OK)
            return st;
        return write_disk(run, a->slot_to, &run->host, q);
    }
    if (a->tier == EBB_TIER_DISK && a->tier_to == EBB_TIER_HOST) {
        if ((st = read_disk(run, a->slot, a->step, &run->host, 1, &q)) != EBB_OK)
            return st;
        return rt_packed_store(run, a->slot_to, &run->host, q);
    }
    /* a gpu state's host slots are refused at create (run_setup.c) */
    return ebb_fail(EBB_ERR_INTERNAL, "a transfer from the %s tier to the %s tier with the host "
                    "tier compressed", ebb_tier_name((ebb_tier)a->tier),
                    ebb_tier_name((ebb_tier)a->tier_to));
}

/* PREFETCH and EVICT: (tier, slot) -> (tier_to, slot_to). */
static ebb_status do_transfer(ebb_run *run, const ebb_action *a)
{
    rt_mem *src = mem_of(run, a->tier), *dst = mem_of(run, a->tier_to);
    ebb_status st;
    int32_t b;
    if (run->packed && (a->tier == EBB_TIER_HOST || a->tier_to == EBB_TIER_HOST)) {
        st = packed_transfer(run, a);
    } else if (src && dst) {
        int32_t sb = rt_map_get(src, a->slot);
        if (src == dst) {
            b = sb;
            st = EBB_OK;
        } else {
            st = rt_take(run, dst, 0, &b);
            if (st == EBB_OK)
                st = rt_copy_buf(run, dst, b, src, sb, a->step);
        }
        if (st == EBB_OK)
            hold(run, dst, a->slot_to, b);
    } else if (src) {
        st = write_disk(run, a->slot_to, src, rt_map_get(src, a->slot));
    } else if (dst) {
        st = read_disk(run, a->slot, a->step, dst, 0, &b);
        if (st == EBB_OK)
            hold(run, dst, a->slot_to, b);
    } else {
        return ebb_fail(EBB_ERR_UNSUPPORTED, "a transfer from disk to disk is not supported");
    }
    if (st != EBB_OK)
        return st;
    occupy(run, a->tier_to);
    if (a->tier != a->tier_to) {
        run->stats.bytes_read[a->tier] += rt_state_bytes(run, a->step);
        run->stats.bytes_written[a->tier_to] += rt_state_bytes(run, a->step);
    }
    if (a->kind == EBB_ACT_EVICT)
        release(run, a->tier, a->slot);
    return EBB_OK;
}

/* Where a callback's time starts: the last one's end when nothing between
 * can have taken time (no wait, no read started, no hash, no error sample, a
 * host state), else a clock read. */
static double step_start(ebb_run *run)
{
    const rt_step_clock *c = &run->clock;
    if (c->t >= 0 && c->stall == run->stats.stall_total_s &&
        c->prefetches == run->stats.prefetches && !run->hash && !run->audit_lossy &&
        !run->errs.cap && run->state->tier == EBB_TIER_HOST)
        return c->t;
    return rt_clock(run);
}

/* A callback ended at t1: the next may start from it. */
static void callback_ended(ebb_run *run, double t1)
{
    run->clock = (rt_step_clock){t1, run->stats.stall_total_s, run->stats.prefetches};
}

/* After reverse(i) (the callback, or the caller of the pull form done with
 * x_i): the bookkeeping of the step. t0, t1: its span on the timeline. */
static ebb_status reverse_done(ebb_run *run, int64_t step, double t0, double t1)
{
    rt_step_reverse_time(run, step, t1 - t0);
    rt_step_device_end(run, step, 1);
    if (run->trace.f)
        rt_trace_span(&run->trace, "reverse", step, NULL, t0, t1);
    ebb_status st = slot_used(run, run->state, run->live);
    if (st != EBB_OK)
        return st;
    /* the reverse step may have changed the buffer; a disk slot it caches
     * holds x_i too, which no later action reads (until rewritten) */
    run->stats.reverse_steps++;
    rt_set_ref(run->state, &run->live, -1);
    return EBB_OK;
}

ebb_status rt_reverse_done(ebb_run *run)
{
    int64_t step = run->pulled;
    if (step < 0)
        return EBB_OK;
    run->pulled = -1;
    return reverse_done(run, step, run->pulled_at, rt_clock(run));
}

static ebb_status do_reverse(ebb_run *run, const ebb_action *a)
{
    /* the state as it is handed out (the callback may change it) */
    ebb_status st = rt_errs_compare(run, a->step, run->live);
    if (st != EBB_OK)
        return st;
    if (run->pulling) { /* pull form: the caller gets x_i; reverse_done when it asks again */
        run->pulled = a->step;
        run->pulled_at = rt_clock(run);
        rt_step_device_begin(run);
        return EBB_OK;
    }
    void *state = rt_buf_ptr(run, run->state, run->live);
    ebb_clear_error();
    double t0 = step_start(run);
    rt_step_device_begin(run);
    int rc = run->opt.reverse(run->opt.user, a->step, state);
    double t1 = rt_clock(run);
    callback_ended(run, t1);
    run->stats.reverse_callback_s += t1 - t0;
    if (rc != EBB_STEP_OK) {
        if (run->trace.f)
            rt_trace_span(&run->trace, "reverse", a->step, NULL, t0, t1);
        return callback_failed("reverse", a->step, rc, 0);
    }
    return reverse_done(run, a->step, t0, t1);
}

/* Whether an action is bookkeeping only (no copy, no transfer) up to its
 * callback if it has one: the next callback may start from the last one's
 * end. */
static int bookkeeping_only(const ebb_run *run, const ebb_action *a)
{
    switch (a->kind) {
    case EBB_ACT_ADVANCE:
    case EBB_ACT_TURN:
    case EBB_ACT_REVERSE:
        return 1;
    case EBB_ACT_STORE:
    case EBB_ACT_RESTORE:
    case EBB_ACT_FREE:
        return a->tier == EBB_TIER_HOST && a->tier == (int)run->state->tier && !run->packed;
    default:
        return 0;
    }
}

ebb_status rt_execute(ebb_run *run, const ebb_action *a)
{
    if (!bookkeeping_only(run, a))
        run->clock.t = -1;
    ebb_status st = rt_audit_action(run, a);
    run->cur_step = a->step;
    if (run->trace.f)
        rt_trace_poll(&run->trace, rt_clock(run), 0);
    if (st != EBB_OK)
        return st;
    switch (a->kind) {
    case EBB_ACT_ADVANCE:
        return EBB_OK; /* the caller runs the steps (rt_run_steps) */
    case EBB_ACT_STORE:
        st = do_store(run, a);
        return st == EBB_OK ? rt_audit_stored(run, a) : st;
    case EBB_ACT_RESTORE:
        return do_restore(run, a);
    case EBB_ACT_PREFETCH:
    case EBB_ACT_EVICT:
        st = do_transfer(run, a);
        return st == EBB_OK ? rt_audit_stored(run, a) : st;
    case EBB_ACT_FREE:
        release(run, a->tier, a->slot);
        return EBB_OK;
    case EBB_ACT_TURN:
        /* the user's own work on x_n, queued before the reverse sweep */
        st = slot_used(run, run->state, run->xn);
        rt_set_ref(run->state, &run->live, run->prev);
        run->live_step = a->step - 1;
        rt_set_ref(run->state, &run->prev, -1);
        rt_set_ref(run->state, &run->xn, -1);
        rt_audit_turned(run);
        return st;
    case EBB_ACT_REVERSE:
        return do_reverse(run, a);
    case EBB_ACT_END:
        return rt_drain(run);
    case EBB_ACT_TAPE:
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the runtime does not keep tapes (action %s at step %lld): a chain "
                        "schedule with tapes is run by its own driver (ebb.torch.sequential)",
                        ebb_action_kind_name(a->kind), (long long)a->step);
    default:
        return ebb_fail(EBB_ERR_INTERNAL, "the runtime cannot execute action kind %d", a->kind);
    }
}

/* Charges a forward callback's time (and draws it on the timeline). */
static void forward_timed(ebb_run *run, int64_t k, int recomputed, double t0)
{
    double t1 = rt_clock(run);
    run->stats.forward_callback_s += t1 - t0;
    if (!recomputed) {
        rt_step_forward_time(run, k, t1 - t0);
        rt_step_device_end(run, k, 0);
    }
    if (run->trace.f)
        rt_trace_span(&run->trace, recomputed ? "recompute" : "forward", k, NULL, t0, t1);
    callback_ended(run, t1);
}

ebb_status rt_put_state(ebb_run *run, const void *src, int64_t step, int32_t *out)
{
    size_t bytes = rt_state_bytes(run, step);
    rt_mem *m = run->state;
    int32_t b;
    ebb_status st = rt_take(run, m, 0, &b);
    if (st != EBB_OK)
        return st;
    rt_ticket t;
    if (m->tier == EBB_TIER_HOST) {
        rt_lazy_wrote(m, b, bytes);
        st = run->io->ops->put(run->io, m->pool, b, src, bytes, &t);
    } else {
        /* the caller's state in device memory may still be in the making on the stream */
        if ((st = rt_order_after(run, m->pool)) == EBB_OK &&
            (st = run->io->ops->put(run->io, m->pool, b, src, bytes, &t)) == EBB_OK &&
            (st = rt_mark(run, m, b, t, EBB_TIER_GPU, 1)) == EBB_OK)
            st = rt_stream_wait(run, &t, EBB_TIER_GPU);
    }
    *out = b;
    return st;
}

/* One forward step from the live state x_k; keep_prev: x_k must survive (the
 * turn may follow). */
static ebb_status forward_step(ebb_run *run, int64_t k, int keep_prev, int *last)
{
    rt_mem *m = run->state;
    int recomputed = k + 1 <= run->computed;
    int32_t in = run->live, out;
    ebb_status st;
    int rc;
    *last = 0;
    rt_set_ref(m, &run->prev, -1); /* x_{k-1} is not needed once step k starts */
    if (run->pushed) {
        /* push form: the caller computed x_{k+1}; it is copied into a fresh
         * buffer, whichever forward form the run has (never in place: x_k
         * may be held) */
        if (recomputed || run->phase != RT_FORWARD)
            return ebb_fail(EBB_ERR_INTERNAL, "a pushed state for step %lld outside the first "
                            "sweep", (long long)k);
        double t0 = rt_clock(run);
        st = rt_put_state(run, run->pushed, k + 1, &out);
        if (st != EBB_OK)
            return ebb_fail_context(st, "copying the pushed state");
        run->pushed = NULL; /* one state, one step */
        run->stats.copies++;
        run->stats.copy_s += rt_clock(run) - t0;
        run->clock.t = -1;
        rc = EBB_STEP_OK;
    } else if (run->opt.forward) {
        st = rt_take(run, m, 1, &out);
        if (st != EBB_OK)
            return st;
        ebb_clear_error();
        rt_lazy_wrote(m, out, rt_state_bytes(run, k + 1));
        double t0 = step_start(run);
        if (!recomputed)
            rt_step_device_begin(run);
        rc = run->opt.forward(run->opt.user, k, rt_buf_ptr(run, m, in), rt_buf_ptr(run, m, out));
        forward_timed(run, k, recomputed, t0);
        if ((st = slot_used(run, m, in)) != EBB_OK || (st = slot_used(run, m, out)) != EBB_OK)
            return st;
    } else {
        const rt_buf *x = &m->buf[in];
        out = in;
        if (keep_prev || x->holders > 0 || x->pins > 1 || x->pending.pool) {
            /* the state is kept (a slot, a read ahead waiting for it, or a
             * transfer reading it): step on a copy */
            double t0 = rt_clock(run);
            st = rt_take(run, m, 1, &out);
            if (st == EBB_OK)
                st = rt_copy_buf(run, m, out, m, in, k);
            if (st == EBB_OK)
                st = stream_ready(run, m, out);
            if (st != EBB_OK)
                return st;
            run->stats.copies++;
            run->stats.copy_s += rt_clock(run) - t0;
            run->clock.t = -1;
        }
        if (run->disk_cache && m->tier == EBB_TIER_HOST)
            rt_forget(run, m, out); /* changed in place */
        ebb_clear_error();
        /* x_k's bytes are there until the step has read them */
        size_t was = rt_state_bytes(run, k), will = rt_state_bytes(run, k + 1);
        rt_lazy_wrote(m, out, was > will ? was : will);
        double t0 = step_start(run);
        if (!recomputed)
            rt_step_device_begin(run);
        rc = run->opt.forward_inplace(run->opt.user, k, rt_buf_ptr(run, m, out));
        forward_timed(run, k, recomputed, t0);
        if ((st = slot_used(run, m, out)) != EBB_OK)
            return st;
    }
    if (rc == EBB_STEP_LAST && run->opt.steps == 0 && !recomputed && run->phase == RT_FORWARD)
        *last = 1;
    else if (rc == EBB_STEP_LAST && run->opt.steps > 0)
        return ebb_fail(EBB_ERR_CALLBACK,
                        "forward step %lld returned EBB_STEP_LAST, but the run was created with "
                        "steps = %lld (create it with steps = 0 when n is not known)",
                        (long long)k, (long long)run->opt.steps);
    else if (rc != EBB_STEP_OK)
        return callback_failed("forward", k, rc, recomputed);
    run->stats.forward_steps++;
    rt_set_ref(m, &run->prev, keep_prev ? in : -1);
    rt_set_ref(m, &run->live, out);
    run->live_step = k + 1;
    st = rt_audit_computed(run, k + 1, out);
    if (st == EBB_OK && !recomputed)
        st = rt_errs_computed(run, k + 1, out);
    if (!recomputed)
        run->computed = k + 1;
    return st;
}

/* Runs steps of the current ADVANCE (ending at `to`) from run->advance_at, at
 * most max_steps of them; *done: how many ran. Stops after a forward step
 * that said it was the last (run->last_step_at). */
ebb_status rt_run_steps(ebb_run *run, int64_t to, int64_t max_steps, int64_t *done)
{
    *done = 0;
    int64_t n = run->opt.steps;
    while (run->advance_at < to && *done < max_steps) {
        int64_t k = run->advance_at;
        ebb_status st;
        /* a long recomputation keeps the reads ahead going */
        if (run->phase == RT_TURNED && *done > 0 && (st = rt_lookahead(run)) != EBB_OK)
            return st;
        /* x_{n-1} must survive the step that makes x_n (the turn follows) */
        int keep = k + 1 == to && run->phase == RT_FORWARD && (n == 0 || to == n);
        int last = 0;
        if (run->trace.f)
            rt_trace_poll(&run->trace, rt_clock(run), 0);
        st = forward_step(run, k, keep, &last);
        if (st != EBB_OK)
            return st;
        run->advance_at++;
        (*done)++;
        if (last) {
            run->last_step_at = k + 1;
            break;
        }
    }
    return EBB_OK;
}
