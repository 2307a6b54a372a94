/* `ebb run`'s table names the tiers a run kept states in: the slow tier
 * only where the run had slots there (as `ebb plan`'s table), not a disk
 * tier that is switched off or that the run did not use. */
#include "support/cli_run.h"

/* The table row of `strategy` in r's output. */
static const char *row_of(const cli_result *r, const char *strategy)
{
    char head[64];
    snprintf(head, sizeof head, "\n%s ", strategy);
    const char *p = strstr(r->out, head);
    cr_assert_not_null(p, "no row for %s: %s", strategy, r->out);
    return p + 1;
}

/* The tiers column of a row: its second word. */
static void tiers_of(const char *row, char *tiers, size_t len)
{
    char strategy[32], word[32];
    cr_assert_eq(sscanf(row, "%31s %31s", strategy, word), 2, "%s", row);
    snprintf(tiers, len, "%s", word);
}

Test(run_table_tiers, no_disk_tier_named_without_disk_slots, .timeout = 120)
{
    char dir[] = "/tmp/ebb-table-tiers-XXXXXX", config[64], tiers[32];
    cli_disk_config(dir, config, sizeof config, "");
    /* the disk tier on, the run with disk slots: both named */
    cli_result r = cli_run("run", "--config", config, "--strategy", "multistage", "--slots", "2",
                           "--disk-slots", "4", "--steps", "40", "--state-size", "64KiB", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    tiers_of(row_of(&r, "multistage"), tiers, sizeof tiers);
    cr_expect_str_eq(tiers, "host/disk", "%s", r.out);
    cli_free(&r);
    /* revolve in the host tier alone: the disk (on, unused) is not named */
    r = cli_run("run", "--config", config, "--strategy", "revolve", "--slots", "4", "--steps",
                "40", "--state-size", "64KiB", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    tiers_of(row_of(&r, "revolve"), tiers, sizeof tiers);
    cr_expect_str_eq(tiers, "host", "%s", r.out);
    cli_free(&r);
    cr_assert_eq(cli_dir_entries(dir), 0);
    rmdir(dir);
    unlink(config);
}
