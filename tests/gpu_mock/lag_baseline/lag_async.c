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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "cuda_mock.h"
#include "ebb/ebb.h"
#include "ebb/planner.h"

typedef struct args {
    int64_t steps;
    double forward_s, reverse_s;
    int32_t gpu_slots, host_slots;
    size_t state_size, model_size;
    double pcie_bps, d2d_bps, latency_s;
    const char *strategy;
    uint64_t queue_depth;
} args;

typedef struct ctx {
    const args *a;
    cudaStream_t stream;
    uint64_t *seen; /* 8 bytes of x_k, written by reverse step k's kernel */
} ctx;

/* A queued step: what its kernel does when the device finishes it. */
typedef struct step {
    const ctx *c;
    int64_t k;
    const unsigned char *in;
    unsigned char *out;
} step;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* x_{k+1} = x_k with byte (131 k mod S) set to k mod 256 */
static void forward_body(void *p)
{
    step *s = p;
    size_t n = s->c->a->state_size;
    if (s->out != s->in)
        memcpy(s->out, s->in, n);
    s->out[(size_t)(131 * s->k) % n] = (unsigned char)(s->k & 0xff);
    free(s);
}

static void reverse_body(void *p)
{
    step *s = p;
    size_t off = (size_t)(7919 * s->k) % (s->c->a->state_size - 8);
    memcpy(&s->c->seen[s->k], s->in + off, 8);
    free(s);
}

static int queue(ctx *c, double seconds, cudaHostFn_t body, int64_t k, const void *in, void *out)
{
    step *s = malloc(sizeof *s);
    if (!s)
        return ebb_callback_fail("out of memory");
    *s = (step){.c = c, .k = k, .in = in, .out = out};
    cuda_mock_kernel(c->stream, seconds, body, s);
    return EBB_STEP_OK;
}

static int fwd(void *user, int64_t k, const void *in, void *out)
{
    ctx *c = user;
    return queue(c, c->a->forward_s, forward_body, k, in, out);
}

static int rev(void *user, int64_t k, void *state)
{
    ctx *c = user;
    return queue(c, c->a->reverse_s, reverse_body, k, state, NULL);
}

typedef struct outcome {
    double wall_s, host_s, stall_s;
    int64_t forward_steps, recomputed;
    int64_t stores[EBB_TIER_COUNT];
    int32_t slots[EBB_TIER_COUNT];
    uint64_t gradient;
} outcome;

static int run_once(ctx *c, const char *strategy, int32_t gpu_slots, int32_t host_slots,
                    const void *x0, outcome *out)
{
    const args *a = c->a;
    ebb_config cfg;
    ebb_config_init_default(&cfg);
    cfg.gpu.enabled = 1;
    cfg.gpu.budget = (uint64_t)gpu_slots * a->state_size;
    cfg.host.enabled = host_slots > 0;
    cfg.host.budget = (uint64_t)(host_slots > 0 ? host_slots : 1) * a->state_size;
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
    o.forward = fwd;
    o.reverse = rev;
    o.user = c;
    ebb_run *run = NULL;
    memset(c->seen, 0, (size_t)a->steps * sizeof *c->seen);
    double t0 = now();
    if (st == EBB_OK)
        st = ebb_run_create(&o, &run);
    if (st == EBB_OK)
        st = ebb_run_forward(run, x0, NULL);
    if (st == EBB_OK)
        st = ebb_run_reverse(run);
    cudaError_t e = cudaStreamSynchronize(c->stream);
    out->wall_s = now() - t0;
    if (st != EBB_OK || e != cudaSuccess) {
        fprintf(stderr, "lag_async: %s: %s\n", strategy,
                st != EBB_OK ? ebb_last_error() : cudaGetErrorString(e));
        ebb_run_destroy(run);
        ebb_config_dispose(&cfg);
        return -1;
    }
    ebb_run_stats rs;
    ebb_run_stats_get(run, &rs);
    ebb_run_info info;
    ebb_run_info_get(run, &info);
    out->host_s = rs.wall_s;
    out->stall_s = rs.stall_total_s;
    out->forward_steps = rs.forward_steps;
    out->recomputed = rs.recomputed_steps;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        out->stores[t] = rs.stores[t];
        out->slots[t] = info.slots[t];
    }
    out->gradient = XXH3_64bits(c->seen, (size_t)a->steps * sizeof *c->seen);
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    return 0;
}

static int predict(const args *a, ebb_plan_prediction *p)
{
    ebb_plan_problem pb;
    ebb_plan_problem_init(&pb);
    pb.steps = a->steps;
    pb.state_size = a->model_size;
    pb.state_tier = EBB_TIER_GPU;
    pb.forward_s = a->forward_s;
    pb.reverse_s = a->reverse_s;
    pb.slots[EBB_TIER_GPU] = a->gpu_slots;
    pb.slots[EBB_TIER_HOST] = a->host_slots;
    for (int ch = EBB_PLAN_GPU_TO_HOST; ch <= EBB_PLAN_HOST_TO_GPU; ch++) {
        pb.channel[ch].bandwidth = a->pcie_bps;
        pb.channel[ch].latency = a->latency_s;
    }
    ebb_config_strategy s;
    if (ebb_config_strategy_from_name(a->strategy, &s) != EBB_OK ||
        ebb_plan_predict(&pb, s, p) != EBB_OK) {
        fprintf(stderr, "lag_async: planner: %s\n", ebb_last_error());
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    args a = {.steps = 1000, .forward_s = 0.564e-3, .reverse_s = 1.128e-3, .gpu_slots = 50,
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
    double scale = (double)a.state_size / (double)a.model_size;
    cuda_mock_set_mode(CUDA_MOCK_LAG);
    cuda_mock_set_copy_model(CUDA_MOCK_H2D, a.pcie_bps * scale, a.latency_s);
    cuda_mock_set_copy_model(CUDA_MOCK_D2H, a.pcie_bps * scale, a.latency_s);
    cuda_mock_set_copy_model(CUDA_MOCK_D2D, a.d2d_bps * scale, a.latency_s);
    cuda_mock_set_queue_depth(a.queue_depth);

    ctx c = {.a = &a};
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
    double t0 = now();
    for (int64_t k = 0; k < a.steps; k++)
        cuda_mock_kernel(c.stream, a.forward_s, NULL, NULL);
    for (int64_t k = 0; k < a.steps; k++)
        cuda_mock_kernel(c.stream, a.reverse_s, NULL, NULL);
    cudaStreamSynchronize(c.stream);
    double ideal = now() - t0, model_ideal = (double)a.steps * (a.forward_s + a.reverse_s);

    outcome ref, got;
    ebb_plan_prediction p;
    if (run_once(&c, "store-all", (int32_t)a.steps, 0, x0, &ref) != 0 ||
        run_once(&c, a.strategy, a.gpu_slots, a.host_slots, x0, &got) != 0 || predict(&a, &p))
        return 1;
    int exact = got.gradient == ref.gradient;
    printf("lag_async: %lld steps, %.3f / %.3f ms, %s, %d gpu + %d host slots, %zu-byte states "
           "timed as %zu (%.0f GB/s each way, %.0f us latency), queue depth %llu\n",
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
    printf("the run's host time (ebb's wall_s) %.3f s; store-all %.3f s; gradient %s\n",
           got.host_s, ref.wall_s, exact ? "exact" : "DIFFERS from store-all's");
    cudaFreeHost(x0);
    free(c.seen);
    cudaStreamDestroy(c.stream);
    return exact ? 0 : 1;
}
