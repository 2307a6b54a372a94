/* Names and one-line text for actions (the tiers' and strategies' names:
 * common/vocabulary.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "ebb/schedule.h"

static const char *const kind_names[] = {"advance", "store", "restore", "prefetch", "evict",
                                         "free",    "turn",  "reverse", "end",   "tape"};

const char *ebb_action_kind_name(int32_t kind)
{
    return kind >= 0 && (size_t)kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind]
                                                                               : "?";
}

int ebb_action_format(const ebb_action *a, char *buf, size_t len)
{
    const char *name = ebb_action_kind_name(a->kind);
    long long step = (long long)a->step;
    switch (a->kind) {
    case EBB_ACT_ADVANCE:
        return snprintf(buf, len, "%s %lld -> %lld", name, step, (long long)a->to);
    case EBB_ACT_STORE:
    case EBB_ACT_RESTORE:
    case EBB_ACT_FREE:
        return snprintf(buf, len, "%s %lld %s[%d]", name, step, ebb_tier_name(a->tier), a->slot);
    case EBB_ACT_PREFETCH:
    case EBB_ACT_EVICT:
        return snprintf(buf, len, "%s %lld %s[%d] -> %s[%d]", name, step, ebb_tier_name(a->tier),
                        a->slot, ebb_tier_name(a->tier_to), a->slot_to);
    case EBB_ACT_TURN:
    case EBB_ACT_REVERSE:
    case EBB_ACT_TAPE:
        return snprintf(buf, len, "%s %lld", name, step);
    default:
        return snprintf(buf, len, "%s", name);
    }
}

/* ---- parsing the text form ------------------------------------------------ */

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The end of a line: nothing but blanks and one optional (CR)LF. */
static int at_line_end(const char *p)
{
    p = skip_blanks(p);
    if (*p == '\r')
        p++;
    if (*p == '\n')
        p++;
    return *p == '\0';
}

/* Describes what stands at p, for "expected X, got Y": the next token (at most
 * 24 characters, quoted), or "the end of the line". */
static const char *got_text(const char *p, char *buf, size_t len)
{
    p = skip_blanks(p);
    if (at_line_end(p)) {
        snprintf(buf, len, "the end of the line");
        return buf;
    }
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\r' && p[n] != '\n' && n < 24)
        n++;
    snprintf(buf, len, "'%.*s%s'", (int)n, p, p[n] && !isspace((unsigned char)p[n]) ? "..." : "");
    return buf;
}

/* A decimal integer in [min, max], optionally negative, at *p; advances *p. */
static ebb_status parse_number(const char **p, const char *what, long long min, long long max,
                               long long *out)
{
    char buf[48];
    const char *s = skip_blanks(*p);
    if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
        return ebb_fail(EBB_ERR_INVALID_ARG, "expected %s (a decimal number), got %s", what,
                        got_text(s, buf, sizeof buf));
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || v < min || v > max) {
        int digits = (int)(end - s);
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s %.*s%s does not fit in %s", what,
                        digits > 24 ? 24 : digits, s, digits > 24 ? "..." : "",
                        max == INT32_MAX ? "32 bits" : "64 bits");
    }
    /* A number ends at a blank, the line's end, ']' or "->". */
    if (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n' && *end != ']' &&
        !(end[0] == '-' && end[1] == '>'))
        return ebb_fail(EBB_ERR_INVALID_ARG, "expected %s (a decimal number), got %s", what,
                        got_text(s, buf, sizeof buf));
    *p = end;
    *out = v;
    return EBB_OK;
}

static ebb_status parse_step(const char **p, const char *what, int64_t *out)
{
    long long v = 0;
    ebb_status st = parse_number(p, what, INT64_MIN, INT64_MAX, &v);
    *out = (int64_t)v;
    return st;
}

/* "->" at *p; advances *p. */
static ebb_status parse_arrow(const char **p, const char *after)
{
    char buf[48];
    const char *s = skip_blanks(*p);
    if (s[0] != '-' || s[1] != '>')
        return ebb_fail(EBB_ERR_INVALID_ARG, "expected '->' after %s, got %s", after,
                        got_text(s, buf, sizeof buf));
    *p = s + 2;
    return EBB_OK;
}

/* "host[3]" at *p; advances *p. */
static ebb_status parse_slot(const char **p, const char *what, int16_t *tier, int32_t *slot)
{
    char buf[48];
    const char *s = skip_blanks(*p);
    size_t n = 0;
    while (isalpha((unsigned char)s[n]))
        n++;
    int t = 0;
    while (t < EBB_TIER_COUNT && !(strlen(ebb_tier_name((ebb_tier)t)) == n &&
                                   strncmp(s, ebb_tier_name((ebb_tier)t), n) == 0))
        t++;
    if (t == EBB_TIER_COUNT)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "expected %s as tier[slot] with tier gpu, host or disk (e.g. host[0]), "
                        "got %s",
                        what, got_text(s, buf, sizeof buf));
    s = skip_blanks(s + n);
    if (*s != '[')
        return ebb_fail(EBB_ERR_INVALID_ARG, "expected '[' after the tier '%s' of %s, got %s",
                        ebb_tier_name((ebb_tier)t), what, got_text(s, buf, sizeof buf));
    s++;
    long long v = 0;
    ebb_status st = parse_number(&s, "the slot index", INT32_MIN, INT32_MAX, &v);
    if (st != EBB_OK)
        return st;
    s = skip_blanks(s);
    if (*s != ']')
        return ebb_fail(EBB_ERR_INVALID_ARG, "expected ']' after the slot index of %s, got %s",
                        what, got_text(s, buf, sizeof buf));
    *p = s + 1;
    *tier = (int16_t)t;
    *slot = (int32_t)v;
    return EBB_OK;
}

ebb_status ebb_action_parse(const char *line, ebb_action *out)
{
    if (!line || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_action_parse: NULL argument");
    memset(out, 0, sizeof *out);
    char buf[48];
    const char *p = skip_blanks(line);
    if (at_line_end(p))
        return ebb_fail(EBB_ERR_INVALID_ARG, "the line is empty: expected an action");
    size_t n = 0;
    while (isalpha((unsigned char)p[n]))
        n++;
    int kind = 0;
    const int kinds = (int)(sizeof kind_names / sizeof *kind_names);
    while (kind < kinds && !(strlen(kind_names[kind]) == n && strncmp(p, kind_names[kind], n) == 0))
        kind++;
    if (n == 0 || kind == kinds || (p[n] && !isspace((unsigned char)p[n])))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "unknown action %s: expected advance, store, restore, prefetch, evict, "
                        "free, turn, reverse, end or tape",
                        got_text(p, buf, sizeof buf));
    p += n;
    out->kind = kind;
    ebb_status st = EBB_OK;
    switch (kind) {
    case EBB_ACT_ADVANCE:
        if ((st = parse_step(&p, "the first step of advance", &out->step)) != EBB_OK ||
            (st = parse_arrow(&p, "the first step of advance")) != EBB_OK ||
            (st = parse_step(&p, "the step advance runs to", &out->to)) != EBB_OK)
            return st;
        break;
    case EBB_ACT_STORE:
    case EBB_ACT_RESTORE:
    case EBB_ACT_FREE:
        if ((st = parse_step(&p, "the step", &out->step)) != EBB_OK ||
            (st = parse_slot(&p, "the slot", &out->tier, &out->slot)) != EBB_OK)
            return st;
        break;
    case EBB_ACT_PREFETCH:
    case EBB_ACT_EVICT:
        if ((st = parse_step(&p, "the step", &out->step)) != EBB_OK ||
            (st = parse_slot(&p, "the source slot", &out->tier, &out->slot)) != EBB_OK ||
            (st = parse_arrow(&p, "the source slot")) != EBB_OK ||
            (st = parse_slot(&p, "the destination slot", &out->tier_to, &out->slot_to)) != EBB_OK)
            return st;
        break;
    case EBB_ACT_TURN:
    case EBB_ACT_REVERSE:
    case EBB_ACT_TAPE:
        if ((st = parse_step(&p, "the step", &out->step)) != EBB_OK)
            return st;
        break;
    default: /* END */
        break;
    }
    if (!at_line_end(p))
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "unexpected %s after the %s action (one action a line)",
                        got_text(p, buf, sizeof buf), kind_names[kind]);
    return EBB_OK;
}

