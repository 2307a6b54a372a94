/* The timeline: ebb_run_options.trace (and EBB_TRACE, which wins) writes a
 * Chrome trace-event JSON file whose compute track holds exactly the steps
 * the statistics count and whose channel tracks hold the disk transfers;
 * an unwritable path is refused at creation, naming it. */
#include "workload.h"
#include "trace_json.h"

static int count(const char *s, const char *pat)
{
    int n = 0;
    for (const char *p = strstr(s, pat); p; p = strstr(p + 1, pat))
        n++;
    return n;
}

static ebb_run_stats run_traced(const char *path)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    wl w;
    wl_init(&w, 4096);
    w.steps_known = 40;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = 4096;
    o.steps = 40;
    o.config = &cfg;
    o.strategy = EBB_CONFIG_STRATEGY_ASYNC;
    o.slots = 3;
    o.slow_slots = 20;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    o.trace = path;
    ebb_run_stats rs;
    cr_assert_eq(wl_run(&o, NULL, &w, 3, &rs), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(w.adjoint, wl_reference(4096, 40, 3));
    rmdir(dir);
    ebb_config_dispose(&cfg);
    return rs;
}

Test(trace_file, tracks_hold_what_the_statistics_count)
{
    char path[] = "/tmp/ebb-trace-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    ebb_run_stats rs = run_traced(path);
    char *s = trace_slurp(path);
    trace_assert_json_shape(s);
    cr_assert(strncmp(s, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 42) == 0, "%.60s", s);
    const char *tracks[] = {"compute", "gpu -> host", "host -> gpu", "host -> disk",
                            "disk -> host"};
    for (size_t k = 0; k < sizeof tracks / sizeof *tracks; k++) {
        char want[96];
        snprintf(want, sizeof want, "\"args\": {\"name\": \"%s\"}", tracks[k]);
        cr_assert_eq(count(s, want), 1, "track %s named once", tracks[k]);
    }
    cr_assert_eq(count(s, "{\"name\": \"forward\""), 40, "first-sweep steps");
    cr_assert_eq(count(s, "{\"name\": \"recompute\""), rs.recomputed_steps);
    cr_assert_gt(rs.recomputed_steps, 0);
    cr_assert_eq(count(s, "{\"name\": \"reverse\""), 40);
    int writes = count(s, "{\"name\": \"host -> disk\", \"cat\"");
    cr_assert_eq(writes, rs.stores[EBB_TIER_DISK], "%d traced, %lld stores", writes,
                 (long long)rs.stores[EBB_TIER_DISK]);
    cr_assert_gt(rs.stores[EBB_TIER_DISK], 0);
    cr_assert_eq(count(s, "{\"name\": \"disk -> host\", \"cat\""),
                 rs.restores[EBB_TIER_DISK] - rs.cache_hits);
    free(s);
    unlink(path);
}

Test(trace_file, environment_wins)
{
    char env_path[] = "/tmp/ebb-trace-env-XXXXXX", opt_path[] = "/tmp/ebb-trace-opt-XXXXXX";
    close(mkstemp(env_path));
    close(mkstemp(opt_path));
    setenv("EBB_TRACE", env_path, 1);
    run_traced(opt_path);
    unsetenv("EBB_TRACE");
    char *e = trace_slurp(env_path), *o = trace_slurp(opt_path);
    cr_assert_gt(count(e, "\"reverse\""), 0, "EBB_TRACE's file is empty");
    cr_assert_eq(o[0], '\0', "the option's file was written although EBB_TRACE is set");
    free(e);
    free(o);
    unlink(env_path);
    unlink(opt_path);
}

Test(trace_file, unwritable_path_refused_at_creation)
{
    wl w;
    wl_init(&w, 4096);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = 4096;
    o.steps = 10;
    o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
    o.slots = 3;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    o.trace = "/nonexistent-dir/trace.json";
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(&o, &run), EBB_ERR_IO);
    cr_assert_null(run);
    cr_assert(strstr(ebb_last_error(), "/nonexistent-dir/trace.json"), "%s", ebb_last_error());
    cr_assert(strstr(ebb_last_error(), "No such file"), "%s", ebb_last_error());
}
