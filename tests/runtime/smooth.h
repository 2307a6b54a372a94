/* A smooth workload for the compression tests (a header: only *.c files are
 * tests): states of `values` float64 (a smooth field, which lossless
 * compression shrinks and zfp keeps close), stepped by a smooth map; the
 * reverse sweep only counts. */
#ifndef EBB_TESTS_RUNTIME_SMOOTH_H
#define EBB_TESTS_RUNTIME_SMOOTH_H

#include <math.h>

#include "workload.h"

typedef struct sm {
    size_t values;
    int64_t reversed;
    unsigned reverse_us; /* each reverse step sleeps this long (reads ahead pile up) */
    size_t zero_from;    /* when not 0, the values from this one on are 0 (compress well) */
} sm;

static inline int sm_forward(void *user, int64_t k, const void *in, void *out)
{
    const sm *s = user;
    const double *x = in;
    double *y = out;
    for (size_t i = 0; i < s->values; i++)
        y[i] = s->zero_from && i >= s->zero_from
                   ? 0.0
                   : 0.9 * x[i] + 0.1 * sin(0.001 * (double)i + 0.01 * (double)k);
    return EBB_STEP_OK;
}

static inline int sm_reverse(void *user, int64_t k, void *state)
{
    (void)k, (void)state;
    sm *s = user;
    s->reversed++;
    if (s->reverse_us)
        usleep(s->reverse_us);
    return EBB_STEP_OK;
}

static inline ebb_run_options sm_options(sm *s, ebb_config *cfg, ebb_config_strategy strategy,
                                         int64_t n)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = s->values * sizeof(double);
    o.steps = n;
    o.config = cfg;
    o.strategy = strategy;
    o.forward = sm_forward;
    o.reverse = sm_reverse;
    o.user = s;
    o.element = EBB_ELEMENT_FLOAT64;
    return o;
}

/* Both sweeps of a run made from `args`; its statistics. */
static inline ebb_run_stats sm_run(sm *s, const rt_create_args *args)
{
    ebb_run *run = NULL;
    cr_assert_eq(rt_run_create(args, &run), EBB_OK, "%s", ebb_last_error());
    double *x0 = malloc(s->values * sizeof(double));
    for (size_t i = 0; i < s->values; i++)
        x0[i] = cos(0.002 * (double)i);
    s->reversed = 0;
    void *xn = NULL;
    cr_assert_eq(ebb_run_forward(run, x0, &xn), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(s->reversed, args->options.steps);
    ebb_run_stats st;
    cr_assert_eq(ebb_run_stats_get(run, &st), EBB_OK);
    ebb_run_destroy(run);
    free(x0);
    return st;
}

#endif
