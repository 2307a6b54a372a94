/* `ebb run --strategy all --json`: one JSON object on one line, every run
 * with every documented key, consistent counts, and the same gradient under
 * every strategy (each reverse step saw its exact state). */
#include <ctype.h>
#include <dirent.h>

#include "support/cli_run.h"

static char dir[] = "/tmp/ebb-run-json-XXXXXX";
static char config[128];

static void setup(void)
{
    cli_disk_config(dir, config, sizeof config, "");
}

static void teardown(void)
{
    unlink(config);
    rmdir(dir);
}

static int64_t int_of(const char *obj, const char *key)
{
    const char *p = json_find(obj, key, NULL);
    cr_assert(p, "no \"%s\" in %s", key, obj);
    return strtoll(p, NULL, 10);
}

/* The 16 hex digits of "gradient" into out[17]. */
static void gradient_of(const char *obj, char out[17])
{
    const char *p = json_find(obj, "gradient", NULL);
    cr_assert(p && *p == '"', "no gradient string in %s", obj);
    p++;
    int n = 0;
    while (n < 16 && isxdigit((unsigned char)p[n]))
        n++;
    cr_assert(n == 16 && p[16] == '"', "gradient is not 16 hex digits: %s", obj);
    memcpy(out, p, 16);
    out[16] = '\0';
}

static const char *const keys[] = {
    "strategy", "steps", "state_size", "forward_steps", "recomputed_steps", "reverse_steps",
    "wall_s", "forward_sweep_s", "reverse_sweep_s", "forward_callback_s", "reverse_callback_s",
    "ideal_s", "overhead", "stall_s", "gradient", "peak_slots", "bytes_written", "bytes_read",
    "slots", "fast_tier", "slow_tier", "audit", "inplace", "forward_sweep_over_callbacks",
    "asked", "reason", "bytes_before_compression", "bytes_after_compression", "stored_raw",
    "codec_s"};
static const char *const per_tier[] = {"peak_slots", "bytes_written", "bytes_read", "slots"};

Test(run_cli, json_all_strategies, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("run", "--config", config, "--strategy", "all", "--json", "--steps",
                           "40", "--state-size", "64KiB", "--slots", "3", "--disk-slots", "4",
                           NULL);
    cr_assert_eq(r.status, 0, "exit %d, stderr: %s", r.status, r.err);
    cr_assert_eq(count_lines(r.out), 1, "one JSON object on one line: %s", r.out);
    cr_assert(strncmp(r.out, "{\"runs\": [{\"strategy\": ", 23) == 0, "%s", r.out);
    cr_assert(strstr(r.out, "\"gradients_equal\": true"), "%s", r.out);
    /* auto knows the calibrated step times: the planner chose, and says so */
    cr_assert(strstr(r.out, "\"asked\": \"auto\", \"reason\": \"auto: the planner predicts "),
              "%s", r.out);

    char first[17] = "", g[17];
    int ran = 0;
    /* C = 3, D = 4 fits these (store-all needs 39 slots; periodic and
     * disk-revolve more than they get): the others are skipped, saying why. */
    const char *must_run[] = {"revolve", "online", "multistage", "h-revolve", "async"};
    for (size_t k = 0; k < sizeof must_run / sizeof *must_run; k++) {
        char want[64];
        snprintf(want, sizeof want, "{\"strategy\": \"%s\", \"steps\": ", must_run[k]);
        cr_assert(strstr(r.out, want), "%s did not run: %s", must_run[k], r.out);
    }
    /* Cut the array into its objects: each starts with {"strategy": . */
    char *objs[10];
    int n = 0;
    for (char *p = strstr(r.out, "{\"strategy\": "); p && n < 10;
         p = strstr(p + 1, "{\"strategy\": "))
        objs[n++] = p;
    cr_assert_eq(n, 9, "one entry per strategy, then auto: %s", r.out);
    for (int i = n - 1; i > 0; i--)
        objs[i][-2] = '\0'; /* ", " before the next object */

    for (int i = 0; i < n; i++) {
        const char *o = objs[i];
        if (json_find(o, "skipped", NULL)) {
            cr_assert(strstr(o, "\"skipped\": \"\"") == NULL, "skipped without a reason: %s", o);
            continue;
        }
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            char pat[64];
            snprintf(pat, sizeof pat, "\"%s\": ", keys[k]);
            cr_assert(strstr(o, pat), "missing \"%s\" in %s", keys[k], o);
        }
        for (size_t k = 0; k < sizeof per_tier / sizeof *per_tier; k++)
            cr_assert(json_find(o, per_tier[k], "gpu", NULL) && json_find(o, per_tier[k], "host", NULL) &&
                          json_find(o, per_tier[k], "disk", NULL),
                      "%s lacks a tier: %s", per_tier[k], o);
        int64_t steps = int_of(o, "steps"), fwd = int_of(o, "forward_steps");
        int64_t rec = int_of(o, "recomputed_steps"), rev = int_of(o, "reverse_steps");
        cr_assert_eq(steps, 40, "%s", o);
        cr_assert_eq(int_of(o, "state_size"), 64 << 10, "%s", o);
        cr_assert_eq(fwd, steps + rec, "forward = steps + recomputed: %s", o);
        cr_assert_eq(rev, steps, "%s", o);
        cr_assert_gt(strtod(json_find(o, "wall_s", NULL), NULL), 0.0, "%s", o);
        if (strncmp(o, "{\"strategy\": \"store-all\"", 24) == 0)
            cr_assert_eq(rec, 0, "store-all recomputes nothing: %s", o);
        gradient_of(o, g);
        if (!ran++)
            memcpy(first, g, sizeof g);
        cr_assert_str_eq(g, first, "gradients differ: %s", r.out);
    }
    cr_assert_eq(cli_dir_entries(dir), 0, "files left in %s", dir);
    cli_free(&r);
}

/* store-all with room for every state (the host budget): no recomputation,
 * and, in another process, the same gradient as revolve. */
Test(run_cli, json_store_all_matches_revolve, .init = setup, .fini = teardown)
{
    cli_result s = cli_run("run", "--config", config, "--strategy", "store-all", "--json",
                           "--steps", "40", "--state-size", "64KiB", NULL);
    cr_assert_eq(s.status, 0, "exit %d, stderr: %s", s.status, s.err);
    cr_assert_eq(count_lines(s.out), 1, "%s", s.out);
    cr_assert(strncmp(s.out, "{\"strategy\": \"store-all\"", 24) == 0, "%s", s.out);
    cr_assert_eq(int_of(s.out, "recomputed_steps"), 0, "%s", s.out);
    cr_assert_eq(int_of(s.out, "forward_steps"), 40, "%s", s.out);
    cli_result v = cli_run("run", "--config", config, "--strategy", "revolve", "--json",
                           "--steps", "40", "--state-size", "64KiB", "--slots", "2", NULL);
    cr_assert_eq(v.status, 0, "exit %d, stderr: %s", v.status, v.err);
    cr_assert_gt(int_of(v.out, "recomputed_steps"), 0, "%s", v.out);
    char gs[17], gv[17];
    gradient_of(s.out, gs);
    gradient_of(v.out, gv);
    cr_assert_str_eq(gs, gv, "store-all %s, revolve %s", gs, gv);
    /* With --forward-ms 0 a forward step is one pass whatever the machine,
     * so the gradient is a fixed function of x_0 .. x_40 in order: a change
     * to the workload (the pass, x_0, the fold) shows here. */
    cr_assert_str_eq(gs, "f649f1cc441c96de", "gradient changed: %s", gs);
    cli_free(&s);
    cli_free(&v);
}
