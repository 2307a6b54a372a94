/* The example program as a newcomer runs it (make demo adds --strategy
 * auto --compare: reaction_diffusion_compare.c): a small grid, every
 * strategy with --all, the gradient check and the statistics printed,
 * exit 0; a bad option exits 2 with a usage line. */
#include <criterion/criterion.h>
#include <stdarg.h>

#include "support/cli_run.h"

static void write_config(char *dir, size_t dir_len, char *path, size_t path_len)
{
    snprintf(dir, dir_len, "/tmp/ebb-example-cli-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, path_len, "%s/ebb.toml", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "[tier.disk]\npath = \"%s\"\n", dir);
    fclose(f);
}

Test(example_program, small_run_checks_and_compares_every_strategy)
{
    char dir[64], cfg[128];
    write_config(dir, sizeof dir, cfg, sizeof cfg);
    const char *args[] = {"--points", "4096", "--steps", "50", "--config", cfg, "--all", NULL};
    cli_result r = cli_runv_program(EBB_EXAMPLE_RD_PATH, args);
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    cr_assert(strstr(r.out, "gradient check: adjoint"), "%s", r.out);
    cr_assert(strstr(r.out, "the plain forward loop gives the same bits"), "%s", r.out);
    cr_assert(strstr(r.out, "strategy multistage, fast tier host, slow tier disk"), "%s", r.out);
    cr_assert(strstr(r.out, "forward steps"), "%s", r.out);
    cr_assert(strstr(r.out, "bitwise equal"), "%s", r.out);
    cr_assert_null(strstr(r.out, "DIFFERENT"), "%s", r.out);
    cli_free(&r);
    unlink(cfg);
    cr_assert_eq(rmdir(dir), 0, "files left in %s", dir);
}

Test(example_program, bad_option_is_usage)
{
    const char *args[] = {"--points", "many", NULL};
    cli_result r = cli_runv_program(EBB_EXAMPLE_RD_PATH, args);
    cr_assert_eq(r.status, 2, "exit %d\n%s", r.status, r.err);
    cr_assert(strstr(r.err, "--points"), "%s", r.err);
    cli_free(&r);
}
