/*
 * The engine's real io (io.h): CLOCK_MONOTONIC and ebb/storage.h, nothing
 * more but, for the timeline, the codec threads' spans
 * (storage/codec_trace.h), and for a GPU state's step times the device's
 * timing events (storage/device_timer.h). An rt_pool is an ebb_pool, an rt_ticket
 * carries an ebb_ticket.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/error_internal.h"
#include "runtime/io.h"
#include "storage/device_timer.h"

static ebb_pool *P(rt_pool *p)
{
    return (ebb_pool *)(void *)p;
}

static ebb_ticket real(const rt_ticket *t)
{
    return (ebb_ticket){P(t->pool), t->index, t->generation};
}

static rt_ticket ours(ebb_ticket t)
{
    return (rt_ticket){(rt_pool *)(void *)t.pool, t.index, t.generation, 0.0};
}

static double now(rt_io *io)
{
    (void)io;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static ebb_status pool_create(rt_io *io, const ebb_pool_options *options, rt_pool *staging,
                              const ebb_storage_fault *fault, rt_pool **out)
{
    (void)io;
    ebb_pool_options o = *options;
    o.staging = P(staging);
    ebb_pool *p = NULL;
    ebb_status st = fault ? ebb_pool_create_with_faults(&o, fault, &p) : ebb_pool_create(&o, &p);
    *out = (rt_pool *)(void *)p;
    return st;
}

static void pool_destroy(rt_io *io, rt_pool *pool)
{
    (void)io;
    ebb_pool_destroy(P(pool));
}

static ebb_status pool_info(rt_io *io, const rt_pool *pool, uint64_t *bytes, char *warnings,
                            size_t len)
{
    (void)io;
    ebb_pool_info pi;
    ebb_status st = ebb_pool_info_get((const ebb_pool *)(const void *)pool, &pi);
    if (st != EBB_OK)
        return st;
    *bytes = pi.bytes;
    snprintf(warnings, len, "%s", pi.warnings ? pi.warnings : "");
    return EBB_OK;
}

static void *slot_ptr(rt_io *io, rt_pool *pool, int32_t slot)
{
    (void)io;
    void *p = NULL;
    if (ebb_pool_slot_ptr(P(pool), slot, &p) != EBB_OK)
        return NULL;
    return p;
}

static ebb_status put(rt_io *io, rt_pool *pool, int32_t slot, const void *src, size_t bytes,
                      rt_ticket *t)
{
    ebb_pool_info pi;
    *t = (rt_ticket){0};
    ebb_status st = ebb_pool_info_get(P(pool), &pi);
    if (st != EBB_OK)
        return st;
    if (pi.tier == EBB_TIER_HOST) { /* the caller's thread, as any host copy */
        memcpy(slot_ptr(io, pool, slot), src, bytes ? bytes : pi.slot_size);
        return EBB_OK;
    }
    ebb_ticket et;
    st = ebb_pool_put(P(pool), slot, src, &et);
    *t = ours(et);
    return st;
}

static ebb_status pool_stats(rt_io *io, const rt_pool *pool, ebb_pool_stats *stats)
{
    (void)io;
    return ebb_pool_stats_get((const ebb_pool *)(const void *)pool, stats);
}

static void copy_now(rt_io *io, rt_pool *dst, int32_t ds, rt_pool *src, int32_t ss, size_t bytes)
{
    memcpy(slot_ptr(io, dst, ds), slot_ptr(io, src, ss), bytes);
}

static ebb_status discard(rt_io *io, rt_pool *pool, int32_t slot, size_t from)
{
    (void)io;
    return ebb_pool_slot_discard(P(pool), slot, from);
}

static ebb_status move(rt_io *io, rt_pool *dst, int32_t ds, rt_pool *src, int32_t ss,
                       rt_ticket *t)
{
    (void)io;
    ebb_ticket et;
    ebb_status st = ebb_move(P(dst), ds, P(src), ss, &et);
    *t = ours(et);
    return st;
}

static ebb_status move_via(rt_io *io, rt_pool *dst, int32_t ds, rt_pool *via, int32_t vs,
                           rt_pool *src, int32_t ss, rt_ticket t[2])
{
    (void)io;
    ebb_ticket et[2];
    ebb_status st = ebb_move_via(P(dst), ds, P(via), vs, P(src), ss, et);
    t[0] = ours(et[0]);
    t[1] = ours(et[1]);
    return st;
}

static ebb_status test(rt_io *io, const rt_ticket *t, int *done)
{
    (void)io;
    ebb_ticket et = real(t);
    return ebb_ticket_test(&et, done);
}

static ebb_status wait(rt_io *io, const rt_ticket *t)
{
    (void)io;
    ebb_ticket et = real(t);
    return ebb_ticket_wait(&et);
}

static ebb_status stream_wait(rt_io *io, const rt_ticket *t, void *stream, double *held)
{
    (void)io;
    *held = 0.0;
    ebb_ticket et = real(t);
    return ebb_ticket_stream_wait(&et, stream);
}

static ebb_status order_after(rt_io *io, rt_pool *pool, void *stream)
{
    (void)io;
    return ebb_pool_order_after(P(pool), stream);
}

static ebb_status slot_order_after(rt_io *io, rt_pool *pool, int32_t slot, void *stream)
{
    (void)io;
    return ebb_pool_slot_order_after(P(pool), slot, stream);
}

static ebb_status mark(rt_io *io, rt_pool *pool, void *stream)
{
    (void)io;
    return ebb_pool_mark(P(pool), stream);
}

static ebb_status mark_reached(rt_io *io, rt_pool *pool, int *reached)
{
    (void)io;
    return ebb_pool_mark_reached(P(pool), reached);
}

/* The gpu pool's device (-1 where it cannot be said). */
static int device_of(const rt_pool *pool)
{
    ebb_pool_info pi;
    return ebb_pool_info_get((const ebb_pool *)(const void *)pool, &pi) == EBB_OK ? pi.device
                                                                                  : -1;
}

static ebb_status events_create(rt_io *io, rt_pool *pool, void **events, int32_t count,
                                int *device)
{
    (void)io;
    char why[256];
    *device = device_of(pool);
    if (ebb_cuda_timing_events_create(*device, events, count, why, sizeof why) != 0)
        return ebb_fail(EBB_ERR_UNSUPPORTED, "timing the steps on the device: %s", why);
    return EBB_OK;
}

static void events_destroy(rt_io *io, int device, void **events, int32_t count)
{
    (void)io;
    ebb_cuda_timing_events_destroy(device, events, count);
}

static ebb_status event_record(rt_io *io, int device, void *event, void *stream)
{
    (void)io;
    char why[256];
    if (ebb_cuda_timing_record(device, event, stream, why, sizeof why) != 0)
        return ebb_fail(EBB_ERR_IO, "timing a step on the device: %s", why);
    return EBB_OK;
}

static ebb_status event_elapsed(rt_io *io, void *start, void *end, double *seconds)
{
    (void)io;
    char why[256];
    if (ebb_cuda_elapsed(start, end, seconds, why, sizeof why) != 0)
        return ebb_fail(EBB_ERR_IO, "timing a step on the device: %s", why);
    return EBB_OK;
}

static ebb_status ready(rt_io *io, rt_pool *pool, int32_t slot)
{
    (void)io;
    void *p = NULL;
    return ebb_pool_slot_ptr(P(pool), slot, &p); /* makes a host slot ready */
}

static ebb_status codec_trace(rt_io *io, rt_pool *pool, int32_t capacity, int32_t *threads)
{
    (void)io;
    return ebb_pool_codec_trace_start(P(pool), capacity, threads);
}

static ebb_status codec_spans(rt_io *io, rt_pool *pool, int32_t thread, ebb_codec_span *out,
                              int32_t max, int32_t *count, uint64_t *dropped)
{
    (void)io;
    return ebb_pool_codec_spans(P(pool), thread, out, max, count, dropped);
}

static const rt_io_ops ops = {
    .now = now,
    .pool_create = pool_create,
    .pool_destroy = pool_destroy,
    .pool_info = pool_info,
    .pool_stats = pool_stats,
    .slot_ptr = slot_ptr,
    .put = put,
    .copy_now = copy_now,
    .discard = discard,
    .move = move,
    .move_via = move_via,
    .test = test,
    .wait = wait,
    .stream_wait = stream_wait,
    .order_after = order_after,
    .slot_order_after = slot_order_after,
    .mark = mark,
    .mark_reached = mark_reached,
    .timer_create = events_create,
    .timer_destroy = events_destroy,
    .timer_record = event_record,
    .timer_elapsed = event_elapsed,
    .ready = ready,
    .codec_trace = codec_trace,
    .codec_spans = codec_spans,
};

static rt_io storage_io = {&ops};

rt_io *rt_io_storage(void)
{
    return &storage_io;
}
