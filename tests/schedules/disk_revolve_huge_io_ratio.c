/* disk-revolve's period search ends for any finite io ratio: a ratio no
 * period below 2^63 steps meets (binomials saturate there) is refused
 * naming it instead of searching for ever. */
#include <criterion/criterion.h>
#include <string.h>

#include "ebb/ebb.h"

Test(disk_revolve_huge_io_ratio, refused_not_looping, .timeout = 10)
{
    const double ratios[] = {1e19, 1e300, 9.3e18};
    for (size_t i = 0; i < sizeof ratios / sizeof *ratios; i++) {
        ebb_schedule_options o;
        ebb_schedule_options_init(&o);
        o.strategy = EBB_STRATEGY_DISK_REVOLVE;
        o.steps = 10;
        o.slots = 3;
        o.disk_slots = -1;
        o.io_ratio = ratios[i];
        ebb_schedule *s = NULL;
        cr_assert_eq(ebb_schedule_create(&o, &s), EBB_ERR_INVALID_ARG, "ratio %g", ratios[i]);
        cr_assert_null(s);
        cr_expect(strstr(ebb_last_error(), "io ratio") && strstr(ebb_last_error(), "2^63"), "%s",
                  ebb_last_error());
    }
    /* a large ratio that a period meets still plans */
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = EBB_STRATEGY_DISK_REVOLVE;
    o.steps = 10;
    o.slots = 3;
    o.disk_slots = -1;
    o.io_ratio = 1e6;
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_schedule_create(&o, &s), EBB_OK, "%s", ebb_last_error());
    ebb_schedule_destroy(s);
}
