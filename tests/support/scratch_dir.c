/* scratch_dir.h */
#include "support/scratch_dir.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

void scratch_dir_make(char *dir, size_t len, const char *name)
{
    snprintf(dir, len, "/tmp/%s-XXXXXX", name);
    cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

void scratch_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4096];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    umount2(dir, MNT_DETACH);
    rmdir(dir);
}

void scratch_put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}
