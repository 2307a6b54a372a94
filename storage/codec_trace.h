/* The codec threads' spans (codec_trace.c): for a timeline, each
 * compression and decompression a pool's codec threads run (the disk
 * tier's, disk_codec.c, and a compressed host pool's, host_codec.c), with
 * its times on CLOCK_MONOTONIC, recorded by the thread into a ring of its
 * own, made once when recording starts; the caller takes them out when it
 * likes. A thread never waits for the caller: a span that finds its ring
 * full is dropped and counted. Nothing is recorded, and nothing made, until
 * ebb_pool_codec_trace_start. Internal to the library (the runtime's
 * timeline, runtime/io_storage.c; tests), as storage/fault.h is. */
#ifndef EBB_STORAGE_CODEC_TRACE_H
#define EBB_STORAGE_CODEC_TRACE_H

#include <stdint.h>

#include "ebb/storage.h"

struct ebb_pool;

typedef struct ebb_codec_span {
    uint64_t t0_ns, t1_ns;  /* CLOCK_MONOTONIC, taken on the codec thread */
    uint64_t state_bytes;   /* the state's size */
    uint64_t coded_bytes;   /* compress: what the codec gave (0: it failed); decompress:
                               the compressed bytes it read */
    int32_t slot;           /* the pool's slot */
    uint32_t generation;    /* its operation's: the ticket's (ebb_ticket.generation) */
    int8_t compress;        /* 1: compress, 0: decompress */
    int8_t raw;             /* compress: the state was stored raw (it did not shrink) */
    int8_t failed;          /* the codec (or an injected fault) failed */
} ebb_codec_span;

/* Starts recording a pool's codec spans, `capacity` per codec thread kept
 * until taken (the pool's codec threads in *threads; 0: the pool has none
 * and nothing is recorded). Once per pool, before its first operation
 * (EBB_ERR_STATE the second time); EBB_ERR_INVALID_ARG for a capacity below
 * 1; EBB_ERR_NO_MEMORY. */
ebb_status ebb_pool_codec_trace_start(ebb_pool *pool, int32_t capacity, int32_t *threads);

/* Takes up to `max` spans codec thread `thread` recorded (oldest first;
 * *count of them) and the spans it dropped since the last take (its ring
 * was full) into *dropped. Only one caller at a time. */
ebb_status ebb_pool_codec_spans(ebb_pool *pool, int32_t thread, ebb_codec_span *out, int32_t max,
                                int32_t *count, uint64_t *dropped);

/* The pool's codec threads: a span (nothing when recording is off). */
void ebb_codec_trace_record(struct ebb_pool *pool, int32_t thread, const ebb_codec_span *span);
/* pool.c: the rings, made and freed. */
struct ebb_codec_trace *ebb_codec_trace_new(int32_t threads, int32_t capacity);
void ebb_codec_trace_free(struct ebb_codec_trace *t);

#endif
