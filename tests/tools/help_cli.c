/* Asking for help the ways a new user does: `ebb help CMD` prints that
 * command's help (as `ebb CMD --help`), `-h` is --help everywhere, and
 * `ebb demo` refuses operands as every other subcommand does. */
#include "support/cli_run.h"

static const char *const commands[] = {"plan", "demo", "bench", "run", "validate", "config"};

Test(help_cli, help_names_a_command)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        cli_result h = cli_run("help", commands[i], NULL);
        cli_result d = cli_run(commands[i], "--help", NULL);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: ebb %s", commands[i]);
        cr_assert_eq(h.status, 0, "help %s: %s", commands[i], h.err);
        cr_assert(strstr(h.out, usage) == h.out, "help %s printed: %s", commands[i], h.out);
        cr_assert_str_eq(h.out, d.out, "help %s differs from %s --help", commands[i], commands[i]);
        cli_free(&h);
        cli_free(&d);
    }
    cli_result r = cli_run("help", "frobnicate", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "unknown command 'frobnicate'"), "%s", r.err);
    cli_free(&r);
    r = cli_run("help", "plan", "run", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "ebb help: give one command"), "%s", r.err);
    cli_free(&r);
    r = cli_run("help", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "usage: ebb <command>"), "%s", r.out);
    cli_free(&r);
}

Test(help_cli, dash_h_is_help)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        cli_result h = cli_run(commands[i], "-h", NULL);
        cli_result d = cli_run(commands[i], "--help", NULL);
        cr_assert_eq(h.status, 0, "%s -h: %s", commands[i], h.err);
        cr_assert_str_eq(h.out, d.out, "%s -h differs from --help", commands[i]);
        cli_free(&h);
        cli_free(&d);
    }
    cli_result r = cli_run("-h", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "usage: ebb <command>"), "%s", r.out);
    cli_free(&r);
}

Test(help_cli, demo_refuses_operands)
{
    cli_result r = cli_run("demo", "extra", "args", NULL);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cr_assert(strstr(r.err, "ebb demo: unexpected argument 'extra'"), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    cli_free(&r);
}
