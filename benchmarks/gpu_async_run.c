/* The GPU end-to-end case (gpu_async_run.h). */
#include "gpu_async_run.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "ebb/ebb.h"
#include "ebb/planner.h"

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

/* The run's configuration: gpu_slots and host_slots states, the disk below. */
static void configure(const gpu_async_args *a, int32_t gpu_slots, int32_t host_slots,
                      ebb_config *cfg_out)
{
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
    *cfg_out = cfg;
}

/* One ebb run; *gradient = hash of what the reverse steps saw. */
static int run_once(ctx *c, const char *strategy, int32_t gpu_slots, int32_t host_slots,
                    const unsigned char *x0, gpu_async_result *r, int record)
{
    const gpu_async_args *a = c->a;
    ebb_config cfg;
    configure(a, gpu_slots, host_slots, &cfg);
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
    double t0 = now(); /* the sweeps, not the pools' set-up */
    if (st == EBB_OK)
        st = ebb_run_forward(run, x0, NULL);
    if (st == EBB_OK)
        st = ebb_run_reverse(run);
    cuda(c, cudaStreamSynchronize(c->stream));
    double device_wall = now() - t0;
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
        r->recomputed = rs.recomputed_steps;
        r->host_stores = rs.stores[EBB_TIER_HOST];
        r->device_wall_s = device_wall;
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

/* Seconds per copy of the state between pinned x0 and device memory d. */
static double copy_time(ctx *c, unsigned char *x0, unsigned char *d, int to_device)
{
    enum { REPS = 8 };
    size_t s = c->a->state_size;
    cuda(c, cudaStreamSynchronize(c->stream));
    double t0 = now();
    for (int i = 0; i < REPS; i++)
        cuda(c, to_device ? cudaMemcpyAsync(d, x0, s, cudaMemcpyHostToDevice, c->stream)
                          : cudaMemcpyAsync(x0, d, s, cudaMemcpyDeviceToHost, c->stream));
    cuda(c, cudaStreamSynchronize(c->stream));
    return (now() - t0) / REPS;
}

/* The planner's prediction for the run, from the measured step times and
 * copy rates (the disk channels measured by ebb_plan_channels_measure). */
static void predict(const gpu_async_args *a, gpu_async_result *r)
{
    ebb_config cfg;
    configure(a, r->gpu_slots, r->host_slots, &cfg);
    ebb_plan_problem p;
    ebb_plan_problem_init(&p);
    p.steps = a->steps;
    p.state_size = a->state_size;
    p.state_tier = EBB_TIER_GPU;
    p.forward_s = r->forward_step_s;
    p.reverse_s = r->reverse_step_s;
    ebb_config_strategy s;
    ebb_plan_prediction pr;
    r->predicted_s = -1;
    if (ebb_plan_problem_from_config(&p, &cfg) == EBB_OK &&
        (!a->disk_dir || ebb_plan_channels_measure(&p, &cfg) == EBB_OK)) {
        p.channel[EBB_PLAN_GPU_TO_HOST].bandwidth = r->d2h_bps;
        p.channel[EBB_PLAN_HOST_TO_GPU].bandwidth = r->h2d_bps;
        if (ebb_config_strategy_from_name(a->strategy ? a->strategy : "async", &s) == EBB_OK &&
            ebb_plan_predict(&p, s, &pr) == EBB_OK) {
            r->predicted_s = pr.predicted_s;
            r->predicted_recomputed = pr.recomputed_steps;
            r->predicted_host_stores = pr.stores[EBB_TIER_HOST];
        }
    }
    ebb_config_dispose(&cfg);
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
    cuda(&c, cudaStreamSynchronize(c.stream));
    double t1 = now();
    for (int64_t k = a->steps - 1; k >= 0; k--)
        reverse_work(&c, k, d[k & 1]);
    cuda(&c, cudaStreamSynchronize(c.stream));
    r->ideal_s = now() - t0;
    r->forward_step_s = (t1 - t0) / (double)a->steps;
    r->reverse_step_s = (now() - t1) / (double)a->steps;
    double d2h = copy_time(&c, x0, d[0], 0), h2d = copy_time(&c, x0, d[0], 1);
    r->d2h_bps = d2h > 0 ? (double)s / d2h : 0;
    r->h2d_bps = h2d > 0 ? (double)s / h2d : 0;

    int32_t all = (int32_t)a->steps; /* store-all: every state on the GPU */
    int32_t few = (int32_t)(a->gpu_fraction * (double)a->steps);
    if (few < 2)
        few = 2;
    if (run_once(&c, "store-all", all, 0, x0, r, 0) != 0)
        goto out;
    if (run_once(&c, a->strategy ? a->strategy : "async", few, a->host_slots, x0, r, 1) != 0)
        goto out;
    predict(a, r);
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
