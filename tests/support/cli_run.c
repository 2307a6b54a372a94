/* The CLI tests' helpers (cli_run.h), built once into ebb_test_support. */
#define EBB_CLI_RUN_LIBRARY
#include "support/cli_run.h"

#include <errno.h>
#include <math.h>
#include <pty.h>
#include <spawn.h>

extern char **environ;

char *cli_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

cli_result cli_runv_stdin(const char *program, const char *const *args, const char *in_path)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = program;
    for (; *args && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;

    char dir[] = "/tmp/ebb-bench-test-XXXXXX";
    cr_assert(mkdtemp(dir), "mkdtemp failed");
    char out_path[64], err_path[64];
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    snprintf(err_path, sizeof err_path, "%s/err", dir);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in_path)
        posix_spawn_file_actions_addopen(&fa, 0, in_path, O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawn(&pid, program, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", program, strerror(rc));
    int ws = 0;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cli_result r;
    r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    r.out = cli_slurp(out_path);
    r.err = cli_slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    rmdir(dir);
    return r;
}

cli_result cli_runv_pty_program(const char *program, const char *const *args)
{
    const char *argv[64] = {program};
    for (int i = 0; args[i] && i < 62; i++)
        argv[i + 1] = args[i];
    int master = -1;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    cr_assert_geq(pid, 0, "forkpty: %s", strerror(errno));
    if (pid == 0) {
        execv(program, (char *const *)argv);
        _exit(127);
    }
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    ssize_t n;
    /* read until the terminal closes (EIO once the child is gone) */
    while ((n = read(master, out + len, cap - 1 - len)) > 0 || (n < 0 && errno == EINTR)) {
        len += n > 0 ? (size_t)n : 0;
        if (len + 1 == cap) {
            cap *= 2;
            out = realloc(out, cap);
            cr_assert_not_null(out);
        }
    }
    out[len] = '\0';
    close(master);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    cli_result r = {WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), out, calloc(1, 1)};
    return r;
}

cli_result cli_runv_program(const char *program, const char *const *args)
{
    return cli_runv_stdin(program, args, NULL);
}

cli_result cli_run_program(const char *program, const char *arg, ...)
{
    const char *args[63];
    int n = 0;
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a && n < 62; a = va_arg(ap, const char *))
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    return cli_runv_program(program, args);
}

cli_result cli_run_line_program(const char *program, const char *line)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line);
    const char *args[63];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && n < 62; t = strtok_r(NULL, " ", &save))
        args[n++] = t;
    args[n] = NULL;
    return cli_runv_program(program, args);
}

void cli_disk_config(char *dir, char *config, size_t len, const char *extra)
{
    cr_assert(mkdtemp(dir), "mkdtemp %s", dir);
    snprintf(config, len, "%s.toml", dir);
    FILE *f = fopen(config, "w");
    cr_assert(f, "cannot write %s", config);
    fprintf(f, "[tier.disk]\npath = \"%s\"\nbudget = \"64 MiB\"\n%s", dir, extra);
    fclose(f);
}

int cli_dir_entries(const char *path)
{
    DIR *d = opendir(path);
    cr_assert(d, "opendir %s", path);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

void cli_free(cli_result *r)
{
    free(r->out);
    free(r->err);
}

const char *json_find(const char *json, const char *key, ...)
{
    const char *p = json;
    va_list ap;
    va_start(ap, key);
    for (const char *k = key; k && p; k = va_arg(ap, const char *)) {
        char pat[128];
        snprintf(pat, sizeof pat, "\"%s\": ", k);
        p = strstr(p, pat);
        if (p)
            p += strlen(pat);
    }
    va_end(ap);
    return p;
}

double json_figure(const char *json, const char *key)
{
    const char *p = json_find(json, key, NULL);
    cr_assert_not_null(p, "no %s in %s", key, json);
    return strncmp(p, "null", 4) == 0 ? NAN : strtod(p, NULL);
}

void cli_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_geq(fputs(text, f), 0, "cannot write %s", path);
    cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}
