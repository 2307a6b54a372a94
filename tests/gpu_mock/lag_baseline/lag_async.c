/*
 * lag_async: the asynchronous strategy with a GPU state on the fake CUDA
 * runtime's lag mode (tests/cuda_mock/cuda_mock.h), where the forward and
 * reverse steps are kernels the device runs after the host queued them, as
 * on a GPU; against the planner's prediction for the same problem. Prints
 * figures; not a test (it is not registered with ctest).
 *
 *   lag_async [--steps N] [--forward-ms F] [--reverse-ms B] [--gpu-slots G]
 *             [--host-slots H] [--state-size BYTES] [--model-size BYTES]
 *             [--pcie-gbps R] [--d2d-gbps R] [--latency-us L] [--strategy S]
 *             [--queue-depth C]
 *
 * Defaults: the H200 scenario of benchmarks/RESULTS.md, 1,000 steps of
 * 0.564 / 1.128 ms, 50 gpu and 1,000 host slots, 16 MiB states over 55 GB/s
 * each way, no limit on the commands a stream holds (--queue-depth C: a
 * launch waits while the stream holds C, as into a GPU's full queue, so
 * the host runs fewer steps ahead). The states really moved are --state-size bytes (64 KiB: the fake
 * device is host memory); every rate is scaled by state-size / model-size,
 * so that each copy takes the time of a --model-size copy, and the planner
 * is asked about --model-size states at the unscaled rates. Exit 0 when the
 * gradient equals store-all's (every state in a gpu slot).
 */
#include <getopt.h>

#include "gpu_mock/lag_run.h"

int main(int argc, char **argv)
{
    lag_args a = {.steps = 1000, .forward_s = 0.564e-3, .reverse_s = 1.128e-3, .gpu_slots = 50,
              .host_slots = 1000, .state_size = 64u << 10, .model_size = 16u << 20,
              .pcie_bps = 55e9, .d2d_bps = 2.4e12, .latency_s = 5e-6, .strategy = "async"};
    static const struct option opts[] = {
        {"steps", required_argument, 0, 'n'},      {"forward-ms", required_argument, 0, 'f'},
        {"reverse-ms", required_argument, 0, 'b'}, {"gpu-slots", required_argument, 0, 'g'},
        {"host-slots", required_argument, 0, 'h'}, {"state-size", required_argument, 0, 's'},
        {"model-size", required_argument, 0, 'm'}, {"pcie-gbps", required_argument, 0, 'p'},
        {"d2d-gbps", required_argument, 0, 'd'},   {"latency-us", required_argument, 0, 'l'},
        {"strategy", required_argument, 0, 'S'},   {"queue-depth", required_argument, 0, 'q'},
        {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 'n': a.steps = atoll(optarg); break;
        case 'f': a.forward_s = atof(optarg) * 1e-3; break;
        case 'b': a.reverse_s = atof(optarg) * 1e-3; break;
        case 'g': a.gpu_slots = atoi(optarg); break;
        case 'h': a.host_slots = atoi(optarg); break;
        case 's': a.state_size = (size_t)strtoull(optarg, NULL, 0); break;
        case 'm': a.model_size = (size_t)strtoull(optarg, NULL, 0); break;
        case 'p': a.pcie_bps = atof(optarg) * 1e9; break;
        case 'd': a.d2d_bps = atof(optarg) * 1e9; break;
        case 'l': a.latency_s = atof(optarg) * 1e-6; break;
        case 'S': a.strategy = optarg; break;
        case 'q': a.queue_depth = strtoull(optarg, NULL, 10); break;
        default: fprintf(stderr, "lag_async: see the comment at the top of lag_async.c\n"); return 2;
        }
    }
    if (a.steps < 2 || a.state_size < 16 || a.model_size < a.state_size) {
        fprintf(stderr, "lag_async: steps >= 2, state-size >= 16, model-size >= state-size\n");
        return 2;
    }
    lag_model_rates(&a, a.queue_depth);

    lag_ctx c = {.a = &a};
    unsigned char *x0 = NULL;
    if (cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaHostAlloc((void **)&x0, a.state_size, cudaHostAllocDefault) != cudaSuccess ||
        !(c.seen = calloc((size_t)a.steps, sizeof *c.seen))) {
        fprintf(stderr, "lag_async: set-up failed\n");
        return 1;
    }
    for (size_t i = 0; i < a.state_size; i++)
        x0[i] = (unsigned char)(i * 2654435761u >> 13);

    /* ideal: the kernels alone, back to back on the device */
    double t0 = lag_clock();
    for (int64_t k = 0; k < a.steps; k++)
        cuda_mock_kernel(c.stream, a.forward_s, NULL, NULL);
    for (int64_t k = 0; k < a.steps; k++)
        cuda_mock_kernel(c.stream, a.reverse_s, NULL, NULL);
    cudaStreamSynchronize(c.stream);
    double ideal = lag_clock() - t0, model_ideal = (double)a.steps * (a.forward_s + a.reverse_s);

    lag_outcome ref, got;
    ebb_plan_prediction p;
    if (lag_run_once(&c, "store-all", (int32_t)a.steps, 0, x0, &ref) != 0 ||
        lag_run_once(&c, a.strategy, a.gpu_slots, a.host_slots, x0, &got) != 0 || lag_predict(&a, &p))
        return 1;
    int exact = got.gradient == ref.gradient;
    printf("lag_async: %lld steps, %.3f / %.3f ms, %s, %d gpu + %d host slots, %zu-byte states "
           "timed as %zu (%.0f GB/s each way, %.0f us latency), lag_queue depth %llu\n",
           (long long)a.steps, a.forward_s * 1e3, a.reverse_s * 1e3, a.strategy,
           got.slots[EBB_TIER_GPU], got.slots[EBB_TIER_HOST], a.state_size, a.model_size,
           a.pcie_bps / 1e9, a.latency_s * 1e6, (unsigned long long)a.queue_depth);
    printf("ideal n(f+b) %.3f s; the kernels alone on the mock %.3f s\n", model_ideal, ideal);
    printf("%-9s %8s %8s %10s %10s %10s %10s %8s\n", "", "wall s", "ideal x", "fwd steps",
           "recomputed", "gpu stores", "host stores", "stall s");
    printf("%-9s %8.3f %8.3f %10lld %10lld %10lld %10lld %8.3f\n", "planner", p.predicted_s,
           p.predicted_s / model_ideal, (long long)p.forward_steps, (long long)p.recomputed_steps,
           (long long)p.stores[EBB_TIER_GPU], (long long)p.stores[EBB_TIER_HOST], p.stall_s);
    printf("%-9s %8.3f %8.3f %10lld %10lld %10lld %10lld %8.3f\n", "lag run", got.wall_s,
           got.wall_s / model_ideal, (long long)got.forward_steps, (long long)got.recomputed,
           (long long)got.stores[EBB_TIER_GPU], (long long)got.stores[EBB_TIER_HOST],
           got.stall_s);
    printf("stall by tier: gpu %.3f host %.3f disk %.3f s\n", got.stall_tier[EBB_TIER_GPU], got.stall_tier[EBB_TIER_HOST], got.stall_tier[EBB_TIER_DISK]);
    printf("the run's host time (ebb's wall_s) %.3f s; store-all %.3f s; gradient %s\n",
           got.host_s, ref.wall_s, exact ? "exact" : "DIFFERS from store-all's");
    cudaFreeHost(x0);
    free(c.seen);
    cudaStreamDestroy(c.stream);
    return exact ? 0 : 1;
}
