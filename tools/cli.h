/* The `ebb` program's subcommands (their options: tools/options.h). */
#ifndef EBB_TOOLS_CLI_H
#define EBB_TOOLS_CLI_H

#include <stdint.h>

/* Each returns the process exit status: 0 ok, 1 failure, 2 bad usage. */
int ebb_cmd_plan(int argc, char **argv);
/* ebb plan --chain FILE --memory SIZE (plan_chain.c) */
int ebb_cmd_plan_chain(int argc, char **argv);
int ebb_cmd_demo(int argc, char **argv);
int ebb_cmd_bench(int argc, char **argv);
int ebb_cmd_run(int argc, char **argv);
int ebb_cmd_validate(int argc, char **argv);
int ebb_cmd_config(int argc, char **argv);

/* Set by a command that said itself why standard output failed: main()
 * then only sets the exit status (main.c checks standard output after every
 * command). */
extern int cli_stdout_reported;

/* Seconds from a monotonic clock. */
double cli_now(void);

#endif
