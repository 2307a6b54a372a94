/* Pools, tickets and moves: what every tier shares. The public operations
 * reach a tier through its row of `tiers` (below), a move its path through
 * the pair's entry in `moves`. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "storage/disk_codec.h"
#include "storage/codec_trace.h"
#include "storage/host_codec.h"
#include "storage/storage_internal.h"

const char *ebb_disk_backend_name(ebb_disk_backend backend)
{
    switch (backend) {
    case EBB_DISK_BACKEND_AUTO: return "auto";
    case EBB_DISK_BACKEND_URING: return "uring";
    case EBB_DISK_BACKEND_THREADS: return "threads";
    }
    return "?";
}

ebb_status ebb_disk_backend_from_name(const char *name, ebb_disk_backend *out)
{
    if (!name || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_disk_backend_from_name: NULL argument");
    if (strcmp(name, "auto") == 0)
        *out = EBB_DISK_BACKEND_AUTO;
    else if (strcmp(name, "uring") == 0 || strcmp(name, "io_uring") == 0)
        *out = EBB_DISK_BACKEND_URING;
    else if (strcmp(name, "threads") == 0)
        *out = EBB_DISK_BACKEND_THREADS;
    else
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "unknown disk backend '%s': expected auto, uring or threads", name);
    return EBB_OK;
}

void ebb_pool_options_init(ebb_pool_options *o, ebb_tier tier)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->tier = tier;
    o->numa_node = -1;
    o->pin = 1;
    o->prefault = 1;
    o->device = 0;
    o->backend = EBB_DISK_BACKEND_AUTO;
    o->queue_depth = 16;
    o->threads = 0;
    o->direct = 1;
    o->checksum = 0;
    o->block = tier == EBB_TIER_GPU ? (size_t)64 << 20 : (size_t)8 << 20;
}

/* A gpu operation that a chained disk read still feeds (ebb_move_via):
 * 1 while it does and `block` is 0; otherwise waits for that read (whose
 * end records the operation's event) and returns 0. */
static int await_disk(ebb_op *op, int block)
{
    if (!atomic_load_explicit(&op->await_disk, memory_order_acquire))
        return 0;
    if (!block)
        return 1;
    (void)ebb_disk_wait(op->await_pool, op->await_op);
    return 0;
}

/* ---- the tiers' rows ------------------------------------------------------- */

/* A host pool with compression: the codec before the slots are mapped
 * (their size is its fixed size), its threads after. */
static ebb_status host_create(ebb_pool *pool, const ebb_pool_options *o)
{
    ebb_status s = ebb_host_codec_init(pool, o);
    if (s != EBB_OK) {
        ebb_host_codec_fini(pool);
        return s;
    }
    if ((s = ebb_host_create(pool, o)) != EBB_OK) { /* it undid itself */
        ebb_host_codec_fini(pool);
        return s;
    }
    if ((s = ebb_host_codec_start(pool, o)) != EBB_OK) {
        ebb_host_codec_fini(pool);
        ebb_host_destroy(pool);
    }
    return s;
}

static void host_destroy(ebb_pool *pool)
{
    ebb_host_codec_fini(pool); /* its operations end first: they write the slots */
    ebb_host_destroy(pool);
}

static void host_info(const ebb_pool *pool, ebb_pool_info *info)
{
    info->backend = "memory";
    ebb_host_codec_info(pool, info);
}

/* The refusal for what a compressed host pool cannot do. */
static ebb_status packed_refused(const char *what)
{
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "%s: the host pool holds compressed states (ebb_pool_options.compression), "
                    "which only a put, a get or a move from or to an uncompressed host pool "
                    "compresses or decompresses; go through an uncompressed host pool slot",
                    what);
}

static void gpu_destroy(ebb_pool *pool)
{
    /* chained disk reads still queue copies into its slots */
    for (int32_t s = 0; pool->ops && s < pool->slots; s++)
        (void)await_disk(&pool->ops[s], 1);
    ebb_device_destroy(pool);
}

static void count(ebb_pool *pool, int into)
{
    if (into) {
        atomic_fetch_add(&pool->st_writes, 1);
        atomic_fetch_add(&pool->st_bytes_written, pool->slot_size);
    } else {
        atomic_fetch_add(&pool->st_reads, 1);
        atomic_fetch_add(&pool->st_bytes_read, pool->slot_size);
    }
}

static ebb_status host_put(ebb_pool *pool, int32_t slot, const void *src, ebb_ticket *ticket)
{
    ebb_status s = ebb_host_make_ready(pool, slot);
    if (s == EBB_OK && pool->hc)
        return ebb_host_codec_begin(pool, slot, 1, NULL, 0, (void *)src, ticket);
    if (s == EBB_OK)
        s = ebb_host_slot_check(pool, slot, 1);
    if (s != EBB_OK)
        return s;
    memcpy(pool->base + (size_t)slot * pool->stride, src, pool->slot_size);
    count(pool, 1);
    return EBB_OK;
}

static ebb_status host_get(ebb_pool *pool, int32_t slot, void *dst, ebb_ticket *ticket)
{
    ebb_status s = ebb_host_make_ready(pool, slot);
    if (s == EBB_OK && pool->hc)
        return ebb_host_codec_begin(pool, slot, 0, NULL, 0, dst, ticket);
    if (s == EBB_OK)
        s = ebb_host_slot_check(pool, slot, 0);
    if (s != EBB_OK)
        return s;
    memcpy(dst, pool->base + (size_t)slot * pool->stride, pool->slot_size);
    count(pool, 0);
    return EBB_OK;
}

static ebb_status gpu_put(ebb_pool *pool, int32_t slot, const void *src, ebb_ticket *ticket)
{
    int on_device = 0;
    ebb_status s = ebb_device_check_user_ptr(src, pool->slot_size, "ebb_pool_put: src", &on_device);
    if (s != EBB_OK)
        return s;
    return ebb_device_copy(pool, slot, (void *)src, 1, on_device, NULL, NULL, NULL, ticket);
}

static ebb_status gpu_get(ebb_pool *pool, int32_t slot, void *dst, ebb_ticket *ticket)
{
    int on_device = 0;
    ebb_status s = ebb_device_check_user_ptr(dst, pool->slot_size, "ebb_pool_get: dst", &on_device);
    if (s != EBB_OK)
        return s;
    return ebb_device_copy(pool, slot, dst, 0, on_device, NULL, NULL, NULL, ticket);
}

static ebb_status disk_put(ebb_pool *pool, int32_t slot, const void *src, ebb_ticket *ticket)
{
    (void)pool, (void)slot, (void)src, (void)ticket;
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "ebb_pool_put: the disk tier stores from host slots only; put the "
                    "state into a host pool slot and ebb_move it to the disk");
}

static ebb_status disk_get(ebb_pool *pool, int32_t slot, void *dst, ebb_ticket *ticket)
{
    (void)pool, (void)slot, (void)dst, (void)ticket;
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "ebb_pool_get: the disk tier loads into host slots only; ebb_move the "
                    "slot to a host pool slot first");
}

static ebb_status host_poll(ebb_pool *pool, ebb_op *op, int block, int *done)
{
    if (pool->hc)
        return ebb_host_codec_poll(pool, op, block, done);
    return ebb_fail(EBB_ERR_INVALID_ARG, "ticket names a host pool, whose operations "
                                         "complete at once");
}

static ebb_status gpu_poll(ebb_pool *pool, ebb_op *op, int block, int *done)
{
    if (await_disk(op, block)) {
        *done = 0;
        return EBB_OK;
    }
    return ebb_device_test(pool, op, block, done);
}

static ebb_status disk_poll(ebb_pool *pool, ebb_op *op, int block, int *done)
{
    if (atomic_load_explicit(&op->state, memory_order_acquire) != EBB_OP_DONE) {
        if (!block) {
            *done = 0;
            return EBB_OK;
        }
        ebb_status s = ebb_disk_wait(pool, op);
        if (s != EBB_OK)
            return s;
    }
    return ebb_op_report(op);
}

/* Option checks of the tier's own, after those every pool has. */
static ebb_status check_ready_slots(const ebb_pool_options *o)
{
    if (o->ready_slots < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s pool: ready_slots is %d; use 0 (every slot ready at creation) or "
                        "the slots to make ready first",
                        ebb_tier_name(o->tier), (int)o->ready_slots);
    return EBB_OK;
}

static ebb_status host_check(const ebb_pool_options *o)
{
    ebb_status s = check_ready_slots(o);
    if (s == EBB_OK && o->lazy && o->compression && o->compression->mode != EBB_COMPRESSION_OFF)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "host pool: lazy slots hold states as they are; compression (%s) fixes "
                        "every slot's size: set one of them",
                        ebb_compression_name(o->compression->mode));
    return s;
}

static ebb_status gpu_check(const ebb_pool_options *o)
{
    ebb_status s = check_ready_slots(o);
    if (s == EBB_OK && o->compression && o->compression->mode != EBB_COMPRESSION_OFF)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "gpu pool: compression is for the host and disk tiers "
                        "(ebb_pool_options.compression asks for %s); leave it NULL, or its mode "
                        "off, for a gpu pool",
                        ebb_compression_name(o->compression->mode));
    return s;
}

static ebb_status host_slot_ptr(ebb_pool *pool, int32_t slot, void **ptr)
{
    if (pool->hc)
        return packed_refused("ebb_pool_slot_ptr");
    ebb_status s = ebb_pool_check_slot(pool, slot, "ebb_pool_slot_ptr");
    if (s == EBB_OK)
        s = ebb_host_make_ready(pool, slot);
    if (s != EBB_OK)
        return s;
    *ptr = pool->base + (size_t)slot * pool->stride;
    return EBB_OK;
}

static ebb_status gpu_slot_ptr(ebb_pool *pool, int32_t slot, void **ptr)
{
    unsigned char *mem = NULL;
    ebb_status s = ebb_pool_check_slot(pool, slot, "ebb_pool_slot_ptr");
    if (s == EBB_OK && (s = ebb_device_slot(pool, slot, &mem)) == EBB_OK)
        *ptr = mem;
    return s;
}

static ebb_status disk_slot_ptr(ebb_pool *pool, int32_t slot, void **ptr)
{
    (void)pool, (void)slot, (void)ptr;
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "ebb_pool_slot_ptr: disk slots have no address; move them to a host slot");
}

static void host_figures(const ebb_pool *pool, ebb_pool_stats *st)
{
    ebb_host_codec_figures(pool, &st->measured);
}

static void disk_figures(const ebb_pool *pool, ebb_pool_stats *st)
{
    if (pool->disk)
        ebb_disk_codec_figures(pool, &st->measured, &st->disk_bps);
}

/* What each tier does for the operations every pool has. put/get: between
 * a slot and the caller's memory (the slot checked); poll: whether a
 * ticket's operation `op` is done (*done), waiting for it when `block`, and
 * its result. */
typedef struct tier_ops {
    /* the tier's own option checks; NULL: none */
    ebb_status (*check)(const ebb_pool_options *o);
    ebb_status (*create)(ebb_pool *pool, const ebb_pool_options *o);
    /* a slot made ready before a move reads, fills or copies it; NULL: always ready */
    ebb_status (*ready)(ebb_pool *pool, int32_t slot);
    void (*destroy)(ebb_pool *pool);
    void (*info)(const ebb_pool *pool, ebb_pool_info *info);
    ebb_status (*put)(ebb_pool *pool, int32_t slot, const void *src, ebb_ticket *ticket);
    ebb_status (*get)(ebb_pool *pool, int32_t slot, void *dst, ebb_ticket *ticket);
    ebb_status (*poll)(ebb_pool *pool, ebb_op *op, int block, int *done);
    /* ebb_pool_slot_ptr: the slot checked and made ready, or refused */
    ebb_status (*slot_ptr)(ebb_pool *pool, int32_t slot, void **ptr);
    /* ebb_pool_stats' measured figures (compression, the disk's rate); NULL: none */
    void (*figures)(const ebb_pool *pool, ebb_pool_stats *st);
} tier_ops;

static const tier_ops tiers[EBB_TIER_COUNT] = {
    [EBB_TIER_GPU] = {.check = gpu_check, .create = ebb_device_create, .destroy = gpu_destroy,
                      .info = ebb_device_info, .put = gpu_put, .get = gpu_get, .poll = gpu_poll,
                      .slot_ptr = gpu_slot_ptr},
    [EBB_TIER_HOST] = {.check = host_check, .create = host_create,
                       .ready = ebb_host_make_ready, .destroy = host_destroy, .info = host_info,
                       .put = host_put, .get = host_get, .poll = host_poll,
                       .slot_ptr = host_slot_ptr, .figures = host_figures},
    [EBB_TIER_DISK] = {.create = ebb_disk_create, .destroy = ebb_disk_destroy,
                       .info = ebb_disk_info, .put = disk_put, .get = disk_get, .poll = disk_poll,
                       .slot_ptr = disk_slot_ptr, .figures = disk_figures},
};

static ebb_status check_options(const ebb_pool_options *o)
{
    if ((unsigned)o->tier >= EBB_TIER_COUNT || !tiers[o->tier].create) {
        char names[128] = "";
        for (int k = 0; k < EBB_TIER_COUNT; k++)
            if (tiers[k].create)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s (%d)",
                         !names[0] ? "" : k == EBB_TIER_COUNT - 1 ? " or " : ", ",
                         ebb_tier_name((ebb_tier)k), k);
        return ebb_fail(EBB_ERR_INVALID_ARG, "pool tier %d is not %s", (int)o->tier, names);
    }
    if (o->slot_size == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s pool: slot_size is 0; set it to the size of one state in bytes",
                        ebb_tier_name(o->tier));
    if (o->slots <= 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s pool: slots is %d; it must be at least 1",
                        ebb_tier_name(o->tier), (int)o->slots);
    if (o->lazy != 0 && o->lazy != EBB_LAZY_PAGES && o->lazy != EBB_LAZY_HUGE)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s pool: lazy is %d; expected 0, EBB_LAZY_PAGES (1) or EBB_LAZY_HUGE (2)",
                        ebb_tier_name(o->tier), o->lazy);
    if (o->lazy && o->tier != EBB_TIER_HOST)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s pool: lazy is for host pools (their memory taken as written)",
                        ebb_tier_name(o->tier));
    if (o->slot_size > ((size_t)1 << 46) || (uint64_t)o->slots > ((uint64_t)1 << 31) / 2)
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s pool: %d slots of %zu bytes is beyond any budget",
                        ebb_tier_name(o->tier), (int)o->slots, o->slot_size);
    return tiers[o->tier].check ? tiers[o->tier].check(o) : EBB_OK;
}

ebb_status ebb_pool_create_with_faults(const ebb_pool_options *o, const ebb_storage_fault *fault,
                                       ebb_pool **out)
{
    if (!out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_create: out is NULL");
    *out = NULL;
    if (!o)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_create: options is NULL "
                                             "(fill them with ebb_pool_options_init)");
    ebb_status s = check_options(o);
    if (s != EBB_OK)
        return s;
    struct ebb_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate a pool");
    pool->tier = o->tier;
    atomic_store(&pool->refs, 1);
    pool->slot_size = o->slot_size;
    pool->slots = o->slots;
    pool->numa_node = -1;
    if (fault)
        pool->fault = *fault;
    s = tiers[o->tier].create(pool, o);
    if (s != EBB_OK) {
        free(pool);
        return s;
    }
    *out = pool;
    return EBB_OK;
}

ebb_status ebb_pool_create(const ebb_pool_options *o, ebb_pool **out)
{
    return ebb_pool_create_with_faults(o, NULL, out);
}

void ebb_pool_destroy(ebb_pool *pool)
{
    if (!pool)
        return;
    tiers[pool->tier].destroy(pool);
    /* the codec threads are stopped: nothing records a span any more */
    ebb_codec_trace_free(atomic_exchange(&pool->codec_trace, NULL));
    pool->destroyed = 1;
    ebb_pool_release(pool);
}

ebb_status ebb_pool_info_get(const ebb_pool *pool, ebb_pool_info *info)
{
    if (!pool || !info)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_info_get: NULL argument");
    memset(info, 0, sizeof *info);
    info->tier = pool->tier;
    info->slot_size = pool->slot_size;
    info->slot_stride = pool->stride;
    info->slots = pool->slots;
    info->bytes = pool->bytes;
    info->numa_node = pool->numa_node;
    info->pinned = pool->pinned;
    info->device = -1;
    info->warnings = pool->warnings;
    info->compression = "off";
    tiers[pool->tier].info(pool, info);
    return EBB_OK;
}

ebb_status ebb_pool_stats_get(const ebb_pool *pool, ebb_pool_stats *st)
{
    if (!pool || !st)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_stats_get: NULL argument");
    st->writes = atomic_load(&pool->st_writes);
    st->reads = atomic_load(&pool->st_reads);
    st->bytes_written = atomic_load(&pool->st_bytes_written);
    st->bytes_read = atomic_load(&pool->st_bytes_read);
    st->requests = atomic_load(&pool->st_requests);
    st->retries = atomic_load(&pool->st_retries);
    st->errors = atomic_load(&pool->st_errors);
    st->bytes_before_compression = atomic_load(&pool->st_codec_before);
    st->bytes_after_compression = atomic_load(&pool->st_codec_after);
    st->stored_raw = atomic_load(&pool->st_stored_raw);
    st->codec_s = (double)atomic_load(&pool->st_codec_ns) / 1e9;
    st->stored_raw_slower = atomic_load(&pool->st_raw_slower);
    st->compressions = atomic_load(&pool->st_compressions);
    st->decompressions = atomic_load(&pool->st_decompressions);
    memset(&st->measured, 0, sizeof st->measured);
    st->disk_bps = 0;
    if (tiers[pool->tier].figures)
        tiers[pool->tier].figures(pool, st);
    return EBB_OK;
}

ebb_status ebb_pool_stats_reset(ebb_pool *pool)
{
    if (!pool)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_stats_reset: pool is NULL");
    atomic_store(&pool->st_writes, 0);
    atomic_store(&pool->st_reads, 0);
    atomic_store(&pool->st_bytes_written, 0);
    atomic_store(&pool->st_bytes_read, 0);
    atomic_store(&pool->st_requests, 0);
    atomic_store(&pool->st_retries, 0);
    atomic_store(&pool->st_errors, 0);
    atomic_store(&pool->st_codec_before, 0);
    atomic_store(&pool->st_codec_after, 0);
    atomic_store(&pool->st_stored_raw, 0);
    atomic_store(&pool->st_codec_ns, 0);
    atomic_store(&pool->st_raw_slower, 0);
    atomic_store(&pool->st_compressions, 0);
    atomic_store(&pool->st_decompressions, 0);
    return EBB_OK;
}

ebb_status ebb_pool_slot_ptr(const ebb_pool *pool, int32_t slot, void **ptr)
{
    if (!pool || !ptr)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_slot_ptr: NULL argument");
    /* the caller writes through the address (the handle is the caller's,
     * never const memory) */
    return tiers[pool->tier].slot_ptr((ebb_pool *)pool, slot, ptr);
}

ebb_status ebb_pool_slot_discard(ebb_pool *pool, int32_t slot, size_t from)
{
    if (!pool)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_slot_discard: NULL pool");
    if (pool->tier != EBB_TIER_HOST || !pool->lazy)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_pool_slot_discard: a lazy host pool's (ebb_pool_options.lazy), "
                        "not a %s%s pool's",
                        pool->tier == EBB_TIER_HOST ? "non-lazy " : "", ebb_tier_name(pool->tier));
    ebb_status s = ebb_pool_check_slot(pool, slot, "ebb_pool_slot_discard");
    if (s == EBB_OK && from > pool->slot_size)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_pool_slot_discard: byte %zu is past the slot's %zu", from,
                        pool->slot_size);
    return s != EBB_OK ? s : ebb_host_discard(pool, slot, from);
}

static const ebb_ticket done_ticket = {NULL, 0, 0};

/* A move with a compressed host pool at one end (both made ready): to or
 * from an uncompressed host slot through the codec threads, or between two
 * slots of one compressed pool as it is. */
static ebb_status packed_move(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                              ebb_ticket *ticket)
{
    if (src->tier != EBB_TIER_HOST || dst->tier != EBB_TIER_HOST)
        return packed_refused(src->tier == EBB_TIER_HOST ? "ebb_move from it" : "ebb_move to it");
    if (src == dst)
        return dst_slot == src_slot ? EBB_OK : ebb_host_codec_copy(dst, dst_slot, src_slot);
    if (src->hc && dst->hc)
        return packed_refused("ebb_move between two compressed host pools");
    ebb_status s;
    if (dst->hc) {
        if ((s = ebb_host_slot_check(src, src_slot, 0)) != EBB_OK)
            return s;
        return ebb_host_codec_begin(dst, dst_slot, 1, src, src_slot,
                                    ebb_host_slot_addr(src, src_slot), ticket);
    }
    if ((s = ebb_host_slot_check(dst, dst_slot, 1)) != EBB_OK)
        return s;
    return ebb_host_codec_begin(src, src_slot, 0, dst, dst_slot, ebb_host_slot_addr(dst, dst_slot),
                                ticket);
}

/* ---- the moves' paths, one per pair of tiers ---------------------------------- */

static ebb_status host_to_host(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                               ebb_ticket *ticket)
{
    (void)ticket;
    if (dst == src && dst_slot == src_slot)
        return EBB_OK;
    ebb_status s;
    if ((s = ebb_host_slot_check(src, src_slot, 0)) != EBB_OK ||
        (s = ebb_host_slot_check(dst, dst_slot, 1)) != EBB_OK)
        return s;
    memcpy(dst->base + (size_t)dst_slot * dst->stride, src->base + (size_t)src_slot * src->stride,
           src->slot_size);
    count(src, 0);
    count(dst, 1);
    return EBB_OK;
}

static ebb_status host_to_disk(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                               ebb_ticket *ticket)
{
    return ebb_disk_move(dst, dst_slot, src, src_slot, 1, ticket);
}

static ebb_status disk_to_host(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                               ebb_ticket *ticket)
{
    return ebb_disk_move(src, src_slot, dst, dst_slot, 0, ticket);
}

/* The host end of a copy to or from a gpu: a slot free for it (one still
 * filled by another gpu -> host copy, or read by a host -> gpu copy, is
 * refused when `filling`) in a pinned pool, as device transfers need. */
static ebb_status gpu_copy_host_end(ebb_pool *host, int32_t slot, int filling, const char *dir)
{
    ebb_status s = ebb_host_slot_check(host, slot, filling);
    if (s != EBB_OK)
        return s;
    if (!host->pinned)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_move %s: the host pool is not pinned (%s); device transfers need "
                        "pinned memory",
                        dir, host->warnings[0] ? host->warnings : "pinning was off");
    return EBB_OK;
}

static ebb_status host_to_gpu(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                              ebb_ticket *ticket)
{
    ebb_status s = gpu_copy_host_end(src, src_slot, 0, "host -> gpu");
    return s != EBB_OK ? s : ebb_host_gpu_copy(dst, dst_slot, src, src_slot, 1, NULL, ticket);
}

static ebb_status gpu_to_host(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                              ebb_ticket *ticket)
{
    ebb_status s = gpu_copy_host_end(dst, dst_slot, 1, "gpu -> host");
    return s != EBB_OK ? s : ebb_host_gpu_copy(src, src_slot, dst, dst_slot, 0, NULL, ticket);
}

static ebb_status gpu_to_gpu(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                             ebb_ticket *ticket)
{
    if (dst == src && dst_slot == src_slot)
        return EBB_OK;
    /* Runs on the destination pool, reading the source slot's memory: after
     * the source slot's operation, and recorded in the source slot's read
     * event (same device only), so that writes into the source slot are
     * refused while the copy reads it. */
    unsigned char *from = NULL;
    ebb_status s = ebb_device_slot(src, src_slot, &from);
    if (s != EBB_OK)
        return s;
    ebb_copy_mark mark;
    ebb_device_read_mark(src, src_slot, &mark);
    return ebb_device_copy(dst, dst_slot, from, 1, 1, src->ops ? &src->ops[src_slot] : NULL, &mark,
                           NULL, ticket);
}

/* How a state goes from a slot of tier `from` to one of tier `to`, indexed
 * [from][to]. move: ebb_move's direct path; chain: ebb_move_via's, through
 * a host slot (chain.c). A pair with neither is refused by both, naming the
 * way through a host slot. Both ends are checked (slots, sizes) and host
 * slots made ready before a path runs. */
typedef struct move_path {
    ebb_status (*move)(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                       ebb_ticket *ticket);
    ebb_status (*chain)(ebb_pool *dst, int32_t dst_slot, ebb_pool *host, int32_t host_slot,
                        ebb_pool *src, int32_t src_slot, ebb_ticket tickets[2]);
} move_path;

static const move_path moves[EBB_TIER_COUNT][EBB_TIER_COUNT] = {
    [EBB_TIER_GPU][EBB_TIER_GPU] = {.move = gpu_to_gpu},
    [EBB_TIER_GPU][EBB_TIER_HOST] = {.move = gpu_to_host},
    [EBB_TIER_GPU][EBB_TIER_DISK] = {.chain = ebb_chain_gpu_to_disk},
    [EBB_TIER_HOST][EBB_TIER_GPU] = {.move = host_to_gpu},
    [EBB_TIER_HOST][EBB_TIER_HOST] = {.move = host_to_host},
    [EBB_TIER_HOST][EBB_TIER_DISK] = {.move = host_to_disk},
    [EBB_TIER_DISK][EBB_TIER_GPU] = {.chain = ebb_chain_disk_to_gpu},
    [EBB_TIER_DISK][EBB_TIER_HOST] = {.move = disk_to_host},
};

ebb_status ebb_move(ebb_pool *dst, int32_t dst_slot, ebb_pool *src, int32_t src_slot,
                    ebb_ticket *ticket)
{
    if (!dst || !src || !ticket)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_move: NULL argument");
    *ticket = done_ticket;
    if (dst->destroyed || src->destroyed)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_move: the %s pool was destroyed",
                        ebb_tier_name(dst->destroyed ? dst->tier : src->tier));
    ebb_status s = ebb_pool_check_slot(dst, dst_slot, "ebb_move (destination)");
    if (s == EBB_OK)
        s = ebb_pool_check_slot(src, src_slot, "ebb_move (source)");
    if (s != EBB_OK)
        return s;
    if (dst->slot_size != src->slot_size)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_move: the %s pool has %zu-byte slots but the %s pool %zu-byte slots; "
                        "pools that exchange states need the same slot_size",
                        ebb_tier_name(src->tier), src->slot_size, ebb_tier_name(dst->tier),
                        dst->slot_size);
    ebb_tier a = src->tier, b = dst->tier;
    if ((tiers[a].ready && (s = tiers[a].ready(src, src_slot)) != EBB_OK) ||
        (tiers[b].ready && (s = tiers[b].ready(dst, dst_slot)) != EBB_OK))
        return s;
    if (src->hc || dst->hc) /* only host pools compress their slots */
        return packed_move(dst, dst_slot, src, src_slot, ticket);
    if (moves[a][b].move)
        return moves[a][b].move(dst, dst_slot, src, src_slot, ticket);
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "ebb_move %s -> %s is not a direct path: chain it through a host slot "
                    "(%s -> host -> %s%s)",
                    ebb_tier_name(a), ebb_tier_name(b), ebb_tier_name(a), ebb_tier_name(b),
                    moves[a][b].chain
                        ? "; ebb_move_via does it in one call, pipelined by the disk's blocks"
                        : "");
}

ebb_status ebb_move_via(ebb_pool *dst, int32_t dst_slot, ebb_pool *via, int32_t via_slot,
                        ebb_pool *src, int32_t src_slot, ebb_ticket tickets[2])
{
    if (!dst || !via || !src || !tickets)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_move_via: NULL argument");
    tickets[0] = tickets[1] = done_ticket;
    const move_path *path = &moves[src->tier][dst->tier];
    if (path->chain && via->tier == EBB_TIER_HOST)
        return path->chain(dst, dst_slot, via, via_slot, src, src_slot, tickets);
    char chains[128] = "";
    for (int f = 0; f < EBB_TIER_COUNT; f++)
        for (int t = 0; t < EBB_TIER_COUNT; t++)
            if (moves[f][t].chain)
                snprintf(chains + strlen(chains), sizeof chains - strlen(chains),
                         "%s%s -> host -> %s", chains[0] ? " or " : "",
                         ebb_tier_name((ebb_tier)f), ebb_tier_name((ebb_tier)t));
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "ebb_move_via %s -> %s -> %s is not supported: it chains %s; move other "
                    "paths with ebb_move",
                    ebb_tier_name(src->tier), ebb_tier_name(via->tier), ebb_tier_name(dst->tier),
                    chains);
}

ebb_status ebb_pool_put(ebb_pool *pool, int32_t slot, const void *src, ebb_ticket *ticket)
{
    if (!pool || !src || !ticket)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_put: NULL argument");
    *ticket = done_ticket;
    ebb_status s = ebb_pool_check_slot(pool, slot, "ebb_pool_put");
    if (s != EBB_OK)
        return s;
    return tiers[pool->tier].put(pool, slot, src, ticket);
}

ebb_status ebb_pool_get(ebb_pool *pool, int32_t slot, void *dst, ebb_ticket *ticket)
{
    if (!pool || !dst || !ticket)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_get: NULL argument");
    *ticket = done_ticket;
    ebb_status s = ebb_pool_check_slot(pool, slot, "ebb_pool_get");
    if (s != EBB_OK)
        return s;
    return tiers[pool->tier].get(pool, slot, dst, ticket);
}

/* The operation record a ticket names, or NULL when the ticket is stale
 * (its slot has started another operation since): then it completed. */
static ebb_status ticket_op(const ebb_ticket *t, ebb_op **op)
{
    return ebb_op_lookup(t->pool->ops, t->pool->slots, t->pool->tier, t, op);
}

static ebb_status ticket_poll(const ebb_ticket *t, int block, int *done)
{
    *done = 1;
    if (!t->pool)
        return EBB_OK;
    ebb_op *op;
    ebb_status s = ticket_op(t, &op);
    if (s != EBB_OK || !op)
        return s;
    return tiers[t->pool->tier].poll(t->pool, op, block, done);
}

ebb_status ebb_ticket_test(const ebb_ticket *ticket, int *done)
{
    if (!ticket || !done)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_ticket_test: NULL argument");
    return ticket_poll(ticket, 0, done);
}

ebb_status ebb_ticket_wait(const ebb_ticket *ticket)
{
    if (!ticket)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_ticket_wait: ticket is NULL");
    int done;
    return ticket_poll(ticket, 1, &done);
}

ebb_status ebb_ticket_wait_all(const ebb_ticket *tickets, size_t count_)
{
    if (!tickets && count_)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_ticket_wait_all: tickets is NULL");
    ebb_status first = EBB_OK;
    size_t first_i = 0;
    char msg[EBB_OP_MSG] = "";
    for (size_t i = 0; i < count_; i++) {
        ebb_status s = ebb_ticket_wait(&tickets[i]);
        if (s != EBB_OK && first == EBB_OK) {
            first = s;
            first_i = i;
            snprintf(msg, sizeof msg, "%s", ebb_last_error());
        }
    }
    if (first != EBB_OK)
        return ebb_fail(first, "ticket %zu of %zu: %s", first_i, count_, msg);
    return EBB_OK;
}

static ebb_status need_streams(const ebb_pool *pool, const char *what)
{
    if (!pool)
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s: pool is NULL", what);
    if (pool->tier != EBB_TIER_GPU)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s: the %s pool has no CUDA streams; only gpu pools do", what,
                        ebb_tier_name(pool->tier));
    return EBB_OK;
}

ebb_status ebb_pool_order_after(ebb_pool *pool, void *stream)
{
    ebb_status s = need_streams(pool, "ebb_pool_order_after");
    return s != EBB_OK ? s : ebb_device_order_after(pool, stream);
}

ebb_status ebb_pool_mark(ebb_pool *pool, void *stream)
{
    ebb_status s = need_streams(pool, "ebb_pool_mark");
    return s != EBB_OK ? s : ebb_device_mark(pool, stream);
}

ebb_status ebb_pool_mark_reached(ebb_pool *pool, int *reached)
{
    if (!reached)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_pool_mark_reached: reached is NULL");
    *reached = 1;
    ebb_status s = need_streams(pool, "ebb_pool_mark_reached");
    return s != EBB_OK ? s : ebb_device_mark_reached(pool, reached);
}

ebb_status ebb_pool_slot_order_after(ebb_pool *pool, int32_t slot, void *stream)
{
    ebb_status s = need_streams(pool, "ebb_pool_slot_order_after");
    if (s != EBB_OK)
        return s;
    s = ebb_pool_check_slot(pool, slot, "ebb_pool_slot_order_after");
    if (s != EBB_OK)
        return s;
    return ebb_device_slot_order_after(pool, slot, stream);
}

ebb_status ebb_ticket_stream_wait(const ebb_ticket *ticket, void *stream)
{
    if (!ticket)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_ticket_stream_wait: ticket is NULL");
    if (!ticket->pool)
        return EBB_OK;
    if (ticket->pool->tier != EBB_TIER_GPU)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_ticket_stream_wait: the ticket names a %s operation; only gpu "
                        "operations can be waited for on a stream (wait for it on the host)",
                        ebb_tier_name(ticket->pool->tier));
    ebb_op *op;
    ebb_status s = ticket_op(ticket, &op);
    if (s != EBB_OK || !op)
        return s;
    (void)await_disk(op, 1); /* its event exists once the read ended */
    return ebb_device_stream_wait(ticket->pool, op, stream);
}
