/* Helpers for the tests of the `ebb` program: run the built CLI (EBB_CLI_PATH)
 * without a shell, capture its exit status, stdout and stderr; pick values
 * out of its JSON. Code in cli_run.c (ebb_test_support); the CLI's path is
 * the test's own (the gpu_mock tests run the program built against the
 * fake CUDA runtime), hence the macros. */
#ifndef EBB_TESTS_SUPPORT_CLI_RUN_H
#define EBB_TESTS_SUPPORT_CLI_RUN_H

/* The headers the CLI tests have always had from here. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* cli_run.c itself runs no particular program */
#if !defined(EBB_CLI_PATH) && !defined(EBB_CLI_RUN_LIBRARY)
#error "EBB_CLI_PATH must name the built ebb program (tests/CMakeLists.txt)"
#endif

typedef struct cli_result {
    int status;   /* exit status, or 128 + signal */
    char *out;    /* stdout, NUL-terminated */
    char *err;    /* stderr, NUL-terminated */
} cli_result;

/* The whole file, NUL-terminated (malloc'ed); fails the test if unreadable. */
char *cli_slurp(const char *path);

/* Runs `PROGRAM ARGS...` (args NULL-terminated, at most 62) with standard
 * input from the file `in_path` (NULL: inherited). */
cli_result cli_runv_stdin(const char *program, const char *const *args, const char *in_path);

/* Runs `PROGRAM ARGS...`, args NULL-terminated (at most 62). */
cli_result cli_runv_program(const char *program, const char *const *args);

/* Runs `PROGRAM ARG...` (NULL-terminated, at most 62). */
cli_result cli_run_program(const char *program, const char *arg, ...);

/* Runs `PROGRAM ARGS...` (at most 62) on a terminal (a pty): its standard
 * output and error together in out (err empty), as a terminal shows them. */
cli_result cli_runv_pty_program(const char *program, const char *const *args);

/* Runs PROGRAM with a line of space-separated arguments (no quoting). */
cli_result cli_run_line_program(const char *program, const char *line);

/* The same with `ebb` as PROGRAM. */
#define cli_runv(args) cli_runv_program(EBB_CLI_PATH, (args))
#define cli_runv_pty(args) cli_runv_pty_program(EBB_CLI_PATH, (args))
#define cli_run(...) cli_run_program(EBB_CLI_PATH, __VA_ARGS__)
#define cli_run_line(line) cli_run_line_program(EBB_CLI_PATH, (line))

/* Makes the directory `dir` (a mkdtemp template, changed in place) and writes
 * beside it `dir`.toml, a configuration whose disk tier lives in it with a
 * 64 MiB budget, plus `extra` lines (may be ""); its path goes to config. */
void cli_disk_config(char *dir, char *config, size_t len, const char *extra);

/* Entries of a directory other than . and .. */
int cli_dir_entries(const char *path);

void cli_free(cli_result *r);

/* Follows the keys (NULL-terminated) through nested objects of `json` and
 * returns where the last one's value starts, or NULL. Keys are looked up in
 * order, each after the previous, which is enough for ebb's flat output. */
const char *json_find(const char *json, const char *key, ...);

/* The number after "key" (the first in `json`; null: NaN); the test fails
 * when the key is missing. */
double json_figure(const char *json, const char *key);

/* Writes `text` to `path`, replacing it; the test fails if it cannot. */
void cli_write_file(const char *path, const char *text);

/* Number of newline characters in s. */
int count_lines(const char *s);

#endif
