/* benchmarks/gpu_chain's measurement against the fake CUDA runtime: it runs
 * to the end on both disk engines, every restored state is exact, and every
 * figure is finite and positive (the timings are the mock's, not a GPU's). */
#include <math.h>

#include "../../benchmarks/gpu_chain_run.h"
#include "gpu_mock/mock_helpers.h"

Test(bench_chain, runs_and_is_exact)
{
    char dir[64];
    make_tmpdir(dir, sizeof dir);
    gpu_chain_args a = {.state_size = 1000 * 1000 + 13, .block = 64 * KiB, .repeat = 3,
                        .disk_dir = dir, .device = 0};
    gpu_chain_result r;
    cr_assert_eq(gpu_chain_run(&a, &r), 0, "%s", r.error);
    cr_assert_eq(r.exact, 1, "a restored state differs from the stored one");
    double v[8] = {r.d2h_s, r.disk_write_s, r.two_step_store_s, r.chained_store_s,
                   r.disk_read_s, r.h2d_s, r.two_step_restore_s, r.chained_restore_s};
    for (int i = 0; i < 8; i++)
        cr_assert(isfinite(v[i]) && v[i] > 0, "figure %d is %g", i, v[i]);
    rm_tmpdir(dir);
}
