/* ebb_config_check with the state size: every enabled tier must hold at
 * least one state; the check names the key and where it was set. */
#include "config/helpers.h"

Test(budget_vs_state, host_budget_from_the_file)
{
    ebb_config cfg;
    load_ok("[run]\n[tier.host]\nbudget = \"1 MiB\"\n", &cfg);
    cr_expect_eq(ebb_config_check(&cfg, 1 << 20), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_config_check(&cfg, (1 << 20) + 1), EBB_ERR_NO_MEMORY);
    cr_expect_str_eq(ebb_last_error(), "t.toml:3: key 'tier.host.budget': 1 MiB is smaller than one state "
                     "of 1.0 MiB (1048577 bytes); expected a budget of at least 1.0 MiB (1048577 bytes)");
    ebb_config_dispose(&cfg);
}

Test(budget_vs_state, disk_state_rounds_up_to_4k)
{
    ebb_config cfg;
    load_ok("[tier.disk]\nbudget = 8192\n", &cfg);
    cr_expect_eq(ebb_config_check(&cfg, 8192), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_config_check(&cfg, 8193), EBB_ERR_NO_MEMORY);
    cr_expect_str_eq(ebb_last_error(), "t.toml:2: key 'tier.disk.budget': 8 KiB is smaller than one state "
                     "of 12 KiB; expected a budget of at least 12 KiB");
    ebb_config_dispose(&cfg);
}

Test(budget_vs_state, set_by_the_program)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.host.budget = 4096;
    cr_assert_eq(ebb_config_check(&cfg, 5000), EBB_ERR_NO_MEMORY);
    cr_expect_str_eq(ebb_last_error(), "key 'tier.host.budget' (default or set by the program): 4 KiB is "
                     "smaller than one state of 5 kB; expected a budget of at least 5 kB");
    ebb_config_dispose(&cfg);
}

Test(budget_vs_state, auto_budget_too_small)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.disk.enabled = 0;
    cfg.gpu.enabled = 0; /* on a GPU machine the GPU's auto budget is checked first */
    cr_assert_eq(ebb_config_check(&cfg, SIZE_MAX / 2), EBB_ERR_NO_MEMORY);
    cr_expect(strstr(ebb_last_error(), "key 'tier.host.budget' (default or set by the program): \"auto\" "
                     "(half of MemAvailable, now ") != NULL, "%s", ebb_last_error());
    cr_expect(strstr(ebb_last_error(), "is smaller than one state of") != NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(budget_vs_state, disabled_tiers_do_not_count)
{
    ebb_config cfg;
    load_ok("[tier.host]\nbudget = 4096\n[tier.disk]\nenabled = false\n", &cfg);
    cfg.host.enabled = 0;
    cfg.gpu.enabled = 0;
    cr_assert_eq(ebb_config_check(&cfg, 1 << 30), EBB_ERR_CONFIG);
    cr_expect_str_eq(ebb_last_error(), "t.toml: no tier is enabled; expected at least one of tier.gpu, "
                     "tier.host, tier.disk with enabled = true");
    ebb_config_dispose(&cfg);
}

Test(budget_vs_state, host_budget_above_physical_memory)
{
    ebb_config cfg;
    load_ok("[tier.host]\nbudget = \"16000 PiB\"\n", &cfg);
    cr_assert_eq(ebb_config_check(&cfg, 4096), EBB_ERR_NO_MEMORY);
    cr_expect(strstr(ebb_last_error(), "t.toml:2: key 'tier.host.budget': 16000 PiB is more than this "
                     "machine's memory (") != NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(budget_vs_state, gpu_tier_without_a_device)
{
    ebb_config cfg;
    load_ok("[tier.gpu]\nbudget = \"1 GiB\"\ndevice = 1000\n", &cfg);
    cr_assert_eq(ebb_config_check(&cfg, 4096), EBB_ERR_UNSUPPORTED);
    cr_expect(strstr(ebb_last_error(), "t.toml:3: key 'tier.gpu.device': the GPU tier is enabled but CUDA "
                     "device 1000 does not exist") != NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(budget_vs_state, values_set_out_of_range_by_the_program)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.disk.queue_depth = 0;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "key 'tier.disk.queue_depth' (default or set by the program): "
                     "expected an integer from 1 to 4096, got 0") != NULL, "%s", ebb_last_error());
    cfg.disk.queue_depth = 4;
    cfg.disk.block_size = 1000;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "tier.disk.block_size") != NULL, "%s", ebb_last_error());
    cfg.disk.block_size = 4096;
    cfg.gpu.chunk_size = 0;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect_str_eq(ebb_last_error(), "key 'tier.gpu.chunk_size' (default or set by the program): "
                     "expected a size from 1 byte to 1 GiB, got 0 bytes");
    cfg.gpu.chunk_size = (UINT64_C(1) << 30) + 1;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "key 'tier.gpu.chunk_size'") != NULL, "%s", ebb_last_error());
    cfg.gpu.chunk_size = UINT64_C(1) << 30;
    cfg.disk.threads = -1;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect_str_eq(ebb_last_error(), "key 'tier.disk.threads' (default or set by the program): "
                     "expected an integer from 0 to 1024 (0: as many as queue_depth), got -1");
    cfg.disk.threads = 1025;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "got 1025") != NULL, "%s", ebb_last_error());
    cfg.disk.threads = 1024;
    cr_expect_eq(ebb_config_check(&cfg, 0), EBB_OK, "%s", ebb_last_error());
    cfg.host.numa = 4000;
    cr_assert_eq(ebb_config_check(&cfg, 0), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "key 'tier.host.numa' (default or set by the program): NUMA node "
                     "4000 does not exist") != NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

static int no_forward(void *user, int64_t k, const void *in, void *out)
{
    (void)user, (void)k, (void)in, (void)out;
    return EBB_STEP_OK;
}

static int no_reverse(void *user, int64_t k, void *state)
{
    (void)user, (void)k, (void)state;
    return EBB_STEP_OK;
}

/* A budget that holds no state is one status whichever call finds it:
 * ebb_config_check, ebb_config_pool_options and ebb_run_create all say
 * EBB_ERR_NO_MEMORY, naming the key (host: below the state; disk: below its
 * 4 KiB-rounded slot; host: the state fits but not its page-rounded slot). */
Test(budget_vs_state, one_status_for_a_budget_too_small)
{
    const struct {
        ebb_tier tier;
        uint64_t budget;
        size_t state;
        int check_sees_it; /* ebb_config_check compares with the state itself */
    } cases[] = {
        {EBB_TIER_HOST, 4096, 5000, 1},
        {EBB_TIER_DISK, 8192, 8193, 1},
        {EBB_TIER_HOST, 5000, 5000, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ebb_config cfg;
        cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
        cfg.gpu.enabled = 0;
        cfg.host.budget = 64u << 20;
        cfg.disk.budget = 64u << 20;
        if (cases[i].tier == EBB_TIER_HOST)
            cfg.host.budget = cases[i].budget;
        else
            cfg.disk.budget = cases[i].budget;
        const char *key = cases[i].tier == EBB_TIER_HOST ? "'tier.host.budget'"
                                                           : "'tier.disk.budget'";
        if (cases[i].check_sees_it) {
            cr_expect_eq(ebb_config_check(&cfg, cases[i].state), EBB_ERR_NO_MEMORY,
                         "case %zu, ebb_config_check: %s", i, ebb_last_error());
            cr_expect(strstr(ebb_last_error(), key), "case %zu: %s", i, ebb_last_error());
        }
        ebb_pool_options po;
        cr_expect_eq(ebb_config_pool_options(&cfg, cases[i].tier, cases[i].state, &po),
                     EBB_ERR_NO_MEMORY, "case %zu, ebb_config_pool_options: %s", i,
                     ebb_last_error());
        cr_expect(strstr(ebb_last_error(), key), "case %zu: %s", i, ebb_last_error());
        ebb_run_options o;
        ebb_run_options_init(&o);
        o.state_size = cases[i].state;
        o.steps = 10;
        o.config = &cfg;
        o.forward = no_forward;
        o.reverse = no_reverse;
        o.strategy = cases[i].tier == EBB_TIER_HOST ? EBB_CONFIG_STRATEGY_REVOLVE
                                                    : EBB_CONFIG_STRATEGY_MULTISTAGE;
        ebb_run *run = NULL;
        cr_expect_eq(ebb_run_create(&o, &run), EBB_ERR_NO_MEMORY, "case %zu, ebb_run_create: %s",
                     i, ebb_last_error());
        cr_expect(strstr(ebb_last_error(), key), "case %zu: %s", i, ebb_last_error());
        ebb_run_destroy(run);
        ebb_config_dispose(&cfg);
    }
}
