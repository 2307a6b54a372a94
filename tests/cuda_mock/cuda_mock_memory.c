/* The fake CUDA runtime (see cuda_mock.h): devices, errors, memory, peer
 * access and device reset. */
#include "cuda_mock_internal.h"

cudaError_t cudaGetDeviceCount(int *count)
{
    LOCK();
    INJECT("cudaGetDeviceCount");
    *count = cm_ndev;
    UNLOCK();
    return cm_ndev ? cudaSuccess : cm_fail(cudaErrorNoDevice);
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = cm_last_err;
    LOCK();
    cm_last_err = cm_sticky[cm_cur_dev]; /* a sticky error stays */
    UNLOCK();
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return cm_last_err; }

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorUnknown: return "cudaErrorUnknown";
    case cudaErrorHostMemoryAlreadyRegistered: return "cudaErrorHostMemoryAlreadyRegistered";
    case cudaErrorHostMemoryNotRegistered: return "cudaErrorHostMemoryNotRegistered";
    case cudaErrorECCUncorrectable: return "cudaErrorECCUncorrectable";
    case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
    case cudaErrorPeerAccessNotEnabled: return "cudaErrorPeerAccessNotEnabled";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    default: return "cudaErrorMockOther";
    }
}

const char *cudaGetErrorString(cudaError_t error)
{
    static __thread char buf[96];
    snprintf(buf, sizeof buf, "mock %s (%d)", cudaGetErrorName(error), (int)error);
    return buf;
}

cudaError_t cudaGetDevice(int *device)
{
    LOCK();
    INJECT("cudaGetDevice");
    UNLOCK();
    *device = cm_cur_dev;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    LOCK();
    INJECT("cudaSetDevice");
    int ok = device >= 0 && device < cm_ndev;
    UNLOCK();
    if (!ok)
        return cm_fail(cudaErrorInvalidDevice);
    cm_cur_dev = device;
    /* since CUDA 12.0 it initialises the device's primary context */
    LOCK();
    cm_in_context(device);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    LOCK();
    INJECT("cudaDeviceGetPCIBusId");
    int ok = device >= 0 && device < cm_ndev;
    UNLOCK();
    if (!ok)
        return cm_fail(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", 0xf0 + device);
    return cudaSuccess;
}

/* Device memory: each device has cm_device_total bytes, of which
 * CM_OTHERS_BYTES are taken by others (another process, the context), so
 * that a fresh device reports 70 of 80 GiB free; cudaMalloc takes from the
 * rest and fails with cudaErrorMemoryAllocation beyond it, as the runtime
 * does (not sticky). */
#define CM_OTHERS_BYTES ((size_t)10 << 30)

size_t cm_device_bytes(int dev)
{
    size_t n = 0;
    for (range *r = cm_ranges; r; r = r->next)
        if (r->kind == M_DEVICE && r->dev == dev)
            n += r->n;
    return n;
}

static size_t device_free(int dev)
{
    size_t taken = CM_OTHERS_BYTES + cm_device_bytes(dev);
    return taken < cm_device_total ? cm_device_total - taken : 0;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    LOCK();
    INJECT("cudaMemGetInfo");
    CONTEXT(cm_cur_dev);
    *free_bytes = device_free(cm_cur_dev);
    *total = cm_device_total;
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    LOCK();
    INJECT("cudaHostRegister");
    CONTEXT(cm_cur_dev);
    cudaError_t e = cudaSuccess;
    if (!cm_ndev)
        e = cudaErrorNoDevice;
    else if (!ptr || !size)
        e = cudaErrorInvalidValue;
    else
        for (range *r = cm_ranges; r && e == cudaSuccess; r = r->next)
            if (cm_overlaps(r->p, r->n, ptr, size))
                e = r->kind == M_PINNED ? cudaErrorHostMemoryAlreadyRegistered
                                        : cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        range *r = cm_add_range(ptr, size, -1, M_PINNED, 0);
        r->reg_dev = cm_cur_dev;
        r->portable = (flags & cudaHostRegisterPortable) != 0;
    }
    UNLOCK();
    return cm_fail(e);
}

/* ptr must be the base address of a range cudaHostRegister registered.
 * Memory not registered is refused with cudaErrorHostMemoryNotRegistered (as
 * documented); a pointer inside a registered range but not its base with
 * cudaErrorInvalidValue (what CUDA 13 on an H100 answered, 2026-11-26). */
static uint64_t unregister_refused;

uint64_t cuda_mock_unregister_refused(void)
{
    LOCK();
    uint64_t n = unregister_refused;
    UNLOCK();
    return n;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    LOCK();
    INJECT("cudaHostUnregister");
    CONTEXT(cm_cur_dev);
    range *r = cm_ranges;
    while (r && !(r->p == ptr && r->kind == M_PINNED && !r->owned))
        r = r->next;
    if (!r) {
        range *in = cm_find(ptr);
        unregister_refused++;
        UNLOCK();
        return cm_fail(in && in->kind == M_PINNED && !in->owned ? cudaErrorInvalidValue
                                                                : cudaErrorHostMemoryNotRegistered);
    }
    cm_remove_range(ptr, 1, "cudaHostUnregister");
    UNLOCK();
    return cudaSuccess;
}

range *cm_allocate_range(void **p, size_t size, int kind, const char *name,
                             cudaError_t *err)
{
    *err = cudaSuccess;
    cudaError_t inj = cm_injected(name);
    if (inj == cudaSuccess && !cm_ndev)
        inj = cudaErrorNoDevice;
    if (inj == cudaSuccess)
        inj = cm_in_context(cm_cur_dev);
    if (inj != cudaSuccess) {
        *err = inj;
        return NULL;
    }
    if (!size) {
        *p = NULL;
        return NULL;
    }
    if (kind == M_DEVICE && size > device_free(cm_cur_dev)) {
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    char *m = aligned_alloc(256, (size + 255) / 256 * 256);
    if (!m) {
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    *p = m;
    return cm_add_range(m, size, cm_cur_dev, kind, 1);
}

cudaError_t cm_allocate(void **p, size_t size, int kind, const char *name)
{
    LOCK();
    cudaError_t e;
    cm_allocate_range(p, size, kind, name, &e);
    UNLOCK();
    return cm_fail(e);
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    return cm_allocate(devPtr, size, M_DEVICE, "cudaMalloc");
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    (void)flags;
    return cm_allocate(devPtr, size, M_MANAGED, "cudaMallocManaged");
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    LOCK();
    cudaError_t e;
    range *r = cm_allocate_range(pHost, size, M_PINNED, "cudaHostAlloc", &e);
    if (r) {
        r->reg_dev = cm_cur_dev;
        r->portable = (flags & cudaHostAllocPortable) != 0;
    }
    UNLOCK();
    return cm_fail(e);
}

cudaError_t cudaFreeHost(void *ptr)
{
    if (!ptr)
        return cudaSuccess;
    LOCK();
    INJECT("cudaFreeHost");
    CONTEXT(cm_cur_dev);
    cm_remove_range(ptr, 1, "cudaFreeHost");
    UNLOCK();
    return cudaSuccess;
}

/* Synchronous, as cudaMemset is for the host (pending copies are not ordered
 * against it here: the tests that use it queue nothing before). */
cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    LOCK();
    INJECT("cudaMemset");
    CONTEXT(cm_cur_dev);
    range *r = cm_find(devPtr);
    if (!r || r->kind == M_PINNED || (char *)devPtr + count > r->p + r->n)
        cm_misuse("cudaMemset(%p, %zu bytes): not inside device memory the mock allocated", devPtr,
               count);
    memset(devPtr, value, count);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    LOCK();
    INJECT("cudaGetDeviceProperties");
    if (device < 0 || device >= cm_ndev) {
        UNLOCK();
        return cm_fail(cudaErrorInvalidDevice);
    }
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "cuda_mock device %d", device);
    prop->totalGlobalMem = cm_device_total;
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr)
{
    if (!devPtr)
        return cudaSuccess;
    LOCK();
    INJECT("cudaFree");
    CONTEXT(cm_cur_dev);
    cm_remove_range(devPtr, 0, "cudaFree");
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    LOCK();
    INJECT("cudaPointerGetAttributes");
    memset(attributes, 0, sizeof *attributes);
    range *r = cm_find(ptr);
    attributes->device = r ? r->dev : -1;
    attributes->type = !r                    ? cudaMemoryTypeUnregistered
                       : r->kind == M_DEVICE ? cudaMemoryTypeDevice
                       : r->kind == M_PINNED ? cudaMemoryTypeHost
                                             : cudaMemoryTypeManaged;
    if (r && r->kind != M_PINNED)
        attributes->devicePointer = (void *)ptr;
    if (r && r->kind != M_DEVICE)
        attributes->hostPointer = (void *)ptr;
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    LOCK();
    INJECT("cudaDeviceCanAccessPeer");
    int ok = device >= 0 && device < cm_ndev && peerDevice >= 0 && peerDevice < cm_ndev;
    UNLOCK();
    if (!ok)
        return cm_fail(cudaErrorInvalidDevice);
    *canAccessPeer = device != peerDevice;
    return cudaSuccess;
}

/* Access from the current device to peerDevice's memory (one direction). */
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    LOCK();
    INJECT("cudaDeviceEnablePeerAccess");
    CONTEXT(cm_cur_dev);
    cudaError_t e = cudaSuccess;
    if (peerDevice < 0 || peerDevice >= cm_ndev || peerDevice == cm_cur_dev)
        e = cudaErrorInvalidDevice;
    else if (flags)
        e = cudaErrorInvalidValue;
    else if (cm_peer_on[cm_cur_dev][peerDevice])
        e = cudaErrorPeerAccessAlreadyEnabled;
    else
        cm_peer_on[cm_cur_dev][peerDevice] = 1;
    UNLOCK();
    return cm_fail(e);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    LOCK();
    INJECT("cudaDeviceDisablePeerAccess");
    CONTEXT(cm_cur_dev);
    cudaError_t e = cudaSuccess;
    if (peerDevice < 0 || peerDevice >= cm_ndev || !cm_peer_on[cm_cur_dev][peerDevice])
        e = cudaErrorPeerAccessNotEnabled;
    else
        cm_peer_on[cm_cur_dev][peerDevice] = 0;
    UNLOCK();
    return cm_fail(e);
}

/* Destroys the current device's context and everything in it (its streams
 * with their queued work, its events, its allocations and the host memory
 * its context registered), clearing a sticky error. */
cudaError_t cudaDeviceReset(void)
{
    LOCK();
    INJECT("cudaDeviceReset");
    int d = cm_cur_dev;
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        if (s->dev == d) {
            s->done = s->queued;
            s->destroyed = 1;
        }
    cm_default_stream[d] = NULL;
    cm_per_thread_stream[d] = NULL; /* this thread's only */
    for (struct CUevent_st *e = cm_events; e; e = e->next)
        if (e->dev == d)
            e->destroyed = 1;
    for (range **pp = &cm_ranges; *pp;) {
        range *r = *pp;
        int mine = r->kind == M_PINNED ? r->reg_dev == d : r->dev == d;
        if (!mine) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        if (r->owned)
            free(r->p);
        free(r);
    }
    for (int i = 0; i < MAX_DEV; i++)
        cm_peer_on[d][i] = cm_peer_on[i][d] = 0;
    cm_sticky[d] = cudaSuccess;
    cm_ctx_live[d] = 0;
    UNLOCK();
    cm_last_err = cudaSuccess;
    return cudaSuccess;
}

