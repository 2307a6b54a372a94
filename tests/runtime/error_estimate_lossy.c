/* With the host slots compressed at a fixed rate the estimate is > 0 and is
 * the true state error on the sampled steps: n known, the K steps
 * floor((2j + 1) n / 2K), whose max and rms the test computes from the
 * states the reverse callback was handed against the exact ones (with K = n
 * every step), and the gradient's estimate n / K sqrt(S |D|) from the sum
 * S of rho_s e_s and the sum D of the error vectors rho_s (x~_s - x_s) /
 * |x_s|, rho_s the exact step's relative change. */
#include "estimate.h"

static void check(int64_t n, int32_t k, double rate)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    es e = {0};
    es_init(&e, 4096, n);
    ebb_run_stats st;
    ebb_run_info info;
    es_run(&e, &cfg, EBB_CONFIG_STRATEGY_REVOLVE, 4, rate, k, &st, &info);
    int64_t steps[256];
    for (int32_t j = 0; j < k; j++)
        steps[j] = (2 * j + 1) * n / (2 * k);
    double max, rms, estimate;
    es_expect(&e, steps, k, &max, &rms, &estimate);
    cr_assert_gt(max, 0, "lossy: some sampled state is not exact");
    cr_assert_eq(st.error_samples, k, "compared %lld of %d", (long long)st.error_samples, k);
    cr_assert_gt(st.state_rel_error_max, 0);
    cr_assert_lt(fabs(st.state_rel_error_max - max), 1e-9 * max,
                 "n %lld, K %d: max %.9g, the sampled states' %.9g", (long long)n, k,
                 st.state_rel_error_max, max);
    cr_assert_lt(fabs(st.state_rel_error_rms - rms), 1e-9 * rms,
                 "n %lld, K %d: rms %.9g, the sampled states' %.9g", (long long)n, k,
                 st.state_rel_error_rms, rms);
    cr_assert_lt(fabs(st.gradient_rel_error_estimate - estimate), 1e-9 * estimate,
                 "n %lld, K %d: estimate %.9g, expected n / K sqrt(S |D|) = %.9g", (long long)n,
                 k, st.gradient_rel_error_estimate, estimate);
    es_free(&e);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(error_estimate_lossy, the_true_error_of_the_sampled_steps)
{
    check(60, 12, 16);
    check(97, 10, 12);
    check(30, 30, 20);
}
