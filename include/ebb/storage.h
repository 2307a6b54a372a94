/*
 * ebb — storage tiers: pools of fixed-size slots with asynchronous moves.
 *
 * A pool holds `slots` slots of `slot_size` bytes in one tier:
 *
 *   EBB_TIER_GPU   device memory (CUDA), one cudaMalloc at creation;
 *   EBB_TIER_HOST  page-aligned anonymous memory on the NUMA node nearest the
 *                  GPU (or the node asked for), pinned with cudaHostRegister
 *                  when a GPU is present;
 *   EBB_TIER_DISK  one preallocated, private, O_DIRECT file per directory
 *                  (several directories = several drives, striped), driven by
 *                  io_uring or by a pread/pwrite thread pool; buffered for
 *                  states below a page, whose host slots share pages.
 *
 * Data moves with ebb_move() between a slot of one pool and a slot of
 * another (host <-> disk, host <-> gpu, gpu <-> gpu, host <-> host), and with
 * ebb_pool_put()/ebb_pool_get() between a slot and the caller's memory
 * (host and gpu pools). Every operation returns an ebb_ticket at once; the
 * transfer runs on the tier's own engine (I/O thread(s), CUDA copy streams)
 * and completes later. ebb_ticket_test() polls, ebb_ticket_wait() blocks.
 * A failure on an I/O thread is kept in the operation and reported, with its
 * message, by the test or wait that sees it complete.
 *
 * The disk tier moves data only from and to host pool slots: a host slot is
 * the staging buffer (whole pages for a state of a page or more, aligned
 * for O_DIRECT; registered with io_uring when the host pool is given as
 * `staging`). A state crosses
 * between a gpu and a disk pool through a host slot: ebb_move_via does
 * gpu -> host -> disk and disk -> host -> gpu in one call, pipelined.
 *
 * Nothing is allocated per operation: every buffer, request and ticket
 * record is created with the pool (docs/design.md says how this is checked).
 *
 * Threads: a pool may be called from one thread at a time (the runtime's).
 * Its internal threads (per device of a disk pool an io_uring ring thread or
 * a group of pread/pwrite workers; a checksum thread for io_uring with
 * checksums; codec_threads codec threads with compression) are private and never call back into the caller's code. Pools may be destroyed in any order:
 * a host pool destroyed while disk operations still read or fill its slots
 * waits for them; a disk pool keeps the handle of its staging pool until it
 * is destroyed itself (the memory goes with the host pool). Destroying disk
 * and gpu pools first is still the natural order.
 *
 * Rules for slots:
 * - a slot takes one operation at a time: starting a second one on a slot of
 *   the pool that runs it (the disk pool for host <-> disk, the gpu pool for
 *   host <-> gpu) before the first completed returns EBB_ERR_STATE;
 * - a host slot that a disk operation or a gpu copy is reading (host -> disk,
 *   host -> gpu) cannot be written (by a put, a move into it, a disk read or
 *   a gpu -> host copy into it) until that operation completes, and one that
 *   a disk operation or a gpu copy is writing (disk -> host, gpu -> host)
 *   cannot be used at all: EBB_ERR_STATE ("host slot 3 is in use by a
 *   gpu -> host copy still in flight; wait for its ticket first"). Once the
 *   operation's ticket reports it complete the slot is free. Reads may
 *   overlap (two host -> gpu copies, or one and a host -> disk move, from one
 *   slot). gpu copies are seen through a CUDA event per host slot, created
 *   with a pinned host pool on its `device`: copies run by a gpu pool on
 *   another device are not tracked (wait for their tickets before reusing
 *   the slot), nor is a host slot's address passed as the caller's memory to
 *   ebb_pool_put/ebb_pool_get of a gpu pool (use ebb_move). A host pool
 *   destroyed while tracked gpu copies still use it waits for them;
 *   destroying it first is still not the intended order.
 * - a disk slot that holds no completed write cannot be read: EBB_ERR_STATE.
 */
#ifndef EBB_STORAGE_H
#define EBB_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/error.h"
#include "ebb/codec.h"    /* ebb_codec_options */
#include "ebb/vocabulary.h" /* ebb_tier */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ebb_pool ebb_pool;

/* A compressed host pool's slots (ebb_pool_options.compression) are its
 * fixed size rounded up to this many bytes (a cache line), not to pages. */
#define EBB_HOST_PACKED_ALIGN 64

/* A host slot of a state below a page is the state rounded up to this many
 * bytes (a cache line): small states share pages. */
#define EBB_HOST_SMALL_ALIGN 64

/* Bytes one slot of `tier` takes for a state of `state_bytes`, the one rule
 * of slot sizing: rounded up to 256 bytes on the gpu tier; on the host tier
 * to EBB_HOST_SMALL_ALIGN while that stays below a page (the page size, at
 * least 4 KiB), else to whole pages; to EBB_HOST_PACKED_ALIGN for a compressed
 * host pool's slots (packed = 1, state_bytes then the compressed size), to
 * 4 KiB, the direct-I/O alignment, on the disk tier. The pools lay their
 * slots out by it and a budget holds budget / stride of them
 * (ebb_config_pool_options). SIZE_MAX when the rounding overflows, 0 for
 * another tier. */
EBB_API size_t ebb_slot_stride(ebb_tier tier, size_t state_bytes, int packed);

/* Which engine runs a disk pool's I/O (also tier.disk.backend in
 * ebb/config.h, which includes this header for it). */
#ifndef EBB_DISK_BACKEND_DEFINED
#define EBB_DISK_BACKEND_DEFINED 1
typedef enum ebb_disk_backend {
    EBB_DISK_BACKEND_AUTO = 0,   /* io_uring, or threads where io_uring cannot be set up */
    EBB_DISK_BACKEND_URING = 1,  /* io_uring only: creation fails where it is refused */
    EBB_DISK_BACKEND_THREADS = 2 /* pread/pwrite worker threads */
} ebb_disk_backend;
#endif

/* "auto", "uring", "threads" (as tier.disk.backend and `--backend` spell
 * them); "?" otherwise. Never NULL. */
EBB_API const char *ebb_disk_backend_name(ebb_disk_backend backend);

/* Parses "auto", "uring" or "io_uring", "threads". EBB_ERR_INVALID_ARG otherwise. */
EBB_API ebb_status ebb_disk_backend_from_name(const char *name, ebb_disk_backend *out);

/* What a pool is made of. Fill with ebb_pool_options_init, then set what
 * differs. Fields a tier does not use are ignored. */
typedef struct ebb_pool_options {
    ebb_tier tier;          /* which tier */
    size_t slot_size;       /* bytes of one slot (one state), > 0 */
    int32_t slots;          /* number of slots, > 0 */

    /* host */
    int numa_node;          /* NUMA node (OS index) to allocate on; -1 (default) =
                               the node nearest `device` when a GPU exists, else
                               the default policy (first touch) */
    int pin;                /* 1 (default): cudaHostRegister when a GPU exists;
                               failure is not an error (see ebb_pool_info.pinned) */
    int prefault;           /* 1 (default): fault every page in at creation, so
                               memory shortage shows now, not mid-run */

    /* gpu (and host: which GPU to place near) */
    int device;             /* CUDA device ordinal, default 0 */

    /* disk */
    const char *const *paths; /* directories, one per drive; slots are striped
                                 across them block by block (consecutive blocks
                                 of a slot on different drives), each slot
                                 taking its size rounded up to the alignment,
                                 as with one directory. Required. */
    int32_t path_count;       /* entries in paths, >= 1 */
    ebb_disk_backend backend; /* default EBB_DISK_BACKEND_AUTO */
    int32_t queue_depth;      /* requests in flight, default 16, 1 .. 4096 */
    int32_t threads;          /* thread backend workers per device (directories on one
                                 file system share them); 0 (default) = queue_depth */
    int direct;               /* 1 (default): O_DIRECT, buffered with a warning where
                                 the file system refuses it, and without one for
                                 states below a page (their host slots are not
                                 aligned for it: ebb_slot_stride); 0: buffered */
    int checksum;             /* 1: XXH3-64 per block, verified on every read;
                                 default 0. With io_uring, hashed on a thread of
                                 its own, never on the ring's or the caller's */
    ebb_pool *staging;        /* optional host pool whose memory the io_uring
                                 backend registers (fixed buffers), as much of it
                                 as RLIMIT_MEMLOCK allows (the soft limit is
                                 raised to the hard one if that helps); moves
                                 from other host pools, or from its slots beyond
                                 the limit, use unregistered I/O */

    /* disk and gpu */
    size_t block;             /* bytes per request (disk) or per copy chunk (gpu);
                                 default 8 MiB (disk) and 64 MiB (gpu); disk: a
                                 multiple of the file's direct-I/O alignment, at
                                 most 1 GiB */

    /* disk */
    double max_bandwidth;     /* bytes per second the pool may move, reads and
                                 writes together (one budget); 0 (default): no
                                 limit. Paced per request (block): over any
                                 interval of T seconds at most max_bandwidth x T
                                 bytes + one block + 1 ms at the rate are
                                 submitted. Lifted while the pool is destroyed.
                                 0 or 1 .. 1e18 (tier.disk.max_bandwidth) */

    /* disk: states compressed on their way to the disk and decompressed on
     * their way back (ebb/codec.h), on codec_threads threads of the pool's
     * own, never the caller's; a state that does not shrink is stored as it
     * is (ebb_pool_stats.stored_raw). A read completes once its state is
     * decompressed into the host slot.
     * host: fixed-rate only (the one mode whose compressed size is known
     * before): each slot holds a compressed state, ebb_codec_fixed_size
     * bytes rounded up to EBB_HOST_PACKED_ALIGN (the pool is never pinned),
     * so a budget holds that many more slots. A put or a move from another
     * (uncompressed) host pool compresses into the slot, a get or a move to
     * one decompresses out of it, on codec_threads threads of the pool's
     * own, never the caller's: their tickets complete when the codec is
     * done (the caller's memory of a put or get must stay valid until then);
     * a move between two slots of the pool copies the compressed bytes, at
     * once. Its slots have no address (ebb_pool_slot_ptr refuses), and
     * moves to or from a gpu or disk pool are refused (EBB_ERR_UNSUPPORTED):
     * go through an uncompressed host pool. Other modes are refused
     * (EBB_ERR_INVALID_ARG: their size is not known before).
     * NULL (default) or mode off: stored as they are. Copied at create. Gpu
     * pools refuse it (EBB_ERR_INVALID_ARG), as do options the codec refuses. */
    const struct ebb_codec_options *compression;
    int32_t codec_threads;    /* with compression: 0 (default) = EBB_CODEC_THREADS_DEFAULT, 1 .. EBB_CODEC_THREADS_MAX */

    /* How much is made ready at creation (host: faulted in when prefault,
     * registered with CUDA when pinned; gpu: allocated, with the slots'
     * events; disk: its file space preallocated). 0 (default): every slot, so a shortage of memory
     * shows at creation. k > 0 (for a pool whose slots may exceed what it
     * will fill: a run with n unknown): the first k slots; the slots above
     * are made ready in extents, each doubling the ready slots (up to
     * `slots`), when a slot above them is first used (ebb_pool_slot_ptr,
     * ebb_pool_put/get, ebb_move, ebb_move_via). A host pool maps the
     * address range of all its slots (no memory taken); a gpu pool
     * allocates each extent alone, so its slots are then not one range (ask
     * ebb_pool_slot_ptr for each). A shortage fails that call with
     * EBB_ERR_NO_MEMORY, the ready slots and their data kept. Slots are
     * best used in order (slot i readies slots 0 .. i). A disk pool the
     * same with file space: its files are preallocated for the first k
     * slots (the space check at creation counts those), and a write to a
     * slot above them preallocates the next extent first; a full disk fails
     * that write's call with EBB_ERR_NO_SPACE, the slots below kept. */
    int32_t ready_slots;

    /* host: EBB_LAZY_PAGES or EBB_LAZY_HUGE: the slots' address range is
     * reserved, not taken: memory is taken a page at a time as a slot is
     * written and given back by ebb_pool_slot_discard, so that slots
     * holding states of different sizes take what they hold (never pinned
     * or faulted in at creation; prefault, pin and ready_slots are
     * ignored). EBB_LAZY_HUGE: in transparent huge pages
     * (ebb_huge_page_size(): each slot starts on one and takes whole ones,
     * the system giving 4 KiB pages where it has no huge one free);
     * EBB_LAZY_PAGES: in the system's pages. Refused with compression. 0
     * (default): every slot's memory taken at creation. */
    int lazy;
} ebb_pool_options;

/* ebb_pool_options.lazy */
enum { EBB_LAZY_PAGES = 1, EBB_LAZY_HUGE = 2 };

/* The bytes of a transparent huge page (the system's; 2 MiB on x86-64), 0
 * where the system has none (then EBB_LAZY_HUGE maps the system's pages). */
EBB_API size_t ebb_huge_page_size(void);

/* Sets the defaults for `tier`. Returns nothing: it cannot fail. */
EBB_API void ebb_pool_options_init(ebb_pool_options *options, ebb_tier tier);

/* Creates a pool: allocates (and pins, registers, preallocates) everything it
 * will ever use (a host pool with ready_slots: its first extent; the others
 * as they are first used). Errors:
 *   EBB_ERR_INVALID_ARG  zero slot_size or slots, no paths, a bad queue depth,
 *                        block or max_bandwidth, a staging pool that is not a
 *                        host pool;
 *   EBB_ERR_IO           a directory is missing, not a directory, not writable,
 *                        or a file cannot be created (path and errno text);
 *   EBB_ERR_NO_SPACE     a file system lacks the space for its share (the
 *                        message names the path, the bytes needed and free);
 *   EBB_ERR_NO_MEMORY    host or device memory cannot be allocated;
 *   EBB_ERR_UNSUPPORTED  gpu tier without CUDA or without a device; disk tier
 *                        with EBB_DISK_BACKEND_URING where io_uring is refused.
 * Fallbacks that are not errors (unpinned host memory, threads instead of
 * io_uring under AUTO, buffered instead of O_DIRECT, unregistered or partly
 * registered buffers, unregistered files, a raised RLIMIT_MEMLOCK soft limit)
 * are recorded in ebb_pool_info.warnings. */
EBB_API ebb_status ebb_pool_create(const ebb_pool_options *options, ebb_pool **out);

/* Waits for every operation in flight, then frees the pool (closing, and so
 * deleting, its files); a disk pool's max_bandwidth no longer holds them
 * back then: what is queued runs at the disk's speed. A host pool also
 * waits for the disk operations of any disk pool still using its slots. NULL is allowed. Returns nothing: it
 * cannot fail. */
EBB_API void ebb_pool_destroy(ebb_pool *pool);

/* What a pool is and which fallbacks it took. Strings stay valid until the
 * pool is destroyed. */
typedef struct ebb_pool_info {
    ebb_tier tier;
    size_t slot_size;          /* bytes of one slot */
    size_t slot_stride;        /* bytes a slot occupies (rounded up to the alignment) */
    int32_t slots;
    uint64_t bytes;            /* memory or file space reserved in all */
    const char *backend;       /* "memory" (host), "cuda" (gpu), "io_uring" or
                                  "threads" (disk) */
    int numa_node;             /* host: node the memory is bound to, -1 if none;
                                  disk: node nearest the first directory's drive,
                                  -1 if unknown */
    int pinned;                /* host: page-locked for CUDA DMA */
    int device;                /* gpu: device ordinal; otherwise -1 */
    int direct;                /* disk: O_DIRECT in use */
    int registered_buffers;    /* disk: io_uring fixed buffers in use (for all of the
                                  staging pool or part: registered_bytes) */
    int registered_files;      /* disk: io_uring fixed files in use */
    int32_t queue_depth;       /* disk */
    int32_t threads;           /* disk: I/O threads: io_uring, one ring thread per
                                  device (the checksum thread, when checksums are on,
                                  and the codec threads are not counted); threads, the workers of every
                                  device group */
    size_t block;              /* disk, gpu: bytes per request or chunk */
    size_t alignment;          /* disk: direct-I/O alignment of offsets and lengths */
    int checksum;              /* disk: per-block checksums on */
    int32_t path_count;        /* disk: files (drives) */
    const char *warnings;      /* fallbacks taken and why, "; "-separated; "" if none */
    uint64_t registered_bytes; /* disk: bytes of the staging pool registered as io_uring
                                  fixed buffers (the whole pool, the slots RLIMIT_MEMLOCK
                                  lets through, or 0) */
    double max_bandwidth;      /* disk: bytes per second it is paced to; 0: no limit */
    const char *compression;   /* disk, host: the codec's mode ("lossless", "fixed-rate",
                                  ...; ebb_compression_name); "off" when states are
                                  stored as they are, and for gpu pools */
    int32_t codec_threads;     /* disk, host with compression: the codec threads
                                  (compressing and decompressing); 0 otherwise */
    uint64_t codec_buffer_bytes; /* disk with compression: memory of the compressed
                                    buffers (2 per codec thread, each the codec's bound
                                    rounded up to the alignment) and the per-thread
                                    decompression scratch; host with compression: the
                                    per-thread scratch (the codec's bound each); 0
                                    otherwise */
} ebb_pool_info;

EBB_API ebb_status ebb_pool_info_get(const ebb_pool *pool, ebb_pool_info *info);

/* Counters since creation or the last reset, for the operations this pool
 * ran (a host <-> disk move counts in the disk pool, host <-> gpu in the gpu
 * pool, put/get and host <-> host in the pool named). */
typedef struct ebb_pool_stats {
    uint64_t writes;         /* operations that stored into this pool's slots */
    uint64_t reads;          /* operations that loaded from this pool's slots */
    uint64_t bytes_written;  /* bytes stored into this pool's slots */
    uint64_t bytes_read;     /* bytes loaded from this pool's slots */
    uint64_t requests;       /* disk requests or gpu copy chunks issued */
    uint64_t retries;        /* disk requests resubmitted (EAGAIN, short I/O) */
    uint64_t errors;         /* operations that failed */
    /* disk with compression (bytes_written above counts states' bytes) */
    uint64_t bytes_before_compression; /* state bytes of the writes that went through the
                                          codec (every write when compression is on) */
    uint64_t bytes_after_compression;  /* bytes those writes stored: the compressed length,
                                          or the state's size when stored raw */
    uint64_t stored_raw;     /* writes stored uncompressed because they did not shrink
                                (below the state's size, after rounding to the alignment) */
    double codec_s;          /* seconds the codec threads spent compressing and
                                decompressing (summed over the threads) */
    uint64_t stored_raw_slower; /* of stored_raw: stored uncompressed because compressing
                                   would have made the state slower through the channel
                                   than raw (ebb_codec_pays on the figures below) */
    ebb_codec_rates measured;   /* what the codec threads measured, recent states weighing
                                   most (a compressed host pool: over every state): ratio,
                                   compress and decompress rates of one thread (0 until
                                   measured), threads; not reset */
    double disk_bps;            /* the disk's rate the rule takes: max_bandwidth when
                                   paced, else what the writes achieved; 0: not yet */
    /* disk, or host with compression: the codec threads' compressions (tries
     * included: a state that did not shrink counts, one stored raw without a
     * try does not) and decompressions, failed ones included */
    uint64_t compressions;
    uint64_t decompressions;
} ebb_pool_stats;

EBB_API ebb_status ebb_pool_stats_get(const ebb_pool *pool, ebb_pool_stats *stats);
EBB_API ebb_status ebb_pool_stats_reset(ebb_pool *pool);

/* Host and gpu pools: the address of a slot (host memory or device memory).
 * EBB_ERR_UNSUPPORTED for a disk pool, EBB_ERR_INVALID_ARG for a slot out of
 * range, EBB_ERR_NO_MEMORY for a host slot beyond the ready ones
 * (ebb_pool_options.ready_slots) whose extent cannot be made ready. */
EBB_API ebb_status ebb_pool_slot_ptr(const ebb_pool *pool, int32_t slot, void **ptr);

/* A lazy host pool (ebb_pool_options.lazy): the slot's whole pages from
 * byte `from` on (0: all of them) are given back to the system (they read
 * as zeros after, and take memory again when written). No transfer may
 * touch them meanwhile. EBB_ERR_INVALID_ARG for another pool, a slot out
 * of range or `from` past the slot; EBB_ERR_IO where the system refuses
 * (errno text). */
EBB_API ebb_status ebb_pool_slot_discard(ebb_pool *pool, int32_t slot, size_t from);

/* ---- operations ----------------------------------------------------------- */

/* A handle to one operation. A ticket with pool == NULL is complete and
 * succeeded (synchronous operations return such a ticket). Copy it freely;
 * it holds no resource: forgetting one leaks nothing. */
typedef struct ebb_ticket {
    ebb_pool *pool;      /* the pool that runs it, NULL when already complete */
    uint32_t index;      /* internal */
    uint32_t generation; /* internal */
} ebb_ticket;

/* Copies slot_size bytes from `src_slot` of `src` to `dst_slot` of `dst`.
 * host -> host is a memcpy (the ticket is complete on return); host <-> disk
 * runs on the disk pool's engine; host <-> gpu and gpu <-> gpu on the gpu
 * pool's copy streams (device -> host, host -> device, device -> device: four
 * non-blocking streams each, never the caller's). Both pools need the same
 * slot_size.
 * Errors: EBB_ERR_INVALID_ARG (NULL, slot out of range, different slot
 * sizes), EBB_ERR_UNSUPPORTED (disk <-> disk, gpu <-> disk: chain through a
 * host slot), EBB_ERR_STATE (a slot is busy, or the disk slot read holds no
 * data, or the slot's previous operation failed and its ticket was never
 * tested: refused once, quoting that failure), EBB_ERR_IO (a CUDA call
 * refused the copy; chunks already queued still run, and the slot stays
 * busy until they finished). A gpu slot that a gpu -> gpu copy still reads
 * may be read but not written (EBB_ERR_STATE) while the copy is in flight,
 * when both pools are on the same device (across devices the source slot is
 * not tracked: wait for the copy's ticket before writing it). */
EBB_API ebb_status ebb_move(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                            ebb_ticket *ticket);

/* Moves a state from `src_slot` of `src` to `dst_slot` of `dst` through
 * host slot `via_slot` of a pinned host pool `via` in one call, pipelined by
 * the disk pool's blocks (ebb_pool_info.block), so that a state crosses in
 * about the time of the slower channel rather than the sum of both.
 * tickets[0] is the first leg, tickets[1] the second, which completes after
 * the first: once it has, the whole move has (the host slot is in use until
 * then).
 * gpu -> host -> disk (src a gpu pool, dst a disk pool): each block goes to
 * disk as soon as its bytes have crossed to the host (with checksums on, is
 * hashed then). The copy runs on one device -> host stream, after
 * ebb_pool_order_after's work as a gpu -> host move does. A copy that fails
 * fails the disk leg, naming the block (the disk slot then holds no data).
 * The disk engine serves its queue in order: operations queued after this
 * one wait while its blocks wait for the gpu.
 * disk -> host -> gpu (src a disk pool, dst a gpu pool): each block read
 * is copied on to the gpu at once (by the disk engine's thread, on one host
 * -> device stream, after ebb_pool_slot_order_after's work on the slot);
 * the gpu leg's ticket is incomplete until the read ended, and reports a
 * failed read (or checksum mismatch) as its own failure too.
 * Errors: as ebb_move for either leg, checked before anything starts;
 * EBB_ERR_UNSUPPORTED for other tier combinations. */
EBB_API ebb_status ebb_move_via(ebb_pool *dst, int32_t dst_slot, ebb_pool *via, int32_t via_slot,
                                ebb_pool *src, int32_t src_slot, ebb_ticket tickets[2]);

/* Stores slot_size bytes from the caller's memory into a slot.
 * host pool: memcpy, complete on return. gpu pool: `src` is device memory or
 * pinned host memory (pageable memory is refused: EBB_ERR_INVALID_ARG), copied
 * on the pool's device -> device or host -> device stream. Device memory
 * means any device's memory, or managed memory: copied with
 * cudaMemcpyDefault (unified addressing). disk pool:
 * EBB_ERR_UNSUPPORTED (use ebb_move from a host slot). */
EBB_API ebb_status ebb_pool_put(ebb_pool *pool, int32_t slot, const void *src,
                                ebb_ticket *ticket);

/* Loads slot_size bytes from a slot into the caller's memory; as
 * ebb_pool_put, the other way. */
EBB_API ebb_status ebb_pool_get(ebb_pool *pool, int32_t slot, void *dst, ebb_ticket *ticket);

/* *done = 1 when the operation completed, 0 otherwise. Returns the
 * operation's failure (EBB_ERR_IO, EBB_ERR_CHECKSUM, ...), with its message,
 * once it completed with one; EBB_OK otherwise. Testing a complete ticket
 * again returns the same result. A ticket whose slot has since started
 * another operation reports complete and EBB_OK (its failure, if any, was
 * reported before the slot could be reused). */
EBB_API ebb_status ebb_ticket_test(const ebb_ticket *ticket, int *done);

/* Blocks until the operation completes; returns its result as ebb_ticket_test. */
EBB_API ebb_status ebb_ticket_wait(const ebb_ticket *ticket);

/* Waits for all `count` tickets (even after a failure); returns the first
 * failure in array order, EBB_OK if none. */
EBB_API ebb_status ebb_ticket_wait_all(const ebb_ticket *tickets, size_t count);

/* ---- CUDA stream ordering (gpu pools; `stream` is a cudaStream_t of the
 * pool's device (ebb_pool_info.device), or NULL: the legacy default stream
 * of the pool's device, whichever device is current (both calls make the
 * pool's device current for the call and restore the caller's). A stream of
 * another device is not supported: ebb_pool_order_after records an event on
 * it, which CUDA refuses (EBB_ERR_IO). EBB_ERR_INVALID_ARG for a host or disk
 * pool or ticket; EBB_ERR_IO when CUDA refuses (its error text in the
 * message). */

/* Operations started on `pool` after this call that read what the caller's
 * work may have produced (gpu -> host, gpu -> gpu, and put / get with the
 * caller's device memory) begin only after the work queued on `stream` now
 * (e.g. the forward step that produced the state to store). Copies into the
 * pool's slots from host memory (restores, prefetches) do not wait: they
 * start at once; order them after the caller's use of their slot with
 * ebb_pool_slot_order_after. The stream itself never waits. */
EBB_API ebb_status ebb_pool_order_after(ebb_pool *pool, void *stream);

/* Every operation started on `slot` after this call begins only after the
 * work queued on `stream` now. Call it once the work that reads or writes
 * the slot is queued (e.g. after each step that used it), so that a later
 * restore into the slot cannot overwrite it under that work, without
 * waiting for the rest of the stream. */
EBB_API ebb_status ebb_pool_slot_order_after(ebb_pool *pool, int32_t slot, void *stream);

/* How far the device has come on `stream`: ebb_pool_mark records a point
 * after the work queued on it now (one per pool: a new mark replaces the
 * last); ebb_pool_mark_reached sets *reached to 1 once the device has
 * finished that work, 0 before, without waiting (1 when no mark was
 * recorded). The host may run many steps ahead of the device; a decision
 * that must follow the device (is a copy done before the step that
 * produced the next state?) compares a ticket with the mark. */
EBB_API ebb_status ebb_pool_mark(ebb_pool *pool, void *stream);
EBB_API ebb_status ebb_pool_mark_reached(ebb_pool *pool, int *reached);

/* Makes `stream` wait (on the GPU, without blocking the caller) for the
 * operation of `ticket`, e.g. before a reverse step reads a restored state.
 * A complete ticket (pool NULL) adds no wait. The gpu leg of a disk -> host
 * -> gpu ebb_move_via first waits on the host until its disk read ended
 * (its last copies are queued then). */
EBB_API ebb_status ebb_ticket_stream_wait(const ebb_ticket *ticket, void *stream);

/* ---- topology -------------------------------------------------------------- */

/* Number of CUDA devices usable now: 0 without CUDA, a driver or a device.
 * Never fails. */
EBB_API int ebb_gpu_count(void);

/* NUMA node (OS index) nearest CUDA device `device`; -1 when unknown (no GPU,
 * one NUMA node, no topology information). Returns EBB_OK even then. */
EBB_API ebb_status ebb_topology_gpu_node(int device, int *node);

/* NUMA node nearest the block device holding `path`; -1 when unknown (tmpfs,
 * overlay, no sysfs). EBB_ERR_IO when `path` cannot be stat()ed. */
EBB_API ebb_status ebb_topology_path_node(const char *path, int *node);

#ifdef __cplusplus
}
#endif

#endif
