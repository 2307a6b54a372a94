/* tier.disk.max_bandwidth: read from a file in its forms (a rate string,
 * bytes per second as an integer or a float, "none"), with its line; written
 * back by the formatter so that it loads to the same value; carried into
 * the disk pool's options by ebb_config_pool_options. */
#include "config/helpers.h"

static uint64_t loaded(const char *value)
{
    char text[256];
    snprintf(text, sizeof text, "[tier.disk]\n\nmax_bandwidth = %s\n", value);
    ebb_config cfg;
    load_ok(text, &cfg);
    uint64_t v = cfg.disk.max_bandwidth;
    cr_expect_eq(cfg.line[EBB_KEY_DISK_MAX_BANDWIDTH], 3, "%s: line %d", value,
                 cfg.line[EBB_KEY_DISK_MAX_BANDWIDTH]);
    ebb_config_dispose(&cfg);
    return v;
}

Test(max_bandwidth_key, default_is_no_limit)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(cfg.disk.max_bandwidth, 0);
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_DISK_MAX_BANDWIDTH), "tier.disk.max_bandwidth");
    ebb_config_dispose(&cfg);
}

Test(max_bandwidth_key, forms)
{
    cr_expect_eq(loaded("\"500 MB/s\""), UINT64_C(500000000));
    cr_expect_eq(loaded("\"2 GiB/s\""), UINT64_C(2) << 30);
    cr_expect_eq(loaded("\"none\""), 0);
    cr_expect_eq(loaded("1000000000"), UINT64_C(1000000000));
    cr_expect_eq(loaded("5e8"), UINT64_C(500000000));
    cr_expect_eq(loaded("\"1048576\""), UINT64_C(1048576));
}

/* Formatted and loaded again: the same rate, for many random rates. */
Test(max_bandwidth_key, round_trip_property)
{
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 300; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ebb_config a, b;
        cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
        uint64_t v = i == 0 ? 0 : (x >> (4 + x % 40)) % EBB_RATE_MAX + 1;
        if (i % 4 == 1)
            v = (x % 4000 + 1) * UINT64_C(1000000); /* MB/s */
        a.disk.max_bandwidth = v;
        size_t len = 0;
        cr_assert_eq(ebb_config_format(&a, NULL, 0, &len), EBB_OK);
        char *text = malloc(len + 1);
        ebb_config_format(&a, text, len + 1, NULL);
        cr_assert_eq(ebb_config_init_default(&b), EBB_OK);
        b.disk.max_bandwidth = v + 1;
        cr_assert_eq(ebb_config_load_string(text, "shown.toml", &b), EBB_OK, "%s\n%s",
                     ebb_last_error(), text);
        cr_assert_eq(b.disk.max_bandwidth, v, "%llu came back as %llu:\n%s",
                     (unsigned long long)v, (unsigned long long)b.disk.max_bandwidth, text);
        if (v == 0)
            cr_expect(strstr(text, "max_bandwidth = \"none\"\n") != NULL, "%s", text);
        free(text);
        ebb_config_dispose(&a);
        ebb_config_dispose(&b);
    }
}

Test(max_bandwidth_key, into_the_disk_pool_options)
{
    ebb_config cfg;
    load_ok("[tier.disk]\nbudget = \"64 MiB\"\nmax_bandwidth = \"1 GB/s\"\n", &cfg);
    ebb_pool_options o;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 1 << 20, &o), EBB_OK, "%s",
                 ebb_last_error());
    cr_expect_eq(o.max_bandwidth, 1e9);
    cfg.disk.max_bandwidth = 0;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 1 << 20, &o), EBB_OK);
    cr_expect_eq(o.max_bandwidth, 0.0);
    ebb_pool_options_init(&o, EBB_TIER_DISK);
    cr_expect_eq(o.max_bandwidth, 0.0, "the pool's own default is no limit");
    ebb_config_dispose(&cfg);
}

/* A value the program set beyond the largest rate is named by the checks. */
Test(max_bandwidth_key, program_value_out_of_range)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.disk.max_bandwidth = EBB_RATE_MAX + 1;
    ebb_pool_options o;
    cr_expect_eq(ebb_config_pool_options(&cfg, EBB_TIER_DISK, 1 << 20, &o), EBB_ERR_CONFIG);
    const char *msg = ebb_last_error();
    cr_expect(strstr(msg, "key 'tier.disk.max_bandwidth' (default or set by the program)") != NULL &&
                  strstr(msg, "expected a rate of at most 1 EB/s") != NULL,
              "%s", msg);
    cfg.disk.max_bandwidth = EBB_RATE_MAX;
    cr_expect_eq(ebb_config_check(&cfg, 0), EBB_OK, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}
