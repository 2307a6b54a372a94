/* The reaction-diffusion adjoint through ebb (adjoint.h). */
#include "adjoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rd_adjoint_init(rd_adjoint *a, const rd_params *p, const double *target)
{
    memset(a, 0, sizeof *a);
    a->p = *p;
    a->target = target;
    a->lambda = malloc((size_t)p->points * sizeof(double));
    a->scratch = malloc((size_t)p->points * sizeof(double));
    if (!a->lambda || !a->scratch) {
        rd_adjoint_free(a);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void rd_adjoint_free(rd_adjoint *a)
{
    free(a->lambda);
    free(a->scratch);
    a->lambda = a->scratch = NULL;
}

/* x_i -> x_{i+1}. ebb calls it for the first sweep (steps 0, 1, ..., n-1 in
 * order) and again for every state it recomputes during the reverse sweep.
 * The running term of J must be counted once per state, so only steps not
 * seen before add to it: a recomputed step has step < seen. */
static int rd_forward_cb(void *user, int64_t step, const void *in, void *out)
{
    rd_adjoint *a = user;
    const int first_time = step == a->seen;
    if (first_time) {
        a->objective += rd_running_cost(&a->p, in);
        a->seen++;
    }
    rd_step(&a->p, in, out);
    /* A code that learns n only as it runs (adaptive time stepping, a
     * stopping test) says "that was the last step" like this. */
    if (a->unknown_steps && first_time && step == a->p.steps - 1)
        return EBB_STEP_LAST;
    return EBB_STEP_OK;
}

/* The adjoint of step i; `state` holds u_i. ebb calls it for i = n-1 .. 0. */
static int rd_reverse_cb(void *user, int64_t step, void *state)
{
    rd_adjoint *a = user;
    if (step != a->next_reverse)
        return ebb_callback_fail("reverse step %lld came when step %lld was expected",
                                 (long long)step, (long long)a->next_reverse);
    double *next = a->lambda; /* lambda_{i+1} */
    a->lambda = a->scratch;
    a->scratch = next;
    rd_adjoint_step(&a->p, state, next, a->lambda, &a->grad_r);
    a->next_reverse--;
    return EBB_STEP_OK;
}

ebb_status rd_gradient(rd_adjoint *a, const double *u0, const ebb_run_options *base,
                       rd_result *result)
{
    ebb_run_options o = *base;
    o.state_size = (size_t)a->p.points * sizeof(double);
    o.state_tier = EBB_TIER_HOST;
    o.forward = rd_forward_cb;
    o.forward_inplace = NULL;
    o.reverse = rd_reverse_cb;
    o.user = a;
    /* a state is N doubles (for tier.disk.compression: the lossy modes need
     * the element type, and lossless shuffles 8-byte values) */
    o.element = EBB_ELEMENT_FLOAT64;

    /* Online checkpointing is for an n nobody knows in advance: show it
     * that way. Under "auto" or a configured strategy, n is given. */
    int strategy = o.strategy;
    if (strategy == EBB_RUN_FROM_CONFIG)
        strategy = o.config ? (int)o.config->strategy : EBB_CONFIG_STRATEGY_AUTO;
    a->unknown_steps = strategy == EBB_CONFIG_STRATEGY_ONLINE;
    o.steps = a->unknown_steps ? 0 : a->p.steps;

    a->objective = 0.0;
    a->grad_r = 0.0;
    a->seen = 0;

    if (result)
        memset(result, 0, sizeof *result);
    ebb_run *run = NULL;
    void *xn = NULL;
    ebb_status s = ebb_run_create(&o, &run);
    if (s == EBB_OK) {
        if (result)
            result->created = 1;
        s = ebb_run_forward(run, u0, &xn);
    }
    if (s == EBB_OK) {
        /* x_n is ebb's buffer, valid until the reverse sweep starts: take
         * what the adjoint needs from it now. */
        a->objective += rd_final_cost(&a->p, a->target, xn);
        rd_final_adjoint(&a->p, a->target, xn, a->lambda);
        a->next_reverse = a->seen - 1;
        s = ebb_run_reverse(run);
    }
    if (s == EBB_OK && result) {
        s = ebb_run_info_get(run, &result->info);
        if (s == EBB_OK)
            s = ebb_run_stats_get(run, &result->stats);
        if (s == EBB_OK) {
            snprintf(result->strategy_name, sizeof result->strategy_name, "%s",
                     result->info.strategy_name);
            snprintf(result->warnings, sizeof result->warnings, "%s", result->info.warnings);
            result->info.strategy_name = result->strategy_name;
            result->info.warnings = result->warnings;
        }
    }
    ebb_run_destroy(run);
    return s;
}
