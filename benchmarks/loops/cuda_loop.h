/*
 * The plain pinned cudaMemcpyAsync loop that the GPU tier is judged against.
 *
 * It knows nothing of ebb: two device buffers and two pinned host buffers of
 * `size` bytes, one stream per direction, copies queued back to back (all of
 * them at once, the most favourable case for the driver) and timed with CUDA
 * events: host -> device alone, device -> host alone, then both directions at
 * once. Host memory is page-aligned mmap memory pinned with cudaHostRegister
 * (what ebb's host tier uses), or cudaHostAlloc memory. Used by
 * benchmarks/cuda_baseline (the standalone program) and by
 * `ebb bench --tier gpu --baseline`. Built only where CMake finds the CUDA
 * toolkit.
 */
#ifndef EBB_BENCHMARKS_CUDA_LOOP_H
#define EBB_BENCHMARKS_CUDA_LOOP_H

#include <stddef.h>
#include <stdint.h>

typedef struct bl_cuda_options {
    int device;      /* CUDA device ordinal */
    size_t size;     /* bytes of one copy (one state) */
    uint64_t total;  /* bytes per direction (rounded up to whole copies) */
    size_t chunk;    /* bytes per cudaMemcpyAsync call; 0 or >= size: one call per copy */
    int host_alloc;  /* 1: cudaHostAlloc instead of mmap + cudaHostRegister */
    /* Called before each phase (0 h2d, 1 d2h, 2 both) and after the last; may be NULL. */
    void (*progress)(void *user, int phase, uint64_t done, uint64_t total);
    void *user;
} bl_cuda_options;

typedef struct bl_cuda_result {
    char device_name[256]; /* cudaDeviceProp.name */
    uint64_t bytes;        /* bytes per direction */
    size_t chunk;          /* bytes per call used */
    double h2d_s;          /* seconds for `bytes` host -> device */
    double d2h_s;          /* seconds for `bytes` device -> host */
    double both_s;         /* seconds for `bytes` each way, both at once */
    char error[512];       /* why it failed, when bl_cuda_run returns -1 */
} bl_cuda_result;

/* Sets the defaults: device 0, 256 MiB copies, 16 GiB per direction, one call
 * per copy, mmap + cudaHostRegister. */
void bl_cuda_options_init(bl_cuda_options *o);

/* Runs the three phases. 0 on success; -1 with result->error set otherwise
 * (no CUDA device, allocation or copy failure). Frees everything it made. */
int bl_cuda_run(const bl_cuda_options *o, bl_cuda_result *result);

#endif
