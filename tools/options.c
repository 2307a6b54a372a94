/* The subcommands' option parser (options.h): getopt_long over a table, and
 * one reader per kind of value, each with its one message. */
#include "tools/options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"

/* Writes text to stderr with control bytes as \xNN: a value given on the
 * command line reaches the terminal as text, never as an escape sequence. */
static void put_escaped(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c < 0x20 || *c == 0x7f)
            fprintf(stderr, "\\x%02X", *c);
        else
            fputc(*c, stderr);
    }
}

void cli_error(const cli_ctx *ctx, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ebb %s: ", ctx->command);
    put_escaped(msg);
    fputc('\n', stderr);
}

/* ---- one reader per kind: 0, or -1 after cli_error ---------------------------- */

static int read_int(const cli_ctx *c, int64_t *out)
{
    const cli_option *o = c->option;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(c->text, &end, 10);
    if (errno || end == c->text || *end != '\0' || v < o->min || v > o->max) {
        cli_error(c, "--%s must be an integer in [%lld, %lld], got '%s'", o->name,
                  (long long)o->min, (long long)o->max, c->text);
        return -1;
    }
    *out = v;
    return 0;
}

static int read_int64(const cli_ctx *c, void *field) { return read_int(c, field); }

static int read_int32(const cli_ctx *c, void *field)
{
    int64_t v = 0;
    if (read_int(c, &v))
        return -1;
    *(int32_t *)field = (int32_t)v;
    return 0;
}

static int read_double(const cli_ctx *c, void *field)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(c->text, &end);
    const cli_option *o = c->option;
    if (errno || end == c->text || *end != '\0' || !isfinite(v) || v < o->least ||
        (o->most > 0 && v > o->most)) {
        if (o->most > 0)
            cli_error(c, "--%s must be a number in [%.15g, %.15g], got '%s'", o->name, o->least,
                      o->most, c->text);
        else
            cli_error(c, "--%s must be a number >= %g, got '%s'", o->name, o->least, c->text);
        return -1;
    }
    *(double *)field = v;
    return 0;
}

static int read_size(const cli_ctx *c, void *field)
{
    uint64_t v = 0, min = (uint64_t)c->option->min;
    if (ebb_parse_size(c->text, &v) != EBB_OK) {
        cli_error(c, "--%s: %s", c->option->name, ebb_last_error());
        return -1;
    }
    if (v < min) {
        cli_error(c, "--%s must be at least %llu byte%s, got '%s'", c->option->name,
                  (unsigned long long)min, min == 1 ? "" : "s", c->text);
        return -1;
    }
    if (c->option->max > 0 && v > (uint64_t)c->option->max) {
        char most[64];
        ebb_format_size((uint64_t)c->option->max, most, sizeof most);
        if (strchr(most, ' '))
            cli_error(c, "--%s must be at most %s (%lld bytes), got '%s'", c->option->name, most,
                      (long long)c->option->max, c->text);
        else
            cli_error(c, "--%s must be at most %s bytes, got '%s'", c->option->name, most,
                      c->text);
        return -1;
    }
    *(uint64_t *)field = v;
    return 0;
}

static int read_rate(const cli_ctx *c, void *field)
{
    if (ebb_parse_rate(c->text, field) != EBB_OK) {
        cli_error(c, "--%s: %s", c->option->name, ebb_last_error());
        return -1;
    }
    return 0;
}

static int read_string(const cli_ctx *c, void *field)
{
    *(const char **)field = c->text;
    return 0;
}

static int read_enum(const cli_ctx *c, void *field)
{
    const cli_name *n = c->option->names;
    for (const cli_name *k = n; k->name; k++)
        if (strcmp(c->text, k->name) == 0) {
            *(int *)field = k->value;
            return 0;
        }
    char list[256] = "";
    size_t len = 0, count = 0;
    while (n[count].name)
        count++;
    for (size_t k = 0; k < count && len < sizeof list; k++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                k == 0 ? "" : k + 1 == count ? " or " : ", ", n[k].name);
    cli_error(c, "--%s must be %s, got '%s'", c->option->name, list, c->text);
    return -1;
}

static int read_strategy(const cli_ctx *c, void *field)
{
    cli_strategy *s = field;
    ebb_config_strategy cs;
    if (strcmp(c->text, "all") == 0) {
        s->all = 1;
        return 0;
    }
    if (ebb_config_strategy_from_name(c->text, &cs) != EBB_OK) {
        cli_error(c, "--%s: %s%s", c->option->name, ebb_last_error(),
                  c->option->hint ? c->option->hint : "");
        return -1;
    }
    s->all = 0;
    s->strategy = (int)cs;
    return 0;
}

static int read_nothing(const cli_ctx *c, void *field)
{
    (void)c;
    (void)field;
    return 0;
}

static int store_flag(const cli_ctx *c, void *field)
{
    *(int *)field = c->option->value ? c->option->value : 1;
    return 0;
}

/* Indexed by cli_kind. */
static int (*const readers[])(const cli_ctx *, void *) = {
    [CLI_FLAG] = store_flag,       [CLI_INT64] = read_int64,   [CLI_INT32] = read_int32,
    [CLI_DOUBLE] = read_double,    [CLI_SIZE] = read_size,     [CLI_RATE] = read_rate,
    [CLI_STRING] = read_string,    [CLI_ENUM] = read_enum,     [CLI_STRATEGY] = read_strategy,
    [CLI_CUSTOM] = read_nothing};

/* ---- the parser ------------------------------------------------------------------ */

enum { HELP_VAL = 1, FIRST_VAL = 256 };

static int usage_error(const cli_command *cmd, const char *what, const char *text,
                       const char *hint)
{
    fprintf(stderr, "ebb %s: %s '", cmd->name, what);
    put_escaped(text);
    fprintf(stderr, "'%s (see 'ebb %s --help')\n", hint, cmd->name);
    return CLI_USAGE;
}

/* Stores one option's value; CLI_OK or CLI_USAGE. */
static int take(const cli_command *cmd, size_t row, const char *text, void *args)
{
    const cli_option *o = &cmd->options[row];
    cli_ctx ctx = {cmd->name, o, text ? text : ""};
    void *field = (char *)args + o->offset;
    if (readers[o->kind](&ctx, field) || (o->check && o->check(&ctx, field)))
        return CLI_USAGE;
    return CLI_OK;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, void *args, cli_parsed *parsed)
{
    struct option longopts[CLI_MAX_OPTIONS + 2];
    memset(parsed, 0, sizeof *parsed);
    if (cmd->count > CLI_MAX_OPTIONS) {
        fprintf(stderr, "ebb %s: more than %d options in its table\n", cmd->name, CLI_MAX_OPTIONS);
        return CLI_USAGE;
    }
    for (size_t i = 0; i < cmd->count; i++)
        longopts[i] = (struct option){cmd->options[i].name,
                                      cmd->options[i].kind == CLI_FLAG ? no_argument
                                                                       : required_argument,
                                      NULL, FIRST_VAL + (int)i};
    longopts[cmd->count] = (struct option){"help", no_argument, NULL, HELP_VAL};
    longopts[cmd->count + 1] = (struct option){NULL, 0, NULL, 0};
    int c;
    opterr = 0;
    optind = 1;
    /* -h, the one short option: --help */
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == HELP_VAL || c == 'h') {
            fputs(cmd->help, stdout);
            return CLI_HELP;
        }
        if (c < FIRST_VAL)
            return usage_error(cmd, "unknown or incomplete option", argv[optind - 1], "");
        size_t row = (size_t)(c - FIRST_VAL);
        if (take(cmd, row, optarg, args) != CLI_OK)
            return CLI_USAGE;
        parsed->given[row] = 1;
    }
    parsed->first_operand = optind;
    if (cmd->operands >= 0 && argc - optind > cmd->operands)
        return usage_error(cmd, "unexpected argument", argv[optind + cmd->operands],
                           cmd->operand_hint ? cmd->operand_hint : "");
    return CLI_OK;
}

int cli_given(const cli_command *cmd, const cli_parsed *parsed, const char *name)
{
    for (size_t i = 0; i < cmd->count; i++)
        if (strcmp(cmd->options[i].name, name) == 0)
            return parsed->given[i];
    return 0;
}
