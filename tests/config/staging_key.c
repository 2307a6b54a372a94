/* tier.host.staging: "auto" by default; read from a file as a size or
 * "auto", with its line; 0 or less refused, naming the file, the line and
 * the key; not checked against the host budget; written back by the
 * formatter so that it loads to the same value; and the cap of "auto"
 * (EBB_STAGING_AUTO_MAX) is what the key's text and docs/configuration.md
 * say. */
#include "config/helpers.h"

#include "config/config_keys.h"

static uint64_t loaded(const char *value)
{
    char text[256];
    snprintf(text, sizeof text, "[tier.host]\n\nstaging = %s\n", value);
    ebb_config cfg;
    load_ok(text, &cfg);
    uint64_t v = cfg.host.staging;
    cr_expect_eq(cfg.line[EBB_KEY_HOST_STAGING], 3, "%s: line %d", value,
                 cfg.line[EBB_KEY_HOST_STAGING]);
    ebb_config_dispose(&cfg);
    return v;
}

Test(staging_key, default_is_auto)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(cfg.host.staging, EBB_BUDGET_AUTO);
    cr_expect_eq(cfg.line[EBB_KEY_HOST_STAGING], 0);
    cr_expect_str_eq(ebb_config_key_name(EBB_KEY_HOST_STAGING), "tier.host.staging");
    char text[64];
    ebb_config_key_default_text(EBB_KEY_HOST_STAGING, text, sizeof text);
    cr_expect_str_eq(text, "\"auto\"");
    ebb_config_dispose(&cfg);
}

Test(staging_key, forms)
{
    cr_expect_eq(loaded("\"64 MiB\""), UINT64_C(64) << 20);
    cr_expect_eq(loaded("\"auto\""), EBB_BUDGET_AUTO);
    cr_expect_eq(loaded("\"1.5 GB\""), UINT64_C(1500000000));
    cr_expect_eq(loaded("1"), 1);
    cr_expect_eq(loaded("4096"), 4096);
}

/* A size that is not checked against the budget, and a file that sets
 * nothing else keeps the host tier's other values. */
Test(staging_key, larger_than_the_budget_is_fine)
{
    ebb_config cfg;
    load_ok("[tier.host]\nbudget = \"64 MiB\"\nstaging = \"1 GiB\"\n", &cfg);
    cr_expect_eq(cfg.host.budget, UINT64_C(64) << 20);
    cr_expect_eq(cfg.host.staging, UINT64_C(1) << 30);
    cr_expect_eq(cfg.host.prefault, 1);
    cr_expect_eq(cfg.line[EBB_KEY_HOST_STAGING], 3);
    cr_expect_eq(ebb_config_check(&cfg, 1 << 20), EBB_OK, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
    /* Dotted and inline forms. */
    load_ok("tier.host.staging = \"2 MiB\"\n", &cfg);
    cr_expect_eq(cfg.host.staging, UINT64_C(2) << 20);
    ebb_config_dispose(&cfg);
    load_ok("tier.host = { staging = \"auto\" }\n", &cfg);
    cr_expect_eq(cfg.host.staging, EBB_BUDGET_AUTO);
    ebb_config_dispose(&cfg);
}

Test(staging_key, zero_or_less_is_an_error)
{
    expect_load_error("[tier.host]\nstaging = 0\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.staging': expected a positive size, got 0 (write "
                      "\"auto\" for the default)", NULL);
    expect_load_error("[tier.host]\nbudget = \"1 GiB\"\nstaging = \"0 MiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:3: key 'tier.host.staging': expected a positive size, got the string "
                      "\"0 MiB\" (write \"auto\" for the default)", NULL);
    expect_load_error("[tier.host]\nstaging = -4096\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.staging': expected a positive size, got the integer "
                      "-4096", NULL);
    /* Not the budget's hint: a staging of 0 turns no tier off. */
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_expect_eq(ebb_config_load_string("[tier.host]\nstaging = 0\n", "t.toml", &cfg),
                 EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "enabled = false") == NULL, "%s", ebb_last_error());
    cr_expect_eq(cfg.host.staging, EBB_BUDGET_AUTO); /* a failed load changes nothing */
    ebb_config_dispose(&cfg);
}

Test(staging_key, wrong_types)
{
    expect_load_error("[tier.host]\nstaging = 1.5\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.staging': expected a size: an integer number of "
                      "bytes or a string such as \"64 GiB\", or \"auto\", got the float 1.5", NULL);
    expect_load_error("[tier.host]\nstaging = \"64M\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.staging'", "got the string \"64M\": unknown unit 'M'",
                      NULL);
    expect_load_error("[tier.host]\nstaging = true\n", EBB_ERR_CONFIG,
                      "t.toml:2: key 'tier.host.staging'", "got the boolean true", NULL);
}

Test(staging_key, typo_suggests_it)
{
    expect_load_error("[tier.host]\nstagign = \"64 MiB\"\n", EBB_ERR_CONFIG,
                      "t.toml:2: unknown key 'tier.host.stagign'; did you mean 'tier.host.staging'?",
                      "(the keys of [tier.host] are enabled, budget, numa, pin, prefault, staging, compression, element, rate, codec_threads, compress_rate, decompress_rate)",
                      NULL);
}

/* Formatted and loaded again: the same value, "auto" included. */
Test(staging_key, round_trip)
{
    const uint64_t values[] = {EBB_BUDGET_AUTO, 1, 4095, UINT64_C(64) << 20,
                               (UINT64_C(3) << 20) + 1, 1500000000, EBB_STAGING_AUTO_MAX,
                               UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        ebb_config a, b;
        cr_assert_eq(ebb_config_init_default(&a), EBB_OK);
        a.host.staging = values[i];
        size_t len = 0;
        cr_assert_eq(ebb_config_format(&a, NULL, 0, &len), EBB_OK);
        char *text = malloc(len + 1);
        ebb_config_format(&a, text, len + 1, NULL);
        cr_assert_eq(ebb_config_init_default(&b), EBB_OK);
        b.host.staging = values[i] == EBB_BUDGET_AUTO ? 12345 : EBB_BUDGET_AUTO;
        cr_assert_eq(ebb_config_load_string(text, "shown.toml", &b), EBB_OK, "%s\n%s",
                     ebb_last_error(), text);
        cr_expect_eq(b.host.staging, values[i], "%llu came back as %llu:\n%s",
                     (unsigned long long)values[i], (unsigned long long)b.host.staging, text);
        if (values[i] == EBB_BUDGET_AUTO)
            cr_expect(strstr(text, "prefault = true\nstaging = \"auto\"\ncompression = \"off\"\n") != NULL,
                      "%s", text);
        if (values[i] == UINT64_C(64) << 20)
            cr_expect(strstr(text, "staging = \"64 MiB\"\n") != NULL, "%s", text);
        free(text);
        ebb_config_dispose(&a);
        ebb_config_dispose(&b);
    }
}

/* A value the program set: any size passes the check (0 is "auto"). */
Test(staging_key, program_values_pass_the_check)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    const uint64_t values[] = {EBB_BUDGET_AUTO, 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        cfg.host.staging = values[i];
        cr_expect_eq(ebb_config_check(&cfg, 0), EBB_OK, "%s", ebb_last_error());
    }
    ebb_config_dispose(&cfg);
}

/* The cap of "auto": 256 MiB, as the key's text and the page say it. */
Test(staging_key, auto_cap_is_documented)
{
    cr_expect_eq(EBB_STAGING_AUTO_MAX, UINT64_C(256) << 20);
    char cap[48];
    ebb_format_size(EBB_STAGING_AUTO_MAX, cap, sizeof cap);
    cr_expect_str_eq(cap, "256 MiB");
    const char *doc = ebb_config_keys[EBB_KEY_HOST_STAGING].doc;
    cr_expect(strstr(doc, cap) != NULL, "the doc of tier.host.staging lacks %s: %s", cap, doc);

    const char *path = EBB_SOURCE_DIR "/docs/configuration.md";
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[1024];
    int row = 0, bullet = 0, in_bullet = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "| `tier.host.staging` |", 23) == 0)
            row = strstr(line, cap) != NULL ? 1 : -1;
        if (strncmp(line, "- **`staging`**", 15) == 0)
            in_bullet = 1;
        else if (line[0] != ' ')
            in_bullet = 0;
        if (in_bullet && strstr(line, cap))
            bullet = 1;
    }
    fclose(f);
    cr_expect_eq(row, 1, "%s: the row of tier.host.staging %s", path,
                 row == 0 ? "is missing" : "does not say 256 MiB");
    cr_expect_eq(bullet, 1, "%s: the paragraph of tier.host.staging does not say %s", path, cap);
}
