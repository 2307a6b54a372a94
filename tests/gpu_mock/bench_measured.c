/* benchmarks/gpu_measured against the fake CUDA runtime's lagging device,
 * where a device copy takes its modelled time: it runs to the end, the
 * median of ebb's measured forward times over the plain loop's is within
 * 10 % of 1 (both the device's clock), and both gradients are store-all's.
 * (That online recomputes less measuring is tests/gpu_mock/
 * measure_costs_on_device.c's.) The figures on a GPU come from
 * scripts/gpu-check.sh. */
#include <criterion/criterion.h>

#include "../../benchmarks/gpu_measured_run.h"
#include "cuda_mock.h"

Test(bench_measured, times_the_device, .timeout = 60)
{
    cuda_mock_set_devices(1);
    cuda_mock_set_mode(CUDA_MOCK_LAG);
    /* device copies of 1 MiB at 10 GB/s: 0.1 ms each, the device slower
     * than the host's queueing (the mock's own calls take microseconds) */
    cuda_mock_set_copy_model(CUDA_MOCK_D2D, 10e9, 5e-6);
    gpu_measured_args a = {.steps = 60, .state_size = 1u << 20, .copies = 1, .dear_every = 6,
                           .dear_copies = 16, .reverse_copies = 2, .slots = 3, .device = 0};
    gpu_measured_result r;
    cr_assert_eq(gpu_measured_run(&a, &r), 0, "%s", r.error);
    cr_log_info("plain %.1f / %.1f us; ebb / plain %.3f .. %.3f (median %.3f); host %.1f us; "
                "recomputed %.1f us measuring, %.1f us not",
                1e6 * r.plain_cheap_s, 1e6 * r.plain_dear_s, r.ratio_min, r.ratio_max,
                r.ratio_median, 1e6 * r.host_forward_s, 1e6 * r.recomputed_measured_s,
                1e6 * r.recomputed_plain_s);
    cr_assert_eq(r.gradient_measured, r.reference, "measuring: the gradient differs");
    cr_assert_eq(r.gradient_plain, r.reference, "not measuring: the gradient differs");
    cr_assert(r.plain_dear_s > 8 * r.plain_cheap_s, "the plain loop: %g s and %g s",
              r.plain_dear_s, r.plain_cheap_s);
    cr_assert(r.ratio_median > 0.9 && r.ratio_median < 1.1, "median ebb / plain %.3f",
              r.ratio_median);
}
