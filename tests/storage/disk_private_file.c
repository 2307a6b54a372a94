/* The disk tier's file is private: invisible in the directory (O_TMPFILE, or
 * unlinked at once where O_TMPFILE is missing), mode 0600, preallocated
 * for the whole budget at creation, and it can never be given a name
 * (O_TMPFILE with O_EXCL: linkat through /proc/self/fd is refused). */
#include <fcntl.h>
#include <sys/stat.h>

#include "storage/helpers.h"

static void check(const ebb_storage_fault *f, const char *name_has)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 1 * MiB, 8, EBB_DISK_BACKEND_AUTO);
    ebb_pool *d = NULL;
    cr_assert_eq(ebb_pool_create_with_faults(&o, f, &d), EBB_OK, "%s", ebb_last_error());
    int fd = -1;
    const char *name = NULL;
    cr_assert_eq(ebb_disk_debug_locate(d, 0, 0, &fd, NULL, &name), EBB_OK);
    cr_assert(strstr(name, name_has) != NULL, "file name '%s'", name);
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600);
    cr_assert_eq(st.st_nlink, 0, "the file has a name in the directory");
    cr_assert_geq((uint64_t)st.st_size, 8 * (uint64_t)MiB);
    cr_assert_geq((uint64_t)st.st_blocks * 512, 8 * (uint64_t)MiB, "not preallocated");
    /* No one (not even this process) can link the file into the directory. */
    char proc[64], target[512];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    snprintf(target, sizeof target, "%s/linked", dir);
    int linked = linkat(AT_FDCWD, proc, AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0;
    int err = errno;
    if (linked)
        unlink(target);
    cr_assert(!linked, "the private file could be linked into '%s'", dir);
    cr_assert(err == ENOENT || err == EXDEV || err == EPERM, "linkat: %s", strerror(err));
    ebb_pool_destroy(d);
    rm_tmpdir(dir); /* fails if anything is left in the directory */
}

Test(disk_private_file, o_tmpfile)
{
    check(NULL, "<unnamed O_TMPFILE>");
}

Test(disk_private_file, named_and_unlinked_without_o_tmpfile)
{
    ebb_storage_fault f = {0};
    f.no_tmpfile = 1;
    check(&f, "(deleted)");
}
