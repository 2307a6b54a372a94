/* Disk paths are checked when a file sets them: they must exist, be
 * directories, be writable (a file is really created: as root, access(W_OK)
 * and mode bits prove nothing) and hold the budget. */
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>

#include "config/helpers.h"

TestSuite(disk_path_errors, .init = setup_dir, .fini = cleanup_dir);

static void load_disk(const char *body, ebb_status status, const char *want1, const char *want2)
{
    char text[2048];
    snprintf(text, sizeof text, "[tier.disk]\n%s", body);
    expect_load_error(text, status, want1, want2, NULL);
}

Test(disk_path_errors, does_not_exist)
{
    char body[600], want[700];
    snprintf(body, sizeof body, "path = \"%s/missing\"\n", test_dir);
    snprintf(want, sizeof want, "t.toml:2: key 'tier.disk.path': directory '%s/missing' does not exist; "
             "expected an existing directory", test_dir);
    load_disk(body, EBB_ERR_CONFIG, want, NULL);
}

Test(disk_path_errors, not_a_directory)
{
    const char *file = make_in_dir("plain", "x");
    char body[600], want[700];
    snprintf(body, sizeof body, "path = \"%s\"\n", file);
    snprintf(want, sizeof want, "t.toml:2: key 'tier.disk.path': '%s' is not a directory; expected a "
             "directory", file);
    load_disk(body, EBB_ERR_CONFIG, want, NULL);
}

Test(disk_path_errors, second_of_several)
{
    const char *a = make_in_dir("a", NULL);
    char body[600], want[700];
    snprintf(body, sizeof body, "path = [\n  \"%s\",\n  \"%s/nope\",\n]\n", a, test_dir);
    snprintf(want, sizeof want, "t.toml:2: key 'tier.disk.path[1]': directory '%s/nope' does not exist",
             test_dir);
    load_disk(body, EBB_ERR_CONFIG, want, NULL);
}

Test(disk_path_errors, listed_twice)
{
    const char *a = make_in_dir("a", NULL);
    char body[600];
    snprintf(body, sizeof body, "path = [\"%s\", \"%s/./a/\"]\n", a, test_dir);
    load_disk(body, EBB_ERR_CONFIG, "key 'tier.disk.path[1]'",
              "is the same directory as tier.disk.path[0]");
}

Test(disk_path_errors, not_writable_by_fault_injection)
{
    /* The hook of this config (no global state): creating the probe file
     * fails with EROFS, as on a read-only mount. */
    const char *a = make_in_dir("a", NULL);
    char text[600];
    snprintf(text, sizeof text, "[tier.disk]\npath = \"%s\"\n", a);
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.fault_write_errno = EROFS;
    cr_assert_eq(ebb_config_load_string(text, "t.toml", &cfg), EBB_ERR_CONFIG);
    char want[700];
    snprintf(want, sizeof want, "t.toml:2: key 'tier.disk.path': directory '%s' is not writable; "
             "expected a directory where ebb can create its file (creating a test file failed): "
             "Read-only file system", a);
    cr_expect_str_eq(ebb_last_error(), want);
    /* The check of an already loaded config says the same. */
    cfg.fault_write_errno = 0;
    cr_assert_eq(ebb_config_set_disk_paths(&cfg, &a, 1), EBB_OK);
    cfg.fault_write_errno = EACCES;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "key 'tier.disk.path' (default or set by the program): "
                     "directory") != NULL, "%s", ebb_last_error());
    cr_expect(strstr(ebb_last_error(), "Permission denied") != NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(disk_path_errors, not_writable_read_only_mount)
{
    /* A real failure: a read-only bind mount in a private mount namespace
     * (needs CAP_SYS_ADMIN; skipped without it). chmod 0500 would not do:
     * root writes there anyway. */
    const char *a = make_in_dir("ro", NULL);
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount(a, a, NULL, MS_BIND, NULL) != 0)
        cr_skip_test("no private read-only mount here (%s)", strerror(errno));
    if (mount(NULL, a, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0) {
        umount2(a, MNT_DETACH);
        cr_skip_test("cannot remount read-only (%s)", strerror(errno));
    }
    char body[600];
    snprintf(body, sizeof body, "path = \"%s\"\n", a);
    load_disk(body, EBB_ERR_CONFIG, "is not writable", "Read-only file system");
    umount2(a, MNT_DETACH);
}

Test(disk_path_errors, no_space_for_the_budget)
{
    const char *a = make_in_dir("a", NULL);
    char body[600], want[700];
    snprintf(body, sizeof body, "path = \"%s\"\nbudget = \"1000 PiB\"\n", a);
    snprintf(want, sizeof want, "t.toml:3: key 'tier.disk.budget': 1000 PiB does not fit in '%s', whose "
             "file system has ", a);
    load_disk(body, EBB_ERR_NO_SPACE, want, "free; expected a budget at most the free space");
}

Test(disk_path_errors, no_space_shared_by_several_paths)
{
    const char *a = make_in_dir("a", NULL);
    const char *b = make_in_dir("b", NULL);
    char body[600];
    snprintf(body, sizeof body, "budget = \"1000 PiB\"\npath = [\"%s\", \"%s\"]\n", a, b);
    load_disk(body, EBB_ERR_NO_SPACE, "t.toml:2: key 'tier.disk.budget': 1000 PiB over 2 paths needs "
              "1000 PiB on the file system of", NULL);
}

Test(disk_path_errors, budget_checked_against_default_path)
{
    /* The file sets only the budget: the default directory must hold it. */
    load_disk("budget = \"1000 PiB\"\n", EBB_ERR_NO_SPACE, "t.toml:2: key 'tier.disk.budget': 1000 PiB "
              "does not fit in", NULL);
}

Test(disk_path_errors, disabled_tier_is_not_checked)
{
    ebb_config cfg;
    load_ok("[tier.disk]\nenabled = false\npath = \"/nonexistent/ebb\"\n", &cfg);
    cr_expect_eq(cfg.disk.enabled, 0);
    ebb_config_dispose(&cfg);
}
