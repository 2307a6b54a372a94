/* Shared by the configuration tests: a private temporary directory, files
 * in it, and loading text that must fail with a given message. */
#ifndef EBB_TESTS_CONFIG_HELPERS_H
#define EBB_TESTS_CONFIG_HELPERS_H

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ebb/ebb.h"

static char test_dir[256];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* mkdtemp directory for one test; removed by cleanup_dir. */
static inline void setup_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(test_dir, sizeof test_dir, "%s/ebb-config-test-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(test_dir), "mkdtemp failed");
}

static inline void cleanup_dir(void)
{
    if (test_dir[0])
        nftw(test_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    test_dir[0] = '\0';
}

/* test_dir/name, written with `text` (NULL: a directory). Returns a static path. */
static inline const char *make_in_dir(const char *name, const char *text)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 512, "%s/%s", test_dir, name);
    if (!text) {
        cr_assert_eq(mkdir(p, 0700), 0, "mkdir %s", p);
    } else {
        FILE *f = fopen(p, "w");
        cr_assert_not_null(f, "cannot create %s", p);
        fputs(text, f);
        fclose(f);
    }
    return p;
}

/* Loads `text` as "t.toml" over the default; it must fail with `status` and
 * a message containing each of the NULL-terminated strings. */
static inline void expect_load_error(const char *text, ebb_status status, ...)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    ebb_status s = ebb_config_load_string(text, "t.toml", &cfg);
    const char *msg = ebb_last_error();
    cr_assert_eq(s, status, "status %s, expected %s, for:\n%s\nmessage: %s", ebb_status_name(s),
                 ebb_status_name(status), text, msg);
    va_list ap;
    va_start(ap, status);
    for (const char *want; (want = va_arg(ap, const char *)) != NULL;)
        cr_expect(strstr(msg, want) != NULL, "message\n  %s\nlacks\n  %s", msg, want);
    va_end(ap);
    ebb_config_dispose(&cfg);
}

/* Loads `text` over the default into *cfg; it must succeed. */
static inline void load_ok(const char *text, ebb_config *cfg)
{
    cr_assert_eq(ebb_config_init_default(cfg), EBB_OK);
    ebb_status s = ebb_config_load_string(text, "t.toml", cfg);
    cr_assert_eq(s, EBB_OK, "%s for:\n%s", ebb_last_error(), text);
}

#endif
