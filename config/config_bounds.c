/* What reaches the TOML parser is bounded first (docs/configuration.md,
 * *Limits*): the text's size, each line's length, the parts of a dotted key
 * and the nesting of arrays and inline tables. toml++ recurses once per
 * dotted key part, so a key of 50,000 parts overflowed the stack. Non-ASCII
 * bytes outside strings and comments are refused too (toml++'s whitespace
 * test has undefined behaviour for many such characters); a quote opens a
 * string only where TOML has one, as toml++ reads it.
 *
 * The scan is a small lexer that knows TOML's strings and comments: a dot
 * inside a string or a comment is not counted. A run of bare or quoted key
 * parts joined by dots (blanks allowed around them) is one key; any other
 * character ends it. Values never hold more than one such dot (a float, a
 * time), so valid TOML is refused only past the limits. */
#include "config/config_internal.h"

#include "common/error_internal.h"

enum { OUTSIDE, BASIC, LITERAL, ML_BASIC, ML_LITERAL, COMMENT };

typedef struct scan {
    const char *name;
    const char *p, *end;
    int64_t line;       /* of *p */
    int64_t line_start; /* offset of the current line's first byte */
    const char *text;
} scan;

static int bare(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* Moves past the line end at *p. */
static void next_line(scan *s)
{
    s->p++;
    s->line++;
    s->line_start = s->p - s->text;
}

static ebb_status line_too_long(const scan *s)
{
    return ebb_fail(EBB_ERR_CONFIG,
                    "%s:%lld: the line is longer than %d KiB; a configuration line is at most "
                    "%d KiB (docs/configuration.md, Limits)",
                    s->name, (long long)s->line, EBB_CONFIG_MAX_LINE_BYTES >> 10,
                    EBB_CONFIG_MAX_LINE_BYTES >> 10);
}

/* A non-ASCII byte at *at that toml++ would hand to its whitespace test
 * (where many such characters reach an unreachable point: undefined
 * behaviour, found by fuzz/fuzz_config): refused, naming its line and
 * column and `where`. */
static ebb_status non_ascii(const scan *s, const char *at, const char *where)
{
    int64_t line = s->line, start = s->line_start;
    for (const char *c = s->p; c < at; c++)
        if (*c == '\n') {
            line++;
            start = c + 1 - s->text;
        }
    return ebb_fail(EBB_ERR_CONFIG,
                    "%s:%lld:%lld: the byte 0x%02X (non-ASCII text) %s; TOML allows it only in "
                    "quoted values and after '#' (docs/configuration.md, Limits)",
                    s->name, (long long)line, (long long)(at - s->text - start + 1),
                    (unsigned char)*at, where);
}

/* Skips a string opened at *p (quote q, multi-line when ml, a key's when
 * key), line ends counted. toml++ tests every character of a quoted key for
 * whitespace, and in a multi-line basic string the character after a
 * backslash and, after a line-ending backslash, the first that is not
 * blank: non-ASCII text there is refused. */
static ebb_status skip_string(scan *s, char q, int ml, int key)
{
    s->p += ml ? 3 : 1;
    while (s->p < s->end) {
        char c = *s->p;
        if (s->p - s->text - s->line_start > EBB_CONFIG_MAX_LINE_BYTES)
            return line_too_long(s);
        if (key && (unsigned char)c >= 0x80)
            return non_ascii(s, s->p, "in a quoted key");
        if (c == '\n') {
            if (!ml)
                return EBB_OK; /* unterminated: the parser says so */
            next_line(s);
            continue;
        }
        if (c == '\\' && q == '"' && ml) {
            const char *n = s->p + 1;
            while (n < s->end && (*n == ' ' || *n == '\t' || *n == '\r' || *n == '\n'))
                n++;
            if (n < s->end && (unsigned char)*n >= 0x80)
                return non_ascii(s, n, "after a backslash in a multi-line string");
        }
        if (c == '\\' && q == '"' && s->p + 1 < s->end && s->p[1] != '\n') {
            s->p += 2;
            continue;
        }
        if (c == q && (!ml || (s->end - s->p >= 3 && s->p[1] == q && s->p[2] == q))) {
            s->p += ml ? 3 : 1;
            for (int extra = 0; ml && extra < 2 && s->p < s->end && *s->p == q; extra++)
                s->p++; /* """a""""": the last three quotes close it */
            return EBB_OK;
        }
        s->p++;
    }
    return EBB_OK;
}

ebb_status ebb_config_check_bounds(const char *text, size_t len, const char *name)
{
    if (len > EBB_CONFIG_MAX_TEXT_BYTES)
        return ebb_fail(EBB_ERR_CONFIG,
                        "%s: the configuration is %zu bytes; it may be at most %d MiB "
                        "(docs/configuration.md, Limits)",
                        name, len, EBB_CONFIG_MAX_TEXT_BYTES >> 20);
    scan s = {name, text, text + len, 1, 0, text};
    int parts = 0;     /* key parts in the current run; 0: no run */
    int dot_last = 0;  /* the run's last token was a dot */
    int64_t run_line = 0;
    int nesting = 0;   /* open arrays and inline tables */
    int at_line_start = 1;
    char prev = '\n'; /* the last character outside strings and comments, blanks aside */
    char open[EBB_CONFIG_MAX_NESTING + 2]; /* the open arrays ('[') and inline tables ('{') */
    int header = 0;    /* inside a table header's brackets */
    int value = 0;     /* a value may start here (after '=', '[' or ',' in an array) */
    int in_token = 0;  /* inside a value that is one token (a number, a date, a word) */
    while (s.p < s.end) {
        char c = *s.p;
        if (s.p - text - s.line_start > EBB_CONFIG_MAX_LINE_BYTES)
            return line_too_long(&s);
        /* A quote opens a string only where TOML has one: a key or a value
         * (after a line start, '=', '[', '{', ',' or '.'). Elsewhere ("0'x")
         * toml++ reads on as a value, so what follows is no string here. */
        int opens = prev == '\n' || prev == '=' || prev == '[' || prev == '{' || prev == ',' ||
                    prev == '.';
        /* A value that is not a string, an array or an inline table (a number,
         * a date, a word) is one token to toml++ up to a blank, ',', ']',
         * '}', '#' or a line end, every character of which it tests for
         * whitespace: there no quote opens a string, no bracket nests. */
        int ends = c == ' ' || c == '\t' || c == ',' || c == ']' || c == '}' || c == '#' ||
                   c == '\n' || c == '\r';
        if (in_token && ends) {
            in_token = 0;
        } else if (!in_token && value && !ends && c != '"' && c != '\'' && c != '[' && c != '{') {
            in_token = 1;
        }
        if (in_token) {
            if ((unsigned char)c >= 0x80)
                return non_ascii(&s, s.p, "in a value");
            parts = 0;
            dot_last = 0;
            at_line_start = 0;
            prev = c;
            value = 0;
            s.p++;
            continue;
        }
        if (c != ' ' && c != '\t') { /* what comes next: a value, or a key */
            char inner = nesting > 0 ? open[nesting - 1] : 0;
            value = c == '=' || (c == '[' && !(at_line_start && nesting == 0)) ||
                    (c == ',' && inner == '[') || (c == '\n' && nesting > 0 && inner == '[');
        }
        if ((c == '"' || c == '\'') && opens) {
            if (parts == 0 || dot_last) {
                parts++;
                if (parts == 1)
                    run_line = s.line;
            }
            dot_last = 0;
            at_line_start = 0;
            int ml = s.end - s.p >= 3 && s.p[1] == c && s.p[2] == c;
            char inner = nesting > 0 ? open[nesting - 1] : 0;
            int key = (prev == '\n' && nesting == 0) || prev == '.' || prev == '{' ||
                      (prev == ',' && inner == '{') || (prev == '[' && header);
            ebb_status st = skip_string(&s, c, ml, key);
            if (st != EBB_OK)
                return st;
            prev = c;
        } else if (bare(c)) {
            prev = c;
            if (parts == 0 || dot_last) {
                parts++;
                if (parts == 1)
                    run_line = s.line;
            }
            dot_last = 0;
            at_line_start = 0;
            s.p++;
        } else if (c == '.' && parts > 0) {
            dot_last = 1;
            prev = c;
            s.p++;
        } else if (c == ' ' || c == '\t') {
            s.p++;
        } else {
            if (c == '#') {
                while (s.p < s.end && *s.p != '\n') {
                    if (s.p - text - s.line_start > EBB_CONFIG_MAX_LINE_BYTES)
                        return line_too_long(&s);
                    s.p++;
                }
            } else if (c == '\n') {
                next_line(&s);
                at_line_start = 1;
                header = 0;
                prev = c;
            } else if ((unsigned char)c >= 0x80) {
                /* TOML has non-ASCII text only in strings and comments; and
                 * toml++ 3.x, asked whether such a character is whitespace,
                 * reaches an unreachable point for many of them (U+00A1 ..
                 * U+0499, U+2C5E .. U+3057, U+FB26 .. U+FEFE): undefined
                 * behaviour, found by fuzz/fuzz_config. */
                return non_ascii(&s, s.p, "outside a string or a comment");
            } else {
                /* A table header's '[' (at a line's start, outside any value) is not nesting. */
                if ((c == '[' && !(at_line_start && nesting == 0)) || c == '{') {
                    if (nesting < EBB_CONFIG_MAX_NESTING + 2)
                        open[nesting] = c;
                    nesting++;
                } else if ((c == ']' || c == '}') && nesting > 0) {
                    nesting--;
                } else if (c == ']') {
                    header = 0;
                }
                if (c == '[' && at_line_start && nesting == 0)
                    header = 1;
                if (c != '[' || !at_line_start || nesting > 0)
                    at_line_start = 0;
                prev = c;
                s.p++;
            }
            parts = 0;
            dot_last = 0;
        }
        if (parts > EBB_CONFIG_MAX_KEY_PARTS)
            return ebb_fail(EBB_ERR_CONFIG,
                            "%s:%lld: a dotted key of more than %d parts; a key may have at most "
                            "%d (docs/configuration.md, Limits)",
                            name, (long long)run_line, EBB_CONFIG_MAX_KEY_PARTS,
                            EBB_CONFIG_MAX_KEY_PARTS);
        if (nesting > EBB_CONFIG_MAX_NESTING)
            return ebb_fail(EBB_ERR_CONFIG,
                            "%s:%lld: arrays and inline tables nested more than %d deep; they may "
                            "nest at most %d deep (docs/configuration.md, Limits)",
                            name, (long long)s.line, EBB_CONFIG_MAX_NESTING,
                            EBB_CONFIG_MAX_NESTING);
    }
    return EBB_OK;
}
