/* Disk tier operations: moves between host slots and disk slots, waits,
 * information and the test hooks. They hand operations to the codec
 * stage's queue (checksums with io_uring, or compression: disk_hash.c) or
 * to the engine (disk_engine.c); creation is in
 * disk_create.c, completion in disk_core.c. */

#include "common/error_internal.h"
#include "storage/disk.h"

void ebb_disk_info(const struct ebb_pool *pool, ebb_pool_info *info)
{
    const ebb_disk *d = pool->disk;
    ebb_disk_engine_info ei;
    d->engine.ops->info(pool, &ei);
    info->backend = d->engine.ops->name;
    info->direct = d->files.direct;
    info->registered_buffers = ei.registered_buffers;
    info->registered_files = ei.registered_files;
    info->registered_bytes = ei.registered_bytes;
    info->queue_depth = d->engine.depth;
    info->threads = ei.threads;
    info->block = d->layout.block;
    info->alignment = d->layout.align;
    info->checksum = d->sums.on;
    info->path_count = d->layout.nfiles;
    info->max_bandwidth = d->pace.rate;
    info->compression = ebb_compression_name(d->codec.codec ? d->codec.mode : EBB_COMPRESSION_OFF);
    info->codec_threads = d->codec.codec ? d->codec.nthreads : 0;
    info->codec_buffer_bytes = d->codec.bytes;
}

/* ---- operations -------------------------------------------------------------- */

ebb_status ebb_disk_move_check(struct ebb_pool *pool, int32_t slot, struct ebb_pool *host,
                               int32_t host_slot, int write, int check_host)
{
    ebb_disk *d = pool->disk;
    ebb_op *op = &pool->ops[slot];
    if (atomic_load_explicit(&op->state, memory_order_acquire) == EBB_OP_PENDING)
        return ebb_fail(EBB_ERR_STATE,
                        "disk slot %d is busy: an operation on it is still in flight; wait for "
                        "its ticket first",
                        (int)slot);
    if (op->state == EBB_OP_DONE && op->status != EBB_OK && !op->reported) {
        op->reported = 1;
        return ebb_fail(EBB_ERR_STATE,
                        "disk slot %d: its previous operation failed and its ticket was never "
                        "tested: %s",
                        (int)slot, op->msg);
    }
    if (!d->layout.buffered && host->stride % d->layout.align)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "host slots are %zu bytes apart, not a multiple of the disk's direct-I/O "
                        "alignment %zu; make the pools with ebb_slot_stride's slots (a disk pool "
                        "for states below a page reads and writes through the page cache)",
                        host->stride, d->layout.align);
    if (!write && !atomic_load(&d->core.valid[slot]))
        return ebb_fail(EBB_ERR_STATE,
                        "disk slot %d holds no data: it was never written, or its last write "
                        "failed",
                        (int)slot);
    ebb_status s = check_host ? ebb_host_slot_check(host, host_slot, !write) : EBB_OK;
    if (s == EBB_OK && write) /* space for it (a pool reserved in extents) */
        s = ebb_disk_reserve(pool, slot);
    return s;
}

void ebb_disk_move_start(struct ebb_pool *pool, int32_t slot, struct ebb_pool *host,
                         int32_t host_slot, int write, int gated, const ebb_follow *follow,
                         ebb_ticket *ticket)
{
    ebb_disk *d = pool->disk;
    ebb_op *op = &pool->ops[slot];
    size_t bytes = pool->slot_size;
    uint32_t blocks = d->layout.bps;
    int packed = 0;
    if (!write) /* with compression, only what the slot's last write stored */
        ebb_disk_codec_read_plan(pool, slot, &bytes, &blocks, &packed);
    ebb_op_begin(op, blocks);
    op->bytes = bytes;
    op->packed = packed;
    op->coded = 0;
    op->cbuf = -1;
    op->write = write;
    op->slot = slot;
    op->host = host;
    op->host_slot = host_slot;
    op->buf = ebb_host_slot_addr(host, host_slot);
    /* Registered memory: the staging pool's first registered_slots slots.
     * The staging pool is retained, so no other pool can have its address. */
    ebb_disk_engine_info ei;
    d->engine.ops->info(pool, &ei);
    op->fixed = host == d->staging && host_slot < ei.registered_slots;
    if (write)
        atomic_store(&d->core.valid[slot], 0);
    if (gated) { /* its blocks wait for their gate events (disk_chain.c) */
        op->gated = 1;
        atomic_store(&op->ready_blocks, 0);
    }
    if (follow)
        op->follow = *follow;
    ebb_host_disk_begin(host, host_slot, write);
    atomic_store_explicit(&op->state, EBB_OP_PENDING, memory_order_release);

    if (write && d->codec.codec && !gated && !d->sums.on_stage &&
        ebb_disk_codec_skip(pool, op)) {
        /* Skipped by the backoff, nothing to hash here: stored as it is,
         * queued for the engine at once (no codec thread's hop: a run of
         * incompressible states costs what compression off does). */
        op->io_ns = ebb_disk_now_ns();
        ebb_disk_enqueue(pool, slot, 0);
    } else if (write && d->codec.codec) {
        /* Compressed (a chained write once it has crossed whole), hashed,
         * then queued by a codec thread. */
        pthread_mutex_lock(&d->core.lock);
        d->hashq.writes++;
        pthread_mutex_unlock(&d->core.lock);
        ebb_disk_hash_push(pool, op);
    } else if (gated && d->hashq.started) {
        /* The ring may have each block once the checksum thread hashed it. */
        ebb_disk_enqueue(pool, slot, 0);
        ebb_disk_hash_push(pool, op);
    } else if (write && d->hashq.started) {
        /* Hashed on the checksum thread, which then queues it. */
        pthread_mutex_lock(&d->core.lock);
        d->hashq.writes++;
        pthread_mutex_unlock(&d->core.lock);
        ebb_disk_hash_push(pool, op);
    } else {
        ebb_disk_enqueue(pool, slot, 0);
    }

    ebb_op_ticket(op, pool, (uint32_t)slot, ticket);
}

ebb_status ebb_disk_move(struct ebb_pool *pool, int32_t slot, struct ebb_pool *host,
                         int32_t host_slot, int write, ebb_ticket *ticket)
{
    ebb_status s = ebb_disk_move_check(pool, slot, host, host_slot, write, 1);
    if (s == EBB_OK)
        ebb_disk_move_start(pool, slot, host, host_slot, write, 0, NULL, ticket);
    return s;
}

ebb_status ebb_disk_wait(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->core.lock);
    while (atomic_load_explicit(&op->state, memory_order_acquire) != EBB_OP_DONE)
        pthread_cond_wait(&d->core.done_cv, &d->core.lock);
    pthread_mutex_unlock(&d->core.lock);
    return EBB_OK;
}

ebb_status ebb_disk_debug_locate(ebb_pool *pool, int32_t slot, uint32_t block, int *fd,
                                 int64_t *offset, const char **name)
{
    if (!pool || pool->tier != EBB_TIER_DISK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_locate: not a disk pool");
    ebb_disk *d = pool->disk;
    if (slot < 0 || slot >= pool->slots || block >= d->layout.bps)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_locate: slot or block out of range");
    ebb_disk_loc loc;
    ebb_disk_locate(&d->layout, slot, block, &loc);
    if (fd)
        *fd = d->files.fds[loc.file];
    if (offset)
        *offset = (int64_t)loc.offset;
    if (name)
        *name = d->files.names[loc.file];
    return EBB_OK;
}

ebb_status ebb_disk_debug_get(const ebb_pool *pool, ebb_disk_debug *out)
{
    if (!pool || pool->tier != EBB_TIER_DISK || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_get: not a disk pool");
    ebb_disk *d = pool->disk;
    out->max_in_flight = atomic_load(&d->probe.inflight_max);
    out->fixed_requests = atomic_load(&d->probe.fixed_reqs);
    out->plain_requests = atomic_load(&d->probe.plain_reqs);
    out->enter_calls = atomic_load(&d->probe.enter_calls);
    out->paced_waits = atomic_load(&d->pace.paced_waits);
    ebb_disk_engine_info ei;
    d->engine.ops->info(pool, &ei);
    out->rings = (uint32_t)ei.rings;
    return EBB_OK;
}

ebb_status ebb_disk_debug_hold(ebb_pool *pool, int hold)
{
    if (!pool || pool->tier != EBB_TIER_DISK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_hold: not a disk pool");
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->core.lock);
    atomic_store(&d->probe.hold, hold ? 1 : 0);
    pthread_cond_broadcast(&d->probe.hold_cv);
    pthread_mutex_unlock(&d->core.lock);
    return EBB_OK;
}
