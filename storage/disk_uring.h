/* The io_uring engine's private layout, shared by its files, top to bottom:
 * disk_uring_engine.c (its table: start, enqueue, kick, stop, info),
 * disk_uring.c (the ring thread's loop), disk_uring_stop.c (the ring
 * stopping after an io_uring_enter failure), disk_uring_req.c (requests and
 * completions) and disk_uring_setup.c (the ring, registration). One ring
 * and thread per device group (ebb_disk_files.ngroups): each takes every
 * queued operation and issues the blocks that lie in files of its group;
 * the ring that finishes an operation's last block completes it. */
#ifndef EBB_STORAGE_DISK_URING_H
#define EBB_STORAGE_DISK_URING_H

#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>

#include "storage/disk.h"

#define EBB_URING_ENTER_RETRIES 20
/* A stopping engine waits this long for the requests the kernel took. */
#define EBB_URING_DRAIN_MS 2000

typedef struct ur_req {
    ebb_op *op;       /* NULL: the eventfd read */
    uint32_t block;
    int file;
    uint64_t offset;  /* file offset of the block */
    unsigned char *buf;
    ebb_disk_progress p; /* bytes done of the block, retries */
    size_t sub_len;   /* bytes asked for by the request in flight */
    uint64_t seq;
    uint64_t due_ns;  /* parked: when to send it again */
    struct ur_req *next_free; /* free list, or the parked list */
} ur_req;

typedef struct ebb_uring {
    struct ebb_pool *pool;
    int group;             /* the device group it serves */
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
    uint32_t next_block;   /* cur's next block to look at */
    /* operations handed to this ring (under the core lock), one per slot at most */
    int32_t *queue;
    uint32_t qhead, qcount;
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
    /* what this ring registered */
    int fixed_files;
    unsigned char *reg_base; /* registered region (staging pool memory) */
    uint64_t reg_bytes;
    int32_t reg_slots;
} ebb_uring;

/* The engine's state (ebb_disk_engine.state): made by its start, freed by
 * its stop. */
typedef struct ebb_uring_engine {
    ebb_uring *rings;      /* one per device group */
    int nrings;            /* rings started */
    /* what the rings registered */
    int fixed_buffers;
    int fixed_files;
    int32_t fixed_slots;   /* staging slots [0, fixed_slots) lie in registered memory */
    uint64_t registered_bytes;
} ebb_uring_engine;

static inline ebb_uring_engine *ur_engine(const struct ebb_pool *pool)
{
    return pool->disk->engine.state;
}

/* disk_uring.c: the ring thread. */
void *ur_main(void *arg);

/* disk_uring_req.c. arm_eventfd: the eventfd read kept in the ring, so new
 * work wakes the thread. fill: takes operations queued and issues their
 * blocks into free requests; returns the nanoseconds until the bandwidth
 * limit lets the next block go, or until a gated block is asked for again
 * (0: not held back). unpark: sends the parked requests whose pause is over;
 * returns the nanoseconds until the next one is due (0: none parked). */
void ur_arm_eventfd(ebb_uring *u);
uint64_t ur_fill(ebb_uring *u);
uint64_t ur_unpark(ebb_uring *u);
void ur_block_done(ebb_uring *u, ur_req *r);
int32_t ur_next_op(ebb_uring *u);
/* The blocks of `op` this ring has not issued will never be: they count as done. */
void ur_skip_rest(ebb_uring *u, ebb_op *op);
/* Handles every completion ready. draining: the engine is stopping, so
 * nothing is sent again: a request that is not complete fails. */
void ur_reap(ebb_uring *u, int draining);

/* disk_uring_stop.c: io_uring_enter failed for good: fail everything, close
 * the ring; then fail every operation handed over, until destroy. */
void ur_stop_engine(ebb_uring *u, int err, int attempts);
void ur_stopped_loop(ebb_uring *u);

/* disk_uring_setup.c: the ring, the eventfd, fixed files and buffers. */
int ur_setup(ebb_uring *u, char *why, size_t why_len);

#endif
