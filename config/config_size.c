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

/* A size's number: an integer part, then up to 30 fraction digits, exactly. */
struct number {
    u128 whole, frac, frac_scale;
    int too_big;  /* the integer part is over 2^64 - 1 */
    int has_frac; /* a fraction digit other than 0 */
};

/* Reads the number at *p (after blanks; no sign) and moves *p past it;
 * EBB_ERR_INVALID_ARG with the reason in why when there is none. */
static ebb_status parse_number(const char **pp, struct number *n, char *why, size_t why_len)
{
    const char *p = *pp;
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
    if (*p == '+') {
        snprintf(why, why_len, "a size has no sign (write \"%s\")", p + 1);
        return EBB_ERR_INVALID_ARG;
    }
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]))) {
        snprintf(why, why_len, "it does not start with a number");
        return EBB_ERR_INVALID_ARG;
    }
    *n = (struct number){0, 0, 1, 0, 0};
    while (isdigit((unsigned char)*p)) {
        n->whole = n->whole * 10 + (unsigned)(*p - '0');
        if (n->whole > UINT64_MAX)
            n->too_big = 1, n->whole = (u128)UINT64_MAX + 1;
        p++;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) {
            snprintf(why, why_len, "a '.' must be followed by digits");
            return EBB_ERR_INVALID_ARG;
        }
        for (; isdigit((unsigned char)*p); p++) {
            if (n->frac_scale < (u128)UINT64_C(1000000000000000000)) {
                n->frac = n->frac * 10 + (unsigned)(*p - '0');
                n->frac_scale *= 10;
            }
            if (*p != '0')
                n->has_frac = 1;
        }
    }
    *pp = p;
    return EBB_OK;
}

/* The factor of the unit in unit[0 .. len) ("GiB"; none: 1, for a whole
 * number only); EBB_ERR_INVALID_ARG with the reason in why. */
static ebb_status parse_unit(const char *unit, size_t len, int has_frac, uint64_t *factor,
                             char *why, size_t why_len)
{
    *factor = 1;
    if (len == 0 && has_frac) {
        snprintf(why, why_len, "a fraction needs a unit (a size in bytes is a whole number)");
        return EBB_ERR_INVALID_ARG;
    }
    if (len == 0)
        return EBB_OK;
    for (int i = 0; i < UNIT_COUNT; i++) {
        if (strlen(units[i].name) == len && strncasecmp(unit, units[i].name, len) == 0) {
            *factor = units[i].factor;
            return EBB_OK;
        }
    }
    const char *hint = "";
    if (len == 1 && strchr("kKmMgGtTpP", unit[0]))
        hint = " ('K', 'M', 'G', 'T', 'P' alone are ambiguous: write KiB or kB, "
               "GiB or GB, ...)";
    else if (len == 2 && strchr("kKmMgGtTpP", unit[0]) && (unit[1] == 'i' || unit[1] == 'I'))
        hint = " (write the B: KiB, MiB, GiB, TiB, PiB)";
    snprintf(why, why_len, "unknown unit '%.*s'%s; expected B, KiB, MiB, GiB, TiB, PiB, "
             "kB, MB, GB, TB or PB", (int)(len > 32 ? 32 : len), unit, hint);
    return EBB_ERR_INVALID_ARG;
}

ebb_status ebb_size_parse_reason(const char *text, uint64_t *bytes, char *why, size_t why_len)
{
    const char *p = text;
    struct number n;
    ebb_status s = parse_number(&p, &n, why, why_len);
    if (s != EBB_OK)
        return s;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t unit_len = strlen(p);
    while (unit_len > 0 && (p[unit_len - 1] == ' ' || p[unit_len - 1] == '\t'))
        unit_len--;
    uint64_t factor;
    if ((s = parse_unit(p, unit_len, n.has_frac, &factor, why, why_len)) != EBB_OK)
        return s;
    u128 value = n.too_big ? (u128)UINT64_MAX + 1
                           : n.whole * factor + n.frac * factor / n.frac_scale;
    if (n.too_big || value > UINT64_MAX) {
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
