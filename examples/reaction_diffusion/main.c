/*
 * example_reaction_diffusion: the gradient of a nonlinear reaction-diffusion
 * objective with respect to the initial condition and the reaction rate, by
 * a hand-written discrete adjoint (model.c) that ebb drives (adjoint.c),
 * keeping the forward states in a small host budget and on disk. The
 * gradient is checked against finite differences of the plain forward loop.
 *
 * This file is the command line and the report; copy model.c and adjoint.c
 * for your own solver.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adjoint.h"
#include "compare.h"
#include "ebb/ebb.h"
#include "model.h"
#include "report.h"

/* The example's budgets, in states, for the keys a --config file leaves
 * unset: 4 states of host memory is far fewer than n, so the run must
 * recompute and use the disk tier; 32 states on disk instead of the default
 * (a share of the free space) keep the demo's file small. */
enum { HOST_STATES = 4, DISK_STATES = 32 };

/* Central differences on doubles: truncation ~eps^2, rounding ~1e-16 / eps. */
static const double check_eps = 1e-6;
/* Measured relative errors are ~1e-9 .. 1e-11 (examples/README.md); a wrong
 * adjoint gives O(1). With lossy compression on the disk or the host
 * (tier.disk.compression, tier.host.compression = "fixed-rate") the restored states are
 * approximations: the gradient is that of a nearby trajectory, held to
 * lossy_bound. */
static const double check_bound = 1e-6, lossy_bound = 1e-4;

static const char usage[] =
    "usage: example_reaction_diffusion [--points N] [--steps n] [--strategy S]\n"
    "                                  [--config FILE] [--no-check] [--exact-check]\n"
    "                                  [--all] [--compare]\n"
    "\n"
    "The gradient of a reaction-diffusion objective by the discrete adjoint, with\n"
    "ebb keeping the forward states (host budget of 4 states, disk tier behind it).\n"
    "  --points N     grid points (default 1048576: 8 MiB states)\n"
    "  --steps n      time steps (default 200)\n"
    "  --strategy S   auto, store-all, periodic, revolve, online, multistage (default),\n"
    "                 disk-revolve\n"
    "  --config FILE  an ebb TOML configuration; keys it does not set keep the\n"
    "                 example's defaults (tier.host.budget = 4 states,\n"
    "                 tier.disk.budget = 32 states, run.strategy = multistage)\n"
    "  --no-check     skip the finite-difference check (4 more forward loops)\n"
    "  --exact-check  also run without compression (revolve in the host budget) and\n"
    "                 print the gradient's relative error against that exact one\n"
    "  --all          also run every other strategy that fits and compare\n"
    "  --compare      also run async and store-all with every state in memory, and\n"
    "                 print each one's time and the bytes it held beside this run's\n";

typedef struct cli {
    int64_t points, steps;
    const char *strategy, *config;
    int check, all, exact, compare;
} cli;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int parse_count(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "ebb: %s: expected an integer from %lld to %lld, got '%s'\n", opt,
                (long long)lo, (long long)hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* 0 to run, 1 to exit with 0 (--help), -1 to exit with 2. */
static int parse_cli(int argc, char **argv, cli *c)
{
    static const struct option longopts[] = {
        {"points", required_argument, 0, 'N'}, {"steps", required_argument, 0, 'n'},
        {"strategy", required_argument, 0, 's'}, {"config", required_argument, 0, 'c'},
        {"check", no_argument, 0, 'k'}, {"no-check", no_argument, 0, 'K'},
        {"all", no_argument, 0, 'a'}, {"exact-check", no_argument, 0, 'e'},
        {"compare", no_argument, 0, 'C'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    *c = (cli){.points = 1048576, .steps = 200, .check = 1};
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'N':
            if (parse_count("--points", optarg, 3, INT64_C(1) << 34, &c->points))
                return -1;
            break;
        case 'n':
            if (parse_count("--steps", optarg, 1, INT64_C(1) << 40, &c->steps))
                return -1;
            break;
        case 's': c->strategy = optarg; break;
        case 'c': c->config = optarg; break;
        case 'k': c->check = 1; break;
        case 'K': c->check = 0; break;
        case 'a': c->all = 1; break;
        case 'e': c->exact = 1; break;
        case 'C': c->compare = 1; break;
        case 'h': fputs(usage, stdout); return 1;
        default:
            fprintf(stderr, "ebb: unknown or incomplete option '%s'\n\n%s", argv[optind - 1], usage);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ebb: unexpected argument '%s'\n\n%s", argv[optind], usage);
        return -1;
    }
    return 0;
}

/* The embedded default, then the file, then the example's own defaults for
 * whatever the file did not set (cfg->line[key] is 0 for those), then
 * --strategy. 0, or -1 with the reason in ebb_last_error(). */
static int setup_config(const cli *c, size_t state, ebb_config *cfg)
{
    if (ebb_config_init_default(cfg) != EBB_OK)
        return -1;
    if (c->config && ebb_config_load_file(c->config, cfg) != EBB_OK)
        return -1;
    if (!cfg->line[EBB_KEY_HOST_BUDGET])
        cfg->host.budget = HOST_STATES * ebb_slot_stride(EBB_TIER_HOST, state, 0);
    if (!cfg->line[EBB_KEY_DISK_BUDGET])
        cfg->disk.budget = DISK_STATES * ebb_slot_stride(EBB_TIER_DISK, state, 0);
    if (!cfg->line[EBB_KEY_RUN_STRATEGY])
        cfg->strategy = cfg->disk.enabled ? EBB_CONFIG_STRATEGY_MULTISTAGE
                                          : EBB_CONFIG_STRATEGY_REVOLVE;
    if (c->strategy) {
        ebb_config_strategy s;
        if (ebb_config_strategy_from_name(c->strategy, &s) != EBB_OK)
            return -1;
        cfg->strategy = s;
    }
    return ebb_config_check(cfg, state) == EBB_OK ? 0 : -1;
}

static double relative_error(double a, double b)
{
    double scale = fmax(fabs(a), fabs(b));
    return scale > 0.0 ? fabs(a - b) / scale : 0.0;
}

/* dJ/du0 . d and dJ/dr against central differences of the plain loop.
 * Returns the larger relative error. */
static double gradient_check(const rd_params *p, const double *target, const double *u0,
                             const rd_adjoint *adj, double *work, double bound)
{
    size_t bytes = (size_t)p->points * sizeof(double);
    double *d = malloc(bytes), *u = malloc(bytes);
    if (!d || !u) {
        free(d);
        free(u);
        fprintf(stderr, "ebb: out of memory for the finite-difference check\n");
        return INFINITY;
    }
    double t0 = now();
    rd_direction(p, 42, d);
    double adjoint_u = rd_dot(p, adj->lambda, d), j_plus, j_minus;
    for (int64_t j = 0; j < p->points; j++)
        u[j] = u0[j] + check_eps * d[j];
    j_plus = rd_objective(p, target, u, work);
    for (int64_t j = 0; j < p->points; j++)
        u[j] = u0[j] - check_eps * d[j];
    j_minus = rd_objective(p, target, u, work);
    double fd_u = (j_plus - j_minus) / (2.0 * check_eps);

    rd_params q = *p;
    q.r = p->r + check_eps;
    j_plus = rd_objective(&q, target, u0, work);
    q.r = p->r - check_eps;
    j_minus = rd_objective(&q, target, u0, work);
    double fd_r = (j_plus - j_minus) / (2.0 * check_eps);

    double err_u = relative_error(adjoint_u, fd_u), err_r = relative_error(adj->grad_r, fd_r);
    printf("\ngradient check: adjoint %.6e, finite differences %.6e, relative error %.1e%s\n",
           adjoint_u, fd_u, err_u, err_u <= bound ? "" : "  <-- TOO LARGE");
    printf("  (dJ/du0 . d for a random direction d; central differences, eps = %g)\n", check_eps);
    printf("gradient check dJ/dr: adjoint %.6e, finite differences %.6e, relative error %.1e%s\n",
           adj->grad_r, fd_r, err_r, err_r <= bound ? "" : "  <-- TOO LARGE");
    printf("  (4 plain forward loops without ebb, %.2f s)\n", now() - t0);
    free(d);
    free(u);
    return fmax(err_u, err_r);
}

/* The gradient's relative error against an exact run: the same problem with
 * compression off on every tier, revolve in the host budget (every strategy
 * without loss gives the bits store-all gives), ||g - g_exact|| / ||g_exact||
 * for dJ/du0 and |dJ/dr - exact| / |exact|. 0, or -1 when the exact run
 * failed. */
static int exact_check(const rd_params *p, const double *target, const double *u0,
                       const ebb_config *cfg, const rd_adjoint *adj)
{
    ebb_config exact;
    rd_adjoint ex = {0};
    if (ebb_config_copy(cfg, &exact) != EBB_OK || rd_adjoint_init(&ex, p, target) != 0) {
        fprintf(stderr, "ebb: cannot set up the exact run: %s\n", ebb_last_error());
        ebb_config_dispose(&exact);
        return -1;
    }
    exact.host.compression.mode = EBB_COMPRESSION_OFF;
    exact.disk.compression.mode = EBB_COMPRESSION_OFF;
    exact.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
    exact.error_samples = 0; /* nothing to estimate */
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.config = &exact;
    rd_result res;
    double t0 = now();
    ebb_status s = rd_gradient(&ex, u0, &o, &res);
    int rc = -1;
    if (s != EBB_OK) {
        fprintf(stderr, "ebb: the exact run failed: %s\n", ebb_last_error());
    } else {
        double dd = 0, ee = 0;
        for (int64_t j = 0; j < p->points; j++) {
            double d = adj->lambda[j] - ex.lambda[j];
            dd += d * d;
            ee += ex.lambda[j] * ex.lambda[j];
        }
        double err_u = ee > 0 ? sqrt(dd / ee) : sqrt(dd);
        double err_r = relative_error(adj->grad_r, ex.grad_r);
        printf("\nexact check: ||dJ/du0 - exact|| / ||exact|| = %.3e, |dJ/dr - exact| / |exact| "
               "= %.3e\n", err_u, err_r);
        printf("  (the exact run: compression off, revolve, %lld recomputed steps, %.2f s)\n",
               (long long)res.stats.recomputed_steps, now() - t0);
        rc = 0;
    }
    rd_adjoint_free(&ex);
    ebb_config_dispose(&exact);
    return rc;
}

int main(int argc, char **argv)
{
    cli c;
    int parsed = parse_cli(argc, argv, &c);
    if (parsed)
        return parsed > 0 ? 0 : 2;

    rd_params p;
    rd_params_default(&p, c.points, c.steps);
    size_t state = (size_t)p.points * sizeof(double);
    ebb_config cfg = {0};
    if (setup_config(&c, state, &cfg) != 0) {
        fprintf(stderr, "ebb: %s\n", ebb_last_error());
        ebb_config_dispose(&cfg);
        return 1;
    }

    int rc = 1;
    rd_adjoint adj = {0};
    double *u0 = malloc(state), *target = malloc(state), *work = malloc(2 * state);
    if (!u0 || !target || !work || rd_adjoint_init(&adj, &p, target) != 0) {
        fprintf(stderr, "ebb: out of memory for a grid of %lld points\n", (long long)p.points);
        goto out;
    }
    rd_initial(&p, u0);
    rd_target(&p, target);
    report_problem(&p, &cfg, c.config);

    ebb_run_options base;
    ebb_run_options_init(&base);
    base.config = &cfg;
    rd_result res;
    ebb_status s = rd_gradient(&adj, u0, &base, &res);
    if (s != EBB_OK) {
        fprintf(stderr, "ebb: %s\n", ebb_last_error());
        /* A budget too small for the strategy: say where the budget came from. */
        if (s == EBB_ERR_NO_MEMORY && !res.created && !cfg.line[EBB_KEY_HOST_BUDGET])
            fprintf(stderr, "ebb: (this example gives the host tier %d states; a --config file "
                            "with [tier.host] budget = \"...\" changes that)\n",
                    HOST_STATES);
        goto out;
    }
    report_run(&res, &cfg);

    /* The same J from the plain loop, bit for bit: the running terms were
     * counted once each, however often ebb recomputed a state. */
    double j_plain = rd_objective(&p, target, u0, work);
    printf("\nobjective J = %.15e (the plain forward loop gives %s)\n", adj.objective,
           memcmp(&j_plain, &adj.objective, sizeof j_plain) == 0 ? "the same bits"
                                                                 : "a DIFFERENT value");
    printf("dJ/dr = %.15e, |dJ/du0| = %.6e\n", adj.grad_r,
           sqrt(rd_dot(&p, adj.lambda, adj.lambda)));
    int ok = memcmp(&j_plain, &adj.objective, sizeof j_plain) == 0;
    int lossy_tier = -1;
    (void)ebb_config_lossy_tier(&cfg, &lossy_tier); /* cannot fail: cfg is loaded */
    double bound = lossy_tier >= 0 ? lossy_bound : check_bound;
    if (c.check) {
        if (lossy_tier >= 0)
            printf("\n(tier.%s.compression = \"%s\" is lossy: the check's bound is %g)",
                   ebb_tier_name((ebb_tier)lossy_tier),
                   ebb_compression_name(lossy_tier == EBB_TIER_HOST
                                            ? cfg.host.compression.mode
                                            : cfg.disk.compression.mode),
                   bound);
        ok &= gradient_check(&p, target, u0, &adj, work, bound) <= bound;
    }
    if (c.exact)
        ok &= exact_check(&p, target, u0, &cfg, &adj) == 0;

    report_stats(&res);
    ok &= report_strategies(&p, &cfg, &res, c.all ? &adj : NULL, u0) == 0;
    if (c.compare)
        ok &= compare_runs(&p, &cfg, &res, &adj, u0) == 0;
    rc = ok ? 0 : 1;
out:
    rd_adjoint_free(&adj);
    free(u0);
    free(target);
    free(work);
    ebb_config_dispose(&cfg);
    return rc;
}
