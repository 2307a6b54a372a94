/* The tiers' and the strategies' names (ebb/vocabulary.h): the one table of
 * each, below the schedules, the storage tiers and the configuration. */
#include <string.h>

#include "common/error_internal.h"
#include "ebb/vocabulary.h"

static const char *const tier_names[EBB_TIER_COUNT] = {"gpu", "host", "disk"};

static const char *const strategy_names[EBB_STRATEGY_ALL] = {
    "store-all", "periodic", "revolve", "online", "multistage", "disk-revolve", "h-revolve",
    "async",     "auto"};

const char *ebb_tier_name(ebb_tier tier)
{
    return (unsigned)tier < EBB_TIER_COUNT ? tier_names[tier] : "?";
}

const char *ebb_strategy_name(ebb_strategy strategy)
{
    return (unsigned)strategy < EBB_STRATEGY_ALL ? strategy_names[strategy] : "?";
}

ebb_status ebb_strategy_from_name(const char *name, ebb_strategy *out)
{
    for (int i = 0; i < EBB_STRATEGY_ALL; i++) {
        if (name && strcmp(name, strategy_names[i]) == 0) {
            *out = (ebb_strategy)i;
            return EBB_OK;
        }
    }
    return ebb_fail(EBB_ERR_INVALID_ARG,
                    "unknown strategy '%s': expected store-all, periodic, revolve, online, "
                    "multistage, disk-revolve, h-revolve, async or auto",
                    name ? name : "(null)");
}
