/* The asynchronous strategy with a gpu state on the fake CUDA runtime's lag
 * mode (cuda_mock.h), where each forward and reverse step is one kernel the
 * mock's device completes on its own clock while the host runs ahead, as on
 * a GPU; and the planner's prediction for the same problem. Shared by the
 * test lag_async_follows_planner and the program lag_baseline/lag_async (a
 * header: only *.c files here are tests). The states really moved are
 * state_size bytes; lag_model_rates scales every rate by state_size /
 * model_size, so that each copy takes the time of a model_size copy, and the
 * planner is asked about model_size states at the unscaled rates. */
#ifndef EBB_TESTS_GPU_MOCK_LAG_RUN_H
#define EBB_TESTS_GPU_MOCK_LAG_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "cuda_mock.h"
#include "ebb/ebb.h"
#include "ebb/planner.h"

typedef struct lag_args {
    int64_t steps;
    double forward_s, reverse_s;
    int32_t gpu_slots, host_slots;
    size_t state_size, model_size;
    double pcie_bps, d2d_bps, latency_s;
    const char *strategy;
    uint64_t queue_depth;
} lag_args;

typedef struct lag_ctx {
    const lag_args *a;
    cudaStream_t stream;
    uint64_t *seen; /* 8 bytes of x_k, written by reverse step k's kernel */
} lag_ctx;

/* A queued step: what its kernel does when the device finishes it. */
typedef struct lag_step {
    const lag_ctx *c;
    int64_t k;
    const unsigned char *in;
    unsigned char *out;
} lag_step;

static inline double lag_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* x_{k+1} = x_k with byte (131 k mod S) set to k mod 256 */
static inline void lag_forward_body(void *p)
{
    lag_step *s = p;
    size_t n = s->c->a->state_size;
    if (s->out != s->in)
        memcpy(s->out, s->in, n);
    s->out[(size_t)(131 * s->k) % n] = (unsigned char)(s->k & 0xff);
    free(s);
}

static inline void lag_reverse_body(void *p)
{
    lag_step *s = p;
    size_t off = (size_t)(7919 * s->k) % (s->c->a->state_size - 8);
    memcpy(&s->c->seen[s->k], s->in + off, 8);
    free(s);
}

static inline int lag_queue(lag_ctx *c, double seconds, cudaHostFn_t body, int64_t k, const void *in, void *out)
{
    lag_step *s = malloc(sizeof *s);
    if (!s)
        return ebb_callback_fail("out of memory");
    *s = (lag_step){.c = c, .k = k, .in = in, .out = out};
    cuda_mock_kernel(c->stream, seconds, body, s);
    return EBB_STEP_OK;
}

static inline int lag_fwd(void *user, int64_t k, const void *in, void *out)
{
    lag_ctx *c = user;
    return lag_queue(c, c->a->forward_s, lag_forward_body, k, in, out);
}

static inline int lag_rev(void *user, int64_t k, void *state)
{
    lag_ctx *c = user;
    return lag_queue(c, c->a->reverse_s, lag_reverse_body, k, state, NULL);
}

typedef struct lag_outcome {
    double wall_s, host_s, stall_s, stall_tier[EBB_TIER_COUNT];
    int64_t forward_steps, recomputed;
    int64_t stores[EBB_TIER_COUNT];
    int32_t slots[EBB_TIER_COUNT];
    uint64_t gradient;
} lag_outcome;

static inline int lag_run_once(lag_ctx *c, const char *strategy, int32_t gpu_slots, int32_t host_slots,
                    const void *x0, lag_outcome *out)
{
    const lag_args *a = c->a;
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
    o.forward = lag_fwd;
    o.reverse = lag_rev;
    o.user = c;
    o.trace = strcmp(strategy, "store-all") ? getenv("LAG_ASYNC_TRACE") : NULL;
    ebb_run *run = NULL;
    memset(c->seen, 0, (size_t)a->steps * sizeof *c->seen);
    if (st == EBB_OK)
        st = ebb_run_create(&o, &run);
    double t0 = lag_clock(); /* the sweeps, not the pools' set-up */
    if (st == EBB_OK)
        st = ebb_run_forward(run, x0, NULL);
    if (st == EBB_OK)
        st = ebb_run_reverse(run);
    cudaError_t e = cudaStreamSynchronize(c->stream);
    out->wall_s = lag_clock() - t0;
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
        out->stall_tier[t] = rs.stall_s[t];
    }
    out->gradient = XXH3_64bits(c->seen, (size_t)a->steps * sizeof *c->seen);
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    return 0;
}

static inline int lag_predict(const lag_args *a, ebb_plan_prediction *p)
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

/* Lag mode with the copy engines timed for model_size states. */
static inline void lag_model_rates(const lag_args *a, uint64_t queue_depth)
{
    double scale = (double)a->state_size / (double)a->model_size;
    cuda_mock_set_mode(CUDA_MOCK_LAG);
    cuda_mock_set_copy_model(CUDA_MOCK_H2D, a->pcie_bps * scale, a->latency_s);
    cuda_mock_set_copy_model(CUDA_MOCK_D2H, a->pcie_bps * scale, a->latency_s);
    cuda_mock_set_copy_model(CUDA_MOCK_D2D, a->d2d_bps * scale, a->latency_s);
    cuda_mock_set_queue_depth(queue_depth);
}

#endif
