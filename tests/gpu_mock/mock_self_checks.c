/* The fake CUDA runtime itself: it moves bytes, runs lazily or eagerly,
 * holds streams, injects faults, and aborts loudly on misuse. */
#include "gpu_mock/mock_helpers.h"

typedef struct mem {
    void *dev, *dev2;
    unsigned char *pinned;
    unsigned char *pageable;
    cudaStream_t s;
} mem;

static void open_mem(mem *m, size_t n)
{
    cuda_mock_set_devices(2);
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    cr_assert_eq(cudaMalloc(&m->dev, n), cudaSuccess);
    cr_assert_eq(cudaMalloc(&m->dev2, n), cudaSuccess);
    m->pinned = malloc(n);
    m->pageable = malloc(n);
    cr_assert(m->pinned && m->pageable);
    cr_assert_eq(cudaHostRegister(m->pinned, n, 0), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&m->s, cudaStreamNonBlocking), cudaSuccess);
}

Test(cuda_mock, lazy_copies_run_at_synchronize)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cuda_mock_set_mode(CUDA_MOCK_LAZY);
    cuda_mock_set_step_probability(0);
    fill_random(m.pinned, 4096, 1);
    cudaEvent_t ev;
    cr_assert_eq(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaEventQuery(ev), cudaSuccess, "a never-recorded event is complete");
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ev, m.s), cudaSuccess);
    cr_assert_eq(cudaEventQuery(ev), cudaErrorNotReady);
    cr_assert_eq(cudaPeekAtLastError(), cudaSuccess, "NotReady is not a last error by default");
    cr_assert_eq(cuda_mock_pending_touching(m.dev, 4096), 1);
    cr_assert_eq(cudaEventSynchronize(ev), cudaSuccess);
    cr_assert(memcmp(m.dev, m.pinned, 4096) == 0);
    cr_assert_eq(cuda_mock_pending(), 0);
}

Test(cuda_mock, eager_runs_at_once_unless_held)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cuda_mock_set_mode(CUDA_MOCK_EAGER);
    fill_random(m.pinned, 4096, 2);
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    cr_assert(memcmp(m.dev, m.pinned, 4096) == 0);
    cuda_mock_hold(m.s);
    cr_assert_eq(cudaMemcpyAsync(m.dev2, m.dev, 4096, cudaMemcpyDeviceToDevice, m.s), cudaSuccess);
    cr_assert_eq(cuda_mock_last_stream(), m.s);
    cr_assert_eq(cudaStreamQuery(m.s), cudaErrorNotReady);
    cr_assert_eq(cuda_mock_pending(), 1);
    cuda_mock_release(m.s);
    cr_assert_eq(cuda_mock_pending(), 0);
    cr_assert(memcmp(m.dev2, m.pinned, 4096) == 0);
}

Test(cuda_mock, stream_waits_order_work)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cuda_mock_set_step_probability(1);
    cudaStream_t s2;
    cudaEvent_t ev;
    cr_assert_eq(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), cudaSuccess);
    cuda_mock_hold(m.s);
    fill_random(m.pinned, 4096, 3);
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ev, m.s), cudaSuccess);
    cr_assert_eq(cudaStreamWaitEvent(s2, ev, 0), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(m.dev2, m.dev, 4096, cudaMemcpyDeviceToDevice, s2), cudaSuccess);
    for (int i = 0; i < 20; i++)
        cr_assert_eq(cudaStreamQuery(s2), cudaErrorNotReady, "s2 ran past its wait");
    cuda_mock_release_all();
    cr_assert_eq(cudaStreamSynchronize(s2), cudaSuccess);
    cr_assert(memcmp(m.dev2, m.pinned, 4096) == 0);
}

Test(cuda_mock, injected_call_failure)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cuda_mock_fail_call("cudaMemcpyAsync", 1, 1, cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(m.s), cudaSuccess);
}

Test(cuda_mock, injected_async_failure)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cudaEvent_t ev;
    cr_assert_eq(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), cudaSuccess);
    memset(m.dev, 7, 4096);
    fill_random(m.pinned, 4096, 4);
    /* a failure that is not sticky (sticky ones: mock_realism) */
    cuda_mock_fail_async(0, cudaErrorUnknown);
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ev, m.s), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(ev), cudaErrorUnknown);
    cr_assert_eq(cudaEventQuery(ev), cudaErrorUnknown);
    cr_assert_eq(((unsigned char *)m.dev)[0], 7, "a failed copy moved bytes");
    /* the next good copy clears the stream */
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(ev, m.s), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(ev), cudaSuccess);
    (void)cudaGetLastError();
}

Test(cuda_mock, memory_kinds)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    void *managed = NULL;
    cr_assert_eq(cudaMallocManaged(&managed, 4096, cudaMemAttachGlobal), cudaSuccess);
    struct cudaPointerAttributes a;
    cr_assert_eq(cudaPointerGetAttributes(&a, m.dev), cudaSuccess);
    cr_assert_eq(a.type, cudaMemoryTypeDevice);
    cr_assert_eq(cudaPointerGetAttributes(&a, m.pinned + 10), cudaSuccess);
    cr_assert_eq(a.type, cudaMemoryTypeHost);
    cr_assert_eq(cudaPointerGetAttributes(&a, managed), cudaSuccess);
    cr_assert_eq(a.type, cudaMemoryTypeManaged);
    cr_assert_eq(cudaPointerGetAttributes(&a, m.pageable), cudaSuccess);
    cr_assert_eq(a.type, cudaMemoryTypeUnregistered);
    cr_assert_eq(cudaMemcpyAsync(managed, m.dev, 4096, cudaMemcpyDefault, m.s), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(m.s), cudaSuccess);
    cr_assert_eq(cudaFree(managed), cudaSuccess);
}

/* cudaHostRegister / cudaHostUnregister as the CUDA documentation has
 * them: ranges side by side may be registered one by one; one that overlaps
 * a registered range is refused (cudaErrorHostMemoryAlreadyRegistered);
 * cudaHostUnregister takes the base address of a registered range; memory
 * not registered is refused (cudaErrorHostMemoryNotRegistered), a pointer
 * inside a registered range with cudaErrorInvalidValue (CUDA 13 on an H100
 * answered so, 2026-11-26: adjacent extents of a huge page registered,
 * copied and unregistered one by one as well). */
Test(cuda_mock, host_register_ranges)
{
    cuda_mock_set_devices(2);
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    static unsigned char *p; /* static: reachable for LeakSanitizer */
    p = aligned_alloc(4096, 4 * 4096);
    cr_assert_not_null(p);
    uint64_t refused = cuda_mock_unregister_refused();
    cr_assert_eq(cudaHostRegister(p, 2 * 4096, 0), cudaSuccess);
    cr_assert_eq(cudaHostRegister(p + 2 * 4096, 4096, 0), cudaSuccess, "side by side");
    cr_assert_eq(cudaHostRegister(p + 4096, 2 * 4096, 0), cudaErrorHostMemoryAlreadyRegistered);
    cr_assert_eq(cudaGetLastError(), cudaErrorHostMemoryAlreadyRegistered);
    cr_assert_eq(cudaHostRegister(p + 3 * 4096, 4096, 0), cudaSuccess);
    cr_assert_eq(cuda_mock_registration(p + 3 * 4096, NULL), 0);
    cr_assert_eq(cudaHostUnregister(p + 4096), cudaErrorInvalidValue, "not a base address");
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaHostUnregister(p), cudaSuccess);
    cr_assert_eq(cudaHostUnregister(p), cudaErrorHostMemoryNotRegistered, "twice");
    (void)cudaGetLastError();
    cr_assert_eq(cuda_mock_registration(p, NULL), -1);
    cr_assert_eq(cuda_mock_registration(p + 2 * 4096, NULL), 0, "the others stay");
    cr_assert_eq(cudaHostUnregister(p + 2 * 4096), cudaSuccess);
    cr_assert_eq(cudaHostUnregister(p + 3 * 4096), cudaSuccess);
    cr_assert_eq(cuda_mock_unregister_refused(), refused + 2);
    free(p);
}

/* ---- misuse aborts ---- */

Test(cuda_mock, destroyed_stream_aborts, .signal = SIGABRT)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cr_assert_eq(cudaStreamDestroy(m.s), cudaSuccess);
    (void)cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s);
}

Test(cuda_mock, destroyed_event_aborts, .signal = SIGABRT)
{
    cuda_mock_set_devices(1);
    cudaEvent_t ev;
    cr_assert_eq(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(ev), cudaSuccess);
    (void)cudaEventQuery(ev);
}

Test(cuda_mock, pageable_memory_as_pinned_aborts, .signal = SIGABRT)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    (void)cudaMemcpyAsync(m.dev, m.pageable, 4096, cudaMemcpyHostToDevice, m.s);
}

Test(cuda_mock, copy_past_the_end_aborts, .signal = SIGABRT)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    (void)cudaMemcpyAsync(m.dev, m.pinned + 1, 4096, cudaMemcpyHostToDevice, m.s);
}

Test(cuda_mock, wrong_kind_aborts, .signal = SIGABRT)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    (void)cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyDeviceToDevice, m.s);
}

Test(cuda_mock, free_under_a_pending_copy_aborts, .signal = SIGABRT)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cuda_mock_hold_all();
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    (void)cudaFree(m.dev);
}

Test(cuda_mock, synchronize_on_held_work_aborts, .signal = SIGABRT)
{
    static mem m; /* static: reachable for LeakSanitizer */
    open_mem(&m, 4096);
    cuda_mock_hold(m.s);
    cr_assert_eq(cudaMemcpyAsync(m.dev, m.pinned, 4096, cudaMemcpyHostToDevice, m.s), cudaSuccess);
    (void)cudaStreamSynchronize(m.s);
}
