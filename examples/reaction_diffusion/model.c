/* The reaction-diffusion model, its discrete adjoint and the plain objective
 * loop (model.h). */
#include "model.h"

#include <math.h>
#include <string.h>

static const double two_pi = 6.283185307179586476925286766559;

void rd_params_default(rd_params *p, int64_t points, int64_t steps)
{
    p->points = points;
    p->steps = steps;
    p->k = 1.0;
    p->r = 1.0;
    p->h = 1.0;
    /* s = k dt / h^2 = 0.2 and q = r dt = 0.2: the step's derivatives, s
     * for the neighbours and 1 - 2 s - 3 q u^2 for the centre, are >= 0
     * while |u| <= 1, and the initial condition stays below 0.8. So the
     * step is monotone, max |u| never grows, and explicit Euler is stable
     * for any number of steps. */
    p->dt = 0.2;
    p->weight = 0.01;
}

/* splitmix64: a tiny, reproducible generator, so that the program and the
 * tests build exactly the same fields everywhere. */
static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Uniform in [-1, 1). */
static double noise(uint64_t seed, int64_t j)
{
    return (double)(mix(seed * UINT64_C(0x100000001b3) + (uint64_t)j) >> 11) * 0x1p-52 - 1.0;
}

void rd_initial_block(const rd_params *p, int64_t lo, int64_t m, double *u0)
{
    int64_t n = p->points;
    for (int64_t j = lo; j < lo + m; j++) {
        double x = (double)j / (double)n;
        u0[j - lo] = 0.6 * sin(two_pi * 3.0 * x) + 0.15 * sin(two_pi * (double)j / 8.0) +
                     0.05 * noise(1, j);
    }
}

void rd_initial(const rd_params *p, double *u0) { rd_initial_block(p, 0, p->points, u0); }

void rd_target_block(const rd_params *p, int64_t lo, int64_t m, double *target)
{
    int64_t n = p->points;
    for (int64_t j = lo; j < lo + m; j++) {
        double x = (double)j / (double)n;
        target[j - lo] = 0.3 * sin(two_pi * (3.0 * x + 0.05));
    }
}

void rd_target(const rd_params *p, double *target) { rd_target_block(p, 0, p->points, target); }

/* One point of the step, from its left, centre and right neighbours. */
static inline double point(double s, double q, double l, double c, double r)
{
    return c + s * (l - 2.0 * c + r) - q * c * c * c;
}

void rd_step_block(const rd_params *p, double left, const double *restrict in, double right,
                   double *restrict out, int64_t m)
{
    const double s = p->k * p->dt / (p->h * p->h), q = p->r * p->dt;
    if (m == 1) {
        out[0] = point(s, q, left, in[0], right);
        return;
    }
    /* The two ends take a neighbour from outside the block; the interior
     * loop has no branch, so the compiler vectorises it. */
    out[0] = point(s, q, left, in[0], in[1]);
    for (int64_t j = 1; j < m - 1; j++)
        out[j] = point(s, q, in[j - 1], in[j], in[j + 1]);
    out[m - 1] = point(s, q, in[m - 2], in[m - 1], right);
}

/* The whole periodic grid is one block whose neighbours wrap around. */
void rd_step(const rd_params *p, const double *restrict in, double *restrict out)
{
    rd_step_block(p, in[p->points - 1], in, in[0], out, p->points);
}

/* Sums over the grid are pairwise: blocks of BLOCK terms added in a plain
 * loop, the block sums combined as a binary tree. A plain loop over a
 * million terms loses the last 5 or 6 digits of J, and the
 * finite-difference check, which divides a difference of two J by 2 eps,
 * would see that noise (a relative error of ~1e-5 instead of ~1e-9). */
enum { BLOCK = 256 };

typedef struct pairwise {
    double level[64]; /* level[k]: the sum of 2^k blocks */
    int64_t blocks;
} pairwise;

static void pairwise_add(pairwise *s, double block)
{
    int k = 0;
    for (int64_t c = s->blocks; c & 1; c >>= 1, k++)
        block = s->level[k] + block;
    s->level[k] = block;
    s->blocks++;
}

static double pairwise_total(const pairwise *s)
{
    double t = 0.0;
    for (int k = 0; k < 64; k++)
        if (s->blocks >> k & 1)
            t += s->level[k];
    return t;
}

static int64_t block_end(int64_t b, int64_t n) { return n - b < BLOCK ? n : b + BLOCK; }

double rd_running_cost_block(const rd_params *p, const double *u, int64_t m)
{
    pairwise s = {.blocks = 0};
    for (int64_t b = 0; b < m; b += BLOCK) {
        double sum = 0.0;
        for (int64_t j = b, e = block_end(b, m); j < e; j++)
            sum += u[j] * u[j];
        pairwise_add(&s, sum);
    }
    return p->weight * pairwise_total(&s) / (2.0 * (double)p->points);
}

double rd_running_cost(const rd_params *p, const double *u)
{
    return rd_running_cost_block(p, u, p->points);
}

double rd_final_cost_block(const rd_params *p, const double *target, const double *un, int64_t m)
{
    pairwise s = {.blocks = 0};
    for (int64_t b = 0; b < m; b += BLOCK) {
        double sum = 0.0;
        for (int64_t j = b, e = block_end(b, m); j < e; j++)
            sum += (un[j] - target[j]) * (un[j] - target[j]);
        pairwise_add(&s, sum);
    }
    return pairwise_total(&s) / (2.0 * (double)p->points);
}

double rd_final_cost(const rd_params *p, const double *target, const double *un)
{
    return rd_final_cost_block(p, target, un, p->points);
}

void rd_final_adjoint_block(const rd_params *p, const double *target, const double *un,
                            double *lambda, int64_t m)
{
    const double inv_n = 1.0 / (double)p->points;
    for (int64_t j = 0; j < m; j++)
        lambda[j] = (un[j] - target[j]) * inv_n;
}

void rd_final_adjoint(const rd_params *p, const double *target, const double *un, double *lambda)
{
    rd_final_adjoint_block(p, target, un, lambda, p->points);
}

/* One point of the adjoint: the transpose of point()'s Jacobian applied to
 * lambda_{i+1}. The stencil is symmetric, so the neighbours enter with s as
 * in the forward step; the centre's derivative depends on u: this is where
 * the forward state is needed. */
static inline double adjoint_point(double s, double q, double c_w, double u, double l, double c,
                                   double r)
{
    return c * (1.0 - 2.0 * s - 3.0 * q * u * u) + s * (l + r) + c_w * u;
}

double rd_adjoint_step_block(const rd_params *p, const double *restrict u, double left,
                             const double *restrict lambda_next, double right,
                             double *restrict lambda, int64_t m)
{
    const double s = p->k * p->dt / (p->h * p->h), q = p->r * p->dt;
    /* d(running term)/du_i[j] = w u_i[j] / N, N the whole grid's points */
    const double c_w = p->weight / (double)p->points;
    const double *ln = lambda_next;
    if (m == 1) {
        lambda[0] = adjoint_point(s, q, c_w, u[0], left, ln[0], right);
    } else {
        lambda[0] = adjoint_point(s, q, c_w, u[0], left, ln[0], ln[1]);
        for (int64_t j = 1; j < m - 1; j++)
            lambda[j] = adjoint_point(s, q, c_w, u[j], ln[j - 1], ln[j], ln[j + 1]);
        lambda[m - 1] = adjoint_point(s, q, c_w, u[m - 1], ln[m - 2], ln[m - 1], right);
    }

    /* dF/dr = -dt u^3: the parameter's share of this step, without the -dt. */
    pairwise s_r = {.blocks = 0};
    for (int64_t b = 0; b < m; b += BLOCK) {
        double sum = 0.0;
        for (int64_t j = b, e = block_end(b, m); j < e; j++)
            sum += ln[j] * u[j] * u[j] * u[j];
        pairwise_add(&s_r, sum);
    }
    return pairwise_total(&s_r);
}

void rd_adjoint_step(const rd_params *p, const double *restrict u,
                     const double *restrict lambda_next, double *restrict lambda, double *grad_r)
{
    const int64_t n = p->points;
    *grad_r -= p->dt * rd_adjoint_step_block(p, u, lambda_next[n - 1], lambda_next,
                                             lambda_next[0], lambda, n);
}

double rd_objective(const rd_params *p, const double *target, const double *u0, double *work)
{
    double *a = work, *b = work + p->points;
    double j_total = 0.0;
    memcpy(a, u0, (size_t)p->points * sizeof *a);
    for (int64_t i = 0; i < p->steps; i++) {
        j_total += rd_running_cost(p, a); /* the term of u_i, i = 0 .. n-1 */
        rd_step(p, a, b);
        double *t = a;
        a = b;
        b = t;
    }
    return j_total + rd_final_cost(p, target, a);
}

void rd_direction(const rd_params *p, uint64_t seed, double *d)
{
    int64_t n = p->points;
    double phase = noise(seed, -1);
    for (int64_t j = 0; j < n; j++) {
        double x = (double)j / (double)n;
        d[j] = sin(two_pi * (3.0 * x + phase)) + 0.5 * noise(seed, j);
    }
}

double rd_dot(const rd_params *p, const double *a, const double *b)
{
    pairwise s = {.blocks = 0};
    for (int64_t k = 0; k < p->points; k += BLOCK) {
        double sum = 0.0;
        for (int64_t j = k, e = block_end(k, p->points); j < e; j++)
            sum += a[j] * b[j];
        pairwise_add(&s, sum);
    }
    return pairwise_total(&s);
}
