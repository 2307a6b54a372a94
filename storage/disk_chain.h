/* The disk's side of chained moves (ebb_move_via, chain.c), in
 * disk_chain.c: below the engines and the core, which ask it before a
 * gated block goes to disk and after a followed block was read. */
#ifndef EBB_STORAGE_DISK_CHAIN_H
#define EBB_STORAGE_DISK_CHAIN_H

#include <stdint.h>

#include "ebb/storage.h"

struct ebb_pool;
struct ebb_op;

/* Writes chained behind a gpu -> host copy (op.h).
 * prepare: the per-block events of disk slot `slot` on `device` (made at the
 * slot's first chain, again for another device); free: all of them, at
 * destroy. gate: before block `block` of `op` goes to disk: 1 it may, 0 not
 * yet (only when not `wait`; `wait` blocks, sleeping, until it may), -1 the
 * operation failed (a failed copy fails it here, naming the block); 1 for
 * any operation that is not gated. gate_wait: the checksum thread's wait
 * for block `block`'s event (1 crossed, -1 failed); it marks nothing ready. */
ebb_status ebb_disk_gate_prepare(struct ebb_pool *pool, int32_t slot, int device, void ***events);
void ebb_disk_gate_free(struct ebb_pool *pool);
int ebb_disk_gate(struct ebb_pool *pool, struct ebb_op *op, uint32_t block, int wait);
int ebb_disk_gate_wait(struct ebb_pool *pool, struct ebb_op *op, uint32_t block);
/* Reads followed by a host -> gpu copy (op.h ebb_follow): follow_block
 * queues the copy of a block just read (engine threads, on success);
 * follow_end, from ebb_disk_complete, records the host slot's and the gpu
 * operation's events after them and releases the gpu operation. */
void ebb_disk_follow_block(struct ebb_pool *pool, struct ebb_op *op, uint32_t block);
/* A packed (compressed) read: follow_block does nothing; once a codec
 * thread decompressed the state into the host slot, follow_state queues
 * the copies of the whole state (cut at the disk's block size: a fixed
 * rate's slot on disk is smaller than the state). */
void ebb_disk_follow_state(struct ebb_pool *pool, struct ebb_op *op);
void ebb_disk_follow_end(struct ebb_pool *pool, struct ebb_op *op);
/* How long the ring waits before asking a gated block's event again while
 * other requests are in flight (with none, it sleeps in the event). */
#define EBB_DISK_GATE_POLL_NS UINT64_C(100000)

#endif
