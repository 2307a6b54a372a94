/* The disk tier's compression (disk_codec.h): states compressed on their
 * way to the disk and decompressed on their way back, by the codec threads
 * (disk_hash.c), never by the caller or an engine thread.
 *
 * A write takes one of a fixed set of compressed buffers (made at creation:
 * EBB_DISK_CODEC_BUFS_PER_THREAD per codec thread, each the codec's bound
 * rounded up to the alignment), compresses the host slot into it and goes to
 * disk from there, cut at its compressed length; the buffer comes free when
 * the write completes. A thread that finds none free waits for one: only
 * writes hold buffers, and they complete without the codec threads, so the
 * wait always ends. A state that does not shrink (its compressed length,
 * rounded up to the alignment, is not below the state's) is stored raw,
 * from the host slot as without compression; after EBB_DISK_CODEC_RAW_RUN
 * such states in a row, the next ones are stored raw without a try, a
 * growing number of them between tries (disk_codec.h). So does a state
 * that shrank but whose channel would have been slower than raw's, by the
 * rule of ebb_codec_pays on the rates the codec threads measure (never
 * slower than off). Its compression is spent, so such a state is stored
 * compressed only if reading it back compressed (the read and the
 * decompression) is faster than reading it raw; else raw, and the reverse
 * sweep never waits on its decompression. Until a try pays (the first one
 * too), tries are made on a copy: the state goes raw at once and the copy
 * (of a large lossless state, a sample of it) is compressed after the write
 * is queued, only to measure. Each slot remembers what its
 * last write stored (the compressed length, or 0: raw); a read moves only
 * those bytes into the host slot, then a codec thread copies them into its
 * scratch, zero-padded to the codec's bound, and decompresses them back into
 * the host slot. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error_internal.h"
#include "storage/codec_internal.h"
#include "storage/codec_trace.h"
#include "storage/disk.h"

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

ebb_status ebb_disk_codec_init(struct ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_disk_codec *c = &pool->disk->codec;
    if (!o->compression || o->compression->mode == EBB_COMPRESSION_OFF)
        return EBB_OK;
    ebb_status s = ebb_codec_create(o->compression, pool->slot_size, &c->codec);
    if (s != EBB_OK)
        return ebb_fail_context(s, "disk pool compression");
    c->mode = o->compression->mode;
    if (c->mode == EBB_COMPRESSION_LOSSLESS && pool->slot_size >= EBB_DISK_CODEC_SAMPLE_FROM) {
        /* a try on a copy compresses pieces of the state spread over it */
        size_t piece = pool->slot_size / EBB_DISK_CODEC_SAMPLE_SHARE / EBB_DISK_CODEC_SAMPLE_PIECES;
        piece -= piece % 64; /* whole elements of any type */
        if (ebb_codec_create(o->compression, piece * EBB_DISK_CODEC_SAMPLE_PIECES, &c->sample) ==
            EBB_OK)
            c->sample_piece = piece;
        else
            ebb_clear_error(); /* tries on a copy compress it whole */
    }
    size_t fixed = ebb_codec_fixed_size(c->codec);
    if (fixed > 0 && fixed < pool->slot_size) { /* a budget holds that many more slots */
        c->fixed_slots = 1;
        pool->disk->layout.slot_size = fixed;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->sync_init = 1;
    c->nthreads = o->codec_threads > 0 ? o->codec_threads : EBB_CODEC_THREADS_DEFAULT;
    c->seen.threads = c->nthreads;
    pool->codec_threads = c->nthreads;
    return EBB_OK;
}

ebb_status ebb_disk_codec_buffers(struct ebb_pool *pool)
{
    ebb_disk *d = pool->disk;
    ebb_disk_codec *c = &d->codec;
    if (!c->codec)
        return EBB_OK;
    c->cap = round_up(ebb_codec_bound(c->codec), d->layout.align);
    c->nbufs = c->nthreads * EBB_DISK_CODEC_BUFS_PER_THREAD;
    size_t total = c->cap * ((size_t)c->nbufs + (size_t)c->nthreads);
    void *mem = NULL;
    if (posix_memalign(&mem, d->layout.align, total) != 0)
        return ebb_fail(EBB_ERR_NO_MEMORY,
                        "disk pool compression: cannot allocate %zu bytes for %d compressed "
                        "buffers and %d codec threads' scratch of %zu bytes each",
                        total, (int)c->nbufs, (int)c->nthreads, c->cap);
    memset(mem, 0, total); /* faulted in now: a shortage shows at creation */
    c->bufs = mem;
    c->scratch = c->bufs + c->cap * (size_t)c->nbufs;
    c->bytes = total;
    c->free_bufs = calloc((size_t)c->nbufs, sizeof *c->free_bufs);
    c->len = calloc((size_t)pool->slots, sizeof *c->len);
    if (!c->free_bufs || !c->len)
        return ebb_fail(EBB_ERR_NO_MEMORY, "disk pool compression: cannot allocate its records");
    for (int32_t i = 0; i < c->nbufs; i++)
        c->free_bufs[c->nfree++] = i;
    return EBB_OK;
}

void ebb_disk_codec_fini(struct ebb_pool *pool)
{
    ebb_disk_codec *c = &pool->disk->codec;
    ebb_codec_destroy(c->codec);
    ebb_codec_destroy(c->sample);
    c->codec = c->sample = NULL;
    free(c->bufs);
    free(c->free_bufs);
    free(c->len);
    c->bufs = c->scratch = NULL;
    c->free_bufs = NULL;
    c->len = NULL;
    if (c->sync_init) {
        pthread_mutex_destroy(&c->lock);
        pthread_cond_destroy(&c->cv);
        c->sync_init = 0;
    }
}

void ebb_disk_codec_read_plan(const struct ebb_pool *pool, int32_t slot, size_t *bytes,
                              uint32_t *blocks, int *packed)
{
    const ebb_disk *d = pool->disk;
    uint64_t len = d->codec.codec ? d->codec.len[slot] : 0;
    *packed = len != 0;
    *bytes = len ? (size_t)len : pool->slot_size;
    *blocks = len ? (uint32_t)((len + d->layout.block - 1) / d->layout.block) : d->layout.bps;
}

static int32_t take_buffer(ebb_disk_codec *c)
{
    pthread_mutex_lock(&c->lock);
    while (c->nfree == 0)
        pthread_cond_wait(&c->cv, &c->lock);
    int32_t i = c->free_bufs[--c->nfree];
    pthread_mutex_unlock(&c->lock);
    return i;
}

static void give_buffer(ebb_disk_codec *c, int32_t i)
{
    pthread_mutex_lock(&c->lock);
    c->free_bufs[c->nfree++] = i;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->lock);
}

void ebb_disk_codec_release(struct ebb_pool *pool, ebb_op *op)
{
    if (op->cbuf < 0)
        return;
    give_buffer(&pool->disk->codec, op->cbuf);
    op->cbuf = -1;
}

/* Whether to try compressing this state: not while skipping after a run of
 * states that did not shrink or did not pay. Once a try paid, every state
 * is tried for real; else (`*shadow`) on a copy, one at a time (a second
 * would measure what the first is measuring). */
static int worth_trying(ebb_disk_codec *c, int always_pays, int take, int *probe, int *shadow)
{
    *shadow = 0;
    int32_t k = atomic_load(&c->skip);
    while (k > 0)
        if (atomic_compare_exchange_weak(&c->skip, &k, k - 1))
            return 0;
    if (always_pays || atomic_load(&c->paid))
        return 1;
    if (!take) /* the caller's look: the codec thread takes the try */
        return atomic_load(&c->probing) == 0;
    int idle = 0;
    *probe = atomic_compare_exchange_strong(&c->probing, &idle, 1);
    return *shadow = *probe;
}

/* What the last try gave: a state that shrank and paid resets the skipping;
 * one that did not shrink counts towards (or lengthens) the next skip, as
 * the next states' data may differ; one that shrank but did not pay
 * (`slower`) starts or lengthens it at once: the verdict rests on the
 * codec's and the disk's rates, which the next states share. */
static void tried(ebb_disk_codec *c, int probe, int paid, int slower)
{
    atomic_store(&c->skip_slower, slower);
    atomic_store(&c->paid, paid);
    if (probe)
        atomic_store(&c->probing, 0);
    if (paid) {
        atomic_store(&c->raw_run, 0);
        atomic_store(&c->backoff, 0);
        return;
    }
    if (atomic_fetch_add(&c->raw_run, 1) + 1 < EBB_DISK_CODEC_RAW_RUN && !slower)
        return;
    int32_t b = atomic_load(&c->backoff);
    b = b == 0 ? EBB_DISK_CODEC_SKIP_MIN : b < EBB_DISK_CODEC_SKIP_MAX ? 2 * b : b;
    atomic_store(&c->backoff, b);
    atomic_store(&c->skip, b);
}

/* A figure measured again: the recent states weigh most (a quarter each). */
static void measured(double *figure, double sample)
{
    *figure = *figure > 0 ? 0.75 * *figure + 0.25 * sample : sample;
}

static double disk_rate(const ebb_disk *d)
{
    return d->pace.rate > 0 ? d->pace.rate : d->codec.disk_bps;
}

void ebb_disk_codec_figures(const struct ebb_pool *pool, ebb_codec_rates *rates, double *disk_bps)
{
    ebb_disk *d = pool->disk;
    ebb_disk_codec *c = &d->codec;
    memset(rates, 0, sizeof *rates);
    *disk_bps = 0;
    if (!c->codec)
        return;
    pthread_mutex_lock(&c->lock);
    *rates = c->seen;
    *disk_bps = disk_rate(d);
    pthread_mutex_unlock(&c->lock);
}

void ebb_disk_codec_wrote(struct ebb_pool *pool, const ebb_op *op, uint64_t now)
{
    ebb_disk_codec *c = &pool->disk->codec;
    if (!c->codec || !op->coded || now <= op->io_ns)
        return;
    pthread_mutex_lock(&c->lock);
    measured(&c->disk_bps, (double)op->bytes * 1e9 / (double)(now - op->io_ns));
    pthread_mutex_unlock(&c->lock);
    atomic_store(&c->rate_known, 1);
}

/* A try took `ns` and gave `len` bytes: the figures again, and whether the
 * state through the channel compressed is slower than raw (0 while the
 * disk's rate is not known: an unpaced pool before its first write); with
 * `read_pays`, whether reading it back compressed beats reading it raw. */
static int slower_than_raw(struct ebb_pool *pool, size_t bytes, uint64_t ns, size_t len,
                           int *read_pays)
{
    ebb_disk *d = pool->disk;
    ebb_disk_codec *c = &d->codec;
    double size = (double)bytes;
    if (read_pays)
        *read_pays = 1;
    pthread_mutex_lock(&c->lock);
    if (ns > 0)
        measured(&c->seen.compress_bps, size * 1e9 / (double)ns);
    measured(&c->seen.ratio, size / (double)(len > 0 ? len : 1));
    ebb_codec_rates r = c->seen;
    double disk = disk_rate(d);
    pthread_mutex_unlock(&c->lock);
    if (pool->fault.codec_always_pays)
        return 0;
    if (!(r.decompress_bps > 0)) /* no read yet: taken as fast as compressing */
        r.decompress_bps = r.compress_bps;
    if (read_pays) { /* this state's own ratio: it is the one stored */
        ebb_codec_rates own = r;
        own.ratio = size / (double)(len > 0 ? len : 1);
        *read_pays = !(disk > 0) || ebb_codec_state_seconds(&own, 1.0, disk, 0) < 1.0 / disk;
    }
    return disk > 0 && !ebb_codec_pays(&r, disk, disk);
}

static void pause_us(uint32_t us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static int skip_state(struct ebb_pool *pool, ebb_op *op, int take, int *shadow)
{
    *shadow = 0;
    ebb_disk_codec *c = &pool->disk->codec;
    op->slower = 0;
    op->probe = 0;
    if (c->fixed_slots)
        return 0;
    if (!atomic_load(&c->rate_known) && pool->disk->pace.rate <= 0 &&
        !pool->fault.codec_always_pays) {
        /* an unpaced disk's rate is unknown until a write completes: raw till
           then (a try would have nothing to weigh, and one stored compressed
           would cost its decompression later) */
        op->coded = 1;
        c->len[op->slot] = 0;
        return 1;
    }
    if (worth_trying(c, pool->fault.codec_always_pays, take, &op->probe, shadow))
        return 0;
    op->coded = 1; /* stored as it is, counted as raw */
    op->slower = atomic_load(&c->skip_slower);
    c->len[op->slot] = 0;
    return 1;
}

int ebb_disk_codec_skip(struct ebb_pool *pool, ebb_op *op)
{
    int shadow;
    return skip_state(pool, op, 0, &shadow);
}

/* A codec run counted, and its span for a timeline (when one is recorded):
 * `write` a compression, of the state of `slot` in its `generation`. */
static void ran(struct ebb_pool *pool, int write, int32_t slot, uint32_t generation, int thread,
                uint64_t t0, uint64_t t1, size_t coded, int raw, int failed)
{
    atomic_fetch_add(write ? &pool->st_compressions : &pool->st_decompressions, 1);
    if (!atomic_load_explicit(&pool->codec_trace, memory_order_relaxed))
        return;
    ebb_codec_span span = {t0, t1, pool->slot_size, coded, slot, generation,
                           (int8_t)write, (int8_t)raw, (int8_t)failed};
    ebb_codec_trace_record(pool, thread, &span);
}

/* Compresses `src` into compressed buffer `i` (the injected failures and
 * delay applied), timed and counted in the codec's time. */
static ebb_status compress_timed(struct ebb_pool *pool, const ebb_codec *codec, const void *src,
                                 unsigned char *buf, size_t *len, uint64_t *t0, uint64_t *t1)
{
    ebb_disk_codec *c = &pool->disk->codec;
    const ebb_storage_fault *f = &pool->fault;
    *len = 0;
    *t0 = now_ns();
    uint64_t n = atomic_fetch_add(&c->packs, 1) + 1;
    ebb_status s;
    if (f->codec_fail_nth && n >= f->codec_fail_nth &&
        n - f->codec_fail_nth < (f->codec_fail_count > 1 ? f->codec_fail_count : 1))
        s = ebb_fail(EBB_ERR_IO, "c-blosc or zfp failed (injected, compression %llu)",
                     (unsigned long long)n);
    else
        s = ebb_codec_compress(codec, src, buf, c->cap, len);
    if (f->codec_delay_us)
        pause_us(f->codec_delay_us);
    *t1 = now_ns();
    atomic_fetch_add(&pool->st_codec_ns, *t1 - *t0);
    return s;
}

/* Whether `len` bytes out of the codec are a state that shrank. */
static int shrank_to(const struct ebb_pool *pool, size_t len)
{
    const ebb_disk *d = pool->disk;
    return d->codec.fixed_slots ||
           (len < pool->slot_size && round_up(len, d->layout.align) < d->layout.dstride);
}

/* The bytes a try on a copy compresses: the sample's pieces, else the state. */
static size_t shadow_bytes(const struct ebb_pool *pool)
{
    const ebb_disk_codec *c = &pool->disk->codec;
    return c->sample ? c->sample_piece * EBB_DISK_CODEC_SAMPLE_PIECES : pool->slot_size;
}

void ebb_disk_codec_shadow(struct ebb_pool *pool, const ebb_disk_shadow *sh, int thread)
{
    if (!sh->pending)
        return;
    ebb_disk_codec *c = &pool->disk->codec;
    int32_t i = take_buffer(c);
    size_t len, bytes = shadow_bytes(pool);
    uint64_t t0, t1;
    ebb_status s = compress_timed(pool, c->sample ? c->sample : c->codec,
                                  c->scratch + (size_t)thread * c->cap,
                                  c->bufs + (size_t)i * c->cap, &len, &t0, &t1);
    give_buffer(c, i);
    /* the state's length at the copy's ratio */
    size_t whole = (size_t)((double)len * (double)pool->slot_size / (double)bytes);
    int shrank = s == EBB_OK && shrank_to(pool, whole);
    ran(pool, 1, sh->slot, sh->generation, thread, t0, t1, s == EBB_OK ? whole : 0, 1,
        s != EBB_OK);
    if (s != EBB_OK) {
        ebb_clear_error(); /* the state is on disk raw; the codec is not tried for it again */
        tried(c, sh->probe, 0, 0);
        return;
    }
    int slower = slower_than_raw(pool, bytes, t1 - t0, len, NULL);
    tried(c, sh->probe, shrank && !slower, shrank && slower);
}

void ebb_disk_codec_pack(struct ebb_pool *pool, ebb_op *op, int thread, ebb_disk_shadow *sh)
{
    ebb_disk *d = pool->disk;
    ebb_disk_codec *c = &d->codec;
    int shadow;
    memset(sh, 0, sizeof *sh);
    if (skip_state(pool, op, 1, &shadow))
        return;
    if (shadow && c->cap >= pool->slot_size) {
        /* stored raw at once; the copy is tried once the write is queued */
        unsigned char *copy = c->scratch + (size_t)thread * c->cap;
        if (c->sample) {
            size_t stride = pool->slot_size / EBB_DISK_CODEC_SAMPLE_PIECES;
            for (int j = 0; j < EBB_DISK_CODEC_SAMPLE_PIECES; j++)
                memcpy(copy + (size_t)j * c->sample_piece, op->buf + (size_t)j * stride,
                       c->sample_piece);
        } else {
            memcpy(copy, op->buf, pool->slot_size);
        }
        *sh = (ebb_disk_shadow){1, op->probe, op->slot, op->generation};
        op->probe = 0;
        op->coded = 1;
        op->slower = atomic_load(&c->skip_slower);
        c->len[op->slot] = 0;
        return;
    }
    int32_t i = take_buffer(c);
    unsigned char *buf = c->bufs + (size_t)i * c->cap;
    size_t len;
    uint64_t t0, t1;
    ebb_status s = compress_timed(pool, c->codec, op->buf, buf, &len, &t0, &t1);
    uint64_t took = t1 - t0;
    int shrank = s == EBB_OK && shrank_to(pool, len);
    ran(pool, 1, op->slot, op->generation, thread, t0, t1, s == EBB_OK ? len : 0,
        s == EBB_OK && !shrank, s != EBB_OK);
    if (s != EBB_OK) {
        if (op->probe)
            atomic_store(&c->probing, 0);
        give_buffer(c, i);
        ebb_op_fail(op, s, "compressing the state for disk slot %d failed: %s", (int)op->slot,
                    ebb_last_error());
        return;
    }
    op->coded = 1;
    if (!shrank) {
        give_buffer(c, i); /* did not shrink: stored as it is, from the host slot */
        c->len[op->slot] = 0;
        (void)slower_than_raw(pool, pool->slot_size, took, len, NULL); /* the figures */
        tried(c, op->probe, 0, 0);
        return;
    }
    int read_pays = 1;
    int slower = !c->fixed_slots && slower_than_raw(pool, pool->slot_size, took, len, &read_pays);
    tried(c, op->probe, !slower, slower);
    if (slower && !read_pays) { /* raw, from the host slot: no decompression to wait on */
        give_buffer(c, i);
        c->len[op->slot] = 0;
        op->slower = 1;
        return;
    }
    uint32_t blocks = (uint32_t)((len + d->layout.block - 1) / d->layout.block);
    op->buf = buf;
    op->fixed = 0; /* not registered memory */
    op->cbuf = i;
    op->packed = 1;
    op->bytes = len;
    op->blocks = blocks;
    atomic_store(&op->remaining, blocks);
    c->len[op->slot] = len;
}

int ebb_disk_codec_unpack(struct ebb_pool *pool, ebb_op *op, int thread)
{
    ebb_disk *d = pool->disk;
    ebb_disk_codec *c = &d->codec;
    unsigned char *in = c->scratch + (size_t)thread * c->cap;
    /* zfp reads up to the bound: the bytes past the state's are zeros */
    memcpy(in, op->buf, op->bytes);
    memset(in + op->bytes, 0, c->cap - op->bytes);
    uint64_t t0 = now_ns();
    ebb_status s = ebb_codec_decompress_padded(c->codec, in, op->bytes, op->buf);
    uint64_t t1 = now_ns(), took = t1 - t0;
    atomic_fetch_add(&pool->st_codec_ns, took);
    ran(pool, 0, op->slot, op->generation, thread, t0, t1, op->bytes, 0, s != EBB_OK);
    if (s == EBB_OK) {
        pthread_mutex_lock(&c->lock);
        if (took > 0)
            measured(&c->seen.decompress_bps, (double)pool->slot_size * 1e9 / (double)took);
        pthread_mutex_unlock(&c->lock);
        return 0;
    }
    ebb_disk_loc loc;
    ebb_disk_locate(&d->layout, op->slot, 0, &loc);
    ebb_op_fail(op, s,
                "disk slot %d holds a %s state of %zu bytes (from file '%s' at offset %" PRIu64
                ") that does not decode: %s; the file was changed or the drive returned bad "
                "data (tier.disk.checksum catches that before decoding)",
                (int)op->slot, ebb_compression_name(c->mode), op->bytes,
                d->files.names[loc.file] ? d->files.names[loc.file] : "?", loc.offset,
                ebb_last_error());
    return -1;
}
