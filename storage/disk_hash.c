/* The checksum thread of an io_uring disk pool with checksums: the ring
 * thread only submits and reaps, so the device never idles while a block
 * is hashed. A write is handed here by ebb_disk_move (so the caller does
 * not hash either), hashed block by block, then queued for the ring; a read
 * comes here from the ring once all its blocks are in, is verified, then
 * completed. One job per operation, so the queue (one entry per slot) never
 * overflows; nothing is allocated per operation. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "storage/disk.h"
#include "storage/topology.h"

static void *hasher_main(void *arg)
{
    struct ebb_pool *pool = arg;
    ebb_disk *d = pool->disk;
    /* Named so that top, gdb and the tests can tell ebb's threads. */
    (void)pthread_setname_np(pthread_self(), "ebb-hash");
    for (;;) {
        pthread_mutex_lock(&d->hlock);
        while (!d->hstop && d->hcount == 0)
            pthread_cond_wait(&d->hcv, &d->hlock);
        if (d->hcount == 0) { /* stopped, and nothing left */
            pthread_mutex_unlock(&d->hlock);
            return NULL;
        }
        int32_t slot = d->hqueue[d->hhead];
        d->hhead = (d->hhead + 1) % (uint32_t)pool->slots;
        d->hcount--;
        pthread_mutex_unlock(&d->hlock);

        ebb_op *op = &pool->ops[slot];
        if (op->write && op->gated) {
            ebb_disk_gate_hash(pool, op); /* queued already: the ring follows */
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
    int r = pthread_create(&d->hasher, NULL, hasher_main, pool);
    if (r != 0)
        return r;
    d->hasher_started = 1;
    ebb_topo_bind_threads(&d->hasher, 1, d->node);
    return 0;
}

void ebb_hasher_push(struct ebb_pool *pool, ebb_op *op)
{
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->hlock);
    d->hqueue[(d->hhead + d->hcount) % (uint32_t)pool->slots] = op->slot;
    d->hcount++;
    pthread_cond_signal(&d->hcv);
    pthread_mutex_unlock(&d->hlock);
}

void ebb_hasher_stop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    if (!d->hasher_started)
        return;
    pthread_mutex_lock(&d->hlock);
    d->hstop = 1;
    pthread_cond_broadcast(&d->hcv);
    pthread_mutex_unlock(&d->hlock);
    pthread_join(d->hasher, NULL);
    d->hasher_started = 0;
}
