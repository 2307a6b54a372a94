/* Disk engine: one thread owns an io_uring and keeps `depth` requests in
 * flight across operations (not just within one), submitting each batch with
 * one io_uring_enter that also waits for the next completion. Callers hand it
 * operations through the disk's queue and ring an eventfd whose read is kept
 * armed in the ring, so new work wakes the thread at once. It never hashes
 * (disk_hash.c does).
 *
 * Errors: a request completing with -EAGAIN is sent again after a pause that
 * doubles (it waits parked, the ring goes on), -EINTR at once, both at most
 * EBB_DISK_RETRIES times. io_uring_enter failing with EAGAIN or EBUSY is
 * retried with the same pauses at most EBB_URING_ENTER_RETRIES times in a
 * row; failing otherwise, or past that, stops the engine: requests the
 * kernel never took are dropped, those it took are waited for (bounded),
 * every operation in flight or queued fails with the errno text, the ring is
 * closed, and from then on every operation fails at once, until destroy. */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/disk.h"
#include "storage/topology.h"

#define EBB_URING_ENTER_RETRIES 20
/* A stopping engine waits this long for the requests the kernel took. */
#define EBB_URING_DRAIN_MS 2000

typedef struct ur_req {
    ebb_op *op;       /* NULL: the eventfd read */
    uint32_t block;
    int file;
    uint64_t offset;  /* file offset of the block */
    unsigned char *buf;
    size_t len;       /* bytes to transfer for the block */
    size_t done;      /* bytes transferred so far */
    size_t sub_len;   /* bytes asked for by the request in flight */
    uint64_t seq;
    int attempts;     /* EAGAIN/EINTR completions in a row */
    uint64_t first_ns; /* when the first of them came */
    uint64_t due_ns;  /* parked: when to send it again */
    struct ur_req *next_free; /* free list, or the parked list */
} ur_req;

struct ebb_uring {
    struct io_uring ring;
    int ring_ok;
    int efd;
    uint64_t efd_val;
    ur_req efd_req;
    ur_req *reqs;
    ur_req *free_reqs;
    ur_req *parked;        /* EAGAIN requests waiting for their pause */
    int inflight;          /* block requests held: prepared, in the kernel or parked */
    int32_t cur;           /* operation being split into requests, -1 none */
    _Atomic int ring_needed;
    _Atomic int stopped;   /* the engine stopped after an io_uring_enter failure */
    char stop_msg[EBB_OP_MSG];
    pthread_t thread;
    int thread_ok;
    /* start-up handshake */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int setup_done;
    int setup_err;
    char setup_why[384];
    unsigned char *reg_base; /* registered region (staging pool memory) */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_us(uint32_t us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* An SQE, submitting what is queued if the ring is full (it never is: it
 * holds depth + 2 entries for at most depth requests and the eventfd read). */
static struct io_uring_sqe *get_sqe(struct ebb_uring *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        io_uring_submit(&u->ring);
        sqe = io_uring_get_sqe(&u->ring);
    }
    return sqe;
}

static void arm_eventfd(struct ebb_uring *u)
{
    struct io_uring_sqe *sqe = get_sqe(u);
    if (!sqe)
        return;
    io_uring_prep_read(sqe, u->efd, &u->efd_val, sizeof u->efd_val, 0);
    io_uring_sqe_set_data(sqe, &u->efd_req);
}

static void block_done(struct ebb_pool *pool, ur_req *r)
{
    struct ebb_uring *u = pool->disk->uring;
    ebb_op *op = r->op;
    u->inflight--;
    ebb_disk_inflight(pool->disk, -1);
    r->next_free = u->free_reqs;
    u->free_reqs = r;
    uint32_t left = atomic_fetch_sub(&op->remaining, 1) - 1;
    if (left == 0)
        ebb_disk_blocks_done(pool, op);
}

/* Queues the next piece of a block request. */
static void issue(struct ebb_pool *pool, ur_req *r)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    unsigned char *addr = r->buf + r->done;
    size_t n = r->len - r->done;
    if (n > EBB_DISK_MAX_IO)
        n = EBB_DISK_MAX_IO;
    int buf_index = -1;
    if (r->op->fixed && addr >= u->reg_base &&
        (uint64_t)(addr - u->reg_base) < d->registered_bytes) {
        size_t rel = (size_t)(addr - u->reg_base);
        size_t chunk_end = (rel / EBB_DISK_REG_CHUNK + 1) * EBB_DISK_REG_CHUNK;
        if (n > chunk_end - rel)
            n = chunk_end - rel; /* a fixed request stays inside one registered buffer */
        buf_index = (int)(rel / EBB_DISK_REG_CHUNK);
    }
    struct io_uring_sqe *sqe = get_sqe(u);
    if (!sqe) {
        ebb_disk_fail_io(pool, r->op, r->block, EBUSY, "no io_uring submission entry free");
        block_done(pool, r);
        return;
    }
    int fd = d->fixed_files ? r->file : d->fds[r->file];
    uint64_t off = r->offset + r->done;
    if (r->op->write) {
        if (buf_index >= 0)
            io_uring_prep_write_fixed(sqe, fd, addr, (unsigned)n, off, buf_index);
        else
            io_uring_prep_write(sqe, fd, addr, (unsigned)n, off);
    } else {
        if (buf_index >= 0)
            io_uring_prep_read_fixed(sqe, fd, addr, (unsigned)n, off, buf_index);
        else
            io_uring_prep_read(sqe, fd, addr, (unsigned)n, off);
    }
    if (d->fixed_files)
        sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, r);
    atomic_fetch_add(buf_index >= 0 ? &d->fixed_reqs : &d->plain_reqs, 1);
    r->sub_len = n;
    r->seq = atomic_fetch_add(&d->io_seq, 1) + 1;
    atomic_fetch_add(&pool->st_requests, 1);
}

static void on_cqe(struct ebb_pool *pool, ur_req *r, int res0)
{
    struct ebb_uring *u = pool->disk->uring;
    ebb_op *op = r->op;
    long res = ebb_disk_fault(pool, r->seq, res0, r->sub_len);
    if (res == -EAGAIN || res == -EINTR) {
        uint64_t t = now_ns();
        if (r->attempts++ == 0)
            r->first_ns = t;
        if (r->attempts > EBB_DISK_RETRIES || atomic_load(&op->failed)) {
            if (!atomic_load(&op->failed))
                ebb_disk_fail_retries(pool, op, r->block, (int)-res, r->attempts,
                                      (double)(t - r->first_ns) / 1e9);
            block_done(pool, r);
            return;
        }
        atomic_fetch_add(&pool->st_retries, 1);
        if (res == -EINTR) {
            issue(pool, r);
            return;
        }
        /* Busy: send it again after a pause; the other requests go on. */
        r->due_ns = t + (uint64_t)ebb_disk_retry_pause_us(r->attempts) * 1000u;
        r->next_free = u->parked;
        u->parked = r;
        return;
    }
    r->attempts = 0;
    if (res < 0) {
        ebb_disk_fail_io(pool, op, r->block, (int)-res, NULL);
        block_done(pool, r);
        return;
    }
    if (res == 0) {
        ebb_disk_fail_io(pool, op, r->block, 0,
                         op->write ? "the device wrote 0 bytes" : "unexpected end of file");
        block_done(pool, r);
        return;
    }
    r->done += (size_t)res;
    if (r->done < r->len) {
        if ((size_t)res < r->sub_len)
            atomic_fetch_add(&pool->st_retries, 1); /* short: finish it */
        if (atomic_load(&op->failed)) {
            block_done(pool, r);
            return;
        }
        issue(pool, r);
        return;
    }
    block_done(pool, r);
}

/* Sends the parked requests whose pause is over; returns the nanoseconds
 * until the next one is due (0: none parked). */
static uint64_t unpark(struct ebb_pool *pool)
{
    struct ebb_uring *u = pool->disk->uring;
    uint64_t t = now_ns(), next = 0;
    ur_req **link = &u->parked;
    while (*link) {
        ur_req *r = *link;
        if (r->due_ns > t) {
            if (!next || r->due_ns - t < next)
                next = r->due_ns - t;
            link = &r->next_free;
            continue;
        }
        *link = r->next_free;
        if (atomic_load(&r->op->failed))
            block_done(pool, r);
        else
            issue(pool, r);
    }
    return next;
}

/* Takes an operation off the queue; -1 if none. */
static int32_t next_op(ebb_disk *d)
{
    pthread_mutex_lock(&d->lock);
    int32_t i = ebb_disk_queue_front(d);
    if (i >= 0)
        ebb_disk_queue_pop(d);
    pthread_mutex_unlock(&d->lock);
    return i;
}

/* The blocks of `op` not issued yet will never be: they count as done. */
static void skip_rest(struct ebb_pool *pool, ebb_op *op)
{
    uint32_t skip = op->blocks - op->next_block;
    op->next_block = op->blocks;
    if (skip && atomic_fetch_sub(&op->remaining, skip) == skip)
        ebb_disk_blocks_done(pool, op);
}

/* Fills free requests from the operations queued; returns the nanoseconds
 * until the bandwidth limit lets the next block go (0: not held back). */
static uint64_t fill(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    uint64_t wait = 0;
    while (u->free_reqs) {
        if (u->cur < 0) {
            u->cur = next_op(d);
            if (u->cur < 0)
                break;
        }
        ebb_op *op = &pool->ops[u->cur];
        if (atomic_load(&op->failed)) {
            u->cur = -1;
            skip_rest(pool, op);
            continue;
        }
        if ((wait = ebb_disk_pace(pool, op, op->next_block)) != 0)
            break;
        uint32_t b = op->next_block++;
        if (op->next_block == op->blocks)
            u->cur = -1;
        ur_req *r = u->free_reqs;
        u->free_reqs = r->next_free;
        ebb_disk_loc loc;
        ebb_disk_locate(d, pool->slot_size, op->slot, b, &loc);
        r->op = op;
        r->block = b;
        r->file = loc.file;
        r->offset = loc.offset;
        r->buf = op->buf + loc.buf_offset;
        r->len = loc.io_len;
        r->done = 0;
        r->attempts = 0;
        u->inflight++;
        ebb_disk_inflight(d, 1);
        issue(pool, r);
    }
    return wait;
}

/* One submit-and-wait (bounded by `wait_ns` when not 0), or the failure
 * fault injection asks for. */
static int enter(struct ebb_pool *pool, uint64_t wait_ns)
{
    struct ebb_uring *u = pool->disk->uring;
    const ebb_storage_fault *f = &pool->fault;
    uint64_t n = atomic_fetch_add(&pool->disk->enter_calls, 1) + 1;
    if (f->enter_nth && n >= f->enter_nth && (!f->enter_count || n - f->enter_nth < f->enter_count))
        return -(f->enter_errno ? f->enter_errno : EIO);
    if (!wait_ns)
        return io_uring_submit_and_wait(&u->ring, 1);
    struct __kernel_timespec ts = {(long long)(wait_ns / 1000000000u),
                                   (long long)(wait_ns % 1000000000u)};
    struct io_uring_cqe *cqe = NULL;
    return io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, &ts, NULL);
}

/* Handles every completion ready. draining: the engine is stopping, so
 * nothing is sent again: a request that is not complete fails. */
static void reap(struct ebb_pool *pool, int draining)
{
    struct ebb_uring *u = pool->disk->uring;
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&u->ring, head, cqe)
    {
        seen++;
        if (cqe->user_data == LIBURING_UDATA_TIMEOUT)
            continue; /* liburing's own timeout, on kernels without EXT_ARG */
        ur_req *q = io_uring_cqe_get_data(cqe);
        if (q == &u->efd_req) {
            if (!draining) {
                arm_eventfd(u);
                atomic_store(&u->ring_needed, 1);
            }
            continue;
        }
        if (!draining) {
            on_cqe(pool, q, cqe->res);
            continue;
        }
        long res = ebb_disk_fault(pool, q->seq, cqe->res, q->sub_len);
        if (res < 0 || q->done + (size_t)res < q->len)
            ebb_op_fail(q->op, EBB_ERR_IO, "%s", u->stop_msg);
        block_done(pool, q);
    }
    io_uring_cq_advance(&u->ring, seen);
}

/* io_uring_enter failed for good: fail everything, close the ring. */
static void stop_engine(struct ebb_pool *pool, int err, int attempts)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
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
        block_done(pool, q);
    }
    u->ring.sq.sqe_head = u->ring.sq.sqe_tail = khead;
    io_uring_smp_store_release(u->ring.sq.ktail, khead);
    while (u->parked) {
        ur_req *q = u->parked;
        u->parked = q->next_free;
        ebb_op_fail(q->op, EBB_ERR_IO, "%s", u->stop_msg);
        block_done(pool, q);
    }
    /* Requests the kernel took: they may still read or fill host memory, so
     * wait for them (without submitting anything), for a bounded time. */
    for (int i = 0; u->inflight > 0 && i < EBB_URING_DRAIN_MS / 20; i++) {
        struct __kernel_timespec ts = {0, 20 * 1000 * 1000};
        struct io_uring_cqe *cqe = NULL;
        int r = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
        if (r < 0 && r != -ETIME && r != -EINTR)
            sleep_us(20 * 1000);
        reap(pool, 1);
    }
    for (int i = 0; i < d->depth && u->inflight > 0; i++) {
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
        block_done(pool, q);
    }
    /* The operation being split and everything queued. */
    for (;;) {
        int32_t i = u->cur >= 0 ? u->cur : next_op(d);
        u->cur = -1;
        if (i < 0)
            break;
        ebb_op_fail(&pool->ops[i], EBB_ERR_IO, "%s", u->stop_msg);
        skip_rest(pool, &pool->ops[i]);
    }
    io_uring_queue_exit(&u->ring);
    u->ring_ok = 0;
    atomic_store(&u->stopped, 1);
}

/* After stop_engine: every operation handed over fails at once. */
static void stopped_loop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    pthread_mutex_lock(&d->lock);
    for (;;) {
        while (d->qcount == 0 && !(d->stop && d->hash_writes == 0))
            pthread_cond_wait(&d->work_cv, &d->lock);
        if (d->qcount == 0)
            break;
        int32_t i = ebb_disk_queue_front(d);
        ebb_disk_queue_pop(d);
        pthread_mutex_unlock(&d->lock);
        ebb_op_fail(&pool->ops[i], EBB_ERR_IO, "%s", u->stop_msg);
        skip_rest(pool, &pool->ops[i]);
        pthread_mutex_lock(&d->lock);
    }
    pthread_mutex_unlock(&d->lock);
}

static int setup(struct ebb_pool *pool, char *why, size_t why_len)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    int r = ebb_uring_setup_ring(pool, &u->ring, why, why_len);
    if (r < 0)
        return r;
    u->ring_ok = 1;
    ebb_uring_register(pool, &u->ring, &u->reg_base);
    u->efd = eventfd(0, EFD_CLOEXEC);
    if (u->efd < 0) {
        int e = errno;
        snprintf(why, why_len, "eventfd: %s", strerror(e));
        return -e;
    }
    return 0;
}

static void *uring_main(void *arg)
{
    struct ebb_pool *pool = arg;
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    char why[384] = "";
    /* Named so that top, gdb and the no-allocation test can tell ebb's threads. */
    (void)pthread_setname_np(pthread_self(), "ebb-uring");
    int err = setup(pool, why, sizeof why);
    pthread_mutex_lock(&u->mu);
    u->setup_err = err;
    snprintf(u->setup_why, sizeof u->setup_why, "%s", why);
    u->setup_done = 1;
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
    if (err)
        return NULL;

    arm_eventfd(u);
    atomic_store(&u->ring_needed, 1);
    int failures = 0; /* io_uring_enter EAGAIN/EBUSY in a row */
    for (;;) {
        uint64_t wait_ns = unpark(pool), pace_ns = fill(pool);
        if (pace_ns && (!wait_ns || pace_ns < wait_ns))
            wait_ns = pace_ns;
        pthread_mutex_lock(&d->lock);
        /* Writes still with the checksum thread will be queued yet. */
        int stop = d->stop && d->qcount == 0 && d->hash_writes == 0;
        pthread_mutex_unlock(&d->lock);
        if (stop && u->cur < 0 && u->inflight == 0)
            break;
        int r = enter(pool, wait_ns);
        int transient = r == -EAGAIN || r == -EBUSY;
        if (r < 0 && r != -EINTR && r != -ETIME &&
            (!transient || ++failures > EBB_URING_ENTER_RETRIES)) {
            stop_engine(pool, -r, failures);
            stopped_loop(pool);
            return NULL;
        }
        if (!transient)
            failures = 0;
        reap(pool, 0);
        if (transient)
            sleep_us(ebb_disk_retry_pause_us(failures));
    }
    /* Drop the ring's references to the file and the buffers here, on the
     * issuing thread: io_uring_queue_exit tears the ring down asynchronously,
     * and until then the unlinked file stays allocated, so its deletion (and
     * any ENOSPC it causes) would spill past ebb_pool_destroy. */
    if (d->fixed_files)
        io_uring_unregister_files(&u->ring);
    if (d->fixed_buffers)
        io_uring_unregister_buffers(&u->ring);
    return NULL;
}

int ebb_uring_start(struct ebb_pool *pool, char *why, size_t why_len)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(why, why_len, "out of memory");
        return -ENOMEM;
    }
    u->reqs = calloc((size_t)d->depth, sizeof *u->reqs);
    if (!u->reqs) {
        free(u);
        snprintf(why, why_len, "out of memory");
        return -ENOMEM;
    }
    for (int i = 0; i < d->depth; i++) {
        u->reqs[i].next_free = u->free_reqs;
        u->free_reqs = &u->reqs[i];
    }
    u->efd = -1;
    u->cur = -1;
    pthread_mutex_init(&u->mu, NULL);
    pthread_cond_init(&u->cv, NULL);
    d->uring = u;
    d->backend = EBB_DISK_BACKEND_URING;
    int r = pthread_create(&u->thread, NULL, uring_main, pool);
    if (r != 0) {
        snprintf(why, why_len, "pthread_create: %s", strerror(r));
        ebb_uring_stop(pool);
        return -r;
    }
    u->thread_ok = 1;
    pthread_mutex_lock(&u->mu);
    while (!u->setup_done)
        pthread_cond_wait(&u->cv, &u->mu);
    pthread_mutex_unlock(&u->mu);
    if (u->setup_err) {
        int e = u->setup_err;
        snprintf(why, why_len, "%s", u->setup_why);
        ebb_uring_stop(pool);
        return e;
    }
    ebb_topo_bind_threads(&u->thread, 1, d->node);
    return 0;
}

void ebb_uring_kick(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    if (atomic_load(&u->stopped)) {
        pthread_mutex_lock(&d->lock);
        pthread_cond_broadcast(&d->work_cv);
        pthread_mutex_unlock(&d->lock);
        return;
    }
    if (atomic_exchange(&u->ring_needed, 0)) {
        uint64_t one = 1;
        ssize_t w = write(u->efd, &one, sizeof one);
        (void)w;
    }
}

void ebb_uring_stop(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    if (!u)
        return;
    if (u->thread_ok) {
        pthread_mutex_lock(&d->lock);
        d->stop = 1;
        ebb_disk_pace_lift(d);
        atomic_store(&d->hold, 0);
        pthread_cond_broadcast(&d->hold_cv);
        pthread_cond_broadcast(&d->work_cv);
        pthread_mutex_unlock(&d->lock);
        if (u->efd >= 0) {
            uint64_t one = 1;
            ssize_t w = write(u->efd, &one, sizeof one);
            (void)w;
        }
        pthread_join(u->thread, NULL);
    }
    if (u->ring_ok)
        io_uring_queue_exit(&u->ring);
    if (u->efd >= 0)
        close(u->efd);
    pthread_mutex_destroy(&u->mu);
    pthread_cond_destroy(&u->cv);
    free(u->reqs);
    free(u);
    d->uring = NULL;
    d->fixed_buffers = 0;
    d->fixed_files = 0;
    d->stop = 0;
    d->backend = EBB_DISK_BACKEND_THREADS;
}
