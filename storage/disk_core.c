/* The disk tier's completion and retry core (disk_core.h): what both
 * engines do with a request's result and an operation's end. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "storage/disk.h"

void ebb_disk_core_init(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_init(&d->core.lock, NULL);
    pthread_cond_init(&d->core.done_cv, NULL);
    pthread_cond_init(&d->core.work_cv, NULL);
    pthread_cond_init(&d->probe.hold_cv, NULL);
    pthread_mutex_init(&d->hashq.lock, NULL);
    pthread_cond_init(&d->hashq.cv, NULL);
    d->core.sync_init = 1;
}

void ebb_disk_core_fini(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    if (!d->core.sync_init)
        return;
    pthread_mutex_destroy(&d->core.lock);
    pthread_cond_destroy(&d->core.done_cv);
    pthread_cond_destroy(&d->core.work_cv);
    pthread_cond_destroy(&d->probe.hold_cv);
    pthread_mutex_destroy(&d->hashq.lock);
    pthread_cond_destroy(&d->hashq.cv);
    d->core.sync_init = 0;
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
    if (atomic_load(&d->probe.hold)) {
        pthread_mutex_lock(&d->core.lock);
        while (atomic_load(&d->probe.hold))
            pthread_cond_wait(&d->probe.hold_cv, &d->core.lock);
        pthread_mutex_unlock(&d->core.lock);
    }
    fault_delay(pool);
    ebb_disk_codec_release(pool, op); /* a write's compressed buffer, if it took one */
    if (op->status == EBB_OK) {
        if (op->write) {
            atomic_store(&d->core.valid[op->slot], 1);
            atomic_fetch_add(&pool->st_writes, 1);
            atomic_fetch_add(&pool->st_bytes_written, pool->slot_size);
            if (op->coded) {
                atomic_fetch_add(&pool->st_codec_before, pool->slot_size);
                atomic_fetch_add(&pool->st_codec_after, op->bytes);
                if (!op->packed)
                    atomic_fetch_add(&pool->st_stored_raw, 1);
                if (!op->packed && op->slower)
                    atomic_fetch_add(&pool->st_raw_slower, 1);
                ebb_disk_codec_wrote(pool, op, ebb_disk_now_ns());
            }
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
    pthread_mutex_lock(&d->core.lock);
    atomic_store_explicit(&op->state, EBB_OP_DONE, memory_order_release);
    pthread_cond_broadcast(&d->core.done_cv);
    pthread_mutex_unlock(&d->core.lock);
}

void ebb_disk_blocks_done(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk *d = pool->disk;
    if (!op->write && (d->sums.on_stage || op->packed) && !atomic_load(&op->failed)) {
        ebb_disk_hash_push(pool, op); /* verifies, decompresses, then completes */
        return;
    }
    ebb_disk_complete(pool, op);
}

void ebb_disk_fail_io(struct ebb_pool *pool, ebb_op *op, uint32_t block, int err, const char *what)
{
    ebb_disk *d = pool->disk;
    ebb_disk_loc loc;
    ebb_disk_locate_bytes(&d->layout, op->slot, block, op->bytes, &loc);
    ebb_op_fail(op, EBB_ERR_IO,
                "%s disk slot %d (block %u, %zu bytes at offset %" PRIu64 " of '%s') failed: %s",
                op->write ? "writing" : "reading", (int)op->slot, block, loc.io_len, loc.offset,
                d->files.names[loc.file] ? d->files.names[loc.file] : "?",
                what ? what : strerror(err));
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

uint64_t ebb_disk_next_seq(struct ebb_pool *pool, int write)
{
    ebb_disk_core *c = &pool->disk->core;
    if (pool->fault.io_reads_only) {
        atomic_fetch_add(&c->io_seq, 1);
        return write ? 0 : atomic_fetch_add(&c->io_read_seq, 1) + 1;
    }
    return atomic_fetch_add(&c->io_seq, 1) + 1;
}

long ebb_disk_fault(struct ebb_pool *pool, uint64_t seq, long res, size_t len)
{
    const ebb_storage_fault *f = &pool->fault;
    if (f->io_nth && seq >= f->io_nth && seq - f->io_nth < (f->io_count > 1 ? f->io_count : 1))
        return -(long)(f->io_errno ? f->io_errno : EIO);
    if (f->short_nth && seq == f->short_nth && res > 0) {
        size_t a = pool->disk->layout.align;
        size_t half = ((size_t)res / 2) / a * a;
        if (half == 0)
            half = len > a ? a : (size_t)res;
        return (long)half;
    }
    return res;
}

void ebb_disk_inflight(struct ebb_pool *pool, int n)
{
    ebb_disk_probe *pr = &pool->disk->probe;
    uint32_t now = atomic_fetch_add(&pr->inflight_now, (uint32_t)n) + (uint32_t)n;
    uint32_t max = atomic_load(&pr->inflight_max);
    while (n > 0 && now > max && !atomic_compare_exchange_weak(&pr->inflight_max, &max, now))
        ;
}

void ebb_disk_signal_stop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->core.lock);
    d->core.stop = 1;
    ebb_disk_pace_lift(&d->pace);
    atomic_store(&d->probe.hold, 0);
    pthread_cond_broadcast(&d->probe.hold_cv);
    pthread_cond_broadcast(&d->core.work_cv);
    pthread_mutex_unlock(&d->core.lock);
}

void ebb_disk_hash_push(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk_hashq *q = &pool->disk->hashq;
    pthread_mutex_lock(&q->lock);
    q->queue[(q->head + q->count) % (uint32_t)pool->slots] = op->slot;
    q->count++;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->lock);
}

int32_t ebb_disk_hash_pop(struct ebb_pool *pool)
{
    ebb_disk_hashq *q = &pool->disk->hashq;
    pthread_mutex_lock(&q->lock);
    while (!q->stop && q->count == 0)
        pthread_cond_wait(&q->cv, &q->lock);
    int32_t slot = -1;
    if (q->count) { /* else stopped, and nothing left */
        slot = q->queue[q->head];
        q->head = (q->head + 1) % (uint32_t)pool->slots;
        q->count--;
    }
    pthread_mutex_unlock(&q->lock);
    return slot;
}
