/* The disk engines behind one table (disk_engine.c): io_uring
 * (disk_uring_engine.c) and worker threads (disk_threads.c). The
 * operations above call an engine only through its table; the engines call
 * down into the core (disk_core.h), never back up. */
#ifndef EBB_STORAGE_DISK_ENGINE_H
#define EBB_STORAGE_DISK_ENGINE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ebb/storage.h"

/* Largest single read/write the kernel performs (Linux: 2 GiB - 4 KiB). */
#define EBB_DISK_MAX_IO ((size_t)0x7ffff000)
/* io_uring fixed buffers are registered in pieces of at most 1 GiB. */
#define EBB_DISK_REG_CHUNK ((size_t)1 << 30)

struct ebb_pool;
struct ebb_uring;
struct ebb_thr_group;

/* start: 0 or -errno (message in why; it cleans up after itself). enqueue:
 * hands an operation to the engine's queues (core lock held); kick then
 * wakes the engine. stop: drains and joins the engine's threads. */
typedef struct ebb_disk_engine_ops {
    ebb_disk_backend backend;
    const char *name;        /* ebb_pool_info.backend */
    int (*start)(struct ebb_pool *pool, char *why, size_t why_len);
    void (*enqueue)(struct ebb_pool *pool, int32_t slot);
    void (*kick)(struct ebb_pool *pool);
    void (*stop)(struct ebb_pool *pool);
} ebb_disk_engine_ops;

extern const ebb_disk_engine_ops ebb_disk_uring_ops;
extern const ebb_disk_engine_ops ebb_disk_threads_ops;

/* The engine's state. */
typedef struct ebb_disk_engine {
    const ebb_disk_engine_ops *ops; /* the running engine; NULL until one started */
    int depth;               /* requests in flight per ring */
    int nthreads;            /* threads engine: workers per device group */
    uint32_t qcap;           /* each queue's capacity (one entry per slot) */
    /* io_uring: what the rings registered */
    int fixed_buffers;
    int fixed_files;
    int32_t fixed_slots;     /* staging slots [0, fixed_slots) lie in registered memory */
    uint64_t registered_bytes;
    struct ebb_uring *rings; /* io_uring: one ring per device group, NULL otherwise */
    int nrings;              /* rings started */
    pthread_t *threads;      /* threads engine: nthreads per device group */
    int threads_started;
    struct ebb_thr_group *tgroups; /* threads engine: one queue per device group */
} ebb_disk_engine;

/* Starts the engine ebb_pool_options.backend asks for: io_uring, falling
 * back to threads (with a warning) when AUTO. */
ebb_status ebb_disk_engine_start(struct ebb_pool *pool, const ebb_pool_options *o);
/* Stops the running engine, if any. */
void ebb_disk_engine_stop(struct ebb_pool *pool);
/* Appends an operation to the engine's queue and wakes the engine; hashed:
 * it comes from the checksum thread (one write fewer in hashq.writes). */
void ebb_disk_enqueue(struct ebb_pool *pool, int32_t slot, int hashed);
/* Wakes the engine (the checksum thread let a gated block go). */
void ebb_disk_kick(struct ebb_pool *pool);

#endif
