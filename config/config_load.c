/* Loading a configuration from TOML text or a file (parsed by
 * config_toml.cpp): types, ranges and unknown keys, each with file and line.
 * Every key is read as the key table (config_keys.c) describes it. */
#include "ebb/config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "config/config_internal.h"
#include "config/config_keys.h"
#include "config/config_size.h"

typedef struct load_ctx {
    const char *name;     /* the file name for messages */
    const char *base_dir; /* relative disk paths start here (NULL: as given) */
    ebb_config *cfg;      /* the copy being filled */
    ebb_config_table_list tables;
    int table_line[EBB_CONFIG_MAX_TABLES]; /* where each table first appears; 0: not */
} load_ctx;

/* "the string \"abc\"", "the integer -3", "a table", ...: for "got ...". */
static void describe(const ebb_toml_entry *e, char *buf, size_t size)
{
    switch (e->kind) {
    case EBB_TOML_TABLE: snprintf(buf, size, "a table"); return;
    case EBB_TOML_ARRAY: snprintf(buf, size, "an array"); return;
    case EBB_TOML_INTEGER: snprintf(buf, size, "the integer %" PRId64, e->integer); return;
    case EBB_TOML_FLOAT: snprintf(buf, size, "the float %g", e->number); return;
    case EBB_TOML_BOOLEAN: snprintf(buf, size, "the boolean %s", e->boolean ? "true" : "false"); return;
    case EBB_TOML_DATE: snprintf(buf, size, "a date"); return;
    case EBB_TOML_TIME: snprintf(buf, size, "a time"); return;
    case EBB_TOML_DATETIME: snprintf(buf, size, "a date-time"); return;
    case EBB_TOML_STRING: break;
    }
    size_t used = (size_t)snprintf(buf, size, "the string \"");
    for (size_t i = 0; i < e->length && used + 8 < size; i++) {
        unsigned char c = (unsigned char)e->string[i];
        if (i >= 60) {
            used += (size_t)snprintf(buf + used, size - used, "...");
            break;
        }
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
            used += (size_t)snprintf(buf + used, size - used, c == '"' ? "\\\"" : c == '\\' ? "\\\\" : "\\u%04X", c);
        else
            buf[used++] = (char)c;
    }
    snprintf(buf + used, size - used, "\"");
}

/* Records "<file>:<line>: key '<key>': <message>" and returns status. */
static ebb_status key_fail(const load_ctx *c, const ebb_toml_entry *e, const char *key,
                           ebb_status status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static ebb_status key_fail(const load_ctx *c, const ebb_toml_entry *e, const char *key,
                           ebb_status status, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ebb_fail(status, "%s:%d: key '%s': %s", c->name, (int)e->line, key, msg);
}

static ebb_status expect(const load_ctx *c, const ebb_toml_entry *e, const char *key,
                         const char *expected)
{
    char got[160];
    describe(e, got, sizeof got);
    return key_fail(c, e, key, EBB_ERR_CONFIG, "expected %s, got %s", expected, got);
}

static ebb_status get_bool(const load_ctx *c, const ebb_toml_entry *e, int *out)
{
    if (e->kind != EBB_TOML_BOOLEAN)
        return expect(c, e, e->key, "true or false");
    *out = e->boolean;
    return EBB_OK;
}

/* An integer in the key's range, or its "auto". */
static ebb_status get_int(const load_ctx *c, const ebb_toml_entry *e, const ebb_key_def *d,
                          int32_t *out)
{
    if (d->has_auto && e->kind == EBB_TOML_STRING && strcmp(e->string, "auto") == 0) {
        *out = d->auto_value;
        return EBB_OK;
    }
    if (e->kind == EBB_TOML_INTEGER && e->integer >= d->min && e->integer <= d->max) {
        *out = (int32_t)e->integer;
        return EBB_OK;
    }
    char range[160], expected[200];
    ebb_key_range_text(d, range, sizeof range);
    snprintf(expected, sizeof expected, "%s%s", range, d->note ? d->note : "");
    return expect(c, e, e->key, d->expected ? d->expected : expected);
}

/* A size: a positive integer (bytes) or a string with a unit; "auto" where
 * allow_auto. zero_note (may be NULL) follows the message for a size of 0. */
static ebb_status get_size(const load_ctx *c, const ebb_toml_entry *e, int allow_auto,
                           const char *zero_note, uint64_t *out)
{
    const char *after_zero = zero_note ? zero_note : "";
    const char *expected = allow_auto
        ? "a size: an integer number of bytes or a string such as \"64 GiB\", or \"auto\""
        : "a size: an integer number of bytes or a string such as \"8 MiB\"";
    char got[160];
    if (e->kind == EBB_TOML_INTEGER) {
        if (e->integer <= 0) {
            describe(e, got, sizeof got);
            return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected a positive size, got %s%s",
                            e->integer == 0 ? "0" : got, e->integer == 0 ? after_zero : "");
        }
        *out = (uint64_t)e->integer;
        return EBB_OK;
    }
    if (e->kind != EBB_TOML_STRING)
        return expect(c, e, e->key, expected);
    if (allow_auto && strcmp(e->string, "auto") == 0) {
        *out = EBB_BUDGET_AUTO;
        return EBB_OK;
    }
    describe(e, got, sizeof got);
    if (strlen(e->string) != e->length)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got a string with a NUL character",
                        expected);
    char why[256];
    uint64_t v;
    if (ebb_size_parse_reason(e->string, &v, why, sizeof why) != EBB_OK)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got %s: %s", expected, got, why);
    if (v == 0)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected a positive size, got %s%s", got,
                        after_zero);
    *out = v;
    return EBB_OK;
}

/* A rate: a string such as "500 MB/s", "none", or a number of bytes per
 * second (an integer, or a float such as 5e8, rounded to whole bytes). */
static ebb_status get_rate(const load_ctx *c, const ebb_toml_entry *e, uint64_t *out)
{
    const char *expected = "a rate: a string such as \"500 MB/s\" or \"2 GiB/s\", a number of "
                           "bytes per second, or \"none\" for no limit";
    char got[160], why[320];
    describe(e, got, sizeof got);
    if (e->kind == EBB_TOML_INTEGER || e->kind == EBB_TOML_FLOAT) {
        double v = e->kind == EBB_TOML_INTEGER ? (double)e->integer : e->number;
        if (!(v >= 1 && v <= (double)EBB_RATE_MAX))
            return key_fail(c, e, e->key, EBB_ERR_CONFIG,
                            "expected a rate from 1 to 10^18 bytes per second, got %s%s", got,
                            v == 0 ? " (write \"none\" for no limit)" : "");
        *out = e->kind == EBB_TOML_INTEGER ? (uint64_t)e->integer : (uint64_t)(v + 0.5);
        return EBB_OK;
    }
    if (e->kind != EBB_TOML_STRING)
        return expect(c, e, e->key, expected);
    if (strlen(e->string) != e->length)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got a string with a NUL character",
                        expected);
    if (ebb_rate_parse_reason(e->string, out, why, sizeof why) != EBB_OK)
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got %s: %s", expected, got, why);
    return EBB_OK;
}

/* A number (integer or float) within the key's range. */
static ebb_status get_double(const load_ctx *c, const ebb_toml_entry *e, const ebb_key_def *d,
                             double *out)
{
    double x = e->kind == EBB_TOML_INTEGER ? (double)e->integer
               : e->kind == EBB_TOML_FLOAT ? e->number
                                           : NAN;
    if (ebb_key_double_in_range(d, x)) {
        *out = x;
        return EBB_OK;
    }
    char range[160];
    ebb_key_range_text(d, range, sizeof range);
    return expect(c, e, e->key, range);
}

/* A name from a list, with a suggestion. */
static ebb_status get_name(const load_ctx *c, const ebb_toml_entry *e, const char *const *names,
                           size_t count, int *out)
{
    char list[256], expected[320];
    ebb_config_list_quoted(names, count, list, sizeof list);
    snprintf(expected, sizeof expected, "one of %s", list);
    if (e->kind != EBB_TOML_STRING)
        return expect(c, e, e->key, expected);
    int i = ebb_config_find_name(e->string, names, count);
    if (i < 0) {
        char got[160];
        describe(e, got, sizeof got);
        const char *near = ebb_config_closest(e->string, names, count);
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got %s%s%s%s", expected, got,
                        near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
    }
    *out = i;
    return EBB_OK;
}

/* Joins a relative path to the file's directory. */
static char *resolve_path(const load_ctx *c, const char *p)
{
    if (p[0] == '/' || !c->base_dir)
        return strdup(p);
    size_t len = strlen(c->base_dir) + strlen(p) + 2;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s/%s", c->base_dir, p);
    return out;
}

static ebb_status get_paths(const load_ctx *c, const ebb_toml_entry *e, const ebb_key_def *d)
{
    const char *expected = "a directory (a string) or a list of directories, one per drive";
    const ebb_toml_entry *items = e;
    size_t n = 1;
    if (e->kind == EBB_TOML_ARRAY) {
        items = e->elements;
        n = e->count;
        if (n == 0)
            return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s, got an empty list", expected);
    } else if (e->kind != EBB_TOML_STRING) {
        return expect(c, e, e->key, expected);
    }
    char **paths = calloc(n, sizeof *paths);
    if (!paths)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory reading %s", e->key);
    ebb_status s = EBB_OK;
    for (size_t i = 0; i < n && s == EBB_OK; i++) {
        const ebb_toml_entry *it = &items[i];
        char key[96];
        if (e->kind == EBB_TOML_ARRAY)
            snprintf(key, sizeof key, "%s[%zu]", e->key, i);
        else
            snprintf(key, sizeof key, "%s", e->key);
        if (it->kind != EBB_TOML_STRING)
            s = expect(c, it, key, "a directory (a string)");
        else if (it->length == 0)
            s = key_fail(c, it, key, EBB_ERR_CONFIG, "expected a directory, got an empty string");
        else if (strlen(it->string) != it->length)
            s = key_fail(c, it, key, EBB_ERR_CONFIG, "expected a directory, got a string with a "
                         "NUL character");
        else if (!(paths[i] = resolve_path(c, it->string)))
            s = ebb_fail(EBB_ERR_NO_MEMORY, "out of memory reading %s", key);
    }
    if (s != EBB_OK) {
        ebb_config_free_paths(paths, n);
        return s;
    }
    char ***old = ebb_key_field(c->cfg, d);
    size_t *old_n = (size_t *)((char *)c->cfg + d->count_offset);
    ebb_config_free_paths(*old, *old_n);
    *old = paths;
    *old_n = n;
    return EBB_OK;
}

/* A size in the key's range. */
static ebb_status get_ranged_size(const load_ctx *c, const ebb_toml_entry *e, const ebb_key_def *d,
                                  uint64_t *out)
{
    uint64_t b = 0;
    ebb_status s = get_size(c, e, d->has_auto, d->zero_note, &b);
    if (s != EBB_OK)
        return s;
    if (d->max != 0 && !(d->has_auto && b == EBB_BUDGET_AUTO) &&
        (b < (uint64_t)d->min || b > (uint64_t)d->max || (d->align > 1 && b % d->align != 0))) {
        char range[160], got[64];
        ebb_key_range_text(d, range, sizeof range);
        ebb_size_human(b, got, sizeof got);
        return key_fail(c, e, e->key, EBB_ERR_CONFIG, "expected %s%s, got %s", range,
                        d->note ? d->note : "", got);
    }
    *out = b;
    return EBB_OK;
}

/* Reads entry `e` into the field of `key`, as the key table describes it. */
static ebb_status apply_key(load_ctx *c, const ebb_toml_entry *e, ebb_config_key key)
{
    const ebb_key_def *d = &ebb_config_keys[key];
    void *field = ebb_key_field(c->cfg, d);
    ebb_status s = EBB_OK;
    switch (d->type) {
    case EBB_KEY_TYPE_ENUM:
        if (d->alias && e->kind == EBB_TOML_STRING && strcmp(e->string, d->alias) == 0)
            *(int *)field = d->alias_value;
        else
            s = get_name(c, e, d->names, (size_t)d->name_count, (int *)field);
        break;
    case EBB_KEY_TYPE_BOOL: s = get_bool(c, e, (int *)field); break;
    case EBB_KEY_TYPE_SIZE: s = get_ranged_size(c, e, d, (uint64_t *)field); break;
    case EBB_KEY_TYPE_INT: s = get_int(c, e, d, (int32_t *)field); break;
    case EBB_KEY_TYPE_PATHS: s = get_paths(c, e, d); break;
    case EBB_KEY_TYPE_RATE: s = get_rate(c, e, (uint64_t *)field); break;
    case EBB_KEY_TYPE_DOUBLE: s = get_double(c, e, d, (double *)field); break;
    }
    if (s == EBB_OK)
        c->cfg->line[key] = e->line > 0 ? e->line : 1;
    return s;
}

static ebb_status unknown_key(const load_ctx *c, const ebb_toml_entry *e)
{
    /* The table it sits in: the longest known table that prefixes it. */
    const char *parent = "";
    for (int i = 0; i < c->tables.count; i++) {
        const char *t = c->tables.name[i];
        size_t l = strlen(t);
        if (strncmp(e->key, t, l) == 0 && e->key[l] == '.' && !strchr(e->key + l + 1, '.') &&
            l > strlen(parent))
            parent = t;
    }
    char known[256], suggestion[EBB_CONFIG_MAX_TABLE_NAME + 64];
    ebb_config_list_children(parent, known, sizeof known);
    const char *near = ebb_config_suggest_key(e->key, suggestion, sizeof suggestion) ? suggestion
                                                                                      : NULL;
    char where_known[sizeof known + EBB_CONFIG_MAX_TABLE_NAME + 32];
    if (parent[0])
        snprintf(where_known, sizeof where_known, "the keys of [%s] are %s", parent, known);
    else
        snprintf(where_known, sizeof where_known, "the top-level tables are %s", known);
    if (near)
        return ebb_fail(EBB_ERR_CONFIG, "%s:%d: unknown key '%s'; did you mean '%s'? (%s)", c->name,
                        (int)e->line, e->key, near, where_known);
    return ebb_fail(EBB_ERR_CONFIG, "%s:%d: unknown key '%s'; expected a known key (%s)", c->name,
                    (int)e->line, e->key, where_known);
}

static ebb_status apply_entry(load_ctx *c, const ebb_toml_entry *e)
{
    for (int i = 0; i < c->tables.count; i++) {
        if (strcmp(e->key, c->tables.name[i]) != 0)
            continue;
        if (e->kind != EBB_TOML_TABLE)
            return expect(c, e, e->key, "a table");
        if (c->table_line[i] == 0)
            c->table_line[i] = e->line > 0 ? e->line : 1;
        return EBB_OK;
    }
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++)
        if (strcmp(e->key, ebb_config_keys[k].name) == 0)
            return apply_key(c, e, (ebb_config_key)k);
    /* Anything under an unknown table was reported with that table, so only
     * the first unknown name on a path gets here (entries are in file order). */
    return unknown_key(c, e);
}

static int by_position(const void *pa, const void *pb)
{
    const ebb_toml_entry *a = pa, *b = pb;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->column != b->column)
        return a->column < b->column ? -1 : 1;
    size_t la = strlen(a->key), lb = strlen(b->key);
    return la < lb ? -1 : la > lb;
}

static ebb_status load_text(const char *text, size_t len, const char *name, const char *base_dir,
                            ebb_config *cfg)
{
    ebb_status bounded = ebb_config_check_bounds(text, len, name);
    if (bounded != EBB_OK)
        return bounded;
    ebb_toml_doc doc;
    int rc = ebb_toml_parse(text, len, &doc);
    if (rc == EBB_TOML_SYNTAX) {
        return ebb_fail(EBB_ERR_CONFIG, "%s:%d:%d: TOML syntax error: %s", name, (int)doc.error_line,
                        (int)doc.error_column, doc.error);
    }
    if (rc == EBB_TOML_NO_MEMORY)
        return ebb_fail(EBB_ERR_NO_MEMORY, "%s: out of memory parsing the configuration", name);
    if (rc != EBB_TOML_OK)
        return ebb_fail(EBB_ERR_INTERNAL, "%s: the TOML parser failed: %s", name, doc.error);

    ebb_config next;
    ebb_status s = ebb_config_copy(cfg, &next);
    if (s != EBB_OK) {
        ebb_toml_doc_free(&doc);
        return s;
    }
    free(next.source);
    next.source = strdup(name);
    memset(next.line, 0, sizeof next.line);
    if (!next.source) {
        ebb_toml_doc_free(&doc);
        ebb_config_dispose(&next);
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory loading %s", name);
    }
    load_ctx c = {.name = name, .base_dir = base_dir, .cfg = &next};
    ebb_config_list_tables(&c.tables);
    /* A table whose position toml++ does not know (an implicit one) takes
     * that of its first key; then everything goes in file order, so the first
     * error in the file is the one reported. */
    for (size_t i = 0; i < doc.count; i++) {
        ebb_toml_entry *t = &doc.entries[i];
        if (t->line > 0)
            continue;
        size_t tl = strlen(t->key);
        for (size_t j = 0; j < doc.count; j++) {
            const ebb_toml_entry *u = &doc.entries[j];
            if (u->line > 0 && strncmp(u->key, t->key, tl) == 0 && u->key[tl] == '.' &&
                (t->line == 0 || u->line < t->line || (u->line == t->line && u->column < t->column))) {
                t->line = u->line;
                t->column = u->column;
            }
        }
    }
    if (doc.count > 0)
        qsort(doc.entries, doc.count, sizeof *doc.entries, by_position);
    for (size_t i = 0; i < doc.count && s == EBB_OK; i++)
        s = apply_entry(&c, &doc.entries[i]);
    /* A [tier.X] table turns its tier on unless it says enabled = false. */
    for (int i = 0; i < c.tables.count && s == EBB_OK; i++) {
        int k = c.tables.enabled_key[i];
        if (k < 0 || c.table_line[i] == 0 || next.line[k] != 0)
            continue;
        *(int *)ebb_key_field(&next, &ebb_config_keys[k]) = 1;
        next.line[k] = c.table_line[i];
    }
    ebb_toml_doc_free(&doc);
    /* Across keys, whichever the file set. */
    if (s == EBB_OK)
        s = ebb_config_check_strategy_tiers(&next);
    if (s == EBB_OK)
        s = ebb_config_check_compression(&next);
    /* What the machine must have for the keys the file set, each check once
     * (tier.disk.path and tier.disk.budget share one), in key order. */
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT && s == EBB_OK; k++) {
        ebb_status (*verify)(const ebb_config *) = ebb_config_key_checks[k].verify;
        int done = 0;
        for (int j = 0; j < k && verify; j++)
            done |= ebb_config_key_checks[j].verify == verify && next.line[j] > 0;
        if (verify && !done && next.line[k] > 0)
            s = verify(&next);
    }
    if (s != EBB_OK) {
        ebb_config_dispose(&next);
        return s;
    }
    ebb_config_dispose(cfg);
    *cfg = next;
    return EBB_OK;
}

ebb_status ebb_config_load_string(const char *toml, const char *name, ebb_config *cfg)
{
    if (!toml || !cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_load_string: %s is NULL",
                        toml ? "cfg" : "toml");
    return load_text(toml, strlen(toml), name ? name : "<string>", NULL, cfg);
}

ebb_status ebb_config_load_file(const char *path, ebb_config *cfg)
{
    if (!path || !cfg)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_load_file: %s is NULL", path ? "cfg" : "path");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ebb_fail_errno(EBB_ERR_IO, errno, "cannot open configuration file '%s'", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
        close(fd);
        return ebb_fail_errno(EBB_ERR_IO, err, "cannot read configuration file '%s'", path);
    }
    /* Read at most one byte past the bound (a FIFO, a device or a growing
     * file never ends): that byte tells a text over the bound from one at it,
     * and the buffer never passes the bound plus that byte and the NUL. */
    const size_t most = (size_t)EBB_CONFIG_MAX_TEXT_BYTES + 2;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    ebb_status s = EBB_OK;
    for (;;) {
        if (!text) {
            s = ebb_fail(EBB_ERR_NO_MEMORY, "out of memory reading '%s'", path);
            break;
        }
        if (len > (size_t)EBB_CONFIG_MAX_TEXT_BYTES) {
            s = ebb_fail(EBB_ERR_CONFIG, "%s: larger than %d MiB; a configuration file "
                         "may be at most %d MiB (docs/configuration.md, Limits)",
                         path, EBB_CONFIG_MAX_TEXT_BYTES >> 20, EBB_CONFIG_MAX_TEXT_BYTES >> 20);
            break;
        }
        if (len + 1 >= cap) {
            size_t next = cap * 2 < most ? cap * 2 : most;
            char *bigger = realloc(text, next);
            if (!bigger) {
                free(text);
                text = NULL;
                continue;
            }
            text = bigger;
            cap = next;
        }
        ssize_t got = read(fd, text + len, cap - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            s = ebb_fail_errno(EBB_ERR_IO, errno, "cannot read configuration file '%s'", path);
            break;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (s != EBB_OK) {
        free(text);
        return s;
    }
    text[len] = '\0';
    /* Relative disk paths start from the file's directory, made absolute. */
    char *dir = strdup(path);
    char *base = NULL;
    if (dir) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            strcpy(dir, ".");
        else if (slash == dir)
            dir[1] = '\0';
        else
            *slash = '\0';
        base = realpath(dir, NULL);
    }
    s = load_text(text, len, path, base ? base : dir, cfg);
    free(base);
    free(dir);
    free(text);
    return s;
}
