/* Disk engine for where io_uring is refused: worker threads that claim one
 * block at a time from the queued operations and run pread/pwrite on it.
 * Like the io_uring engine's rings, the workers are per device group
 * (ebb_disk_files.ngroups): each group has its own queue and `nthreads` workers
 * bound near its device's NUMA node, and claims only the blocks that lie in
 * its group's files, so a slow drive never holds up another one's queue;
 * whichever worker finishes an operation's last block completes it. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/disk.h"
#include "storage/thread_start.h"
#include "storage/topology.h"

/* One device group's share of the engine; every field under d->core.lock. */
typedef struct ebb_thr_group {
    struct ebb_pool *pool;
    int group;
    int32_t *queue;      /* operation indices, one per slot at most */
    uint32_t qhead, qcount;
    uint32_t next_block; /* the front operation's next block to look at */
} ebb_thr_group;

/* The engine's state (ebb_disk_engine.state): made by its start, freed by
 * its stop. */
typedef struct thr_engine {
    int nthreads;           /* workers per device group */
    uint32_t qcap;          /* each queue's capacity (one entry per slot) */
    pthread_t *threads;     /* nthreads per device group */
    int threads_started;
    ebb_thr_group *groups;  /* one queue per device group */
} thr_engine;

static thr_engine *engine_of(const struct ebb_pool *pool)
{
    return pool->disk->engine.state;
}

static int own_block(const struct ebb_pool *pool, const ebb_thr_group *g, const ebb_op *op,
                     uint32_t b)
{
    if (pool->disk->files.ngroups == 1)
        return 1;
    ebb_disk_loc loc;
    ebb_disk_locate(&pool->disk->layout, op->slot, b, &loc);
    return pool->disk->files.file_group[loc.file] == g->group;
}

static void group_pop(ebb_thr_group *g, uint32_t cap)
{
    g->qhead = (g->qhead + 1) % cap;
    g->qcount--;
    g->next_block = 0;
}

/* Moves the front operation's cursor onto its next block in this group's
 * files: 1, or 0 and the operation popped when there is none (popped
 * before its completion, so a new operation on the slot never finds a
 * stale cursor). */
static int group_advance(struct ebb_pool *pool, ebb_thr_group *g, const ebb_op *op)
{
    while (g->next_block < op->blocks && !own_block(pool, g, op, g->next_block))
        g->next_block++;
    if (g->next_block < op->blocks)
        return 1;
    group_pop(g, engine_of(pool)->qcap);
    return 0;
}

static void threads_enqueue(struct ebb_pool *pool, int32_t slot)
{
    ebb_disk *d = pool->disk;
    thr_engine *e = engine_of(pool);
    const ebb_op *op = &pool->ops[slot];
    for (int k = 0; k < d->files.ngroups; k++) {
        ebb_thr_group *g = &e->groups[k];
        int has = 0;
        for (uint32_t b = 0; !has && b < op->blocks; b++)
            has = own_block(pool, g, op, b);
        if (!has)
            continue; /* none of its blocks lie on this device */
        g->queue[(g->qhead + g->qcount) % e->qcap] = slot;
        g->qcount++;
    }
}

/* Transfers one block; 0, or fails the op and returns -1. */
static int do_block(struct ebb_pool *pool, ebb_op *op, uint32_t b)
{
    ebb_disk *d = pool->disk;
    ebb_disk_loc loc;
    ebb_disk_locate_bytes(&d->layout, op->slot, b, op->bytes, &loc);
    int fd = d->files.fds[loc.file];
    unsigned char *buf = op->buf + loc.buf_offset;
    ebb_disk_progress p = {0, loc.io_len, 0, 0};
    if (op->write)
        ebb_disk_before_write(pool, op, b);
    for (;;) {
        size_t n = p.len - p.done;
        if (n > EBB_DISK_MAX_IO)
            n = EBB_DISK_MAX_IO;
        uint64_t seq = ebb_disk_next_seq(pool, op->write);
        atomic_fetch_add(&pool->st_requests, 1);
        atomic_fetch_add(&d->probe.plain_reqs, 1);
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
    ebb_thr_group *g = arg;
    struct ebb_pool *pool = g->pool;
    ebb_disk *d = pool->disk;
    for (;;) {
        pthread_mutex_lock(&d->core.lock);
        ebb_op *op;
        uint32_t b, claimed = 0;
        for (;;) {
            /* writes still with the codec threads will be queued yet */
            while (g->qcount == 0 && !(d->core.stop && d->hashq.writes == 0))
                pthread_cond_wait(&d->core.work_cv, &d->core.lock);
            if (g->qcount == 0) { /* stop, and nothing left */
                pthread_mutex_unlock(&d->core.lock);
                return NULL;
            }
            op = &pool->ops[g->queue[g->qhead]];
            if (atomic_load(&op->failed)) {
                /* Skip what this group did not start. */
                for (b = g->next_block; b < op->blocks; b++)
                    claimed += (uint32_t)own_block(pool, g, op, b);
                group_pop(g, engine_of(pool)->qcap);
                break;
            }
            if (!group_advance(pool, g, op))
                continue; /* nothing (more) of it on this device */
            /* The bandwidth limit: wait (the lock released) for the block's turn. */
            uint64_t wait = ebb_disk_pace(pool, op, g->next_block);
            if (!wait) {
                b = g->next_block++;
                claimed = 1;
                group_advance(pool, g, op);
                break;
            }
            ebb_disk_pace_sleep(&d->pace, &d->core.lock, wait);
        }
        int skipped = atomic_load(&op->failed) || claimed != 1;
        pthread_mutex_unlock(&d->core.lock);

        /* a chained write's block waits (sleeping) until it crossed from the gpu */
        if (claimed == 1 && !skipped && ebb_disk_gate(pool, op, b, 1) < 0)
            skipped = 1;
        if (claimed == 1 && !skipped) {
            ebb_disk_inflight(pool, 1);
            if (do_block(pool, op, b) == 0 && op->follow.gpu_op)
                ebb_disk_follow_block(pool, op, b); /* on to the gpu at once */
            ebb_disk_inflight(pool, -1);
        }
        if (claimed && atomic_fetch_sub(&op->remaining, claimed) == claimed)
            ebb_disk_blocks_done(pool, op); /* a packed read: decompressed first */
    }
}

static void threads_stop(struct ebb_pool *pool);
static void threads_release(struct ebb_pool *pool);

static int threads_start(struct ebb_pool *pool, const ebb_pool_options *o, char *why,
                         size_t why_len)
{
    ebb_disk *d = pool->disk;
    thr_engine *e = calloc(1, sizeof *e);
    d->engine.state = e;
    if (e) {
        /* `nthreads` workers per device group, as queue_depth is per ring. */
        e->nthreads = o->threads > 0 ? o->threads : o->queue_depth;
        e->qcap = (uint32_t)pool->slots;
        e->groups = calloc((size_t)d->files.ngroups, sizeof *e->groups);
        e->threads = calloc((size_t)e->nthreads * (size_t)d->files.ngroups, sizeof *e->threads);
    }
    if (!e || !e->groups || !e->threads) {
        snprintf(why, why_len, "out of memory");
        threads_stop(pool);
        threads_release(pool);
        return -ENOMEM;
    }
    for (int k = 0; k < d->files.ngroups; k++) {
        ebb_thr_group *g = &e->groups[k];
        g->pool = pool;
        g->group = k;
        g->queue = calloc(e->qcap, sizeof *g->queue);
        if (!g->queue) {
            snprintf(why, why_len, "out of memory");
            threads_stop(pool);
        threads_release(pool);
            return -ENOMEM;
        }
    }
    for (int k = 0; k < d->files.ngroups; k++) {
        int first = e->threads_started;
        for (int i = 0; i < e->nthreads; i++) {
            int r = ebb_thread_start(&e->threads[e->threads_started], worker, &e->groups[k],
                                     "ebb-io");
            if (r != 0) {
                snprintf(why, why_len, "pthread_create: %s", strerror(r));
                threads_stop(pool);
        threads_release(pool);
                return -r;
            }
            e->threads_started++;
        }
        ebb_topo_bind_threads(e->threads + first, e->nthreads, d->files.group_node[k]);
    }
    return 0;
}

static void threads_kick(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->core.lock);
    pthread_cond_broadcast(&d->core.work_cv);
    pthread_mutex_unlock(&d->core.lock);
}

static void threads_stop(struct ebb_pool *pool)
{
    thr_engine *e = engine_of(pool);
    ebb_disk_signal_stop(pool);
    if (!e)
        return;
    for (int i = 0; i < e->threads_started; i++)
        pthread_join(e->threads[i], NULL);
    e->threads_started = 0;
}

static void threads_release(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    thr_engine *e = engine_of(pool);
    if (!e)
        return;
    free(e->threads);
    for (int k = 0; e->groups && k < d->files.ngroups; k++)
        free(e->groups[k].queue);
    free(e->groups);
    free(e);
    d->engine.state = NULL;
}

static void threads_info(const struct ebb_pool *pool, ebb_disk_engine_info *info)
{
    *info = (ebb_disk_engine_info){.threads = engine_of(pool)->threads_started};
}

const ebb_disk_engine_ops ebb_disk_threads_ops = {
    .backend = EBB_DISK_BACKEND_THREADS,
    .name = "threads",
    .start = threads_start,
    .enqueue = threads_enqueue,
    .kick = threads_kick,
    .stop = threads_stop,
    .release = threads_release,
    .info = threads_info,
};
