/* The names of the configuration's values (strategies, disk backends, audit
 * modes), which the key table points at, the "did you mean" suggestions for
 * unknown ones, and strategy lookups. Below the key table: nothing here
 * reads it (the keys' own names: config_key_names.c). */
#include "ebb/config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "config/config_internal.h"
#include "ebb/runtime.h" /* ebb_audit */

/* ---- names ----------------------------------------------------------------- */

/* indexed by ebb_strategy, as ebb_strategy_name names them */
const char *const ebb_config_strategy_names[EBB_CONFIG_STRATEGY_COUNT] = {
    "store-all",    "periodic",  "revolve", "online", "multistage",
    "disk-revolve", "h-revolve", "async",   "auto",
};

const char *const ebb_config_backend_names[EBB_CONFIG_BACKEND_COUNT] = {"auto", "uring", "threads"};

const char *const ebb_config_audit_names[EBB_CONFIG_AUDIT_COUNT] = {
    [EBB_AUDIT_OFF] = "off", [EBB_AUDIT_REPLAY] = "replay", [EBB_AUDIT_HASH] = "hash",
};

const char *ebb_config_strategy_name(ebb_config_strategy strategy)
{
    return (unsigned)strategy < EBB_CONFIG_STRATEGY_COUNT ? ebb_config_strategy_names[strategy] : "?";
}

const char *ebb_config_backend_name(ebb_disk_backend backend)
{
    return (unsigned)backend < EBB_CONFIG_BACKEND_COUNT ? ebb_config_backend_names[backend] : "?";
}

/* ---- suggestions --------------------------------------------------------- */

/* Optimal string alignment distance (a swap of neighbours counts 1). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

static size_t close_enough(const char *word)
{
    size_t len = strlen(word);
    return len / 3 > 2 ? len / 3 : 2;
}

/* The closest of `names`, or NULL when none is close. */
const char *ebb_config_closest(const char *word, const char *const *names, size_t count)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        size_t d = edit_distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best_d <= close_enough(word) ? best : NULL;
}

/* ---- strategy --------------------------------------------------------------- */

void ebb_config_list_quoted(const char *const *names, size_t count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        int w = snprintf(buf + used, size - used, "%s\"%s\"", i == 0 ? "" : (i + 1 == count ? " or " : ", "),
                         names[i]);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

int ebb_config_find_name(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return (int)i;
    return -1;
}

ebb_status ebb_config_strategy_from_name(const char *name, ebb_config_strategy *out)
{
    if (!name || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_strategy_from_name: NULL argument");
    int i = ebb_config_find_name(name, ebb_config_strategy_names, EBB_CONFIG_STRATEGY_COUNT);
    if (i < 0) {
        char list[256];
        ebb_config_list_quoted(ebb_config_strategy_names, EBB_CONFIG_STRATEGY_COUNT, list, sizeof list);
        const char *near =
            ebb_config_closest(name, ebb_config_strategy_names, EBB_CONFIG_STRATEGY_COUNT);
        return ebb_fail(EBB_ERR_INVALID_ARG, "unknown strategy \"%s\"%s%s%s; expected %s", name,
                        near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "", list);
    }
    *out = (ebb_config_strategy)i;
    return EBB_OK;
}

ebb_status ebb_config_strategy_schedule(ebb_config_strategy strategy, ebb_strategy *out)
{
    if (!out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_strategy_schedule: out is NULL");
    if ((unsigned)strategy < EBB_STRATEGY_COUNT) {
        *out = strategy; /* one enum: a schedule is itself */
        return EBB_OK;
    }
    if (strategy == EBB_STRATEGY_AUTO || strategy == EBB_STRATEGY_ASYNC)
        return ebb_fail(EBB_ERR_UNSUPPORTED,
                        "strategy \"%s\" is not a single schedule: the planner or the runtime "
                        "chooses one", ebb_config_strategy_names[strategy]);
    return ebb_fail(EBB_ERR_INVALID_ARG, "strategy %d is not an ebb_strategy", (int)strategy);
}
