#include "support/settle.h"

#include <string.h>

#include <criterion/criterion.h>

#include "ebb/config.h"
#include "ebb/runtime.h"

static int forward(void *user, int64_t step, const void *in, void *out)
{
    (void)user, (void)step;
    memcpy(out, in, 64);
    return 0;
}

static int reverse(void *user, int64_t step, void *state)
{
    (void)user, (void)step, (void)state;
    return 0;
}

void test_settle_process(void)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK, "%s", ebb_last_error());
    cfg.disk.enabled = 0;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = 64;
    o.steps = 4;
    o.config = &cfg;
    o.forward = forward;
    o.reverse = reverse;
    unsigned char x0[64] = {0};
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_OK, "settling run: %s", ebb_last_error());
    cr_assert_eq(ebb_run_forward(run, x0, NULL), EBB_OK, "settling run: %s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(run), EBB_OK, "settling run: %s", ebb_last_error());
    ebb_run_destroy(run);
    ebb_config_dispose(&cfg);
}
