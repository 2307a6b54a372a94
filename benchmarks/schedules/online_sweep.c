/*
 * Online checkpointing (n unknown) against offline Revolve on a dense sweep:
 * for each C, every stop n up to max_n, then the neighbourhoods (+-radius) of
 * every boundary beta(C, r) up to max_boundary. The online count of each n
 * is the one ebb_online_forward_count returns, computed incrementally: one
 * forward placement per C serves every stop (the cost of a stop is n, plus
 * the binomial costs of the closed intervals, plus that of the open last
 * one). Prints a Markdown table; docs/online.md quotes it.
 *
 * Usage: online_sweep [max_n [max_boundary [radius]]]
 *        online_sweep --dump C first_n last_n   (one count per line)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebb/ebb.h"
#include "schedules/binomial.h"
#include "schedules/online_place.h"

typedef struct {
    ebb_online_place pl;
    int64_t closed; /* sum over the intervals between kept checkpoints */
    int64_t m;      /* next state to place */
} walker;

static int walker_init(walker *w, int32_t c)
{
    w->closed = 0;
    w->m = 0;
    return ebb_online_place_alloc(&w->pl, c) == EBB_OK ? 0 : -1;
}

/* Places x_{n-1} and returns the online count for a stop at x_n. */
static int64_t walker_stop(walker *w, int64_t n)
{
    ebb_online_place *p = &w->pl;
    while (w->m < n) {
        ebb_online_move mv;
        ebb_online_place_step(p, w->m++, &mv);
        if (mv.stored) {
            w->closed = 0;
            for (int32_t q = 0; q + 1 < p->count; q++)
                w->closed += ebb_revolve_cost(p->pos[q + 1] - p->pos[q], p->slots - q);
        }
    }
    int32_t k = p->count - 1;
    int64_t last = p->pos[k] < n - 1 ? ebb_revolve_cost(n - 1 - p->pos[k], p->slots - k) : 0;
    return n + w->closed + last;
}

typedef struct {
    double worst;
    int64_t worst_n;
    int64_t most; /* largest online - offline */
    double sum;
    int64_t count;
} tally;

static void tally_add(tally *t, int64_t n, int64_t online, int64_t offline)
{
    double r = (double)online / (double)offline;
    if (r > t->worst) {
        t->worst = r;
        t->worst_n = n;
    }
    if (online - offline > t->most)
        t->most = online - offline;
    t->sum += r;
    t->count++;
}

static void tally_print(const tally *t)
{
    if (t->count == 0)
        printf(" – |");
    else
        printf(" %.4f (n = %lld), +%lld, mean %.4f |", t->worst, (long long)t->worst_n,
               (long long)t->most, t->sum / (double)t->count);
}

static int dump(int32_t c, int64_t first, int64_t last)
{
    walker w;
    if (walker_init(&w, c) != 0)
        return 1;
    for (int64_t n = 1; n <= last; n++) {
        int64_t v = walker_stop(&w, n);
        if (n >= first)
            printf("%lld\n", (long long)v);
    }
    ebb_online_place_free(&w.pl);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--dump") == 0)
        return dump((int32_t)atoi(argv[2]), atoll(argv[3]), atoll(argv[4]));
    int64_t max_n = argc > 1 ? atoll(argv[1]) : 100000;
    int64_t max_boundary = argc > 2 ? atoll(argv[2]) : 10000000;
    int64_t radius = argc > 3 ? atoll(argv[3]) : 100;
    const int32_t slots[] = {2, 3, 5, 10, 20, 50, 100, 200};
    printf("Online ÷ offline forward steps: worst ratio (where), most steps over offline, "
           "mean ratio over the stops.\n\n");
    printf("| C | n ≤ β(C,2) | β(C,2) < n ≤ β(C,3) | β(C,3) < n ≤ %lld | "
           "β(C,r) ± %lld, r ≥ 4, β ≤ %lld |\n|---|---|---|---|---|\n",
           (long long)max_n, (long long)radius, (long long)max_boundary);
    double worst3 = 1.0;
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
        int32_t c = slots[i];
        walker w;
        if (walker_init(&w, c) != 0)
            return 1;
        int64_t b2 = ebb_beta(c, 2), b3 = ebb_beta(c, 3);
        tally t[4] = {{0}};
        int64_t top = max_n;
        if (b3 > top)
            top = b3;
        for (int64_t n = 2; n <= top; n++) {
            int64_t online = walker_stop(&w, n), offline = 0;
            if (ebb_revolve_forward_count(n, c, &offline) != EBB_OK)
                return 1;
            tally_add(&t[n <= b2 ? 0 : n <= b3 ? 1 : 2], n, online, offline);
        }
        for (int64_t r = 4;; r++) {
            int64_t b = ebb_beta(c, r);
            if (b > max_boundary)
                break;
            for (int64_t n = b - radius < w.m + 1 ? w.m + 1 : b - radius; n <= b + radius; n++) {
                int64_t online = walker_stop(&w, n), offline = 0;
                if (ebb_revolve_forward_count(n, c, &offline) != EBB_OK)
                    return 1;
                tally_add(&t[3], n, online, offline);
            }
        }
        if (t[0].worst > worst3)
            worst3 = t[0].worst;
        if (t[1].worst > worst3)
            worst3 = t[1].worst;
        printf("| %d |", c);
        for (int k = 0; k < 4; k++)
            tally_print(&t[k]);
        printf("\n");
        fflush(stdout);
        ebb_online_place_free(&w.pl);
    }
    printf("\nworst ratio for n ≤ β(C,3): %.4f\n", worst3);
    return 0;
}
