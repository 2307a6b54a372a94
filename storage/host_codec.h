/* The host tier's compression (host_codec.c): a host pool given a
 * fixed-rate codec keeps each state compressed in a slot of the fixed size
 * (rounded up to EBB_HOST_PACKED_ALIGN), so a budget holds ratio times the
 * slots. Its stores compress into a slot and its loads decompress out of
 * one on codec threads of the pool's own ("ebb-host-codec"), never on the
 * caller's; each such operation has a ticket, as a disk move has. Only a
 * fixed rate: the size of every compressed state is known before, so a
 * slot can be sized once. Below pool.c; calls host.c (the raw host slot's
 * state) and the codec, nothing above. */
#ifndef EBB_STORAGE_HOST_CODEC_H
#define EBB_STORAGE_HOST_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/storage.h"

struct ebb_pool;
struct ebb_op;

/* Before ebb_host_create: with o->compression (mode not off) makes the
 * codec and sets the bytes a slot holds (pool->held, the fixed size) and
 * pool->hc; nothing otherwise. EBB_ERR_INVALID_ARG for a mode other than
 * fixed-rate (its compressed size is not known before) or options the
 * codec refuses; EBB_ERR_NO_MEMORY. */
ebb_status ebb_host_codec_init(struct ebb_pool *pool, const ebb_pool_options *o);
/* After ebb_host_create: the operation records and the codec threads. */
ebb_status ebb_host_codec_start(struct ebb_pool *pool, const ebb_pool_options *o);
/* Waits for every operation queued, stops the threads, frees what init and
 * start made. Before ebb_host_destroy (the threads write the slots). */
void ebb_host_codec_fini(struct ebb_pool *pool);

/* Starts compressing `raw` into slot `slot` (write = 1) or decompressing
 * slot `slot` into `raw` (write = 0) on a codec thread. `host`, when not
 * NULL, is the uncompressed host pool whose slot `host_slot` `raw` is: it is
 * marked in use until the operation completes (ebb_host_slot_check, and its
 * destruction waits). EBB_ERR_STATE while the slot has an operation in
 * flight, for a load from a slot that holds no state, and once for a slot
 * whose last operation failed unseen. */
ebb_status ebb_host_codec_begin(struct ebb_pool *pool, int32_t slot, int write,
                                struct ebb_pool *host, int32_t host_slot, void *raw,
                                ebb_ticket *ticket);
/* Slot `src` copied into slot `dst` of the same pool as it is (compressed),
 * on the caller's thread: nothing is lost. EBB_ERR_STATE as begin. */
ebb_status ebb_host_codec_copy(struct ebb_pool *pool, int32_t dst, int32_t src);
/* As a disk pool's poll: *done, waiting when `block`, and the result. */
ebb_status ebb_host_codec_poll(struct ebb_pool *pool, struct ebb_op *op, int block, int *done);
void ebb_host_codec_info(const struct ebb_pool *pool, ebb_pool_info *info);
/* What the codec threads measured since the pool was made (ebb_pool_stats.measured;
 * not reset): the ratio, one thread's compress and decompress rates over every
 * state (0 until one was), and the threads. Nothing without compression. */
void ebb_host_codec_figures(const struct ebb_pool *pool, ebb_codec_rates *out);

#endif
