/* The reaction-diffusion example's gradient is right: through ebb with a
 * host budget of 3 slots and the disk tier behind it (multistage), dJ/du0
 * and dJ/dr agree with central differences of the plain forward loop, and J
 * is the plain loop's to the bit (no running term counted twice when ebb
 * recomputes a state). */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The example's own code, compiled into this test (no subprocess). */
#include "examples/reaction_diffusion/adjoint.c"
#include "examples/reaction_diffusion/model.c"

/* Measured for N = 4096, n = 60, eps = 1e-6: relative errors 4e-11 (dJ/du0.d)
 * and 2e-10 (dJ/dr). Handing the adjoint u_{i+1} instead of u_i gives 0.1;
 * a sign error in the adjoint gives O(1). */
static const double bound = 1e-6, eps = 1e-6;

#include "tmpdir.h"

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(a), fabs(b)); }

Test(reaction_diffusion, gradient_matches_finite_differences_through_disk)
{
    rd_params p;
    rd_params_default(&p, 4096, 60);
    size_t bytes = (size_t)p.points * sizeof(double);
    double *u0 = malloc(bytes), *target = malloc(bytes), *d = malloc(bytes), *u = malloc(bytes);
    double *work = malloc(2 * bytes);
    cr_assert(u0 && target && d && u && work);
    rd_initial(&p, u0);
    rd_target(&p, target);

    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    const char *paths[] = {dir};
    cr_assert_eq(ebb_config_set_disk_paths(&cfg, paths, 1), EBB_OK, "%s", ebb_last_error());
    cfg.gpu.enabled = 0;
    /* Budgets of exactly the slots asked for below (ebb's working and
     * staging buffers come on top of the budget). */
    cfg.host.budget = 3 * bytes;
    cfg.disk.budget = 4 * bytes;

    ebb_run_options o;
    ebb_run_options_init(&o);
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_MULTISTAGE;
    o.slots = 3;
    o.slow_slots = 4;

    rd_adjoint a;
    rd_result res;
    cr_assert_eq(rd_adjoint_init(&a, &p, target), 0);
    cr_assert_eq(rd_gradient(&a, u0, &o, &res), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(a.next_reverse, -1, "every reverse step ran once");

    /* It really ran from the disk tier, and recomputed. */
    cr_expect_eq(res.info.strategy, EBB_STRATEGY_MULTISTAGE);
    cr_expect_eq(res.info.slots[EBB_TIER_HOST], 3);
    cr_expect_eq(res.info.slots[EBB_TIER_DISK], 4);
    cr_expect_gt(res.stats.stores[EBB_TIER_DISK], 0);
    cr_expect_gt(res.stats.restores[EBB_TIER_DISK], 0);
    cr_expect_gt(res.stats.recomputed_steps, 0);
    cr_expect_eq(res.stats.reverse_steps, p.steps);

    double j = rd_objective(&p, target, u0, work);
    cr_expect(memcmp(&j, &a.objective, sizeof j) == 0, "J through ebb %.17g, plain loop %.17g",
              a.objective, j);

    rd_direction(&p, 7, d);
    double adjoint_u = rd_dot(&p, a.lambda, d);
    for (int64_t i = 0; i < p.points; i++)
        u[i] = u0[i] + eps * d[i];
    double jp = rd_objective(&p, target, u, work);
    for (int64_t i = 0; i < p.points; i++)
        u[i] = u0[i] - eps * d[i];
    double jm = rd_objective(&p, target, u, work);
    double fd_u = (jp - jm) / (2 * eps);
    cr_log_info("dJ/du0.d: adjoint %.10e, finite differences %.10e, relative error %.2e",
                adjoint_u, fd_u, rel(adjoint_u, fd_u));
    cr_expect_leq(rel(adjoint_u, fd_u), bound, "dJ/du0.d: adjoint %.10e, finite differences %.10e",
                  adjoint_u, fd_u);

    rd_params q = p;
    q.r = p.r + eps;
    jp = rd_objective(&q, target, u0, work);
    q.r = p.r - eps;
    jm = rd_objective(&q, target, u0, work);
    double fd_r = (jp - jm) / (2 * eps);
    cr_log_info("dJ/dr: adjoint %.10e, finite differences %.10e, relative error %.2e", a.grad_r,
                fd_r, rel(a.grad_r, fd_r));
    cr_expect_leq(rel(a.grad_r, fd_r), bound, "dJ/dr: adjoint %.10e, finite differences %.10e",
                  a.grad_r, fd_r);

    rd_adjoint_free(&a);
    ebb_config_dispose(&cfg);
    free(u0);
    free(target);
    free(d);
    free(u);
    free(work);
}
