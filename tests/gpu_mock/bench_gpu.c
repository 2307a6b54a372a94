/* `ebb bench --tier gpu --baseline` built against the fake CUDA runtime: the
 * gpu tier's measurement (device copies, ebb_move gpu <-> pinned host, both
 * directions at once) and the plain cudaMemcpyAsync loop
 * (benchmarks/loops/cuda_loop.c) run to the end and report every figure, in JSON
 * and in the table. The figures are the mock's (host memcpy speed), not a
 * GPU's: what is checked is that these paths, which otherwise run only on a
 * GPU machine, work and print complete output. */
#include <math.h>
#include <stdlib.h>

#include "support/cli_run.h"

static char config[] = "/tmp/ebb-bench-gpu-mock-XXXXXX";

static void setup(void)
{
    int fd = mkstemp(config);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    cr_assert(f);
    fprintf(f, "[tier.gpu]\nbudget = \"64 MiB\"\nchunk_size = \"256 KiB\"\n"
               "[tier.host]\nbudget = \"64 MiB\"\n");
    fclose(f);
}

static void teardown(void) { unlink(config); }

/* The number after `key` in the JSON (following the key path), > 0 and finite. */
static double positive(const char *json, const char *a, const char *b)
{
    const char *p = json_find(json, a, b, NULL);
    cr_assert(p, "no %s.%s in %s", a, b, json);
    double v = strtod(p, NULL);
    cr_assert(isfinite(v) && v > 0, "%s.%s = %.*s", a, b, 20, p);
    return v;
}

Test(bench_gpu, json_with_baseline, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "gpu", "--size", "1MiB",
                           "--total", "16MiB", "--baseline", "--json", NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    static const char *tier_keys[] = {"write_GBps", "read_GBps", "d2h_GBps", "h2d_GBps",
                                      "both_GBps"};
    for (size_t i = 0; i < sizeof tier_keys / sizeof *tier_keys; i++)
        positive(r.out, "gpu", tier_keys[i]);
    static const char *base_keys[] = {"h2d_GBps", "d2h_GBps", "both_GBps", "h2d_ratio",
                                      "d2h_ratio", "both_ratio"};
    for (size_t i = 0; i < sizeof base_keys / sizeof *base_keys; i++)
        positive(r.out, "gpu_baseline", base_keys[i]);
    cr_assert(strstr(r.out, "\"device_name\": \"cuda_mock device 0\""), "%s", r.out);
    /* 256 KiB chunks: a 1 MiB state is 4 copies. */
    cr_assert(strstr(r.out, "\"chunk\": 262144"), "%s", r.out);
    cli_free(&r);
}

Test(bench_gpu, table_and_ratios, .init = setup, .fini = teardown)
{
    cli_result r = cli_run("bench", "--config", config, "--tier", "gpu", "--size", "1MiB",
                           "--total", "8MiB", "--baseline", "--step-ms", "2", NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "gpu baseline: pinned cudaMemcpyAsync on cuda_mock device 0"), "%s",
              r.out);
    cr_assert(strstr(r.out, "ebb gpu tier reaches"), "%s", r.out);
    cr_assert(strstr(r.out, "d2h         device -> host"), "%s", r.out);
    cr_assert(strstr(r.out, "storing a state without slowing the forward sweep"), "%s", r.out);
    cli_free(&r);
}

/* The standalone figures need a device: with none, a clear error. */
Test(bench_gpu, no_device, .init = setup, .fini = teardown)
{
    setenv("CUDA_MOCK_DEVICES", "0", 1);
    cli_result r = cli_run("bench", "--config", config, "--tier", "gpu", "--baseline", NULL);
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "no CUDA device"), "%s", r.err);
    cli_free(&r);
}
