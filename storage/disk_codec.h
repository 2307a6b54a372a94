/* The disk tier's compression (disk_codec.c): the codec, the compressed
 * buffers, the codec threads' scratch and, per slot, what its last write
 * stored. The codec threads (disk_hash.c) call pack on a write before it is
 * queued for the engine and unpack on a read after its blocks are in (and
 * verified); the core releases a write's buffer when it completes. Below the
 * core: it calls only the codec (codec.c), the layout and the op records. */
#ifndef EBB_STORAGE_DISK_CODEC_H
#define EBB_STORAGE_DISK_CODEC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ebb/codec.h"
#include "ebb/storage.h"

struct ebb_pool;
struct ebb_op;

/* Compressed buffers per codec thread: one being filled while one goes to
 * disk. */
#define EBB_DISK_CODEC_BUFS_PER_THREAD 2

enum { EBB_DISK_CODEC_RAW_RUN = 4, EBB_DISK_CODEC_SKIP_MIN = 4, EBB_DISK_CODEC_SKIP_MAX = 256 };
/* A lossless try on a copy of a state of at least SAMPLE_FROM bytes
 * compresses 1/SAMPLE_SHARE of it, in SAMPLE_PIECES pieces spread over it:
 * its CPU time is what a try costs the steps. */
enum { EBB_DISK_CODEC_SAMPLE_FROM = 1 << 20, EBB_DISK_CODEC_SAMPLE_SHARE = 8,
       EBB_DISK_CODEC_SAMPLE_PIECES = 8 };

typedef struct ebb_disk_codec {
    ebb_codec *codec;        /* NULL: compression off (nothing below is made) */
    ebb_compression mode;
    int32_t nthreads;        /* codec threads (ebb_pool_options.codec_threads) */
    size_t cap;              /* bytes of one compressed buffer: the codec's bound
                                rounded up to the alignment */
    unsigned char *bufs;     /* nbufs x cap, aligned for direct I/O */
    int32_t nbufs;
    int32_t *free_bufs;      /* indices of the free buffers (a stack) */
    int32_t nfree;
    unsigned char *scratch;  /* nthreads x cap: a read's compressed bytes, zero-padded */
    uint64_t *len;           /* per slot: the compressed length its last write stored,
                                0 when it was stored raw (the state as it is) */
    uint64_t bytes;          /* bufs + scratch */
    _Atomic uint64_t packs;  /* compressions so far (fault.codec_fail_nth) */
    /* Data that does not compress: after EBB_DISK_CODEC_RAW_RUN states in a
     * row stored raw, the next `skip` states are stored raw without trying
     * (the codec's time saved); then one is tried again, and `backoff`
     * doubles while the tries keep failing (at most EBB_DISK_CODEC_SKIP_MAX),
     * and falls back once a state shrinks. */
    _Atomic int32_t raw_run, skip, backoff;
    _Atomic int probing;     /* a try is under way while the last ones said raw */
    ebb_codec *sample;       /* lossless, large states: the codec of a try on a
                                copy, for sample_piece x SAMPLE_PIECES bytes */
    size_t sample_piece;
    _Atomic int paid;        /* the last try said compressing pays: the next
                                states are tried for real; 0 (also before the
                                first try): tried on a copy (ebb_disk_shadow) */
    /* Never slower than off: what the codec threads measured (recent states
     * weigh most; decompress_bps 0 until a read, taken as compress_bps) and
     * the disk's rate (the pace, else what writes achieved), under `lock`.
     * A try that shrank but would have been slower than raw
     * (ebb_codec_pays) counts towards the skip as one that did not shrink;
     * skip_slower: the skip under way is for that reason. */
    ebb_codec_rates seen;
    double disk_bps;
    _Atomic int rate_known;  /* disk_bps measured: a write completed */
    _Atomic int32_t skip_slower;
    /* fixed rate smaller than the state: every state is stored compressed,
     * and a slot on disk takes only the fixed size (layout.slot_size) */
    int fixed_slots;
    pthread_mutex_t lock;    /* free_bufs, nfree */
    pthread_cond_t cv;       /* a buffer came free */
    int sync_init;
} ebb_disk_codec;

/* init: makes the codec, first thing at creation (so that bad options are
 * refused before any file is made): EBB_OK with nothing made when
 * o->compression is NULL or off; EBB_ERR_INVALID_ARG for options the codec
 * refuses (its message, prefixed with "disk pool compression"),
 * EBB_ERR_NO_MEMORY. buffers: the compressed buffers, the scratch and the
 * per-slot record, once the layout (its alignment) is known. fini frees
 * what they made. */
ebb_status ebb_disk_codec_init(struct ebb_pool *pool, const ebb_pool_options *o);
ebb_status ebb_disk_codec_buffers(struct ebb_pool *pool);
void ebb_disk_codec_fini(struct ebb_pool *pool);

/* A read of `slot` about to start: the bytes and blocks it moves and whether
 * they are a packed (compressed) state, from the slot's record. */
void ebb_disk_codec_read_plan(const struct ebb_pool *pool, int32_t slot, size_t *bytes,
                              uint32_t *blocks, int *packed);

/* Whether this write is one the pool skips compressing (after states that
 * did not shrink or did not pay: the backoff, or a try under way while the
 * last ones said raw); if so it is marked stored raw (op->coded,
 * op->slower) and its slot's length reset, and needs no codec thread. 0 for
 * a fixed-rate pool (every state compressed). The codec thread that takes
 * a write asks again, and only it takes the one try. */
int ebb_disk_codec_skip(struct ebb_pool *pool, struct ebb_op *op);
/* A try on a copy: while the last try said raw (or before the first), a
 * state goes to disk raw at once and its copy in the codec thread's scratch
 * is compressed only to measure, after the write is queued, so that a try
 * never holds a write back. */
typedef struct ebb_disk_shadow {
    int pending;          /* a copy waits to be tried */
    int probe;            /* it holds the one try under way (probing) */
    int32_t slot;         /* for its span on a timeline */
    uint32_t generation;
} ebb_disk_shadow;

/* A codec thread (`thread`: its index, for its scratch and its span on a
 * timeline), for a write that has not failed. A try for real: takes a
 * compressed buffer (waiting for a write to complete when none is free),
 * compresses the host slot into it and points the operation at it (buf,
 * bytes, blocks, remaining, packed, cbuf), or, when the state did not shrink
 * or did not pay, gives the buffer back and leaves the operation on the
 * host slot (stored raw); a codec failure fails the operation. A try on a
 * copy: copies the host slot into the thread's scratch, marks the operation
 * stored raw and fills *shadow for ebb_disk_codec_shadow. Records the slot's
 * length, and counts the run of the codec (with its span, codec_trace.h). */
void ebb_disk_codec_pack(struct ebb_pool *pool, struct ebb_op *op, int thread,
                         ebb_disk_shadow *shadow);
/* The same codec thread, once the write is queued: compresses the copy to
 * measure (the rule's figures and verdict), keeps nothing. A codec failure
 * there counts as a state that did not shrink: the state is on disk raw. */
void ebb_disk_codec_shadow(struct ebb_pool *pool, const ebb_disk_shadow *shadow, int thread);

/* A codec thread (`thread`: its scratch, and its span's track), for a
 * packed read whose blocks are in the host slot: decompresses them into
 * the host slot (a run of the codec, counted as pack's). A state that
 * does not decode fails the operation with EBB_ERR_CHECKSUM naming the slot
 * and its file. Returns 0, or -1 when it failed. */
int ebb_disk_codec_unpack(struct ebb_pool *pool, struct ebb_op *op, int thread);

/* The write `op` has completed (or failed): its buffer, if any, comes free. */
void ebb_disk_codec_release(struct ebb_pool *pool, struct ebb_op *op);

/* A coded write completed: the disk's rate it achieved (an unpaced pool's
 * figure for the rule). */
void ebb_disk_codec_wrote(struct ebb_pool *pool, const struct ebb_op *op, uint64_t now_ns);

/* The rule's figures now: the measured rates and the disk's (0: not yet). */
void ebb_disk_codec_figures(const struct ebb_pool *pool, ebb_codec_rates *rates, double *disk_bps);

#endif
