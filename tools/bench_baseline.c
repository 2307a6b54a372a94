/* `ebb bench --baseline`: the plain loops the tiers are compared with, the
 * io_uring O_DIRECT loop (disk) and the cudaMemcpyAsync loop (gpu), with no
 * ebb code: the ebb_baseline_loops target (benchmarks/loops/), whose headers
 * come with it. */
#include <stdio.h>

#include "uring_loop.h"
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
#include "cuda_loop.h"
#endif
#include "tools/bench_cmd.h"
#include "tools/cli.h"

static void baseline_progress(void *user, int phase, uint64_t done, uint64_t total)
{
    const bench_params *p = user;
    static double t0;
    if (done == 0 || t0 == 0)
        t0 = cli_now();
    bench_progress(p, phase == 0 ? "baseline write" : "baseline read", done, total, t0);
    if (done >= total)
        t0 = 0;
}

int bench_run_baseline(const ebb_config *cfg, const bench_params *p, uint64_t bytes,
                       baseline_result *b)
{
    bl_uring_options o;
    bl_uring_result r;
    bl_uring_options_init(&o);
    o.dir = cfg->disk.paths[0];
    o.bytes = bytes;
    o.block = p->block;
    o.depth = p->depth;
    o.direct = cfg->disk.direct;
    o.progress = baseline_progress;
    o.user = (void *)p;
    snprintf(b->dir, sizeof b->dir, "%s", o.dir);
    if (bl_uring_run(&o, &r) != 0) {
        fprintf(stderr, "ebb bench: baseline loop in '%s': %s\n", o.dir, r.error);
        return -1;
    }
    b->ran = 1;
    b->bytes = r.bytes;
    b->write_GBps = (double)r.bytes / r.write_s / 1e9;
    b->read_GBps = (double)r.bytes / r.read_s / 1e9;
    b->registered = r.registered;
    b->direct = r.direct;
    return 0;
}

#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
static void gpu_baseline_progress(void *user, int phase, uint64_t done, uint64_t total)
{
    const bench_params *p = user;
    static double t0;
    (void)phase;
    if (done == 0 || t0 == 0)
        t0 = cli_now();
    bench_progress(p, "gpu baseline", done, total, t0);
    if (done >= total)
        t0 = 0;
}
#endif

int bench_run_gpu_baseline(const ebb_config *cfg, const bench_params *p, gpu_baseline_result *b)
{
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
    bl_cuda_options o;
    bl_cuda_result r;
    bl_cuda_options_init(&o);
    o.device = cfg->gpu.device;
    o.size = (size_t)p->size;
    o.total = p->total ? p->total : BENCH_TOTAL_GPU;
    o.progress = gpu_baseline_progress;
    o.user = (void *)p;
    if (bl_cuda_run(&o, &r) != 0) {
        fprintf(stderr, "ebb bench: gpu baseline (cudaMemcpyAsync loop): %s\n", r.error);
        return -1;
    }
    b->ran = 1;
    b->bytes = r.bytes;
    b->h2d_GBps = (double)r.bytes / r.h2d_s / 1e9;
    b->d2h_GBps = (double)r.bytes / r.d2h_s / 1e9;
    b->both_GBps = 2.0 * (double)r.bytes / r.both_s / 1e9;
    snprintf(b->device_name, sizeof b->device_name, "%s", r.device_name);
    return 0;
#else
    (void)cfg, (void)p, (void)b;
    fprintf(stderr, "ebb bench: gpu baseline: this ebb was built without CUDA\n");
    return -1;
#endif
}
