/* `ebb bench --tier host --json` with a tiny state: exit 0, one JSON object
 * on stdout with tiers.host.write_GBps and read_GBps > 0. */
#include "support/cli_run.h"

Test(bench, host_json)
{
    cli_result r = cli_run("bench", "--tier", "host", "--size", "1MiB", "--total", "64MiB", "--json",
                             NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    cr_assert_eq(r.out[0], '{', "stdout is not one JSON object: %s", r.out);
    cr_assert_eq(count_lines(r.out), 1, "stdout has more than one line: %s", r.out);
    cr_assert(strlen(r.out) >= 2 && r.out[strlen(r.out) - 2] == '}', "%s", r.out);

    const char *w = json_find(r.out, "tiers", "host", "write_GBps", NULL);
    const char *rd = json_find(r.out, "tiers", "host", "read_GBps", NULL);
    cr_assert(w && rd, "no tiers.host.write_GBps/read_GBps in %s", r.out);
    cr_assert_gt(strtod(w, NULL), 0.0, "%s", r.out);
    cr_assert_gt(strtod(rd, NULL), 0.0, "%s", r.out);
    const char *size = json_find(r.out, "tiers", "host", "size", NULL);
    cr_assert(size && strtoll(size, NULL, 10) == 1048576, "%s", r.out);
    cr_assert(json_find(r.out, "tiers", "host", "backend", NULL), "%s", r.out);
    /* only the tier asked for */
    cr_assert_null(json_find(r.out, "tiers", "disk", NULL), "%s", r.out);
    cli_free(&r);
}

Test(bench, host_table)
{
    cli_result r = cli_run("bench", "--tier", "host", "--size", "1 MiB", "--total", "16MiB", NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    cr_assert(strstr(r.out, "tier") && strstr(r.out, "write") && strstr(r.out, "read"), "%s",
              r.out);
    cr_assert(strstr(r.out, "\nhost "), "no host row in: %s", r.out);
    cli_free(&r);
}
