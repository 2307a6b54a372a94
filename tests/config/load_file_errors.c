/* Reading the file itself: missing, a directory, relative names in messages;
 * and a failed load leaves the configuration as it was. */
#include "config/helpers.h"

TestSuite(load_file_errors, .init = setup_dir, .fini = cleanup_dir);

Test(load_file_errors, missing_file)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    char path[512], want[700];
    snprintf(path, sizeof path, "%s/none.toml", test_dir);
    cr_assert_eq(ebb_config_load_file(path, &cfg), EBB_ERR_IO);
    snprintf(want, sizeof want, "cannot open configuration file '%s': No such file or directory", path);
    cr_expect_str_eq(ebb_last_error(), want);
    ebb_config_dispose(&cfg);
}

Test(load_file_errors, directory)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_assert_eq(ebb_config_load_file(test_dir, &cfg), EBB_ERR_IO);
    cr_expect(strstr(ebb_last_error(), "Is a directory") != NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(load_file_errors, messages_use_the_name_given)
{
    const char *file = make_in_dir("bad.toml", "[tier.disk]\n\nqueue_depth = \"x\"\n");
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_assert_eq(ebb_config_load_file(file, &cfg), EBB_ERR_CONFIG);
    char want[700];
    snprintf(want, sizeof want, "%s:3: key 'tier.disk.queue_depth'", file);
    cr_expect(strstr(ebb_last_error(), want) == ebb_last_error(), "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(load_file_errors, failed_load_changes_nothing)
{
    const char *file = make_in_dir("half.toml", "[run]\nstrategy = \"revolve\"\n[tier.host]\nbudget = "
                                   "\"1 GiB\"\n[tier.disk]\nbudget = -1\n");
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    char **paths = cfg.disk.paths;
    cr_assert_eq(ebb_config_load_file(file, &cfg), EBB_ERR_CONFIG);
    cr_expect_eq(cfg.strategy, EBB_CONFIG_STRATEGY_AUTO);
    cr_expect_eq(cfg.host.budget, EBB_BUDGET_AUTO);
    cr_expect_eq(cfg.disk.paths, paths);
    cr_expect_null(cfg.source);
    ebb_config_dispose(&cfg);
}

Test(load_file_errors, null_arguments)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(ebb_config_load_file(NULL, &cfg), EBB_ERR_INVALID_ARG);
    cr_expect_eq(ebb_config_load_file("x", NULL), EBB_ERR_INVALID_ARG);
    cr_expect_eq(ebb_config_load_string(NULL, "x", &cfg), EBB_ERR_INVALID_ARG);
    cr_expect_eq(ebb_config_check(NULL, 0), EBB_ERR_INVALID_ARG);
    cr_expect_eq(ebb_config_format(NULL, NULL, 0, NULL), EBB_ERR_INVALID_ARG);
    cr_expect_eq(ebb_config_load_string("", NULL, &cfg), EBB_OK);
    cr_expect_str_eq(cfg.source, "<string>");
    ebb_config_dispose(&cfg);
}
