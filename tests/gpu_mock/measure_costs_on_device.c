/* ebb_run_options.measure_costs with a GPU state: its callbacks only queue
 * their work, so each step is timed on the device (two events on the
 * user's stream around it), the reverse sweep returning ahead of the
 * device as without measuring. On the fake runtime's lagging device each
 * forward step is a kernel of a known time (one in six 2 ms, the others
 * 0.1 ms) that the host queues in microseconds: the times ebb_run_step_times
 * gives are the kernels', not the host's, and online reverses each interval
 * by them, recomputing less kernel time than without measuring, n known or
 * not, its gradient bitwise store-all's. A device that cannot time a step
 * loses the times (ebb_run_step_times says why), not the run. */
#include <criterion/criterion.h>
#include <math.h>

#include "gpu_mock/lag_run.h"

enum { N = 48, LONG = 300 }; /* LONG: more steps than the timer's events (256 pairs) */

static double kernel_s(int64_t k) { return k % 6 == 0 ? 2e-3 : 0.1e-3; }
static const double reverse_kernel_s = 0.3e-3;

typedef struct timed {
    lag_ctx c;
    int64_t n;
    int runs[LONG];
    double recomputed_s; /* kernel time of every run of a step after its first */
    int unknown;         /* n unknown: step n - 1 says it is the last */
    double reverse_s;    /* each reverse step's kernel */
    int64_t fail_record; /* the first sweep's step after whose work the next
                            cudaEventRecord fails; -1: none */
} timed;

static int forward(void *user, int64_t k, const void *in, void *out)
{
    timed *t = user;
    if (t->runs[k]++)
        t->recomputed_s += kernel_s(k);
    int rc = lag_queue(&t->c, kernel_s(k), lag_forward_body, k, in, out);
    if (k == t->fail_record && t->runs[k] == 1)
        cuda_mock_fail_call("cudaEventRecord", 0, 1, cudaErrorInvalidValue);
    return rc == EBB_STEP_OK && t->unknown && k == t->n - 1 ? EBB_STEP_LAST : rc;
}

static int reverse(void *user, int64_t k, void *state)
{
    timed *t = user;
    return lag_queue(&t->c, t->reverse_s, lag_reverse_body, k, state, NULL);
}

static const lag_args args = {.steps = LONG, .state_size = 64u << 10};

/* A step timed on the device takes its kernel's time at least, and more by
 * what the device idled between the step's start and its kernel's (the
 * host's own time there: microseconds, more on a loaded machine); so every
 * time is within [kernel, kernel + 0.5 ms] and nearly all within 10 us + 2 %
 * of it. The host's clock gives microseconds: below every kernel. */
static void like_kernels(const char *what, const double *got, double (*want)(int64_t),
                         int64_t n)
{
    int close = 0;
    for (int64_t k = 0; k < n; k++) {
        double w = want(k);
        cr_assert(got[k] >= w - 1e-6 && got[k] <= w + 0.5e-3,
                  "%s step %lld: %g s, its kernel %g s", what, (long long)k, got[k], w);
        close += fabs(got[k] - w) <= 10e-6 + 0.02 * w;
    }
    cr_assert_geq(close, n - n / 8, "%s steps: %d of %lld within 10 us + 2 %% of their kernels",
                  what, close, (long long)n);
}

static double reverse_s(int64_t k)
{
    (void)k;
    return reverse_kernel_s;
}

typedef struct outcome {
    double recomputed_s;
    uint64_t gradient;
    double f[LONG], r[LONG];
    ebb_status times; /* ebb_run_step_times' status */
    size_t queued;    /* commands the device had not run when the reverse sweep returned */
    double reverse_s; /* in: each reverse step's kernel (0: reverse_kernel_s) */
    int64_t n;        /* in: the steps (0: N) */
    int32_t slots;    /* in: online's slots (0: 4) */
    int64_t fail_record; /* in: timed's (0: none) */
    char why[512];
} outcome;

/* A run's configuration (GPU slots for every state; a run asks for fewer)
 * and options: online over 4 GPU slots, measuring, the callbacks above on
 * t's stream. */
static void gpu_run(timed *t, int64_t steps, ebb_config *cfg, ebb_run_options *o)
{
    ebb_config_init_default(cfg);
    cfg->gpu.enabled = 1;
    cfg->gpu.budget = (uint64_t)(t->n + 1) * args.state_size;
    cfg->host.enabled = 0;
    cfg->disk.enabled = 0;
    ebb_run_options_init(o);
    o->state_size = args.state_size;
    o->state_tier = EBB_TIER_GPU;
    o->stream = t->c.stream;
    o->steps = steps;
    o->config = cfg;
    o->strategy = EBB_STRATEGY_ONLINE;
    o->slots = 4;
    o->forward = forward;
    o->reverse = reverse;
    o->user = t;
    o->measure_costs = 1;
}

static void run_once(const char *strategy, int measure, int unknown, outcome *out)
{
    int64_t n = out->n > 0 ? out->n : N;
    timed t = {.n = n,
               .unknown = unknown,
               .reverse_s = out->reverse_s > 0 ? out->reverse_s : reverse_kernel_s,
               .fail_record = out->fail_record > 0 ? out->fail_record : -1};
    t.c.a = &args;
    cr_assert_eq(cudaStreamCreateWithFlags(&t.c.stream, cudaStreamNonBlocking), cudaSuccess);
    t.c.seen = calloc(LONG, sizeof *t.c.seen);
    unsigned char *x0 = NULL;
    cr_assert_eq(cudaHostAlloc((void **)&x0, args.state_size, cudaHostAllocDefault), cudaSuccess);
    for (size_t i = 0; i < args.state_size; i++)
        x0[i] = (unsigned char)(i * 2654435761u >> 13);
    ebb_config cfg;
    ebb_run_options o;
    gpu_run(&t, unknown ? 0 : n, &cfg, &o);
    ebb_config_strategy s;
    cr_assert_eq(ebb_config_strategy_from_name(strategy, &s), EBB_OK);
    o.strategy = (int)s;
    o.slots = strcmp(strategy, "store-all") ? (out->slots > 0 ? out->slots : 4) : 0;
    o.measure_costs = measure;
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    out->queued = cuda_mock_pending();
    cr_assert_eq(cudaStreamSynchronize(t.c.stream), cudaSuccess);
    out->times = measure ? ebb_run_step_times(run, out->f, out->r, n) : EBB_OK;
    snprintf(out->why, sizeof out->why, "%s", out->times == EBB_OK ? "" : ebb_last_error());
    out->recomputed_s = t.recomputed_s;
    out->gradient = XXH3_64bits(t.c.seen, (size_t)n * sizeof *t.c.seen);
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    cudaFreeHost(x0);
    free(t.c.seen);
    cudaStreamDestroy(t.c.stream);
}

static void lag(void)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAG);
}

Test(measure_costs_on_device, times_are_the_kernels, .init = lag, .timeout = 60)
{
    outcome ref = {0}, got = {0};
    run_once("store-all", 0, 0, &ref);
    for (int unknown = 0; unknown <= 1; unknown++) {
        run_once("online", 1, unknown, &got);
        cr_assert_eq(got.times, EBB_OK, "%s", got.why);
        cr_assert_eq(got.gradient, ref.gradient, "n %s: the gradient differs from store-all's",
                     unknown ? "unknown" : "known");
        like_kernels("forward", got.f, kernel_s, N);
        like_kernels("reverse", got.r, reverse_s, N);
    }
}

/* More steps than the timer's 256 pairs of events: each pair's time is
 * read before the pair is used again (store-all, n known; online over 16
 * slots, n unknown). */
Test(measure_costs_on_device, more_steps_than_events, .init = lag, .timeout = 120)
{
    outcome ref = {.n = LONG}, got = {.n = LONG, .slots = 16};
    run_once("store-all", 1, 0, &ref);
    cr_assert_eq(ref.times, EBB_OK, "%s", ref.why);
    like_kernels("store-all's forward", ref.f, kernel_s, LONG);
    like_kernels("store-all's reverse", ref.r, reverse_s, LONG);
    run_once("online", 1, 1, &got);
    cr_assert_eq(got.times, EBB_OK, "%s", got.why);
    cr_assert_eq(got.gradient, ref.gradient, "the gradient differs from store-all's");
    like_kernels("online's forward", got.f, kernel_s, LONG);
    like_kernels("online's reverse", got.r, reverse_s, LONG);
}

/* The reverse times are read when asked: the sweep returns ahead of the
 * device, as without measuring (its 48 reverse kernels of 10 ms are still
 * queued then, unless the host took half a second to queue them). */
Test(measure_costs_on_device, the_reverse_sweep_does_not_wait, .init = lag, .timeout = 60)
{
    outcome got = {.reverse_s = 10e-3};
    run_once("online", 1, 0, &got);
    cr_assert_eq(got.times, EBB_OK, "%s", got.why);
    cr_assert_gt(got.queued, 0, "the reverse sweep waited for the device");
    for (int64_t k = 0; k < N; k++)
        cr_assert_geq(got.r[k], 10e-3 - 1e-6, "reverse step %lld: %g s", (long long)k, got.r[k]);
}

Test(measure_costs_on_device, online_recomputes_less, .init = lag, .timeout = 60)
{
    for (int unknown = 0; unknown <= 1; unknown++) {
        outcome measured = {0}, plain = {0};
        run_once("online", 1, unknown, &measured);
        run_once("online", 0, unknown, &plain);
        cr_log_info("n %s: %.4f s of kernels recomputed measuring, %.4f s not",
                    unknown ? "unknown" : "known", measured.recomputed_s, plain.recomputed_s);
        cr_assert_lt(measured.recomputed_s, plain.recomputed_s,
                     "n %s: %.4f s of kernels recomputed measuring, %.4f s not",
                     unknown ? "unknown" : "known", measured.recomputed_s, plain.recomputed_s);
        cr_assert_eq(measured.gradient, plain.gradient);
    }
}

/* A run whose times were lost (`call` failed): its gradient and
 * recomputation those of ref, the same run unmeasured; ebb_run_step_times
 * says why. */
static void times_lost(const outcome *ref, const outcome *got, const char *call)
{
    cr_assert_eq(got->gradient, ref->gradient);
    cr_assert_eq(got->recomputed_s, ref->recomputed_s, "the schedule untold: %g s against %g s",
                 got->recomputed_s, ref->recomputed_s);
    cr_assert_eq(got->times, EBB_ERR_IO);
    cr_assert(strstr(got->why, "timing a step on the device") && strstr(got->why, call) &&
                  strstr(got->why, "none are kept"),
              "%s", got->why);
}

Test(measure_costs_on_device, a_device_that_cannot_time_loses_the_times, .init = lag,
     .timeout = 60)
{
    outcome ref = {0}, got = {0};
    run_once("online", 0, 0, &ref);
    cuda_mock_fail_call("cudaEventElapsedTime", 5, 1, cudaErrorInvalidValue);
    run_once("online", 1, 0, &got);
    times_lost(&ref, &got, "cudaEventElapsedTime");
}

/* The step's end not recorded (cudaEventRecord fails after step 20's
 * work): the times are lost, the run is not. */
Test(measure_costs_on_device, a_failed_record_loses_the_times, .init = lag, .timeout = 60)
{
    outcome ref = {0}, got = {.fail_record = 20};
    run_once("online", 0, 0, &ref);
    run_once("online", 1, 0, &got);
    times_lost(&ref, &got, "cudaEventRecord");
}

/* Each cudaEventCreateWithFlags of ebb_run_create failing in turn (the
 * pools' and the timer's): a clear error each time, nothing left behind
 * (the ASan build), the timer's events named. */
Test(measure_costs_on_device, events_that_cannot_be_made_refuse_the_run, .init = lag,
     .timeout = 120)
{
    timed t = {.n = N, .fail_record = -1};
    t.c.a = &args;
    cr_assert_eq(cudaStreamCreateWithFlags(&t.c.stream, cudaStreamNonBlocking), cudaSuccess);
    ebb_config cfg;
    ebb_run_options o;
    gpu_run(&t, N, &cfg, &o);
    int timer = 0, skip = 0;
    for (;; skip++) {
        cuda_mock_fail_call("cudaEventCreateWithFlags", skip, 1, cudaErrorMemoryAllocation);
        ebb_run *run = NULL;
        ebb_status st = ebb_run_create(&o, &run);
        if (st == EBB_OK) {
            ebb_run_destroy(run);
            break;
        }
        cr_assert_null(run);
        cr_assert(strstr(ebb_last_error(), "cudaEventCreateWithFlags") ||
                      strstr(ebb_last_error(), "creating CUDA event"),
                  "event %d: %s", skip, ebb_last_error());
        if (strstr(ebb_last_error(), "timing the steps on the device")) {
            timer++;
            cr_assert_eq(st, EBB_ERR_UNSUPPORTED, "%s", ebb_last_error());
            cr_assert(strstr(ebb_last_error(), "measure_costs"), "%s", ebb_last_error());
        }
        ebb_clear_error();
    }
    cr_log_info("%d event creations failed in turn, %d of them the timer's", skip, timer);
    cr_assert_eq(timer, 2 * 256, "the timer's events: %d failures named it", timer);
    ebb_config_dispose(&cfg);
    cudaStreamDestroy(t.c.stream);
}

/* Pushed and pulled: the caller's work between two calls is the step's. */
Test(measure_costs_on_device, pushed_and_pulled_steps_are_timed, .init = lag, .timeout = 60)
{
    timed t = {0};
    t.c.a = &args;
    cr_assert_eq(cudaStreamCreateWithFlags(&t.c.stream, cudaStreamNonBlocking), cudaSuccess);
    t.n = N;
    t.fail_record = -1;
    t.c.seen = calloc(N, sizeof *t.c.seen);
    unsigned char *x[N + 1];
    for (int k = 0; k <= N; k++)
        cr_assert_eq(cudaMalloc((void **)&x[k], args.state_size), cudaSuccess);
    ebb_config cfg;
    ebb_run_options o;
    gpu_run(&t, N, &cfg, &o);
    o.reverse = NULL; /* pulled */
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_begin(run, x[0]), EBB_OK, "%s", ebb_last_error());
    for (int64_t k = 0; k < N; k++) {
        t.runs[k]++;
        cr_assert_eq(lag_queue(&t.c, kernel_s(k), lag_forward_body, k, x[k], x[k + 1]),
                     EBB_STEP_OK);
        cr_assert_eq(ebb_run_push(run, x[k + 1]), EBB_OK, "%s", ebb_last_error());
    }
    cr_assert_eq(ebb_run_finish_forward(run, NULL), EBB_OK, "%s", ebb_last_error());
    int64_t step;
    const void *state;
    while (1) {
        cr_assert_eq(ebb_run_reverse_next(run, &step, &state), EBB_OK, "%s", ebb_last_error());
        if (step < 0)
            break;
        cr_assert_eq(lag_queue(&t.c, reverse_kernel_s, lag_reverse_body, step, state, NULL),
                     EBB_STEP_OK);
    }
    cr_assert_eq(cudaStreamSynchronize(t.c.stream), cudaSuccess);
    double f[N], r[N];
    cr_assert_eq(ebb_run_step_times(run, f, r, N), EBB_OK, "%s", ebb_last_error());
    like_kernels("pushed", f, kernel_s, N);
    like_kernels("pulled", r, reverse_s, N);
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    for (int k = 0; k <= N; k++)
        cudaFree(x[k]);
    free(t.c.seen);
    cudaStreamDestroy(t.c.stream);
}
