/* The plain pinned cudaMemcpyAsync loop; see cuda_loop.h. */
#include "cuda_loop.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

enum { BL_PHASES = 3 };

typedef struct bl_cuda {
    const bl_cuda_options *o;
    bl_cuda_result *r;
    size_t size, chunk;
    uint64_t copies;
    void *d_a, *d_b; /* device: h2d target, d2h source */
    void *h_a, *h_b; /* pinned host: h2d source, d2h target */
    int h_a_pinned, h_b_pinned;
    cudaStream_t s_h2d, s_d2h;
    cudaEvent_t ev[4];
} bl_cuda;

static int bl_fail(bl_cuda_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    return -1;
}

/* Fails with the CUDA error's text when e is not cudaSuccess. */
static int ck(bl_cuda *c, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    return bl_fail(c->r, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

void bl_cuda_options_init(bl_cuda_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = (size_t)256 << 20;
    o->total = UINT64_C(16) << 30;
}

static int host_alloc(bl_cuda *c, void **p, int *pinned)
{
    size_t bytes = c->size;
    if (c->o->host_alloc) {
        if (ck(c, cudaHostAlloc(p, bytes, cudaHostAllocPortable), "cudaHostAlloc"))
            return -1;
        *pinned = 1;
        memset(*p, 0x5a, bytes);
        return 0;
    }
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return bl_fail(c->r, "mmap of %zu bytes failed: %s", bytes, strerror(errno));
    *p = m;
    (void)madvise(m, bytes, MADV_HUGEPAGE);
    memset(m, 0x5a, bytes); /* fault the pages in before pinning, as the host tier does */
    if (ck(c, cudaHostRegister(m, bytes, cudaHostRegisterPortable), "cudaHostRegister"))
        return -1;
    *pinned = 1;
    return 0;
}

static void host_free(bl_cuda *c, void *p, int pinned)
{
    if (!p)
        return;
    if (c->o->host_alloc) {
        (void)cudaFreeHost(p);
        return;
    }
    if (pinned)
        (void)cudaHostUnregister(p);
    munmap(p, c->size);
}

/* Queues `copies` copies of c->size bytes in c->chunk pieces on stream s. */
static int enqueue(bl_cuda *c, void *dst, const void *src, uint64_t copies,
                   enum cudaMemcpyKind kind, cudaStream_t s)
{
    for (uint64_t k = 0; k < copies; k++)
        for (size_t off = 0; off < c->size; off += c->chunk) {
            size_t n = c->size - off < c->chunk ? c->size - off : c->chunk;
            if (ck(c, cudaMemcpyAsync((char *)dst + off, (const char *)src + off, n, kind, s),
                   "cudaMemcpyAsync"))
                return -1;
        }
    return 0;
}

static int elapsed(bl_cuda *c, cudaEvent_t from, cudaEvent_t to, double *seconds)
{
    float ms = 0;
    if (ck(c, cudaEventSynchronize(to), "cudaEventSynchronize") ||
        ck(c, cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime"))
        return -1;
    *seconds = (double)ms * 1e-3;
    return 0;
}

static void progress(bl_cuda *c, int phase)
{
    if (c->o->progress)
        c->o->progress(c->o->user, phase, (uint64_t)phase, BL_PHASES);
}

/* One direction alone: event, copies, event, wait. */
static int one_way(bl_cuda *c, void *dst, const void *src, enum cudaMemcpyKind kind,
                   cudaStream_t s, double *seconds)
{
    if (ck(c, cudaEventRecord(c->ev[0], s), "cudaEventRecord") ||
        enqueue(c, dst, src, c->copies, kind, s) ||
        ck(c, cudaEventRecord(c->ev[1], s), "cudaEventRecord"))
        return -1;
    return elapsed(c, c->ev[0], c->ev[1], seconds);
}

/* Both at once: both streams start after one event; the time ends when the
 * later of the two finishes. */
static int both_ways(bl_cuda *c, double *seconds)
{
    if (ck(c, cudaEventRecord(c->ev[0], c->s_h2d), "cudaEventRecord") ||
        ck(c, cudaStreamWaitEvent(c->s_d2h, c->ev[0], 0), "cudaStreamWaitEvent") ||
        enqueue(c, c->d_a, c->h_a, c->copies, cudaMemcpyHostToDevice, c->s_h2d) ||
        enqueue(c, c->h_b, c->d_b, c->copies, cudaMemcpyDeviceToHost, c->s_d2h) ||
        ck(c, cudaEventRecord(c->ev[2], c->s_d2h), "cudaEventRecord") ||
        ck(c, cudaStreamWaitEvent(c->s_h2d, c->ev[2], 0), "cudaStreamWaitEvent") ||
        ck(c, cudaEventRecord(c->ev[3], c->s_h2d), "cudaEventRecord"))
        return -1;
    return elapsed(c, c->ev[0], c->ev[3], seconds);
}

static int measure(bl_cuda *c)
{
    const bl_cuda_options *o = c->o;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return bl_fail(c->r, "no CUDA device is usable here (%s)",
                       e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
    }
    if (o->device < 0 || o->device >= count)
        return bl_fail(c->r, "CUDA device %d does not exist (devices 0 .. %d)", o->device,
                       count - 1);
    struct cudaDeviceProp prop;
    if (ck(c, cudaSetDevice(o->device), "cudaSetDevice") ||
        ck(c, cudaGetDeviceProperties(&prop, o->device), "cudaGetDeviceProperties"))
        return -1;
    snprintf(c->r->device_name, sizeof c->r->device_name, "%s", prop.name);
    if (ck(c, cudaMalloc(&c->d_a, c->size), "cudaMalloc") ||
        ck(c, cudaMalloc(&c->d_b, c->size), "cudaMalloc") ||
        ck(c, cudaMemset(c->d_a, 0x33, c->size), "cudaMemset") ||
        ck(c, cudaMemset(c->d_b, 0x44, c->size), "cudaMemset") ||
        host_alloc(c, &c->h_a, &c->h_a_pinned) || host_alloc(c, &c->h_b, &c->h_b_pinned) ||
        ck(c, cudaStreamCreateWithFlags(&c->s_h2d, cudaStreamNonBlocking), "cudaStreamCreate") ||
        ck(c, cudaStreamCreateWithFlags(&c->s_d2h, cudaStreamNonBlocking), "cudaStreamCreate"))
        return -1;
    for (int i = 0; i < 4; i++)
        if (ck(c, cudaEventCreate(&c->ev[i]), "cudaEventCreate"))
            return -1;
    /* warm-up: one copy each way, untimed */
    if (enqueue(c, c->d_a, c->h_a, 1, cudaMemcpyHostToDevice, c->s_h2d) ||
        enqueue(c, c->h_b, c->d_b, 1, cudaMemcpyDeviceToHost, c->s_d2h) ||
        ck(c, cudaStreamSynchronize(c->s_h2d), "cudaStreamSynchronize") ||
        ck(c, cudaStreamSynchronize(c->s_d2h), "cudaStreamSynchronize"))
        return -1;
    progress(c, 0);
    if (one_way(c, c->d_a, c->h_a, cudaMemcpyHostToDevice, c->s_h2d, &c->r->h2d_s))
        return -1;
    progress(c, 1);
    if (one_way(c, c->h_b, c->d_b, cudaMemcpyDeviceToHost, c->s_d2h, &c->r->d2h_s))
        return -1;
    progress(c, 2);
    if (both_ways(c, &c->r->both_s))
        return -1;
    progress(c, BL_PHASES);
    return 0;
}

int bl_cuda_run(const bl_cuda_options *o, bl_cuda_result *r)
{
    memset(r, 0, sizeof *r);
    if (o->size == 0)
        return bl_fail(r, "copy size is 0 bytes");
    bl_cuda c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.r = r;
    c.size = o->size;
    c.chunk = o->chunk == 0 || o->chunk > o->size ? o->size : o->chunk;
    c.copies = o->total == 0 ? 1 : (o->total + o->size - 1) / o->size;
    r->chunk = c.chunk;
    r->bytes = c.copies * (uint64_t)c.size;
    int old = -1;
    if (cudaGetDevice(&old) != cudaSuccess) {
        (void)cudaGetLastError();
        old = -1;
    }
    int rc = measure(&c);
    /* Teardown: wait for anything queued, then free what was made. */
    if (c.s_h2d)
        (void)cudaStreamSynchronize(c.s_h2d);
    if (c.s_d2h)
        (void)cudaStreamSynchronize(c.s_d2h);
    for (int i = 0; i < 4; i++)
        if (c.ev[i])
            (void)cudaEventDestroy(c.ev[i]);
    if (c.s_h2d)
        (void)cudaStreamDestroy(c.s_h2d);
    if (c.s_d2h)
        (void)cudaStreamDestroy(c.s_d2h);
    host_free(&c, c.h_a, c.h_a_pinned);
    host_free(&c, c.h_b, c.h_b_pinned);
    if (c.d_a)
        (void)cudaFree(c.d_a);
    if (c.d_b)
        (void)cudaFree(c.d_b);
    if (old >= 0)
        (void)cudaSetDevice(old);
    (void)cudaGetLastError();
    return rc;
}
