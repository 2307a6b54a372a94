/* `ebb run --error-samples K`: the library's lossy error estimate in --json
 * (gradient_rel_error_estimate beside gradient_rel_error, the samples
 * compared, their memory) and in the table; exactly 0 without compression,
 * null with the estimate off. */
#include <math.h>
#include <stdint.h>

#include "support/cli_run.h"

static char dir[256], plain[512], lossy[512];

static void write_config(const char *path, const char *host)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fprintf(f, "[run]\nstrategy = \"revolve\"\n[tier.host]\nbudget = \"1 MiB\"\n%s"
               "[tier.disk]\npath = \"%s\"\nbudget = \"64 MiB\"\n",
            host, dir);
    fclose(f);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ebb-run-estimate-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(plain, sizeof plain, "%s/plain.toml", dir);
    write_config(plain, "");
    snprintf(lossy, sizeof lossy, "%s/lossy.toml", dir);
    write_config(lossy, "compression = \"fixed-rate\"\nrate = 16\n");
}

static void teardown(void)
{
    remove(plain);
    remove(lossy);
    rmdir(dir);
}

/* The number after "key": (null: NaN). */
static double number(const char *json, const char *key)
{
    const char *p = json_find(json, key, NULL);
    cr_assert_not_null(p, "no %s in %s", key, json);
    return strncmp(p, "null", 4) == 0 ? NAN : strtod(p, NULL);
}

static cli_result run(const char *config, const char *samples, int json)
{
    const char *args[] = {"run", "--config", config, "--steps", "60", "--state-size", "64KiB",
                          "--data", "smooth", "--error-samples", samples,
                          json ? "--json" : NULL, NULL};
    cli_result r = cli_runv(args);
    cr_assert_eq(r.status, 0, "%s --error-samples %s: %s", config, samples, r.err);
    return r;
}

TestSuite(run_cli_error_estimate, .init = setup, .fini = teardown);

Test(run_cli_error_estimate, json_beside_the_true_error)
{
    cli_result r = run(lossy, "8", 1);
    double truth = number(r.out, "gradient_rel_error");
    double estimate = number(r.out, "gradient_rel_error_estimate");
    cr_assert_gt(truth, 0, "%s", r.out);
    cr_assert_gt(estimate, 0, "%s", r.out);
    cr_assert_eq(number(r.out, "error_samples"), 8);
    cr_assert_eq(number(r.out, "error_samples_compared"), 8);
    /* 8 copies and the sum of their errors, a double a float64 value */
    cr_assert_eq(number(r.out, "error_sample_bytes"), 9 * 65536);
    cr_assert_gt(number(r.out, "state_rel_error_max"), 0);
    cli_free(&r);

    r = run(plain, "8", 1);
    cr_assert_eq(number(r.out, "gradient_rel_error_estimate"), 0.0, "%s", r.out);
    cr_assert_eq(number(r.out, "error_samples_differ"), 0, "%s", r.out);
    cr_assert_eq(number(r.out, "error_samples_compared"), 8, "%s", r.out);
    cli_free(&r);

    r = run(plain, "0", 1);
    cr_assert(isnan(number(r.out, "gradient_rel_error_estimate")), "%s", r.out);
    cli_free(&r);
}

Test(run_cli_error_estimate, table_line)
{
    cli_result r = run(lossy, "8", 0);
    cr_assert(strstr(r.out, "gradient relative error: "), "%s", r.out);
    cr_assert(strstr(r.out, "gradient relative error estimate: "), "%s", r.out);
    cr_assert(strstr(r.out, "over 8 sampled states"), "%s", r.out);
    cli_free(&r);
    r = run(lossy, "0", 0);
    cr_assert_null(strstr(r.out, "estimate"), "%s", r.out);
    cli_free(&r);
}
