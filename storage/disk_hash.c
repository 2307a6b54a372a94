/* The checksum thread of an io_uring disk pool with checksums: the ring
 * thread only submits and reaps, so the device never idles while a block
 * is hashed. A write is handed here by ebb_disk_move (so the caller does
 * not hash either), hashed block by block, then queued for the engine; a
 * read comes here from the core once all its blocks are in, is verified,
 * then completed. Its queue is the core's (disk_core.h), so the core never
 * calls up here; nothing is allocated per operation. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "storage/disk.h"
#include "storage/topology.h"

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

static void *hasher_main(void *arg)
{
    struct ebb_pool *pool = arg;
    /* Named so that top, gdb and the tests can tell ebb's threads. */
    (void)pthread_setname_np(pthread_self(), "ebb-hash");
    for (;;) {
        int32_t slot = ebb_disk_hash_pop(pool);
        if (slot < 0)
            return NULL;
        ebb_op *op = &pool->ops[slot];
        if (op->write && op->gated) {
            gate_hash(pool, op);
        } else if (op->write) {
            ebb_disk_hash_write(pool, op);
            ebb_disk_enqueue(pool, slot, 1);
        } else {
            ebb_disk_verify_read(pool, op);
            ebb_disk_complete(pool, op);
        }
    }
}

int ebb_hasher_start(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    int r = pthread_create(&d->hashq.thread, NULL, hasher_main, pool);
    if (r != 0)
        return r;
    d->hashq.started = 1;
    ebb_topo_bind_threads(&d->hashq.thread, 1, d->files.node);
    return 0;
}

void ebb_hasher_stop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    if (!d->hashq.started)
        return;
    pthread_mutex_lock(&d->hashq.lock);
    d->hashq.stop = 1;
    pthread_cond_broadcast(&d->hashq.cv);
    pthread_mutex_unlock(&d->hashq.lock);
    pthread_join(d->hashq.thread, NULL);
    d->hashq.started = 0;
}
