/* Operation and ticket records, and pool warnings: the bottom of the storage
 * layer. The tiers (host.c, disk*.c, device.c) and pool.c use these; this
 * file uses none of them, so no tier calls back up into pool.c. */
#ifndef EBB_STORAGE_OP_H
#define EBB_STORAGE_OP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ebb/storage.h"

enum { EBB_OP_IDLE = 0, EBB_OP_PENDING = 1, EBB_OP_DONE = 2 };
enum { EBB_OP_MSG = 512, EBB_WARN_MSG = 1024 };

struct ebb_pool;
struct ebb_op;

/* disk, a read that a host -> gpu copy follows block by block (ebb_move_via,
 * storage/disk_chain.c): each block read is copied on `stream` to `dst` plus
 * its offset; once the read ends, the host slot's tracking event and
 * gpu_op's event are recorded there and gpu_op->await_disk is cleared.
 * gpu_op NULL: an ordinary read. */
typedef struct ebb_follow {
    struct ebb_op *gpu_op;
    void *stream;               /* cudaStream_t of the gpu pool */
    unsigned char *dst;         /* the gpu slot's memory */
    int device;
} ebb_follow;

/* One operation record per slot of the pool that runs it (the disk pool for
 * host <-> disk, the gpu pool for host <-> gpu): a slot takes one operation at
 * a time, so these are all the records a pool will ever need. */
typedef struct ebb_op {
    _Atomic uint32_t state;      /* EBB_OP_*: DONE is stored with release */
    uint32_t generation;         /* bumped when the record is reused */
    int write;                   /* disk: 1 = host -> disk, 0 = disk -> host */
    int32_t slot;                /* slot of the running pool */
    struct ebb_pool *host;       /* disk: the host pool of the other end */
    int32_t host_slot;
    unsigned char *buf;          /* disk: host address of the slot's data */
    int fixed;                   /* disk/io_uring: buf lies in registered memory */
    uint32_t blocks;             /* requests the operation is split into */
    size_t bytes;                /* disk: bytes it moves (the state's size; with
                                    compression, a packed state's length): its
                                    last block is cut there (ebb_disk_locate_bytes) */
    int packed;                  /* disk: it moves a compressed state (buf is a
                                    compressed buffer for a write; a read lands
                                    in the host slot and is decompressed there) */
    int coded;                   /* disk: a write that went through the codec */
    int slower;                  /* disk: a write stored raw because compressing
                                    would have made it slower (ebb_codec_pays) */
    int probe;                   /* disk: a write whose try is the one under way
                                    while the last ones said raw */
    uint64_t io_ns;              /* disk, a coded write: when it was queued for the
                                    engine (the disk's rate it achieved) */
    int32_t cbuf;                /* disk: the compressed buffer a write holds, -1 none */
    uint32_t next_block;         /* next block to issue (threads engine) */
    _Atomic uint32_t remaining;  /* blocks not yet complete */
    _Atomic int failed;          /* first failure claims it (0 -> 1) */
    ebb_status status;           /* result, valid once DONE */
    int reported;                /* a failure was returned to the caller */
    char msg[EBB_OP_MSG];        /* failure message, valid once DONE */
    void *event;                 /* gpu: cudaEvent_t of the operation */
    int copy;                    /* gpu: direction (stream) of the operation's
                                    copy, which its failure message names */
    /* disk, a write chained behind a gpu -> host copy (storage/disk_chain.c):
     * block b may go to disk only once gate_events[b], recorded after that
     * block's bytes crossed, has completed. The events belong to this
     * record (created on gate_device at its first chain, kept for the next
     * ones, destroyed with the pool). Where the pool has a checksum thread,
     * that thread waits for them and hashes, and the ring follows
     * ready_blocks instead. */
    int gated;
    void **gate_events;
    uint32_t gate_count;         /* events in gate_events */
    int gate_device;
    _Atomic uint32_t ready_blocks;
    ebb_follow follow;
    /* gpu: 1 while a chained disk read still queues this operation's copies
     * (its event is recorded when the read ends): the slot is busy, a ticket
     * wait first waits for await_op of disk pool await_pool */
    _Atomic int await_disk;
    struct ebb_pool *await_pool;
    struct ebb_op *await_op;
    void *read_event;            /* gpu: cudaEvent_t recorded after each
                                    gpu -> gpu copy that reads this slot from a
                                    pool on the same device (on that copy's
                                    stream): writes into the slot are refused
                                    while it is pending */
} ebb_op;

/* Starts a new use of the record: a new generation (old tickets go stale),
 * `blocks` pieces left, no failure yet. The caller stores PENDING last. */
void ebb_op_begin(ebb_op *op, uint32_t blocks);

/* Fills `ticket` for the record `op`, which is ops[index] of `pool`. */
void ebb_op_ticket(const ebb_op *op, struct ebb_pool *pool, uint32_t index, ebb_ticket *ticket);

/* The record a ticket names among `ops` (n of them), or NULL in *op when the
 * ticket is stale (its slot has started another operation since: it
 * completed). EBB_ERR_INVALID_ARG for a ticket no record issued. */
ebb_status ebb_op_lookup(ebb_op *ops, int32_t n, ebb_tier tier, const ebb_ticket *ticket,
                         ebb_op **op);

/* Records the first failure of an operation (thread safe; later ones are
 * dropped). Returns 1 if this call recorded it. */
int ebb_op_fail(ebb_op *op, ebb_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Returns an operation's result as the caller's error (message included). */
ebb_status ebb_op_report(ebb_op *op);

/* Appends "; "-separated text to a warnings buffer of `size` bytes
 * (truncates quietly). */
void ebb_warn_append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
