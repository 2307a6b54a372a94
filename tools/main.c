/* The `ebb` command-line program: dispatches to one file per subcommand. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ebb/ebb.h"
#include "tools/cli.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"plan", ebb_cmd_plan, "validate a checkpointing schedule and print what it costs"},
    {"demo", ebb_cmd_demo, "plan every strategy for a default problem and compare them"},
    {"bench", ebb_cmd_bench, "measure tier bandwidths and the compute/transfer ratio"},
    {"run", ebb_cmd_run, "run a synthetic workload under a strategy and measure its cost"},
    {"validate", ebb_cmd_validate, "check an action stream (as 'ebb plan --actions' prints)"},
    {"config", ebb_cmd_config, "print the effective configuration (ebb config show)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: ebb <command> [options]   (ebb %s)\n\ncommands:\n", ebb_version());
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'ebb help <command>' (or 'ebb <command> --help') describes a command's "
               "options.\n");
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_stdout_reported;

/* What the command printed must have reached standard output (a full disk,
 * /dev/full, a closed pipe end): rc, or 1 after saying why not. */
static int finish_stdout(const char *name, int rc)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int err = errno ? errno : EIO;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        err = errno ? errno : EIO;
    }
    if (!failed)
        return rc;
    if (!cli_stdout_reported)
        fprintf(stderr, "ebb%s%s: cannot write standard output: %s\n", name ? " " : "",
                name ? name : "", strerror(err));
    return rc ? rc : 1;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        (strcmp(argv[1], "help") == 0 && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0) { /* ebb help CMD: CMD --help */
        if (argc > 3) {
            fprintf(stderr, "ebb help: give one command (try 'ebb --help')\n");
            return 2;
        }
        for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
            if (strcmp(argv[2], commands[i].name) == 0) {
                char *help_argv[] = {argv[2], "--help", NULL};
                return commands[i].run(2, help_argv);
            }
        fprintf(stderr, "ebb help: unknown command '%s' (try 'ebb --help')\n", argv[2]);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ebb %s\n", ebb_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ebb: unknown command '%s' (try 'ebb --help')\n", argv[1]);
    return 2;
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    const char *name = NULL;
    for (size_t i = 0; argc >= 2 && i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            name = commands[i].name;
    return finish_stdout(name, rc);
}
