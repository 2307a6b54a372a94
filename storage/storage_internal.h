/* Internal layout of a pool, shared by the tiers and their backends.
 *
 * The layers of storage/, top to bottom; a file calls only files in the
 * layers below it, never back up (scripts/check_layers.py, test
 * layers/storage; a layer calls down into an engine only through a table):
 *   pool.c                 the public calls; a tier is reached through its
 *                          row of the `tiers` table, a move through its pair's
 *                          entry in the `moves` table
 *   chain.c                ebb_move_via's paths, which `moves` names
 *   disk.c, disk_create.c  the disk tier's operations, and its creation
 *   disk_hash.c            the codec stage: the checksum thread, or the codec
 *                          threads (compress and hash writes, then hand them
 *                          on; verify and decompress reads, then complete them)
 *   disk_engine.c          the running disk engine, behind its table
 *                          {start, enqueue, kick, stop, info}
 *   disk_uring_engine.c > disk_uring.c > disk_uring_stop.c > disk_uring_req.c,
 *   disk_threads.c         the two engines (io_uring's top to bottom)
 *   disk_core.c            completion and retries, the checksum thread's queue
 *   disk_chain.c           chained moves' gate events and follow-on copies
 *   host_codec.c           the host tier's compression: a fixed-rate pool's
 *                          codec threads and their operations
 *   device.c, host.c       the gpu tier; host slots and their state
 *   host_ready.c           making host slots ready: faulted in, pinned and
 *                          given their events, at once or in extents
 *   disk_pace.c, disk_sum.c, disk_codec.c, disk_uring_setup.c, cuda.c
 *                          bandwidth limit, checksums, compression, ring set-up,
 *                          CUDA calls
 *   codec.c > codec_blosc.c, codec_zfp.c > codec_names.c
 *                          the codecs (include/ebb/codec.h)
 *   disk_layout.c, op.c, topology.c, codec_trace.c, slot_stride.c
 *                          where a slot lives, operation records, NUMA, the
 *                          codec threads' spans for a timeline, a slot's
 *                          size (ebb_slot_stride): call nothing */
#ifndef EBB_STORAGE_STORAGE_INTERNAL_H
#define EBB_STORAGE_STORAGE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/error_internal.h"
#include "ebb/storage.h"
#include "storage/fault.h"
#include "storage/op.h"

/* What the last gpu copy recorded in a host slot's event does to the slot. */
enum { EBB_HOST_GPU_NONE = 0, EBB_HOST_GPU_READ = 1 /* host -> gpu */,
       EBB_HOST_GPU_WRITE = 2 /* gpu -> host */ };

struct ebb_disk;
struct ebb_device;
struct ebb_host_codec;
struct ebb_codec_trace;

/* Most extents a host pool is made ready in: each at least doubles the
 * ready slots, and a pool has fewer than 2^31. */
#define EBB_HOST_EXTENTS 40

struct ebb_pool {
    ebb_tier tier;
    /* References: the caller's (dropped by ebb_pool_destroy) and one per disk
     * pool that stages through this host pool, so that its handle (whose
     * address names the registered memory) outlives them. ebb_pool_destroy
     * frees the memory at once and the handle with the last reference. */
    _Atomic int32_t refs;
    int destroyed;
    size_t slot_size;
    size_t stride;               /* bytes between slots in memory (host, gpu) */
    int32_t slots;
    uint64_t bytes;

    /* host */
    unsigned char *base;         /* host or device memory */
    /* host: bytes a slot keeps (slot_size, or a compressed pool's fixed
     * size), and the compression (host_codec.c), NULL when off: its slots
     * are rounded up to EBB_HOST_PACKED_ALIGN, not pages, and never pinned */
    size_t held;
    struct ebb_host_codec *hc;
    size_t map_bytes;            /* host: bytes mapped */
    int numa_node;
    int pinned;
    int pin_device;              /* host: the device whose context pinned it */
    int hwloc_alloc;             /* host: memory came from hwloc_alloc_membind */
    /* host: slots [0, ready) are ready: faulted in (prefault), registered
     * with CUDA (pinned) and given their tracking events; the slots above
     * are mapped only, made ready in extents as they are first used
     * (ebb_host_make_ready). gpu: slots [0, ready) have memory (one
     * cudaMalloc an extent) and events (ebb_device_slot). ready == slots
     * unless created with ready_slots. Extent k starts at slot ext_start[k];
     * each was registered (host) or allocated (gpu) alone. An extent's
     * entries are written before `extents` counts it and `extents` before
     * `ready` (both release), so a reader that saw a slot below `ready`
     * finds its extent without the lock (ebb_device_slot). */
    _Atomic int32_t ready;
    _Atomic int32_t extents;
    int32_t ext_start[EBB_HOST_EXTENTS];
    int prefault;                /* host: fault extents in as they are made ready */
    int lazy;                    /* host: memory taken as written, given back by discard */
    pthread_mutex_t grow_mu;     /* host, gpu: one growth at a time */
    _Atomic int32_t *readers;    /* host: disk operations reading each slot */
    _Atomic int32_t *writers;    /* host: disk operations writing each slot */
    /* host: disk operations in flight on any slot (from their start to the
     * end of their completion); ebb_pool_destroy waits until none is left */
    int32_t disk_ops;
    pthread_mutex_t drain_mu;
    pthread_cond_t drain_cv;
    int drain_init;
    /* host, pinned with a GPU present: gpu copies touching each slot. One
     * cudaEvent_t per slot, created at creation on gpu_events_device and
     * recorded (by ebb_device_copy, on the copy's stream) after every
     * host <-> gpu move of a gpu pool on that same device; gpu_use[slot] says
     * what the copy last recorded there does to the slot (EBB_HOST_GPU_*).
     * NULL when tracking is off (no GPU, not pinned, events refused). */
    void **gpu_events;
    unsigned char *gpu_use;
    int gpu_events_device;       /* device of gpu_events; -1 when none */

    ebb_op *ops;                 /* disk, gpu, compressed host: one per slot */
    struct ebb_disk *disk;
    struct ebb_device *device;

    char warnings[EBB_WARN_MSG];

    /* statistics (atomic: engines update them) */
    _Atomic uint64_t st_writes, st_reads, st_bytes_written, st_bytes_read;
    _Atomic uint64_t st_requests, st_retries, st_errors;
    /* disk with compression (disk_codec.c, disk_core.c) */
    _Atomic uint64_t st_codec_before, st_codec_after, st_stored_raw, st_codec_ns;
    _Atomic uint64_t st_raw_slower;
    /* disk or host with compression: the codec threads' runs of the codec */
    _Atomic uint64_t st_compressions, st_decompressions;
    int32_t codec_threads;       /* disk or host with compression: codec threads, else 0 */
    /* the codec threads' spans for a timeline (codec_trace.c): NULL until
     * ebb_pool_codec_trace_start, which publishes it (release) */
    struct ebb_codec_trace *_Atomic codec_trace;

    ebb_storage_fault fault;
    _Atomic uint64_t fault_delays;   /* completions delayed so far (fault.delay_us_max) */
};

/* Reference counting of pool handles (see struct ebb_pool): inline, so that
 * a tier holding another pool (a disk pool its staging pool) calls nothing
 * in pool.c. The last release frees the handle. */
static inline void ebb_pool_retain(struct ebb_pool *pool)
{
    atomic_fetch_add(&pool->refs, 1);
}
static inline void ebb_pool_release(struct ebb_pool *pool)
{
    if (atomic_fetch_sub(&pool->refs, 1) == 1)
        free(pool);
}

/* EBB_ERR_INVALID_ARG, with a message naming `what`, for a slot out of
 * range. Inline, so that the chained moves (chain.c) call nothing in pool.c. */
static inline ebb_status ebb_pool_check_slot(const struct ebb_pool *pool, int32_t slot,
                                             const char *what)
{
    if (slot < 0 || slot >= pool->slots)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s: slot %d is out of range for the %s pool (it has slots 0 .. %d)", what,
                        (int)slot, ebb_tier_name(pool->tier), (int)pool->slots - 1);
    return EBB_OK;
}

/* ebb_move_via's paths (chain.c), reached through pool.c's `moves` table:
 * gpu -> host -> disk and disk -> host -> gpu. */
ebb_status ebb_chain_gpu_to_disk(struct ebb_pool *disk, int32_t disk_slot, struct ebb_pool *host,
                                 int32_t host_slot, struct ebb_pool *gpu, int32_t gpu_slot,
                                 ebb_ticket tickets[2]);
ebb_status ebb_chain_disk_to_gpu(struct ebb_pool *gpu, int32_t gpu_slot, struct ebb_pool *host,
                                 int32_t host_slot, struct ebb_pool *disk, int32_t disk_slot,
                                 ebb_ticket tickets[2]);

/* Appends "; "-separated text to pool->warnings (op.c; truncates quietly). */
#define ebb_pool_warn(pool, ...) \
    ebb_warn_append((pool)->warnings, sizeof (pool)->warnings, __VA_ARGS__)

/* Host tier. */
ebb_status ebb_host_create(struct ebb_pool *pool, const ebb_pool_options *o);
void ebb_host_destroy(struct ebb_pool *pool);
/* EBB_OK when a host slot may be read (writing = 0) or written (writing = 1)
 * now; EBB_ERR_STATE, with a message, while a disk operation or a tracked gpu
 * copy in flight forbids it (a writer forbids any use, a reader forbids
 * writing). Never blocks: a gpu copy is one cudaEventQuery. */
ebb_status ebb_host_slot_check(const struct ebb_pool *pool, int32_t slot, int writing);
/* host.c owns a host slot's state (readers, writers, gpu_use): the other
 * files call these instead of touching the fields.
 * A disk operation on host slot `slot` starts / has completed; reads_slot:
 * it reads the slot (a write to disk), else it fills it. end is the
 * operation's last touch of the host pool (destroy waits for it). */
void ebb_host_disk_begin(struct ebb_pool *host, int32_t slot, int reads_slot);
void ebb_host_disk_end(struct ebb_pool *host, int32_t slot, int reads_slot);
/* The end of the next extent of a pool made ready in extents, whose slots
 * [0, from) are ready, for slot `slot` >= from: doubling the ready slots
 * (log2(slots) extents at most, each paid once), at least to the slot,
 * at most all (host_ready.c and device.c grow the same way). */
static inline int32_t ebb_pool_next_extent_end(const struct ebb_pool *pool, int32_t from,
                                               int32_t slot)
{
    int64_t to = (int64_t)from * 2;
    if (to <= slot)
        to = (int64_t)slot + 1;
    if (to > pool->slots)
        to = pool->slots;
    return (int32_t)to;
}

/* Makes host slot `slot` ready (ready_slots): nothing when it is; else the
 * next extent, from the ready slots to at least twice as many (up to the
 * pool's slots, and at least to `slot`), faulted in, registered and given
 * its events. EBB_ERR_NO_MEMORY, with a message naming the slot, the slots
 * and bytes of the extent and what failed, when that cannot be done: the
 * extent is then given back whole (nothing left registered or faulted in,
 * the ready slots and their data untouched). Thread-safe. */
ebb_status ebb_host_make_ready(struct ebb_pool *pool, int32_t slot);
/* host_ready.c, for host.c: the page size; a range faulted in as extent
 * `extent` (1-based; 0 or an errno); every extent unregistered (a pinned
 * pool; it is unpinned after). */
size_t ebb_host_page_size(void);
int ebb_host_prefault(const struct ebb_pool *pool, unsigned char *base, size_t bytes,
                      int32_t extent);
void ebb_host_unregister_extents(struct ebb_pool *pool);
/* What pinning slots [from, to) registers with CUDA: whole pages, from the
 * first page that no slot below `from` shares (*bytes 0: none left). */
void ebb_host_pin_span(const struct ebb_pool *pool, int32_t from, int32_t to, unsigned char **at,
                       size_t *bytes);
/* Address of a host slot's data. */
unsigned char *ebb_host_slot_addr(const struct ebb_pool *host, int32_t slot);
/* A lazy host pool's slot: its whole pages from byte `from` given back
 * (ebb_pool_slot_discard). */
ebb_status ebb_host_discard(struct ebb_pool *host, int32_t slot, size_t from);
struct ebb_copy_mark;
/* A gpu copy of host slot `slot`: gpu_mark fills the mark ebb_device_copy
 * records (nothing when the pool tracks no gpu copies); gpu_marked, after
 * the copy, remembers what a recorded copy does to the slot. */
void ebb_host_gpu_mark(const struct ebb_pool *host, int32_t slot, struct ebb_copy_mark *mark);
void ebb_host_gpu_marked(struct ebb_pool *host, int32_t slot, const struct ebb_copy_mark *mark,
                         int to_device);

/* Disk tier. */
ebb_status ebb_disk_create(struct ebb_pool *pool, const ebb_pool_options *o);
void ebb_disk_destroy(struct ebb_pool *pool);
ebb_status ebb_disk_move(struct ebb_pool *disk, int32_t disk_slot, struct ebb_pool *host,
                         int32_t host_slot, int write, ebb_ticket *ticket);
/* ebb_disk_move in two: check (the disk slot, and the host slot when
 * check_host) then start, which cannot fail; gated: a write whose blocks
 * wait for the disk slot's gate events; follow: a read whose blocks are
 * copied on to a gpu slot as they arrive (ebb_move_via, disk_chain.c). */
ebb_status ebb_disk_move_check(struct ebb_pool *disk, int32_t disk_slot, struct ebb_pool *host,
                               int32_t host_slot, int write, int check_host);
void ebb_disk_move_start(struct ebb_pool *disk, int32_t disk_slot, struct ebb_pool *host,
                         int32_t host_slot, int write, int gated, const ebb_follow *follow,
                         ebb_ticket *ticket);
void ebb_disk_info(const struct ebb_pool *pool, ebb_pool_info *info);
ebb_status ebb_disk_wait(struct ebb_pool *pool, ebb_op *op);

/* Device tier (stubs without CUDA). */
ebb_status ebb_device_create(struct ebb_pool *pool, const ebb_pool_options *o);
void ebb_device_destroy(struct ebb_pool *pool);
/* A host pool slot's tracking event for ebb_device_copy to record after the
 * copy (pool.c fills it from the host pool: no pointer between pools is kept). */
typedef struct ebb_copy_mark {
    void *event;   /* cudaEvent_t of the host slot; NULL: nothing to record */
    int device;    /* device the event was created on: recorded only when it
                      is the gpu pool's (an event is recorded on a stream of
                      its own device); otherwise the copy goes untracked */
    int recorded;  /* out: 1 when the event now tracks this copy */
} ebb_copy_mark;

/* Copies between a slot of a gpu pool and memory at `mem` (a host pool slot,
 * the caller's device or pinned memory, another gpu pool's slot): to_device
 * = 1 copies mem -> slot. mem_on_device says which stream (device -> device
 * or the host one) and that the copy goes by unified addressing
 * (cudaMemcpyDefault: managed memory, another device's memory). `after`, if
 * not NULL, is an operation (of another gpu pool's slot that `mem` is) the
 * copy must follow. Refused (EBB_ERR_STATE) while the slot's operation is in
 * flight, when writing it (to_device) while a gpu -> gpu copy still reads
 * it, and once after its previous operation failed on the device unseen.
 * `mark`, if not NULL, is the host slot `mem` is, or the source gpu slot
 * (ebb_device_read_mark): its event is recorded on the copy's stream once
 * the copy is enqueued, before the operation's own event, so a complete
 * ticket implies a complete host event. Also recorded when enqueuing failed
 * part way (the chunks already queued still touch the slot); mark->recorded
 * says whether it was, whatever the result. */
/* Chained copies (ebb_move_via). A gpu -> host copy that a disk write
 * follows block by block: cut at every `block` bytes, events[k] recorded
 * after block k (the last one after everything), on the copy's one stream.
 * A host -> gpu copy that a disk read queues itself (follow not NULL): the
 * slot is checked and taken (busy, await_disk) and follow filled (stream,
 * slot memory, device, the operation); nothing is queued. */
typedef struct ebb_copy_split {
    size_t block;
    void **events;
    uint32_t count;
    ebb_follow *follow;
} ebb_copy_split;

/* Gpu slot `slot` made ready (a pool with ready_slots: the next extents,
 * doubling the ready slots, allocated with their events; EBB_ERR_NO_MEMORY
 * naming the slot, the extent and CUDA's error when that fails, the ready
 * slots untouched) and its device address in *mem (mem may be NULL).
 * Thread-safe. */
ebb_status ebb_device_slot(struct ebb_pool *pool, int32_t slot, unsigned char **mem);
ebb_status ebb_device_copy(struct ebb_pool *pool, int32_t slot, void *mem, int to_device,
                           int mem_on_device, ebb_op *after, ebb_copy_mark *mark,
                           const ebb_copy_split *split, ebb_ticket *ticket);
/* host <-> gpu copy of host slot `slot` (host.c), with the host slot's
 * tracking; split as for ebb_device_copy. No checks of the host slot. */
ebb_status ebb_host_gpu_copy(struct ebb_pool *gpu, int32_t gpu_slot, struct ebb_pool *host,
                             int32_t slot, int to_device, const ebb_copy_split *split,
                             ebb_ticket *ticket);
/* The mark for a gpu -> gpu copy that reads `slot` of gpu pool `pool`: its
 * slot's read event, on the pool's device. ebb_device_copy (of the
 * destination pool) records it like a host slot's mark, so that writes into
 * the source slot are refused while the copy still reads it. */
void ebb_device_read_mark(const struct ebb_pool *pool, int32_t slot, ebb_copy_mark *mark);
/* Checks the caller's buffer, all `bytes` of it (its first and last byte):
 * device or pinned host memory; *on_device says which. */
ebb_status ebb_device_check_user_ptr(const void *ptr, size_t bytes, const char *what,
                                     int *on_device);
ebb_status ebb_device_test(struct ebb_pool *pool, ebb_op *op, int block, int *done);
ebb_status ebb_device_order_after(struct ebb_pool *pool, void *stream);
ebb_status ebb_device_slot_order_after(struct ebb_pool *pool, int32_t slot, void *stream);
ebb_status ebb_device_mark(struct ebb_pool *pool, void *stream);
ebb_status ebb_device_mark_reached(struct ebb_pool *pool, int *reached);
ebb_status ebb_device_stream_wait(struct ebb_pool *pool, ebb_op *op, void *stream);
void ebb_device_info(const struct ebb_pool *pool, ebb_pool_info *info);
/* The CUDA wrappers the host tier uses too (pinning, slot events): cuda.h. */

#endif
