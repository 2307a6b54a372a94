/* The error estimate's tests (a header: only *.c files are tests): states of
 * `values` float64 stepped by a smooth map the test recomputes exactly, a
 * host tier that may be compressed at a fixed rate, and a reverse callback
 * that measures each state it is handed against the exact one, as the
 * library's estimate should (relative L2 error, in double). */
#ifndef EBB_TESTS_RUNTIME_ESTIMATE_H
#define EBB_TESTS_RUNTIME_ESTIMATE_H

#include <math.h>

#include "workload.h"

typedef struct es {
    size_t values;
    int64_t n;         /* the steps; the forward says EBB_STEP_LAST at x_n when unknown */
    int unknown;
    double **exact;    /* x_0 .. x_n */
    double **handed;   /* per step i < n: x~_i, the state handed out */
    double *true_rel;  /* per step i < n: |x~_i - x_i| / |x_i| */
} es;

static inline void es_step(size_t values, int64_t k, const double *in, double *out)
{
    for (size_t i = 0; i < values; i++)
        out[i] = 0.9 * in[i] + 0.1 * sin(0.001 * (double)i + 0.01 * (double)k);
}

static inline int es_forward(void *user, int64_t k, const void *in, void *out)
{
    es *e = user;
    es_step(e->values, k, in, out);
    return e->unknown && k + 1 == e->n ? EBB_STEP_LAST : EBB_STEP_OK;
}

static inline int es_reverse(void *user, int64_t k, void *state)
{
    es *e = user;
    const double *x = state, *t = e->exact[k];
    double dd = 0, tt = 0;
    for (size_t i = 0; i < e->values; i++) {
        dd += (x[i] - t[i]) * (x[i] - t[i]);
        tt += t[i] * t[i];
    }
    e->true_rel[k] = sqrt(dd / tt);
    memcpy(e->handed[k], x, e->values * sizeof(double));
    memset(state, 0, e->values * sizeof(double)); /* the callback may overwrite it */
    return EBB_STEP_OK;
}

static inline void es_init(es *e, size_t values, int64_t n)
{
    e->values = values;
    e->n = n;
    e->exact = malloc((size_t)(n + 1) * sizeof *e->exact);
    e->true_rel = calloc((size_t)n, sizeof *e->true_rel);
    e->handed = malloc((size_t)n * sizeof *e->handed);
    for (int64_t k = 0; k <= n; k++) {
        if (k < n)
            e->handed[k] = calloc(values, sizeof(double));
        e->exact[k] = malloc(values * sizeof(double));
        if (k == 0)
            for (size_t i = 0; i < values; i++)
                e->exact[0][i] = cos(0.002 * (double)i);
        else
            es_step(values, k - 1, e->exact[k - 1], e->exact[k]);
    }
}

static inline void es_free(es *e)
{
    for (int64_t k = 0; k <= e->n; k++) {
        free(e->exact[k]);
        if (k < e->n)
            free(e->handed[k]);
    }
    free(e->exact);
    free(e->handed);
    free(e->true_rel);
}

/* Runs both sweeps with K error samples under cfg (host slots compressed at
 * `rate` bits per value, 0: not); the statistics and info. */
static inline void es_run(es *e, ebb_config *cfg, ebb_config_strategy strategy, int32_t slots,
                          double rate, int32_t samples, ebb_run_stats *st, ebb_run_info *info)
{
    cfg->disk.enabled = 0;
    cfg->host.compression.mode = rate > 0 ? EBB_COMPRESSION_FIXED_RATE : EBB_COMPRESSION_OFF;
    cfg->host.compression.rate = rate;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = e->values * sizeof(double);
    o.steps = e->unknown ? 0 : e->n;
    o.config = cfg;
    o.strategy = strategy;
    o.slots = slots;
    o.forward = es_forward;
    o.reverse = es_reverse;
    o.user = e;
    o.element = EBB_ELEMENT_FLOAT64;
    o.error_samples = samples;
    ebb_run *run = wl_create(&o);
    cr_assert_eq(ebb_run_forward(run, e->exact[0], NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_stats_get(run, st), EBB_OK);
    cr_assert_eq(ebb_run_info_get(run, info), EBB_OK);
    ebb_run_destroy(run);
}

/* The max and rms of true_rel over the steps listed, and the gradient's
 * estimate from them: n / count x sqrt(S |D|), S the sum of rho_s
 * true_rel[s] and D that of the vectors rho_s (x~_s - x_s) / |x_s|, rho_s =
 * |x_{s+1} - x_s| / |x_s|. */
static inline void es_expect(const es *e, const int64_t *steps, int count, double *max,
                             double *rms, double *estimate)
{
    double sq = 0, weighted = 0;
    double *sum = calloc(e->values, sizeof *sum);
    *max = 0;
    for (int j = 0; j < count; j++) {
        int64_t s = steps[j];
        double r = e->true_rel[s], dd = 0, xx = 0;
        for (size_t i = 0; i < e->values; i++) {
            double d = e->exact[s + 1][i] - e->exact[s][i];
            dd += d * d;
            xx += e->exact[s][i] * e->exact[s][i];
        }
        double rho = sqrt(dd / xx);
        for (size_t i = 0; i < e->values; i++)
            sum[i] += rho * (e->handed[s][i] - e->exact[s][i]) / sqrt(xx);
        *max = r > *max ? r : *max;
        sq += r * r;
        weighted += rho * r;
    }
    double norm = 0;
    for (size_t i = 0; i < e->values; i++)
        norm += sum[i] * sum[i];
    free(sum);
    *rms = sqrt(sq / count);
    *estimate = (double)e->n * sqrt(weighted * sqrt(norm)) / count;
}

#endif
