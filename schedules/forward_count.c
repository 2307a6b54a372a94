/* ebb_revolve_forward_count: Revolve's forward count in closed form, no schedule built. */
#include "common/error_internal.h"
#include "ebb/schedule.h"
#include "schedules/binomial.h"

ebb_status ebb_revolve_forward_count(int64_t steps, int32_t slots, int64_t *count)
{
    if (steps < 1 || slots < 1 || !count)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "revolve forward count needs steps >= 1 and slots >= 1, got %lld and %d",
                        (long long)steps, slots);
    int64_t t = ebb_revolve_cost(steps, slots);
    if (t < 0 || t == INT64_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "revolve forward count for %lld steps and %d slots overflows 64 bits",
                        (long long)steps, slots);
    *count = t + 1;
    return EBB_OK;
}
