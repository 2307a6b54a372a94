/*
 * cuda_baseline: the pinned cudaMemcpyAsync bandwidth the GPU tier is judged
 * against (issue 3), with no ebb code: host -> device alone, device -> host
 * alone, and both directions at once on two streams.
 *
 *   cuda_baseline [--device N] [--size BYTES] [--total BYTES] [--chunk BYTES]
 *                 [--host-alloc] [--json]
 *
 * Each copy moves `size` bytes (default 256 MiB) as cudaMemcpyAsync calls of
 * `chunk` bytes (default: the whole size); copies repeat until `total` bytes
 * (default 16 GiB) moved per direction. Host memory is page-aligned mmap
 * memory pinned with cudaHostRegister (what ebb's host tier uses), or
 * cudaHostAlloc memory with --host-alloc. Timed with CUDA events; GB/s is
 * 10^9 bytes per second. Sizes take a K, M or G suffix (KiB, MiB, GiB).
 * Built only where CMake finds the CUDA toolkit.
 */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "baseline_args.h"

static const char help[] =
    "usage: cuda_baseline [--device N] [--size BYTES] [--total BYTES] [--chunk BYTES]\n"
    "                     [--host-alloc] [--json]\n"
    "\n"
    "Pinned cudaMemcpyAsync bandwidth: H2D alone, D2H alone, both at once.\n"
    "Defaults: device 0, size 256M per copy, 16G per direction, one call per copy.\n";

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "cuda_baseline: %s: %s\n", #call, cudaGetErrorString(e_));           \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static void *host_alloc(size_t bytes, int use_host_alloc)
{
    void *p = NULL;
    if (use_host_alloc) {
        CK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
        return p;
    }
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "cuda_baseline: mmap of %zu bytes failed: %s\n", bytes, strerror(errno));
        exit(1);
    }
    (void)madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 0x5a, bytes);
    CK(cudaHostRegister(p, bytes, cudaHostRegisterPortable));
    return p;
}

static void host_free(void *p, size_t bytes, int use_host_alloc)
{
    if (use_host_alloc) {
        cudaFreeHost(p);
        return;
    }
    cudaHostUnregister(p);
    munmap(p, bytes);
}

/* Queues `copies` copies of `size` bytes in `chunk` pieces on stream s. */
static void enqueue(void *dst, const void *src, size_t size, size_t chunk, uint64_t copies,
                    enum cudaMemcpyKind kind, cudaStream_t s)
{
    for (uint64_t c = 0; c < copies; c++)
        for (size_t off = 0; off < size; off += chunk) {
            size_t n = size - off < chunk ? size - off : chunk;
            CK(cudaMemcpyAsync((char *)dst + off, (const char *)src + off, n, kind, s));
        }
}

int main(int argc, char **argv)
{
    enum { O_DEVICE = 256, O_SIZE, O_TOTAL, O_CHUNK, O_HOSTALLOC, O_JSON, O_HELP };
    static const struct option longopts[] = {
        {"device", required_argument, 0, O_DEVICE}, {"size", required_argument, 0, O_SIZE},
        {"total", required_argument, 0, O_TOTAL},   {"chunk", required_argument, 0, O_CHUNK},
        {"host-alloc", no_argument, 0, O_HOSTALLOC}, {"json", no_argument, 0, O_JSON},
        {"help", no_argument, 0, O_HELP},           {0, 0, 0, 0}};
    int device = 0, use_host_alloc = 0, json = 0, c;
    uint64_t size = UINT64_C(256) << 20, total = UINT64_C(16) << 30, chunk = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_DEVICE: device = atoi(optarg); break;
        case O_SIZE:
            if (baseline_parse_size("cuda_baseline", "--size", optarg, &size))
                return 2;
            break;
        case O_TOTAL:
            if (baseline_parse_size("cuda_baseline", "--total", optarg, &total))
                return 2;
            break;
        case O_CHUNK:
            if (baseline_parse_size("cuda_baseline", "--chunk", optarg, &chunk))
                return 2;
            break;
        case O_HOSTALLOC: use_host_alloc = 1; break;
        case O_JSON: json = 1; break;
        case O_HELP: fputs(help, stdout); return 0;
        default:
            fprintf(stderr, "cuda_baseline: unknown or incomplete option '%s'\n%s",
                    argv[optind - 1], help);
            return 2;
        }
    }
    if (chunk == 0 || chunk > size)
        chunk = size;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "cuda_baseline: no CUDA device is usable here\n");
        return 1;
    }
    if (device < 0 || device >= count) {
        fprintf(stderr, "cuda_baseline: --device must be in [0, %d], got %d\n", count - 1, device);
        return 2;
    }
    CK(cudaSetDevice(device));
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, device));
    uint64_t copies = (total + size - 1) / size;
    size_t sz = (size_t)size;

    void *d_a = NULL, *d_b = NULL;
    CK(cudaMalloc(&d_a, sz));
    CK(cudaMalloc(&d_b, sz));
    CK(cudaMemset(d_a, 0x33, sz));
    CK(cudaMemset(d_b, 0x44, sz));
    void *h_a = host_alloc(sz, use_host_alloc), *h_b = host_alloc(sz, use_host_alloc);
    cudaStream_t s_d2h, s_h2d;
    CK(cudaStreamCreateWithFlags(&s_d2h, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s_h2d, cudaStreamNonBlocking));
    cudaEvent_t e0, e1, e2, e3;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreate(&e2));
    CK(cudaEventCreate(&e3));

    /* warm-up: one copy each way */
    enqueue(d_a, h_a, sz, (size_t)chunk, 1, cudaMemcpyHostToDevice, s_h2d);
    enqueue(h_b, d_b, sz, (size_t)chunk, 1, cudaMemcpyDeviceToHost, s_d2h);
    CK(cudaDeviceSynchronize());

    float ms_h2d = 0, ms_d2h = 0, ms_both = 0;
    CK(cudaEventRecord(e0, s_h2d));
    enqueue(d_a, h_a, sz, (size_t)chunk, copies, cudaMemcpyHostToDevice, s_h2d);
    CK(cudaEventRecord(e1, s_h2d));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms_h2d, e0, e1));

    CK(cudaEventRecord(e0, s_d2h));
    enqueue(h_b, d_b, sz, (size_t)chunk, copies, cudaMemcpyDeviceToHost, s_d2h);
    CK(cudaEventRecord(e1, s_d2h));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms_d2h, e0, e1));

    /* both at once: start both streams after one event, stop after both */
    CK(cudaEventRecord(e0, s_h2d));
    CK(cudaStreamWaitEvent(s_d2h, e0, 0));
    enqueue(d_a, h_a, sz, (size_t)chunk, copies, cudaMemcpyHostToDevice, s_h2d);
    enqueue(h_b, d_b, sz, (size_t)chunk, copies, cudaMemcpyDeviceToHost, s_d2h);
    CK(cudaEventRecord(e2, s_d2h));
    CK(cudaStreamWaitEvent(s_h2d, e2, 0));
    CK(cudaEventRecord(e3, s_h2d));
    CK(cudaEventSynchronize(e3));
    CK(cudaEventElapsedTime(&ms_both, e0, e3));

    double moved = (double)copies * (double)sz;
    double h2d = moved / (ms_h2d * 1e-3) / 1e9, d2h = moved / (ms_d2h * 1e-3) / 1e9;
    double both = 2.0 * moved / (ms_both * 1e-3) / 1e9;
    if (json)
        printf("{\"device\": \"%s\", \"size\": %zu, \"chunk\": %llu, \"bytes_per_direction\": "
               "%.0f, \"host_memory\": \"%s\", \"h2d_GBps\": %.3f, \"d2h_GBps\": %.3f, "
               "\"both_GBps\": %.3f}\n",
               prop.name, sz, (unsigned long long)chunk, moved,
               use_host_alloc ? "cudaHostAlloc" : "mmap+cudaHostRegister", h2d, d2h, both);
    else
        printf("pinned cudaMemcpyAsync on %s (%s host memory), %zu MiB copies in %llu MiB "
               "calls, %.1f GiB per direction\n"
               "  H2D  %.2f GB/s\n  D2H  %.2f GB/s\n  both %.2f GB/s (sum of the two directions)\n",
               prop.name, use_host_alloc ? "cudaHostAlloc" : "mmap+cudaHostRegister", sz >> 20,
               (unsigned long long)(chunk >> 20), moved / (1 << 30), h2d, d2h, both);

    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
    cudaEventDestroy(e3);
    cudaStreamDestroy(s_d2h);
    cudaStreamDestroy(s_h2d);
    host_free(h_a, sz, use_host_alloc);
    host_free(h_b, sz, use_host_alloc);
    cudaFree(d_a);
    cudaFree(d_b);
    return 0;
}
