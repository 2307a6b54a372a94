/* Disk tier internals shared by disk.c (operations), disk_create.c (files,
 * layout, space), disk_hash.c (checksum thread) and the two engines. */
#ifndef EBB_STORAGE_DISK_H
#define EBB_STORAGE_DISK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "storage/pool_internal.h"

/* Largest single read/write the kernel performs (Linux: 2 GiB - 4 KiB). */
#define EBB_DISK_MAX_IO ((size_t)0x7ffff000)
/* io_uring fixed buffers are registered in pieces of at most 1 GiB. */
#define EBB_DISK_REG_CHUNK ((size_t)1 << 30)
/* A request that completes with -EAGAIN or -EINTR is sent again at most this
 * many times (EAGAIN after a pause that doubles from EBB_DISK_RETRY_US up to
 * EBB_DISK_RETRY_MAX_US), then its operation fails. */
#define EBB_DISK_RETRIES 10
#define EBB_DISK_RETRY_US 100
#define EBB_DISK_RETRY_MAX_US 50000

struct ebb_uring;
struct ebb_thr_group;

typedef struct ebb_disk {
    int nfiles;
    int *fds;
    char **names;           /* for messages: "<dir>/<unnamed O_TMPFILE>" or the unlinked name */
    int *file_direct;       /* per file: O_DIRECT on */
    uint64_t *file_bytes;   /* per file: preallocated size */
    int direct;             /* all files O_DIRECT */
    size_t align;           /* offsets and lengths are multiples of this */
    size_t block;           /* bytes per request */
    uint32_t bps;           /* blocks per slot */
    size_t dstride;         /* bytes a slot occupies on disk (its size rounded up to align) */
    int32_t slots;
    int checksum;
    uint64_t *sums;         /* slots * bps block checksums */
    _Atomic unsigned char *valid; /* per slot: holds a completed write */

    int backend;            /* EBB_DISK_BACKEND_URING or _THREADS once running */
    int depth;
    int nthreads;
    int node;               /* NUMA node near the first drive, -1 unknown */
    /* Files grouped by device (st_dev): the io_uring engine runs one ring
     * (and thread) per group, placed near that device's NUMA node. */
    int ngroups;
    int *file_group;        /* per file: its group, 0 .. ngroups - 1 */
    int *group_node;        /* per group: NUMA node of its device, -1 unknown */

    struct ebb_pool *staging; /* retained (ebb_pool_retain) until the disk pool goes */
    int fixed_buffers;
    int fixed_files;
    int32_t fixed_slots;    /* staging slots [0, fixed_slots) lie in registered memory */
    uint64_t registered_bytes;

    /* completion signalling; each engine keeps its own queues (per ring, per
     * group), qcap operations long */
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    pthread_cond_t work_cv; /* threads engine, or a stopped io_uring engine: work or stop */
    uint32_t qcap;
    int stop;

    /* checksum thread (io_uring engine with checksums): hashes writes before
     * they are queued for the engine, verifies reads after their I/O */
    pthread_t hasher;
    int hasher_started;
    pthread_mutex_t hlock;
    pthread_cond_t hcv;
    int32_t *hqueue;        /* operation indices, one per slot at most */
    uint32_t hhead, hcount;
    int hstop;
    uint32_t hash_writes;   /* writes handed to the hasher, not yet queued (under lock) */

    _Atomic uint64_t io_seq; /* requests issued (fault injection numbering) */

    /* bandwidth limit (disk_pace.c): no new block request before pace_next_ns */
    double pace_rate;        /* bytes per second; 0: no limit */
    double pace_ns_per_byte;
    uint64_t pace_next_ns;   /* CLOCK_MONOTONIC; the ring thread's, or under lock */
    int pace_held;           /* the request at hand was held back (for paced_waits) */
    _Atomic int pace_off;    /* destroy: what is left goes at once */
    _Atomic uint64_t paced_waits; /* requests the limit held back */
    pthread_cond_t pace_cv;  /* threads engine: workers wait for their time */
    int pace_clock;          /* pace_cv's clock: CLOCK_MONOTONIC (or CLOCK_REALTIME) */

    /* what the engine did (ebb_disk_debug_get) */
    _Atomic uint32_t inflight_now, inflight_max;
    _Atomic uint64_t fixed_reqs, plain_reqs, enter_calls;
    _Atomic int hold;       /* ebb_disk_debug_hold */
    pthread_cond_t hold_cv;
    int sync_init;          /* the mutexes and condition variables exist */

    pthread_t *threads;      /* threads engine: nthreads per device group */
    int threads_started;
    struct ebb_thr_group *tgroups; /* threads engine: ngroups queues, NULL otherwise */
    struct ebb_uring *rings; /* io_uring engine: ngroups rings, NULL otherwise */
    int nrings;              /* rings started */
} ebb_disk;

/* Where block `block` of `slot` lives and how long it is. */
typedef struct ebb_disk_loc {
    int file;
    uint64_t offset;
    size_t data_len;   /* bytes of the state in this block */
    size_t io_len;     /* data_len rounded up to the alignment */
    size_t buf_offset; /* offset of the block within the slot */
} ebb_disk_loc;

/* The layout over n files (one per directory). Slots are taken n at a time
 * (a round); in a full round, block k of slot s goes to file (s + k) mod n,
 * so consecutive blocks of a slot land on different drives, and each file
 * receives one block of each index k: exactly one slot's bytes (dstride),
 * laid out by k. In the last round, of m < n slots, its blocks (slot by
 * slot, block by block) are dealt round-robin over the files and packed.
 * Nothing is padded beyond the alignment: the pool takes slots * dstride
 * bytes; a file holds full rounds * dstride plus at most
 * ceil(m * blocks per slot / n) blocks, never more than with whole blocks
 * dealt round-robin. One file is the same with n = 1. */
void ebb_disk_locate(const ebb_disk *d, size_t slot_size, int32_t slot, uint32_t block,
                     ebb_disk_loc *loc);
/* The bytes file `file` holds in that layout. */
uint64_t ebb_disk_file_bytes(const ebb_disk *d, int file);

/* Appends an operation to the engine's queue and wakes the engine; hashed:
 * it comes from the checksum thread (one write fewer in hash_writes). */
void ebb_disk_enqueue(struct ebb_pool *pool, int32_t slot, int hashed);

/* Checksums: of every block of a write (into d->sums), and verification of
 * every block of a read (fails the op on a mismatch). */
void ebb_disk_hash_write(struct ebb_pool *pool, ebb_op *op);
void ebb_disk_verify_read(struct ebb_pool *pool, ebb_op *op);
/* One block each (the thread engine hashes block by block). */
void ebb_disk_before_write(struct ebb_pool *pool, ebb_op *op, uint32_t block);
int ebb_disk_after_read(struct ebb_pool *pool, ebb_op *op, uint32_t block);

/* The checksum thread. start: 0 or an errno. push: hands it an operation
 * (a write to hash, then queue; a read to verify, then complete). stop:
 * finishes what it was given, then joins it. */
int ebb_hasher_start(struct ebb_pool *pool);
void ebb_hasher_push(struct ebb_pool *pool, ebb_op *op);
void ebb_hasher_stop(struct ebb_pool *pool);

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
int ebb_disk_progress_step(struct ebb_pool *pool, ebb_op *op, uint32_t block,
                           ebb_disk_progress *p, long res, size_t asked, uint32_t *pause_us);

/* Fails `op` with the errno of a request. */
void ebb_disk_fail_io(struct ebb_pool *pool, ebb_op *op, uint32_t block, int err,
                      const char *what);
/* Microseconds to wait before retry number `attempt` (1-based) of EAGAIN. */
uint32_t ebb_disk_retry_pause_us(int attempt);
uint64_t ebb_disk_now_ns(void);

/* Fault injection: the result a request with sequence `seq` reports instead of
 * `res` (a byte count or -errno). */
long ebb_disk_fault(struct ebb_pool *pool, uint64_t seq, long res, size_t len);

/* Records that `n` more (or, negative, fewer) requests are in flight. */
void ebb_disk_inflight(ebb_disk *d, int n);

/* All blocks of op are done: verify (reads with checksums, on the checksum
 * thread when there is one), then publish the result and wake waiters. */
void ebb_disk_blocks_done(struct ebb_pool *pool, ebb_op *op);
void ebb_disk_complete(struct ebb_pool *pool, ebb_op *op);

/* Bandwidth limit (disk_pace.c), per pool, reads and writes together. A
 * request may be sent when the clock has reached pace_next_ns; sending
 * `bytes` moves it on by bytes / rate from there, or from 1 ms ago when the
 * engine came later than that (lateness up to 1 ms is made up for, idle time
 * earns nothing). So over any interval of T seconds at most rate x T + one
 * request + 1 ms x rate bytes are sent. init: with the other
 * synchronisation objects (it creates pace_cv), cannot fail. */
#define EBB_DISK_PACE_SLACK_NS UINT64_C(1000000)
void ebb_disk_pace_init(ebb_disk *d, double rate);
/* Before block `block` of `op` is sent (by the ring thread, or by a worker
 * holding d->lock): 0, and the request is counted, or the nanoseconds to
 * wait before asking again. */
uint64_t ebb_disk_pace(struct ebb_pool *pool, const ebb_op *op, uint32_t block);
/* Threads engine, d->lock held: waits up to `ns` (less if lifted). */
void ebb_disk_pace_sleep(ebb_disk *d, uint64_t ns);
/* The pool is being destroyed (d->lock held): no more pacing, sleepers wake. */
void ebb_disk_pace_lift(ebb_disk *d);

/* Writes chained behind a gpu -> host copy (disk_chain.c, op.h).
 * prepare: the per-block events of disk slot `slot` on `device` (made at the
 * slot's first chain, again for another device); free: all of them, at
 * destroy. gate: before block `block` of `op` goes to disk: 1 it may, 0 not
 * yet (only when not `wait`; `wait` blocks, sleeping, until it may), -1 the
 * operation failed (a failed copy fails it here, naming the block); 1 for
 * any operation that is not gated. gate_hash: the checksum thread's part
 * (waits for each block, hashes it, lets the ring have it). */
ebb_status ebb_disk_gate_prepare(struct ebb_pool *pool, int32_t slot, int device, void ***events);
void ebb_disk_gate_free(struct ebb_pool *pool);
int ebb_disk_gate(struct ebb_pool *pool, ebb_op *op, uint32_t block, int wait);
void ebb_disk_gate_hash(struct ebb_pool *pool, ebb_op *op);
/* Reads followed by a host -> gpu copy (op.h ebb_follow): follow_block
 * queues the copy of a block just read (engine threads, on success);
 * follow_end, from ebb_disk_complete, records the host slot's and the gpu
 * operation's events after them and releases the gpu operation. */
void ebb_disk_follow_block(struct ebb_pool *pool, ebb_op *op, uint32_t block);
void ebb_disk_follow_end(struct ebb_pool *pool, ebb_op *op);
/* How long the ring waits before asking a gated block's event again while
 * other requests are in flight (with none, it sleeps in the event). */
#define EBB_DISK_GATE_POLL_NS UINT64_C(100000)

/* Both engines' stop: no more pacing or holding, and every thread waiting
 * for work, its turn or a held completion woken to finish and leave. */
void ebb_disk_signal_stop(ebb_disk *d);

/* Engines. start: 0 or -errno (message in why). uring_enqueue: hands an
 * operation to every ring (d->lock held); kick then wakes them. */
int ebb_uring_start(struct ebb_pool *pool, char *why, size_t why_len);
void ebb_uring_enqueue(struct ebb_pool *pool, int32_t slot);
void ebb_uring_kick(struct ebb_pool *pool);
void ebb_uring_stop(struct ebb_pool *pool);
int ebb_threads_start(struct ebb_pool *pool, char *why, size_t why_len);
/* threads_enqueue: hands an operation to the queue of every device group
 * that holds some of its blocks (d->lock held); kick then wakes them. */
void ebb_threads_enqueue(struct ebb_pool *pool, int32_t slot);
void ebb_threads_kick(struct ebb_pool *pool);
void ebb_threads_stop(struct ebb_pool *pool);


#endif
