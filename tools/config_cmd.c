/* `ebb config show`: the effective configuration (the embedded default, and
 * the file of --config over it) as a complete TOML file, every key with its
 * value (ebb_config_write), so a user sees what a run would use and can
 * start a file from it. */
#include <stdio.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/cli.h"
#include "tools/options.h"

static const char config_help[] =
    "usage: ebb config show [--config FILE]\n"
    "\n"
    "Prints the effective configuration as TOML: the embedded default, with FILE\n"
    "applied over it when given. Every key is written, sizes in their shortest\n"
    "exact unit and \"auto\" where a value is computed on the machine that runs;\n"
    "the output loads back as a configuration file (docs/configuration.md).\n"
    "\n"
    "  --config F         configuration file (default: the embedded default)\n"
    "\n"
    "Exit status: 0, 1 when FILE cannot be loaded (the message names the line\n"
    "and the key), 2 bad options.\n";

typedef struct {
    const char *config;
} config_args;

#define OPT(n, k, f) CLI_OPT(config_args, n, k, f)
static const cli_option config_options[] = {
    {OPT("config", CLI_STRING, config)},
};
#undef OPT
static const cli_command config_command = {"config", config_help, config_options,
                                           sizeof config_options / sizeof *config_options, 1,
                                           ": the one action is 'show'"};

int ebb_cmd_config(int argc, char **argv)
{
    config_args a = {NULL};
    cli_parsed parsed;
    int rc = cli_parse(&config_command, argc, argv, &a, &parsed);
    if (rc != CLI_OK)
        return rc == CLI_HELP ? 0 : rc;
    if (parsed.first_operand >= argc || strcmp(argv[parsed.first_operand], "show") != 0) {
        fprintf(stderr, "ebb config: say what to do: 'ebb config show [--config FILE]' (see "
                        "'ebb config --help')\n");
        return 2;
    }
    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK ||
        (a.config && ebb_config_load_file(a.config, &cfg) != EBB_OK)) {
        fprintf(stderr, "ebb config: %s\n", ebb_last_error());
        ebb_config_dispose(&cfg);
        return 1;
    }
    rc = ebb_config_write(&cfg, stdout) == EBB_OK ? 0 : 1;
    if (rc) { /* standard output failed: said here, main() only keeps the status */
        fprintf(stderr, "ebb config: %s\n", ebb_last_error());
        cli_stdout_reported = 1;
    }
    ebb_config_dispose(&cfg);
    return rc;
}
