/* The example's --compare, as make demo runs it (--strategy auto --compare):
 * after the run, a table with the run, async (when auto chose another) and
 * store-all with every state in memory, each measured, with the bytes it
 * held; store-all recomputes nothing, holds more memory than the run and
 * gives the run's gradient bit for bit. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support/cli_run.h"

/* The row of `name` (from its start to the end of its line), or NULL. */
static const char *row_of(const char *out, const char *name)
{
    const char *table = strstr(out, "what ebb buys (--compare)");
    return table ? strstr(table, name) : NULL;
}

/* The bytes of "12.0 KiB"-style text at s. */
static double bytes_at(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (!strncmp(end, "KiB", 3))
        v *= 1024.0;
    else if (!strncmp(end, "MiB", 3))
        v *= 1024.0 * 1024.0;
    else if (!strncmp(end, "GiB", 3))
        v *= 1024.0 * 1024.0 * 1024.0;
    return v;
}

/* A row's memory held at the peak: the first size after the recomputed
 * steps (name, wall s, recomputed, memory peak / reserved, ...). */
static double memory_peak(const char *row, int *recomputed)
{
    const char *p = strchr(row, ')');
    p = p ? p + 1 : row + strlen("store-all in memory");
    double wall;
    int n = 0;
    cr_assert_eq(sscanf(p, "%lf %d %n", &wall, recomputed, &n), 2, "row: %.200s", row);
    return bytes_at(p + n);
}

Test(example_compare, auto_beside_async_and_store_all_in_memory)
{
    char dir[64], cfg[128];
    snprintf(dir, sizeof dir, "/tmp/ebb-example-compare-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cfg, sizeof cfg, "%s/ebb.toml", dir);
    FILE *f = fopen(cfg, "w");
    cr_assert_not_null(f);
    fprintf(f, "[tier.disk]\npath = \"%s\"\n", dir);
    fclose(f);
    const char *args[] = {"--points", "4096", "--steps", "50", "--config", cfg,
                          "--strategy", "auto", "--compare", NULL};
    cli_result r = cli_runv_program(EBB_EXAMPLE_RD_PATH, args);
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    const char *run = row_of(r.out, "(this run, auto's choice)");
    cr_assert_not_null(run, "%s", r.out);
    /* async's row: the run's own when auto chose async, else a row of its own */
    cr_assert(row_of(r.out, "async (this run") || row_of(r.out, "\n  async "), "%s", r.out);
    const char *all = row_of(r.out, "store-all in memory");
    cr_assert_not_null(all, "%s", r.out);
    cr_assert_null(strstr(r.out, "DIFFERENT"), "%s", r.out);
    cr_assert_null(strstr(r.out, "FAILED"), "%s", r.out);
    int run_recomputed, all_recomputed;
    double run_memory = memory_peak(run, &run_recomputed);
    double all_memory = memory_peak(all, &all_recomputed);
    cr_assert_eq(all_recomputed, 0, "%s", r.out);
    cr_assert_gt(run_recomputed, 0, "%s", r.out);
    /* store-all holds x_0 .. x_48, 49 states of 32 KiB (1.53 MiB, printed
       to a tenth of a MiB); the run 4 in memory */
    double expect = 49.0 * 4096 * 8, err = all_memory - expect;
    cr_assert(err < 0.06 * 1048576 && -err < 0.06 * 1048576, "%g bytes, expected %g\n%s",
              all_memory, expect, r.out);
    cr_assert_lt(run_memory, all_memory, "%s", r.out);
    const char *eq = strstr(all, "bitwise equal");
    const char *eol = strchr(all, '\n');
    cr_assert(eq && (!eol || eq < eol), "%s", r.out);
    cli_free(&r);
    unlink(cfg);
    cr_assert_eq(rmdir(dir), 0, "files left in %s", dir);
}
