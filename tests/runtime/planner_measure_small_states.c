/* auto's disk measurement (ebb_plan_channels_measure) gives the disk's rate
 * for small states: 4 states of 64 KiB (the budgets hold 4) measured at
 * least a quarter of the rate new pools of the configuration reach when the
 * test writes and reads them itself (best of 3 each). The probe that measures the step's
 * slowdown beside the disk checks the transfers only between its passes
 * over 4 MiB; timed with the transfers, its first pass (its pages faulted
 * in) made 256 KiB of writes look like 17 MB/s on a disk that wrote them
 * at 300 MB/s and more. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ebb/ebb.h"

enum { SIZE = 64 << 10, SLOTS = 4 };

static char dir[64];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void config(ebb_config *cfg)
{
    cr_assert_eq(ebb_config_init_default(cfg), EBB_OK);
    const char *paths[] = {dir};
    cr_assert_eq(ebb_config_set_disk_paths(cfg, paths, 1), EBB_OK);
    cfg->gpu.enabled = 0;
    cfg->disk.enabled = 1;
    cfg->host.budget = (uint64_t)SLOTS * SIZE;
    cfg->disk.budget = (uint64_t)64 << 20;
}

/* The seconds of all SLOTS states moved at once, each way, through new
 * pools as the measurement makes them (a new file's first writes: best of
 * 3). */
static void direct(const ebb_config *cfg, double *write_s, double *read_s)
{
    *write_s = *read_s = 1e9;
    for (int round = 0; round < 3; round++) {
        ebb_pool_options hopt, dopt;
        ebb_pool_options_init(&hopt, EBB_TIER_HOST);
        hopt.slot_size = SIZE;
        hopt.slots = SLOTS;
        ebb_pool *host = NULL, *disk = NULL;
        cr_assert_eq(ebb_pool_create(&hopt, &host), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_config_pool_options(cfg, EBB_TIER_DISK, SIZE, &dopt), EBB_OK);
        dopt.slots = SLOTS;
        dopt.staging = host;
        cr_assert_eq(ebb_pool_create(&dopt, &disk), EBB_OK, "%s", ebb_last_error());
        for (int32_t i = 0; i < SLOTS; i++) {
            void *p = NULL;
            cr_assert_eq(ebb_pool_slot_ptr(host, i, &p), EBB_OK);
            memset(p, 0x21 + i, SIZE);
        }
        ebb_ticket t[SLOTS];
        double t0 = now_s();
        for (int32_t i = 0; i < SLOTS; i++)
            cr_assert_eq(ebb_move(disk, i, host, i, &t[i]), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait_all(t, SLOTS), EBB_OK, "%s", ebb_last_error());
        double w = now_s() - t0;
        t0 = now_s();
        for (int32_t i = 0; i < SLOTS; i++)
            cr_assert_eq(ebb_move(host, i, disk, i, &t[i]), EBB_OK, "%s", ebb_last_error());
        cr_assert_eq(ebb_ticket_wait_all(t, SLOTS), EBB_OK, "%s", ebb_last_error());
        double r = now_s() - t0;
        *write_s = w < *write_s ? w : *write_s;
        *read_s = r < *read_s ? r : *read_s;
        ebb_pool_destroy(disk);
        ebb_pool_destroy(host);
    }
}

Test(planner_measure_small_states, rate_not_the_probes)
{
    snprintf(dir, sizeof dir, "/tmp/ebb-measure-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    ebb_config cfg;
    config(&cfg);
    double best_w = 0, best_r = 0;
    for (int k = 0; k < 3; k++) {
        ebb_plan_problem p;
        ebb_plan_problem_init(&p);
        p.steps = 2000;
        p.state_size = SIZE;
        p.forward_s = 1e-5;
        p.reverse_s = 1e-5;
        cr_assert_eq(ebb_plan_channels_measure(&p, &cfg), EBB_OK, "%s", ebb_last_error());
        double w = p.channel[EBB_PLAN_HOST_TO_DISK].bandwidth;
        double r = p.channel[EBB_PLAN_DISK_TO_HOST].bandwidth;
        best_w = w > best_w ? w : best_w;
        best_r = r > best_r ? r : best_r;
    }
    double ws, rs;
    direct(&cfg, &ws, &rs);
    double dw = (double)SLOTS * SIZE / ws, dr = (double)SLOTS * SIZE / rs;
    cr_log_info("measured: write %.3g B/s, read %.3g B/s; the pools by hand: write %.3g, read %.3g",
                best_w, best_r, dw, dr);
    cr_expect_geq(best_w, dw / 4, "the planner measured writes at %.3g B/s, the pools write "
                  "at %.3g", best_w, dw);
    cr_expect_geq(best_r, dr / 4, "the planner measured reads at %.3g B/s, the pools read "
                  "at %.3g", best_r, dr);
    ebb_config_dispose(&cfg);
    rmdir(dir);
}
