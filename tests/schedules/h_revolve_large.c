/* n = 10^5 with C = 10 memory and 10 disk slots: the programme (windowed
 * search, pruned) and the stream finish, the stream
 * validates and costs what the programme predicts. The time is printed, not
 * asserted (benchmarks/schedules/h_revolve_bench measures it). */
#include <time.h>

#include "support/h_revolve_support.h"

Test(h_revolve, hundred_thousand_steps)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double predicted = 0;
    double cost = hr_cost(100000, 10, 10, 2.0, 2.0, 1.0, &predicted);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_log_info("n=100000 C=10 D=10 W=R=2 B=1: cost %.1f, programme + stream + validation %.2f s",
                cost, s);
    cr_assert_eq(cost, predicted);
    /* Memory alone (Revolve, C = 10) costs more: the disk must pay off. */
    int64_t revolve = 0;
    cr_assert_eq(ebb_revolve_forward_count(100000, 10, &revolve), EBB_OK);
    cr_assert(cost < (double)revolve + 100000.0, "%g vs revolve %lld + n", cost,
              (long long)revolve);
}
