/* A run with n unknown makes its host tier ready from 1 MiB of states (at
 * least 8 buffers): a short run of small states, as a PETSc adjoint with
 * adaptive steps and a 48-byte state, faults in and pins no more than that
 * (in slots of 64 bytes: 1.4 MB) at creation, whatever its budget (here
 * 1 GiB: over 16 million slots). */
#include "workload.h"

static void expect_first_extent(size_t size, uint64_t most)
{
    wl_setup env;
    wl_setup_open(&env);
    env.cfg.disk.enabled = 0;
    env.cfg.host.budget = (uint64_t)1 << 30;
    static wl w;
    wl_init(&w, size);
    ebb_run_options o = wl_options(&w, &env.cfg, 0);
    o.strategy = EBB_CONFIG_STRATEGY_ONLINE;
    ebb_run *r = wl_create(&o);
    ebb_host_debug d;
    cr_assert_eq(ebb_host_debug_get(ebb_run_debug_pool(r, EBB_TIER_HOST), &d), EBB_OK, "%s",
                 ebb_last_error());
    ebb_run_destroy(r);
    cr_log_info("%zu-byte states: %d slots (%llu bytes) ready at creation", size,
                d.ready_slots, (unsigned long long)d.ready_bytes);
    cr_expect_leq(d.ready_bytes, most, "%zu-byte states: %llu bytes ready at creation", size,
                  (unsigned long long)d.ready_bytes);
    cr_expect_geq(d.ready_slots, 8, "%zu-byte states: %d slots ready", size, d.ready_slots);
    wl_setup_close(&env);
}

Test(unknown_n_first_extent, small_states) { expect_first_extent(48, (uint64_t)2 << 20); }

Test(unknown_n_first_extent, large_states_take_eight)
{
    expect_first_extent(1 << 20, (uint64_t)8 << 20);
}
