/* A run with n known faults its tables in at creation: the runtime's
 * buffer records and slot map and the binomial schedule's stack, beside the
 * host pool's slots. Its sweeps then take no page fault per slot first
 * used: revolve over 60,000 host slots of 8-byte states (records alone are
 * over 800 pages) takes fewer than 64 minor page faults in both sweeps.
 * The adjoint is the oracle's. (Not counted under AddressSanitizer, whose
 * shadow of the tables is faulted in as the sweeps first read it.) */
#include "support/process_memory.h"
#include "workload.h"

enum { SIZE = 8, SLOTS = 60000, STEPS = SLOTS + 1 };

Test(sweeps_fault_free, revolve_many_small_slots, .timeout = 60)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.disk.enabled = 0;
    env.cfg.host.budget = (uint64_t)64 << 20;
    static wl w;
    wl_init(&w, SIZE);
    ebb_run_options o = wl_options(&w, &env.cfg, STEPS);
    o.strategy = EBB_CONFIG_STRATEGY_REVOLVE;
    o.slots = SLOTS;
    unsigned char x0[SIZE];
    wl_x0(&w, x0, 3);
    ebb_run *r = wl_create(&o);
    ebb_run_info info;
    cr_assert_eq(ebb_run_info_get(r, &info), EBB_OK);
    cr_assert_eq(info.slots[EBB_TIER_HOST], SLOTS);
    long before = ebb_test_minor_faults();
    cr_assert_eq(ebb_run_forward(r, x0, NULL), EBB_OK, "%s", ebb_last_error());
    cr_assert_eq(ebb_run_reverse(r), EBB_OK, "%s", ebb_last_error());
    long faults = ebb_test_minor_faults() - before;
    ebb_run_stats s;
    cr_assert_eq(ebb_run_stats_get(r, &s), EBB_OK);
    ebb_run_destroy(r);
    cr_log_info("%ld minor page faults in the sweeps; %lld host stores", faults,
                (long long)s.stores[EBB_TIER_HOST]);
    cr_assert_geq(s.stores[EBB_TIER_HOST], SLOTS - 1, "%lld stores",
                  (long long)s.stores[EBB_TIER_HOST]);
    if (!EBB_TEST_ASAN) /* its shadow of the tables is faulted in as they are first read */
        cr_expect_lt(faults, 64, "%ld minor page faults in the sweeps over %d slots", faults, SLOTS);
    cr_assert_eq(w.reverse_calls, STEPS);
    cr_assert_eq(w.adjoint, wl_reference(SIZE, STEPS, 3));
    wl_setup_close(&env);
}
