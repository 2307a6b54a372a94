/* `ebb run --disk-slots D` with more slots than the disk has room for: the
 * message names the flag to lower, not tier.disk.budget (which did not set
 * the count). */
#include <stdint.h>
#include <sys/statvfs.h>

#include "support/cli_run.h"

Test(run_disk_slots_flag, named_when_the_disk_lacks_room, .timeout = 120)
{
    char dir[] = "/tmp/ebb-disk-slots-XXXXXX", config[64];
    cli_disk_config(dir, config, sizeof config, "");
    struct statvfs vfs;
    cr_assert_eq(statvfs(dir, &vfs), 0);
    uint64_t state = 64ull << 20, free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    uint64_t slots = free_bytes / state + 16; /* more than the file system holds */
    if (slots > (1u << 30))
        cr_skip_test("%llu bytes free in %s: too many slots to ask for", (unsigned long long)free_bytes, dir);
    char d[32], n[32];
    snprintf(d, sizeof d, "%llu", (unsigned long long)slots);
    snprintf(n, sizeof n, "%llu", (unsigned long long)(2 * slots));
    cli_result r = cli_run("run", "--config", config, "--strategy", "multistage", "--slots", "2",
                           "--disk-slots", d, "--steps", n, "--state-size", "64MiB",
                           "--forward-ms", "0.01", "--reverse-ms", "0.01", NULL);
    cr_assert_neq(r.status, 0, "%s", r.out);
    char want[64];
    snprintf(want, sizeof want, "lower --disk-slots %s", d);
    cr_assert(strstr(r.err, want), "'%s' lacks '%s'", r.err, want);
    cr_assert_null(strstr(r.err, "lower tier.disk.budget"), "%s", r.err);
    cli_free(&r);
    cr_assert_eq(cli_dir_entries(dir), 0);
    rmdir(dir);
    unlink(config);
}
