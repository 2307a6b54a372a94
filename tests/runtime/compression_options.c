/* A run's compression: a lossy mode needs an element type, from the
 * configuration (tier.disk.element) or the options (ebb_run_options.element,
 * which wins); the element and the shape are checked when the run is
 * created. */
#include "workload.h"

static ebb_status create(ebb_config *cfg, int element, int32_t dims)
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
    ebb_run *run = NULL;
    ebb_status st = ebb_run_create(&o, &run);
    ebb_run_destroy(run);
    return st;
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
