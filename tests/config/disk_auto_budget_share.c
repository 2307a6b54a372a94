/* tier.disk.budget = "auto" leaves the file system's space to the other
 * processes: a quarter of the free space, divided by the processes on the
 * node where the MPI launcher says how many (OMPI_COMM_WORLD_LOCAL_SIZE,
 * MPI_LOCALNRANKS). Free space is read before and after: another process
 * may write in between. */
#include <sys/statvfs.h>

#include "config/helpers.h"

static uint64_t free_bytes(const char *dir)
{
    struct statvfs vfs;
    cr_assert_eq(statvfs(dir, &vfs), 0, "statvfs %s", dir);
    return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

/* The auto budget with `ranks` (NULL: unset) as the launcher's count, and
 * the free space around it. */
static uint64_t auto_budget(const char *env, const char *ranks, uint64_t *lo, uint64_t *hi)
{
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    unsetenv("MPI_LOCALNRANKS");
    if (ranks)
        setenv(env, ranks, 1);
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    const char *dir = cfg.disk.paths[0];
    uint64_t a = free_bytes(dir), bytes = 0;
    cr_assert_eq(ebb_config_budget(&cfg, EBB_TIER_DISK, &bytes), EBB_OK, "%s", ebb_last_error());
    uint64_t b = free_bytes(dir);
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
    ebb_config_dispose(&cfg);
    unsetenv(env);
    return bytes;
}

static void expect_share(const char *env, const char *ranks, uint64_t divisor)
{
    uint64_t lo, hi;
    uint64_t bytes = auto_budget(env, ranks, &lo, &hi);
    uint64_t slack = (uint64_t)64 << 20; /* what others may free or take meanwhile */
    cr_expect_leq(bytes, hi / divisor + slack,
                  "%s=%s: auto is %llu bytes of %llu free; expected at most 1/%llu of it", env,
                  ranks ? ranks : "(unset)", (unsigned long long)bytes, (unsigned long long)hi,
                  (unsigned long long)divisor);
    cr_expect_geq(bytes + slack, lo / divisor,
                  "%s=%s: auto is %llu bytes of %llu free; expected 1/%llu of it", env,
                  ranks ? ranks : "(unset)", (unsigned long long)bytes, (unsigned long long)lo,
                  (unsigned long long)divisor);
    cr_expect_eq(bytes % 4096, 0);
}

Test(disk_auto_budget_share, quarter_of_free_space)
{
    expect_share("OMPI_COMM_WORLD_LOCAL_SIZE", NULL, 4);
}

Test(disk_auto_budget_share, divided_by_open_mpi_local_size)
{
    expect_share("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 12);
}

Test(disk_auto_budget_share, divided_by_mpich_local_ranks)
{
    expect_share("MPI_LOCALNRANKS", "8", 32);
}

Test(disk_auto_budget_share, unreadable_count_is_one)
{
    expect_share("MPI_LOCALNRANKS", "three", 4);
    expect_share("MPI_LOCALNRANKS", "0", 4);
}
