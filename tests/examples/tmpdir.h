/* Shared by the example's tests (a header: only *.c files are tests): a
 * fresh temporary directory per test, removed with what is in it. */
#ifndef EBB_TESTS_EXAMPLES_TMPDIR_H
#define EBB_TESTS_EXAMPLES_TMPDIR_H

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char dir[256];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void make_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ebb-example-test-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}

static void remove_dir(void)
{
    if (dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    dir[0] = '\0';
}

TestSuite(reaction_diffusion, .init = make_dir, .fini = remove_dir);

#endif
