/* Sizes with units: "64 GiB", "512MiB", "1.5 GB", "4096". */
#include "common/error_internal.h"
#include "ebb/config.h"
#include "config/config_size.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef unsigned __int128 u128;

static const struct {
    const char *name;
    uint64_t factor;
} units[] = {
    {"PiB", UINT64_C(1) << 50}, {"PB", UINT64_C(1000000000000000)},
    {"TiB", UINT64_C(1) << 40}, {"TB", UINT64_C(1000000000000)},
    {"GiB", UINT64_C(1) << 30}, {"GB", UINT64_C(1000000000)},
    {"MiB", UINT64_C(1) << 20}, {"MB", UINT64_C(1000000)},
    {"KiB", UINT64_C(1) << 10}, {"kB", UINT64_C(1000)},
    {"B", 1},
};
enum { UNIT_COUNT = sizeof units / sizeof units[0] };

ebb_status ebb_size_parse_reason(const char *text, uint64_t *bytes, char *why, size_t why_len)
{
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0') {
        snprintf(why, why_len, "it is empty");
        return EBB_ERR_INVALID_ARG;
    }
    if (*p == '-') {
        snprintf(why, why_len, "a size cannot be negative");
        return EBB_ERR_INVALID_ARG;
    }
    if (*p == '+')
        p++;
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]))) {
        snprintf(why, why_len, "it does not start with a number");
        return EBB_ERR_INVALID_ARG;
    }
    /* Integer part, then up to 30 fraction digits, exactly. */
    u128 whole = 0;
    int too_big = 0;
    while (isdigit((unsigned char)*p)) {
        whole = whole * 10 + (unsigned)(*p - '0');
        if (whole > UINT64_MAX)
            too_big = 1, whole = (u128)UINT64_MAX + 1;
        p++;
    }
    u128 frac = 0, frac_scale = 1;
    int has_frac = 0;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) {
            snprintf(why, why_len, "a '.' must be followed by digits");
            return EBB_ERR_INVALID_ARG;
        }
        while (isdigit((unsigned char)*p)) {
            if (frac_scale < (u128)UINT64_C(1000000000000000000)) {
                frac = frac * 10 + (unsigned)(*p - '0');
                frac_scale *= 10;
            }
            if (*p != '0')
                has_frac = 1;
            p++;
        }
    }
    while (*p == ' ' || *p == '\t')
        p++;
    const char *unit = p;
    size_t unit_len = strlen(unit);
    while (unit_len > 0 && (unit[unit_len - 1] == ' ' || unit[unit_len - 1] == '\t'))
        unit_len--;
    uint64_t factor = 1;
    if (unit_len == 0) {
        if (has_frac) {
            snprintf(why, why_len, "a fraction needs a unit (a size in bytes is a whole number)");
            return EBB_ERR_INVALID_ARG;
        }
    } else {
        int found = 0;
        for (int i = 0; i < UNIT_COUNT; i++) {
            if (strlen(units[i].name) == unit_len && strncasecmp(unit, units[i].name, unit_len) == 0) {
                factor = units[i].factor;
                found = 1;
                break;
            }
        }
        if (!found) {
            const char *hint = "";
            if (unit_len == 1 && strchr("kKmMgGtTpP", unit[0]))
                hint = " ('K', 'M', 'G', 'T', 'P' alone are ambiguous: write KiB or kB, "
                       "GiB or GB, ...)";
            else if (unit_len == 2 && strchr("kKmMgGtTpP", unit[0]) && (unit[1] == 'i' || unit[1] == 'I'))
                hint = " (write the B: KiB, MiB, GiB, TiB, PiB)";
            snprintf(why, why_len, "unknown unit '%.*s'%s; expected B, KiB, MiB, GiB, TiB, PiB, "
                     "kB, MB, GB, TB or PB", (int)(unit_len > 32 ? 32 : unit_len), unit, hint);
            return EBB_ERR_INVALID_ARG;
        }
    }
    u128 value = too_big ? (u128)UINT64_MAX + 1 : whole * factor + frac * factor / frac_scale;
    if (too_big || value > UINT64_MAX) {
        snprintf(why, why_len, "it is more than 2^64 - 1 bytes");
        return EBB_ERR_INVALID_ARG;
    }
    *bytes = (uint64_t)value;
    return EBB_OK;
}

ebb_status ebb_parse_size(const char *text, uint64_t *bytes)
{
    if (!text || !bytes)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_parse_size: %s is NULL", text ? "bytes" : "text");
    char why[256];
    uint64_t value;
    if (ebb_size_parse_reason(text, &value, why, sizeof why) != EBB_OK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "'%s' is not a size: %s", text, why);
    *bytes = value;
    return EBB_OK;
}

int ebb_format_size(uint64_t bytes, char *buf, size_t size)
{
    char best[48] = "";
    size_t best_len = 0;
    if (bytes != 0) {
        for (int i = 0; i < UNIT_COUNT - 1; i++) {
            uint64_t f = units[i].factor;
            if (bytes < f)
                continue;
            /* Exact with at most 2 decimals? */
            u128 centi = (u128)bytes * 100;
            if (centi % f != 0)
                continue;
            uint64_t m = (uint64_t)(centi / f); /* value * 100 */
            char cand[48];
            if (m % 100 == 0)
                snprintf(cand, sizeof cand, "%llu %s", (unsigned long long)(m / 100), units[i].name);
            else if (m % 10 == 0)
                snprintf(cand, sizeof cand, "%llu.%01llu %s", (unsigned long long)(m / 100),
                         (unsigned long long)(m % 100 / 10), units[i].name);
            else
                snprintf(cand, sizeof cand, "%llu.%02llu %s", (unsigned long long)(m / 100),
                         (unsigned long long)(m % 100), units[i].name);
            size_t len = strlen(cand);
            if (best_len == 0 || len < best_len) {
                memcpy(best, cand, len + 1);
                best_len = len;
            }
        }
    }
    if (best_len == 0)
        snprintf(best, sizeof best, "%llu", (unsigned long long)bytes);
    return snprintf(buf, size, "%s", best);
}

void ebb_size_human(uint64_t bytes, char *buf, size_t size)
{
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    char exact[48];
    ebb_format_size(bytes, exact, sizeof exact);
    if (bytes < 1024 || (strchr(exact, ' ') != NULL && strlen(exact) <= 9)) {
        snprintf(buf, size, "%s%s", exact, strchr(exact, ' ') ? "" : " bytes");
        return;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.1f %s (%llu bytes)", v, names[u], (unsigned long long)bytes);
}
