/* Disk engine: one thread owns an io_uring and keeps `depth` requests in
 * flight across operations (not just within one), submitting each batch with
 * one io_uring_enter that also waits for the next completion. Callers hand it
 * operations through the disk's queue and ring an eventfd whose read is kept
 * armed in the ring, so new work wakes the thread at once. */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "storage/disk.h"
#include "storage/topology.h"

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
    struct ur_req *next_free;
} ur_req;

struct ebb_uring {
    struct io_uring ring;
    int ring_ok;
    int efd;
    uint64_t efd_val;
    ur_req efd_req;
    ur_req *reqs;
    ur_req *free_reqs;
    int inflight;          /* block requests in flight */
    int32_t cur;           /* operation being split into requests, -1 none */
    _Atomic int ring_needed;
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

static void arm_eventfd(struct ebb_uring *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        io_uring_submit(&u->ring);
        sqe = io_uring_get_sqe(&u->ring);
    }
    if (!sqe)
        return;
    io_uring_prep_read(sqe, u->efd, &u->efd_val, sizeof u->efd_val, 0);
    io_uring_sqe_set_data(sqe, &u->efd_req);
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
    if (r->op->fixed) {
        size_t rel = (size_t)(addr - u->reg_base);
        size_t chunk_end = (rel / EBB_DISK_REG_CHUNK + 1) * EBB_DISK_REG_CHUNK;
        if (n > chunk_end - rel)
            n = chunk_end - rel; /* a fixed request stays inside one registered buffer */
        buf_index = (int)(rel / EBB_DISK_REG_CHUNK);
    }
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        io_uring_submit(&u->ring);
        sqe = io_uring_get_sqe(&u->ring);
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
    r->sub_len = n;
    r->seq = atomic_fetch_add(&d->io_seq, 1) + 1;
    atomic_fetch_add(&pool->st_requests, 1);
}

static void block_done(struct ebb_pool *pool, ur_req *r)
{
    struct ebb_uring *u = pool->disk->uring;
    ebb_op *op = r->op;
    u->inflight--;
    r->next_free = u->free_reqs;
    u->free_reqs = r;
    uint32_t left = atomic_fetch_sub(&op->remaining, 1) - 1;
    if (left == 0)
        ebb_disk_complete(pool, op);
}

static void on_cqe(struct ebb_pool *pool, ur_req *r, int res0)
{
    ebb_disk *d = pool->disk;
    ebb_op *op = r->op;
    long res = ebb_disk_fault(pool, r->seq, res0, r->sub_len);
    if (res == -EAGAIN || res == -EINTR) {
        atomic_fetch_add(&pool->st_retries, 1);
        issue(pool, r);
        return;
    }
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
    if (!op->write)
        ebb_disk_after_read(pool, op, r->block);
    (void)d;
    block_done(pool, r);
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

/* Fills free requests from the operations queued; returns requests prepared. */
static int fill(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    int prepared = 0;
    while (u->free_reqs) {
        if (u->cur < 0) {
            u->cur = next_op(d);
            if (u->cur < 0)
                break;
        }
        ebb_op *op = &pool->ops[u->cur];
        if (atomic_load(&op->failed)) {
            /* Skip the blocks not issued yet. */
            uint32_t skip = op->blocks - op->next_block;
            op->next_block = op->blocks;
            u->cur = -1;
            if (skip && atomic_fetch_sub(&op->remaining, skip) == skip)
                ebb_disk_complete(pool, op);
            continue;
        }
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
        if (op->write)
            ebb_disk_before_write(pool, op, b);
        u->inflight++;
        issue(pool, r);
        prepared++;
    }
    return prepared;
}

static void fail_all_queued(struct ebb_pool *pool, int err)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    for (;;) {
        int32_t i = u->cur >= 0 ? u->cur : next_op(d);
        u->cur = -1;
        if (i < 0)
            break;
        ebb_op *op = &pool->ops[i];
        ebb_op_fail(op, EBB_ERR_IO, "io_uring_enter failed on the disk tier: %s", strerror(err));
        uint32_t skip = op->blocks - op->next_block;
        op->next_block = op->blocks;
        if (skip && atomic_fetch_sub(&op->remaining, skip) == skip)
            ebb_disk_complete(pool, op);
    }
}

static int setup(struct ebb_pool *pool, char *why, size_t why_len)
{
    ebb_disk *d = pool->disk;
    struct ebb_uring *u = d->uring;
    if (pool->fault.uring_errno) {
        snprintf(why, why_len, "io_uring_setup: %s (injected)", strerror(pool->fault.uring_errno));
        return -pool->fault.uring_errno;
    }
    unsigned entries = 1;
    while (entries < (unsigned)d->depth + 2)
        entries <<= 1;
    /* Newest flags first; older kernels refuse them with EINVAL. */
    static const unsigned flag_sets[] = {
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
        IORING_SETUP_COOP_TASKRUN,
        0,
    };
    int r = -EINVAL;
    for (size_t i = 0; i < sizeof flag_sets / sizeof flag_sets[0]; i++) {
        struct io_uring_params p;
        memset(&p, 0, sizeof p);
        p.flags = flag_sets[i];
        r = io_uring_queue_init_params(entries, &u->ring, &p);
        if (r != -EINVAL)
            break;
    }
    if (r < 0) {
        snprintf(why, why_len, "io_uring_setup: %s%s", strerror(-r),
                 r == -EPERM ? " (seccomp or kernel.io_uring_disabled)" : "");
        return r;
    }
    u->ring_ok = 1;

    /* Fixed files: fewer file-table look-ups per request. Optional. */
    if (io_uring_register_files(&u->ring, d->fds, (unsigned)d->nfiles) == 0)
        d->fixed_files = 1;

    /* Fixed buffers: the staging host pool's memory, in <= 1 GiB pieces. */
    if (d->staging) {
        struct ebb_pool *h = d->staging;
        size_t n = (h->bytes + EBB_DISK_REG_CHUNK - 1) / EBB_DISK_REG_CHUNK;
        struct iovec *iov = calloc(n, sizeof *iov);
        int rr = -ENOMEM;
        if (iov && n <= 16384) {
            for (size_t i = 0; i < n; i++) {
                iov[i].iov_base = h->base + i * EBB_DISK_REG_CHUNK;
                size_t left = h->bytes - i * EBB_DISK_REG_CHUNK;
                iov[i].iov_len = left < EBB_DISK_REG_CHUNK ? left : EBB_DISK_REG_CHUNK;
            }
            rr = pool->fault.register_errno ? -pool->fault.register_errno
                                            : io_uring_register_buffers(&u->ring, iov, (unsigned)n);
        }
        free(iov);
        if (rr == 0) {
            d->fixed_buffers = 1;
            u->reg_base = h->base;
        } else {
            struct rlimit rl;
            char lim[64] = "unknown";
            if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
                if (rl.rlim_cur == RLIM_INFINITY)
                    snprintf(lim, sizeof lim, "unlimited");
                else
                    snprintf(lim, sizeof lim, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
            }
            ebb_pool_warn(pool,
                          "io_uring buffer registration failed (%s; RLIMIT_MEMLOCK is %s, raise "
                          "it with ulimit -l for fixed buffers); using unregistered I/O",
                          strerror(-rr), lim);
        }
    }

    u->efd = eventfd(0, EFD_CLOEXEC);
    if (u->efd < 0) {
        snprintf(why, why_len, "eventfd: %s", strerror(errno));
        return -errno;
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
    for (;;) {
        fill(pool);
        pthread_mutex_lock(&d->lock);
        int stop = d->stop && d->qcount == 0;
        pthread_mutex_unlock(&d->lock);
        if (stop && u->cur < 0 && u->inflight == 0)
            break;
        int r = io_uring_submit_and_wait(&u->ring, 1);
        if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY && r != -ETIME)
            fail_all_queued(pool, -r);
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&u->ring, head, cqe)
        {
            ur_req *q = io_uring_cqe_get_data(cqe);
            seen++;
            if (q == &u->efd_req) {
                arm_eventfd(u);
                atomic_store(&u->ring_needed, 1);
                continue;
            }
            on_cqe(pool, q, cqe->res);
        }
        io_uring_cq_advance(&u->ring, seen);
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
    struct ebb_uring *u = pool->disk->uring;
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
