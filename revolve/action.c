/* Names and one-line text for tiers, actions and strategies. */
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/schedule.h"

static const char *const tier_names[EBB_TIER_COUNT] = {"gpu", "host", "disk"};

static const char *const kind_names[] = {"advance", "store", "restore", "prefetch", "evict",
                                         "free",    "turn",  "reverse", "end"};

static const char *const strategy_names[EBB_STRATEGY_COUNT] = {
    "store-all", "periodic", "revolve", "online", "multistage", "disk-revolve"};

const char *ebb_tier_name(ebb_tier tier)
{
    return (unsigned)tier < EBB_TIER_COUNT ? tier_names[tier] : "?";
}

const char *ebb_action_kind_name(int32_t kind)
{
    return kind >= 0 && (size_t)kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind]
                                                                               : "?";
}

int ebb_action_format(const ebb_action *a, char *buf, size_t len)
{
    const char *name = ebb_action_kind_name(a->kind);
    long long step = (long long)a->step;
    switch (a->kind) {
    case EBB_ACT_ADVANCE:
        return snprintf(buf, len, "%s %lld -> %lld", name, step, (long long)a->to);
    case EBB_ACT_STORE:
    case EBB_ACT_RESTORE:
    case EBB_ACT_FREE:
        return snprintf(buf, len, "%s %lld %s[%d]", name, step, ebb_tier_name(a->tier), a->slot);
    case EBB_ACT_PREFETCH:
    case EBB_ACT_EVICT:
        return snprintf(buf, len, "%s %lld %s[%d] -> %s[%d]", name, step, ebb_tier_name(a->tier),
                        a->slot, ebb_tier_name(a->tier_to), a->slot_to);
    case EBB_ACT_TURN:
    case EBB_ACT_REVERSE:
        return snprintf(buf, len, "%s %lld", name, step);
    default:
        return snprintf(buf, len, "%s", name);
    }
}

const char *ebb_strategy_name(ebb_strategy strategy)
{
    return (unsigned)strategy < EBB_STRATEGY_COUNT ? strategy_names[strategy] : "?";
}

ebb_status ebb_strategy_from_name(const char *name, ebb_strategy *out)
{
    for (int i = 0; i < EBB_STRATEGY_COUNT; i++) {
        if (name && strcmp(name, strategy_names[i]) == 0) {
            *out = (ebb_strategy)i;
            return EBB_OK;
        }
    }
    return ebb_fail(EBB_ERR_INVALID_ARG,
                    "unknown strategy '%s': expected store-all, periodic, revolve, online, "
                    "multistage or disk-revolve",
                    name ? name : "(null)");
}
