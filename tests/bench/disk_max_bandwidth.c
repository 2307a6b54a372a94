/* `ebb bench --tier disk` honours the bandwidth limit, from the
 * configuration's tier.disk.max_bandwidth and from --max-bandwidth (which
 * overrides it): the JSON names the limit, and the write and read
 * bandwidths it reports do not exceed it by more than 5% (48 MiB in 1 MiB
 * requests: the pacing may send one request ahead, 2%). No lower bound on
 * the bandwidth is asserted: a busy machine may be slower. */
#include "support/cli_run.h"

static char dir[] = "/tmp/ebb-bench-bw-XXXXXX";
static char config[128];

static void setup(void)
{
    cli_disk_config(dir, config, sizeof config, "max_bandwidth = \"100 MB/s\"\n");
}

static void teardown(void)
{
    unlink(config);
    rmdir(dir);
}

static double field(const cli_result *r, const char *key)
{
    const char *v = json_find(r->out, "tiers", "disk", key, NULL);
    cr_assert(v, "no tiers.disk.%s in %s", key, r->out);
    return strtod(v, NULL);
}

static void check_paced(const cli_result *r, double rate)
{
    cr_assert_eq(r->status, 0, "exit %d, stderr: %s", r->status, r->err);
    cr_expect_eq(field(r, "max_bandwidth"), rate, "%s", r->out);
    double limit_GBps = rate / 1e9;
    cr_expect_leq(field(r, "write_GBps"), 1.05 * limit_GBps, "write above the limit: %s", r->out);
    cr_expect_leq(field(r, "read_GBps"), 1.05 * limit_GBps, "read above the limit: %s", r->out);
    cr_expect_gt(field(r, "write_GBps"), 0.0, "%s", r->out);
    cr_assert_eq(cli_dir_entries(dir), 0, "files left in %s", dir);
}

Test(bench_max_bandwidth, from_the_configuration, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "4MiB",
                           "--block", "1MiB", "--total", "48MiB", "--json", NULL);
    check_paced(&r, 100e6);
    cli_free(&r);
}

Test(bench_max_bandwidth, flag_overrides_it, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "4MiB",
                           "--block", "1MiB", "--total", "48MiB", "--backend", "threads",
                           "--max-bandwidth", "80MB/s", "--json", NULL);
    check_paced(&r, 80e6);
    cli_free(&r);
    r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "4MiB", "--total",
                "8MiB", "--max-bandwidth", "none", "--json", NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    cr_expect_eq(field(&r, "max_bandwidth"), 0.0, "%s", r.out);
    cli_free(&r);
}

Test(bench_max_bandwidth, the_table_says_so, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "4MiB",
                           "--total", "8MiB", "--max-bandwidth", "1 GB/s", NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    cr_expect(strstr(r.out, ", paced to 1 GB/s") != NULL, "%s", r.out);
    cli_free(&r);
}

Test(bench_max_bandwidth, bad_rate_refused)
{
    cli_result r = cli_run("bench", "--tier", "disk", "--max-bandwidth", "100 MB", NULL);
    cr_expect_eq(r.status, 2, "exit %d", r.status);
    cr_expect(strstr(r.err, "ebb bench: --max-bandwidth: '100 MB' is not a rate: a rate needs "
                            "\"/s\" after its unit") != NULL,
              "%s", r.err);
    cli_free(&r);
}
