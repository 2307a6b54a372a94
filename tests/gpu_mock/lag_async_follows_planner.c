/* The asynchronous strategy on a device that lags the host (the fake
 * runtime's lag mode, lag_run.h) stores and recomputes what the planner
 * predicts for the same problem, and takes its time: within 5 % of the
 * planner's stored states and wall time, in the two gpu_async scenarios of
 * benchmarks/RESULTS.md (the H200 one, where every state goes to the host
 * and nothing is recomputed, and the default one, where the host channel is
 * busy for every other state). Gradients equal store-all's. The host runs
 * ahead of the device as far as it likes: the decisions must follow the
 * device, not the host. */
#include <criterion/criterion.h>
#include <math.h>

#include "gpu_mock/lag_run.h"

static void follows(lag_args a)
{
    cuda_mock_set_devices(1);
    lag_model_rates(&a, 0);
    lag_ctx c = {.a = &a};
    unsigned char *x0 = NULL;
    cr_assert_eq(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaHostAlloc((void **)&x0, a.state_size, cudaHostAllocDefault), cudaSuccess);
    c.seen = calloc((size_t)a.steps, sizeof *c.seen);
    cr_assert(c.seen);
    for (size_t i = 0; i < a.state_size; i++)
        x0[i] = (unsigned char)(i * 2654435761u >> 13);
    lag_outcome ref, got;
    ebb_plan_prediction p;
    cr_assert_eq(lag_run_once(&c, "store-all", (int32_t)a.steps, 0, x0, &ref), 0);
    cr_assert_eq(lag_run_once(&c, "async", a.gpu_slots, a.host_slots, x0, &got), 0);
    cr_assert_eq(lag_predict(&a, &p), 0);
    cr_assert_eq(got.gradient, ref.gradient, "the gradient differs from store-all's");
    double stored = (double)p.stores[EBB_TIER_HOST], tol = 0.05 * stored;
    cr_log_info("planner: %lld host stores, %lld recomputed, %.3f s; lag run: %lld, %lld, %.3f s",
                (long long)p.stores[EBB_TIER_HOST], (long long)p.recomputed_steps,
                p.predicted_s, (long long)got.stores[EBB_TIER_HOST], (long long)got.recomputed,
                got.wall_s);
    cr_expect_leq(fabs((double)got.stores[EBB_TIER_HOST] - stored), tol,
                  "host stores: %lld, the planner's %lld", (long long)got.stores[EBB_TIER_HOST],
                  (long long)p.stores[EBB_TIER_HOST]);
    cr_expect_leq(fabs((double)got.recomputed - (double)p.recomputed_steps), tol,
                  "recomputed: %lld, the planner's %lld", (long long)got.recomputed,
                  (long long)p.recomputed_steps);
    cr_expect_leq(fabs(got.wall_s - p.predicted_s), 0.05 * p.predicted_s,
                  "wall %.3f s, the planner's %.3f s", got.wall_s, p.predicted_s);
    cudaFreeHost(x0);
    free(c.seen);
    cudaStreamDestroy(c.stream);
}

static const lag_args H200 = {.steps = 1000, .forward_s = 0.564e-3, .reverse_s = 1.128e-3,
                              .gpu_slots = 50, .host_slots = 1000, .state_size = 64u << 10,
                              .model_size = 16u << 20, .pcie_bps = 55e9, .d2d_bps = 2.4e12,
                              .latency_s = 5e-6, .strategy = "async"};

Test(lag_async, every_state_to_the_host, .timeout = 120)
{
    follows(H200);
}

Test(lag_async, host_channel_busy_half_the_time, .timeout = 120)
{
    lag_args a = H200;
    a.forward_s = 0.1411e-3;
    a.reverse_s = 0.2822e-3;
    a.host_slots = 64;
    follows(a);
}
