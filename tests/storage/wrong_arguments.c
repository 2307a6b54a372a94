/* Wrong arguments get clear messages that say what was wrong. */
#include <fcntl.h>
#include <sys/stat.h>

#include "storage/helpers.h"

static ebb_status create(const ebb_pool_options *o)
{
    ebb_pool *p = (ebb_pool *)0x1;
    ebb_status s = ebb_pool_create(o, &p);
    if (s == EBB_OK)
        ebb_pool_destroy(p);
    else
        cr_assert_null(p, "*out is NULL on failure");
    return s;
}

#define EXPECT_MSG(text) \
    cr_assert(strstr(ebb_last_error(), text) != NULL, "message '%s' lacks '%s'", ebb_last_error(), text)

Test(wrong_arguments, sizes_and_counts)
{
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slots = 2;
    cr_assert_eq(create(&o), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("host pool: slot_size is 0");
    o.slot_size = 4096;
    o.slots = 0;
    cr_assert_eq(create(&o), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("slots is 0; it must be at least 1");
    cr_assert_eq(ebb_pool_create(NULL, &(ebb_pool *){NULL}), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("options is NULL");
    o.tier = (ebb_tier)7;
    o.slots = 1;
    cr_assert_eq(create(&o), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("pool tier 7 is not gpu (0), host (1) or disk (2)");
    o.tier = (ebb_tier)-1; /* below the table too */
    cr_assert_eq(create(&o), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("pool tier -1 is not gpu (0), host (1) or disk (2)");
}

Test(wrong_arguments, slot_out_of_range)
{
    ebb_pool *h = host_pool(4096, 4);
    ebb_ticket t;
    char buf[4096];
    cr_assert_eq(ebb_pool_put(h, 4, buf, &t), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("slot 4 is out of range for the host pool (it has slots 0 .. 3)");
    cr_assert_eq(ebb_pool_get(h, -1, buf, &t), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("slot -1 is out of range");
    cr_assert_eq(ebb_move(h, 0, h, 9, &t), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("ebb_move (source): slot 9 is out of range");
    void *p;
    cr_assert_eq(ebb_pool_slot_ptr(h, 4, &p), EBB_ERR_INVALID_ARG);
    ebb_pool *other = host_pool(8192, 1);
    cr_assert_eq(ebb_move(other, 0, h, 0, &t), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("need the same slot_size");
    ebb_pool_destroy(other);
    ebb_pool_destroy(h);
}

Test(wrong_arguments, disk_directories)
{
    ebb_pool_options o;
    const char *missing[] = {"/nonexistent/ebb-disk"};
    disk_options(&o, missing, 1, 4096, 1, EBB_DISK_BACKEND_AUTO);
    cr_assert_eq(create(&o), EBB_ERR_IO);
    EXPECT_MSG("disk directory '/nonexistent/ebb-disk' does not exist");

    char dir[256], file[300];
    make_tmpdir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/plain-file", dir);
    int fd = open(file, O_CREAT | O_WRONLY, 0600);
    cr_assert_geq(fd, 0);
    close(fd);
    const char *notdir[] = {file};
    o.paths = notdir;
    cr_assert_eq(create(&o), EBB_ERR_IO);
    EXPECT_MSG("is not a directory");
    unlink(file);

    o.paths = NULL;
    o.path_count = 0;
    cr_assert_eq(create(&o), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("no directory given");

    const char *ok[] = {dir};
    o.paths = ok;
    o.path_count = 1;
    o.queue_depth = 0;
    cr_assert_eq(create(&o), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("queue_depth 0 is out of range 1 .. 4096");
    o.queue_depth = 16;
    o.block = 4096 + 512;
    cr_assert_eq(create(&o), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("is not a multiple of the direct-I/O alignment");
    o.block = 8 * MiB;
    ebb_pool *d = host_pool(4096, 1);
    o.staging = d; /* fine */
    cr_assert_eq(create(&o), EBB_OK, "%s", ebb_last_error());
    ebb_pool_destroy(d);
    rm_tmpdir(dir);
}

Test(wrong_arguments, readonly_directory)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    cr_assert_eq(chmod(dir, 0555), 0);
    /* Root ignores permission bits: drop to nobody (Criterion runs each test
     * in its own process, so this does not leak). */
    if (geteuid() == 0)
        cr_assert_eq(seteuid(65534), 0, "seteuid(nobody) failed");
    const char *dirs[] = {dir};
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 4096, 1, EBB_DISK_BACKEND_AUTO);
    cr_assert_eq(create(&o), EBB_ERR_IO);
    EXPECT_MSG("is not writable");
    EXPECT_MSG("Permission denied");
    EXPECT_MSG(dir);
    if (getuid() == 0)
        cr_assert_eq(seteuid(0), 0);
    chmod(dir, 0700);
    rm_tmpdir(dir);
}

Test(wrong_arguments, operations_a_tier_does_not_have)
{
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    const char *dirs[] = {dir};
    ebb_pool *h = host_pool(4096, 2);
    ebb_pool_options o;
    disk_options(&o, dirs, 1, 4096, 2, EBB_DISK_BACKEND_AUTO);
    ebb_pool *d = NULL, *d2 = NULL;
    cr_assert_eq(ebb_pool_create(&o, &d), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_pool_create(&o, &d2), EBB_OK, "%s", ebb_last_error());
    ebb_ticket t;
    char buf[4096];
    cr_assert_eq(ebb_pool_put(d, 0, buf, &t), EBB_ERR_UNSUPPORTED);
    EXPECT_MSG("stores from host slots only");
    cr_assert_eq(ebb_pool_get(d, 0, buf, &t), EBB_ERR_UNSUPPORTED);
    void *p;
    cr_assert_eq(ebb_pool_slot_ptr(d, 0, &p), EBB_ERR_UNSUPPORTED);
    EXPECT_MSG("disk slots have no address");
    cr_assert_eq(ebb_move(d2, 0, d, 0, &t), EBB_ERR_UNSUPPORTED);
    EXPECT_MSG("disk -> disk is not a direct path: chain it through a host slot");
    cr_assert_eq(ebb_move(h, 0, d, 1, &t), EBB_ERR_STATE);
    EXPECT_MSG("disk slot 1 holds no data");
    cr_assert_eq(ebb_move(h, 0, h, 0, &t), EBB_OK);
    cr_assert_eq(ebb_ticket_wait(NULL), EBB_ERR_INVALID_ARG);
    ebb_ticket forged = {d, 0, 99};
    cr_assert_eq(ebb_ticket_wait(&forged), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("was never issued");
    ebb_disk_backend b;
    cr_assert_eq(ebb_disk_backend_from_name("uring", &b), EBB_OK);
    cr_assert_eq(b, EBB_DISK_BACKEND_URING);
    cr_assert_eq(ebb_disk_backend_from_name("spdk", &b), EBB_ERR_INVALID_ARG);
    EXPECT_MSG("expected auto, uring or threads");
    cr_assert_str_eq(ebb_disk_backend_name(EBB_DISK_BACKEND_THREADS), "threads");
    ebb_pool_destroy(d2);
    ebb_pool_destroy(d);
    ebb_pool_destroy(h);
    rm_tmpdir(dir);
}
