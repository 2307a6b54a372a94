/* `ebb plan` with step times: the planner's JSON keys, the plans array with
 * the best marked once, the sizing answer, channel figures from a bench
 * file or measured, and errors that say what is wrong. */
#include <math.h>

#include "support/cli_run.h"

static cli_result r;
static int have;

static void run_line(const char *line)
{
    if (have)
        cli_free(&r);
    r = cli_run_line(line);
    have = 1;
}

#define BASE "plan --steps 300 --state-size 16MiB --forward-ms 10 --reverse-ms 20 "

Test(plan_predict_cli, one_strategy_has_the_documented_keys)
{
    run_line(BASE "--slots 4 --disk-slots 400 --disk-bandwidth 1GB/s --strategy multistage --json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(count_lines(r.out), 1, "one JSON object on one line: %s", r.out);
    const char *keys[] = {"\"strategy\": \"multistage\"", "\"fits\": true", "\"predicted_s\": ",
                          "\"predicted_forward_s\": ", "\"predicted_reverse_s\": ",
                          "\"predicted_stall_s\": ", "\"forward_steps\": 300",
                          "\"peak_slots\": {\"gpu\": 0, \"host\": 4, \"disk\": 295}",
                          "\"channels\": {", "\"disk_figures\": \"options\"", "\"best\": false"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        cr_assert(strstr(r.out, keys[i]) != NULL, "missing %s in %s", keys[i], r.out);
    /* forward 300 x 10 ms: a 1 GB/s disk writes 16 MiB in 16.8 ms, so it waits */
    double fwd = strtod(json_find(r.out, "predicted_forward_s", NULL), NULL);
    cr_assert(fwd > 4.5 && fwd < 5.2, "forward %g s", fwd);
}

Test(plan_predict_cli, all_lists_every_strategy_and_marks_one_best)
{
    run_line(BASE "--slots 4 --disk-slots 400 --disk-bandwidth 1GB/s --json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strncmp(r.out, "{\"plans\": [", 11) == 0, "%s", r.out);
    const char *names[] = {"store-all", "periodic", "revolve", "online", "multistage",
                           "disk-revolve", "async"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char key[64];
        snprintf(key, sizeof key, "\"strategy\": \"%s\"", names[i]);
        cr_assert(strstr(r.out, key) != NULL, "missing %s in %s", key, r.out);
    }
    int best = 0;
    for (const char *p = r.out; (p = strstr(p, "\"best\": true")); p++)
        best++;
    cr_assert_eq(best, 1, "%d plans marked best: %s", best, r.out);
    cr_assert(json_find(r.out, "best", NULL) != NULL);
}

Test(plan_predict_cli, the_table_without_json)
{
    run_line(BASE "--slots 4 --disk-slots 0");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "predicted") && strstr(r.out, "* revolve"), "%s", r.out);
    cr_assert(strstr(r.out, "multistage   does not fit"), "%s", r.out);
}

Test(plan_predict_cli, sizing_answers_a_bandwidth_and_a_slot_count)
{
    run_line(BASE "--slots 4 --disk-slots 400 --disk-bandwidth 1GB/s --strategy async "
                  "--target-overhead 1.2 --json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *bw = json_find(r.out, "sizing", "disk_bandwidth_Bps", NULL);
    const char *slots = json_find(r.out, "sizing", "host_slots", NULL);
    cr_assert(bw && slots, "%s", r.out);
    double v = strtod(bw, NULL);
    cr_assert(v > 1e8 && v < 1e10, "%g B/s", v);
    run_line(BASE "--slots 4 --disk-slots 0 --strategy revolve --target-overhead 1.01");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "needs at least") && strstr(r.out, "host slots"), "%s", r.out);
}

/* A bench file is parsed as JSON: nested tiers with the same keys do not
 * count (the figures are tiers.disk's), and a file that is not JSON or holds
 * no figure is refused naming it, with the line for bad JSON. */
Test(plan_predict_cli, bench_file_parsed_as_json)
{
    static const struct {
        const char *text, *expect; /* expect NULL: accepted */
    } cases[] = {
        {"{\"tiers\": {\"disk\": {\"write_GBps\": 0.5,\n \"read_GBps\": 2.5}}}", NULL},
        {"{\"tiers\": {\"disk\": {\"note\": \"}\", \"write_GBps\": 0.5, \"read_GBps\": 2.5}}}",
         NULL},
        {"{\"tiers\": {\"disk\": \n", "is not JSON (line 2"},
        {"{\"tiers\": {\"host\": {\"write_GBps\": 9}}, \"disk\": {\"write_GBps\": 1}}",
         "has no tiers.disk write_GBps"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/ebb-plan-bench-XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        size_t len = strlen(cases[i].text);
        cr_assert_eq(write(fd, cases[i].text, len), (ssize_t)len);
        close(fd);
        char line[512];
        snprintf(line, sizeof line, BASE "--slots 4 --disk-slots 400 --bench %s --json", path);
        run_line(line);
        unlink(path);
        if (!cases[i].expect) {
            cr_assert_eq(r.status, 0, "case %zu: %s", i, r.err);
            cr_assert(strstr(r.out, "\"host->disk\": {\"bandwidth_Bps\": 500000000"),
                      "case %zu: %s", i, r.out);
            continue;
        }
        cr_assert_neq(r.status, 0, "case %zu accepted: %s", i, r.out);
        cr_assert(strstr(r.err, cases[i].expect) && strstr(r.err, path), "case %zu: %s", i,
                  r.err);
    }
}

Test(plan_predict_cli, bench_file_and_measured_figures)
{
    char path[] = "/tmp/ebb-plan-bench-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "{\"version\": \"0\", \"tiers\": {\"host\": {\"write_GBps\": 9, "
                       "\"read_GBps\": 9}, \"disk\": {\"write_GBps\": 0.5, \"read_GBps\": 2.5}}}\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char line[512];
    snprintf(line, sizeof line, BASE "--slots 4 --disk-slots 400 --bench %s --json", path);
    run_line(line);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"disk_figures\": \"bench\""), "%s", r.out);
    cr_assert(strstr(r.out, "\"host->disk\": {\"bandwidth_Bps\": 500000000"), "%s", r.out);
    cr_assert(strstr(r.out, "\"disk->host\": {\"bandwidth_Bps\": 2.5e+09"), "%s", r.out);
    unlink(path);

    char dir[] = "/tmp/ebb-plan-measure-XXXXXX", config[128];
    cli_disk_config(dir, config, sizeof config, "max_bandwidth = \"2 GB/s\"\n");
    snprintf(line, sizeof line,
             "plan --steps 50 --state-size 1MiB --forward-ms 1 --reverse-ms 2 --slots 4 "
             "--config %s --strategy multistage --json", config);
    run_line(line);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"disk_figures\": \"measured\""), "%s", r.out);
    double bw = strtod(json_find(r.out, "host->disk", "bandwidth_Bps", NULL), NULL);
    cr_assert(bw > 1e6 && isfinite(bw), "measured %g B/s", bw);
    cr_assert_eq(cli_dir_entries(dir), 0, "the measurement left files in %s", dir);
    unlink(config);
    rmdir(dir);
}

Test(plan_predict_cli, ratios_sweep_every_strategy)
{
    run_line(BASE "--slots 4 --disk-slots 300 --disk-bandwidth 4GB/s --ratios 0.25,1,4 --json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strncmp(r.out, "{\"sweep\": [", 11) == 0, "%s", r.out);
    int points = 0;
    for (const char *p = r.out; (p = strstr(p, "\"ratio\": ")); p++)
        points++;
    cr_assert_eq(points, 3, "%s", r.out);
    /* a slower disk never makes store-all on disk faster */
    const char *a = json_find(r.out, "ratio", "store-all", NULL);
    const char *b = json_find(a, "ratio", "store-all", NULL);
    cr_assert(a && b, "%s", r.out);
    cr_assert_geq(strtod(a, NULL), strtod(b, NULL), "%s", r.out);
    /* ratio 0.25 at f = 10 ms: a pace of 0.25 x 16 MiB / 10 ms */
    double pace = strtod(json_find(r.out, "disk_pace_Bps", NULL), NULL);
    cr_assert(fabs(pace - 0.25 * 16777216 / 0.010) < 1, "%g", pace);
}

static void expect_error(const char *args, const char *text)
{
    run_line(args);
    cr_assert_neq(r.status, 0, "'%s' succeeded", args);
    cr_assert_eq(count_lines(r.err), 1, "'%s': want one line, got: %s", args, r.err);
    cr_assert(strstr(r.err, text) != NULL, "'%s': '%s' lacks '%s'", args, r.err, text);
    cr_assert_str_eq(r.out, "");
}

Test(plan_predict_cli, bad_input_says_what_is_wrong)
{
    expect_error("plan --steps 10 --state-size 1MiB --forward-ms 1", "needs --steps N, --state-size");
    expect_error("plan --steps 10 --state-size 0 --forward-ms 1 --reverse-ms 1",
                 "--state-size: must be at least 1 byte");
    expect_error("plan --steps 10 --state-size 1MiB --forward-ms -1 --reverse-ms 1",
                 "--forward-ms must be a number in [0, 3600000], got '-1'");
    expect_error(BASE "--strategy fastest", "--strategy: ");
    expect_error(BASE "--disk-bandwidth 1GB", "--disk-bandwidth: ");
    expect_error(BASE "--disk-slots 0 --target-overhead 0.5", "--target-overhead must be a number >= 1");
    expect_error(BASE "--disk-slots 0 --state-tier tape", "--state-tier must be host or gpu");
    expect_error(BASE "--bench /nonexistent/bench.json", "/nonexistent/bench.json");
    expect_error(BASE "--disk-slots 0 --ratios 1,x", "--ratios must be up to 64 numbers > 0");
    expect_error(BASE "--disk-slots 0 --ratios 0", "--ratios must be up to 64 numbers > 0");
    expect_error(BASE "--disk-slots 0 --bogus", "unknown or incomplete option '--bogus'");
    /* a target out of reach is an answer, not a failure */
    run_line(BASE "--slots 4 --disk-slots 0 --strategy async --target-overhead 1.5");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "no disk bandwidth up to 10 TB/s meets the overhead 1.5 with async"),
              "%s", r.out);
}

/* Compressed host slots: the configuration's fixed rate gives the slots
 * and the ratio, tier.host.compress_rate and decompress_rate the figures,
 * --host-compress-rate and --host-decompress-rate override them; a slower
 * decompression predicts a longer run (the restores wait for it); the
 * budget's uncompressed slots are predicted beside them. */
Test(plan_predict_cli, compressed_host_slots)
{
    char path[] = "/tmp/ebb-plan-host-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "[tier.disk]\nenabled = false\n[tier.host]\nbudget = \"4 MiB\"\n"
                       "compression = \"fixed-rate\"\nrate = 16\nelement = \"float64\"\n"
                       "compress_rate = \"1 GB/s\"\ncodec_threads = 3\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char line[512];
    double s[2];
    for (int k = 0; k < 2; k++) {
        snprintf(line, sizeof line,
                 "plan --steps 100 --state-size 1MiB --forward-ms 1 --reverse-ms 2 --config %s "
                 "--strategy revolve %s --json",
                 path, k ? "--host-decompress-rate 0.1GB/s --host-codec-threads 2" : "");
        run_line(line);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cr_assert(strstr(r.out, "\"host\": 16"), "4 MiB of 256 KiB slots: %s", r.out);
        cr_assert(strstr(r.out, "\"host_codec\": {\"ratio\": 4, \"compress_Bps\": 1e+09, "),
                  "%s", r.out);
        cr_assert(strstr(r.out, k ? "\"decompress_Bps\": 100000000, \"threads\": 2}"
                                  : "\"decompress_Bps\": 1e+09, \"threads\": 3}"),
                  "%s", r.out);
        cr_assert(strstr(r.out, "\"uncompressed_host\": {\"slots\": 4, \"strategy\": "
                             "\"revolve\", \"predicted_s\": "),
                  "the budget's 4 slots uncompressed, predicted too: %s", r.out);
        s[k] = strtod(json_find(r.out, "predicted_s", NULL), NULL);
    }
    cr_assert_gt(s[1], s[0] + 0.9, "every restore 10 ms, not 1: %g s against %g s", s[1], s[0]);
    run_line("plan --steps 100 --state-size 1MiB --forward-ms 1 --reverse-ms 2 --slots 4 "
             "--disk-slots 0 --host-decompress-rate 0.1GB/s");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "host slots compressed") == NULL,
              "uncompressed slots: the rates do nothing: %s", r.out);
    unlink(path);
}
