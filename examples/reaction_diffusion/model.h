/*
 * A nonlinear reaction-diffusion equation and its hand-written discrete
 * adjoint. Nothing here knows about ebb: this is the part of an adjoint
 * solver a scientist already has (adjoint.c connects it to ebb).
 *
 *     u_t = k u_xx - r u^3      on a periodic grid of N points
 *
 * discretised with explicit Euler, one step
 *
 *     u_{i+1}[j] = u_i[j] + s (u_i[j-1] - 2 u_i[j] + u_i[j+1]) - q u_i[j]^3
 *
 * with s = k dt / h^2 and q = r dt. The cubic damping makes the step
 * nonlinear, yet the problem stays well conditioned for any n (no state
 * grows), so finite differences can check the gradient at any length; a
 * bistable term such as r u (1 - u^2) amplifies perturbations by e^{r t}
 * and makes them useless after a few time units. The objective has a
 * term along the way and one at the final time:
 *
 *     J = sum_{i=0}^{n-1} w mean_j(u_i[j]^2) / 2  +  mean_j((u_n[j] - target[j])^2) / 2
 *
 * (means over the N points, so that J does not grow with the grid), and we
 * want dJ/du_0 (N values) and dJ/dr. The step's derivative depends on u_i
 * (through 3 q u_i^2), so the adjoint needs every forward state again, in
 * reverse order: that is what checkpointing is for.
 */
#ifndef EBB_EXAMPLE_RD_MODEL_H
#define EBB_EXAMPLE_RD_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct rd_params {
    int64_t points; /* N, >= 3 */
    int64_t steps;  /* n, >= 1 */
    double k;       /* diffusivity */
    double r;       /* reaction rate: the scalar parameter we differentiate by */
    double dt;      /* time step */
    double h;       /* grid spacing */
    double weight;  /* w: weight of the running term */
} rd_params;

/* The example's problem: k = 1, r = 1, h = 1, dt = 0.2 (s = q = 0.2),
 * w = 0.01, for `points` points and `steps` steps. */
void rd_params_default(rd_params *p, int64_t points, int64_t steps);

/* The initial condition: three smooth periods, a grid-scale ripple that
 * diffusion damps, and small deterministic noise. */
void rd_initial(const rd_params *p, double *u0);

/* The target of the final-time term: the initial condition's smooth wave,
 * smaller and shifted. */
void rd_target(const rd_params *p, double *target);

/* One explicit Euler step: out = F(in). `in` and `out` must not overlap. */
void rd_step(const rd_params *p, const double *in, double *out);

/* The running term of state u_i: w sum_j u_i[j]^2 / (2 N). */
double rd_running_cost(const rd_params *p, const double *u);

/* The final term: sum_j (u_n[j] - target[j])^2 / (2 N). */
double rd_final_cost(const rd_params *p, const double *target, const double *un);

/* lambda_n = dJ/du_n = (u_n - target) / N. */
void rd_final_adjoint(const rd_params *p, const double *target, const double *un, double *lambda);

/* The adjoint of step i, given u_i and lambda_{i+1}:
 *     lambda_i = (dF/du)(u_i)^T lambda_{i+1} + w u_i / N
 *     *grad_r += lambda_{i+1} . dF/dr(u_i) = -dt sum_j lambda_{i+1}[j] u_i[j]^3
 * `lambda` and `lambda_next` must not overlap. */
void rd_adjoint_step(const rd_params *p, const double *u, const double *lambda_next,
                     double *lambda, double *grad_r);

/* J by the plain forward loop, no adjoint, no ebb (for finite differences):
 * the same steps and the same sums in the same order as the run through ebb.
 * `work` holds 2 N doubles. */
double rd_objective(const rd_params *p, const double *target, const double *u0, double *work);

/* A reproducible direction for the finite-difference check: N values,
 * smooth plus noise, from `seed`. */
void rd_direction(const rd_params *p, uint64_t seed, double *d);

/* a . b over N values. */
double rd_dot(const rd_params *p, const double *a, const double *b);

/* The same numerics on a block of m >= 1 consecutive points of the grid,
 * global indices lo .. lo + m - 1, for a domain-decomposed code
 * (examples/reaction_diffusion_mpi): the neighbours of the block's two ends
 * come in as `left` and `right` (the ghost cells a halo exchange fills).
 * Point for point the arithmetic is the whole-grid functions', which are
 * these with one block and the neighbours wrapped around; N in the means
 * and in w / N stays p->points, the whole grid's. */
void rd_initial_block(const rd_params *p, int64_t lo, int64_t m, double *u0);
void rd_target_block(const rd_params *p, int64_t lo, int64_t m, double *target);
void rd_step_block(const rd_params *p, double left, const double *in, double right, double *out,
                   int64_t m);
/* The block's shares of the two sums (pairwise over the block only). */
double rd_running_cost_block(const rd_params *p, const double *u, int64_t m);
double rd_final_cost_block(const rd_params *p, const double *target, const double *un, int64_t m);
void rd_final_adjoint_block(const rd_params *p, const double *target, const double *un,
                            double *lambda, int64_t m);
/* lambda[0 .. m-1] of the step's adjoint; returns the block's
 * sum_j lambda_next[j] u[j]^3, of which dJ/dr gets -dt times (summed over
 * the blocks). */
double rd_adjoint_step_block(const rd_params *p, const double *u, double left,
                             const double *lambda_next, double right, double *lambda, int64_t m);

#endif
