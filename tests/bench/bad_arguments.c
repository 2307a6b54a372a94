/* Wrong arguments: a non-zero exit, nothing on stdout, and one line on stderr
 * that starts with "ebb bench: " and names the option. */
#include "support/cli_run.h"

static void check_bad(const char *option, const char *value, const char *must_mention)
{
    cli_result r = value ? cli_run("bench", option, value, "--tier", "host", "--total", "1MiB", NULL)
                         : cli_run("bench", option, "--tier", "host", "--total", "1MiB", NULL);
    cr_assert_neq(r.status, 0, "%s %s: exit 0", option, value ? value : "");
    cr_assert_eq(r.status, 2, "%s %s: bad usage is exit 2, got %d (%s)", option,
                 value ? value : "", r.status, r.err);
    cr_assert_eq(r.out[0], '\0', "stdout not empty: %s", r.out);
    cr_assert_eq(count_lines(r.err), 1, "not one line: %s", r.err);
    cr_assert(strncmp(r.err, "ebb bench: ", 11) == 0, "%s", r.err);
    cr_assert(strstr(r.err, must_mention), "'%s' not in: %s", must_mention, r.err);
    if (value)
        cr_assert(strstr(r.err, value), "the value '%s' not quoted: %s", value, r.err);
    cli_free(&r);
}

Test(bench, bad_tier) { check_bad("--tier", "foo", "--tier"); }
Test(bench, zero_size) { check_bad("--size", "0", "--size"); }
Test(bench, bad_size_unit) { check_bad("--size", "12XB", "--size"); }
Test(bench, negative_size) { check_bad("--size", "-5", "--size"); }
Test(bench, zero_depth) { check_bad("--depth", "0", "--depth"); }
Test(bench, huge_depth) { check_bad("--depth", "5000", "--depth"); }
Test(bench, bad_backend) { check_bad("--backend", "nope", "--backend"); }
Test(bench, unaligned_block) { check_bad("--block", "5000", "--block"); }
Test(bench, zero_step) { check_bad("--step-ms", "0", "--step-ms"); }
Test(bench, nan_step) { check_bad("--step-ms", "abc", "--step-ms"); }
Test(bench, zero_total) { check_bad("--total", "0", "--total"); }
Test(bench, unknown_option) { check_bad("--frobnicate", NULL, "--frobnicate"); }

Test(bench, missing_value)
{
    cli_result r = cli_run("bench", "--size", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strstr(r.err, "--size"), "%s", r.err);
    cli_free(&r);
}

Test(bench, baseline_without_disk)
{
    cli_result r = cli_run("bench", "--tier", "host", "--baseline", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--baseline"), "%s", r.err);
    cli_free(&r);
}

Test(bench, missing_config)
{
    cli_result r = cli_run("bench", "--config", "/nonexistent/ebb.toml", "--tier", "host", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strncmp(r.err, "ebb bench: ", 11) == 0, "%s", r.err);
    cr_assert(strstr(r.err, "/nonexistent/ebb.toml"), "%s", r.err);
    cli_free(&r);
}

#if !(defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA)
/* Without CUDA in the build there is never a GPU: asking for it is a failure
 * that says so (with CUDA, the outcome depends on the machine). */
Test(bench, gpu_without_cuda)
{
    cli_result r = cli_run("bench", "--tier", "gpu", "--size", "1MiB", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert(strstr(r.err, "gpu"), "%s", r.err);
    cli_free(&r);
}
#endif

Test(bench, gpu_absent_is_an_error_when_asked_for)
{
    /* The default configuration enables the gpu tier only where a device is
     * found; where none is, --tier gpu fails with one line naming the gpu. */
    cli_result probe = cli_run("bench", "--tier", "all", "--size", "1MiB", "--total", "1MiB", "--json",
                                 NULL);
    int has_gpu = probe.status == 0 && strstr(probe.out, "\"gpu\": {") != NULL;
    cli_free(&probe);
    if (has_gpu)
        cr_skip_test("a GPU is present");
    cli_result r = cli_run("bench", "--tier", "gpu", "--size", "1MiB", NULL);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strncmp(r.err, "ebb bench: ", 11) == 0 && strstr(r.err, "gpu"), "%s", r.err);
    cli_free(&r);
}
