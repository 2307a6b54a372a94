/* Device tier: slots in GPU memory (one cudaMalloc, or one per extent for a
 * pool made ready in extents: ebb_pool_options.ready_slots), copies on the pool's own
 * non-blocking streams, a few lanes per direction (device -> host, host ->
 * device, device -> device) so that a copy waiting for something does not
 * hold up unrelated ones; each operation closed by an event that tickets
 * test, wait for (sleeping), or make a stream wait for. Only the CUDA
 * runtime API; no kernels. Built with CUDA only (without: device_none.c);
 * without a device at run time creating a gpu pool fails with
 * EBB_ERR_UNSUPPORTED and the rest of the library works. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "storage/cuda.h"
#include "storage/storage_internal.h"
#include "storage/topology.h"

enum { S_D2H = 0, S_H2D = 1, S_D2D = 2, S_COUNT = 3, LANES = 4 };

struct ebb_device {
    int device;
    size_t chunk;
    cudaStream_t streams[S_COUNT][LANES];
    int next_lane[S_COUNT];
    cudaEvent_t order_event;  /* ebb_pool_order_after */
    cudaEvent_t mark_event;   /* ebb_pool_mark */
    int marked;               /* mark_event recorded */
    cudaEvent_t *slot_events; /* per slot: ebb_pool_slot_order_after */
    uint64_t peer_tried;      /* bit p: peer access to device p was tried */
    int grow_init;            /* pool->grow_mu initialized */
    /* extent k: slots from pool->ext_start[k] in one cudaMalloc, with their
     * events; slots [0, pool->ready) are ready (all, unless ready_slots) */
    unsigned char *ext_base[EBB_HOST_EXTENTS];
};

static const char *stream_name[S_COUNT] = {"device -> host", "host -> device",
                                           "device -> device"};

#define clear_own_error ebb_cuda_clear_own_error
#define event_pending ebb_cuda_event_pending

/* Records a host slot's tracking event on `st`, after the copy just queued
 * there. While the event still tracks an earlier copy in flight (pool.c lets
 * only another host -> gpu read of the same slot overlap, on another stream),
 * `st` first waits for that copy, so the event completes only when both have
 * (the new copy's ticket, recorded after, then completes no earlier than the
 * old copy: once the tickets are complete the slot is free). Returns 1 if
 * recorded. */
static int record_mark(cudaStream_t st, cudaEvent_t ev)
{
    cudaError_t e = cudaSuccess;
    if (event_pending(ev))
        e = cudaStreamWaitEvent(st, ev, 0);
    if (e == cudaSuccess)
        e = cudaEventRecord(ev, st);
    clear_own_error(e);
    return e == cudaSuccess;
}

static ebb_status cuda_fail(ebb_status s, cudaError_t e, const char *what, int device)
{
    clear_own_error(e);
    return ebb_fail(s, "%s on CUDA device %d failed: %s (%s)%s", what, device,
                    cudaGetErrorString(e), cudaGetErrorName(e),
                    ebb_cuda_sticky(e) ? "; the CUDA context is unusable (a sticky error): "
                                         "destroy the pools and reset the device"
                                       : "");
}

/* Records that the operation of `op` failed on the device with `e`. */
static void copy_failed(struct ebb_pool *pool, ebb_op *op, cudaError_t e)
{
    atomic_fetch_add(&pool->st_errors, 1);
    op->status = EBB_ERR_IO;
    snprintf(op->msg, sizeof op->msg, "gpu slot %d: %s copy on CUDA device %d failed: %s (%s)%s",
             (int)(op - pool->ops), stream_name[op->copy], pool->device->device,
             cudaGetErrorString(e), cudaGetErrorName(e),
             ebb_cuda_sticky(e) ? "; the CUDA context is unusable (a sticky error, from this "
                                  "or another operation on the device)"
                                : "");
}

void ebb_device_read_mark(const struct ebb_pool *pool, int32_t slot, ebb_copy_mark *mark)
{
    mark->event = pool->ops ? pool->ops[slot].read_event : NULL;
    mark->device = pool->device ? pool->device->device : -1;
    mark->recorded = 0;
}

static cudaError_t create_objects(struct ebb_device *dv, const char **call)
{
    cudaError_t e = cudaSuccess;
    *call = "gpu pool: cudaStreamCreateWithFlags";
    /* non-blocking: no implicit wait on the legacy default stream's kernels */
    for (int i = 0; i < S_COUNT && e == cudaSuccess; i++)
        for (int l = 0; l < LANES && e == cudaSuccess; l++)
            e = cudaStreamCreateWithFlags(&dv->streams[i][l], cudaStreamNonBlocking);
    if (e != cudaSuccess)
        return e;
    *call = "gpu pool: cudaEventCreateWithFlags";
    e = cudaEventCreateWithFlags(&dv->order_event, EBB_CUDA_EVENT_FLAGS);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&dv->mark_event, EBB_CUDA_EVENT_FLAGS);
    return e;
}

/* The events of slots [from, to) destroyed (those created), after the
 * copies of other gpu pools that still read a slot. */
static void destroy_slot_events(struct ebb_pool *pool, int32_t from, int32_t to)
{
    struct ebb_device *dv = pool->device;
    for (int32_t i = from; i < to; i++) {
        ebb_op *op = &pool->ops[i];
        if (op->event)
            clear_own_error(cudaEventDestroy((cudaEvent_t)op->event));
        if (op->read_event) {
            clear_own_error(cudaEventSynchronize((cudaEvent_t)op->read_event));
            clear_own_error(cudaEventDestroy((cudaEvent_t)op->read_event));
        }
        if (dv->slot_events[i])
            clear_own_error(cudaEventDestroy(dv->slot_events[i]));
        op->event = op->read_event = NULL;
        dv->slot_events[i] = NULL;
    }
}

/* Slots [from, to) made ready as the next extent: their memory (one
 * cudaMalloc) and events. With the pool's device current; on failure
 * nothing of the extent is kept. */
static cudaError_t ready_extent(struct ebb_pool *pool, int32_t from, int32_t to,
                                const char **call)
{
    struct ebb_device *dv = pool->device;
    void *mem = NULL;
    *call = "cudaMalloc";
    cudaError_t e = cudaMalloc(&mem, (size_t)(to - from) * pool->stride);
    if (e == cudaSuccess)
        *call = "cudaEventCreateWithFlags";
    for (int32_t i = from; i < to && e == cudaSuccess; i++) {
        cudaEvent_t ev;
        e = cudaEventCreateWithFlags(&ev, EBB_CUDA_EVENT_FLAGS);
        if (e == cudaSuccess) {
            pool->ops[i].event = ev;
            e = cudaEventCreateWithFlags(&ev, EBB_CUDA_EVENT_FLAGS);
        }
        if (e == cudaSuccess) {
            pool->ops[i].read_event = ev;
            e = cudaEventCreateWithFlags(&dv->slot_events[i], EBB_CUDA_EVENT_FLAGS);
        }
    }
    if (e != cudaSuccess) {
        destroy_slot_events(pool, from, to);
        if (mem)
            clear_own_error(cudaFree(mem));
        return e;
    }
    int32_t k = atomic_load_explicit(&pool->extents, memory_order_relaxed);
    dv->ext_base[k] = mem;
    pool->ext_start[k] = from;
    atomic_store_explicit(&pool->extents, k + 1, memory_order_release);
    return cudaSuccess;
}

/* What to do when making slots ready failed in `call`. */
static const char *extent_advice(const char *call)
{
    return strcmp(call, "cudaEventCreateWithFlags") == 0
               ? "the device has no resources left for the slots' events: lower the gpu "
                 "budget (tier.gpu.budget; three events a slot)"
               : "lower the gpu budget (tier.gpu.budget)";
}

/* The slots made ready at creation: all, or the first ready_slots. */
static int32_t first_extent(const ebb_pool_options *o)
{
    return o->ready_slots > 0 && o->ready_slots < o->slots ? o->ready_slots : o->slots;
}

ebb_status ebb_device_create(struct ebb_pool *pool, const ebb_pool_options *o)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        clear_own_error(e);
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "gpu pool: no CUDA device is usable (%s); run without the gpu tier",
                        e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
    }
    if (o->device < 0 || o->device >= count)
        return ebb_fail(EBB_ERR_INVALID_ARG, "gpu pool: device %d does not exist (devices 0 .. %d)",
                        o->device, count - 1);
    if (o->block == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "gpu pool: block (copy chunk) is 0 bytes");
    struct ebb_device *dv = calloc(1, sizeof *dv);
    pool->ops = calloc((size_t)o->slots, sizeof *pool->ops);
    cudaEvent_t *slot_events = calloc((size_t)o->slots, sizeof *slot_events);
    if (!dv || !pool->ops || !slot_events) {
        free(dv);
        free(pool->ops);
        free(slot_events);
        pool->ops = NULL;
        return ebb_fail(EBB_ERR_NO_MEMORY, "gpu pool: cannot allocate bookkeeping");
    }
    pool->device = dv;
    dv->device = o->device;
    dv->chunk = o->block;
    dv->slot_events = slot_events;
    pool->stride = ebb_slot_stride(EBB_TIER_GPU, o->slot_size, 0);
    pool->bytes = (uint64_t)pool->stride * (uint64_t)o->slots;
    ebb_cuda_guard g;
    if ((e = ebb_cuda_enter(dv->device, &g)) != cudaSuccess) {
        ebb_status s = cuda_fail(EBB_ERR_UNSUPPORTED, e, "cudaSetDevice", o->device);
        ebb_device_destroy(pool);
        return s;
    }
    pthread_mutex_init(&pool->grow_mu, NULL);
    dv->grow_init = 1;
    int32_t first = first_extent(o);
    const char *call;
    e = ready_extent(pool, 0, first, &call);
    if (e != cudaSuccess) {
        ebb_cuda_leave(&g);
        clear_own_error(e);
        ebb_status s = ebb_fail(EBB_ERR_NO_MEMORY,
                                "gpu pool: making %d slots of %zu bytes (%llu bytes) ready on "
                                "CUDA device %d failed: %s: %s; %s",
                                (int)first, o->slot_size,
                                (unsigned long long)first * pool->stride, o->device, call,
                                cudaGetErrorString(e),
                                extent_advice(call));
        ebb_device_destroy(pool);
        return s;
    }
    atomic_store_explicit(&pool->ready, first, memory_order_release);
    pool->base = dv->ext_base[0];
    e = create_objects(dv, &call);
    ebb_cuda_leave(&g);
    if (e != cudaSuccess) {
        ebb_status s = cuda_fail(EBB_ERR_IO, e, call, o->device);
        ebb_device_destroy(pool);
        return s;
    }
    ebb_topology_gpu_node(dv->device, &pool->numa_node);
    return EBB_OK;
}

void ebb_device_destroy(struct ebb_pool *pool)
{
    struct ebb_device *dv = pool->device;
    if (!dv)
        return;
    ebb_cuda_guard g;
    clear_own_error(ebb_cuda_enter(dv->device, &g));
    /* Under a sticky error every call below fails at once: nothing waits,
     * the host-side bookkeeping is freed, the device memory goes with the
     * context when the caller resets the device. */
    for (int i = 0; i < S_COUNT; i++)
        for (int l = 0; l < LANES; l++)
            if (dv->streams[i][l]) {
                clear_own_error(cudaStreamSynchronize(dv->streams[i][l]));
                clear_own_error(cudaStreamDestroy(dv->streams[i][l]));
            }
    if (dv->order_event)
        clear_own_error(cudaEventDestroy(dv->order_event));
    if (dv->mark_event)
        clear_own_error(cudaEventDestroy(dv->mark_event));
    /* Copies of other gpu pools (on their streams) that still read a slot
     * must finish before the memory is freed. */
    if (pool->ops)
        destroy_slot_events(pool, 0, pool->slots);
    for (int32_t k = 0; k < pool->extents; k++)
        clear_own_error(cudaFree(dv->ext_base[k]));
    ebb_cuda_leave(&g);
    pool->extents = 0;
    pool->base = NULL;
    if (dv->grow_init)
        pthread_mutex_destroy(&pool->grow_mu);
    free(pool->ops);
    pool->ops = NULL;
    free(dv->slot_events);
    free(dv);
    pool->device = NULL;
}

static const char *memory_kind(const struct cudaPointerAttributes *a)
{
    switch (a->type) {
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed";
    case cudaMemoryTypeHost: return "pinned host";
    default: return "pageable host";
    }
}

ebb_status ebb_device_check_user_ptr(const void *ptr, size_t bytes, const char *what,
                                     int *on_device)
{
    /* Both ends of the range: a pinned buffer shorter than a slot would be
     * an overrunning copy (from pageable memory past its end). */
    struct cudaPointerAttributes a, z;
    memset(&a, 0, sizeof a);
    memset(&z, 0, sizeof z);
    const char *last = (const char *)ptr + (bytes ? bytes - 1 : 0);
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e == cudaSuccess)
        e = cudaPointerGetAttributes(&z, last);
    if (e != cudaSuccess) {
        clear_own_error(e);
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s: cannot tell what memory %p is: %s", what, ptr,
                        cudaGetErrorString(e));
    }
    int dev_a = a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
    int dev_z = z.type == cudaMemoryTypeDevice || z.type == cudaMemoryTypeManaged;
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged &&
        a.type != cudaMemoryTypeHost)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s: %p is pageable host memory; gpu transfers use pinned memory only "
                        "(copy it into a host pool slot and ebb_move that)",
                        what, ptr);
    if (dev_a != dev_z || (z.type == cudaMemoryTypeDevice && z.device != a.device) ||
        (!dev_z && z.type != cudaMemoryTypeHost))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s: the %zu bytes at %p (the pool's slot_size) are not one %s buffer: "
                        "the last byte, %p, is %s memory; pass a buffer of at least slot_size "
                        "bytes",
                        what, bytes, ptr, memory_kind(&a), (const void *)last, memory_kind(&z));
    *on_device = dev_a;
    return EBB_OK;
}

/* Slot `slot`'s memory; the slot is below `ready` (an extent's entries
 * are published before `extents` counts it). */
static unsigned char *slot_memory(const struct ebb_pool *pool, int32_t slot)
{
    int32_t k = atomic_load_explicit(&pool->extents, memory_order_acquire) - 1;
    while (k > 0 && pool->ext_start[k] > slot)
        k--;
    return pool->device->ext_base[k] + (size_t)(slot - pool->ext_start[k]) * pool->stride;
}

ebb_status ebb_device_slot(struct ebb_pool *pool, int32_t slot, unsigned char **mem)
{
    struct ebb_device *dv = pool->device;
    ebb_status s = EBB_OK;
    /* a ready slot (every copy but an extent's first): no lock */
    if (slot < atomic_load_explicit(&pool->ready, memory_order_acquire)) {
        if (mem)
            *mem = slot_memory(pool, slot);
        return EBB_OK;
    }
    pthread_mutex_lock(&pool->grow_mu);
    int32_t from = atomic_load_explicit(&pool->ready, memory_order_relaxed);
    if (slot >= from) {
        int32_t to = ebb_pool_next_extent_end(pool, from, slot);
        size_t bytes = (size_t)(to - from) * pool->stride;
        ebb_cuda_guard g;
        cudaError_t e = pool->extents >= EBB_HOST_EXTENTS /* cannot happen: doubling */
                            ? cudaErrorMemoryAllocation
                            : ebb_cuda_enter(dv->device, &g);
        const char *call = "cudaSetDevice";
        if (e == cudaSuccess) {
            e = ready_extent(pool, from, to, &call);
            ebb_cuda_leave(&g);
        }
        if (e != cudaSuccess) {
            clear_own_error(e);
            s = ebb_fail(EBB_ERR_NO_MEMORY,
                         "gpu pool: slot %d is beyond the %d slots made ready so far, and making "
                         "slots %d .. %d ready (%zu bytes, extent %d) on CUDA device %d failed: "
                         "%s: %s; %s, give the run its steps (ebb_run_options.steps, so that "
                         "only the slots the schedule uses are made), or free device memory",
                         (int)slot, (int)from, (int)from, (int)to - 1, bytes,
                         (int)pool->extents + 1, dv->device, call, cudaGetErrorString(e),
                         extent_advice(call));
        } else {
            atomic_store_explicit(&pool->ready, to, memory_order_release);
        }
    }
    if (s == EBB_OK && mem)
        *mem = slot_memory(pool, slot);
    pthread_mutex_unlock(&pool->grow_mu);
    return s;
}

/* A copy's stream in direction `which`: the first idle lane, else the next
 * in turn, so that a copy queued behind a wait holds up few others. */
static cudaStream_t pick_lane(struct ebb_device *dv, int which)
{
    int start = dv->next_lane[which];
    int l = start;
    for (int i = 0; i < LANES; i++) {
        int k = (start + i) % LANES;
        cudaError_t q = cudaStreamQuery(dv->streams[which][k]);
        clear_own_error(q);
        if (q == cudaSuccess) {
            l = k;
            break;
        }
    }
    dv->next_lane[which] = (l + 1) % LANES;
    return dv->streams[which][l];
}

/* Before the first copy between the pool's device and memory of device
 * `peer`: peer access, so that the copies go directly, not staged through
 * host memory. A refusal is a warning; the copies still work. */
static void enable_peer(struct ebb_pool *pool, int peer)
{
    struct ebb_device *dv = pool->device;
    if (peer < 0 || peer >= 64 || peer == dv->device || ((dv->peer_tried >> peer) & 1))
        return;
    dv->peer_tried |= 1ull << peer;
    int can = 0;
    cudaError_t e = cudaDeviceCanAccessPeer(&can, dv->device, peer);
    if (e == cudaSuccess && !can) {
        ebb_pool_warn(pool, "CUDA device %d cannot access device %d directly: copies between "
                      "them go through host memory", dv->device, peer);
        return;
    }
    if (e == cudaSuccess)
        e = cudaDeviceEnablePeerAccess(peer, 0);
    clear_own_error(e);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
        ebb_pool_warn(pool, "peer access from CUDA device %d to %d failed (%s): copies between "
                      "them go through host memory", dv->device, peer, cudaGetErrorName(e));
}

/* The device of device memory at `mem`, -1 for any other kind. */
static int memory_device(const void *mem)
{
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    cudaError_t e = cudaPointerGetAttributes(&a, mem);
    clear_own_error(e);
    return e == cudaSuccess && a.type == cudaMemoryTypeDevice ? a.device : -1;
}

/* Makes `st` wait for `ev` if its work is still running. */
static cudaError_t wait_if_pending(cudaStream_t st, cudaEvent_t ev)
{
    return ev && event_pending(ev) ? cudaStreamWaitEvent(st, ev, 0) : cudaSuccess;
}

/* Refuses a slot that an operation still uses; reports (once) a failure
 * its ticket never reported. */
static ebb_status slot_free(struct ebb_pool *pool, int32_t slot, int to_device)
{
    ebb_op *op = &pool->ops[slot];
    cudaError_t q = cudaEventQuery((cudaEvent_t)op->event);
    clear_own_error(q);
    if (q == cudaErrorNotReady || atomic_load(&op->await_disk))
        return ebb_fail(EBB_ERR_STATE,
                        "gpu slot %d is busy: an operation on it is still in flight; wait for its "
                        "ticket first",
                        (int)slot);
    if (to_device && op->read_event && event_pending((cudaEvent_t)op->read_event))
        return ebb_fail(EBB_ERR_STATE,
                        "gpu slot %d is being read by a gpu -> gpu copy still in flight; wait for "
                        "its ticket first",
                        (int)slot);
    /* The previous operation failed on the device and its ticket was never
     * tested: its failure is recorded now, and reported below (once). */
    if (q != cudaSuccess && op->status == EBB_OK) {
        copy_failed(pool, op, q);
        op->reported = 0;
    }
    if (op->status != EBB_OK && !op->reported) {
        op->reported = 1;
        return ebb_fail(EBB_ERR_STATE,
                        "gpu slot %d: its previous operation failed and its ticket was never "
                        "tested: %s",
                        (int)slot, op->msg);
    }
    return EBB_OK;
}

/* Queues the copy of `size` bytes in chunks of the device's chunk size on
 * `st`; a chained copy (split) is also cut at the disk's blocks, each block
 * but the last followed by its event, so the disk write can follow block by
 * block. Counts the chunks; *queued says whether any is on the stream. */
static cudaError_t queue_chunks(struct ebb_device *dv, cudaStream_t st, unsigned char *dst,
                                const unsigned char *src, size_t size,
                                enum cudaMemcpyKind kind, const ebb_copy_split *split,
                                uint64_t *chunks, int *queued)
{
    cudaError_t e = cudaSuccess;
    size_t piece = split ? split->block : size;
    for (size_t start = 0, k = 0; e == cudaSuccess && start < size; start += piece, k++) {
        size_t end = size - start < piece ? size : start + piece;
        for (size_t off = start; e == cudaSuccess && off < end; off += dv->chunk) {
            size_t n = end - off < dv->chunk ? end - off : dv->chunk;
            e = cudaMemcpyAsync(dst + off, src + off, n, kind, st);
            (*chunks)++;
            *queued |= e == cudaSuccess;
        }
        if (e == cudaSuccess && split && k + 1 < split->count)
            e = cudaEventRecord((cudaEvent_t)split->events[k], st);
    }
    return e;
}

/* Enqueuing failed part way (`e`): the chunks queued still write the slot
 * (or read it), so the slot's event goes after them and the slot stays busy
 * until they finish. The failure is the caller's now: recorded as reported,
 * so the next operation is not refused for it. If even that record fails,
 * wait for the chunks here. */
static void failed_part_way(struct ebb_pool *pool, int32_t slot, cudaStream_t st, int which,
                            cudaError_t e)
{
    ebb_op *op = &pool->ops[slot];
    cudaError_t r = cudaEventRecord((cudaEvent_t)op->event, st);
    clear_own_error(r);
    if (r != cudaSuccess)
        clear_own_error(cudaStreamSynchronize(st));
    op->generation++;
    op->copy = which;
    op->status = EBB_ERR_IO;
    op->reported = 1;
    snprintf(op->msg, sizeof op->msg,
             "gpu slot %d: enqueuing its %s copy on CUDA device %d failed part way: %s",
             (int)slot, stream_name[which], pool->device->device, cudaGetErrorName(e));
}

/* A copy queued: the slot's operation starts afresh, the pool counts it, and
 * the ticket names it. */
static void copy_queued(struct ebb_pool *pool, int32_t slot, int to_device, int which,
                        uint64_t chunks, ebb_ticket *ticket)
{
    ebb_op *op = &pool->ops[slot];
    op->generation++;
    atomic_store(&op->failed, 0);
    op->status = EBB_OK;
    op->reported = 0;
    op->msg[0] = '\0';
    op->write = to_device;
    op->copy = which;
    atomic_fetch_add(&pool->st_requests, chunks);
    if (to_device) {
        atomic_fetch_add(&pool->st_writes, 1);
        atomic_fetch_add(&pool->st_bytes_written, pool->slot_size);
    } else {
        atomic_fetch_add(&pool->st_reads, 1);
        atomic_fetch_add(&pool->st_bytes_read, pool->slot_size);
    }
    ticket->pool = pool;
    ticket->index = (uint32_t)slot;
    ticket->generation = op->generation;
}

ebb_status ebb_device_copy(struct ebb_pool *pool, int32_t slot, void *mem, int to_device,
                           int mem_on_device, ebb_op *after, ebb_copy_mark *mark,
                           const ebb_copy_split *split, ebb_ticket *ticket)
{
    if (mark)
        mark->recorded = 0;
    struct ebb_device *dv = pool->device;
    ebb_op *op = &pool->ops[slot];
    unsigned char *slot_mem = NULL;
    ebb_status s = ebb_device_slot(pool, slot, &slot_mem);
    if (s == EBB_OK)
        s = slot_free(pool, slot, to_device);
    if (s != EBB_OK)
        return s;
    cudaEvent_t ev = (cudaEvent_t)op->event;
    int which = mem_on_device ? S_D2D : (to_device ? S_H2D : S_D2H);
    unsigned char *dst = to_device ? slot_mem : mem;
    const unsigned char *src = to_device ? mem : slot_mem;
    /* Memory on a device goes by unified addressing: it may be managed
     * memory or another device's memory, for which DeviceToDevice is wrong. */
    enum cudaMemcpyKind kind = mem_on_device ? cudaMemcpyDefault
                               : to_device   ? cudaMemcpyHostToDevice
                                             : cudaMemcpyDeviceToHost;
    ebb_cuda_guard g;
    cudaError_t e = ebb_cuda_enter(dv->device, &g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "cudaSetDevice", dv->device);
    if (mem_on_device)
        enable_peer(pool, memory_device(mem));
    cudaStream_t st = pick_lane(dv, which);
    /* after the source slot's operation (gpu -> gpu), and after the caller's
     * work on this slot that ebb_pool_slot_order_after marked */
    if (after)
        e = wait_if_pending(st, (cudaEvent_t)after->event);
    if (e == cudaSuccess)
        e = wait_if_pending(st, dv->slot_events[slot]);
    uint64_t chunks = 0;
    int queued = 0; /* some chunk is on the stream */
    size_t size = pool->slot_size;
    if (split && split->follow && e == cudaSuccess) { /* the disk read queues the copies */
        *split->follow = (ebb_follow){op, st, dst, dv->device};
        atomic_store(&op->await_disk, 1);
        size = 0;
    }
    if (e == cudaSuccess)
        e = queue_chunks(dv, st, dst, src, size, kind, split, &chunks, &queued);
    /* The host slot's event, on the same stream, after the chunks (also
     * after a failure part way: the chunks queued still touch the slot) and
     * before the operation's own event, so that a completed ticket implies a
     * free host slot. Only when the event belongs to this device: recording
     * an event on a stream of another device fails. */
    if (mark && mark->event && mark->device == dv->device && queued)
        mark->recorded = record_mark(st, (cudaEvent_t)mark->event);
    if (e == cudaSuccess && size)
        e = cudaEventRecord(ev, st);
    /* a chained copy's last block event goes after everything: a complete
     * disk write then implies a complete copy and a free host slot */
    if (e == cudaSuccess && split && split->count && size)
        e = cudaEventRecord((cudaEvent_t)split->events[split->count - 1], st);
    else if (e != cudaSuccess && queued)
        failed_part_way(pool, slot, st, which, e);
    ebb_cuda_leave(&g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, stream_name[which], dv->device);
    copy_queued(pool, slot, to_device, which, chunks, ticket);
    return EBB_OK;
}

ebb_status ebb_device_test(struct ebb_pool *pool, ebb_op *op, int block, int *done)
{
    cudaEvent_t ev = (cudaEvent_t)op->event;
    /* blocking-sync events: a wait sleeps instead of polling */
    cudaError_t e = block ? cudaEventSynchronize(ev) : cudaEventQuery(ev);
    clear_own_error(e);
    if (e == cudaErrorNotReady) {
        *done = 0;
        return EBB_OK;
    }
    *done = 1;
    if (e != cudaSuccess && op->status == EBB_OK)
        copy_failed(pool, op, e);
    return ebb_op_report(op);
}

ebb_status ebb_device_order_after(struct ebb_pool *pool, void *stream)
{
    struct ebb_device *dv = pool->device;
    ebb_cuda_guard g;
    cudaError_t e = ebb_cuda_enter(dv->device, &g);
    if (e == cudaSuccess)
        e = cudaEventRecord(dv->order_event, (cudaStream_t)stream);
    /* Only the copies that read what the caller's work produced (device ->
     * host, device -> device) wait; host -> device copies start at once
     * (the slot they overwrite is ordered by ebb_pool_slot_order_after). */
    static const int readers[] = {S_D2H, S_D2D};
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        for (int l = 0; l < LANES && e == cudaSuccess; l++)
            e = cudaStreamWaitEvent(dv->streams[readers[i]][l], dv->order_event, 0);
    ebb_cuda_leave(&g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "ordering copies after the caller's stream", dv->device);
    return EBB_OK;
}

ebb_status ebb_device_slot_order_after(struct ebb_pool *pool, int32_t slot, void *stream)
{
    struct ebb_device *dv = pool->device;
    ebb_status s = ebb_device_slot(pool, slot, NULL);
    if (s != EBB_OK)
        return s;
    ebb_cuda_guard g;
    cudaError_t e = ebb_cuda_enter(dv->device, &g);
    if (e == cudaSuccess)
        e = cudaEventRecord(dv->slot_events[slot], (cudaStream_t)stream);
    ebb_cuda_leave(&g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "ordering a slot's copies after the caller's stream",
                         dv->device);
    return EBB_OK;
}

ebb_status ebb_device_mark(struct ebb_pool *pool, void *stream)
{
    struct ebb_device *dv = pool->device;
    ebb_cuda_guard g;
    cudaError_t e = ebb_cuda_enter(dv->device, &g);
    if (e == cudaSuccess)
        e = cudaEventRecord(dv->mark_event, (cudaStream_t)stream);
    ebb_cuda_leave(&g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "marking the caller's stream", dv->device);
    dv->marked = 1;
    return EBB_OK;
}

ebb_status ebb_device_mark_reached(struct ebb_pool *pool, int *reached)
{
    struct ebb_device *dv = pool->device;
    *reached = 1;
    if (!dv->marked)
        return EBB_OK;
    cudaError_t e = cudaEventQuery(dv->mark_event);
    clear_own_error(e);
    if (e == cudaErrorNotReady) {
        *reached = 0;
        return EBB_OK;
    }
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "asking how far the caller's stream has come",
                         dv->device);
    return EBB_OK;
}

ebb_status ebb_device_stream_wait(struct ebb_pool *pool, ebb_op *op, void *stream)
{
    /* With the pool's device current, as ebb_device_order_after: a NULL
     * stream is that device's legacy default stream in both. */
    ebb_cuda_guard g;
    cudaError_t e = ebb_cuda_enter(pool->device->device, &g);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)op->event, 0);
    ebb_cuda_leave(&g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "making the caller's stream wait for a copy",
                         pool->device->device);
    return EBB_OK;
}

void ebb_device_info(const struct ebb_pool *pool, ebb_pool_info *info)
{
    info->backend = "cuda";
    info->device = pool->device->device;
    info->block = pool->device->chunk;
}

