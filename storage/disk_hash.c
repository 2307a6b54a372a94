/* The disk pool's codec stage: threads between the caller and the engine,
 * so that neither the caller nor an engine thread ever hashes, compresses or
 * decompresses. Without compression it is the checksum thread of an
 * io_uring pool with checksums (one thread, "ebb-hash"); with compression
 * it is ebb_pool_options.codec_threads threads ("ebb-codec"), for either
 * engine. They share one queue (the core's, disk_core.h, so the core never
 * calls up here); nothing is allocated per operation.
 *
 * A write is handed here by ebb_disk_move: compressed (disk_codec.c: into a
 * compressed buffer, or stored raw when it does not shrink), hashed block
 * by block where the engine does not hash, then queued for the engine. A
 * chained write (gpu -> host -> disk) with compression first waits for all
 * of its blocks to cross from the gpu; without it, it is queued for the ring
 * at once and its blocks are let go one by one as they cross and are hashed.
 * A read comes here from the core once all its blocks are in: verified,
 * decompressed (a packed read; a chained one then copies the whole state on
 * to the gpu), then completed. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "storage/disk.h"
#include "storage/thread_start.h"
#include "storage/topology.h"

typedef struct stage_arg {
    struct ebb_pool *pool;
    int index; /* which codec thread: its scratch */
} stage_arg;

/* A write chained behind a gpu -> host copy, queued for the ring already:
 * waits for each block's event, hashes it, lets the ring have it. */
static void gate_hash(struct ebb_pool *pool, ebb_op *op)
{
    for (uint32_t b = 0; b < op->blocks; b++) {
        if (ebb_disk_gate_wait(pool, op, b) < 0)
            break;
        ebb_disk_before_write(pool, op, b);
        atomic_store_explicit(&op->ready_blocks, b + 1, memory_order_release);
        ebb_disk_kick(pool);
    }
    if (atomic_load(&op->failed)) {
        atomic_store_explicit(&op->ready_blocks, op->blocks, memory_order_release);
        ebb_disk_kick(pool);
    }
}

/* A write to compress: a chained one waits until the whole state crossed
 * from the gpu (a failed copy fails it here); then it is compressed and
 * hashed, and queued for the engine (also when it failed: the engine skips
 * its blocks and completes it). */
static void codec_write(struct ebb_pool *pool, ebb_op *op, int index)
{
    ebb_disk *d = pool->disk;
    if (op->gated) {
        for (uint32_t b = 0; b < op->blocks; b++)
            if (ebb_disk_gate_wait(pool, op, b) < 0)
                break;
        op->gated = 0; /* the engine need not ask again */
    }
    ebb_disk_shadow shadow = {0};
    if (!atomic_load(&op->failed))
        ebb_disk_codec_pack(pool, op, index, &shadow);
    if (!atomic_load(&op->failed) && d->sums.on_stage)
        ebb_disk_hash_write(pool, op);
    op->io_ns = ebb_disk_now_ns();
    ebb_disk_enqueue(pool, op->slot, 1); /* op may complete and be reused from here */
    ebb_disk_codec_shadow(pool, &shadow, index);
}

static void stage_read(struct ebb_pool *pool, ebb_op *op, int index)
{
    ebb_disk *d = pool->disk;
    if (d->sums.on_stage)
        ebb_disk_verify_read(pool, op);
    if (op->packed && !atomic_load(&op->failed) && ebb_disk_codec_unpack(pool, op, index) == 0 &&
        op->follow.gpu_op)
        ebb_disk_follow_state(pool, op); /* the whole state on to the gpu */
    ebb_disk_complete(pool, op);
}

static void *stage_main(void *arg)
{
    stage_arg *a = arg;
    struct ebb_pool *pool = a->pool;
    ebb_disk *d = pool->disk;
    for (;;) {
        int32_t slot = ebb_disk_hash_pop(pool);
        if (slot < 0)
            return NULL;
        ebb_op *op = &pool->ops[slot];
        if (op->write && d->codec.codec) {
            codec_write(pool, op, a->index);
        } else if (op->write && op->gated) {
            gate_hash(pool, op);
        } else if (op->write) {
            ebb_disk_hash_write(pool, op);
            ebb_disk_enqueue(pool, slot, 1);
        } else {
            stage_read(pool, op, a->index);
        }
    }
}

int ebb_hasher_start(struct ebb_pool *pool, int n, const char *name)
{
    ebb_disk *d = pool->disk;
    stage_arg *args = calloc((size_t)n, sizeof *args);
    d->hashq.threads = calloc((size_t)n, sizeof *d->hashq.threads);
    d->hashq.args = args;
    if (!args || !d->hashq.threads)
        return ENOMEM;
    d->hashq.started = 1; /* so that stop joins what started */
    for (int i = 0; i < n; i++) {
        args[i].pool = pool;
        args[i].index = i;
        int r = ebb_thread_start(&d->hashq.threads[i], stage_main, &args[i], name);
        if (r != 0) {
            ebb_hasher_stop(pool);
            return r;
        }
        d->hashq.nthreads++;
    }
    ebb_topo_bind_threads(d->hashq.threads, d->hashq.nthreads, d->files.node);
    return 0;
}

void ebb_hasher_stop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    if (d->hashq.started) {
        pthread_mutex_lock(&d->hashq.lock);
        d->hashq.stop = 1;
        pthread_cond_broadcast(&d->hashq.cv);
        pthread_mutex_unlock(&d->hashq.lock);
        for (int i = 0; i < d->hashq.nthreads; i++)
            pthread_join(d->hashq.threads[i], NULL);
    }
    d->hashq.started = 0;
    d->hashq.nthreads = 0;
    free(d->hashq.threads);
    free(d->hashq.args);
    d->hashq.threads = NULL;
    d->hashq.args = NULL;
}
