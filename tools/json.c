/* A minimal streaming JSON writer; see json.h. */
#include "tools/json.h"

#include <math.h>

static void key_prefix(json_writer *w, const char *key)
{
    if (w->count[w->depth]++ > 0)
        fputs(", ", w->out);
    if (key) {
        fputc('"', w->out);
        for (const char *c = key; *c; c++) {
            if (*c == '"' || *c == '\\')
                fputc('\\', w->out);
            fputc(*c, w->out);
        }
        fputs("\": ", w->out);
    }
}

void json_begin(json_writer *w, FILE *out)
{
    w->out = out;
    w->depth = 0;
    w->count[0] = 0;
    fputc('{', out);
}

void json_end(json_writer *w) { fputs("}\n", w->out); }

void json_object(json_writer *w, const char *key)
{
    key_prefix(w, key);
    fputc('{', w->out);
    if (w->depth + 1 < JSON_MAX_DEPTH)
        w->count[++w->depth] = 0;
}

void json_close(json_writer *w)
{
    fputc('}', w->out);
    if (w->depth > 0)
        w->depth--;
}

void json_int(json_writer *w, const char *key, int64_t v)
{
    key_prefix(w, key);
    fprintf(w->out, "%lld", (long long)v);
}

void json_double(json_writer *w, const char *key, double v)
{
    key_prefix(w, key);
    if (isfinite(v))
        fprintf(w->out, "%.9g", v);
    else
        fputs("null", w->out);
}

void json_bool(json_writer *w, const char *key, int v)
{
    key_prefix(w, key);
    fputs(v ? "true" : "false", w->out);
}

void json_string(json_writer *w, const char *key, const char *v)
{
    key_prefix(w, key);
    fputc('"', w->out);
    for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(w->out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(w->out, "\\u%04x", *c);
        else
            fputc(*c, w->out);
    }
    fputc('"', w->out);
}
