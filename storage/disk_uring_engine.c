/* The io_uring engine behind its table (disk_engine.h): start (one ring
 * and thread per device group, each near its device's NUMA node), hand-over
 * of operations to the rings' queues, wake-up and stop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/disk_uring.h"
#include "storage/topology.h"

static void uring_stop(struct ebb_pool *pool);
static void uring_release(struct ebb_pool *pool);

/* Starts ring `g`'s thread and waits for its set-up. 0 or -errno. */
static int start_ring(struct ebb_pool *pool, int g, char *why, size_t why_len)
{
    ebb_disk *d = pool->disk;
    ebb_uring_engine *e = ur_engine(pool);
    ebb_uring *u = &e->rings[g];
    u->pool = pool;
    u->group = g;
    u->efd = -1;
    u->cur = -1;
    u->reqs = calloc((size_t)d->engine.depth, sizeof *u->reqs);
    u->queue = calloc((size_t)d->layout.slots, sizeof *u->queue);
    pthread_mutex_init(&u->mu, NULL);
    pthread_cond_init(&u->cv, NULL);
    e->nrings++; /* from here on uring_stop and uring_release clean it up */
    if (!u->reqs || !u->queue) {
        snprintf(why, why_len, "out of memory");
        return -ENOMEM;
    }
    for (int i = 0; i < d->engine.depth; i++) {
        u->reqs[i].next_free = u->free_reqs;
        u->free_reqs = &u->reqs[i];
    }
    int r = pthread_create(&u->thread, NULL, ur_main, u);
    if (r != 0) {
        snprintf(why, why_len, "pthread_create: %s", strerror(r));
        return -r;
    }
    u->thread_ok = 1;
    pthread_mutex_lock(&u->mu);
    while (!u->setup_done)
        pthread_cond_wait(&u->cv, &u->mu);
    pthread_mutex_unlock(&u->mu);
    if (u->setup_err) {
        snprintf(why, why_len, "%s", u->setup_why);
        return u->setup_err;
    }
    ebb_topo_bind_threads(&u->thread, 1, d->files.group_node[g]);
    return 0;
}

static int uring_start(struct ebb_pool *pool, const ebb_pool_options *o, char *why,
                       size_t why_len)
{
    (void)o; /* its queue depth is the pool's: ebb_disk_engine.depth */
    ebb_disk *d = pool->disk;
    ebb_uring_engine *e = calloc(1, sizeof *e);
    if (e)
        e->rings = calloc((size_t)d->files.ngroups, sizeof *e->rings);
    if (!e || !e->rings) {
        free(e);
        snprintf(why, why_len, "out of memory");
        return -ENOMEM;
    }
    d->engine.state = e;
    /* One after the other: registrations and their warnings never overlap. */
    for (int g = 0; g < d->files.ngroups; g++) {
        int r = start_ring(pool, g, why, why_len);
        if (r != 0) {
            uring_stop(pool);
            uring_release(pool);
            return r;
        }
        ebb_uring *u = &e->rings[g];
        e->fixed_files = g == 0 ? u->fixed_files : e->fixed_files && u->fixed_files;
        /* A staging slot goes by fixed buffers on the rings that registered it. */
        if (u->reg_base) {
            e->fixed_buffers = 1;
            if (u->reg_slots > e->fixed_slots)
                e->fixed_slots = u->reg_slots;
            if (u->reg_bytes > e->registered_bytes)
                e->registered_bytes = u->reg_bytes;
        }
    }
    return 0;
}

/* d->core.lock held. Only to the rings holding blocks of the slot: a slot's
 * blocks always lie in the same files, so a ring never sees a slot it has
 * no part of, and each ring's queue holds a slot at most once. */
static void uring_enqueue(struct ebb_pool *pool, int32_t slot)
{
    ebb_disk *d = pool->disk;
    ebb_uring_engine *e = ur_engine(pool);
    const ebb_op *op = &pool->ops[slot];
    for (int g = 0; g < e->nrings; g++) {
        ebb_uring *u = &e->rings[g];
        int mine = e->nrings == 1;
        for (uint32_t b = 0; b < op->blocks && !mine; b++) {
            ebb_disk_loc loc;
            ebb_disk_locate(&d->layout, slot, b, &loc);
            mine = d->files.file_group[loc.file] == g;
        }
        if (!mine)
            continue;
        u->queue[(u->qhead + u->qcount) % (uint32_t)d->layout.slots] = slot;
        u->qcount++;
    }
}

static void wake(ebb_uring *u)
{
    uint64_t one = 1;
    ssize_t w = write(u->efd, &one, sizeof one);
    (void)w;
}

static void uring_kick(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    ebb_uring_engine *e = ur_engine(pool);
    int stopped = 0;
    for (int g = 0; g < e->nrings; g++) {
        ebb_uring *u = &e->rings[g];
        if (atomic_load(&u->stopped))
            stopped = 1;
        else if (atomic_exchange(&u->ring_needed, 0)) {
            wake(u);
            if (pool->fault.kick_pause_us)
                usleep(pool->fault.kick_pause_us);
        }
    }
    if (stopped) {
        pthread_mutex_lock(&d->core.lock);
        pthread_cond_broadcast(&d->core.work_cv);
        pthread_mutex_unlock(&d->core.lock);
    }
}

/* Drains the rings and joins their threads. The state stays until
 * uring_release: a codec thread may still be in uring_kick for an operation
 * the ring has already completed. */
static void uring_stop(struct ebb_pool *pool)
{
    ebb_uring_engine *e = ur_engine(pool);
    if (!e)
        return;
    ebb_disk_signal_stop(pool);
    for (int g = 0; g < e->nrings; g++) {
        ebb_uring *u = &e->rings[g];
        if (u->thread_ok) {
            if (u->efd >= 0)
                wake(u);
            pthread_join(u->thread, NULL);
            u->thread_ok = 0;
        }
        if (u->ring_ok)
            io_uring_queue_exit(&u->ring);
        u->ring_ok = 0;
    }
}

static void uring_release(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    ebb_uring_engine *e = ur_engine(pool);
    if (!e)
        return;
    for (int g = 0; g < e->nrings; g++) {
        ebb_uring *u = &e->rings[g];
        if (u->efd >= 0)
            close(u->efd);
        pthread_mutex_destroy(&u->mu);
        pthread_cond_destroy(&u->cv);
        free(u->reqs);
        free(u->queue);
    }
    free(e->rings);
    free(e);
    d->engine.state = NULL;
    d->core.stop = 0;
}

static void uring_info(const struct ebb_pool *pool, ebb_disk_engine_info *info)
{
    const ebb_uring_engine *e = ur_engine(pool);
    info->registered_buffers = e->fixed_buffers;
    info->registered_files = e->fixed_files;
    info->registered_bytes = e->fixed_buffers ? e->registered_bytes : 0;
    info->registered_slots = e->fixed_buffers ? e->fixed_slots : 0;
    info->threads = e->nrings; /* one ring thread per device group */
    info->rings = e->nrings;
}

const ebb_disk_engine_ops ebb_disk_uring_ops = {
    .backend = EBB_DISK_BACKEND_URING,
    .name = "io_uring",
    .start = uring_start,
    .enqueue = uring_enqueue,
    .kick = uring_kick,
    .stop = uring_stop,
    .release = uring_release,
    .info = uring_info,
};
