/*
 * The subcommands' option parser: each subcommand describes its options in
 * one table (cli_option rows) and cli_parse reads argv into the fields of
 * its argument struct, printing the one message a bad value deserves:
 *
 *   ebb CMD: --opt must be an integer in [MIN, MAX], got 'TEXT'
 *   ebb CMD: --opt must be a number >= MIN, got 'TEXT'
 *   ebb CMD: --opt must be a number in [MIN, MAX], got 'TEXT'
 *   ebb CMD: --opt: <why the size or rate cannot be read>
 *   ebb CMD: --opt must be at least N bytes, got 'TEXT'
 *   ebb CMD: --opt must be at most SIZE (N bytes), got 'TEXT'
 *   ebb CMD: --opt must be a, b or c, got 'TEXT'
 *   ebb CMD: unknown or incomplete option '--opt' (see 'ebb CMD --help')
 *   ebb CMD: unexpected argument 'TEXT' (see 'ebb CMD --help')
 *
 * Long options only, as getopt_long reads them: "--opt VALUE",
 * "--opt=VALUE", an unambiguous prefix of the name, operands anywhere; and
 * -h, the same as --help.
 */
#ifndef EBB_TOOLS_OPTIONS_H
#define EBB_TOOLS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef enum cli_kind {
    CLI_FLAG,     /* no value: stores `value` into an int */
    CLI_INT64,    /* an integer in [min, max] into an int64_t */
    CLI_INT32,    /* an integer in [min, max] into an int32_t */
    CLI_DOUBLE,   /* a finite number >= least (and <= most, if most > 0) into a double */
    CLI_SIZE,     /* a size (ebb_parse_size, "16MiB") >= min bytes (and <= max, if
                     max > 0) into a uint64_t */
    CLI_RATE,     /* a rate (ebb_parse_rate, "1 GB/s", "none" = 0) into a uint64_t */
    CLI_STRING,   /* the text itself into a const char * */
    CLI_ENUM,     /* one of `names` into an int: its value */
    CLI_STRATEGY, /* a configured strategy (ebb_config_strategy_from_name) or "all",
                     into a cli_strategy; `hint` ends the message for an unknown name */
    CLI_CUSTOM    /* only `check` reads the text */
} cli_kind;

/* CLI_ENUM's names, ended by {NULL, 0}. */
typedef struct cli_name {
    const char *name;
    int value;
} cli_name;

/* CLI_STRATEGY's field. */
typedef struct cli_strategy {
    int all;      /* "all" was given */
    int strategy; /* an ebb_config_strategy otherwise */
} cli_strategy;

typedef struct cli_option cli_option;

/* What a rule needs to say why a value is refused. */
typedef struct cli_ctx {
    const char *command; /* "plan": messages start "ebb plan: " */
    const cli_option *option;
    const char *text;    /* the value as given */
} cli_ctx;

/* A rule an option adds to its kind's, run once the value is stored in
 * `field` (CLI_CUSTOM: reads ctx->text itself): 0, or -1 after cli_error. */
typedef int (*cli_check)(const cli_ctx *ctx, void *field);

struct cli_option {
    const char *name;       /* without the leading "--" */
    cli_kind kind;
    size_t offset;          /* of the field in the subcommand's argument struct */
    int64_t min, max;       /* CLI_INT*: the range; CLI_SIZE: the least and (if > 0)
                               the most bytes */
    double least, most;     /* CLI_DOUBLE: the least value, the most (if > 0) */
    int value;              /* CLI_FLAG: what it stores (0 means 1) */
    const cli_name *names;  /* CLI_ENUM */
    const char *hint;       /* CLI_STRATEGY */
    cli_check check;        /* NULL, or the option's own rule */
};

/* A row's first three fields, designated (the others default to 0):
 * {CLI_OPT(args_type, "steps", CLI_INT64, steps), .min = 1, .max = 100}. */
#define CLI_OPT(t, n, k, f) .name = (n), .kind = (k), .offset = offsetof(t, f)

/* A step time (--forward-ms, --reverse-ms): an hour at most, so that the
 * times printed stay short and `ebb run`'s passes fit an int64. */
#define CLI_STEP_MS_MAX 3.6e6

/* A subcommand: its name, its --help text, its table. */
typedef struct cli_command {
    const char *name;
    const char *help;
    const cli_option *options;
    size_t count;
    int operands;             /* operands it takes (-1: any, ignored) */
    const char *operand_hint; /* after "unexpected argument 'X'", e.g. ": give one FILE" */
} cli_command;

enum { CLI_MAX_OPTIONS = 32 };

/* What cli_parse found besides the values. */
typedef struct cli_parsed {
    unsigned char given[CLI_MAX_OPTIONS]; /* row i appeared */
    int first_operand;                    /* argv index of the first operand */
} cli_parsed;

/* The outcome of cli_parse. */
enum { CLI_OK = 0, CLI_HELP = 1, CLI_USAGE = 2 };

/* Reads argv[1..argc-1] into `args` (the struct the table's offsets are
 * in). CLI_HELP after printing cmd->help on stdout for --help or -h; CLI_USAGE
 * after printing why not on stderr; CLI_OK otherwise. */
int cli_parse(const cli_command *cmd, int argc, char **argv, void *args, cli_parsed *parsed);

/* Whether the option `name` was given; 0 for a name not in the table. */
int cli_given(const cli_command *cmd, const cli_parsed *parsed, const char *name);

/* Prints "ebb CMD: " and the formatted message on stderr, and a line end. */
void cli_error(const cli_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
