/* Which tiers are lossy: ebb_compression_lossy for every mode (the zfp
 * modes, nothing else), and ebb_config_lossy_tier naming the first enabled
 * tier with such a mode, the host's before the disk's, and none when the
 * lossy tier is switched off. */
#include "config/helpers.h"

Test(lossy_tier, the_zfp_modes_are_the_lossy_ones)
{
    const int want[EBB_COMPRESSION_COUNT] = {[EBB_COMPRESSION_FIXED_RATE] = 1,
                                             [EBB_COMPRESSION_FIXED_PRECISION] = 1,
                                             [EBB_COMPRESSION_FIXED_ACCURACY] = 1};
    for (int m = 0; m < EBB_COMPRESSION_COUNT; m++)
        cr_expect_eq(ebb_compression_lossy((ebb_compression)m), want[m], "%s",
                     ebb_compression_name((ebb_compression)m));
    cr_expect_eq(ebb_compression_lossy((ebb_compression)-1), 0);
    cr_expect_eq(ebb_compression_lossy(EBB_COMPRESSION_COUNT), 0);
}

static int lossy_tier(const char *toml)
{
    ebb_config cfg;
    load_ok(toml, &cfg);
    int tier = 7;
    cr_assert_eq(ebb_config_lossy_tier(&cfg, &tier), EBB_OK, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
    return tier;
}

Test(lossy_tier, the_first_enabled_lossy_tier)
{
    cr_expect_eq(lossy_tier(""), -1, "the default compresses nothing");
    cr_expect_eq(lossy_tier("[tier.disk]\ncompression = \"lossless\"\n"), -1);
    cr_expect_eq(lossy_tier("[tier.disk]\ncompression = \"fixed-precision\"\n"), EBB_TIER_DISK);
    cr_expect_eq(lossy_tier("[tier.host]\ncompression = \"fixed-rate\"\n"), EBB_TIER_HOST);
    cr_expect_eq(lossy_tier("[tier.host]\ncompression = \"fixed-rate\"\n"
                            "[tier.disk]\ncompression = \"fixed-accuracy\"\n"),
                 EBB_TIER_HOST);
    cr_expect_eq(lossy_tier("[tier.disk]\nenabled = false\ncompression = \"fixed-rate\"\n"), -1,
                 "a tier switched off stores nothing");
}

Test(lossy_tier, null_arguments_refused)
{
    int tier;
    cr_expect_eq(ebb_config_lossy_tier(NULL, &tier), EBB_ERR_INVALID_ARG);
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(ebb_config_lossy_tier(&cfg, NULL), EBB_ERR_INVALID_ARG);
    cr_expect(strstr(ebb_last_error(), "ebb_config_lossy_tier") != NULL);
    ebb_config_dispose(&cfg);
}
