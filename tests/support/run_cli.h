/* Runs the `ebb` program and captures its exit status, stdout and stderr. */
#ifndef EBB_TESTS_RUN_CLI_H
#define EBB_TESTS_RUN_CLI_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int status;      /* exit status */
    char out[65536]; /* stdout */
    char err[8192];  /* stderr */
} cli_result;

static inline void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Runs EBB_CLI_PATH with `args` (a shell-quoted string). */
static inline void run_cli(const char *args, cli_result *r)
{
    char dir[] = "/tmp/ebb-cli-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[4096], out[64], err[64];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    snprintf(cmd, sizeof cmd, "'%s' %s >%s 2>%s", EBB_CLI_PATH, args, out, err);
    int w = system(cmd);
    cr_assert(w != -1 && WIFEXITED(w), "could not run: %s", cmd);
    r->status = WEXITSTATUS(w);
    slurp(out, r->out, sizeof r->out);
    slurp(err, r->err, sizeof r->err);
    unlink(out);
    unlink(err);
    rmdir(dir);
}

/* Counts newline-terminated lines. */
static inline int line_count(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#endif
