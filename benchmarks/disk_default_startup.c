/* What a run with n unknown costs under the default configuration's disk
 * tier (tier.disk.budget "auto", the GPU off): async, 64-byte states, 4 host
 * slots, 50 steps forward and in reverse. Prints the disk slots and bytes
 * the run took and the times to create, run and destroy it. An argument
 * sets tier.disk.budget in bytes instead. RESULTS.md, "Default disk tier". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ebb/ebb.h"

enum { STATE = 64, STEPS = 50 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int forward(void *user, int64_t k, const void *in, void *out)
{
    (void)user;
    memcpy(out, in, STATE);
    ((unsigned char *)out)[0] ^= (unsigned char)k;
    return k == STEPS - 1 ? EBB_STEP_LAST : EBB_STEP_OK;
}

static int reverse(void *user, int64_t k, void *state)
{
    (void)user, (void)k, (void)state;
    return EBB_STEP_OK;
}

int main(int argc, char **argv)
{
    ebb_config cfg;
    ebb_config_init_default(&cfg);
    cfg.gpu.enabled = 0;
    if (argc > 1)
        cfg.disk.budget = strtoull(argv[1], NULL, 10);
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = STATE;
    o.config = &cfg;
    o.strategy = EBB_STRATEGY_ASYNC;
    o.slots = 4;
    o.steps = 0; /* n unknown: the forward says when */
    o.forward = forward;
    o.reverse = reverse;
    unsigned char x0[STATE] = {1};
    double t0 = now();
    ebb_run *run = NULL;
    ebb_run_info info;
    if (ebb_run_create(&o, &run) != EBB_OK || ebb_run_info_get(run, &info) != EBB_OK) {
        fprintf(stderr, "disk_default_startup: %s\n", ebb_last_error());
        ebb_run_destroy(run);
        ebb_config_dispose(&cfg);
        return 1;
    }
    double t1 = now();
    int ok = ebb_run_forward(run, x0, NULL) == EBB_OK && ebb_run_reverse(run) == EBB_OK;
    if (!ok)
        fprintf(stderr, "disk_default_startup: %s\n", ebb_last_error());
    double t2 = now();
    ebb_run_destroy(run);
    double t3 = now();
    if (ok)
        printf("disk slots %d, disk bytes %llu; create %.3f s, run %.3f s, destroy %.3f s\n",
               (int)info.slots[EBB_TIER_DISK], (unsigned long long)info.bytes[EBB_TIER_DISK],
               t1 - t0, t2 - t1, t3 - t2);
    ebb_config_dispose(&cfg);
    return ok ? 0 : 1;
}
