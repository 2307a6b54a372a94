/* A ring whose io_uring_enter failed for good stops: requests the kernel
 * never took are dropped, those it took are waited for (bounded), every
 * operation in flight or queued on it fails with the errno text, the ring is
 * closed, and from then on every operation handed to it fails at once,
 * until destroy. (Other rings of the pool go on; an operation with blocks on
 * the stopped ring fails.) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "storage/disk_uring.h"

void ur_stop_engine(ebb_uring *u, int err, int attempts)
{
    struct ebb_pool *pool = u->pool;
    ebb_disk *d = pool->disk;
    snprintf(u->stop_msg, sizeof u->stop_msg,
             "io_uring_enter failed on the disk tier's ring: %s%s; its io_uring engine stopped, "
             "so this operation and every later one on this pool fail: destroy the pool and "
             "create it again, or choose the threads backend",
             strerror(err), attempts > 1 ? " (after retries with pauses)" : "");
    /* Requests prepared but never taken by the kernel: dropped (the SQ ring
     * is emptied, so no later io_uring_enter submits them). */
    unsigned khead = *u->ring.sq.khead;
    for (unsigned i = khead; i != u->ring.sq.sqe_tail; i++) {
        struct io_uring_sqe *sqe = &u->ring.sq.sqes[i & u->ring.sq.ring_mask];
        if (sqe->user_data == LIBURING_UDATA_TIMEOUT)
            continue;
        ur_req *q = (ur_req *)(uintptr_t)sqe->user_data;
        if (q == &u->efd_req)
            continue;
        ebb_op_fail(q->op, EBB_ERR_IO, "%s", u->stop_msg);
        ur_block_done(u, q);
    }
    u->ring.sq.sqe_head = u->ring.sq.sqe_tail = khead;
    io_uring_smp_store_release(u->ring.sq.ktail, khead);
    while (u->parked) {
        ur_req *q = u->parked;
        u->parked = q->next_free;
        ebb_op_fail(q->op, EBB_ERR_IO, "%s", u->stop_msg);
        ur_block_done(u, q);
    }
    /* Requests the kernel took: they may still read or fill host memory, so
     * wait for them (without submitting anything), for a bounded time. */
    for (int i = 0; u->inflight > 0 && i < EBB_URING_DRAIN_MS / 20; i++) {
        struct __kernel_timespec ts = {0, 20 * 1000 * 1000};
        struct io_uring_cqe *cqe = NULL;
        int r = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
        if (r < 0 && r != -ETIME && r != -EINTR) {
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        ur_reap(u, 1);
    }
    for (int i = 0; i < d->engine.depth && u->inflight > 0; i++) {
        ur_req *q = &u->reqs[i];
        if (!q->op)
            continue;
        int is_free = 0; /* a request not free is still in the kernel */
        for (ur_req *f = u->free_reqs; f && !is_free; f = f->next_free)
            is_free = f == q;
        if (is_free)
            continue;
        ebb_op_fail(q->op, EBB_ERR_IO,
                    "%s (the kernel did not report this request's completion within %d ms)",
                    u->stop_msg, EBB_URING_DRAIN_MS);
        ur_block_done(u, q);
    }
    /* The operation being split and everything queued. */
    for (;;) {
        int cur = u->cur >= 0;
        int32_t i = cur ? u->cur : ur_next_op(u);
        u->cur = -1;
        if (i < 0)
            break;
        if (!cur)
            u->next_block = 0;
        ebb_op_fail(&pool->ops[i], EBB_ERR_IO, "%s", u->stop_msg);
        ur_skip_rest(u, &pool->ops[i]);
    }
    io_uring_queue_exit(&u->ring);
    u->ring_ok = 0;
    atomic_store(&u->stopped, 1);
}

void ur_stopped_loop(ebb_uring *u)
{
    struct ebb_pool *pool = u->pool;
    ebb_disk *d = pool->disk;
    pthread_mutex_lock(&d->core.lock);
    for (;;) {
        while (u->qcount == 0 && !(d->core.stop && d->hashq.writes == 0))
            pthread_cond_wait(&d->core.work_cv, &d->core.lock);
        if (u->qcount == 0)
            break;
        int32_t i = u->queue[u->qhead];
        u->qhead = (u->qhead + 1) % (uint32_t)d->layout.slots;
        u->qcount--;
        pthread_mutex_unlock(&d->core.lock);
        u->next_block = 0;
        ebb_op_fail(&pool->ops[i], EBB_ERR_IO, "%s", u->stop_msg);
        ur_skip_rest(u, &pool->ops[i]);
        pthread_mutex_lock(&d->core.lock);
    }
    pthread_mutex_unlock(&d->core.lock);
}
