/* Reading ahead up the hierarchy: with the live state on a (fake) GPU and
 * checkpoints in host slots, the reverse sweep copies the coming restores up
 * into spare GPU buffers ahead of their actions, several at once. The fake
 * runtime runs copies lazily (a copy completes only now and then), so at a
 * reverse step the host -> gpu copies still queued show how deep the read
 * ahead went; the adjoint stays bitwise store-all's. */
#include <cuda_runtime_api.h>

#include "cuda_mock.h"
#include "runtime/workload.h"

typedef struct {
    wl w;
    cudaStream_t stream;
    ebb_run *run;
    size_t most_in_flight; /* host -> gpu copies queued at a reverse step, the most seen */
} ctx;

static int forward(void *user, int64_t k, const void *in, void *out)
{
    ctx *c = user;
    /* the step as a synchronous "kernel": the stream is drained first */
    if (cudaStreamSynchronize(c->stream) != cudaSuccess)
        return 99;
    return wl_forward_cb(&c->w, k, in, out);
}

/* Copies queued into the run's gpu pool (the restores read ahead). */
static size_t copies_into_gpu(ebb_run *run)
{
    ebb_pool *g = ebb_run_debug_pool(run, EBB_TIER_GPU);
    ebb_pool_info info;
    cr_assert_eq(ebb_pool_info_get(g, &info), EBB_OK);
    size_t n = 0;
    for (int32_t s = 0; s < info.slots; s++) {
        void *p = NULL;
        cr_assert_eq(ebb_pool_slot_ptr(g, s, &p), EBB_OK);
        n += cuda_mock_pending_touching(p, info.slot_size) > 0;
    }
    return n;
}

static int reverse(void *user, int64_t k, void *state)
{
    ctx *c = user;
    size_t n = copies_into_gpu(c->run);
    if (n > c->most_in_flight)
        c->most_in_flight = n;
    if (cudaStreamSynchronize(c->stream) != cudaSuccess)
        return 99;
    return wl_reverse_cb(&c->w, k, state);
}

static void run_one(ebb_config_strategy strategy, uint64_t seed)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = 64ull << 20;
    cfg.disk.enabled = 0;
    cuda_mock_set_mode(CUDA_MOCK_LAZY);
    cuda_mock_set_seed(seed);
    cuda_mock_set_step_probability(0.05); /* copies finish late */
    ctx c = {0};
    cr_assert_eq(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking), cudaSuccess);
    const size_t size = 4096;
    const int64_t n = 200;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = size;
    o.state_tier = EBB_TIER_GPU;
    o.stream = c.stream;
    o.config = &cfg;
    o.strategy = (int)strategy;
    o.fast_tier = EBB_TIER_GPU;
    o.slow_tier = EBB_TIER_HOST;
    o.steps = n;
    o.slots = 3;
    o.slow_slots = 40;
    o.forward = forward;
    o.reverse = reverse;
    o.user = &c;
    wl_init(&c.w, size);
    unsigned char *h0 = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&h0, size, cudaHostAllocDefault), cudaSuccess);
    wl_x0(&c.w, h0, seed);
    cr_assert_eq(ebb_run_create(&o, &c.run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_forward(c.run, h0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(c.run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(cudaStreamSynchronize(c.stream), cudaSuccess);
    ebb_run_stats st;
    ebb_run_stats_get(c.run, &st);
    ebb_run_destroy(c.run);
    cudaFreeHost(h0);
    cr_assert_eq(c.w.adjoint, wl_reference(size, n, seed), "%s: the adjoint differs",
                 ebb_config_strategy_name(strategy));
    cr_assert_gt(st.restores[EBB_TIER_HOST], 10);
    cr_assert_gt(st.prefetches, st.restores[EBB_TIER_HOST] / 2,
                 "%s: %lld of %lld host restores copied up ahead",
                 ebb_config_strategy_name(strategy), (long long)st.prefetches,
                 (long long)st.restores[EBB_TIER_HOST]);
    cr_assert_geq(c.most_in_flight, 3, "%s: at most %zu restores were in flight at once",
                  ebb_config_strategy_name(strategy), c.most_in_flight);
    cudaStreamDestroy(c.stream);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(restores_in_flight, async_interval_starts) { run_one(EBB_CONFIG_STRATEGY_ASYNC, 5); }
Test(restores_in_flight, multistage_restores) { run_one(EBB_CONFIG_STRATEGY_MULTISTAGE, 6); }
