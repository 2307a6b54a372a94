/* Errors a command line can reach name its options, never the library's
 * internals (a struct field such as problem.disk_pace, a C function such as
 * ebb_config_pool_options, a parameter such as state_bytes). */
#include "support/cli_run.h"

static void refused(const char *line, const char *text)
{
    cli_result r = cli_run_line(line);
    cr_assert_eq(r.status, 2, "'%s': exit %d: %s", line, r.status, r.err);
    cr_assert(strstr(r.err, text), "'%s': '%s' lacks '%s'", line, r.err, text);
    static const char *const internal[] = {"problem.", "ebb_config_", "state_bytes", "ebb_plan_"};
    for (size_t i = 0; i < sizeof internal / sizeof *internal; i++)
        cr_assert_null(strstr(r.err, internal[i]), "'%s' names '%s': %s", line, internal[i], r.err);
    cli_free(&r);
}

Test(no_internal_names, demo_state_size_zero)
{
    refused("demo --state-size 0", "ebb demo: --state-size must be at least 1 byte, got '0'");
}

Test(no_internal_names, plan_ratio_beyond_any_disk)
{
    refused("plan --steps 100 --state-size 1MiB --forward-ms 0.000001 --reverse-ms 1 --ratios "
            "1e308",
            "--ratios 1e+308 with a state of 1048576 bytes every 1e-06 ms asks the disk for inf "
            "bytes/s, above the most ebb models (1 EB/s)");
}
