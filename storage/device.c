/* Device tier: slots in GPU memory (one cudaMalloc), copies on the pool's own
 * streams (device -> host, host -> device, device -> device), each operation
 * closed by an event that tickets test, wait for, or make a stream wait for.
 * Only the CUDA runtime API; no kernels. Without CUDA (at build or at run
 * time) creating a gpu pool fails with EBB_ERR_UNSUPPORTED and the rest of
 * the library works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "storage/pool_internal.h"
#include "storage/topology.h"

#if EBB_HAVE_CUDA
#include <cuda_runtime_api.h>

enum { S_D2H = 0, S_H2D = 1, S_D2D = 2, S_COUNT = 3 };

struct ebb_device {
    int device;
    size_t chunk;
    cudaStream_t streams[S_COUNT];
    cudaEvent_t order_event; /* ebb_pool_order_after */
};

static const char *stream_name[S_COUNT] = {"device -> host", "host -> device",
                                           "device -> device"};

int ebb_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

ebb_status ebb_topology_gpu_node(int device, int *node)
{
    if (!node)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_topology_gpu_node: node is NULL");
    *node = -1;
    if (device < 0 || device >= ebb_gpu_count())
        return EBB_OK;
    char bus[32];
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return EBB_OK;
    }
    *node = ebb_topo_pci_node(bus);
    return EBB_OK;
}

int ebb_cuda_host_register(void *ptr, size_t bytes, char *why, size_t why_len)
{
    cudaError_t e = cudaHostRegister(ptr, bytes, cudaHostRegisterPortable);
    if (e == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    snprintf(why, why_len, "cudaHostRegister of %zu bytes failed: %s", bytes, cudaGetErrorString(e));
    return -1;
}

void ebb_cuda_host_unregister(void *ptr)
{
    if (cudaHostUnregister(ptr) != cudaSuccess)
        (void)cudaGetLastError();
}

/* Runs with the pool's device current, restoring the caller's afterwards. */
typedef struct dev_guard {
    int old;
    int changed;
} dev_guard;

static cudaError_t enter(int device, dev_guard *g)
{
    g->changed = 0;
    cudaError_t e = cudaGetDevice(&g->old);
    if (e != cudaSuccess)
        return e;
    if (g->old != device) {
        e = cudaSetDevice(device);
        g->changed = e == cudaSuccess;
    }
    return e;
}

static void leave(dev_guard *g)
{
    if (g->changed)
        (void)cudaSetDevice(g->old);
}

/* Errors that leave the context unusable ("any further CUDA work will return
 * the same error"): cudaGetLastError cannot clear them. The codes added after
 * CUDA 11 are compared by value so that older toolkits still compile. */
static int cuda_sticky(cudaError_t e)
{
    switch ((int)e) {
    case cudaErrorECCUncorrectable:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case 226: /* cudaErrorContained */
    case 721: /* cudaErrorTensorMemoryLeak */
    case 810: /* cudaErrorMpsClientTerminated */
    case 911: /* cudaErrorExternalDevice */
        return 1;
    default:
        return 0;
    }
}

/* After one of our own calls returned `e`: resets the thread's last-error
 * state when it holds exactly that (so a caller's cudaGetLastError does not
 * see our failure, nor a cudaErrorNotReady should the runtime keep one),
 * never when it holds something else (the caller's own pending error) and
 * never for a sticky error, which cannot be cleared and must stay visible. */
static void clear_own_error(cudaError_t e)
{
    if (e == cudaSuccess || cuda_sticky(e))
        return;
    if (cudaPeekAtLastError() == e)
        (void)cudaGetLastError();
}

/* 1 while the work `ev` captured is still running. Any other answer means
 * not running: cudaSuccess (done, or never recorded), or an error (the copy
 * or the context failed: the copy's own ticket reports it). */
static int event_pending(cudaEvent_t ev)
{
    cudaError_t q = cudaEventQuery(ev);
    clear_own_error(q);
    return q == cudaErrorNotReady;
}

int ebb_cuda_events_create(int device, void **events, int32_t n, char *why, size_t why_len)
{
    dev_guard g;
    cudaError_t e = enter(device, &g);
    if (e != cudaSuccess) {
        clear_own_error(e);
        snprintf(why, why_len, "cannot make CUDA device %d current: %s", device,
                 cudaGetErrorString(e));
        return -1;
    }
    int32_t made = 0;
    for (; made < n; made++) {
        cudaEvent_t ev = NULL;
        e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        if (e != cudaSuccess)
            break;
        events[made] = ev;
    }
    if (e != cudaSuccess) {
        clear_own_error(e);
        snprintf(why, why_len, "creating CUDA event %d of %d on device %d failed: %s",
                 (int)made + 1, (int)n, device, cudaGetErrorString(e));
        while (made > 0) {
            made--;
            cudaError_t d = cudaEventDestroy((cudaEvent_t)events[made]);
            clear_own_error(d);
            events[made] = NULL;
        }
    }
    leave(&g);
    return e == cudaSuccess ? 0 : -1;
}

void ebb_cuda_events_destroy(int device, void **events, int32_t n)
{
    dev_guard g;
    cudaError_t e = enter(device, &g);
    int entered = e == cudaSuccess;
    clear_own_error(e);
    /* An event whose work is still running may be destroyed: its resources
     * are released when the work completes. */
    for (int32_t i = 0; i < n; i++)
        if (events[i]) {
            clear_own_error(cudaEventDestroy((cudaEvent_t)events[i]));
            events[i] = NULL;
        }
    if (entered)
        leave(&g);
}

int ebb_cuda_event_busy(void *event)
{
    return event_pending((cudaEvent_t)event);
}

void ebb_cuda_event_wait(void *event)
{
    clear_own_error(cudaEventSynchronize((cudaEvent_t)event));
}

/* Records a host slot's tracking event on `st`, after the copy just queued
 * there. While the event still tracks an earlier copy in flight (pool.c lets
 * only another host -> gpu read of the same slot overlap), `st` first waits
 * for that copy, so the event completes only when both have (the new copy's
 * ticket, recorded after, then completes no earlier than the old copy: once
 * the tickets are complete the slot is free). Returns 1 if recorded. */
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
    return ebb_fail(s, "%s on CUDA device %d failed: %s (%s)", what, device, cudaGetErrorString(e),
                    cudaGetErrorName(e));
}

/* Records that the operation of `op` failed on the device with `e`. */
static void copy_failed(struct ebb_pool *pool, ebb_op *op, cudaError_t e)
{
    atomic_fetch_add(&pool->st_errors, 1);
    op->status = EBB_ERR_IO;
    snprintf(op->msg, sizeof op->msg, "gpu slot %d: %s copy on CUDA device %d failed: %s (%s)",
             (int)(op - pool->ops), stream_name[op->copy], pool->device->device,
             cudaGetErrorString(e), cudaGetErrorName(e));
}

void ebb_device_read_mark(const struct ebb_pool *pool, int32_t slot, ebb_copy_mark *mark)
{
    mark->event = pool->ops ? pool->ops[slot].read_event : NULL;
    mark->device = pool->device ? pool->device->device : -1;
    mark->recorded = 0;
}

ebb_status ebb_device_create(struct ebb_pool *pool, const ebb_pool_options *o)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
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
    if (!dv || !pool->ops) {
        free(dv);
        free(pool->ops);
        pool->ops = NULL;
        return ebb_fail(EBB_ERR_NO_MEMORY, "gpu pool: cannot allocate bookkeeping");
    }
    pool->device = dv;
    dv->device = o->device;
    dv->chunk = o->block;
    pool->stride = (o->slot_size + 255) / 256 * 256;
    pool->bytes = (uint64_t)pool->stride * (uint64_t)o->slots;
    dev_guard g;
    if ((e = enter(dv->device, &g)) != cudaSuccess) {
        ebb_status s = cuda_fail(EBB_ERR_UNSUPPORTED, e, "cudaSetDevice", o->device);
        ebb_device_destroy(pool);
        return s;
    }
    void *mem = NULL;
    e = cudaMalloc(&mem, (size_t)pool->bytes);
    if (e != cudaSuccess) {
        leave(&g);
        (void)cudaGetLastError();
        ebb_status s = ebb_fail(EBB_ERR_NO_MEMORY,
                                "gpu pool: cannot allocate %llu bytes (%d slots of %zu bytes) on "
                                "CUDA device %d: %s; lower the gpu budget",
                                (unsigned long long)pool->bytes, (int)o->slots, o->slot_size,
                                o->device, cudaGetErrorString(e));
        ebb_device_destroy(pool);
        return s;
    }
    pool->base = mem;
    for (int i = 0; i < S_COUNT && e == cudaSuccess; i++)
        e = cudaStreamCreateWithFlags(&dv->streams[i], cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&dv->order_event, cudaEventDisableTiming);
    for (int32_t i = 0; i < o->slots && e == cudaSuccess; i++) {
        cudaEvent_t ev;
        e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        if (e == cudaSuccess) {
            pool->ops[i].event = ev;
            e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        }
        if (e == cudaSuccess)
            pool->ops[i].read_event = ev;
    }
    leave(&g);
    if (e != cudaSuccess) {
        ebb_status s = cuda_fail(EBB_ERR_IO, e, "gpu pool: creating streams and events",
                                 o->device);
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
    dev_guard g;
    cudaError_t e = enter(dv->device, &g);
    int entered = e == cudaSuccess;
    clear_own_error(e);
    for (int i = 0; i < S_COUNT; i++)
        if (dv->streams[i]) {
            clear_own_error(cudaStreamSynchronize(dv->streams[i]));
            clear_own_error(cudaStreamDestroy(dv->streams[i]));
        }
    if (dv->order_event)
        clear_own_error(cudaEventDestroy(dv->order_event));
    /* Copies of other gpu pools (on their streams) that still read a slot
     * must finish before the memory is freed. */
    for (int32_t i = 0; pool->ops && i < pool->slots; i++) {
        ebb_op *op = &pool->ops[i];
        if (op->event)
            clear_own_error(cudaEventDestroy((cudaEvent_t)op->event));
        if (op->read_event) {
            clear_own_error(cudaEventSynchronize((cudaEvent_t)op->read_event));
            clear_own_error(cudaEventDestroy((cudaEvent_t)op->read_event));
        }
    }
    if (pool->base)
        clear_own_error(cudaFree(pool->base));
    if (entered)
        leave(&g);
    pool->base = NULL;
    free(pool->ops);
    pool->ops = NULL;
    free(dv);
    pool->device = NULL;
}

ebb_status ebb_device_check_user_ptr(const void *ptr, const char *what, int *on_device)
{
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s: cannot tell what memory %p is: %s", what, ptr,
                        cudaGetErrorString(e));
    }
    switch (a.type) {
    /* Managed memory, and device memory of any device: copied with
     * cudaMemcpyDefault on the device -> device stream. */
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged:
        *on_device = 1;
        return EBB_OK;
    case cudaMemoryTypeHost:
        *on_device = 0;
        return EBB_OK;
    default:
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "%s: %p is pageable host memory; gpu transfers use pinned memory only "
                        "(copy it into a host pool slot and ebb_move that)",
                        what, ptr);
    }
}

ebb_status ebb_device_copy(struct ebb_pool *pool, int32_t slot, void *mem, int to_device,
                           int mem_on_device, ebb_op *after, ebb_copy_mark *mark,
                           ebb_ticket *ticket)
{
    if (mark)
        mark->recorded = 0;
    struct ebb_device *dv = pool->device;
    ebb_op *op = &pool->ops[slot];
    cudaEvent_t ev = (cudaEvent_t)op->event;
    cudaError_t q = cudaEventQuery(ev);
    clear_own_error(q);
    if (q == cudaErrorNotReady)
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
    int which = mem_on_device ? S_D2D : (to_device ? S_H2D : S_D2H);
    cudaStream_t st = dv->streams[which];
    unsigned char *slot_mem = pool->base + (size_t)slot * pool->stride;
    unsigned char *dst = to_device ? slot_mem : mem;
    const unsigned char *src = to_device ? mem : slot_mem;
    /* Memory on a device goes by unified addressing: it may be managed
     * memory or another device's memory, for which DeviceToDevice is wrong. */
    enum cudaMemcpyKind kind = mem_on_device ? cudaMemcpyDefault
                               : to_device   ? cudaMemcpyHostToDevice
                                             : cudaMemcpyDeviceToHost;
    dev_guard g;
    cudaError_t e = enter(dv->device, &g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "cudaSetDevice", dv->device);
    if (after && after->event)
        e = cudaStreamWaitEvent(st, (cudaEvent_t)after->event, 0);
    uint64_t chunks = 0;
    int queued = 0; /* some chunk is on the stream */
    for (size_t off = 0; e == cudaSuccess && off < pool->slot_size; off += dv->chunk) {
        size_t n = pool->slot_size - off < dv->chunk ? pool->slot_size - off : dv->chunk;
        e = cudaMemcpyAsync(dst + off, src + off, n, kind, st);
        chunks++;
        queued |= e == cudaSuccess;
    }
    /* The host slot's event, on the same stream, after the chunks (also
     * after a failure part way: the chunks queued still touch the slot) and
     * before the operation's own event, so that a completed ticket implies a
     * free host slot. Only when the event belongs to this device: recording
     * an event on a stream of another device fails. */
    if (mark && mark->event && mark->device == dv->device && queued)
        mark->recorded = record_mark(st, (cudaEvent_t)mark->event);
    if (e == cudaSuccess)
        e = cudaEventRecord(ev, st);
    else if (queued) {
        /* Enqueuing failed part way: the chunks queued still write the slot
         * (or read it), so the slot's event goes after them and the slot
         * stays busy until they finish. The failure is the caller's now:
         * recorded as reported, so the next operation is not refused for
         * it. If even that record fails, wait for the chunks here. */
        cudaError_t r = cudaEventRecord(ev, st);
        clear_own_error(r);
        if (r != cudaSuccess)
            clear_own_error(cudaStreamSynchronize(st));
        op->generation++;
        op->copy = which;
        op->status = EBB_ERR_IO;
        op->reported = 1;
        snprintf(op->msg, sizeof op->msg,
                 "gpu slot %d: enqueuing its %s copy on CUDA device %d failed part way: %s",
                 (int)slot, stream_name[which], dv->device, cudaGetErrorName(e));
    }
    leave(&g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, stream_name[which], dv->device);
    op->generation++;
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
    return EBB_OK;
}

ebb_status ebb_device_test(struct ebb_pool *pool, ebb_op *op, int block, int *done)
{
    cudaEvent_t ev = (cudaEvent_t)op->event;
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
    dev_guard g;
    cudaError_t e = enter(dv->device, &g);
    if (e == cudaSuccess)
        e = cudaEventRecord(dv->order_event, (cudaStream_t)stream);
    for (int i = 0; i < S_COUNT && e == cudaSuccess; i++)
        e = cudaStreamWaitEvent(dv->streams[i], dv->order_event, 0);
    leave(&g);
    if (e != cudaSuccess)
        return cuda_fail(EBB_ERR_IO, e, "ordering copies after the caller's stream", dv->device);
    return EBB_OK;
}

ebb_status ebb_device_stream_wait(struct ebb_pool *pool, ebb_op *op, void *stream)
{
    /* With the pool's device current, as ebb_device_order_after: a NULL
     * stream is that device's legacy default stream in both. */
    dev_guard g;
    cudaError_t e = enter(pool->device->device, &g);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)op->event, 0);
    leave(&g);
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

#else /* no CUDA at build time */

static ebb_status no_cuda(void)
{
    return ebb_fail(EBB_ERR_UNSUPPORTED,
                    "this ebb was built without CUDA, so it has no gpu tier; rebuild with the "
                    "CUDA toolkit (EBB_WITH_CUDA=ON) or run without the gpu tier");
}

int ebb_gpu_count(void) { return 0; }

ebb_status ebb_topology_gpu_node(int device, int *node)
{
    (void)device;
    if (!node)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_topology_gpu_node: node is NULL");
    *node = -1;
    return EBB_OK;
}

int ebb_cuda_host_register(void *ptr, size_t bytes, char *why, size_t why_len)
{
    (void)ptr;
    (void)bytes;
    snprintf(why, why_len, "built without CUDA");
    return -1;
}

void ebb_cuda_host_unregister(void *ptr) { (void)ptr; }

int ebb_cuda_events_create(int device, void **events, int32_t n, char *why, size_t why_len)
{
    (void)device, (void)events, (void)n;
    snprintf(why, why_len, "built without CUDA");
    return -1;
}

void ebb_cuda_events_destroy(int device, void **events, int32_t n)
{
    (void)device, (void)events, (void)n;
}

int ebb_cuda_event_busy(void *event)
{
    (void)event;
    return 0;
}

void ebb_cuda_event_wait(void *event) { (void)event; }

ebb_status ebb_device_create(struct ebb_pool *pool, const ebb_pool_options *o)
{
    (void)pool;
    (void)o;
    return no_cuda();
}

void ebb_device_destroy(struct ebb_pool *pool) { (void)pool; }

void ebb_device_read_mark(const struct ebb_pool *pool, int32_t slot, ebb_copy_mark *mark)
{
    (void)pool, (void)slot;
    mark->event = NULL;
    mark->device = -1;
    mark->recorded = 0;
}

ebb_status ebb_device_check_user_ptr(const void *ptr, const char *what, int *on_device)
{
    (void)ptr;
    (void)what;
    (void)on_device;
    return no_cuda();
}

ebb_status ebb_device_copy(struct ebb_pool *pool, int32_t slot, void *mem, int to_device,
                           int mem_on_device, ebb_op *after, ebb_copy_mark *mark,
                           ebb_ticket *ticket)
{
    (void)pool, (void)slot, (void)mem, (void)to_device, (void)mem_on_device, (void)after;
    (void)ticket;
    if (mark)
        mark->recorded = 0;
    return no_cuda();
}

ebb_status ebb_device_test(struct ebb_pool *pool, ebb_op *op, int block, int *done)
{
    (void)pool, (void)op, (void)block;
    *done = 1;
    return no_cuda();
}

ebb_status ebb_device_order_after(struct ebb_pool *pool, void *stream)
{
    (void)pool, (void)stream;
    return no_cuda();
}

ebb_status ebb_device_stream_wait(struct ebb_pool *pool, ebb_op *op, void *stream)
{
    (void)pool, (void)op, (void)stream;
    return no_cuda();
}

void ebb_device_info(const struct ebb_pool *pool, ebb_pool_info *info)
{
    (void)pool;
    info->backend = "cuda";
}

#endif
