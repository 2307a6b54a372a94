/*
 * `ebb demo`: the main job on the default configuration. Until the runtime
 * lands it plans every strategy for one default problem (a million steps,
 * 64 memory slots, 192 disk slots, a disk 8x slower than a step) and
 * compares what each costs, every stream checked by the validator.
 */
#include <stdio.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/cli.h"

enum { DEMO_STEPS = 1000000, DEMO_SLOTS = 64, DEMO_DISK_SLOTS = 192 };
static const double demo_io_ratio = 8.0;

int ebb_cmd_demo(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "ebb demo: takes no arguments\n");
        return 2;
    }
    printf("ebb %s demo: reversing n = %d steps with C = %d memory slots\n"
           "(disk strategies: D = %d disk slots, disk write+read = %.0f steps)\n\n",
           ebb_version(), DEMO_STEPS, DEMO_SLOTS, DEMO_DISK_SLOTS, demo_io_ratio);
    printf("%-13s %14s %12s %10s %10s %9s\n", "strategy", "forward steps", "per step", "mem peak",
           "disk peak", "seconds");
    const ebb_strategy order[] = {EBB_STRATEGY_PERIODIC, EBB_STRATEGY_REVOLVE, EBB_STRATEGY_ONLINE,
                                  EBB_STRATEGY_MULTISTAGE, EBB_STRATEGY_DISK_REVOLVE};
    int failures = 0;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        ebb_schedule_options o;
        ebb_schedule_options_init(&o);
        o.strategy = order[i];
        o.steps = DEMO_STEPS;
        o.slots = o.strategy == EBB_STRATEGY_PERIODIC ? 2 * 1000 : DEMO_SLOTS;
        if (o.strategy == EBB_STRATEGY_MULTISTAGE)
            o.disk_slots = DEMO_DISK_SLOTS;
        if (o.strategy == EBB_STRATEGY_DISK_REVOLVE)
            o.io_ratio = demo_io_ratio;
        ebb_schedule_stats st;
        double t0 = cli_now();
        ebb_status s = ebb_schedule_validate(&o, &st);
        double dt = cli_now() - t0;
        if (s != EBB_OK) {
            printf("%-13s failed: %s\n", ebb_strategy_name(o.strategy), ebb_last_error());
            failures++;
            continue;
        }
        printf("%-13s %14lld %12.3f %10d %10d %9.3f%s\n", ebb_strategy_name(o.strategy),
               (long long)st.forward_steps, (double)st.forward_steps / DEMO_STEPS,
               st.peak_slots[o.fast_tier], st.peak_slots[o.slow_tier], dt,
               o.strategy == EBB_STRATEGY_PERIODIC ? "  (periodic needs ~2*sqrt(n) slots)" : "");
    }
    printf("\nEvery stream above was replayed by the validator: each reverse step saw\n"
           "exactly its state. Try: ebb plan --steps 100000000 --slots 100 --json\n");
    return failures ? 1 : 0;
}
