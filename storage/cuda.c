/* CUDA runtime wrappers shared by the host and device tiers (see cuda.h),
 * and the public GPU topology queries. */
#include <stdio.h>

#include "common/error_internal.h"
#include "ebb/storage.h"
#include "storage/cuda.h"
#include "storage/device_timer.h"
#include "storage/topology.h"

#if EBB_HAVE_CUDA
#include "storage/cuda_sticky.h"

cudaError_t ebb_cuda_enter(int device, ebb_cuda_guard *g)
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

void ebb_cuda_leave(ebb_cuda_guard *g)
{
    if (g->changed)
        ebb_cuda_clear_own_error(cudaSetDevice(g->old));
    g->changed = 0;
}

/* The list is shared with the tests' fake runtime (cuda_sticky.h). */
int ebb_cuda_sticky(cudaError_t e)
{
    return ebb_cuda_sticky_code((int)e);
}

void ebb_cuda_clear_own_error(cudaError_t e)
{
    if (e == cudaSuccess || ebb_cuda_sticky(e))
        return;
    if (cudaPeekAtLastError() == e)
        (void)cudaGetLastError();
}

int ebb_cuda_event_pending(cudaEvent_t ev)
{
    cudaError_t q = cudaEventQuery(ev);
    ebb_cuda_clear_own_error(q);
    return q == cudaErrorNotReady;
}

int ebb_gpu_count(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    ebb_cuda_clear_own_error(e);
    return e == cudaSuccess ? n : 0;
}

ebb_status ebb_topology_gpu_node(int device, int *node)
{
    if (!node)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_topology_gpu_node: node is NULL");
    *node = -1;
    if (device < 0 || device >= ebb_gpu_count())
        return EBB_OK;
    char bus[32];
    cudaError_t e = cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device);
    ebb_cuda_clear_own_error(e);
    if (e == cudaSuccess)
        *node = ebb_topo_pci_node(bus);
    return EBB_OK;
}

static int why_failed(cudaError_t e, const char *what, char *why, size_t why_len)
{
    ebb_cuda_clear_own_error(e);
    if (e == cudaSuccess)
        return 0;
    snprintf(why, why_len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return -1;
}

/* Enters `device`, or stays on the current one for device < 0. */
static cudaError_t enter_or_stay(int device, ebb_cuda_guard *g)
{
    g->changed = 0;
    return device < 0 ? cudaSuccess : ebb_cuda_enter(device, g);
}

int ebb_cuda_host_register(void *ptr, size_t bytes, int device, char *why, size_t why_len)
{
    ebb_cuda_guard g;
    cudaError_t e = enter_or_stay(device, &g);
    if (e == cudaSuccess)
        e = cudaHostRegister(ptr, bytes, cudaHostRegisterPortable);
    ebb_cuda_leave(&g);
    if (e == cudaSuccess)
        return 0;
    ebb_cuda_clear_own_error(e);
    snprintf(why, why_len, "cudaHostRegister of %zu bytes on CUDA device %d failed: %s (%s)",
             bytes, device, cudaGetErrorString(e), cudaGetErrorName(e));
    return -1;
}

void ebb_cuda_host_unregister(void *ptr, int device)
{
    ebb_cuda_guard g;
    cudaError_t e = enter_or_stay(device, &g);
    if (e == cudaSuccess)
        e = cudaHostUnregister(ptr);
    ebb_cuda_clear_own_error(e);
    ebb_cuda_leave(&g);
}

static int create_events(int device, unsigned flags, void **events, int32_t n, char *why,
                         size_t why_len)
{
    ebb_cuda_guard g;
    cudaError_t e = ebb_cuda_enter(device, &g);
    if (e != cudaSuccess) {
        ebb_cuda_clear_own_error(e);
        snprintf(why, why_len, "cannot make CUDA device %d current: %s", device,
                 cudaGetErrorString(e));
        return -1;
    }
    int32_t made = 0;
    for (; made < n; made++) {
        cudaEvent_t ev = NULL;
        e = cudaEventCreateWithFlags(&ev, flags);
        if (e != cudaSuccess)
            break;
        events[made] = ev;
    }
    if (e != cudaSuccess) {
        ebb_cuda_clear_own_error(e);
        snprintf(why, why_len, "creating CUDA event %d of %d on device %d failed: %s",
                 (int)made + 1, (int)n, device, cudaGetErrorString(e));
        while (made > 0) {
            made--;
            ebb_cuda_clear_own_error(cudaEventDestroy((cudaEvent_t)events[made]));
            events[made] = NULL;
        }
    }
    ebb_cuda_leave(&g);
    return e == cudaSuccess ? 0 : -1;
}

int ebb_cuda_events_create(int device, void **events, int32_t n, char *why, size_t why_len)
{
    return create_events(device, EBB_CUDA_EVENT_FLAGS, events, n, why, why_len);
}

int ebb_cuda_timing_events_create(int device, void **events, int32_t n, char *why,
                                  size_t why_len)
{
    return create_events(device, cudaEventBlockingSync, events, n, why, why_len);
}

int ebb_cuda_timing_record(int device, void *event, void *stream, char *why, size_t why_len)
{
    ebb_cuda_guard g;
    cudaError_t e = ebb_cuda_enter(device, &g);
    if (e == cudaSuccess)
        e = cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
    ebb_cuda_leave(&g);
    return why_failed(e, "cudaEventRecord", why, why_len);
}

int ebb_cuda_elapsed(void *start, void *end, double *seconds, char *why, size_t why_len)
{
    float ms = 0;
    const char *call = "cudaEventSynchronize";
    cudaError_t e = cudaEventSynchronize((cudaEvent_t)end);
    if (e == cudaSuccess) {
        call = "cudaEventElapsedTime";
        e = cudaEventElapsedTime(&ms, (cudaEvent_t)start, (cudaEvent_t)end);
    }
    *seconds = 1e-3 * (double)ms;
    return why_failed(e, call, why, why_len);
}

void ebb_cuda_timing_events_destroy(int device, void **events, int32_t n)
{
    ebb_cuda_events_destroy(device, events, n);
}

void ebb_cuda_events_destroy(int device, void **events, int32_t n)
{
    ebb_cuda_guard g;
    ebb_cuda_clear_own_error(ebb_cuda_enter(device, &g));
    /* An event whose work is still running may be destroyed: its resources
     * are released when the work completes. */
    for (int32_t i = 0; i < n; i++)
        if (events[i]) {
            ebb_cuda_clear_own_error(cudaEventDestroy((cudaEvent_t)events[i]));
            events[i] = NULL;
        }
    ebb_cuda_leave(&g);
}

int ebb_cuda_event_state(void *event, char *why, size_t why_len)
{
    cudaError_t q = cudaEventQuery((cudaEvent_t)event);
    ebb_cuda_clear_own_error(q);
    if (q == cudaErrorNotReady)
        return 1;
    if (!ebb_cuda_sticky(q))
        return 0;
    snprintf(why, why_len, "%s (%s): the CUDA context failed", cudaGetErrorString(q),
             cudaGetErrorName(q));
    return -1;
}

void ebb_cuda_event_wait(void *event)
{
    ebb_cuda_clear_own_error(cudaEventSynchronize((cudaEvent_t)event));
}

/* On ebb's own threads (the disk engines): `device` made current and left
 * so. Restoring the thread's previous device, 0 by default, would create
 * device 0's context (cudaSetDevice does since CUDA 12) for a job that may
 * not use device 0. */
static cudaError_t own_thread_on(int device)
{
    int cur = -1;
    cudaError_t e = cudaGetDevice(&cur);
    if (e == cudaSuccess && cur != device)
        e = cudaSetDevice(device);
    return e;
}

int ebb_cuda_copy_to_device(int device, void *dst, const void *src, size_t bytes, void *stream,
                            char *why, size_t why_len)
{
    cudaError_t e = own_thread_on(device);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream);
    return why_failed(e, "cudaMemcpyAsync", why, why_len);
}

int ebb_cuda_record(int device, void *event, void *stream, char *why, size_t why_len)
{
    cudaError_t e = own_thread_on(device);
    if (e == cudaSuccess)
        e = cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
    return why_failed(e, "cudaEventRecord", why, why_len);
}

void ebb_cuda_stream_sync(int device, void *stream)
{
    cudaError_t e = own_thread_on(device);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize((cudaStream_t)stream);
    ebb_cuda_clear_own_error(e);
}

int ebb_cuda_event_result(int device, void *event, int wait, char *why, size_t why_len)
{
    cudaError_t e = own_thread_on(device);
    if (e == cudaSuccess)
        e = wait ? cudaEventSynchronize((cudaEvent_t)event) : cudaEventQuery((cudaEvent_t)event);
    ebb_cuda_clear_own_error(e);
    if (e == cudaErrorNotReady && !wait)
        return 1;
    if (e == cudaSuccess)
        return 0;
    snprintf(why, why_len, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    return -1;
}

#else /* no CUDA at build time */

int ebb_gpu_count(void) { return 0; }

ebb_status ebb_topology_gpu_node(int device, int *node)
{
    (void)device;
    if (!node)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_topology_gpu_node: node is NULL");
    *node = -1;
    return EBB_OK;
}

int ebb_cuda_host_register(void *ptr, size_t bytes, int device, char *why, size_t why_len)
{
    (void)ptr, (void)bytes, (void)device;
    snprintf(why, why_len, "built without CUDA");
    return -1;
}

void ebb_cuda_host_unregister(void *ptr, int device) { (void)ptr, (void)device; }

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

int ebb_cuda_timing_events_create(int device, void **events, int32_t n, char *why,
                                  size_t why_len)
{
    return ebb_cuda_events_create(device, events, n, why, why_len);
}

void ebb_cuda_timing_events_destroy(int device, void **events, int32_t n)
{
    (void)device, (void)events, (void)n;
}

int ebb_cuda_timing_record(int device, void *event, void *stream, char *why, size_t why_len)
{
    return ebb_cuda_record(device, event, stream, why, why_len);
}

int ebb_cuda_elapsed(void *start, void *end, double *seconds, char *why, size_t why_len)
{
    (void)start, (void)end;
    *seconds = 0;
    snprintf(why, why_len, "built without CUDA");
    return -1;
}

int ebb_cuda_event_state(void *event, char *why, size_t why_len)
{
    (void)event, (void)why, (void)why_len;
    return 0;
}

void ebb_cuda_event_wait(void *event) { (void)event; }

int ebb_cuda_event_result(int device, void *event, int wait, char *why, size_t why_len)
{
    (void)device, (void)event, (void)wait, (void)why, (void)why_len;
    return 0;
}

int ebb_cuda_copy_to_device(int device, void *dst, const void *src, size_t bytes, void *stream,
                            char *why, size_t why_len)
{
    (void)device, (void)dst, (void)src, (void)bytes, (void)stream;
    snprintf(why, why_len, "built without CUDA");
    return -1;
}

int ebb_cuda_record(int device, void *event, void *stream, char *why, size_t why_len)
{
    (void)device, (void)event, (void)stream;
    snprintf(why, why_len, "built without CUDA");
    return -1;
}

void ebb_cuda_stream_sync(int device, void *stream) { (void)device, (void)stream; }

#endif
