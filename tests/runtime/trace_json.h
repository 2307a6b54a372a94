/* The timeline tests' reading of a trace file: its whole text, and a check
 * that it is one JSON value (brackets and braces balance outside strings,
 * nothing follows the end). */
#ifndef EBB_TESTS_RUNTIME_TRACE_JSON_H
#define EBB_TESTS_RUNTIME_TRACE_JSON_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static inline char *trace_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s not written", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *s = malloc((size_t)len + 1);
    cr_assert_eq(fread(s, 1, (size_t)len, f), (size_t)len);
    s[len] = '\0';
    fclose(f);
    return s;
}

static inline void trace_assert_json_shape(const char *s)
{
    int depth = 0, in_str = 0;
    const char *p = s;
    for (; *p; p++) {
        if (in_str) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                in_str = 0;
            continue;
        }
        if (*p == '"')
            in_str = 1;
        else if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']') {
            cr_assert_gt(depth, 0, "unbalanced at %.40s", p);
            if (--depth == 0)
                break;
        }
    }
    cr_assert_eq(depth, 0, "the JSON does not end");
    for (p++; *p; p++)
        cr_assert(*p == '\n' || *p == ' ', "text after the JSON: %s", p);
}

#endif
