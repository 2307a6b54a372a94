/* A run's compression: a lossy mode needs an element type, from the
 * configuration (tier.disk.element) or the options (ebb_run_options.element,
 * which wins); the element and the shape are checked when the run is
 * created. */
#include "workload.h"

static ebb_status create_audited(ebb_config *cfg, int element, int32_t dims, int audit)
{
    wl w;
    wl_init(&w, 4096);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = w.size;
    o.steps = 50;
    o.config = cfg;
    o.strategy = EBB_STRATEGY_DISK_REVOLVE;
    o.slots = 2;
    o.io_ratio = 2;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    o.element = element;
    o.dims = dims;
    o.audit = audit;
    ebb_run *run = NULL;
    ebb_status st = ebb_run_create(&o, &run);
    ebb_run_destroy(run);
    return st;
}

static ebb_status create(ebb_config *cfg, int element, int32_t dims)
{
    return create_audited(cfg, element, dims, -1);
}

Test(compression_options, lossy_needs_an_element)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cr_assert_eq(create(&cfg, -1, 0), EBB_ERR_CONFIG);
    cr_assert(strstr(ebb_last_error(),
                     "tier.disk.compression = \"fixed-rate\" (zfp) needs the states' element "
                     "type: set tier.disk.element = \"float32\" or \"float64\", or "
                     "ebb_run_options.element"),
              "%s", ebb_last_error());
    /* the options' element wins over the configuration's */
    cfg.disk.compression.element = EBB_ELEMENT_FLOAT64;
    cr_assert_eq(create(&cfg, EBB_ELEMENT_BYTES, 0), EBB_ERR_CONFIG);
    cr_assert(strstr(ebb_last_error(), "needs the states' element type"), "%s", ebb_last_error());
    /* lossless needs none */
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    cr_assert_neq(create(&cfg, EBB_ELEMENT_BYTES, 0), EBB_ERR_CONFIG, "%s", ebb_last_error());
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(compression_options, element_and_dims_checked)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cr_assert_eq(create(&cfg, 3, 0), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "ebb_run_options.element is 3"), "%s", ebb_last_error());
    cr_assert_eq(create(&cfg, -2, 0), EBB_ERR_INVALID_ARG);
    cr_assert_eq(create(&cfg, -1, 5), EBB_ERR_INVALID_ARG);
    cr_assert(strstr(ebb_last_error(), "ebb_run_options.dims is 5: expected 0 .. 4"), "%s",
              ebb_last_error());
    cr_assert_eq(create(&cfg, -1, -1), EBB_ERR_INVALID_ARG);
    /* without compression the element is not used */
    cr_assert_eq(create(&cfg, EBB_ELEMENT_FLOAT32, 0), EBB_OK, "%s", ebb_last_error());
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

/* The hash audit is taken with a lossy mode (what it checks there:
 * tests/runtime/audit_lossy.c); replay too. */
Test(compression_options, hash_audit_with_lossy)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.compression.mode = EBB_COMPRESSION_FIXED_ACCURACY;
    cr_assert_eq(create_audited(&cfg, EBB_ELEMENT_FLOAT64, 0, EBB_AUDIT_HASH), EBB_OK, "%s",
                 ebb_last_error());
    cr_assert_eq(create_audited(&cfg, EBB_ELEMENT_FLOAT64, 0, EBB_AUDIT_REPLAY), EBB_OK, "%s",
                 ebb_last_error());
    cfg.disk.compression.mode = EBB_COMPRESSION_LOSSLESS;
    cr_assert_eq(create_audited(&cfg, EBB_ELEMENT_FLOAT64, 0, EBB_AUDIT_HASH), EBB_OK, "%s",
                 ebb_last_error());
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

/* A fixed rate's smaller slots reach the schedule: the same disk budget
 * holds 4 times the slots at 16 bits of 64, with the element from the
 * options. */
Test(compression_options, fixed_rate_budget_holds_more_slots)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.budget = UINT64_C(1) << 20;
    int32_t got[2];
    for (int k = 0; k < 2; k++) {
        cfg.disk.compression.mode = k ? EBB_COMPRESSION_FIXED_RATE : EBB_COMPRESSION_OFF;
        cfg.disk.compression.rate = 16;
        wl w;
        wl_init(&w, 32 << 10);
        ebb_run_options o;
        ebb_run_options_init(&o);
        o.state_size = w.size;
        o.steps = 200;
        o.config = &cfg;
        o.strategy = EBB_STRATEGY_MULTISTAGE;
        o.slots = 2;
        o.forward = wl_forward_cb;
        o.reverse = wl_reverse_cb;
        o.user = &w;
        o.element = EBB_ELEMENT_FLOAT64;
        ebb_run *run = NULL;
        cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "%s", ebb_last_error());
        ebb_run_info info;
        cr_assert_eq(ebb_run_info_get(run, &info), EBB_OK);
        got[k] = info.slots[EBB_TIER_DISK];
        ebb_run_destroy(run);
    }
    cr_assert_eq(got[0], 32, "1 MiB of 32 KiB states");
    cr_assert_eq(got[1], 4 * got[0], "fixed rate: %d disk slots, %d without", got[1], got[0]);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}
