/* The GPU end-to-end case (gpu_async_run.h). */
#include "gpu_async_run.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "ebb/ebb.h"

typedef struct ctx {
    const gpu_async_args *a;
    cudaStream_t stream;
    unsigned char *scratch;  /* device: the steps' busy work */
    unsigned char *bytes;    /* pinned: 256 constants a forward step writes */
    uint64_t *seen;          /* pinned: 8 bytes of x_k per reverse step k */
    cudaError_t err;
} ctx;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void cuda(ctx *c, cudaError_t e)
{
    if (e != cudaSuccess && c->err == cudaSuccess)
        c->err = e;
}

/* x_{k+1} = x_k with byte (131 k mod S) set to k mod 256, after
 * copies_forward - 1 extra round trips through scratch (the step's compute). */
static void forward_work(ctx *c, int64_t k, const unsigned char *in, unsigned char *out)
{
    size_t s = c->a->state_size;
    cuda(c, cudaMemcpyAsync(out, in, s, cudaMemcpyDeviceToDevice, c->stream));
    for (int r = 1; r < c->a->copies_forward; r++)
        cuda(c, cudaMemcpyAsync(c->scratch, out, s, cudaMemcpyDeviceToDevice, c->stream));
    cuda(c, cudaMemcpyAsync(out + (size_t)(131 * k) % s, c->bytes + (k & 0xff), 1,
                            cudaMemcpyHostToDevice, c->stream));
}

static void reverse_work(ctx *c, int64_t k, const unsigned char *x)
{
    size_t s = c->a->state_size;
    for (int r = 0; r < c->a->copies_reverse; r++)
        cuda(c, cudaMemcpyAsync(c->scratch, x, s, cudaMemcpyDeviceToDevice, c->stream));
    size_t off = (size_t)(7919 * k) % (s - 8);
    cuda(c, cudaMemcpyAsync(&c->seen[k], x + off, 8, cudaMemcpyDeviceToHost, c->stream));
}

static int fwd(void *user, int64_t k, const void *in, void *out)
{
    ctx *c = user;
    forward_work(c, k, in, out);
    return c->err == cudaSuccess ? EBB_STEP_OK : ebb_callback_fail("CUDA: %s",
                                                                  cudaGetErrorString(c->err));
}

static int rev(void *user, int64_t k, void *state)
{
    ctx *c = user;
    reverse_work(c, k, state);
    return c->err == cudaSuccess ? EBB_STEP_OK : ebb_callback_fail("CUDA: %s",
                                                                  cudaGetErrorString(c->err));
}

static void fail(gpu_async_result *r, const char *what, const char *msg)
{
    snprintf(r->error, sizeof r->error, "%s: %s", what, msg);
}

/* One ebb run; *gradient = hash of what the reverse steps saw. */
static int run_once(ctx *c, const char *strategy, int32_t gpu_slots, int32_t host_slots,
                    const unsigned char *x0, gpu_async_result *r, int record)
{
    const gpu_async_args *a = c->a;
    ebb_config cfg;
    ebb_config_init_default(&cfg);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = (uint64_t)gpu_slots * a->state_size;
    cfg.host.budget = (uint64_t)(host_slots > 0 ? host_slots : 1) * a->state_size;
    cfg.host.enabled = host_slots > 0;
    cfg.disk.enabled = a->disk_dir != NULL;
    if (a->disk_dir) {
        const char *paths[] = {a->disk_dir};
        ebb_config_set_disk_paths(&cfg, paths, 1);
        cfg.disk.budget = (uint64_t)a->steps * a->state_size;
    }
    ebb_config_strategy s;
    if (ebb_config_strategy_from_name(strategy, &s) != EBB_OK) {
        fail(r, "strategy", ebb_last_error());
        ebb_config_dispose(&cfg);
        return -1;
    }
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = a->state_size;
    o.state_tier = EBB_TIER_GPU;
    o.stream = c->stream;
    o.steps = a->steps;
    o.config = &cfg;
    o.strategy = (int)s;
    o.forward = fwd;
    o.reverse = rev;
    o.user = c;
    ebb_run *run = NULL;
    ebb_status st = ebb_run_create(&o, &run);
    if (st == EBB_OK)
        st = ebb_run_forward(run, x0, NULL);
    if (st == EBB_OK)
        st = ebb_run_reverse(run);
    cuda(c, cudaStreamSynchronize(c->stream));
    if (st != EBB_OK || c->err != cudaSuccess) {
        fail(r, strategy, st != EBB_OK ? ebb_last_error() : cudaGetErrorString(c->err));
        ebb_run_destroy(run);
        ebb_config_dispose(&cfg);
        return -1;
    }
    ebb_run_stats rs;
    ebb_run_stats_get(run, &rs);
    ebb_run_info info;
    ebb_run_info_get(run, &info);
    uint64_t g = XXH3_64bits(c->seen, (size_t)a->steps * sizeof *c->seen);
    if (record) {
        r->gradient = g;
        r->wall_s = rs.wall_s;
        r->forward_s = rs.forward_sweep_s;
        r->reverse_s = rs.reverse_sweep_s;
        r->stall_s = rs.stall_total_s;
        r->forward_steps = rs.forward_steps;
        r->gpu_slots = info.slots[EBB_TIER_GPU];
        r->host_slots = info.slots[EBB_TIER_HOST];
        r->bytes_host = rs.bytes_written[EBB_TIER_HOST];
        r->bytes_disk = rs.bytes_written[EBB_TIER_DISK];
    } else {
        r->reference = g;
    }
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    return 0;
}

int gpu_async_run(const gpu_async_args *a, gpu_async_result *r)
{
    memset(r, 0, sizeof *r);
    ctx c = {.a = a};
    size_t s = a->state_size;
    unsigned char *x0 = NULL, *d[2] = {NULL, NULL};
    int rc = -1;
    if (s < 16 || a->steps < 2) {
        fail(r, "arguments", "state_size >= 16 and steps >= 2 needed");
        return -1;
    }
    cuda(&c, cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    cuda(&c, cudaMalloc((void **)&c.scratch, s));
    cuda(&c, cudaMalloc((void **)&d[0], s));
    cuda(&c, cudaMalloc((void **)&d[1], s));
    cuda(&c, cudaHostAlloc((void **)&c.bytes, 256, cudaHostAllocDefault));
    cuda(&c, cudaHostAlloc((void **)&c.seen, (size_t)a->steps * 8, cudaHostAllocDefault));
    cuda(&c, cudaHostAlloc((void **)&x0, s, cudaHostAllocDefault));
    if (c.err != cudaSuccess) {
        fail(r, "CUDA set-up", cudaGetErrorString(c.err));
        goto out;
    }
    for (int i = 0; i < 256; i++)
        c.bytes[i] = (unsigned char)(i * 37 + 11);
    for (size_t i = 0; i < s; i++)
        x0[i] = (unsigned char)(i * 2654435761u >> 13);

    /* ideal: n forward and n reverse steps, nothing kept */
    cuda(&c, cudaMemcpyAsync(d[0], x0, s, cudaMemcpyHostToDevice, c.stream));
    cuda(&c, cudaStreamSynchronize(c.stream));
    double t0 = now();
    for (int64_t k = 0; k < a->steps; k++)
        forward_work(&c, k, d[k & 1], d[(k + 1) & 1]);
    for (int64_t k = a->steps - 1; k >= 0; k--)
        reverse_work(&c, k, d[k & 1]);
    cuda(&c, cudaStreamSynchronize(c.stream));
    r->ideal_s = now() - t0;

    int32_t all = (int32_t)a->steps; /* store-all: every state on the GPU */
    int32_t few = (int32_t)(a->gpu_fraction * (double)a->steps);
    if (few < 2)
        few = 2;
    if (run_once(&c, "store-all", all, 0, x0, r, 0) != 0)
        goto out;
    if (run_once(&c, a->strategy ? a->strategy : "async", few, a->host_slots, x0, r, 1) != 0)
        goto out;
    rc = 0;
out:
    cudaFreeHost(x0);
    cudaFreeHost(c.seen);
    cudaFreeHost(c.bytes);
    cudaFree(d[0]);
    cudaFree(d[1]);
    cudaFree(c.scratch);
    if (c.stream)
        cudaStreamDestroy(c.stream);
    return rc;
}
