/* `ebb run --data`: smooth, sparse and rough states (arrays of floats) give every
 * strategy the same gradient, one of their own, and a state size that is
 * not a whole number of elements is refused. */
#include "support/cli_run.h"

static cli_result r;

static void run_cli(const char *line)
{
    static int have;
    if (have)
        cli_free(&r);
    r = cli_run_line(line);
    have = 1;
}

/* The gradient of one run's JSON, into g. */
static void gradient_of(const char *line, char *g, size_t size)
{
    run_cli(line);
    cr_assert_eq(r.status, 0, "%s: %s", line, r.err);
    const char *p = strstr(r.out, "\"gradient\": \"");
    cr_assert_not_null(p, "%s", r.out);
    p += strlen("\"gradient\": \"");
    size_t n = strcspn(p, "\"");
    cr_assert_lt(n, size);
    memcpy(g, p, n);
    g[n] = '\0';
}

Test(run_cli_data, every_strategy_the_same_gradient)
{
    const char *kinds[] = {"random", "smooth", "sparse", "rough", "smooth --element float32"};
    enum { KINDS = sizeof kinds / sizeof *kinds };
    char first[KINDS][64];
    for (int k = 0; k < KINDS; k++) {
        char line[256], g[64];
        snprintf(line, sizeof line,
                 "run --steps 40 --state-size 64KiB --strategy store-all --data %s --json",
                 kinds[k]);
        gradient_of(line, first[k], sizeof first[k]);
        const char *others[] = {"revolve --slots 4", "periodic --slots 8",
                                "revolve --slots 3 --inplace"};
        for (int s = 0; s < 3; s++) {
            snprintf(line, sizeof line, "run --steps 40 --state-size 64KiB --strategy %s "
                     "--data %s --json", others[s], kinds[k]);
            gradient_of(line, g, sizeof g);
            cr_assert_str_eq(g, first[k], "%s: %s against store-all's %s", line, g, first[k]);
        }
        for (int j = 0; j < k; j++)
            cr_assert_str_neq(first[j], first[k], "--data %s and %s give one gradient", kinds[j],
                              kinds[k]);
    }
}

/* Rough states barely compress: lz4 with byte shuffle shrinks float64 values
 * with no relation between neighbours by their sign and exponent bytes only. */
Test(run_cli_data, rough_states_barely_compress)
{
    run_cli("bench --compression lossless --data rough --size 1MiB --total 4MiB --json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *p = strstr(r.out, "\"rough\": {");
    cr_assert_not_null(p, "%s", r.out);
    const char *q = strstr(p, "\"ratio\": ");
    cr_assert_not_null(q, "%s", r.out);
    double ratio = strtod(q + strlen("\"ratio\": "), NULL);
    cr_assert(ratio > 1.0 && ratio < 1.15, "rough states compress %g times", ratio);
}

Test(run_cli_data, size_not_whole_elements_refused)
{
    run_cli("run --steps 5 --state-size 12 --data smooth");
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "--data smooth: a state of 12 bytes is not a whole number of float64 "
                            "values"),
              "%s", r.err);
    run_cli("run --steps 5 --data noise");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--data"), "%s", r.err);
}
