/* The headers and details of `ebb run` and `ebb bench` say what a user
 * asked for, not the workload's internals: the step times (not "forward 6
 * passes, reverse 12 passes of 2.46 ms"), "1 slot" (not "1 slots"), a small
 * state's bandwidth with its digits (not "0.00"), states in flight beside
 * requests in flight (not "4 in flight" beside --depth 16). */
#include "support/cli_run.h"

Test(headers_plain, run_says_the_step_times)
{
    cli_result r = cli_run_line("run --steps 6 --state-size 4KiB --forward-ms 2.46 --reverse-ms 5");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "ebb run: 6 steps, state 4 KiB; forward step 2.46 ms, reverse step "
                             "5 ms; audit off\n", 77) == 0, "%s", r.out);
    cr_expect_null(strstr(r.out, "pass"), "%s", r.out);
    cli_free(&r);
}

Test(headers_plain, bench_one_slot)
{
    cli_result r = cli_run_line("bench --tier host --size 64KiB --total 64KiB");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "64 KiB moved each way, 1 slot, "), "%s", r.out);
    cli_free(&r);
}

Test(headers_plain, bench_small_rates_and_depth)
{
    /* paced to 1 MB/s: 0.001 GB/s, which two decimals print as 0.00 */
    cli_result r = cli_run("bench", "--tier", "disk", "--size", "4KiB", "--total", "64KiB",
                           "--depth", "16", "--max-bandwidth", "1 MB/s", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "disk requests up to 8 MiB, 16 in flight"), "%s", r.out);
    const char *row = strstr(r.out, "\ndisk ");
    cr_assert_not_null(row, "%s", r.out);
    double w = 0, rd = 0;
    char backend[32];
    cr_assert_eq(sscanf(row, "\ndisk %31s %lf %lf", backend, &w, &rd), 3, "%s", row);
    cr_expect(w > 0 && rd > 0, "a rate printed as 0: %.120s", row);
    cr_expect(strstr(row, "16 states in flight"), "%s", row);
    cli_free(&r);
}
