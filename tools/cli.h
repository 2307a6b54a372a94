/* The `ebb` program's subcommands and the argument helpers they share. */
#ifndef EBB_TOOLS_CLI_H
#define EBB_TOOLS_CLI_H

#include <stdint.h>

/* Each returns the process exit status: 0 ok, 1 failure, 2 bad usage. */
int ebb_cmd_plan(int argc, char **argv);
int ebb_cmd_demo(int argc, char **argv);
int ebb_cmd_bench(int argc, char **argv);
int ebb_cmd_run(int argc, char **argv);
int ebb_cmd_validate(int argc, char **argv);

/* Parses a whole decimal integer in [min, max]; on failure prints
 * "ebb CMD: OPTION must be ..., got 'TEXT'" and returns -1. */
int cli_parse_int(const char *cmd, const char *option, const char *text, int64_t min, int64_t max,
                  int64_t *out);
/* Parses a finite number >= min; same error style. */
int cli_parse_double(const char *cmd, const char *option, const char *text, double min,
                     double *out);

/* Seconds from a monotonic clock. */
double cli_now(void);

#endif
