/* The disk tier's completion and retry core (disk_core.c), below both
 * engines: a request's progress and retries, fault injection, an
 * operation's completion, the engines' shared stop, and the queue of the
 * checksum thread (which the core fills with reads to verify). It calls
 * only down: the layout, the checksums, the chained copies, the pacer and
 * the host tier's slot state. */
#ifndef EBB_STORAGE_DISK_CORE_H
#define EBB_STORAGE_DISK_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A request that completes with -EAGAIN or -EINTR is sent again at most this
 * many times (EAGAIN after a pause that doubles from EBB_DISK_RETRY_US up to
 * EBB_DISK_RETRY_MAX_US), then its operation fails. */
#define EBB_DISK_RETRIES 10
#define EBB_DISK_RETRY_US 100
#define EBB_DISK_RETRY_MAX_US 50000

struct ebb_pool;
struct ebb_op;

/* Completion signalling, shared by the operations and both engines. */
typedef struct ebb_disk_core {
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    pthread_cond_t work_cv;  /* threads engine, or a stopped io_uring engine: work or stop */
    int stop;                /* the engine is stopping (under lock) */
    int sync_init;           /* the mutexes and condition variables exist */
    _Atomic unsigned char *valid; /* per slot: holds a completed write */
    _Atomic uint64_t io_seq; /* requests issued (fault injection numbering) */
    _Atomic uint64_t io_read_seq; /* reads issued (numbering with fault.io_reads_only) */
} ebb_disk_core;

/* The codec stage's queue: the checksum thread's (io_uring engine with
 * checksums), or the codec threads' (compression on, either engine; they
 * hash too where the checksum thread would). Writes to compress and hash
 * before they are queued for the engine (from disk.c), reads to verify and
 * decompress after their I/O (from the core). disk_hash.c runs the threads
 * that empty it. One entry per slot at most, so it never overflows. */
typedef struct ebb_disk_hashq {
    int started;             /* the stage's threads take jobs */
    pthread_t *threads;      /* nthreads of them */
    int nthreads;
    void *args;              /* disk_hash.c's per-thread arguments */
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int32_t *queue;          /* operation indices */
    uint32_t head, count;
    int stop;
    uint32_t writes;         /* writes handed to it, not yet queued for the engine
                                (under the core lock): the engine stops only
                                once there are none */
} ebb_disk_hashq;

/* What the engine did (ebb_disk_debug_get), and the hold (ebb_disk_debug_hold):
 * the test hooks. */
typedef struct ebb_disk_probe {
    _Atomic uint32_t inflight_now, inflight_max;
    _Atomic uint64_t fixed_reqs, plain_reqs, enter_calls;
    _Atomic int hold;
    pthread_cond_t hold_cv;
} ebb_disk_probe;

/* The core's mutexes and condition variables (and the hold's and the
 * checksum queue's): init cannot fail; fini destroys what init made. */
void ebb_disk_core_init(struct ebb_pool *pool);
void ebb_disk_core_fini(struct ebb_pool *pool);

/* One block's progress through its requests, for both engines: a request
 * may complete short (the rest is sent again), or with -EAGAIN / -EINTR
 * (sent again, EAGAIN after a pause, at most EBB_DISK_RETRIES in a row). */
typedef struct ebb_disk_progress {
    size_t done;        /* bytes of the block transferred */
    size_t len;         /* bytes of the block (its I/O length) */
    int attempts;       /* EAGAIN/EINTR completions in a row */
    uint64_t first_ns;  /* CLOCK_MONOTONIC of the first of them */
} ebb_disk_progress;
enum { EBB_DISK_BLOCK_DONE, EBB_DISK_BLOCK_AGAIN, EBB_DISK_BLOCK_FAILED };
/* A request of `asked` bytes for `block` of `op` completed with `res` (a
 * byte count or -errno, fault injection applied). Returns BLOCK_DONE (all of
 * it transferred), BLOCK_FAILED (the operation failed, now or earlier: the
 * block is over) or BLOCK_AGAIN: send the rest (p->done on) after *pause_us
 * microseconds (0: at once). Fails the operation and counts retries. */
int ebb_disk_progress_step(struct ebb_pool *pool, struct ebb_op *op, uint32_t block,
                           ebb_disk_progress *p, long res, size_t asked, uint32_t *pause_us);

/* Fails `op` with the errno of a request. */
void ebb_disk_fail_io(struct ebb_pool *pool, struct ebb_op *op, uint32_t block, int err,
                      const char *what);
/* Microseconds to wait before retry number `attempt` (1-based) of EAGAIN. */
uint32_t ebb_disk_retry_pause_us(int attempt);
uint64_t ebb_disk_now_ns(void);

/* Fault injection: the result a request with sequence `seq` reports instead of
 * `res` (a byte count or -errno). */
long ebb_disk_fault(struct ebb_pool *pool, uint64_t seq, long res, size_t len);
/* The number of the request being issued, as ebb_disk_fault counts them
 * (with fault.io_reads_only, reads alone are numbered; a write gets 0). */
uint64_t ebb_disk_next_seq(struct ebb_pool *pool, int write);

/* Records that `n` more (or, negative, fewer) requests are in flight. */
void ebb_disk_inflight(struct ebb_pool *pool, int n);

/* All blocks of op are done: a read the stage verifies (checksums on the
 * checksum thread) or decompresses (a packed read) goes to the stage's
 * queue, which completes it; anything else is completed here. complete:
 * publish the result (a write's compressed buffer comes free, its slot's
 * statistics are counted) and wake waiters. */
void ebb_disk_blocks_done(struct ebb_pool *pool, struct ebb_op *op);
void ebb_disk_complete(struct ebb_pool *pool, struct ebb_op *op);

/* Both engines' stop: no more pacing or holding, and every thread waiting
 * for work, its turn or a held completion woken to finish and leave. */
void ebb_disk_signal_stop(struct ebb_pool *pool);

/* The checksum thread's queue. push: hands it an operation. pop: the next
 * slot, waiting for one; -1 once it is stopped and empty. */
void ebb_disk_hash_push(struct ebb_pool *pool, struct ebb_op *op);
int32_t ebb_disk_hash_pop(struct ebb_pool *pool);

#endif
