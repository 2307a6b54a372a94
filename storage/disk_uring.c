/* Disk engine: a thread per ring (one ring per device group) keeps `depth`
 * requests in flight across operations (not just within one), submitting
 * each batch with one io_uring_enter that also waits for the next
 * completion. Callers hand it operations through the ring's queue and ring
 * an eventfd whose read is kept armed in the ring, so new work wakes the
 * thread at once. It never hashes (disk_hash.c does).
 *
 * Errors: a request's short completion, -EAGAIN or -EINTR is handled by
 * ebb_disk_progress_step, as in the threads engine; a request waiting out an
 * EAGAIN pause is parked while the ring goes on. io_uring_enter failing with
 * EAGAIN or EBUSY is retried with the same pauses at most
 * EBB_URING_ENTER_RETRIES times in a row; failing otherwise, or past that,
 * stops the ring (disk_uring_stop.c). This file is the ring thread's loop;
 * the requests are in disk_uring_req.c, the set-up in disk_uring_setup.c,
 * the engine's table (start, enqueue, kick, stop, info) in disk_uring_engine.c. */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "storage/disk_uring.h"

static void sleep_us(uint32_t us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* One submit-and-wait (bounded by `wait_ns` when not 0), or the failure
 * fault injection asks for. */
static int enter(ebb_uring *u, uint64_t wait_ns)
{
    struct ebb_pool *pool = u->pool;
    const ebb_storage_fault *f = &pool->fault;
    uint64_t n = atomic_fetch_add(&pool->disk->probe.enter_calls, 1) + 1;
    if (f->enter_nth && n >= f->enter_nth && (!f->enter_count || n - f->enter_nth < f->enter_count))
        return -(f->enter_errno ? f->enter_errno : EIO);
    if (!wait_ns)
        return io_uring_submit_and_wait(&u->ring, 1);
    struct __kernel_timespec ts = {(long long)(wait_ns / 1000000000u),
                                   (long long)(wait_ns % 1000000000u)};
    struct io_uring_cqe *cqe = NULL;
    return io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, &ts, NULL);
}

void *ur_main(void *arg)
{
    ebb_uring *u = arg;
    ebb_disk *d = u->pool->disk;
    char why[384] = "";
    /* Named so that top, gdb and the no-allocation test can tell ebb's threads. */
    (void)pthread_setname_np(pthread_self(), "ebb-uring");
    int err = ur_setup(u, why, sizeof why);
    pthread_mutex_lock(&u->mu);
    u->setup_err = err;
    snprintf(u->setup_why, sizeof u->setup_why, "%s", why);
    u->setup_done = 1;
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
    if (err)
        return NULL;

    ur_arm_eventfd(u);
    atomic_store(&u->ring_needed, 1);
    int failures = 0; /* io_uring_enter EAGAIN/EBUSY in a row */
    for (;;) {
        uint64_t wait_ns = ur_unpark(u), pace_ns = ur_fill(u);
        if (pace_ns && (!wait_ns || pace_ns < wait_ns))
            wait_ns = pace_ns;
        pthread_mutex_lock(&d->core.lock);
        /* Writes still with the checksum thread will be queued yet. */
        int stop = d->core.stop && u->qcount == 0 && d->hashq.writes == 0;
        pthread_mutex_unlock(&d->core.lock);
        if (stop && u->cur < 0 && u->inflight == 0)
            break;
        int r = enter(u, wait_ns);
        int transient = r == -EAGAIN || r == -EBUSY;
        if (r < 0 && r != -EINTR && r != -ETIME &&
            (!transient || ++failures > EBB_URING_ENTER_RETRIES)) {
            ur_stop_engine(u, -r, failures);
            ur_stopped_loop(u);
            return NULL;
        }
        if (!transient)
            failures = 0;
        ur_reap(u, 0);
        if (transient)
            sleep_us(ebb_disk_retry_pause_us(failures));
    }
    /* Drop the ring's references to the file and the buffers here, on the
     * issuing thread: io_uring_queue_exit tears the ring down asynchronously,
     * and until then the unlinked file stays allocated, so its deletion (and
     * any ENOSPC it causes) would spill past ebb_pool_destroy. */
    if (u->fixed_files)
        io_uring_unregister_files(&u->ring);
    if (u->reg_base)
        io_uring_unregister_buffers(&u->ring);
    return NULL;
}
