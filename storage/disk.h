/* Disk tier internals shared by disk.c and its two engines. */
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

struct ebb_uring;

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
    size_t dstride;         /* single file: bytes between slots */
    int checksum;
    uint64_t *sums;         /* slots * bps block checksums */
    _Atomic unsigned char *valid; /* per slot: holds a completed write */

    int backend;            /* EBB_DISK_BACKEND_URING or _THREADS once running */
    int depth;
    int nthreads;
    int node;               /* NUMA node near the first drive, -1 unknown */

    struct ebb_pool *staging;
    int fixed_buffers;
    int fixed_files;

    /* caller -> engine queue of operation indices, and completion signalling */
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    pthread_cond_t work_cv; /* threads engine: work arrived or stop */
    int32_t *queue;
    uint32_t qhead, qcount, qcap;
    int stop;

    _Atomic uint64_t io_seq; /* requests issued (fault injection numbering) */

    pthread_t *threads;
    int threads_started;
    struct ebb_uring *uring;
} ebb_disk;

/* Where block `block` of `slot` lives and how long it is. */
typedef struct ebb_disk_loc {
    int file;
    uint64_t offset;
    size_t data_len;   /* bytes of the state in this block */
    size_t io_len;     /* data_len rounded up to the alignment */
    size_t buf_offset; /* offset of the block within the slot */
} ebb_disk_loc;

void ebb_disk_locate(const ebb_disk *d, size_t slot_size, int32_t slot, uint32_t block,
                     ebb_disk_loc *loc);

/* Pops the next queued operation index, or -1 (caller holds d->lock). */
int32_t ebb_disk_queue_front(ebb_disk *d);
void ebb_disk_queue_pop(ebb_disk *d);

/* Block hooks for the engines: before a write is issued (checksum), after a
 * read completed (verification). Return 0, or fail the op and return -1. */
void ebb_disk_before_write(struct ebb_pool *pool, ebb_op *op, uint32_t block);
int ebb_disk_after_read(struct ebb_pool *pool, ebb_op *op, uint32_t block);

/* Fails `op` with the errno of a request. */
void ebb_disk_fail_io(struct ebb_pool *pool, ebb_op *op, uint32_t block, int err,
                      const char *what);

/* Fault injection: the result a request with sequence `seq` reports instead of
 * `res` (a byte count or -errno). */
long ebb_disk_fault(struct ebb_pool *pool, uint64_t seq, long res, size_t len);

/* All blocks of op are done: publish the result and wake waiters. */
void ebb_disk_complete(struct ebb_pool *pool, ebb_op *op);

/* Engines. start: 0 or -errno (message in why). */
int ebb_uring_start(struct ebb_pool *pool, char *why, size_t why_len);
void ebb_uring_kick(struct ebb_pool *pool);
void ebb_uring_stop(struct ebb_pool *pool);
int ebb_threads_start(struct ebb_pool *pool, char *why, size_t why_len);
void ebb_threads_kick(struct ebb_pool *pool);
void ebb_threads_stop(struct ebb_pool *pool);

#endif
