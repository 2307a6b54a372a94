/* A uniform chain (every step and state alike) gets Revolve's counts. */
#include "support/chain_support.h"
#include "support/schedule_support.h"

Test(chain_uniform, every_n_and_budget_gives_revolves_count)
{
    for (int n = 1; n <= TEST_CHAIN_MAX; n++) {
        for (int slots = 1; slots <= n + 1; slots++) {
            test_chain c = {.n = n, .budget = (uint64_t)slots * 4096};
            for (int i = 0; i < n; i++) {
                c.fwd[i] = 1;
                c.rev[i] = 0.5;
                c.bytes[i] = 4096;
            }
            chain_replay r = chain_replayed(&c);
            int64_t want = revolve_count(n, slots);
            cr_assert_eq(r.forward_steps, want, "n=%d, %d slots: %lld forward steps, revolve %lld",
                         n, slots, (long long)r.forward_steps, (long long)want);
            cr_assert_eq(r.cost, (double)want + 0.5 * n);
            cr_assert_eq(r.predicted, r.cost);
        }
    }
}
