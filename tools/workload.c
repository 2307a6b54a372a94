/*
 * `ebb run`: the synthetic workload and the driver of one run.
 *
 * A pass turns a state into another of the same size: word j of the output
 * is mix64(in[j] ^ rotl(in[j+1], 7) ^ key) (the last word takes word 0 as its
 * neighbour; the tail bytes of a size that is not a multiple of 8 are mixed
 * with word 0), so every input byte changes the output. A pass may run in
 * place with the same result. A forward step is P passes (P fixed at
 * calibration), the first from `in` to `out`, the others on `out`; the
 * in-place form runs the same P passes on the state, so both forms compute
 * the same states. A reverse step runs Q passes on a scratch buffer (its
 * compute time) and folds the state into the adjoint:
 *     adjoint = XXH3_64bits_withSeed(x_i, size, adjoint ^ i)
 * starting from the hash of x_n, so the final adjoint (the "gradient")
 * depends on every state and on their order.
 *
 * With float states (--data smooth|sparse|rough) a run may also compute a
 * numeric gradient (workload_request.field_gradient): that of
 * J = 1/2 sum_{i=0..n} |x_i|^2 with respect to x_0. A pass is
 * out = a in + b delta, so step i's Jacobian is A_i (the product of its
 * passes' a) times the identity, and the reverse step folds
 *     g = A_i g + x_i          (in double, from g = x_n)
 * exactly as an adjoint would. Equal states give a bitwise equal g; a lossy
 * tier's changed states give a g whose distance from the exact run's is the
 * error `ebb run` reports (docs/compression.md).
 */
#include "tools/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "ebb/ebb.h"
#include "tools/cli.h"
#include "tools/state_data.h"

enum { X0_SEED = 0x0ebb5eed, LOSS_SEED = 0x10551055 };

/* The share of a step's asked time its passes fill (workload_calibrate). */
#define STEP_FILL 0.7

/* Until `end`: the rest of a step's asked time (a wait that computes nothing). */
static void wait_until(double end)
{
    while (cli_now() < end)
        ;
}

static inline uint64_t mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= UINT64_C(0xbf58476d1ce4e5b9);
    z ^= z >> 27;
    z *= UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t rotl7(uint64_t x) { return x << 7 | x >> 57; }

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

/* One pass from `in` to `out` (which may be `in`). Word j is read before
 * word j is written and word j+1 before word j+1 is, and word 0 and the tail
 * are read first, so in place gives the same bytes as out of place. */
static void pass(const unsigned char *in, unsigned char *out, size_t size, uint64_t key)
{
    size_t m = size / 8, tail = size % 8;
    uint64_t first = m ? load64(in) : key;
    unsigned char t[8];
    memcpy(t, in + 8 * m, tail);
    for (size_t j = 0; j + 1 < m; j++)
        store64(out + 8 * j, mix64(load64(in + 8 * j) ^ rotl7(load64(in + 8 * (j + 1))) ^ key));
    if (m)
        store64(out + 8 * (m - 1), mix64(load64(in + 8 * (m - 1)) ^ rotl7(first) ^ key));
    for (size_t k = 0; k < tail; k++)
        out[8 * m + k] = (unsigned char)mix64(first ^ key ^ ((uint64_t)t[k] << 8 * k) ^ k);
}

/* One pass as the plan's data wants it: mixed bytes, or a smooth, sparse or
 * rough field updated (state_data.c). */
static void step_pass(const workload_plan *plan, const unsigned char *in, unsigned char *out,
                      uint64_t key)
{
    if (plan->data == STATE_DATA_RANDOM)
        pass(in, out, plan->size, key);
    else
        state_data_step(in, out, plan->size, (ebb_element)plan->element, (state_data)plan->data,
                        key);
}

static uint64_t pass_key(int64_t step, int64_t p)
{
    return mix64((uint64_t)step * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)p + 1);
}

/* x_0: pseudo-random bytes from a fixed seed (seed 0: the original x_0), or
 * a smooth, sparse or rough field. */
static void fill_x0(const workload_plan *plan, unsigned char *x, uint64_t seed)
{
    size_t size = plan->size;
    if (plan->data != STATE_DATA_RANDOM) {
        state_data_x0(x, size, (ebb_element)plan->element, (state_data)plan->data,
                      X0_SEED + seed);
        return;
    }
    uint64_t s = X0_SEED + (seed ? mix64(seed) : 0);
    for (size_t i = 0; i < size; i += 8) {
        uint64_t v = mix64(s += UINT64_C(0x9e3779b97f4a7c15));
        memcpy(x + i, &v, size - i < 8 ? size - i : 8);
    }
}

int workload_calibrate(size_t size, int64_t steps, double forward_ms, double reverse_ms, int data,
                       int element, workload_plan *plan, char *err, size_t errlen)
{
    plan->size = size;
    plan->data = data;
    plan->element = element == EBB_ELEMENT_FLOAT32 ? EBB_ELEMENT_FLOAT32 : EBB_ELEMENT_FLOAT64;
    size_t es = ebb_element_size((ebb_element)plan->element);
    if (data != STATE_DATA_RANDOM && size % es) {
        snprintf(err, errlen, "--data %s: a state of %zu bytes is not a whole number of %s values",
                 state_data_name((state_data)data), size,
                 ebb_element_name((ebb_element)plan->element));
        return -1;
    }
    unsigned char *a = malloc(size), *b = malloc(size);
    if (!a || !b) {
        free(a);
        free(b);
        snprintf(err, errlen, "cannot allocate two buffers of %zu bytes to calibrate the steps",
                 size);
        return -1;
    }
    fill_x0(plan, a, 0);
    step_pass(plan, a, b, 1); /* faults b in */
    /* Passes as a forward step makes them (from a to b, then on b in place),
     * in batches of at least 0.5 ms (small states time well); the fastest of
     * 3 to 15 batches (0.3 s of them unless 15 are in) is the pass time with
     * the core to itself: other processes' bursts do not count. */
    int64_t batch = 1, k = 0;
    double t0, el;
    for (;;) {
        t0 = cli_now();
        for (int64_t i = 0; i < batch; i++, k++)
            step_pass(plan, k % 2 ? b : a, b, (uint64_t)k); /* as a forward step */
        el = cli_now() - t0;
        if (el >= 5e-4 || batch >= (INT64_C(1) << 40))
            break;
        batch *= 2;
    }
    double best = 0, start = cli_now();
    int n = 0;
    do {
        t0 = cli_now();
        for (int64_t i = 0; i < batch; i++, k++)
            step_pass(plan, k % 2 ? b : a, b, (uint64_t)k);
        double t = (cli_now() - t0) / (double)batch;
        best = n++ == 0 || t < best ? t : best;
    } while (n < 15 && (n < 3 || cli_now() - start < 0.3));
    free(a);
    free(b);
    plan->steps = steps;
    plan->pass_s = best > 0 ? best : 1e-9;
    /* The passes fill STEP_FILL of the time asked (the fastest batch above is
     * faster than the passes of a run, over buffers the cache no longer
     * holds: 11-22% for 16 MiB states on the development machine), and the
     * step waits out the rest, so that it takes what was asked, as the
     * planner is told (docs/runtime.md). The passes are fixed, so every
     * step computes the same state whatever its timing. */
    double p = STEP_FILL * forward_ms / 1e3 / plan->pass_s;
    double q = STEP_FILL * reverse_ms / 1e3 / plan->pass_s;
    plan->forward_passes = p < 1.5 ? 1 : (int64_t)(p + 0.5);
    plan->reverse_passes = reverse_ms <= 0 ? 0 : q < 1.5 ? 1 : (int64_t)(q + 0.5);
    plan->forward_s = forward_ms > 0 ? forward_ms / 1e3 : 0.0;
    plan->reverse_s = reverse_ms > 0 ? reverse_ms / 1e3 : 0.0;
    return 0;
}

/* ---- the callbacks ------------------------------------------------------------ */

typedef struct workload_ctx {
    const workload_plan *plan;
    unsigned char *scratch;
    uint64_t adjoint;
    int unknown_n;        /* 1: the forward says when the first sweep ends */
    int first_sweep;      /* 1 inside ebb_run_forward */
    int64_t next_reverse; /* the reverse step expected next */
    double forward_s, reverse_s, first_s;
    int64_t first_steps, recomputed;
    double *field;        /* the numeric gradient g (field_gradient), or NULL */
    size_t field_count;
    int fail;             /* tests: forward step fail_step fails */
    int64_t fail_step;
    /* progress */
    int progress;
    const char *name;
    double last_print, progress_start;
} workload_ctx;

/* Seconds between progress lines when standard error is not a terminal,
 * the first after as long: a log gets a heartbeat from a long run, none
 * from a short one, and never a carriage return. */
#define PROGRESS_LOG_S 10.0

static void progress(workload_ctx *c, const char *phase, int64_t done, double now)
{
    if (!c->progress)
        return;
    if (c->progress == 2) {
        if (c->progress_start == 0)
            c->progress_start = now;
        if (now - c->progress_start < PROGRESS_LOG_S || now - c->last_print < PROGRESS_LOG_S)
            return;
    } else if (now - c->last_print < 0.1) {
        return;
    }
    c->last_print = now;
    fprintf(stderr, "%sebb run: %-12s %-7s step %lld of %lld", c->progress == 1 ? "\r" : "",
            c->name, phase, (long long)done, (long long)c->plan->steps);
    if (c->recomputed)
        fprintf(stderr, ", %lld recomputed", (long long)c->recomputed);
    fputc(c->progress == 1 ? ' ' : '\n', stderr);
    fflush(stderr);
}

static void progress_end(workload_ctx *c)
{
    if (c->progress == 1 && c->last_print > 0) {
        fprintf(stderr, "\r%-79s\r", "");
        fflush(stderr);
    }
}

static int forward_done(workload_ctx *c, int64_t step, double t0)
{
    double now = cli_now();
    c->forward_s += now - t0;
    if (c->first_sweep) {
        c->first_s += now - t0;
        c->first_steps++;
        progress(c, "forward", step + 1, now);
    } else {
        c->recomputed++;
    }
    if (c->unknown_n && c->first_sweep && step == c->plan->steps - 1)
        return EBB_STEP_LAST;
    return EBB_STEP_OK;
}

static int forward_step(void *user, int64_t step, const void *in, void *out)
{
    workload_ctx *c = user;
    if (step < 0 || step >= c->plan->steps)
        return ebb_callback_fail("forward step %lld called, outside 0 .. %lld", (long long)step,
                                 (long long)c->plan->steps - 1);
    if (c->fail && step == c->fail_step)
        return ebb_callback_fail("injected failure at forward step %lld (--fail-at-step)",
                                 (long long)step);
    double t0 = cli_now();
    step_pass(c->plan, in, out, pass_key(step, 0));
    for (int64_t p = 1; p < c->plan->forward_passes; p++)
        step_pass(c->plan, out, out, pass_key(step, p));
    wait_until(t0 + c->plan->forward_s);
    return forward_done(c, step, t0);
}

static int forward_inplace_step(void *user, int64_t step, void *state)
{
    workload_ctx *c = user;
    if (step < 0 || step >= c->plan->steps)
        return ebb_callback_fail("forward step %lld called, outside 0 .. %lld", (long long)step,
                                 (long long)c->plan->steps - 1);
    if (c->fail && step == c->fail_step)
        return ebb_callback_fail("injected failure at forward step %lld (--fail-at-step)",
                                 (long long)step);
    double t0 = cli_now();
    for (int64_t p = 0; p < c->plan->forward_passes; p++)
        step_pass(c->plan, state, state, pass_key(step, p));
    wait_until(t0 + c->plan->forward_s);
    return forward_done(c, step, t0);
}

/* Value j of a float state (the plan's element). */
static inline double value_at(const workload_plan *plan, const void *x, size_t j)
{
    return plan->element == EBB_ELEMENT_FLOAT32 ? (double)((const float *)x)[j]
                                                : ((const double *)x)[j];
}

/* g = A_step g + x, A_step the product of the step's passes' a (see the top). */
static void fold_field(workload_ctx *c, int64_t step, const void *x)
{
    double a = 1.0;
    for (int64_t p = 0; p < c->plan->forward_passes; p++)
        a *= state_data_gain(pass_key(step, p));
    for (size_t j = 0; j < c->field_count; j++)
        c->field[j] = a * c->field[j] + value_at(c->plan, x, j);
}

static int reverse_step(void *user, int64_t step, void *state)
{
    workload_ctx *c = user;
    if (step != c->next_reverse)
        return ebb_callback_fail("reverse step %lld called where %lld was expected (n-1 .. 0 in "
                                 "order)",
                                 (long long)step, (long long)c->next_reverse);
    double t0 = cli_now();
    size_t size = c->plan->size;
    for (int64_t p = 0; p < c->plan->reverse_passes; p++)
        step_pass(c->plan, p ? c->scratch : state, c->scratch, pass_key(step, p));
    c->adjoint = XXH3_64bits_withSeed(state, size, c->adjoint ^ (uint64_t)step);
    if (c->field)
        fold_field(c, step, state);
    wait_until(t0 + c->plan->reverse_s);
    double now = cli_now();
    c->reverse_s += now - t0;
    c->next_reverse--;
    progress(c, "reverse", c->plan->steps - step, now);
    return EBB_STEP_OK;
}

/* ---- one run -------------------------------------------------------------------- */

static void set_error(workload_result *r, const char *what)
{
    snprintf(r->error, sizeof r->error, "%s", what);
}

/* ebb_run_create, and once more with the fast tier on disk when the fast
 * tier is too small for the strategy: its budget (EBB_ERR_NO_MEMORY), or
 * the slot count given with --slots, which stands for a budget of that many
 * states (the engine refuses too few slots with EBB_ERR_INVALID_ARG). */
static ebb_status create_one(const ebb_run_options *o, const workload_request *req, ebb_run **run)
{
    return req->create ? req->create(req->ctx, o, run) : ebb_run_create(o, run);
}

static ebb_status create(ebb_run_options *o, const workload_request *req, workload_result *r,
                         ebb_run **run)
{
    ebb_status s = create_one(o, req, run);
    if (s != EBB_ERR_NO_MEMORY && !(s == EBB_ERR_INVALID_ARG && req->slots > 0)) {
        if (s != EBB_OK)
            set_error(r, ebb_last_error());
        return s;
    }
    char first[512];
    snprintf(first, sizeof first, "%s", ebb_last_error());
    o->fast_tier = EBB_TIER_DISK;
    o->slots = req->slow_slots; /* 0: as many as the disk budget holds */
    o->slow_slots = 0;
    s = create_one(o, req, run);
    if (s == EBB_OK) {
        r->on_disk = 1;
        snprintf(r->on_disk_why, sizeof r->on_disk_why, "%s", first);
    }
    else
        snprintf(r->error, sizeof r->error, "%s; with the fast tier on disk: %s", first,
                 ebb_last_error());
    return s;
}

/* The run's options: the workload's callbacks over the request's choices. */
static void run_options(const workload_plan *plan, const workload_request *req, workload_ctx *c,
                        ebb_run_options *o)
{
    ebb_run_options_init(o);
    o->state_size = plan->size;
    o->state_tier = EBB_TIER_HOST;
    if (req->inplace)
        o->forward_inplace = forward_inplace_step;
    else
        o->forward = forward_step;
    o->reverse = reverse_step;
    o->user = c;
    o->steps = c->unknown_n ? 0 : plan->steps;
    o->config = req->config;
    o->strategy = req->strategy;
    o->slots = req->slots;
    o->slow_slots = req->slow_slots;
    o->period = req->period;
    o->io_ratio = req->io_ratio;
    o->audit = req->audit;
    o->error_samples = req->error_samples;
    o->trace = req->trace;
    /* smooth and sparse states are arrays of floats (for compression) */
    o->element = plan->data == STATE_DATA_RANDOM ? -1 : plan->element;
    /* auto: the planner predicts from the step times (asked, else calibrated) */
    o->forward_seconds = plan->forward_s > 0 ? plan->forward_s
                                             : (double)plan->forward_passes * plan->pass_s;
    o->reverse_seconds = plan->reverse_s > 0 ? plan->reverse_s
                                             : (double)(plan->reverse_passes + 1) * plan->pass_s;
}

/* Both sweeps from x_0 (the adjoint: a hash of x_n, then of every state a
 * reverse step saw). 0, or -1 with r->error set. */
static int sweep(const workload_plan *plan, const workload_request *req, ebb_run *run,
                 workload_ctx *c, workload_result *r)
{
    unsigned char *x0 = malloc(plan->size);
    if (!x0) {
        snprintf(r->error, sizeof r->error, "cannot allocate %zu bytes for x_0 and a scratch state",
                 plan->size);
        return -1;
    }
    fill_x0(plan, x0, req->seed);
    void *xn = NULL;
    c->first_sweep = 1;
    ebb_status s = ebb_run_forward(run, x0, &xn);
    c->first_sweep = 0;
    free(x0);
    if (s != EBB_OK) {
        progress_end(c);
        snprintf(r->error, sizeof r->error, "forward sweep: %s", ebb_last_error());
        return -1;
    }
    c->adjoint = XXH3_64bits_withSeed(xn, plan->size, LOSS_SEED); /* the "loss" */
    for (size_t j = 0; j < c->field_count; j++) /* dJ/dx_n */
        c->field[j] = value_at(plan, xn, j);
    s = ebb_run_reverse(run);
    progress_end(c);
    if (s != EBB_OK) {
        snprintf(r->error, sizeof r->error, "reverse sweep: %s", ebb_last_error());
        return -1;
    }
    if (c->next_reverse != -1) {
        snprintf(r->error, sizeof r->error,
                 "the reverse sweep returned without calling reverse steps %lld .. 0",
                 (long long)c->next_reverse);
        return -1;
    }
    return 0;
}

/* The run's statistics and the workload's own figures into r; 0, or -1
 * with r->error set. */
static int collect(ebb_run *run, const workload_ctx *c, workload_result *r)
{
    if (ebb_run_stats_get(run, &r->stats) != EBB_OK || ebb_run_info_get(run, &r->info) != EBB_OK) {
        snprintf(r->error, sizeof r->error, "statistics: %s", ebb_last_error());
        return -1;
    }
    if (r->info.strategy_name)
        snprintf(r->strategy, sizeof r->strategy, "%s", r->info.strategy_name);
    snprintf(r->warnings, sizeof r->warnings, "%s", r->info.warnings ? r->info.warnings : "");
    snprintf(r->reason, sizeof r->reason, "%s", r->info.reason ? r->info.reason : "");
    r->info.strategy_name = r->strategy;
    r->info.warnings = r->warnings;
    r->info.reason = r->reason;
    r->gradient = c->adjoint;
    r->field = c->field; /* now r's */
    r->field_count = c->field_count;
    r->first_sweep_callback_s = c->first_s;
    r->first_sweep_steps = c->first_steps;
    r->forward_callback_own_s = c->forward_s;
    r->reverse_callback_own_s = c->reverse_s;
    r->ran = 1;
    return 0;
}

int workload_run(const workload_plan *plan, const workload_request *req, workload_result *r)
{
    memset(r, 0, sizeof *r);
    int strategy = req->strategy >= 0 ? req->strategy : (int)req->config->strategy;
    snprintf(r->strategy, sizeof r->strategy, "%s",
             ebb_config_strategy_name((ebb_config_strategy)strategy));
    snprintf(r->asked, sizeof r->asked, "%s", r->strategy);
    workload_ctx c;
    memset(&c, 0, sizeof c);
    c.plan = plan;
    c.unknown_n = strategy == EBB_CONFIG_STRATEGY_ONLINE;
    c.next_reverse = plan->steps - 1;
    c.progress = req->progress;
    c.name = r->strategy;
    c.fail = req->fail;
    c.fail_step = req->fail_step;
    ebb_run_options o;
    run_options(plan, req, &c, &o);
    ebb_run *run = NULL;
    if (create(&o, req, r, &run) != EBB_OK)
        return WORKLOAD_SKIPPED;
    ebb_run_info resolved; /* "auto" becomes what it picked, for the progress line */
    if (ebb_run_info_get(run, &resolved) == EBB_OK && resolved.strategy_name)
        snprintf(r->strategy, sizeof r->strategy, "%s", resolved.strategy_name);

    int rc = WORKLOAD_FAILED;
    c.scratch = plan->reverse_passes > 0 ? malloc(plan->size) : NULL;
    if (req->field_gradient && plan->data != STATE_DATA_RANDOM) {
        c.field_count = plan->size / ebb_element_size((ebb_element)plan->element);
        c.field = malloc(c.field_count * sizeof *c.field);
    }
    if ((plan->reverse_passes > 0 && !c.scratch) || (c.field_count && !c.field))
        snprintf(r->error, sizeof r->error, "cannot allocate %zu bytes for a scratch state and "
                 "%zu for the numeric gradient", plan->size, c.field_count * sizeof *c.field);
    else if (sweep(plan, req, run, &c, r) == 0 && collect(run, &c, r) == 0)
        rc = WORKLOAD_OK;
    if (rc != WORKLOAD_OK)
        free(c.field);
    free(c.scratch);
    if (req->before_destroy)
        req->before_destroy(req->ctx, run, rc == WORKLOAD_OK);
    ebb_run_destroy(run);
    return rc;
}

void workload_result_free(workload_result *r)
{
    free(r->field);
    r->field = NULL;
    r->field_count = 0;
}

double workload_relative_error(const double *g, const double *exact, size_t n)
{
    /* sums of squares in long double: millions of terms lose little */
    long double diff = 0, norm = 0;
    for (size_t j = 0; j < n; j++) {
        long double d = (long double)g[j] - exact[j];
        diff += d * d;
        norm += (long double)exact[j] * exact[j];
    }
    return norm > 0 ? (double)sqrtl(diff / norm) : NAN;
}
