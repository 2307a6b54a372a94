/* Helpers for the tests of the `ebb` program's option parser
 * (tools/options.c, compiled into the test): a small table of every kind,
 * and cli_parse run on a command line with stderr and stdout captured. */
#ifndef EBB_TESTS_SUPPORT_OPTIONS_HARNESS_H
#define EBB_TESTS_SUPPORT_OPTIONS_HARNESS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/options.c"

typedef struct toy_args {
    int64_t count;
    int32_t width;
    double scale;
    uint64_t bytes, pace;
    const char *name;
    int color, verbose, level;
    cli_strategy pick;
    int odd;
} toy_args;

/* CLI_CUSTOM's rule: an odd integer. */
static int toy_odd(const cli_ctx *ctx, void *field)
{
    long v = strtol(ctx->text, NULL, 10);
    if (v % 2 == 0) {
        cli_error(ctx, "--%s must be odd, got '%s'", ctx->option->name, ctx->text);
        return -1;
    }
    *(int *)field = (int)v;
    return 0;
}

static const cli_name toy_colors[] = {{"red", 1}, {"green", 2}, {"blue", 3}, {NULL, 0}};

#define TOY(n, k, f) CLI_OPT(toy_args, n, k, f)
static const cli_option toy_options[] = {
    {TOY("count", CLI_INT64, count), .min = 1, .max = 100},
    {TOY("width", CLI_INT32, width), .min = -5, .max = 5},
    {TOY("scale", CLI_DOUBLE, scale), .least = 0.5},
    {TOY("bytes", CLI_SIZE, bytes), .min = 4096},
    {TOY("pace", CLI_RATE, pace)},
    {TOY("name", CLI_STRING, name)},
    {TOY("color", CLI_ENUM, color), .names = toy_colors},
    {TOY("verbose", CLI_FLAG, verbose)},
    {TOY("loud", CLI_FLAG, level), .value = 7},
    {TOY("strategy", CLI_STRATEGY, pick), .hint = " (or \"all\")"},
    {TOY("odd", CLI_CUSTOM, odd), .check = toy_odd},
};
#undef TOY

static const cli_command toy_command = {"toy", "usage: ebb toy [options]\n", toy_options,
                                        sizeof toy_options / sizeof *toy_options, 1,
                                        ": give at most one FILE"};

typedef struct toy_result {
    int rc;
    toy_args args;
    cli_parsed parsed;
    char err[1024], out[1024];
} toy_result;

/* The whole of a captured stream. */
static inline void toy_read(FILE *f, char *buf, size_t len)
{
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* cli_parse(toy_command) on "toy" and the NULL-terminated words after it. */
static inline toy_result toy_parse_v(const char *const *words)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"toy";
    for (; *words && argc < 31; words++)
        argv[argc++] = (char *)*words;
    argv[argc] = NULL;
    toy_result r;
    memset(&r, 0, sizeof r);
    FILE *err = tmpfile(), *out = tmpfile();
    cr_assert(err && out);
    fflush(stderr);
    fflush(stdout);
    int saved_err = dup(2), saved_out = dup(1);
    dup2(fileno(err), 2);
    dup2(fileno(out), 1);
    r.rc = cli_parse(&toy_command, argc, argv, &r.args, &r.parsed);
    fflush(stderr);
    fflush(stdout);
    dup2(saved_err, 2);
    dup2(saved_out, 1);
    close(saved_err);
    close(saved_out);
    toy_read(err, r.err, sizeof r.err);
    toy_read(out, r.out, sizeof r.out);
    return r;
}

#define toy_parse(...) toy_parse_v((const char *const[]){__VA_ARGS__, NULL})

/* A refused command line: CLI_USAGE, nothing on stdout, exactly `want` on stderr. */
#define toy_refused(want, ...)                                                                  \
    do {                                                                                        \
        toy_result r_ = toy_parse(__VA_ARGS__);                                                 \
        cr_assert_eq(r_.rc, CLI_USAGE, "rc %d, stderr: %s", r_.rc, r_.err);                     \
        cr_assert_str_eq(r_.err, want);                                                         \
        cr_assert_str_eq(r_.out, "");                                                           \
    } while (0)

#endif
