/* ebb_parse_size and ebb_format_size: units, case, fractions, round trip. */
#include <criterion/criterion.h>
#include <string.h>

#include "ebb/ebb.h"

static uint64_t size_of(const char *text)
{
    uint64_t v = 12345;
    ebb_status s = ebb_parse_size(text, &v);
    cr_assert_eq(s, EBB_OK, "'%s': %s", text, ebb_last_error());
    return v;
}

static void refused(const char *text, const char *why)
{
    uint64_t v = 7;
    cr_assert_eq(ebb_parse_size(text, &v), EBB_ERR_INVALID_ARG, "'%s' accepted", text);
    cr_expect_eq(v, 7, "'%s' changed the output", text);
    const char *msg = ebb_last_error();
    cr_expect(strstr(msg, why) != NULL, "'%s': message '%s' lacks '%s'", text, msg, why);
    cr_expect(strstr(msg, text) != NULL || text[0] == '\0', "message '%s' does not quote the input", msg);
}

Test(sizes, plain_bytes)
{
    cr_expect_eq(size_of("0"), 0);
    cr_expect_eq(size_of("4096"), 4096);
    cr_expect_eq(size_of("  4096  "), 4096);
    cr_expect_eq(size_of("4096B"), 4096);
    cr_expect_eq(size_of("4096 b"), 4096);
    cr_expect_eq(size_of("18446744073709551615"), UINT64_MAX);
}

Test(sizes, binary_units)
{
    cr_expect_eq(size_of("1 KiB"), 1024);
    cr_expect_eq(size_of("512MiB"), UINT64_C(512) << 20);
    cr_expect_eq(size_of("64 GiB"), UINT64_C(64) << 30);
    cr_expect_eq(size_of("2 TiB"), UINT64_C(2) << 40);
    cr_expect_eq(size_of("1 PiB"), UINT64_C(1) << 50);
}

Test(sizes, decimal_units)
{
    cr_expect_eq(size_of("1 kB"), 1000);
    cr_expect_eq(size_of("3MB"), 3000000);
    cr_expect_eq(size_of("1.5 GB"), 1500000000);
    cr_expect_eq(size_of("2 TB"), UINT64_C(2000000000000));
    cr_expect_eq(size_of("1 PB"), UINT64_C(1000000000000000));
}

Test(sizes, units_are_case_insensitive)
{
    cr_expect_eq(size_of("64 gib"), UINT64_C(64) << 30);
    cr_expect_eq(size_of("64 GIB"), UINT64_C(64) << 30);
    cr_expect_eq(size_of("1 KB"), 1000);
    cr_expect_eq(size_of("1 kib"), 1024);
    cr_expect_eq(size_of("1 gb"), 1000000000);
}

Test(sizes, fractions_round_down_to_bytes)
{
    cr_expect_eq(size_of("1.5 KiB"), 1536);
    cr_expect_eq(size_of("0.5TiB"), UINT64_C(1) << 39);
    cr_expect_eq(size_of(".25 MiB"), UINT64_C(1) << 18);
    cr_expect_eq(size_of("0.1 KiB"), 102); /* 102.4 */
    cr_expect_eq(size_of("1.0"), 1);       /* a zero fraction is a whole number */
}

Test(sizes, refused_forms)
{
    refused("", "empty");
    refused("   ", "empty");
    refused("-1", "negative");
    refused("-5 GiB", "negative");
    refused("GiB", "does not start with a number");
    refused("64G", "ambiguous");
    refused("64 g", "ambiguous");
    refused("64Gi", "write the B");
    refused("64 GiX", "unknown unit 'GiX'");
    refused("1.5", "a fraction needs a unit");
    refused("1.", "'.' must be followed by digits");
    refused("1e9", "unknown unit 'e9'");
    refused("18446744073709551616", "more than 2^64 - 1 bytes");
    refused("16385 PiB", "more than 2^64 - 1 bytes");
    refused("12 GiB extra", "unknown unit");
}

Test(sizes, null_arguments)
{
    uint64_t v;
    cr_expect_eq(ebb_parse_size(NULL, &v), EBB_ERR_INVALID_ARG);
    cr_expect_eq(ebb_parse_size("1", NULL), EBB_ERR_INVALID_ARG);
}

static void formats_as(uint64_t bytes, const char *want)
{
    char buf[64];
    int n = ebb_format_size(bytes, buf, sizeof buf);
    cr_expect_str_eq(buf, want, "%llu", (unsigned long long)bytes);
    cr_expect_eq(n, (int)strlen(want));
}

Test(sizes, format_is_short_and_exact)
{
    formats_as(0, "0");
    formats_as(1, "1");
    formats_as(4095, "4095");
    formats_as(4096, "4 KiB");
    formats_as(1000, "1 kB");
    formats_as(1536, "1.5 KiB");
    formats_as(UINT64_C(8) << 20, "8 MiB");
    formats_as(UINT64_C(64) << 30, "64 GiB");
    formats_as(1500000000, "1.5 GB");
    formats_as(UINT64_C(3) << 40, "3 TiB");
    formats_as(1152, "1152"); /* 1.125 KiB: more than 2 decimals */
    formats_as(1023, "1023");
    formats_as(12345678000, "12345678 kB");
}

Test(sizes, format_round_trips)
{
    const uint64_t values[] = {0, 1, 999, 1000, 1023, 1024, 1025, 1536, 4096, 123456789,
                               UINT64_C(1) << 33, UINT64_C(5) << 49, 1500000000, 2500000000000,
                               UINT64_MAX, UINT64_MAX - 4095, (UINT64_C(1) << 40) + 512};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char buf[64];
        ebb_format_size(values[i], buf, sizeof buf);
        cr_expect_eq(size_of(buf), values[i], "%llu -> '%s'", (unsigned long long)values[i], buf);
    }
}

Test(sizes, format_truncates_like_snprintf)
{
    char buf[4];
    int n = ebb_format_size(UINT64_C(64) << 30, buf, sizeof buf);
    cr_expect_eq(n, 6);
    cr_expect_str_eq(buf, "64 ");
    cr_expect_eq(ebb_format_size(4096, NULL, 0), 5);
}
