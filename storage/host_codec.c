/* The host tier's compression (host_codec.h). A compressed host pool maps
 * its slots as any host pool (host.c), each the fixed size rounded up to
 * EBB_HOST_PACKED_ALIGN, never pinned (no gpu copies from it), and runs a
 * queue of operations, one record per slot as the disk pool has, served by
 * its codec threads: a store compresses the caller's state (or a host
 * slot's) into the slot, a load decompresses the slot into the caller's
 * memory (or a host slot). Nothing is allocated per operation: the queue
 * holds at most one entry per slot, since a slot takes one operation at a
 * time. */
#include "storage/host_codec.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error_internal.h"
#include "storage/codec_internal.h"
#include "storage/codec_trace.h"
#include "storage/storage_internal.h"
#include "storage/thread_start.h"

struct ebb_host_codec {
    ebb_codec *codec;
    ebb_compression mode;
    size_t fixed;            /* bytes of every compressed state */
    int32_t nthreads;        /* codec threads asked for */
    int32_t started;         /* codec threads running */
    pthread_t *threads;
    pthread_mutex_t lock;    /* the queue, stop */
    pthread_cond_t work;     /* an operation was queued, or stop */
    pthread_cond_t done;     /* an operation completed */
    int32_t *queue;          /* slots whose operation waits, a ring of pool->slots */
    int32_t head, len;
    int stop;
    unsigned char *filled;   /* per slot: 1 once a store into it succeeded */
    /* per thread: the codec's bound (zfp writes a whole stream's room, a
     * few bytes past the fixed size), zeros past what a state fills */
    unsigned char *scratch;
    size_t cap;
    struct hc_arg {
        struct ebb_pool *pool;
        int32_t index;
    } *args;
    int sync_init;
    /* the rates measured: states and nanoseconds each way (not reset) */
    _Atomic uint64_t compressed, compress_ns, decompressed, decompress_ns;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

ebb_status ebb_host_codec_init(struct ebb_pool *pool, const ebb_pool_options *o)
{
    pool->held = pool->slot_size;
    if (!o->compression || o->compression->mode == EBB_COMPRESSION_OFF)
        return EBB_OK;
    if (o->compression->mode != EBB_COMPRESSION_FIXED_RATE)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "host pool: ebb_pool_options.compression asks for \"%s\", which the "
                        "host tier refuses: the size of a compressed state is not known before, "
                        "so no slot can be sized for it; use \"fixed-rate\" (every state the "
                        "same size) or compress on the disk tier",
                        ebb_compression_name(o->compression->mode));
    if (o->codec_threads < 0 || o->codec_threads > EBB_CODEC_THREADS_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "host pool compression: codec_threads is %d; expected 0 (%d) .. %d",
                        (int)o->codec_threads, EBB_CODEC_THREADS_DEFAULT, EBB_CODEC_THREADS_MAX);
    struct ebb_host_codec *c = calloc(1, sizeof *c);
    if (!c)
        return ebb_fail(EBB_ERR_NO_MEMORY, "host pool compression: cannot allocate its record");
    pool->hc = c;
    ebb_status s = ebb_codec_create(o->compression, pool->slot_size, &c->codec);
    if (s != EBB_OK)
        return ebb_fail_context(s, "host pool compression");
    c->mode = o->compression->mode;
    c->fixed = ebb_codec_fixed_size(c->codec);
    c->nthreads = o->codec_threads > 0 ? o->codec_threads : EBB_CODEC_THREADS_DEFAULT;
    pool->codec_threads = c->nthreads;
    pool->held = c->fixed;
    return EBB_OK;
}

static void *codec_main(void *arg);

ebb_status ebb_host_codec_start(struct ebb_pool *pool, const ebb_pool_options *o)
{
    (void)o;
    struct ebb_host_codec *c = pool->hc;
    if (!c)
        return EBB_OK;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->work, NULL);
    pthread_cond_init(&c->done, NULL);
    c->sync_init = 1;
    pool->ops = calloc((size_t)pool->slots, sizeof *pool->ops);
    c->queue = calloc((size_t)pool->slots, sizeof *c->queue);
    c->filled = calloc((size_t)pool->slots, 1);
    c->threads = calloc((size_t)c->nthreads, sizeof *c->threads);
    c->args = calloc((size_t)c->nthreads, sizeof *c->args);
    c->cap = (ebb_codec_bound(c->codec) + EBB_HOST_PACKED_ALIGN - 1) / EBB_HOST_PACKED_ALIGN *
             EBB_HOST_PACKED_ALIGN;
    c->scratch = calloc((size_t)c->nthreads, c->cap);
    if (!pool->ops || !c->queue || !c->filled || !c->threads || !c->args || !c->scratch)
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "host pool compression: cannot allocate the records of %d slots and %d "
                        "codec threads' scratch of %zu bytes",
                        (int)pool->slots, (int)c->nthreads, c->cap);
    for (int32_t i = 0; i < c->nthreads; i++) {
        c->args[i].pool = pool;
        c->args[i].index = i;
        int r = ebb_thread_start(&c->threads[i], codec_main, &c->args[i], "ebb-host-codec");
        if (r != 0)
            return ebb_fail_errno(EBB_ERR_NO_MEMORY, r,
                                  "host pool compression: cannot start codec thread %d of %d",
                                  (int)i + 1, (int)c->nthreads);
        c->started++;
    }
    return EBB_OK;
}

void ebb_host_codec_fini(struct ebb_pool *pool)
{
    struct ebb_host_codec *c = pool->hc;
    if (!c)
        return;
    if (c->sync_init) {
        /* the threads leave once the queue is empty: every operation ends */
        pthread_mutex_lock(&c->lock);
        c->stop = 1;
        pthread_cond_broadcast(&c->work);
        pthread_mutex_unlock(&c->lock);
        for (int32_t i = 0; i < c->started; i++)
            pthread_join(c->threads[i], NULL);
        pthread_mutex_destroy(&c->lock);
        pthread_cond_destroy(&c->work);
        pthread_cond_destroy(&c->done);
    }
    ebb_codec_destroy(c->codec);
    free(c->scratch);
    free(c->args);
    free(c->threads);
    free(c->queue);
    free(c->filled);
    free(pool->ops);
    pool->ops = NULL;
    free(c);
    pool->hc = NULL;
}

/* One operation, on codec thread `index`: through its scratch, which has
 * the room the codec asks for (a slot has only the fixed size). */
static void run_op(struct ebb_pool *pool, ebb_op *op, int32_t index)
{
    struct ebb_host_codec *c = pool->hc;
    unsigned char *slot = ebb_host_slot_addr(pool, op->slot);
    unsigned char *scratch = c->scratch + (size_t)index * c->cap;
    uint64_t t0 = now_ns();
    ebb_status s;
    size_t len = 0;
    if (op->write) {
        s = ebb_codec_compress(c->codec, op->buf, scratch, c->cap, &len);
        if (s == EBB_OK)
            memcpy(slot, scratch, len); /* len is the fixed size (the codec checks) */
    } else {
        memcpy(scratch, slot, c->fixed);
        s = ebb_codec_decompress_padded(c->codec, scratch, c->fixed, op->buf);
    }
    uint64_t t1 = now_ns();
    atomic_fetch_add(&pool->st_codec_ns, t1 - t0);
    atomic_fetch_add(op->write ? &pool->st_compressions : &pool->st_decompressions, 1);
    if (s == EBB_OK) { /* the rates measured each way (ebb_pool_stats.measured) */
        atomic_fetch_add(op->write ? &c->compressed : &c->decompressed, 1);
        atomic_fetch_add(op->write ? &c->compress_ns : &c->decompress_ns, t1 - t0);
    }
    if (atomic_load_explicit(&pool->codec_trace, memory_order_relaxed)) {
        /* its span, before the operation completes */
        ebb_codec_span span = {t0, t1, pool->slot_size, op->write ? len : c->fixed, op->slot,
                               op->generation, (int8_t)op->write, 0, (int8_t)(s != EBB_OK)};
        ebb_codec_trace_record(pool, index, &span);
    }
    if (s != EBB_OK) {
        ebb_op_fail(op, s, "host slot %d: %s the state failed: %s", (int)op->slot,
                    op->write ? "compressing" : "decompressing", ebb_last_error());
        atomic_fetch_add(&pool->st_errors, 1);
    } else if (op->write) {
        c->filled[op->slot] = 1;
        atomic_fetch_add(&pool->st_writes, 1);
        atomic_fetch_add(&pool->st_bytes_written, pool->slot_size);
        atomic_fetch_add(&pool->st_codec_before, pool->slot_size);
        atomic_fetch_add(&pool->st_codec_after, len);
    } else {
        atomic_fetch_add(&pool->st_reads, 1);
        atomic_fetch_add(&pool->st_bytes_read, pool->slot_size);
    }
    /* the other host slot is free before the ticket says so */
    if (op->host)
        ebb_host_disk_end(op->host, op->host_slot, op->write);
    pthread_mutex_lock(&c->lock);
    atomic_store_explicit(&op->state, EBB_OP_DONE, memory_order_release);
    pthread_cond_broadcast(&c->done);
    pthread_mutex_unlock(&c->lock);
}

static void *codec_main(void *arg)
{
    const struct hc_arg *a = arg;
    struct ebb_pool *pool = a->pool;
    struct ebb_host_codec *c = pool->hc;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        while (c->len == 0 && !c->stop)
            pthread_cond_wait(&c->work, &c->lock);
        if (c->len == 0) { /* stop, and nothing left */
            pthread_mutex_unlock(&c->lock);
            return NULL;
        }
        int32_t slot = c->queue[c->head];
        c->head = (c->head + 1) % pool->slots;
        c->len--;
        pthread_mutex_unlock(&c->lock);
        run_op(pool, &pool->ops[slot], a->index);
    }
}

/* EBB_OK when slot `slot` may start an operation (reading it: `reads`). */
static ebb_status slot_free(struct ebb_pool *pool, int32_t slot, int reads)
{
    struct ebb_host_codec *c = pool->hc;
    ebb_op *op = &pool->ops[slot];
    uint32_t st = atomic_load_explicit(&op->state, memory_order_acquire);
    if (st == EBB_OP_PENDING)
        return ebb_fail(EBB_ERR_STATE,
                        "compressed host slot %d has an operation in flight; wait for its "
                        "ticket first",
                        (int)slot);
    if (st == EBB_OP_DONE && op->status != EBB_OK && !op->reported) {
        op->reported = 1;
        return ebb_fail(op->status, "compressed host slot %d: its last operation failed, "
                        "unseen: %s", (int)slot, op->msg);
    }
    if (reads && !c->filled[slot])
        return ebb_fail(EBB_ERR_STATE,
                        "compressed host slot %d holds no state (no store into it succeeded)",
                        (int)slot);
    return EBB_OK;
}

ebb_status ebb_host_codec_begin(struct ebb_pool *pool, int32_t slot, int write,
                                struct ebb_pool *host, int32_t host_slot, void *raw,
                                ebb_ticket *ticket)
{
    struct ebb_host_codec *c = pool->hc;
    ebb_status s = slot_free(pool, slot, !write);
    if (s != EBB_OK)
        return s;
    ebb_op *op = &pool->ops[slot];
    if (host)
        ebb_host_disk_begin(host, host_slot, write);
    ebb_op_begin(op, 1);
    op->write = write;
    op->slot = slot;
    op->host = host;
    op->host_slot = host_slot;
    op->buf = raw;
    op->bytes = pool->slot_size;
    if (write)
        c->filled[slot] = 0; /* until the store succeeds */
    atomic_store_explicit(&op->state, EBB_OP_PENDING, memory_order_release);
    pthread_mutex_lock(&c->lock);
    c->queue[(c->head + c->len) % pool->slots] = slot;
    c->len++;
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->lock);
    ebb_op_ticket(op, pool, (uint32_t)slot, ticket);
    return EBB_OK;
}

ebb_status ebb_host_codec_copy(struct ebb_pool *pool, int32_t dst, int32_t src)
{
    ebb_status s = slot_free(pool, src, 1);
    if (s == EBB_OK)
        s = slot_free(pool, dst, 0);
    if (s != EBB_OK)
        return s;
    memcpy(ebb_host_slot_addr(pool, dst), ebb_host_slot_addr(pool, src), pool->hc->fixed);
    pool->hc->filled[dst] = 1;
    return EBB_OK;
}

ebb_status ebb_host_codec_poll(struct ebb_pool *pool, ebb_op *op, int block, int *done)
{
    struct ebb_host_codec *c = pool->hc;
    if (atomic_load_explicit(&op->state, memory_order_acquire) != EBB_OP_DONE) {
        if (!block) {
            *done = 0;
            return EBB_OK;
        }
        pthread_mutex_lock(&c->lock);
        while (atomic_load_explicit(&op->state, memory_order_acquire) != EBB_OP_DONE)
            pthread_cond_wait(&c->done, &c->lock);
        pthread_mutex_unlock(&c->lock);
    }
    *done = 1;
    return ebb_op_report(op);
}

void ebb_host_codec_info(const struct ebb_pool *pool, ebb_pool_info *info)
{
    const struct ebb_host_codec *c = pool->hc;
    if (!c)
        return;
    info->compression = ebb_compression_name(c->mode);
    info->codec_threads = c->started;
    info->codec_buffer_bytes = (uint64_t)c->cap * (uint64_t)c->nthreads;
}

void ebb_host_codec_figures(const struct ebb_pool *pool, ebb_codec_rates *out)
{
    const struct ebb_host_codec *c = pool->hc;
    if (!c)
        return;
    double state = (double)pool->slot_size;
    uint64_t nc = atomic_load(&c->compressed), tc = atomic_load(&c->compress_ns);
    uint64_t nd = atomic_load(&c->decompressed), td = atomic_load(&c->decompress_ns);
    out->ratio = c->fixed > 0 ? state / (double)c->fixed : 0.0;
    out->compress_bps = tc > 0 ? (double)nc * state / ((double)tc * 1e-9) : 0.0;
    out->decompress_bps = td > 0 ? (double)nd * state / ((double)td * 1e-9) : 0.0;
    out->threads = c->started;
}
