/*
 * How far online checkpointing (n unknown) is from offline Revolve: forward
 * steps of each over a coarse grid (powers of ten) of n and C. It misses the
 * boundaries beta(C, r) where the gap peaks: docs/online.md quotes the dense
 * sweep of online_sweep instead. Usage: online_gap [max_n]
 */
#include <stdio.h>
#include <stdlib.h>

#include "ebb/ebb.h"
#include "schedules/online.h"

int main(int argc, char **argv)
{
    long long max_n = argc > 1 ? atoll(argv[1]) : 1000000;
    const int slots[] = {2, 5, 10, 20, 50, 100, 200};
    const size_t ns = sizeof slots / sizeof *slots;
    printf("| n \\ C |");
    for (size_t j = 0; j < ns; j++)
        printf(" %d |", slots[j]);
    printf("\n|---|");
    for (size_t j = 0; j < ns; j++)
        printf("---|");
    printf("\n");
    double worst = 1.0;
    for (long long n = 10; n <= max_n; n *= 10) {
        printf("| %lld |", n);
        for (size_t j = 0; j < ns; j++) {
            int64_t online = 0, offline = 0;
            if (ebb_online_forward_count(n, slots[j], &online) != EBB_OK ||
                ebb_revolve_forward_count(n, slots[j], &offline) != EBB_OK) {
                printf(" (overflow) |");
                continue;
            }
            double ratio = (double)online / (double)offline;
            if (ratio > worst)
                worst = ratio;
            printf(" %.3f |", ratio);
        }
        printf("\n");
        fflush(stdout);
    }
    printf("\nworst ratio online / offline forward steps: %.3f\n", worst);
    return 0;
}
