/* `ebb run` with tier.disk.compression: the gradient of compression off,
 * the bytes before and after in --json and the table, random states stored
 * raw; with the host tier compressed too, each tier's figures and their
 * sums. */
#include <stdint.h>
#include <sys/stat.h>

#include "support/cli_run.h"

static char dir[256], plain[512], packed[512];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ebb-run-compression-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    const char *text = "[tier.host]\nbudget = \"8 MiB\"\n[tier.disk]\npath = \"%s\"\n"
                       "budget = \"256 MiB\"\n%s";
    snprintf(plain, sizeof plain, "%s/plain.toml", dir);
    snprintf(packed, sizeof packed, "%s/packed.toml", dir);
    FILE *f = fopen(plain, "w");
    fprintf(f, text, dir, "");
    fclose(f);
    f = fopen(packed, "w");
    /* lz4 (c-blosc makes a zstd context each call: about 5 MB/s for these
       256 KiB states here) paced at 5 MB/s (disk-revolve writes 11 of 400
       states: the first goes raw while a copy is tried, and on a loaded
       machine the next may pass raw while that try runs): compressing what
       shrinks pays; on an unpaced disk the rule may store every state raw */
    fprintf(f, text, dir, "compression = \"lossless\"\nmax_bandwidth = \"5 MB/s\"\n");
    fclose(f);
}

static void teardown(void)
{
    remove(plain);
    remove(packed);
    rmdir(dir);
}

static uint64_t number(const char *json, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(json, k);
    cr_assert_not_null(p, "no %s in %s", key, json);
    return strtoull(p + strlen(k), NULL, 10);
}

static void gradient(const char *json, char out[17])
{
    const char *p = strstr(json, "\"gradient\": \"");
    cr_assert_not_null(p, "%s", json);
    memcpy(out, p + strlen("\"gradient\": \""), 16);
    out[16] = '\0';
}

Test(run_cli_compression, same_gradient_fewer_bytes, .init = setup, .fini = teardown)
{
    const char *data[] = {"smooth", "sparse", "random"};
    for (int d = 0; d < 3; d++) {
        char g0[17], g1[17];
        cli_result a = cli_run("run", "--config", plain, "--strategy", "disk-revolve", "--steps",
                               "400", "--state-size", "256KiB", "--data", data[d], "--json", NULL);
        cr_assert_eq(a.status, 0, "%s", a.err);
        cli_result b = cli_run("run", "--config", packed, "--strategy", "disk-revolve", "--steps",
                               "400", "--state-size", "256KiB", "--data", data[d], "--json", NULL);
        cr_assert_eq(b.status, 0, "%s", b.err);
        gradient(a.out, g0);
        gradient(b.out, g1);
        cr_assert_str_eq(g0, g1, "--data %s: compressed %s, off %s", data[d], g1, g0);
        cr_assert_eq(number(a.out, "bytes_before_compression"), 0);
        uint64_t before = number(b.out, "bytes_before_compression");
        uint64_t after = number(b.out, "bytes_after_compression");
        cr_assert_gt(before, 0, "%s", b.out);
        if (d < 2)
            cr_assert_lt(after, before, "--data %s: %llu bytes to %llu", data[d],
                         (unsigned long long)before, (unsigned long long)after);
        else /* random bytes do not shrink: stored raw, every one */
            cr_assert(after == before && number(b.out, "stored_raw") > 0, "%s", b.out);
        cli_free(&a);
        cli_free(&b);
    }
    cli_result t = cli_run("run", "--config", packed, "--strategy", "disk-revolve", "--steps", "400",
                           "--state-size", "256KiB", "--data", "sparse", NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    cr_assert(strstr(t.out, "disk-revolve: compressed ") &&
                  strstr(t.out, " stored raw (") && strstr(t.out, " because compressing would have "
                                                           "been slower), ") &&
                  strstr(t.out, "measured: ratio "),
              "%s", t.out);
    cli_free(&t);
}

/* The member `tier` of the object `key` (a per-tier figure). */
static double tier_number(const char *json, const char *key, const char *tier)
{
    char k[96];
    snprintf(k, sizeof k, "\"%s\": {", key);
    const char *p = strstr(json, k);
    cr_assert_not_null(p, "no %s in %s", key, json);
    snprintf(k, sizeof k, "\"%s\": ", tier);
    const char *q = strstr(p, k);
    cr_assert(q && q < strchr(p, '}'), "no %s in %s of %s", tier, key, json);
    return strtod(q + strlen(k), NULL);
}

/* Both tiers compressed (the host at a fixed rate of 16 bits a float64, the
 * disk lossless): --json has each tier's figures and their sums, the table
 * a line per tier and one with the sums. Sparse states shrink about
 * fivefold, so through a 20 MB/s disk compressing pays while the codec
 * beats 25 MB/s (a loaded machine's under ASan too). */
Test(run_cli_compression, per_tier_and_sums, .init = setup, .fini = teardown)
{
    char both[512];
    snprintf(both, sizeof both, "%s/both.toml", dir);
    FILE *f = fopen(both, "w");
    fprintf(f, "[tier.host]\nbudget = \"1 MiB\"\ncompression = \"fixed-rate\"\nrate = 16\n"
               "[tier.disk]\npath = \"%s\"\nbudget = \"16 MiB\"\ncompression = \"lossless\"\n"
               "max_bandwidth = \"20 MB/s\"\n", dir);
    fclose(f);
    const char *args[] = {"run", "--config", both, "--strategy", "multistage", "--steps", "80",
                          "--state-size", "256KiB", "--data", "sparse"};
    cli_result j = cli_run(args[0], args[1], args[2], args[3], args[4], args[5], args[6],
                           args[7], args[8], args[9], args[10], "--json", NULL);
    cr_assert_eq(j.status, 0, "%s", j.err);
    double before = 0, after = 0;
    for (int t = 0; t < 3; t++) {
        const char *tier = t == 0 ? "gpu" : t == 1 ? "host" : "disk";
        before += tier_number(j.out, "bytes_before_compression_tier", tier);
        after += tier_number(j.out, "bytes_after_compression_tier", tier);
    }
    cr_assert_eq(before, (double)number(j.out, "bytes_before_compression"), "%s", j.out);
    cr_assert_eq(after, (double)number(j.out, "bytes_after_compression"), "%s", j.out);
    double host_before = tier_number(j.out, "bytes_before_compression_tier", "host");
    cr_assert_gt(host_before, 0, "%s", j.out);
    cr_assert_eq(tier_number(j.out, "bytes_after_compression_tier", "host") * 4, host_before);
    cr_assert_eq(tier_number(j.out, "compression_ratio_tier", "host"), 4.0);
    cr_assert_gt(tier_number(j.out, "bytes_before_compression_tier", "disk"), 0, "%s", j.out);
    cr_assert_gt(tier_number(j.out, "codec_s_tier", "host"), 0, "%s", j.out);
    cr_assert_gt(tier_number(j.out, "compressions", "host"), 0, "%s", j.out);
    cr_assert_gt(tier_number(j.out, "decompressions", "disk"), 0, "%s", j.out);
    cr_assert_eq(tier_number(j.out, "compressions", "gpu"), 0, "%s", j.out);
    cli_free(&j);
    cli_result t = cli_run(args[0], args[1], args[2], args[3], args[4], args[5], args[6],
                           args[7], args[8], args[9], args[10], NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    cr_assert(strstr(t.out, "multistage: compressed ") &&
                  strstr(t.out, " in host slots (fixed rate, ratio 4.000), ") &&
                  strstr(t.out, " on disk (ratio ") && strstr(t.out, " in all (ratio "),
              "%s", t.out);
    cli_free(&t);
    remove(both);
}
