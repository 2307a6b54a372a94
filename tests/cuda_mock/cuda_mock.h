/* Test control of the fake CUDA runtime (tests/cuda_mock/cuda_mock.c), a test
 * double linked instead of cudart into the gpu_mock tests. It implements the
 * runtime functions the library and those tests call, with the signatures of
 * <cuda_runtime_api.h>, on the host: "device" memory is ordinary host memory
 * (a test may read it directly), streams are FIFOs of commands (copies,
 * event records, event waits) that run when the mock decides, and copies move
 * real bytes when they run. Everything is deterministic given the seed.
 *
 * Modes: CUDA_MOCK_LAZY (default) runs nothing at enqueue; each cudaEventQuery
 * / cudaStreamQuery runs one random runnable command with the step
 * probability, and a synchronize runs random runnable commands until what it
 * waits for is done. CUDA_MOCK_EAGER runs every runnable command at once.
 * CUDA_MOCK_LAG: a device that lags the host (below, "Lag mode").
 *
 * Streams: the legacy default stream (NULL, cudaStreamLegacy) synchronises
 * implicitly with blocking streams (cudaStreamCreate, flags 0, and
 * cudaStreamPerThread): work queued on it waits for their earlier work and
 * their later work waits for it; cudaStreamNonBlocking streams do neither.
 * An event of another device may be waited for (cudaStreamWaitEvent); one
 * recorded on a stream of another device is refused
 * (cudaErrorInvalidResourceHandle), as by the runtime.
 *
 * Misuse (a destroyed stream or event, pageable memory copied as pinned, a copy past the end of an
 * allocation, freeing or unregistering memory a pending copy touches, a
 * synchronize that can never return: on held work, after 10 s) prints "cuda_mock: MISUSE: ..." and
 * aborts, which fails the test.
 *
 * Environment, read when the program starts: CUDA_MOCK_DEVICES (devices,
 * default 1), CUDA_MOCK_MODE (lazy | eager | lag), CUDA_MOCK_SEED,
 * CUDA_MOCK_STEP_P (lazy step probability, default 0.3); for lag mode
 * CUDA_MOCK_H2D_BW, CUDA_MOCK_D2H_BW, CUDA_MOCK_D2D_BW (bytes/s) and
 * CUDA_MOCK_COPY_LATENCY (seconds, every copy engine), CUDA_MOCK_QUEUE_DEPTH.
 *
 * Lag mode: queued work completes on a device clock (CLOCK_MONOTONIC), as
 * on a GPU the host thread runs ahead of. Each command has a modelled
 * duration and an engine: a copy takes latency + bytes / bandwidth of its
 * direction, host -> device and device -> host each on its own copy engine
 * (a GPU with two), device -> device (peer included) on a third path, as
 * such copies run beside kernels; a kernel (cuda_mock_kernel, or
 * cuda_mock_kernel_fill at the device -> device rate) on the compute engine;
 * event records, waits and cudaLaunchHostFunc take no time and no engine.
 * A command starts once its stream's previous command and the event it
 * waits for are complete, its engine is free (engines go to the command
 * ready first, then queued first) and, on a held stream, the hold is
 * lifted; it is complete when the monotonic clock passes its end. Until
 * then queries answer cudaErrorNotReady and synchronizes sleep (returning
 * soon after the end); a copy moves its bytes, a host function or a
 * kernel's fn runs, when the command completes: in the first call into the
 * mock after its end, by the thread making it, so memory read without a
 * call is stale as on a device. cudaEventElapsedTime reports the device
 * clock. Defaults: 25 GB/s each way, 1 TB/s device to device, 5 us latency. */
#ifndef EBB_TESTS_CUDA_MOCK_H
#define EBB_TESTS_CUDA_MOCK_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cuda_mock_mode {
    CUDA_MOCK_LAZY = 0,
    CUDA_MOCK_EAGER = 1,
    CUDA_MOCK_LAG = 2
} cuda_mock_mode;

/* Lag mode's copy engines (paths). */
typedef enum cuda_mock_engine {
    CUDA_MOCK_H2D = 0,
    CUDA_MOCK_D2H = 1,
    CUDA_MOCK_D2D = 2
} cuda_mock_engine;

/* Devices cudaGetDeviceCount reports (0: cudaErrorNoDevice). */
void cuda_mock_set_devices(int n);
void cuda_mock_set_mode(cuda_mock_mode mode);
void cuda_mock_set_seed(uint64_t seed);
/* Lazy mode: chance that a query runs one command (0: only synchronizes do). */
void cuda_mock_set_step_probability(double p);
/* Whether cudaEventQuery's cudaErrorNotReady also becomes the thread's last
 * error (the runtime does not document either way; default 0). */
void cuda_mock_notready_sets_last_error(int on);

/* Lag mode: a copy on `engine` queued from now on takes
 * latency_s + bytes / bytes_per_s (bytes_per_s > 0, latency_s >= 0). */
void cuda_mock_set_copy_model(cuda_mock_engine engine, double bytes_per_s, double latency_s);
/* Lag mode: queuing onto a stream that holds `commands` not yet complete
 * sleeps until one completes, as a launch into a GPU's full command queue
 * blocks (records and waits count; 0, the default: no limit). */
void cuda_mock_set_queue_depth(uint64_t commands);
/* A kernel of `seconds` on `stream` (lag mode: on the compute engine); when
 * it completes, fn(arg) runs (fn may be NULL) with the rules of
 * cudaLaunchHostFunc: no CUDA calls in it. Lazy and eager modes run it as
 * a host function (no duration). */
void cuda_mock_kernel(cudaStream_t stream, double seconds, cudaHostFn_t fn, void *arg);

/* Holding: a held stream runs nothing (queries answer cudaErrorNotReady)
 * until released; a synchronize on held work sleeps until another thread
 * releases it (a misuse after 10 s). hold_all holds every stream, present
 * and future, until release_all. hold_at: the stream runs `commands` more
 * commands, then holds; release (not release_all) lifts that. */
void cuda_mock_hold(cudaStream_t stream);
void cuda_mock_hold_at(cudaStream_t stream, uint64_t commands);
void cuda_mock_release(cudaStream_t stream);
void cuda_mock_hold_all(void);
void cuda_mock_release_all(void);
/* The stream the last command (copy, record, wait) was queued on. */
cudaStream_t cuda_mock_last_stream(void);
/* Runs every command that can run (not held) until none can (lag mode:
 * sleeps until they completed). */
void cuda_mock_run_all(void);
/* Commands queued and not yet run, on all streams. */
size_t cuda_mock_pending(void);
/* Pending copies that read or write [p, p + n). */
size_t cuda_mock_pending_touching(const void *p, size_t n);
/* Copies run so far. */
uint64_t cuda_mock_copies_run(void);

/* Fault injection. fail_call: after `skip` more successful calls of
 * `function` (its name, e.g. "cudaMemcpyAsync"), the next `count` calls
 * return `err` (and set the last error) without doing anything.
 * fail_async: the copy queued after `skip` more copies is accepted, but fails
 * when it runs: it moves nothing. A sticky error (cudaErrorLaunchFailure,
 * cudaErrorIllegalAddress, cudaErrorECCUncorrectable, ... as the runtime
 * documents) kills the device's context: its streams run nothing more and
 * every later call in it returns that error, cudaGetLastError cannot clear
 * it, until cudaDeviceReset. Any other error stays on the stream: every
 * event recorded after the copy there (until a later copy there succeeds)
 * reports it from cudaEventQuery / cudaEventSynchronize, as does
 * cudaStreamSynchronize. */
void cuda_mock_fail_call(const char *function, int skip, int count, cudaError_t err);
void cuda_mock_fail_async(int skip, cudaError_t err);

/* A fake kernel on `stream`: writes `value` over [ptr, ptr + bytes) of device
 * memory in pieces (set_kernel_pieces, default 8), one piece each time the
 * mock runs a step of the stream, so a copy that does not wait for it reads
 * a half-written buffer. */
void cuda_mock_kernel_fill(cudaStream_t stream, void *ptr, size_t bytes, int value);
void cuda_mock_set_kernel_pieces(size_t pieces);

/* Polling: cudaEventQuery / cudaStreamQuery calls, plus a poll per step a
 * spinning synchronize waited (cudaStreamSynchronize, and
 * cudaEventSynchronize of an event without cudaEventBlockingSync). sleeps:
 * cudaEventSynchronize calls on blocking-sync events (the thread sleeps). */
uint64_t cuda_mock_polls(void);
uint64_t cuda_mock_sleeps(void);
/* Copy ends that went the slow way: another device's memory without peer
 * access enabled from the stream's device (staged through host memory), and
 * pinned memory registered by another device's context without the
 * Portable flag (pageable to this device: a synchronous copy). */
uint64_t cuda_mock_staged_copies(void);
uint64_t cuda_mock_unportable_copies(void);
/* Primary contexts created on `device` so far (the first call that works on
 * it, cudaSetDevice included as since CUDA 12; again after cudaDeviceReset). */
int cuda_mock_contexts_created(int device);
/* The device whose context registered (or cudaHostAlloc'ed) the pinned
 * memory holding p, -1 when it is not pinned; *portable its flag. */
int cuda_mock_registration(const void *p, int *portable);
/* cudaHostRegister and cudaHostUnregister as the runtime documents them: a
 * range that overlaps a registered one is refused
 * (cudaErrorHostMemoryAlreadyRegistered); unregistering memory not
 * registered is refused (cudaErrorHostMemoryNotRegistered), as is a pointer
 * inside a registered range that is not its base (cudaErrorInvalidValue, as
 * the runtime answered on a real device). The refused unregistrations so
 * far: */
uint64_t cuda_mock_unregister_refused(void);
/* 1 for a blocking stream (created without cudaStreamNonBlocking). */
int cuda_mock_stream_blocking(cudaStream_t stream);
/* Device memory: every device has `total` bytes (default 80 GiB), of which
 * 10 GiB are taken by others, so a fresh device reports 70 GiB free
 * (cudaMemGetInfo); cudaMalloc beyond what is free fails with
 * cudaErrorMemoryAllocation (not sticky), as the runtime does. device_bytes:
 * what cudaMalloc gave on `device` and cudaFree has not taken back. */
void cuda_mock_set_device_memory(size_t total);
size_t cuda_mock_device_bytes(int device);
/* The sticky error of device's context (cudaSuccess when alive). */
cudaError_t cuda_mock_sticky_error(int device);

#endif
