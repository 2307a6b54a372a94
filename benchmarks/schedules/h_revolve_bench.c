/*
 * H-Revolve against Revolve (C memory slots), multistage (C + D slots, the D
 * least used on disk) and periodic Disk-Revolve (C memory slots, period from
 * W + R; "-" when its periods need more than D disk slots) under the same
 * costs: forward steps + B x reverse steps + W x disk writes + R x disk
 * reads, memory free, each counted on the validated stream. The last column
 * lets Disk-Revolve use as many disk slots as it wants (not a like-for-like
 * comparison: H-Revolve keeps to D). Then the time
 * H-Revolve takes at n = 10^5 (programme, and generation + validation).
 * Prints Markdown; docs/h_revolve.md quotes it.
 *
 * Usage: h_revolve_bench [n_big [C_big [D_big]]]   (default 100000 10 10)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ebb/ebb.h"
#include "schedules/h_revolve.h"
#include "schedules/stream_cost.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static ebb_schedule_options options(ebb_strategy strategy, int64_t n, int32_t c, int32_t d,
                                    double io_ratio)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = strategy;
    o.steps = n;
    o.slots = c;
    o.disk_slots = strategy == EBB_STRATEGY_REVOLVE ? 0 : d;
    o.io_ratio = io_ratio;
    return o;
}

/* The stream's cost, or a negative number when the strategy refuses. */
static double cost_of(ebb_schedule *s, const ebb_stream_costs *costs)
{
    double cost = -1;
    if (ebb_stream_cost_replay(s, costs, NULL, &cost) != EBB_OK) {
        fprintf(stderr, "replay failed: %s\n", ebb_last_error());
        cost = -2;
    }
    ebb_schedule_destroy(s);
    return cost;
}

static void print_cost(double c)
{
    if (c < 0)
        printf(" - |");
    else
        printf(" %.1f |", c);
}

static int row(int64_t n, int32_t c, int32_t d, double w, double r, double b)
{
    ebb_schedule_options o = options(EBB_STRATEGY_REVOLVE, n, c, d, w + r);
    ebb_stream_costs costs = {.write = {0}, .read = {0}, .reverse = b};
    costs.write[o.slow_tier] = w;
    costs.read[o.slow_tier] = r;
    ebb_schedule *s = NULL;
    o.disk_slots = d;
    if (ebb_h_revolve_create(&o, w, r, b, &s) != EBB_OK) {
        fprintf(stderr, "h-revolve: %s\n", ebb_last_error());
        return 1;
    }
    double h = cost_of(s, &costs);
    printf("| %lld | %d | %d | %g | %g | %g | %.1f |", (long long)n, c, d, w, r, b, h);
    const ebb_strategy others[3] = {EBB_STRATEGY_REVOLVE, EBB_STRATEGY_MULTISTAGE,
                                    EBB_STRATEGY_DISK_REVOLVE};
    for (int i = 0; i < 3; i++) {
        o = options(others[i], n, c, d, w + r > 0 ? w + r : 0.5);
        s = NULL;
        print_cost(ebb_schedule_create(&o, &s) == EBB_OK ? cost_of(s, &costs) : -1);
    }
    /* Disk-Revolve with as many disk slots as its periods need, for scale. */
    o = options(EBB_STRATEGY_DISK_REVOLVE, n, c, -1, w + r > 0 ? w + r : 0.5);
    s = NULL;
    print_cost(ebb_schedule_create(&o, &s) == EBB_OK ? cost_of(s, &costs) : -1);
    printf("\n");
    return h < 0;
}

int main(int argc, char **argv)
{
    int64_t n_big = argc > 1 ? atoll(argv[1]) : 100000;
    int32_t c_big = argc > 2 ? atoi(argv[2]) : 10;
    int32_t d_big = argc > 3 ? atoi(argv[3]) : 10;
    static const struct { int64_t n; int32_t c, d; double w, r, b; } sweep[] = {
        {100, 3, 4, 2, 2, 1},      {100, 3, 4, 10, 10, 1},   {1000, 5, 10, 2, 2, 1},
        {1000, 5, 10, 10, 10, 1},  {1000, 5, 10, 20, 5, 2},  {1000, 10, 5, 5, 5, 1},
        {2000, 4, 40, 3, 3, 1},    {2000, 4, 40, 30, 30, 1}, {5000, 10, 20, 5, 5, 1},
        {10000, 10, 10, 2, 2, 1},  {10000, 10, 50, 10, 10, 1}, {10000, 20, 100, 4, 4, 1},
    };
    int bad = 0;
    printf("| n | C | D | W | R | B | h-revolve | revolve | multistage | disk-revolve "
           "| disk-revolve, D unbounded |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof sweep / sizeof sweep[0]; i++)
        bad |= row(sweep[i].n, sweep[i].c, sweep[i].d, sweep[i].w, sweep[i].r, sweep[i].b);

    /* Speed at n_big: the programme alone, then the stream with validation. */
    ebb_h_revolve_costs hc = {.write = {0, 2}, .read = {0, 2}, .reverse = 1};
    double t0 = now();
    ebb_h_revolve_dp *dp = NULL;
    if (ebb_h_revolve_dp_create(n_big, c_big, d_big, &hc, 0, &dp) != EBB_OK) {
        fprintf(stderr, "h-revolve: %s\n", ebb_last_error());
        return 1;
    }
    double t1 = now();
    double predicted = ebb_h_revolve_dp_cost(dp);
    ebb_h_revolve_dp_destroy(dp);
    ebb_schedule_options o = options(EBB_STRATEGY_REVOLVE, n_big, c_big, d_big, 0);
    o.disk_slots = d_big;
    ebb_schedule *s = NULL;
    ebb_stream_costs costs = {.write = {0}, .read = {0}, .reverse = 1};
    costs.write[o.slow_tier] = 2;
    costs.read[o.slow_tier] = 2;
    double t2 = now();
    if (ebb_h_revolve_create(&o, 2, 2, 1, &s) != EBB_OK) {
        fprintf(stderr, "h-revolve: %s\n", ebb_last_error());
        return 1;
    }
    double cost = cost_of(s, &costs);
    double t3 = now();
    printf("\nn = %lld, C = %d, D = %d, W = R = 2, B = 1: programme %.3f s; create + generate + "
           "validate %.3f s; cost %.1f (programme %.1f)\n",
           (long long)n_big, c_big, d_big, t1 - t0, t3 - t2, cost, predicted);
    return bad || cost != predicted;
}
