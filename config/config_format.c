/* Writing a configuration back as a TOML file that loads to the same
 * values: every key of the key table, in its order. */
#include "ebb/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "config/config_internal.h"
#include "config/config_keys.h"

typedef struct out_buf {
    char *buf;
    size_t size;
    size_t len;
} out_buf;

static void out(out_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(out_buf *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->len < o->size ? o->buf + o->len : NULL;
    size_t room = o->len < o->size ? o->size - o->len : 0;
    char dummy;
    int n = vsnprintf(dst ? dst : &dummy, dst ? room : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* A TOML basic string. */
static void out_string(out_buf *o, const char *s)
{
    out(o, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            out(o, "\\%c", *p);
        else if (*p == '\n')
            out(o, "\\n");
        else if (*p == '\t')
            out(o, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            out(o, "\\u%04X", *p);
        else
            out(o, "%c", *p);
    }
    out(o, "\"");
}

/* The value of key `d` in *cfg as a TOML value. */
static void out_value(out_buf *o, const ebb_config *cfg, const ebb_key_def *d)
{
    const void *v = ebb_key_cfield(cfg, d);
    switch (d->type) {
    case EBB_KEY_TYPE_ENUM: {
        int i = *(const int *)v;
        out(o, "\"%s\"", i >= 0 && i < d->name_count ? d->names[i] : "?");
        return;
    }
    case EBB_KEY_TYPE_BOOL: out(o, "%s", *(const int *)v ? "true" : "false"); return;
    case EBB_KEY_TYPE_INT:
        if (d->has_auto && *(const int32_t *)v == d->auto_value)
            out(o, "\"auto\"");
        else
            out(o, "%d", (int)*(const int32_t *)v);
        return;
    case EBB_KEY_TYPE_SIZE: {
        /* Sizes as exact units; 0 is "auto" where the key allows it (else a
         * load refuses the 0 written). */
        uint64_t b = *(const uint64_t *)v;
        char text[48];
        if (d->has_auto && b == EBB_BUDGET_AUTO)
            snprintf(text, sizeof text, "auto");
        else
            ebb_format_size(b, text, sizeof text);
        out(o, "\"%s\"", text);
        return;
    }
    case EBB_KEY_TYPE_RATE: {
        char text[48];
        ebb_format_rate(*(const uint64_t *)v, text, sizeof text); /* 0: "none" */
        out(o, "\"%s\"", text);
        return;
    }
    case EBB_KEY_TYPE_DOUBLE: {
        /* the shortest text that reads back the same double */
        char text[48];
        double x = *(const double *)v;
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, x);
            if (strtod(text, NULL) == x)
                break;
        }
        out(o, "%s", text);
        return;
    }
    case EBB_KEY_TYPE_PATHS: {
        char *const *paths = *(char *const *const *)v;
        size_t n = *(const size_t *)((const char *)cfg + d->count_offset);
        if (n == 1) {
            out_string(o, paths[0]);
            return;
        }
        out(o, "[");
        for (size_t i = 0; i < n; i++) {
            out(o, i ? ", " : "");
            out_string(o, paths[i]);
        }
        out(o, "]");
        return;
    }
    }
}

ebb_status ebb_config_format(const ebb_config *cfg, char *buf, size_t size, size_t *length)
{
    if (!cfg || (!buf && size > 0))
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_format: %s is NULL", cfg ? "buf" : "cfg");
    out_buf o = {buf, size, 0};
    if (cfg->source)
        out(&o, "# ebb configuration (loaded from %s)\n", cfg->source);
    else
        out(&o, "# ebb configuration\n");
    /* Every key in table order, a [table] header where the table changes. */
    const char *table = NULL;
    size_t table_len = 0;
    for (int k = 0; k < EBB_CONFIG_KEY_COUNT; k++) {
        const ebb_key_def *d = &ebb_config_keys[k];
        const char *leaf = strrchr(d->name, '.') + 1;
        size_t len = (size_t)(leaf - 1 - d->name);
        if (!table || len != table_len || strncmp(table, d->name, len) != 0) {
            out(&o, "%s[%.*s]\n", table ? "\n" : "", (int)len, d->name);
            table = d->name;
            table_len = len;
        }
        out(&o, "%s = ", leaf);
        out_value(&o, cfg, d);
        out(&o, "\n");
    }
    if (length)
        *length = o.len;
    return EBB_OK;
}

int ebb_config_key_default_text(ebb_config_key key, char *buf, size_t size)
{
    if ((unsigned)key >= EBB_CONFIG_KEY_COUNT)
        return snprintf(buf, size, "?");
    const ebb_key_def *d = &ebb_config_keys[key];
    if (ebb_config_key_init[key])
        return snprintf(buf, size, "%s", d->default_doc);
    ebb_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ebb_key_set_default(&cfg, d);
    out_buf o = {buf, size, 0};
    out_value(&o, &cfg, d);
    return (int)o.len;
}

ebb_status ebb_config_write(const ebb_config *cfg, FILE *stream)
{
    if (!cfg || !stream)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_config_write: %s is NULL", cfg ? "stream" : "cfg");
    size_t len = 0;
    ebb_status s = ebb_config_format(cfg, NULL, 0, &len);
    if (s != EBB_OK)
        return s;
    char *text = malloc(len + 1);
    if (!text)
        return ebb_fail(EBB_ERR_NO_MEMORY, "out of memory formatting a configuration");
    ebb_config_format(cfg, text, len + 1, NULL);
    int bad = fwrite(text, 1, len, stream) != len || fflush(stream) != 0;
    int err = errno;
    free(text);
    if (bad)
        return ebb_fail_errno(EBB_ERR_IO, err, "cannot write the configuration");
    return EBB_OK;
}
