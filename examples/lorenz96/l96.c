/* Lorenz-96 with RK4 and its discrete adjoint (l96.h). */
#include "l96.h"

#include <string.h>

static int wrap(int i, int n)
{
    return (i % n + n) % n;
}

/* k = f(x) */
static void rhs(const l96 *m, const double *x, double *k)
{
    int n = m->n;
    for (int i = 0; i < n; i++)
        k[i] = (x[wrap(i + 1, n)] - x[wrap(i - 2, n)]) * x[wrap(i - 1, n)] - x[i] + m->f;
}

/* out += J(x)^T v, the transposed Jacobian of f at x applied to v. */
static void rhs_vjp(const l96 *m, const double *x, const double *v, double *out)
{
    int n = m->n;
    for (int j = 0; j < n; j++)
        out[j] += v[wrap(j - 1, n)] * x[wrap(j - 2, n)] - v[wrap(j + 2, n)] * x[wrap(j + 1, n)] +
                  v[wrap(j + 1, n)] * (x[wrap(j + 2, n)] - x[wrap(j - 1, n)]) - v[j];
}

/* The stages of one step: y[s] the input of stage s, k[s] = f(y[s]). */
static void stages(const l96 *m, const double *x, double y[4][L96_MAX_N], double k[4][L96_MAX_N])
{
    static const double c[4] = {0, 0.5, 0.5, 1};
    int n = m->n;
    memcpy(y[0], x, (size_t)n * sizeof *x);
    rhs(m, y[0], k[0]);
    for (int s = 1; s < 4; s++) {
        for (int i = 0; i < n; i++)
            y[s][i] = x[i] + c[s] * m->dt * k[s - 1][i];
        rhs(m, y[s], k[s]);
    }
}

void l96_step(const l96 *m, const double *in, double *out)
{
    static _Thread_local double y[4][L96_MAX_N], k[4][L96_MAX_N];
    stages(m, in, y, k);
    double h = m->dt;
    for (int i = 0; i < m->n; i++)
        out[i] = in[i] + h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
}

void l96_step_adjoint(const l96 *m, const double *x, double *lambda, double *grad_f)
{
    static _Thread_local double y[4][L96_MAX_N], k[4][L96_MAX_N], kb[4][L96_MAX_N],
        yb[L96_MAX_N];
    static const double w[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}, c[4] = {0, 0.5, 0.5, 1};
    int n = m->n;
    double h = m->dt;
    stages(m, x, y, k);
    for (int s = 0; s < 4; s++)
        for (int i = 0; i < n; i++)
            kb[s][i] = h * w[s] * lambda[i];
    /* lambda stays the adjoint of x (out = x + ...); each stage, last first:
     * k[s] = f(y[s]), y[s] = x + c[s] h k[s-1] */
    for (int s = 3; s >= 0; s--) {
        memset(yb, 0, (size_t)n * sizeof *yb);
        rhs_vjp(m, y[s], kb[s], yb);
        for (int i = 0; i < n; i++) {
            *grad_f += kb[s][i];
            lambda[i] += yb[i];
            if (s > 0)
                kb[s - 1][i] += c[s] * h * yb[i];
        }
    }
}

void l96_initial(const l96 *m, int spinup, double *x)
{
    static _Thread_local double t[L96_MAX_N];
    for (int i = 0; i < m->n; i++)
        x[i] = m->f + 0.01 * (double)((i * 7919) % 13 - 6);
    for (int s = 0; s < spinup; s++) {
        l96_step(m, x, t);
        memcpy(x, t, (size_t)m->n * sizeof *x);
    }
}
