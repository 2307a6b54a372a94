/* `ebb config show` prints the effective configuration (docs/configuration.md
 * says so): the embedded default, a --config file's values over it, as TOML
 * that loads back to the same configuration; `ebb config` alone says what
 * to do, a file that does not load is named. */
#include "ebb/ebb.h"
#include "support/cli_run.h"

Test(config_show_cli, default_and_file)
{
    cli_result r = cli_run("config", "show", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "[run]\nstrategy = \"auto\"") && strstr(r.out, "[tier.disk]"), "%s",
              r.out);
    cli_free(&r);

    char path[] = "/tmp/ebb-config-show-XXXXXX.toml";
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    const char text[] = "[run]\nstrategy = \"revolve\"\n[tier.host]\nbudget = \"64 MiB\"\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    r = cli_run("config", "show", "--config", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "strategy = \"revolve\"") && strstr(r.out, "budget = \"64 MiB\""),
              "%s", r.out);
    /* what it prints loads back to the same configuration */
    ebb_config a, b;
    cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
    cr_assert_eq(ebb_config_load_file(path, &a), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_config_init_default(&b), EBB_OK);
    cr_assert_eq(ebb_config_load_string(r.out, "shown", &b), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(a.strategy, b.strategy);
    cr_assert_eq(a.host.budget, b.host.budget);
    ebb_config_dispose(&a);
    ebb_config_dispose(&b);
    cli_free(&r);
    unlink(path);
}

Test(config_show_cli, what_to_do_and_bad_files)
{
    cli_result r = cli_run("config", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "ebb config: say what to do: 'ebb config show"), "%s", r.err);
    cli_free(&r);
    r = cli_run("config", "frob", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "say what to do"), "%s", r.err);
    cli_free(&r);
    r = cli_run("config", "show", "--config", "/nonexistent/ebb.toml", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "/nonexistent/ebb.toml"), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    cli_free(&r);
}
