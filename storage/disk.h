/* A disk pool, made of the parts each file owns, and the disk tier's
 * operations. Layers, top to bottom (storage_internal.h has the whole list):
 *   disk.c, disk_create.c  the operations and creation (pool.c calls them)
 *   disk_hash.c            the codec stage (checksum thread, codec threads)
 *   disk_engine.c          the running engine, behind its table
 *   disk_uring*.c, disk_threads.c  the engines
 *   disk_core.c            completion and retries
 *   disk_chain.c, disk_pace.c, disk_sum.c, disk_codec.c, disk_layout.c */
#ifndef EBB_STORAGE_DISK_H
#define EBB_STORAGE_DISK_H

#include "storage/disk_chain.h"
#include "storage/disk_codec.h"
#include "storage/disk_core.h"
#include "storage/disk_engine.h"
#include "storage/disk_layout.h"
#include "storage/disk_pace.h"
#include "storage/disk_sum.h"
#include "storage/storage_internal.h"

typedef struct ebb_disk {
    ebb_disk_layout layout;  /* disk_layout.h: where a slot's blocks live */
    ebb_disk_files files;    /* disk_layout.h: the files (disk_create.c opens them) */
    ebb_disk_core core;      /* disk_core.h: completion, the lock, valid slots */
    ebb_disk_engine engine;  /* disk_engine.h: the running engine's state */
    ebb_disk_hashq hashq;    /* disk_core.h: the checksum thread (disk_hash.c) */
    ebb_disk_sums sums;      /* disk_sum.h: block checksums */
    ebb_disk_codec codec;    /* disk_codec.h: compression */
    ebb_disk_pacer pace;     /* disk_pace.h: the bandwidth limit */
    ebb_disk_probe probe;    /* disk_core.h: what the engine did, the hold (tests) */
    struct ebb_pool *staging; /* retained (ebb_pool_retain) until the disk pool goes */
    int32_t gate_high;       /* one past the highest slot given gate events
                                (ebb_disk_gate_prepare): ebb_disk_gate_free walks no further */
    int grow_init;           /* pool->grow_mu initialized (disk_reserve.c) */
    uint32_t fallocates;     /* calls of fallocate made (the tests' fallocate_nth) */
} ebb_disk;

/* Reserves bytes [from, to) of file `file` (fallocate; where the file
 * system cannot, the file is sized instead and a warning says that space
 * is not reserved). `dir` names it in messages. EBB_ERR_NO_SPACE (the
 * bytes and the space free) or EBB_ERR_IO. */
ebb_status ebb_disk_reserve_file(struct ebb_pool *pool, int file, const char *dir, uint64_t from,
                                 uint64_t to);

/* Before a write to `slot`: a pool created with ready_slots reserves the
 * next extent of its files (doubling the slots with space, at least to
 * `slot`) when the slot is beyond them. EBB_ERR_NO_SPACE naming the slot,
 * the bytes and what to do, the slots below kept. */
ebb_status ebb_disk_reserve(struct ebb_pool *pool, int32_t slot);

/* The codec stage (disk_hash.c): `n` threads named `name` ("ebb-hash",
 * "ebb-codec") sharing the stage's queue. start: 0 or an errno (the threads
 * started are stopped again). stop: finishes what they were given, then
 * joins them. */
int ebb_hasher_start(struct ebb_pool *pool, int n, const char *name);
void ebb_hasher_stop(struct ebb_pool *pool);

#endif
