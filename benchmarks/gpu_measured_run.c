/* A GPU state's steps measured on the device (gpu_measured_run.h). */
#include "gpu_measured_run.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "ebb/ebb.h"

typedef struct ctx {
    const gpu_measured_args *a;
    cudaStream_t stream;
    unsigned char *scratch; /* device: the steps' busy work */
    unsigned char *bytes;   /* pinned: 256 constants a forward step writes */
    uint64_t *seen;         /* pinned: 8 bytes of x_k per reverse step k */
    int *runs;              /* forward runs of each step */
    const double *plain;    /* the plain loop's step times, or NULL */
    double recomputed_s;
    cudaError_t err;
} ctx;

static void cuda(ctx *c, cudaError_t e)
{
    if (e != cudaSuccess && c->err == cudaSuccess)
        c->err = e;
}

static int copies(const gpu_measured_args *a, int64_t k)
{
    return k % a->dear_every == 0 ? a->dear_copies : a->copies;
}

/* x_{k+1} = x_k with byte (131 k mod S) set to k mod 256, after the step's
 * extra copies through scratch (its compute). */
static void forward_work(ctx *c, int64_t k, const unsigned char *in, unsigned char *out)
{
    size_t s = c->a->state_size;
    cuda(c, cudaMemcpyAsync(out, in, s, cudaMemcpyDeviceToDevice, c->stream));
    for (int r = 1; r < copies(c->a, k); r++)
        cuda(c, cudaMemcpyAsync(c->scratch, out, s, cudaMemcpyDeviceToDevice, c->stream));
    cuda(c, cudaMemcpyAsync(out + (size_t)(131 * k) % s, c->bytes + (k & 0xff), 1,
                            cudaMemcpyHostToDevice, c->stream));
}

static int fwd(void *user, int64_t k, const void *in, void *out)
{
    ctx *c = user;
    if (c->runs[k]++ && c->plain)
        c->recomputed_s += c->plain[k];
    forward_work(c, k, in, out);
    return c->err == cudaSuccess ? EBB_STEP_OK
                                 : ebb_callback_fail("CUDA: %s", cudaGetErrorString(c->err));
}

static int rev(void *user, int64_t k, void *x)
{
    ctx *c = user;
    size_t s = c->a->state_size;
    for (int r = 0; r < c->a->reverse_copies; r++)
        cuda(c, cudaMemcpyAsync(c->scratch, x, s, cudaMemcpyDeviceToDevice, c->stream));
    cuda(c, cudaMemcpyAsync(&c->seen[k], (const unsigned char *)x + (size_t)(7919 * k) % (s - 8),
                            8, cudaMemcpyDeviceToHost, c->stream));
    return c->err == cudaSuccess ? EBB_STEP_OK
                                 : ebb_callback_fail("CUDA: %s", cudaGetErrorString(c->err));
}

static void fail(gpu_measured_result *r, const char *what, const char *msg)
{
    snprintf(r->error, sizeof r->error, "%s: %s", what, msg);
}

/* One run; f (may be NULL): its measured forward times; *gradient: what the
 * reverse steps saw. */
static int run_once(ctx *c, const char *strategy, int measure, const unsigned char *x0, double *f,
                    uint64_t *gradient, double *host_forward_s, gpu_measured_result *r)
{
    const gpu_measured_args *a = c->a;
    int store_all = strcmp(strategy, "store-all") == 0;
    ebb_config cfg;
    ebb_config_init_default(&cfg);
    cfg.gpu.enabled = 1;
    cfg.gpu.device = a->device;
    cfg.gpu.budget = (uint64_t)(store_all ? a->steps + 1 : a->slots) * a->state_size;
    cfg.host.enabled = 0;
    cfg.disk.enabled = 0;
    ebb_config_strategy s;
    ebb_status st = ebb_config_strategy_from_name(strategy, &s);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = a->state_size;
    o.state_tier = EBB_TIER_GPU;
    o.stream = c->stream;
    o.steps = a->steps;
    o.config = &cfg;
    o.strategy = (int)s;
    o.slots = store_all ? 0 : a->slots;
    o.forward = fwd;
    o.reverse = rev;
    o.user = c;
    o.measure_costs = measure;
    memset(c->runs, 0, sizeof *c->runs * (size_t)a->steps);
    c->recomputed_s = 0;
    ebb_run *run = NULL;
    if (st == EBB_OK)
        st = ebb_run_create(&o, &run);
    if (st == EBB_OK)
        st = ebb_run_forward(run, x0, NULL);
    if (st == EBB_OK)
        st = ebb_run_reverse(run);
    cuda(c, cudaStreamSynchronize(c->stream));
    if (st == EBB_OK && f)
        st = ebb_run_step_times(run, f, NULL, a->steps);
    if (st != EBB_OK || c->err != cudaSuccess) {
        fail(r, strategy, st != EBB_OK ? ebb_last_error() : cudaGetErrorString(c->err));
        ebb_run_destroy(run);
        ebb_config_dispose(&cfg);
        return -1;
    }
    if (host_forward_s) {
        ebb_run_stats rs;
        ebb_run_stats_get(run, &rs);
        *host_forward_s = rs.forward_callback_s;
    }
    *gradient = XXH3_64bits(c->seen, (size_t)a->steps * sizeof *c->seen);
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    return 0;
}

/* The plain loop's forward steps, each between its own pair of events. */
static void plain_times(ctx *c, unsigned char *x, unsigned char *y, double *t)
{
    cudaEvent_t e0, e1;
    cuda(c, cudaEventCreate(&e0));
    cuda(c, cudaEventCreate(&e1));
    for (int64_t k = 0; k < c->a->steps && c->err == cudaSuccess; k++) {
        float ms = 0;
        cuda(c, cudaEventRecord(e0, c->stream));
        forward_work(c, k, x, y);
        cuda(c, cudaEventRecord(e1, c->stream));
        cuda(c, cudaEventSynchronize(e1));
        cuda(c, cudaEventElapsedTime(&ms, e0, e1));
        t[k] = 1e-3 * (double)ms;
        unsigned char *z = x;
        x = y;
        y = z;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

static int by_value(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* The median of the dear steps' values of v (dear 1) or of the others'. */
static double median_of(const gpu_measured_args *a, const double *v, int dear)
{
    double *w = malloc(sizeof *w * (size_t)a->steps);
    int64_t m = 0;
    for (int64_t k = 0; w && k < a->steps; k++)
        if ((k % a->dear_every == 0) == dear)
            w[m++] = v[k];
    double med = 0;
    if (m > 0) {
        qsort(w, (size_t)m, sizeof *w, by_value);
        med = w[m / 2];
    }
    free(w);
    return med;
}

int gpu_measured_run(const gpu_measured_args *a, gpu_measured_result *r)
{
    memset(r, 0, sizeof *r);
    if (a->steps < 2 || a->state_size < 16 || a->copies < 1 || a->dear_every < 1 ||
        a->dear_copies < 1 || a->slots < 2) {
        fail(r, "arguments", "steps >= 2, state_size >= 16, copies >= 1, slots >= 2");
        return -1;
    }
    ctx c = {.a = a};
    size_t s = a->state_size, n = (size_t)a->steps;
    unsigned char *x0 = NULL, *x = NULL, *y = NULL;
    double *plain = malloc(sizeof *plain * n), *f = malloc(sizeof *f * n),
           *ratio = malloc(sizeof *ratio * n);
    c.runs = calloc(n, sizeof *c.runs);
    cuda(&c, cudaSetDevice(a->device));
    cuda(&c, cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    cuda(&c, cudaMalloc((void **)&c.scratch, s));
    cuda(&c, cudaMalloc((void **)&x, s));
    cuda(&c, cudaMalloc((void **)&y, s));
    cuda(&c, cudaHostAlloc((void **)&x0, s, cudaHostAllocDefault));
    cuda(&c, cudaHostAlloc((void **)&c.bytes, 256, cudaHostAllocDefault));
    cuda(&c, cudaHostAlloc((void **)&c.seen, n * sizeof *c.seen, cudaHostAllocDefault));
    int rc = -1;
    if (c.err != cudaSuccess || !plain || !f || !ratio || !c.runs) {
        fail(r, "set-up", c.err != cudaSuccess ? cudaGetErrorString(c.err) : "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s; i++)
        x0[i] = (unsigned char)(i * 2654435761u >> 13);
    for (int i = 0; i < 256; i++)
        c.bytes[i] = (unsigned char)i;
    cuda(&c, cudaMemcpyAsync(x, x0, s, cudaMemcpyHostToDevice, c.stream));
    plain_times(&c, x, y, plain);
    if (c.err != cudaSuccess) {
        fail(r, "the plain loop", cudaGetErrorString(c.err));
        goto out;
    }
    c.plain = plain;
    if (run_once(&c, "store-all", 0, x0, NULL, &r->reference, NULL, r) != 0 ||
        run_once(&c, "online", 1, x0, f, &r->gradient_measured, &r->host_forward_s, r) != 0)
        goto out;
    r->recomputed_measured_s = c.recomputed_s;
    if (run_once(&c, "online", 0, x0, NULL, &r->gradient_plain, NULL, r) != 0)
        goto out;
    r->recomputed_plain_s = c.recomputed_s;
    for (size_t k = 0; k < n; k++)
        ratio[k] = plain[k] > 0 ? f[k] / plain[k] : 0;
    qsort(ratio, n, sizeof *ratio, by_value);
    r->ratio_min = ratio[0];
    r->ratio_median = ratio[n / 2];
    r->ratio_max = ratio[n - 1];
    r->plain_cheap_s = median_of(a, plain, 0);
    r->plain_dear_s = median_of(a, plain, 1);
    rc = 0;
out:
    cudaFreeHost(c.seen);
    cudaFreeHost(c.bytes);
    cudaFreeHost(x0);
    cudaFree(y);
    cudaFree(x);
    cudaFree(c.scratch);
    if (c.stream)
        cudaStreamDestroy(c.stream);
    free(c.runs);
    free(ratio);
    free(f);
    free(plain);
    return rc;
}
