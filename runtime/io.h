/*
 * The engine's one seam to time and transfers.
 *
 * Everything the runtime does with the clock and the storage tiers goes
 * through an rt_io: the real one (io_storage.c) is a thin layer over
 * ebb/storage.h and CLOCK_MONOTONIC; the planner's (planner/sim_io.c) models
 * each channel's bandwidth and latency on a virtual clock, which a wait
 * advances to the transfer's end and the planner's step callbacks advance
 * by the step's time. So the planner runs this engine, not a copy of it.
 *
 * A pool and a ticket are the implementation's: the engine only keeps them,
 * tests a ticket's `pool` for NULL (no transfer pending) and hands them back.
 */
#ifndef EBB_RUNTIME_IO_H
#define EBB_RUNTIME_IO_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/storage.h"
#include "storage/codec_trace.h"
#include "storage/fault.h"

typedef struct rt_pool rt_pool; /* an implementation's pool */

/* A transfer in flight; pool NULL: none, or already complete. */
typedef struct rt_ticket {
    rt_pool *pool;
    uint32_t index, generation; /* the real io's ticket */
    double end;                 /* the simulated io's: when the transfer ends */
} rt_ticket;

typedef struct rt_io rt_io;

typedef struct rt_io_ops {
    /* seconds, monotonic */
    double (*now)(rt_io *io);
    /* a pool as ebb_pool_create makes it; a disk pool stages through `staging`
     * (a host pool, or NULL); fault: tests' injected disk faults, or NULL */
    ebb_status (*pool_create)(rt_io *io, const ebb_pool_options *options, rt_pool *staging,
                              const ebb_storage_fault *fault, rt_pool **out);
    void (*pool_destroy)(rt_io *io, rt_pool *pool);
    /* bytes reserved and the fallbacks taken ("" when none) */
    ebb_status (*pool_info)(rt_io *io, const rt_pool *pool, uint64_t *bytes, char *warnings,
                            size_t len);
    /* the pool's counters (ebb_pool_stats_get; zeros where nothing moves) */
    ebb_status (*pool_stats)(rt_io *io, const rt_pool *pool, ebb_pool_stats *stats);
    /* the slot's address for the user's callbacks (NULL where there is no memory) */
    void *(*slot_ptr)(rt_io *io, rt_pool *pool, int32_t slot);
    /* the user's x_0 into a slot (ebb_pool_put); a host slot takes the
     * first `bytes` (0: the slot's size) */
    ebb_status (*put)(rt_io *io, rt_pool *pool, int32_t slot, const void *src, size_t bytes,
                      rt_ticket *t);
    /* a memory slot copied into another on the calling thread, now (host -> host) */
    void (*copy_now)(rt_io *io, rt_pool *dst, int32_t dst_slot, rt_pool *src, int32_t src_slot,
                     size_t bytes);
    ebb_status (*move)(rt_io *io, rt_pool *dst, int32_t dst_slot, rt_pool *src, int32_t src_slot,
                       rt_ticket *t);
    /* ebb_move_via: t[0] the first leg, t[1] the second */
    ebb_status (*move_via)(rt_io *io, rt_pool *dst, int32_t dst_slot, rt_pool *via,
                           int32_t via_slot, rt_pool *src, int32_t src_slot, rt_ticket t[2]);
    ebb_status (*test)(rt_io *io, const rt_ticket *t, int *done);
    ebb_status (*wait)(rt_io *io, const rt_ticket *t);
    /* the stream waits for the transfer; *held: seconds the compute was held by it
     * as far as this io knows (the real io: 0, the device waits) */
    ebb_status (*stream_wait)(rt_io *io, const rt_ticket *t, void *stream, double *held);
    ebb_status (*order_after)(rt_io *io, rt_pool *pool, void *stream);
    ebb_status (*slot_order_after)(rt_io *io, rt_pool *pool, int32_t slot, void *stream);
    /* a point on the stream after the work queued now (ebb_pool_mark), and
     * whether the device has finished it (the simulated io: its steps end
     * when the host's do, so always) */
    ebb_status (*mark)(rt_io *io, rt_pool *pool, void *stream);
    ebb_status (*mark_reached)(rt_io *io, rt_pool *pool, int *reached);
    /* A GPU state's steps timed on the device: `count` timing events on
     * the gpu pool's device (*device: which, said once and handed back to
     * record and destroy), one recorded on `stream`, and the seconds from
     * one to another once both ran (waiting for `end`). NULL where steps
     * are not timed on a device (the planner's io: its runs keep no times). */
    ebb_status (*timer_create)(rt_io *io, rt_pool *pool, void **events, int32_t count,
                               int *device);
    void (*timer_destroy)(rt_io *io, int device, void **events, int32_t count);
    ebb_status (*timer_record)(rt_io *io, int device, void *event, void *stream);
    ebb_status (*timer_elapsed)(rt_io *io, void *start, void *end, double *seconds);
    /* a lazy host pool's slot given back from byte `from` on
     * (ebb_pool_slot_discard); NULL where pools hold no memory (the
     * planner's io) */
    ebb_status (*discard)(rt_io *io, rt_pool *pool, int32_t slot, size_t from);
    /* the slot made ready for new data before its first use (a host pool made
     * ready in extents, ebb_pool_options.ready_slots); EBB_OK where it is */
    ebb_status (*ready)(rt_io *io, rt_pool *pool, int32_t slot);
    /* the timeline: the pool's codec threads record a span for each run of
     * the codec, `capacity` each until taken (*threads: how many; 0: none).
     * NULL where there are no codec threads (the planner's io). */
    ebb_status (*codec_trace)(rt_io *io, rt_pool *pool, int32_t capacity, int32_t *threads);
    /* the spans codec thread `thread` recorded (up to max, oldest first) and
     * those it dropped since the last call (storage/codec_trace.h) */
    ebb_status (*codec_spans)(rt_io *io, rt_pool *pool, int32_t thread, ebb_codec_span *out,
                              int32_t max, int32_t *count, uint64_t *dropped);
} rt_io_ops;

/* Implementations embed this first. */
struct rt_io {
    const rt_io_ops *ops;
};

/* The real io (io_storage.c): one for every run, it holds nothing. */
rt_io *rt_io_storage(void);

#endif
