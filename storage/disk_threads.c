/* Disk engine for where io_uring is refused: worker threads that claim one
 * block at a time from the queued operations and run pread/pwrite on it, so
 * `threads` blocks are in flight, across operations as well as within one. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/disk.h"
#include "storage/topology.h"

/* Transfers one block; 0, or fails the op and returns -1. */
static int do_block(struct ebb_pool *pool, ebb_op *op, uint32_t b)
{
    ebb_disk *d = pool->disk;
    ebb_disk_loc loc;
    ebb_disk_locate(d, pool->slot_size, op->slot, b, &loc);
    int fd = d->fds[loc.file];
    unsigned char *buf = op->buf + loc.buf_offset;
    ebb_disk_progress p = {0, loc.io_len, 0, 0};
    if (op->write)
        ebb_disk_before_write(pool, op, b);
    for (;;) {
        size_t n = p.len - p.done;
        if (n > EBB_DISK_MAX_IO)
            n = EBB_DISK_MAX_IO;
        uint64_t seq = atomic_fetch_add(&d->io_seq, 1) + 1;
        atomic_fetch_add(&pool->st_requests, 1);
        atomic_fetch_add(&d->plain_reqs, 1);
        ssize_t r = op->write ? pwrite(fd, buf + p.done, n, (off_t)(loc.offset + p.done))
                              : pread(fd, buf + p.done, n, (off_t)(loc.offset + p.done));
        long res = ebb_disk_fault(pool, seq, r < 0 ? -(long)errno : (long)r, n);
        uint32_t pause_us;
        int step = ebb_disk_progress_step(pool, op, b, &p, res, n, &pause_us);
        if (step == EBB_DISK_BLOCK_FAILED)
            return -1;
        if (step == EBB_DISK_BLOCK_DONE)
            break;
        if (pause_us) {
            struct timespec ts = {(time_t)(pause_us / 1000000), (long)(pause_us % 1000000) * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (!op->write && ebb_disk_after_read(pool, op, b) != 0)
        return -1;
    return 0;
}

static void *worker(void *arg)
{
    struct ebb_pool *pool = arg;
    ebb_disk *d = pool->disk;
    /* Named so that top, gdb and the no-allocation test can tell ebb's threads. */
    (void)pthread_setname_np(pthread_self(), "ebb-io");
    for (;;) {
        pthread_mutex_lock(&d->lock);
        ebb_op *op;
        for (;;) {
            while (!d->stop && d->qcount == 0)
                pthread_cond_wait(&d->work_cv, &d->lock);
            if (d->qcount == 0) { /* stop, and nothing left */
                pthread_mutex_unlock(&d->lock);
                return NULL;
            }
            op = &pool->ops[ebb_disk_queue_front(d)];
            /* The bandwidth limit: wait (the lock released) for the block's turn. */
            uint64_t wait = atomic_load(&op->failed) ? 0 : ebb_disk_pace(pool, op, op->next_block);
            if (!wait)
                break;
            ebb_disk_pace_sleep(d, wait);
        }
        uint32_t b = op->next_block;
        uint32_t claimed = 1;
        if (atomic_load(&op->failed)) {
            claimed = op->blocks - b; /* skip what was not started */
            op->next_block = op->blocks;
        } else {
            op->next_block++;
        }
        if (op->next_block == op->blocks)
            ebb_disk_queue_pop(d);
        pthread_mutex_unlock(&d->lock);

        if (claimed == 1 && !atomic_load(&op->failed)) {
            ebb_disk_inflight(d, 1);
            do_block(pool, op, b);
            ebb_disk_inflight(d, -1);
        }
        if (atomic_fetch_sub(&op->remaining, claimed) == claimed)
            ebb_disk_complete(pool, op);
    }
}

int ebb_threads_start(struct ebb_pool *pool, char *why, size_t why_len)
{
    ebb_disk *d = pool->disk;
    d->backend = EBB_DISK_BACKEND_THREADS;
    d->threads = calloc((size_t)d->nthreads, sizeof *d->threads);
    if (!d->threads) {
        snprintf(why, why_len, "out of memory");
        return -ENOMEM;
    }
    for (int i = 0; i < d->nthreads; i++) {
        int r = pthread_create(&d->threads[i], NULL, worker, pool);
        if (r != 0) {
            snprintf(why, why_len, "pthread_create: %s", strerror(r));
            ebb_threads_stop(pool);
            return -r;
        }
        d->threads_started++;
    }
    ebb_topo_bind_threads(d->threads, d->threads_started, d->node);
    return 0;
}

void ebb_threads_kick(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->lock);
    pthread_cond_broadcast(&d->work_cv);
    pthread_mutex_unlock(&d->lock);
}

void ebb_threads_stop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    ebb_disk_pace_lift(d);
    atomic_store(&d->hold, 0);
    pthread_cond_broadcast(&d->hold_cv);
    pthread_cond_broadcast(&d->work_cv);
    pthread_mutex_unlock(&d->lock);
    for (int i = 0; i < d->threads_started; i++)
        pthread_join(d->threads[i], NULL);
    free(d->threads);
    d->threads = NULL;
    d->threads_started = 0;
}
