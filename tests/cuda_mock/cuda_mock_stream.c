/* The fake CUDA runtime (see cuda_mock.h): streams, events, copies and the
 * tests' host functions. */
#include "cuda_mock_internal.h"

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    LOCK();
    INJECT("cudaStreamCreateWithFlags");
    CONTEXT(cm_cur_dev);
    *pStream = cm_new_stream(cm_cur_dev, 0, !(flags & cudaStreamNonBlocking));
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithFlags(pStream, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    LOCK();
    INJECT("cudaStreamDestroy");
    if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        cm_misuse("cudaStreamDestroy of a default stream");
    CONTEXT(stream->dev);
    cm_resolve(stream, "cudaStreamDestroy")->destroyed = 1; /* queued work still runs */
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    LOCK();
    INJECT("cudaStreamSynchronize");
    struct CUstream_st *s = cm_resolve(stream, "cudaStreamSynchronize");
    CONTEXT(s->dev);
    /* spins (the device's default schedule): a poll per step it waits */
    cm_polls += cm_drain_until(cm_cond_stream, s, "cudaStreamSynchronize", s->dev);
    cudaError_t e = cm_sticky[s->dev] != cudaSuccess ? cm_sticky[s->dev] : s->err;
    UNLOCK();
    return cm_fail(e);
}

static int device_idle(const void *a)
{
    int dev = *(const int *)a;
    for (struct CUstream_st *s = cm_streams; s; s = s->next)
        if (s->dev == dev && s->done < s->queued)
            return 0;
    return 1;
}

/* Every stream of the current device, as the runtime's (a spinning wait). */
cudaError_t cudaDeviceSynchronize(void)
{
    LOCK();
    INJECT("cudaDeviceSynchronize");
    int dev = cm_cur_dev;
    CONTEXT(dev);
    cm_polls += cm_drain_until(device_idle, &dev, "cudaDeviceSynchronize", dev);
    cudaError_t e = cm_sticky[dev];
    UNLOCK();
    return cm_fail(e);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    LOCK();
    INJECT("cudaStreamQuery");
    struct CUstream_st *s = cm_resolve(stream, "cudaStreamQuery");
    CONTEXT(s->dev);
    cm_polls++;
    if (cm_mode == CUDA_MOCK_LAZY && cm_rnd01() < cm_step_p)
        cm_step_random();
    cm_lag_catch_up();
    cudaError_t e = s->done < s->queued ? cudaErrorNotReady : s->err;
    UNLOCK();
    return cm_fail(e);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    LOCK();
    INJECT("cudaEventCreateWithFlags");
    CONTEXT(cm_cur_dev);
    struct CUevent_st *ev = calloc(1, sizeof *ev);
    if (!ev)
        cm_misuse("out of host memory for bookkeeping");
    ev->dev = cm_cur_dev;
    ev->flags = flags;
    ev->next = cm_events; /* kept after destroy: later use is caught */
    cm_events = ev;
    *event = ev;
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    LOCK();
    INJECT("cudaEventDestroy");
    cm_check_event(event, "cudaEventDestroy");
    CONTEXT(event->dev);
    event->destroyed = 1; /* work it tracks still completes */
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    LOCK();
    INJECT("cudaEventRecord");
    cm_check_event(event, "cudaEventRecord");
    struct CUstream_st *s = cm_resolve(stream, "cudaEventRecord");
    CONTEXT(s->dev);
    if (s->dev != event->dev) { /* the runtime refuses it */
        UNLOCK();
        return cm_fail(cudaErrorInvalidResourceHandle);
    }
    command c = {.kind = C_RECORD};
    event->s = s;
    event->seq = s->queued + 1;
    cm_push(s, c);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    LOCK();
    INJECT("cudaEventQuery");
    cm_check_event(event, "cudaEventQuery");
    CONTEXT(event->dev);
    cm_polls++;
    if (cm_mode == CUDA_MOCK_LAZY && cm_rnd01() < cm_step_p)
        cm_step_random();
    cm_lag_catch_up();
    cudaError_t e = cm_event_done(event) ? cm_event_result(event) : cudaErrorNotReady;
    UNLOCK();
    return cm_fail(e);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    LOCK();
    INJECT("cudaEventSynchronize");
    cm_check_event(event, "cudaEventSynchronize");
    CONTEXT(event->dev);
    /* cudaEventBlockingSync: the thread sleeps until the work is done;
     * otherwise it spins, a poll per step of the device it waits for */
    uint64_t steps = cm_drain_until(cm_cond_event, event, "cudaEventSynchronize", event->dev);
    if (event->flags & cudaEventBlockingSync)
        cm_sleeps++;
    else
        cm_polls += steps ? steps : 1;
    cudaError_t e = cm_sticky[event->dev] != cudaSuccess ? cm_sticky[event->dev] : cm_event_result(event);
    UNLOCK();
    return cm_fail(e);
}

/* Host time between the two records' runs (lag mode: device time between
 * their ends); cudaErrorNotReady until both ran. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    LOCK();
    INJECT("cudaEventElapsedTime");
    cm_check_event(start, "cudaEventElapsedTime");
    cm_check_event(end, "cudaEventElapsedTime");
    CONTEXT(start->dev);
    if ((start->flags | end->flags) & cudaEventDisableTiming) {
        UNLOCK();
        return cm_fail(cudaErrorInvalidResourceHandle);
    }
    if (!start->s || !end->s) {
        UNLOCK();
        return cm_fail(cudaErrorInvalidResourceHandle);
    }
    cm_lag_catch_up();
    if (!cm_event_done(start) || !cm_event_done(end)) {
        UNLOCK();
        return cm_fail(cudaErrorNotReady);
    }
    *ms = (float)((end->s->cmds[end->seq - 1].t - start->s->cmds[start->seq - 1].t) * 1e3);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    LOCK();
    INJECT("cudaStreamWaitEvent");
    cm_check_event(event, "cudaStreamWaitEvent");
    struct CUstream_st *s = cm_resolve(stream, "cudaStreamWaitEvent");
    CONTEXT(s->dev); /* the event may be another device's: legal */
    if (event->s && event->s != s) { /* a wait on one's own stream is a no-op */
        command c = {.kind = C_WAIT, .wait_s = event->s, .wait_seq = event->seq};
        cm_push(s, c);
    }
    UNLOCK();
    return cudaSuccess;
}

/* The memory at [p, p + n) for a copy: one allocation or registration. */
range *cm_copy_end(const void *p, size_t n, const char *which)
{
    range *r = cm_find(p);
    if (!r)
        cm_misuse("cudaMemcpyAsync: %s %p is pageable host memory (neither device memory nor "
               "registered with cudaHostRegister)",
               which, p);
    if ((const char *)p + n > r->p + r->n)
        cm_misuse("cudaMemcpyAsync: %s [%p, +%zu) runs %zu bytes past the end of its %zu-byte %s "
               "allocation at %p",
               which, p, n, (size_t)((const char *)p + n - (r->p + r->n)), r->n,
               cm_kind_name(r->kind), (void *)r->p);
    return r;
}

void cm_expect_kind(const range *r, int want, int dev, const char *which, const char *kind)
{
    if (r->kind != want)
        cm_misuse("cudaMemcpyAsync %s: %s is %s memory, not %s (cudaMemcpyDefault copies any "
               "kind)",
               kind, which, cm_kind_name(r->kind), cm_kind_name(want));
    if (want == M_DEVICE && r->dev != dev)
        cm_misuse("cudaMemcpyAsync %s: %s is memory of device %d but the copy runs on device %d "
               "(cudaMemcpyDefault copies between devices)",
               kind, which, r->dev, dev);
}

/* How an end of a copy on a stream of device `dev` goes: another device's
 * memory without peer access from `dev` is staged through host memory;
 * pinned memory registered by another device's context without the
 * Portable flag is pageable to `dev` (a slow, synchronous copy). */
void cm_copy_path(int dev, const range *r)
{
    if (r->kind == M_DEVICE && r->dev != dev && !cm_peer_on[dev][r->dev])
        cm_staged_copies++;
    if (r->kind == M_PINNED && !r->portable && r->reg_dev != dev)
        cm_unportable_copies++;
}

/* The tests' "kernels": host code run in stream order, at the time the
 * stream reaches it (lazily, like every other piece of stream work). */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    LOCK();
    INJECT("cudaLaunchHostFunc");
    struct CUstream_st *s = cm_resolve(stream, "cudaLaunchHostFunc");
    CONTEXT(s->dev);
    if (!fn)
        cm_misuse("cudaLaunchHostFunc: fn is NULL");
    command c = {.kind = C_HOSTFN, .fn = fn, .fn_data = userData};
    cm_push(s, c);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    LOCK();
    INJECT("cudaMemcpyAsync");
    struct CUstream_st *s = cm_resolve(stream, "cudaMemcpyAsync");
    CONTEXT(s->dev);
    if (s->dev != cm_cur_dev)
        cm_misuse("cudaMemcpyAsync on stream %d of device %d while device %d is current", s->id,
               s->dev, cm_cur_dev);
    if (count) {
        range *rd = cm_copy_end(dst, count, "dst"), *rs = cm_copy_end(src, count, "src");
        if (cm_overlaps(dst, count, src, count))
            cm_misuse("cudaMemcpyAsync: source and destination overlap");
        switch (kind) {
        case cudaMemcpyHostToDevice:
            cm_expect_kind(rs, M_PINNED, s->dev, "src", "HostToDevice");
            cm_expect_kind(rd, M_DEVICE, s->dev, "dst", "HostToDevice");
            break;
        case cudaMemcpyDeviceToHost:
            cm_expect_kind(rs, M_DEVICE, s->dev, "src", "DeviceToHost");
            cm_expect_kind(rd, M_PINNED, s->dev, "dst", "DeviceToHost");
            break;
        case cudaMemcpyDeviceToDevice:
            cm_expect_kind(rs, M_DEVICE, s->dev, "src", "DeviceToDevice");
            cm_expect_kind(rd, M_DEVICE, s->dev, "dst", "DeviceToDevice");
            break;
        case cudaMemcpyDefault: break; /* any pinned, device or managed memory (UVA) */
        default: cm_misuse("cudaMemcpyAsync: kind %d is not used by ebb", (int)kind);
        }
        cm_copy_path(s->dev, rd);
        cm_copy_path(s->dev, rs);
    }
    command c = {.kind = C_COPY, .dst = dst, .src = src, .n = count, .engine = E_NONE};
    if (count)
        cm_lag_copy_model(&c, s->dev, cm_find(dst), cm_find(src), kind);
    if (cm_async_skip >= 0 && cm_async_skip-- == 0)
        c.fail = cm_async_err;
    cm_push(s, c);
    UNLOCK();
    return cudaSuccess;
}

