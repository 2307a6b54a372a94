/* example_lorenz96 runs: its adjoint passes the finite-difference check and,
 * without compression, gives bitwise the plain loop's gradient; with a fixed
 * rate of 16 bits it prints ebb's error estimate (> 0) beside the gradient's
 * true relative error (> 0); with uneven windows whose costs ebb is told it
 * stays bitwise exact and recomputes fewer RK4 steps than without them, and
 * so does online with the costs measured in the run. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support/cli_run.h"

#ifdef EBB_EXAMPLE_L96_PATH
Test(example_lorenz96, exact_and_checked)
{
    const char *args[] = {"--steps", "60", "--slots", "4", "--fd-check", "--exact-check", NULL};
    cli_result r = cli_runv_program(EBB_EXAMPLE_L96_PATH, args);
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    cr_assert(strstr(r.out, "|dJ/dx0 - exact| / |exact| = 0.000e+00"), "%s", r.out);
    cr_assert(strstr(r.out, "finite differences: dJ/dF"), "%s", r.out);
    cr_assert_null(strstr(r.out, "TOO LARGE"), "%s", r.out);
    cli_free(&r);
}

Test(example_lorenz96, lossy_estimate_beside_the_true_error)
{
    const char *args[] = {"--steps", "200", "--rate", "16", "--error-samples", "16",
                          "--exact-check", NULL};
    cli_result r = cli_runv_program(EBB_EXAMPLE_L96_PATH, args);
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    const char *f = strstr(r.out, "figures: ");
    cr_assert_not_null(f, "%s", r.out);
    double rate, true_x0, true_f, est_max, est_rms;
    long steps, slots;
    long long samples;
    cr_assert_eq(sscanf(f, "figures: rate %lf steps %ld slots %ld true_x0 %lf true_F %lf "
                        "est_max %lf est_rms %lf samples %lld",
                        &rate, &steps, &slots, &true_x0, &true_f, &est_max, &est_rms, &samples),
                 8, "%s", f);
    cr_assert_eq(samples, 16);
    cr_assert_gt(true_x0, 0);
    cr_assert_gt(est_max, 0);
    cr_assert_geq(est_max, est_rms);
    cli_free(&r);
}
/* The RK4 steps recomputed by forward steps, from the --uneven line. */
static long recomputed(const char *out)
{
    const char *f = strstr(out, "recomputed by forward steps: ");
    cr_assert_not_null(f, "%s", out);
    return strtol(f + strlen("recomputed by forward steps: "), NULL, 10);
}

Test(example_lorenz96, uneven_windows_cost_less_told)
{
    long got[2];
    for (int told = 0; told < 2; told++) {
        const char *args[] = {"--steps", "30", "--slots", "3", "--dt", "0.002", "--uneven",
                              "--fd-check", "--exact-check", told ? NULL : "--no-costs", NULL};
        cli_result r = cli_runv_program(EBB_EXAMPLE_L96_PATH, args);
        cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
        cr_assert(strstr(r.out, "|dJ/dx0 - exact| / |exact| = 0.000e+00"), "%s", r.out);
        cr_assert_null(strstr(r.out, "TOO LARGE"), "%s", r.out);
        got[told] = recomputed(r.out);
        cli_free(&r);
    }
    cr_assert_lt(got[1], got[0], "told %ld, not told %ld", got[1], got[0]);
}
/* --measured: the second run takes the first one's step times as costs;
 * both stay bitwise exact (the times are too noisy here to assert a count). */
Test(example_lorenz96, measured_costs_feed_the_next_run)
{
    const char *args[] = {"--steps", "30", "--slots", "3", "--dt", "0.002", "--uneven",
                          "--measured", "--exact-check", NULL};
    cli_result r = cli_runv_program(EBB_EXAMPLE_L96_PATH, args);
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    const char *second = strstr(r.out, "measured by the run above, told to ebb");
    cr_assert_not_null(second, "%s", r.out);
    cr_assert(strstr(r.out, "|dJ/dx0 - exact| / |exact| = 0.000e+00"), "%s", r.out);
    cr_assert(strstr(second, "|dJ/dx0 - exact| / |exact| = 0.000e+00"), "%s", r.out);
    cli_free(&r);
}
/* --online --measure-in-run: n unknown to ebb, the reverse sweep planned
 * from the forward's measured window times recomputes fewer RK4 steps than
 * online's binomial reversal (416 against 502 on the development machine),
 * bitwise exact either way. */
Test(example_lorenz96, online_measured_in_run_recomputes_less)
{
    long got[2];
    for (int measure = 0; measure < 2; measure++) {
        const char *args[] = {"--steps", "32", "--slots", "2", "--dt", "0.002", "--uneven",
                              "--exact-check", "--online", measure ? "--measure-in-run" : NULL,
                              NULL};
        cli_result r = cli_runv_program(EBB_EXAMPLE_L96_PATH, args);
        cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
        cr_assert(strstr(r.out, "|dJ/dx0 - exact| / |exact| = 0.000e+00"), "%s", r.out);
        cr_assert(strstr(r.out, measure ? "measured in the run" : "not told to ebb"), "%s",
                  r.out);
        got[measure] = recomputed(r.out);
        cli_free(&r);
    }
    cr_assert_lt(got[1], got[0], "measured in the run %ld, not %ld", got[1], got[0]);
}
#else
Test(example_lorenz96, not_built)
{
    cr_skip_test("example_lorenz96 is not built");
}
#endif
