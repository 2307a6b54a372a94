/* What reaches the TOML parser is bounded (docs/configuration.md, Limits):
 * a 50,000-part dotted key (table header or key) overflowed the parser's
 * stack; now it, an over-long line, deep nesting and an over-large text are
 * refused with the file, the line and the limit. Text at the limits loads,
 * and dots inside strings and comments are not key parts. */
#include "config/helpers.h"

/* "prefix" + parts dotted "a" + "suffix", malloc'ed. */
static char *dotted(const char *prefix, int parts, const char *suffix)
{
    size_t n = strlen(prefix) + 2 * (size_t)parts + strlen(suffix) + 1;
    char *t = malloc(n);
    cr_assert_not_null(t);
    char *p = t + sprintf(t, "%s", prefix);
    for (int i = 0; i < parts; i++)
        p += sprintf(p, i ? ".a" : "a");
    sprintf(p, "%s", suffix);
    return t;
}

Test(input_limits, huge_dotted_table_header)
{
    char *t = dotted("[run]\n\n[", 50000, "]\nx = 1\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:3:", "more than 64 parts", "at most 64",
                      "Limits", NULL);
    free(t);
}

Test(input_limits, huge_dotted_key)
{
    char *t = dotted("", 50000, " = 1\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:1:", "more than 64 parts", NULL);
    free(t);
}

Test(input_limits, dotted_key_in_inline_table)
{
    char *t = dotted("[run]\nx = { ", 65, " = 1 }\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:2:", "more than 64 parts", NULL);
    free(t);
}

Test(input_limits, quoted_parts_count)
{
    char *t = malloc(65 * 6 + 16);
    char *p = t;
    for (int i = 0; i < 65; i++)
        p += sprintf(p, i ? ". \"a\"" : "\"a\"");
    sprintf(p, " = 1\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:1:", "more than 64 parts", NULL);
    free(t);
}

/* Loads text that is within the limits: whatever else it fails on, no limit. */
static void expect_within_limits(const char *text)
{
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    if (ebb_config_load_string(text, "t.toml", &cfg) != EBB_OK)
        cr_expect(strstr(ebb_last_error(), "Limits") == NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}

/* 64 parts pass the bound (and reach the key check: an unknown key). */
Test(input_limits, sixty_four_parts_reach_the_parser)
{
    char *t = dotted("", 64, " = 1\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:1:", "unknown", NULL);
    expect_within_limits(t);
    free(t);
}

/* Dots in strings, multi-line strings and comments are not key parts. */
Test(input_limits, dots_in_strings_and_comments)
{
    char *many = dotted("", 200, "");
    size_t n = 6 * strlen(many) + 256;
    char *t = malloc(n);
    snprintf(t, n,
             "# %s\n[tier.disk]\npath = \"%s\"\n# x = '%s'\n"
             "[run]\nstrategy = 'revolve' # %s\n",
             many, many, many, many);
    expect_within_limits(t);
    snprintf(t, n, "[tier.disk]\npath = \"\"\"\n%s\n\"\"\"\n", many);
    expect_within_limits(t);
    /* a literal multi-line string closed by four quotes, an escaped quote */
    snprintf(t, n, "[run]\nx = 1.5\ny = '''\n%s''''\nz = \"\\\"%s\"\n", many, many);
    expect_within_limits(t);
    free(t);
    free(many);
}

Test(input_limits, long_line)
{
    size_t n = 70 * 1024;
    char *t = malloc(n + 64);
    char *p = t + sprintf(t, "[run]\n\n# ");
    memset(p, 'x', n);
    strcpy(p + n, "\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:3:", "longer than 64 KiB", "at most 64 KiB",
                      NULL);
    free(t);
}

Test(input_limits, long_line_in_a_string)
{
    size_t n = 70 * 1024;
    char *t = malloc(n + 64);
    char *p = t + sprintf(t, "[tier.disk]\npath = \"");
    memset(p, 'x', n);
    strcpy(p + n, "\"\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:2:", "longer than 64 KiB", NULL);
    free(t);
}

Test(input_limits, deep_nesting)
{
    char t[256] = "[run]\nx = ";
    for (int i = 0; i < 17; i++)
        strcat(t, "[");
    for (int i = 0; i < 17; i++)
        strcat(t, "]");
    strcat(t, "\n");
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:2:", "nested more than 16 deep", NULL);
}

/* A multi-line array whose lines start with '[' or ']' nests as it should. */
Test(input_limits, multi_line_arrays)
{
    ebb_config cfg;
    load_ok("[tier.disk]\npath = [\n  \"/tmp\",\n]\n[run]\nstrategy = \"revolve\"\n", &cfg);
    ebb_config_dispose(&cfg);
}

Test(input_limits, text_too_large)
{
    size_t n = (16u << 20) + 1;
    char *t = malloc(n + 1);
    memset(t, '\n', n);
    t[n] = '\0';
    expect_load_error(t, EBB_ERR_CONFIG, "t.toml:", "at most 16 MiB", NULL);
    free(t);
}

Test(input_limits, file_too_large, .init = setup_dir, .fini = cleanup_dir)
{
    const char *path = make_in_dir("big.toml", "");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 17 * 1024; i++)
        fprintf(f, "%1023s\n", "#");
    fclose(f);
    ebb_config cfg;
    cr_assert_eq(ebb_config_init_default(&cfg), EBB_OK);
    cr_assert_eq(ebb_config_load_file(path, &cfg), EBB_ERR_CONFIG);
    cr_expect(strstr(ebb_last_error(), "at most 16 MiB") != NULL, "%s", ebb_last_error());
    ebb_config_dispose(&cfg);
}
