/* A long uniform chain (every forward cost, reverse cost and size alike)
 * gets Revolve's counts with the slots the budget holds. */
#include "support/chain_long_support.h"
#include "support/schedule_support.h"

Test(chain_long_uniform, long_uniform_chains_cost_revolves_count)
{
    const int ns[] = {33, 100, 257, 1000};
    const int32_t slot_counts[] = {1, 2, 3, 5, 9};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (size_t j = 0; j < sizeof slot_counts / sizeof *slot_counts; j++) {
            int n = ns[i];
            int32_t slots = slot_counts[j];
            long_chain c = long_chain_alloc(n);
            for (int k = 0; k < n; k++) {
                c.fwd[k] = 2;
                c.rev[k] = 3;
                c.bytes[k] = 4096;
            }
            c.budget = (uint64_t)slots * 4096 + 100;
            chain_replay r = chain_replayed_grouped(&c, 0, 0, 1);
            int64_t want = revolve_count(n, slots);
            cr_assert_eq(r.forward_steps, want, "n=%d, %d slots: %lld forward steps, revolve %lld",
                         n, slots, (long long)r.forward_steps, (long long)want);
            cr_assert_eq(r.cost, 2.0 * (double)want + 3.0 * n);
            cr_assert_eq(r.predicted, r.cost);
            long_chain_free(&c);
        }
}
