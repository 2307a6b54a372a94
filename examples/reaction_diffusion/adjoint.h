/*
 * The reaction-diffusion adjoint driven by ebb: the two callbacks ebb calls
 * (a forward step and the adjoint of a step) and one function that computes
 * J, dJ/du_0 and dJ/dr through a run under whatever schedule the options and
 * the configuration choose.
 */
#ifndef EBB_EXAMPLE_RD_ADJOINT_H
#define EBB_EXAMPLE_RD_ADJOINT_H

#include <stdint.h>

#include "ebb/ebb.h"
#include "model.h"

/* What the callbacks share: ebb hands it to them as `user`. */
typedef struct rd_adjoint {
    rd_params p;
    const double *target;
    double *lambda;   /* the adjoint lambda_i; dJ/du_0 once the reverse sweep ends */
    double *scratch;  /* lambda_{i+1} while step i is reversed */
    double objective; /* J */
    double grad_r;    /* dJ/dr */
    int64_t seen;     /* forward steps of the first sweep so far (their terms are in J) */
    int64_t next_reverse; /* the reverse step expected next */
    int unknown_steps;    /* run with steps = 0: the forward says when it ends */
} rd_adjoint;

/* Allocates the adjoint buffers (2 N doubles). 0, or -1 with errno set. */
int rd_adjoint_init(rd_adjoint *a, const rd_params *p, const double *target);
void rd_adjoint_free(rd_adjoint *a);

/* What a run resolved and measured, kept after the run is gone. */
typedef struct rd_result {
    int created;         /* 1: ebb_run_create accepted the options (else it did not fit) */
    ebb_run_info info;   /* strategy_name and warnings point into this struct */
    ebb_run_stats stats;
    char strategy_name[32];
    char warnings[512];
} rd_result;

/* J, dJ/du_0 (in a->lambda) and dJ/dr (a->grad_r) through one ebb run.
 * `base` holds what the caller chooses (config, strategy, tiers, slots);
 * the state, the callbacks and the steps are set here. With the online
 * strategy the run is created with steps = 0 and the forward step returns
 * EBB_STEP_LAST at step n-1, as a code whose n is unknown would.
 * EBB_OK, or the failing call's status with ebb_last_error() saying why. */
ebb_status rd_gradient(rd_adjoint *a, const double *u0, const ebb_run_options *base,
                       rd_result *result);

#endif
