/* docs/configuration.md follows the key table (config/config_keys.c): every
 * key has its row in "## Keys", with its default as the table formats it and
 * its field, and its bullet under "### `[table]`"; and the page names no key
 * the table lacks, in those rows and bullets, in the ```toml example, or in
 * `code` in the prose. (Indented blocks hold error messages, typos included
 * on purpose, and are not read.) */
#include "config/helpers.h"

#include "config/config_keys.h"

enum { MAX_LINES = 2000 };

typedef struct doc {
    char *text;
    char *line[MAX_LINES];
    int count;
} doc;

static void read_doc(doc *d)
{
    const char *path = EBB_SOURCE_DIR "/docs/configuration.md";
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 1 << 16, len = 0;
    d->text = malloc(cap);
    for (size_t got; (got = fread(d->text + len, 1, cap - 1 - len, f)) > 0;) {
        len += got;
        if (len + 1 == cap)
            d->text = realloc(d->text, cap *= 2);
    }
    fclose(f);
    d->text[len] = '\0';
    d->count = 0;
    for (char *p = d->text; *p && d->count < MAX_LINES;) {
        d->line[d->count++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    cr_assert_lt(d->count, MAX_LINES);
}

static int key_index(const char *name, size_t len)
{
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        if (strlen(ebb_config_keys[k].name) == len && strncmp(ebb_config_keys[k].name, name, len) == 0)
            return k;
    return -1;
}

/* Column `col` (0-based) of a "| a | b |" row, trimmed, into buf. */
static void column(const char *row, int col, char *buf, size_t size)
{
    const char *p = strchr(row, '|');
    for (int i = 0; i < col && p; i++)
        p = strchr(p + 1, '|');
    buf[0] = '\0';
    if (!p)
        return;
    p++;
    const char *end = strchr(p, '|');
    if (!end)
        end = p + strlen(p);
    while (p < end && *p == ' ')
        p++;
    while (end > p && end[-1] == ' ')
        end--;
    snprintf(buf, size, "%.*s", (int)(end - p), p);
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The section "## Keys": its rows. */
Test(docs_match_table, every_key_has_its_row_with_its_default)
{
    doc d;
    read_doc(&d);
    int rows[EBB_CONFIG_KEY_COUNT] = {0};
    int in_keys = 0;
    for (int i = 0; i < d.count; i++) {
        const char *l = d.line[i];
        if (starts_with(l, "## "))
            in_keys = strcmp(l, "## Keys") == 0;
        if (!in_keys || !starts_with(l, "| `"))
            continue;
        char name[128], dflt[512], field[256];
        column(l, 0, name, sizeof name);
        column(l, 2, dflt, sizeof dflt);
        column(l, 3, field, sizeof field);
        size_t n = strlen(name);
        int k = n > 2 ? key_index(name + 1, n - 2) : -1;
        cr_expect_geq(k, 0, "docs/configuration.md:%d: %s is not a key of config/config_keys.c",
                      i + 1, name);
        if (k < 0)
            continue;
        rows[k]++;
        const ebb_key_def *def = &ebb_config_keys[k];
        char text[256], want[260];
        ebb_config_key_default_text((ebb_config_key)k, text, sizeof text);
        /* A value in backticks, as the formatter writes it; or how it is computed. */
        snprintf(want, sizeof want, ebb_config_key_init[k] ? "%s" : "`%s`", text);
        cr_expect(starts_with(dflt, want),
                  "docs/configuration.md:%d: the default of %s is %s in the table, the page says %s",
                  i + 1, def->name, want, dflt);
        char want_field[160];
        snprintf(want_field, sizeof want_field, "`%s`", def->field);
        cr_expect(starts_with(field, want_field),
                  "docs/configuration.md:%d: %s lives in %s, the page says %s", i + 1, def->name,
                  want_field, field);
    }
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        cr_expect_eq(rows[k], 1, "docs/configuration.md has %d rows for %s in \"## Keys\"; "
                     "expected one", rows[k], ebb_config_keys[k].name);
    free(d.text);
}

/* "### `[tier.host]`" sections: a "- **`leaf`**" bullet per key. */
Test(docs_match_table, every_key_has_its_paragraph)
{
    doc d;
    read_doc(&d);
    int bullets[EBB_CONFIG_KEY_COUNT] = {0};
    char table[64] = "";
    for (int i = 0; i < d.count; i++) {
        const char *l = d.line[i];
        if (starts_with(l, "#")) {
            table[0] = '\0';
            if (starts_with(l, "### `["))
                sscanf(l, "### `[%63[^]]", table);
            continue;
        }
        if (!table[0] || !starts_with(l, "- **`"))
            continue;
        char name[160];
        const char *leaf = l + strlen("- **`"), *end = strchr(leaf, '`');
        cr_assert_not_null(end);
        snprintf(name, sizeof name, "%s.%.*s", table, (int)(end - leaf), leaf);
        int k = key_index(name, strlen(name));
        cr_expect_geq(k, 0, "docs/configuration.md:%d: %s is not a key of config/config_keys.c",
                      i + 1, name);
        if (k >= 0)
            bullets[k]++;
    }
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        cr_expect_eq(bullets[k], 1, "docs/configuration.md has %d paragraphs for %s; expected one "
                     "under its table's heading", bullets[k], ebb_config_keys[k].name);
    free(d.text);
}

/* `run.x` or `tier.x.y` (with an optional [i]) somewhere in `s`: known. */
static void check_code_span(const char *s, size_t len, int line)
{
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && (s[i - 1] == '_' || s[i - 1] == '.' || (s[i - 1] >= 'a' && s[i - 1] <= 'z')))
            continue;
        if (strncmp(s + i, "run.", 4) != 0 && strncmp(s + i, "tier.", 5) != 0)
            continue;
        size_t j = i, dots = 0;
        while (j < len && ((s[j] >= 'a' && s[j] <= 'z') || s[j] == '_' ||
                           (s[j] == '.' && j + 1 < len && s[j + 1] >= 'a' && s[j + 1] <= 'z'))) {
            dots += s[j] == '.';
            j++;
        }
        size_t want_dots = s[i] == 'r' ? 1 : 2;
        if (dots == want_dots)
            cr_expect_geq(key_index(s + i, j - i), 0,
                          "docs/configuration.md:%d: `%.*s` is not a key of config/config_keys.c",
                          line, (int)(j - i), s + i);
        i = j;
    }
}

/* The ```toml example and `code` in the prose. */
Test(docs_match_table, no_key_the_table_lacks)
{
    doc d;
    read_doc(&d);
    int fenced = 0, toml = 0, seen = 0;
    char table[64] = "";
    for (int i = 0; i < d.count; i++) {
        const char *l = d.line[i];
        if (starts_with(l, "```")) {
            toml = !fenced && strcmp(l, "```toml") == 0;
            fenced = !fenced;
            continue;
        }
        if (toml) {
            char leaf[64];
            if (l[0] == '[') {
                sscanf(l, "[%63[^]]", table);
            } else if (sscanf(l, "%63[a-z_] =", leaf) == 1 && strchr(l, '=')) {
                char name[160];
                snprintf(name, sizeof name, "%s.%s", table, leaf);
                cr_expect_geq(key_index(name, strlen(name)), 0,
                              "docs/configuration.md:%d: the example sets %s, which is not a key "
                              "of config/config_keys.c", i + 1, name);
                seen++;
            }
            continue;
        }
        if (fenced || starts_with(l, "    "))
            continue;
        for (const char *p = strchr(l, '`'); p; p = strchr(p, '`')) {
            const char *end = strchr(p + 1, '`');
            if (!end)
                break;
            check_code_span(p + 1, (size_t)(end - p - 1), i + 1);
            p = end + 1;
        }
    }
    cr_expect_gt(seen, 0, "no ```toml example found in docs/configuration.md");
    free(d.text);
}

/* What the page relies on: every entry complete, its tables derived. */
Test(docs_match_table, table_is_complete)
{
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        const ebb_key_def *d = &ebb_config_keys[k];
        cr_assert_not_null(d->name, "key %d has no entry", k);
        cr_expect(d->doc && d->doc[0], "%s has no documentation", d->name);
        cr_expect(d->field && starts_with(d->field, "cfg."), "%s has no field", d->name);
        cr_expect(!ebb_config_key_init[k] || d->default_doc,
                  "%s: a computed default needs default_doc", d->name);
        if (d->type == EBB_KEY_TYPE_ENUM)
            cr_expect(d->names && d->name_count > 0 && d->c_type, "%s: enum without names",
                      d->name);
        if (d->type == EBB_KEY_TYPE_INT)
            cr_expect((d->what || d->expected) && d->min <= d->max, "%s: integer range", d->name);
        if (d->type == EBB_KEY_TYPE_SIZE)
            cr_expect(d->min <= d->max, "%s: size range", d->name);
    }
    ebb_config_table_list t;
    ebb_config_list_tables(&t);
    cr_expect_lt(t.count, EBB_CONFIG_MAX_TABLES);
    cr_expect_str_eq(t.name[0], "run");
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        const char *name = ebb_config_keys[k].name, *leaf = strrchr(name, '.');
        cr_assert_not_null(leaf, "%s is in no table", name);
        cr_expect_lt((size_t)(leaf - name), (size_t)EBB_CONFIG_MAX_TABLE_NAME);
        int found = 0;
        for (int i = 0; i < t.count; i++)
            found |= strlen(t.name[i]) == (size_t)(leaf - name) &&
                     strncmp(t.name[i], name, (size_t)(leaf - name)) == 0;
        cr_expect(found, "the table of %s is missing", name);
    }
}
