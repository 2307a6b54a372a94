/* Rates (tier.disk.max_bandwidth, `ebb bench --max-bandwidth`): a size per
 * second, "500 MB/s", "2 GiB/s", "1048576 B/s"; a bare whole number is
 * bytes per second; "none" is no limit (0). The size is read by the size
 * parser, so the units and their rules are the same. */
#include "common/error_internal.h"
#include "ebb/config.h"
#include "config/config_size.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Copies text without the spaces around it; SIZE_MAX when it does not fit. */
static size_t trimmed(const char *text, char *buf, size_t size)
{
    while (*text == ' ' || *text == '\t')
        text++;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t'))
        n--;
    if (n >= size)
        return SIZE_MAX;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return n;
}

ebb_status ebb_rate_parse_reason(const char *text, uint64_t *bytes_per_second, char *why,
                                 size_t why_len)
{
    char t[128];
    size_t n = trimmed(text, t, sizeof t);
    if (n == SIZE_MAX) {
        snprintf(why, why_len, "it is too long (more than %zu characters)", sizeof t - 1);
        return EBB_ERR_INVALID_ARG;
    }
    if (strcmp(t, "none") == 0) {
        *bytes_per_second = 0;
        return EBB_OK;
    }
    /* "/s" last, with optional spaces before it. */
    int per_second = 0;
    if (n >= 2 && t[n - 2] == '/' && t[n - 1] == 's') {
        per_second = 1;
        n -= 2;
        while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
            n--;
        t[n] = '\0';
        if (n == 0) {
            snprintf(why, why_len, "there is no number before \"/s\"");
            return EBB_ERR_INVALID_ARG;
        }
    }
    /* The unit: what follows the number. */
    const char *unit = t;
    while (*unit && (isdigit((unsigned char)*unit) || *unit == '.' || *unit == '+' ||
                     *unit == '-' || *unit == ' ' || *unit == '\t'))
        unit++;
    size_t ulen = strlen(unit);
    if (strchr(unit, '/')) {
        snprintf(why, why_len, "only \"/s\" (per second) may follow the unit, as in \"500 MB/s\"");
        return EBB_ERR_INVALID_ARG;
    }
    if ((ulen >= 1 && unit[ulen - 1] == 'b') || strstr(unit, "bit")) {
        snprintf(why, why_len, "'%s' reads as bits; a rate is in bytes: write B (MB/s, GiB/s)",
                 unit);
        return EBB_ERR_INVALID_ARG;
    }
    if (ulen >= 3 && strcasecmp(unit + ulen - 2, "ps") == 0) {
        snprintf(why, why_len, "write the rate as \"500 MB/s\", not \"%s\"", t);
        return EBB_ERR_INVALID_ARG;
    }
    if (ulen > 0 && !per_second && unit != t) {
        snprintf(why, why_len, "a rate needs \"/s\" after its unit (\"%s/s\"), or \"none\" for no "
                 "limit", t);
        return EBB_ERR_INVALID_ARG;
    }
    char size_why[256];
    uint64_t v;
    if (ebb_size_parse_reason(t, &v, size_why, sizeof size_why) != EBB_OK) {
        snprintf(why, why_len, "%s", size_why);
        return EBB_ERR_INVALID_ARG;
    }
    if (v == 0) {
        snprintf(why, why_len, "a rate of 0 would stop the tier; write \"none\" for no limit");
        return EBB_ERR_INVALID_ARG;
    }
    if (v > EBB_RATE_MAX) {
        snprintf(why, why_len, "it is more than 1 EB/s (10^18 bytes per second)");
        return EBB_ERR_INVALID_ARG;
    }
    *bytes_per_second = v;
    return EBB_OK;
}

ebb_status ebb_parse_rate(const char *text, uint64_t *bytes_per_second)
{
    if (!text || !bytes_per_second)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_parse_rate: %s is NULL",
                        text ? "bytes_per_second" : "text");
    char why[320];
    uint64_t v;
    if (ebb_rate_parse_reason(text, &v, why, sizeof why) != EBB_OK)
        return ebb_fail(EBB_ERR_INVALID_ARG, "'%s' is not a rate: %s", text, why);
    *bytes_per_second = v;
    return EBB_OK;
}

int ebb_format_rate(uint64_t bytes_per_second, char *buf, size_t size)
{
    if (bytes_per_second == 0)
        return snprintf(buf, size, "none");
    char s[48];
    ebb_format_size(bytes_per_second, s, sizeof s);
    return snprintf(buf, size, "%s%s/s", s, strchr(s, ' ') ? "" : " B");
}
