/* ebb_parse_rate and ebb_format_rate: units (as sizes, then "/s"), "none",
 * bare bytes per second, what is refused and why, and the round trip over
 * many random rates. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ebb/ebb.h"

static uint64_t rate_of(const char *text)
{
    uint64_t v = 12345;
    ebb_status s = ebb_parse_rate(text, &v);
    cr_assert_eq(s, EBB_OK, "'%s': %s", text, ebb_last_error());
    return v;
}

static void refused(const char *text, const char *why)
{
    uint64_t v = 7;
    cr_assert_eq(ebb_parse_rate(text, &v), EBB_ERR_INVALID_ARG, "'%s' accepted", text);
    cr_expect_eq(v, 7, "'%s' changed the output", text);
    const char *msg = ebb_last_error();
    cr_expect(strstr(msg, why) != NULL, "'%s': message '%s' lacks '%s'", text, msg, why);
    char quoted[160];
    snprintf(quoted, sizeof quoted, "'%s' is not a rate", text);
    cr_expect(strstr(msg, quoted) != NULL, "message '%s' does not quote the input", msg);
}

Test(rate_parse, units_per_second)
{
    cr_expect_eq(rate_of("500 MB/s"), UINT64_C(500000000));
    cr_expect_eq(rate_of("2 GiB/s"), UINT64_C(2) << 30);
    cr_expect_eq(rate_of("1.5GB/s"), UINT64_C(1500000000));
    cr_expect_eq(rate_of("  100 MiB/s "), UINT64_C(100) << 20);
    cr_expect_eq(rate_of("100MiB /s"), UINT64_C(100) << 20);
    cr_expect_eq(rate_of("1 kB/s"), 1000);
    cr_expect_eq(rate_of("4096 B/s"), 4096);
    cr_expect_eq(rate_of("1 PB/s"), UINT64_C(1000000000000000));
    cr_expect_eq(rate_of("1000 PB/s"), EBB_RATE_MAX);
}

Test(rate_parse, bare_numbers_are_bytes_per_second)
{
    cr_expect_eq(rate_of("1000000"), 1000000);
    cr_expect_eq(rate_of("1000000/s"), 1000000);
    cr_expect_eq(rate_of("1"), 1);
}

Test(rate_parse, none_is_no_limit)
{
    cr_expect_eq(rate_of("none"), 0);
    cr_expect_eq(rate_of(" none "), 0);
}

Test(rate_parse, refused_with_reasons)
{
    refused("500 MB", "a rate needs \"/s\" after its unit (\"500 MB/s\")");
    refused("500 Mb/s", "'Mb' reads as bits");
    refused("1 Gbit/s", "reads as bits");
    refused("4096 b/s", "reads as bits");
    refused("500 MBps", "not \"500 MBps\"");
    refused("500 MB/sec", "only \"/s\" (per second) may follow the unit");
    refused("500 MB/h", "only \"/s\"");
    refused("0", "a rate of 0 would stop the tier; write \"none\" for no limit");
    refused("0 MB/s", "a rate of 0");
    refused("1001 PB/s", "more than 1 EB/s");
    refused("-5 MB/s", "cannot be negative");
    refused("/s", "there is no number before \"/s\"");
    refused("", "it is empty");
    refused("fast/s", "does not start with a number");
    refused("64G/s", "unknown unit 'G'");
    refused("1.5/s", "a fraction needs a unit");
    refused("unlimited", "does not start with a number");
    char long_text[200];
    memset(long_text, '1', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    refused(long_text, "too long");
}

Test(rate_parse, null_arguments)
{
    uint64_t v;
    cr_expect_eq(ebb_parse_rate(NULL, &v), EBB_ERR_INVALID_ARG);
    cr_expect_eq(ebb_parse_rate("1 MB/s", NULL), EBB_ERR_INVALID_ARG);
}

Test(rate_parse, format_examples)
{
    char buf[64];
    ebb_format_rate(0, buf, sizeof buf);
    cr_expect_str_eq(buf, "none");
    ebb_format_rate(500000000, buf, sizeof buf);
    cr_expect_str_eq(buf, "500 MB/s");
    ebb_format_rate(UINT64_C(2) << 30, buf, sizeof buf);
    cr_expect_str_eq(buf, "2 GiB/s");
    ebb_format_rate(12345, buf, sizeof buf);
    cr_expect_str_eq(buf, "12345 B/s");
}

/* Random rates of every magnitude: formatted, they parse back exactly. */
Test(rate_parse, format_round_trip_property)
{
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int bits = 1 + (int)(x % 60);
        uint64_t v = (x >> 4) & ((UINT64_C(1) << bits) - 1);
        if (i % 3 == 0) /* round decimal and binary values too */
            v = (v % 1000 + 1) * (i % 2 ? UINT64_C(1000000) : UINT64_C(1) << 20);
        if (v == 0 || v > EBB_RATE_MAX)
            continue;
        char buf[64];
        ebb_format_rate(v, buf, sizeof buf);
        cr_assert(strstr(buf, "/s") != NULL, "%s", buf);
        cr_assert_eq(rate_of(buf), v, "%llu written as '%s'", (unsigned long long)v, buf);
    }
}
