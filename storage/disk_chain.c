/* The disk's side of chained moves (ebb_move_via, chain.c).
 * gpu -> host -> disk: block b of the write may go to disk once the copy's
 * event for that block has completed, so the first blocks are on their way
 * to disk while the later ones still cross to the host. The events are the
 * disk operation's own (op.h); the engines ask ebb_disk_gate before each
 * block, the checksum thread (io_uring with checksums) waits for them
 * itself (ebb_disk_gate_wait) and hashes (disk_hash.c).
 * disk -> host -> gpu: each block read is copied on to the gpu at once by
 * the engine thread that completed it; when the read ends, the copy's
 * event is recorded after them (ebb_disk_follow_end).
 * With compression, a chained write waits for all of its blocks' events on
 * a codec thread (ebb_disk_gate_wait) and is compressed whole; a read of a
 * compressed state is copied on whole once a codec thread decompressed it
 * (ebb_disk_follow_state). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "storage/cuda.h"
#include "storage/disk.h"

ebb_status ebb_disk_gate_prepare(struct ebb_pool *pool, int32_t slot, int device, void ***events)
{
    ebb_disk *d = pool->disk;
    ebb_op *op = &pool->ops[slot];
    if (op->gate_events && op->gate_device == device && op->gate_count >= d->layout.bps) {
        *events = op->gate_events;
        return EBB_OK;
    }
    if (op->gate_events) { /* made for another device: events are per device */
        ebb_cuda_events_destroy(op->gate_device, op->gate_events, (int32_t)op->gate_count);
        free(op->gate_events);
        op->gate_events = NULL;
        op->gate_count = 0;
    }
    void **ev = calloc(d->layout.bps, sizeof *ev);
    if (!ev)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate %u CUDA event handles for disk slot %d",
                        d->layout.bps, (int)slot);
    char why[256] = "";
    if (ebb_cuda_events_create(device, ev, (int32_t)d->layout.bps, why, sizeof why) != 0) {
        free(ev);
        return ebb_fail(EBB_ERR_IO, "creating the %u per-block CUDA events of disk slot %d failed: %s",
                        d->layout.bps, (int)slot, why);
    }
    op->gate_events = ev;
    op->gate_count = d->layout.bps;
    op->gate_device = device;
    if (slot >= d->gate_high)
        d->gate_high = slot + 1;
    *events = ev;
    return EBB_OK;
}

void ebb_disk_gate_free(struct ebb_pool *pool)
{
    /* the slots given events only: a large pool's records are not walked */
    int32_t high = pool->disk ? pool->disk->gate_high : pool->slots;
    for (int32_t s = 0; pool->ops && s < high && s < pool->slots; s++) {
        ebb_op *op = &pool->ops[s];
        if (!op->gate_events)
            continue;
        ebb_cuda_events_destroy(op->gate_device, op->gate_events, (int32_t)op->gate_count);
        free(op->gate_events);
        op->gate_events = NULL;
        op->gate_count = 0;
    }
}

/* 1 when block's bytes have crossed, 0 not yet (only when not `wait`), -1
 * the operation failed (now, naming the block, or before). advance: mark
 * the blocks up to it ready for the engine (not when the checksum thread
 * still has to hash them). */
static int gate_event(struct ebb_pool *pool, ebb_op *op, uint32_t block, int wait, int advance)
{
    if (atomic_load(&op->failed))
        return -1;
    if (advance && atomic_load_explicit(&op->ready_blocks, memory_order_acquire) > block)
        return 1;
    char why[256] = "";
    int r = ebb_cuda_event_result(op->gate_device, op->gate_events[block], wait, why, sizeof why);
    if (r == 1)
        return 0;
    if (r == 0 && !advance)
        return 1;
    if (r == 0) {
        /* ready_blocks counts the leading blocks whose own events said
         * success: a later block's event says the earlier copies ended, not
         * that they worked (an error of its own, not sticky, is reported by
         * the failed copy's event only), so each block is asked itself */
        uint32_t seen = block;
        (void)atomic_compare_exchange_strong(&op->ready_blocks, &seen, block + 1);
        return 1;
    }
    ebb_disk_loc loc;
    ebb_disk_locate(&pool->disk->layout, op->slot, block, &loc);
    ebb_op_fail(op, EBB_ERR_IO,
                "writing disk slot %d: the gpu -> host copy of its block %u (state bytes %zu .. "
                "%zu) on CUDA device %d failed: %s; blocks before it may be on disk, the slot "
                "holds no data",
                (int)op->slot, block, loc.buf_offset, loc.buf_offset + loc.data_len,
                op->gate_device, why);
    return -1;
}

int ebb_disk_gate(struct ebb_pool *pool, ebb_op *op, uint32_t block, int wait)
{
    if (!op->gated)
        return 1;
    if (!pool->disk->hashq.started)
        return gate_event(pool, op, block, wait, 1);
    /* the checksum thread waits for the events and hashes */
    if (atomic_load(&op->failed))
        return -1;
    return atomic_load_explicit(&op->ready_blocks, memory_order_acquire) > block;
}

int ebb_disk_gate_wait(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    return gate_event(pool, op, block, 1, 0);
}

/* ---- reads that a host -> gpu copy follows ---------------------------------- */

/* Copies bytes [start, start + len) of the state read (block `block`, for
 * the message) on to the gpu. */
static void follow_range(ebb_op *op, uint32_t block, size_t start, size_t len)
{
    ebb_follow *f = &op->follow;
    if (!f->gpu_op || atomic_load(&op->failed) || atomic_load(&f->gpu_op->failed))
        return;
    char why[256] = "";
    if (ebb_cuda_copy_to_device(f->device, f->dst + start, op->buf + start, len, f->stream, why,
                                sizeof why) != 0)
        ebb_op_fail(f->gpu_op, EBB_ERR_IO,
                    "the host -> device copy of block %u (state bytes %zu .. %zu) read from disk "
                    "slot %d could not be queued on CUDA device %d: %s",
                    block, start, start + len, (int)op->slot, f->device, why);
}

static void follow_copy(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    ebb_disk_loc loc; /* the state's block, whatever the read moved */
    ebb_disk_locate(&pool->disk->layout, op->slot, block, &loc);
    follow_range(op, block, loc.buf_offset, loc.data_len);
}

void ebb_disk_follow_block(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    if (!op->packed) /* a packed state is copied whole once decompressed */
        follow_copy(pool, op, block);
}

void ebb_disk_follow_state(struct ebb_pool *pool, ebb_op *op)
{
    /* the whole state decompressed (pool->slot_size bytes), cut as the disk's
     * blocks: not the slot's blocks, which a fixed rate makes fewer than the
     * state's (layout.slot_size is then the compressed size) */
    size_t block = pool->disk->layout.block;
    uint32_t b = 0;
    for (size_t start = 0; start < pool->slot_size; start += block, b++)
        follow_range(op, b, start,
                     pool->slot_size - start < block ? pool->slot_size - start : block);
}

void ebb_disk_follow_end(struct ebb_pool *pool, ebb_op *op)
{
    (void)pool;
    ebb_follow *f = &op->follow;
    ebb_op *g = f->gpu_op;
    char why[256] = "";
    if (op->status != EBB_OK)
        ebb_op_fail(g, op->status, "the disk read this host -> device copy follows failed: %s",
                    op->msg);
    /* the host slot is read by the copies until this event: tracked like a
     * host -> gpu move's (before the slot's disk write count drops) */
    ebb_copy_mark mark;
    ebb_host_gpu_mark(op->host, op->host_slot, &mark);
    if (mark.event && mark.device == f->device)
        mark.recorded = ebb_cuda_record(f->device, mark.event, f->stream, why, sizeof why) == 0;
    ebb_host_gpu_marked(op->host, op->host_slot, &mark, 1);
    if (ebb_cuda_record(f->device, g->event, f->stream, why, sizeof why) != 0) {
        /* without its event the ticket could not tell: wait for the copies */
        ebb_cuda_stream_sync(f->device, f->stream);
        ebb_op_fail(g, EBB_ERR_IO,
                    "the host -> device copy that follows disk slot %d could not be closed on "
                    "CUDA device %d (%s); its copies were waited for",
                    (int)op->slot, f->device, why);
    }
    atomic_store_explicit(&g->await_disk, 0, memory_order_release);
}
