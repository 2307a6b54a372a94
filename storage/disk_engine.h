/* The disk engines behind one table (disk_engine.c): io_uring
 * (disk_uring_engine.c) and worker threads (disk_threads.c). The
 * operations above call an engine only through its table; the engines call
 * down into the core (disk_core.h), never back up. */
#ifndef EBB_STORAGE_DISK_ENGINE_H
#define EBB_STORAGE_DISK_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/storage.h"

/* Largest single read/write the kernel performs (Linux: 2 GiB - 4 KiB). */
#define EBB_DISK_MAX_IO ((size_t)0x7ffff000)
/* io_uring fixed buffers are registered in pieces of at most 1 GiB. */
#define EBB_DISK_REG_CHUNK ((size_t)1 << 30)

struct ebb_pool;

/* What a running engine reports (ebb_pool_info, ebb_disk_debug), and the
 * staging slots it reads and writes in registered memory. */
typedef struct ebb_disk_engine_info {
    int registered_buffers;
    int registered_files;
    uint64_t registered_bytes;
    int32_t registered_slots; /* staging slots [0, registered_slots) */
    int threads;              /* its I/O threads */
    int rings;                /* io_uring rings (0: none) */
} ebb_disk_engine_info;

/* start: makes the engine's state (ebb_disk_engine.state) and threads from
 * the options; 0 or -errno (message in why; it cleans up after itself).
 * enqueue: hands an operation to the engine's queues (core lock held); kick
 * then wakes the engine. stop: drains and joins the engine's threads;
 * release then frees its state, once no codec thread can still kick it. */
typedef struct ebb_disk_engine_ops {
    ebb_disk_backend backend;
    const char *name;        /* ebb_pool_info.backend */
    int (*start)(struct ebb_pool *pool, const ebb_pool_options *o, char *why, size_t why_len);
    void (*enqueue)(struct ebb_pool *pool, int32_t slot);
    void (*kick)(struct ebb_pool *pool);
    void (*stop)(struct ebb_pool *pool);
    void (*release)(struct ebb_pool *pool);
    void (*info)(const struct ebb_pool *pool, ebb_disk_engine_info *info);
} ebb_disk_engine_ops;

extern const ebb_disk_engine_ops ebb_disk_uring_ops;
extern const ebb_disk_engine_ops ebb_disk_threads_ops;

/* The running engine: its table and its state, which only its own files
 * know (io_uring: disk_uring.h; threads: disk_threads.c). */
typedef struct ebb_disk_engine {
    const ebb_disk_engine_ops *ops; /* the running engine; NULL until one started */
    void *state;             /* the running engine's; NULL when none */
    int depth;               /* ebb_pool_options.queue_depth: requests in flight per ring */
} ebb_disk_engine;

/* Starts the engine ebb_pool_options.backend asks for: io_uring, falling
 * back to threads (with a warning) when AUTO. */
ebb_status ebb_disk_engine_start(struct ebb_pool *pool, const ebb_pool_options *o);
/* Stops the running engine, if any: drained, its threads joined. */
void ebb_disk_engine_stop(struct ebb_pool *pool);
/* Frees the stopped engine's state; after the codec stage stopped, whose
 * threads may kick the engine until they are joined. */
void ebb_disk_engine_release(struct ebb_pool *pool);
/* Appends an operation to the engine's queue and wakes the engine; hashed:
 * it comes from the checksum thread (one write fewer in hashq.writes). */
void ebb_disk_enqueue(struct ebb_pool *pool, int32_t slot, int hashed);
/* Wakes the engine (the checksum thread let a gated block go). */
void ebb_disk_kick(struct ebb_pool *pool);

#endif
