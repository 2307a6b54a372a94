/* `ebb run` refuses a configuration this machine cannot hold (a host budget
 * above its memory; a GPU tier without a device) with the very check and
 * message `ebb demo` gives (ebb_config_check); it ran them before. */
#include "support/cli_run.h"

/* The message after "ebb CMD: " for the configuration `text`; exit 1 both. */
static void expect_same_refusal(const char *text, const char *must_mention)
{
    char path[] = "/tmp/ebb-machine-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    cli_result run = cli_run("run", "--config", path, "--steps", "4", "--state-size", "4KiB",
                             NULL);
    cli_result demo = cli_run("demo", "--config", path, "--steps", "4", "--state-size", "4KiB",
                              NULL);
    unlink(path);
    cr_assert_eq(demo.status, 1, "ebb demo: %s", demo.err);
    cr_expect_eq(run.status, 1, "ebb run ran what ebb demo refuses (%s): %s", demo.err, run.out);
    cr_expect(strncmp(run.err, "ebb run: ", 9) == 0 && strncmp(demo.err, "ebb demo: ", 10) == 0 &&
                  strcmp(run.err + 9, demo.err + 10) == 0,
              "not the same refusal:\n%s%s", run.err, demo.err);
    cr_expect(strstr(run.err, must_mention), "'%s' not in: %s", must_mention, run.err);
    cli_free(&run);
    cli_free(&demo);
}

Test(run_machine_budgets, host_budget_above_the_memory)
{
    expect_same_refusal("[tier.host]\nbudget = \"1024 TiB\"\n", "more than this machine's memory");
}

Test(run_machine_budgets, gpu_tier_without_a_device)
{
    /* where a device exists the configuration is fine: this one is its
     * index 4096, which no machine here has */
    expect_same_refusal("[tier.gpu]\nenabled = true\nbudget = \"1 GiB\"\ndevice = 1000\n",
                        "tier.gpu");
}
