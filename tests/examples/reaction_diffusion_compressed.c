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
