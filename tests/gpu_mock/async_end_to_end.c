/* The GPU end-to-end case of benchmarks/gpu_async (the asynchronous strategy
 * with GPU slots for 5 % of the states, pinned host and disk below, steps
 * made of stream copies) against the fake CUDA runtime: the gradient equals
 * store-all's and the states really went down the cascade. The overhead
 * target is measured on a GPU (scripts/gpu-check.sh). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../benchmarks/gpu_async_run.h"

Test(async_end_to_end, exact_through_the_cascade)
{
    char dir[] = "/tmp/ebb-gpu-async-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    gpu_async_args a = {.steps = 200, .state_size = 4096, .copies_forward = 2,
                        .copies_reverse = 3, .gpu_fraction = 0.05, .host_slots = 4,
                        .disk_dir = dir, .strategy = "async"};
    gpu_async_result r;
    cr_assert_eq(gpu_async_run(&a, &r), 0, "%s", r.error);
    cr_assert_eq(r.gradient, r.reference, "async %016llx, store-all %016llx",
                 (unsigned long long)r.gradient, (unsigned long long)r.reference);
    cr_assert_eq(r.gpu_slots, 10);
    cr_assert_eq(r.host_slots, 4);
    cr_assert_gt(r.bytes_host, 0);
    cr_assert_gt(r.ideal_s, 0);
    rmdir(dir);
}
