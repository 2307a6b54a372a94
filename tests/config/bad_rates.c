/* tier.disk.max_bandwidth in a file: every refused value is an error that
 * names the file, the line and the key, says what was expected and why the
 * value is not that. */
#include "config/helpers.h"

#define KEY "t.toml:3: key 'tier.disk.max_bandwidth': "

static void bad(const char *value, const char *why)
{
    char text[256];
    snprintf(text, sizeof text, "[tier.disk]\nenabled = true\nmax_bandwidth = %s\n", value);
    expect_load_error(text, EBB_ERR_CONFIG, KEY, why, NULL);
}

Test(bad_rates, unit_without_per_second)
{
    bad("\"500 MB\"", "expected a rate: a string such as \"500 MB/s\" or \"2 GiB/s\", a number of "
                      "bytes per second, or \"none\" for no limit, got the string \"500 MB\": a "
                      "rate needs \"/s\" after its unit (\"500 MB/s\")");
}

Test(bad_rates, bits)
{
    bad("\"800 Mb/s\"", "got the string \"800 Mb/s\": 'Mb' reads as bits");
}

Test(bad_rates, zero_and_negative)
{
    bad("0", "expected a rate from 1 to 10^18 bytes per second, got the integer 0 (write "
             "\"none\" for no limit)");
    bad("-100", "expected a rate from 1 to 10^18 bytes per second, got the integer -100");
    bad("\"0 MB/s\"", "a rate of 0 would stop the tier");
    bad("0.5", "got the float 0.5");
}

Test(bad_rates, too_large)
{
    bad("\"2000 PB/s\"", "more than 1 EB/s");
    bad("2e18", "expected a rate from 1 to 10^18 bytes per second, got the float 2e+18");
}

Test(bad_rates, wrong_type)
{
    bad("true", "expected a rate: a string such as \"500 MB/s\"");
    bad("[1, 2]", "got an array");
    bad("\"fast\"", "got the string \"fast\": it does not start with a number");
    bad("\"500 MBps\"", "not \"500 MBps\"");
}
