/* `ebb bench --compression`: the codec's ratio, throughput and error on
 * synthetic states, as a table or JSON, and its options refused with the
 * option's name. */
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

Test(bench_codec_cli, lossless_is_exact_on_every_kind)
{
    run_cli("bench --compression lossless --codec zstd --size 1MiB --total 4MiB --json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(count_lines(r.out), 1, "%s", r.out);
    const char *keys[] = {"\"compression\": \"lossless\"", "\"codec\": \"zstd\"",
                          "\"element\": \"float64\"", "\"random\": {\"states\": 4",
                          "\"smooth\": {", "\"sparse\": {", "\"exact\": true"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        cr_assert(strstr(r.out, keys[i]), "missing %s in %s", keys[i], r.out);
    cr_assert_null(strstr(r.out, "\"exact\": false"), "%s", r.out);
}

Test(bench_codec_cli, fixed_rate_reports_its_size_and_error)
{
    run_cli("bench --compression fixed-rate --rate 16 --data smooth --size 1MiB --total 1MiB");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "zfp, 16 bits per value: 262144 bytes a state"), "%s", r.out);
    /* 64 / 16: four times smaller */
    cr_assert(strstr(r.out, "  smooth       3    4.000 "), "%s", r.out);
}

Test(bench_codec_cli, bad_options_name_the_option)
{
    run_cli("bench --compression fixed-rate --size 1MiB");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "rate is 0: expected 1 .. 64 bits per float64 value"), "%s", r.err);
    cr_assert(strstr(r.err, "--rate"), "%s", r.err);
    run_cli("bench --compression lossy");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--compression"), "%s", r.err);
    run_cli("bench --compression fixed-accuracy --accuracy 1e-6 --element bytes");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "needs the state's element type"), "%s", r.err);
    run_cli("bench --compression lossless --element float64 --size 12");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "12 bytes is not a whole number of float64 values"), "%s", r.err);
}
