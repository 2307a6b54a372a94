/* Exactness with the live state on a (fake) GPU: the steps run as "kernels"
 * queued on the user's stream (cudaLaunchHostFunc in the fake runtime, run
 * lazily and in random order against ebb's copy streams), so a missing event
 * wait or stream ordering in the runtime shows up as a wrong adjoint. Slots
 * on the gpu, on the host and on disk (gpu -> host -> disk), and the
 * asynchronous strategy's cascade over the three. */
#include <cuda_runtime_api.h>

#include "cuda_mock.h"
#include "runtime/workload.h"

typedef struct job {
    wl *w;
    int64_t k;
    const void *in;
    void *out;
    int reverse;
} job;

typedef struct {
    wl w;
    cudaStream_t stream;
    job *jobs;
    size_t njobs, cap;
    int sync_forward; /* each forward step waits for the stream (a device that keeps up) */
} gctx;

static void CUDART_CB run_job(void *p)
{
    job *j = p;
    if (!j->reverse) {
        wl_step(j->w, j->k, j->in, j->out);
        return;
    }
    j->w->adjoint = XXH3_64bits_withSeed(j->out, j->w->size, j->w->adjoint ^ (uint64_t)j->k);
    memset(j->out, 0xa5, j->w->size);
}

static int queue(gctx *g, int64_t k, const void *in, void *out, int reverse)
{
    cr_assert_lt(g->njobs, g->cap);
    job *j = &g->jobs[g->njobs++];
    *j = (job){&g->w, k, in, out, reverse};
    return cudaLaunchHostFunc(g->stream, run_job, j) == cudaSuccess ? EBB_STEP_OK : 99;
}

static int gpu_forward(void *user, int64_t k, const void *in, void *out)
{
    gctx *g = user;
    g->w.forward_calls++;
    int rc = queue(g, k, in, out, 0);
    if (rc == EBB_STEP_OK && g->sync_forward && cudaStreamSynchronize(g->stream) != cudaSuccess)
        rc = 98;
    return rc;
}

static int gpu_forward_inplace(void *user, int64_t k, void *state)
{
    ((gctx *)user)->w.forward_calls++;
    return queue(user, k, state, state, 0);
}

static int gpu_reverse(void *user, int64_t k, void *state)
{
    ((gctx *)user)->w.reverse_calls++;
    return queue(user, k, NULL, state, 1);
}

typedef struct {
    ebb_config_strategy strategy;
    int fast, slow;
} shape;

static const shape shapes[] = {
    {EBB_CONFIG_STRATEGY_STORE_ALL, EBB_TIER_GPU, -1},
    {EBB_CONFIG_STRATEGY_REVOLVE, EBB_TIER_GPU, -1},
    {EBB_CONFIG_STRATEGY_ONLINE, EBB_TIER_GPU, -1},
    {EBB_CONFIG_STRATEGY_PERIODIC, EBB_TIER_GPU, -1},
    {EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_TIER_GPU, EBB_TIER_HOST},
    {EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_TIER_GPU, EBB_TIER_DISK},
    {EBB_CONFIG_STRATEGY_DISK_REVOLVE, EBB_TIER_GPU, EBB_TIER_HOST},
    {EBB_CONFIG_STRATEGY_DISK_REVOLVE, EBB_TIER_GPU, EBB_TIER_DISK},
    {EBB_CONFIG_STRATEGY_REVOLVE, EBB_TIER_HOST, -1},
    {EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_TIER_HOST, EBB_TIER_DISK},
    /* async: gpu -> host -> disk cascade, gpu -> disk, host -> disk */
    {EBB_CONFIG_STRATEGY_ASYNC, EBB_TIER_GPU, -1},
    {EBB_CONFIG_STRATEGY_ASYNC, EBB_TIER_GPU, EBB_TIER_DISK},
    {EBB_CONFIG_STRATEGY_ASYNC, EBB_TIER_HOST, -1},
};

static void run_cases(uint64_t seed, int cases, int inplace, int audit)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 64ull << 20;
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 7;
    int ran = 0;
    gctx g = {.cap = 200000};
    g.jobs = malloc(g.cap * sizeof *g.jobs);
    cr_assert_not_null(g.jobs);
    cr_assert_eq(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), cudaSuccess);
    for (int c = 0; c < cases; c++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const shape *sh = &shapes[x % (sizeof shapes / sizeof *shapes)];
        size_t size = 8 + (size_t)((x >> 8) % 700);
        int64_t n = 1 + (int64_t)((x >> 20) % 90);
        int32_t slots = 1 + (int32_t)((x >> 30) % 6);
        ebb_run_options o;
        ebb_run_options_init(&o);
        o.state_size = size;
        o.state_tier = EBB_TIER_GPU;
        o.stream = g.stream;
        o.config = &cfg;
        o.strategy = (int)sh->strategy;
        o.fast_tier = sh->fast;
        o.slow_tier = sh->slow;
        o.steps = n;
        o.slots = sh->strategy == EBB_CONFIG_STRATEGY_STORE_ALL   ? (int32_t)(n > 1 ? n - 1 : 1)
                  : sh->strategy == EBB_CONFIG_STRATEGY_PERIODIC ? (int32_t)n
                                                                  : slots;
        o.slow_slots = 2 + (int32_t)((x >> 40) % 30);
        o.io_ratio = 2;
        o.audit = audit ? EBB_AUDIT_HASH : EBB_AUDIT_OFF;
        if (inplace)
            o.forward_inplace = gpu_forward_inplace;
        else
            o.forward = gpu_forward;
        o.reverse = gpu_reverse;
        o.user = &g;
        wl_init(&g.w, size);
        g.njobs = 0;
        unsigned char *h0 = NULL;
        cr_assert_eq(cudaHostAlloc((void **)&h0, size, cudaHostAllocDefault), cudaSuccess);
        wl_x0(&g.w, h0, seed + (uint64_t)c);
        void *d0 = NULL;
        cr_assert_eq(cudaMalloc(&d0, size), cudaSuccess);
        cr_assert_eq(cudaMemcpyAsync(d0, h0, size, cudaMemcpyHostToDevice, g.stream), cudaSuccess);
        cr_assert_eq(cudaStreamSynchronize(g.stream), cudaSuccess);
        ebb_run *run = NULL;
        ebb_status st = ebb_run_create(&o, &run);
        if (st == EBB_ERR_INVALID_ARG || st == EBB_ERR_NO_MEMORY) {
            cudaFree(d0);
            cudaFreeHost(h0);
            continue;
        }
        cr_assert_eq(st, EBB_OK, "case %d: %s", c, ebb_last_error());
        void *xn = NULL;
        st = ebb_run_forward(run, d0, &xn);
        cr_assert_eq(st, EBB_OK, "case %d: %s", c, ebb_last_error());
        st = ebb_run_reverse(run);
        cr_assert_eq(st, EBB_OK, "case %d: %s", c, ebb_last_error());
        cr_assert_eq(cudaStreamSynchronize(g.stream), cudaSuccess);
        ebb_run_destroy(run);
        cudaFree(d0);
        cudaFreeHost(h0);
        uint64_t want = wl_reference(size, n, seed + (uint64_t)c);
        cr_assert_eq(g.w.adjoint, want,
                     "case %d: n %lld, size %zu, %s, fast %s, slow %s, %d slots, %d slow, %s",
                     c, (long long)n, size, ebb_config_strategy_name(sh->strategy),
                     ebb_tier_name((ebb_tier)sh->fast),
                     sh->slow >= 0 ? ebb_tier_name((ebb_tier)sh->slow) : "-", o.slots,
                     o.slow_slots, inplace ? "in place" : "out of place");
        cr_assert_eq(g.w.reverse_calls, n);
        ran++;
    }
    cr_assert_gt(ran, cases / 2, "only %d of %d cases ran", ran, cases);
    cudaStreamDestroy(g.stream);
    free(g.jobs);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

/* The three-tier cascade: states go gpu -> host, the host's oldest on to
 * disk, and come back disk -> host -> gpu; the adjoint stays exact. */
Test(runtime_gpu_exact, async_cascade_reaches_disk)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 64ull << 20;
    gctx g = {.cap = 200000, .sync_forward = 1};
    g.jobs = malloc(g.cap * sizeof *g.jobs);
    cr_assert_eq(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), cudaSuccess);
    const size_t size = 4096;
    const int64_t n = 300;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = size;
    o.state_tier = EBB_TIER_GPU;
    o.stream = g.stream;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_ASYNC;
    o.steps = n;
    o.slots = 3;
    o.slow_slots = 4; /* host: the 4 most recent; the rest on disk */
    char trace[] = "/tmp/ebb-gpu-trace-XXXXXX";
    close(mkstemp(trace));
    o.trace = trace; /* the timeline shows the GPU channels */
    o.forward = gpu_forward;
    o.reverse = gpu_reverse;
    o.user = &g;
    wl_init(&g.w, size);
    g.njobs = 0;
    unsigned char *h0 = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&h0, size, cudaHostAllocDefault), cudaSuccess);
    wl_x0(&g.w, h0, 11);
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    ebb_run_info info;
    ebb_run_info_get(run, &info);
    cr_assert_str_eq(info.strategy_name, "async");
    cr_assert_eq(info.slots[EBB_TIER_GPU], 3);
    cr_assert_eq(info.slots[EBB_TIER_HOST], 4);
    cr_assert_gt(info.slots[EBB_TIER_DISK], 0);
    cr_assert_eq(ebb_run_forward(run, h0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(cudaStreamSynchronize(g.stream), cudaSuccess);
    ebb_run_stats rs;
    ebb_run_stats_get(run, &rs);
    ebb_run_destroy(run);
    cudaFreeHost(h0);
    cr_assert_eq(g.w.adjoint, wl_reference(size, n, 11));
    cr_assert_gt(rs.stores[EBB_TIER_HOST], 4, "%lld host stores", (long long)rs.stores[EBB_TIER_HOST]);
    cr_assert_gt(rs.bytes_written[EBB_TIER_DISK], 0, "nothing was evicted to disk");
    cr_assert_gt(rs.bytes_read[EBB_TIER_DISK], 0, "nothing came back from disk");
    FILE *f = fopen(trace, "r");
    cr_assert_not_null(f);
    static char text[1 << 22];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    unlink(trace);
    const char *tracks[] = {"{\"name\": \"gpu -> host\", \"cat\"",
                            "{\"name\": \"host -> gpu\", \"cat\"",
                            "{\"name\": \"host -> disk\", \"cat\""};
    for (size_t t = 0; t < sizeof tracks / sizeof *tracks; t++)
        cr_assert(strstr(text, tracks[t]), "no %s transfer on the timeline", tracks[t]);
    /* a disk RESTORE whose state a host buffer still held reads nothing */
    int reads = rs.restores[EBB_TIER_DISK] > rs.cache_hits;
    cr_assert_eq(strstr(text, "{\"name\": \"disk -> host\", \"cat\"") != NULL, reads,
                 "%lld disk restores, %lld from host buffers, but disk reads on the timeline: %s",
                 (long long)rs.restores[EBB_TIER_DISK], (long long)rs.cache_hits,
                 reads ? "none" : "some");
    cudaStreamDestroy(g.stream);
    free(g.jobs);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(runtime_gpu_exact, out_of_place) { run_cases(1, 80, 0, 0); }
Test(runtime_gpu_exact, in_place) { run_cases(2, 60, 1, 0); }
Test(runtime_gpu_exact, hash_audit) { run_cases(3, 30, 0, 1); }
