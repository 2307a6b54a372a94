/* `ebb run` with a lossy tier: the exact run (compression off on every
 * tier) and the gradient's relative error against it, in --json and the
 * table; 0 without loss, not measured with --no-exact; lossy random states
 * and lossy --mpi without --no-exact refused. */
#include <math.h>
#include <stdint.h>

#include "support/cli_run.h"

static char dir[256], plain[512], lossless[512], rate[3][512];
static const int rates[3] = {12, 16, 32};

static void write_config(const char *path, const char *host, const char *disk)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fprintf(f, "[run]\nstrategy = \"revolve\"\n[tier.host]\nbudget = \"1 MiB\"\n%s"
               "[tier.disk]\npath = \"%s\"\nbudget = \"64 MiB\"\n%s",
            host, dir, disk);
    fclose(f);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ebb-run-exact-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(plain, sizeof plain, "%s/plain.toml", dir);
    write_config(plain, "", "");
    snprintf(lossless, sizeof lossless, "%s/lossless.toml", dir);
    write_config(lossless, "", "compression = \"lossless\"\n");
    for (int i = 0; i < 3; i++) {
        char host[128];
        snprintf(rate[i], sizeof rate[i], "%s/rate%d.toml", dir, rates[i]);
        snprintf(host, sizeof host, "compression = \"fixed-rate\"\nrate = %d\n", rates[i]);
        write_config(rate[i], host, "");
    }
}

static void teardown(void)
{
    remove(plain);
    remove(lossless);
    for (int i = 0; i < 3; i++)
        remove(rate[i]);
    rmdir(dir);
}

/* The string after "key": into out (16 hex digits or a phrase). */
static void string(const char *json, const char *key, char *out, size_t len)
{
    const char *p = json_find(json, key, NULL);
    cr_assert_not_null(p, "no %s in %s", key, json);
    cr_assert_eq(*p, '"', "%s: %s", key, p);
    size_t n = strcspn(p + 1, "\"");
    cr_assert_lt(n, len);
    memcpy(out, p + 1, n);
    out[n] = '\0';
}

static cli_result run(const char *config, const char *data, const char *element,
                      const char *seed, const char *extra)
{
    const char *args[] = {"run", "--config", config, "--steps", "100", "--state-size", "256KiB",
                          "--data", data, "--element", element, "--seed", seed, "--json",
                          extra, NULL};
    cli_result r = cli_runv(args);
    cr_assert_eq(r.status, 0, "%s --data %s --element %s: %s", config, data, element, r.err);
    return r;
}

/* Every float case at three rates: the error is above 0 and under the
 * bound measured at rate 16 (with margin), falls as the rate rises, and is
 * measured against a run whose gradient is compression off's, bitwise. */
Test(run_cli_exact, lossy_error_measured_against_compression_off, .init = setup,
     .fini = teardown, .timeout = 600)
{
    const char *data[] = {"smooth", "sparse"}, *element[] = {"float64", "float32"};
    /* rate 16, 100 steps of 256 KiB, revolve: at most 6.9e-7 (smooth) and
     * 2.9e-4 (sparse) measured over seeds 0..2 (docs/compression.md) */
    const double bound16[] = {1e-5, 1e-3};
    const char *seeds[] = {"0", "3"};
    for (int d = 0; d < 2; d++)
        for (int e = 0; e < 2; e++)
            for (int s = 0; s < 2; s++) {
                cli_result off = run(plain, data[d], element[e], seeds[s], NULL);
                char g_off[64], g[64], g_exact[64], from[128];
                string(off.out, "gradient", g_off, sizeof g_off);
                cr_assert_eq(json_figure(off.out, "gradient_rel_error"), 0.0, "%s", off.out);
                double err[3];
                for (int i = 0; i < 3; i++) {
                    cli_result r = run(rate[i], data[d], element[e], seeds[s], NULL);
                    err[i] = json_figure(r.out, "gradient_rel_error");
                    string(r.out, "gradient", g, sizeof g);
                    string(r.out, "exact_gradient", g_exact, sizeof g_exact);
                    string(r.out, "gradient_rel_error_from", from, sizeof from);
                    cr_assert_str_eq(from, "the exact run");
                    /* the exact run is compression off's, whatever its slots */
                    cr_assert_str_eq(g_exact, g_off, "--data %s --element %s rate %d",
                                     data[d], element[e], rates[i]);
                    if (rates[i] == 16) {
                        cr_assert_str_neq(g, g_off, "a lossy run gave the exact states");
                        cr_assert(err[i] > 0 && err[i] < bound16[d],
                                  "--data %s --element %s seed %s rate 16: error %g, bound %g",
                                  data[d], element[e], seeds[s], err[i], bound16[d]);
                    }
                    cli_free(&r);
                }
                cr_assert(err[0] > err[1] && err[1] > err[2],
                          "--data %s --element %s seed %s: errors %g, %g, %g at rates 12, 16, "
                          "32 do not fall",
                          data[d], element[e], seeds[s], err[0], err[1], err[2]);
                cli_free(&off);
            }
}

Test(run_cli_exact, lossless_and_off_report_zero, .init = setup, .fini = teardown)
{
    cli_result off = run(plain, "smooth", "float64", "0", NULL);
    cli_result on = run(lossless, "smooth", "float64", "0", NULL);
    char a[64], b[64], from[128];
    string(off.out, "gradient", a, sizeof a);
    string(on.out, "gradient", b, sizeof b);
    cr_assert_str_eq(a, b);
    cr_assert_eq(json_figure(on.out, "gradient_rel_error"), 0.0, "%s", on.out);
    string(on.out, "gradient_rel_error_from", from, sizeof from);
    cr_assert_str_eq(from, "exact: compression off or lossless");
    cr_assert_null(strstr(on.out, "exact_gradient"), "no exact run without loss: %s", on.out);
    cli_free(&off);
    cli_free(&on);
    const char *args[] = {"run", "--config", lossless, "--steps", "50", "--state-size", "64KiB",
                          "--data", "sparse", NULL};
    cli_result t = cli_runv(args);
    cr_assert_eq(t.status, 0, "%s", t.err);
    cr_assert_not_null(strstr(t.out, "\ngradient relative error: 0 (tier.disk.compression = "
                                     "\"lossless\""),
                       "%s", t.out);
    cli_free(&t);
}

Test(run_cli_exact, no_exact_skips_it, .init = setup, .fini = teardown)
{
    cli_result r = run(rate[1], "smooth", "float64", "0", "--no-exact");
    char from[128];
    cr_assert(isnan(json_figure(r.out, "gradient_rel_error")), "%s", r.out);
    string(r.out, "gradient_rel_error_from", from, sizeof from);
    cr_assert_str_eq(from, "not measured: --no-exact");
    cr_assert_null(strstr(r.out, "exact_"), "%s", r.out);
    cli_free(&r);
    const char *args[] = {"run", "--config", rate[1], "--steps", "50", "--state-size", "64KiB",
                          "--data", "smooth", "--no-exact", NULL};
    r = cli_runv(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\ngradient relative error: not measured "
                                     "(tier.host.compression = \"fixed-rate\" is lossy; "
                                     "--no-exact"),
                       "%s", r.out);
    cli_free(&r);
}

Test(run_cli_exact, text_and_every_strategy, .init = setup, .fini = teardown)
{
    const char *args[] = {"run", "--config", rate[1], "--steps", "60", "--state-size", "64KiB",
                          "--data", "sparse", NULL};
    cli_result r = cli_runv(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *line = strstr(r.out, "\ngradient relative error: ");
    cr_assert_not_null(line, "%s", r.out);
    double e = strtod(line + strlen("\ngradient relative error: "), NULL);
    cr_assert(e > 0 && e < 1e-3, "%s", r.out);
    cr_assert_not_null(strstr(r.out, "g_exact from the exact run: revolve, compression off on "
                                     "every tier"),
                       "%s", r.out);
    cli_free(&r);
    /* all: an error for each strategy that ran, the exact run once; lossy
     * gradients that differ (each strategy restores other states) are no
     * failure. 200 steps: store-all does not fit the host budget, goes to
     * the disk (not compressed) and is exact. */
    const char *all[] = {"run", "--config", rate[1], "--steps", "200", "--state-size", "64KiB",
                         "--data", "sparse", "--strategy", "all", "--json", NULL};
    r = cli_runv(all);
    cr_assert_eq(r.status, 0, "%s", r.err);
    int runs = 0, lossy = 0;
    for (const char *p = r.out; (p = strstr(p, "\"gradient_rel_error\": ")); p++, runs++) {
        double v = strtod(p + strlen("\"gradient_rel_error\": "), NULL);
        cr_assert(v >= 0 && v < 1e-3, "%s", r.out);
        lossy += v > 0;
    }
    cr_assert_geq(runs, 5, "%s", r.out);
    cr_assert_geq(lossy, 4, "%s", r.out);
    cr_assert_not_null(strstr(r.out, "], \"gradients_equal\": false"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, ", \"gradient_rel_error_from\": \"the exact run\", "
                                     "\"exact_strategy\": \"revolve\""),
                       "%s", r.out);
    cli_free(&r);
}

Test(run_cli_exact, lossy_random_and_mpi_refused, .init = setup, .fini = teardown)
{
    const char *args[] = {"run", "--config", rate[1], "--steps", "20", "--state-size", "64KiB",
                          "--data", "random", NULL};
    cli_result r = cli_runv(args);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cr_assert_not_null(strstr(r.err, "ebb run: --data random with tier.host.compression = "
                                     "\"fixed-rate\""),
                       "%s", r.err);
    cr_assert_not_null(strstr(r.err, "use --data smooth or --data sparse"), "%s", r.err);
    cli_free(&r);
    /* refused before MPI starts (an ebb without MPI refuses --mpi itself) */
    const char *mpi[] = {"run", "--config", rate[1], "--steps", "20", "--state-size", "64KiB",
                         "--data", "smooth", "--mpi", NULL};
    r = cli_runv(mpi);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cr_assert(strstr(r.err, "built without MPI") ||
                  strstr(r.err, "--mpi makes no exact run, so the gradient's error against one "
                                "would not be measured; add --no-exact"),
              "%s", r.err);
    cli_free(&r);
}
