/* The embedded default: what a program gets with no file at all. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"

Test(defaults, values)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(cfg.strategy, EBB_CONFIG_STRATEGY_AUTO);
    cr_expect_eq(cfg.gpu.budget, EBB_BUDGET_AUTO);
    cr_expect_eq(cfg.gpu.device, 0);
    cr_expect_eq(cfg.gpu.chunk_size, UINT64_C(64) << 20);
    cr_expect_eq(cfg.host.enabled, 1);
    cr_expect_eq(cfg.host.budget, EBB_BUDGET_AUTO);
    cr_expect_eq(cfg.host.numa, EBB_NUMA_AUTO);
    cr_expect_eq(cfg.host.pin, 1);
    cr_expect_eq(cfg.host.prefault, 1);
    cr_expect_eq(cfg.host.staging, EBB_BUDGET_AUTO);
    cr_expect_eq(cfg.disk.enabled, 1);
    cr_expect_eq(cfg.disk.budget, EBB_BUDGET_AUTO);
    cr_expect_eq(cfg.disk.block_size, UINT64_C(8) << 20);
    cr_expect_eq(cfg.disk.queue_depth, 16);
    cr_expect_eq(cfg.disk.threads, 0);
    cr_expect_eq(cfg.disk.backend, EBB_DISK_BACKEND_AUTO);
    cr_expect_eq(cfg.disk.checksum, 0);
    cr_expect_eq(cfg.disk.direct, 1);
    cr_expect_eq(cfg.disk.path_count, 1);
    cr_expect_null(cfg.source);
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        cr_expect_eq(cfg.line[k], 0);
    ebb_config_dispose(&cfg);
    cr_expect_null(cfg.disk.paths);
    ebb_config_dispose(&cfg); /* twice is harmless */
    ebb_config_dispose(NULL);
}

/* Every key has its dotted name (the table the loader, the messages and the
 * suggestions use), and the names are distinct. */
Test(defaults, every_key_has_a_name)
{
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        const char *name = ebb_config_key_name((ebb_config_key)k);
        cr_assert_not_null(name);
        cr_expect(strncmp(name, "run.", 4) == 0 || strncmp(name, "tier.", 5) == 0, "%d: %s", k, name);
        for (int j = 0; j < k; j++)
            cr_expect_str_neq(name, ebb_config_key_name((ebb_config_key)j));
    }
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_GPU_CHUNK_SIZE), "tier.gpu.chunk_size");
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_HOST_PIN), "tier.host.pin");
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_HOST_PREFAULT), "tier.host.prefault");
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_HOST_STAGING), "tier.host.staging");
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_DISK_THREADS), "tier.disk.threads");
    cr_expect_str_eq(ebb_config_key_name(EBB_CONFIG_KEY_COUNT), "?");
}

Test(defaults, gpu_tier_follows_the_devices_found)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    uint64_t bytes = 1;
    if (!cfg.gpu.enabled) {
        /* No device here (the usual CI machine): the tier is off and its
         * budget is 0. */
        cr_expect_eq(ebb_config_budget(&cfg, EBB_TIER_GPU, &bytes), EBB_OK);
        cr_expect_eq(bytes, 0);
        cfg.gpu.enabled = 1;
        cr_expect_eq(ebb_config_budget(&cfg, EBB_TIER_GPU, &bytes), EBB_ERR_UNSUPPORTED);
        cr_expect(strstr(ebb_last_error(), "key 'tier.gpu.enabled'") != NULL, "%s", ebb_last_error());
        cr_expect(strstr(ebb_last_error(), "CUDA device 0 does not exist") != NULL, "%s",
                  ebb_last_error());
    } else {
        cr_expect_eq(ebb_config_budget(&cfg, EBB_TIER_GPU, &bytes), EBB_OK, "%s", ebb_last_error());
        cr_expect_gt(bytes, 0);
        cr_expect_eq(bytes % 4096, 0);
    }
    ebb_config_dispose(&cfg);
}

Test(defaults, disk_path_is_tmpdir_or_tmp)
{
    ebb_config cfg;
    setenv("TMPDIR", "/var/tmp", 1);
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_str_eq(cfg.disk.paths[0], "/var/tmp");
    ebb_config_dispose(&cfg);

    unsetenv("TMPDIR");
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_str_eq(cfg.disk.paths[0], "/tmp");
    ebb_config_dispose(&cfg);

    setenv("TMPDIR", "relative/dir", 1); /* not absolute: ignored */
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_str_eq(cfg.disk.paths[0], "/tmp");
    ebb_config_dispose(&cfg);
}

Test(defaults, auto_budgets_come_from_the_machine)
{
    ebb_config cfg;
    unsetenv("TMPDIR");
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    uint64_t host = 0, disk = 0;
    cr_assert_eq(ebb_config_budget(&cfg, EBB_TIER_HOST, &host), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_config_budget(&cfg, EBB_TIER_DISK, &disk), EBB_OK, "%s", ebb_last_error());
    cr_expect_gt(host, 0);
    cr_expect_gt(disk, 0);
    cr_expect_eq(host % 4096, 0);
    cr_expect_eq(disk % 4096, 0);
    cfg.host.budget = UINT64_C(3) << 30;
    cr_assert_eq(ebb_config_budget(&cfg, EBB_TIER_HOST, &host), EBB_OK);
    cr_expect_eq(host, UINT64_C(3) << 30);
    cfg.disk.enabled = 0;
    cr_assert_eq(ebb_config_budget(&cfg, EBB_TIER_DISK, &disk), EBB_OK);
    cr_expect_eq(disk, 0);
    cr_expect_eq(ebb_config_budget(&cfg, EBB_TIER_COUNT, &disk), EBB_ERR_INVALID_ARG);
    ebb_config_dispose(&cfg);
}

Test(defaults, default_passes_the_check)
{
    ebb_config cfg;
    unsetenv("TMPDIR");
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(ebb_config_check(&cfg, 0), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(ebb_config_check(&cfg, 1 << 20), EBB_OK, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(defaults, copy_is_deep)
{
    ebb_config a, b;
    cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
    const char *paths[] = {"/tmp", "/var/tmp"};
    cr_assert_eq(ebb_config_set_disk_paths(&a, paths, 2), EBB_OK);
    cr_assert_eq(ebb_config_copy(&a, &b), EBB_OK);
    cr_expect_neq(a.disk.paths, b.disk.paths);
    cr_expect_str_eq(b.disk.paths[1], "/var/tmp");
    ebb_config_dispose(&a);
    cr_expect_str_eq(b.disk.paths[0], "/tmp");
    ebb_config_dispose(&b);
}

Test(defaults, set_disk_paths_refuses_empty)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    const char *bad[] = {"/tmp", ""};
    cr_expect_eq(ebb_config_set_disk_paths(&cfg, bad, 2), EBB_ERR_INVALID_ARG);
    cr_expect(strstr(ebb_last_error(), "path 1 is empty") != NULL, "%s", ebb_last_error());
    cr_expect_eq(ebb_config_set_disk_paths(&cfg, bad, 0), EBB_ERR_INVALID_ARG);
    cr_expect_eq(cfg.disk.path_count, 1); /* unchanged */
    ebb_config_dispose(&cfg);
}
