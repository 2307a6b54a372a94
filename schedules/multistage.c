/*
 * Synchronous multistage (Stumm & Walther, "MultiStage Approaches for Optimal
 * Offline Checkpointing", SIAM J. Sci. Comput. 31(3), 2009): the binomial
 * schedule with C + D slots, the D least used on disk. In the binomial
 * schedule a stack level is usually used less the nearer it is to the bottom
 * (x_0's level is written once), but when n is small next to C + D the top
 * levels are used less, so the levels are ranked by a dry run of the
 * schedule when it is short (revolve.c, map_levels; tests/schedules/
 * strategies_property.c checks the ranking from the stream). The
 * forward count is Revolve's with C + D slots.
 */
#include "common/error_internal.h"
#include "schedules/schedule_internal.h"

ebb_status ebb_multistage_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    if (o->disk_slots < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "multistage needs the number of disk slots (disk_slots >= 0, "
                        "--disk-slots D), got %d",
                        o->disk_slots);
    int64_t total = (int64_t)o->slots + o->disk_slots;
    if (total > INT32_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG, "multistage: %d + %d slots is too many", o->slots,
                        o->disk_slots);
    return ebb_binomial_create(o, total, o->disk_slots, out);
}
