/* A complete file loads; every key lands in its field with its line. */
#include "config/helpers.h"

TestSuite(load_ok, .init = setup_dir, .fini = cleanup_dir);

Test(load_ok, every_key)
{
    make_in_dir("nvme0", NULL);
    make_in_dir("nvme1", NULL);
    char text[2048];
    snprintf(text, sizeof text,
             "# a full configuration\n"                  /* 1 */
             "[run]\n"                                   /* 2 */
             "strategy = \"disk-revolve\"\n"             /* 3 */
             "\n"                                        /* 4 */
             "[tier.gpu]\n"                              /* 5 */
             "enabled = false\n"                         /* 6 */
             "budget = \"8 GiB\"\n"                      /* 7 */
             "device = 1\n"                              /* 8 */
             "chunk_size = \"16 MiB\"\n"                 /* 9 */
             "[tier.host]\n"                             /* 10 */
             "budget = \"1.5 GB\"\n"                     /* 11 */
             "numa = 0\n"                                /* 12 */
             "pin = false\n"                             /* 13 */
             "prefault = false\n"                        /* 14 */
             "staging = \"32 MiB\"\n"                  /* 15 */
             "[tier.disk]\n"                             /* 16 */
             "path = [\"%s/nvme0\", \"%s/nvme1\"]\n"     /* 17 */
             "budget = 1048576\n"                        /* 18 */
             "block_size = \"4 MiB\"\n"                  /* 19 */
             "queue_depth = 16\n"                        /* 20 */
             "threads = 4\n"                             /* 21 */
             "backend = \"threads\"\n"                   /* 22 */
             "checksum = true\n"                         /* 23 */
             "direct = false\n",                         /* 24 */
             test_dir, test_dir);
    const char *file = make_in_dir("ebb.toml", text);
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_assert_eq(ebb_config_load_file(file, &cfg), EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(cfg.strategy, EBB_CONFIG_STRATEGY_DISK_REVOLVE);
    cr_expect_eq(cfg.gpu.enabled, 0);
    cr_expect_eq(cfg.gpu.budget, UINT64_C(8) << 30);
    cr_expect_eq(cfg.gpu.device, 1);
    cr_expect_eq(cfg.gpu.chunk_size, UINT64_C(16) << 20);
    cr_expect_eq(cfg.host.enabled, 1);
    cr_expect_eq(cfg.host.budget, 1500000000);
    cr_expect_eq(cfg.host.numa, 0);
    cr_expect_eq(cfg.host.pin, 0);
    cr_expect_eq(cfg.host.prefault, 0);
    cr_expect_eq(cfg.host.staging, UINT64_C(32) << 20);
    cr_expect_eq(cfg.disk.enabled, 1);
    cr_assert_eq(cfg.disk.path_count, 2);
    cr_expect(strstr(cfg.disk.paths[0], "/nvme0") != NULL);
    cr_expect(strstr(cfg.disk.paths[1], "/nvme1") != NULL);
    cr_expect_eq(cfg.disk.budget, 1048576);
    cr_expect_eq(cfg.disk.block_size, UINT64_C(4) << 20);
    cr_expect_eq(cfg.disk.queue_depth, 16);
    cr_expect_eq(cfg.disk.threads, 4);
    cr_expect_eq(cfg.disk.backend, EBB_DISK_BACKEND_THREADS);
    cr_expect_eq(cfg.disk.checksum, 1);
    cr_expect_eq(cfg.disk.direct, 0);
    cr_expect_str_eq(cfg.source, file);
    const int lines[EBB_CONFIG_KEY_COUNT] = {
        [EBB_KEY_RUN_STRATEGY] = 3, [EBB_KEY_GPU_ENABLED] = 6, [EBB_KEY_GPU_BUDGET] = 7,
        [EBB_KEY_GPU_DEVICE] = 8, [EBB_KEY_GPU_CHUNK_SIZE] = 9, [EBB_KEY_HOST_ENABLED] = 10,
        [EBB_KEY_HOST_BUDGET] = 11, [EBB_KEY_HOST_NUMA] = 12, [EBB_KEY_HOST_PIN] = 13,
        [EBB_KEY_HOST_PREFAULT] = 14, [EBB_KEY_HOST_STAGING] = 15, [EBB_KEY_DISK_ENABLED] = 16,
        [EBB_KEY_DISK_PATH] = 17, [EBB_KEY_DISK_BUDGET] = 18, [EBB_KEY_DISK_BLOCK_SIZE] = 19,
        [EBB_KEY_DISK_QUEUE_DEPTH] = 20, [EBB_KEY_DISK_THREADS] = 21, [EBB_KEY_DISK_BACKEND] = 22,
        [EBB_KEY_DISK_CHECKSUM] = 23, [EBB_KEY_DISK_DIRECT] = 24};
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        cr_expect_eq(cfg.line[k], lines[k], "%s: line %d", ebb_config_key_name((ebb_config_key)k),
                     cfg.line[k]);
    ebb_config_dispose(&cfg);
}

Test(load_ok, keys_not_in_the_file_keep_their_values)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.disk.queue_depth = 7; /* set by the program */
    cr_assert_eq(ebb_config_load_string("[tier.host]\nbudget = \"2 GiB\"\n", "a.toml", &cfg), EBB_OK,
                 "%s", ebb_last_error());
    cr_expect_eq(cfg.host.budget, UINT64_C(2) << 30);
    cr_expect_eq(cfg.disk.queue_depth, 7);
    cr_expect_eq(cfg.disk.budget, EBB_BUDGET_AUTO);
    /* A second file layers over the first. */
    cr_assert_eq(ebb_config_load_string("run.strategy = \"revolve\"", "b.toml", &cfg), EBB_OK);
    cr_expect_eq(cfg.host.budget, UINT64_C(2) << 30);
    cr_expect_eq(cfg.strategy, EBB_CONFIG_STRATEGY_REVOLVE);
    cr_expect_str_eq(cfg.source, "b.toml");
    cr_expect_eq(cfg.line[EBB_KEY_RUN_STRATEGY], 1);
    cr_expect_eq(cfg.line[EBB_KEY_HOST_BUDGET], 0);
    ebb_config_dispose(&cfg);
}

Test(load_ok, empty_file_and_auto_values)
{
    ebb_config cfg;
    load_ok("", &cfg);
    ebb_config_dispose(&cfg);
    load_ok("[tier.host]\nbudget = \"auto\"\nnuma = \"auto\"\n[tier.disk]\nbudget = \"auto\"\n", &cfg);
    cr_expect_eq(cfg.host.budget, EBB_BUDGET_AUTO);
    cr_expect_eq(cfg.host.numa, EBB_NUMA_AUTO);
    cr_expect_eq(cfg.disk.budget, EBB_BUDGET_AUTO);
    ebb_config_dispose(&cfg);
}

Test(load_ok, a_tier_table_enables_its_tier)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.disk.enabled = 0;
    cr_assert_eq(ebb_config_load_string("\n[tier.disk]\nqueue_depth = 8\n[tier.gpu]\n", "t.toml", &cfg),
                 EBB_OK, "%s", ebb_last_error());
    cr_expect_eq(cfg.disk.enabled, 1);
    cr_expect_eq(cfg.line[EBB_KEY_DISK_ENABLED], 2);
    cr_expect_eq(cfg.gpu.enabled, 1);
    cr_expect_eq(cfg.line[EBB_KEY_GPU_ENABLED], 4);
    ebb_config_dispose(&cfg);
    /* ...unless it says otherwise; dotted keys and inline tables count too. */
    load_ok("tier.gpu.enabled = false\ntier.host = { budget = \"1 GiB\" }\n", &cfg);
    cr_expect_eq(cfg.gpu.enabled, 0);
    cr_expect_eq(cfg.host.enabled, 1);
    cr_expect_eq(cfg.host.budget, UINT64_C(1) << 30);
    ebb_config_dispose(&cfg);
}

Test(load_ok, relative_paths_start_at_the_files_directory)
{
    make_in_dir("conf", NULL);
    make_in_dir("conf/scratch", NULL);
    const char *file = make_in_dir("conf/ebb.toml", "[tier.disk]\npath = \"scratch\"\n");
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_assert_eq(ebb_config_load_file(file, &cfg), EBB_OK, "%s", ebb_last_error());
    char want[600];
    char *real = realpath(test_dir, NULL);
    snprintf(want, sizeof want, "%s/conf/scratch", real);
    free(real);
    cr_expect_str_eq(cfg.disk.paths[0], want);
    ebb_config_dispose(&cfg);
}

Test(load_ok, single_path_string_or_list)
{
    ebb_config cfg;
    load_ok("[tier.disk]\npath = [\"/tmp\"]\n", &cfg);
    cr_expect_eq(cfg.disk.path_count, 1);
    cr_expect_str_eq(cfg.disk.paths[0], "/tmp");
    ebb_config_dispose(&cfg);
}

Test(load_ok, backend_names)
{
    ebb_config cfg;
    load_ok("[tier.disk]\nbackend = \"io_uring\"\n", &cfg); /* the name ebb bench prints */
    cr_expect_eq(cfg.disk.backend, EBB_DISK_BACKEND_URING);
    ebb_config_dispose(&cfg);
    load_ok("[tier.disk]\nbackend = \"uring\"\n", &cfg);
    cr_expect_eq(cfg.disk.backend, EBB_DISK_BACKEND_URING);
    ebb_config_dispose(&cfg);
    load_ok("[tier.disk]\nbackend = \"threads\"\n", &cfg);
    cr_expect_eq(cfg.disk.backend, EBB_DISK_BACKEND_THREADS);
    ebb_config_dispose(&cfg);
}

Test(load_ok, pool_keys_edges)
{
    ebb_config cfg;
    load_ok("[tier.gpu]\nchunk_size = 1\n[tier.host]\npin = true\nprefault = true\n"
            "[tier.disk]\nthreads = 0\n", &cfg);
    cr_expect_eq(cfg.gpu.chunk_size, 1);
    cr_expect_eq(cfg.host.pin, 1);
    cr_expect_eq(cfg.host.prefault, 1);
    cr_expect_eq(cfg.disk.threads, 0);
    cr_expect_eq(cfg.line[EBB_KEY_GPU_CHUNK_SIZE], 2);
    cr_expect_eq(cfg.line[EBB_KEY_HOST_PIN], 4);
    cr_expect_eq(cfg.line[EBB_KEY_HOST_PREFAULT], 5);
    cr_expect_eq(cfg.line[EBB_KEY_DISK_THREADS], 7);
    ebb_config_dispose(&cfg);
    load_ok("tier.gpu.chunk_size = \"1 GiB\"\ntier.disk.threads = 1024\n"
            "tier.host = { pin = false, prefault = false }\n", &cfg);
    cr_expect_eq(cfg.gpu.chunk_size, UINT64_C(1) << 30);
    cr_expect_eq(cfg.disk.threads, 1024);
    cr_expect_eq(cfg.host.pin, 0);
    cr_expect_eq(cfg.host.prefault, 0);
    ebb_config_dispose(&cfg);
}
