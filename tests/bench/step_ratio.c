/* `ebb bench --step-ms`: each channel's time per state over the step time,
 * and every how many steps a state can be stored to each tier. */
#include <math.h>

#include "support/cli_run.h"

Test(bench, step_ratio_json)
{
    cli_result r = cli_run("bench", "--tier", "host", "--size", "4MiB", "--total", "32MiB",
                             "--step-ms", "0.001", "--json", NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    const char *step = json_find(r.out, "ratio", "step_ms", NULL);
    cr_assert(step && fabs(strtod(step, NULL) - 0.001) < 1e-12, "%s", r.out);
    const char *sec = json_find(r.out, "ratio", "channels", "host_write", "seconds_per_state", NULL);
    const char *ratio = json_find(r.out, "ratio", "channels", "host_write", "ratio", NULL);
    const char *every = json_find(r.out, "ratio", "channels", "host_write", "every", NULL);
    cr_assert(sec && ratio && every, "%s", r.out);
    double s = strtod(sec, NULL), q = strtod(ratio, NULL);
    cr_assert_gt(s, 0.0);
    /* ratio = seconds per state / step (1 us); every = ceil(ratio) */
    cr_assert(fabs(q - s / 1e-6) <= 1e-6 * q, "ratio %g, seconds %g", q, s);
    cr_assert_eq(strtoll(every, NULL, 10), (long long)ceil(q - 1e-9), "%s", r.out);
    /* copying 4 MiB takes far more than a microsecond */
    cr_assert_gt(strtoll(every, NULL, 10), 1);
    const char *host_every = json_find(r.out, "ratio", "store_every", "host", NULL);
    cr_assert(host_every && strtoll(host_every, NULL, 10) >= 1, "%s", r.out);
    cli_free(&r);
}

Test(bench, step_ratio_table)
{
    cli_result r = cli_run("bench", "--tier", "host", "--size", "1MiB", "--total", "8MiB", "--step-ms",
                             "1000", NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    cr_assert(strstr(r.out, "host_write"), "%s", r.out);
    cr_assert(strstr(r.out, "host  every step"), "%s", r.out);
    cli_free(&r);
}
