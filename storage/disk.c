/* Disk tier operations: moves between host slots and disk slots, their
 * completion, checksums and the engines' shared helpers. Creation and the
 * layout are in disk_create.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/error_internal.h"
#include "storage/disk.h"

void ebb_disk_enqueue(struct ebb_pool *pool, int32_t slot, int hashed)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->lock);
    if (d->backend == EBB_DISK_BACKEND_URING) {
        ebb_uring_enqueue(pool, slot);
    } else {
        ebb_threads_enqueue(pool, slot);
    }
    if (hashed)
        d->hash_writes--; /* with the enqueue: the engine sees one or the other */
    pthread_mutex_unlock(&d->lock);
    if (d->backend == EBB_DISK_BACKEND_URING)
        ebb_uring_kick(pool);
    else
        ebb_threads_kick(pool);
}

void ebb_disk_info(const struct ebb_pool *pool, ebb_pool_info *info)
{
    const ebb_disk *d = pool->disk;
    info->backend = d->backend == EBB_DISK_BACKEND_URING ? "io_uring" : "threads";
    info->direct = d->direct;
    info->registered_buffers = d->fixed_buffers;
    info->registered_files = d->fixed_files;
    info->registered_bytes = d->fixed_buffers ? d->registered_bytes : 0;
    info->queue_depth = d->depth;
    /* io_uring: one ring thread per device group; threads: nthreads per group */
    info->threads = d->backend == EBB_DISK_BACKEND_URING ? d->nrings : d->threads_started;
    info->block = d->block;
    info->alignment = d->align;
    info->checksum = d->checksum;
    info->path_count = d->nfiles;
    info->max_bandwidth = d->pace_rate;
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
    if (host->stride % d->align)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "host slots are %zu bytes apart, not a multiple of the disk's direct-I/O "
                        "alignment %zu",
                        host->stride, d->align);
    if (!write && !atomic_load(&d->valid[slot]))
        return ebb_fail(EBB_ERR_STATE,
                        "disk slot %d holds no data: it was never written, or its last write "
                        "failed",
                        (int)slot);
    return check_host ? ebb_host_slot_check(host, host_slot, !write) : EBB_OK;
}

void ebb_disk_move_start(struct ebb_pool *pool, int32_t slot, struct ebb_pool *host,
                         int32_t host_slot, int write, int gated, const ebb_follow *follow,
                         ebb_ticket *ticket)
{
    ebb_disk *d = pool->disk;
    ebb_op *op = &pool->ops[slot];
    ebb_op_begin(op, d->bps);
    op->write = write;
    op->slot = slot;
    op->host = host;
    op->host_slot = host_slot;
    op->buf = ebb_host_slot_addr(host, host_slot);
    /* Registered memory: the staging pool's first fixed_slots slots. The
     * staging pool is retained, so no other pool can have its address. */
    op->fixed = host == d->staging && d->fixed_buffers && host_slot < d->fixed_slots;
    if (write)
        atomic_store(&d->valid[slot], 0);
    if (gated) { /* its blocks wait for their gate events (disk_chain.c) */
        op->gated = 1;
        atomic_store(&op->ready_blocks, 0);
    }
    if (follow)
        op->follow = *follow;
    ebb_host_disk_begin(host, host_slot, write);
    atomic_store_explicit(&op->state, EBB_OP_PENDING, memory_order_release);

    if (gated && d->hasher_started) {
        /* The ring may have each block once the checksum thread hashed it. */
        ebb_disk_enqueue(pool, slot, 0);
        ebb_hasher_push(pool, op);
    } else if (write && d->hasher_started) {
        /* Hashed on the checksum thread, which then queues it. */
        pthread_mutex_lock(&d->lock);
        d->hash_writes++;
        pthread_mutex_unlock(&d->lock);
        ebb_hasher_push(pool, op);
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
    pthread_mutex_lock(&d->lock);
    while (atomic_load_explicit(&op->state, memory_order_acquire) != EBB_OP_DONE)
        pthread_cond_wait(&d->done_cv, &d->lock);
    pthread_mutex_unlock(&d->lock);
    return EBB_OK;
}

/* Fault injection: holds a completion back by a pseudo-random delay. */
static void fault_delay(struct ebb_pool *pool)
{
    if (!pool->fault.delay_us_max)
        return;
    uint64_t x = pool->fault.delay_seed + 0x9e3779b97f4a7c15ULL * (atomic_fetch_add(&pool->fault_delays, 1) + 1);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    uint64_t us = x % ((uint64_t)pool->fault.delay_us_max + 1);
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

void ebb_disk_complete(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk *d = pool->disk;
    struct ebb_pool *host = op->host;
    if (atomic_load(&d->hold)) {
        pthread_mutex_lock(&d->lock);
        while (atomic_load(&d->hold))
            pthread_cond_wait(&d->hold_cv, &d->lock);
        pthread_mutex_unlock(&d->lock);
    }
    fault_delay(pool);
    if (op->status == EBB_OK) {
        if (op->write) {
            atomic_store(&d->valid[op->slot], 1);
            atomic_fetch_add(&pool->st_writes, 1);
            atomic_fetch_add(&pool->st_bytes_written, pool->slot_size);
        } else {
            atomic_fetch_add(&pool->st_reads, 1);
            atomic_fetch_add(&pool->st_bytes_read, pool->slot_size);
        }
    } else {
        atomic_fetch_add(&pool->st_errors, 1);
    }
    if (op->follow.gpu_op) /* before the host slot is let go: its copies still read it */
        ebb_disk_follow_end(pool, op);
    ebb_host_disk_end(host, op->host_slot, op->write); /* the last touch of the host pool */
    pthread_mutex_lock(&d->lock);
    atomic_store_explicit(&op->state, EBB_OP_DONE, memory_order_release);
    pthread_cond_broadcast(&d->done_cv);
    pthread_mutex_unlock(&d->lock);
}

void ebb_disk_blocks_done(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk *d = pool->disk;
    if (!op->write && d->checksum && !atomic_load(&op->failed)) {
        if (d->hasher_started) {
            ebb_hasher_push(pool, op); /* verifies, then completes */
            return;
        }
        ebb_disk_verify_read(pool, op);
    }
    ebb_disk_complete(pool, op);
}

void ebb_disk_hash_write(struct ebb_pool *pool, ebb_op *op)
{
    for (uint32_t b = 0; b < op->blocks; b++)
        ebb_disk_before_write(pool, op, b);
}

void ebb_disk_verify_read(struct ebb_pool *pool, ebb_op *op)
{
    for (uint32_t b = 0; b < op->blocks && !atomic_load(&op->failed); b++)
        ebb_disk_after_read(pool, op, b);
}

void ebb_disk_before_write(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    ebb_disk *d = pool->disk;
    if (!d->checksum)
        return;
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, op->slot, block, &loc);
    d->sums[(size_t)op->slot * d->bps + block] = XXH3_64bits(op->buf + loc.buf_offset, loc.data_len);
}

int ebb_disk_after_read(struct ebb_pool *pool, ebb_op *op, uint32_t block)
{
    ebb_disk *d = pool->disk;
    if (!d->checksum)
        return 0;
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, op->slot, block, &loc);
    uint64_t want = d->sums[(size_t)op->slot * d->bps + block];
    uint64_t got = XXH3_64bits(op->buf + loc.buf_offset, loc.data_len);
    if (got == want)
        return 0;
    ebb_op_fail(op, EBB_ERR_CHECKSUM,
                "checksum mismatch reading disk slot %d (block %u: state bytes %zu .. %zu) from "
                "file '%s' at offset %" PRIu64 ": stored %016" PRIx64 ", read %016" PRIx64
                "; the file was changed or the drive returned bad data",
                (int)op->slot, block, loc.buf_offset, loc.buf_offset + loc.data_len,
                d->names[loc.file] ? d->names[loc.file] : "?", loc.offset, want, got);
    return -1;
}

void ebb_disk_fail_io(struct ebb_pool *pool, ebb_op *op, uint32_t block, int err, const char *what)
{
    ebb_disk *d = pool->disk;
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, op->slot, block, &loc);
    ebb_op_fail(op, EBB_ERR_IO,
                "%s disk slot %d (block %u, %zu bytes at offset %" PRIu64 " of '%s') failed: %s",
                op->write ? "writing" : "reading", (int)op->slot, block, loc.io_len, loc.offset,
                d->names[loc.file] ? d->names[loc.file] : "?", what ? what : strerror(err));
}

static void fail_retries(struct ebb_pool *pool, ebb_op *op, uint32_t block, int err,
                         int attempts, double seconds)
{
    char what[256];
    snprintf(what, sizeof what,
             "%s, still after %d attempts over %.3f s; the device or file system keeps "
             "refusing: check it (dmesg) and retry the run",
             strerror(err), attempts, seconds);
    ebb_disk_fail_io(pool, op, block, err, what);
}

uint32_t ebb_disk_retry_pause_us(int attempt)
{
    uint64_t us = (uint64_t)EBB_DISK_RETRY_US << (attempt > 20 ? 20 : attempt - 1);
    return us > EBB_DISK_RETRY_MAX_US ? EBB_DISK_RETRY_MAX_US : (uint32_t)us;
}

uint64_t ebb_disk_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int ebb_disk_progress_step(struct ebb_pool *pool, ebb_op *op, uint32_t block,
                           ebb_disk_progress *p, long res, size_t asked, uint32_t *pause_us)
{
    *pause_us = 0;
    if (res == -EAGAIN || res == -EINTR) {
        uint64_t t = ebb_disk_now_ns();
        if (p->attempts++ == 0)
            p->first_ns = t;
        if (atomic_load(&op->failed))
            return EBB_DISK_BLOCK_FAILED;
        if (p->attempts > EBB_DISK_RETRIES) {
            fail_retries(pool, op, block, (int)-res, p->attempts,
                         (double)(t - p->first_ns) / 1e9);
            return EBB_DISK_BLOCK_FAILED;
        }
        atomic_fetch_add(&pool->st_retries, 1);
        if (res == -EAGAIN) /* busy: a pause that grows */
            *pause_us = ebb_disk_retry_pause_us(p->attempts);
        return EBB_DISK_BLOCK_AGAIN;
    }
    p->attempts = 0;
    if (res < 0) {
        ebb_disk_fail_io(pool, op, block, (int)-res, NULL);
        return EBB_DISK_BLOCK_FAILED;
    }
    if (res == 0) {
        ebb_disk_fail_io(pool, op, block, 0,
                         op->write ? "the device wrote 0 bytes" : "unexpected end of file");
        return EBB_DISK_BLOCK_FAILED;
    }
    p->done += (size_t)res;
    if (p->done >= p->len)
        return EBB_DISK_BLOCK_DONE;
    if ((size_t)res < asked)
        atomic_fetch_add(&pool->st_retries, 1); /* short: finish it */
    return atomic_load(&op->failed) ? EBB_DISK_BLOCK_FAILED : EBB_DISK_BLOCK_AGAIN;
}

long ebb_disk_fault(struct ebb_pool *pool, uint64_t seq, long res, size_t len)
{
    const ebb_storage_fault *f = &pool->fault;
    if (f->io_nth && seq >= f->io_nth && seq - f->io_nth < (f->io_count > 1 ? f->io_count : 1))
        return -(long)(f->io_errno ? f->io_errno : EIO);
    if (f->short_nth && seq == f->short_nth && res > 0) {
        size_t a = pool->disk->align;
        size_t half = ((size_t)res / 2) / a * a;
        if (half == 0)
            half = len > a ? a : (size_t)res;
        return (long)half;
    }
    return res;
}

ebb_status ebb_disk_debug_locate(ebb_pool *pool, int32_t slot, uint32_t block, int *fd,
                                 int64_t *offset, const char **name)
{
    if (!pool || pool->tier != EBB_TIER_DISK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_locate: not a disk pool");
    ebb_disk *d = pool->disk;
    if (slot < 0 || slot >= pool->slots || block >= d->bps)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_locate: slot or block out of range");
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, slot, block, &loc);
    if (fd)
        *fd = d->fds[loc.file];
    if (offset)
        *offset = (int64_t)loc.offset;
    if (name)
        *name = d->names[loc.file];
    return EBB_OK;
}

void ebb_disk_inflight(ebb_disk *d, int n)
{
    uint32_t now = atomic_fetch_add(&d->inflight_now, (uint32_t)n) + (uint32_t)n;
    uint32_t max = atomic_load(&d->inflight_max);
    while (n > 0 && now > max && !atomic_compare_exchange_weak(&d->inflight_max, &max, now))
        ;
}

ebb_status ebb_disk_debug_get(const ebb_pool *pool, ebb_disk_debug *out)
{
    if (!pool || pool->tier != EBB_TIER_DISK || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_get: not a disk pool");
    ebb_disk *d = pool->disk;
    out->max_in_flight = atomic_load(&d->inflight_max);
    out->fixed_requests = atomic_load(&d->fixed_reqs);
    out->plain_requests = atomic_load(&d->plain_reqs);
    out->enter_calls = atomic_load(&d->enter_calls);
    out->paced_waits = atomic_load(&d->paced_waits);
    out->rings = d->backend == EBB_DISK_BACKEND_URING ? (uint32_t)d->nrings : 0;
    return EBB_OK;
}

void ebb_disk_signal_stop(ebb_disk *d)
{
    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    ebb_disk_pace_lift(d);
    atomic_store(&d->hold, 0);
    pthread_cond_broadcast(&d->hold_cv);
    pthread_cond_broadcast(&d->work_cv);
    pthread_mutex_unlock(&d->lock);
}

ebb_status ebb_disk_debug_hold(ebb_pool *pool, int hold)
{
    if (!pool || pool->tier != EBB_TIER_DISK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_debug_hold: not a disk pool");
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->lock);
    atomic_store(&d->hold, hold ? 1 : 0);
    pthread_cond_broadcast(&d->hold_cv);
    pthread_mutex_unlock(&d->lock);
    return EBB_OK;
}
