/* A run with n unknown makes its host pool ready in extents during the
 * forward sweep; when memory runs short there (the prefault of an extent
 * fails, injected), the run stops with EBB_ERR_NO_MEMORY and a message that
 * names the step, the slot, the extent's bytes and what to do. The run then
 * holds nothing (its pools released) and is destroyed cleanly (the ASan
 * build checks for leaks). Online (host only), for every extent from the
 * second to the fifth, and async (host and disk). */
#include <errno.h>

#include "storage/fault.h"
#include "workload.h"

enum { SIZE = 3000, STEPS = 200 };

static void run(ebb_config_strategy strategy, uint32_t failing_extent)
{
    char dir[256];
    ebb_config cfg;
    wl_config(&cfg, dir, sizeof dir);
    cfg.disk.direct = 0;
    wl w;
    wl_init(&w, SIZE);
    w.last_at = STEPS - 1;
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = SIZE;
    o.config = &cfg;
    o.strategy = (int)strategy;
    o.steps = 0;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = &w;
    ebb_storage_fault f = {0};
    f.ready_slots = 2; /* extents of 2, 4, 8, 16, ... slots */
    f.prefault_errno = ENOMEM;
    f.prefault_nth = failing_extent;
    unsigned char x0[SIZE];
    wl_x0(&w, x0, 3);
    ebb_run *r = NULL;
    cr_assert_eq(ebb_run_create_with_faults(&o, &f, &r), EBB_OK, "%s", ebb_last_error());
    w.run = r;
    ebb_status st = ebb_run_forward(r, x0, NULL);
    cr_assert_eq(st, EBB_ERR_NO_MEMORY, "%s, extent %u: got %s: %s",
                 ebb_config_strategy_name(strategy), failing_extent, ebb_status_name(st),
                 ebb_last_error());
    const char *msg = ebb_last_error();
    /* extent k (k >= 2) holds slots 2^(k-1) .. 2^k - 1: its first is the
     * slot that asked for it */
    char slot[64], bytes[64], step[64];
    int32_t first = 1 << (failing_extent - 1);
    snprintf(slot, sizeof slot, "slot %d is beyond the %d slots", (int)first, (int)first);
    snprintf(bytes, sizeof bytes, "(%zu bytes", (size_t)first * ebb_slot_stride(EBB_TIER_HOST,
                                                                                 SIZE, 0));
    /* buffer b holds a new state once b + 1 buffers are held: the live
     * state, the step's output and the stored states before it */
    snprintf(step, sizeof step, "step %lld: host buffer %d", (long long)w.forward_calls,
             (int)first);
    cr_log_info("%s", msg);
    cr_assert(strstr(msg, step), "no '%s' in: %s", step, msg);
    cr_assert(strstr(msg, slot), "no '%s' in: %s", slot, msg);
    cr_assert(strstr(msg, bytes), "no '%s' in: %s", bytes, msg);
    cr_assert(strstr(msg, "Cannot allocate memory"), "no errno text: %s", msg);
    cr_assert(strstr(msg, "tier.host.budget") && strstr(msg, "ebb_run_options.steps"),
              "no advice: %s", msg);
    /* stopped: its pools released at once; a second call says why */
    cr_assert_null(ebb_run_debug_pool(r, EBB_TIER_HOST));
    cr_assert_null(ebb_run_debug_pool(r, EBB_TIER_DISK));
    cr_assert_neq(ebb_run_reverse(r), EBB_OK);
    ebb_run_destroy(r);
    cr_assert_eq(wl_dir_entries(dir), 0);
    rmdir(dir);
    ebb_config_dispose(&cfg);
}

Test(unknown_n_growth_fails, online)
{
    for (uint32_t k = 2; k <= 5; k++)
        run(EBB_CONFIG_STRATEGY_ONLINE, k);
}

/* async holds few host buffers at once (its states go on to the disk):
 * it grows once */
Test(unknown_n_growth_fails, async) { run(EBB_CONFIG_STRATEGY_ASYNC, 2); }
