/*
 * Heterogeneous chains: for n = 4 .. 32 steps of random costs (forward 1 ..
 * 10, reverse 1 .. 20) and sizes (1 .. 64 KiB, in 1 KiB steps; one chain in
 * four has a few states 16x the others), a budget of a quarter and of a half
 * of all the states, prints the time ebb_chain_schedule_create takes
 * (median of 3), and the chain's least cost against Revolve's run as if
 * every state were the largest (the slots that budget holds for it),
 * costed with the chain's own costs.
 *
 * With `long`, for n = 100, 1,000 and 10,000 steps of the same random costs
 * and sizes and a budget of six states of the mean size (x_0 and the
 * largest at least), each in a process of its own: the time to create the
 * schedule and to drain its whole stream (ebb_schedule_next_batch), the
 * process's peak resident memory, the schedule's cost, and Revolve's with
 * the slots the budget holds of the largest state.
 *
 * With `gap`, for chains of n steps above the exact program's 32 (the
 * distribution of tests/schedules/chain_long_gap: forward 1 .. 10, reverse
 * 1 .. 20, sizes 1 .. 16 with a third of the chains having some states 8
 * times larger; a budget of x_0, the largest state and up to a third of
 * all the states): the schedule ebb_chain_schedule_create makes (groups of
 * 12, or Revolve) against the exact program forced over the whole chain,
 * its cost ratio per chain, median and worst, and the exact program's time.
 *
 *     build/release/benchmarks/schedules/chain_bench [levels]
 *     build/release/benchmarks/schedules/chain_bench long [levels [n ...]]
 *     build/release/benchmarks/schedules/chain_bench gap [count [n ...]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ebb/ebb.h"
#include "schedules/chain_internal.h"

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Revolve with as many slots as the budget holds of the largest state, its
 * stream costed with the chain's costs. */
static double revolve_cost(int n, const double *f, const double *r, uint64_t largest,
                           uint64_t budget)
{
    ebb_schedule_options o;
    ebb_schedule_options_init(&o);
    o.strategy = EBB_STRATEGY_REVOLVE;
    o.steps = n;
    o.slots = (int32_t)(budget / largest);
    if (o.slots < 1 && n > 1)
        return -1;
    if (o.slots < 1)
        o.slots = 1;
    ebb_schedule *s = NULL;
    if (ebb_schedule_create(&o, &s) != EBB_OK)
        return -1;
    double cost = 0;
    ebb_action a;
    do {
        if (ebb_schedule_next(s, &a) != EBB_OK)
            break;
        if (a.kind == EBB_ACT_ADVANCE)
            for (int64_t k = a.step; k < a.to; k++)
                cost += f[k];
        else if (a.kind == EBB_ACT_REVERSE)
            cost += r[a.step];
    } while (a.kind != EBB_ACT_END);
    ebb_schedule_destroy(s);
    return cost;
}

/* One long chain in this process: prints its line. */
static int long_chain(int n, int levels)
{
    uint64_t seed = 0x2545f4914f6cdd1dull ^ (uint64_t)n;
    double *f = malloc(sizeof *f * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
    uint64_t *b = malloc(sizeof *b * (size_t)n), total = 0, largest = 0;
    if (!f || !r || !b)
        return 1;
    for (int i = 0; i < n; i++) {
        f[i] = (double)(1 + rng(&seed) % 10);
        r[i] = (double)(1 + rng(&seed) % 20);
        b[i] = 1024 * (1 + rng(&seed) % 64);
        total += b[i];
        if (b[i] > largest)
            largest = b[i];
    }
    uint64_t budget = 6 * (total / (uint64_t)n);
    if (budget < b[0] + largest)
        budget = b[0] + largest;
    ebb_chain ch = {.steps = n, .forward_cost = f, .reverse_cost = r, .state_bytes = b};
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = budget;
    o.memory_levels = levels;
    ebb_schedule *s = NULL;
    double t0 = now();
    if (ebb_chain_schedule_create(&ch, &o, &s) != EBB_OK) {
        fprintf(stderr, "n=%d: %s\n", n, ebb_last_error());
        return 1;
    }
    double t1 = now();
    ebb_action batch[256];
    size_t got = 0;
    int64_t actions = 0;
    do {
        if (ebb_schedule_next_batch(s, batch, 256, &got) != EBB_OK)
            return 1;
        actions += (int64_t)got;
    } while (got > 0 && batch[got - 1].kind != EBB_ACT_END);
    double t2 = now();
    ebb_chain_info info;
    ebb_chain_schedule_info(s, &info);
    int32_t slots[EBB_TIER_COUNT];
    ebb_schedule_tier_slots(s, slots);
    ebb_schedule_destroy(s);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rc = revolve_cost(n, f, r, largest, budget);
    printf("%6d %9.3f %9.3f %9.3f %8.1f %6d %5d %10lld %12.0f %12.0f %7.3f\n", n, t1 - t0,
           t2 - t1, t2 - t0, (double)ru.ru_maxrss / 1024, info.units, slots[EBB_TIER_HOST],
           (long long)actions, info.cost, rc, rc > 0 ? info.cost / rc : 0);
    free(f);
    free(r);
    free(b);
    return 0;
}

static int long_chains(int levels, int count, char **given)
{
    printf("%6s %9s %9s %9s %8s %6s %5s %10s %12s %12s %7s\n", "n", "create_s", "drain_s",
           "total_s", "rss_MiB", "units", "slots", "actions", "chain_cost", "revolve_cost",
           "ratio");
    fflush(stdout);
    int sizes[16] = {100, 1000, 10000};
    size_t many = 3;
    if (count > 0) {
        many = count < 16 ? (size_t)count : 16;
        for (size_t i = 0; i < many; i++)
            sizes[i] = atoi(given[i]);
    }
    for (size_t i = 0; i < many; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(long_chain(sizes[i], levels) | fflush(stdout));
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            return 1;
    }
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The cost ebb_chain_schedule_info gives for the chain made with at most
 * `group` children per node (0: as ebb_chain_schedule_create chooses),
 * and the seconds it took; -1 when it fails. */
static double made_cost(const ebb_chain *ch, uint64_t budget, int32_t group, double *seconds)
{
    ebb_chain_options o;
    ebb_chain_options_init(&o);
    o.memory_bytes = budget;
    ebb_schedule *s = NULL;
    double t0 = now();
    if (chain_schedule_create_grouped(ch, &o, group, group == 0, &s) != EBB_OK) {
        fprintf(stderr, "chain_bench: %s\n", ebb_last_error());
        return -1;
    }
    *seconds = now() - t0;
    ebb_chain_info info;
    ebb_chain_schedule_info(s, &info);
    ebb_schedule_destroy(s);
    return info.cost;
}

static int gap(int count, int given, char **ns)
{
    static const int fallback[] = {40, 48};
    int sizes = given ? given : 2;
    printf("%4s %6s %8s %8s %14s\n", "n", "chains", "median", "worst", "exact_s (med)");
    for (int z = 0; z < sizes; z++) {
        int n = given ? atoi(ns[z]) : fallback[z];
        if (n < 2 || n > 64 || count < 1 || count > 1000) {
            fprintf(stderr, "chain_bench gap: n in 2 .. 64 and 1 .. 1000 chains, got %d and %d\n",
                    n, count);
            return 2;
        }
        uint64_t seed = 0x7f4a7c159e3779b9ull ^ (uint64_t)n;
        double ratio[1000], secs[1000];
        for (int i = 0; i < count; i++) {
            double f[64], r[64];
            uint64_t b[64], total = 0, largest = 0;
            for (int k = 0; k < n; k++) {
                f[k] = (double)(1 + rng(&seed) % 10);
                r[k] = (double)(1 + rng(&seed) % 20);
                b[k] = 1 + rng(&seed) % 16;
                if (i % 3 == 0 && rng(&seed) % 4 == 0)
                    b[k] *= 8;
                total += b[k];
                largest = b[k] > largest ? b[k] : largest;
            }
            uint64_t budget = b[0] + largest + rng(&seed) % (total / 3 + 1);
            ebb_chain ch = {.steps = n, .forward_cost = f, .reverse_cost = r, .state_bytes = b};
            double made_s, exact_s;
            double made = made_cost(&ch, budget, 0, &made_s);
            double exact = made_cost(&ch, budget, n, &exact_s);
            if (made < 0 || exact <= 0)
                return 1;
            ratio[i] = made / exact;
            secs[i] = exact_s;
        }
        qsort(ratio, (size_t)count, sizeof *ratio, by_value);
        qsort(secs, (size_t)count, sizeof *secs, by_value);
        printf("%4d %6d %8.3f %8.3f %14.3f\n", n, count, ratio[count / 2], ratio[count - 1],
               secs[count / 2]);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "gap") == 0)
        return gap(argc > 2 ? atoi(argv[2]) : 12, argc > 3 ? argc - 3 : 0, argv + 3);
    if (argc > 1 && strcmp(argv[1], "long") == 0)
        return long_chains(argc > 2 ? atoi(argv[2]) : 0, argc > 3 ? argc - 3 : 0, argv + 3);
    int levels = argc > 1 ? atoi(argv[1]) : 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    printf("%4s %7s %9s %9s %12s %12s %7s\n", "n", "budget", "create_s", "units", "chain_cost",
           "revolve_cost", "ratio");
    for (int n = 4; n <= 32; n += 4) {
        double f[32], r[32];
        uint64_t b[32], total = 0, largest = 0;
        int skewed = n % 16 == 0;
        for (int i = 0; i < n; i++) {
            f[i] = (double)(1 + rng(&seed) % 10);
            r[i] = (double)(1 + rng(&seed) % 20);
            b[i] = 1024 * (1 + rng(&seed) % 64);
            if (skewed && rng(&seed) % 4 == 0)
                b[i] *= 16;
            total += b[i];
            if (b[i] > largest)
                largest = b[i];
        }
        for (int q = 4; q >= 2; q -= 2) {
            uint64_t budget = total / (uint64_t)q;
            if (budget < b[0])
                budget = b[0];
            ebb_chain ch = {.steps = n, .forward_cost = f, .reverse_cost = r, .state_bytes = b};
            ebb_chain_options o;
            ebb_chain_options_init(&o);
            o.memory_bytes = budget;
            o.memory_levels = levels;
            double times[3];
            ebb_chain_info info = {0};
            for (int k = 0; k < 3; k++) {
                ebb_schedule *s = NULL;
                double t0 = now();
                if (ebb_chain_schedule_create(&ch, &o, &s) != EBB_OK) {
                    fprintf(stderr, "n=%d: %s\n", n, ebb_last_error());
                    return 1;
                }
                times[k] = now() - t0;
                ebb_chain_schedule_info(s, &info);
                ebb_schedule_destroy(s);
            }
            for (int i = 0; i < 2; i++) /* sort the three: the median is times[1] */
                for (int k = 0; k < 2 - i; k++)
                    if (times[k] > times[k + 1]) {
                        double x = times[k];
                        times[k] = times[k + 1];
                        times[k + 1] = x;
                    }
            double t = times[1];
            double rc = revolve_cost(n, f, r, largest, budget);
            if (rc > 0)
                printf("%4d %7s %9.4f %9d %12.0f %12.0f %7.3f\n", n, q == 4 ? "1/4" : "1/2", t,
                       info.units, info.cost, rc, info.cost / rc);
            else /* the budget holds no largest state */
                printf("%4d %7s %9.4f %9d %12.0f %12s %7s\n", n, q == 4 ? "1/4" : "1/2", t,
                       info.units, info.cost, "-", "-");
        }
    }
    return 0;
}
