/* The codec threads' spans (codec_trace.h): one ring a codec thread, one
 * writer (the thread) and one reader (ebb_pool_codec_spans' caller), so
 * neither takes a lock: the writer publishes a span by moving `head` with
 * release, the reader frees its room by moving `tail` with release. A span
 * is recorded before its operation completes, so a caller that saw the
 * ticket complete finds its span in the next take. */
#include "storage/codec_trace.h"

#include <stdlib.h>

#include "common/error_internal.h"
#include "storage/storage_internal.h"

typedef struct codec_ring {
    _Atomic uint64_t head;    /* spans written (the thread's) */
    _Atomic uint64_t tail;    /* spans taken (the reader's) */
    _Atomic uint64_t dropped; /* spans that found the ring full, not yet reported */
    ebb_codec_span *span;     /* capacity of them */
} codec_ring;

struct ebb_codec_trace {
    int32_t threads, capacity;
    codec_ring *ring;
    ebb_codec_span *spans; /* threads x capacity */
};

struct ebb_codec_trace *ebb_codec_trace_new(int32_t threads, int32_t capacity)
{
    struct ebb_codec_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->threads = threads;
    t->capacity = capacity;
    t->ring = calloc((size_t)threads, sizeof *t->ring);
    t->spans = calloc((size_t)threads * (size_t)capacity, sizeof *t->spans);
    if (!t->ring || !t->spans) {
        ebb_codec_trace_free(t);
        return NULL;
    }
    for (int32_t i = 0; i < threads; i++)
        t->ring[i].span = t->spans + (size_t)i * (size_t)capacity;
    return t;
}

void ebb_codec_trace_free(struct ebb_codec_trace *t)
{
    if (!t)
        return;
    free(t->spans);
    free(t->ring);
    free(t);
}

void ebb_codec_trace_record(struct ebb_pool *pool, int32_t thread, const ebb_codec_span *span)
{
    struct ebb_codec_trace *t = atomic_load_explicit(&pool->codec_trace, memory_order_acquire);
    if (!t || thread < 0 || thread >= t->threads)
        return;
    codec_ring *r = &t->ring[thread];
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (head - atomic_load_explicit(&r->tail, memory_order_acquire) >= (uint64_t)t->capacity) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        return; /* never waits for the reader */
    }
    r->span[head % (uint64_t)t->capacity] = *span;
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

ebb_status ebb_pool_codec_trace_start(ebb_pool *pool, int32_t capacity, int32_t *threads)
{
    if (!pool || !threads)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_codec_trace_start: NULL argument");
    *threads = 0;
    if (capacity < 1)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_pool_codec_trace_start: capacity is %d; expected at least 1 span a "
                        "codec thread", (int)capacity);
    if (atomic_load(&pool->codec_trace))
        return ebb_fail(EBB_ERR_STATE, "ebb_pool_codec_trace_start: the pool records its codec "
                                       "spans already");
    if (pool->codec_threads <= 0)
        return EBB_OK;
    struct ebb_codec_trace *t = ebb_codec_trace_new(pool->codec_threads, capacity);
    if (!t)
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "cannot allocate the codec spans of %d threads, %d spans each",
                        (int)pool->codec_threads, (int)capacity);
    atomic_store_explicit(&pool->codec_trace, t, memory_order_release);
    *threads = pool->codec_threads;
    return EBB_OK;
}

ebb_status ebb_pool_codec_spans(ebb_pool *pool, int32_t thread, ebb_codec_span *out, int32_t max,
                                int32_t *count, uint64_t *dropped)
{
    if (!pool || (!out && max > 0) || !count || !dropped)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_codec_spans: NULL argument");
    *count = 0;
    *dropped = 0;
    struct ebb_codec_trace *t = atomic_load_explicit(&pool->codec_trace, memory_order_acquire);
    if (!t)
        return EBB_OK;
    if (thread < 0 || thread >= t->threads)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_pool_codec_spans: thread %d; the pool has codec threads 0 .. %d",
                        (int)thread, (int)t->threads - 1);
    codec_ring *r = &t->ring[thread];
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    int32_t n = 0;
    for (; tail + (uint64_t)n < head && n < max; n++)
        out[n] = r->span[(tail + (uint64_t)n) % (uint64_t)t->capacity];
    atomic_store_explicit(&r->tail, tail + (uint64_t)n, memory_order_release);
    *count = n;
    *dropped = atomic_exchange_explicit(&r->dropped, 0, memory_order_relaxed);
    return EBB_OK;
}
