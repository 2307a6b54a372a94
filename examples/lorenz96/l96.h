/*
 * Lorenz-96, dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F (indices
 * cyclic), stepped with classical RK4, and the discrete adjoint of that step:
 * the exact transpose of its linearization, so that the adjoint gives the
 * gradient of the discrete loop to rounding. No ebb here.
 */
#ifndef EBB_EXAMPLE_L96_H
#define EBB_EXAMPLE_L96_H

#include <stddef.h>

enum { L96_MAX_N = 4096 };

typedef struct l96 {
    int n;       /* variables (40) */
    double f;    /* forcing (8: chaotic) */
    double dt;   /* time step */
} l96;

/* out = one RK4 step from in (they may not overlap). */
void l96_step(const l96 *m, const double *in, double *out);

/* The adjoint of one RK4 step at x (the step's input): lambda (the adjoint
 * of the step's output on entry) becomes the adjoint of x, and *grad_f gains
 * the step's d/dF. */
void l96_step_adjoint(const l96 *m, const double *x, double *lambda, double *grad_f);

/* x_0: F plus a small deterministic perturbation, then `spinup` steps onto
 * the attractor. */
void l96_initial(const l96 *m, int spinup, double *x);

#endif
