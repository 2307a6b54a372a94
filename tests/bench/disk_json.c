/* `ebb bench --tier disk` with a configuration that puts the disk tier in a
 * fresh directory: both backends, and --baseline. Nothing is left behind. */
#include <dirent.h>

#include "support/cli_run.h"
#include "support/uring_refused.h"

static char dir[] = "/tmp/ebb-bench-disk-XXXXXX";
static char config[128];

static void setup(void)
{
    cli_disk_config(dir, config, sizeof config, "queue_depth = 8\n");
}

static void teardown(void)
{
    unlink(config);
    rmdir(dir);
}

static void check_disk(const cli_result *r, const char *backend)
{
    if (r->status != 0 && uring_refused(r->err))
        cr_skip_test("io_uring is refused here: %s", r->err);
    cr_assert_eq(r->status, 0, "exit %d, stderr: %s", r->status, r->err);
    cr_assert_eq(count_lines(r->out), 1, "%s", r->out);
    const char *w = json_find(r->out, "tiers", "disk", "write_GBps", NULL);
    const char *rd = json_find(r->out, "tiers", "disk", "read_GBps", NULL);
    cr_assert(w && rd, "%s", r->out);
    cr_assert_gt(strtod(w, NULL), 0.0, "%s", r->out);
    cr_assert_gt(strtod(rd, NULL), 0.0, "%s", r->out);
    const char *size = json_find(r->out, "tiers", "disk", "size", NULL);
    cr_assert(size && strtoll(size, NULL, 10) == 4 << 20, "%s", r->out);
    const char *block = json_find(r->out, "tiers", "disk", "block", NULL);
    cr_assert(block && strtoll(block, NULL, 10) == 1 << 20, "%s", r->out);
    const char *depth = json_find(r->out, "tiers", "disk", "depth", NULL);
    cr_assert(depth && strtoll(depth, NULL, 10) == 8, "queue depth from the config: %s", r->out);
    char want[64];
    snprintf(want, sizeof want, "\"%s\"", backend);
    const char *b = json_find(r->out, "tiers", "disk", "backend", NULL);
    cr_assert(b && strncmp(b, want, strlen(want)) == 0, "backend %s wanted: %s", backend, r->out);
    cr_assert(json_find(r->out, "tiers", "disk", "direct", NULL), "%s", r->out);
    cr_assert(json_find(r->out, "tiers", "disk", "registered_buffers", NULL), "%s", r->out);
    const char *path = json_find(r->out, "tiers", "disk", "path", NULL);
    cr_assert(path && strncmp(path + 1, dir, strlen(dir)) == 0, "%s", r->out);
    cr_assert_eq(cli_dir_entries(dir), 0, "files left in %s", dir);
}

Test(bench, disk_uring, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "4MiB", "--block",
                             "1MiB", "--backend", "uring", "--total", "32MiB", "--json", NULL);
    check_disk(&r, "io_uring");
    cli_free(&r);
}

Test(bench, disk_threads, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "4MiB", "--block",
                             "1MiB", "--backend", "threads", "--total", "32MiB", "--json", NULL);
    check_disk(&r, "threads");
    const char *threads = json_find(r.out, "tiers", "disk", "threads", NULL);
    cr_assert(threads && strtoll(threads, NULL, 10) >= 1, "%s", r.out);
    cli_free(&r);
}

Test(bench, disk_baseline, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "4MiB", "--block",
                             "1MiB", "--depth", "8", "--total", "32MiB", "--baseline", "--json",
                             NULL);
    check_disk(&r, r.out && strstr(r.out, "\"threads\", ") ? "threads" : "io_uring");
    const char *w = json_find(r.out, "baseline", "write_GBps", NULL);
    const char *rd = json_find(r.out, "baseline", "read_GBps", NULL);
    cr_assert(w && rd, "%s", r.out);
    cr_assert_gt(strtod(w, NULL), 0.0);
    cr_assert_gt(strtod(rd, NULL), 0.0);
    cr_assert(json_find(r.out, "baseline", "disk_write_ratio", NULL), "%s", r.out);
    cli_free(&r);
}

/* The disk tier in a budget of fewer states than the bytes asked for: the
 * slots are cycled over, nothing fails. */
Test(bench, disk_small_budget_cycles, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "disk", "--size", "16MiB", "--block",
                             "1MiB", "--total", "128MiB", "--json", NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    const char *slots = json_find(r.out, "tiers", "disk", "slots", NULL);
    const char *moved = json_find(r.out, "tiers", "disk", "bytes_moved", NULL);
    cr_assert(slots && moved, "%s", r.out);
    cr_assert_leq(strtoll(slots, NULL, 10), 4, "64 MiB budget, 16 MiB states: %s", r.out);
    cr_assert_eq(strtoll(moved, NULL, 10), 128 << 20, "%s", r.out);
    cli_free(&r);
}
