/* The CUDA runtime calls that the host tier (pinning, slot tracking events)
 * and the device tier share: one home for the device guard, the error
 * handling that leaves the caller's pending error alone, and the event
 * flags. The functions below are stubs without CUDA at build time. */
#ifndef EBB_STORAGE_CUDA_H
#define EBB_STORAGE_CUDA_H

#include <stddef.h>
#include <stdint.h>

/* cudaHostRegister (Portable: every device's context may use the memory)
 * with `device` current, so that pinning creates no context on whichever
 * device the caller has current; restores the caller's (device < 0: on the
 * current device). 0 on success,
 * otherwise fills why. unregister: the same with cudaHostUnregister. */
int ebb_cuda_host_register(void *ptr, size_t bytes, int device, char *why, size_t why_len);
void ebb_cuda_host_unregister(void *ptr, int device);

/* Host slot tracking events. create: `n` events (ebb's event flags) on
 * `device`; 0 on success, otherwise none is left and why says what failed.
 * destroy: NULL entries are skipped. */
int ebb_cuda_events_create(int device, void **events, int32_t n, char *why, size_t why_len);
void ebb_cuda_events_destroy(int device, void **events, int32_t n);
/* What the work an event captured does now, without blocking: 0 done (or
 * never recorded, or it failed on its own: the copy's ticket reports that),
 * 1 still running, -1 unknown because the device's context failed with a
 * sticky error (why names it): the memory may still be in use. */
int ebb_cuda_event_state(void *event, char *why, size_t why_len);
/* Blocks (sleeping) until the event's work completed; errors ignored. */
void ebb_cuda_event_wait(void *event);
/* For chained moves (disk_chain.c), on the disk engines' own threads only:
 * each makes `device` current and leaves it so (restoring the thread's
 * default device 0 would create its context). event_result: an event's
 * work, 0 done, 1 still running (only when not `wait`; with `wait` it
 * blocks, sleeping, until done), -1 failed (its own copy's error or the
 * context's sticky one: why names it). copy_to_device: a host -> device
 * cudaMemcpyAsync on `stream`; record: an event recorded on it; sync: a
 * wait for it. 0 or -1 (why names the call and the error). */
int ebb_cuda_event_result(int device, void *event, int wait, char *why, size_t why_len);
int ebb_cuda_copy_to_device(int device, void *dst, const void *src, size_t bytes, void *stream,
                            char *why, size_t why_len);
int ebb_cuda_record(int device, void *event, void *stream, char *why, size_t why_len);
void ebb_cuda_stream_sync(int device, void *stream);

#if EBB_HAVE_CUDA
#include <cuda_runtime_api.h>

/* Every event ebb creates: no timing (cheaper), and waits sleep instead of
 * spinning a core the compute thread may need. */
#define EBB_CUDA_EVENT_FLAGS (cudaEventDisableTiming | cudaEventBlockingSync)

/* Runs with a device current, restoring the caller's afterwards. */
typedef struct ebb_cuda_guard {
    int old;
    int changed;
} ebb_cuda_guard;
cudaError_t ebb_cuda_enter(int device, ebb_cuda_guard *g);
void ebb_cuda_leave(ebb_cuda_guard *g);

/* 1 for the errors that leave the context unusable until it is reset. */
int ebb_cuda_sticky(cudaError_t e);
/* After one of ebb's own calls returned `e`: resets the thread's last error
 * when it holds exactly that, never the caller's own pending error, never
 * a sticky one. Every error path uses it (never a bare cudaGetLastError). */
void ebb_cuda_clear_own_error(cudaError_t e);
/* 1 while the event's work is still running (cudaErrorNotReady). */
int ebb_cuda_event_pending(cudaEvent_t ev);
#endif

#endif
