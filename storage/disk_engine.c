/* The running disk engine, reached through its table (disk_engine.h):
 * which one starts, and the hand-over of operations to it. */
#include "common/error_internal.h"
#include "storage/disk.h"

ebb_status ebb_disk_engine_start(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_disk *d = pool->disk;
    char why[512] = "";
    if (o->backend != EBB_DISK_BACKEND_THREADS) {
        if (ebb_disk_uring_ops.start(pool, o, why, sizeof why) == 0) {
            d->engine.ops = &ebb_disk_uring_ops;
            return EBB_OK;
        }
        if (o->backend == EBB_DISK_BACKEND_URING)
            return ebb_fail(EBB_ERR_UNSUPPORTED,
                            "disk pool: io_uring cannot be used here (%s); choose the threads "
                            "backend",
                            why);
        ebb_pool_warn(pool, "io_uring unavailable (%s); using the thread-pool backend", why);
        ebb_disk_pace_resume(&d->pace); /* the failed start's stop lifted it */
    }
    if (ebb_disk_threads_ops.start(pool, o, why, sizeof why) != 0)
        return ebb_fail(EBB_ERR_NO_MEMORY, "disk pool: cannot start I/O threads: %s", why);
    d->engine.ops = &ebb_disk_threads_ops;
    return EBB_OK;
}

void ebb_disk_engine_stop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    if (d->engine.ops)
        d->engine.ops->stop(pool);
}

void ebb_disk_engine_release(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    if (d->engine.ops)
        d->engine.ops->release(pool);
}

void ebb_disk_enqueue(struct ebb_pool *pool, int32_t slot, int hashed)
{
    ebb_disk *d = pool->disk;
    const ebb_disk_engine_ops *ops = d->engine.ops;
    pthread_mutex_lock(&d->core.lock);
    ops->enqueue(pool, slot);
    if (hashed)
        d->hashq.writes--; /* with the enqueue: the engine sees one or the other */
    pthread_mutex_unlock(&d->core.lock);
    ops->kick(pool);
}

void ebb_disk_kick(struct ebb_pool *pool)
{
    pool->disk->engine.ops->kick(pool);
}
