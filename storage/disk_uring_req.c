/* The io_uring engine's requests: a block's requests prepared and sent
 * (ur_fill, issue), their completions handled (ur_reap), retries parked
 * and sent again (ur_unpark), and an operation's blocks counted down to its
 * completion (disk_core.c). Below the ring thread's loop (disk_uring.c) and
 * its stop (disk_uring_stop.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "storage/disk_uring.h"

/* An SQE, submitting what is queued if the ring is full (it never is: it
 * holds depth + 2 entries for at most depth requests and the eventfd read). */
static struct io_uring_sqe *get_sqe(ebb_uring *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        io_uring_submit(&u->ring);
        sqe = io_uring_get_sqe(&u->ring);
    }
    return sqe;
}

void ur_arm_eventfd(ebb_uring *u)
{
    struct io_uring_sqe *sqe = get_sqe(u);
    if (!sqe)
        return;
    io_uring_prep_read(sqe, u->efd, &u->efd_val, sizeof u->efd_val, 0);
    io_uring_sqe_set_data(sqe, &u->efd_req);
}

void ur_block_done(ebb_uring *u, ur_req *r)
{
    ebb_op *op = r->op;
    u->inflight--;
    ebb_disk_inflight(u->pool, -1);
    r->next_free = u->free_reqs;
    u->free_reqs = r;
    uint32_t left = atomic_fetch_sub(&op->remaining, 1) - 1;
    if (left == 0)
        ebb_disk_blocks_done(u->pool, op);
}

/* Queues the next piece of a block request. */
static void issue(ebb_uring *u, ur_req *r)
{
    struct ebb_pool *pool = u->pool;
    ebb_disk *d = pool->disk;
    unsigned char *addr = r->buf + r->p.done;
    size_t n = r->p.len - r->p.done;
    if (n > EBB_DISK_MAX_IO)
        n = EBB_DISK_MAX_IO;
    int buf_index = -1;
    if (r->op->fixed && u->reg_base && addr >= u->reg_base &&
        (uint64_t)(addr - u->reg_base) < u->reg_bytes) {
        size_t rel = (size_t)(addr - u->reg_base);
        size_t chunk_end = (rel / EBB_DISK_REG_CHUNK + 1) * EBB_DISK_REG_CHUNK;
        if (n > chunk_end - rel)
            n = chunk_end - rel; /* a fixed request stays inside one registered buffer */
        buf_index = (int)(rel / EBB_DISK_REG_CHUNK);
    }
    struct io_uring_sqe *sqe = get_sqe(u);
    if (!sqe) {
        ebb_disk_fail_io(pool, r->op, r->block, EBUSY, "no io_uring submission entry free");
        ur_block_done(u, r);
        return;
    }
    int fd = u->fixed_files ? r->file : d->files.fds[r->file];
    uint64_t off = r->offset + r->p.done;
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
    if (u->fixed_files)
        sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, r);
    atomic_fetch_add(buf_index >= 0 ? &d->probe.fixed_reqs : &d->probe.plain_reqs, 1);
    r->sub_len = n;
    r->seq = ebb_disk_next_seq(pool, r->op->write);
    atomic_fetch_add(&pool->st_requests, 1);
}

static void on_cqe(ebb_uring *u, ur_req *r, int res0)
{
    long res = ebb_disk_fault(u->pool, r->seq, res0, r->sub_len);
    uint32_t pause_us;
    switch (ebb_disk_progress_step(u->pool, r->op, r->block, &r->p, res, r->sub_len, &pause_us)) {
    case EBB_DISK_BLOCK_AGAIN:
        if (!pause_us) {
            issue(u, r);
            return;
        }
        /* Busy: send it again after a pause; the other requests go on. */
        r->due_ns = ebb_disk_now_ns() + (uint64_t)pause_us * 1000u;
        r->next_free = u->parked;
        u->parked = r;
        return;
    case EBB_DISK_BLOCK_DONE:
        if (r->op->follow.gpu_op) /* on to the gpu at once */
            ebb_disk_follow_block(u->pool, r->op, r->block);
        ur_block_done(u, r);
        return;
    default:
        ur_block_done(u, r);
        return;
    }
}

/* Sends the parked requests whose pause is over; returns the nanoseconds
 * until the next one is due (0: none parked). */
uint64_t ur_unpark(ebb_uring *u)
{
    uint64_t t = ebb_disk_now_ns(), next = 0;
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
            ur_block_done(u, r);
        else
            issue(u, r);
    }
    return next;
}

int32_t ur_next_op(ebb_uring *u)
{
    ebb_disk *d = u->pool->disk;
    pthread_mutex_lock(&d->core.lock);
    int32_t i = -1;
    if (u->qcount) {
        i = u->queue[u->qhead];
        u->qhead = (u->qhead + 1) % (uint32_t)d->layout.slots;
        u->qcount--;
    }
    pthread_mutex_unlock(&d->core.lock);
    return i;
}

/* Block `b` of `op` lies in a file of this ring's group. */
static int own_block(ebb_uring *u, const ebb_op *op, uint32_t b, ebb_disk_loc *loc)
{
    ebb_disk *d = u->pool->disk;
    ebb_disk_locate_bytes(&d->layout, op->slot, b, op->bytes, loc);
    return d->files.file_group[loc->file] == u->group;
}

void ur_skip_rest(ebb_uring *u, ebb_op *op)
{
    uint32_t skip = 0;
    ebb_disk_loc loc;
    for (uint32_t b = u->next_block; b < op->blocks; b++)
        skip += (uint32_t)own_block(u, op, b, &loc);
    u->next_block = op->blocks;
    if (skip && atomic_fetch_sub(&op->remaining, skip) == skip)
        ebb_disk_blocks_done(u->pool, op);
}

/* The bandwidth limit is the pool's: rings share it under d->core.lock. */
static uint64_t pace(ebb_uring *u, const ebb_op *op, uint32_t b)
{
    ebb_disk *d = u->pool->disk;
    if (d->pace.rate == 0)
        return 0;
    if (ur_engine(u->pool)->nrings == 1)
        return ebb_disk_pace(u->pool, op, b);
    pthread_mutex_lock(&d->core.lock);
    uint64_t w = ebb_disk_pace(u->pool, op, b);
    pthread_mutex_unlock(&d->core.lock);
    return w;
}

/* Fills free requests from the operations queued; returns the nanoseconds
 * until the bandwidth limit lets the next block go, or until a gated block
 * is asked for again (0: not held back, or woken when it is ready). */
uint64_t ur_fill(ebb_uring *u)
{
    struct ebb_pool *pool = u->pool;
    ebb_disk *d = pool->disk;
    uint64_t wait = 0;
    while (u->free_reqs) {
        if (u->cur < 0) {
            u->cur = ur_next_op(u);
            if (u->cur < 0)
                break;
            u->next_block = 0;
        }
        ebb_op *op = &pool->ops[u->cur];
        if (atomic_load(&op->failed)) {
            ur_skip_rest(u, op);
            u->cur = -1;
            continue;
        }
        ebb_disk_loc loc;
        while (u->next_block < op->blocks && !own_block(u, op, u->next_block, &loc))
            u->next_block++;
        if (u->next_block == op->blocks) { /* nothing more of it here */
            u->cur = -1;
            continue;
        }
        /* A chained write's block goes once it crossed from the gpu: with
         * nothing else in flight the ring sleeps in its event, otherwise it
         * asks again shortly (or the checksum thread wakes it). */
        int hashed = d->hashq.started; /* the checksum thread wakes the ring */
        int gate = ebb_disk_gate(pool, op, u->next_block, u->inflight == 0 && !hashed);
        if (gate < 0)
            continue; /* failed: skipped above */
        if (gate == 0) {
            wait = hashed ? 0 : EBB_DISK_GATE_POLL_NS;
            break;
        }
        if ((wait = pace(u, op, u->next_block)) != 0)
            break;
        uint32_t b = u->next_block++;
        ur_req *r = u->free_reqs;
        u->free_reqs = r->next_free;
        r->op = op;
        r->block = b;
        r->file = loc.file;
        r->offset = loc.offset;
        r->buf = op->buf + loc.buf_offset;
        r->p = (ebb_disk_progress){0, loc.io_len, 0, 0};
        u->inflight++;
        ebb_disk_inflight(pool, 1);
        issue(u, r);
    }
    return wait;
}

void ur_reap(ebb_uring *u, int draining)
{
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
                ur_arm_eventfd(u);
                atomic_store(&u->ring_needed, 1);
            }
            continue;
        }
        if (!draining) {
            on_cqe(u, q, cqe->res);
            continue;
        }
        long res = ebb_disk_fault(u->pool, q->seq, cqe->res, q->sub_len);
        if (res < 0 || q->p.done + (size_t)res < q->p.len)
            ebb_op_fail(q->op, EBB_ERR_IO, "%s", u->stop_msg);
        ur_block_done(u, q);
    }
    io_uring_cq_advance(&u->ring, seen);
}

