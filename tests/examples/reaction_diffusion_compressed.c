/* The example with its states compressed on disk: lossless gives the same
 * bits as without (objective, gradient check at the usual bound); a fixed
 * rate of 16 bits holds 4 times the disk slots in the same budget, and the
 * gradient passes the finite-difference check at the lossy bound. */
#include <criterion/criterion.h>
#include <stdarg.h>

#include "support/cli_run.h"

static char dir[64], cfg[128];

static void write_config(const char *keys)
{
    snprintf(dir, sizeof dir, "/tmp/ebb-example-codec-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cfg, sizeof cfg, "%s/ebb.toml", dir);
    FILE *f = fopen(cfg, "w");
    cr_assert_not_null(f);
    fprintf(f, "[tier.disk]\npath = \"%s\"\n%s", dir, keys);
    fclose(f);
}

static cli_result run(void)
{
    const char *args[] = {"--points", "65536", "--steps", "80", "--config", cfg, NULL};
    return cli_runv_program(EBB_EXAMPLE_RD_PATH, args);
}

static void done(cli_result *r)
{
    cli_free(r);
    unlink(cfg);
    cr_assert_eq(rmdir(dir), 0, "files left in %s", dir);
}

Test(example_compressed, lossless_same_bits)
{
    write_config("compression = \"lossless\"\n");
    cli_result r = run();
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    cr_assert(strstr(r.out, "the plain forward loop gives the same bits"), "%s", r.out);
    cr_assert(strstr(r.out, "disk   compressed "), "%s", r.out);
    cr_assert_null(strstr(r.out, "is lossy"), "%s", r.out);
    cr_assert_null(strstr(r.out, "TOO LARGE"), "%s", r.out);
    done(&r);
}

Test(example_compressed, fixed_rate_more_slots_within_the_lossy_bound)
{
    write_config("");
    cli_result plain = run();
    cr_assert_eq(plain.status, 0, "%s", plain.err);
    cr_assert(strstr(plain.out, "disk   schedule slots   32,"), "%s", plain.out);
    done(&plain);
    write_config("compression = \"fixed-rate\"\nrate = 16\n");
    cli_result r = run();
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    /* 32 states' worth of disk budget: 128 slots of a quarter, of which
     * multistage uses 75 (with the host's 4, every state but x_n) */
    cr_assert(strstr(r.out, "disk   schedule slots   75,"), "%s", r.out);
    cr_assert(strstr(r.out, "is lossy: the check's bound is 0.0001"), "%s", r.out);
    cr_assert(strstr(r.out, "(ratio 4.000)"), "%s", r.out);
    cr_assert_null(strstr(r.out, "TOO LARGE"), "%s", r.out);
    done(&r);
}

/* The exact check's two relative errors, from "exact check: ... = E1, ... = E2". */
static void exact_errors(const char *out, double *u, double *r)
{
    const char *p = strstr(out, "exact check: ");
    cr_assert_not_null(p, "%s", out);
    cr_assert_eq(sscanf(p, "exact check: ||dJ/du0 - exact|| / ||exact|| = %lf, |dJ/dr - exact| / "
                        "|exact| = %lf", u, r), 2, "%s", p);
}

static long recomputed(const char *out)
{
    const char *p = strstr(out, "forward steps  ");
    cr_assert_not_null(p, "%s", out);
    long all = 0, n = 0, re = 0;
    cr_assert_eq(sscanf(p, "forward steps  %ld = %ld + %ld recomputed", &all, &n, &re), 3, "%s", p);
    return re;
}

Test(example_compressed, host_fixed_rate_fewer_recomputations_within_the_bound)
{
    write_config("[run]\nstrategy = \"revolve\"\n");
    const char *args[] = {"--points", "65536", "--steps", "80", "--config", cfg, "--exact-check",
                          NULL};
    cli_result plain = cli_runv_program(EBB_EXAMPLE_RD_PATH, args);
    cr_assert_eq(plain.status, 0, "exit %d\n%s\n%s", plain.status, plain.out, plain.err);
    double u, r;
    exact_errors(plain.out, &u, &r);
    cr_assert(u == 0 && r == 0, "uncompressed is the exact run's: %g %g", u, r);
    cr_assert(strstr(plain.out, "host   schedule slots    4,"), "%s", plain.out);
    long plain_re = recomputed(plain.out);
    done(&plain);
    write_config("[run]\nstrategy = \"revolve\"\n[tier.host]\ncompression = \"fixed-rate\"\n"
                 "rate = 16\n");
    cli_result c = cli_runv_program(EBB_EXAMPLE_RD_PATH, args);
    cr_assert_eq(c.status, 0, "exit %d\n%s\n%s", c.status, c.out, c.err);
    cr_assert(strstr(c.out, "host   schedule slots   16,"), "4 times the slots: %s", c.out);
    cr_assert(strstr(c.out, "tier.host.compression = \"fixed-rate\" is lossy"), "%s", c.out);
    cr_assert_null(strstr(c.out, "TOO LARGE"), "%s", c.out);
    exact_errors(c.out, &u, &r);
    cr_assert(u > 0 && u < 1e-4 && r > 0 && r < 1e-4, "errors %g %g", u, r);
    cr_assert_lt(recomputed(c.out), plain_re, "%s", c.out);
    done(&c);
}
