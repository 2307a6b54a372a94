/* The compression keys of [tier.host]: the same definitions as the disk
 * tier's (one table), read into cfg.host.compression; only "fixed-rate" is
 * accepted on the host tier (the other modes' sizes are not known before),
 * refused at load and at pool creation naming the key; and a fixed rate
 * makes the budget hold budget / fixed size slots. */
#include "config/helpers.h"
#include "support/codec_fixed.h"

#include "config/config_internal.h"
#include "config/config_keys.h"

Test(host_compression_keys, read_into_the_codec_options)
{
    ebb_config cfg;
    load_ok("[tier.host]\ncompression = \"fixed-rate\"\nelement = \"float32\"\nrate = 12.5\n"
            "codec_threads = 3\ncompress_rate = \"0.21 GB/s\"\ndecompress_rate = 230000000\n",
            &cfg);
    const ebb_codec_options *o = &cfg.host.compression;
    cr_expect_eq(o->mode, EBB_COMPRESSION_FIXED_RATE);
    cr_expect_eq(o->element, EBB_ELEMENT_FLOAT32);
    cr_expect(o->rate == 12.5);
    cr_expect_eq(cfg.host.codec_threads, 3);
    cr_expect_eq(cfg.host.compress_rate, 210000000u, "the planner's rates");
    cr_expect_eq(cfg.host.decompress_rate, 230000000u);
    cr_expect_eq(cfg.line[EBB_KEY_HOST_RATE], 4);
    cr_expect_eq(cfg.disk.compress_rate, 0u, "the disk's are its own");
    cr_expect_eq(cfg.disk.compression.mode, EBB_COMPRESSION_OFF, "the disk's are its own");
    ebb_config_dispose(&cfg);
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(cfg.host.compression.mode, EBB_COMPRESSION_OFF);
    cr_expect(cfg.host.compression.rate == 16);
    cr_expect_eq(cfg.host.codec_threads, 2);
    cr_expect(cfg.host.compress_rate == 0 && cfg.host.decompress_rate == 0, "not known");
    ebb_config_dispose(&cfg);
}

Test(host_compression_keys, other_modes_refused_naming_the_key)
{
    const char *modes[] = {"lossless", "fixed-precision", "fixed-accuracy"};
    for (int i = 0; i < 3; i++) {
        char text[200], want[200];
        snprintf(text, sizeof text, "[tier.host]\nelement = \"float64\"\ncompression = \"%s\"\n",
                 modes[i]);
        snprintf(want, sizeof want, "t.toml:3: key 'tier.host.compression': \"%s\" cannot be "
                 "used on the host tier", modes[i]);
        expect_load_error(text, EBB_ERR_CONFIG, want, "not known before", NULL);
    }
    /* set by a program: refused when a pool is asked for */
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.host.budget = 64 << 20;
    cfg.host.compression.mode = EBB_COMPRESSION_LOSSLESS;
    ebb_pool_options po;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 1 << 20, &po), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "'tier.host.compression'") &&
                  strstr(ebb_last_error(), "\"lossless\" cannot be used on the host tier"),
              "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

Test(host_compression_keys, bad_values_name_line_and_key)
{
    expect_load_error("[tier.host]\nrate = 65\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.rate': expected bits per value from 1 to 64", NULL);
    expect_load_error("[tier.host]\ncompression = \"fixed-rate\"\nelement = \"float32\"\n"
                      "rate = 40\n",
                      EBB_ERR_CONFIG, "t.toml:4: key 'tier.host.rate': expected at most 32 bits "
                      "per value for float32 values (tier.host.element), got 40", NULL);
    expect_load_error("[tier.host]\nelement = \"double\"\n", EBB_ERR_CONFIG,
                      "key 'tier.host.element'", NULL);
    expect_load_error("[tier.host]\ncodec_threads = 0\n", EBB_ERR_CONFIG,
                      "key 'tier.host.codec_threads': expected an integer from 1 to 256", NULL);
}

Test(host_compression_keys, budget_holds_budget_over_the_fixed_size)
{
    uint64_t seed = 0x1234567;
    for (int trial = 0; trial < 200; trial++) {
        ebb_config cfg;
        cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        ebb_element e = (seed >> 33) % 2 ? EBB_ELEMENT_FLOAT64 : EBB_ELEMENT_FLOAT32;
        size_t values = 1 + (seed >> 40) % 300000;
        size_t state = values * ebb_element_size(e);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
        cfg.host.compression.element = e;
        cfg.host.compression.rate = (double)(1 + (seed >> 35) % (8 * ebb_element_size(e)));
        cfg.host.budget = state * (1 + (seed >> 50) % 64) + (seed >> 20) % 4096;
        size_t fixed = codec_fixed_size_of(&cfg.host.compression, state);
        size_t slot = (fixed + EBB_HOST_PACKED_ALIGN - 1) / EBB_HOST_PACKED_ALIGN *
                      EBB_HOST_PACKED_ALIGN;
        ebb_pool_options po;
        cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, state, &po), EBB_OK, "%s",
                     ebb_last_error());
        cr_expect_eq((uint64_t)po.slots, cfg.host.budget / slot,
                     "trial %d: %zu %s values at rate %g, budget %llu: %d slots, want %llu",
                     trial, values, ebb_element_name(e), cfg.host.compression.rate,
                     (unsigned long long)cfg.host.budget, (int)po.slots,
                     (unsigned long long)(cfg.host.budget / slot));
        cr_expect_eq(po.compression, &cfg.host.compression);
        cr_expect_eq(po.codec_threads, 2);
        /* off: a state a slot, rounded up to a cache line below a page, to
         * the page from one on */
        cfg.host.compression.mode = EBB_COMPRESSION_OFF;
        size_t page = (size_t)sysconf(_SC_PAGESIZE) < 4096 ? 4096 : (size_t)sysconf(_SC_PAGESIZE);
        size_t unit = (state + 63) / 64 * 64 < page ? 64 : page;
        uint64_t raw = cfg.host.budget / ((state + unit - 1) / unit * unit);
        ebb_status s = ebb_config_pool_options(&cfg, EBB_TIER_HOST, state, &po);
        if (raw > 0) {
            cr_assert_eq(s, EBB_OK);
            cr_expect_eq((uint64_t)po.slots, raw);
            cr_expect_null(po.compression);
        }
        ebb_config_dispose(&cfg);
    }
    /* the case: 8 MiB float64 states at 16 bits, a budget of 4 states */
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cfg.host.budget = 32 << 20;
    cfg.host.compression.mode = EBB_COMPRESSION_FIXED_RATE;
    cfg.host.compression.element = EBB_ELEMENT_FLOAT64;
    ebb_pool_options po;
    cr_assert_eq(ebb_config_pool_options(&cfg, EBB_TIER_HOST, 8 << 20, &po), EBB_OK);
    cr_expect_eq(po.slots, 16, "4 times the 4 slots");
    ebb_config_dispose(&cfg);
}
