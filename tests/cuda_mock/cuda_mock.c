/* A fake CUDA runtime for tests on machines without a GPU: see cuda_mock.h.
 * The definitions take their signatures from <cuda_runtime_api.h>, so any
 * name the header remaps comes out as the library expects it. One mutex
 * guards all state; the current device and the last error are per thread,
 * as in the runtime. */
#include "cuda_mock.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void misuse(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void misuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuda_mock: MISUSE: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    abort();
}

enum { C_COPY, C_RECORD, C_WAIT, C_HOSTFN };

typedef struct command {
    int kind;
    void *dst;
    const void *src;
    size_t n;
    cudaError_t fail;           /* copy: error when it runs (fail_async) */
    cudaError_t err;            /* record: the stream's error when it ran */
    double t;                   /* record: host time (s) when it ran, for cudaEventElapsedTime */
    struct CUstream_st *wait_s; /* wait: the stream and position waited for */
    uint64_t wait_seq;
    cudaHostFn_t fn;            /* host function: the stand-in for a kernel */
    void *fn_data;
} command;

struct CUstream_st {
    int dev;
    int id;
    int destroyed;
    int held;
    int is_default;
    command *cmds;
    size_t cap;
    uint64_t queued, done;
    cudaError_t err; /* set by a failed copy, cleared by a good one */
    struct CUstream_st *next;
};

struct CUevent_st {
    int dev;
    int destroyed;
    struct CUstream_st *s; /* NULL: never recorded */
    uint64_t seq;          /* s->cmds[seq - 1] is the record */
    struct CUevent_st *next;
};

enum { M_DEVICE = 1, M_PINNED = 2, M_MANAGED = 3 };
typedef struct range {
    char *p;
    size_t n;
    int dev;
    int kind;
    int owned; /* allocated by the mock */
    struct range *next;
} range;

typedef struct fault {
    char name[64];
    int skip, count;
    cudaError_t err;
} fault;

enum { MAX_DEV = 16, MAX_FAULTS = 16 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct CUstream_st *streams, **streams_tail = &streams;
static struct CUevent_st *events;
static struct CUstream_st *default_stream[MAX_DEV];
static range *ranges;
static fault faults[MAX_FAULTS];
static int async_skip = -1;
static cudaError_t async_err;
static int ndev = 1;
static cuda_mock_mode mode = CUDA_MOCK_LAZY;
static double step_p = 0.3;
static int notready_last;
static int hold_all;
static int nstreams;
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t copies_run;
static struct CUstream_st *last_stream;
static __thread int cur_dev;
static __thread cudaError_t last_err;

#define LOCK() pthread_mutex_lock(&mu)
#define UNLOCK() pthread_mutex_unlock(&mu)

static void seed_rng(uint64_t seed)
{
    rng = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng)
        rng = 1;
}

__attribute__((constructor)) static void from_environment(void)
{
    const char *e;
    if ((e = getenv("CUDA_MOCK_DEVICES")))
        ndev = atoi(e);
    if (ndev < 0 || ndev > MAX_DEV)
        misuse("CUDA_MOCK_DEVICES=%s: expected 0 .. %d", e, MAX_DEV);
    if ((e = getenv("CUDA_MOCK_MODE")))
        mode = strcmp(e, "eager") == 0 ? CUDA_MOCK_EAGER : CUDA_MOCK_LAZY;
    if ((e = getenv("CUDA_MOCK_SEED")))
        seed_rng(strtoull(e, NULL, 10));
    if ((e = getenv("CUDA_MOCK_STEP_P")))
        step_p = atof(e);
}

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double rnd01(void) { return (double)(next_rand() >> 11) / 9007199254740992.0; }

static cudaError_t fail(cudaError_t e)
{
    if (e != cudaSuccess && (e != cudaErrorNotReady || notready_last))
        last_err = e;
    return e;
}

/* An injected failure for `name`, or cudaSuccess. */
static cudaError_t injected(const char *name)
{
    for (int i = 0; i < MAX_FAULTS; i++) {
        fault *f = &faults[i];
        if (f->count <= 0 || strcmp(f->name, name) != 0)
            continue;
        if (f->skip > 0) {
            f->skip--;
            continue;
        }
        f->count--;
        return f->err;
    }
    return cudaSuccess;
}

#define INJECT(name)                                                                              \
    do {                                                                                          \
        cudaError_t inj_ = injected(name);                                                        \
        if (inj_ != cudaSuccess) {                                                                \
            UNLOCK();                                                                             \
            return fail(inj_);                                                                    \
        }                                                                                         \
    } while (0)

/* ---- memory ---- */

static range *find(const void *p)
{
    for (range *r = ranges; r; r = r->next)
        if ((const char *)p >= r->p && (const char *)p < r->p + r->n)
            return r;
    return NULL;
}

static int overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    const char *x = a, *y = b;
    return x < y + bn && y < x + an;
}

static size_t pending_touching(const void *p, size_t n)
{
    size_t k = 0;
    for (struct CUstream_st *s = streams; s; s = s->next)
        for (uint64_t i = s->done; i < s->queued; i++) {
            command *c = &s->cmds[i];
            if (c->kind == C_COPY && (overlaps(c->dst, c->n, p, n) || overlaps(c->src, c->n, p, n)))
                k++;
        }
    return k;
}

static range *add_range(void *p, size_t n, int dev, int kind, int owned)
{
    range *r = calloc(1, sizeof *r);
    if (!r)
        misuse("out of host memory for bookkeeping");
    r->p = p;
    r->n = n;
    r->dev = dev;
    r->kind = kind;
    r->owned = owned;
    r->next = ranges;
    ranges = r;
    return r;
}

static void remove_range(void *p, int pinned, const char *what)
{
    for (range **pp = &ranges; *pp; pp = &(*pp)->next) {
        range *r = *pp;
        if (r->p != p || (r->kind == M_PINNED) != pinned)
            continue;
        size_t k = pending_touching(r->p, r->n);
        if (k)
            misuse("%s(%p): %zu copies that touch this memory are still pending (it must not "
                   "be released before they complete)",
                   what, p, k);
        *pp = r->next;
        if (r->owned)
            free(r->p);
        free(r);
        return;
    }
    misuse("%s(%p): not a pointer the mock %s", what, p,
           pinned ? "registered" : "allocated");
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case M_DEVICE: return "device";
    case M_PINNED: return "pinned host";
    case M_MANAGED: return "managed";
    default: return "pageable host";
    }
}

/* ---- streams and execution ---- */

static struct CUstream_st *new_stream(int dev, int is_default)
{
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        misuse("out of host memory for bookkeeping");
    s->dev = dev;
    s->id = nstreams++;
    s->is_default = is_default;
    *streams_tail = s;
    streams_tail = &s->next;
    return s;
}

static struct CUstream_st *resolve(cudaStream_t st, const char *what)
{
    if (!st) {
        if (!default_stream[cur_dev])
            default_stream[cur_dev] = new_stream(cur_dev, 1);
        return default_stream[cur_dev];
    }
    int known = 0;
    for (struct CUstream_st *s = streams; s && !known; s = s->next)
        known = s == st;
    if (!known)
        misuse("%s: %p is not a stream", what, (void *)st);
    if (st->destroyed)
        misuse("%s: stream %d was destroyed", what, st->id);
    return st;
}

static void check_event(cudaEvent_t ev, const char *what)
{
    int known = 0;
    for (struct CUevent_st *e = events; e && !known; e = e->next)
        known = e == ev;
    if (!known)
        misuse("%s: %p is not an event", what, (void *)ev);
    if (ev->destroyed)
        misuse("%s: the event was destroyed", what);
}

static int held(const struct CUstream_st *s) { return s->held || hold_all; }

static int runnable(const struct CUstream_st *s)
{
    if (held(s) || s->done >= s->queued)
        return 0;
    const command *c = &s->cmds[s->done];
    return c->kind != C_WAIT || c->wait_s->done >= c->wait_seq;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_one(struct CUstream_st *s)
{
    command *c = &s->cmds[s->done];
    switch (c->kind) {
    case C_COPY:
        if (c->fail != cudaSuccess) {
            s->err = c->fail;
        } else {
            memcpy(c->dst, c->src, c->n);
            s->err = cudaSuccess;
        }
        copies_run++;
        break;
    case C_RECORD:
        c->err = s->err;
        c->t = now_s();
        break;
    case C_HOSTFN:
        c->fn(c->fn_data); /* CUDA: a host function must not call CUDA */
        break;
    default: break;
    }
    s->done++;
}

static int count_runnable(void)
{
    int n = 0;
    for (struct CUstream_st *s = streams; s; s = s->next)
        n += runnable(s);
    return n;
}

static void step_random(void)
{
    int n = count_runnable();
    if (!n)
        return;
    int k = (int)(next_rand() % (uint64_t)n);
    for (struct CUstream_st *s = streams; s; s = s->next)
        if (runnable(s) && k-- == 0) {
            run_one(s);
            return;
        }
}

static void run_everything(void)
{
    while (count_runnable())
        step_random();
}

static void settle(void)
{
    if (mode == CUDA_MOCK_EAGER)
        run_everything();
}

static int event_done(const struct CUevent_st *ev) { return !ev->s || ev->s->done >= ev->seq; }

static cudaError_t event_result(const struct CUevent_st *ev)
{
    if (!ev->s)
        return cudaSuccess;
    return ev->s->cmds[ev->seq - 1].err;
}

/* Runs random commands until done(arg); a misuse if that can never happen. */
static void drain_until(int (*done)(const void *), const void *arg, const char *what)
{
    while (!done(arg)) {
        if (!count_runnable()) {
            int any_held = hold_all;
            for (struct CUstream_st *s = streams; s && !any_held; s = s->next)
                any_held = s->held && s->done < s->queued;
            misuse("%s would wait forever: %s", what,
                   any_held ? "the work it waits for is held (cuda_mock_hold*); release it first"
                            : "nothing can run (a wait on work never queued)");
        }
        step_random();
    }
}

static int cond_event(const void *a) { return event_done(a); }
static int cond_stream(const void *a)
{
    const struct CUstream_st *s = a;
    return s->done >= s->queued;
}

static void push(struct CUstream_st *s, command c)
{
    if (s->queued == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        command *n = realloc(s->cmds, s->cap * sizeof *n);
        if (!n)
            misuse("out of host memory for bookkeeping");
        s->cmds = n;
    }
    s->cmds[s->queued++] = c;
    last_stream = s;
    settle();
}

/* ---- control API ---- */

void cuda_mock_set_devices(int n)
{
    if (n < 0 || n > MAX_DEV)
        misuse("cuda_mock_set_devices(%d): expected 0 .. %d", n, MAX_DEV);
    LOCK();
    ndev = n;
    UNLOCK();
}

void cuda_mock_set_mode(cuda_mock_mode m)
{
    LOCK();
    mode = m;
    settle();
    UNLOCK();
}

void cuda_mock_set_seed(uint64_t seed)
{
    LOCK();
    seed_rng(seed);
    UNLOCK();
}

void cuda_mock_set_step_probability(double p)
{
    LOCK();
    step_p = p;
    UNLOCK();
}

void cuda_mock_notready_sets_last_error(int on)
{
    LOCK();
    notready_last = on;
    UNLOCK();
}

void cuda_mock_hold(cudaStream_t stream)
{
    LOCK();
    resolve(stream, "cuda_mock_hold")->held = 1;
    UNLOCK();
}

void cuda_mock_release(cudaStream_t stream)
{
    LOCK();
    resolve(stream, "cuda_mock_release")->held = 0;
    settle();
    UNLOCK();
}

void cuda_mock_hold_all(void)
{
    LOCK();
    hold_all = 1;
    UNLOCK();
}

void cuda_mock_release_all(void)
{
    LOCK();
    hold_all = 0;
    for (struct CUstream_st *s = streams; s; s = s->next)
        s->held = 0;
    settle();
    UNLOCK();
}

cudaStream_t cuda_mock_last_stream(void)
{
    LOCK();
    cudaStream_t s = last_stream;
    UNLOCK();
    return s;
}

void cuda_mock_run_all(void)
{
    LOCK();
    run_everything();
    UNLOCK();
}

size_t cuda_mock_pending(void)
{
    LOCK();
    size_t n = 0;
    for (struct CUstream_st *s = streams; s; s = s->next)
        n += (size_t)(s->queued - s->done);
    UNLOCK();
    return n;
}

size_t cuda_mock_pending_touching(const void *p, size_t n)
{
    LOCK();
    size_t k = pending_touching(p, n);
    UNLOCK();
    return k;
}

uint64_t cuda_mock_copies_run(void)
{
    LOCK();
    uint64_t n = copies_run;
    UNLOCK();
    return n;
}

void cuda_mock_fail_call(const char *function, int skip, int count, cudaError_t err)
{
    LOCK();
    for (int i = 0; i < MAX_FAULTS; i++)
        if (faults[i].count <= 0) {
            snprintf(faults[i].name, sizeof faults[i].name, "%s", function);
            faults[i].skip = skip;
            faults[i].count = count;
            faults[i].err = err;
            UNLOCK();
            return;
        }
    misuse("cuda_mock_fail_call: more than %d faults armed", MAX_FAULTS);
}

void cuda_mock_fail_async(int skip, cudaError_t err)
{
    LOCK();
    async_skip = skip;
    async_err = err;
    UNLOCK();
}

/* ---- the runtime API ---- */

cudaError_t cudaGetDeviceCount(int *count)
{
    LOCK();
    INJECT("cudaGetDeviceCount");
    *count = ndev;
    UNLOCK();
    return ndev ? cudaSuccess : fail(cudaErrorNoDevice);
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_err;
    last_err = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_err; }

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
    *device = cur_dev;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    LOCK();
    INJECT("cudaSetDevice");
    int ok = device >= 0 && device < ndev;
    UNLOCK();
    if (!ok)
        return fail(cudaErrorInvalidDevice);
    cur_dev = device;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    LOCK();
    INJECT("cudaDeviceGetPCIBusId");
    int ok = device >= 0 && device < ndev;
    UNLOCK();
    if (!ok)
        return fail(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", 0xf0 + device);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    LOCK();
    INJECT("cudaMemGetInfo");
    UNLOCK();
    *free_bytes = (size_t)70 << 30;
    *total = (size_t)80 << 30;
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    (void)flags;
    LOCK();
    INJECT("cudaHostRegister");
    cudaError_t e = cudaSuccess;
    if (!ndev)
        e = cudaErrorNoDevice;
    else if (!ptr || !size)
        e = cudaErrorInvalidValue;
    else
        for (range *r = ranges; r && e == cudaSuccess; r = r->next)
            if (overlaps(r->p, r->n, ptr, size))
                e = r->kind == M_PINNED ? cudaErrorHostMemoryAlreadyRegistered
                                        : cudaErrorInvalidValue;
    if (e == cudaSuccess)
        add_range(ptr, size, -1, M_PINNED, 0);
    UNLOCK();
    return fail(e);
}

cudaError_t cudaHostUnregister(void *ptr)
{
    LOCK();
    INJECT("cudaHostUnregister");
    remove_range(ptr, 1, "cudaHostUnregister");
    UNLOCK();
    return cudaSuccess;
}

static cudaError_t allocate(void **p, size_t size, int kind, const char *name)
{
    LOCK();
    INJECT(name);
    if (!ndev) {
        UNLOCK();
        return fail(cudaErrorNoDevice);
    }
    if (!size) {
        *p = NULL;
        UNLOCK();
        return cudaSuccess;
    }
    char *m = aligned_alloc(256, (size + 255) / 256 * 256);
    if (!m) {
        UNLOCK();
        return fail(cudaErrorMemoryAllocation);
    }
    add_range(m, size, cur_dev, kind, 1);
    *p = m;
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    return allocate(devPtr, size, M_DEVICE, "cudaMalloc");
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    (void)flags;
    return allocate(devPtr, size, M_MANAGED, "cudaMallocManaged");
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    (void)flags;
    return allocate(pHost, size, M_PINNED, "cudaHostAlloc");
}

cudaError_t cudaFreeHost(void *ptr)
{
    if (!ptr)
        return cudaSuccess;
    LOCK();
    INJECT("cudaFreeHost");
    remove_range(ptr, 1, "cudaFreeHost");
    UNLOCK();
    return cudaSuccess;
}

/* Synchronous, as cudaMemset is for the host (pending copies are not ordered
 * against it here: the tests that use it queue nothing before). */
cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    LOCK();
    INJECT("cudaMemset");
    range *r = find(devPtr);
    if (!r || r->kind == M_PINNED || (char *)devPtr + count > r->p + r->n)
        misuse("cudaMemset(%p, %zu bytes): not inside device memory the mock allocated", devPtr,
               count);
    memset(devPtr, value, count);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    LOCK();
    INJECT("cudaGetDeviceProperties");
    if (device < 0 || device >= ndev) {
        UNLOCK();
        return fail(cudaErrorInvalidDevice);
    }
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "cuda_mock device %d", device);
    prop->totalGlobalMem = (size_t)80 << 30;
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr)
{
    if (!devPtr)
        return cudaSuccess;
    LOCK();
    INJECT("cudaFree");
    remove_range(devPtr, 0, "cudaFree");
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    LOCK();
    INJECT("cudaPointerGetAttributes");
    memset(attributes, 0, sizeof *attributes);
    range *r = find(ptr);
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

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    (void)flags;
    LOCK();
    INJECT("cudaStreamCreateWithFlags");
    *pStream = new_stream(cur_dev, 0);
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
    if (!stream)
        misuse("cudaStreamDestroy of the NULL stream");
    resolve(stream, "cudaStreamDestroy")->destroyed = 1; /* queued work still runs */
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    LOCK();
    INJECT("cudaStreamSynchronize");
    struct CUstream_st *s = resolve(stream, "cudaStreamSynchronize");
    drain_until(cond_stream, s, "cudaStreamSynchronize");
    cudaError_t e = s->err;
    UNLOCK();
    return fail(e);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    LOCK();
    INJECT("cudaStreamQuery");
    struct CUstream_st *s = resolve(stream, "cudaStreamQuery");
    if (mode == CUDA_MOCK_LAZY && rnd01() < step_p)
        step_random();
    cudaError_t e = s->done < s->queued ? cudaErrorNotReady : s->err;
    UNLOCK();
    return fail(e);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    (void)flags;
    LOCK();
    INJECT("cudaEventCreateWithFlags");
    struct CUevent_st *ev = calloc(1, sizeof *ev);
    if (!ev)
        misuse("out of host memory for bookkeeping");
    ev->dev = cur_dev;
    ev->next = events; /* kept after destroy: later use is caught */
    events = ev;
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
    check_event(event, "cudaEventDestroy");
    event->destroyed = 1; /* work it tracks still completes */
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    LOCK();
    INJECT("cudaEventRecord");
    check_event(event, "cudaEventRecord");
    struct CUstream_st *s = resolve(stream, "cudaEventRecord");
    if (s->dev != event->dev)
        misuse("cudaEventRecord: event of device %d recorded on stream %d of device %d",
               event->dev, s->id, s->dev);
    command c = {.kind = C_RECORD};
    event->s = s;
    event->seq = s->queued + 1;
    push(s, c);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    LOCK();
    INJECT("cudaEventQuery");
    check_event(event, "cudaEventQuery");
    if (mode == CUDA_MOCK_LAZY && rnd01() < step_p)
        step_random();
    cudaError_t e = event_done(event) ? event_result(event) : cudaErrorNotReady;
    UNLOCK();
    return fail(e);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    LOCK();
    INJECT("cudaEventSynchronize");
    check_event(event, "cudaEventSynchronize");
    drain_until(cond_event, event, "cudaEventSynchronize");
    cudaError_t e = event_result(event);
    UNLOCK();
    return fail(e);
}

/* Host time between the two records' runs; cudaErrorNotReady until both ran. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    LOCK();
    INJECT("cudaEventElapsedTime");
    check_event(start, "cudaEventElapsedTime");
    check_event(end, "cudaEventElapsedTime");
    if (!start->s || !end->s) {
        UNLOCK();
        return fail(cudaErrorInvalidResourceHandle);
    }
    if (!event_done(start) || !event_done(end)) {
        UNLOCK();
        return fail(cudaErrorNotReady);
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
    check_event(event, "cudaStreamWaitEvent");
    struct CUstream_st *s = resolve(stream, "cudaStreamWaitEvent");
    if (event->s && event->s != s) { /* a wait on one's own stream is a no-op */
        command c = {.kind = C_WAIT, .wait_s = event->s, .wait_seq = event->seq};
        push(s, c);
    }
    UNLOCK();
    return cudaSuccess;
}

/* The memory at [p, p + n) for a copy: one allocation or registration. */
static range *copy_end(const void *p, size_t n, const char *which)
{
    range *r = find(p);
    if (!r)
        misuse("cudaMemcpyAsync: %s %p is pageable host memory (neither device memory nor "
               "registered with cudaHostRegister)",
               which, p);
    if ((const char *)p + n > r->p + r->n)
        misuse("cudaMemcpyAsync: %s [%p, +%zu) runs %zu bytes past the end of its %zu-byte %s "
               "allocation at %p",
               which, p, n, (size_t)((const char *)p + n - (r->p + r->n)), r->n,
               kind_name(r->kind), (void *)r->p);
    return r;
}

static void expect_kind(const range *r, int want, int dev, const char *which, const char *kind)
{
    if (r->kind != want)
        misuse("cudaMemcpyAsync %s: %s is %s memory, not %s (cudaMemcpyDefault copies any "
               "kind)",
               kind, which, kind_name(r->kind), kind_name(want));
    if (want == M_DEVICE && r->dev != dev)
        misuse("cudaMemcpyAsync %s: %s is memory of device %d but the copy runs on device %d "
               "(cudaMemcpyDefault copies between devices)",
               kind, which, r->dev, dev);
}

/* The tests' "kernels": host code run in stream order, at the time the
 * stream reaches it (lazily, like every other piece of stream work). */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    LOCK();
    INJECT("cudaLaunchHostFunc");
    struct CUstream_st *s = resolve(stream, "cudaLaunchHostFunc");
    if (!fn)
        misuse("cudaLaunchHostFunc: fn is NULL");
    command c = {.kind = C_HOSTFN, .fn = fn, .fn_data = userData};
    push(s, c);
    UNLOCK();
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    LOCK();
    INJECT("cudaMemcpyAsync");
    struct CUstream_st *s = resolve(stream, "cudaMemcpyAsync");
    if (s->dev != cur_dev)
        misuse("cudaMemcpyAsync on stream %d of device %d while device %d is current", s->id,
               s->dev, cur_dev);
    if (count) {
        range *rd = copy_end(dst, count, "dst"), *rs = copy_end(src, count, "src");
        if (overlaps(dst, count, src, count))
            misuse("cudaMemcpyAsync: source and destination overlap");
        switch (kind) {
        case cudaMemcpyHostToDevice:
            expect_kind(rs, M_PINNED, s->dev, "src", "HostToDevice");
            expect_kind(rd, M_DEVICE, s->dev, "dst", "HostToDevice");
            break;
        case cudaMemcpyDeviceToHost:
            expect_kind(rs, M_DEVICE, s->dev, "src", "DeviceToHost");
            expect_kind(rd, M_PINNED, s->dev, "dst", "DeviceToHost");
            break;
        case cudaMemcpyDeviceToDevice:
            expect_kind(rs, M_DEVICE, s->dev, "src", "DeviceToDevice");
            expect_kind(rd, M_DEVICE, s->dev, "dst", "DeviceToDevice");
            break;
        case cudaMemcpyDefault: break; /* any pinned, device or managed memory (UVA) */
        default: misuse("cudaMemcpyAsync: kind %d is not used by ebb", (int)kind);
        }
    }
    command c = {.kind = C_COPY, .dst = dst, .src = src, .n = count};
    if (async_skip >= 0 && async_skip-- == 0)
        c.fail = async_err;
    push(s, c);
    UNLOCK();
    return cudaSuccess;
}
