/*
 * example_lorenz96: the gradient of J = 1/2 |x_n|^2 with respect to x_0 and
 * to the forcing F of Lorenz-96 (N = 40, F = 8: chaotic), by the discrete
 * adjoint of RK4 (l96.c) that ebb drives, its states kept in a few host
 * slots, compressed with zfp at a fixed rate when --rate is given. With
 * --error-samples K ebb keeps K exact states of the first sweep and reports
 * how far the states the reverse sweep was given are from them (its lossy
 * error estimate); --exact-check also runs the plain loop with every state
 * kept exactly and prints the gradient's true relative error beside it.
 * With --uneven each of ebb's steps is a window of 1 to 16 RK4 steps (the
 * intervals between observations of a data-assimilation window, say), and
 * ebb is told each window's cost (ebb_run_options.forward_costs,
 * reverse_costs): revolve then runs the schedule of least total cost for
 * them; --no-costs runs plain Revolve to compare; --measured runs twice, the
 * second run taking the first one's measured step times as its costs
 * (ebb_run_step_times). --online runs strategy online with n unknown to ebb
 * until the forward ends; with --measure-in-run ebb times that forward's
 * steps and plans the reverse sweep from those times
 * (ebb_run_options.measure_costs).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "l96.h"

static const char usage[] =
    "usage: example_lorenz96 [--steps n] [--dt h] [--slots C] [--rate R]\n"
    "                        [--error-samples K] [--exact-check] [--fd-check]\n"
    "                        [--uneven [--no-costs | --measured]]\n"
    "                        [--online [--measure-in-run]]\n"
    "\n"
    "The gradient of 1/2 |x_n|^2 with respect to x_0 and F for Lorenz-96 (N = 40,\n"
    "F = 8), RK4 steps and their discrete adjoint, ebb keeping the states (revolve in\n"
    "C host slots, no disk).\n"
    "  --steps n          RK4 steps (default 1000)\n"
    "  --dt h             step (default 0.01)\n"
    "  --slots C          host slots of the schedule (default 10)\n"
    "  --rate R           compress the host slots with zfp at R bits per value\n"
    "                     (tier.host.compression = \"fixed-rate\"); 0 (default): off\n"
    "  --error-samples K  ebb's lossy error estimate from K exact states (default:\n"
    "                     run.error_samples, 0: off)\n"
    "  --exact-check      also compute the gradient with every state kept exactly\n"
    "                     and print its relative error beside the estimate\n"
    "  --fd-check         check dJ/dF against central differences of the plain loop\n"
    "                     (relative error at most 1e-5 without --rate)\n"
    "  --uneven           each step is a window of 1 to 16 RK4 steps, its cost told\n"
    "                     to ebb (forward: its RK4 steps; reverse: twice that)\n"
    "  --no-costs         with --uneven, do not tell ebb the costs (plain Revolve)\n"
    "  --measured         with --uneven, run twice: the first run as --no-costs, the\n"
    "                     second with the first one's measured step times as costs\n"
    "  --online           strategy online, n unknown to ebb until the forward ends (no\n"
    "                     costs told; not with --measured)\n"
    "  --measure-in-run   with --online, ebb times the forward's steps and plans the\n"
    "                     reverse sweep from those times\n";

typedef struct cli {
    long steps, slots, samples;
    double dt, rate;
    int exact, fd, uneven, no_costs, measured, online, measure_in_run;
} cli;

enum { MAX_WINDOW = 16 };

typedef struct model {
    l96 m;
    double lambda[L96_MAX_N];
    double grad_f;
    const int *window;  /* RK4 steps of each ebb step; NULL: one each */
    long rk4_forward;   /* RK4 steps of forward steps: first sweep and recomputations */
    long rk4_reverse;   /* RK4 steps the reverse steps rerun */
    double (*xs)[L96_MAX_N]; /* a window's states, for its reverse step */
    int64_t last;       /* n unknown to ebb: the first sweep's last step; -1: n known */
    int ended;          /* the first sweep said it ended */
} model;

static int window_of(const model *md, int64_t step)
{
    return md->window ? md->window[step] : 1;
}

/* The RK4 steps of window `step` from in, keeping their inputs in keep[]
 * (NULL: not kept); out = the window's last state. */
static long run_window(model *md, int64_t step, const double *in, double *out,
                       double (*keep)[L96_MAX_N])
{
    int w = window_of(md, step);
    double a[L96_MAX_N], b[L96_MAX_N];
    size_t bytes = (size_t)md->m.n * sizeof *a;
    memcpy(a, in, bytes);
    for (int k = 0; k < w; k++) {
        if (keep)
            memcpy(keep[k], a, bytes);
        l96_step(&md->m, a, k == w - 1 ? out : b);
        memcpy(a, b, bytes);
    }
    return w;
}

static int forward(void *user, int64_t step, const void *in, void *out)
{
    model *md = user;
    md->rk4_forward += run_window(md, step, in, out, NULL);
    if (step == md->last && !md->ended) {
        md->ended = 1;
        return EBB_STEP_LAST; /* x_{step+1} is the last state */
    }
    return EBB_STEP_OK;
}

/* The window's adjoint: its RK4 steps again from x_step, keeping their
 * inputs, then their adjoints, last first. */
static int reverse(void *user, int64_t step, void *state)
{
    model *md = user;
    double out[L96_MAX_N];
    int w = window_of(md, step);
    if (w > 1)
        md->rk4_reverse += run_window(md, step, state, out, md->xs);
    else
        memcpy(md->xs[0], state, (size_t)md->m.n * sizeof out[0]);
    for (int k = w - 1; k >= 0; k--)
        l96_step_adjoint(&md->m, md->xs[k], md->lambda, &md->grad_f);
    return EBB_STEP_OK;
}

static int parse(int argc, char **argv, cli *c)
{
    static const struct option longopts[] = {
        {"steps", required_argument, 0, 'n'}, {"dt", required_argument, 0, 'd'},
        {"slots", required_argument, 0, 'c'}, {"rate", required_argument, 0, 'r'},
        {"error-samples", required_argument, 0, 'k'}, {"exact-check", no_argument, 0, 'e'},
        {"fd-check", no_argument, 0, 'f'}, {"uneven", no_argument, 0, 'u'},
        {"no-costs", no_argument, 0, 'o'}, {"measured", no_argument, 0, 'm'},
        {"online", no_argument, 0, 'O'}, {"measure-in-run", no_argument, 0, 'M'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    *c = (cli){.steps = 1000, .slots = 10, .samples = -1, .dt = 0.01};
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (ch) {
        case 'n': c->steps = strtol(optarg, &end, 10); break;
        case 'd': c->dt = strtod(optarg, &end); break;
        case 'c': c->slots = strtol(optarg, &end, 10); break;
        case 'r': c->rate = strtod(optarg, &end); break;
        case 'k': c->samples = strtol(optarg, &end, 10); break;
        case 'e': c->exact = 1; break;
        case 'f': c->fd = 1; break;
        case 'u': c->uneven = 1; break;
        case 'o': c->no_costs = 1; break;
        case 'm': c->measured = 1; break;
        case 'O': c->online = 1; break;
        case 'M': c->measure_in_run = 1; break;
        case 'h': fputs(usage, stdout); return 1;
        default:
            fprintf(stderr, "ebb: unknown or incomplete option '%s'\n\n%s", argv[optind - 1],
                    usage);
            return -1;
        }
        if (end && (*end || end == optarg)) {
            fprintf(stderr, "ebb: %s: not a number: '%s'\n", argv[optind - 2], optarg);
            return -1;
        }
    }
    if (optind < argc || c->steps < 1 || c->slots < 1 || !(c->dt > 0) || c->rate < 0 ||
        c->samples < -1 || ((c->no_costs || c->measured) && !c->uneven) ||
        (c->no_costs && c->measured) || (c->online && c->measured) ||
        (c->measure_in_run && !c->online)) {
        fprintf(stderr, "ebb: expected --steps >= 1, --slots >= 1, --dt > 0, --rate >= 0, "
                        "--error-samples >= 0, one of --no-costs and --measured, only with "
                        "--uneven, --measured not with --online, --measure-in-run only with "
                        "--online\n\n%s", usage);
        return -1;
    }
    return 0;
}

/* The plain loop over `steps` RK4 steps: every state kept exactly, then the
 * adjoint. */
static void exact_gradient(const l96 *m, long steps, const double *x0, double *lambda,
                           double *grad_f)
{
    size_t n = (size_t)m->n;
    double *xs = malloc((size_t)(steps + 1) * n * sizeof *xs);
    if (!xs) {
        fprintf(stderr, "ebb: out of memory for %ld states\n", steps + 1);
        exit(1);
    }
    memcpy(xs, x0, n * sizeof *xs);
    for (long s = 0; s < steps; s++)
        l96_step(m, xs + (size_t)s * n, xs + (size_t)(s + 1) * n);
    memcpy(lambda, xs + (size_t)steps * n, n * sizeof *lambda);
    *grad_f = 0;
    for (long s = steps - 1; s >= 0; s--)
        l96_step_adjoint(m, xs + (size_t)s * n, lambda, grad_f);
    free(xs);
}

/* J of the plain loop of `steps` RK4 steps with forcing f. */
static double objective(l96 m, double f, long steps, const double *x0)
{
    double a[L96_MAX_N], b[L96_MAX_N], j = 0;
    m.f = f;
    memcpy(a, x0, (size_t)m.n * sizeof *a);
    for (long s = 0; s < steps; s++) {
        l96_step(&m, a, b);
        memcpy(a, b, (size_t)m.n * sizeof *a);
    }
    for (int i = 0; i < m.n; i++)
        j += 0.5 * a[i] * a[i];
    return j;
}

static double rel_l2(const double *a, const double *b, int n)
{
    double dd = 0, bb = 0;
    for (int i = 0; i < n; i++) {
        dd += (a[i] - b[i]) * (a[i] - b[i]);
        bb += b[i] * b[i];
    }
    return bb > 0 ? sqrt(dd / bb) : sqrt(dd);
}

/* The run and its report, with the steps' costs fcost and rcost (NULL:
 * none; `costs` says where they come from); measured_f and measured_r (NULL:
 * not asked) get its step times. Returns the exit code. */
static int solve(const cli *c, model *md, const double *x0, const double *fcost,
                 const double *rcost, const char *costs, long rk4_total, double *measured_f,
                 double *measured_r)
{
    md->grad_f = 0;
    md->rk4_forward = md->rk4_reverse = 0;
    md->last = c->online ? c->steps - 1 : -1;
    md->ended = 0;
    size_t state = (size_t)md->m.n * sizeof(double);
    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK) {
        fprintf(stderr, "ebb: %s\n", ebb_last_error());
        return 1;
    }
    cfg.disk.enabled = 0;
    cfg.gpu.enabled = 0;
    cfg.host.budget = (uint64_t)1 << 20;
    cfg.strategy = c->online ? EBB_CONFIG_STRATEGY_ONLINE : EBB_CONFIG_STRATEGY_REVOLVE;
    if (c->rate > 0) {
        cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
        cfg.host.compression.element = EBB_ELEMENT_FLOAT64;
        cfg.host.compression.rate = c->rate;
    }
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = state;
    o.steps = c->online ? 0 : c->steps;
    o.measure_costs = c->measure_in_run;
    o.forward = forward;
    o.reverse = reverse;
    o.user = md;
    o.config = &cfg;
    o.slots = (int32_t)c->slots;
    o.element = EBB_ELEMENT_FLOAT64;
    o.error_samples = (int32_t)c->samples;
    o.forward_costs = fcost;
    o.reverse_costs = rcost;

    ebb_run *run = NULL;
    void *xn = NULL;
    ebb_run_stats st;
    ebb_run_info info;
    if (ebb_run_create(&o, &run) != EBB_OK || ebb_run_forward(run, x0, &xn) != EBB_OK) {
        fprintf(stderr, "ebb: %s\n", ebb_last_error());
        ebb_run_destroy(run);
        ebb_config_dispose(&cfg);
        return 1;
    }
    double j = 0;
    for (int i = 0; i < md->m.n; i++) {
        md->lambda[i] = ((double *)xn)[i];
        j += 0.5 * md->lambda[i] * md->lambda[i];
    }
    if (ebb_run_reverse(run) != EBB_OK || ebb_run_stats_get(run, &st) != EBB_OK ||
        ebb_run_info_get(run, &info) != EBB_OK ||
        (measured_f && ebb_run_step_times(run, measured_f, measured_r, c->steps) != EBB_OK)) {
        fprintf(stderr, "ebb: %s\n", ebb_last_error());
        ebb_run_destroy(run);
        ebb_config_dispose(&cfg);
        return 1;
    }
    double norm = 0;
    for (int i = 0; i < md->m.n; i++)
        norm += md->lambda[i] * md->lambda[i];
    printf("lorenz96: N = %d, F = %g, dt = %g, %ld steps (T = %g), %s in %ld host slots, "
           "compression %s",
           md->m.n, md->m.f, md->m.dt, c->steps, (double)rk4_total * md->m.dt, info.strategy_name,
           c->slots, c->rate > 0 ? "fixed-rate" : "off");
    if (c->uneven)
        printf("\nuneven windows: %ld RK4 steps in %ld windows of 1 to %d, their costs %s; "
               "RK4 steps recomputed by forward steps: %ld (%.3f x the first sweep's)",
               rk4_total, c->steps, MAX_WINDOW, costs,
               md->rk4_forward - rk4_total,
               (double)(md->rk4_forward - rk4_total) / (double)rk4_total);
    if (c->rate > 0)
        printf(" (rate %g bits per value)", c->rate);
    printf("\nJ = %.15e, |dJ/dx0| = %.6e, dJ/dF = %.6e, %lld recomputed steps\n", j, sqrt(norm),
           md->grad_f, (long long)st.recomputed_steps);
    if (info.error_samples > 0)
        printf("ebb's estimate: gradient relative error %.3e (state relative error max %.3e, "
               "rms %.3e over %lld sampled states; %lld not bitwise exact; %llu bytes of exact "
               "copies)\n",
               st.gradient_rel_error_estimate, st.state_rel_error_max, st.state_rel_error_rms,
               (long long)st.error_samples,
               (long long)st.error_samples_differ, (unsigned long long)info.error_sample_bytes);
    int rc = 0;
    if (c->exact) {
        double lambda[L96_MAX_N], grad_f;
        exact_gradient(&md->m, rk4_total, x0, lambda, &grad_f);
        double err_x = rel_l2(md->lambda, lambda, md->m.n);
        double err_f = fabs(md->grad_f - grad_f) / fmax(fabs(grad_f), 1e-300);
        printf("exact check: |dJ/dx0 - exact| / |exact| = %.3e, |dJ/dF - exact| / |exact| = "
               "%.3e\n", err_x, err_f);
        if (info.error_samples > 0)
            printf("estimate / true (dJ/dx0): %.3g\n",
                   err_x > 0 ? st.gradient_rel_error_estimate / err_x : NAN);
        printf("figures: rate %g steps %ld slots %ld true_x0 %.6e true_F %.6e est_max %.6e "
               "est_rms %.6e samples %lld estimate %.6e\n",
               c->rate, c->steps, c->slots, err_x, err_f,
               info.error_samples > 0 ? st.state_rel_error_max : NAN,
               info.error_samples > 0 ? st.state_rel_error_rms : NAN,
               (long long)st.error_samples,
               info.error_samples > 0 ? st.gradient_rel_error_estimate : NAN);
        if (c->rate == 0 && (err_x != 0 || err_f != 0)) {
            printf("  <-- NOT EXACT: without compression the gradient must be bitwise the "
                   "plain loop's\n");
            rc = 1;
        }
    }
    if (c->fd) {
        const double eps = 1e-6;
        double fd = (objective(md->m, md->m.f + eps, rk4_total, x0) -
                     objective(md->m, md->m.f - eps, rk4_total, x0)) / (2 * eps);
        double err = fabs(fd - md->grad_f) / fmax(fabs(fd), 1e-300);
        /* a lossy run's gradient is that of a nearby trajectory: no bound */
        int bad = c->rate == 0 && err > 1e-5;
        printf("finite differences: dJ/dF = %.6e, adjoint %.6e, relative error %.1e%s\n", fd,
               md->grad_f, err,
               c->rate > 0 ? "  (lossy: not held to the bound 1e-5)" : bad ? "  <-- TOO LARGE" : "");
        if (bad)
            rc = 1;
    }
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
    return rc;
}

int main(int argc, char **argv)
{
    cli c;
    int parsed = parse(argc, argv, &c);
    if (parsed)
        return parsed > 0 ? 0 : 2;
    model md = {.m = {.n = 40, .f = 8.0, .dt = c.dt}};
    double x0[L96_MAX_N];
    l96_initial(&md.m, 1000, x0);
    /* the windows (one RK4 step each without --uneven) and their costs */
    int *window = malloc(sizeof *window * (size_t)c.steps);
    double *fcost = malloc(sizeof *fcost * (size_t)c.steps);
    double *rcost = malloc(sizeof *rcost * (size_t)c.steps);
    md.xs = malloc(sizeof *md.xs * MAX_WINDOW);
    if (!window || !fcost || !rcost || !md.xs) {
        fprintf(stderr, "ebb: out of memory for %ld steps\n", c.steps);
        return 1;
    }
    long rk4_total = 0;
    for (long i = 0; i < c.steps; i++) {
        /* a fixed uneven pattern: mostly windows of 1 to 3 RK4 steps, one in
         * five of MAX_WINDOW (a gap between observations) */
        unsigned long h = (unsigned long)i * 2654435761u % 1000003u;
        window[i] = !c.uneven ? 1 : h % 5 == 0 ? MAX_WINDOW : 1 + (int)(h % 3);
        fcost[i] = window[i];
        rcost[i] = 2.0 * window[i];
        rk4_total += window[i];
    }
    md.window = c.uneven ? window : NULL;
    int rc;
    if (c.measured) {
        rc = solve(&c, &md, x0, NULL, NULL, "not told to ebb (measured for the next run)",
                   rk4_total, fcost, rcost);
        if (rc == 0)
            rc = solve(&c, &md, x0, fcost, rcost, "measured by the run above, told to ebb",
                       rk4_total, NULL, NULL);
    } else if (c.online) {
        rc = solve(&c, &md, x0, NULL, NULL,
                   c.measure_in_run ? "measured in the run" : "not told to ebb", rk4_total, NULL,
                   NULL);
    } else if (c.uneven && !c.no_costs) {
        rc = solve(&c, &md, x0, fcost, rcost, "told to ebb", rk4_total, NULL, NULL);
    } else {
        rc = solve(&c, &md, x0, NULL, NULL, "not told to ebb", rk4_total, NULL, NULL);
    }
    free(window);
    free(fcost);
    free(rcost);
    free(md.xs);
    return rc;
}
